"""IRC channel logs with optional reply annotation (the Ubuntu IRC disentanglement corpus).

Follows the converter SPEC of ``shared/data/ubuntu-irc-disentanglement/README.md``:

- one conversation per ``<stem>.raw.txt`` file, id ``irc:<channel>:<stem>``; one message per line,
  id ``<stem>:<line index>`` (0-based, the annotation's indices), so nothing is dropped;
- ``[HH:MM] <nick> text`` lines are messages by participant ``<nick>``; every other line (``=== ...``
  joins, parts, renames and emotes, ``* nick`` actions, an empty ``<nick>``) is a system event by
  participant ``irc-server`` whose text is the raw line and whose metadata says what it was
  (``irc_event``: ``join``, ``part``, ``quit``, ``nick_change``, ``action``, ``empty_message``,
  ``other``; ``nick`` when one is named). ``A is now known as B`` records ``B`` as an alias of ``A``
  (``metadata["identity"]`` on B's messages, ``metadata["aliases"]`` on the conversation);
- ``addressed_to``: when the text starts with a known nick followed by ``:`` or ``,`` (any case) or
  by a space (exact case); bots (``ubotu``, ``ubottu``...) are flagged ``bot``;
- from ``<stem>.annotation.txt`` (``parent child -`` per line): ``reply_to`` (parent message ids),
  ``starts_thread`` for self-links, and ``thread``: the connected component of the link graph over
  annotated lines (index >= the first annotated line), named ``<stem>:t<smallest index>``.

Timestamps: the file name gives the date (``2016-06-08_07``) and each line ``HH:MM`` (UTC). The
date belongs to the first annotated line (index 1000 in this corpus, else the first timed line);
walking away from it, a clock that runs backwards across a line means midnight was crossed. One log
(``2005-07-06_14``) uses a 12-hour clock (``12:59`` then ``01:00``); that is detected and read as
such, the file name's hour giving am/pm. Lines without a time take the previous line's time.
"""

from __future__ import annotations

import itertools
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..errors import ImportFormatError
from ..messages import MessageInput
from .base import Conversation, ImportResult, SkipLog, decode_utf8

__all__ = ["BOTS", "SERVER_PARTICIPANT", "read_irc", "read_irc_file"]

SERVER_PARTICIPANT = "irc-server"
BOTS = frozenset({"ubotu", "ubottu", "ubot2", "ubot3", "ubot4", "ubot5", "floodbot1", "floodbot2", "floodbot3"})
ANNOTATED_FROM = 1000
"""First annotated line index of the Ubuntu corpus (lines before it are context)."""

_MESSAGE = re.compile(r"^\[(\d\d):(\d\d)\] <([^>]+)> (.*)$")
_TIMED = re.compile(r"^\[(\d\d):(\d\d)\]")
_EMPTY = re.compile(r"^\[\d\d:\d\d\] <([^>]+)>\s*$")
_ACTION = re.compile(r"^\[\d\d:\d\d\]\s+\* (\S+)")
_RENAME = re.compile(r"^=== (\S+) is now known as (\S+)")
_JOIN = re.compile(r"^=== (\S+) (?:\[[^\]]*\])?\s*has joined (\S+)")
_PART = re.compile(r"^=== (\S+) (?:\[[^\]]*\])?\s*has left (\S+)")
_QUIT = re.compile(r"^=== (\S+) (?:\[[^\]]*\])?\s*has quit")
_SERVER_ACTION = re.compile(r"^=== (\S+) ")
_STEM_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:_(\d{2}))?")


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".raw.txt", ".annotation.txt", ".txt"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def log_files(directory: Path) -> list[Path]:
    """The ``*.raw.txt`` files under ``directory``, sorted. Folders that cannot be listed, or that vanish
    while they are walked (a temporary directory another process is cleaning), are passed over: what is
    left is read, and a log that vanishes before it is read is reported by :func:`_read_lines`."""
    found: list[Path] = []
    for root, _dirs, names in os.walk(directory):  # errors listing a folder are ignored (onerror=None)
        found.extend(Path(root, name) for name in names if name.endswith(".raw.txt"))
    return sorted(found)


