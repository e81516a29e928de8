"""Pinned messages: raw in every compile of their branch, whatever the strategy.

A pin says "the model must always read this message as written": the user's standing instructions, a
spec, a key decision. :class:`PinnedStrategy` wraps any strategy: it prices the pinned messages first
(each with the rest of its tool unit, so a pinned ``tool_use`` keeps its ``tool_result``), gives the
wrapped strategy the budget minus that, and places every pinned message the wrapped strategy did not
render raw as a raw span in conversation order (after a summary that covers it, never between the two
halves of a summary's pair). The wrapped strategy's state, compression and readiness are its own.

A pinned range (``ContextManager.pin_range``) pins every message from its first to its last, by
creation order: the messages of the range a view shows (a reader sees only its own), with the rest of
their tool units, raw; a message appended inside the range later (never: messages are appended at the
end) cannot join it, an edited one keeps its place. A range may name a summary level instead
(:class:`PinRange`): ``max_level`` (never coarser than that level) is honoured by every strategy (raw is
the finest level, so raw strategies render such a range raw); an exact ``level`` of 1 or more needs a
strategy that renders summaries at a chosen level, and others raise :class:`PinUnsupportedError`.

A document (``ContextManager.mark_document``) is a long reference text kept whole or summarised as one
unit: never excerpted by a compile (this wrapper lists it with the pinned messages, which the compiler
never cuts), and a chunk of its own for a summarising strategy (never chunked with conversation; see
``AutobiographicalStrategy``). It is not pinned: a strategy may leave it out or render its summary.

Pins are journal records: the manager keeps the pinned message ids and ranges as the state ``pins`` of
its namespace on its branch (:data:`PINS_STATE`), written by ``ContextManager.pin``/``pin_range``/
``unpin``, so a pin follows forks, survives a reopen, and every change is in the branch's history. A pin
of a message the view does not show (removed, or addressed only to another reader) is kept but renders
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from ..errors import ContextJournalError, OverBudgetError
from ..rendering.reduce import PricedView
from ..sharding import group_of
from ..tokens import estimate_text_tokens
from ..views import unit_bounds
from .base import Budget, LevelPin, LevelPinningStrategy, RawSpan, RenderedEntry, Selection, Strategy
from .placement import StrategyWrapper, carve_out, entry_starts, insert_at, place_of, raw_test

if TYPE_CHECKING:
    from ..views import MessageView

__all__ = [
    "DOCUMENTS_STATE",
    "MAX_PIN_LEVEL",
    "PINS_STATE",
    "PinInfo",
    "PinRange",
    "PinUnsupportedError",
    "PinnedStrategy",
    "pinned_ids",
    "pinned_ranges",
]

PINS_STATE = "pins"
"""State name (relative to the namespace) of the pins: ``{"ids": [message id, ...], "ranges": [range, ...],
"next": n}`` (a range as :meth:`PinRange.to_state` writes it; ``next``: the number of the next range's id)."""

DOCUMENTS_STATE = "documents"
"""State name (relative to the namespace) of the message ids marked as documents: ``{"ids": [...]}``."""

MAX_PIN_LEVEL = 64
"""The highest summary level a range may be pinned at (far above any real tree: each level merges
several summaries of the one below)."""


class PinUnsupportedError(ContextJournalError, TypeError):
    """The strategy cannot render a pinned range at the summary level it was pinned at: an exact level of
    1 or more needs a strategy that renders summaries at a chosen level; passthrough and windowed render
    every message raw. Raised by ``ContextManager.pin_range`` (nothing is written) and by a compile whose
    strategy changed since.

    Attributes:
        strategy: The strategy's name.
        pin_id: The range's pin id (None when raised before it was written).
        level: The level asked for.
    """

    def __init__(self, strategy: str, pin_id: str | None, level: int) -> None:
        self.strategy = strategy
        self.pin_id = pin_id
        self.level = level
        which = f"pinned range {pin_id}" if pin_id else "a range pinned"
        super().__init__(
            f"{which} at summary level {level} needs a strategy that renders summaries at a chosen level, but "
            f"this manager uses {strategy!r}; pin it raw or with max_level, or unpin it"
        )


@dataclass(frozen=True, slots=True)
class PinRange:
    """A pinned range of messages (``ContextManager.pin_range``).

    Attributes:
        pin_id: The pin's id (``"range-1"``, ``"range-2"``... per branch), for ``unpin``.
        first_id: The range's first message.
        last_id: The range's last message.
        first_sequence: The store sequence ``first_id`` was created at (the range is every message created
            from it to ``last_sequence``, whatever edits did since).
        last_sequence: The store sequence ``last_id`` was created at.
        name: A label the host gave it (shown in listings and errors), or None.
        level: Render the range at exactly this summary level (0: raw), or None.
        max_level: Render it at this summary level or finer (0: raw), or None. Neither given: raw.
    """

    pin_id: str
    first_id: str
    last_id: str
    first_sequence: int
    last_sequence: int
    name: str | None = None
    level: int | None = None
    max_level: int | None = None

    @property
    def raw(self) -> bool:
        """True when every strategy renders the range raw (no level above 0 asked for)."""
        return not self.level

    def to_state(self) -> dict[str, Any]:
        """The range as the ``pins`` state holds it."""
        return {
            "pin_id": self.pin_id,
            "first_id": self.first_id,
            "last_id": self.last_id,
            "first_sequence": self.first_sequence,
            "last_sequence": self.last_sequence,
            "name": self.name,
            "level": self.level,
            "max_level": self.max_level,
        }

    @classmethod
    def from_state(cls, value: Any) -> PinRange | None:
        """A range of the ``pins`` state, or None for an entry that is not one (skipped, not fatal)."""
        if not isinstance(value, Mapping):
            return None
        ids = [value.get(k) for k in ("pin_id", "first_id", "last_id")]
        seqs = [value.get(k) for k in ("first_sequence", "last_sequence")]
        levels = [value.get(k) for k in ("level", "max_level")]
        name = value.get("name")
        if (
            not all(isinstance(i, str) for i in ids)
            or not all(isinstance(q, int) and not isinstance(q, bool) for q in seqs)
            or not all(v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 0) for v in levels)
            or not (name is None or isinstance(name, str))
        ):
            return None
        pin_id, first_id, last_id = (str(i) for i in ids)
        first_seq, last_seq = (int(q) for q in seqs)  # type: ignore[arg-type]  # ints: checked above
        level, max_level = (None if v is None else int(v) for v in levels)
        return cls(pin_id, first_id, last_id, first_seq, last_seq, name, level, max_level)


