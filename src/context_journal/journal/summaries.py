"""Per-step summaries: the handoffs, lightly normalised and bounded, paged for a harness.

**Normalisation** of a handoff: whitespace runs collapsed to one space, each text field clipped to a token
budget (:data:`FIELD_TOKENS`, estimated with :func:`~context_journal.tokens.estimate_text_tokens`; a clipped
field ends with ``…``), at most :data:`MAX_RULED_OUT` rule-outs, :data:`MAX_DONE_CLAIMS` claims and
:data:`MAX_REFS` refs (duplicates dropped; the number left out is reported). So one summary is at most
about 1,600 tokens whatever the worker wrote.

**A page** (:func:`build_page`) holds the active rule-outs and task status of the fold (their share capped
at half the page, a third of that kept for tasks), the latest goal and next step, and the newest ``limit``
handoffs before ``before_seq``, as many as fit ``max_tokens`` (the JSON of the whole page, estimated).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .._graphemes import clip_end
from ..tokens import check_token_count, estimate_text_tokens
from .entries import Entry, HandoffBody, canonical_json
from .folds import ActiveRuleOut, ProjectState, TaskState

__all__ = [
    "DEFAULT_PAGE_TOKENS",
    "FIELD_TOKENS",
    "MAX_DONE_CLAIMS",
    "MAX_LIMIT",
    "MAX_REFS",
    "MAX_RULED_OUT",
    "MIN_PAGE_TOKENS",
    "RuleOutSummary",
    "StepSummary",
    "SummaryPage",
    "build_page",
    "clip",
    "json_tokens",
    "normalise_handoff",
]

FIELD_TOKENS = {"goal": 80, "state": 200, "next_step": 80, "item": 40, "reason": 60, "ref": 40, "title": 30}
"""Token budget of each text field of a summary (estimated tokens)."""
MAX_RULED_OUT = 5
"""Rule-outs shown per summary."""
MAX_DONE_CLAIMS = 10
"""Done claims shown per summary."""
MAX_REFS = 3
"""Refs shown per summary."""
MAX_LIMIT = 50
"""Largest ``limit`` of a page (handoffs)."""
DEFAULT_PAGE_TOKENS = 8000
"""Default bound of a page (estimated tokens of its JSON)."""
MIN_PAGE_TOKENS = 4000
"""Smallest accepted page bound: half for the fold, half for at least one summary (tokens)."""

_SPACE = re.compile(r"\s+")
_STATUS_ORDER = {"failed": 0, "claimed": 1, "open": 2, "verified": 3}


def clip(text: str, max_tokens: int) -> tuple[str, bool]:
    """``text`` with whitespace collapsed, cut to at most ``max_tokens`` estimated tokens (at a space where
    possible, never inside a grapheme cluster, ending with ``…``).

    Returns:
        The text and whether it was cut.
    """
    flat = _SPACE.sub(" ", text).strip()
    if estimate_text_tokens(flat) <= max_tokens:
        return flat, False
    lo, hi, best = 0, len(flat), ""
    while lo <= hi:
        mid = (lo + hi) // 2
        cut = flat.rfind(" ", 0, mid + 1)
        piece = clip_end(flat, cut if cut > mid // 2 else mid).rstrip() + "…"  # whole grapheme clusters
        if estimate_text_tokens(piece) <= max_tokens:
            best, lo = piece, mid + 1
        else:
            hi = mid - 1
    return best or "…", True


def json_tokens(value: object) -> int:
    """Estimated tokens of ``value`` as compact JSON."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    return estimate_text_tokens(canonical_json(value))


