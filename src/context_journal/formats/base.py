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

import gzip
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._names import LONE_SURROGATE
from ..errors import ImportFormatError
from ..messages import MessageInput
from ..wire.chat_completions import parse_tool_arguments

__all__ = [
    "FORMATS",
    "Conversation",
    "ImportResult",
    "JsonLines",
    "SkipLog",
    "Skipped",
    "decode_utf8",
    "iter_jsonl",
    "load_json",
    "open_lines",
    "pairing_problems",
    "parse_tool_arguments",
]

FORMATS = ("claude-code", "locomo", "tau-bench", "irc", "anthropic", "openai", "openai-responses", "messages")
"""The format names :func:`read_transcript` accepts (besides ``"auto"``)."""

SAMPLE_LOCATIONS = 5
"""How many locations a :class:`Skipped` entry keeps as examples."""

NAMED_DAMAGE = 10
"""Damaged lines (or byte runs) of a source reported each under a reason naming its place; further ones
are counted together (see :meth:`SkipLog.damage`)."""


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
    """Records of one kind that were not turned into messages, or were repaired on the way in.

    Attributes:
        reason: Why, in words (e.g. ``"progress"``, ``"whitespace-only text block"``).
        count: How many records (lines, blocks, messages) were skipped (or repaired) for this reason.
        sample_locations: Up to five places (``"file:line 12"``, ``"[3].traj[5]"``) as examples.
        repaired: True when the records were kept, repaired (bytes or half a surrogate pair read as
            U+FFFD), not left out: counted apart from the skips (a review saw an import that wrote every
            message report "skipped 1").
    """

    reason: str
    count: int
    sample_locations: tuple[str, ...] = ()
    repaired: bool = False


class SkipLog:
    """Collects skips by reason while an importer runs."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._samples: dict[str, list[str]] = {}
        self._repaired: set[str] = set()
        self._named_damage = 0

    def add(self, reason: str, location: str, count: int = 1, *, repaired: bool = False) -> None:
        """Count ``count`` skipped records for ``reason`` (``repaired``: records kept, repaired, see
        :attr:`Skipped.repaired`); keep ``location`` as an example."""
        if repaired:
            self._repaired.add(reason)
        self._counts[reason] = self._counts.get(reason, 0) + count
        samples = self._samples.setdefault(reason, [])
        if len(samples) < SAMPLE_LOCATIONS:
            samples.append(location)

    def extend(self, skipped: list[Skipped]) -> None:
        """Merge another importer's report into this one."""
        for s in skipped:
            if s.repaired:
                self._repaired.add(s.reason)
            self._counts[s.reason] = self._counts.get(s.reason, 0) + s.count
            samples = self._samples.setdefault(s.reason, [])
            samples.extend(s.sample_locations[: max(0, SAMPLE_LOCATIONS - len(samples))])

    def report(self) -> list[Skipped]:
        """The skips, one entry per reason, most frequent first."""
        order = sorted(self._counts, key=lambda r: (-self._counts[r], r))
        return [Skipped(r, self._counts[r], tuple(self._samples.get(r, ())), r in self._repaired) for r in order]

    def damage(self, location: str, problem: str, more: str, count: int = 1, *, repaired: bool = False) -> None:
        """Report damage in the source (a line that is not JSON, bytes that are not UTF-8) under a reason
        that names the place, so whoever reads the report finds it; past :data:`NAMED_DAMAGE` such reasons
        in one log, further damage is counted under ``more`` (with sample locations).

        Args:
            location: Where, e.g. ``"session.jsonl line 15"``.
            problem: What is wrong and what was done about it.
            more: The reason further damage of this kind is counted under.
            count: Records (or byte runs) concerned.
            repaired: The records were kept, repaired (see :attr:`Skipped.repaired`).
        """
        if self._named_damage < NAMED_DAMAGE:
            self._named_damage += 1
            self.add(f"{location}: {problem}", location, count, repaired=repaired)
        else:
            self.add(more, location, count, repaired=repaired)


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
        """Skipped records across all reasons (not those repaired, see :attr:`repaired_count`)."""
        return sum(s.count for s in self.skipped if not s.repaired)

    @property
    def repaired_count(self) -> int:
        """Records kept but repaired (see :attr:`Skipped.repaired`), across all reasons."""
        return sum(s.count for s in self.skipped if s.repaired)

    @property
    def skipped_by_reason(self) -> dict[str, int]:
        """Reading's skips as ``{reason: count}`` (not the repairs)."""
        return {s.reason: s.count for s in self.skipped if not s.repaired}

    @property
    def repaired_by_reason(self) -> dict[str, int]:
        """Reading's repairs as ``{reason: count}``."""
        return {s.reason: s.count for s in self.skipped if s.repaired}

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


