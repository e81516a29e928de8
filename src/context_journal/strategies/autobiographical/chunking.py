"""Where things are in the view: the head window, the recent window, the chunks, and new chunk ends.

Everything here is a pure function of a :class:`~context_journal.views.MessageView` and the folded
:class:`~.state.CompressionLog`, in view positions computed from created sequences (so removals and
edits never move a chunk's ownership). Costs are O(log N) per node placed: a layout touches the roots,
never the whole history.

**The layout** of a view is, in order: the *pre-head* region (messages before a reset head: chunks and
summaries, raw where not yet chunked), the *head window* (raw), the *middle* (chunks and summaries),
and the *tail* (raw: the messages after the last closed chunk, which hold the recent window).

**Applicability** (bug case B31): a chunk is used only when the view holds its messages: its sequence
range maps to a non-empty span whose first and last messages it owns and that holds no more messages
than it owns. A summary is used only when its first and last sources are. A record made on another
path (another branch's messages, another slot) therefore never stands for messages it did not read.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from ..._block_types import continues_server_turn
from ...views import unit_start_at_or_after
from .records import ChunkRecord, Summary, chunk_id

if TYPE_CHECKING:
    from ...views import MessageView
    from .config import AutobiographicalConfig
    from .state import CompressionLog

__all__ = [
    "Layout",
    "Node",
    "Regions",
    "chunk_span",
    "first_at_least",
    "head_end",
    "head_range",
    "last_within",
    "layout",
    "new_chunks",
    "recent_start",
    "regions",
    "results_only",
    "summary_span",
]


@dataclass(frozen=True, slots=True)
class Node:
    """A placed record: a summary, or a chunk rendered raw (no summary yet).

    Attributes:
        kind: ``"summary"`` or ``"chunk"``.
        id: The record's id.
        level: The summary's level, 0 for a chunk.
        start: First view position it stands for.
        end: One past the last.
    """

    kind: Literal["summary", "chunk"]
    id: str
    level: int
    start: int
    end: int


@dataclass
class Layout:
    """The regions of a view (positions).

    Attributes:
        n: Messages in the view.
        head_start: First position of the head window.
        head_end: One past its last position.
        nodes: Placed roots in order (disjoint).
        frontier: Where the middle's closed chunks end (new chunks start here).
        fills: Raw gaps ``(start, end)`` outside the head and the tail that no node covers.
    """

    n: int
    head_start: int
    head_end: int
    nodes: list[Node] = field(default_factory=list)
    frontier: int = 0
    fills: list[tuple[int, int]] = field(default_factory=list)


def results_only(view: MessageView, index: int) -> bool:
    """True when the message at ``index`` cannot start a tool unit: it holds only tool results, or it
    continues the paused message before it (``pause_turn``:
    :func:`~context_journal._block_types.continues_server_turn`)."""
    kinds = view.entry(index).kinds
    return (bool(kinds) and all(k == "tool_result" for k in kinds)) or continues_server_turn(kinds)


def first_at_least(view: MessageView, start: int, limit: int, target: int) -> int | None:
    """The smallest ``e`` in ``(start, limit]`` with ``tokens(start, e) >= target``; None when even
    ``tokens(start, limit)`` is below. O(log² N)."""
    if limit <= start or view.tokens(start, limit) < target:
        return None
    lo, hi = start + 1, limit
    while lo < hi:
        mid = (lo + hi) // 2
        if view.tokens(start, mid) >= target:
            hi = mid
        else:
            lo = mid + 1
    return lo


def last_within(view: MessageView, start: int, limit: int, budget: int) -> int:
    """The largest ``k`` in ``[start, limit]`` with ``tokens(start, k) <= budget``."""
    lo, hi = start, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if view.tokens(start, mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


def head_end(view: MessageView, start: int, budget: int, cap: int) -> int:
    """End of the head window that starts at ``start``: the longest prefix within ``budget`` tokens
    that does not split a tool unit, never past ``cap``.

    A cut inside a unit moves back to the unit's start; when that unit is the head's first, the head
    takes it whole if it fits :data:`HEAD_FIRST_UNIT` times the budget and is empty otherwise (a store
    whose first chunk already holds that unit keeps an empty head: :func:`head_range`).
    """
    if budget <= 0 or start >= cap:
        return start
    if view.tokens(start, cap) <= budget:
        return cap
    p = last_within(view, start, cap, budget)
    if p < cap and p > start and not results_only(view, p):
        return p
    u0 = p
    while u0 > start and results_only(view, u0):
        u0 -= 1
    if u0 > start:
        return u0
    u1 = unit_start_at_or_after(view, max(p, start + 1), cap)
    return u1 if view.tokens(start, u1) <= HEAD_FIRST_UNIT * budget else start


HEAD_FIRST_UNIT = 4
"""How many times the head window's budget its first unit (the opening instructions) may take and still
be held raw whole (at ``AutobiographicalConfig.for_budget(n)``, 60% of ``n``). It was 2: a fresh review of
bug case B61 found a 1,000-token rules message at ``for_budget(3000)`` summarised into the first chunk, so
the opening instructions reached the model only as a summary while newer raw turns stayed raw. A larger
opening message is summarised like any other; pin it to keep it raw."""


RECENT_CAP_SHARE = 4
"""A message larger than the whole recent window counts for ``1 / RECENT_CAP_SHARE`` of it: such a message
(a huge tool result) is never sent raw anyway (a compile shows an excerpt), and counted whole it filled
the window alone and sent the newest turns, the user's last question among them, into a chunk (a 7,216-token
result once left a 1,200-token window holding only the final reply)."""


def recent_start(view: MessageView, budget: int) -> int:
    """Start of the recent window: the newest suffix within ``budget`` tokens (a message larger than
    ``budget`` counted as ``budget // RECENT_CAP_SHARE``), moved forward so it does not open on results
    whose call it leaves out (``len(view)`` when the budget is 0). O(log N) unless a message larger than
    the window stops it."""
    n = len(view)
    if budget <= 0 or n == 0:
        return n
    start = view.suffix_start(budget, n)
    if start > 0 and view.entry(start - 1).tokens > budget:
        cap = max(1, budget // RECENT_CAP_SHARE)
        used, end = 0, n
        while end > 0:
            batch = view.entries(max(0, end - 32), end)
            for e in reversed(batch):
                size = e.tokens if e.tokens <= budget else cap
                if used + size > budget:
                    return unit_start_at_or_after(view, e.position + 1, n)
                used += size
            end -= len(batch)
        start = 0
    return unit_start_at_or_after(view, start, n)


def _span(view: MessageView, first_seq: int, last_seq: int) -> tuple[int, int]:
    return view.index_at_sequence(first_seq), view.index_at_sequence(last_seq + 1)


def chunk_span(view: MessageView, chunk: ChunkRecord, owned: Callable[[str], frozenset[str]]) -> tuple[int, int] | None:
    """View span of a chunk's messages, or None when the view does not hold them (see the module
    docstring); ``owned(chunk_id)`` returns the chunk's id set."""
    a, b = _span(view, chunk.first_seq, chunk.last_seq)
    if b <= a or b - a > len(chunk.ids):
        return None
    ids = owned(chunk.id)
    if view.entry(a).id not in ids or view.entry(b - 1).id not in ids:
        return None
    return a, b


