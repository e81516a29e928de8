"""What a strategy's ``select`` returns and the compiler renders: the budget it fills, its entries (raw spans
of the view and entries it renders itself) and the selection. These types sit below both the strategies
and the compiler (``context_journal.strategies.base`` re-exports them), so the rendering layer reads a
selection without importing either."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = ["Budget", "ContextEntry", "RawSpan", "RenderedEntry", "Selection", "SummaryRef", "join_spans"]


@dataclass(frozen=True)
class Budget:
    """What a strategy may fill.

    Attributes:
        tokens: Estimated tokens (the view's units, before calibration) available for the entries,
            after the system part, the injections and a small reserve for repairs.
        total: The compile's whole budget, ``max_tokens - reserve_for_response`` (provider tokens).
        max_tokens: The model's context window as given to ``compile``.
        reserve_for_response: Tokens kept free for the reply.
    """

    tokens: int
    total: int
    max_tokens: int
    reserve_for_response: int = 0


@dataclass(frozen=True)
class RawSpan:
    """Messages ``[start, end)`` of the view, rendered raw (the compiler still repairs them).

    Attributes:
        start: First view position.
        end: One past the last view position.
    """

    start: int
    end: int


@dataclass(frozen=True)
class SummaryRef:
    """A summary a rendered entry shows.

    Attributes:
        id: The summary's id.
        level: 1 for a summary of raw messages, 2+ for merges.
        partial: True when only part of the summary's text is rendered.
    """

    id: str
    level: int
    partial: bool = False


@dataclass(frozen=True)
class RenderedEntry:
    """A message the strategy renders itself.

    Attributes:
        participant: Who speaks it (e.g. ``"Context Manager"`` for a recall marker, the assistant's
            name for a summary in its own voice).
        content: Content blocks (text blocks for summaries and markers).
        kind: ``"summary"``, ``"marker"`` (first half of a recall pair), ``"recall"`` (messages brought
            back by a query, see :mod:`context_journal.recall`), ``"ledger"`` (the working-state block,
            see :mod:`context_journal.state`), ``"newest"`` (a message rendered after the recent window,
            see :mod:`context_journal.strategies.newest`) or ``"note"``.
        covers: View positions ``(start, end)`` this entry stands for, or None.
        summaries: The summaries it shows (for provenance).
        role: ``"user"`` or ``"assistant"`` to force a role; None derives it from the participant.
        cache_breakpoint: Ask for a prompt-cache breakpoint after this entry.
        recalled: Messages a recall (or newest) entry shows: ``(message id, sequence, complete)``
            (complete is False for an excerpt).
    """

    participant: str
    content: tuple[Mapping[str, Any], ...]
    kind: Literal["summary", "marker", "recall", "note", "ledger", "newest"] = "summary"
    covers: tuple[int, int] | None = None
    summaries: tuple[SummaryRef, ...] = ()
    role: Literal["user", "assistant"] | None = None
    cache_breakpoint: bool = False
    recalled: tuple[tuple[str, int, bool], ...] = ()


ContextEntry: TypeAlias = RawSpan | RenderedEntry


@dataclass(frozen=True)
class Selection:
    """What ``select`` chose.

    Attributes:
        entries: In conversation order.
        state: State keys (relative to the strategy's namespace) and JSON values to persist if this
            selection is compiled (not previewed).
        omitted: Spans ``(start, end, reason)`` of the view the strategy left out on purpose.
        give_way: Raw spans ``(start, end)`` that give way first when the compiler must cut to fit
            (middle content not summarised yet), oldest first.
        protected: Raw spans ``(start, end)`` cut only when nothing else is left to cut (the opening
            instructions: a head window).
        last_resort: Raw spans ``(start, end)`` that give way, oldest first and each run replaced by one
            note, only when everything else is cut and the context still does not fit (the oldest turns
            of a recent window, never its newest unit): a compile that cuts them does not fail.
        superseded: Tool name -> ``(store sequence, note)``: a raw ``tool_use`` of that tool in a
            message older than the sequence is rendered with ``{"superseded": note}`` as its input
            (its id, name and result kept): a plan the selection shows in a newer version elsewhere.
    """

    entries: tuple[ContextEntry, ...]
    state: Mapping[str, Any] = field(default_factory=dict)
    omitted: tuple[tuple[int, int, str], ...] = ()
    give_way: tuple[tuple[int, int], ...] = ()
    protected: tuple[tuple[int, int], ...] = ()
    last_resort: tuple[tuple[int, int], ...] = ()
    superseded: Mapping[str, tuple[int, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Spans that touch are one span: the same raw messages name the same selection whether a layout
        # names them chunk by chunk or as one run (the compiler compares selections to stop its loop: a
        # stored layout's one run and a fresh fold's chunks compiled the same view two ways).
        object.__setattr__(self, "give_way", join_spans(self.give_way))
        object.__setattr__(self, "protected", join_spans(self.protected))
        object.__setattr__(self, "last_resort", join_spans(self.last_resort))


def join_spans(spans: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """``spans`` (each ``(start, end)``, in order) with each run of touching or overlapping spans joined
    into one: ``[(0, 3), (3, 5), (7, 9)]`` -> ``((0, 5), (7, 9))``."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
            continue
        out.append((a, b))
    return tuple(out)
