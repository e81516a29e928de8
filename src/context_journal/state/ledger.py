"""The working-state ledger: files, identifiers, commands and errors, plans, web searches, folded from
messages.

:class:`Ledger` is a deterministic left fold over a conversation's messages (no model): ``add`` takes
one message's content blocks and updates bounded tables in O(size of the message), so the same
messages in the same order always give the same ledger. Blocks whose ``audience`` does not name the
ledger's reader are skipped (reader isolation). :meth:`Ledger.state` returns the immutable
:class:`WorkingState` the compile renders and ``ContextManager.working_state()`` returns.

Provider-side tools are read like tool calls: an ``mcp_tool_use`` / ``mcp_tool_result`` pair
as a ``tool_use`` / ``tool_result`` (its name looked up in the same tables); a ``server_tool_use`` by
:data:`~context_journal.state.tools.SERVER_TOOLS` (a ``web_fetch``'s URL is a file ``fetched``; the
commands of ``bash_code_execution`` and the code of ``code_execution`` are commands, their status and
exit code from the result's ``return_code`` and their error lines from its stderr and stdout; an error
result's ``error_code`` is an error line), and a ``web_search``'s query with its top
:data:`SEARCH_HITS` results (title and URL) is a :class:`WebSearch`. Server blocks carry no
``audience`` (the content model refuses one), so they count for every reader of their message; the
blocks of a message that carry one count only for the readers they name.

Identifiers are ranked by frequency x recency: each mention adds 1 (a name only in a tool result:
1/2) to a score that halves every ``LedgerConfig.half_life`` messages (a message counts a name once).
"""

from __future__ import annotations

import json
import math
import re
from bisect import bisect_left, insort
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import asdict, dataclass, field
from itertools import compress, count, filterfalse
from typing import Any, Literal

from .._graphemes import ceil_boundary, clip_end, floor_boundary
from .._names import shows_nothing
from .tools import (
    DEFAULT_PLAN_TOOLS,
    DEFAULT_TOOLS,
    SERVER_TOOLS,
    PlanShape,
    ToolSpec,
    check_table,
    command_files,
    command_text,
    lookup,
    patch_files,
)

__all__ = [
    "CommandRun",
    "FileTouch",
    "Identifier",
    "Ledger",
    "LedgerConfig",
    "Plan",
    "PlanItem",
    "WebSearch",
    "WorkingState",
]

Placement = Literal["turn", "recent", "head"]


_LONG_FROM, _LONG_AT = 4.0, 16.0  # conversation / budget where share_long starts and is reached


@dataclass(frozen=True)
class LedgerConfig:
    """The knobs of the working-state ledger.

    Attributes:
        share: Share of the compile's budget (``max_tokens - reserve_for_response``) the ledger block
            may use, 0..0.9; 0 disables the block (``working_state()`` still works).
        share_long: The share when the conversation is long against the budget: it grows linearly
            from ``share`` when the conversation holds 4x the budget to ``share_long`` at 16x and
            beyond, by whole multiples (the summaries then hold ever less of each message, the
            ledger's files and names do not). ``share`` when lower; unused when ``share`` is 0.
        placement: Where the block goes: ``"turn"`` (default) just before the newest user turn, so
            everything before it stays a stable prompt-cache prefix; ``"recent"`` before the strategy's
            last raw span (the recent window); ``"head"`` after the head window.
        tools: Extra or overriding tool name -> :class:`~context_journal.state.ToolSpec` entries.
        plan_tools: Extra or overriding tool name -> :class:`~context_journal.state.PlanShape` entries.
        half_life: Messages after which an identifier mention counts half.
        max_identifiers: Identifiers kept (the lowest ranked half is dropped past this).
        max_files: Files kept (the least recently touched half is dropped past this).
        max_commands: Commands kept, newest.
        max_errors: Distinct error lines kept, newest.
        max_searches: Web searches kept, newest.
        marker_participant: Who speaks the block's first (user) turn.
        scan_chars: Characters of each text and tool input string scanned for names.
        result_scan_chars: Characters of a tool result's head scanned for names and error lines (and
            half as many of its tail): results are long and their names matter less than the ones the
            agent writes (measured with ``benchmarks/bench_ledger.py`` and ``eval_compaction.py``).
        checkpoint_every: Appends between two persisted checkpoints of the ledger (a state record per
            message slot, branch and reader group; see :mod:`context_journal.state.checkpoint`), so
            open and fork fold at most about this many messages; 0 keeps the ledger in memory only.
    """

    share: float = 0.15
    share_long: float = 0.3
    placement: Placement = "turn"
    tools: Mapping[str, ToolSpec] = field(default_factory=dict)
    plan_tools: Mapping[str, PlanShape] = field(default_factory=dict)
    half_life: float = 200.0
    max_identifiers: int = 2048
    max_files: int = 2048
    max_commands: int = 64
    max_errors: int = 32
    max_searches: int = 16
    marker_participant: str = "Context Manager"
    scan_chars: int = 1500
    result_scan_chars: int = 400
    checkpoint_every: int = 512

    _INTS = (
        "max_identifiers",
        "max_files",
        "max_commands",
        "max_errors",
        "max_searches",
        "scan_chars",
        "result_scan_chars",
        "checkpoint_every",
    )

    def __post_init__(self) -> None:
        for name in ("share", "share_long", "half_life"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
                raise TypeError(f"LedgerConfig.{name} must be a number, got {value!r}")
        for name in self._INTS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"LedgerConfig.{name} must be an integer, got {value!r}")
        if not isinstance(self.marker_participant, str) or not self.marker_participant.strip():
            who = self.marker_participant
            raise TypeError(f"LedgerConfig.marker_participant must be a non-blank name, got {who!r}")
        if not 0 <= self.share <= 0.9:
            raise ValueError(f"LedgerConfig.share must be within 0..0.9, got {self.share}")
        if not 0 <= self.share_long <= 0.9:
            raise ValueError(f"LedgerConfig.share_long must be within 0..0.9, got {self.share_long}")
        if self.placement not in ("turn", "recent", "head"):
            raise ValueError(f"LedgerConfig.placement must be 'turn', 'recent' or 'head', got {self.placement!r}")
        if self.half_life <= 0:
            raise ValueError("LedgerConfig.half_life must be positive")
        for name in self._INTS:
            if name != "checkpoint_every" and getattr(self, name) < 1:
                raise ValueError(f"LedgerConfig.{name} must be >= 1")
        if self.checkpoint_every < 0:
            raise ValueError("LedgerConfig.checkpoint_every must be >= 0")
        check_table("LedgerConfig.tools", self.tools, ToolSpec)
        check_table("LedgerConfig.plan_tools", self.plan_tools, PlanShape)

    def share_for(self, conversation_tokens: int, budget: int) -> float:
        """The block's share of a ``budget`` for a conversation of ``conversation_tokens`` (see
        ``share_long``)."""
        if self.share == 0 or self.share_long <= self.share or budget <= 0:
            return self.share
        times = conversation_tokens // budget  # whole steps: the share (and the block) stays put between them
        ramp = min(1.0, max(0.0, (times - _LONG_FROM) / (_LONG_AT - _LONG_FROM)))
        return self.share + (self.share_long - self.share) * ramp

    def fingerprint(self) -> str:
        """What the fold depends on (not the rendering knobs), as text."""
        return repr(
            (
                _FOLD_VERSION,
                sorted((k, repr(v)) for k, v in self.tools.items()),
                sorted((k, repr(v)) for k, v in self.plan_tools.items()),
                self.half_life,
                self.max_identifiers,
                self.max_files,
                self.max_commands,
                self.max_errors,
                self.max_searches,
                self.scan_chars,
                self.result_scan_chars,
            )
        )


