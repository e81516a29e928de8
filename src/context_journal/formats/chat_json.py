"""Plain chat transcripts: Anthropic Messages JSON and OpenAI Chat Completions JSON.

- **Anthropic**: ``{"system": str | [text blocks], "messages": [{"role", "content"}...]}`` or a bare
  list of messages. Content is a string or Anthropic blocks, kept as given (tool results stay inside
  user messages, as the API has them). Participants: ``system``, ``user``, ``assistant``.
- **OpenAI**: ``{"messages": [...]}`` or a bare list. ``system``/``developer`` messages become
  participant ``system``; ``assistant`` ``tool_calls`` become ``tool_use`` blocks (the JSON
  ``arguments`` parsed; the raw string kept as ``{"_raw_arguments": ...}`` when it is not a JSON
  object, and as ``item_extra["arguments"]`` when it is one but not the JSON text the exports write for
  its ``input``, other whitespace say, so ``to_openai()`` and ``to_openai_responses()`` send it back byte
  for byte: a prompt-cache prefix depends on the bytes); consecutive ``tool`` messages answering one
  assistant message are merged into one message of participant ``tool`` so every ``tool_use`` is
  answered in the next message. A user message's
  ``name`` becomes its participant. The legacy ``function_call`` / ``function`` pair is read too.

Message ids are ``<conversation id>:<index in the list>``; a message's own ``timestamp`` or
``created_at`` is kept when present.

A file is one JSON document: bytes in it that are not valid UTF-8 are read as U+FFFD and reported in
the skip report (file, line and byte of the first, how many); a file that is not valid JSON (one cut off
mid-write, say) raises :class:`~context_journal.errors.ImportFormatError` naming its line, column and
byte (see :func:`~context_journal.formats.base.load_json`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._block_types import ASSISTANT_ONLY_TYPES, USER_ONLY_TYPES
from ..content import parse_block
from ..errors import ImportFormatError, MalformedContentError
from ..messages import MessageInput
from ..wire.chat_completions import input_json
from .base import Conversation, ImportResult, SkipLog, expect, has_lone_surrogate, load_json, parse_tool_arguments

__all__ = ["OpenAIReader", "read_anthropic", "read_openai"]

_ANTHROPIC_TYPES = {"text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document"} | set(
    ASSISTANT_ONLY_TYPES | USER_ONLY_TYPES
)  # the provider blocks (server tool pairs, mcp_*, compaction, search_result, container_upload)


def _messages_of(data: Any, source: str) -> tuple[Any, list[Any]]:
    """``(system, messages)`` from a ``{"messages": ...}`` object or a bare list."""
    if isinstance(data, dict):
        expect(
            isinstance(data.get("messages"), list),
            "expected an object with a 'messages' list",
            source=source,
            location="top level",
        )
        return data.get("system"), list(data["messages"])
    expect(
        isinstance(data, list),
        "expected a list of messages or an object with 'messages'",
        source=source,
        location="top level",
    )
    return None, list(data)


def _timestamp(msg: dict[str, Any]) -> Any:
    value = msg.get("timestamp", msg.get("created_at"))
    return value if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None


def _problem(block: dict[str, Any]) -> str | None:
    """Why ``block`` is malformed (``"malformed content block: ..."``), or None. A malformed block skips
    its message, reported under that reason at the block's place; the rest of the file imports
    (importers check per message). A block with a lone surrogate is left to the write, which refuses it;
    the import then writes the message with U+FFFD in its place and reports that."""
    try:
        parse_block(block)
    except MalformedContentError as exc:
        if has_lone_surrogate(block):
            return None
        return f"malformed content block: {exc.reason}"
    return None


# --- Anthropic -----------------------------------------------------------------------------------


def read_anthropic(path: str | os.PathLike[str], *, data: Any = None) -> ImportResult:
    """Read an Anthropic Messages transcript.

    Args:
        path: The JSON file.
        data: The parsed file, when the caller already has it.

    Returns:
        One primary conversation ``anthropic:<file stem>``.

    A message with a malformed block is skipped and reported at the block (``messages[1].content[0]``);
    the rest of the file is read.

    Raises:
        ImportFormatError: the file is not a message list, or a message has no valid role or content.
    """
    source = os.fspath(path)
    skips = SkipLog()
    data = load_json(source, skips) if data is None else data
    system, raw = _messages_of(data, source)
    conv_id = f"anthropic:{Path(source).stem}"
    messages: list[MessageInput] = []
    if system:
        blocks = [{"type": "text", "text": system}] if isinstance(system, str) else system
        expect(
            isinstance(blocks, list), "'system' must be text or a list of text blocks", source=source, location="system"
        )
        bad = next(((j, why) for j, b in enumerate(blocks) if (why := _problem(b)) is not None), None)
        if bad is not None:
            skips.add(bad[1], f"system[{bad[0]}]")
        else:
            messages.append(MessageInput("system", blocks, {"role": "system", "pinned": True}, f"{conv_id}:system"))
    for i, msg in enumerate(raw):
        where = f"messages[{i}]"
        expect(
            isinstance(msg, dict) and msg.get("role") in ("user", "assistant", "system"),
            "a message needs 'role' 'user' or 'assistant'",
            source=source,
            location=where,
        )
        content = msg.get("content")
        if isinstance(content, str):
            blocks = [{"type": "text", "text": content}] if content.strip() else []
        else:
            expect(
                isinstance(content, list), "'content' must be text or a list of blocks", source=source, location=where
            )
            blocks = []
            broken = False
            for j, b in enumerate(content):
                if isinstance(b, str):
                    b = {"type": "text", "text": b}
                btype = b.get("type") if isinstance(b, dict) else None
                if btype not in _ANTHROPIC_TYPES:
                    skips.add(f"unsupported block type {btype!r}", f"{where}.content[{j}]")
                    continue
                assert isinstance(b, dict)
                if btype == "text" and not str(b.get("text", "")).strip():
                    skips.add("whitespace-only text block", f"{where}.content[{j}]")
                    continue
                why = _problem(b)
                if why is not None:  # the message is skipped, reported at the block
                    skips.add(why, f"{where}.content[{j}]")
                    broken = True
                    break
                blocks.append(b)
            if broken:
                continue
        if not blocks:
            skips.add("empty message", where)
            continue
        meta: dict[str, Any] = {"role": msg["role"], "index": i}
        for key in ("id", "model", "usage", "stop_reason"):
            if key in msg:
                meta[key] = msg[key]
        messages.append(MessageInput(str(msg["role"]), blocks, meta, f"{conv_id}:{i}", _timestamp(msg)))
    metadata = {
        "format": "anthropic",
        "assistant": "assistant",
        "user": "user",
        "system_participants": ["system"],
        "tool_participants": [],
        "markers": [],
    }
    if isinstance(data, dict) and isinstance(data.get("model"), str):
        metadata["model"] = data["model"]
    return ImportResult("anthropic", source, [Conversation(conv_id, messages, metadata, None, True)], skips.report())


# --- OpenAI --------------------------------------------------------------------------------------


class OpenAIReader:
    """Turns OpenAI chat messages into messages; shared by the OpenAI and tau-bench importers.

    Args:
        source: The file read (named in errors).
        skips: Where skipped parts are reported.
        names: Participant per role: keys ``system``, ``user``, ``assistant``, ``tool``.
        id_prefix: Message ids are ``<id_prefix><index>``.
        user_names: Use a user message's ``name`` as its participant.
    """

    def __init__(
        self, source: str, skips: SkipLog, names: dict[str, str], id_prefix: str, *, user_names: bool = True
    ) -> None:
        self.source = source
        self.skips = skips
        self.names = names
        self.id_prefix = id_prefix
        self.user_names = user_names
        self.unparsed_arguments = 0

    def _parts(self, content: Any, where: str) -> list[dict[str, Any]]:
        if content is None:
            return []
        if isinstance(content, str):
            return [{"type": "text", "text": content}] if content.strip() else []
        expect(
            isinstance(content, list),
            "'content' must be text, null or a list of parts",
            source=self.source,
            location=where,
        )
        out: list[dict[str, Any]] = []
        for j, part in enumerate(content):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text" and isinstance(part.get("text"), str) and part["text"].strip():
                out.append({"type": "text", "text": part["text"]})
            elif kind == "refusal" and isinstance(part.get("refusal"), str):
                out.append({"type": "text", "text": part["refusal"]})
            elif kind == "image_url" and isinstance(part.get("image_url"), dict):
                url = str(part["image_url"].get("url", ""))
                if url.startswith("data:") and ";base64," in url:
                    media, data = url[5:].split(";base64,", 1)
                    out.append({"type": "image", "source": {"type": "base64", "media_type": media, "data": data}})
                else:
                    out.append({"type": "image", "source": {"type": "url", "url": url}})
                why = _problem(out[-1])
                if why is not None:  # the part is left out and reported, as an unsupported part is
                    out.pop()
                    self.skips.add(why, f"{where}[{j}]")
            else:
                self.skips.add(f"unsupported content part {kind!r}", f"{where}[{j}]")
        return out

    def convert(self, raw: list[Any], where_prefix: str = "") -> list[MessageInput]:
        """Convert a list of OpenAI chat messages.

        Raises:
            ImportFormatError: a message has an unknown role or a tool call / tool message lacks its id.
        """
        out: list[MessageInput] = []
        open_calls: set[str] = set()  # tool_use ids of the last assistant message
        legacy: dict[str, str] = {}  # function name -> id of its pending legacy call
        merging = False  # the last message in ``out`` is a tool-result message that may take more
        for i, msg in enumerate(raw):
            where = f"{where_prefix}[{i}]"
            expect(
                isinstance(msg, dict) and isinstance(msg.get("role"), str),
                "a message needs a 'role'",
                source=self.source,
                location=where,
            )
            role = msg["role"]
            mid = f"{self.id_prefix}{i}"
            meta: dict[str, Any] = {"role": role, "index": i}
            if role in ("tool", "function"):
                legacy_id = legacy.pop(str(msg.get("name")), None) if role == "function" else None
                call_id = msg.get("tool_call_id") if role == "tool" else legacy_id
                expect(
                    isinstance(call_id, str) and bool(call_id),
                    "a tool message needs its 'tool_call_id'",
                    source=self.source,
                    location=where,
                )
                assert isinstance(call_id, str)
                content = msg.get("content")
                text = (
                    content
                    if isinstance(content, str)
                    else "\n".join(b["text"] for b in self._parts(content, f"{where}.content") if b["type"] == "text")
                )
                block = {"type": "tool_result", "tool_use_id": call_id, "content": text}
                tool_name = msg.get("name")
                if merging and call_id in open_calls and out:
                    last = out[-1]
                    assert isinstance(last.content, list) and isinstance(last.metadata, dict)
                    last.content.append(block)
                    last.metadata.setdefault("indices", [last.metadata["index"]]).append(i)
                    last.metadata.setdefault("tool_names", []).append(tool_name)
                    continue
                meta["tool_names"] = [tool_name]
                out.append(MessageInput(self.names["tool"], [block], meta, mid, _timestamp(msg)))
                merging = True
                continue
            merging = False
            if role in ("system", "developer"):
                participant = self.names["system"]
                meta["pinned"] = True
                blocks = self._parts(msg.get("content"), f"{where}.content")
            elif role == "user":
                name = msg.get("name")
                participant = name if self.user_names and isinstance(name, str) and name else self.names["user"]
                blocks = self._parts(msg.get("content"), f"{where}.content")
            elif role == "assistant":
                participant = self.names["assistant"]
                blocks = self._parts(msg.get("content"), f"{where}.content")
                open_calls = set()
                broken = False
                calls = msg.get("tool_calls") or []
                expect(isinstance(calls, list), "'tool_calls' must be a list", source=self.source, location=where)
                fc = msg.get("function_call")
                if isinstance(fc, dict):
                    legacy[str(fc.get("name"))] = f"{mid}:function_call"
                    calls = [*calls, {"id": f"{mid}:function_call", "function": fc}]
                for k, call in enumerate(calls):
                    cwhere = f"{where}.tool_calls[{k}]"
                    fn = call.get("function") if isinstance(call, dict) else None
                    expect(
                        isinstance(fn, dict) and isinstance(call.get("id"), str) and isinstance(fn.get("name"), str),
                        "a tool call needs 'id' and 'function.name'",
                        source=self.source,
                        location=cwhere,
                    )
                    assert isinstance(call, dict) and isinstance(fn, dict)
                    args, ok = parse_tool_arguments(fn.get("arguments"))
                    if not ok:
                        self.unparsed_arguments += 1
                        meta.setdefault("unparsed_arguments", []).append(call["id"])
                    use: dict[str, Any] = {"type": "tool_use", "id": call["id"], "name": fn["name"], "input": args}
                    said = fn.get("arguments")
                    if ok and isinstance(said, str) and said != input_json(args):
                        use["item_extra"] = {"arguments": said}  # sent back byte for byte (a prompt-cache prefix)
                    why = _problem(use)
                    if why is not None:  # the message is skipped, reported at the call
                        self.skips.add(why, cwhere)
                        broken = True
                        break
                    blocks.append(use)
                    open_calls.add(call["id"])
                if broken:
                    open_calls = set()
                    continue
            else:
                raise ImportFormatError(f"unknown role {role!r}", source=self.source, location=where)
            if not blocks:
                self.skips.add("empty message", where)
                continue
            out.append(MessageInput(participant, blocks, meta, mid, _timestamp(msg)))
        return out


def read_openai(path: str | os.PathLike[str], *, data: Any = None) -> ImportResult:
    """Read an OpenAI Chat Completions transcript.

    Args:
        path: The JSON file.
        data: The parsed file, when the caller already has it.

    Returns:
        One primary conversation ``openai:<file stem>``.

    Raises:
        ImportFormatError: the file is not a message list or a message has the wrong shape (names its index).
    """
    source = os.fspath(path)
    skips = SkipLog()
    data = load_json(source, skips) if data is None else data
    _, raw = _messages_of(data, source)
    conv_id = f"openai:{Path(source).stem}"
    names = {"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"}
    reader = OpenAIReader(source, skips, names, f"{conv_id}:")
    messages = reader.convert(raw, "messages")
    metadata: dict[str, Any] = {
        "format": "openai",
        "assistant": "assistant",
        "user": "user",
        "system_participants": ["system"],
        "tool_participants": ["tool"],
        "markers": [],
    }
    if isinstance(data, dict) and isinstance(data.get("model"), str):
        metadata["model"] = data["model"]
    return ImportResult("openai", source, [Conversation(conv_id, messages, metadata, None, True)], skips.report())