def decode_utf8(raw: bytes, encoding: str = "utf-8") -> tuple[str, int, int]:
    """``raw`` decoded, every invalid byte sequence read as U+FFFD.

    Returns:
        ``(text, bad, first)``: the text, how many U+FFFD were put in, and the offset in ``raw`` of the
        first invalid byte (-1 when there is none).
    """
    try:
        return raw.decode(encoding), 0, -1
    except UnicodeDecodeError as exc:
        first = exc.start
    text = raw.decode(encoding, errors="replace")
    bad = text.count("\ufffd") - raw.decode(encoding, errors="ignore").count("\ufffd")
    return text, bad, first


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def load_json(path: str | os.PathLike[str], skips: SkipLog | None = None) -> Any:
    """Parse a whole JSON file (UTF-8, or UTF-16/32 with a byte order mark, as :func:`json.loads` reads bytes).

    Bytes that are not valid in the file's encoding (one damaged byte in a large export is common) are
    read as U+FFFD REPLACEMENT CHARACTER when ``skips`` is given, and reported there under a reason naming
    the line and byte of the first one and how many there were; the rest of the file is read as written.
    Without ``skips`` they raise.

    Raises:
        ImportFormatError: the file cannot be read, is not valid JSON (names line, column and byte, and
            says so when the file ends early, as a file cut off mid-write does), nests too deep, or
            (without ``skips``) holds invalid bytes (names line and byte).
    """
    source = os.fspath(path)
    name = Path(source).name
    try:
        raw = Path(source).read_bytes()
    except OSError as exc:
        raise ImportFormatError(f"cannot read the file ({exc})", source=source) from None
    encoding = json.detect_encoding(raw)
    text, bad, first = decode_utf8(raw, encoding)
    if bad:
        line = raw.count(b"\n", 0, first) + 1 if encoding.startswith("utf-8") else None
        where = f"line {line}, byte {first}" if line is not None else f"byte {first}"
        if skips is None:
            raise ImportFormatError(
                f"not {encoding.upper().removesuffix('-SIG')} text (byte 0x{raw[first]:02x} at byte {first} "
                "cannot be decoded)",
                source=source,
                location=f"line {line}" if line is not None else f"byte {first}",
            )
        skips.damage(
            f"{name} {where}",
            f"{_plural(bad, 'byte sequence')} not valid {encoding.upper().removesuffix('-SIG')} (the first "
            "here), read as U+FFFD; the rest of the file was read as written",
            "more invalid bytes, read as U+FFFD",
            bad,
            repaired=True,
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = len(text[: exc.pos].encode("utf-8" if encoding.startswith("utf-8") else encoding, errors="replace"))
        cut = " the file ends before the JSON does: it was cut off (an interrupted write?);" if _ends_early(exc) else ""
        raise ImportFormatError(
            f"invalid JSON ({_json_problem(exc, at)});{cut} fix or re-export the file",
            source=source,
            location=f"line {exc.lineno}",
        ) from None
    except RecursionError:
        raise ImportFormatError(_TOO_DEEP, source=source) from None


def _json_problem(exc: json.JSONDecodeError, byte: int) -> str:
    """``"Expecting ',' delimiter at column 12, byte 345"`` (line numbers are the caller's)."""
    at = " " if exc.msg.endswith(" at") else " at "
    return f"{exc.msg}{at}column {exc.colno}, byte {byte}"


def _ends_early(exc: json.JSONDecodeError) -> bool:
    """Whether the JSON text ended before its value did (a file or line cut off)."""
    return exc.msg.startswith("Unterminated string") or not exc.doc[exc.pos :].strip()


_TOO_DEEP = "JSON nested too deeply to read (no transcript nests this deep; the file is damaged or not a transcript)"


def open_lines(path: str | os.PathLike[str]) -> io.BufferedIOBase:
    """A file opened for reading bytes, decompressed when it is gzip (told by its first two bytes, not its
    name). Raises OSError as :func:`open` does."""
    handle = open(path, "rb")  # noqa: SIM115 - the caller closes it
    if handle.peek(2)[:2] == b"\x1f\x8b":
        handle.close()
        return gzip.open(path, "rb")
    return handle


class JsonLines:
    """The objects of a JSON Lines file, read line by line, with damage reported rather than fatal.

    With a skip log, a line that cannot be used (not JSON, typically the last line of a file cut off
    mid-write; not an object; nested too deep) is left out and reported under a reason naming the file,
    line and byte (:meth:`SkipLog.damage`), and bytes that are not valid UTF-8 are read as U+FFFD (the line
    is kept, and reported). A reader that refuses an object's shape reports it with :meth:`bad`. A file
    of which no line can be used still raises (:meth:`finish`), with the first damaged line's place.
    Without a skip log, the first damaged line raises.

    Args:
        path: The file.
        skips: Where damaged lines are reported; None to raise on the first.
    """

    def __init__(self, path: str | os.PathLike[str], skips: SkipLog | None = None) -> None:
        self.source = os.fspath(path)
        self.name = Path(self.source).name
        self.skips = skips
        self.first_error: ImportFormatError | None = None

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """``(line number, object)`` for each usable non-blank line (1-based numbers).

        Raises:
            ImportFormatError: the file cannot be opened, or (without a skip log) a line is damaged.
        """
        try:
            handle = open_lines(self.source)
        except OSError as exc:
            raise ImportFormatError(f"cannot read the file ({exc})", source=self.source) from None
        with handle:
            offset = 0
            for lineno, raw in enumerate(handle, start=1):
                at, offset = offset, offset + len(raw)
                if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte order mark
                    raw, at = raw[3:], at + 3
                obj = self._parse(lineno, at, raw)
                if obj is not None:
                    yield lineno, obj

    def _parse(self, lineno: int, at: int, raw: bytes) -> dict[str, Any] | None:
        text, bad, first = decode_utf8(raw)
        if not text.strip():
            return None
        where = f"line {lineno}"
        cut_off = not raw.endswith(b"\n")  # only the last line can lack its newline
        problem = f"{_plural(bad, 'byte sequence')} not valid UTF-8 (the first at byte {at + first})" if bad else ""
        if bad and self.skips is None:
            raise ImportFormatError(f"not UTF-8 text: {problem}", source=self.source, location=where)
        also = f" (the line also holds {problem})" if bad else ""
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            byte = at + len(text[: exc.pos].encode("utf-8", errors="replace"))
            what = f"invalid JSON ({_json_problem(exc, byte)}){also}"
            if cut_off:  # the file ends inside the line: a writer stopped mid-line
                what = f"the last line is cut off (no newline at its end: an interrupted write?): {what}"
            self.bad(lineno, what, hint="" if cut_off else "the line may be truncated")
            return None
        except RecursionError:
            self.bad(lineno, _TOO_DEEP + also)
            return None
        if not isinstance(obj, dict):
            self.bad(lineno, f"each line must be a JSON object, got {type(obj).__name__}{also}")
            return None
        if bad and self.skips is not None:
            self.skips.damage(
                f"{self.name} {where}",
                f"{problem}, read as U+FFFD",
                "more lines with bytes not valid UTF-8, read as U+FFFD",
                repaired=True,
            )
        return obj

    def bad(self, lineno: int, problem: str, *, hint: str = "", location: str | None = None) -> None:
        """Report line ``lineno`` as unusable: with a skip log, left out and reported; without, raised.

        Args:
            lineno: The line.
            problem: What is wrong with it.
            hint: Words added to the error raised (not to the report).
            location: The error's location (default ``"line <lineno>"``).

        Raises:
            ImportFormatError: there is no skip log.
        """
        error = ImportFormatError(
            f"{problem}; {hint}" if hint else problem, source=self.source, location=location or f"line {lineno}"
        )
        if self.skips is None:
            raise error
        if self.first_error is None:
            self.first_error = error
        self.skips.damage(
            f"{self.name} {location or f'line {lineno}'}",
            f"{problem}; the line was skipped",
            "more damaged lines, skipped",
        )

    def finish(self, used: int) -> None:
        """Raise when no line of the file could be used but some were damaged (the file is not this
        format, or is damaged throughout).

        Args:
            used: How many lines the reader used.

        Raises:
            ImportFormatError: ``used`` is 0 and a line was damaged (names the first damaged line).
        """
        if used == 0 and self.first_error is not None:
            first = self.first_error
            message = str(first).removeprefix(f"{first.source} at {first.location}: ")
            raise ImportFormatError(
                f"no line of the file could be read (is it a JSON Lines file?); the first: {message}",
                source=first.source,
                location=first.location,
            )


def iter_jsonl(path: str | os.PathLike[str], skips: SkipLog | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, object)`` for each non-blank line of a JSON Lines file (1-based numbers).

    With ``skips``, damaged lines are reported there and left out (see :class:`JsonLines`); a file of
    which no line can be read still raises.

    Raises:
        ImportFormatError: a line is not valid JSON, not UTF-8 or not a JSON object (names the line and
            byte); with ``skips``, only when no line could be read.
    """
    lines = JsonLines(path, skips)
    used = 0
    for item in lines:
        used += 1
        yield item
    lines.finish(used)


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


def has_lone_surrogate(value: Any, depth: int = 0) -> bool:
    """True when a string anywhere in ``value`` (a JSON-shaped block: keys too) holds a lone surrogate,
    which no UTF-8 store can encode. Such a block is not a malformed file: the write of its message
    refuses it with a :class:`~context_journal.errors.MalformedContentError` naming the field, and the
    import writes that message with U+FFFD in its place and reports it (a surrogate in a
    ``tool_use`` name or id, or in a key, once failed the whole file)."""
    if depth > 64:
        return False
    if isinstance(value, str):
        return LONE_SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(has_lone_surrogate(k, depth + 1) or has_lone_surrogate(v, depth + 1) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(has_lone_surrogate(v, depth + 1) for v in value)
    return False
