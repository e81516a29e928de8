"""The embedded default backend: one SQLite file in WAL mode.

Every logical write is one ``BEGIN IMMEDIATE`` transaction, so the write lock is held while the
sequence is allocated (``INTEGER PRIMARY KEY`` = max + 1; nothing is ever deleted, so sequences are
gap-free). Records are append-only: triggers refuse ``UPDATE`` and ``DELETE`` on ``records``
(migration 9, as on PostgreSQL) and on ``journal_entries`` (migration 3). ``durability="full"`` sets
``synchronous=FULL`` (fsync at every commit: survives power loss); ``"normal"`` (the default) sets
``synchronous=NORMAL`` (a process crash loses nothing committed; a power loss may lose the last
commits). Other handles' commits are detected with ``PRAGMA data_version``. Driver errors are
translated to :class:`StoreError` at the transaction edge.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from ..errors import StoreBusyError, StoreError
from .base import ROOT_BRANCH, Op, StoreStats, Transaction
from .fulltext import MAX_GROUPS, TextHit, fold_text
from .migrations import INDEX_FIELDS, Migration, apply_migrations
from .queue import WorkClaim
from .sql import SQLStore

__all__ = ["SQLiteStore"]

Durability = Literal["normal", "full"]


def _m1_schema(store: SQLiteStore) -> None:
    # One statement at a time: executescript() would COMMIT the migration's open transaction.
    script = """
        CREATE TABLE branches (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            parent_id INTEGER REFERENCES branches(id),
            fork_seq INTEGER,
            created_at REAL NOT NULL,
            deleted INTEGER NOT NULL DEFAULT 0
        );
        CREATE UNIQUE INDEX branches_live_name ON branches(name) WHERE deleted = 0;
        CREATE TABLE slots (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE records (
            seq INTEGER PRIMARY KEY,
            branch_id INTEGER NOT NULL,
            slot_id INTEGER NOT NULL,
            item TEXT NOT NULL,
            op INTEGER NOT NULL,
            ts REAL NOT NULL,
            body TEXT
        );
        CREATE INDEX records_slot ON records(slot_id, branch_id, seq);
        CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, size INTEGER NOT NULL, data BLOB NOT NULL) WITHOUT ROWID;
        """
    for statement in script.split(";"):
        if statement.strip():
            store._conn.execute(statement)
    store._conn.execute(
        "INSERT INTO branches(id, name, parent_id, fork_seq, created_at) VALUES (1, ?, NULL, NULL, ?)",
        (ROOT_BRANCH, time.time()),
    )


def _m2_item_index(store: SQLiteStore) -> None:
    # State lookups (latest version of one key) without scanning the state slot. Partial: message
    # appends never touch it (an index over every item costs about 40% of a write); one message's
    # versions are found through records_slot, which time travel can afford.
    store._conn.execute("CREATE INDEX records_item ON records(slot_id, item, seq) WHERE op = 4")


def _m3_journal(store: SQLiteStore) -> None:
    # The execution journal: append-only rows per project, refused at the database level when changed,
    # deleted, or inserted out of order (seq must be the project's head + 1 and prev_hash its hash).
    statements = [
        """CREATE TABLE journal_entries (
            project TEXT NOT NULL,
            seq INTEGER NOT NULL,
            store_seq INTEGER NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            author TEXT NOT NULL,
            idempotency_key TEXT NOT NULL,
            body TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL,
            ts REAL NOT NULL,
            PRIMARY KEY (project, seq),
            UNIQUE (project, idempotency_key)
        ) WITHOUT ROWID""",
        "CREATE INDEX journal_entries_kind ON journal_entries(project, kind, seq)",
        """CREATE TRIGGER journal_entries_no_update BEFORE UPDATE ON journal_entries
        BEGIN SELECT RAISE(ABORT, 'journal entries are immutable: UPDATE refused'); END""",
        """CREATE TRIGGER journal_entries_no_delete BEFORE DELETE ON journal_entries
        BEGIN SELECT RAISE(ABORT, 'journal entries are immutable: DELETE refused'); END""",
        """CREATE TRIGGER journal_entries_in_order BEFORE INSERT ON journal_entries
        WHEN NEW.seq IS NOT COALESCE((SELECT MAX(seq) FROM journal_entries WHERE project = NEW.project), 0) + 1
          OR NEW.prev_hash IS NOT COALESCE(
               (SELECT hash FROM journal_entries WHERE project = NEW.project AND seq = NEW.seq - 1), '')
        BEGIN SELECT RAISE(ABORT, 'journal entries are append-only: seq must be the head + 1, prev_hash its hash');
        END""",
    ]
    for statement in statements:
        store._conn.execute(statement)


def _m4_work_queue(store: SQLiteStore) -> None:
    # Pending summarisation work, one row per (namespace, branch, slot); leased by compression workers.
    # Mutable by design (it is a queue, not history): leases and statuses are updated in place.
    store._conn.execute(
        """CREATE TABLE work_queue (
            key TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            branch_id INTEGER NOT NULL,
            slot TEXT NOT NULL,
            config TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending',
            lease_owner TEXT,
            lease_expires REAL NOT NULL DEFAULT 0,
            attempts INTEGER NOT NULL DEFAULT 0,
            generation INTEGER NOT NULL DEFAULT 1,
            error TEXT,
            updated REAL NOT NULL
        )"""
    )
    store._conn.execute("CREATE INDEX work_queue_ready ON work_queue(status, lease_expires, updated)")


def _m5_text_index(store: SQLiteStore) -> None:
    # The full-text index (stores/fulltext.py): contentless FTS5, rowid = sequence * 256 + audience group,
    # so it stores only the inverted index, never a second copy of the text. columnsize=0 keeps no
    # per-document lengths: bm25 then reads every length as -1 (no length normalisation, which ranks
    # short chat turns better and costs a lookup less per match; the memory backend does the same).
    # Records written before this migration are indexed by Store.build_text_index, which marks its
    # progress in text_index_backfill.
    store._conn.execute(
        "CREATE VIRTUAL TABLE text_index USING fts5(body, content='', columnsize=0, "
        "tokenize='porter unicode61 remove_diacritics 2')"
    )  # (rebuilt by migration 6)
    store._conn.execute(
        "CREATE TABLE text_index_backfill (id INTEGER PRIMARY KEY CHECK (id = 1), done INTEGER NOT NULL, "
        "upto INTEGER NOT NULL)"
    )
    head = store._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM records").fetchone()[0]
    store._conn.execute("INSERT INTO text_index_backfill(id, done, upto) VALUES (1, 0, ?)", (head,))


TEXT_INDEX_DDL = (
    "CREATE VIRTUAL TABLE text_index USING fts5(body, content='', columnsize=0, "
    "tokenize='porter unicode61 remove_diacritics 2')"
)


def _m6_text_index_pending(store: SQLiteStore) -> None:
    # Two changes to the index of migration 5, which is rebuilt (the backfill of Store.build_text_index
    # indexes every message again, resumably, on the first search or `context-journal search`):
    # * document ids: a message's group-0 document (the only one, unless blocks have an audience) is its
    #   sequence, an audience group -(sequence * 256 + group) (see _doc_rowid). FTS5 stores each posting's
    #   rowid as a varint delta from the previous one: sequence * 256 made each about 1 byte longer (the
    #   store with its index: 1.43x the size of one without at 20,000 benchmark messages, 1.32x now);
    # * pending rows: a write queues its documents in text_index_pending (rowid and text, in the same
    #   transaction as its record) instead of writing them to FTS5, whose every commit flushes a new
    #   segment and updates its structure (about 30 us a write). A search folds every pending row into the
    #   index first (SQLiteStore._text_fold), and so does every 64th write of a handle or the second indexed
    #   write of one transaction: the index is complete whenever it is read, after a crash too.
    store._conn.execute("CREATE TABLE text_index_pending (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    _rebuild_text_index(store)


def _rebuild_text_index(store: SQLiteStore) -> None:
    """An empty message index, refilled by the resumable backfill (Store.build_text_index) on the first
    search; rows still pending are dropped with it (the backfill covers them)."""
    conn = store._conn
    conn.execute("DROP TABLE IF EXISTS text_index")
    conn.execute(TEXT_INDEX_DDL)
    conn.execute("DELETE FROM text_index_pending")
    head = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM records").fetchone()[0]
    conn.execute("UPDATE text_index_backfill SET done = 0, upto = ? WHERE id = 1", (head,))


SUMMARY_INDEX_DDL = (
    "CREATE VIRTUAL TABLE summary_index USING fts5(body, content='', columnsize=0, "
    "tokenize='porter unicode61 remove_diacritics 2')"
)


def _m7_summary_index(store: SQLiteStore) -> None:
    # Summaries get a full-text index of their own (stores/fulltext.py), built like the message index
    # (contentless FTS5, rowid = the summary record's sequence) but apart from it: a message search never
    # ranks summaries, and their words do not move its bm25 statistics. A summary record is indexed in the
    # transaction that writes it (Transaction.append), straight into FTS5: summaries are few (one per chunk
    # and merge, each after a model call), so they need no pending rows. The ones stored before are indexed
    # here. Message rows, their pending rows and their backfill are untouched.
    store._conn.execute(SUMMARY_INDEX_DDL)
    store._index_summary_records()


def _m8_folded_text(store: SQLiteStore) -> None:
    # Non-ASCII text is indexed folded as query words are (fulltext.fold_text): FTS5's unicode61 tokenizer
    # neither decomposes compatibility characters nor strips marks outside Latin, so Korean, fullwidth
    # text, ligatures and Devanagari words with a virama could not be found by their own words. Both
    # indexes are rebuilt: the message index by the resumable backfill (as migration 6), the summaries here.
    _rebuild_text_index(store)
    store._conn.execute("DROP TABLE IF EXISTS summary_index")
    _m7_summary_index(store)


JOURNAL_GUARDS = ("journal_entries_no_update", "journal_entries_no_delete", "journal_entries_in_order")
"""Triggers of migration 3 that keep ``journal_entries`` append-only and in chain order."""

RECORD_GUARDS = ("records_no_update", "records_no_delete", "records_no_replace")
"""Triggers of migration 9 that refuse UPDATE and DELETE on ``records`` (see :func:`_m9_records_append_only`)."""


def _m9_records_append_only(store: SQLiteStore) -> None:
    # Records are history (DESIGN.md invariant 2: edits and removals are new records), so the database refuses
    # UPDATE and DELETE on them whoever sends the statement, as PostgreSQL's records_refuse_change() does since
    # its migration 1. The third trigger refuses an insert that names a sequence already taken: INSERT OR
    # REPLACE deletes the row it replaces without firing DELETE triggers unless the connection turned
    # recursive_triggers on (the library's do; a raw connection does not). A library insert lets SQLite pick
    # the sequence (NEW.seq is -1 in the trigger), so it costs one primary-key probe that finds nothing.
    # Nothing in the library changes a record in place (the mutable tables are branches' `deleted` flag,
    # work_queue, text_index_pending and text_index_backfill: coordination state, not history, and not
    # guarded). A store of an older version gets the triggers at its next open.
    # Redaction lifts the guard for exactly its own statements: it would recreate the UPDATE and
    # DELETE triggers with a WHEN clause on a permit table (`WHEN NOT EXISTS (SELECT 1 FROM redaction_permit)`)
    # that only the redaction transaction fills and empties again before it commits, so no committed store
    # ever holds a permit; `context-journal verify` reports a missing trigger, and would report a permit row.
    update, delete, replace = RECORD_GUARDS
    statements = [
        f"CREATE TRIGGER IF NOT EXISTS {update} BEFORE UPDATE ON records "
        "BEGIN SELECT RAISE(ABORT, 'records are append-only: UPDATE refused'); END",
        f"CREATE TRIGGER IF NOT EXISTS {delete} BEFORE DELETE ON records "
        "BEGIN SELECT RAISE(ABORT, 'records are append-only: DELETE refused'); END",
        f"CREATE TRIGGER IF NOT EXISTS {replace} BEFORE INSERT ON records "
        "WHEN EXISTS (SELECT 1 FROM records WHERE seq = NEW.seq) "
        "BEGIN SELECT RAISE(ABORT, 'records are append-only: REPLACE refused'); END",
    ]
    for statement in statements:
        store._conn.execute(statement)


REDACTION_PERMIT = "redaction_permit"
"""Table of migration 10 whose one row, present only inside a redaction's transaction, lets the guard
triggers accept an UPDATE that sets a record's body to NULL or a redaction stub and changes nothing else."""