# ---- the data --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FileTouch:
    """A file touched through tool calls.

    Attributes:
        path: As the tool call gave it.
        action: The last action (``"read"``, ``"edited"``, ``"written"``, ``"created"``, ``"deleted"``...;
            ``"used"``, a shell command naming it, only when nothing else touched it).
        count: Tool calls that touched it.
        message_id: The message of the last touch.
    """

    path: str
    action: str
    count: int
    message_id: str

    @property
    def directory(self) -> str:
        """The path up to its last ``/`` (``""`` for a bare name)."""
        return self.path.rsplit("/", 1)[0] + "/" if "/" in self.path else ""


@dataclass(frozen=True, slots=True)  # slots: a state after every append makes one per name
class Identifier:
    """A name from code: tool inputs and results, code in the conversation.

    Attributes:
        name: The identifier.
        count: Messages that mention it.
        score: Frequency x recency (each mention 1, in a tool result 1/2, halving every ``half_life``
            messages).
    """

    name: str
    count: int
    score: float


@dataclass(frozen=True)
class CommandRun:
    """A shell command run through a tool.

    Attributes:
        command: The command line.
        status: ``"ok"``, ``"failed"`` or ``"no result"`` (no result seen yet).
        exit_code: The exit status where the result shows it.
        message_id: The message of the call.
    """

    command: str
    status: str
    exit_code: int | None
    message_id: str


SEARCH_HITS = 5
"""Results of a web search kept (the first ones: the provider ranks them)."""


@dataclass(frozen=True)
class WebSearch:
    """A provider-side web search (``server_tool_use`` ``web_search`` and its result).

    Attributes:
        query: The query as the model wrote it (at most 300 characters).
        results: The top :data:`SEARCH_HITS` results as ``(title, url)``, in the provider's order.
        status: ``"ok"``, ``"no result"`` (no result seen yet) or ``"error <error_code>"``.
        message_id: The message of the call.
    """

    query: str
    results: tuple[tuple[str, str], ...]
    status: str
    message_id: str


PLAN_MARKS = {
    "completed": "x",
    "complete": "x",
    "done": "x",
    "in_progress": ">",
    "in-progress": ">",
    "active": ">",
    "pending": " ",
    "todo": " ",
    "cancelled": "-",
    "canceled": "-",
    "section": "#",
}
"""The mark of a plan item's status in the rendered block (``?`` for a status not listed)."""

_SHOW_FIRST = {">": 0, " ": 1, "?": 2, "-": 3, "x": 4}  # in progress, pending, unknown, cancelled, done


def shown_items(marks: list[str], max_items: int) -> list[int]:
    """Positions of the plan items kept when at most ``max_items`` are (``marks``: each item's
    :data:`PLAN_MARKS` mark), in plan order: the items in progress first, then pending ones (earliest
    first), then the rest, done ones last (latest first). A review found a 12-item plan shown as its
    first 10 items, all done, with the item in progress among the 2 left out (and a 150-item plan folded
    as its first 100)."""
    if len(marks) <= max_items:
        return list(range(len(marks)))
    order = sorted(range(len(marks)), key=lambda k: (_SHOW_FIRST.get(marks[k], 2), -k if marks[k] == "x" else k))
    return sorted(order[: max(0, max_items)])


_PLAN_ITEMS = 100
"""The most items of a plan the ledger keeps (by :func:`shown_items`; of at most 1,000 read)."""


@dataclass(frozen=True)
class PlanItem:
    """One item of a plan: its text and status (``"pending"``, ``"in_progress"``, ``"completed"``...)."""

    text: str
    status: str


@dataclass(frozen=True)
class Plan:
    """The latest version of a plan/todo structure written through a tool.

    Attributes:
        tool: The tool that wrote it.
        items: Its items, in order.
        message_id: The message that wrote this version.
        version: How many versions the tool wrote (this is the last); a call whose result is an error
            is undone (the version before it is the latest again) and not counted.
        note: A note on the whole plan (``update_plan``'s explanation), if any.
    """

    tool: str
    items: tuple[PlanItem, ...]
    message_id: str
    version: int
    note: str | None = None


_MD_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_MD_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[([ xX~-])\]\s+)?(.+?)\s*$")
_MD_BOXES = {" ": "pending", "x": "completed", "X": "completed", "~": "in_progress", "-": "cancelled"}
_MD_UNDERLINE = re.compile(r"^(?:=+|-+)$")  # a setext heading's underline (also a thematic break: skipped)


def markdown_plan(text: str) -> tuple[str | None, list[PlanItem]]:
    """A plan written as markdown: its title (the first heading, else its first line) and its items, in
    order: the headings below the title (status ``"section"``) and the list items with a checkbox (``- [x]``
    completed, ``- [ ]`` pending, ``[~]`` in progress, ``[-]`` cancelled). A plain list item is prose, not a
    tracked step: an approved plan is not updated as its steps are done, so showing them all as pending
    would be the stale plan bug case B47 warns of (on the shared session that has one, its 23 plain items
    took the block's room from the files touched and the error lines). Text inside code fences and
    table rows is not read."""
    title: str | None = None
    items: list[PlanItem] = []
    fenced = comment = False
    lines = text.splitlines()
    for k, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if comment or stripped.startswith("<!--"):  # an HTML comment is not shown
            comment = "-->" not in stripped
            continue
        if fenced or shows_nothing(stripped) or stripped.startswith("|") or _MD_UNDERLINE.match(stripped):
            continue
        heading = _MD_HEADING.match(line)
        setext = k + 1 < len(lines) and _MD_UNDERLINE.match(lines[k + 1].strip()) and not _MD_ITEM.match(line)
        if heading is None and setext:
            heading = _MD_HEADING.match(f"# {stripped}")  # a setext heading: its text, underlined
        if heading is not None:
            if title is None:
                title = clip_end(heading.group(2), 300)
            else:
                items.append(PlanItem(clip_end(heading.group(2), 300), "section"))
            continue
        found = _MD_ITEM.match(line)
        if found is not None:
            if found.group(1) is not None:  # a checkbox: a tracked step with its status
                items.append(PlanItem(clip_end(found.group(2), 300), _MD_BOXES[found.group(1)]))
        elif title is None:
            title = clip_end(stripped, 300)
    return title, items


def plan_row(plan: Plan) -> list[Any]:
    """``plan`` as JSON-ready data: ``[tool, [[text, status], ...], message id, version, note]``."""
    return [plan.tool, [[i.text, i.status] for i in plan.items], plan.message_id, plan.version, plan.note]