@dataclass(frozen=True, slots=True)
class PinInfo:
    """A pin as ``ContextManager.list_pins`` lists it.

    Attributes:
        pin_id: What ``unpin`` takes: the message id of a message pin, the range's id of a range.
        kind: ``"message"`` or ``"range"``.
        first_id: The pinned message, or the range's first message.
        last_id: The pinned message, or the range's last message.
        name: The range's label, or None.
        level: The exact summary level of a range, or None (raw).
        max_level: The coarsest summary level a range may be rendered at, or None.
    """

    pin_id: str
    kind: Literal["message", "range"]
    first_id: str
    last_id: str
    name: str | None = None
    level: int | None = None
    max_level: int | None = None

    def row(self) -> dict[str, Any]:
        """The pin as the CLI's ``--json`` and the MCP tools show a range: every field but ``kind``."""
        return {
            "pin_id": self.pin_id,
            "first_id": self.first_id,
            "last_id": self.last_id,
            "name": self.name,
            "level": self.level,
            "max_level": self.max_level,
        }


def pinned_ids(value: Any) -> tuple[str, ...]:
    """The pinned message ids of a stored ``pins`` state value, in the order they were pinned."""
    if isinstance(value, dict) and isinstance(value.get("ids"), list):
        return tuple(i for i in value["ids"] if isinstance(i, str))
    return ()


