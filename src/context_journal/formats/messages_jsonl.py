"""Messages as :meth:`ContextManager.add_messages` takes them, one JSON object per line (format ``messages``).

Each line is ``{"participant": str, "content": str | [content blocks], "id"?: str, "timestamp"?: float | ISO-8601,
"metadata"?: object}``: the shape of a :class:`~context_journal.messages.MessageInput`, so a host's own log
of messages imports as it was written. An optional first line ``{"conversation": {"id": str, "metadata":
object}}`` names the conversation and carries its metadata (the shared keys of
:mod:`~context_journal.formats.base`: ``assistant``, ``user``...); without it the conversation is
``messages:<file name>`` with no metadata. Participants are kept as written.

The file may be gzip-compressed (read by its first bytes, whatever its name). Damaged lines (not JSON, not
an object, a message of the wrong shape or with a malformed block) are left out and reported in the skip
report, naming the line (see :class:`~context_journal.formats.base.JsonLines`). Messages without an
``id`` get ``<conversation id>:<line number>``, so a re-import skips them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..content import parse_block
from ..errors import MalformedContentError
from ..messages import MessageInput, to_timestamp
from .base import Conversation, ImportResult, JsonLines, SkipLog

__all__ = ["read_messages_jsonl"]

_KEYS = {"participant", "content", "id", "timestamp", "metadata"}


def _problem(obj: dict[str, Any]) -> str | None:
    """What makes a line's object no message, or None."""
    extra = sorted(set(obj) - _KEYS)
    if extra:
        return f"unknown keys {extra} (a message line has {sorted(_KEYS)})"
    participant, content = obj.get("participant"), obj.get("content")
    if not isinstance(participant, str) or not participant.strip():
        return f"'participant' must be a non-empty string, got {participant!r}"[:200]
    if not isinstance(content, str | list):
        return f"'content' must be a string or a list of content blocks, got {type(content).__name__}"
    if isinstance(content, list):
        for k, block in enumerate(content):
            try:
                parse_block(block)
            except (MalformedContentError, ValueError, TypeError) as exc:
                return f"content[{k}] is not a content block: {exc}"[:300]
    if "id" in obj and (not isinstance(obj["id"], str) or not obj["id"]):
        return f"'id' must be a non-empty string, got {obj['id']!r}"[:200]
    if "metadata" in obj and not isinstance(obj["metadata"], dict):
        return f"'metadata' must be an object, got {type(obj['metadata']).__name__}"
    if obj.get("timestamp") is not None:
        try:
            to_timestamp(obj["timestamp"])
        except (TypeError, ValueError) as exc:
            return f"'timestamp' is not a time: {exc}"[:200]
    return None


def read_messages_jsonl(path: str | os.PathLike[str], data: Any = None) -> ImportResult:
    """Read a messages JSON Lines file (see the module docstring) into one conversation.

    Args:
        path: The file (plain or gzip-compressed).
        data: Unused (the JSON-document readers take the parsed document here).

    Raises:
        ImportFormatError: the file cannot be read, or no line of it is a message.
    """
    del data
    source = os.fspath(path)
    skips = SkipLog()
    lines = JsonLines(source, skips)
    conversation_id = f"messages:{Path(source).name}"
    metadata: dict[str, Any] = {}
    messages: list[MessageInput] = []
    for lineno, obj in lines:
        if lineno == 1 and set(obj) == {"conversation"}:
            head = obj["conversation"]
            if not isinstance(head, dict) or not isinstance(head.get("id", ""), str):
                lines.bad(lineno, "the 'conversation' line must be {'id': str, 'metadata': object}")
                continue
            conversation_id = head.get("id") or conversation_id
            meta = head.get("metadata", {})
            metadata = dict(meta) if isinstance(meta, dict) else {}
            continue
        problem = _problem(obj)
        if problem is not None:
            lines.bad(lineno, problem)
            continue
        messages.append(
            MessageInput(
                obj["participant"],
                obj["content"],
                obj.get("metadata"),
                obj.get("id") or f"{conversation_id}:{lineno}",
                obj.get("timestamp"),
            )
        )
    lines.finish(len(messages))
    conversation = Conversation(conversation_id, messages, metadata, primary=True)
    return ImportResult("messages", source, [conversation], skips.report())
