"""``WindowedPassthroughStrategy``: passthrough from a persisted anchor that only moves in jumps.

Everything from the anchor on is rendered. When that window no longer fits, the anchor jumps forward
so the window fills about ``fraction`` of the budget; between jumps the rendered prefix is
byte-identical from compile to compile, so a provider's prompt cache keeps hitting (one cache miss per
jump, amortised over roughly ``(1 - fraction) * budget`` tokens of new messages). The anchor is kept as
the store sequence at which its message was appended, with the budget (``max_tokens -
reserve_for_response``) it was set for, under ``<namespace>/windowed/anchor`` on the manager's branch,
so it survives restarts and follows branches. A compile with another budget sets a new anchor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..views import newest_unit_start, window_cut
from .base import BaseStrategy, Budget, RawSpan, Selection, StrategyContext
from .passthrough import newest_fitting_suffix

if TYPE_CHECKING:
    from ..views import MessageView

__all__ = ["WindowedPassthroughStrategy"]

ANCHOR_STATE = "windowed/anchor"


class WindowedPassthroughStrategy(BaseStrategy):
    """Passthrough over a window that starts at a persisted anchor and jumps forward when over budget.

    Args:
        fraction: After a jump the window holds about this fraction of the budget, in ``(0, 1]``.
        state_name: State name (relative to the namespace) of the anchor.

    Raises:
        ValueError: ``fraction`` is outside ``(0, 1]``.
    """

    records_compression_reads = True  # it never compresses, so it never reads for a summary

    name = "windowed"

    def __init__(self, fraction: float = 0.5, *, state_name: str = ANCHOR_STATE) -> None:
        if not 0 < fraction <= 1:
            raise ValueError(f"fraction must be in (0, 1], got {fraction}")
        self.fraction = fraction
        self.state_name = state_name
        self.anchor: dict[str, Any] | None = None

    def load(self, ctx: StrategyContext) -> None:
        """Read the anchor (``{"sequence": int, "id": str, "budget": tokens}``) of the manager's namespace and
        branch."""
        value = ctx.get_state(self.state_name)
        if isinstance(value, dict) and isinstance(value.get("sequence"), int):
            self.anchor = value
        else:
            self.anchor = None

    def anchor_index(self, view: MessageView) -> int:
        """View position where the current window starts (0 without an anchor)."""
        n = len(view)
        if not self.anchor or n == 0:
            return 0
        start = window_cut(view, view.index_at_sequence(int(self.anchor["sequence"])), n)
        return start if start < n else newest_unit_start(view, n)

    def select(self, view: MessageView, budget: Budget) -> Selection:
        """The window from the anchor, or, when it is over ``budget.tokens``, from a new anchor that fills
        ``fraction`` of the budget (snapped to a tool unit; never before the old anchor)."""
        n = len(view)
        if n == 0:
            return Selection(())
        # An anchor belongs to the budget it was set for: a compile with another budget starts afresh
        # (the whole view if it fits, else a new jump), so a larger budget is never left mostly empty.
        same_budget = self.anchor is None or self.anchor.get("budget", budget.total) == budget.total
        start = self.anchor_index(view) if same_budget else 0
        state: dict[str, Any] = {}
        if view.tokens(start, n) > budget.tokens:
            start = max(start, newest_fitting_suffix(view, int(budget.tokens * self.fraction), n))
        if start > 0 or self.anchor is not None:
            entry = view.entry(start)
            new_anchor = {"sequence": entry.created_sequence, "id": entry.id, "budget": budget.total}
            if new_anchor != self.anchor:
                state[self.state_name] = new_anchor
        omitted = ((0, start, "before the window's anchor"),) if start else ()
        return Selection((RawSpan(start, n),), state=state, omitted=omitted)

    def commit(self, selection: Selection, ctx: StrategyContext) -> None:
        """Persist a moved anchor (one state write per jump, none between jumps)."""
        value = selection.state.get(self.state_name)
        if value is not None and value != self.anchor:
            ctx.put_states({self.state_name: value})
            self.anchor = dict(value)

    def __repr__(self) -> str:
        return f"WindowedPassthroughStrategy(fraction={self.fraction})"
