"""Exporters: a :class:`~context_journal.compile.CompileResult` as the official SDKs take it.

* :func:`to_anthropic` → ``{"system": [...], "messages": [...]}`` (plus any extra parameters given),
  ready for ``anthropic.Anthropic().messages.create(**params)``.
* :func:`to_openai` → a Chat Completions ``messages`` list for
  ``openai.OpenAI().chat.completions.create(model=..., messages=...)``.

Both merge consecutive turns of one role (strict providers require alternation; Anthropic's docs
note that consecutive same-role turns are combined), keep only the fields each API accepts (a stored
block may carry the host's own fields; a ``tool_use`` keeps its ``caller``, as Claude Code records it,
and a ``caller`` that is null, as a model dump of a server block has it, is left out), and turn stored
media (``blob`` sources) back into base64.

Anthropic prompt caching (by default: ``to_anthropic(cache=False)`` adds no marker of its own):
``cache_control: {"type": "ephemeral"}`` goes on the last system block and on
the last cacheable block of the messages marked ``cache_breakpoint`` (one per sent message: compiled
turns merged into one carry the last one's). The API accepts at most 4 markers per request, counted over
everything that carries one: the host's own markers on stored blocks, on system blocks and on the tool
definitions passed as ``tools=``, and these. One marker per tools array, system prompt and message is kept
(the last: it covers the prefix of the others), then at most 4 of those: the tools', the system
prompt's, then the newest messages'; the rest are removed and a
:class:`~context_journal._cache_markers.CacheMarkersDroppedWarning` lists them (thinking blocks and empty
text never carry one). A 5-minute marker before a 1-hour one is raised to 1 hour (the API wants longer
TTLs first) and a :class:`~context_journal._cache_markers.CacheMarkersRaisedWarning` names it. See
Anthropic's "Prompt caching" guide.

OpenAI mapping: assistant ``tool_use`` blocks become ``tool_calls`` (``arguments`` is the text the import
read, byte for byte, while parsing it still gives ``input``, else the JSON text of ``input``; arguments the
import could not parse go back as they came: see :func:`call_arguments`); each ``tool_result`` becomes a
``tool`` message right after the assistant message (text only: nested images become a placeholder;
``is_error`` results are prefixed ``[error]``); thinking is not sent (Chat Completions has no field for
it); user images become ``image_url`` parts with a data URL, PDFs ``file`` parts, a document given by
Files API id a ``file`` part with its ``file_id`` (an image given so has no Chat Completions form and
becomes a text line naming the file). Anthropic provider
blocks (server tool calls and results, ``mcp_*``, ``compaction``, ``search_result``,
``container_upload``) are sent to Anthropic as stored and to OpenAI
as text parts of their message (a server call and its result are one turn's text, so tool pairing is
untouched; encrypted content is left out). OpenAI ``reasoning`` items go to neither (only the Responses
export, :mod:`context_journal.formats.openai_responses`, sends them), as thinking is not sent to OpenAI.
OpenAI built-in tool items (``openai_item`` blocks: ``web_search_call``, ``computer_call_output``...) go
to both as a line of text in their turn, and a text block's OpenAI annotations (``url_citation``...) are
not sent to Anthropic (its citations are of its own kinds).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._cache_markers import (
    MAX_CACHE_BREAKPOINTS,
    CacheMarkersDroppedWarning,
    CacheMarkersRaisedWarning,
    can_carry_marker,
    cap_cache_markers,
)
from .._provider_render import PROVIDER_TYPES, provider_line
from ..content import OPENAI_CITATION_TYPES
from .base import parse_tool_arguments

if TYPE_CHECKING:
    from ..compile import CompiledMessage, CompileResult

__all__ = [
    "MAX_CACHE_BREAKPOINTS",
    "CacheMarkersDroppedWarning",
    "CacheMarkersRaisedWarning",
    "to_anthropic",
    "to_openai",
]

Block = dict[str, Any]

_ANTHROPIC_FIELDS: dict[str, tuple[str, ...]] = {
    "text": ("type", "text", "citations", "cache_control"),
    "image": ("type", "source", "cache_control"),
    "document": ("type", "source", "title", "context", "citations", "cache_control"),
    "tool_use": ("type", "id", "name", "input", "caller", "cache_control"),
    "tool_result": ("type", "tool_use_id", "content", "is_error", "cache_control"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
}
_SOURCE_FIELDS: dict[str, tuple[str, ...]] = {
    "base64": ("type", "media_type", "data"),
    "url": ("type", "url"),
    "text": ("type", "media_type", "data"),
}
_CACHEABLE = ("text", "image", "document", "tool_use", "tool_result")


def _check_assistant(result: CompileResult, assistant: str | None) -> None:
    if assistant is not None and assistant not in result.assistant:
        raise ValueError(
            f"{assistant!r} was not the assistant when this context was compiled (it was {list(result.assistant)}); "
            f"compile with assistant={assistant!r} so its turns are rendered as the assistant's"
        )


def _source(source: Mapping[str, Any], get_blob: Callable[[str], bytes] | None) -> dict[str, Any]:
    kind = source.get("type")
    if kind == "blob":
        if get_blob is None:
            raise ValueError("this result holds stored media but no blob reader; compile through a ContextManager")
        data = base64.b64encode(get_blob(str(source["sha256"]))).decode("ascii")
        return {"type": "base64", "media_type": source["media_type"], "data": data}
    fields = _SOURCE_FIELDS.get(str(kind))
    return {k: source[k] for k in fields if k in source} if fields else dict(source)


def _anthropic_block(block: Mapping[str, Any], get_blob: Callable[[str], bytes] | None) -> Block:
    kind = str(block.get("type"))
    fields = _ANTHROPIC_FIELDS.get(kind)
    out: Block = {k: block[k] for k in fields if k in block} if fields else dict(block)
    if "caller" in out and out["caller"] is None:
        del out["caller"]  # a model dump's null: the request types take an object there or nothing
    if kind == "openai_item":  # an OpenAI built-in tool's item: Anthropic has no such block
        return {"type": "text", "text": provider_line(block)}
    if kind == "text" and isinstance(out.get("citations"), list):
        # A model dump's citations carry ``file_id: None``, which the request types do not take (their
        # ``title: None`` is taken: a nullable field they require). OpenAI annotations (``url_citation``...)
        # are not Anthropic citations: left out (the field too when none is left).
        out["citations"] = [
            {k: v for k, v in c.items() if not (k == "file_id" and v is None)} if isinstance(c, Mapping) else c
            for c in out["citations"]
            if not (isinstance(c, Mapping) and c.get("type") in OPENAI_CITATION_TYPES)
        ]
        if not out["citations"] and block["citations"]:
            del out["citations"]
    if kind in ("image", "document") and isinstance(block.get("source"), Mapping):
        out["source"] = _source(block["source"], get_blob)
    elif kind == "tool_result" and isinstance(block.get("content"), list):
        out["content"] = [_anthropic_block(b, get_blob) for b in block["content"]]
    return out


def _merge_runs(messages: Sequence[CompiledMessage]) -> list[tuple[str, list[CompiledMessage]]]:
    runs: list[tuple[str, list[CompiledMessage]]] = []
    for m in messages:
        if runs and runs[-1][0] == m.role:
            runs[-1][1].append(m)
        else:
            runs.append((m.role, [m]))
    return runs


def to_anthropic(
    result: CompileResult, *, assistant: str | None = None, cache: bool = True, **params: Any
) -> dict[str, Any]:
    """Anthropic Messages API parameters for a compiled context.

    Args:
        result: The compiled context.
        assistant: The assistant's participant name, checked against the compile's (None = no check).
        cache: Add ``cache_control`` breakpoints (system prompt and marked messages): True, the default,
            adds them; False sends only the markers the host put on stored blocks, system blocks and
            ``tools``. Either way the request carries at most 4 markers in all (see the module docstring).
        **params: Other request parameters to include (``model``, ``max_tokens``, ``tools``...). Markers on
            ``tools`` count toward the limit; the caller's tool dicts are never changed.

    Returns:
        ``{"system": [text blocks], "messages": [{"role", "content"}], **params}``; ``system`` is left out
        when empty.

    Raises:
        ValueError: ``assistant`` is not the compile's assistant, or stored media cannot be read.

    Warns:
        CacheMarkersDroppedWarning: markers were removed to keep the request within the limit (its
            ``dropped`` and ``kept`` attributes are paths into the returned request).
        CacheMarkersRaisedWarning: 5-minute markers before a 1-hour one were raised to 1 hour (its
            ``raised`` attribute: their paths).
    """
    _check_assistant(result, assistant)
    get_blob = result.get_blob
    messages: list[dict[str, Any]] = []
    marks: dict[int, int] = {}  # message index -> block index of its cache breakpoint (the last: one each)
    for role, group in _merge_runs(result.messages):
        content: list[Block] = []
        for m in group:
            sent = [b for b in m.content if b.get("type") != "reasoning"]  # OpenAI's: Anthropic takes none
            content.extend(_anthropic_block(b, get_blob) for b in sent)
            if m.cache_breakpoint:
                for j in range(len(content) - 1, len(content) - len(sent) - 1, -1):
                    if content[j].get("type") in _CACHEABLE and can_carry_marker(content[j]):
                        marks[len(messages)] = j
                        break
        if content:
            messages.append({"role": role, "content": content})
    system = [_anthropic_block(b, get_blob) for b in result.system]
    if cache:
        if system and can_carry_marker(system[-1]):
            system[-1] = _with_marker(system[-1])
        for i, j in marks.items():
            messages[i]["content"][j] = _with_marker(messages[i]["content"][j])
    tools = params.get("tools")
    if isinstance(tools, list):
        params["tools"] = tools = list(tools)
    cap_cache_markers(tools=tools if isinstance(tools, list) else None, system=system, messages=messages)
    out: dict[str, Any] = {}
    if system:
        out["system"] = system
    out["messages"] = messages
    out.update(params)
    return out


def _with_marker(block: Block) -> Block:
    """The block with a breakpoint (a host's own marker, e.g. with a ``ttl``, is kept as it is)."""
    return block if "cache_control" in block else {**block, "cache_control": {"type": "ephemeral"}}


def _data_url(source: Mapping[str, Any], get_blob: Callable[[str], bytes] | None) -> str | None:
    src = _source(source, get_blob)
    if src.get("type") == "base64":
        return f"data:{src['media_type']};base64,{src['data']}"
    if src.get("type") == "url":
        return str(src["url"])
    return None


def _tool_text(block: Mapping[str, Any]) -> str:
    content = block.get("content", "")
    if isinstance(content, str):
        text = content
    else:
        parts = []
        for b in content:
            if b.get("type") == "text":
                parts.append(str(b.get("text", "")))
            elif (
                b.get("type") == "document"
                and isinstance(b.get("source"), Mapping)
                and b["source"].get("type") == "text"
            ):
                parts.append(str(b["source"].get("data", "")))
            elif b.get("type") in PROVIDER_TYPES:
                parts.append(provider_line(b))
            elif isinstance(b.get("source"), Mapping) and b["source"].get("type") == "file":
                parts.append(f"[{b.get('type')}: Files API file {b['source'].get('file_id')}]")
            else:
                parts.append(f"[{b.get('type')} omitted: tool messages carry text only]")
        text = "\n".join(parts)
    text = text if text.strip() else "(no output)"
    return f"[error] {text}" if block.get("is_error") else text


def _user_part(block: Mapping[str, Any], get_blob: Callable[[str], bytes] | None) -> dict[str, Any] | None:
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block["text"]}
    if kind == "image" and isinstance(block.get("source"), Mapping):
        if block["source"].get("type") == "file":  # Chat Completions takes images by URL only
            return {"type": "text", "text": f"[image: Files API file {block['source'].get('file_id')}]"}
        url = _data_url(block["source"], get_blob)
        return {"type": "image_url", "image_url": {"url": url}} if url else None
    if kind == "document" and isinstance(block.get("source"), Mapping):
        source = block["source"]
        if source.get("type") == "text":
            return {"type": "text", "text": str(source.get("data", ""))}
        if source.get("type") == "file":
            return {"type": "file", "file": {"file_id": str(source.get("file_id"))}}
        url = _data_url(source, get_blob)
        if url and url.startswith("data:"):
            name = str(block.get("title") or "document.pdf")
            return {"type": "file", "file": {"filename": name, "file_data": url}}
        return {"type": "text", "text": f"[document: {url}]"} if url else None
    if kind in PROVIDER_TYPES:
        line = provider_line(block)
        return {"type": "text", "text": line} if line.strip() else None
    return None


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


