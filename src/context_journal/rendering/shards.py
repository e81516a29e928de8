"""Re-joining a sharded message at render: the consecutive raw shards of one body group become one
provider message again (see :mod:`context_journal.sharding`).

A run joins when its shards follow each other in the rendered list as plain messages no repair pass
changed (an excerpted or otherwise altered shard stays a message of its own, as do shards the strategy
did not keep raw: their summaries stand for them). The joined message is the first shard's
:class:`~.repairs.Work` (its participant name prefix included) with the other shards' pieces put back
in place; its provenance lists every shard it holds.

The newest message is different: when it is a sharded message no summary stands for any part of yet,
the compile reads it as the one message it was written as (:func:`fold_newest_group`), so it is priced,
kept and excerpted whole, head and tail, as an unsharded newest message is. Compiled shard by shard, a
tight budget kept its last shards and cut its first, where the question usually is.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..sharding import group_of, join_content, join_group, layout_of
from ..views import checked_index
from .repairs import QUOTED_DETAIL, Pass, Repair, Source, Work, quote_markers

if TYPE_CHECKING:
    from ..messages import Message
    from ..tokens import TokenCounter
    from ..views import MessageView, ViewEntry

__all__ = ["NewestGroupView", "fold_newest_group", "join_shard_runs", "newest_group_start"]

Layout = Callable[[str, int], "tuple[list[dict[str, Any]], dict[str, Any]] | None"]
"""``(stored blocks, layout)`` of a message version by id and sequence (None: no shard, or not known)."""


def _joinable(m: Work, p: Pass) -> bool:
    return m.kind == "message" and m.origin is not None and m.sequence is not None and m.origin not in p.altered


def join_shard_runs(work: list[Work], p: Pass, layout: Layout, count: Callable[[Work], int]) -> list[Work]:
    """``work`` with each run of consecutive unaltered raw shards of one group joined into one message
    (``layout``: the stored blocks and shard layout of a message version; ``count``: the tokens of a
    work message). A run whose joined message would count more tokens than its shards (never seen: one
    message has one overhead where the shards have one each) stays as it is, so a join never breaks
    the budget the shards were priced in."""
    out: list[Work] = []
    run: list[tuple[Work, list[dict[str, Any]], list[int]]] = []
    group: str | None = None
    index = -1  # the shard number of the run's last shard

    def flush() -> None:
        if len(run) == 1:
            out.append(run[0][0])
        elif run:
            first = run[0][0]
            # The first shard as rendered (a name prefix stays on it), the others as stored.
            parts = [(first.blocks, run[0][2]), *((blocks, lay) for _, blocks, lay in run[1:])]
            priced = sum(count(m) for m, _, _ in run)
            # A cut marker the message quotes across a seam is opened once joined (each shard was alone).
            blocks = join_content(parts)
            quoted = quote_markers(blocks)
            joined = replace(first, blocks=blocks if quoted is None else quoted, tokens=None)
            joined.tokens = count(joined)
            if joined.tokens > priced:
                out.extend(m for m, _, _ in run)
                run.clear()
                return
            first = joined
            first.breakpoint = any(m.breakpoint for m, _, _ in run)
            first.sources = [
                *first.sources,
                *(Source("message", m.origin, m.sequence) for m, _, _ in run[1:] if m.origin is not None),
            ]
            # One repair for the message, not one for each shard that quoted a marker.
            shards = {m.origin for m, _, _ in run}
            said = [r for r in p.repairs if r.kind == "cut_marker_quoted" and r.message_id in shards]
            if said or quoted is not None:
                p.repairs[:] = [r for r in p.repairs if r not in said]
                p.repairs.append(Repair("cut_marker_quoted", first.origin, QUOTED_DETAIL))
            out.append(first)
        run.clear()

    for m in work:
        found = layout(m.origin, m.sequence) if _joinable(m, p) and m.origin and m.sequence else None
        if found is not None and not len(m.blocks) == len(found[0]) == len(found[1].get("blocks") or ()):
            found = None  # a repair changed its blocks (a blank one dropped): sent as it is
        g = None if found is None else str(found[1].get("group"))
        k = None if found is None else found[1].get("index")
        if (
            g is not None
            and found is not None
            and g == group
            and k == index + 1
            and m.participant == run[-1][0].participant
        ):
            run.append((m, found[0], list(found[1].get("blocks") or ())))
            index = k
            continue
        flush()
        group, index = g, k if isinstance(k, int) else -1
        if found is None:
            out.append(m)
        else:
            run.append((m, found[0], list(found[1].get("blocks") or ())))
    flush()
    return out


def newest_group_start(view: MessageView) -> int | None:
    """Where the newest message's shard group starts, when the view ends with every shard of it the view
    shows (two at least, in order, one participant; a reader's view may lack shards that hold none of its
    blocks); None otherwise (the newest message is no shard). Reads the newest message's body only."""
    n = len(view)
    if n < 2:
        return None
    last = view.entry(n - 1)
    group, index = group_of(last.id)
    if index < 2:  # no shard, or a first shard with nothing after it: nothing to join (no body read)
        return None
    layout = layout_of(view.message(n - 1).metadata)
    if layout is None or str(layout.get("group")) != group:
        return None
    start = n - 1
    while start > 0 and index > 1:
        e = view.entry(start - 1)
        g, k = group_of(e.id)
        if g != group or k >= index or e.participant != last.participant:
            break
        start, index = start - 1, k
    return start if start < n - 1 else None