class RuleOutSummary(BaseModel):
    """A rule-out, clipped.

    Attributes:
        id: Its id.
        item: What (clipped).
        reason: Why (clipped).
        seq: The entry that introduced it (None inside a step summary: it is that step).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    item: str
    reason: str
    seq: int | None = None


class StepSummary(BaseModel):
    """One handoff, normalised and bounded.

    Attributes:
        seq: The handoff's seq.
        author: Who wrote it.
        ts: When, seconds since the epoch.
        goal: The goal (clipped).
        state: Where things stood (clipped).
        next_step: The next step (clipped).
        ruled_out: Its rule-outs (at most :data:`MAX_RULED_OUT`).
        done_claims: Task ids claimed done (at most :data:`MAX_DONE_CLAIMS`).
        refs: References (at most :data:`MAX_REFS`, clipped).
        omitted: How many rule-outs, claims and refs were left out, by field.
        clipped: True when any text field was cut.
        redacted: True for a handoff whose body was redacted (its text fields read ``[redacted]``).
    """

    model_config = ConfigDict(frozen=True)

    seq: int
    author: str
    ts: float
    goal: str
    state: str
    next_step: str
    ruled_out: list[RuleOutSummary] = Field(default_factory=list)
    done_claims: list[str] = Field(default_factory=list)
    refs: list[str] = Field(default_factory=list)
    omitted: dict[str, int] = Field(default_factory=dict)
    clipped: bool = False
    redacted: bool = False


def normalise_handoff(entry: Entry) -> StepSummary:
    """The bounded summary of a handoff entry (rules in the module docstring).

    A redacted handoff keeps its seq, author and time; its text fields read ``[redacted]``.

    Raises:
        ValueError: the entry is not a handoff.
    """
    if entry.redacted:
        if entry.kind != "handoff":
            raise ValueError(f"#{entry.seq} is a {entry.kind}, not a handoff")
        gone = "[redacted]"
        return StepSummary(
            seq=entry.seq,
            author=clip(entry.author, 20)[0],
            ts=entry.ts,
            goal=gone,
            state=gone,
            next_step=gone,
            redacted=True,
        )
    body = entry.parsed()
    if not isinstance(body, HandoffBody):
        raise ValueError(f"#{entry.seq} is a {entry.kind}, not a handoff")
    cut = False

    def c(text: str, field: str) -> str:
        nonlocal cut
        out, was_cut = clip(text, FIELD_TOKENS[field])
        cut = cut or was_cut
        return out

    claims = list(dict.fromkeys(body.done_claims))
    refs = list(dict.fromkeys(body.refs))
    omitted = {
        "ruled_out": max(0, len(body.ruled_out) - MAX_RULED_OUT),
        "done_claims": max(0, len(claims) - MAX_DONE_CLAIMS),
        "refs": max(0, len(refs) - MAX_REFS),
    }
    return StepSummary(
        seq=entry.seq,
        author=clip(entry.author, 20)[0],
        ts=entry.ts,
        goal=c(body.goal, "goal"),
        state=c(body.state, "state"),
        next_step=c(body.next_step, "next_step"),
        ruled_out=[
            RuleOutSummary(id=r.id, item=c(r.item, "item"), reason=c(r.reason, "reason"))
            for r in body.ruled_out[:MAX_RULED_OUT]
        ],
        done_claims=claims[:MAX_DONE_CLAIMS],
        refs=[c(r, "ref") for r in refs[:MAX_REFS]],
        omitted={k: v for k, v in omitted.items() if v},
        clipped=cut,
    )


def _rule_out_summary(r: ActiveRuleOut) -> RuleOutSummary:
    return RuleOutSummary(
        id=r.id, item=clip(r.item, FIELD_TOKENS["item"])[0], reason=clip(r.reason, FIELD_TOKENS["reason"])[0], seq=r.seq
    )


def _task_summary(t: TaskState) -> TaskState:
    return t.model_copy(update={"title": clip(t.title, FIELD_TOKENS["title"])[0]})


class SummaryPage(BaseModel):
    """A page of per-step summaries with the fold's current view.

    Attributes:
        project: The slug.
        head_seq: The journal head when the page was read.
        order: ``desc`` (newest first) or ``asc``: how the chosen window is sorted.
        limit: Handoffs asked for.
        before_seq: Only handoffs before this seq (None: up to the head).
        goal: The latest goal (clipped).
        next_step: The latest next step (clipped).
        summaries: The handoffs of the window that fit, in ``order``.
        active_rule_outs: Active rule-outs, most recently listed first, clipped.
        active_rule_outs_total: How many are active.
        tasks: The plan's tasks and their status (titles clipped): failed, claimed, open, then verified.
        tasks_total: How many tasks the plan has.
        next_before_seq: Pass it as ``before_seq`` for the next (older) page; None when nothing is older.
        tokens: Estimated tokens of this page's JSON (``<= max_tokens``).
        max_tokens: The bound.
    """

    model_config = ConfigDict(frozen=True)

    project: str
    head_seq: int
    order: Literal["desc", "asc"]
    limit: int
    before_seq: int | None
    goal: str | None
    next_step: str | None
    summaries: list[StepSummary]
    active_rule_outs: list[RuleOutSummary]
    active_rule_outs_total: int
    tasks: list[TaskState]
    tasks_total: int
    next_before_seq: int | None
    tokens: int = 0
    max_tokens: int = DEFAULT_PAGE_TOKENS


def build_page(
    state: ProjectState,
    window: Sequence[Entry],
    *,
    limit: int,
    order: Literal["desc", "asc"],
    before_seq: int | None,
    more_before: bool,
    max_tokens: int = DEFAULT_PAGE_TOKENS,
) -> SummaryPage:
    """A bounded page (pure).

    Args:
        state: The fold at the head.
        window: The newest ``limit`` handoffs before ``before_seq``, newest first.
        limit: As asked.
        order: How to sort the summaries shown.
        before_seq: As asked.
        more_before: Whether handoffs older than the window exist.
        max_tokens: Bound of the page, in estimated tokens (>= :data:`MIN_PAGE_TOKENS`).

    Raises:
        TypeError: ``max_tokens`` is not an ``int`` (a ``bool`` included).
        ValueError: ``max_tokens`` below :data:`MIN_PAGE_TOKENS`.
    """
    check_token_count("max_tokens", max_tokens, MIN_PAGE_TOKENS)
    fixed_budget = max_tokens // 2
    goal = clip(state.goal, FIELD_TOKENS["goal"])[0] if state.goal else None
    next_step = clip(state.next_step, FIELD_TOKENS["next_step"])[0] if state.next_step else None
    used = 200 + json_tokens([goal, next_step])  # keys, numbers and punctuation of the page itself
    rules: list[RuleOutSummary] = []
    rule_budget = fixed_budget - fixed_budget // 3  # a third of the fixed half is kept for tasks
    for r in sorted(state.rule_outs, key=lambda r: (-r.last_seq, -r.seq)):
        s = _rule_out_summary(r)
        cost = json_tokens(s) + 1
        if used + cost > rule_budget:
            break
        rules.append(s)
        used += cost
    tasks: list[TaskState] = []
    for t in sorted(state.tasks, key=lambda t: _STATUS_ORDER[t.status]):
        ts = _task_summary(t)
        cost = json_tokens(ts) + 1
        if used + cost > fixed_budget:
            break
        tasks.append(ts)
        used += cost
    shown: list[StepSummary] = []
    for e in window:
        summary = normalise_handoff(e)
        cost = json_tokens(summary) + 1
        if used + cost > max_tokens and shown:
            break
        shown.append(summary)
        used += cost
    dropped_from_window = len(shown) < len(window)
    next_before = shown[-1].seq if shown and (more_before or dropped_from_window) else None

    def make(summaries: list[StepSummary], nb: int | None) -> SummaryPage:
        return SummaryPage(
            project=state.project,
            head_seq=state.head_seq,
            order=order,
            limit=limit,
            before_seq=before_seq,
            goal=goal,
            next_step=next_step,
            summaries=summaries if order == "desc" else summaries[::-1],
            active_rule_outs=rules,
            active_rule_outs_total=len(state.rule_outs),
            tasks=tasks,
            tasks_total=len(state.tasks),
            next_before_seq=nb,
            max_tokens=max_tokens,
        )

    page = make(shown, next_before)
    tokens = json_tokens(page)
    while tokens > max_tokens and len(shown) > 1:  # the sum of parts under-counted: drop the oldest shown
        shown.pop()
        page = make(shown, shown[-1].seq)
        tokens = json_tokens(page)
    return page.model_copy(update={"tokens": tokens})
