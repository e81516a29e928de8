"""A strategy wrapper that adds a recall section: any strategy, with query hits brought back.

:class:`RecallStrategy` stays sans-I/O: the manager searches first (I/O) and hands it the candidates.
``select`` gives the wrapped strategy the budget minus what recall plans to use (at most ``share`` of
it), then plans the spans again without the messages the strategy renders raw, and places one recall
pair per place in the conversation among the strategy's entries, in chronological order (a recall pair
goes after every entry that starts at or before its first message, so it never splits a tool unit or a
summary's pair). The spans never use more than the first plan did, so the selection still fits.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..strategies.base import (
    Budget,
    ContextEntry,
    RawSpan,
    RenderedEntry,
    Selection,
    Strategy,
    StrategyContext,
    SummaryRequest,
    SummaryResult,
)
from ..tokens import TokenCounter
from ..views import MessageView, ViewEntry
from .spans import (
    Candidate,
    RecallConfig,
    RecallSpan,
    format_date,
    message_line_text,
    plan_spans,
    render_transcript,
)

__all__ = ["RecallStrategy"]


def _start(entry: ContextEntry) -> int | None:
    if isinstance(entry, RawSpan):
        return entry.start
    return entry.covers[0] if entry.covers is not None else None


def _marker_text(spans: Sequence[RecallSpan], dates: bool) -> str:
    n = sum(len(s.lines) for s in spans)
    stamps = [ln.timestamp for s in spans for ln in s.lines if ln.timestamp is not None]
    when = ""
    if dates and stamps:
        first, last = format_date(min(stamps)), format_date(max(stamps))
        when = f", {first}" if first == last else f", {first} to {last}"
    return f"[Recalled from earlier in this conversation: {n} message{'s' if n != 1 else ''}{when}.]"


class RecallStrategy:
    """``inner`` plus a recall section for ``candidates`` (see the module docstring).

    Args:
        inner: The strategy that selects the rest of the context.
        candidates: Search hits, best first.
        config: The recall knobs.
        counter: The token counter of the view.
        dates: Show dates in recalled lines.
    """

    def __init__(
        self,
        inner: Strategy,
        candidates: Sequence[Candidate],
        config: RecallConfig,
        counter: TokenCounter,
        dates: bool,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.candidates = tuple(candidates)
        self.config = config
        self.counter = counter
        self.dates = dates
        self.recalled: list[RecallSpan] = []
        sample = [{"type": "text", "text": _marker_text([], True) + " 00 September 2023 to 00 September 2023"}]
        self._pair_tokens = counter.count_message(config.marker_participant, sample) + counter.count_message(
            "assistant", [{"type": "text", "text": ""}]
        )

    # Delegated: state, compression and readiness belong to the wrapped strategy.
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

    def select(self, view: MessageView, budget: Budget) -> Selection:
        """The wrapped strategy's selection with recall pairs placed among its entries."""
        allowance = int(budget.tokens * self.config.share)
        load = self._loader(view)
        first = plan_spans(
            view, self.candidates, allowance, self.config, self.counter, load, lambda p: False, self._pair_tokens
        )
        planned = self._cost(first)
        selection = self.inner.select(view, replace(budget, tokens=max(0, budget.tokens - planned)))
        raw = sorted((e.start, e.end) for e in selection.entries if isinstance(e, RawSpan))
        starts = [a for a, _ in raw]

        def is_raw(p: int) -> bool:
            k = bisect.bisect_right(starts, p) - 1
            return k >= 0 and raw[k][0] <= p < raw[k][1]

        spans = plan_spans(view, self.candidates, planned, self.config, self.counter, load, is_raw, self._pair_tokens)
        while spans and self._cost(spans) > planned:  # placement split them into more pairs than planned
            spans = spans[:-1]
        self.recalled = list(spans)
        if not spans:
            return selection
        return replace(selection, entries=self._place(selection.entries, spans))

    def _loader(self, view: MessageView) -> Callable[[ViewEntry], tuple[str, float | None]]:
        """``entry -> (line text, timestamp)``, the candidates' neighbourhoods read in one batch."""
        wanted: dict[int, ViewEntry] = {}
        reach = self.config.before + self.config.after + 2
        for cand in self.candidates:
            pos = view.index_of(cand.message_id)
            if pos is None:
                continue
            for p in range(max(0, pos - reach), min(len(view), pos + reach + 1)):
                wanted.setdefault(p, view.entry(p))
        entries = [wanted[p] for p in sorted(wanted)]
        loaded: dict[str, tuple[str, float | None]] = {}
        for entry, message in zip(entries, view.messages_for(entries), strict=True):
            loaded[entry.id] = (message_line_text(message.content_dicts()), message.timestamp.timestamp())

        def load(entry: ViewEntry) -> tuple[str, float | None]:
            found = loaded.get(entry.id)
            if found is None:
                message = view.message(entry.position)
                found = loaded[entry.id] = (message_line_text(message.content_dicts()), message.timestamp.timestamp())
            return found

        return load

    def _groups(
        self, entries: Sequence[ContextEntry], spans: Sequence[RecallSpan]
    ) -> list[tuple[int, list[RecallSpan]]]:
        """Spans grouped by the entry index they are placed before."""
        starts: list[int] = []
        last = -1
        for e in entries:
            s = _start(e)
            last = last if s is None else s
            starts.append(last)
        groups: dict[int, list[RecallSpan]] = {}
        for span in spans:
            at = bisect.bisect_right(starts, span.start)
            groups.setdefault(at, []).append(span)
        return sorted(groups.items())

    def _cost(self, spans: Sequence[RecallSpan]) -> int:
        if not spans:
            return 0
        text = render_transcript(spans, self.dates)
        return self._pair_tokens * len(spans) + self.counter.count_block({"type": "text", "text": text})

    def _place(self, entries: Sequence[ContextEntry], spans: Sequence[RecallSpan]) -> tuple[ContextEntry, ...]:
        out: list[ContextEntry] = []
        groups = dict(self._groups(entries, spans))
        for k in range(len(entries) + 1):
            group = groups.get(k)
            if group:
                out.extend(self._pair(group))
            if k < len(entries):
                out.append(entries[k])
        return tuple(out)

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
