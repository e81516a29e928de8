"""The OpenAI Chat Completions wire format: one turn of content blocks as ``messages`` entries.

Used by :func:`context_journal.formats.to_openai` (a compiled context) and by the OpenAI adapter
(:class:`context_journal.llm.OpenAIProvider`, a summary request), so both send the same payload for the
same blocks. Mapping (platform.openai.com, "Chat Completions API reference"):

* an assistant turn: text blocks become ``content`` (a string for one text, else text parts), ``tool_use``
  blocks ``tool_calls`` (``arguments``: :func:`call_arguments`), an image or document a line saying it was
  left out (assistant messages carry text only), Anthropic provider blocks (server tool calls and results,
  ``mcp_*``, ``compaction``...) and OpenAI item blocks a line of text; thinking is not sent (the API has no
  field for it), and a turn left with nothing is no message;
* a user turn: each ``tool_result`` becomes a ``{"role": "tool", "tool_call_id", "content"}`` message, in
  order, before the turn's other blocks (they must follow the assistant's ``tool_calls``); its text
  (:func:`tool_result_text`) is prefixed ``[error]`` when ``is_error`` (the API has no such field) and is
  ``(no output)`` when empty; images and files inside it follow in the user message, as the turn's other
  blocks do: text parts, ``image_url`` parts (base64 and stored media as a data URL), ``file`` parts (a
  base64 PDF as ``file_data``, a Files API document by ``file_id``); an image given by Files API id and a URL
  document have no Chat Completions form and become a line of text naming them;
* ``name``, when given, is the message's ``name`` (the speaker, where the API takes one).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .._provider_render import PROVIDER_TYPES, provider_line
from .media import BlobReader, data_url

__all__ = ["call_arguments", "encode_chat_turn", "input_json", "parse_tool_arguments", "tool_result_text"]

Block = Mapping[str, Any]


def parse_tool_arguments(raw: Any) -> tuple[dict[str, Any], bool]:
    """Turn OpenAI ``function.arguments`` (a JSON string) into a ``tool_use`` input object.

    Returns:
        ``(input, ok)``. When the text is not a JSON object, or holds values the journal cannot store
        (``NaN``, ``Infinity``, a number too large for a float such as ``1e400``, a lone surrogate such as
        ``"\\ud800"``), ``input`` is ``{"_raw_arguments": raw}`` (the raw string kept, sent back as it came)
        and ``ok`` is False.
    """
    if isinstance(raw, dict):
        return raw, True
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
            if isinstance(value, dict):  # what the store's strict JSON can hold
                json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
        except (ValueError, RecursionError, UnicodeEncodeError):
            return {"_raw_arguments": raw}, False
        if isinstance(value, dict):
            return value, True
    return {"_raw_arguments": raw if isinstance(raw, str) else json.dumps(raw)}, False


def input_json(tool_input: Any) -> str:
    """The JSON text of a ``tool_use`` input (``json.dumps``, ``ensure_ascii=False``), or the raw text an
    import kept for arguments that were not a JSON object (``{"_raw_arguments": text}``)."""
    if isinstance(tool_input, Mapping) and set(tool_input) == {"_raw_arguments"}:
        raw = tool_input["_raw_arguments"]
        if isinstance(raw, str):
            return raw
    return json.dumps(tool_input if tool_input is not None else {}, ensure_ascii=False)


def _same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same (key order aside; ``true`` is not ``1``, nor ``1.0``)."""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False


def call_arguments(block: Block) -> str:
    """A ``tool_use`` block's function-call ``arguments`` text, for Chat Completions and the Responses API.

    The text the import read (kept as ``item_extra["arguments"]`` when it is not what :func:`input_json`
    writes: other whitespace, key order, escapes) goes back byte for byte while parsing it still gives the
    block's ``input`` (a prompt-cache prefix depends on the bytes; an edited input is sent as its JSON
    text); arguments the import could not parse (``{"_raw_arguments": text}``) go back as they came; any
    other input as its JSON text."""
    tool_input = block.get("input", {})
    arguments = input_json(tool_input)
    kept = block.get("item_extra")
    raw = kept.get("arguments") if isinstance(kept, Mapping) else None
    if isinstance(raw, str) and raw != arguments:
        parsed, ok = parse_tool_arguments(raw)
        if ok and _same_json(parsed, tool_input):
            return raw
    return arguments


