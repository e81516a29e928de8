"""The harness view: a project's state as content blocks of bounded size (pure).

:func:`render_view` writes one text block per section, in priority order, each within its share of
``max_tokens`` and the whole within ``max_tokens`` (counted as one message by the token counter):

1. **Header** — slug, journal head, latest goal and next step (clipped).
2. **Ruled out** — every active rule-out with its reason when they fit; else ids and items; else ids; the
   rest are counted ("+ N more ... get_project_summaries lists them"). Never silently dropped.
3. **Tasks** — counts by status, then the tasks not verified.
4. **Brief** — the current brief's narrative, when there is one.
5. **Recent handoffs** — the newest handoffs (after the brief when there is one), newest first.

The size depends on ``max_tokens``, never on how long the project has run, so an orchestrator that injects
it into its own :meth:`~context_journal.manager.ContextManager.compile` keeps a constant context.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..tokens import EstimatingCounter, TokenCounter, check_token_count
from .brief import Brief, format_cites
from .entries import Entry
from .folds import ProjectState
from .summaries import clip, normalise_handoff

__all__ = ["MIN_RENDER_TOKENS", "HarnessView", "render_view"]

MIN_RENDER_TOKENS = 300
"""Smallest accepted ``max_tokens`` (the header alone needs about 200)."""

_SHARES = {"rule_outs": 0.4, "tasks": 0.2, "brief": 0.25}
"""Most of ``max_tokens`` a section may take (of what the header left); recent handoffs take the rest."""


class HarnessView(BaseModel):
    """The bounded view of a project.

    Attributes:
        project: The slug.
        head_seq: The journal head rendered.
        blocks: Text content blocks (``{"type": "text", "text": ...}``), one per section.
        tokens: Tokens of the blocks as one message, by the counter used (``<= max_tokens``).
        max_tokens: The bound.
        brief_version: The brief whose narrative is shown, or None.
        omitted: What did not fit, by section (rule-outs, tasks, claims, handoffs).
    """

    model_config = ConfigDict(frozen=True)

    project: str
    head_seq: int
    blocks: list[dict[str, Any]]
    tokens: int
    max_tokens: int
    brief_version: int | None = None
    omitted: dict[str, int] = Field(default_factory=dict)

    def text(self) -> str:
        """The sections as one string."""
        return "\n\n".join(str(b["text"]) for b in self.blocks)

    def to_injection(
        self, position: Literal["system", "end", "before_last_user"] = "system", label: str = "journal"
    ) -> Any:
        """This view as a :class:`~context_journal.compile.Injection` for ``ContextManager.compile``."""
        from ..rendering.options import Injection

        return Injection(content=self.blocks, position=position, label=label)


class _Section:
    def __init__(self, counter: TokenCounter, budget: int) -> None:
        self.counter = counter
        self.budget = budget
        self.lines: list[str] = []

    def cost(self, lines: list[str]) -> int:
        return self.counter.count_block({"type": "text", "text": "\n".join(lines)}) if lines else 0

    def add(self, line: str) -> bool:
        if self.cost([*self.lines, line]) > self.budget:
            return False
        self.lines.append(line)
        return True

    @property
    def tokens(self) -> int:
        return self.cost(self.lines)


def _rule_out_lines(state: ProjectState, section: _Section) -> int:
    rules = sorted(state.rule_outs, key=lambda r: (-r.last_seq, -r.seq))
    if not rules:
        return 0
    section.add(f"Ruled out — do not propose these again ({len(rules)} active):")
    for detail in ("full", "item", "id"):
        start = len(section.lines)
        done = 0
        for r in rules:
            item = clip(r.item, 40)[0]
            if detail == "full":
                line = f"- {r.id}: {item} — {clip(r.reason, 60)[0]} [#{r.seq}]"
            elif detail == "item":
                line = f"- {r.id}: {item} [#{r.seq}]"
            else:
                line = f"- {r.id} [#{r.seq}]"
            if not section.add(line):
                break
            done += 1
        if done == len(rules) or detail == "id":
            break
        del section.lines[start:]  # retry the whole list more compactly
    left = len(rules) - done
    while left and not section.add(f"+ {left} more active rule-outs; get_project_summaries lists them"):
        if len(section.lines) <= 1:
            break
        section.lines.pop()
        left += 1
    return left


def _task_lines(state: ProjectState, section: _Section) -> int:
    if not state.tasks:
        return 0
    counts: dict[str, int] = {}
    for t in state.tasks:
        counts[t.status] = counts.get(t.status, 0) + 1
    summary = ", ".join(f"{counts[s]} {s}" for s in ("verified", "claimed", "failed", "open") if counts.get(s))
    section.add(f"Tasks ({summary}; claimed = done but not verified yet):")
    pending = [t for t in state.tasks if t.status != "verified"]
    order = {"failed": 0, "claimed": 1, "open": 2}
    shown = 0
    for t in sorted(pending, key=lambda t: order[t.status]):
        at = f" [#{t.seq}]" if t.seq else ""
        if not section.add(f"- {t.id} {t.status}{at}: {clip(t.title, 30)[0]}"):
            break
        shown += 1
    return len(pending) - shown


def _brief_lines(brief: Brief, section: _Section) -> int:
    if not brief.narrative:
        return 0
    section.add(f"Brief v{brief.version} (as of #{brief.as_of_seq}):")
    shown = 0
    for claim in brief.narrative:
        if not section.add(f"- {clip(claim.text, 80)[0]} {format_cites(claim.cites)}"):
            break
        shown += 1
    if not shown:
        section.lines.clear()  # a heading with nothing under it
    return len(brief.narrative) - shown


def _handoff_lines(recent: Sequence[Entry], section: _Section, since: int) -> int:
    if not recent:
        return 0
    title = f"Handoffs since the brief (#{since}):" if since else "Latest handoffs:"
    section.add(title + " newest first")
    shown = 0
    for e in recent:
        s = normalise_handoff(e)
        line = f"- #{s.seq} {s.author}: {clip(s.state, 60)[0]} Next: {clip(s.next_step, 30)[0]}"
        if not section.add(line):
            break
        shown += 1
    if not shown:
        section.lines.clear()
    return len(recent) - shown


def render_view(
    state: ProjectState,
    brief: Brief | None,
    recent: Sequence[Entry],
    *,
    max_tokens: int,
    counter: TokenCounter | None = None,
) -> HarnessView:
    """Render the bounded view (sections in the module docstring).

    Args:
        state: The fold at the head.
        brief: The current brief, or None.
        recent: Newest handoffs first (after the brief's ``as_of_seq`` when there is a brief).
        max_tokens: The bound, in tokens of the counter (>= :data:`MIN_RENDER_TOKENS`).
        counter: Token counter (default :class:`~context_journal.tokens.EstimatingCounter`).

    Raises:
        TypeError: ``max_tokens`` is not an ``int`` (a ``bool`` included).
        ValueError: ``max_tokens`` below :data:`MIN_RENDER_TOKENS`.
    """
    check_token_count("max_tokens", max_tokens, MIN_RENDER_TOKENS)
    count = counter or EstimatingCounter()
    overhead = count.count_message("user", [])
    header = _Section(count, max_tokens)
    header.add(f"Project {state.project} — execution journal at #{state.head_seq}")
    header.add(f"Goal: {clip(state.goal, 80)[0]} [#{state.goal_seq}]" if state.goal else "Goal: (none yet)")
    if state.next_step:
        header.add(f"Next step: {clip(state.next_step, 80)[0]} [#{state.next_step_seq}]")
    left = max_tokens - overhead - header.tokens
    omitted: dict[str, int] = {}
    sections: list[_Section] = [header]
    rule_sec = _Section(count, int(left * _SHARES["rule_outs"]))
    omitted["rule_outs"] = _rule_out_lines(state, rule_sec)
    left -= rule_sec.tokens
    task_sec = _Section(count, int(left * _SHARES["tasks"] / (1 - _SHARES["rule_outs"])))
    omitted["tasks"] = _task_lines(state, task_sec)
    left -= task_sec.tokens
    brief_sec = _Section(count, int(left * _SHARES["brief"] / (1 - _SHARES["rule_outs"] - _SHARES["tasks"])))
    if brief is not None:
        omitted["claims"] = _brief_lines(brief, brief_sec)
    left -= brief_sec.tokens
    recent_sec = _Section(count, max(0, left - 2))
    omitted["handoffs"] = _handoff_lines(recent, recent_sec, brief.as_of_seq if brief else 0)
    sections += [rule_sec, task_sec, brief_sec, recent_sec]

    def blocks() -> list[dict[str, Any]]:
        return [{"type": "text", "text": "\n".join(s.lines)} for s in sections if s.lines]

    out = blocks()
    tokens = count.count_message("user", out)
    while tokens > max_tokens:  # the per-section sums under-counted: drop lines from the least important end
        victim = next((s for s in reversed(sections) if len(s.lines) > 1), None)
        if victim is None:
            break
        victim.lines.pop()
        out = blocks()
        tokens = count.count_message("user", out)
    return HarnessView(
        project=state.project,
        head_seq=state.head_seq,
        blocks=out,
        tokens=tokens,
        max_tokens=max_tokens,
        brief_version=brief.version if brief is not None and brief.narrative else None,
        omitted={k: v for k, v in omitted.items() if v},
    )