def plan_from_row(row: Sequence[Any]) -> Plan:
    """The plan :func:`plan_row` described.

    Raises:
        TypeError, ValueError: the row is malformed.
    """
    tool, items, message_id, version, note = row
    return Plan(
        str(tool),
        tuple(PlanItem(str(t), str(s)) for t, s in items),
        str(message_id),
        int(version),
        note if isinstance(note, str) else None,
    )


@dataclass(frozen=True)
class WorkingState:
    """The ledger as data: what ``ContextManager.working_state()`` returns and the compile renders.

    Attributes:
        plans: The latest version of each plan tool's plan, oldest update first.
        facts: Host-set facts (``set_fact``), by key.
        files: Files touched, most recently touched first.
        commands: Commands run, oldest first (the newest ``max_commands``).
        errors: Distinct error lines, oldest first (the newest ``max_errors``).
        identifiers: Identifiers, best ranked first.
        searches: Web searches, oldest first (the newest ``max_searches``).
        messages: Messages folded.
        last_message_id: The newest message folded (None: none).
    """

    plans: tuple[Plan, ...] = ()
    facts: Mapping[str, str] = field(default_factory=dict)
    files: tuple[FileTouch, ...] = ()
    commands: tuple[CommandRun, ...] = ()
    errors: tuple[str, ...] = ()
    identifiers: tuple[Identifier, ...] = ()
    searches: tuple[WebSearch, ...] = ()
    messages: int = 0
    last_message_id: str | None = None

    @property
    def empty(self) -> bool:
        """True when there is nothing to show."""
        return not (
            self.plans or self.facts or self.files or self.commands or self.errors or self.identifiers or self.searches
        )

    def files_by_directory(self) -> dict[str, list[FileTouch]]:
        """Files grouped by directory; directories by their most recent touch, files likewise."""
        out: dict[str, list[FileTouch]] = {}
        for f in self.files:
            out.setdefault(f.directory, []).append(f)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "plans": [asdict(p) for p in self.plans],
            "facts": dict(self.facts),
            "files": [asdict(f) for f in self.files],
            "commands": [asdict(c) for c in self.commands],
            "errors": list(self.errors),
            "identifiers": [asdict(i) for i in self.identifiers],
            "searches": [asdict(w) for w in self.searches],
            "messages": self.messages,
            "last_message_id": self.last_message_id,
        }


# ---- extraction ------------------------------------------------------------------------------------

# Names that look like code: snake_case (an inner underscore), camelCase, PascalCase with two humps,
# dotted names (module.attr), calls (name followed by "("), --flags (and, found apart by ``_names``, the
# name after def/class/... or an upper-case SQL keyword). Not inside a path or a longer word.
_BEFORE_NAME, _AFTER_NAME = r"(?<![\w./$\\-])", r"(?![\w/-])"
_FLAG = r"--[a-z][\w-]++"
_CODE_NAME = (
    r"_*+[A-Za-z][A-Za-z0-9]*+_\w++(?:\.[A-Za-z_]\w*+)*+|[a-z][a-z0-9]*+[A-Z]\w*+"
    r"|[A-Z][a-z0-9]++[A-Z]\w*+(?:\.[A-Za-z_]\w*+)*+|[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)++|[A-Za-z_]\w{2,}+(?=\()"
)
_IDENT_RE = re.compile(f"{_BEFORE_NAME}(?:({_FLAG})|({_CODE_NAME})){_AFTER_NAME}")
_NAME_RE = re.compile(f"{_BEFORE_NAME}(?:{_FLAG}|{_CODE_NAME}){_AFTER_NAME}")
"""``_IDENT_RE`` without its groups: a match is the flag or the name, so ``findall`` gives the names
themselves (no ``flag or name`` per match). The fold uses this one."""
_EXT_WORDS = (
    "py pyi md txt json jsonl yaml yml toml ini cfg js ts tsx jsx mjs css scss html htm xml csv log sh rs go "
    "java kt c h cc cpp hpp rb ex exs eex heex erl lock sql db png jpg svg pdf gz zip com org io net dev ai"
)
_EXTENSIONS = frozenset(_EXT_WORDS.split())
_NOT_NAMES = frozenset({"e.g", "i.e", "etc", "vs"})
# The tool protocol's own words and plan statuses: every tool session repeats them, none is a name of
# the work (the names line once led with ``tool_use_id`` and ``in_progress``).
_PROTOCOL = frozenset(
    {
        "tool_use",
        "tool_use_id",
        "tool_result",
        "tool_call",
        "tool_call_id",
        "tool_calls",
        "is_error",
        "in_progress",
        "in-progress",
        "function_call",
        "function_call_output",
        "call_id",
        "stop_reason",
        "end_turn",
    }
)


# The keywords a declared name follows (``def name``, ``(fn name``, ``FROM table``).
_DECLARING_WORDS = ("def", "defp", "defmodule", "class", "fn", "func", "function", "struct", "interface", "enum",
                    "trait", "FROM", "JOIN", "INTO", "UPDATE", "TABLE")  # fmt: skip
_DECLARING_RE = re.compile(r"(?:^|[^\w./$-])(?:" + "|".join(_DECLARING_WORDS) + r")$")
# A chunk ``_IDENT_RE`` can find a name in holds one of these (every alternative needs one: ``--``,
# an inner ``_``, an upper-case letter, a ``.`` or a ``(``); most chunks hold none and skip the pattern.
_MAYBE_NAME_RE = re.compile(r"[A-Z_.(-]")
_DECLARED_RE = re.compile(r"[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)*+(?![\w/-])")


def _keep(found: str) -> bool:
    if found in _PROTOCOL:
        return False
    if "." in found:
        head, _, last = found.rpartition(".")
        if last.lower() in _EXTENSIONS or found.lower() in _NOT_NAMES or len(head) < 2:
            return False
    return len(found) <= 80


# Whitespace-free chunks already classified: ``no_names``, the chunks with no name that declare nothing
# (most words); ``chunk_names``, chunk -> its names for the others: chunks with names and chunks that end
# with a declaring keyword (``def``, ``(fn``, ``FROM``: the next chunk starts a declared name), whose
# names may be none; ``declaring``, the latter; ``readings``, chunk -> how it reads after a declaring
# keyword (:func:`_declared_reading`). A chunk's names and reading depend on the chunk alone, so these
# are caches of pure functions: the fold gives the same result whatever they hold. When large they are
# replaced together by empty ones (never cleared in place: a fold in another thread keeps the four it
# started with, consistent with each other).
_Reading = tuple[tuple[str, ...], bool, bool] | None
_Caches = tuple[set[str], dict[str, tuple[str, ...]], set[str], dict[str, _Reading]]
_CACHE_LIMIT = 50_000  # entries of each cache (a few MB at most)


def _empty_caches() -> _Caches:
    """New, empty chunk caches (``no_names``, ``chunk_names``, ``declaring``, ``readings``)."""
    return set(), {}, set(), {}


_CACHES: _Caches = _empty_caches()


