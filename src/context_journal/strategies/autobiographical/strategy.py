"""``AutobiographicalStrategy``: a raw head, a raw recent window, and a middle of chunks → summaries.

How it works (each part in its own module of this package):

* **State** (:mod:`.records`, :mod:`.state`): chunks, summaries, attempts, holds and head marks are
  records of the slot ``compression/<namespace>`` on the manager's branch, folded incrementally.
* **Chunking** (:mod:`.chunking`): the head window is raw; after it the middle closes into chunks of at
  least ``target_chunk_tokens`` ending where a tool unit ends, never inside the recent window, never a
  trailing partial chunk; a closed chunk owns its messages for good, so a restart or a new
  configuration never re-summarises covered ground.
* **Work** (:mod:`.work`, :mod:`.requests`): each chunk owes an L1 summary; ``merge_threshold`` adjacent
  unmerged summaries of a level owe a merge. :meth:`prepare` (run by the driver, with the context)
  closes chunks and renders the next requests; :meth:`record_result` stores a summary or a failure.
* **Select** (:mod:`.folding`): pure; head, then the middle at the finest level that fits, then the
  tail; every message covered raw or by a rendered summary.
* **Prefix-stable layouts** (:mod:`.stable`, ``stable_prefix``): a compile starts from the layout the
  previous compile chose (namespace state on the branch, written by :meth:`commit` at a compaction
  only) and appends the new messages raw; over budget, it compacts from the latest point that leaves
  room to grow, so a provider's prompt cache keeps hitting (bug case B49).

All reads that feed a summary go through :meth:`AutobiographicalStrategy.before_read`, the single
choke point where a reader-scoped manager can record what compression may have read.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from ...errors import OverBudgetError
from ...stores.base import Op
from ...views import unit_bounds
from ..base import (
    HOT_CONTEXT_STATE,
    BaseStrategy,
    Budget,
    LevelPin,
    RawSpan,
    Selection,
    StrategyContext,
    SummaryRequest,
    SummaryResult,
)
from ..pinned import DOCUMENTS_STATE, pinned_ids
from .chunking import (
    HEAD_FIRST_UNIT,
    Layout,
    Regions,
    chunk_span,
    first_at_least,
    head_range,
    layout,
    new_chunks,
    recent_start,
    regions,
    results_only,
    root_chunk_span,
)
from .config import AutobiographicalConfig
from .folding import NOTE_PARTICIPANT, Item, cover, gap_note, raw_tokens, to_entries
from .planning import cap_text
from .records import ChunkRecord, HeadMark, Summary, summary_id_for_chunk
from .requests import RequestPlan, render_request
from .stable import (
    LAYOUT_STATE,
    breakpoint_index,
    compact,
    decode,
    encode,
    first_recoverable,
    layout_for,
    squeeze,
    with_layout,
)
from .state import CompressionLog
from .work import PendingWork, Queue, WorkItem, split_parts

if TYPE_CHECKING:
    from ...compile import CompileResult
    from ...messages import MessageInput
    from ...tokens import TokenCounter
    from ...views import MessageView

__all__ = ["HOT_SETTINGS", "INHERIT_STATE", "SYSTEM_STATE", "TOOLS_STATE", "AutobiographicalStrategy"]

logger = logging.getLogger("context_journal.compression")

HOT_SETTINGS = ("head_window_tokens", "recent_window_tokens", "target_chunk_tokens")
"""The settings ``set_hot_context`` may change at run time: the raw head and recent windows, and the size
of the chunks prepared for summarising (chunks closed before the change keep their size)."""

INHERIT_STATE = "compression/inherit"
"""Namespace state ``{"namespace": str, "as_of": int}``: fold that namespace's records up to ``as_of``
first (a derived context under a new namespace inherits its parent's chunks and summaries)."""
SYSTEM_STATE = "summarizer/system"
"""Namespace state: the host's system prompt sent with summary requests (``set_system_prompt``)."""
TOOLS_STATE = "summarizer/tools"
"""Namespace state: the host's tool definitions sent with summary requests (``set_tools``)."""
EMPTY_TRANSITION = "(nothing was said before this point)"
"""The text of a transition message when nothing came before it."""


def _mutations(view: object) -> int | None:
    """How many edits and removals the message index under a store's view (its own, or a reader's) has
    applied: the positions of the messages the view shows stay put while this count does not change
    (appends only add positions at the end). None for any other view."""
    from ...views import MergedView, ReaderView, StoreView

    if isinstance(view, MergedView):
        return view.mutation_count  # its own count: merges that moved rows count too
    if not isinstance(view, StoreView | ReaderView):
        return None
    return view.message_store.mutation_count


STALE_ANSWER = "a message the request read was edited or removed while it was summarised; asked again"
"""The attempt error of a summary answered for a request read before a change in its range."""


def _compiler(ctx: StrategyContext) -> Callable[..., tuple[CompileResult, Any]]:
    """The compiler the manager handed the context (summary requests are rendered through it).

    Raises:
        TypeError: the context was made without one.
    """
    if ctx.compile_context is None:
        raise TypeError("this StrategyContext was made without compile_context: it cannot render summary requests")
    return ctx.compile_context


def _view_sequence(view: object, ctx: StrategyContext) -> int:
    """Newest store sequence a view's message index has applied (what a request read from it reflects):
    the view's own, or its base view's; the store's head for a view that does not say."""
    for v in (view, getattr(view, "base", None)):
        seq = getattr(v, "last_sequence", None)
        if isinstance(seq, int) and not isinstance(seq, bool):
            return seq
    return ctx.store.head_seq()


class AutobiographicalStrategy(BaseStrategy):
    """Head and recent windows raw, the middle as chunks summarised by a model and merged upward.

    Args:
        config: The settings (default :class:`AutobiographicalConfig`).
        **overrides: Settings changed from ``config`` (e.g. ``head_window_tokens=500``).

    Raises:
        ValueError: an invalid setting (see :class:`AutobiographicalConfig`).
        TypeError: an unknown setting.
    """

    name = "autobiographical"
    records_compression_reads = True
    """Declares that every read feeding a summary goes through :meth:`before_read`."""

    def __init__(self, config: AutobiographicalConfig | None = None, **overrides: Any) -> None:
        base = config or AutobiographicalConfig()
        self.base_config = base.with_(**overrides) if overrides else base
        """The settings it was built with (what :meth:`settings_record` records)."""
        self.config = self.base_config
        """The settings in use: :attr:`base_config` with the branch's hot context (:meth:`load`) over it."""
        self._hot: dict[str, int] = {}
        self._log: CompressionLog | None = None
        self._counter: TokenCounter | None = None
        self._owned: dict[str, frozenset[str]] = {}
        self._pair_costs: dict[str, tuple[str, int]] = {}
        self._queue: Queue | None = None
        self._report: PendingWork | None = None
        self._off_path: set[str] = set()
        self._off_view: object = None  # the view the off-path chunks were found in, and its shape then
        self._off_key: tuple[int, int | None] | None = None
        self._requests: list[SummaryRequest] = []
        self._inflight: dict[str, tuple[WorkItem, RequestPlan, SummaryRequest]] = {}
        self._now: float | None = None
        self._memo_key: tuple[int, int, int, int, int | None] | None = None
        self._memo: dict[str, tuple[int, int] | None] = {}
        self.layout_state: Any = None
        """The stored layout of the last compile (see :mod:`.stable`), as :meth:`load` read it."""
        self.documents: frozenset[str] = frozenset()
        """The message ids marked as documents (each a chunk of its own), as :meth:`load` read them."""

    # ---- state -----------------------------------------------------------------------------------

    def load(self, ctx: StrategyContext) -> None:
        """Fold the records written since the last look on the context's namespace and branch (nothing
        is read when the store has not changed; a new branch or store starts a fresh fold), and the
        layout the last compile chose (``stable_prefix``)."""
        self._apply_hot_context(ctx.get_state(HOT_CONTEXT_STATE))
        self.compression_log(ctx)
        self.layout_state = ctx.get_state(LAYOUT_STATE) if self.config.stable_prefix else None
        self.documents = frozenset(pinned_ids(ctx.get_state(DOCUMENTS_STATE)))

    def hot_context(self) -> dict[str, int]:
        """The window settings in use, in tokens (:data:`HOT_SETTINGS`), as the last :meth:`load` applied them."""
        return {name: getattr(self.config, name) for name in HOT_SETTINGS}

    def check_hot_context(self, changes: Mapping[str, Any]) -> None:
        """Refuse window settings it could not apply.

        Raises:
            TypeError: a name that is not in :data:`HOT_SETTINGS` (the message lists them).
            ValueError: a value :class:`AutobiographicalConfig` refuses.
        """
        unknown = sorted(set(changes) - set(HOT_SETTINGS))
        if unknown:
            raise TypeError(
                f"{', '.join(map(repr, unknown))} cannot change at run time; the hot-context settings are "
                + ", ".join(HOT_SETTINGS)
            )
        self.base_config.with_(**changes)

    def _apply_hot_context(self, recorded: Any) -> None:
        """Use :attr:`base_config` with ``recorded`` (the branch's :data:`HOT_CONTEXT_STATE`) over it. A
        setting this version does not know (a newer version's) is left aside, and a record whose values it
        cannot apply (edited by hand) is ignored, each with a warning."""
        found = dict(recorded) if isinstance(recorded, Mapping) else {}
        if found == self._hot:
            return
        changes = {k: v for k, v in found.items() if k in HOT_SETTINGS}
        if len(changes) < len(found):
            logger.warning(
                "hot-context settings %s left aside: this version does not know them", sorted(set(found) - set(changes))
            )
        try:
            config = self.base_config.with_(**changes)
        except (TypeError, ValueError) as exc:
            logger.warning("hot-context record %r ignored: %s", found, exc)
            config = self.base_config
        self._hot, self.config = found, config
        self._queue, self._report = None, None  # due chunks and pending work follow the windows

    def reset(self) -> None:
        """Forget the folded compression log and layout (a redaction erased summaries it may hold): the
        next :meth:`load` folds the namespace's records again."""
        self._log = None
        self.layout_state = None

    def compression_log(self, ctx: StrategyContext) -> CompressionLog:
        """The folded records of ``ctx``'s namespace and branch, brought up to date."""
        log = self._log
        if log is None or not log.reads(ctx):
            inherit = ctx.get_state(INHERIT_STATE)
            parent = None
            if isinstance(inherit, Mapping) and isinstance(inherit.get("namespace"), str):
                parent = (str(inherit["namespace"]), int(inherit.get("as_of", 0)))
            log = CompressionLog(ctx.store, ctx.branch_id, ctx.namespace, parent)
            self._log = log
            self._owned, self._pair_costs, self._off_path = {}, {}, set()
            self._memo_key, self._memo = None, {}
            self._queue, self._report, self._requests, self._inflight = None, None, [], {}
        if self._counter is not ctx.counter:
            self._counter, self._pair_costs = ctx.counter, {}
        log.refresh()
        return log

    def _spans(self, view: MessageView) -> dict[str, tuple[int, int] | None]:
        """Spans of summaries in ``view``, kept while the view shows the same thing (same store view,
        same newest sequence, same length): a compile that selects again with less budget, and the
        next compile when nothing changed, place nothing twice. They are kept across appends too, when
        the view is a store's (its own or a reader's) and no message was edited or removed since (the
        positions of the messages it showed are where they were): the compile after an append places
        only what is new."""
        base = getattr(view, "base", None) or view
        seq = getattr(base, "last_sequence", None)
        if not isinstance(seq, int):
            return {}
        key = (id(base), seq, len(view), int(getattr(view, "start", 0)), _mutations(base))
        old = self._memo_key
        grown = (
            old is not None
            and key[4] is not None
            and (key[0], key[3], key[4]) == (old[0], old[3], old[4])
            and key[1] >= old[1]
            and key[2] >= old[2]
        )
        if (key != old and not grown) or len(self._memo) > 200_000:
            self._memo = {}
        elif key != old:
            # What did not apply may apply now (records written for messages this view did not show yet).
            self._memo = {k: v for k, v in self._memo.items() if v is not None}
        self._memo_key = key
        return self._memo

    def owned_ids(self, chunk: str) -> frozenset[str]:
        """Ids of the messages ``chunk`` owns (empty for a chunk the log does not hold)."""
        ids = self._owned.get(chunk)
        if ids is None and self._log is not None:
            ids = self._owned[chunk] = frozenset(self._log.chunks[chunk].ids)
        return ids or frozenset()

    def marker_text(self, summary: Summary) -> str:
        """The marker turn of a summary's recall pair."""
        return self.config.recall_marker.format(count=summary.message_count)

    def message_tokens(self, participant: str, text: str) -> int:
        """Tokens of a message of one text block from ``participant`` (the loaded counter's count)."""
        counter = self._counter
        return counter.count_message(participant, [{"type": "text", "text": text}]) if counter else len(text) // 4 + 1

    def pair_cost(self, summary: Summary) -> int:
        """Tokens of a summary's recall pair as a compile renders it (marker named, then memory)."""
        hit = self._pair_costs.get(summary.id)
        if hit is not None and hit[0] is summary.text:  # a retired summary's id may return with new text
            return hit[1]
        cfg = self.config
        marker = f"{cfg.marker_participant}: {self.marker_text(summary)}"
        cost = self.message_tokens(cfg.marker_participant, marker) + self.message_tokens(
            cfg.summary_participant, summary.text
        )
        self._pair_costs[summary.id] = (summary.text, cost)
        return cost

    def layout(self, view: MessageView, memo: dict[str, tuple[int, int] | None] | None = None) -> Layout:
        """Where the head, the chunks, the summaries and the tail are in ``view`` (after :meth:`load`).

        Raises:
            RuntimeError: :meth:`load` was never called.
        """
        if self._log is None:
            raise RuntimeError("load(ctx) the strategy before reading its layout")
        return layout(view, self._log, self.config.head_window_tokens, self.owned_ids, memo)

    # ---- select (pure) ---------------------------------------------------------------------------

    def select(self, view: MessageView, budget: Budget) -> Selection:
        """Head, the middle at the finest level that fits ``budget.tokens``, then the tail (see
        :mod:`.folding`); with ``stable_prefix``, the last compile's layout grown at its end or compacted
        (see :mod:`.stable`), and the layout to persist in ``Selection.state``. Pure: reads the view,
        the folded state and the loaded layout, writes nothing."""
        return self.select_pinned(view, budget, ())

    def select_pinned(self, view: MessageView, budget: Budget, pins: Sequence[LevelPin]) -> Selection:
        """:meth:`select` with ``pins`` rendered at their summary levels (:func:`.folding.pin_levels`):
        no summary coarser than a range's cap overlaps it, a range pinned at an exact level is not
        refined below it, and with ``overflow="window"`` nothing overlapping a range is left out. While a
        range is pinned at a level, every compile folds afresh (the last compile's layout is not grown)."""
        n = len(view)
        if n == 0:
            return Selection(())
        log = self._log
        if log is None:
            return Selection((RawSpan(0, n),))
        cfg = self.config
        state: dict[str, Any] = {}
        with log.lock:
            memo = self._spans(view)
            lay = layout(view, log, cfg.head_window_tokens, self.owned_ids, memo)
            window = cfg.overflow == "window"
            kept = self._kept_layout(view, log, lay, budget, memo) if cfg.stable_prefix and not pins else None
            left_out: list[tuple[int, int, str]] = []
            if kept is not None:
                items = kept
            else:
                recent = recent_start(view, cfg.recent_window_tokens) if window else None
                items, left_out = cover(
                    view, log, lay, budget.tokens, self.pair_cost, self.owned_ids, memo, window, recent, pins
                )
            mark = breakpoint_index(items) if cfg.stable_prefix else ()
            entries = to_entries(items, self.marker_text, cfg.summary_participant, cfg.marker_participant, mark)
            if cfg.stable_prefix:
                # A layout over budget (the compiler cuts it) or windowed by the fresh fold is not kept:
                # the next compile folds afresh, as the first compile of the same view did.
                fits = not left_out and self._cost(view, items) <= budget.tokens
                value = encode(view, items, budget.total) if fits else {"budget": budget.total, "items": []}
                if value != layout_for(self.layout_state, budget.total):
                    state[LAYOUT_STATE] = with_layout(self.layout_state, value)
        omitted = tuple(left_out) + tuple(
            (item.start, item.end, "not summarised yet; left out to fit the budget in one step (stable_prefix)")
            for item in items
            if item.omitted
        )
        # When the compiler must still cut (compression lags), the raw middle outside the recent window
        # gives way first and the head window (the opening instructions) last (bug case B61).
        hs, he = lay.head_start, lay.head_end
        if (
            he == hs < n
            and not results_only(view, hs)
            and "tool_use" not in view.entry(hs).kinds
            and not (hs + 1 < n and results_only(view, hs + 1))  # nor a paused message (pause_turn)
        ):
            # An opening message too large for the head window (over twice its budget) is not held raw
            # by the head, but while it is raw it is still the opening instructions: it gives way last
            # too, after the middle (a fresh review of B61: a 1,000-token rules message was cut first,
            # as the oldest middle message, while the turns after it stayed raw).
            he = hs + 1
        rs = recent_start(view, cfg.recent_window_tokens)
        give_way = tuple(
            (a, b)
            for item in items
            if item.summary is None and not item.omitted
            for a, b in ((item.start, min(item.end, hs, rs)), (max(item.start, he), min(item.end, rs)))
            if b > a
        )
        protected = ((hs, he),) if he > hs else ()
        # When even the head is cut and the context still does not fit (a run of short turns no excerpt
        # makes smaller), the recent window's oldest turns give way whole, never its newest unit.
        newest = unit_bounds(view, n - 1, n)[0]
        late = max(rs, he)
        last_resort = ((late, newest),) if newest > late else ()
        return Selection(
            entries, state=state, omitted=omitted, give_way=give_way, protected=protected, last_resort=last_resort
        )

    def summarised(self, view: MessageView, start: int, end: int) -> bool:
        """Whether a summary stands for any message at ``view`` positions ``[start, end)`` (the chunk
        holding it is summarised), by the compression log as :meth:`load` folded it, the state
        :meth:`select` reads (True before any load: cannot tell). See
        :func:`~context_journal.strategies.base.has_summaries`."""
        log = self._log
        if log is None:
            return True
        for e in view.entries(start, end):
            chunk = log.chunk_holding(e.created_sequence)
            if chunk is not None and chunk.id in log.l1_of:
                return True
        return False

    def raw_floor(self, view: MessageView) -> Iterator[tuple[int, int, bool]] | None:
        """Spans every selection renders raw, newest first (see :meth:`BaseStrategy.raw_floor`; a span
        flagged as giving way may also be the oldest turns of the recent window, which give way as a last
        resort, whole tool units too): with
        ``overflow="excerpt"`` and no stored layout to keep (a fresh fold), the messages after the newest
        chunk or summary (the tail), then each chunk not summarised yet (it gives way first). None with
        ``overflow="window"`` (raw parts are left out to fit) or a stored layout (compacting it may leave
        raw messages out), or before :meth:`load`. Cost: two index look-ups per span yielded."""
        log = self._log
        cfg = self.config
        kept = isinstance(self.layout_state, Mapping) and bool(self.layout_state.get("items"))
        if log is None or cfg.overflow != "excerpt" or (cfg.stable_prefix and kept):
            return None
        return self._raw_floor(view, log)

    def raw_head(self, view: MessageView) -> tuple[int, int] | None:
        """The head window (see :meth:`BaseStrategy.raw_head`): what :meth:`select` names ``protected``;
        None where :meth:`raw_floor` is None. Cost: an index look-up."""
        log = self._log
        if log is None or self.raw_floor(view) is None:
            return None
        with log.lock:
            hs, he = head_range(view, log, self.config.head_window_tokens)
        return (hs, he) if he > hs else None

    def _raw_floor(self, view: MessageView, log: CompressionLog) -> Iterator[tuple[int, int, bool]]:
        n = len(view)
        with log.lock:
            roots = log.newest_roots()
            hs, he = head_range(view, log, self.config.head_window_tokens)
            memo = self._spans(view)  # the spans select places, kept across compiles and appends
        # What may go whole: the middle (``give_way``, up to where the recent window starts) and the recent
        # window's oldest turns (``last_resort``, up to the newest message's unit; select measures the window
        # on the priced view, where it starts no later), never the head window.
        last = max(recent_start(view, self.config.recent_window_tokens), unit_bounds(view, n - 1, n)[0] if n else 0)
        cuts = sorted({hs, he, last})

        def pieces(a: int, b: int) -> Iterator[tuple[int, int, bool]]:
            """``[a, b)`` split where the head window starts and ends and where the newest part that never
            gives way starts, newest first, each piece flagged as giving way (as :meth:`select` names
            ``give_way`` or ``last_resort``) or not."""
            bounds = [a, *(c for c in cuts if a < c < b), b]
            for lo, hi in reversed(list(pairwise(bounds))):
                yield lo, hi, hi <= last and not hs <= lo < he

        # No root holds a message created after the newest root's last one: they are the tail and the gaps.
        newest = next(roots, None)
        tail = view.index_at_sequence(newest.last_seq + 1) if newest is not None else 0
        if tail < n:
            yield from pieces(tail, n)
        for root in itertools.chain((newest,) if newest is not None else (), roots):
            if root.kind == "chunk":
                span = root_chunk_span(view, log, root.id, self.owned_ids, memo)
                if span is not None:
                    yield from pieces(*span)

    def _kept_layout(
        self,
        view: MessageView,
        log: CompressionLog,
        lay: Layout,
        budget: Budget,
        memo: dict[str, tuple[int, int] | None],
    ) -> list[Item] | None:
        """The last compile's layout with the new messages appended raw, compacted when over budget
        (see :mod:`.stable`); None when a fresh fold decides (no stored layout for this budget, or it
        no longer maps onto the view, or not even a fresh fold fits)."""
        items = decode(view, log, self.layout_state, budget.total, self.owned_ids, memo)
        if items is None:
            return None
        limit = budget.tokens
        # Messages left out while compression lagged come back as summaries once they are summarised
        # (the prompt changes from their note on); otherwise the layout stays while it fits.
        gap = first_recoverable(view, log, lay, items, self.pair_cost)
        if gap is None and self._cost(view, items) <= limit:
            return items
        from ...views import newest_unit_start

        fresh, _ = cover(view, log, lay, limit, self.pair_cost, self.owned_ids, memo)
        lags = self._cost(view, fresh) > limit  # not even the coarsest cover fits
        owned, note = self.owned_ids, self._note_cost()
        keep_from = min(recent_start(view, self.config.recent_window_tokens), newest_unit_start(view, len(view)))

        def cost(layout: Sequence[Item]) -> int:
            return self._cost(view, layout)

        # With room to grow first, then within the budget. When compression lags (not even the coarsest
        # cover fits), the oldest raw messages at the end are left out in one step with room to grow: a
        # cut that stays put for the next turns, not the compiler's cut that moves every turn.
        targets = (int(limit * (1 - self.config.prefix_headroom)), limit)
        if not lags:
            return compact(view, log, lay, items, targets, self.pair_cost, owned, memo, note, gap) or fresh
        return squeeze(view, log, lay, items, targets, cost, keep_from, self.pair_cost, owned, memo, note, gap)

    def _note_cost(self) -> int:
        return self.message_tokens(NOTE_PARTICIPANT, gap_note(99_999))

    def _cost(self, view: MessageView, items: Sequence[Item]) -> int:
        """Tokens of a layout as a compile renders it (notes of omitted spans included)."""
        notes = sum(1 for item in items if item.omitted)
        summaries = sum(self.pair_cost(item.summary) for item in items if item.summary is not None and not item.omitted)
        return raw_tokens(view, items) + summaries + notes * self._note_cost()

    def commit(self, selection: Selection, ctx: StrategyContext) -> None:
        """Persist the compiled layout when it changed (one state write per compaction, none between)."""
        value = selection.state.get(LAYOUT_STATE)
        if value is not None and value != self.layout_state:
            ctx.put_states({LAYOUT_STATE: value})
            self.layout_state = value

    # ---- chunking --------------------------------------------------------------------------------

    def chunk_end(self, view: MessageView, start: int, limit: int, bounded: bool) -> tuple[int, str | None] | None:
        """End of the chunk starting at ``start`` and its phase, or None when it cannot close yet.

        ``limit`` is the furthest end allowed; ``bounded`` says ``[start, limit)`` is a closed gap (its
        remainder closes too) rather than the growing end (only full chunks close there). Subclasses
        change the cut (see :class:`~context_journal.strategies.KnowledgeStrategy`).
        """
        from ...views import unit_start_at_or_after

        target = self.config.target_chunk_tokens
        n = len(view)
        if start >= limit:
            return None
        e = first_at_least(view, start, limit, target)
        if e is None:
            return (limit, None) if bounded else None
        end = unit_start_at_or_after(view, e, n)
        if bounded:
            end = min(end, limit)
            if view.tokens(end, limit) < target // 2:
                end = limit
        elif end > limit or end >= n:
            return None
        return end, None

    def shard_threshold(self, tokens_before: int) -> int:
        """The ingress shard threshold, in estimated tokens, for a message written after ``tokens_before``
        tokens of its conversation (see ``ContextManager.shard_tokens``): twice ``target_chunk_tokens``,
        so a message too large to share a chunk is stored in parts that can. A message that opens the
        conversation (it starts inside the head window) is kept whole up to what the head holds whole,
        :data:`~.chunking.HEAD_FIRST_UNIT` times the head window: opening instructions stay raw and whole
        (bug case B61)."""
        threshold = 2 * self.config.target_chunk_tokens
        if tokens_before < self.config.head_window_tokens:
            threshold = max(threshold, HEAD_FIRST_UNIT * self.config.head_window_tokens)
        return threshold

    def chunk_target(self, chunk: ChunkRecord) -> int:
        """Tokens asked of a chunk's L1 summary (the current ``summary_target_tokens``)."""
        return self.config.summary_target_tokens

    def chunk_hint(self, chunk: ChunkRecord) -> str:
        """Extra advice appended to a chunk's instruction (empty here; phases add some)."""
        return ""

    def _new_chunks(self, view: MessageView, log: CompressionLog, reg: Regions) -> list[ChunkRecord]:
        cut = self._document_cut if self.documents else self.chunk_end
        return new_chunks(view, log, reg, cut, self.chunk_target, self.config, self._now)

    def _document_cut(self, view: MessageView, start: int, limit: int, bounded: bool) -> tuple[int, str | None] | None:
        """:meth:`chunk_end` around the documents (``ContextManager.mark_document``): a document is a chunk
        of its own, whatever its size, and no chunk spans one (the part before it closes as a gap does)."""
        marked = (view.index_of(i) for i in self.documents)
        first = min((p for p in marked if p is not None and start <= p < limit), default=None)
        if first == start:
            cut = self.chunk_end(view, start, start + 1, True)  # the document alone (a phase, if any)
            return start + 1, cut[1] if cut is not None else None
        if first is None:
            return self.chunk_end(view, start, limit, bounded)
        return self.chunk_end(view, start, first, True)

    # ---- the driver's side -----------------------------------------------------------------------

    def before_read(self, ctx: StrategyContext, sequence: int) -> None:
        """The single choke point of compression reads: called before anything up to store sequence
        ``sequence`` is read into a chunk, a request or a merge. Calls ``ctx.note_compression_read``
        when the context has one (reader-scoped managers); its exception stops the work.
        """
        hook = getattr(ctx, "note_compression_read", None)
        if hook is not None and sequence > 0:
            hook(sequence)

    def _write(
        self, ctx: StrategyContext, log: CompressionLog, records: Sequence[tuple[str, Mapping[str, Any]]]
    ) -> None:
        with ctx.store.transaction() as tx:
            for item, body in records:
                tx.append(ctx.branch_id, log.slot, item, dict(body), Op.EDIT if log.has_item(item) else Op.APPEND)
        log.refresh()

    def prepare(
        self,
        view: MessageView,
        ctx: StrategyContext,
        *,
        now: float | None = None,
        request_view: MessageView | None = None,
    ) -> None:
        """Close the chunks that are due (persisted) and render the next ready requests.

        The queue is then available from :meth:`pending_requests`, :meth:`pending_counts` (cheap)
        and :meth:`pending_work` (the full report). Cost: O(unmerged summaries) dictionary work and
        O(log N) view reads per region boundary, plus rendering the next requests; flat in history.

        Args:
            view: The view ``select`` sees (the conversation after its leading system messages).
            ctx: The namespace and branch.
            now: The time used for retry backoff (default: now).
            request_view: The whole view requests are rendered from (default ``view``).

        Raises:
            StoreError: a write failed (nothing of it is kept).
        """
        from .planning import plan_for

        log = self.compression_log(ctx)
        now = time.time() if now is None else now
        self._now = now
        cfg = self.config
        self._forget_off_path(view)
        with log.lock:
            reg = regions(view, log, cfg.head_window_tokens)
            new = self._new_chunks(view, log, reg)
            if new:
                newest = max(e.sequence for c in new for e in view.entries(*self._span_of(view, c)))
                self.before_read(ctx, newest)
                self._write(ctx, log, [(f"chunk/{c.id}", c.to_body()) for c in new])
                reg = regions(view, log, cfg.head_window_tokens)
            full = request_view if request_view is not None else view
            system = ctx.get_state(SYSTEM_STATE)
            tools = ctx.get_state(TOOLS_STATE) or []
            overhead = full.tokens(0, len(full) - len(view)) + (self.message_tokens("system", system) if system else 0)
            overhead += sum(self.message_tokens("tool", str(t)) for t in tools)
            part_budget = cfg.summarizer_context_tokens - cfg.output_tokens(cfg.max_summary_tokens)
            part_budget = max(256, part_budget - view.tokens(reg.head_start, reg.head_end) - overhead - 600)
            unchunked = sum(view.tokens(a, b) for a, b, _, _ in reg.fills)
            unchunked += view.tokens(reg.frontier, max(reg.frontier, recent_start(view, cfg.recent_window_tokens)))
            held = tuple(m for m in log.active_holds(now) if view.index_of(m) is not None)
            queue = Queue(log, cfg, now, self.chunk_target, held, unchunked, self._off_path)
            self._queue, self._report = queue, None
            self._requests, self._inflight = [], {}
            for item in queue.ready():
                if len(self._requests) >= cfg.request_lookahead:
                    break
                work = self._expand(view, log, queue, item, part_budget)
                if work is None:
                    continue
                plan = plan_for(self, view, log, reg, work)
                try:
                    request = self.render_plan(plan, view, ctx, full)
                except OverBudgetError as exc:
                    self._fail(ctx, log, work.key, f"the request could not be built: {exc}", now)
                    continue
                self._requests.append(request)
                self._inflight[request.id] = (work, plan, request)

    def _forget_off_path(self, view: MessageView) -> None:
        """Forget the chunks found off the view's path when the view may show other messages now: another
        view (a filter set or dropped, another reader), or a message edited or removed since (an edit may
        give the reader a block it could not see). Kept while only appends happened: an append shows no
        message of a chunk closed before it (a review found chunks a dropped filter had hidden reported
        off the path for good: ``drain`` left them unsummarised and the lag under-counted)."""
        base = getattr(view, "base", None) or view
        key = (int(getattr(view, "start", 0)), _mutations(base))
        if base is not self._off_view or key != self._off_key or key[1] is None:
            self._off_path = set()
            self._off_view, self._off_key = base, key

    def _span_of(self, view: MessageView, chunk: ChunkRecord) -> tuple[int, int]:
        return view.index_at_sequence(chunk.first_seq), view.index_at_sequence(chunk.last_seq + 1)

    def _expand(
        self, view: MessageView, log: CompressionLog, queue: Queue, item: WorkItem, budget: int
    ) -> WorkItem | None:
        """A chunk item as the request to make next: the item itself, or the first part not yet done
        of a chunk too large for one request; None when the chunk is off this view's path or its part
        is not ready."""
        if item.kind != "chunk" or item.chunk_id is None:
            return item
        chunk = log.chunks[item.chunk_id]
        span = chunk_span(view, chunk, self.owned_ids)
        if span is None:
            self._off_path.add(chunk.id)
            return None
        parts = split_parts(view, span[0], span[1], budget)
        if len(parts) == 1:
            return item
        done = log.parts.get(chunk.id, {})
        ranges = tuple((view.entry(a).created_sequence, view.entry(b - 1).created_sequence) for a, b in parts)
        share = max(1, item.target_tokens // len(parts))
        for k, (first, last) in enumerate(ranges):
            if (first, last) in done:
                continue
            key = f"chunk:{chunk.id}:{first}-{last}"
            if queue.status(key)[0] != "ready":
                return None
            return WorkItem(key, "part", 1, first, last, share, chunk.id, part=(k, len(parts)), parts=ranges)
        return None

    def render_plan(
        self, plan: RequestPlan, view: MessageView, ctx: StrategyContext, request_view: MessageView | None = None
    ) -> SummaryRequest:
        """Render a request plan with the host's system prompt and tools (after :meth:`before_read`).

        Raises:
            OverBudgetError: the system prompt, tools and instruction alone exceed the summarizer's window.
        """
        from .planning import plan_read_sequence

        log = self.compression_log(ctx)
        read = plan_read_sequence(view, log, plan)
        self.before_read(ctx, read)
        system = ctx.get_state(SYSTEM_STATE)
        tools = ctx.get_state(TOOLS_STATE) or []
        roles = ctx.roles()
        return render_request(
            request_view if request_view is not None else view,
            plan,
            self.config,
            counter=ctx.counter,
            roles_state=roles if isinstance(roles, Mapping) else None,
            host_system=system if isinstance(system, str) else None,
            host_tools=[t for t in tools if isinstance(t, Mapping)],
            marker=self.marker_text,
            pair_cost=self.pair_cost,
            read_sequence=read,
            namespace=ctx.namespace,
            as_of=_view_sequence(request_view if request_view is not None else view, ctx),
            compile_context=_compiler(ctx),
        )

    def pending_requests(self) -> Sequence[SummaryRequest]:
        """The next ready requests rendered by the last :meth:`prepare` (at most ``request_lookahead``)."""
        return tuple(self._requests)

    def summary_for_request(self, request_id: str) -> str | None:
        """The summary a recorded answer to ``request_id`` stored: ``chunk:<id>...`` is the chunk's level-1
        summary, ``merge:<summary id>`` the merged one; None for a part, a failure, or nothing stored yet."""
        log = self._log
        if log is None:
            return None
        if request_id.startswith("merge:"):
            sid = request_id.split(":", 1)[1]
        elif request_id.startswith("chunk:"):
            sid = summary_id_for_chunk(request_id.split(":")[1])
        else:
            return None
        return sid if sid in log.summaries else None

    def pending_work(self) -> PendingWork:
        """The queue as of the last :meth:`prepare` (the full report; O(items))."""
        if self._queue is None:
            return PendingWork()
        if self._report is None:
            self._report = self._queue.pending_work()
        return self._report

    def pending_counts(self) -> tuple[int, int, int, float | None]:
        """``(ready, waiting, stuck, next retry time)`` as of the last :meth:`prepare`, without listing."""
        return self._queue.counts() if self._queue is not None else (0, 0, 0, None)

    def pending_lag(self, view: MessageView) -> tuple[int, int]:
        """``(chunks, tokens)`` as of the last :meth:`prepare`, without listing the work (see
        :class:`~context_journal.strategies.base.LagReportingStrategy` and ``Queue.lag``)."""
        if self._queue is None:
            return 0, 0
        chunks, tokens = self._queue.lag(view)
        return chunks, tokens + int(self._queue.unchunked_tokens or 0)

    def is_ready(self) -> bool:
        """True when, as of the last :meth:`prepare`, no work is ready or waiting for a retry (stuck
        work does not count: it is only reported)."""
        ready, waiting, _, _ = self.pending_counts()
        return ready + waiting == 0

    def record_result(self, result: SummaryResult, ctx: StrategyContext) -> None:
        """Store what the summarizer answered: a summary (or a part of one), or a failure.

        A failed answer (an error, no text) records one more attempt with its backoff; the chunk stays
        pending and every compile still covers it. A result for work another worker already did is
        dropped.

        Raises:
            ValueError: ``result`` answers no request of the last :meth:`prepare`.
            StoreError: the write failed (nothing is written).
        """
        from .planning import store_summary

        entry = self._inflight.pop(result.request_id, None)
        if entry is None:
            raise ValueError(f"no pending summary request {result.request_id!r}")
        item, plan, request = entry
        log = self.compression_log(ctx)
        now = self._now if self._now is not None else time.time()
        with log.lock:
            text = (result.text or "").strip()
            if result.error is not None or not text:
                self._fail(ctx, log, item.key, result.error or "the summarizer answered no text", now)
                return
            bound = request.metadata.get("as_of", request.metadata.get("read_sequence", 0))
            if isinstance(bound, int) and log.changed_since(item.last_seq, bound):
                # A message the request may have read was edited or removed after it read it (a stale mark):
                # asked again at once, counted as an attempt so that it can never loop without end.
                self._fail(ctx, log, item.key, STALE_ANSWER, now, wait=False)
                return
            records = store_summary(self, log, item, plan, request, text, result)
            if records:
                self._write(ctx, log, records)
            self._requests = [r for r in self._requests if r.id != result.request_id]

    def _fail(
        self, ctx: StrategyContext, log: CompressionLog, key: str, error: str, now: float, wait: bool = True
    ) -> None:
        from .records import Attempt

        previous = log.attempts.get(key)
        attempts = (previous.attempts if previous else 0) + 1
        attempt = Attempt(key, attempts, error[:2000], now + (self.config.backoff(attempts) if wait else 0.0), now)
        self._write(ctx, log, [(f"attempt/{key}", attempt.to_body())])

    def cap_text(self, text: str, level: int, target: int) -> tuple[str, bool]:
        """``text`` cut at a line or sentence end to the level's cap (tokens); True when cut."""
        return cap_text(
            text,
            self.config.level_cap(level, target),
            lambda t: self.message_tokens(self.config.summary_participant, t),
        )

    # ---- head resets ---------------------------------------------------------------------

    def transition_request(
        self, view: MessageView, ctx: StrategyContext, request_view: MessageView | None = None
    ) -> SummaryRequest | None:
        """The request for a transition summary (the head, the summaries, the newest messages of
        ``view``), or None when ``view`` is empty.

        Raises:
            OverBudgetError: as :meth:`render_plan`.
        """
        from .planning import transition_plan

        if len(view) == 0:
            return None
        log = self.compression_log(ctx)
        plan = transition_plan(self, view, log, regions(view, log, self.config.head_window_tokens))
        return self.render_plan(plan, view, ctx, request_view)

    def transition_message(
        self, text: str | None, ctx: StrategyContext, audience: Sequence[str] | None, info: Mapping[str, Any]
    ) -> MessageInput:
        """The transition message: ``transition_heading`` then ``text``, from ``marker_participant``."""
        from ...messages import MessageInput

        said = EMPTY_TRANSITION if text is None else text
        block: dict[str, Any] = {"type": "text", "text": self.config.transition_heading + said}
        if audience is not None:
            block["audience"] = list(audience)
        metadata = {"context_journal": {"kind": "transition_summary", "namespace": ctx.namespace, **info}}
        return MessageInput(self.config.marker_participant, [block], metadata)

    def head_record(self, message_id: str, info: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The record of a head reset at ``message_id`` (written with the transition message)."""
        return f"head/{message_id}", HeadMark(message_id, time.time(), dict(info)).to_body()

    def settings_record(self) -> dict[str, Any]:
        """What a namespace records of this strategy: its name and settings."""
        return {"strategy": self.name, "config": self.base_config.to_dict()}

    def __repr__(self) -> str:
        cfg = self.config
        return (
            f"{type(self).__name__}(head_window_tokens={cfg.head_window_tokens}, recent_window_tokens="
            f"{cfg.recent_window_tokens}, target_chunk_tokens={cfg.target_chunk_tokens})"
        )
