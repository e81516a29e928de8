"""The in-memory reference backend: the contract's semantics with nothing durable.

Several managers may share one :class:`MemoryStore` object (that is what "several handles" means
here). Used by tests as the model the durable backends must match.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable

from .base import ROOT_BRANCH, BranchInfo, Op, Record, Store, StoreStats
from .migrations import Migration, apply_migrations

__all__ = ["MemoryStore"]


def _create_root(store: MemoryStore) -> None:
    store._branch_rows.append(BranchInfo(1, ROOT_BRANCH, None, None, time.time()))


MIGRATIONS: list[Migration[MemoryStore]] = [Migration(1, "root branch", _create_root)]


class MemoryStore(Store):
    """Records, branches and blobs held in lists and dicts; transactions roll back by truncation."""

    backend = "memory"

    def __init__(self) -> None:
        super().__init__()
        self._records: list[Record] = []
        # (slot, branch_id) -> sequences in order; (slot, branch_id, item) -> sequences in order
        self._by_slot: dict[tuple[str, int], list[int]] = {}
        self._by_item: dict[tuple[str, int, str], list[int]] = {}
        self._branch_rows: list[BranchInfo] = []
        self._blobs: dict[str, bytes] = {}
        self._applied: dict[int, str] = {}
        self._snapshot: tuple[int, int, set[str], dict[int, str]] | None = None
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
        self._snapshot = (len(self._records), len(self._branch_rows), set(self._blobs), dict(self._applied))

    def _commit(self) -> None:
        self._snapshot = None

    def _rollback(self) -> None:
        assert self._snapshot is not None
        n_records, n_branches, blobs, applied = self._snapshot
        for rec in self._records[n_records:]:
            self._by_slot[(rec.slot, rec.branch_id)].pop()
            self._by_item[(rec.slot, rec.branch_id, rec.item)].pop()
        del self._records[n_records:]
        del self._branch_rows[n_branches:]
        for key in set(self._blobs) - blobs:
            del self._blobs[key]
        self._applied = applied
        self._snapshot = None

    # records
    def _insert(self, branch_id: int, slot: str, item: str, op: Op, body: str | None, ts: float) -> int:
        seq = len(self._records) + 1
        self._records.append(Record(seq, branch_id, slot, item, op, body, ts))
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
        self._blobs.setdefault(digest, data)

    def _get_blob(self, digest: str) -> bytes | None:
        return self._blobs.get(digest)

    # misc
    def _head_seq(self) -> int:
        return len(self._records)

    def _change_token(self) -> int:
        return len(self._records) * 1_000_003 + len(self._branch_rows)

    def _slot_list(self) -> list[str]:
        return sorted({slot for slot, _ in self._by_slot})

    def _token_after_commit(self) -> int:
        return self._change_token()

    def _stats(self) -> StoreStats:
        payload = sum(len(r.body.encode()) for r in self._records if r.body is not None)
        payload += sum(len(b) for b in self._blobs.values())
        return StoreStats(len(self._records), payload, 0, len(self._records))

    def _close(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"MemoryStore(records={len(self._records)})"