class NewestGroupView:
    """``base`` with its last messages, the whole shard group of its newest message from ``start`` on,
    shown as the one message they were written as (:func:`~context_journal.sharding.join_group`: the group
    id, the newest shard's sequence, the first shard's created sequence), priced by ``counter``.

    Positions before ``start`` are ``base``'s; position ``start`` is the joined message and the last one.
    """

    def __init__(self, base: MessageView, start: int, counter: TokenCounter) -> None:
        self.base = base
        self.start = start
        self.shards = base.entries(start)
        self.joined: Message = join_group(base.messages(start))
        tokens = counter.count_message(self.joined.participant, self.joined.content_dicts())
        kinds = tuple(b.type for b in self.joined.content)
        first = self.shards[0]
        self.folded = first._replace(kinds=kinds, sequence=self.joined.sequence, tokens=tokens)

    def __len__(self) -> int:
        return self.start + 1

    def credit(self, work: list[Work], p: Pass) -> None:
        """Name every shard in the provenance of the joined message in ``work`` (after every cut): the
        first shard's version as its own source, the others after it, each complete when the message
        was sent uncut (as a message of its own, or merged into another turn)."""
        key = (self.folded.id, self.folded.sequence)
        for m in work:
            if (m.origin, m.sequence) == key:
                whole = m.origin not in p.altered
                m.sequence = self.shards[0].sequence
                m.sources = [*m.sources, *(Source("message", e.id, e.sequence, whole) for e in self.shards[1:])]
                continue
            for k, src in enumerate(m.sources):
                if src.kind == "message" and (src.id, src.sequence) == key:
                    whole = src.complete and src.id not in p.altered
                    shards = [Source("message", e.id, e.sequence, whole) for e in self.shards]
                    m.sources = [*m.sources[:k], *shards, *m.sources[k + 1 :]]
                    break

    def _clip(self, start: int, end: int | None) -> tuple[int, int]:
        n = len(self)
        end = n if end is None else min(max(end, 0), n)
        return min(max(start, 0), end), end

    def tokens(self, start: int = 0, end: int | None = None) -> int:
        a, b = self._clip(start, end)
        out = self.base.tokens(a, min(b, self.start)) if a < self.start else 0
        return out + (self.folded.tokens if a <= self.start < b else 0)

    def suffix_start(self, budget: int, end: int | None = None) -> int:
        _, b = self._clip(0, end)
        if b <= self.start:
            return self.base.suffix_start(budget, b)
        left = budget - self.folded.tokens
        if left < 0:
            return len(self)  # not even the joined message fits (as a store view says)
        return self.base.suffix_start(left, self.start)

    def entry(self, index: int) -> ViewEntry:
        index = checked_index(index, len(self))
        return self.folded if index == self.start else self.base.entry(index)

    def entries(self, start: int = 0, end: int | None = None) -> list[ViewEntry]:
        a, b = self._clip(start, end)
        out = self.base.entries(a, min(b, self.start)) if a < self.start else []
        return [*out, self.folded] if a <= self.start < b else out

    def iter_reverse(self, end: int | None = None) -> Iterator[ViewEntry]:
        """Entries from ``end - 1`` down to 0, lazily."""
        _, b = self._clip(0, end)
        for i in range(b - 1, -1, -1):
            yield self.entry(i)

    def message(self, index: int) -> Message:
        e = self.entry(index)
        return self.joined if e is self.folded else self.base.message(e.position)

    def messages(self, start: int = 0, end: int | None = None) -> list[Message]:
        return self.messages_for(self.entries(start, end))

    def messages_for(self, entries: Sequence[ViewEntry]) -> list[Message]:
        rest = iter(self.base.messages_for([e for e in entries if e is not self.folded]))
        return [self.joined if e is self.folded else next(rest) for e in entries]

    def index_of(self, message_id: str) -> int | None:
        i = self.base.index_of(message_id)
        return None if i is None or i > self.start else i

    def tokens_of(self, message_id: str) -> int | None:
        i = self.index_of(message_id)
        return None if i is None else self.entry(i).tokens

    def index_at_sequence(self, created_sequence: int) -> int:
        if created_sequence > self.folded.created_sequence:
            return len(self)  # appended after the group's first shard: only its later shards were
        return min(self.base.index_at_sequence(created_sequence), self.start)


def fold_newest_group(
    view: MessageView,
    counter: TokenCounter,
    kept: Collection[str],
    summarised: Callable[[int, int], bool],
) -> NewestGroupView | None:
    """``view`` with its newest message's shard group read as one message (:class:`NewestGroupView`), or
    None when the newest message is no whole group, one of its shards is among ``kept`` (pinned, held, a
    document or marked as newest: addressed by shard, or rendered by the strategy itself), or
    ``summarised(start, end)`` says a summary stands for a shard at those view positions (shown or left
    out: the group is compressed like messages, and its raw rest is kept as shards). Recall bringing
    shards back does not count: read whole, the message is in the context, and a recall finds no shard
    of it outside (a hit in it is in the context, as for an unsharded message)."""
    start = newest_group_start(view)
    if start is None:
        return None
    if any(e.id in kept for e in view.entries(start)) or summarised(start, len(view)):
        return None
    return NewestGroupView(view, start, counter)
