"""The ledger block: a :class:`~context_journal.state.WorkingState` as text within a token allowance.

Sections in priority order: plans (every item, with its status), facts, files (grouped by directory
under the most used root, each with its last action as a letter and its touch count), commands (newest,
with exit status), error lines (newest), web searches (newest: the query and its top results' titles and
URLs), then names (identifiers, best ranked first, space-separated)
filling what the allowance leaves. When the whole does not fit, the sections above the names are cut
by a fixed schedule (lower sections first) and the names fill the rest: the same state and allowance
always give the same bytes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from .._graphemes import clip_end
from .ledger import PLAN_MARKS, FileTouch, WorkingState, shown_items

__all__ = ["HEADER", "MARKER", "render_state"]

MARKER = "[Working state: kept by the journal from this conversation's tool calls; current as of now.]"
HEADER = "Working state (latest plan, files, commands, errors, names; newer than any summary above):"


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _inline(text: str) -> str:
    """``text`` on one line: control characters (a newline above all) shown as escapes, so a value taken
    from a tool call (a path, a plan item) can never start a line of its own and forge one of the
    block's lines."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(m[0], f"\\x{ord(m[0]):02x}"), text)


def _plan_lines(state: WorkingState, max_items: int) -> list[str]:
    out: list[str] = []
    for plan in state.plans:
        out.append(f"Plan ({_inline(plan.tool)}, version {plan.version}, latest):")
        if plan.note:
            out.append(f"  note: {_inline(plan.note)}")
        marks = [PLAN_MARKS.get(item.status.lower(), "?") for item in plan.items]
        shown = shown_items(marks, max_items)
        for k in shown:
            item = plan.items[k]
            out.append(f"  [{marks[k]}] {_inline(item.text)} ({_inline(item.status)})")
        hidden = len(marks) - len(shown)
        if hidden:
            done = marks.count("x") - sum(marks[k] == "x" for k in shown)
            out.append(
                f"  ... {hidden} more items"
                + (f" ({done} done, {hidden - done} other)" if 0 < done < hidden else "")
                + (" (all done)" if done == hidden else "")
            )
    return out


def _common_root(dirs: list[str]) -> str:
    """The deepest directory shared by the absolute directories of the most used top-level tree (three
    levels, e.g. ``/home/USER/projects``); ``""`` when fewer than two share one. Each distinct directory
    is split once (a ledger of 1,800 files has a few dozen)."""
    uses: dict[str, int] = {}
    for d in dirs:
        uses[d] = uses.get(d, 0) + 1
    top_of = {d: "/".join(d.split("/")[:4]) for d in uses if d.startswith("/")}
    tops: dict[str, int] = {}
    for d, top in top_of.items():
        tops[top] = tops.get(top, 0) + uses[d]
    if not tops:
        return ""
    best = max(tops.items(), key=lambda kv: kv[1])[0]
    under = [d for d, top in top_of.items() if top == best]
    if sum(uses[d] for d in under) < 2:
        return ""
    root = os.path.commonpath(under)
    return "" if root.count("/") < 2 else root.rstrip("/") + "/"


# The last action of a file as one letter (the block's legend names the letters it uses).
_CODES = {
    "read": "r",
    "edited": "e",
    "written": "w",
    "created": "c",
    "deleted": "d",
    "moved away": "m",
    "searched": "s",
    "listed": "l",
    "used": "u",
    "fetched": "f",
}


def _is_place(action: str) -> bool:
    """A searched or listed path: usually a directory, not a file of the work."""
    return action in ("searched", "listed")


_FileTable = tuple[str, list[tuple[str, list[Any]]], list[str], int]
_last_table: tuple[tuple[FileTouch, ...], _FileTable] | None = None  # the files rendered last (levels share it)