_STUB_OR_NULL = (
    "CASE WHEN NEW.body IS NULL THEN 1 "
    "WHEN json_valid(NEW.body) AND json_valid(OLD.body) THEN ("
    "json_extract(NEW.body, '$.redacted') IS 1 "
    "AND json_extract(NEW.body, '$.participant') IS json_extract(OLD.body, '$.participant') "
    "AND json_extract(NEW.body, '$.timestamp') IS json_extract(OLD.body, '$.timestamp') "
    "AND json_array_length(NEW.body, '$.content') = 1 "
    "AND json_extract(NEW.body, '$.content[0].type') = 'text' "
    "AND json_extract(NEW.body, '$.content[0].text') = '[redacted]' "
    # only the stub's keys, each once (json_extract reads a repeated key's first copy, Python its last)
    "AND NOT EXISTS (SELECT 1 FROM json_each(NEW.body) "
    "WHERE key NOT IN ('participant', 'content', 'timestamp', 'redacted')) "
    "AND (SELECT count(*) FROM json_each(NEW.body)) = (SELECT count(DISTINCT key) FROM json_each(NEW.body)) "
    "AND NOT EXISTS (SELECT 1 FROM json_each(NEW.body, '$.content[0]') "
    "WHERE key NOT IN ('type', 'text', 'audience')) "
    "AND (SELECT count(*) FROM json_each(NEW.body, '$.content[0]')) "
    "= (SELECT count(DISTINCT key) FROM json_each(NEW.body, '$.content[0]')) "
    "AND coalesce(json_type(NEW.body, '$.content[0].audience'), 'array') = 'array' "
    "AND NOT EXISTS (SELECT 1 FROM json_each(NEW.body, '$.content[0].audience') WHERE type != 'text')) "
    "ELSE 0 END"
)
"""The bodies a redaction may write in place of one (SQL over NEW and OLD): none, or the exact stub of
stores/redaction.redacted_body for the same participant and time (its text "[redacted]", its readers)."""


