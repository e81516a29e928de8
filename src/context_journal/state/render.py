"""The ledger block: a :class:`~context_journal.state.WorkingState` as text within a token allowance.

Sections in priority order: plans (every item, with its status), facts, files (grouped by directory,
each with its last action and touch count), commands (newest, with exit status), error lines (newest),
identifiers (best ranked). When the whole does not fit, the lower sections are cut first, then the
higher ones, by a fixed schedule: the same state and allowance always give the same bytes.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .ledger import WorkingState

__all__ = ["HEADER", "MARKER", "render_state"]

MARKER = "[Working state: kept by the journal from this conversation's tool calls; current as of now.]"
HEADER = "Working state (latest plan, files, commands, errors, names; newer than any summary above):"

_STATUS = {
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
}


def _plan_lines(state: WorkingState, max_items: int) -> list[str]:
    out: list[str] = []
    for plan in state.plans:
        out.append(f"Plan ({plan.tool}, version {plan.version}, latest):")
        if plan.note:
            out.append(f"  note: {plan.note}")
        for item in plan.items[:max_items]:
            out.append(f"  [{_STATUS.get(item.status.lower(), '?')}] {item.text} ({item.status})")
        if len(plan.items) > max_items:
            out.append(f"  ... {len(plan.items) - max_items} more items")
    return out


def _common_root(dirs: list[str]) -> str:
    """The deepest directory shared by the absolute directories of the most used top-level tree (three
    levels, e.g. ``/home/USER/projects``); ``""`` when fewer than two share one."""
    tops: dict[str, int] = {}
    for d in dirs:
        if d.startswith("/"):
            top = "/".join(d.split("/")[:4])
            tops[top] = tops.get(top, 0) + 1
    if not tops:
        return ""
    best = max(tops.items(), key=lambda kv: kv[1])[0]
    under = [d for d in dirs if "/".join(d.split("/")[:4]) == best]
    if len(under) < 2:
        return ""
    root = os.path.commonpath(under)
    return "" if root.count("/") < 2 else root.rstrip("/") + "/"


def _file_lines(state: WorkingState, max_files: int) -> list[str]:
    files = state.files[:max_files]
    if not files:
        return []
    groups: dict[str, list[str]] = {}
    for f in files:
        seen = f"x{f.count}" if f.count > 1 else ""
        name = f.path[len(f.directory) :]
        groups.setdefault(f.directory, []).append(f"{name} ({f.action}{', ' + seen if seen else ''})")
    root = _common_root(list(groups))
    more = len(state.files) - len(files)
    head = f"Files touched ({len(state.files)}{', newest first' if len(state.files) > 1 else ''}"
    head += f"; under {root}" if root else ""
    out = [head + "):"]
    for directory, names in groups.items():
        shown = directory[len(root) :] if root and directory.startswith(root) else directory
        out.append(f"  {shown or './'}: " + ", ".join(names))
    if more > 0:
        out.append(f"  ... {more} more files")
    return out


def _command_lines(state: WorkingState, max_commands: int) -> list[str]:
    commands = state.commands[-max_commands:] if max_commands else ()
    if not commands:
        return []
    out = [f"Commands run (last {len(commands)}):"]
    for c in commands:
        status = c.status if c.exit_code is None else f"exit {c.exit_code}"
        line, _, rest = c.command.partition("\n")
        line = line if len(line) <= 160 else line[:157] + "..."
        out.append(f"  $ {line}{' ...' if rest else ''}  -> {status}")
    return out


def _error_lines(state: WorkingState, max_errors: int) -> list[str]:
    errors = state.errors[-max_errors:] if max_errors else ()
    if not errors:
        return []
    return ["Latest errors:"] + [f"  {e}" for e in errors]


def _ident_lines(state: WorkingState, max_idents: int) -> list[str]:
    names = [i.name for i in state.identifiers[:max_idents]]
    return ["Names in use: " + ", ".join(names)] if names else []


def _compose(state: WorkingState, limits: tuple[int, int, int, int, int, int]) -> str:
    plan_items, facts, files, commands, errors, idents = limits
    lines = [HEADER]
    lines += _plan_lines(state, plan_items)
    if facts and state.facts:
        lines.append("Facts:")
        lines += [f"  {k}: {v}" for k, v in list(state.facts.items())[:facts]]
    lines += _file_lines(state, files)
    lines += _command_lines(state, commands)
    lines += _error_lines(state, errors)
    lines += _ident_lines(state, idents)
    return "\n".join(lines)


def render_state(state: WorkingState, allowance: int, count: Callable[[str], int]) -> str | None:
    """The block's text within ``allowance`` tokens (``count`` prices a text), or None when the state
    holds nothing from tool calls or facts (identifiers alone make no block) or not even the header
    and the plan fit."""
    if allowance <= 0 or not (state.plans or state.facts or state.files or state.commands or state.errors):
        return None  # identifiers alone (a chat without tool calls) make no block
    for limits in _LEVELS:
        text = _compose(state, limits)
        if count(text) <= allowance:
            return None if text == HEADER else text
    return None


# Plan items, facts, files, commands, error lines, identifiers: each level cuts the lower sections more.
_LEVELS: tuple[tuple[int, int, int, int, int, int], ...] = (
    (100, 50, 40, 8, 5, 160),
    (100, 50, 40, 8, 5, 100),
    (100, 50, 30, 6, 4, 60),
    (100, 50, 20, 5, 3, 40),
    (100, 50, 12, 4, 2, 25),
    (60, 20, 8, 3, 1, 12),
    (30, 10, 4, 2, 0, 4),
    (20, 5, 0, 0, 0, 0),
    (10, 0, 0, 0, 0, 0),
)
