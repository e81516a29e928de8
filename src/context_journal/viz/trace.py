"""Where each part of a compiled context comes from in the conversation: the data a context map draws.

:func:`trace_compile` runs at the end of every compile (cheaply: its cost grows with what the compile
rendered, never with the conversation) and records, for each compiled message, which part of the
context it is (head, pin, working state, summary of some level, recall, raw recent window...) and which
view positions it stands for. The result keeps it as ``CompileResult.trace``, so
``CompileResult.to_html()`` can draw the map after the store has moved on or been closed.

Positions are those of the compiled view (0 = its oldest message), system-flagged messages at its start
included: they are rendered in the system prompt.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..strategies.base import RawSpan, RenderedEntry, Selection

if TYPE_CHECKING:
    from ..rendering.repairs import CompiledMessage
    from ..views import MessageView

__all__ = ["PART_KINDS", "MapTrace", "PartKind", "Placement", "merge_ranges", "trace_compile"]

PartKind = Literal["head", "pin", "state", "summary", "recall", "raw", "recent", "injection", "note"]
PART_KINDS: tuple[PartKind, ...] = ("head", "pin", "state", "summary", "recall", "raw", "recent", "injection", "note")
"""Every part a compiled message can belong to, in the order a map lists them."""

Range = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one compiled message sits in the conversation.

    Attributes:
        part: ``"head"`` (the raw head window), ``"pin"`` (a pinned message kept raw), ``"state"`` (the
            working-state block), ``"summary"``, ``"recall"`` (messages a query brought back), ``"raw"`` (a
            raw message between summaries), ``"recent"`` (the raw recent window: the raw span that reaches the
            newest message), ``"injection"`` or ``"note"`` (a note or stub the compiler wrote).
        ranges: View positions ``[start, end)`` it stands for, merged and in order (empty when unknown).
        marker: True for the marker turn of a pair (its ranges and part are its partner's).
        level: Highest summary level shown (summaries only).
        first_id: Id of the first message of its ranges, when known.
        last_id: Id of the last message of its ranges, when known.
    """

    part: PartKind
    ranges: tuple[Range, ...] = ()
    marker: bool = False
    level: int | None = None
    first_id: str | None = None
    last_id: str | None = None


class MapTrace:
    """The provenance of a compile in view positions (see the module docstring).

    Made at compile time from what the compile already holds (the selection's spans and covers: no
    per-message work, so a compile costs what it did); the positions of raw and recalled messages are
    looked up in the view's in-memory index the first time :attr:`placements` is read. The journal may
    have grown since: appends and edits do not move earlier positions. When a message was removed since
    the compile, :attr:`stale` is True and the positions are those of the view as it is now.

    Attributes:
        length: Messages in the compiled view.
        offset: System-flagged messages at its start (rendered in the system prompt).
        tokens: Estimated tokens of the whole view (before calibration).
    """

    def __init__(
        self,
        view: MessageView,
        offset: int,
        selection: Selection,
        compiled: Sequence[CompiledMessage],
        pinned: Sequence[str] = (),
    ) -> None:
        self.length = len(view)
        self.offset = offset
        self.tokens = view.tokens(0, self.length)
        self._view: MessageView | None = view
        self._newest = view.entry(self.length - 1).id if self.length else None
        self._selection: Selection | None = selection
        self._compiled = tuple(compiled)
        self._pinned = tuple(pinned)
        self._placements: tuple[Placement, ...] | None = None
        self._uncovered: tuple[Range, ...] = ()
        self._stale = False  # an unpickled trace's (it has no view)

    @property
    def stale(self) -> bool:
        """True when messages the compile saw moved since (one was removed): positions may be off (of an
        unpickled trace: as it was when pickled)."""
        if self._view is None:
            return self._stale
        return self._newest is not None and self._view.index_of(self._newest) != self.length - 1

    def __getstate__(self) -> dict[str, Any]:
        """What pickling keeps: the positions, placed now, and no view (it reads a store, which holds a
        lock and does not pickle)."""
        _ = self.placements
        state = {k: v for k, v in self.__dict__.items() if k not in ("_view", "_selection")}
        state.update(_view=None, _selection=None, _stale=self.stale)
        return state

    @property
    def placements(self) -> tuple[Placement, ...]:
        """One per compiled message, parallel to ``CompileResult.messages``."""
        if self._placements is None:
            assert self._view is not None and self._selection is not None  # placed before pickling
            self._placements, self._uncovered = _place(
                self._view, self.offset, self.length, self._selection, self._compiled, self._pinned
            )
        return self._placements

    @property
    def uncovered(self) -> tuple[Range, ...]:
        """Ranges of the view neither rendered raw nor stood for by a summary, recall or the system prompt:
        what the context leaves out."""
        _ = self.placements
        return self._uncovered


def merge_ranges(ranges: Iterable[Range]) -> tuple[Range, ...]:
    """Ranges sorted, with touching and overlapping ones merged."""
    out: list[list[int]] = []
    for a, b in sorted(r for r in ranges if r[1] > r[0]):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return tuple((a, b) for a, b in out)


def _runs(positions: Iterable[int]) -> tuple[Range, ...]:
    return merge_ranges((p, p + 1) for p in positions)


def _older(e: RenderedEntry) -> bool:
    """True for an entry standing for older messages (a summary or recall pair; not the working state)."""
    return e.kind in ("summary", "recall") or (e.kind == "marker" and (e.covers is not None or bool(e.recalled)))


