"""The in-memory fold of a namespace's compression records on one branch (:class:`CompressionLog`).

The log reads the slot ``compression/<namespace>`` once and then only the records newer than the last
one it saw (nothing is read when the store's change token has not moved), so keeping it current costs
nothing per compile when compression is idle. Folding rules (first valid record wins, so two workers
writing the same thing agree):

* a chunk that overlaps an earlier chunk's sequence range is ignored;
* an L1 summary is kept only for a known chunk that has none yet;
* a merge is kept only when its sources are adjacent unmerged summaries of the level below, in order;
  it then becomes their parent;
* the newest version of an attempt, hold or head mark wins;
* a stale mark (a message edited or removed, :class:`~.records.StaleMark`) retires every summary part
  and summary that may have read the message before the change: each one ending at or after it (a
  request reads its own range, the opening messages, and earlier summaries as context, so it may
  carry the message's text whether it covers it or not) whose text is older than the change (its
  :attr:`~.records.Summary.read_bound`), and every merge above a retired summary. Their chunks count
  as unsummarised again and the merged neighbours become roots again; a summary or part arriving later
  that ends at or after a message changed after its text was read is ignored. So a compile never
  shows a summary of what a message no longer says, while the journal keeps every record.

The **roots** are what a compile starts from: the unmerged summaries and the chunks still without a
summary, in conversation order (by created sequence); every chunk is under exactly one root.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ...stores.base import Op, Record
from .records import Attempt, ChunkRecord, HeadMark, PartRecord, StaleMark, Summary, slot_for

if TYPE_CHECKING:
    from ...stores.base import Store
    from ..base import StrategyContext

__all__ = ["CompressionLog", "Root"]


def _discard_sorted(keys: list[Any], key: Any) -> None:
    """Remove ``key`` from the sorted list ``keys`` if it is there (O(log n) to find it)."""
    k = bisect.bisect_left(keys, key)
    if k < len(keys) and keys[k] == key:
        del keys[k]


@dataclass(frozen=True, slots=True)
class Root:
    """A top-level node: an unmerged summary or a chunk without a summary.

    Attributes:
        kind: ``"summary"`` or ``"chunk"``.
        id: Its id.
        first_seq: Created sequence of its first message.
        last_seq: Created sequence of its last message.
        level: The summary's level (0 for a chunk rendered raw).
    """

    kind: Literal["summary", "chunk"]
    id: str
    first_seq: int
    last_seq: int
    level: int


class CompressionLog:
    """Chunks, summaries and work bookkeeping of one namespace on one branch, folded from the store.

    Args:
        store: The record store.
        branch_id: The branch read.
        namespace: The namespace whose slot is read.
        inherit: ``(namespace, as_of)`` of a parent namespace whose records up to ``as_of`` are
            folded first (a derived context under another namespace), or None.
    """

    def __init__(self, store: Store, branch_id: int, namespace: str, inherit: tuple[str, int] | None = None) -> None:
        self.store = store
        self.branch_id = branch_id
        self.namespace = namespace
        self.slot = slot_for(namespace)
        self.inherit = inherit
        self.lock = threading.RLock()
        self.last_seq = 0
        self.version = 0
        self._token: int | None = None
        self.chunks: dict[str, ChunkRecord] = {}
        self._chunk_keys: list[int] = []  # first_seq of each chunk, sorted
        self._sizes: list[int] = [0]  # _sizes[k]: messages of the chunks before rank k (ranks below len - 1)
        self._chunk_at: dict[int, str] = {}
        self.summaries: dict[str, Summary] = {}
        self.l1_of: dict[str, str] = {}  # chunk id -> its L1 summary id
        self.unsummarised: list[int] = []  # first_seq of chunks without an L1, sorted
        self.parent: dict[str, str] = {}
        self._root_keys: list[int] = []
        self._roots: dict[int, Root] = {}
        self._summary_root_keys: list[int] = []  # first_seq of unmerged summaries, sorted
        self._untiled: dict[int, str | None] = {}  # first_seq of a chunk not tiled to the one before -> that one
        self.parts: dict[str, dict[tuple[int, int], PartRecord]] = {}
        self.attempts: dict[str, Attempt] = {}
        self.holds: dict[str, bool] = {}
        self.hold_expiry: dict[str, float] = {}  # message id -> epoch seconds its hold ends (timed holds)
        self.heads: list[HeadMark] = []
        self.items: set[str] = set()
        self._marks: list[tuple[int, int]] = []  # (change sequence, created sequence) of each stale mark, sorted
        self._by_end: list[tuple[int, str]] = []  # (last sequence, id) of every summary kept, sorted
        self.retired = 0
        """How many summaries and parts stale marks retired so far (a retired summary's id may come back
        with new text: caches keyed by summary id check the text)."""
        self._loaded_inherit = False

    # ---- reading ---------------------------------------------------------------------------------

    def refresh(self) -> bool:
        """Fold the records written since the last look (by anyone). Returns True if any were new."""
        with self.lock:
            token = self.store.change_token()
            if token == self._token:
                return False
            self._token = token
            changed = False
            if self.inherit is not None and not self._loaded_inherit:
                ns, as_of = self.inherit
                for rec in self.store.read_slot(slot_for(ns), self.branch_id, as_of=as_of):
                    changed = self._apply(rec) or changed
                self._loaded_inherit = True
                self.last_seq = 0  # the own slot is read from its start
            records = self.store.read_slot(self.slot, self.branch_id, after=self.last_seq)
            for rec in records:
                changed = self._apply(rec) or changed
                self.last_seq = max(self.last_seq, rec.seq)
            if changed:
                self.version += 1
            return changed

    def _apply(self, rec: Record) -> bool:
        if rec.body is None or rec.op == Op.REMOVE:
            return False
        try:
            body: Any = rec.value()
            kind = body.get("type") if isinstance(body, dict) else None
            if kind == "chunk":
                return self._add_chunk(ChunkRecord.from_body(body), rec.item)
            if kind == "summary":
                return self._add_summary(Summary.from_body(body), rec.item)
            if kind == "part":
                part = PartRecord.from_body(body)
                self.items.add(rec.item)
                if self.changed_since(part.last_seq, part.read_bound):
                    return False
                self.parts.setdefault(part.chunk_id, {}).setdefault((part.first_seq, part.last_seq), part)
                return True
            if kind == "stale":
                self.items.add(rec.item)
                return self._mark_changed(StaleMark.from_body(body))
            if kind == "attempt":
                attempt = Attempt.from_body(body)
                self.attempts[attempt.key] = attempt
                self.items.add(rec.item)
                return True
            if kind == "hold":
                held = str(body["message_id"])
                self.holds[held] = bool(body.get("active", False))
                expires = body.get("expires")
                if self.holds[held] and isinstance(expires, int | float) and not isinstance(expires, bool):
                    self.hold_expiry[held] = float(expires)
                else:
                    self.hold_expiry.pop(held, None)
                self.items.add(rec.item)
                return True
            if kind == "head":
                self.heads.append(HeadMark.from_body(body))
                self.items.add(rec.item)
                return True
        except (KeyError, TypeError, ValueError):
            return False  # a malformed record is ignored (never written by this library)
        return False

    def _add_chunk(self, chunk: ChunkRecord, item: str) -> bool:
        if chunk.id in self.chunks or not chunk.ids or chunk.last_seq < chunk.first_seq:
            return False
        if self.overlaps(chunk.first_seq, chunk.last_seq):
            return False
        k = bisect.bisect_left(self._chunk_keys, chunk.first_seq)
        self._chunk_keys.insert(k, chunk.first_seq)
        del self._sizes[k + 1 :]  # (a chunk closed after the others: O(1))
        self._chunk_at[chunk.first_seq] = chunk.id
        self.chunks[chunk.id] = chunk
        self._retile(k)
        bisect.insort(self.unsummarised, chunk.first_seq)
        self._put_root(Root("chunk", chunk.id, chunk.first_seq, chunk.last_seq, 0))
        self.items.add(item)
        return True

    def _add_summary(self, s: Summary, item: str) -> bool:
        if s.id in self.summaries:
            return False
        if self.changed_since(s.last_sequence, s.read_bound):
            self.items.add(item)
            return False
        if s.level == 1:
            chunk = s.source_ids[0] if s.source_ids else None
            if chunk is None or chunk not in self.chunks or chunk in self.l1_of:
                return False
            self.l1_of[chunk] = s.id
            start = self.chunks[chunk].first_seq
            _discard_sorted(self.unsummarised, start)
            self.summaries[s.id] = s
            bisect.insort(self._by_end, (s.last_sequence, s.id))
            self._put_root(Root("summary", s.id, s.first_sequence, s.last_sequence, 1))
            self.items.add(item)
            return True
        # A merge: its sources must be consecutive roots of the level below, in order.
        sources = [self.summaries.get(i) for i in s.source_ids]
        if len(sources) < 2 or any(x is None or x.level != s.level - 1 or x.id in self.parent for x in sources):
            return False
        first = sources[0]
        assert first is not None
        k = bisect.bisect_left(self._root_keys, first.first_sequence)
        keys = self._root_keys[k : k + len(sources)]
        if len(keys) != len(sources) or any(
            self._roots[key].id != src.id for key, src in zip(keys, sources, strict=True) if src is not None
        ):
            return False
        for key in keys:
            del self._roots[key]
            _discard_sorted(self._summary_root_keys, key)
        del self._root_keys[k : k + len(sources)]
        for src in sources:
            assert src is not None
            self.parent[src.id] = s.id
        self.summaries[s.id] = s
        bisect.insort(self._by_end, (s.last_sequence, s.id))
        self._put_root(Root("summary", s.id, s.first_sequence, s.last_sequence, s.level))
        self.items.add(item)
        return True

    def changed_since(self, last_seq: int, bound: int) -> bool:
        """True when a message created at or before ``last_seq`` was edited or removed after store sequence
        ``bound``: a summary or part ending at ``last_seq`` whose request was read at ``bound`` may carry
        its old text (a request reads its own range, the opening messages and earlier summaries as
        context, all created at or before its end). O(marks newer than ``bound``)."""
        for changed, created in reversed(self._marks):
            if changed <= bound:
                return False
            if created <= last_seq:
                return True
        return False

    def _mark_changed(self, mark: StaleMark) -> bool:
        """Fold a stale mark: remember it, and retire every summary part and summary that may have read the
        message before the change (each ending at or after it, read before the change), with every merge
        above a retired summary. True when something was retired."""
        seq, changed = mark.created_seq, mark.changed_seq
        bisect.insort(self._marks, (changed, seq))
        retired = False
        for parts in self.parts.values():
            for key in [k for k, p in parts.items() if p.last_seq >= seq and p.read_bound < changed]:
                del parts[key]
                self.retired += 1
                retired = True
        k = bisect.bisect_left(self._by_end, (seq, ""))
        for _, sid in self._by_end[k:]:
            s = self.summaries.get(sid)
            if s is not None and s.read_bound < changed:
                self._retire(sid)
                retired = True
        return retired

    def _retire(self, sid: str) -> None:
        """Take a summary and every merge above it out of the fold: a level-1 summary's chunk is
        unsummarised again, and the other summaries the retired merges were made from are unmerged roots
        again."""
        chain = [sid]
        while chain[-1] in self.parent:
            chain.append(self.parent[chain[-1]])
        gone = {i: self.summaries.pop(i) for i in chain}
        for s in gone.values():
            _discard_sorted(self._by_end, (s.last_sequence, s.id))
        key = gone[chain[-1]].first_sequence  # the topmost one was a root
        self._roots.pop(key, None)
        _discard_sorted(self._root_keys, key)
        _discard_sorted(self._summary_root_keys, key)
        for i in chain:
            self.parent.pop(i, None)
        for s in gone.values():
            if s.level > 1:
                for child_id in s.source_ids:
                    if child_id in gone:
                        continue
                    self.parent.pop(child_id, None)
                    child = self.summaries.get(child_id)
                    if child is not None:
                        self._put_root(
                            Root("summary", child.id, child.first_sequence, child.last_sequence, child.level)
                        )
                continue
            chunk = self.chunks[s.source_ids[0]]
            del self.l1_of[chunk.id]
            bisect.insort(self.unsummarised, chunk.first_seq)
            self._put_root(Root("chunk", chunk.id, chunk.first_seq, chunk.last_seq, 0))
        self.retired += len(chain)

    def _retile(self, k: int) -> None:
        """Update the untiled boundaries around the chunk just inserted at index ``k``."""
        keys = self._chunk_keys
        for i in (k, k + 1):
            if i >= len(keys):
                continue
            here = self.chunks[self._chunk_at[keys[i]]]
            before = self.chunks[self._chunk_at[keys[i - 1]]] if i > 0 else None
            if before is not None and self.tiled(before, here):
                self._untiled.pop(keys[i], None)
            else:
                self._untiled[keys[i]] = before.id if before is not None else None

    def chunk_messages(self, lo: int, hi: int) -> int:
        """How many messages the chunks of ranks ``lo`` to ``hi - 1`` (in conversation order) were closed
        over (their ids): prefix sums kept as chunks arrive, extended when asked (O(1) a chunk)."""
        sizes = self._sizes
        keys = self._chunk_keys
        while len(sizes) <= hi:
            sizes.append(sizes[-1] + len(self.chunks[self._chunk_at[keys[len(sizes) - 1]]].ids))
        return sizes[hi] - sizes[lo]

    def untiled(self) -> list[tuple[ChunkRecord | None, ChunkRecord]]:
        """``(chunk before, chunk)`` pairs with (possibly) messages between them, in order (the first
        chunk always, with None before it). Kept up to date as chunks arrive: O(gaps), not O(chunks)."""
        out: list[tuple[ChunkRecord | None, ChunkRecord]] = []
        for seq in sorted(self._untiled):
            left = self._untiled[seq]
            out.append((self.chunks[left] if left is not None else None, self.chunks[self._chunk_at[seq]]))
        return out

    def _put_root(self, root: Root) -> None:
        if root.first_seq not in self._roots:
            bisect.insort(self._root_keys, root.first_seq)
        self._roots[root.first_seq] = root
        k = bisect.bisect_left(self._summary_root_keys, root.first_seq)
        present = k < len(self._summary_root_keys) and self._summary_root_keys[k] == root.first_seq
        if root.kind == "summary" and not present:
            self._summary_root_keys.insert(k, root.first_seq)
        elif root.kind != "summary" and present:
            del self._summary_root_keys[k]

    def summary_roots(self) -> list[Root]:
        """The unmerged summaries in conversation order (no chunk roots): O(their number)."""
        return [self._roots[k] for k in self._summary_root_keys]

    # ---- queries ---------------------------------------------------------------------------------

    def overlaps(self, first_seq: int, last_seq: int) -> bool:
        """True when a chunk owns any created sequence in ``[first_seq, last_seq]``."""
        k = bisect.bisect_right(self._chunk_keys, last_seq)
        if k == 0:
            return False
        prev = self.chunks[self._chunk_at[self._chunk_keys[k - 1]]]
        return prev.last_seq >= first_seq

    def chunk_starting_after(self, seq: int) -> ChunkRecord | None:
        """The first chunk whose first sequence is greater than ``seq``."""
        k = bisect.bisect_right(self._chunk_keys, seq)
        return self.chunks[self._chunk_at[self._chunk_keys[k]]] if k < len(self._chunk_keys) else None

    def chunk_holding(self, seq: int) -> ChunkRecord | None:
        """The chunk whose sequence range holds ``seq``, or None."""
        k = bisect.bisect_right(self._chunk_keys, seq)
        if k == 0:
            return None
        chunk = self.chunks[self._chunk_at[self._chunk_keys[k - 1]]]
        return chunk if chunk.last_seq >= seq else None

    def chunk_before(self, chunk: ChunkRecord) -> ChunkRecord | None:
        """The chunk just before ``chunk`` in conversation order, or None."""
        k = bisect.bisect_left(self._chunk_keys, chunk.first_seq)
        return self.chunks[self._chunk_at[self._chunk_keys[k - 1]]] if k > 0 else None

    def iter_chunks(self) -> Iterator[ChunkRecord]:
        """Every chunk in conversation order."""
        return (self.chunks[self._chunk_at[k]] for k in self._chunk_keys)

    def last_chunk(self) -> ChunkRecord | None:
        return self.chunks[self._chunk_at[self._chunk_keys[-1]]] if self._chunk_keys else None

    @staticmethod
    def tiled(left: ChunkRecord, right: ChunkRecord) -> bool:
        """True when ``right`` starts exactly where ``left`` ends (recorded when either closed)."""
        return right.follows == left.id or left.precedes == right.id

    def roots_adjacent(self, left: Root, right: Root) -> bool:
        """True when ``right`` directly follows ``left``: no root between them and no message between
        their chunks."""
        first = self.chunks.get(self._chunk_at.get(right.first_seq, ""))
        if first is None or right.first_seq in self._untiled:
            return False
        before = self.chunk_before(first)
        return before is not None and before.last_seq == left.last_seq

    def roots_before(self, seq: int) -> Iterator[Root]:
        """Roots ending before ``seq``, newest first."""
        keys = self._root_keys
        for i in range(bisect.bisect_left(keys, seq) - 1, -1, -1):
            yield self._roots[keys[i]]

    def roots(self) -> list[Root]:
        """The roots in conversation order."""
        return [self._roots[k] for k in self._root_keys]

    def iter_roots(self, reverse: bool = False) -> Iterator[Root]:
        keys = reversed(self._root_keys) if reverse else iter(self._root_keys)
        return (self._roots[k] for k in keys)

    def newest_roots(self) -> Iterator[Root]:
        """The roots, newest first, read lazily over a copy of their keys (a reader that stops early pays
        for a list copy and the roots it reads, not for a root object per record)."""
        keys = list(self._root_keys)
        roots = self._roots
        return (root for k in reversed(keys) if (root := roots.get(k)) is not None)

    def children(self, summary: Summary) -> list[Summary]:
        """The summaries a merge was made from (empty for an L1)."""
        if summary.level <= 1:
            return []
        return [self.summaries[i] for i in summary.source_ids if i in self.summaries]

    def with_parent(self, summary: Summary) -> Summary:
        """The summary with its ``parent_id`` filled in."""
        parent = self.parent.get(summary.id)
        if parent == summary.parent_id:
            return summary
        from dataclasses import replace

        return replace(summary, parent_id=parent)

    def active_holds(self, now: float | None = None) -> list[str]:
        """Message ids under an active compression hold at ``now`` (epoch seconds; default: the wall
        clock): a timed hold whose time is up no longer holds, released record or not."""
        if not self.hold_expiry:
            return [mid for mid, active in self.holds.items() if active]
        at = time.time() if now is None else now
        return [mid for mid, active in self.holds.items() if active and self.hold_expiry.get(mid, at + 1) > at]

    def expired_holds(self, now: float | None = None) -> list[str]:
        """Message ids of timed holds whose time is up at ``now`` and that no record released yet."""
        at = time.time() if now is None else now
        return [mid for mid, ends in self.hold_expiry.items() if self.holds.get(mid) and ends <= at]

    def reads(self, ctx: StrategyContext) -> bool:
        """True when this log folds the records of ``ctx``'s store, branch and namespace."""
        return self.store is ctx.store and self.branch_id == ctx.branch_id and self.namespace == ctx.namespace

    def has_item(self, item: str) -> bool:
        return item in self.items

    def chunk_of_summary(self, summary: Summary) -> ChunkRecord | None:
        """The chunk of an L1 summary."""
        return self.chunks.get(summary.source_ids[0]) if summary.level == 1 and summary.source_ids else None

    def stats(self) -> dict[str, Any]:
        """Counts for reports: chunks, summaries by level, roots."""
        levels: dict[str, int] = {}
        for s in self.summaries.values():
            levels[f"L{s.level}"] = levels.get(f"L{s.level}", 0) + 1
        return {
            "chunks": len(self.chunks),
            "summaries": dict(sorted(levels.items(), key=lambda kv: int(kv[0][1:]))),
            "roots": len(self._root_keys),
            "unsummarised_chunks": len(self.chunks) - len(self.l1_of),
        }