def _file_table(state: WorkingState) -> _FileTable:
    """The files as shown: the root, ``(shown path, [last action, touches])`` newest first, the searched
    and listed paths, and how many there are in all. Kept for the files tuple it was made from: the
    ledger gives the same tuple until a file is touched, so a compile after an append that touched none
    does not walk every file again."""
    global _last_table
    last = _last_table
    if last is not None and last[0] is state.files:
        return last[1]
    files = [f for f in state.files if not _is_place(f.action)]
    places = [f for f in state.files if _is_place(f.action)]
    root = _common_root([f.directory for f in files] or [f.path for f in places])
    # One search over every path tells whether any needs escapes (almost never): the rest skip _inline.
    inline: Callable[[str], str] = _inline if _CONTROL.search("".join(f.path for f in state.files)) else str
    merged: dict[str, list[Any]] = {}  # shown path -> [last action, touches], newest first
    for f in files:
        shown = inline(f.path[len(root) :] if root and f.path.startswith(root) else f.path)
        row = merged.get(shown)
        if row is None:
            merged[shown] = [f.action, f.count]
        else:
            row[1] += f.count
            if row[0] == "used":  # a command naming it says less than an older edit or read
                row[0] = f.action
    place_names = list(
        dict.fromkeys(inline(p.path[len(root) :] if root and p.path.startswith(root) else p.path) for p in places)
    )
    root = _inline(root)
    table = (root, list(merged.items()), place_names, len(merged) + len(place_names))
    _last_table = (state.files, table)
    return table


