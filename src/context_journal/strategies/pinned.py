"""Pinned messages: raw in every compile of their branch, whatever the strategy.

A pin says "the model must always read this message as written": the user's standing instructions, a
spec, a key decision. :class:`PinnedStrategy` wraps any strategy: it prices the pinned messages first
(each with the rest of its tool unit, so a pinned ``tool_use`` keeps its ``tool_result``), gives the
wrapped strategy the budget minus that, and places every pinned message the wrapped strategy did not
render raw as a raw span in conversation order (after a summary that covers it, never between the two
halves of a summary's pair). The wrapped strategy's state, compression and readiness are its own.

Pins are journal records: the manager keeps the list of pinned message ids as the state ``pins`` of
its namespace on its branch (:data:`PINS_STATE`), written by ``ContextManager.pin``/``unpin``, so a pin
follows forks, survives a reopen, and every change is in the branch's history. A pin of a message the
view does not show (removed, or addressed only to another reader) is kept but renders nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import OverBudgetError
from ..views import unit_bounds
from .base import Budget, RawSpan, Selection, Strategy
from .placement import StrategyWrapper, carve_out, entry_starts, insert_at, place_of, raw_test

if TYPE_CHECKING:
    from ..views import MessageView

__all__ = ["PINS_STATE", "PinnedStrategy", "pinned_ids"]

PINS_STATE = "pins"
"""State name (relative to the namespace) of the pinned message ids: ``{"ids": [message id, ...]}``."""


def pinned_ids(value: Any) -> tuple[str, ...]:
    """The pinned message ids of a stored ``pins`` state value, in the order they were pinned."""
    if isinstance(value, dict) and isinstance(value.get("ids"), list):
        return tuple(i for i in value["ids"] if isinstance(i, str))
    return ()


class PinnedStrategy(StrategyWrapper):
    """``inner`` with the messages ``pins`` names kept raw (see the module docstring).

    Args:
        inner: The strategy that selects the rest of the context.
        pins: Pinned message ids.
    """

    def __init__(self, inner: Strategy, pins: Sequence[str]) -> None:
        super().__init__(inner)
        self.pins = tuple(dict.fromkeys(pins))
        self._parts: dict[str, int] = {}

    @property
    def pinned_parts(self) -> dict[str, int]:
        """Tokens of each pinned message (with its tool unit) in the last selection, for errors."""
        return dict(self._parts)

    def units(self, view: MessageView) -> list[tuple[int, int, tuple[str, ...]]]:
        """The pinned tool units of ``view``: ``(start, end, pinned ids in it)``, merged where they
        touch, in view order."""
        found: list[tuple[int, int, str]] = []
        for message_id in self.pins:
            pos = view.index_of(message_id)
            if pos is not None:
                start, end = unit_bounds(view, pos, pos + 1)
                found.append((start, end, message_id))
        found.sort()
        merged: list[tuple[int, int, tuple[str, ...]]] = []
        for start, end, message_id in found:
            if merged and start <= merged[-1][1]:
                a, b, ids = merged[-1]
                merged[-1] = (a, max(b, end), (*ids, message_id))
            else:
                merged.append((start, end, (message_id,)))
        return merged

    def select(self, view: MessageView, budget: Budget) -> Selection:
        """The wrapped strategy's selection, within the budget minus the pinned messages, with every
        pinned message it does not render raw added as a raw span.

        Raises:
            OverBudgetError: the pinned messages alone need more than the whole budget; ``parts`` names
                each (``"pinned m12"``, with its tool unit's tokens). When they fit the budget but not
                beside the wrapped strategy's smallest cover, the compiler raises, naming them too.
        """
        units = self.units(view)
        if not units:
            return self.inner.select(view, budget)
        costs = [view.tokens(a, b) for a, b, _ in units]
        pinned = sum(costs)
        self._parts = {}
        for _, _, ids in units:  # each pinned message with its tool unit (a merged run shared)
            for message_id in ids:
                pos = view.index_of(message_id)
                assert pos is not None
                start, end = unit_bounds(view, pos, pos + 1)
                self._parts[f"pinned {message_id}"] = view.tokens(start, end)
        if pinned > budget.total:
            other = max(0, budget.total - budget.tokens)  # the system part and the compiler's reserve
            raise OverBudgetError(budget.total, pinned + other, self._parts, "the pinned messages (unpin some)")
        # Pins that fit the budget but not what is left of it: the wrapped strategy keeps its smallest
        # cover and the compiler says what the two need together (its error lists the pins too).
        selection = self.inner.select(view, replace(budget, tokens=max(0, budget.tokens - pinned)))
        is_raw = raw_test(selection.entries)
        starts = entry_starts(selection.entries)
        added: dict[int, list[RawSpan]] = {}
        for start, end, _ in units:
            run: int | None = None
            for p in range(start, end + 1):  # the runs of the unit the selection does not render raw
                if p < end and not is_raw(p):
                    run = p if run is None else run
                elif run is not None:
                    added.setdefault(place_of(starts, run), []).append(RawSpan(run, p))
                    run = None
        if not added:
            return selection
        return replace(
            selection,
            entries=insert_at(selection.entries, added),
            omitted=carve_out(selection.omitted, [(a, b) for a, b, _ in units]),
        )
