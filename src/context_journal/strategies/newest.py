"""Render as newest: messages the host marks are sent after the recent window, as the newest content
before the model's turn (a document the model must read last, the task statement of a long run).

:class:`NewestStrategy` wraps any strategy: it prices the marked messages first, gives the wrapped
strategy the budget minus that, takes the marked messages out of wherever the wrapped strategy put them
raw (each is sent once per compile), and appends them, oldest marked first, as user turns at the end of
the context, each naming its message in its provenance. A marked message holds no tool call or result
(``ContextManager.render_as_newest`` refuses those: moved away from its pair, a call or a result breaks
the provider's pairing rule). A summary that covers a marked message keeps its text.

Marks are journal records: the manager keeps the marked ids as the state ``newest`` of its namespace on
its branch (:data:`NEWEST_STATE`), so a mark follows forks and survives a reopen. A mark of a message the
view does not show (removed, filtered out, or addressed only to another reader) is kept but renders
nothing; a reader's view of a marked message holds only that reader's blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..rendering.reduce import PricedView
from ..sharding import join_content, layout_of
from .base import Budget, RawSpan, RenderedEntry, Selection, Strategy
from .pinned import pinned_ids
from .placement import StrategyWrapper, carve_out

if TYPE_CHECKING:
    from ..views import MessageView

__all__ = ["NEWEST_STATE", "NewestStrategy", "newest_ids"]

NEWEST_STATE = "newest"
"""State name (relative to the namespace) of the ids rendered as newest: ``{"ids": [message id, ...]}``."""


def newest_ids(value: Any) -> tuple[str, ...]:
    """The marked message ids of a stored ``newest`` state value, in the order they were marked (the
    state has the pins' shape)."""
    return pinned_ids(value)


class NewestStrategy(StrategyWrapper):
    """``inner`` with the messages ``ids`` names rendered last (see the module docstring).

    Args:
        inner: The strategy that selects the rest of the context.
        ids: Marked message ids, in the order they were marked.
    """

    def __init__(self, inner: Strategy, ids: Sequence[str]) -> None:
        super().__init__(inner)
        self.ids = tuple(dict.fromkeys(ids))

    @property
    def marked_newest(self) -> frozenset[str]:
        """The ids this strategy renders as newest (its marks, and an inner wrapper's)."""
        return frozenset(self.ids) | super().marked_newest

    def select(self, view: MessageView, budget: Budget) -> Selection:
        """The wrapped strategy's selection, within the budget minus the marked messages, with the marked
        messages taken out of its raw spans and appended as user turns, in the order they were marked."""
        found = [(mid, pos) for mid in self.ids if (pos := view.index_of(mid)) is not None]
        if not found:
            return self.inner.select(view, budget)
        cost = sum(view.tokens(pos, pos + 1) for _, pos in found)
        # Paid for here: the wrapped strategy (a pin wrapper over a range also marked, one keeping the
        # message raw in its place) sees them free, else they were counted twice (38 of 42 messages left
        # out at 4,000 tokens where they took 2,543).
        paid = PricedView(view, {pos: -view.tokens(pos, pos + 1) for _, pos in found})
        selection = self.inner.select(paid, replace(budget, tokens=max(0, budget.tokens - cost)))
        moved = {pos for _, pos in found}
        cut = [(p, p + 1) for p in sorted(moved)]
        entries: list[Any] = []
        for entry in selection.entries:
            if isinstance(entry, RawSpan):  # the marked messages leave their place (sent once, last)
                entries.extend(RawSpan(x, y) for x, y, _ in carve_out([(entry.start, entry.end, "")], cut))
            else:
                entries.append(entry)
        runs: list[list[tuple[str, int, Any, dict[str, Any] | None]]] = []
        for mid, pos in found:
            e, message = view.entry(pos), view.message(pos)
            layout = layout_of(message.metadata)
            last = runs[-1][-1] if runs else None
            # The shards of one message (marked together) go as one user turn, joined (sharding.py).
            if (
                layout is not None
                and last is not None
                and last[3] is not None
                and last[3].get("group") == layout.get("group")
            ):
                runs[-1].append((mid, e.sequence, message, layout))
            else:
                runs.append([(mid, e.sequence, message, layout)])
        for run in runs:
            if len(run) == 1:
                content = run[0][2].content_dicts()
            else:
                content = join_content(
                    (m.content_dicts(), list((lay or {}).get("blocks") or ())) for _, _, m, lay in run
                )
            entries.append(
                RenderedEntry(
                    run[0][2].participant,
                    tuple(content),
                    kind="newest",
                    role="user",
                    recalled=tuple((mid, seq, True) for mid, seq, _, _ in run),
                )
            )
        omitted = carve_out(selection.omitted, cut)
        return replace(selection, entries=tuple(entries), omitted=omitted)
