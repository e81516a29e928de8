"""The compression queue: which summaries are owed, in what order, and which are waiting or stuck.

The queue is not stored: it is derived from the folded log and the view each time the driver
prepares (chunks without a summary, runs of adjacent unmerged summaries), so it can never disagree with
what is stored. Only failures are stored (``attempt/<key>`` records), which gives the retry state:

* **ready**: never failed, or its backoff has passed;
* **waiting**: failed ``k`` times, ``k < max_attempts``, retried after ``retry_base_seconds * 2**(k-1)``;
* **stuck**: failed ``max_attempts`` times; listed by ``pending_work()``, no longer retried (raising
  ``max_attempts`` lets it retry). A compile still covers its messages raw or by older summaries.

Order: merges first, oldest first (so the top of the tree stays small while a long history is
drained), then chunk summaries oldest first (so a request finds the summaries before its chunk).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from .chunking import last_within, results_only
from .records import Attempt, ChunkRecord, merge_id
from .state import Root

if TYPE_CHECKING:
    from ...views import MessageView
    from .config import AutobiographicalConfig
    from .state import CompressionLog

__all__ = ["PendingItem", "PendingWork", "Queue", "WorkItem", "merge_items", "split_parts", "status_of"]

Status = Literal["ready", "waiting", "stuck"]


@dataclass(frozen=True)
class WorkItem:
    """One summary owed.

    Attributes:
        key: Stable key (``chunk:<id>``, ``chunk:<id>:<first>-<last>`` for a part, ``merge:<id>``).
        kind: ``"chunk"``, ``"part"`` or ``"merge"``.
        level: Level of the summary it makes.
        first_seq: Created sequence of the first message summarised.
        last_seq: Created sequence of the last message summarised.
        target_tokens: Size asked.
        chunk_id: The chunk (chunk and part items).
        source_ids: The summaries merged (merge items).
        part: ``(index, count)`` of a part.
        parts: Created-sequence ranges of every part of the chunk (part items).
    """

    key: str
    kind: Literal["chunk", "part", "merge"]
    level: int
    first_seq: int
    last_seq: int
    target_tokens: int
    chunk_id: str | None = None
    source_ids: tuple[str, ...] = ()
    part: tuple[int, int] | None = None
    parts: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class PendingItem:
    """A work item as :meth:`pending_work` reports it.

    Attributes:
        key: The work item's key.
        kind: ``"chunk"``, ``"part"`` or ``"merge"``.
        level: Level of the summary it makes.
        first_message_id: First message it summarises (None when not in the view).
        last_message_id: Last message it summarises.
        status: ``"ready"``, ``"waiting"`` or ``"stuck"``.
        attempts: Failed attempts so far.
        last_error: The last failure, or None.
        next_attempt_at: When it may be retried (seconds since the epoch), or None.
    """

    key: str
    kind: str
    level: int
    first_message_id: str | None
    last_message_id: str | None
    status: Status
    attempts: int = 0
    last_error: str | None = None
    next_attempt_at: float | None = None


@dataclass(frozen=True)
class PendingWork:
    """Compression work not done yet, on this namespace and branch.

    Attributes:
        ready: Items a ``tick()`` would do now, in order.
        waiting: Items waiting for their retry backoff.
        stuck: Items that failed ``max_attempts`` times (no longer retried).
        held: Message ids under a compression hold (no chunk closes at or after them).
        unchunked_tokens: Tokens of the middle not yet closed into a chunk (outside the recent window
            they will close as soon as a chunk is full).
    """

    ready: tuple[PendingItem, ...] = ()
    waiting: tuple[PendingItem, ...] = ()
    stuck: tuple[PendingItem, ...] = ()
    held: tuple[str, ...] = ()
    unchunked_tokens: int = 0
    items: tuple[WorkItem, ...] = field(default=(), repr=False)

    def __len__(self) -> int:
        return len(self.ready) + len(self.waiting) + len(self.stuck)

    @property
    def pending(self) -> int:
        """Items that will still be worked on (ready or waiting)."""
        return len(self.ready) + len(self.waiting)

    @property
    def why_unsummarised(self) -> Literal["pending", "held", "stuck", "filling"]:
        """Why messages of the middle no summary covers stay so: ``pending`` (work is ready or waiting:
        a drain summarises them), ``held`` (a compression hold keeps chunks from closing at and after
        :attr:`held`), ``stuck`` (their summary calls failed ``max_attempts`` times), else ``filling``
        (their chunk is not full yet: smaller chunks or a larger budget keep them)."""
        if self.pending:
            return "pending"
        if self.held:
            return "held"
        return "stuck" if self.stuck else "filling"

    @property
    def next_attempt_at(self) -> float | None:
        """Earliest retry time among the waiting items, or None."""
        times = [i.next_attempt_at for i in self.waiting if i.next_attempt_at is not None]
        return min(times) if times else None

    def to_dict(self) -> dict[str, object]:
        """JSON form (counts and the items)."""

        def rows(items: Sequence[PendingItem]) -> list[dict[str, object]]:
            return [dict(i.__dict__) for i in items]

        return {
            "ready": rows(self.ready),
            "waiting": rows(self.waiting),
            "stuck": rows(self.stuck),
            "held": list(self.held),
            "unchunked_tokens": self.unchunked_tokens,
        }


def split_parts(view: MessageView, start: int, end: int, budget: int) -> list[tuple[int, int]]:
    """Cut ``[start, end)`` into consecutive parts of at most ``budget`` tokens at tool-unit starts (a
    single unit over the budget is a part of its own)."""
    parts: list[tuple[int, int]] = []
    s = start
    while s < end:
        if view.tokens(s, end) <= budget:
            parts.append((s, end))
            break
        e = last_within(view, s, end, budget)
        while s < e < end and results_only(view, e):
            e -= 1  # never split a call from its results
        if e <= s:  # the first unit alone is over the budget: it is a part of its own
            e = s + 1
            while e < end and results_only(view, e):
                e += 1
        parts.append((s, e))
        s = e
    return parts


def status_of(attempt: Attempt | None, now: float, max_attempts: int) -> tuple[Status, int, str | None, float | None]:
    """``(status, attempts, last error, next attempt time)`` of a work item from its failures."""
    if attempt is None:
        return "ready", 0, None, None
    if attempt.attempts >= max_attempts:
        return "stuck", attempt.attempts, attempt.error, None
    if attempt.next_at > now:
        return "waiting", attempt.attempts, attempt.error, attempt.next_at
    return "ready", attempt.attempts, attempt.error, attempt.next_at


def merge_items(log: CompressionLog, config: AutobiographicalConfig) -> list[WorkItem]:
    """Merges owed: runs of adjacent unmerged summaries of one level, ``merge_threshold`` at a time
    from the run's oldest end. O(unmerged summaries), no view reads (adjacency is recorded with the
    chunks)."""
    items: list[WorkItem] = []
    run: list[Root] = []
    k = config.merge_threshold

    def flush() -> None:
        for g in range(0, len(run) - k + 1, k):
            group = run[g : g + k]
            level = group[0].level + 1
            ids = tuple(r.id for r in group)
            items.append(
                WorkItem(
                    f"merge:{merge_id(level, ids)}",
                    "merge",
                    level,
                    group[0].first_seq,
                    group[-1].last_seq,
                    config.level_target(level),
                    source_ids=ids,
                )
            )
        run.clear()

    for root in log.summary_roots():
        if run and (run[-1].level != root.level or not log.roots_adjacent(run[-1], root)):
            flush()
        run.append(root)
    flush()
    return items


def _stored_positions(view: MessageView) -> Callable[[int], int] | None:
    """For a view of one slot: the append position in that slot of the first message created at or after
    a sequence (removed messages counted: positions are never reused). None for a view of several slots."""
    from ...views import MergedView, ReaderView, StoreView

    if isinstance(view, MergedView):
        if view.auxiliary:
            return None
    elif not isinstance(view, StoreView | ReaderView):
        return None
    rows = view.message_store.rows
    return lambda seq: bisect.bisect_left(rows, seq, key=lambda e: e.created_seq)


class Queue:
    """The work owed, derived from the log: merges first (they keep the top of the tree small), then
    chunk summaries oldest first. Cheap to build (O(roots) without view reads); the full report
    (:meth:`pending_work`) is built only when asked for.

    Args:
        log: The folded records.
        config: The settings (retry limits).
        now: The time retries are judged against.
        chunk_target: Size asked of a chunk's summary.
        held: Message ids under a hold.
        unchunked_tokens: Tokens of the middle not closed into chunks yet.
        off_path: Chunks whose messages this view does not hold (not work here); the strategy's own set,
            which grows as the chunks ready are expanded, so reports made after that leave out the
            chunks found off the path there.
    """

    def __init__(
        self,
        log: CompressionLog,
        config: AutobiographicalConfig,
        now: float,
        chunk_target: Callable[[ChunkRecord], int],
        held: tuple[str, ...] = (),
        unchunked_tokens: int = 0,
        off_path: AbstractSet[str] = frozenset(),
    ) -> None:
        self.log = log
        self.config = config
        self.now = now
        self.chunk_target = chunk_target
        self.held = held
        self.unchunked_tokens = unchunked_tokens
        self.off_path = off_path
        self.merges = merge_items(log, config)
        self._merge_keys = {m.key for m in self.merges}
        self._chunk_seqs = log.unsummarised  # read-only here; the log only changes between prepares

    def status(self, key: str) -> tuple[Status, int, str | None, float | None]:
        return status_of(self.log.attempts.get(key), self.now, self.config.max_attempts)

    def _chunk_item(self, first_seq: int) -> WorkItem | None:
        chunk = self.log.chunks.get(self.log._chunk_at.get(first_seq, ""))
        if chunk is None or chunk.id in self.off_path or chunk.id in self.log.l1_of:
            return None
        return WorkItem(
            f"chunk:{chunk.id}", "chunk", 1, chunk.first_seq, chunk.last_seq, self.chunk_target(chunk), chunk.id
        )

    def items(self) -> Iterator[WorkItem]:
        """Every item, in the order they are worked on."""
        yield from self.merges
        for seq in self._chunk_seqs:
            item = self._chunk_item(seq)
            if item is not None:
                yield item

    def ready(self) -> Iterator[WorkItem]:
        """The ready items, in order (lazily)."""
        for item in self.items():
            if self.status(item.key)[0] == "ready":
                yield item

    def _current(self, key: str) -> bool:
        if key.startswith("merge:"):
            return key in self._merge_keys
        if key.startswith("chunk:"):
            cid = key.split(":")[1]
            return cid in self.log.chunks and cid not in self.log.l1_of and cid not in self.off_path
        return False

    def counts(self) -> tuple[int, int, int, float | None]:
        """``(ready, waiting, stuck, next retry time)`` without listing the items."""
        off = sum(1 for c in self.off_path if c in self.log.chunks and c not in self.log.l1_of)
        total = len(self.merges) + len(self._chunk_seqs) - off
        waiting = stuck = 0
        next_at: float | None = None
        counted: set[str] = set()
        for key, attempt in self.log.attempts.items():
            if not self._current(key):
                continue
            chunk_key = ":".join(key.split(":")[:2])
            if chunk_key in counted:
                continue
            state, _, _, at = status_of(attempt, self.now, self.config.max_attempts)
            if state == "ready":
                continue
            counted.add(chunk_key)
            if state == "waiting":
                waiting += 1
                next_at = at if next_at is None or (at is not None and at < next_at) else next_at
            else:
                stuck += 1
        return max(0, total - waiting - stuck), waiting, stuck, next_at

    def _stuck_chunks(self) -> set[str]:
        """Ids of the chunks whose summary, or a part of it, failed its last attempt (O(attempts))."""
        stuck: set[str] = set()
        for key, attempt in self.log.attempts.items():
            kind, _, rest = key.partition(":")
            if kind == "chunk" and status_of(attempt, self.now, self.config.max_attempts)[0] == "stuck":
                stuck.add(rest.split(":")[0])
        return stuck

    def lag(self, view: MessageView) -> tuple[int, int]:
        """``(chunks, tokens)`` of the chunk summaries that are ready or waiting, as :meth:`pending_work`
        lists them, without listing them: the chunks, and the tokens of ``view``'s messages appended
        from each one's first created sequence through its last (the chunk's span, as a compile finds
        it: a removed or hidden end message leaves the rest counted).

        A run of unsummarised chunks is priced as one span when nothing of the view can lie between
        them: no other chunk lies between them, and the view's slot holds exactly the messages the
        chunks were closed over from the run's first sequence to its last (a message hidden from the
        view the chunks closed in, by a filter or an audience, may show in this one between two chunks
        that were closed as adjacent; a gap no chunk was closed over holds messages too). Runs are
        found by halving the sorted list of unsummarised chunks, so a history never summarised costs
        O(log chunks), not O(chunks) (a failing compile names this lag: listing 64,000 chunks took
        0.8 s at 200,000 messages). A view of several slots (auxiliary views) is priced chunk by chunk."""
        log = self.log
        with log.lock:
            seqs: Sequence[int] = self._chunk_seqs
            excluded = {c for c in self.off_path if c in log.chunks and c not in log.l1_of} | self._stuck_chunks()
            if excluded:
                seqs = [s for s in seqs if log._chunk_at[s] not in excluded]
            keys = log._chunk_keys
            stored = _stored_positions(view)
            total = 0
            spans = [(0, len(seqs))]
            while spans:
                i, j = spans.pop()
                if i >= j:
                    continue
                a, b = seqs[i], seqs[j - 1]
                last = log.chunks[log._chunk_at[b]]
                whole = j - i == 1
                if not whole and stored is not None:
                    # No summarised chunk between them, and no message of the slot outside them.
                    lo, hi = bisect.bisect_left(keys, a), bisect.bisect_left(keys, b) + 1
                    whole = hi - lo == j - i and stored(last.last_seq + 1) - stored(a) == log.chunk_messages(lo, hi)
                if whole:
                    total += view.tokens(view.index_at_sequence(a), view.index_at_sequence(last.last_seq + 1))
                else:
                    m = (i + j) // 2
                    spans += [(i, m), (m, j)]
            return len(seqs), total

    def pending_work(self) -> PendingWork:
        """The full report (O(items))."""
        rows: dict[str, list[PendingItem]] = {"ready": [], "waiting": [], "stuck": []}
        ready_items: list[WorkItem] = []
        for item in self.items():
            keys = [item.key]
            if item.kind == "chunk":  # a chunk summarised in parts reports its current part's failures
                prefix = item.key + ":"
                keys += [k for k in self.log.attempts if k.startswith(prefix)]
            worst = max((self.status(k) for k in keys), key=lambda s: ("ready", "waiting", "stuck").index(s[0]))
            state, attempts, error, next_at = worst
            first_id, last_id = self._ids(item)
            rows[state].append(
                PendingItem(item.key, item.kind, item.level, first_id, last_id, state, attempts, error, next_at)
            )
            if state == "ready":
                ready_items.append(item)
        return PendingWork(
            tuple(rows["ready"]),
            tuple(rows["waiting"]),
            tuple(rows["stuck"]),
            self.held,
            self.unchunked_tokens,
            tuple(ready_items),
        )

    def _ids(self, item: WorkItem) -> tuple[str | None, str | None]:
        if item.chunk_id is not None:
            chunk = self.log.chunks[item.chunk_id]
            return chunk.first_id, chunk.last_id
        first, last = self.log.summaries.get(item.source_ids[0]), self.log.summaries.get(item.source_ids[-1])
        return (first.first_message_id if first else None), (last.last_message_id if last else None)