def pinned_ranges(value: Any) -> tuple[PinRange, ...]:
    """The pinned ranges of a stored ``pins`` state value, in the order they were pinned."""
    if isinstance(value, dict) and isinstance(value.get("ranges"), list):
        return tuple(r for r in map(PinRange.from_state, value["ranges"]) if r is not None)
    return ()


class PinnedStrategy(StrategyWrapper):
    """``inner`` with the messages ``pins`` names and the ranges ``ranges`` holds kept raw (see the module
    docstring).

    Args:
        inner: The strategy that selects the rest of the context.
        pins: Pinned message ids.
        ranges: Pinned ranges.
        documents: Ids of the messages marked as documents (never excerpted; not pinned).
    """

    def __init__(
        self,
        inner: Strategy,
        pins: Sequence[str],
        ranges: Sequence[PinRange] = (),
        documents: Sequence[str] = (),
    ) -> None:
        super().__init__(inner)
        self.pins = tuple(dict.fromkeys(pins))
        self.ranges = tuple(ranges)
        self.documents = tuple(dict.fromkeys(documents))
        self._parts: dict[str, int] = {}
        self._kept: frozenset[str] = frozenset()
        self._levels: tuple[LevelPin, ...] = ()  # the ranges the wrapped strategy renders at a level
        self._level_labels: dict[tuple[int, int], str] = {}  # their labels, by view span

    @property
    def pinned_parts(self) -> dict[str, int]:
        """Tokens of each pinned message or range (with its tool units) in the last selection, for errors."""
        return dict(self._parts)

    @property
    def pinned_messages(self) -> frozenset[str]:
        """Ids of the pinned messages of the last selection with the rest of their tool units (those of
        the ranges too), and of the summaries rendered over ranges pinned at a level: never cut."""
        return self._kept

    @property
    def document_ids(self) -> frozenset[str]:
        """Ids of the messages marked as documents: never excerpted (a compile may still leave one out whole)."""
        return frozenset(self.documents)

    def held(self, view: MessageView) -> frozenset[str]:
        """The messages of ``view`` no excerpt may cut, known before selecting (the pinned messages with
        their tool units, and the documents): the compile prices them whole.

        Raises:
            PinUnsupportedError: a range asks for a summary level the strategy cannot render.
        """
        self._pieces(view)
        return self._kept | self.document_ids

    def _pieces(self, view: MessageView) -> list[tuple[int, int, str]]:
        """``(start, end, label)`` of each pin the view shows, with its tool units: ``"pinned m12"``,
        ``"pinned range range-1"`` (``"pinned range range-1 (spec)"`` when named).

        Raises:
            PinUnsupportedError: a range asks for a summary level the strategy cannot render.
        """
        found: list[tuple[int, int, str]] = []
        kept: set[str] = set()
        for message_id in self.pins:
            pos = view.index_of(message_id)
            if pos is not None:
                start, end = unit_bounds(view, pos, pos + 1)
                found.append((start, end, f"pinned {group_of(message_id)[0]}"))  # a sharded one by its id
                kept.update(e.id for e in view.entries(start, end))  # the pin's tool unit is as written too
        levels: list[LevelPin] = []
        self._level_labels = {}
        by_level = isinstance(self.inner, LevelPinningStrategy)
        for r in self.ranges:
            if r.level and not by_level:
                raise PinUnsupportedError(self.name, r.pin_id, r.level)
            a, b = view.index_at_sequence(r.first_sequence), view.index_at_sequence(r.last_sequence + 1)
            if b <= a:
                continue  # no message of the range is in the view
            start, end = unit_bounds(view, a, b)
            if by_level and (r.level or r.max_level):
                levels.append(LevelPin(start, end, r.level, r.max_level))
                self._level_labels[(start, end)] = _label(r)
                kept.update(e.id for e in view.entries(a, b))  # raw where no summary stands for them
            else:
                found.append((start, end, _label(r)))
                kept.update(e.id for e in view.entries(start, end))
        self._kept = frozenset(kept)
        self._levels = tuple(levels)
        return found

    def _inner_select(self, view: MessageView, budget: Budget) -> Selection:
        """The wrapped strategy's selection, with the ranges pinned at a level handed to it; the summaries
        it renders over them are kept (never cut) and named with their estimated tokens for errors."""
        if not (self._levels and isinstance(self.inner, LevelPinningStrategy)):
            return self.inner.select(view, budget)
        selection = self.inner.select_pinned(view, budget, self._levels)
        kept = set(self._kept)
        for entry in selection.entries:
            if not isinstance(entry, RenderedEntry) or entry.covers is None or not entry.summaries:
                continue
            a, b = entry.covers
            for (start, end), label in self._level_labels.items():
                if start < b and a < end:
                    kept.update(ref.id for ref in entry.summaries)
                    text = "".join(str(block.get("text", "")) for block in entry.content)
                    self._parts[label] = self._parts.get(label, 0) + estimate_text_tokens(text)
        self._kept = frozenset(kept)
        return selection

    def units(self, view: MessageView) -> list[tuple[int, int, tuple[str, ...]]]:
        """The pinned tool units of ``view``: ``(start, end, labels of the pins in it)``, merged where they
        touch, in view order.

        Raises:
            PinUnsupportedError: a range asks for a summary level the strategy cannot render.
        """
        return _merged(self._pieces(view))

    def select(self, view: MessageView, budget: Budget) -> Selection:
        """The wrapped strategy's selection, within the budget minus the pinned messages, with every
        pinned message it does not render raw added as a raw span.

        Raises:
            OverBudgetError: the pinned messages alone need more than the whole budget; ``parts`` names
                each (``"pinned m12"``, ``"pinned range range-1"``, with its tool units' tokens). When they
                fit the budget but not beside the wrapped strategy's smallest cover, the compiler raises,
                naming them too.
            PinUnsupportedError: a range asks for a summary level the strategy cannot render.
        """
        pieces = self._pieces(view)
        # Each pin with its tool units (a merged run shared between the pins in it).
        self._parts = {}
        for a, b, label in pieces:  # the shards of one message under its id, summed
            self._parts[label] = self._parts.get(label, 0) + view.tokens(a, b)
        if not pieces:
            return self._inner_select(view, budget)
        units = _merged(pieces)
        pinned = sum(view.tokens(a, b) for a, b, _ in units)
        if pinned > budget.total:
            other = max(0, budget.total - budget.tokens)  # the system part and the compiler's reserve
            raise OverBudgetError(budget.total, pinned + other, self._parts, "the pinned messages (unpin some)")
        # Pins that fit the budget but not what is left of it: the wrapped strategy keeps its smallest
        # cover and the compiler says what the two need together (its error lists the pins too). The
        # pinned messages are paid for already: the wrapped strategy sees them free, else a pinned message
        # it keeps raw anyway (a recent one) was counted twice and messages that fit were left out.
        paid = PricedView(view, {p: -view.tokens(p, p + 1) for a, b, _ in units for p in range(a, b)})
        selection = self._inner_select(paid, replace(budget, tokens=max(0, budget.tokens - pinned)))
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


def _merged(pieces: Sequence[tuple[int, int, str]]) -> list[tuple[int, int, tuple[str, ...]]]:
    """``(start, end, label)`` pieces merged where they touch: ``(start, end, labels)`` in view order."""
    merged: list[tuple[int, int, tuple[str, ...]]] = []
    for start, end, label in sorted(pieces):
        if merged and start <= merged[-1][1]:
            a, b, labels = merged[-1]
            merged[-1] = (a, max(b, end), (*labels, label))
        else:
            merged.append((start, end, (label,)))
    return merged


def _label(r: PinRange) -> str:
    """How errors name a pinned range: ``"pinned range range-1"``, with its name when it has one."""
    return f"pinned range {r.pin_id}" + (f" ({r.name})" if r.name else "")