def _file_lines(state: WorkingState, max_files: int) -> list[str]:
    """Files grouped by directory (directories relative to the most used root), each ``name`` plus its
    last action as a letter and, when touched more than once, how often (``app.py e3``: edited last,
    touched three times); searched and listed paths come after the files, on one line. A relative path
    (a command's argument) and the same path under the root (a tool's absolute path) are one file."""
    if not max_files or not state.files:
        return []
    root, merged, places, total = _file_table(state)
    kept = merged[:max_files]
    place_names = places[: max(0, max_files - len(kept)) // 2]
    if not kept and not place_names:
        return []
    codes: dict[str, str] = {}
    groups: dict[str, list[str]] = {}
    for shown, (action, touches) in kept:
        code = _CODES.get(action)
        if code is None:
            code = f"({action})"
        else:
            codes[code] = action
        directory, _, name = shown.rpartition("/")
        groups.setdefault(directory + "/" if directory or shown.startswith("/") else "", []).append(
            f"{name} {code}{touches if touches > 1 else ''}"
        )
    legend = ", ".join(f"{c} {a}" for c, a in sorted(codes.items()))
    shown_n = len(kept) + len(place_names)
    head = f"Files touched ({total}{', newest first' if shown_n > 1 else ''}"
    head += f"; last action: {legend}, N: times touched" if legend else ""
    head += f"; under {root}" if root else ""
    out = [head + "):"]
    for directory, names in groups.items():
        out.append(f"  {directory or './'}: " + ", ".join(names))
    if place_names:
        out.append("  searched/listed: " + ", ".join(p or "./" for p in place_names))
    more = total - shown_n
    if more > 0:
        out.append(f"  ... {more} more")
    return out


def _command_lines(state: WorkingState, max_commands: int, chars: int) -> list[str]:
    commands = state.commands[-max_commands:] if max_commands else ()
    if not commands:
        return []
    out = [f"Commands run (last {len(commands)}):"]
    for c in commands:
        status = c.status if c.exit_code is None else f"exit {c.exit_code}"
        line, _, rest = c.command.partition("\n")
        line = line if len(line) <= chars else clip_end(line, chars - 3) + "..."
        out.append(f"  $ {line}{' ...' if rest else ''}  -> {status}")
    return out


def _search_lines(state: WorkingState, max_searches: int, chars: int) -> list[str]:
    """The newest web searches: ``"query" -> Title <url>; ...`` (at most 3 results each, each title
    and URL clipped to ``chars``)."""
    searches = state.searches[-max_searches:] if max_searches else ()
    if not searches:
        return []

    def clip(text: str) -> str:
        return _inline(text if len(text) <= chars else clip_end(text, max(1, chars - 3)) + "...")

    out = [f"Web searches (last {len(searches)}):"]
    for w in searches:
        hits = "; ".join(f"{clip(t)} <{clip(u)}>" for t, u in w.results[:3])
        out.append(f'  "{clip(w.query)}" -> ' + (hits or w.status))
    return out


def _error_lines(state: WorkingState, max_errors: int) -> list[str]:
    errors = state.errors[-max_errors:] if max_errors else ()
    if not errors:
        return []
    return ["Latest errors:"] + [f"  {_inline(e)}" for e in errors]


_NAMES_HEAD = "Names in use (most used recently first): "


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _fact_line(key: str, text: str, chars: int) -> str:
    """``  key: text`` with ``text`` clipped to ``chars`` characters (marked ``…``); a line break of
    the text continues the line indented under it, so a fact never starts a line of the block."""
    if len(text) > chars:
        text = clip_end(text, max(1, chars - 1)).rstrip() + "…"
    key_chars = max(8, min(_FACT_KEY_CHARS, chars // 4))
    if len(key) > key_chars:  # a 200-character key took the room of every other fact
        key = clip_end(key, key_chars - 1).rstrip() + "…"
    return f"  {_inline(key)}: " + "\n    ".join(_LINE_BREAK.split(text))  # tabs stay: no other control


_FACT_KEY_CHARS = 60
"""A fact's key is shown clipped to this many characters, or to a quarter of the level's characters per
fact when that is less (``…`` marks the cut; ``working_state().facts`` holds it whole)."""


def _compose(state: WorkingState, limits: tuple[int, int, int, int, int, int, int, int]) -> str:
    """The block without its names."""
    plan_items, _facts, files, commands, errors, command_chars, _fact_chars, searches = limits
    lines = [HEADER]
    lines += _fact_lines(state, limits)  # first: a compile that must cut drops the block's lines from its end
    lines += _plan_lines(state, plan_items)
    lines += _file_lines(state, files)
    lines += _command_lines(state, commands, command_chars)
    lines += _error_lines(state, errors)
    lines += _search_lines(state, searches, command_chars)
    return "\n".join(lines)


def _fact_lines(state: WorkingState, limits: tuple[int, int, int, int, int, int, int, int]) -> list[str]:
    """The facts section at a level of the schedule (empty without facts)."""
    facts, fact_chars = limits[1], limits[6]
    if not facts or not state.facts:
        return []
    lines = ["Facts:", *(_fact_line(k, v, fact_chars) for k, v in list(state.facts.items())[:facts])]
    if len(state.facts) > facts:
        lines.append(f"  ... {len(state.facts) - facts} more facts (by key; all in working_state().facts)")
    return lines


_WORD_RE = re.compile(r"[\w.$-]*\w")


def _words(text: str) -> set[str]:
    """The name-like words of ``text`` (file names with and without their extension)."""
    found = set(_WORD_RE.findall(text))
    found.update([w.rsplit(".", 1)[0] for w in found if "." in w])
    return found


def _with_names(text: str, names: list[str], k: int) -> str:
    return f"{text}\n{_NAMES_HEAD}{' '.join(names[:k])}" if k else text


def _fill_names(text: str, names: list[str], allowance: int, count: Callable[[str], int]) -> int:
    """How many of ``names`` fit after ``text`` within ``allowance``: the most (the largest ``k`` whose
    text is priced within it, the price growing with ``k``).

    Found by interpolation between a count that fits and one that does not (names cost about the same,
    so the guess lands within a name or two), each guess checked with its neighbour, falling back to
    halving after three rounds: four or five counts of the whole text where halving took eleven (each
    count prices the whole block anew: a compile after an append that moved a name spent 2-3 ms here
    with 1,200 names)."""
    if not names:
        return 0
    lo, c_lo = 1, count(_with_names(text, names, 1))
    if c_lo > allowance:
        return 0
    up, c_up = len(names), count(_with_names(text, names, len(names)))
    if c_up <= allowance:
        return up
    # count(lo) <= allowance < count(up): the answer is in [lo, up - 1]
    rounds = 0
    while up - lo > 1:
        rounds += 1
        if rounds > 3:
            guess = (lo + up) // 2
        else:
            guess = lo + (allowance - c_lo) * (up - lo) // max(1, c_up - c_lo)
            guess = min(max(guess, lo + 1), up - 1)
        c = count(_with_names(text, names, guess))
        if c <= allowance:
            lo, c_lo = guess, c
            probe = guess + 1  # the next one does not fit: done
        else:
            up, c_up = guess, c
            probe = guess - 1  # the one before fits: done
        if lo < probe < up and rounds <= 3:
            c = count(_with_names(text, names, probe))
            if c <= allowance:
                lo, c_lo = probe, c
            else:
                up, c_up = probe, c
    return lo


def render_state(state: WorkingState, allowance: int, count: Callable[[str], int]) -> str | None:
    """The block's text within ``allowance`` tokens (``count`` prices a text), or None when the state
    holds nothing from tool calls or facts (identifiers alone make no block) or not even the header,
    the plan and the facts fit.

    The sections above the names follow a fixed schedule of levels (the first level whose text leaves
    at least ``_NAMES_SHARE`` of the allowance to the names, or takes every name, else the first that
    fits; a level that would show the host's facts shorter or fewer than the first that fits is never
    taken for the names' room, and every level shows the facts, clipped); the names, best ranked first, fill
    what is left, less those already a word of the text above (a file name, with or without its extension). The
    same state and allowance always give the same bytes."""
    if allowance <= 0 or not (
        state.plans or state.facts or state.files or state.commands or state.errors or state.searches
    ):
        return None  # identifiers alone (a chat without tool calls) make no block
    chosen: tuple[str, list[str], int] | None = None
    chosen_limits = _LEVELS[0]
    ranked = [i.name for i in state.identifiers[:allowance]]  # a name costs at least a token
    for limits in _LEVELS:
        if chosen is not None and _fact_lines(state, limits) != _fact_lines(state, chosen_limits):
            break  # the names' room is never bought with the host's facts (clipped or left out)
        text = _compose(state, limits)
        used = count(text)
        if used > allowance:
            continue
        if chosen is not None and text == HEADER:
            break  # the names' room is not worth every section above them
        above = _words(text)
        names = [n for n in ranked if n not in above]
        k = _fill_names(text, names, allowance, count)
        if chosen is None:
            chosen, chosen_limits = (text, names, k), limits
        if used <= allowance * (1 - _NAMES_SHARE) or k == len(names):
            chosen = (text, names, k)
            break
    if chosen is None:
        return None
    text, names, k = chosen
    return None if text == HEADER else _with_names(text, names, k)


_NAMES_SHARE = 0.4
"""Share of the allowance the schedule leaves to the names when there are more than fit."""

# Plan items, facts, files, commands, error lines, characters of a command line (and of a search's
# query, titles and URLs), characters of a fact, web searches: each level cuts more (a long fact is
# clipped before the files and commands go). No level leaves the facts out: where the last one does not
# fit there is no block (and the compile gives the block's room back, see LedgerStrategy.give_way).
_LEVELS: tuple[tuple[int, int, int, int, int, int, int, int], ...] = (
    (100, 50, 60, 8, 5, 160, 4000, 4),
    (100, 50, 60, 8, 5, 160, 1000, 4),
    (100, 50, 40, 6, 4, 120, 600, 3),
    (100, 50, 30, 5, 3, 100, 400, 3),
    (100, 50, 24, 4, 2, 80, 300, 2),
    (100, 50, 16, 3, 2, 80, 200, 2),
    (60, 20, 10, 2, 1, 60, 160, 1),
    (30, 10, 5, 1, 0, 60, 120, 1),
    (20, 5, 0, 0, 0, 0, 80, 0),
    (10, 5, 0, 0, 0, 0, 80, 0),
)


class RenderMemo:
    """The latest texts :func:`render_state` gave, by what it reads of the state (plans, facts, files,
    commands, errors, searches and the names of the first ``allowance`` identifiers), the allowance and
    the token counter: a compile whose ledger shows what the previous one's showed renders nothing again
    (a compile after an appended message that names no file or identifier spent a third of its time
    rendering the same block: 5.8 ms at 200,000 messages). The identifiers' scores, which every message
    moves, are not read by the render: their order is (a new message scales every score alike)."""

    SIZE = 8
    """Renders kept (a compile renders at one or two allowances; the facts-only block is another)."""

    def __init__(self) -> None:
        self._entries: list[tuple[tuple[Any, ...], object, str | None]] = []

    def render(self, state: WorkingState, allowance: int, count: Callable[[str], int], counter: object) -> str | None:
        """:func:`render_state` of ``state`` within ``allowance`` tokens, priced by ``count`` (made from
        ``counter``, which keys the memo by identity), from the memo when it holds it."""
        key = (
            allowance,
            state.plans,
            tuple(state.facts.items()),
            state.files,
            state.commands,
            state.errors,
            state.searches,
            tuple(i.name for i in state.identifiers[: max(0, allowance)]),
        )
        for k, who, text in self._entries:
            if who is counter and k == key:
                return text
        text = render_state(state, allowance, count)
        self._entries.insert(0, (key, counter, text))
        del self._entries[self.SIZE :]
        return text