def _read_lines(path: Path, skips: SkipLog | None) -> list[str]:
    """The lines of a text file. Bytes that are not valid UTF-8 are read as U+FFFD, the line kept and
    reported in ``skips`` (file, line, byte); without ``skips`` they raise.

    Raises:
        ImportFormatError: the file cannot be read, or (without ``skips``) holds invalid bytes.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImportFormatError(f"cannot read the log ({exc})", source=str(path)) from None
    raw_lines = data.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    lines: list[str] = []
    offset = 0
    for number, raw in enumerate(raw_lines, start=1):
        line, bad, first = decode_utf8(raw)
        if bad:
            problem = (
                f"{bad:,} byte sequence{'' if bad == 1 else 's'} not valid UTF-8 (the first at byte {offset + first})"
            )
            if skips is None:
                raise ImportFormatError(f"not UTF-8 text: {problem}", source=str(path), location=f"line {number}")
            skips.damage(
                f"{path.name} line {number}",
                f"{problem}, read as U+FFFD",
                "more lines with bytes not valid UTF-8, read as U+FFFD",
                repaired=True,
            )
        lines.append(line.rstrip("\r"))
        offset += len(raw) + 1
    return lines


def _read_links(path: Path, n_lines: int, skips: SkipLog | None) -> list[tuple[int, int]]:
    """The ``(parent, child)`` links of an annotation file. A line that is not a link, or names a line
    the log does not have, is left out and reported in ``skips`` (raised without ``skips``); a file of
    which no line is a link raises.

    Raises:
        ImportFormatError: no line is a link but some are malformed, or (without ``skips``) a line is.
    """
    links: list[tuple[int, int]] = []
    first: ImportFormatError | None = None
    for number, line in enumerate(_read_lines(path, skips), start=1):
        parts = line.split()
        if not parts:
            continue
        error = None
        if len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
            error = ImportFormatError("expected '<parent> <child> -'", source=str(path), location=f"line {number}")
        elif int(parts[0]) >= n_lines or int(parts[1]) >= n_lines:
            error = ImportFormatError(
                f"line index out of range (the log has {n_lines} lines)", source=str(path), location=f"line {number}"
            )
        if error is None:
            links.append((int(parts[0]), int(parts[1])))
            continue
        if skips is None:
            raise error
        first = first or error
        problem = str(error).removeprefix(f"{error.source} at {error.location}: ")
        skips.damage(
            f"{path.name} line {number}", f"{problem}; the link was skipped", "more malformed annotation lines, skipped"
        )
    if not links and first is not None:
        raise first
    return links


def _clock(lines: list[str], date: datetime | None, hour: int | None) -> list[datetime | None]:
    """Per-line UTC times (see the module docstring): minutes elapse forward from the anchor line, modulo
    one day (or half a day for a 12-hour clock, i.e. one that shows only hours 1-12 and goes 12 -> 1)."""
    minutes: list[int | None] = []
    for line in lines:
        m = _TIMED.match(line)
        minutes.append(int(m.group(1)) * 60 + int(m.group(2)) if m else None)
    timed = [i for i, v in enumerate(minutes) if v is not None]
    if date is None or not timed:
        return [date] * len(lines)
    values = [v for v in minutes if v is not None]
    hours = [v // 60 for v in values]
    twelve = (
        min(hours) >= 1
        and max(hours) <= 12
        and any(a // 60 == 12 and b // 60 == 1 for a, b in itertools.pairwise(values))
    )
    period = 12 * 60 if twelve else 24 * 60
    anchor = next((i for i in timed if i >= ANNOTATED_FROM), timed[0])
    base = minutes[anchor]
    assert base is not None
    if twelve and hour is not None and hour >= 13 and base // 60 == hour - 12:
        base += 12 * 60
    offset: dict[int, int] = {anchor: base}
    prev_i = anchor
    for i in timed:
        if i > anchor:
            offset[i] = offset[prev_i] + ((minutes[i] or 0) - (minutes[prev_i] or 0)) % period
            prev_i = i
    prev_i = anchor
    for i in reversed(timed):
        if i < anchor:
            offset[i] = offset[prev_i] - ((minutes[prev_i] or 0) - (minutes[i] or 0)) % period
            prev_i = i
    out: list[datetime | None] = []
    current = offset[timed[0]]
    for i in range(len(lines)):
        current = offset.get(i, current)
        out.append(date + timedelta(minutes=current))
    return out


class _Threads:
    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def read_irc_file(
    raw_path: str | os.PathLike[str],
    *,
    annotation: str | os.PathLike[str] | None = None,
    channel: str = "#ubuntu",
    conversation_id: str | None = None,
    primary: bool = True,
    skips: SkipLog | None = None,
) -> Conversation:
    """Read one log file (and its annotation) into a conversation.

    Args:
        raw_path: The ``<stem>.raw.txt`` file.
        annotation: The ``<stem>.annotation.txt`` file (default: the sibling, when it exists).
        channel: The channel's name, for the conversation id.
        conversation_id: Override the id ``irc:<channel>:<stem>``.
        primary: Mark the conversation primary.
        skips: Where damage is reported: bytes that are not valid UTF-8 (read as U+FFFD, the line kept)
            and malformed annotation lines (left out). Without it, damage raises.

    Returns:
        The conversation, one message per line.

    Raises:
        ImportFormatError: the log cannot be read, no annotation line is a link, or (without ``skips``)
            a line is damaged (names the file and line).
    """
    path = Path(raw_path)
    stem = _stem(path)
    lines = _read_lines(path, skips)
    if annotation is None:
        sibling = path.with_name(f"{stem}.annotation.txt")
        annotation = sibling if sibling.exists() else None
    links = _read_links(Path(annotation), len(lines), skips) if annotation is not None else []
    m = _STEM_DATE.match(stem)
    date = datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)), tzinfo=UTC) if m else None
    times = _clock(lines, date, int(m.group(4)) if m and m.group(4) else None)

    reply_to: dict[int, list[int]] = {}
    starts: set[int] = set()
    for parent, child in links:
        if parent == child:
            starts.add(child)
        elif parent not in reply_to.setdefault(child, []):
            reply_to[child].append(parent)
    annotated_from = min((c for _, c in links), default=None)
    threads = _Threads()
    if annotated_from is not None:
        for parent, child in links:
            if parent >= annotated_from and child >= annotated_from:
                threads.union(parent, child)
            elif child >= annotated_from:
                threads.find(child)

    known: dict[str, str] = {}  # lower-case nick -> spelling as seen
    exact: set[str] = set()
    identity: dict[str, str] = {}  # nick -> first nick of the person
    messages: list[MessageInput] = []
    bots: set[str] = set()

    def learn(nick: str) -> None:
        known.setdefault(nick.lower(), nick)
        exact.add(nick)

    for i, line in enumerate(lines):
        meta: dict[str, Any] = {"line": i}
        tm = _TIMED.match(line)
        if tm:
            meta["irc_time"] = f"{tm.group(1)}:{tm.group(2)}"
        mm = _MESSAGE.match(line)
        if mm:
            nick, text = mm.group(3), mm.group(4)
            participant = nick
            first = re.match(r"^([^\s:,]+)[:,]", text)
            target = known.get(first.group(1).lower()) if first else None
            if target is None:
                token = text.split(" ", 1)[0] if " " in text else None
                target = token if token in exact else None
            if target is not None and target != nick:
                meta["addressed_to"] = [target]
            if nick.lower() in BOTS:
                meta["bot"] = True
                bots.add(nick)
            if nick in identity and identity[nick] != nick:
                meta["identity"] = identity[nick]
            learn(nick)
        else:
            participant, text = SERVER_PARTICIPANT, line
            meta.update(_event(line))
            if meta.get("irc_event") == "nick_change":
                old, new = meta["old_nick"], meta["new_nick"]
                identity[new] = identity.get(old, old)
                learn(old)
                learn(new)
            elif meta.get("irc_event") == "join":
                learn(meta["nick"])
        if i in reply_to:
            meta["reply_to"] = [f"{stem}:{p}" for p in reply_to[i]]
        if i in starts:
            meta["starts_thread"] = True
        if annotated_from is not None and i >= annotated_from and i in threads.parent:
            meta["thread"] = f"{stem}:t{threads.find(i)}"
        if not text:
            text = line or "(blank line)"
            meta["blank"] = True
        messages.append(MessageInput(participant, [{"type": "text", "text": text}], meta, f"{stem}:{i}", times[i]))

    roots = {threads.find(x) for x in threads.parent} if annotated_from is not None else set()
    metadata: dict[str, Any] = {
        "format": "irc",
        "channel": channel,
        "source_file": str(path),
        "annotation_file": str(annotation) if annotation is not None else None,
        "date": date.date().isoformat() if date else None,
        "assistant": None,
        "user": None,
        "system_participants": [SERVER_PARTICIPANT],
        "tool_participants": [],
        "bots": sorted(bots),
        "aliases": {k: v for k, v in identity.items() if k != v},
        "links": len(links),
        "self_links": sum(1 for p, c in links if p == c),
        "annotated_from": annotated_from,
        "threads": len(roots),
        "markers": [],
    }
    return Conversation(conversation_id or f"irc:{channel}:{stem}", messages, metadata, None, primary)


def _event(line: str) -> dict[str, Any]:
    """What a non-message line is: ``irc_event`` plus the nick(s) it names."""
    if m := _RENAME.match(line):
        return {"irc_event": "nick_change", "old_nick": m.group(1), "new_nick": m.group(2), "nick": m.group(1)}
    if m := _JOIN.match(line):
        return {"irc_event": "join", "nick": m.group(1)}
    if m := _PART.match(line):
        return {"irc_event": "part", "nick": m.group(1)}
    if m := _QUIT.match(line):
        return {"irc_event": "quit", "nick": m.group(1)}
    if m := _EMPTY.match(line):
        return {"irc_event": "empty_message", "nick": m.group(1)}
    if m := _ACTION.match(line):
        return {"irc_event": "action", "nick": m.group(1)}
    if m := _SERVER_ACTION.match(line):
        return {"irc_event": "action", "nick": m.group(1)}
    return {"irc_event": "other"}


def read_irc(path: str | os.PathLike[str], *, channel: str = "#ubuntu") -> ImportResult:
    """Read an IRC log: a ``.raw.txt`` file (its ``.annotation.txt`` sibling is used when present), an
    ``.annotation.txt`` file (its raw sibling is read), or a directory searched recursively for logs.

    Args:
        path: File or directory.
        channel: The channel's name, for conversation ids.

    Returns:
        One conversation per log file; a single file's conversation is primary.

    Damage is reported in the result's skip report, not raised: bytes that are not valid UTF-8 are read
    as U+FFFD (the line kept, so message ids stay line indices) and a malformed annotation line is left
    out, each under a reason naming the file and line.

    Raises:
        ImportFormatError: no log file was found, or an annotation file has no valid link at all (names it
            and its first bad line).
    """
    source = os.fspath(path)
    p = Path(source)
    if p.is_dir():
        files = log_files(p)
        if not files:
            raise ImportFormatError("no '*.raw.txt' IRC logs in this directory", source=source)
    else:
        if p.name.endswith(".annotation.txt"):
            p = p.with_name(f"{_stem(p)}.raw.txt")
        if not p.is_file():
            raise ImportFormatError("no such IRC log file", source=str(p))
        files = [p]
    stems = [_stem(f) for f in files]
    skips = SkipLog()
    conversations: list[Conversation] = []
    for f, stem in zip(files, stems, strict=True):
        conv_id = f"irc:{channel}:{stem}"
        if stems.count(stem) > 1:
            conv_id = f"irc:{channel}:{f.parent.name}/{stem}"
        conversations.append(
            read_irc_file(f, channel=channel, conversation_id=conv_id, primary=len(files) == 1, skips=skips)
        )
    return ImportResult("irc", source, conversations, skips.report())