def _classify(chunk: str) -> tuple[tuple[str, ...], bool]:
    """The names ``_IDENT_RE`` finds in one chunk, filtered, and whether it ends with a declaring
    keyword."""
    declares = chunk.endswith(_DECLARING_WORDS) and _DECLARING_RE.search(chunk) is not None  # a C test first
    if _MAYBE_NAME_RE.search(chunk) is None:
        return (), declares
    return tuple(filter(_keep, _NAME_RE.findall(chunk))), declares


def _declared_reading(chunk: str) -> _Reading:
    """How ``chunk`` reads right after a declaring keyword: the declared name (when kept) and the names
    after it in the chunk, whether the name is the whole chunk, and whether that reading holds every
    name the chunk gives read as any other chunk (then reading it so or not adds the same names, and
    :func:`_declared_names` need not count its occurrences); None when the chunk does not start with a
    name (then it is read as any other chunk)."""
    m = _DECLARED_RE.match(chunk)
    if m is None:
        return None
    found = [m.group()] if _keep(m.group()) else []
    if m.end() < len(chunk):
        found.extend(filter(_keep, _NAME_RE.findall(chunk, m.end())))
    return tuple(found), m.end() == len(chunk), set(found).issuperset(_classify(chunk)[0])


def _positions(parts: list[str], wanted: set[str]) -> Iterator[int]:
    """The positions of the chunks of ``parts`` that are in ``wanted``, ascending: one pass at C speed
    (``map`` of the set's membership test, ``compress`` of the positions), no Python loop over the
    chunks."""
    return compress(count(), map(wanted.__contains__, parts))


def _too_large(caches: _Caches) -> bool:
    """Whether one of the chunk caches holds more than ``_CACHE_LIMIT`` entries."""
    return any(len(cache) > _CACHE_LIMIT for cache in caches)


def _classify_new(misses: set[str], caches: _Caches) -> list[tuple[str, tuple[str, ...]]]:
    """Classify the chunks not seen before (``misses``, each by :func:`_classify`) into ``caches`` and
    return those with names, with their names. Chunks of more than 200 characters (rarely seen twice)
    are not cached, except as declaring. Replaces the process-wide caches by empty ones when they grew
    too large (``caches``, the ones the caller holds, stay whole)."""
    global _CACHES
    no_names, chunk_names, declaring_chunks, _ = caches
    fresh: list[tuple[str, tuple[str, ...]]] = []
    for chunk in misses:
        found, declares = _classify(chunk)
        if found:
            fresh.append((chunk, found))
        if declares:
            declaring_chunks.add(chunk)
        if len(chunk) <= 200:
            if found or declares:
                chunk_names[chunk] = found
            else:
                no_names.add(chunk)
    if _too_large(caches):
        _CACHES = _empty_caches()
    return fresh


def _names(text: str, out: set[str]) -> None:
    """Add the names of ``text`` to ``out``: what ``_IDENT_RE`` and a declaring keyword (``def name``,
    ``(fn name``, ``FROM table``) find scanning the whole text, found chunk by chunk instead (the text
    split at whitespace, at C speed; no name spans whitespace) with each distinct chunk classified once
    per process. A chunk read as a declared name is read as the scan would: the name, then the names
    after it in the chunk, never the names a scan starting at the chunk's first character finds.

    Once its chunks are classified, a text is read with set operations and one ``set.update``: no
    Python loop over its chunks unless it holds a declaring keyword (:func:`_declared_names`)."""
    caches = _CACHES
    no_names, chunk_names, declaring_chunks, _ = caches
    parts = text.split()
    todo = set(filterfalse(no_names.__contains__, parts))  # chunks with names or declaring, and new ones
    if not todo:
        return
    declaring = declaring_chunks.intersection(todo)
    fresh: list[tuple[str, tuple[str, ...]]] = []  # new chunks with names
    if not chunk_names.keys() >= todo:  # a chunk not seen before
        misses = todo.difference(chunk_names)
        fresh = _classify_new(misses, caches)
        declaring = declaring_chunks.intersection(todo)  # with the new chunks that declare
        todo -= misses  # the known chunks: each in chunk_names
    elif not declaring:
        out.update(*map(chunk_names.__getitem__, todo))  # the common case: every chunk known, none declaring
        return
    if declaring:
        only_declared = _declared_names(text, parts, declaring, caches, out)
        if only_declared:
            todo -= only_declared
            fresh = [(chunk, found) for chunk, found in fresh if chunk not in only_declared]
    out.update(*map(chunk_names.__getitem__, todo))
    for _, found in fresh:
        out.update(found)


def _declared_names(text: str, parts: list[str], declaring: set[str], caches: _Caches, out: set[str]) -> Set[str]:
    """Add to ``out`` the names of the chunks that follow a declaring keyword (the chunks of ``parts``
    in ``declaring``) read as declared names, and return the chunks every occurrence of which was read
    so (they give only what that reading found, not their names as ordinary chunks), less those whose
    reading holds their names as ordinary chunks (either way they add the same names)."""
    global _CACHES
    readings = caches[3]
    last, taken = len(parts) - 1, -1
    read_as_name: dict[str, int] = {}  # chunk -> its occurrences read as a declared name
    for i in _positions(parts, declaring):  # left to right: a keyword read as a declared name declares nothing
        if i >= last or i == taken:
            continue
        chunk = parts[i + 1]
        reading = readings.get(chunk, _UNREAD)
        if reading is _UNREAD:
            reading = _declared_reading(chunk)
            if len(chunk) <= 200:
                readings[chunk] = reading
                if len(readings) > _CACHE_LIMIT:
                    _CACHES = _empty_caches()
        if reading is None:
            continue
        found, whole, covers = reading
        if not covers:  # a reading that holds the chunk's own names gives the same names either way
            read_as_name[chunk] = read_as_name.get(chunk, 0) + 1
        out.update(found)
        if whole:
            taken = i + 1
    if not read_as_name:
        return _NONE
    # A chunk every occurrence of which was read as a declared name gives only what that reading found.
    # (A chunk occurs in the text at least as often as in ``parts``: the C count settles most.)
    return {chunk for chunk, k in read_as_name.items() if text.count(chunk) <= k or parts.count(chunk) <= k}


_NONE: frozenset[str] = frozenset()
_UNREAD: Any = object()  # a chunk with no reading cached yet (None is a reading: no declared name)


_APART = "\n\x00\n"
"""Joins texts read for names in one pass as if read one by one: a chunk of its own that is neither a
name nor a declared name, so no declaring keyword at the end of one text declares a name at the next's
start (``_names`` of the joined texts is the union of each text's)."""

_SERVER_RESULTS = frozenset(
    {
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
    }
)
"""Server tool results the ledger reads (``mcp_tool_result`` is read as a ``tool_result``)."""

_TOOL_BLOCKS = (
    frozenset({"tool_use", "mcp_tool_use", "tool_result", "mcp_tool_result", "server_tool_use"}) | _SERVER_RESULTS
)
"""The blocks besides text that the fold reads (:meth:`Ledger.add`); it passes over the others."""

_RESULT_WEIGHT = 0.5
"""A mention in a tool result counts half a mention in the conversation or a tool input: the names the
agent writes are its working set; a file it reads names many it never uses."""

