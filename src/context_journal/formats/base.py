"""The shared vocabulary of the importers: conversations, skip reports and small reading helpers.

Every importer turns one transcript file into an :class:`ImportResult`: a list of
:class:`Conversation` objects (each a list of :class:`~context_journal.messages.MessageInput` ready
for :meth:`ContextManager.add_messages`) plus a report of what was left out and why
(:class:`Skipped`). Importers never write to a store; :func:`context_journal.formats.import_into`
does that.

Conversation metadata keys shared by every format:

- ``assistant``: the participant that plays the assistant role for the whole conversation, or None
  when nobody does (LoCoMo, IRC);
- ``user``: the participant in the user role, when there is one;
- ``system_participants``: participants whose messages are instructions (e.g. tau-bench ``policy``);
- ``tool_participants``: participants that author tool results;
- ``markers``: positioned events that are not messages (compaction boundaries, session starts), each
  a dict with ``kind`` and ``after_message_id`` / ``first_message_id``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ImportFormatError
from ..messages import MessageInput

__all__ = [
    "FORMATS",
    "Conversation",
    "ImportResult",
    "SkipLog",
    "Skipped",
    "iter_jsonl",
    "load_json",
    "pairing_problems",
    "parse_tool_arguments",
]

FORMATS = ("claude-code", "locomo", "tau-bench", "irc", "anthropic", "openai")
"""The format names :func:`read_transcript` accepts (besides ``"auto"``)."""

SAMPLE_LOCATIONS = 5
"""How many locations a :class:`Skipped` entry keeps as examples."""


@dataclass
class Conversation:
    """One thread of a transcript, ready to be written to a store.

    Attributes:
        id: Stable id (e.g. ``claude-code:<session>``, ``tau-airline:3:1``); also the namespace an
            isolated conversation is written to.
        messages: The messages in order; every one has an id, so a re-import can skip them.
        metadata: Conversation facts (see the module docstring for the shared keys).
        parent_id: Id of the conversation this one hangs off (a Claude Code sub-agent), or None.
        primary: True for the transcript's main conversation (written into the caller's namespace).
    """

    id: str
    messages: list[MessageInput]
    metadata: dict[str, Any] = field(default_factory=dict)
    parent_id: str | None = None
    primary: bool = False


@dataclass(frozen=True)
class Skipped:
    """Records of one kind that were not turned into messages.

    Attributes:
        reason: Why, in words (e.g. ``"progress"``, ``"whitespace-only text block"``).
        count: How many records (lines, blocks, messages) were skipped for this reason.
        sample_locations: Up to five places (``"file:line 12"``, ``"[3].traj[5]"``) as examples.
    """

    reason: str
    count: int
    sample_locations: tuple[str, ...] = ()


class SkipLog:
    """Collects skips by reason while an importer runs."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._samples: dict[str, list[str]] = {}

    def add(self, reason: str, location: str, count: int = 1) -> None:
        """Count ``count`` skipped records for ``reason``; keep ``location`` as an example."""
        self._counts[reason] = self._counts.get(reason, 0) + count
        samples = self._samples.setdefault(reason, [])
        if len(samples) < SAMPLE_LOCATIONS:
            samples.append(location)

    def extend(self, skipped: list[Skipped]) -> None:
        """Merge another importer's report into this one."""
        for s in skipped:
            self._counts[s.reason] = self._counts.get(s.reason, 0) + s.count
            samples = self._samples.setdefault(s.reason, [])
            samples.extend(s.sample_locations[: max(0, SAMPLE_LOCATIONS - len(samples))])

    def report(self) -> list[Skipped]:
        """The skips, one entry per reason, most frequent first."""
        order = sorted(self._counts, key=lambda r: (-self._counts[r], r))
        return [Skipped(r, self._counts[r], tuple(self._samples.get(r, ()))) for r in order]