class _RawSpans:
    """The selection's raw spans (view positions), each with its part."""

    def __init__(self, selection: Selection, offset: int, pinned: Sequence[int]) -> None:
        entries = selection.entries
        spans: list[tuple[int, int, PartKind]] = []
        pins = sorted(pinned)
        # The last entry that stands for older messages (a summary, a recall pair): raw spans after it
        # are the recent window (the working-state pair may split it), a raw span at 0 before it the head.
        last = max((k for k, e in enumerate(entries) if isinstance(e, RenderedEntry) and _older(e)), default=-1)
        for k, e in enumerate(entries):
            if not isinstance(e, RawSpan) or e.end <= e.start:
                continue
            a, b = e.start + offset, e.end + offset
            part: PartKind
            if e.start == 0 and k < last:
                part = "head"
            elif k > last:
                part = "recent"
            elif bisect.bisect_left(pins, b) > bisect.bisect_left(pins, a):
                part = "pin"
            else:
                part = "raw"
            spans.append((a, b, part))
        spans.sort()
        self.spans = spans
        self.starts = [s[0] for s in spans]

    def part_of(self, position: int) -> PartKind:
        k = bisect.bisect_right(self.starts, position) - 1
        if k >= 0 and position < self.spans[k][1]:
            return self.spans[k][2]
        return "raw"


def trace_compile(
    view: MessageView,
    offset: int,
    selection: Selection,
    compiled: Sequence[CompiledMessage],
    pinned: Collection[str] = (),
) -> MapTrace:
    """The provenance of a compile in view positions (cheap: the work is done when it is first read).

    Args:
        view: The compiled view (system-flagged messages at its start included).
        offset: How many of its first messages went to the system prompt (the selection's positions
            start after them).
        selection: What the strategy selected (positions relative to ``offset``).
        compiled: The compiled messages.
        pinned: The ids of the pinned messages (the pin wrapper's ``pinned_messages``).

    Returns:
        The trace (see :class:`MapTrace`).
    """
    return MapTrace(view, offset, selection, compiled, sorted(pinned))


def _place(
    view: MessageView,
    offset: int,
    n: int,
    selection: Selection,
    compiled: Sequence[CompiledMessage],
    pinned_ids: Sequence[str],
) -> tuple[tuple[Placement, ...], tuple[Range, ...]]:
    n = min(n, len(view))
    pinned = [p for i in pinned_ids if (p := view.index_of(i)) is not None]
    raw = _RawSpans(selection, offset, pinned)
    covers: dict[str, Range] = {}
    for e in selection.entries:
        if isinstance(e, RenderedEntry) and e.covers is not None:
            for ref in e.summaries:
                covers[ref.id] = (e.covers[0] + offset, e.covers[1] + offset)

    def position(message_id: str) -> int | None:
        return view.index_of(message_id)

    placements: list[Placement | None] = []
    markers: list[int] = []
    for k, m in enumerate(compiled):
        kinds = {s.kind for s in m.sources}
        level: int | None = None
        ranges: tuple[Range, ...] = ()
        part: PartKind
        if "ledger" in kinds:
            part = "state"
            folded = [p for s in m.sources if s.kind == "ledger" and (p := position(s.id)) is not None]
            ranges = ((0, max(folded) + 1),) if folded else ()
        elif "summary" in kinds:
            part = "summary"
            level = max((s.level or 1) for s in m.sources if s.kind == "summary")
            ranges = merge_ranges(covers[s.id] for s in m.sources if s.kind == "summary" and s.id in covers)
        elif "recall" in kinds or "message" in kinds:
            kind = "recall" if "recall" in kinds else "message"
            found = sorted((p, s.id) for s in m.sources if s.kind == kind and (p := position(s.id)) is not None)
            ranges = _runs(p for p, _ in found)
            part = "recall" if kind == "recall" else raw.part_of(found[0][0]) if found else "raw"
            first, last = (found[0][1], found[-1][1]) if found else (None, None)  # known ids: no view lookup
            placements.append(Placement(part, ranges, False, None, first, last))
            continue
        elif "injection" in kinds:
            part = "injection"
        elif any(s.kind == "synthetic" and s.id == "marker" for s in m.sources):
            markers.append(k)
            placements.append(None)
            continue
        else:
            part = "note"
        placements.append(_placed(view, part, ranges, level))
    for k in markers:  # a marker turn belongs to the entry it opens (the next message)
        partner = placements[k + 1] if k + 1 < len(placements) else None
        if partner is None:
            placements[k] = Placement("note")
        else:
            placements[k] = Placement(
                partner.part, partner.ranges, True, partner.level, partner.first_id, partner.last_id
            )
    done = [p if p is not None else Placement("note") for p in placements]
    covered = merge_ranges([(0, offset), *(r for p in done if p.part != "state" for r in p.ranges)])
    uncovered: list[Range] = []
    reach = 0
    for a, b in covered:
        if a > reach:
            uncovered.append((reach, a))
        reach = max(reach, b)
    if reach < n:
        uncovered.append((reach, n))
    return tuple(done), tuple(uncovered)


def _placed(view: MessageView, part: PartKind, ranges: tuple[Range, ...], level: int | None) -> Placement:
    first = last = None
    if ranges:
        first = view.entry(ranges[0][0]).id
        last = view.entry(ranges[-1][1] - 1).id
    return Placement(part, ranges, False, level, first, last)