def _m10_redaction(store: SQLiteStore) -> None:
    # Redaction (stores/redaction.py) is the one change a record may undergo: its body set to NULL,
    # or for a message version to its stub (_STUB_OR_NULL: same participant and time, "[redacted]"). The UPDATE
    # guard of migration 9 is recreated with a WHEN clause that lets exactly that statement through while a permit
    # row exists; the redaction transaction inserts the row before its UPDATE and deletes it right after,
    # so no committed store holds one (`verify` reports one as a problem). DELETE and REPLACE stay refused.
    # redaction_scrub remembers whether the file may still hold bytes freed before secure deletion was on
    # (every connection turns it on since this version): the first redaction then rewrites the file once
    # (VACUUM) and clears the mark.
    conn = store._conn
    conn.execute(f"CREATE TABLE {REDACTION_PERMIT} (id INTEGER PRIMARY KEY CHECK (id = 1))")
    conn.execute("CREATE TABLE redaction_scrub (id INTEGER PRIMARY KEY CHECK (id = 1), legacy INTEGER NOT NULL)")
    legacy = conn.execute("SELECT EXISTS (SELECT 1 FROM records)").fetchone()[0]
    conn.execute("INSERT INTO redaction_scrub(id, legacy) VALUES (1, ?)", (int(legacy),))
    update = RECORD_GUARDS[0]
    conn.execute(f"DROP TRIGGER IF EXISTS {update}")
    conn.execute(
        f"CREATE TRIGGER {update} BEFORE UPDATE ON records WHEN NOT EXISTS (SELECT 1 FROM {REDACTION_PERMIT}) "
        f"OR NOT ({_STUB_OR_NULL}) "
        "OR NEW.seq IS NOT OLD.seq OR NEW.branch_id IS NOT OLD.branch_id "
        "OR NEW.slot_id IS NOT OLD.slot_id OR NEW.item IS NOT OLD.item OR NEW.op IS NOT OLD.op "
        "OR NEW.ts IS NOT OLD.ts "
        "BEGIN SELECT RAISE(ABORT, 'records are append-only: UPDATE refused'); END"
    )


_REDACTED_ENTRY_BODY = "redacted:sha256:" + "[0-9a-f]" * 64
"""GLOB of the one body a redaction may give a journal entry (context_journal.journal.redaction's marker)."""


def _m11_journal_redaction(store: SQLiteStore) -> None:
    # Journal redaction (journal/redaction.py): an entry keeps its row and hash, its body becomes
    # the marker "redacted:sha256:<hex of the removed body's sha256>" (the column is NOT NULL). The UPDATE
    # guard of migration 3 is recreated with a WHEN clause that lets exactly that statement through while the
    # redaction permit of migration 10 is held (inserted and deleted again inside the redaction's
    # transaction): the new body is the marker, the old one was not, every other column is unchanged.
    # DELETE and out-of-order INSERT stay refused.
    conn = store._conn
    update = JOURNAL_GUARDS[0]
    columns = ("project", "seq", "store_seq", "kind", "author", "idempotency_key", "prev_hash", "hash", "ts")
    same = " ".join(f"OR NEW.{c} IS NOT OLD.{c}" for c in columns)
    conn.execute(f"DROP TRIGGER IF EXISTS {update}")
    conn.execute(
        f"CREATE TRIGGER {update} BEFORE UPDATE ON journal_entries "
        f"WHEN NOT EXISTS (SELECT 1 FROM {REDACTION_PERMIT}) OR NEW.body IS NULL "
        f"OR NEW.body NOT GLOB '{_REDACTED_ENTRY_BODY}' OR OLD.body GLOB 'redacted:*' {same} "
        "BEGIN SELECT RAISE(ABORT, 'journal entries are immutable: UPDATE refused'); END"
    )


def _m12_index_fields(store: SQLiteStore) -> None:
    # What the message index keeps of a message version (Record.ix: the counter's key and the token
    # count), written with the record so that opening a store does not price every message again. Older
    # records have none and are priced at open as before. A redaction clears it with the body (the count
    # was the erased content's); nothing else may change it (the UPDATE guard of migration 10 refuses every
    # UPDATE outside a redaction).
    store._conn.execute("ALTER TABLE records ADD COLUMN ix TEXT")


MIGRATIONS: list[Migration[SQLiteStore]] = [
    Migration(1, "records, branches, slots, blobs", _m1_schema),
    Migration(2, "item index", _m2_item_index),
    Migration(3, "execution journal (append-only triggers)", _m3_journal),
    Migration(4, "compression work queue", _m4_work_queue),
    Migration(5, "full-text index (FTS5)", _m5_text_index),
    Migration(6, "full-text index: compact document ids, pending rows", _m6_text_index_pending),
    Migration(7, "full-text index: summaries", _m7_summary_index),
    Migration(8, "full-text index: non-ASCII text folded as query words are", _m8_folded_text),
    Migration(9, "records: append-only triggers", _m9_records_append_only),
    Migration(10, "redaction: a permit for exactly one UPDATE, secure deletion", _m10_redaction),
    Migration(11, "journal redaction: a permit for exactly one UPDATE of an entry's body", _m11_journal_redaction),
    Migration(12, INDEX_FIELDS, _m12_index_fields),
]

