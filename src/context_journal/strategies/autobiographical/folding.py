"""Folding: the entries of a compile, each span at the finest level that fits.

Start from the coarsest cover: every root (an unmerged summary, or a chunk without a summary, rendered
raw) between raw gaps, the head window and the tail. The raw parts always go in. Then, from the newest
root back to the oldest, a summary is replaced by what it was made from (its children, or an L1's raw
chunk) while the extra tokens fit. The fold is **monotone**: going back in time the level never gets
finer (once a span stays at level ``L``, older spans are rendered at ``L`` or coarser), so detail is
spent on the recent past first. Cost: O(roots + rendered nodes), each O(log N); never O(history).

A summary is rendered as a recall pair: a short marker turn from the marker participant ("Context
Manager": a user turn) and the summary in the summary participant's voice (an assistant turn). Both
entries say which view positions they cover, so the compile reports coverage and provenance.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..base import ContextEntry, LevelPin, RawSpan, RenderedEntry, SummaryRef
from .chunking import Layout, Node, first_at_least, summary_span
from .records import Summary

if TYPE_CHECKING:
    from ...views import MessageView
    from .state import CompressionLog

__all__ = [
    "NOTE_PARTICIPANT",
    "Item",
    "children",
    "coarsest",
    "cover",
    "gap_note",
    "item_cost",
    "pin_levels",
    "recall_pair",
    "refine",
    "to_entries",
]


NOTE_PARTICIPANT = "context-journal"
"""Who speaks the note standing for messages a prefix-stable layout left out (a user turn)."""


def gap_note(count: int) -> str:
    """The note standing for ``count`` messages left out to fit (their text does not depend on sizes, so
    it stays byte-identical while the layout does)."""
    return (
        f"[… {count} earlier message{'s' if count != 1 else ''}, not summarised yet, left out here to fit the "
        "budget; the journal keeps them whole …]"
    )


@dataclass(frozen=True, slots=True)
class Item:
    """A piece of the folded cover: raw positions ``[start, end)``, or a summary standing for them, or
    (``omitted``, a prefix-stable layout only) a short note saying they were left out to fit."""

    start: int
    end: int
    summary: Summary | None = None
    omitted: bool = False


def recall_pair(
    summary_text: str,
    marker_text: str,
    summary_participant: str,
    marker_participant: str,
    covers: tuple[int, int] | None,
    refs: tuple[SummaryRef, ...],
    cache_breakpoint: bool = False,
) -> tuple[RenderedEntry, RenderedEntry]:
    """The two entries of a recall pair: the marker question (user turn) and the memory (assistant;
    ``cache_breakpoint`` asks for a prompt-cache breakpoint after it)."""
    marker = RenderedEntry(
        marker_participant, ({"type": "text", "text": marker_text},), kind="marker", covers=covers, role="user"
    )
    memory = RenderedEntry(
        summary_participant,
        ({"type": "text", "text": summary_text},),
        kind="summary",
        covers=covers,
        summaries=refs,
        role="assistant",
        cache_breakpoint=cache_breakpoint,
    )
    return marker, memory


def coarsest(
    view: MessageView,
    log: CompressionLog,
    lay: Layout,
    pair_cost: Callable[[Summary], int],
) -> tuple[list[Item], int]:
    """The coarsest cover of the whole view (every root between raw gaps, the head and the tail) and
    its tokens."""
    segments: list[Item] = []
    pos = 0
    fixed = 0
    for node in lay.nodes:
        if node.start > pos:
            segments.append(Item(pos, node.start))
        segments.append(_item(log, node))
        if node.kind != "chunk":
            fixed += pair_cost(log.summaries[node.id])
        pos = node.end
    if pos < lay.n:
        segments.append(Item(pos, lay.n))
    return segments, fixed + raw_tokens(view, segments)


def raw_tokens(view: MessageView, items: Iterable[Item]) -> int:
    """Tokens of the raw messages of ``items`` (neither a summary nor omitted), each run of adjacent raw
    items priced in one query of the view: a history never summarised is thousands of raw chunks, and
    pricing each alone took 0.7 s of a compile at 20,000 messages (three selects of 8,742 chunks)."""
    total = 0
    start = end = -1
    for item in items:
        if item.summary is not None or item.omitted:
            continue
        if item.start != end:
            if end > start:
                total += view.tokens(start, end)
            start = item.start
        end = item.end
    return total + (view.tokens(start, end) if end > start else 0)


def item_cost(view: MessageView, item: Item, pair_cost: Callable[[Summary], int]) -> int:
    """Tokens of an item as a compile renders it (raw messages, or the summary's recall pair; 0 for an
    omitted span: its note is counted by the caller)."""
    if item.omitted:
        return 0
    return view.tokens(item.start, item.end) if item.summary is None else pair_cost(item.summary)


def children(
    view: MessageView,
    log: CompressionLog,
    item: Item,
    owned: Callable[[str], frozenset[str]],
    memo: dict[str, tuple[int, int] | None],
) -> list[Item] | None:
    """What a summary item was made from (its child summaries, or an L1's raw chunk); None when a
    child does not apply to this view (or the item is raw)."""
    s = item.summary
    if s is None:
        return None
    if s.level <= 1:
        return [Item(item.start, item.end)]
    items: list[Item] = []
    for kid in log.children(s):
        kspan = summary_span(view, log, kid, owned, memo)
        if kspan is None:
            return None
        items.append(Item(kspan[0], kspan[1], kid))
    return items


def refine(
    view: MessageView,
    log: CompressionLog,
    segments: Sequence[Item],
    remaining: int,
    pair_cost: Callable[[Summary], int],
    owned: Callable[[str], frozenset[str]],
    memo: dict[str, tuple[int, int] | None],
    frozen: Collection[tuple[int, int]] = (),
) -> list[Item]:
    """``segments`` with summaries replaced by what they were made from while the extra tokens fit
    ``remaining``, newest first and monotone (see the module docstring). Items whose ``(start, end)`` is
    in ``frozen`` (pinned at a level) stay as they are and do not count for the monotone rule."""
    out_rev: list[Item] = []
    min_level = 0

    def visit(item: Item) -> None:
        nonlocal remaining, min_level
        s = item.summary
        if s is None or (item.start, item.end) in frozen:
            out_rev.append(item)
            return
        if s.level - 1 >= min_level:
            kids = children(view, log, item, owned, memo)
            if kids is not None:
                delta = sum(item_cost(view, k, pair_cost) for k in kids) - item_cost(view, item, pair_cost)
                if delta <= remaining:
                    remaining -= delta
                    for kid in reversed(kids):
                        visit(kid)
                    return
        out_rev.append(item)
        min_level = max(min_level, s.level)

    for seg in reversed(segments):
        visit(seg)
    out_rev.reverse()
    return out_rev


def cover(
    view: MessageView,
    log: CompressionLog,
    lay: Layout,
    budget: int,
    pair_cost: Callable[[Summary], int],
    owned: Callable[[str], frozenset[str]],
    memo: dict[str, tuple[int, int] | None] | None = None,
    window: bool = False,
    recent: int | None = None,
    pins: Sequence[LevelPin] = (),
) -> tuple[list[Item], list[tuple[int, int, str]]]:
    """The cover of the whole view within ``budget`` tokens where possible (see the module docstring),
    with ``pins`` rendered at their levels first (:func:`pin_levels`; with ``window`` nothing that overlaps
    one is left out).

    The raw parts (head, gaps, tail, chunks without a summary) are always included; when they and the
    coarsest summaries exceed ``budget`` the result is the coarsest cover (the compiler then reduces
    the largest messages to excerpts), or, with ``window``, the oldest parts are left out until it fits,
    the newest last (see :func:`_window`; ``recent`` is where the recent window starts).

    Returns:
        The items in order, and the spans left out with the reason of each.
    """
    memo = {} if memo is None else memo
    segments, fixed = coarsest(view, log, lay, pair_cost)
    frozen: frozenset[tuple[int, int]] = frozenset()
    if pins:
        segments, frozen = pin_levels(view, log, segments, pins, owned, memo)
        fixed = sum(item_cost(view, item, pair_cost) for item in segments)
    omitted: list[tuple[int, int, str]] = []
    if window and fixed > budget:
        if pins:  # raw parts split where pinned ranges start and end: the rest of them can still leave
            cuts = sorted({x for p in pins for x in (p.start, p.end)})
            segments = [
                piece
                for item in segments
                for piece in (
                    [item]
                    if item.summary is not None
                    else [Item(a, b) for a, b in itertools.pairwise([item.start, *_inside(cuts, item), item.end])]
                )
            ]
        keep = _overlaps(pins)
        segments, fixed, omitted = _window(view, lay, segments, fixed, budget, pair_cost, recent, keep)
    return refine(view, log, segments, budget - fixed, pair_cost, owned, memo, frozen), omitted


def _inside(cuts: Sequence[int], item: Item) -> list[int]:
    """The positions of ``cuts`` (sorted) strictly inside ``item``."""
    return [c for c in cuts[bisect.bisect_right(cuts, item.start) :] if c < item.end]


def _overlaps(pins: Sequence[LevelPin]) -> Callable[[int, int], bool]:
    """``(start, end) -> bool``: True for a span that overlaps one of ``pins``."""
    spans = [(p.start, p.end) for p in pins]
    return lambda a, b: any(u < b and a < v for u, v in spans)


def pin_levels(
    view: MessageView,
    log: CompressionLog,
    segments: Sequence[Item],
    pins: Sequence[LevelPin],
    owned: Callable[[str], frozenset[str]],
    memo: dict[str, tuple[int, int] | None],
) -> tuple[list[Item], frozenset[tuple[int, int]]]:
    """``segments`` with every summary that overlaps a pinned range replaced by what it was made from
    until its level is at most the range's ``cap`` (the finest cap where ranges pinned at different
    levels share a summary), and the ``(start, end)`` of the items that overlap a range pinned at an
    exact level (frozen: the fold neither refines them nor counts them for its monotone rule). A range
    whose summaries at its level are not written yet renders at the coarsest level it has (a chunk not
    summarised yet, raw)."""
    overlapping = _overlaps(pins)
    exact = _overlaps([p for p in pins if p.level is not None])
    out: list[Item] = []
    frozen: set[tuple[int, int]] = set()

    def visit(item: Item) -> None:
        s = item.summary
        if s is not None and overlapping(item.start, item.end):
            cap = min(p.cap for p in pins if p.start < item.end and item.start < p.end)
            if s.level > cap:
                kids = children(view, log, item, owned, memo)
                if kids is not None:
                    for kid in kids:
                        visit(kid)
                    return
        if s is not None and exact(item.start, item.end):
            frozen.add((item.start, item.end))
        out.append(item)

    for seg in segments:
        visit(seg)
    return out, frozenset(frozen)


RAW_LEFT_OUT = "not summarised yet; left out to fit the budget (overflow='window')"
"""Why ``overflow="window"`` left raw messages out."""
SUMMARY_LEFT_OUT = "summarised; left out to fit the newest messages in the budget (overflow='window')"
"""Why ``overflow="window"`` left a summary out (only when the newest messages need its room)."""


def _window(
    view: MessageView,
    lay: Layout,
    segments: list[Item],
    fixed: int,
    budget: int,
    pair_cost: Callable[[Summary], int],
    recent: int | None = None,
    keep: Callable[[int, int], bool] = lambda a, b: False,
) -> tuple[list[Item], int, list[tuple[int, int, str]]]:
    """Leave out the oldest parts outside the head until ``fixed`` fits ``budget``, the newest last
    (never an item for which ``keep(start, end)`` is true: a pinned range):

    1. the oldest raw messages not summarised yet before the recent window (from ``recent``);
    2. then the oldest summaries (what the recent window needs room for is newer than any of them);
    3. then the oldest raw messages of the recent window, never the newest tool unit (a sharded newest
       message is one unit with the summaries of its first shards).

    Raw messages leave as whole tool units only, and a sharded message whole (:func:`_whole_messages`).
    The head window stays (the compiler excerpts it last).
    """
    from ...views import continues_message, newest_unit_start

    keep_from = newest_unit_start(view, lay.n)
    while continues_message(view, keep_from):
        keep_from -= 1  # a sharded newest message, partly summarised: the newest unit is all of it
    first_from = keep_from if recent is None else min(keep_from, max(recent, lay.head_end))
    omitted: list[tuple[int, int, str]] = []
    segments, fixed = _leave_out_raw(view, lay, segments, fixed, budget, first_from, omitted, keep)
    if fixed > budget:
        kept: list[Item] = []
        for item in segments:
            if (
                fixed > budget
                and item.summary is not None
                and item.end <= keep_from  # (a summary of the newest message's first shards stays)
                and not keep(item.start, item.end)
            ):
                omitted.append((item.start, item.end, SUMMARY_LEFT_OUT))
                fixed -= pair_cost(item.summary)
            else:
                kept.append(item)
        segments = kept
    if fixed > budget and first_from < keep_from:
        segments, fixed = _leave_out_raw(view, lay, segments, fixed, budget, keep_from, omitted, keep)
    if omitted:
        segments, fixed = _whole_messages(view, segments, fixed, pair_cost, keep_from, omitted, keep)
    omitted.sort()
    return segments, fixed, omitted


def _whole_messages(
    view: MessageView,
    segments: list[Item],
    fixed: int,
    pair_cost: Callable[[Summary], int],
    keep_from: int,
    omitted: list[tuple[int, int, str]],
    keep: Callable[[int, int], bool],
) -> tuple[list[Item], int]:
    """Leave out the rest of a sharded message whose start was left out (see
    :mod:`~context_journal.sharding`): the raw shards and the summaries within it that follow a left-out
    span (the window never reads a message from half-way: a review saw the summaries of a document's
    first 11 shards left out as the oldest summaries while its last 4 shards stayed raw, read from
    "## Section 9"). A summary that starts inside the message is left out whole, also when it reaches
    past it (it is the oldest part left, and kept it could be refined into the message's raw tail); the
    newest tool unit (from ``keep_from``) and pinned ranges stay. Appends to ``omitted``."""
    from ...views import continues_message

    ends = {b for _, b, _ in omitted}
    out: list[Item] = []
    for item in segments:
        a, b = item.start, item.end
        if a not in ends or a >= keep_from or item.omitted or keep(a, b) or not continues_message(view, a):
            out.append(item)
            continue
        g = a + 1
        while g < len(view) and continues_message(view, g):
            g += 1  # the first position after the message
        if item.summary is not None:  # (it is the oldest part left: the window leaves it out whole)
            omitted.append((a, b, SUMMARY_LEFT_OUT))
            fixed -= pair_cost(item.summary)
            ends.add(b)
            continue
        cut = min(b, g, keep_from)
        omitted.append((a, cut, RAW_LEFT_OUT))
        fixed -= view.tokens(a, cut)
        ends.add(cut)
        if cut < b:
            out.append(Item(cut, b))
    return out, fixed


def _leave_out_raw(
    view: MessageView,
    lay: Layout,
    segments: list[Item],
    fixed: int,
    budget: int,
    keep_from: int,
    omitted: list[tuple[int, int, str]],
    keep: Callable[[int, int], bool] = lambda a, b: False,
) -> tuple[list[Item], int]:
    """Leave out the oldest raw messages outside the head and before ``keep_from`` (whole tool units and
    whole sharded messages: :func:`~context_journal.views.window_cut_within`)
    until ``fixed`` fits ``budget``, never from an item for which ``keep(start, end)`` is true; appends
    what left to ``omitted``."""
    from ...views import window_cut_within

    kept: list[Item] = []
    for item in segments:
        if fixed <= budget or item.summary is not None or keep(item.start, item.end):
            kept.append(item)
            continue
        pieces = (
            (item.start, min(item.end, lay.head_start), True),
            (max(item.start, lay.head_start), min(item.end, lay.head_end), False),
            (max(item.start, lay.head_end), item.end, True),
        )
        for a, b, droppable in pieces:
            if b <= a:
                continue
            limit = min(b, max(a, keep_from))
            if not droppable or fixed <= budget or limit <= a:
                kept.append(Item(a, b))
                continue
            cut = first_at_least(view, a, limit, fixed - budget) or limit
            cut = window_cut_within(view, cut, limit)
            if cut <= a:
                kept.append(Item(a, b))
                continue
            omitted.append((a, cut, RAW_LEFT_OUT))
            fixed -= view.tokens(a, cut)
            if cut < b:
                kept.append(Item(cut, b))
    return kept, fixed


def _item(log: CompressionLog, node: Node) -> Item:
    if node.kind == "chunk":
        return Item(node.start, node.end)
    return Item(node.start, node.end, log.summaries[node.id])


def to_entries(
    items: Sequence[Item],
    marker_text: Callable[[Summary], str],
    summary_participant: str,
    marker_participant: str,
    breakpoint_at: Collection[int] = (),
) -> tuple[ContextEntry, ...]:
    """Entries of a folded cover: adjacent raw items joined into one span, summaries as recall pairs
    (the pair of each ``items[k]``, ``k`` in ``breakpoint_at``, asks for a prompt-cache breakpoint after
    it)."""
    out: list[ContextEntry] = []
    raw_start: int | None = None
    raw_end = 0
    for k, item in enumerate(items):
        if item.omitted:
            if raw_start is not None:
                out.append(RawSpan(raw_start, raw_end))
                raw_start = None
            text = gap_note(item.end - item.start)
            out.append(
                RenderedEntry(
                    NOTE_PARTICIPANT,
                    ({"type": "text", "text": text},),
                    kind="note",
                    role="user",
                    cache_breakpoint=k in breakpoint_at,
                )
            )
            continue
        if item.summary is None:
            if raw_start is not None and item.start == raw_end:
                raw_end = item.end
            else:
                if raw_start is not None:
                    out.append(RawSpan(raw_start, raw_end))
                raw_start, raw_end = item.start, item.end
            continue
        if raw_start is not None:
            out.append(RawSpan(raw_start, raw_end))
            raw_start = None
        s = item.summary
        out.extend(
            recall_pair(
                s.text,
                marker_text(s),
                summary_participant,
                marker_participant,
                (item.start, item.end),
                (SummaryRef(s.id, s.level),),
                k in breakpoint_at,
            )
        )
    if raw_start is not None:
        out.append(RawSpan(raw_start, raw_end))
    return tuple(out)
