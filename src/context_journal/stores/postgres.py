"""The PostgreSQL backend (psycopg 3; extra ``postgres``): one store shared by many processes and hosts.

Layout: the same tables as SQLite (``branches``, ``slots``, ``records``, ``blobs``,
``schema_migrations``) in a schema of their own (``schema=`` option, default ``context_journal``), so
several deployments can share one database.

Sequences: a one-row table ``head`` holds the newest sequence. A write transaction locks that row
(``SELECT ... FOR UPDATE``) at its first write and allocates ``head + 1, head + 2 ...`` under the lock,
storing the new head before it commits. Writers are therefore serialised in sequence order:
sequences are unique and gap-free per store (a rolled-back transaction consumes none), and a reader
that has seen head ``H`` has seen every record ``<= H`` — which is what makes incremental cache
refresh ("records after the last one I saw") exact across hosts.

Change detection: :meth:`change_token` reads ``head.seq`` and ``head.branch_version`` in one query.
Records cannot be changed: triggers refuse ``UPDATE``, ``DELETE`` and ``TRUNCATE`` on ``records``.
Driver errors are translated into :class:`~context_journal.errors.StoreError` at this edge.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import MissingExtraError, StoreBusyError, StoreError
from .base import ROOT_BRANCH, Op, StoreStats
from .migrations import Migration, apply_migrations
from .queue import WorkClaim
from .sql import SQLStore

try:
    import psycopg
    from psycopg import sql
except ImportError as _exc:  # pragma: no cover - depends on the extra
    raise MissingExtraError("psycopg", "postgres") from _exc

__all__ = ["PostgresStore"]

_SCHEMA_RE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def _m1_schema(store: PostgresStore) -> None:
    store._run_ddl(
        """
        CREATE TABLE branches (
            id BIGSERIAL PRIMARY KEY,
            name TEXT NOT NULL,
            parent_id BIGINT REFERENCES branches(id),
            fork_seq BIGINT,
            created_at DOUBLE PRECISION NOT NULL,
            deleted BOOLEAN NOT NULL DEFAULT FALSE
        );
        CREATE UNIQUE INDEX branches_live_name ON branches(name) WHERE NOT deleted;
        CREATE TABLE slots (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE head (id INT PRIMARY KEY CHECK (id = 1), seq BIGINT NOT NULL, branch_version BIGINT NOT NULL);
        INSERT INTO head VALUES (1, 0, 0);
        CREATE TABLE records (
            seq BIGINT PRIMARY KEY,
            branch_id BIGINT NOT NULL,
            slot_id BIGINT NOT NULL,
            item TEXT NOT NULL,
            op SMALLINT NOT NULL,
            ts DOUBLE PRECISION NOT NULL,
            body TEXT
        );
        CREATE INDEX records_slot ON records(slot_id, branch_id, seq);
        CREATE INDEX records_item ON records(slot_id, item, seq) WHERE op = 4;
        CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, size BIGINT NOT NULL, data BYTEA NOT NULL);
        CREATE FUNCTION records_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'records are append-only: % refused', TG_OP;
        END $$;
        CREATE TRIGGER records_no_update BEFORE UPDATE OR DELETE ON records
            FOR EACH ROW EXECUTE FUNCTION records_refuse_change();
        CREATE TRIGGER records_no_truncate BEFORE TRUNCATE ON records
            FOR EACH STATEMENT EXECUTE FUNCTION records_refuse_change();
        """
    )
    store._execute(
        "INSERT INTO branches(name, parent_id, fork_seq, created_at) VALUES (%s, NULL, NULL, %s)",
        (ROOT_BRANCH, time.time()),
    )


def _m2_journal(store: PostgresStore) -> None:
    # The execution journal: append-only rows per project; UPDATE, DELETE and TRUNCATE refused by triggers,
    # and an insert refused unless seq is the project's head + 1 and prev_hash the head's hash.
    store._run_ddl(
        """
        CREATE TABLE journal_entries (
            project TEXT NOT NULL,
            seq BIGINT NOT NULL,
            store_seq BIGINT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            author TEXT NOT NULL,
            idempotency_key TEXT NOT NULL,
            body TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL,
            ts DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (project, seq),
            UNIQUE (project, idempotency_key)
        );
        CREATE INDEX journal_entries_kind ON journal_entries(project, kind, seq);
        CREATE FUNCTION journal_entries_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'journal entries are immutable: % refused', TG_OP;
        END $$;
        CREATE TRIGGER journal_entries_no_update BEFORE UPDATE OR DELETE ON journal_entries
            FOR EACH ROW EXECUTE FUNCTION journal_entries_refuse_change();
        CREATE TRIGGER journal_entries_no_truncate BEFORE TRUNCATE ON journal_entries
            FOR EACH STATEMENT EXECUTE FUNCTION journal_entries_refuse_change();
        CREATE FUNCTION journal_entries_check_order() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            head_seq BIGINT;
            head_hash TEXT;
        BEGIN
            SELECT seq, hash INTO head_seq, head_hash FROM journal_entries
                WHERE project = NEW.project ORDER BY seq DESC LIMIT 1;
            IF NEW.seq <> COALESCE(head_seq, 0) + 1 OR NEW.prev_hash <> COALESCE(head_hash, '') THEN
                RAISE EXCEPTION 'journal entries are append-only: seq must be the head + 1, prev_hash its hash';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER journal_entries_in_order BEFORE INSERT ON journal_entries
            FOR EACH ROW EXECUTE FUNCTION journal_entries_check_order();
        """
    )


def _m3_work_queue(store: PostgresStore) -> None:
    # Pending summarisation work, one row per (namespace, branch, slot); leased by compression workers with
    # SELECT ... FOR UPDATE SKIP LOCKED. Mutable by design (coordination state, not history).
    store._run_ddl(
        """
        CREATE TABLE work_queue (
            key TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            branch_id BIGINT NOT NULL,
            slot TEXT NOT NULL,
            config TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending',
            lease_owner TEXT,
            lease_expires DOUBLE PRECISION NOT NULL DEFAULT 0,
            attempts INT NOT NULL DEFAULT 0,
            generation BIGINT NOT NULL DEFAULT 1,
            error TEXT,
            updated DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX work_queue_ready ON work_queue(status, lease_expires, updated)
        """
    )


MIGRATIONS: list[Migration[PostgresStore]] = [
    Migration(1, "records, branches, slots, head, blobs; append-only triggers", _m1_schema),
    Migration(2, "execution journal (append-only triggers)", _m2_journal),
    Migration(3, "compression work queue", _m3_work_queue),
]





class PostgresStore(SQLStore):
    """A store in a PostgreSQL database.

    Args:
        url: A libpq URL, e.g. ``postgresql://postgres@127.0.0.1:5432/test``.
        schema: Schema holding this store's tables (created if missing); lower-case identifier.
        lock_timeout: Seconds a writer waits for the sequence lock before :class:`StoreBusyError`.
        connect_timeout: Seconds to wait for the server.

    Raises:
        StoreError: the server cannot be reached, or the schema name is not a plain identifier.
        MigrationError: the schema was written by a newer library.
    """

    backend = "postgres"

    def __init__(
        self,
        url: str,
        *,
        schema: str = "context_journal",
        lock_timeout: float = 60.0,
        connect_timeout: float = 10.0,
    ) -> None:
        super().__init__()
        if not _SCHEMA_RE.match(schema):
            raise StoreError(f"schema {schema!r} must be a lower-case identifier (letters, digits, _)")
        self.url = url
        self.schema = schema
        self._lock_timeout = lock_timeout
        try:
            self._conn = psycopg.connect(url, autocommit=True, connect_timeout=int(connect_timeout))
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {_redact(url)}: {exc}") from exc
        self._slot_ids: dict[str, int] = {}
        self._in_txn = False
        self._locked_head: int | None = None
        self._next_seq = 0
        self._bump_branches = False
        self._execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        self._execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        self._execute(f"SET lock_timeout = '{int(lock_timeout * 1000)}ms'")
        self._execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INT PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at DOUBLE PRECISION NOT NULL)"
        )
        apply_migrations(self, MIGRATIONS)

    # ---- driver edge ------------------------------------------------------------------------------

    @staticmethod
    def _translate(exc: psycopg.Error) -> StoreError:
        if isinstance(exc, psycopg.errors.LockNotAvailable):
            return StoreBusyError(f"PostgreSQL lock wait exceeded the lock timeout: {exc}; retry later")
        return StoreError(f"PostgreSQL error: {exc}")

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> psycopg.Cursor[Any]:
        return self._execute(sql.replace("?", "%s"), params)

    def _lock_for_queue(self) -> None:
        self._lock_head()  # the order every writer uses: head row first, then the queue row

    def _execute(self, query: Any, params: tuple[Any, ...] | None = None) -> psycopg.Cursor[Any]:
        try:
            return self._conn.execute(query, params)
        except psycopg.Error as exc:
            raise self._translate(exc) from exc

    def _run_ddl(self, script: str) -> None:
        # Split on top-level semicolons, leaving $$-quoted function bodies whole.
        parts = re.split(r";\s*(?=(?:[^$]*\$\$[^$]*\$\$)*[^$]*$)", script)
        for statement in parts:
            if statement.strip():
                self._execute(statement)

    # ---- migrations -------------------------------------------------------------------------------

    def _applied_versions(self) -> set[int]:
        return {int(r[0]) for r in self._execute("SELECT version FROM schema_migrations").fetchall()}

    def _run_migration(self, version: int, name: str, step: Callable[[], None]) -> None:
        with self.transaction():
            # Serialise concurrent first opens: one migrates, the others find it done.
            self._execute("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.migrations'))")
            if self._execute("SELECT 1 FROM schema_migrations WHERE version = %s", (version,)).fetchone():
                return
            step()
            self._execute(
                "INSERT INTO schema_migrations(version, name, applied_at) VALUES (%s, %s, %s)",
                (version, name, time.time()),
            )

    # ---- transactions -----------------------------------------------------------------------------

    def _begin(self) -> None:
        self._execute("BEGIN")
        self._in_txn = True
        self._locked_head = None
        self._bump_branches = False

    def _lock_head(self) -> int:
        if self._locked_head is None:
            row = self._execute("SELECT seq FROM head WHERE id = 1 FOR UPDATE").fetchone()
            self._locked_head = int(row[0]) if row else 0
            self._next_seq = self._locked_head
        return self._locked_head

    def _commit(self) -> None:
        try:
            if self._locked_head is not None and (self._next_seq != self._locked_head or self._bump_branches):
                self._conn.execute(
                    "UPDATE head SET seq = %s, branch_version = branch_version + %s WHERE id = 1",
                    (self._next_seq, 1 if self._bump_branches else 0),
                )
            self._conn.execute("COMMIT")
        except psycopg.Error as exc:
            with contextlib.suppress(psycopg.Error):
                self._conn.execute("ROLLBACK")
            self._reset_txn()
            raise self._translate(exc) from exc
        self._reset_txn()

    def _rollback(self) -> None:
        with contextlib.suppress(psycopg.Error):
            self._conn.execute("ROLLBACK")
        self._slot_ids.clear()
        self._reset_txn()

    def _reset_txn(self) -> None:
        self._in_txn = False
        self._locked_head = None
        self._bump_branches = False

    # ---- slots ------------------------------------------------------------------------------------

    def _slot_id(self, slot: str, create: bool) -> int | None:
        sid = self._slot_ids.get(slot)
        if sid is not None:
            return sid
        row = self._execute("SELECT id FROM slots WHERE name = %s", (slot,)).fetchone()
        if row is None:
            if not create:
                return None
            row = self._execute(
                "INSERT INTO slots(name) VALUES (%s) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name "
                "RETURNING id",
                (slot,),
            ).fetchone()
            assert row is not None
        sid = int(row[0])
        self._slot_ids[slot] = sid
        return sid

    # ---- records ----------------------------------------------------------------------------------

    def _insert(self, branch_id: int, slot: str, item: str, op: Op, body: str | None, ts: float) -> int:
        self._lock_head()
        sid = self._slot_id(slot, create=True)
        seq = self._next_seq + 1
        self._execute(
            "INSERT INTO records(seq, branch_id, slot_id, item, op, ts, body) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (seq, branch_id, sid, item, int(op), ts, body),
        )
        self._next_seq = seq
        return seq

    # ---- branches ---------------------------------------------------------------------------------

    def _lock_branches(self) -> None:
        # Branch checks read the table under the head row lock, which every writer takes: a concurrent
        # create of the same name, or a fork of a branch being deleted, waits and then sees the result.
        self._lock_head()

    def _insert_branch(self, name: str, parent_id: int, fork_seq: int, created_at: float) -> int:
        self._lock_head()
        self._bump_branches = True
        row = self._execute(
            "INSERT INTO branches(name, parent_id, fork_seq, created_at) VALUES (%s, %s, %s, %s) RETURNING id",
            (name, parent_id, fork_seq, created_at),
        ).fetchone()
        assert row is not None
        return int(row[0])

    def _mark_branch_deleted(self, branch_id: int) -> None:
        self._lock_head()
        self._bump_branches = True
        self._execute("UPDATE branches SET deleted = TRUE WHERE id = %s", (branch_id,))

    # ---- blobs ------------------------------------------------------------------------------------

    def _put_blob(self, digest: str, data: bytes) -> None:
        self._execute(
            "INSERT INTO blobs(sha256, size, data) VALUES (%s, %s, %s) ON CONFLICT (sha256) DO NOTHING",
            (digest, len(data), data),
        )

    # ---- execution journal --------------------------------------------------------------------------

    def _journal_lock(self, project: str) -> None:
        # Every writer takes the head row lock before its first record; taking it first here orders journal
        # writers too (the head read after the lock sees every committed entry: READ COMMITTED).
        self._lock_head()

    # ---- misc -------------------------------------------------------------------------------------

    def _head_seq(self) -> int:
        if self._in_txn and self._locked_head is not None:
            return self._next_seq
        row = self._execute("SELECT seq FROM head WHERE id = 1").fetchone()
        return int(row[0]) if row else 0

    def _change_token(self) -> int:
        row = self._execute("SELECT seq, branch_version FROM head WHERE id = 1").fetchone()
        return (int(row[0]) << 20) + int(row[1]) if row else 0

    def _token_after_commit(self) -> int:
        row = self._execute("SELECT branch_version FROM head WHERE id = 1").fetchone()
        version = int(row[0]) if row else 0
        return (self._next_seq << 20) + version + (1 if self._bump_branches else 0)

    def _bodies(self, seqs: Sequence[int]) -> dict[int, str | None]:
        rows = self._execute("SELECT seq, body FROM records WHERE seq = ANY(%s)", (list(seqs),)).fetchall()
        return {int(seq): body for seq, body in rows}

    def _stats(self) -> StoreStats:
        row = self._execute("SELECT COUNT(*), COALESCE(SUM(OCTET_LENGTH(body)), 0) FROM records").fetchone()
        assert row is not None
        blob_row = self._execute("SELECT COALESCE(SUM(size), 0) FROM blobs").fetchone()
        size_row = self._execute(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relkind = 'r'",
            (self.schema,),
        ).fetchone()
        return StoreStats(
            int(row[0]),
            int(row[1]) + int(blob_row[0] if blob_row else 0),
            int(size_row[0] if size_row else 0),
            self._head_seq(),
        )

    def drop_schema(self) -> None:
        """Drop this store's schema and everything in it (tests and benchmarks only). Closes the handle."""
        with self._lock:
            self._check_open()
            self._execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(self.schema)))
            self.close()

    def _close(self) -> None:
        self._conn.close()

    def __repr__(self) -> str:
        return f"PostgresStore({_redact(self.url)!r}, schema={self.schema!r})"

    # ---- compression work queue (see context_journal.stores.queue) ---------------------------------

    def queue_claim(self, owner: str, lease_seconds: float, now: float) -> WorkClaim | None:
        """Lease the pending item waiting longest (free, or whose lease expired): ``SELECT ... FOR UPDATE
        SKIP LOCKED``, then the lease columns, in one transaction (the head row is not locked)."""
        with self.transaction():
            row = self._execute(
                "SELECT key, namespace, branch_id, slot, config, generation, attempts FROM work_queue "
                "WHERE status = 'pending' AND lease_expires < %s ORDER BY updated LIMIT 1 FOR UPDATE SKIP LOCKED",
                (now,),
            ).fetchone()
            if row is None:
                return None
            self._execute(
                "UPDATE work_queue SET lease_owner = %s, lease_expires = %s, attempts = attempts + 1, updated = %s "
                "WHERE key = %s",
                (owner, now + lease_seconds, now, row[0]),
            )
        return WorkClaim(row[0], row[1], int(row[2]), row[3], row[4], int(row[5]), int(row[6]) + 1)

def _redact(url: str) -> str:
    """The URL with any password replaced by ``***``."""
    return re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", url)