SCRUB_WAIT_MS = 250
"""How long the scrub after a redaction waits for another connection's lock, in milliseconds (the erasure
itself has committed; what the scrub cannot do then is reported, and ``Store.scrub`` can run again)."""

TEXT_FOLD_EVERY = 64
"""A handle folds the pending rows into the full-text index at every this many writes of its own (searches
fold them too): the bound on what a search may have to fold, and what one write may pay for it."""


def _doc_rowid(seq: int, group: int) -> int:
    """The FTS5 rowid of a document: the sequence for group 0, ``-(sequence * 256 + group)`` otherwise."""
    return seq if group == 0 else -(seq * MAX_GROUPS + group)


# The document id (fulltext.doc_id: sequence * 256 + group) of an FTS5 rowid, in SQL. Ties of bm25 are
# ordered by it, newest first, as on the other backends.
_DOC_KEY = f"(CASE WHEN rowid >= 0 THEN rowid * {MAX_GROUPS} ELSE -rowid END)"


class SQLiteStore(SQLStore):
    """A store in one SQLite file.

    Args:
        path: The database file (created if missing), or ``":memory:"``.
        durability: ``"normal"`` or ``"full"`` (see the module docstring).
        busy_timeout: Seconds to wait for another writer's lock before :class:`StoreBusyError`.
        create: Create the file when missing (default); with False a missing file raises StoreError.
    """

    backend = "sqlite"

    def __init__(
        self,
        path: str | os.PathLike[str],
        durability: Durability = "normal",
        busy_timeout: float = 60.0,
        create: bool = True,
    ) -> None:
        super().__init__()
        if durability not in ("normal", "full"):
            raise ValueError(f"durability must be 'normal' or 'full', got {durability!r}")
        self.path = str(path)
        self.durability = durability
        if self.path != ":memory:":
            if not create and not Path(self.path).exists():
                raise StoreError(f"no store at {self.path}; import or write something first")
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=busy_timeout)
            self._busy_ms = int(busy_timeout * 1000)
            self._conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            self._refuse_foreign()
            # A new file keeps a map of its pages so that ``checkpoint`` can give free pages back to the
            # file system (``incremental_vacuum``); on a file that already holds tables this does nothing.
            self._conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            self._enable_wal(busy_timeout)
            self._conn.execute(f"PRAGMA synchronous = {'FULL' if durability == 'full' else 'NORMAL'}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            # An INSERT OR REPLACE deletes the row it replaces; only with recursive triggers does that
            # delete meet the append-only triggers.
            self._conn.execute("PRAGMA recursive_triggers = ON")
            # Freed space is overwritten with zeros, so bytes a redaction removes (and the full-text index's
            # pending rows, deleted as they are folded) do not linger in free pages of the file.
            self._conn.execute("PRAGMA secure_delete = ON")
        except sqlite3.Error as exc:
            with contextlib.suppress(AttributeError, sqlite3.Error):
                self._conn.close()
            busy = isinstance(self._translate(exc), StoreBusyError)
            error = StoreBusyError if busy else StoreError
            raise error(f"cannot open SQLite store {self.path}: {exc}") from exc
        self._commits = 0
        self._slot_ids: dict[str, int] = {}
        self._slot_names: dict[int, str] = {}
        self._ensure_migration_table()
        apply_migrations(self, MIGRATIONS)

    def _refuse_foreign(self) -> None:
        """Refuse a database another tool made (tables, and no ``schema_migrations``) before anything is
        written to it: migrating it would add this library's tables and triggers to someone else's file.

        Raises:
            StoreError: naming some of its tables; the file is left as it was.
        """
        names = [
            r[0]
            for r in self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        if names and "schema_migrations" not in names:
            self._conn.close()
            shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
            raise StoreError(
                f"{self.path} is not a context-journal store: it holds other tables ({shown}) and no "
                "schema_migrations; it was left unchanged (give a new file or an existing store)"
            )

    def _enable_wal(self, timeout: float) -> None:
        """Switch to WAL. Several handles opening a new file at once race for the switch, and SQLite
        answers the losers "database is locked" at once, without its busy handler: retry until ``timeout``
        seconds have passed (then the error escapes)."""
        deadline = time.monotonic() + timeout
        delay = 0.001
        while True:
            try:
                self._conn.execute("PRAGMA journal_mode = WAL").fetchall()
                return
            except sqlite3.OperationalError as exc:
                if not isinstance(self._translate(exc), StoreBusyError) or time.monotonic() + delay > deadline:
                    raise
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    # ---- driver error translation -----------------------------------------------------------------

    @staticmethod
    def _translate(exc: sqlite3.Error) -> StoreError:
        text = str(exc)
        if "locked" in text or "busy" in text:
            return StoreBusyError(f"SQLite stayed locked past the busy timeout: {text}; retry later")
        return StoreError(f"SQLite error: {text}")

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        return self._exec(sql, params)

    def _exec(self, sql: str, params: tuple[object, ...] = ()) -> sqlite3.Cursor:
        try:
            return self._conn.execute(sql, params)
        except sqlite3.Error as exc:
            raise self._translate(exc) from exc

    def _exec_many(self, sql: str, params: Sequence[tuple[object, ...]]) -> None:
        try:
            if len(params) == 1:
                self._conn.execute(sql, params[0])
            else:
                self._conn.executemany(sql, params)
        except sqlite3.Error as exc:
            raise self._translate(exc) from exc

    # ---- migrations -------------------------------------------------------------------------------

    def _ensure_migration_table(self) -> None:
        self._exec(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "applied_at REAL NOT NULL)"
        )

    def _applied_versions(self) -> set[int]:
        return {row[0] for row in self._exec("SELECT version FROM schema_migrations")}

    def _run_migration(self, version: int, name: str, step: Callable[[], None]) -> None:
        with self.transaction():
            # Another process may have applied it while we waited for the lock.
            if self._exec("SELECT 1 FROM schema_migrations WHERE version = ?", (version,)).fetchone():
                return
            step()
            self._exec(
                "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)",
                (version, name, time.time()),
            )

    # ---- transactions -----------------------------------------------------------------------------

    def _begin(self) -> None:
        self._exec("BEGIN IMMEDIATE")

    def _commit(self) -> None:
        try:
            self._conn.execute("COMMIT")
            self._commits += 1
        except sqlite3.Error as exc:
            with contextlib.suppress(StoreError):
                self._rollback()  # also forgets slot ids allocated by the failed transaction
            raise self._translate(exc) from exc

    def _rollback(self) -> None:
        try:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
        except sqlite3.Error as exc:
            raise self._translate(exc) from exc
        finally:
            # Slot ids allocated in the rolled-back transaction are gone.
            self._slot_ids.clear()
            self._slot_names.clear()

    # ---- slots ------------------------------------------------------------------------------------

    def _slot_id(self, slot: str, create: bool) -> int | None:
        sid = self._slot_ids.get(slot)
        if sid is not None:
            return sid
        row = self._exec("SELECT id FROM slots WHERE name = ?", (slot,)).fetchone()
        if row is None:
            if not create:
                return None
            sid = int(self._exec("INSERT INTO slots(name) VALUES (?)", (slot,)).lastrowid or 0)
        else:
            sid = int(row[0])
        self._slot_ids[slot] = sid
        self._slot_names[sid] = slot
        return sid

    # ---- records ----------------------------------------------------------------------------------

    def _insert(
        self, branch_id: int, slot: str, item: str, op: Op, body: str | None, ts: float, ix: str | None = None
    ) -> int:
        sid = self._slot_id(slot, create=True)
        cur = self._exec(
            "INSERT INTO records(branch_id, slot_id, item, op, ts, body, ix) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (branch_id, sid, item, int(op), ts, body, ix),
        )
        return int(cur.lastrowid or 0)

    # ---- branches ---------------------------------------------------------------------------------

    def _insert_branch(self, name: str, parent_id: int, fork_seq: int, created_at: float) -> int:
        cur = self._exec(
            "INSERT INTO branches(name, parent_id, fork_seq, created_at) VALUES (?, ?, ?, ?)",
            (name, parent_id, fork_seq, created_at),
        )
        return int(cur.lastrowid or 0)

    def _mark_branch_deleted(self, branch_id: int) -> None:
        self._exec("UPDATE branches SET deleted = 1 WHERE id = ?", (branch_id,))

    # ---- blobs ------------------------------------------------------------------------------------

    def _put_blob(self, digest: str, data: bytes) -> None:
        self._exec("INSERT OR IGNORE INTO blobs(sha256, size, data) VALUES (?, ?, ?)", (digest, len(data), data))

    # ---- full-text index (stores/fulltext.py) -------------------------------------------------------

    has_text_index = True

    # Which transaction last queued a pending row, and which one folded (its later documents go straight
    # into the index); the pending rows since this handle's last fold (counted in the table at its first
    # write, so that short-lived handles writing one message each still fold every TEXT_FOLD_EVERY writes).
    _text_queued_in: Transaction | None = None
    _text_folded_in: Transaction | None = None
    _text_queued: int | None = None

    def _text_insert(self, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        self._exec_many(
            "INSERT INTO text_index(rowid, body) VALUES (?, ?)",
            [(_doc_rowid(seq, g), fold_text(t)) for g, t in documents],
        )

    def _text_index(self, tx: Transaction, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        # A lone write queues its documents as pending rows (one plain insert, same transaction); the
        # second indexed write of a transaction, or a handle's TEXT_FOLD_EVERY-th queued write, folds every
        # pending row into the index and writes its own (and the transaction's later ones) directly: many
        # documents in one transaction cost one FTS5 segment flush, as they always did.
        if tx is not self._text_folded_in:
            if self._text_queued is None:
                self._text_queued = int(self._exec("SELECT COUNT(*) FROM text_index_pending").fetchone()[0])
            if tx is not self._text_queued_in and self._text_queued < TEXT_FOLD_EVERY - 1:
                self._text_queued_in = tx
                self._text_queued += 1
                self._exec_many(
                    "INSERT INTO text_index_pending(id, body) VALUES (?, ?)",
                    [(_doc_rowid(seq, g), fold_text(t)) for g, t in documents],
                )
                return
            self._text_fold()
            self._text_folded_in = tx
        self._text_insert(seq, documents)

    def _text_fold(self) -> int:
        """Inside a write transaction: move every pending row into the full-text index (any handle's, in
        rowid order). Returns the rows moved."""
        self._text_queued = 0
        if self._exec("SELECT 1 FROM text_index_pending LIMIT 1").fetchone() is None:
            return 0
        moved = self._exec(
            "INSERT INTO text_index(rowid, body) SELECT id, body FROM text_index_pending ORDER BY id"
        ).rowcount
        self._exec("DELETE FROM text_index_pending")
        return int(moved)

    def text_pending_rows(self) -> int:
        """Documents written but not yet folded into the full-text index (any search folds them first)."""
        with self._lock:
            self._check_open()
            return int(self._exec("SELECT COUNT(*) FROM text_index_pending").fetchone()[0])

    def _text_search(self, terms: Sequence[str], slots: Sequence[str], limit: int) -> list[TextHit]:
        return self._ranked_search(terms, slots, limit, None)

    search_within = True

    def _text_search_within(
        self, terms: Sequence[str], slots: Sequence[str], limit: int, within: frozenset[int]
    ) -> list[TextHit]:
        return self._ranked_search(terms, slots, limit, within)

    def _ranked_search(
        self, terms: Sequence[str], slots: Sequence[str], limit: int, within: frozenset[int] | None
    ) -> list[TextHit]:
        """The best ``limit`` documents of ``slots`` (and of the records ``within``, when given: each matching
        document's record is checked against them before it is scored) matching any of ``terms``."""
        ids = {sid: name for name in slots if (sid := self._existing_slot(name)) is not None}
        if not ids:
            return []
        # Every write committed before this search is in the index or pending: fold first. (A write that
        # commits after the check is concurrent with the search, which may or may not see it.)
        if self._txn is not None or self._exec("SELECT 1 FROM text_index_pending LIMIT 1").fetchone():
            with self.transaction():
                self._text_fold()
        match = " OR ".join(f'"{t}"' for t in terms)
        # Rank first, join the few best to their records after (the join per match costs more than the
        # ranking); ask for more when other slots' documents took places.
        restrict = ""
        extra: tuple[str, ...] = ()
        if within is not None:
            restrict = f"AND {_DOC_KEY} / {MAX_GROUPS} IN (SELECT value FROM json_each(?)) "
            extra = (json.dumps(sorted(within)),)
        fetch = limit
        while True:
            ranked = self._text_ranked(terms, fetch) if within is None else None
            if ranked is None:
                rows = self._exec(
                    "SELECT t.key, t.score, r.branch_id, r.slot_id, r.item FROM "
                    f"(SELECT {_DOC_KEY} AS key, bm25(text_index) AS score FROM text_index WHERE text_index MATCH ? "
                    f"{restrict}ORDER BY score, key DESC LIMIT ?) AS t JOIN records r ON r.seq = t.key / {MAX_GROUPS} "
                    "ORDER BY t.score, t.key DESC",
                    (match, *extra, fetch),
                ).fetchall()
            else:
                rows = self._join_records(ranked)
            kept = [row for row in rows if row[3] in ids]
            if len(kept) >= limit or len(rows) < fetch:
                break
            fetch *= 4
        return [
            TextHit(int(key) // MAX_GROUPS, int(key) % MAX_GROUPS, -float(score), ids[sid], int(bid), item)
            for key, score, bid, sid, item in kept[:limit]
        ]

    # ---- the split ranking: the exact top-k without scoring every document of the common words ------
    #
    # bm25 of an OR query costs one auxiliary-function call per matching document, and a query holding
    # a speaker's name or a common word matches a third of a long journal (70,000 documents of 200,000
    # for "john"), almost all of them far below the best k. So the query's words are split in two: the
    # common ones C and the essential ones E (the rest). A document holding no E word scores below
    # UB(C), the sum of each C word's highest possible bm25 term: its idf times (k1 + 1) * sup over tf
    # of tf / (tf + k1 * (1 - b + b * D / avgdl)), D = -1 as FTS5 reads it with columnsize=0, N and
    # avgdl read from FTS5's averages record as bm25 reads them. Three cheap queries then rank exactly:
    #   Q0 = the rarest words (holding at least k documents): the k-th best of their own scores is a
    #        floor for the k-th best of the whole query (a word only adds to a score); C is then the
    #        most common words whose UB(C) stays under that floor;
    #   Q1 = E1 OR E2 ...  (Q0 itself when E is Q0's words): exact for documents without a C word;
    #   Q2 = (C1 OR C2 ...) AND (E1 OR E2 ...): documents with both, scored with every word they hold
    #        (bm25 adds a phrase's term only where it occurs).
    # Of a document in both, Q2's score is its full score, and the best k of Q1's and Q2's best k are
    # the best k of the full query, checked: their k-th must score above UB(C) and the index must not
    # have moved meanwhile (else the full query runs). A document's bm25 is the sum of the same terms
    # either way (the order of addition may differ, in the last bit). Word counts (documents holding a
    # word) are cached as lower bounds: the index only grows, so an older count is never more than
    # today's, its idf never less, and UB(C) stays a bound; a count is taken again once the index has
    # grown by a quarter (for the choice of C, not for the bound).

    _TEXT_FLOOR_SHARE = 0.1  # Q0 takes more rare words while they hold at most this share of all
    # ... and this share for a wide ranking (``limit`` >= _TEXT_WIDE_FROM: a recall compile asks for 200):
    # there a higher floor moves more common words into C, which costs Q0 less than it saves Q1 and Q2
    # (benchmarks/bench_search.py's 50 queries at 200,000 messages, k = 200, alternated: 5.2 ms of CPU
    # median at 0.35 against 6.0 at 0.1, twice; the same hits in the same order. At k = 20 no gain, so
    # 0.1 stays there; see the README's "Recall latency, re-measured").
    _TEXT_FLOOR_SHARE_WIDE = 0.35
    _TEXT_WIDE_FROM = 100
    TEXT_SPLIT_MIN_ROWS = 50_000
    """Documents the index must hold before a search splits its words (below it one OR query costs about
    the same: measured with ``benchmarks/bench_search.py``, no gain at 20,000, half the time at 200,000)."""

    _text_df: dict[str, tuple[int, int]] | None = None  # word -> (documents holding it, index rows then)
    _text_df_rows = 0

    def _text_totals(self) -> tuple[int, int] | None:
        """(documents, tokens) of the message index, from FTS5's averages record (what bm25 reads)."""
        row = self._exec("SELECT block FROM text_index_data WHERE id = 1").fetchone()
        if row is None or not row[0]:
            return None
        buf, at, out = bytes(row[0]), 0, []
        for _ in range(2):
            value = 0
            for k in range(9):
                if at >= len(buf):
                    return None
                byte = buf[at]
                at += 1
                if k == 8:
                    value = (value << 8) | byte
                    break
                value = (value << 7) | (byte & 0x7F)
                if byte < 0x80:
                    break
            out.append(value)
        return out[0], out[1]

    def _text_docs(self, terms: Sequence[str], rows: int) -> list[int]:
        """Documents holding each of ``terms`` (lower bounds: counted at most a quarter of the index ago)."""
        if self._text_df is None or rows < self._text_df_rows:  # first use, or the index was rebuilt
            self._text_df = {}
        self._text_df_rows = rows
        out: list[int] = []
        for t in terms:
            found = self._text_df.get(t)
            if found is None or rows > found[1] * 1.25:
                count = self._exec("SELECT count(*) FROM text_index WHERE text_index MATCH ?", (f'"{t}"',))
                found = (int(count.fetchone()[0]), rows)
                if self._txn is None:  # a count inside a write transaction could be rolled back
                    self._text_df[t] = found
            out.append(found[0])
        return out

    def _text_top(self, match: str, limit: int) -> list[tuple[int, float]]:
        return [
            (int(key), float(score))
            for key, score in self._exec(
                f"SELECT {_DOC_KEY} AS key, bm25(text_index) AS score FROM text_index WHERE text_index MATCH ? "
                "ORDER BY score, key DESC LIMIT ?",
                (match, limit),
            )
        ]

    def _text_ranked(self, terms: Sequence[str], limit: int) -> list[tuple[int, float]] | None:
        """The best ``limit`` (document key, bm25) of the OR query of ``terms`` (bm25 negative, best
        first, ties newest first) by the split ranking above, or None when it does not apply."""
        if len(terms) < 2:
            return None
        totals = self._text_totals()
        if totals is None or totals[0] < max(1, self.TEXT_SPLIT_MIN_ROWS):
            return None
        rows, tokens = totals
        k1, b = 1.2, 0.75
        c = k1 * (1 - b - b / (tokens / rows)) if tokens else -1.0
        if c <= -1:
            return None
        sup = 1.0 if c >= 0 else 1 / (1 + c)  # sup over tf >= 1 of tf / (tf + c)

        def idf(n: int) -> float:
            value = math.log((rows - n + 0.5) / (n + 0.5))
            return value if value > 0 else 1e-6

        docs = self._text_docs(terms, rows)
        order = sorted(range(len(terms)), key=lambda i: (docs[i], i))  # rarest first
        # The rarest words that hold ``limit`` documents between them: the limit-th best of their own
        # scores is a floor for the limit-th best of the whole query (words only add to a score).
        at, total = 0, docs[order[0]]
        while total < limit:
            at += 1
            if at == len(order):
                return None  # fewer documents than asked for: documents with only common words count
            total += docs[order[at]]
        # More rare words raise the floor (documents holding several) at little cost: take them while
        # they hold at most a tenth of the query's documents (a wide ranking: 35%).
        share = self._TEXT_FLOOR_SHARE_WIDE if limit >= self._TEXT_WIDE_FROM else self._TEXT_FLOOR_SHARE
        while at + 2 < len(order) and total + docs[order[at + 1]] <= sum(docs) * share:
            at += 1
            total += docs[order[at]]
        if at + 1 == len(order):
            return None
        first = order[: at + 1]
        floor_match = " OR ".join(f'"{terms[i]}"' for i in sorted(first))
        floor_top = self._text_top(floor_match, limit)
        if len(floor_top) < limit:
            return None
        floor = -floor_top[-1][1]
        common: list[int] = []
        bound = 0.0
        for i in reversed(order[at + 1 :]):
            term = idf(docs[i]) * (k1 + 1) * sup
            if (bound + term) * (1 + 1e-9) >= floor:
                break
            common.append(i)
            bound += term
        if not common:
            return None
        ess = " OR ".join(f'"{terms[i]}"' for i in range(len(terms)) if i not in common)
        com = " OR ".join(f'"{terms[i]}"' for i in sorted(common))
        merged = dict(floor_top if len(common) + len(first) == len(terms) else self._text_top(ess, limit))
        merged.update(self._text_top(f"({com}) AND ({ess})", limit))
        best = sorted(merged.items(), key=lambda kv: (kv[1], -kv[0]))[:limit]
        again = self._text_totals()
        if len(best) < limit or -best[-1][1] <= bound * (1 + 1e-9) + 1e-12 or again != totals:
            return None  # a document with only common words could be among them (or the index moved)
        return best

    def _join_records(self, ranked: Sequence[tuple[int, float]]) -> list[tuple[int, float, int, int, str]]:
        """``(key, score, branch, slot id, item)`` of ranked document keys, in their order."""
        found: dict[int, tuple[int, int, str]] = {}
        seqs = sorted({key // MAX_GROUPS for key, _ in ranked})
        for at in range(0, len(seqs), 500):
            part = seqs[at : at + 500]
            marks = ",".join("?" * len(part))
            for seq, bid, sid, item in self._exec(
                f"SELECT seq, branch_id, slot_id, item FROM records WHERE seq IN ({marks})", tuple(part)
            ):
                found[int(seq)] = (int(bid), int(sid), item)
        out: list[tuple[int, float, int, int, str]] = []
        for key, score in ranked:
            rec = found.get(key // MAX_GROUPS)
            if rec is not None:
                out.append((key, score, *rec))
        return out

    def _summary_insert(self, tx: Transaction, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        self._exec_many(
            "INSERT INTO summary_index(rowid, body) VALUES (?, ?)", [(seq, fold_text(t)) for _, t in documents]
        )

    def _summary_search(self, terms: Sequence[str], slots: Sequence[str], limit: int) -> list[TextHit]:
        ids = {sid: name for name in slots if (sid := self._existing_slot(name)) is not None}
        if not ids:
            return []
        match = " OR ".join(f'"{t}"' for t in terms)  # query words: letters and digits only
        marks = ",".join("?" * len(ids))
        rows = self._exec(
            "SELECT t.seq, t.score, r.branch_id, r.slot_id, r.item FROM "
            "(SELECT rowid AS seq, bm25(summary_index) AS score FROM summary_index WHERE summary_index MATCH ?) "
            f"AS t JOIN records r ON r.seq = t.seq WHERE r.slot_id IN ({marks}) ORDER BY t.score, t.seq DESC LIMIT ?",
            (match, *ids, limit),
        ).fetchall()
        return [TextHit(int(seq), 0, -float(score), ids[sid], int(bid), item) for seq, score, bid, sid, item in rows]

    def _text_backfill_state(self) -> tuple[int, int]:
        row = self._exec("SELECT done, upto FROM text_index_backfill WHERE id = 1").fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    # ---- redaction (stores/redaction.py) ------------------------------------------------------------

    can_redact = True

    def _redaction_permit(self, on: bool) -> None:
        if on:
            self._exec(f"INSERT INTO {REDACTION_PERMIT}(id) VALUES (1)")
        else:
            self._exec(f"DELETE FROM {REDACTION_PERMIT}")

    def _text_unindex(self, tx: Transaction, docs: Sequence[tuple[int, Sequence[tuple[int, str]] | None]]) -> None:
        # Contentless FTS5 (SQLite 3.40 has neither contentless_delete nor secure-delete) takes a document
        # out only when given the exact text it indexed: 'delete' rows, then 'optimize' merges every
        # segment so the removed terms leave the b-tree. A document still pending is one plain row; one
        # the backfill has not reached yet is in no index. Unknown text (see redact_records) rebuilds the
        # index, refilled by the resumable backfill at the next search.
        done, upto = self._text_backfill_state()
        deleted = False
        for seq, documents in docs:
            if documents is None:
                _rebuild_text_index(self)
                return
            rowids = [_doc_rowid(seq, g) for g, _ in documents]
            if not rowids:
                continue
            marks = ",".join("?" * len(rowids))
            if self._exec(f"DELETE FROM text_index_pending WHERE id IN ({marks})", tuple(rowids)).rowcount:
                continue
            if done < seq <= upto:
                continue
            self._exec_many(
                "INSERT INTO text_index(text_index, rowid, body) VALUES ('delete', ?, ?)",
                [(_doc_rowid(seq, g), fold_text(t)) for g, t in documents],
            )
            deleted = True
        if deleted:
            self._exec("INSERT INTO text_index(text_index) VALUES ('optimize')")

    def _summary_unindex(self, tx: Transaction, docs: Sequence[tuple[int, Sequence[tuple[int, str]]]]) -> None:
        rows = [(seq, fold_text(t)) for seq, documents in docs for _, t in documents]
        if rows:
            self._exec_many("INSERT INTO summary_index(summary_index, rowid, body) VALUES ('delete', ?, ?)", rows)
            self._exec("INSERT INTO summary_index(summary_index) VALUES ('optimize')")

    def _scrub(self) -> list[str]:
        left: list[str] = []
        if self.path == ":memory:":
            return left
        # The redaction has committed: never wait long for another connection here (a reader holding the
        # log open would keep a redact call waiting for the whole busy timeout); say what is left instead.
        self._conn.execute(f"PRAGMA busy_timeout = {SCRUB_WAIT_MS}")
        try:
            legacy = self._exec("SELECT legacy FROM redaction_scrub WHERE id = 1").fetchone()
            if legacy and legacy[0]:
                # Written before secure deletion: free pages may hold any old bytes. VACUUM rewrites the file.
                try:
                    self._conn.execute("VACUUM")
                    self._exec("UPDATE redaction_scrub SET legacy = 0 WHERE id = 1")
                except sqlite3.Error as exc:
                    left.append(
                        f"the file was not rewritten (VACUUM: {exc}); run `context-journal redactions --scrub` "
                        "when no other handle has it open"
                    )
            try:
                busy = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            except sqlite3.Error:
                busy = 1
            if busy:
                left.append(
                    "another connection was reading: the write-ahead log still holds old pages until it is "
                    "folded (`context-journal redactions --scrub` folds it)"
                )
        finally:
            self._conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
        return left

    # ---- integrity (stores/integrity.py) ------------------------------------------------------------

    def _guard_problems(self) -> list[str]:
        have = {name for (name,) in self._exec("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        problems = [
            f"the append-only trigger {name} is missing: records or journal entries can be changed in place"
            for name in (*RECORD_GUARDS, *JOURNAL_GUARDS)
            if name not in have
        ]
        permits = self._exec(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (REDACTION_PERMIT,)
        ).fetchone()
        if permits is not None and self._exec(f"SELECT 1 FROM {REDACTION_PERMIT} LIMIT 1").fetchone() is not None:
            problems.append("a redaction permit is stored: records' bodies can be erased outside a redaction")
        return problems

    # ---- misc -------------------------------------------------------------------------------------

    def _head_seq(self) -> int:
        row = self._exec("SELECT MAX(seq) FROM records").fetchone()
        return int(row[0] or 0)

    def _highest_sequence_seen(self) -> int:
        # The documents queued for the message index (text_index_pending: the writes of the last 64 or
        # fewer transactions of a handle, keyed as the index is, see _DOC_KEY): rowid = sequence, or
        # -(sequence * MAX_GROUPS + group) for an audience group. (The contentless FTS5 tables cannot be
        # scanned for their newest document, so records deleted once folded are not seen here.)
        row = self._exec("SELECT MAX(id), MIN(id) FROM text_index_pending").fetchone()
        keys = [int(k) for k in (row or ()) if k is not None]
        return max([0, *(k if k >= 0 else -k // MAX_GROUPS for k in keys)])

    def _change_token(self) -> int:
        # data_version changes on other connections' commits; our own commits are counted here.
        return (int(self._exec("PRAGMA data_version").fetchone()[0]) << 32) + self._commits

    def _bodies(self, seqs: Sequence[int]) -> dict[int, str | None]:
        out: dict[int, str | None] = {}
        ordered = list(seqs)
        for i in range(0, len(ordered), 500):
            part = ordered[i : i + 500]
            marks = ",".join("?" * len(part))
            for seq, body in self._exec(f"SELECT seq, body FROM records WHERE seq IN ({marks})", tuple(part)):
                out[int(seq)] = body
        return out

    def _token_after_commit(self) -> int:
        return (int(self._exec("PRAGMA data_version").fetchone()[0]) << 32) + self._commits + 1

    def _stats(self) -> StoreStats:
        n, payload = self._exec("SELECT COUNT(*), COALESCE(SUM(LENGTH(CAST(body AS BLOB))), 0) FROM records").fetchone()
        blob_bytes = self._exec("SELECT COALESCE(SUM(size), 0) FROM blobs").fetchone()[0]
        on_disk = 0
        if self.path != ":memory:":
            for suffix in ("", "-wal"):
                with contextlib.suppress(OSError):
                    on_disk += os.path.getsize(self.path + suffix)
        return StoreStats(int(n), int(payload) + int(blob_bytes), on_disk, self._head_seq())

    def checkpoint(self) -> None:
        """Give the database file's free pages back to the file system and fold the WAL into the file
        (``PRAGMA incremental_vacuum``, then ``PRAGMA wal_checkpoint(TRUNCATE)``).

        Pages are freed as the full-text index merges its segments and as pending index rows are folded
        (on a 3,000-message store 48 of 443 pages, 11% of the file); SQLite reuses them for later
        writes but keeps the file that long. Only stores created since this setting give them back
        (``auto_vacuum = INCREMENTAL`` must be set before the first table; ``VACUUM`` converts an older
        file). When another handle holds the write lock the free pages are left for the next checkpoint.
        """
        with self._lock:
            self._check_open()
            if self._txn is None:
                with contextlib.suppress(sqlite3.OperationalError):  # busy: left for the next checkpoint
                    # As a script: it frees one page per step, and ``execute`` steps a statement without
                    # result columns once (one page freed).
                    self._conn.executescript("PRAGMA incremental_vacuum;")
            self._exec("PRAGMA wal_checkpoint(TRUNCATE)")

    def _close(self) -> None:
        self._conn.close()

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r}, durability={self.durability!r})"

    # ---- compression work queue (see context_journal.stores.queue) ---------------------------------

    def queue_claim(self, owner: str, lease_seconds: float, now: float) -> WorkClaim | None:
        """Lease the pending item waiting longest (free, or whose lease expired), inside ``BEGIN IMMEDIATE``."""
        with self.transaction():
            rows = self._exec(
                "UPDATE work_queue SET lease_owner = ?, lease_expires = ?, attempts = attempts + 1, updated = ? "
                "WHERE key = (SELECT key FROM work_queue WHERE status = 'pending' AND lease_expires < ? "
                "ORDER BY updated LIMIT 1) "
                "RETURNING key, namespace, branch_id, slot, config, generation, attempts",
                (owner, now + lease_seconds, now, now),
            ).fetchall()
        return WorkClaim(*rows[0]) if rows else None
