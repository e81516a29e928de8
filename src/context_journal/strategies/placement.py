"""Wrapper strategies: :class:`StrategyWrapper` delegates everything but ``select`` to the wrapped
strategy, and the helpers below place the entries a wrapper adds (recall pairs, pinned messages)
among the wrapped strategy's entries, in conversation order, without splitting a tool unit or a
summary's pair.

An added entry that stands for view position ``p`` goes after every entry that starts at or before
``p``; an entry with no position of its own (the second half of a pair) counts as starting where the
entry before it starts, so nothing is ever placed between the two halves of a pair.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from .base import (
    ContextEntry,
    RawSpan,
    Selection,
    Strategy,
    StrategyContext,
    SummaryRequest,
    SummaryResult,
    has_summaries,
)

if TYPE_CHECKING:
    from ..views import MessageView

__all__ = ["StrategyWrapper", "carve_out", "entry_start", "entry_starts", "insert_at", "place_of", "raw_test"]


class StrategyWrapper:
    """A strategy around ``inner``: state, compression and readiness belong to ``inner``; a subclass
    implements ``select`` (recall pairs, pinned messages... added to ``inner``'s selection)."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.name = inner.name

    def load(self, ctx: StrategyContext) -> None:
        self.inner.load(ctx)

    def commit(self, selection: Selection, ctx: StrategyContext) -> None:
        self.inner.commit(selection, ctx)

    def on_messages_added(self, view: MessageView, start: int) -> None:
        self.inner.on_messages_added(view, start)

    def pending_requests(self) -> Sequence[SummaryRequest]:
        return self.inner.pending_requests()

    def record_result(self, result: SummaryResult, ctx: StrategyContext) -> None:
        self.inner.record_result(result, ctx)

    def is_ready(self) -> bool:
        return self.inner.is_ready()

    def raw_floor(self, view: MessageView) -> Iterator[tuple[int, int, bool]] | None:
        """``inner``'s (a wrapper adds entries around its selection and never takes its raw spans out)."""
        floor = getattr(self.inner, "raw_floor", None)
        return floor(view) if callable(floor) else None

    def raw_head(self, view: MessageView) -> tuple[int, int] | None:
        """``inner``'s head window (a wrapper never takes it out)."""
        head = getattr(self.inner, "raw_head", None)
        return head(view) if callable(head) else None

    @property
    def pinned_parts(self) -> dict[str, int]:
        """The pinned messages' tokens of the last selection (see the pin wrapper), for errors."""
        return dict(getattr(self.inner, "pinned_parts", {}))

    @property
    def pinned_messages(self) -> frozenset[str]:
        """The pinned messages' ids of the last selection (see the pin wrapper): never cut."""
        return frozenset(getattr(self.inner, "pinned_messages", ()))

    @property
    def document_ids(self) -> frozenset[str]:
        """The documents' ids (see the pin wrapper): never excerpted."""
        return frozenset(getattr(self.inner, "document_ids", ()))

    @property
    def marked_newest(self) -> frozenset[str]:
        """The ids rendered as newest (see the render-as-newest wrapper): rendered by the strategy itself."""
        return frozenset(getattr(self.inner, "marked_newest", ()))

    def summarised(self, view: MessageView, start: int, end: int) -> bool:
        """``inner``'s (see :func:`~context_journal.strategies.base.has_summaries`)."""
        return has_summaries(self.inner, view, start, end)

    def held(self, view: MessageView) -> frozenset[str]:
        """``inner``'s messages no excerpt may cut, known before selecting (see the pin wrapper)."""
        held = getattr(self.inner, "held", None)
        return frozenset(held(view)) if callable(held) else frozenset()


def entry_start(entry: ContextEntry) -> int | None:
    """The view position an entry starts at (None for an entry that stands for no message)."""
    if isinstance(entry, RawSpan):
        return entry.start
    return entry.covers[0] if entry.covers is not None else None


def entry_starts(entries: Sequence[ContextEntry]) -> list[int]:
    """Per entry, the view position it starts at (an entry with no position inherits the previous one's;
    -1 before any)."""
    starts: list[int] = []
    last = -1
    for e in entries:
        s = entry_start(e)
        last = last if s is None else s
        starts.append(last)
    return starts


def place_of(starts: Sequence[int], position: int) -> int:
    """The index in the entries (as :func:`entry_starts` gave ``starts``) where an entry standing for
    ``position`` goes."""
    return bisect.bisect_right(starts, position)


def insert_at(entries: Sequence[ContextEntry], added: Mapping[int, Sequence[ContextEntry]]) -> tuple[ContextEntry, ...]:
    """``entries`` with ``added[k]`` inserted before entry ``k`` (``k == len(entries)``: at the end)."""
    out: list[ContextEntry] = []
    for k in range(len(entries) + 1):
        out.extend(added.get(k, ()))
        if k < len(entries):
            out.append(entries[k])
    return tuple(out)


def raw_test(entries: Sequence[ContextEntry]) -> Callable[[int], bool]:
    """``position -> bool``: True for a view position one of the raw spans of ``entries`` renders."""
    raw = sorted((e.start, e.end) for e in entries if isinstance(e, RawSpan))
    starts = [a for a, _ in raw]

    def is_raw(position: int) -> bool:
        k = bisect.bisect_right(starts, position) - 1
        return k >= 0 and raw[k][0] <= position < raw[k][1]

    return is_raw


def carve_out(
    spans: Sequence[tuple[int, int, str]], cut: Sequence[tuple[int, int]]
) -> tuple[tuple[int, int, str], ...]:
    """``spans`` (``(start, end, reason)``) with the ranges ``cut`` taken out, each piece keeping its reason
    (a pinned or marked message is never reported omitted)."""
    out: list[tuple[int, int, str]] = []
    for a, b, reason in spans:
        pieces = [(a, b)]
        for u, v in cut:
            pieces = [q for x, y in pieces for q in ((x, min(y, u)), (max(x, v), y)) if q[1] > q[0]]
        out.extend((x, y, reason) for x, y in pieces)
    return tuple(out)
