"""Prefix-stable layouts: each compile starts from the layout the previous compile chose (bug case B49).

A provider's prompt cache reads back the longest prefix of a request that an earlier request marked
and sent byte for byte. A fresh fold (:func:`.folding.cover`) chooses the finest level that fits anew at
every compile, so each new summary and each turn's cut rewrites the prompt near its start and the cache
never hits. Here the layout is kept instead:

* **The layout** is the list of items a compile rendered (raw runs and summaries), stored in the
  namespace's state on the branch (:data:`LAYOUT_STATE`) by the created sequence of each item's first
  message, with the budget it was made for (one layout per budget, for the last four budgets used); the
  last raw run is open-ended. It is written only when it
  changes (at a compaction), so between compactions a compile writes nothing. Stored per namespace and
  branch, it is safe across readers (a namespace belongs to one reader) and branches (a fork starts from
  its parent's layout and then goes its own way), and a compile stays a function of the store.
* **A compile** maps the stored items onto the view (:func:`decode`) and appends the new messages to the
  last raw run. When that fits the budget it is the selection: the prompt only grows at its end.
* **A compaction** (:func:`compact`), when it does not fit, keeps the longest prefix of the items that
  leaves enough room: from the newest item back, the first cut point where the items before it plus the
  coarsest cover of the rest fit ``(1 - prefix_headroom)`` of the budget (then the whole budget) is taken,
  and the rest is refined newest first within that. So new summaries replace the raw run at the end
  (the prompt changes from there on), and older summaries are merged (a change further up) only when
  that is not enough. The headroom leaves the next turns room to grow before the next compaction, so
  the cut points move in steps, not every turn.
* **When compression lags** (not even the coarsest cover fits: chunks not summarised yet), the compiler
  would cut the oldest raw messages just enough, a little more every turn. Instead :func:`squeeze` keeps
  the longest prefix it can and leaves out the oldest raw messages at the end (after the head, never the
  recent window or the newest tool unit) in one step with the same headroom, as one omitted span: a
  short note of fixed text stands for it and the compile reports it in ``omitted``. Once those messages
  are summarised (:func:`first_recoverable`), the next compile puts the summaries in the note's place.
* **The cache breakpoints** go after the newest summary (or note) before the raw run at the end, where
  the next compaction most likely starts (new summaries replace the raw run), and after the summary
  before it, where it starts when it replaces the newest summary itself (:func:`breakpoint_index`;
  ``benchmarks/bench_prompt_cache.py --words 120``: with only the first, every other turn of a run with
  long turns lost the cache, 56% of turns at least half cached; with both, 82%).

A stored layout that no longer maps onto the view (a message removed, a summary that does not apply,
another budget) is ignored and the compile folds afresh.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .chunking import Layout, summary_span
from .folding import Item, children, coarsest, item_cost, refine
from .records import Summary

if TYPE_CHECKING:
    from ...views import MessageView
    from .state import CompressionLog

__all__ = [
    "LAYOUTS_KEPT",
    "LAYOUT_STATE",
    "OMITTED",
    "breakpoint_index",
    "compact",
    "decode",
    "encode",
    "layout_for",
    "layouts",
    "omit_oldest",
    "squeeze",
    "suffixes",
    "with_layout",
]

LAYOUT_STATE = "autobiographical/layout"
"""Namespace state: ``{"layouts": [{"budget": tokens, "items": [[first created sequence, summary id or
None], ...]}, ...]}``, the layout of the last compile at each of the last :data:`LAYOUTS_KEPT` budgets, the
newest used last (the last raw item runs to the end of the view). A state of one layout (written before
layouts were kept per budget) still reads."""

OMITTED = "-"
"""The stored kind of a span left out to fit (summary ids never take this value)."""

Owned = Callable[[str], frozenset[str]]
Memo = dict[str, tuple[int, int] | None]


def encode(view: MessageView, items: Sequence[Item], total: int) -> dict[str, Any]:
    """The stored form of ``items`` (adjacent raw items joined) for compiles of ``total`` tokens."""
    rows: list[list[Any]] = []
    for item in items:
        sid = OMITTED if item.omitted else item.summary.id if item.summary is not None else None
        if sid is None and rows and rows[-1][1] is None:
            continue
        rows.append([view.entry(item.start).created_sequence, sid])
    return {"budget": total, "items": rows}


LAYOUTS_KEPT = 4
"""Budgets whose layouts the state keeps (the newest used): a compile at another budget between two at the
same one (a preview, the CLI's inspection) replaced the one layout kept, and the next compile folded afresh
(a review: the turns reading half the prompt from the cache fell from 86% to 51% with one such compile a
turn)."""


def layouts(state: Any) -> list[Mapping[str, Any]]:
    """The stored layouts in ``state`` (``{"layouts": [...]}``, the newest used last; a state written before
    layouts were kept per budget is one layout, ``{"budget", "items"}``)."""
    if isinstance(state, Mapping):
        if isinstance(state.get("layouts"), list):
            return [v for v in state["layouts"] if isinstance(v, Mapping)]
        if "budget" in state:
            return [state]
    return []


def layout_for(state: Any, total: int) -> Mapping[str, Any] | None:
    """The layout ``state`` keeps for compiles of ``total`` tokens, or None."""
    return next((v for v in reversed(layouts(state)) if v.get("budget") == total), None)


def with_layout(state: Any, value: Mapping[str, Any]) -> dict[str, Any]:
    """``state`` with ``value`` as the layout of its budget, the newest used (at most :data:`LAYOUTS_KEPT`)."""
    kept = [v for v in layouts(state) if v.get("budget") != value.get("budget")]
    return {"layouts": [*kept, dict(value)][-LAYOUTS_KEPT:]}


def decode(
    view: MessageView, log: CompressionLog, value: Any, total: int, owned: Owned, memo: Memo
) -> list[Item] | None:
    """The stored layout for ``total`` in the state ``value`` (see :func:`layouts`) on ``view`` with the
    messages after it appended raw; None when there is none for ``total`` or it no longer maps onto the
    view."""
    value = layout_for(value, total)
    if value is None:
        return None
    rows = value.get("items")
    n = len(view)
    if not isinstance(rows, list) or not rows or n == 0:
        return None
    starts: list[int] = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == 2 and isinstance(row[0], int)):
            return None
        pos = view.index_at_sequence(row[0])
        if pos >= n or view.entry(pos).created_sequence != row[0] or (starts and pos <= starts[-1]):
            return None
        starts.append(pos)
    if starts[0] != 0:
        return None
    items: list[Item] = []
    for k, (row, a) in enumerate(zip(rows, starts, strict=True)):
        b = starts[k + 1] if k + 1 < len(starts) else None
        sid = row[1]
        if sid is None:
            items.append(Item(a, n if b is None else b))
            continue
        if sid == OMITTED:
            if b is None:
                return None
            items.append(Item(a, b, omitted=True))
            continue
        s = log.summaries.get(sid) if isinstance(sid, str) else None
        span = summary_span(view, log, s, owned, memo) if s is not None else None
        if s is None or span is None or span[0] != a or (b is not None and span[1] != b):
            return None
        items.append(Item(a, span[1], s))
        if b is None and span[1] < n:
            items.append(Item(span[1], n))
    return items


def _from(
    view: MessageView, log: CompressionLog, item: Item, start: int, owned: Owned, memo: Memo
) -> list[Item] | None:
    """The part of ``item`` from view position ``start`` on, at the coarsest level that splits there
    (None when a summary cannot be split there)."""
    if item.summary is None:
        return [Item(start, item.end)]
    kids = children(view, log, item, owned, memo)
    if kids is None:
        return None
    out: list[Item] = []
    for kid in kids:
        if kid.end <= start:
            continue
        if kid.start >= start:
            out.append(kid)
            continue
        part = _from(view, log, kid, start, owned, memo)
        if part is None:
            return None
        out.extend(part)
    return out


def suffixes(
    view: MessageView,
    log: CompressionLog,
    lay: Layout,
    items: Sequence[Item],
    pair_cost: Callable[[Summary], int],
    owned: Owned,
    memo: Memo,
    latest: int | None = None,
) -> Iterator[tuple[int, list[Item], int]]:
    """From the newest item (or ``items[latest]``) back: ``(k, rest, tokens of rest)``, ``rest`` the
    coarsest cover of the view from ``items[k]`` on (the items before ``k`` kept). Cost: O(roots) per
    step."""
    segments, _ = coarsest(view, log, lay, pair_cost)
    seg_starts = [s.start for s in segments]
    after = [0] * (len(segments) + 1)  # tokens of segments[j:]
    for j in range(len(segments) - 1, -1, -1):
        after[j] = after[j + 1] + item_cost(view, segments[j], pair_cost)
    top = len(items) - 1 if latest is None else min(latest, len(items) - 1)
    for k in range(top, -1, -1):
        start = items[k].start
        j = bisect.bisect_right(seg_starts, start) - 1
        if j < 0:
            continue
        if segments[j].start == start:
            yield k, list(segments[j:]), after[j]
            continue
        part = _from(view, log, segments[j], start, owned, memo)
        if part is not None:
            yield k, part + list(segments[j + 1 :]), after[j + 1] + sum(item_cost(view, p, pair_cost) for p in part)


def compact(
    view: MessageView,
    log: CompressionLog,
    lay: Layout,
    items: Sequence[Item],
    targets: Sequence[int],
    pair_cost: Callable[[Summary], int],
    owned: Owned,
    memo: Memo,
    note_cost: int = 0,
    latest: int | None = None,
) -> list[Item] | None:
    """``items`` compacted to the first of ``targets`` (tokens) it can fit, keeping the longest prefix of
    them (see the module docstring); None when none can be met. Cost: O(items × roots) at worst."""
    before = [0]  # tokens of items[:k]
    for item in items:
        before.append(before[-1] + item_cost(view, item, pair_cost) + (note_cost if item.omitted else 0))
    for target in targets:
        for k, rest, fixed in suffixes(view, log, lay, items, pair_cost, owned, memo, latest):
            if before[k] + fixed <= target:
                remaining = target - before[k] - fixed
                return list(items[:k]) + refine(view, log, rest, remaining, pair_cost, owned, memo)
    return None


def squeeze(
    view: MessageView,
    log: CompressionLog,
    lay: Layout,
    items: Sequence[Item],
    targets: Sequence[int],
    cost: Callable[[Sequence[Item]], int],
    keep_from: int,
    pair_cost: Callable[[Summary], int],
    owned: Owned,
    memo: Memo,
    note_cost: int,
    latest: int | None = None,
) -> list[Item] | None:
    """When compression lags (not even the coarsest cover fits): the longest prefix of ``items`` kept,
    the rest at its coarsest, and the oldest raw messages of the raw run at the end (after the head,
    before ``keep_from``) left out in one step, to the first of ``targets`` that can be met."""
    for target in targets:
        for k, rest, _ in suffixes(view, log, lay, items, pair_cost, owned, memo, latest):
            cover = list(items[:k]) + rest
            out = omit_oldest(view, cover, lay.head_end, keep_from, cost(cover) + note_cost - target)
            if out is not None and cost(out) <= target:
                return out
    return None


def first_recoverable(
    view: MessageView, log: CompressionLog, lay: Layout, items: Sequence[Item], pair_cost: Callable[[Summary], int]
) -> int | None:
    """Index of the first omitted item some of whose messages are summarised now (its note can give way
    to the summaries, and the rest of it is placed again: raw, or left out again when it still does not
    fit), or None. Some, not all: the newest messages of a span left out while compression lagged can
    stay unsummarised for good (the chunk still filling below its target), and waiting for all of them
    kept the summaries of the others out of every later compile (found by hypothesis with the windows
    changed between writes: five messages, four of them summarised, named "not summarised yet")."""
    gaps = [k for k, item in enumerate(items) if item.omitted]
    if not gaps:
        return None
    summarised = [(s.start, s.end) for s in coarsest(view, log, lay, pair_cost)[0] if s.summary is not None]
    for k in gaps:
        a, b = items[k].start, items[k].end
        if any(x < b and a < y for x, y in summarised):
            return k
    return None


def breakpoint_index(items: Sequence[Item]) -> tuple[int, ...]:
    """Indexes of the two newest summaries or omitted-span notes, newest first: the end of the stable
    part before the raw run at the end (where the next compaction most likely starts, as new summaries
    replace the raw run), and the item before it (where it starts when that compaction replaces the
    newest summary itself: a part summary grown, or children merged)."""
    out: list[int] = []
    for k in range(len(items) - 1, -1, -1):
        if items[k].summary is not None or items[k].omitted:
            out.append(k)
            if len(out) == 2:
                break
    return tuple(out)


def omit_oldest(view: MessageView, items: Sequence[Item], first: int, keep_from: int, excess: int) -> list[Item] | None:
    """``items`` with the oldest raw messages of the raw run at their end, from view position ``first`` on
    and before ``keep_from``, left out (whole tool units) until about ``excess`` tokens are gone, as one
    omitted span; None when nothing can be left out."""
    from ...views import window_cut_within
    from .chunking import first_at_least

    k = len(items)
    while k > 0 and items[k - 1].summary is None and not items[k - 1].omitted:
        k -= 1
    if k == len(items):
        return None
    start = max(items[k].start, first)
    if start >= keep_from:
        return None
    cut = first_at_least(view, start, keep_from, excess) or keep_from
    cut = window_cut_within(view, cut, keep_from)
    if cut <= start:
        return None
    out = list(items[:k])
    if items[k].start < start:
        out.append(Item(items[k].start, start))
    out.append(Item(start, cut, omitted=True))
    out.append(Item(cut, len(view)))
    return out