def summary_span(
    view: MessageView,
    log: CompressionLog,
    summary: Summary,
    owned: Callable[[str], frozenset[str]],
    memo: dict[str, tuple[int, int] | None] | None = None,
) -> tuple[int, int] | None:
    """View span a summary stands for, or None when it does not apply to this view."""
    if memo is not None and summary.id in memo:
        return memo[summary.id]
    span: tuple[int, int] | None
    if summary.level <= 1:
        chunk = log.chunk_of_summary(summary)
        span = chunk_span(view, chunk, owned) if chunk is not None else None
    else:
        kids = log.children(summary)
        if len(kids) != len(summary.source_ids) or not kids:
            span = None
        else:
            first = summary_span(view, log, kids[0], owned, memo)
            last = summary_span(view, log, kids[-1], owned, memo) if len(kids) > 1 else first
            if first is None or last is None or last[1] <= first[0]:
                span = None
            else:
                span = (first[0], last[1]) if last[1] - first[0] <= summary.message_count else None
    if memo is not None:
        memo[summary.id] = span
    return span


_CHUNK_KEY = "\x00chunk:"
"""Prefix of a chunk's key in a spans memo (summary ids never start with it)."""


def root_chunk_span(
    view: MessageView,
    log: CompressionLog,
    chunk_id: str,
    owned: Callable[[str], frozenset[str]],
    memo: dict[str, tuple[int, int] | None],
) -> tuple[int, int] | None:
    """:func:`chunk_span` of a chunk not summarised yet, kept in ``memo`` with the summaries' spans."""
    key = _CHUNK_KEY + chunk_id
    if key in memo:
        return memo[key]
    span = memo[key] = chunk_span(view, log.chunks[chunk_id], owned)
    return span


