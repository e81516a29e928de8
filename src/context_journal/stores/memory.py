"""The in-memory reference backend: the contract's semantics with nothing durable.

Several managers may share one :class:`MemoryStore` object (that is what "several handles" means
here). Used by tests as the model the durable backends must match.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from ..errors import StoreError
from ._inverted import InvertedIndex
from .base import ROOT_BRANCH, BranchInfo, JournalRow, Op, Record, Store, StoreStats, Transaction
from .fulltext import MAX_GROUPS, TextHit, doc_id, split_doc_id
from .migrations import Migration, apply_migrations
from .queue import QUEUE_COLUMNS, WorkClaim

__all__ = ["MemoryStore"]

K = TypeVar("K")


def _create_root(store: MemoryStore) -> None:
    store._branch_rows.append(BranchInfo(1, ROOT_BRANCH, None, None, time.time()))


def _pop_last(index: dict[K, list[int]], key: K) -> None:
    """Drop the newest sequence of ``key``, and the key once empty (no trace of a rolled-back slot)."""
    seqs = index[key]
    seqs.pop()
    if not seqs:
        del index[key]


def _create_journal(store: MemoryStore) -> None:
    store._journal = {}
    store._journal_keys = {}


MIGRATIONS: list[Migration[MemoryStore]] = [
    Migration(1, "root branch", _create_root),
    Migration(2, "execution journal", _create_journal),
]


class MemoryStore(Store):
    """Records, branches and blobs held in lists and dicts; transactions roll back by truncation."""

    backend = "memory"

    # The execution journal (migration 2): rows per project in seq order, and (project, key) -> row.
    _journal: dict[str, list[JournalRow]]
    _journal_keys: dict[tuple[str, str], JournalRow]
    _queue: dict[str, dict[str, Any]]

    def __init__(self) -> None:
        super().__init__()
        self._records: list[Record] = []
        # (slot, branch_id) -> sequences in order; (slot, branch_id, item) -> sequences in order
        self._by_slot: dict[tuple[str, int], list[int]] = {}
        self._by_item: dict[tuple[str, int, str], list[int]] = {}
        self._branch_rows: list[BranchInfo] = []
        self._blobs: dict[str, bytes] = {}
        self._applied: dict[int, str] = {}
        # Undo state of the open transaction: lengths to truncate to, the applied migrations, blobs
        # added, and branch rows changed in place (by id, their old value). O(1) to take.
        self._snapshot: tuple[int, int, dict[int, str]] | None = None
        self._new_blobs: list[str] = []
        self._changed_branches: dict[int, BranchInfo] = {}
        self._version = 0  # commits so far: the change token
        self._text = InvertedIndex()
        self._summary_text = InvertedIndex()  # summaries: an index of their own (bm25 statistics apart)
        apply_migrations(self, MIGRATIONS)

    # migrations
    def _applied_versions(self) -> set[int]:
        return set(self._applied)

    def _run_migration(self, version: int, name: str, step: Callable[[], None]) -> None:
        with self.transaction():
            step()
            self._applied[version] = name

    # transactions
    def _begin(self) -> None:
        self._snapshot = (len(self._records), len(self._branch_rows), dict(self._applied))
        self._new_blobs = []
        self._changed_branches = {}

    def _commit(self) -> None:
        self._snapshot = None
        self._version += 1

    def _rollback(self) -> None:
        assert self._snapshot is not None
        n_records, n_branches, applied = self._snapshot
        for rec in reversed(self._records[n_records:]):
            _pop_last(self._by_slot, (rec.slot, rec.branch_id))
            _pop_last(self._by_item, (rec.slot, rec.branch_id, rec.item))
        del self._records[n_records:]
        for bid, old in self._changed_branches.items():
            if bid <= n_branches:
                self._branch_rows[bid - 1] = old
        del self._branch_rows[n_branches:]
        for key in self._new_blobs:
            del self._blobs[key]
        self._applied = applied
        self._snapshot = None

    # records
    def _insert(
        self, branch_id: int, slot: str, item: str, op: Op, body: str | None, ts: float, ix: str | None = None
    ) -> int:
        seq = len(self._records) + 1
        self._records.append(Record(seq, branch_id, slot, item, op, body, ts, ix))
        self._by_slot.setdefault((slot, branch_id), []).append(seq)
        self._by_item.setdefault((slot, branch_id, item), []).append(seq)
        return seq

    def _rows(self, slot: str, branch_id: int, after: int, upto: int, item: str | None = None) -> list[Record]:
        seqs = (
            self._by_slot.get((slot, branch_id), []) if item is None else self._by_item.get((slot, branch_id, item), [])
        )
        lo = bisect.bisect_right(seqs, after)
        hi = bisect.bisect_right(seqs, upto)
        return [self._records[s - 1] for s in seqs[lo:hi]]

    def _latest(self, slot: str, branch_id: int, upto: int, item: str) -> Record | None:
        seqs = self._by_item.get((slot, branch_id, item), [])
        hi = bisect.bisect_right(seqs, upto)
        return self._records[seqs[hi - 1] - 1] if hi else None

    # branches
    def _load_branches(self) -> list[BranchInfo]:
        return list(self._branch_rows)

    def _insert_branch(self, name: str, parent_id: int, fork_seq: int, created_at: float) -> int:
        bid = len(self._branch_rows) + 1
        self._branch_rows.append(BranchInfo(bid, name, parent_id, fork_seq, created_at))
        return bid

    def _mark_branch_deleted(self, branch_id: int) -> None:
        old = self._branch_rows[branch_id - 1]
        self._changed_branches.setdefault(branch_id, old)
        self._branch_rows[branch_id - 1] = BranchInfo(
            old.id, old.name, old.parent_id, old.fork_seq, old.created_at, deleted=True
        )

    def _branch_heads(self) -> dict[int, int]:
        heads: dict[int, int] = {}
        for (_slot, bid), seqs in self._by_slot.items():
            if seqs:
                heads[bid] = max(heads.get(bid, 0), seqs[-1])
        return heads

    # blobs
    def _put_blob(self, digest: str, data: bytes) -> None:
        if digest not in self._blobs:
            self._blobs[digest] = data
            self._new_blobs.append(digest)

    def _get_blob(self, digest: str) -> bytes | None:
        return self._blobs.get(digest)

    # execution journal: the same refusals as the database triggers, in Python
    def _journal_insert(self, row: JournalRow) -> None:
        txn = self._txn
        if txn is None:
            raise StoreError("journal rows are written inside a transaction")
        rows = self._journal.setdefault(row.project, [])
        head_seq, head_hash = (rows[-1].seq, rows[-1].hash) if rows else (0, "")
        if row.seq != head_seq + 1 or row.prev_hash != head_hash:
            raise StoreError(
                f"journal entries are append-only: {row.project} seq {row.seq} refused (head is {head_seq}, "
                "and prev_hash must be the head's hash)"
            )
        key = (row.project, row.idempotency_key)
        if key in self._journal_keys:
            raise StoreError(f"journal idempotency key {row.idempotency_key!r} already used in {row.project}")
        before = len(rows)
        rows.append(row)
        self._journal_keys[key] = row

        def undo() -> None:
            kept = self._journal.get(row.project, [])
            del kept[before:]
            if not kept:
                self._journal.pop(row.project, None)
            self._journal_keys.pop(key, None)

        txn.on_rollback(undo)

    def _journal_select(
        self, project: str, after: int, upto: int, limit: int | None, descending: bool, kinds: tuple[str, ...] | None
    ) -> list[JournalRow]:
        rows = self._journal.get(project, [])
        # seq n sits at index n - 1 (gap-free): slice, then filter.
        window = rows[max(0, after) : max(0, min(upto, len(rows)))]
        if kinds is not None:
            window = [r for r in window if r.kind in kinds]
        if descending:
            window = window[::-1]
        return window if limit is None else window[:limit]

    def _journal_by_key(self, project: str, key: str) -> JournalRow | None:
        return self._journal_keys.get((project, key))

    def _journal_projects(self) -> list[str]:
        return list(self._journal)

    # integrity scans (stores/integrity.py)
    def _scan_records(self, after: int, limit: int) -> list[tuple[Any, ...]]:
        start = max(0, after)
        records = self._records[start : start + limit]
        return [(r.seq, r.branch_id, r.slot, r.item, int(r.op), r.body, r.ix) for r in records]

    def _scan_blobs(self, after: str, limit: int) -> list[tuple[str, int, bytes]]:
        digests = sorted(d for d in self._blobs if d > after)[:limit]
        return [(d, len(self._blobs[d]), self._blobs[d]) for d in digests]

    # full-text index (stores/fulltext.py)
    has_text_index = True

    def _text_insert(self, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        txn = self._txn
        if txn is None:
            raise StoreError("index documents are written inside a transaction")
        self._index_add(self._text, txn, seq, documents)

    def _summary_insert(self, tx: Transaction, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        self._index_add(self._summary_text, tx, seq, documents)

    def _summary_search(self, terms: Sequence[str], slots: Sequence[str], limit: int) -> list[TextHit]:
        return self._index_search(self._summary_text, terms, slots, limit)

    def _text_search(self, terms: Sequence[str], slots: Sequence[str], limit: int) -> list[TextHit]:
        return self._index_search(self._text, terms, slots, limit)

    search_within = True

    def _text_search_within(
        self, terms: Sequence[str], slots: Sequence[str], limit: int, within: frozenset[int]
    ) -> list[TextHit]:
        return self._index_search(self._text, terms, slots, limit, within)

    @staticmethod
    def _index_add(index: InvertedIndex, txn: Transaction, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        """Add the documents of record ``seq`` to ``index``, taken out again if ``txn`` rolls back."""
        added = [(doc_id(seq, group), text) for group, text in documents]
        for doc, text in added:
            index.add(doc, text)

        def undo() -> None:
            for doc, text in added:
                index.remove(doc, text)

        txn.on_rollback(undo)

    def _index_search(
        self,
        index: InvertedIndex,
        terms: Sequence[str],
        slots: Sequence[str],
        limit: int,
        within: frozenset[int] | None = None,
    ) -> list[TextHit]:
        """The ``limit`` best documents of ``index`` in ``slots`` (and of the records ``within``, when given)
        matching any of ``terms``, ties newest first."""
        wanted = set(slots)
        hits: list[TextHit] = []
        for doc, score in index.scores(terms).items():
            seq, group = split_doc_id(doc)
            if within is not None and seq not in within:
                continue
            rec = self._records[seq - 1]
            if rec.slot in wanted:
                hits.append(TextHit(seq, group, score, rec.slot, rec.branch_id, rec.item))
        hits.sort(key=lambda h: (-h.score, -(h.seq * MAX_GROUPS + h.group)))
        return hits[:limit]

    # redaction (stores/redaction.py)
    can_redact = True

    def _slot_records(self, slot: str, item: str | None = None) -> list[Record]:
        return [r for r in self._records if r.slot == slot and (item is None or r.item == item)]

    def _null_bodies(self, tx: Transaction, seqs: Sequence[int]) -> None:
        old = [self._records[seq - 1] for seq in seqs]
        for rec in old:
            self._records[rec.seq - 1] = replace(rec, body=None, ix=None)

        def undo() -> None:
            for rec in old:
                self._records[rec.seq - 1] = rec

        tx.on_rollback(undo)

    def _stub_bodies(self, tx: Transaction, bodies: Mapping[int, str]) -> None:
        old = [self._records[seq - 1] for seq in bodies]
        for rec in old:
            self._records[rec.seq - 1] = replace(rec, body=bodies[rec.seq], ix=None)

        def undo() -> None:
            for rec in old:
                self._records[rec.seq - 1] = rec

        tx.on_rollback(undo)

    @staticmethod
    def _unindex(index: InvertedIndex, tx: Transaction, seqs: Sequence[int]) -> None:
        wanted = set(seqs)
        removed = index.discard({doc for doc in index.documents() if split_doc_id(doc)[0] in wanted})
        tx.on_rollback(lambda: index.restore(removed))

    def _text_unindex(self, tx: Transaction, docs: Sequence[tuple[int, Sequence[tuple[int, str]] | None]]) -> None:
        self._unindex(self._text, tx, [seq for seq, _ in docs])

    def _summary_unindex(self, tx: Transaction, docs: Sequence[tuple[int, Sequence[tuple[int, str]]]]) -> None:
        self._unindex(self._summary_text, tx, [seq for seq, _ in docs])

    def _journal_replace_body(self, tx: Transaction, row: JournalRow, body: str) -> None:
        rows = self._journal.get(row.project, [])
        if len(rows) < row.seq or rows[row.seq - 1].hash != row.hash:
            raise StoreError(f"journal entry {row.project} #{row.seq} changed while it was being redacted")
        old = rows[row.seq - 1]
        key = (old.project, old.idempotency_key)
        rows[row.seq - 1] = self._journal_keys[key] = replace(old, body=body)

        def undo() -> None:
            kept = self._journal.get(old.project, [])
            if len(kept) >= old.seq:
                kept[old.seq - 1] = old
            self._journal_keys[key] = old

        tx.on_rollback(undo)

    def _blob_referenced(self, digest: str) -> bool:
        return any(r.body is not None and digest in r.body for r in self._records)

    def _delete_blob(self, tx: Transaction, digest: str) -> None:
        data = self._blobs.pop(digest, None)
        if data is not None:
            tx.on_rollback(lambda: self._blobs.__setitem__(digest, data))

    # misc
    def _head_seq(self) -> int:
        return len(self._records)

    def _change_token(self) -> int:
        # Every commit counts (branch deletions and blob-only writes included), on any user of the object.
        return self._version

    def _bodies(self, seqs: Sequence[int]) -> dict[int, str | None]:
        n = len(self._records)
        return {q: self._records[q - 1].body for q in seqs if 0 < q <= n}

    def _slot_list(self) -> list[str]:
        return sorted({slot for slot, _ in self._by_slot})

    def _token_after_commit(self) -> int:
        return self._version + 1

    def _stats(self) -> StoreStats:
        payload = sum(len(r.body.encode()) for r in self._records if r.body is not None)
        payload += sum(len(b) for b in self._blobs.values())
        return StoreStats(len(self._records), payload, 0, len(self._records))

    def _close(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"MemoryStore(records={len(self._records)})"

    # ---- compression work queue (see context_journal.stores.queue; in-process only) ----------------

    def _queue_rows(self) -> dict[str, dict[str, Any]]:
        if not hasattr(self, "_queue"):
            self._queue = {}
        return self._queue

    def queue_enqueue(self, key: str, namespace: str, branch_id: int, slot: str, config: str, now: float) -> None:
        """Mark a conversation's compression as wanted (insert, or bump its generation back to pending)."""
        with self._lock:
            rows = self._queue_rows()
            row = rows.get(key)
            if row is None:
                rows[key] = {
                    "key": key,
                    "namespace": namespace,
                    "branch_id": branch_id,
                    "slot": slot,
                    "config": config,
                    "status": "pending",
                    "lease_owner": None,
                    "lease_expires": 0.0,
                    "attempts": 0,
                    "generation": 1,
                    "error": None,
                    "updated": now,
                }
                return
            row.update(status="pending", generation=row["generation"] + 1, config=config, error=None)
            if row["lease_owner"] is None:
                row["lease_expires"] = 0.0

    def queue_claim(self, owner: str, lease_seconds: float, now: float) -> WorkClaim | None:
        """Lease the pending item waiting longest (free, or whose lease expired)."""
        with self._lock:
            ready = [r for r in self._queue_rows().values() if r["status"] == "pending" and r["lease_expires"] < now]
            if not ready:
                return None
            row = min(ready, key=lambda r: r["updated"])
            row.update(lease_owner=owner, lease_expires=now + lease_seconds, updated=now, attempts=row["attempts"] + 1)
            return WorkClaim(
                row["key"],
                row["namespace"],
                row["branch_id"],
                row["slot"],
                row["config"],
                row["generation"],
                row["attempts"],
            )

    def queue_renew(self, key: str, owner: str, lease_seconds: float, now: float) -> bool:
        """Extend ``owner``'s unexpired lease on ``key`` to ``now + lease_seconds`` (a heartbeat)."""
        with self._lock:
            row = self._queue_rows().get(key)
            if row is None or row["lease_owner"] != owner or row["lease_expires"] < now:
                return False
            row["lease_expires"] = now + lease_seconds
            return True

    def queue_check(self, key: str, owner: str, now: float) -> bool:
        """True when ``owner`` still holds an unexpired lease on ``key``."""
        with self._lock:
            row = self._queue_rows().get(key)
            return row is not None and row["lease_owner"] == owner and row["lease_expires"] >= now

    def queue_finish(
        self, key: str, owner: str, generation: int, status: str, retry_at: float, now: float, error: str | None
    ) -> bool:
        """Give a lease back (see :class:`~context_journal.stores.queue.QueueStore`)."""
        with self._lock:
            row = self._queue_rows().get(key)
            if row is None or row["lease_owner"] != owner:
                return False
            if status == "done":
                row.update(status="done" if row["generation"] == generation else "pending", lease_expires=0.0)
            else:
                row.update(status=status, lease_expires=retry_at)
            row.update(lease_owner=None, updated=now, error=error)
            return True

    def queue_rows(self) -> list[dict[str, Any]]:
        """Every queue row (for reports and tests)."""
        with self._lock:
            return [{c: r[c] for c in QUEUE_COLUMNS} for _, r in sorted(self._queue_rows().items())]