@dataclass
class ImportResult:
    """What an importer read from one source.

    Attributes:
        format: The format name (one of :data:`FORMATS`).
        source: The file or directory read.
        conversations: The conversations, the primary one (if any) first.
        skipped: What was left out, by reason.
    """

    format: str
    source: str
    conversations: list[Conversation]
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def message_count(self) -> int:
        """Messages across all conversations."""
        return sum(len(c.messages) for c in self.conversations)

    @property
    def skipped_count(self) -> int:
        """Skipped records across all reasons."""
        return sum(s.count for s in self.skipped)

    @property
    def primary(self) -> Conversation | None:
        """The primary conversation, or None when the source holds several of equal standing."""
        return next((c for c in self.conversations if c.primary), None)

    def conversation(self, conversation_id: str) -> Conversation:
        """The conversation with this id.

        Raises:
            KeyError: no conversation has the id.
        """
        for c in self.conversations:
            if c.id == conversation_id:
                return c
        raise KeyError(conversation_id)


# --- reading helpers -----------------------------------------------------------------------------


def load_json(path: str | os.PathLike[str]) -> Any:
    """Parse a whole JSON file.

    Raises:
        ImportFormatError: the file cannot be read or is not valid JSON (names line and column).
    """
    source = os.fspath(path)
    try:
        text = Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFormatError(f"cannot read the file ({exc})", source=source) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(
            f"invalid JSON ({exc.msg}); fix or re-export the file", source=source, location=f"line {exc.lineno}"
        ) from None
    except RecursionError:
        raise ImportFormatError(_TOO_DEEP, source=source) from None


_TOO_DEEP = "JSON nested too deeply to read (no transcript nests this deep; the file is damaged or not a transcript)"


def iter_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for each non-blank line of a JSON Lines file (1-based numbers).

    Raises:
        ImportFormatError: a line is not valid JSON or not a JSON object (names the line).
    """
    source = os.fspath(path)
    try:
        handle = open(source, encoding="utf-8")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise ImportFormatError(f"cannot read the file ({exc})", source=source) from None
    with handle:
        lineno = 0
        try:
            for lineno, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ImportFormatError(
                        f"invalid JSON ({exc.msg} at column {exc.colno}); the line may be truncated",
                        source=source,
                        location=f"line {lineno}",
                    ) from None
                except RecursionError:
                    raise ImportFormatError(_TOO_DEEP, source=source, location=f"line {lineno}") from None
                if not isinstance(obj, dict):
                    raise ImportFormatError(
                        f"each line must be a JSON object, got {type(obj).__name__}",
                        source=source,
                        location=f"line {lineno}",
                    )
                yield lineno, obj
        except UnicodeDecodeError as exc:
            raise ImportFormatError(f"not UTF-8 text ({exc})", source=source, location=f"line {lineno + 1}") from None


def parse_tool_arguments(raw: Any) -> tuple[dict[str, Any], bool]:
    """Turn OpenAI ``function.arguments`` (a JSON string) into a ``tool_use`` input object.

    Returns:
        ``(input, ok)``. When the text is not a JSON object, ``input`` is ``{"_raw_arguments": raw}``
        (the raw string kept) and ``ok`` is False.
    """
    if isinstance(raw, dict):
        return raw, True
    if isinstance(raw, str):
        try:
            value = json.loads(raw) if raw.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            return {"_raw_arguments": raw}, False
        if isinstance(value, dict):
            return value, True
    return {"_raw_arguments": raw if isinstance(raw, str) else json.dumps(raw)}, False


def expect(condition: bool, message: str, *, source: str, location: str) -> None:
    """Raise :class:`ImportFormatError` unless ``condition`` holds.

    Raises:
        ImportFormatError: with ``message`` at ``location`` of ``source``.
    """
    if not condition:
        raise ImportFormatError(message, source=source, location=location)


def pairing_problems(messages: list[MessageInput]) -> dict[str, list[str]]:
    """Where the pair rule breaks: every ``tool_use`` of message k must be answered in message k+1.

    Returns:
        ``{"unanswered_tool_uses": [...], "orphan_tool_results": [...]}`` with only the non-empty lists
        (an empty dict when the rule holds).
    """
    unanswered: list[str] = []
    orphans: list[str] = []
    prev_uses: set[str] = set()
    for m in messages:
        blocks = m.content if isinstance(m.content, list) else []
        results = {str(b["tool_use_id"]) for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"}
        orphans.extend(sorted(results - prev_uses))
        unanswered.extend(sorted(prev_uses - results))
        prev_uses = {str(b["id"]) for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"}
    unanswered.extend(sorted(prev_uses))
    return {k: v for k, v in (("unanswered_tool_uses", unanswered), ("orphan_tool_results", orphans)) if v}