def _place(
    view: MessageView,
    log: CompressionLog,
    kind: str,
    rid: str,
    owned: Callable[[str], frozenset[str]],
    memo: dict[str, tuple[int, int] | None],
    out: list[Node],
) -> None:
    """Append the nodes standing for a root: the root itself when it applies, else its parts that do."""
    if kind == "chunk":
        span = root_chunk_span(view, log, rid, owned, memo)
        if span is not None:
            out.append(Node("chunk", rid, 0, *span))
        return
    s = log.summaries[rid]
    span = summary_span(view, log, s, owned, memo)
    if span is not None:
        out.append(Node("summary", rid, s.level, *span))
        return
    if s.level == 1:
        l1_chunk = log.chunk_of_summary(s)
        if l1_chunk is not None:
            _place(view, log, "chunk", l1_chunk.id, owned, memo, out)
        return
    for kid in log.children(s):
        _place(view, log, "summary", kid.id, owned, memo, out)


def head_range(view: MessageView, log: CompressionLog, head_tokens: int) -> tuple[int, int]:
    """The head window ``[start, end)``: from the newest head mark whose message the view holds (else
    the first message), never inside a chunk, up to ``head_tokens`` (see :func:`head_end`), never
    into the next chunk."""
    n = len(view)
    hs = 0
    for mark in reversed(log.heads):
        index = view.index_of(mark.message_id)
        if index is not None:
            hs = index
            break
    if hs >= n:
        return n, n
    seq = view.entry(hs).created_sequence
    holding = log.chunk_holding(seq)
    if holding is not None:
        if view.index_at_sequence(holding.first_seq) >= hs:
            return hs, hs  # a chunk starts where the head would: the head is empty (its first unit was too big)
        hs = view.index_at_sequence(holding.last_seq + 1)  # a reset head never starts inside a chunk
        if hs >= n:
            return n, n
        seq = view.entry(hs).created_sequence
    following = log.chunk_starting_after(seq)
    cap = view.index_at_sequence(following.first_seq) if following is not None else n
    return hs, head_end(view, hs, head_tokens, max(hs, cap))


@dataclass
class Regions:
    """What chunking needs to know of a view (positions), found without placing every root.

    Attributes:
        head_start: First position of the head window.
        head_end: One past its last.
        frontier: Where the middle's closed chunks end (new chunks start here).
        last_chunk: Id of the chunk ending at ``frontier``, or None.
        fills: Gaps ``(start, end, left chunk id, right chunk id)`` outside the head and the tail that
            no chunk covers; a side's id is set when the gap touches that chunk.
    """

    head_start: int
    head_end: int
    frontier: int
    last_chunk: str | None = None
    fills: list[tuple[int, int, str | None, str | None]] = field(default_factory=list)


def regions(view: MessageView, log: CompressionLog, head_tokens: int) -> Regions:
    """The head, the frontier and the unchunked gaps of ``view``: O(log N) per gap between chunks
    (chunks closed one after another tile, so there are few), never O(chunks) view reads."""
    hs, he = head_range(view, log, head_tokens)
    last = log.last_chunk()
    frontier, last_id = he, None
    if last is not None:
        end = view.index_at_sequence(last.last_seq + 1)
        if view.index_at_sequence(last.first_seq) >= he and end > he:
            frontier, last_id = end, last.id
    gaps: list[tuple[int, int, str | None, str | None]] = []
    for prev, chunk in log.untiled():
        start = view.index_at_sequence(chunk.first_seq)
        left = view.index_at_sequence(prev.last_seq + 1) if prev is not None else 0
        if start > left:
            gaps.append((left, start, prev.id if prev is not None else None, chunk.id))
    # Before a reset head, no chunk may follow yet (the new topic has not filled one): the messages
    # between the last chunk (or the first message) and the head are a closed gap all the same, else
    # the old topic stays unchunked until the new one closes its first chunk.
    left = view.index_at_sequence(last.last_seq + 1) if last is not None else 0
    if left < hs:
        gaps.append((left, hs, last.id if last is not None else None, None))
    fills: list[tuple[int, int, str | None, str | None]] = []
    for a, b, left_id, right_id in gaps:
        for lo, hi in ((a, min(b, hs)), (max(a, he), min(b, frontier))):
            if hi > lo:
                fills.append((lo, hi, left_id if lo == a else None, right_id if hi == b else None))
    return Regions(hs, he, frontier, last_id, fills)