def call_arguments(block: Mapping[str, Any]) -> str:
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


def _content_value(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    if len(parts) == 1 and parts[0]["type"] == "text":
        return str(parts[0]["text"])
    return parts


def to_openai(
    result: CompileResult, *, assistant: str | None = None, system_role: str = "system"
) -> list[dict[str, Any]]:
    """Chat Completions messages for a compiled context.

    Args:
        result: The compiled context.
        assistant: The assistant's participant name, checked against the compile's (None = no check).
        system_role: ``"system"`` or ``"developer"`` (OpenAI's reasoning models prefer the latter).

    Returns:
        ``[{"role": "system", ...}, {"role": "user", ...}, {"role": "assistant", "tool_calls": [...]},
        {"role": "tool", "tool_call_id": ..., "content": ...}, ...]``.

    Raises:
        ValueError: ``assistant`` is not the compile's assistant, or stored media cannot be read.
    """
    _check_assistant(result, assistant)
    get_blob = result.get_blob
    out: list[dict[str, Any]] = []
    system_text = "\n\n".join(str(b.get("text", "")) for b in result.system if b.get("type") == "text")
    if system_text.strip():
        out.append({"role": system_role, "content": system_text})
    for role, group in _merge_runs(result.messages):
        blocks = [b for m in group for b in m.content]
        if role == "assistant":
            texts: list[dict[str, Any]] = []
            calls: list[dict[str, Any]] = []
            for b in blocks:
                kind = b.get("type")
                if kind == "text":
                    texts.append({"type": "text", "text": b["text"]})
                elif kind == "tool_use":
                    calls.append(
                        {
                            "id": b["id"],
                            "type": "function",
                            "function": {
                                "name": b["name"],
                                "arguments": call_arguments(b),
                            },
                        }
                    )
                elif kind in ("image", "document"):
                    texts.append({"type": "text", "text": f"[{kind} omitted: assistant messages carry text only]"})
                elif kind in PROVIDER_TYPES:
                    # Chat Completions has no provider-tool blocks: a server call, its result and a
                    # compaction summary are read as text (encrypted content cannot be sent there).
                    line = provider_line(b)
                    if line.strip():
                        texts.append({"type": "text", "text": line})
            msg: dict[str, Any] = {"role": "assistant"}
            if texts:
                msg["content"] = _content_value(texts)
            elif not calls:
                continue  # thinking only: nothing Chat Completions can carry
            else:
                msg["content"] = None
            if calls:
                msg["tool_calls"] = calls
            out.append(msg)
            continue
        parts: list[dict[str, Any]] = []
        for b in blocks:
            if b.get("type") == "tool_result":
                out.append({"role": "tool", "tool_call_id": b["tool_use_id"], "content": _tool_text(b)})
                continue
            part = _user_part(b, get_blob)
            if part is not None:
                parts.append(part)
        if parts:
            out.append({"role": "user", "content": _content_value(parts)})
    return out
