"""``PassthroughStrategy``: everything, or the newest suffix that fits, snapped to whole tool units."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..views import newest_unit_start, window_cut, window_start
from .base import BaseStrategy, Budget, RawSpan, Selection

if TYPE_CHECKING:
    from ..views import MessageView

__all__ = ["PassthroughStrategy", "newest_fitting_suffix"]


def newest_fitting_suffix(view: MessageView, budget: int, end: int | None = None) -> int:
    """Start of the newest suffix of ``[0, end)`` whose estimate fits ``budget`` tokens, moved forward so
    it does not open on results whose call was cut off nor inside a sharded message, or back to the
    opening of a short thinking-led tool loop it would enter half-way (see
    :func:`~context_journal.views.window_start`).

    When not even the newest tool unit fits, returns that unit's start anyway: the compiler reduces
    a unit too large for the budget to a bounded excerpt. O(log N) plus the messages skipped.
    """
    stop = len(view) if end is None else min(end, len(view))
    if stop == 0:
        return 0
    suffix = view.suffix_start(budget, stop)
    start = window_start(view, suffix, budget) if stop == len(view) else window_cut(view, suffix, stop)
    if start >= stop:
        start = newest_unit_start(view, stop)
    return start


class PassthroughStrategy(BaseStrategy):
    """Render every message when they fit; otherwise the newest suffix that fits.

    The cut is snapped to a tool unit: a window never opens on tool results whose call is left out
    (the results are skipped, or, when the message also holds other blocks, the compiler drops the
    orphaned results and keeps the rest). Messages left out are reported in the compile's ``dropped``
    count. Stateless.
    """

    records_compression_reads = True  # it never compresses, so it never reads for a summary

    name = "passthrough"

    def select(self, view: MessageView, budget: Budget) -> Selection:
        """Everything, or the newest suffix within ``budget.tokens`` (see :func:`newest_fitting_suffix`)."""
        n = len(view)
        if n == 0:
            return Selection(())
        start = newest_fitting_suffix(view, budget.tokens)
        omitted = ((0, start, "older than the newest suffix that fits the budget"),) if start else ()
        return Selection((RawSpan(start, n),), omitted=omitted)