def user_part(block: Block, get_blob: BlobReader | None) -> dict[str, Any] | None:
    """One user content part for a block (None for a block with no user-message form: thinking, an empty
    provider line).

    Raises:
        ValueError: stored media (a ``blob`` source) and no ``get_blob``.
    """
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block["text"]}
    source = block.get("source")
    if kind == "image" and isinstance(source, Mapping):
        if source.get("type") == "file":  # Chat Completions takes images by URL only
            return {"type": "text", "text": f"[image: Files API file {source.get('file_id')}]"}
        url = data_url(source, get_blob)
        return {"type": "image_url", "image_url": {"url": url}} if url else None
    if kind == "document" and isinstance(source, Mapping):
        if source.get("type") == "text":
            return {"type": "text", "text": str(source.get("data", ""))}
        if source.get("type") == "file":
            return {"type": "file", "file": {"file_id": str(source.get("file_id"))}}
        url = data_url(source, get_blob)
        if url and url.startswith("data:"):
            ext = str(source.get("media_type") or "application/pdf").rsplit("/", 1)[-1]
            name = str(block.get("title") or f"document.{ext}")
            return {"type": "file", "file": {"filename": name, "file_data": url}}
        return {"type": "text", "text": f"[document: {url}]"} if url else None
    if kind in PROVIDER_TYPES:
        line = provider_line(block)
        return {"type": "text", "text": line} if line.strip() else None
    return None


def tool_result_text(block: Block, get_blob: BlobReader | None, media: list[dict[str, Any]]) -> str:
    """The ``content`` of the ``tool`` message for a ``tool_result`` block: its text parts joined by a line
    break, ``(no output)`` when there is no text, prefixed ``[error]`` when ``is_error``. Its images and
    files are appended to ``media`` (they go in the user message after the tool messages: a ``tool``
    message carries text only); a block with no form at all leaves a line saying it was left out.

    Raises:
        ValueError: stored media (a ``blob`` source) and no ``get_blob``.
    """
    content = block.get("content", "")
    if isinstance(content, str):
        text = content
    else:
        parts: list[str] = []
        for b in content:
            part = user_part(b, get_blob) if isinstance(b, Mapping) else None
            if part is None:
                kind = b.get("type") if isinstance(b, Mapping) else type(b).__name__
                if kind not in PROVIDER_TYPES:  # a provider block with no text is nothing to say
                    parts.append(f"[{kind} omitted: tool messages carry text only]")
            elif part["type"] == "text":
                parts.append(str(part["text"]))
            else:
                media.append(part)
        text = "\n".join(parts)
    text = text if text.strip() else "(no output)"
    return f"[error] {text}" if block.get("is_error") else text


def _content_value(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    if len(parts) == 1 and parts[0]["type"] == "text":
        return str(parts[0]["text"])
    return parts


def _assistant(blocks: Iterable[Block], name: str | None) -> dict[str, Any] | None:
    texts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    for b in blocks:
        kind = b.get("type")
        if kind == "text":
            texts.append({"type": "text", "text": b["text"]})
        elif kind == "tool_use":
            calls.append(
                {"id": b["id"], "type": "function", "function": {"name": b["name"], "arguments": call_arguments(b)}}
            )
        elif kind in ("image", "document"):
            texts.append({"type": "text", "text": f"[{kind} omitted: assistant messages carry text only]"})
        elif kind in PROVIDER_TYPES:
            # Chat Completions has no provider-tool blocks: a server call, its result and a compaction
            # summary are read as text (encrypted content cannot be sent there).
            line = provider_line(b)
            if line.strip():
                texts.append({"type": "text", "text": line})
    if not texts and not calls:
        return None  # thinking only: nothing Chat Completions can carry
    msg: dict[str, Any] = {"role": "assistant", "content": _content_value(texts) if texts else None}
    if calls:
        msg["tool_calls"] = calls
    if name is not None:
        msg["name"] = name
    return msg


def encode_chat_turn(
    role: str, blocks: Iterable[Block], get_blob: BlobReader | None = None, *, name: str | None = None
) -> list[dict[str, Any]]:
    """The Chat Completions messages for one turn (module docstring): for ``"assistant"``, one message or
    none; for ``"user"``, a ``tool`` message per ``tool_result`` and then one user message when anything
    else is left.

    Args:
        role: ``"user"`` or ``"assistant"``.
        blocks: The turn's content blocks as dicts.
        get_blob: Reads stored media (``blob`` sources) by sha256; None when the blocks hold none.
        name: The speaker's name to send, or None.

    Raises:
        ValueError: stored media and no ``get_blob``.
    """
    if role == "assistant":
        msg = _assistant(blocks, name)
        return [] if msg is None else [msg]
    out: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for b in blocks:
        if b.get("type") == "tool_result":
            text = tool_result_text(b, get_blob, parts)
            out.append({"role": "tool", "tool_call_id": b["tool_use_id"], "content": text})
            continue
        part = user_part(b, get_blob)
        if part is not None:
            parts.append(part)
    if parts:
        user: dict[str, Any] = {"role": "user", "content": _content_value(parts)}
        if name is not None:
            user["name"] = name
        out.append(user)
    return out