_EXIT_RE = re.compile(
    r"(?i)(?:exit(?:ed with)?[ _]?(?:code|status)|exited with|returncode|return code)[\"']?[:=\s]*\(?(-?\d{1,3})\b"
)
# A line's start is its newline (the text is read with one put before it): a pattern starting with a
# literal lets the regex engine skip from newline to newline, where ``^`` was tried at every character.
_ERROR_LINE_RE = re.compile(
    r"(?im)\n[ \t>E]*("
    r"(?:[\w.]*(?:Error|Exception)\b|error(?:\[\w+\])?:|fatal:|FAILED\b|FAIL:|panic:|Traceback \(most recent|"
    r"\*\* \(\w+Error\)|command not found|No such file or directory|Permission denied).{0,200})$"
)
_WS_RE = re.compile(r"\s+")


def _is_name_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_.$-"


_NAME_RUN = re.compile(r"[\w.$-]*")
"""A run of name characters (:func:`_is_name_char`: ``\\w`` is ``str.isalnum`` or ``_``): the walk of
:func:`_tail` in one C-speed match instead of a Python call per character."""


def _head(text: str, n: int) -> str:
    """``text[:n]`` without a name the cut splits (``load_fixture`` cut to ``load_fi`` is no name) nor a
    grapheme cluster (an emoji with its joiners, a letter with its marks: see :mod:`.._graphemes`)."""
    if len(text) <= n:
        return text
    if n <= 0 or not (
        ((ch := text[n]).isalnum() or ch in "_.$-") and ((ch := text[n - 1]).isalnum() or ch in "_.$-")
    ):  # _is_name_char of both, inlined
        return text[: floor_boundary(text, n)]
    k = n - 1
    while k > 0:  # back to the start of the split name (a short walk; _is_name_char inlined)
        ch = text[k - 1]
        if not (ch.isalnum() or ch in "_.$-"):
            break
        k -= 1
    return text[: floor_boundary(text, k)]


def _tail(text: str, k: int) -> str:
    """``text[-k:]`` without a name the cut splits (``AshComputer.run`` cut to ``puter.run``) nor a grapheme
    cluster."""
    if len(text) <= k:
        return text
    if k <= 0:
        return ""
    at = len(text) - k
    if at <= 0 or not (
        ((ch := text[at - 1]).isalnum() or ch in "_.$-") and ((ch := text[at]).isalnum() or ch in "_.$-")
    ):  # _is_name_char of both, inlined
        return text[ceil_boundary(text, at) :]
    end = _NAME_RUN.match(text, at).end()  # type: ignore[union-attr]  # on to the end of the split name
    return text[ceil_boundary(text, end) :]


_FOLD_VERSION = 4
"""The fold's rules, in checkpoint fingerprints (a checkpoint folded by other rules is folded again):
2 strips terminal escape sequences and keeps a long plan's items in progress; 3 reads plans written as
markdown (``ExitPlanMode``); 4 cuts commands, error lines and written text between grapheme clusters."""

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[ -/]*[0-~])")
"""Terminal escape sequences (ECMA-48: CSI colours and cursor moves, OSC titles and links, and the
others: ESC, intermediate bytes, a final byte)."""


def _plain(text: str) -> str:
    """``text`` without terminal escape sequences: a coloured ``error:`` line was not read as an error
    line, and ESC bytes reached the block (a review found ``$ [1mls[0m`` among the commands)."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def _result_text(content: Any, limit: int) -> str:
    """A tool result's text: its first ``limit`` characters and its last half as many when longer (its
    text blocks joined by newlines; only the blocks at either end are read)."""
    if isinstance(content, str):
        return content if len(content) <= limit else _head(content, limit) + "\n" + _tail(content, -(-limit // 2))
    if not isinstance(content, list):
        return ""
    parts = [
        text
        for b in content
        if (type(b) is dict or isinstance(b, Mapping)) and b.get("type") == "text"
        if isinstance(text := b.get("text", ""), str)
    ]
    if sum(map(len, parts)) + len(parts) - 1 <= limit:
        return "\n".join(parts)
    k, n = 0, -1  # n: the length of the first k parts joined
    while n < limit:
        n += len(parts[k]) + 1
        k += 1
    back = -limit // 2  # as for a string
    j, m = len(parts), -1  # m: the length of parts[j:] joined
    while m < -back:
        j -= 1
        m += len(parts[j]) + 1
    return _head("\n".join(parts[:k]), limit) + "\n" + _tail("\n".join(parts[j:]), -back)


_SCALARS = frozenset({bool, int, float, type(None)})
"""The types of JSON values without strings (tested by exact type: a ``str`` subclass is a string)."""


def _strings(value: Any, out: list[str], budget: int) -> int:
    """Collect the strings of a JSON value (depth-first, keys skipped) up to ``budget`` characters."""
    if budget <= 0:
        return budget
    if isinstance(value, str):
        out.append(_head(value, budget))
        return budget - len(value)
    if type(value) is dict or isinstance(value, Mapping):
        for v in value.values():
            budget = _strings(v, out, budget)
    elif isinstance(value, list):
        for v in value[:256]:
            budget = _strings(v, out, budget)
    return budget


def _add_text(block: Mapping[str, Any], scan: int, written: list[str]) -> None:
    """Add the opening ``scan`` characters of a text block's text to ``written`` (what the fold reads)."""
    text = block.get("text")
    if isinstance(text, str) and text:
        written.append(_head(text, scan))


def _names_of(texts: Sequence[str]) -> set[str]:
    """The names of ``texts``, one pass over them kept apart."""
    names: set[str] = set()
    if texts:
        _names(texts[0] if len(texts) == 1 else _APART.join(texts), names)
    return names


def _visible(block: Mapping[str, Any], reader: str | None) -> bool:
    audience = block.get("audience")
    return audience is None or (reader is not None and reader in audience)


# ---- the fold --------------------------------------------------------------------------------------


