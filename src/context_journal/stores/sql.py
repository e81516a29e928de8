"""What SQLite and PostgreSQL share: the store primitives whose SQL is the same on both.

Queries are written once with ``?`` placeholders; each backend's :meth:`SQLStore._query` adapts them to
its driver (``sqlite3`` takes them as they are, psycopg gets ``%s``) and translates driver errors. What
differs — transactions, sequence allocation, change tokens, slot creation, DDL — stays in the backends.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import CorruptRecordError, StoreError
from .base import BranchInfo, JournalRow, Op, Record, Store, Transaction
from .fulltext import summary_documents
from .queue import QUEUE_COLUMNS

__all__ = ["JOURNAL_COLUMNS", "SQLStore"]

JOURNAL_COLUMNS = "project, seq, store_seq, kind, author, idempotency_key, body, prev_hash, hash, ts"


def journal_row(row: Any) -> JournalRow:
    """A ``journal_entries`` row (columns as :data:`JOURNAL_COLUMNS`) as a :class:`JournalRow`."""
    project, seq, store_seq, kind, author, key, body, prev_hash, hash_, ts = row
    return JournalRow(project, int(seq), int(store_seq), kind, author, key, body, prev_hash, hash_, float(ts))


class SQLStore(Store):
    """Shared primitives of the SQL backends (records, branches, blobs, journal reads, queue leases)."""

    _slot_ids: dict[str, int]  # slot name -> id, of the slots found or created

    @abstractmethod
    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        """Run ``sql`` (``?`` placeholders) and return the driver's cursor (``fetchone``, ``fetchall``,
        ``rowcount``); driver errors become :class:`~context_journal.errors.StoreError`."""

    @abstractmethod
    def _slot_id(self, slot: str, create: bool) -> int | None: ...

    def _existing_slot(self, slot: str) -> int | None:
        """The id of ``slot``, None when it does not exist (looked up once per :meth:`read_scope`)."""
        known = self._slot_ids.get(slot)
        if known is not None:
            return known
        absent = self._absent_slots() if self._txn is None else None  # a write reads the slots afresh
        if absent is not None and slot in absent:
            return None
        sid = self._slot_id(slot, create=False)
        if sid is None and absent is not None:
            absent.add(slot)
        return sid

    # ---- records ----------------------------------------------------------------------------------

    def _rows(self, slot: str, branch_id: int, after: int, upto: int, item: str | None = None) -> list[Record]:
        sid = self._existing_slot(slot)
        if sid is None:
            return []
        if item is None:
            return self._slot_rows(sid, slot, branch_id, after, upto, "body")
        rows = self._query(
            "SELECT seq, item, op, body, ts, ix FROM records WHERE slot_id = ? AND item = ? AND branch_id = ? "
            "AND seq > ? AND seq <= ? ORDER BY seq",
            (sid, item, branch_id, after, upto),
        ).fetchall()
        return [_record(s, branch_id, slot, it, o, b, t, x) for s, it, o, b, t, x in rows]

    def _index_rows(self, slot: str, branch_id: int, after: int, upto: int) -> list[Record]:
        sid = self._existing_slot(slot)
        if sid is None:
            return []
        return self._slot_rows(sid, slot, branch_id, after, upto, "CASE WHEN ix IS NULL THEN body END")

    def _slot_rows(self, sid: int, slot: str, branch_id: int, after: int, upto: int, body: str) -> list[Record]:
        """The records of a slot on one branch in ``(after, upto]``, ``body`` the SQL of their body column."""
        rows = self._query(
            f"SELECT seq, item, op, {body}, ts, ix FROM records WHERE slot_id = ? AND branch_id = ? "
            "AND seq > ? AND seq <= ? ORDER BY seq",
            (sid, branch_id, after, upto),
        ).fetchall()
        return [_record(s, branch_id, slot, it, o, b, t, x) for s, it, o, b, t, x in rows]

    def _latest_many(self, slot: str, branch_id: int, upto: int, items: Sequence[str]) -> dict[str, Record]:
        sid = self._existing_slot(slot)
        if sid is None or not items:
            return {}
        newest = "SELECT MAX(seq) FROM records WHERE op = 4 AND slot_id = ? AND item = ? AND branch_id = ? AND seq <= ?"
        out: dict[str, Record] = {}
        for k in range(0, len(items), 100):  # SQLite allows 500 terms in a compound SELECT
            part = items[k : k + 100]
            params: list[Any] = []
            for item in part:
                params += [sid, item, branch_id, upto]
            terms = " UNION ALL ".join([newest] * len(part))
            rows = self._query(
                f"SELECT seq, item, op, body, ts FROM records WHERE seq IN ({terms})", tuple(params)
            ).fetchall()
            out.update({it: _record(s, branch_id, slot, it, o, b, t) for s, it, o, b, t in rows})
        return out

    def _latest(self, slot: str, branch_id: int, upto: int, item: str) -> Record | None:
        sid = self._existing_slot(slot)
        if sid is None:
            return None
        row = self._query(
            "SELECT seq, op, body, ts FROM records WHERE op = 4 AND slot_id = ? AND item = ? AND branch_id = ? "
            "AND seq <= ? ORDER BY seq DESC LIMIT 1",
            (sid, item, branch_id, upto),
        ).fetchone()
        if row is None:
            return None
        return _record(row[0], branch_id, slot, item, row[1], row[2], row[3])

    # ---- full-text index (stores/fulltext.py): what both backends share --------------------------

    def _text_backfill_mark(self, done: int) -> None:
        self._query("UPDATE text_index_backfill SET done = ? WHERE id = 1", (done,))

    def _message_records(self, after: int, upto: int, limit: int) -> list[Record]:
        rows = self._query(
            "SELECT r.seq, r.branch_id, s.name, r.item, r.op, r.body, r.ts FROM records r JOIN slots s "
            "ON s.id = r.slot_id WHERE r.seq > ? AND r.seq <= ? AND r.op IN (1, 2) "
            "AND (s.name = 'messages' OR substr(s.name, 1, 9) = 'messages/') ORDER BY r.seq LIMIT ?",
            (after, upto, limit),
        ).fetchall()
        return [_record(q, b, n, i, o, body, t) for q, b, n, i, o, body, t in rows]

    def _index_summary_records(self, batch: int = 1000) -> int:
        """Inside a migration's transaction: add every summary record already stored (written before
        summaries were indexed) to the summary index. Summaries are few (one per chunk and merge), so one
        transaction indexes them all; a killed migration rolls back and runs again at the next open.
        Returns the records indexed."""
        indexed = 0
        after = 0
        while True:
            rows = self._query(
                "SELECT r.seq, r.body FROM records r JOIN slots s ON s.id = r.slot_id WHERE r.seq > ? "
                "AND r.op IN (1, 2) AND r.body IS NOT NULL AND substr(s.name, 1, 12) = 'compression/' "
                "AND substr(r.item, 1, 8) = 'summary/' ORDER BY r.seq LIMIT ?",
                (after, batch),
            ).fetchall()
            for seq, body in rows:
                try:
                    documents = summary_documents(json.loads(body))
                except ValueError:
                    documents = []
                if documents:
                    assert self._txn is not None
                    self._summary_insert(self._txn, int(seq), documents)
                    indexed += 1
            if len(rows) < batch:
                return indexed
            after = int(rows[-1][0])

    # ---- redaction (stores/redaction.py) ------------------------------------------------------------

    def _slot_records(self, slot: str, item: str | None = None) -> list[Record]:
        sid = self._existing_slot(slot)
        if sid is None:
            return []
        if item is None:
            rows = self._query(
                "SELECT seq, branch_id, item, op, body, ts FROM records WHERE slot_id = ? ORDER BY seq", (sid,)
            ).fetchall()
        else:
            rows = self._query(
                "SELECT seq, branch_id, item, op, body, ts FROM records WHERE slot_id = ? AND item = ? ORDER BY seq",
                (sid, item),
            ).fetchall()
        return [_record(s, b, slot, it, o, body, t) for s, b, it, o, body, t in rows]

    def _null_bodies(self, tx: Transaction, seqs: Sequence[int]) -> None:
        self._redaction_permit(True)
        for at in range(0, len(seqs), 500):
            part = tuple(seqs[at : at + 500])
            self._query(f"UPDATE records SET body = NULL, ix = NULL WHERE seq IN ({','.join('?' * len(part))})", part)
        self._redaction_permit(False)

    def _stub_bodies(self, tx: Transaction, bodies: Mapping[int, str]) -> None:
        self._redaction_permit(True)
        for seq, body in sorted(bodies.items()):
            self._query("UPDATE records SET body = ?, ix = NULL WHERE seq = ?", (body, seq))
        self._redaction_permit(False)

    def _journal_replace_body(self, tx: Transaction, row: JournalRow, body: str) -> None:
        self._redaction_permit(True)
        cursor = self._query(
            "UPDATE journal_entries SET body = ? WHERE project = ? AND seq = ? AND hash = ?",
            (body, row.project, row.seq, row.hash),
        )
        self._redaction_permit(False)
        if cursor.rowcount != 1:
            raise StoreError(f"journal entry {row.project} #{row.seq} changed while it was being redacted")

    def _redaction_permit(self, on: bool) -> None:
        """Lift (``on``) or put back the append-only guard for the statements in between, in this transaction."""
        raise NotImplementedError(f"the {self.backend} backend cannot redact")

    def _blob_referenced(self, digest: str) -> bool:
        # Blob names are hex: no LIKE wildcard in them.
        return self._query("SELECT 1 FROM records WHERE body LIKE ? LIMIT 1", (f"%{digest}%",)).fetchone() is not None

    def _delete_blob(self, tx: Transaction, digest: str) -> None:
        self._query("DELETE FROM blobs WHERE sha256 = ?", (digest,))

    def _slot_list(self) -> list[str]:
        return [r[0] for r in self._query("SELECT name FROM slots ORDER BY name").fetchall()]

    # ---- branches and blobs -----------------------------------------------------------------------

    def _load_branches(self) -> list[BranchInfo]:
        rows = self._query(
            "SELECT id, name, parent_id, fork_seq, created_at, deleted FROM branches ORDER BY id"
        ).fetchall()
        return [
            BranchInfo(int(i), n, None if p is None else int(p), None if f is None else int(f), float(c), bool(d))
            for i, n, p, f, c, d in rows
        ]

    def _branch_heads(self) -> dict[int, int]:
        rows = self._query("SELECT branch_id, MAX(seq) FROM records GROUP BY branch_id").fetchall()
        return {int(b): int(s) for b, s in rows}

    def _get_blob(self, digest: str) -> bytes | None:
        row = self._query("SELECT data FROM blobs WHERE sha256 = ?", (digest,)).fetchone()
        return None if row is None else bytes(row[0])

    # ---- journal reads ----------------------------------------------------------------------------

    def _journal_insert(self, row: JournalRow) -> None:
        self._query(
            f"INSERT INTO journal_entries({JOURNAL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                row.project,
                row.seq,
                row.store_seq,
                row.kind,
                row.author,
                row.idempotency_key,
                row.body,
                row.prev_hash,
                row.hash,
                row.ts,
            ),
        )

    def _journal_select(
        self, project: str, after: int, upto: int, limit: int | None, descending: bool, kinds: tuple[str, ...] | None
    ) -> list[JournalRow]:
        sql = f"SELECT {JOURNAL_COLUMNS} FROM journal_entries WHERE project = ? AND seq > ? AND seq <= ?"
        params: list[Any] = [project, after, upto]
        if kinds is not None:
            if not kinds:
                return []
            sql += f" AND kind IN ({', '.join('?' * len(kinds))})"
            params += kinds
        sql += " ORDER BY seq DESC" if descending else " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [journal_row(r) for r in self._query(sql, tuple(params)).fetchall()]

    def _journal_by_key(self, project: str, key: str) -> JournalRow | None:
        row = self._query(
            f"SELECT {JOURNAL_COLUMNS} FROM journal_entries WHERE project = ? AND idempotency_key = ?", (project, key)
        ).fetchone()
        return None if row is None else journal_row(row)

    def _journal_projects(self) -> list[str]:
        return [r[0] for r in self._query("SELECT DISTINCT project FROM journal_entries").fetchall()]

    # ---- integrity scans (stores/integrity.py) -----------------------------------------------------

    def _scan_records(self, after: int, limit: int) -> list[tuple[Any, ...]]:
        rows = self._query(
            "SELECT r.seq, r.branch_id, s.name, r.item, r.op, r.body, r.ix FROM records r LEFT JOIN slots s "
            "ON s.id = r.slot_id WHERE r.seq > ? ORDER BY r.seq LIMIT ?",
            (after, limit),
        ).fetchall()
        return [(int(q), int(b), n, i, int(o), body, x) for q, b, n, i, o, body, x in rows]

    def _scan_blobs(self, after: str, limit: int) -> list[tuple[str, int, bytes]]:
        rows = self._query(
            "SELECT sha256, size, data FROM blobs WHERE sha256 > ? ORDER BY sha256 LIMIT ?", (after, limit)
        ).fetchall()
        return [(d, int(n), bytes(data)) for d, n, data in rows]

    # ---- queue leases -----------------------------------------------------------------------------

    def _lock_for_queue(self) -> None:
        """Take what every writer takes before the queue row (PostgreSQL: the head row); default none."""

    def queue_enqueue(self, key: str, namespace: str, branch_id: int, slot: str, config: str, now: float) -> None:
        """Mark a conversation's compression as wanted (insert, or bump its generation back to pending)."""
        with self.transaction():
            self._query(
                "INSERT INTO work_queue(key, namespace, branch_id, slot, config, updated) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET status = 'pending', "
                "generation = work_queue.generation + 1, config = excluded.config, error = NULL, "
                "lease_expires = CASE WHEN work_queue.lease_owner IS NULL THEN 0 ELSE work_queue.lease_expires END",
                (key, namespace, branch_id, slot, config, now),
            )

    def queue_renew(self, key: str, owner: str, lease_seconds: float, now: float) -> bool:
        """Extend ``owner``'s unexpired lease on ``key`` to ``now + lease_seconds`` (a heartbeat): one
        ``UPDATE`` that compares owner and expiry, in its own short transaction. It locks the queue row
        only (not PostgreSQL's head row), so it never waits behind record writes of other conversations.
        False when the lease was released, expired or taken over."""
        with self.transaction():
            cur = self._query(
                "UPDATE work_queue SET lease_expires = ? WHERE key = ? AND lease_owner = ? AND lease_expires >= ?",
                (now + lease_seconds, key, owner, now),
            )
            return bool(cur.rowcount == 1)

    def queue_check(self, key: str, owner: str, now: float) -> bool:
        """Inside the caller's transaction: True when ``owner`` still holds an unexpired lease on ``key``."""
        with self.transaction():
            self._lock_for_queue()
            cur = self._query(
                "UPDATE work_queue SET updated = updated WHERE key = ? AND lease_owner = ? AND lease_expires >= ?",
                (key, owner, now),
            )
            return bool(cur.rowcount == 1)

    def queue_finish(
        self, key: str, owner: str, generation: int, status: str, retry_at: float, now: float, error: str | None
    ) -> bool:
        """Give a lease back: ``status`` ``"done"`` (kept pending if the item was enqueued again since the
        claim), ``"pending"`` (claimable from ``retry_at``) or ``"failed"``. False when the lease was lost."""
        if status == "done":
            sql = (
                "UPDATE work_queue SET status = CASE WHEN generation = ? THEN 'done' ELSE 'pending' END, "
                "lease_owner = NULL, lease_expires = 0, updated = ?, error = ? "
                "WHERE key = ? AND lease_owner = ?"
            )
            params: tuple[Any, ...] = (generation, now, error, key, owner)
        else:
            sql = (
                "UPDATE work_queue SET status = ?, lease_owner = NULL, lease_expires = ?, updated = ?, "
                "error = ? WHERE key = ? AND lease_owner = ?"
            )
            params = (status, retry_at, now, error, key, owner)
        with self.transaction():
            return bool(self._query(sql, params).rowcount == 1)

    def queue_rows(self) -> list[dict[str, Any]]:
        """Every queue row (for reports and tests)."""
        with self._lock:  # the handle is shared with heartbeat threads: never read inside their transaction
            cur = self._query(
                "SELECT key, namespace, branch_id, slot, status, lease_owner, lease_expires, attempts, generation, "
                "error, updated FROM work_queue ORDER BY key"
            )
            return [dict(zip(QUEUE_COLUMNS, row, strict=True)) for row in cur.fetchall()]


_OPS = {int(op): op for op in Op}
"""Operations by their stored number (a dict lookup: ``Op(n)`` costs a tenth of a row's read)."""


def _record(
    seq: Any, branch_id: Any, slot: str, item: str, op: Any, body: str | None, ts: Any, ix: Any = None
) -> Record:
    """A record from its row; a row written around the library with an operation or a time no read can
    use (``op = 77``, ``ts = 'abc'``) is :class:`CorruptRecordError` naming it (``verify`` lists them)."""
    try:
        return Record(
            int(seq),
            int(branch_id),
            slot,
            item,
            _OPS.get(op) or Op(op),
            body,
            float(ts),
            ix if isinstance(ix, str) else None,
        )
    except (TypeError, ValueError) as exc:
        raise CorruptRecordError(int(seq), slot, item, f"its row cannot be read ({exc})") from None
