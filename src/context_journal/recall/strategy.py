"""A strategy wrapper that adds a recall section: any strategy, with query hits brought back.

:class:`RecallStrategy` stays sans-I/O: the manager searches first (I/O) and hands it the candidates.
``select`` gives the wrapped strategy the budget minus what recall plans to use (at most ``share`` of
it), then plans the spans again without the messages the strategy renders raw, and places one recall
pair per place in the conversation among the strategy's entries, in chronological order (a recall pair
goes after every entry that starts at or before its first message, so it never splits a tool unit or a
summary's pair). The spans never use more than the first plan did, so the selection still fits. Usually one plan is
enough: the first plan less the lines the strategy then renders raw, with what that frees given back
to the strategy; the planner runs again only when the places the spans go cost more pairs than planned.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from ..messages import Message, MessageStore
from ..strategies.base import (
    Budget,
    ContextEntry,
    RenderedEntry,
    Selection,
    Strategy,
)
from ..strategies.placement import StrategyWrapper, entry_starts, insert_at, place_of, raw_test
from ..tokens import TokenCounter
from ..views import MessageView, ViewEntry, unit_bounds
from .lines import LineCache, LineSource
from .spans import (
    Candidate,
    RecallConfig,
    RecallSpan,
    format_date,
    plan_spans,
    render_transcript,
)

__all__ = ["RecallStrategy"]


def _marker_text(spans: Sequence[RecallSpan], dates: bool) -> str:
    n = sum(len(s.lines) for s in spans)
    stamps = [ln.timestamp for s in spans for ln in s.lines if ln.timestamp is not None]
    when = ""
    if dates and stamps:
        first, last = format_date(min(stamps)), format_date(max(stamps))
        when = f", {first}" if first == last else f", {first} to {last}"
    return f"[Recalled from earlier in this conversation: {n} message{'s' if n != 1 else ''}{when}.]"


class _EntryCache:
    """The view reads the planner makes (length, entries, positions of ids), memoised for one
    ``select`` (and the next ones of the same compile from the same view object, which reads the same
    entries): the planner prices the same neighbourhoods several times. An entry is read with the
    few around it in one pass (:meth:`MessageView.entries`: one position lookup for the run, where
    :meth:`MessageView.entry` makes one per entry), since the planner reads neighbourhoods."""

    _RUN = 2  # entries read on each side of the one asked for (a hit, its neighbours, its reply)

    def __init__(
        self,
        view: MessageView,
        entries: dict[int, ViewEntry] | None = None,
        index: dict[str, int | None] | None = None,
    ) -> None:
        self._view = view
        self._n = len(view)
        self._entries: dict[int, ViewEntry] = {} if entries is None else entries
        self._index: dict[str, int | None] = {} if index is None else index

    def __len__(self) -> int:
        return self._n

    def entry(self, index: int) -> ViewEntry:
        found = self._entries.get(index)
        if found is None:
            if not 0 <= index < self._n:
                return self._view.entry(index)  # raises IndexError (or reads from the end) as the view does
            run = self._view.entries(max(0, index - self._RUN), min(self._n, index + self._RUN + 1))
            for e in run:
                self._entries.setdefault(e.position, e)
            found = self._entries[index]
        return found

    def index_of(self, message_id: str) -> int | None:
        if message_id not in self._index:
            self._index[message_id] = self._view.index_of(message_id)
        return self._index[message_id]

    def tokens_of(self, message_id: str) -> int | None:
        return self._view.tokens_of(message_id)

    def messages_for(self, entries: Sequence[ViewEntry]) -> list[Message]:
        return self._view.messages_for(entries)

    def message(self, index: int) -> Message:
        return self._view.message(index)


class RecallStrategy(StrategyWrapper):
    """``inner`` plus a recall section for ``candidates`` (see the module docstring).

    Args:
        inner: The strategy that selects the rest of the context.
        candidates: Search hits, best first.
        config: The recall knobs.
        counter: The token counter of the view.
        dates: Show dates in recalled lines.
        reader: The reader the view is scoped to (the key of ``lines``).
        lines: Recalled lines kept across compiles (one per manager).
        messages: The message index the view reads (its plain text messages are read without
            building message objects; see :class:`~.lines.LineSource`).
    """

    def __init__(
        self,
        inner: Strategy,
        candidates: Sequence[Candidate],
        config: RecallConfig,
        counter: TokenCounter,
        dates: bool,
        reader: str | None = None,
        lines: LineCache | None = None,
        messages: MessageStore | None = None,
    ) -> None:
        self.inner = inner
        self.messages = messages
        self.reader = reader
        self.lines = lines
        self.name = inner.name
        self.candidates = tuple(candidates)
        self.config = config
        self.counter = counter
        self.dates = dates
        self.recalled: list[RecallSpan] = []
        # The first plan of the last select: ((allowance, view length, store sequence), sizes it relied
        # on, spans). The compiler selects again from a view priced differently (tool results over a cap)
        # or with less room; where the allowance and those sizes are the same, so is the plan.
        self._first: tuple[tuple[int, int, int | None], dict[int, int], list[RecallSpan]] | None = None
        self._planned_on: MessageView | None = None  # the view the first plan was made or checked on
        # The entries read by the last select, for the next one from the same view object and store state.
        self._reads: tuple[MessageView, tuple[int, int | None], dict[int, ViewEntry], dict[str, int | None]] | None
        self._reads = None
        # The marker as rendered: the compiler prefixes the marker participant's name.
        marker = f"{config.marker_participant}: {_marker_text([], True)} 00 September 2023 to 00 September 2023"
        sample = [{"type": "text", "text": marker}]
        self._pair_tokens = counter.count_message(config.marker_participant, sample) + counter.count_message(
            "assistant", [{"type": "text", "text": ""}]
        )

    def select(self, view: MessageView, budget: Budget) -> Selection:
        """The wrapped strategy's selection with recall pairs placed among its entries."""
        # A floor (a tenth of the whole budget, at most the share of it): a query the host asked for is
        # not dropped for summaries the compiler can still shorten, nor by its retries with less room.
        floor = min(int(budget.total * self.config.share), budget.total // _FLOOR_PART)
        allowance = max(int(budget.tokens * self.config.share), floor)
        inner_view, view = view, self._entry_cache(view)  # type: ignore[assignment]  # the planner's reads, memoised
        load = LineSource(view, self.reader, self.lines, self.messages, self.counter)
        first = self._first_plan(inner_view, view, allowance, load)
        planned = self._cost(first, 1)
        selection = self.inner.select(inner_view, replace(budget, tokens=max(0, budget.tokens - planned)))
        if planned:
            # The rest comes first: when the strategy's smallest cover needs more than recall left it
            # (a store summarised for a larger budget), recall gives way, down to nothing, instead of
            # both being cut until the compile fails or recall is squeezed out by the compiler's retries.
            need = _entries_cost(inner_view, selection.entries, self.counter)
            if need > budget.tokens - planned:
                first = self._first_plan(inner_view, view, max(floor, min(allowance, budget.tokens - need)), load)
                planned = self._cost(first, 1)
                selection = self.inner.select(inner_view, replace(budget, tokens=max(0, budget.tokens - planned)))
        quick = self._settle(first, selection, planned, inner_view, view, budget)
        if quick is not None and not quick[1] and planned:
            quick = None  # every hit of the first plan is raw here: plan again around the selection
        if quick is not None:  # the first plan, less what the strategy shows raw, fits where it goes
            selection, spans, place = quick
        else:
            selection, spans, place = self._refit(view, selection, planned, load, inner_view, budget)
        self.recalled = list(spans)
        if not spans:
            return selection
        return replace(selection, entries=self._place(selection.entries, spans, place))

    def _entry_cache(self, view: MessageView) -> _EntryCache:
        """``view`` with its reads memoised, sharing the entries read by the last select when it was
        made from the same view object in the same store state (the compiler selects again)."""
        key = (len(view), _store_sequence(view))
        reads = self._reads
        if reads is None or reads[0] is not view or reads[1] != key or key[1] is None:
            reads = self._reads = (view, key, {}, {})
        return _EntryCache(view, reads[2], reads[3])

    def _first_plan(
        self, view: MessageView, entries: MessageView, allowance: int, load: LineSource
    ) -> list[RecallSpan]:
        """The plan with nothing shown raw, reused from the last select when it still holds (checked on
        ``view``; planned on ``entries``, the same view with its reads memoised)."""
        key = (allowance, len(view), _store_sequence(view))
        memo = self._first
        if (
            memo is not None
            and memo[0] == key
            and (view is self._planned_on or all(view.entry(p).tokens == t for p, t in memo[1].items()))
        ):
            self._planned_on = view  # the same sizes: the check holds for this view object too
            return memo[2]
        sizes: dict[int, int] = {}
        cfg, counter, pair = self.config, self.counter, self._pair_tokens
        spans = plan_spans(entries, self.candidates, allowance, cfg, counter, load, lambda p: False, pair, sizes=sizes)
        self._first = (key, sizes, spans) if key[2] is not None else None
        self._planned_on = view
        return spans

    def _refit(
        self,
        view: MessageView,
        selection: Selection,
        planned: int,
        load: LineSource,
        inner_view: MessageView,
        budget: Budget,
    ) -> tuple[Selection, list[RecallSpan], Callable[[int], int]]:
        """Plan again around ``selection`` until recall and the strategy settle (at most 4 rounds)."""
        spans: list[RecallSpan] = []
        place: Callable[[int], int] = lambda p: 0  # noqa: E731
        for _round in range(4):
            spans, place, cost = self._fit(view, selection, planned, load)
            if cost >= planned - max(32, budget.tokens // 50) or _round == 3:
                break  # what is left over is too little to be worth another selection
            # Recall used less than it held back (hits the strategy shows raw): give the rest back.
            selection = self.inner.select(inner_view, replace(budget, tokens=max(0, budget.tokens - cost)))
            planned = cost
        return selection, spans, place

    def _settle(
        self,
        first: Sequence[RecallSpan],
        selection: Selection,
        planned: int,
        view: MessageView,
        entries: MessageView,
        budget: Budget,
    ) -> tuple[Selection, list[RecallSpan], Callable[[int], int]] | None:
        """The first plan as it is, when ``selection`` renders none of it raw and it fits ``planned``
        with one recall pair per place it goes (else None: plan again); what it leaves unused goes back
        to the strategy in one more selection when that is worth it (its raw lines left out in turn).
        ``entries`` is ``view`` with its reads memoised (the planner's)."""
        spans, place, cost = _around(first, selection, self._cost, entries)
        if cost > planned:
            return None  # more places than planned: plan again around the selection
        if cost < planned - max(32, budget.tokens // 50) or (not spans and planned):
            wider = self.inner.select(view, replace(budget, tokens=max(0, budget.tokens - cost)))
            fewer, place2, cost2 = _around(spans, wider, self._cost, entries)
            if cost2 <= cost:
                return wider, fewer, place2
        return selection, spans, place

    def _fit(
        self,
        view: MessageView,
        selection: Selection,
        allowance: int,
        load: LineSource,
    ) -> tuple[list[RecallSpan], Callable[[int], int], int]:
        """The spans that fit ``allowance`` around ``selection`` (its raw messages left out), where each
        goes, and what they cost."""
        is_raw = raw_test(selection.entries)
        starts = entry_starts(selection.entries)

        def place(p: int) -> int:
            return place_of(starts, p)

        allow = allowance
        for _ in range(8):  # the estimate per line can fall short: plan again with less, best hits first
            spans = plan_spans(
                view, self.candidates, allow, self.config, self.counter, load, is_raw, self._pair_tokens, place
            )
            cost = self._cost(spans, len({place(s.start) for s in spans}))
            if cost <= allowance:
                return spans, place, cost
            allow -= cost - allowance
        return [], place, 0

    def _cost(self, spans: Sequence[RecallSpan], pairs: int) -> int:
        if not spans:
            return 0
        text = render_transcript(spans, self.dates)
        return self._pair_tokens * pairs + self.counter.count_block({"type": "text", "text": text})

    def _place(
        self, entries: Sequence[ContextEntry], spans: Sequence[RecallSpan], place: Callable[[int], int]
    ) -> tuple[ContextEntry, ...]:
        groups: dict[int, list[RecallSpan]] = {}
        for span in spans:
            groups.setdefault(place(span.start), []).append(span)
        return insert_at(entries, {k: self._pair(group) for k, group in groups.items()})

    def _pair(self, spans: Sequence[RecallSpan]) -> tuple[RenderedEntry, RenderedEntry]:
        recalled = tuple((ln.message_id, ln.sequence, not ln.excerpt) for s in spans for ln in s.lines)
        marker = RenderedEntry(
            self.config.marker_participant,
            ({"type": "text", "text": _marker_text(spans, self.dates)},),
            kind="marker",
            role="user",
            recalled=recalled,
        )
        memory = RenderedEntry(
            "assistant",
            ({"type": "text", "text": render_transcript(spans, self.dates)},),
            kind="recall",
            role="assistant",
            recalled=recalled,
        )
        return marker, memory


_FLOOR_PART = 10
"""Recall keeps at least ``1 / _FLOOR_PART`` of the budget (at most its share) when the rest needs more."""


def _entries_cost(view: MessageView, entries: Sequence[ContextEntry], counter: TokenCounter) -> int:
    """Estimated tokens of a selection's entries (raw spans as the view prices them)."""
    total = 0
    for entry in entries:
        if isinstance(entry, RenderedEntry):
            total += counter.count_message(entry.participant, entry.content)
        else:
            total += view.tokens(entry.start, entry.end)
    return total


def _store_sequence(view: MessageView) -> int | None:
    """The newest store sequence the view (or the view it narrows or prices) shows, None if unknown."""
    found: object = view
    for _ in range(8):
        seq = getattr(found, "last_sequence", None)
        if isinstance(seq, int):
            return seq
        found = getattr(found, "base", None)
        if found is None:
            return None
    return None


def _lines(spans: Sequence[RecallSpan]) -> int:
    return sum(len(s.lines) for s in spans)


def _around(
    spans: Sequence[RecallSpan],
    selection: Selection,
    cost: Callable[[Sequence[RecallSpan], int], int],
    view: MessageView,
) -> tuple[list[RecallSpan], Callable[[int], int], int]:
    """``spans`` without the lines ``selection`` renders raw and those recalled for a hit it renders raw
    (a span split where they were), where each goes among its entries, and what they cost there."""
    is_raw = raw_test(selection.entries)
    starts = entry_starts(selection.entries)

    def place(p: int) -> int:
        return place_of(starts, p)

    out: list[RecallSpan] = []
    gone = {  # groups with a line shown raw, or taken for a hit shown raw (a raw hit brings nothing back)
        line.group
        for span in spans
        for line in span.lines
        if is_raw(line.position) or (line.hit >= 0 and is_raw(line.hit))
    }
    kept = {ln.position for span in spans for ln in span.lines if ln.group not in gone and not is_raw(ln.position)}
    tools = {"tool_use", "tool_result"}
    for _ in range(2):  # a tool unit whose other half went (taken with another hit) goes too
        for p in sorted(kept):
            if tools.isdisjoint(view.entry(p).kinds):
                continue  # not part of a tool unit: its unit is itself
            a, b = unit_bounds(view, p, p + 1)
            if any(q not in kept for q in range(a, b)):
                kept.discard(p)
    for span in spans:
        for line in span.lines:
            if line.position not in kept:
                continue  # a tool unit (or a hit and its reply) is kept whole or not at all
            if out and out[-1].end == line.position:
                prev = out[-1]
                out[-1] = RecallSpan(prev.start, line.position + 1, (*prev.lines, line), 0)
            else:
                out.append(RecallSpan(line.position, line.position + 1, (line,), 0))
    return out, place, cost(out, len({place(s.start) for s in out}))