def layout(
    view: MessageView,
    log: CompressionLog,
    head_tokens: int,
    owned: Callable[[str], frozenset[str]],
    memo: dict[str, tuple[int, int] | None] | None = None,
) -> Layout:
    """Place the roots, the head window and the raw gaps of ``view`` (see the module docstring)."""
    n = len(view)
    memo = {} if memo is None else memo
    placed: list[Node] = []
    for root in log.iter_roots():
        _place(view, log, root.kind, root.id, owned, memo, placed)
    nodes: list[Node] = []
    reach = 0
    for node in placed:
        if node.start >= reach:  # defensive: placed records never overlap
            nodes.append(node)
            reach = node.end
    hs, he = head_range(view, log, head_tokens)
    frontier = he
    for node in nodes:
        if node.start >= he:
            frontier = max(frontier, node.end)
    fills: list[tuple[int, int]] = []
    pos = 0
    for node in nodes:
        if node.start > pos:
            fills.append((pos, node.start))
        pos = max(pos, node.end)
    if pos < n:
        fills.append((pos, n))
    # Cut the head and the tail out of the gaps.
    gaps: list[tuple[int, int]] = []
    for a, b in fills:
        for lo, hi in ((a, min(b, hs)), (max(a, he), min(b, frontier))):
            if hi > lo:
                gaps.append((lo, hi))
    return Layout(n, hs, he, nodes, frontier, gaps)


def new_chunks(
    view: MessageView,
    log: CompressionLog,
    reg: Regions,
    chunk_end: Callable[[MessageView, int, int, bool], tuple[int, str | None] | None],
    chunk_target: Callable[[ChunkRecord], int],
    config: AutobiographicalConfig,
    now: float | None = None,
) -> list[ChunkRecord]:
    """The chunks due now: every closed gap cut up (its remainder closes too), then full chunks at the
    growing end up to the recent window; nothing at or after a message held at ``now`` (epoch seconds).
    ``chunk_end(view, start, limit, bounded)`` cuts one chunk (see ``AutobiographicalStrategy.chunk_end``)."""
    n = len(view)
    holds = [i for i in (view.index_of(m) for m in log.active_holds(now)) if i is not None]
    hold = min(holds, default=n)
    out: list[ChunkRecord] = []

    def run(start: int, limit: int, bounded: bool, follows: str | None, precedes: str | None) -> None:
        s = start
        while s < limit:
            cut = chunk_end(view, s, limit, bounded)
            if cut is None or cut[0] <= s:
                return
            e, phase = cut
            entries = view.entries(s, e)
            if log.overlaps(entries[0].created_sequence, entries[-1].created_sequence):
                return
            ids = tuple(x.id for x in entries)
            chunk = ChunkRecord(
                chunk_id(ids[0], ids[-1], len(ids)),
                ids,
                entries[0].created_sequence,
                entries[-1].created_sequence,
                view.tokens(s, e),
                config.summary_target_tokens,
                phase,
                time.time(),
                follows=follows,
                precedes=precedes if e == limit else None,
            )
            out.append(replace(chunk, target_tokens=chunk_target(chunk)))
            follows = chunk.id
            s = e

    for a, b, left, right in reg.fills:
        run(a, min(b, hold), hold >= b, left, right if hold >= b else None)
    grow_from = reg.last_chunk if reg.frontier > reg.head_end else None
    run(reg.frontier, min(recent_start(view, config.recent_window_tokens), hold), False, grow_from, None)
    return out