class Ledger:
    """The mutable fold behind :class:`WorkingState` (see the module docstring).

    Args:
        config: The knobs (tool tables, bounds, half-life).
        reader: The reader whose blocks count (None: only blocks with no audience).
    """

    def __init__(self, config: LedgerConfig | None = None, reader: str | None = None) -> None:
        self.config = config = config or LedgerConfig()
        self.reader = reader
        self._tools = {**DEFAULT_TOOLS, **config.tools}
        self._plan_tools = {**DEFAULT_PLAN_TOOLS, **config.plan_tools}
        self._kinds: dict[str, tuple[PlanShape | None, ToolSpec | None]] = {}  # tool name -> its entries
        self._decay = 0.5 ** (1.0 / config.half_life)
        self._log_decay = math.log(self._decay)
        # The knobs the fold reads on every message, read once (the config is frozen).
        self._scan = config.scan_chars
        self._result_scan = config.result_scan_chars
        self._max_identifiers = config.max_identifiers
        self._max_files = config.max_files
        self.messages = 0
        self.last_message_id: str | None = None
        # name -> [score at tick, tick, count]
        self._idents: dict[str, list[float]] = {}
        # path -> [action, count, tick, message id]
        self._files: dict[str, list[Any]] = {}
        self._commands: list[list[Any]] = []  # [command, status, exit code, message id]
        self._errors: OrderedDict[str, str] = OrderedDict()
        self._plans: dict[str, Plan] = {}
        self._searches: list[list[Any]] = []  # [query, [[title, url]...], status, message id]
        self._calls: OrderedDict[str, tuple[str, Any]] = OrderedDict()  # open calls: id -> (kind, data)
        # What state() read last, kept until the fold changes it (a compile reads the state after every
        # append; with 1,800 files and 1,200 names, building it afresh cost 3-7 ms, a review found).
        self._file_touches: tuple[FileTouch, ...] | None = None  # the files as shown; None: changed since
        self._file_objs: dict[str, FileTouch] = {}  # path -> its FileTouch, until the path is touched again
        self._ranking: list[tuple[float, str]] | None = None  # (-rank key, name), best first; None: rank afresh
        self._rank_keys: dict[str, float] = {}  # name -> its rank key in the ranking
        self._moved: set[str] = set()  # names mentioned since the ranking was made
        self._shown_names: tuple[int, tuple[Identifier, ...]] | None = None  # (tick, identifiers) state() gave
        self._named: dict[str, Identifier] = {}  # name -> as of its last move (a render reads names only)
        self._named_order: tuple[Identifier, ...] | None = None  # them in rank order; None: moved since

    # -- folding --

    def _seen(self, content: Sequence[Mapping[str, Any]]) -> Sequence[Mapping[str, Any]] | None:
        """The blocks of ``content`` this ledger's reader sees; None when it has blocks with an audience
        and none for the reader (such a message is not counted at all)."""
        for b in content:
            if "audience" in b:
                reader = self.reader
                return [b for b in content if _visible(b, reader)] or None
        return content

    def text_effect(self, content: Sequence[Mapping[str, Any]]) -> tuple[bool, frozenset[str]] | None:
        """What folding a message of text blocks only does, whatever was folded before it: whether it
        counts (a message with no block for the reader does not) and the names it mentions. None when
        a block the reader sees is not text (its fold depends on the open tool calls and tables). Two
        versions of a message with the same effect leave the ledger the same (an edit between them
        needs no fold again)."""
        seen = self._seen(content)
        if seen is None:
            return False, frozenset()
        scan = self.config.scan_chars
        written: list[str] = []
        for block in seen:
            kind = block.get("type")
            if kind == "text":
                _add_text(block, scan, written)
            elif kind in _TOOL_BLOCKS:
                return None
        return True, frozenset(_names_of(written))

    def add(self, message_id: str, content: Sequence[Mapping[str, Any]]) -> None:
        """Fold one message (its content blocks as dicts, ``audience`` fields included). A message
        whose every block is meant for other readers is not counted at all."""
        for b in content:  # _seen's test, inlined: few messages carry an audience
            if "audience" in b:
                seen = self._seen(content)
                if seen is None:
                    return
                content = seen
                break
        self.messages += 1
        self.last_message_id = message_id
        scan = self._scan
        written: list[str] = []  # texts and tool inputs
        read: list[str] = []  # tool results
        for block in content:
            kind = block.get("type")
            if kind == "text":  # _add_text, inlined
                text = block.get("text")
                if isinstance(text, str) and text:
                    written.append(text if len(text) <= scan else _head(text, scan))
            elif kind == "tool_use" or kind == "mcp_tool_use":
                self._tool_use(block, message_id, written)
            elif kind == "tool_result" or kind == "mcp_tool_result":
                self._tool_result(block, read)
            elif kind == "server_tool_use":
                self._server_call(block, message_id, written)
            elif kind in _SERVER_RESULTS:
                self._server_result(block, read)
        names: set[str] = set()  # written: in text and tool inputs (_names_of, inlined)
        if written:
            _names(written[0] if len(written) == 1 else _APART.join(written), names)
            if names:
                self._mention(names, 1.0)
        if read:  # read: in tool results
            heard: set[str] = set()
            _names(read[0] if len(read) == 1 else _APART.join(read), heard)
            if heard:
                heard.difference_update(names)
                if heard:
                    self._mention(heard, _RESULT_WEIGHT)

    def _mention(self, names: set[str], weight: float) -> None:
        tick = self.messages
        decay = self._decay
        idents = self._idents
        self._moved.update(names)
        for name in names:
            row = idents.get(name)
            if row is None:
                idents[name] = [weight, tick, 1]
            else:
                row[0] = row[0] * decay ** (tick - row[1]) + weight
                row[1] = tick
                row[2] += 1
        if len(idents) > self._max_identifiers:  # keep the best ranked half: by score, then name
            ranked = sorted([(-(row[0] * decay ** (tick - row[1])), name, row) for name, row in idents.items()])
            self._idents = {name: row for _, name, row in ranked[: self._max_identifiers // 2]}
            self._ranking = None

    def _score(self, row: list[float], tick: int) -> float:
        return float(row[0] * self._decay ** (tick - row[1]))

    def _touch(self, path: str, action: str, message_id: str) -> None:
        if len(path) > 500:
            return
        row = self._files.pop(path, None)  # re-inserted: the dict stays in order of the last touch
        if row is None:
            row = [action, 0, 0, message_id]
        elif action == "used":  # a command naming the file says less than the edit or read before it
            action = row[0]
        row[0], row[1], row[2], row[3] = action, row[1] + 1, self.messages, message_id
        self._files[path] = row
        self._file_touches = None
        self._file_objs.pop(path, None)
        if len(self._files) > self._max_files:
            drop = len(self._files) - self._max_files // 2
            for key in list(self._files)[:drop]:
                del self._files[key]
                self._file_objs.pop(key, None)

    def _tool_use(self, block: Mapping[str, Any], message_id: str, written: list[str], server: bool = False) -> None:
        name = block.get("name")
        tool_input = block.get("input")
        if not isinstance(name, str) or (type(tool_input) is not dict and not isinstance(tool_input, Mapping)):
            return
        call_id = block.get("id")
        strings: list[str] = []
        budget = self._scan
        for value in tool_input.values():  # _strings(tool_input, ...), its first level inlined
            if budget <= 0:
                break
            if type(value) is str:
                strings.append(value if len(value) <= budget else _head(value, budget))
                budget -= len(value)
            elif type(value) not in _SCALARS:  # a flag or a number holds no string
                budget = _strings(value, strings, budget)
        if strings:  # read together: a declaring keyword at the end of one declares a name at the next's start
            written.append(strings[0] if len(strings) == 1 else "\n".join(strings))
        kinds: tuple[PlanShape | None, ToolSpec | None] | None
        if server:
            kinds = (None, self.config.tools.get(name) or SERVER_TOOLS.get(name))
        else:
            kinds = self._kinds.get(name)
            if kinds is None:
                if len(self._kinds) >= 1024:
                    self._kinds = {}
                kinds = self._kinds[name] = (lookup(name, self._plan_tools), lookup(name, self._tools))
        shape, spec = kinds
        if shape is not None:
            self._plan(name, shape, tool_input, message_id, call_id)
            return
        if spec is None:
            return
        for path, action in spec.path_list(tool_input):
            self._touch(path, action, message_id)
            if action == "written" and isinstance(call_id, str):
                self._open_call(call_id, "write", path)
        if spec.patch is not None:
            patch = tool_input.get(spec.patch, tool_input.get("patch"))
            if isinstance(patch, str):
                for path, action in patch_files(patch):
                    self._touch(path, action, message_id)
        if spec.command is not None:
            value = tool_input.get(spec.command)
            command = (value.strip() or None) if type(value) is str else command_text(value)  # its str case inlined
            if command is None:
                return
            if "\x1b" in command:  # _plain, its test inlined
                command = _plain(command)
            if command.startswith("apply_patch"):
                for path, action in patch_files(command):
                    self._touch(path, action, message_id)
                command = "apply_patch"
            for path, action in command_files(command):
                self._touch(path, action, message_id)
            row = [command if len(command) <= 300 else clip_end(command, 297) + "...", "no result", None, message_id]
            self._commands.append(row)
            if len(self._commands) > self.config.max_commands:
                del self._commands[0]
            if isinstance(call_id, str):
                self._open_call(call_id, "command", row)

    def _open_call(self, call_id: str, kind: str, data: Any) -> None:
        self._calls[call_id] = (kind, data)
        if len(self._calls) > 256:
            self._calls.popitem(last=False)

    def _plan(
        self, name: str, shape: PlanShape, tool_input: Mapping[str, Any], message_id: str, call_id: Any = None
    ) -> None:
        raw = tool_input.get(shape.items)
        note = tool_input.get(shape.note) if shape.note else None
        if isinstance(raw, str) and raw.lstrip().startswith("["):  # the items sent as JSON text
            try:
                raw = json.loads(raw)
            except ValueError:
                return
        if isinstance(raw, str):  # a plan written as markdown (Claude Code's ExitPlanMode)
            title, raw = markdown_plan(raw)
            if title is None and not raw:
                return  # nothing shows: no plan
            note = note if isinstance(note, str) and note else title
        if not isinstance(raw, list):
            return
        items: list[PlanItem] = []
        for item in raw[: 10 * _PLAN_ITEMS]:
            if isinstance(item, str):
                items.append(PlanItem(clip_end(item, 300), "pending"))
                continue
            if isinstance(item, PlanItem):  # from a markdown plan
                items.append(item)
                continue
            if not isinstance(item, Mapping):
                continue
            text = next((item[k] for k in shape.text if isinstance(item.get(k), str)), None)
            if text is None:
                continue
            status = item.get(shape.status)
            items.append(PlanItem(clip_end(text, 300), status if isinstance(status, str) else "pending"))
        if len(items) > _PLAN_ITEMS:  # the items in progress and next kept, not the first hundred
            marks = [PLAN_MARKS.get(i.status.lower(), "?") for i in items]
            items = [items[k] for k in shown_items(marks, _PLAN_ITEMS)]
        old = self._plans.pop(name, None)
        version = 1 if old is None else old.version + 1
        self._plans[name] = Plan(
            name, tuple(items), message_id, version, clip_end(note, 300) if isinstance(note, str) and note else None
        )
        if isinstance(call_id, str):  # a failed call (an error result) puts the previous version back
            self._open_call(call_id, "plan", [name, message_id, None if old is None else plan_row(old)])

    def _tool_result(self, block: Mapping[str, Any], read: list[str]) -> None:
        call_id = block.get("tool_use_id")
        call = self._calls.pop(call_id, None) if isinstance(call_id, str) else None
        content = block.get("content")
        limit = self._result_scan
        # _result_text's commonest case (a short string) inlined
        text = content if type(content) is str and len(content) <= limit else _result_text(content, limit)
        if "\x1b" in text:  # _plain, its test inlined
            text = _plain(text)
        self._close(call, text, block.get("is_error") is True, None, read)

    def _close(
        self, call: tuple[str, Any] | None, text: str, is_error: bool, exit_code: int | None, read: list[str]
    ) -> None:
        """Settle the open ``call`` with its result's ``text`` (a command's status, a failed plan undone, a
        file created) and read the text for names and error lines; ``exit_code`` when the result states
        one (a server tool's ``return_code``), else read from a command's text."""
        if call is not None and call[0] == "command":
            if exit_code is None:
                low = text.lower()
                m = _EXIT_RE.search(text) if "exit" in low or "return" in low else None  # the pattern's words
                if m:
                    exit_code = int(m.group(1))
            failed = is_error or (exit_code is not None and exit_code != 0)
            row = call[1]
            row[1] = "failed" if failed else "ok"
            row[2] = exit_code
        elif call is not None and call[0] == "plan" and is_error:
            name, message_id, previous = call[1]
            current = self._plans.get(name)
            if current is not None and current.message_id == message_id:  # no later version since
                del self._plans[name]
                if previous is not None:
                    self._plans[name] = plan_from_row(previous)
        elif call is not None and call[0] == "write" and text.startswith("File created successfully"):
            row = self._files.get(call[1])
            if row is not None:
                row[0] = "created"
                self._file_touches = None
                self._file_objs.pop(call[1], None)
        if text:
            read.append(text)
            if is_error or (exit_code is not None and exit_code != 0) or "rror" in text or "FAIL" in text:
                self._error_lines(text, is_error or (exit_code is not None and exit_code != 0))

    def _server_call(self, block: Mapping[str, Any], message_id: str, written: list[str]) -> None:
        """A ``server_tool_use``: a web search opens a :class:`WebSearch`, the other tools are read as
        tool calls through :data:`~context_journal.state.tools.SERVER_TOOLS`."""
        if block.get("name") != "web_search":
            self._tool_use(block, message_id, written, server=True)
            return
        tool_input = block.get("input")
        query = tool_input.get("query") if isinstance(tool_input, Mapping) else None
        if not isinstance(query, str) or not query.strip():
            return
        query = query.strip()
        written.append(_head(query, self.config.scan_chars))
        row: list[Any] = [clip_end(query, 300), [], "no result", message_id]
        self._searches.append(row)
        if len(self._searches) > self.config.max_searches:
            del self._searches[0]
        call_id = block.get("id")
        if isinstance(call_id, str):
            self._open_call(call_id, "search", row)

    def _server_result(self, block: Mapping[str, Any], read: list[str]) -> None:
        """A provider-side tool's result: web search hits, a fetched page's text, code output with its
        return code, a text editor's view, or an error (``error_code``)."""
        call_id = block.get("tool_use_id")
        call = self._calls.pop(call_id, None) if isinstance(call_id, str) else None
        content = block.get("content")
        limit = self.config.result_scan_chars
        if call is not None and call[0] == "search":
            row = call[1]
            if isinstance(content, list):
                hits = [
                    [clip_end(str(h.get("title") or ""), 200), clip_end(str(h.get("url") or ""), 500)]
                    for h in content[:SEARCH_HITS]
                    if isinstance(h, Mapping)
                ]
                row[1], row[2] = hits, "ok"
                titles = "\n".join(t for t, _ in hits if t)
                if titles:
                    read.append(_head(titles, limit))
            elif isinstance(content, Mapping):
                row[2] = f"error {content.get('error_code')}"
                self._error_lines(f"web_search: {content.get('error_code')}", True)
            return
        if not isinstance(content, Mapping):
            return
        part = str(content.get("type") or "")
        if part.endswith("_error"):
            self._close(call, f"{block.get('type')}: {content.get('error_code')}", True, None, read)
            return
        code = content.get("return_code")
        exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
        if "stderr" in content:  # code output: stdout (unless encrypted), then stderr
            out = content.get("stdout")
            err = content.get("stderr")
            texts = [t for t in (out, err) if isinstance(t, str) and t.strip()]
            text = _result_text("\n".join(texts), limit)
        elif part == "web_fetch_result":
            doc = content.get("content")
            source = doc.get("source") if isinstance(doc, Mapping) else None
            data = source.get("data") if isinstance(source, Mapping) and source.get("type") == "text" else None
            text = _result_text(data, limit) if isinstance(data, str) else ""
        else:
            view = content.get("content")
            text = _result_text(view, limit) if isinstance(view, str) else ""
        self._close(call, text, exit_code is not None and exit_code != 0, exit_code, read)

    def _error_lines(self, text: str, failed: bool) -> None:
        found = [m.group(1).strip() for m in _ERROR_LINE_RE.finditer("\n" + text)]  # "\n": the first line's start
        if not found and failed:
            lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
            found = lines[-1:]
        errors = self._errors
        for line in found[:3]:
            key = clip_end(_WS_RE.sub(" ", line), 200)
            if key in errors:
                errors.move_to_end(key)
            else:
                errors[key] = key
                if len(errors) > self.config.max_errors:
                    errors.popitem(last=False)

    # -- reading --

    def _rank_key(self, row: list[float]) -> float:
        """A key that orders names as their scores do at every tick: ``score(t) = row[0] * decay **
        (t - row[1])`` is ``exp(key + t * log(decay))``, the same factor for every name at one tick."""
        return math.log(max(row[0], 1e-300)) - row[1] * self._log_decay

    def _ranked(self) -> list[tuple[float, str]]:
        """Every identifier as ``(-rank key, name)``, best first (ties by name): the ranking made last,
        with the names mentioned since moved (each O(log n) to find plus a list shift), or ranked afresh
        when many moved or the table was pruned or loaded. The order between mentions does not change
        (see :meth:`_rank_key`), so the state after an append no longer sorts every name."""
        ranking = self._ranking
        idents = self._idents
        named = self._named
        for name in self._moved:
            named.pop(name, None)
        self._named_order = None
        if ranking is None or 8 * len(self._moved) > len(ranking):
            if ranking is None:  # pruned or loaded: forget the names no longer kept
                self._named = {k: v for k, v in named.items() if k in idents}
            keys = {name: self._rank_key(row) for name, row in idents.items()}
            ranking = sorted([(-k, name) for name, k in keys.items()])
            self._rank_keys = keys
        else:
            keys = self._rank_keys
            for name in self._moved:
                old = keys.pop(name, None)
                if old is not None:
                    del ranking[bisect_left(ranking, (-old, name))]
                row = idents.get(name)
                if row is not None:
                    key = keys[name] = self._rank_key(row)
                    insort(ranking, (-key, name))
        self._moved.clear()
        self._ranking = ranking
        return ranking

    def state(self, facts: Mapping[str, str] | None = None, *, scores: bool = True) -> WorkingState:
        """The ledger as immutable data (with the host's ``facts``). Cost: O(files + identifiers) the
        first time and after the files change or many names move; after an append that mentions a few
        names, O(identifiers) object creation plus O(log n) per name moved.

        ``scores=False`` (what a compile renders, which reads the names' order and never their scores):
        each identifier with its count and score as of the last time it was mentioned, in the order of
        now, made again only for the names mentioned since (a compile after an append made an object
        for each of 1,200 names to read their order)."""
        if not scores and self._ranking is not None and not self._moved and self._named_order is not None:
            return self._as_state(facts, self._named_order)
        tick = self.messages
        if not scores:
            ranked = self._ranked()
            named = self._named
            made: list[Identifier] = []
            for _, name in ranked:
                found = named.get(name)
                if found is None:
                    found = named[name] = self._identifier(name, tick)
                made.append(found)
            self._named_order = tuple(made)
            return self._as_state(facts, self._named_order)
        shown = self._shown_names
        if shown is None or shown[0] != tick or self._moved or self._ranking is None:
            names = tuple(self._identifier(name, tick) for _, name in self._ranked())
            shown = self._shown_names = (tick, names)
        return self._as_state(facts, shown[1])

    def _identifier(self, name: str, tick: int) -> Identifier:
        """``name`` as data: its mention count and its score at ``tick`` (six decimals)."""
        row = self._idents[name]
        return Identifier(name, int(row[2]), round(self._score(row, tick), 6))

    def _as_state(self, facts: Mapping[str, str] | None, identifiers: tuple[Identifier, ...]) -> WorkingState:
        """The state with ``identifiers`` and the rest of the ledger (the files made again only where
        touched since the last state)."""
        files = self._file_touches
        if files is None:  # the files touched since are made anew, the others kept
            objs = self._file_objs
            made: list[FileTouch] = []
            for path in reversed(self._files):
                touch = objs.get(path)
                if touch is None:
                    row = self._files[path]
                    touch = objs[path] = FileTouch(path, row[0], row[1], row[3])
                made.append(touch)
            files = self._file_touches = tuple(made)
        return WorkingState(
            plans=tuple(self._plans.values()),
            facts=dict(sorted((facts or {}).items())),
            files=files,
            commands=tuple(CommandRun(c[0], c[1], c[2], c[3]) for c in self._commands),
            errors=tuple(self._errors),
            identifiers=identifiers,
            searches=tuple(
                WebSearch(q, tuple((t, u) for t, u in hits), st, mid) for q, hits, st, mid in self._searches
            ),
            messages=self.messages,
            last_message_id=self.last_message_id,
        )

    def copy(self) -> Ledger:
        """An independent copy (a forked branch's ledger starts as its parent's)."""
        twin = Ledger.__new__(Ledger)
        twin.__dict__.update(self.__dict__)
        twin._idents = {k: list(v) for k, v in self._idents.items()}
        twin._files = {k: list(v) for k, v in self._files.items()}
        twin._ranking = None if self._ranking is None else list(self._ranking)
        twin._rank_keys = dict(self._rank_keys)
        twin._file_objs = dict(self._file_objs)
        twin._named = dict(self._named)
        twin._moved = set(self._moved)
        twin._commands = [list(c) for c in self._commands]
        rows = {id(c): t for c, t in zip(self._commands, twin._commands, strict=True)}
        twin._errors = OrderedDict(self._errors)
        twin._plans = dict(self._plans)
        twin._searches = [[q, [list(h) for h in hits], st, mid] for q, hits, st, mid in self._searches]
        rows.update({id(c): t for c, t in zip(self._searches, twin._searches, strict=True)})
        twin._calls = OrderedDict(
            (k, (kind, rows.get(id(data), data) if kind in ("command", "search") else data))
            for k, (kind, data) in self._calls.items()
        )
        return twin
