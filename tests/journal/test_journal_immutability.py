"""Immutability at the database level, and tamper detection by the hash chain.

On SQLite and PostgreSQL the journal's table refuses UPDATE, DELETE (and TRUNCATE on PostgreSQL) and an
insert that is not the project's head + 1 chained to the head's hash, whoever sends the statement (raw
connections here, not the library). The memory backend refuses the same inserts in Python. When an entry
is changed anyway (triggers dropped or disabled by someone with the rights), :meth:`verify_chain` names it.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from context_journal.errors import StoreError
from context_journal.journal import ExecutionJournal, JournalIntegrityError
from context_journal.stores import JournalRow, MemoryStore, SQLiteStore, Store
from tests.journal._journal_helpers import handoff


def _fill(journal: ExecutionJournal, n: int = 5) -> None:
    for i in range(1, n + 1):
        journal.append("p", "handoff", handoff(f"state {i}"), "ann", f"k{i}")


@contextmanager
def _raw(store: Store) -> Iterator[Any]:
    """A raw DB-API connection to the store's database (autocommit), outside the library."""
    if isinstance(store, SQLiteStore):
        conn = sqlite3.connect(store.path, isolation_level=None)
        try:
            yield conn
        finally:
            conn.close()
        return
    import psycopg

    from context_journal.stores.postgres import PostgresStore

    assert isinstance(store, PostgresStore), store
    with psycopg.connect(store.url, autocommit=True) as pg:
        pg.execute(f'SET search_path TO "{store.schema}"')
        yield pg


def _refused(store: Store) -> type[BaseException] | tuple[type[BaseException], ...]:
    if isinstance(store, SQLiteStore):
        return sqlite3.DatabaseError
    import psycopg

    return psycopg.Error


def test_database_refuses_update_delete_and_out_of_order_inserts(journal: ExecutionJournal) -> None:
    store = journal.store
    if isinstance(store, MemoryStore):
        pytest.skip("no database: see test_memory_refuses_out_of_order_rows")
    _fill(journal)
    error = _refused(store)
    head = store.journal_head("p")
    assert head is not None
    columns = "project, seq, store_seq, kind, author, idempotency_key, body, prev_hash, hash, ts"
    mark = "?" if isinstance(store, SQLiteStore) else "%s"
    insert = f"INSERT INTO journal_entries({columns}) VALUES ({', '.join([mark] * 10)})"
    good = ("p", 6, 10_000, "step", "x", "new-key", '{"report":"r"}', head.hash, "h", 0.0)
    with _raw(store) as conn:
        for statement in (
            "UPDATE journal_entries SET body = '{}' WHERE project = 'p' AND seq = 2",
            "UPDATE journal_entries SET author = 'mallory'",
            "DELETE FROM journal_entries WHERE project = 'p' AND seq = 5",
            "DELETE FROM journal_entries",
        ):
            with pytest.raises(error, match="immutable"):
                conn.execute(statement)
        for seq, prev in ((8, head.hash), (5, head.hash), (3, head.hash), (6, "not the head's hash"), (1, "")):
            with pytest.raises(error, match=r"append-only|UNIQUE|duplicate"):
                conn.execute(insert, (*good[:1], seq, *good[2:7], prev, *good[8:]))
        if not isinstance(store, SQLiteStore):
            with pytest.raises(error, match="immutable"):
                conn.execute("TRUNCATE journal_entries")
            with pytest.raises(error, match="immutable"):  # an upsert's UPDATE is refused too
                conn.execute(
                    insert + " ON CONFLICT (project, idempotency_key) DO UPDATE SET body = 'x'",
                    ("p", 6, 10_001, "step", "x", "k5", "{}", head.hash, "h", 0.0),
                )
        # the in-order insert the triggers allow (the chain check below then flags its made-up hash)
        conn.execute(insert, good)
    assert [r.seq for r in store.journal_rows("p")] == [1, 2, 3, 4, 5, 6]
    with pytest.raises(JournalIntegrityError, match="#6"):  # never served (tampered entries are refused)
        journal.entries("p")
    report = journal.verify_chain("p")
    assert not report.ok and report.first_bad_seq == 6


def test_memory_refuses_out_of_order_rows() -> None:
    store = MemoryStore()
    journal = ExecutionJournal(store)
    _fill(journal, 3)
    head = store.journal_head("p")
    assert head is not None
    for seq, prev in ((5, head.hash), (3, head.hash), (4, "x")):
        with pytest.raises(StoreError, match="append-only"), store.transaction() as txn:
            txn.append_journal(1, "p", seq, "step", "x", f"k-{seq}", "{}", prev, "h")
    with pytest.raises(StoreError, match="already used"), store.transaction() as txn:
        txn.append_journal(1, "p", 4, "step", "x", "k1", "{}", head.hash, "h")
    assert [r.seq for r in store.journal_rows("p")] == [1, 2, 3]
    assert store.journal_row_by_key("p", "k-5") is None


def _tamper(store: Store, seq: int, body: str) -> None:
    """Change one entry's body behind the journal's back (drop or disable the guard first)."""
    if isinstance(store, MemoryStore):
        rows = store._journal["p"]
        rows[seq - 1] = dataclasses.replace(rows[seq - 1], body=body)
        return
    with _raw(store) as conn:
        if isinstance(store, SQLiteStore):
            conn.execute("DROP TRIGGER journal_entries_no_update")
            conn.execute("UPDATE journal_entries SET body = ? WHERE project = 'p' AND seq = ?", (body, seq))
        else:
            conn.execute("ALTER TABLE journal_entries DISABLE TRIGGER USER")
            conn.execute("UPDATE journal_entries SET body = %s WHERE project = 'p' AND seq = %s", (body, seq))
            conn.execute("ALTER TABLE journal_entries ENABLE TRIGGER USER")


def test_hash_chain_catches_a_tampered_entry(journal: ExecutionJournal) -> None:
    _fill(journal, 6)
    assert journal.verify_chain("p").ok and journal.verify_chain("p").checked == 6
    original = journal.get_entry("p", 4)
    forged = dict(original.body, state="everything is done, trust me")
    _tamper(journal.store, 4, json.dumps(forged, sort_keys=True, separators=(",", ":")))
    with pytest.raises(JournalIntegrityError, match="#4"):  # the forged entry is not served
        journal.get_entry("p", 4)
    report = journal.verify_chain("p")
    assert not report.ok and report.first_bad_seq == 4 and report.checked == 3
    assert "hash" in report.reason
    with pytest.raises(JournalIntegrityError, match="#4"):
        journal.verify_chain("p", raise_on_error=True)


def test_verify_chain_pages_through_long_journals(monkeypatch: pytest.MonkeyPatch) -> None:
    from context_journal.journal import execution

    monkeypatch.setattr(execution, "_PAGE", 3)
    journal = ExecutionJournal(MemoryStore())
    _fill(journal, 10)
    assert journal.verify_chain("p").ok and journal.verify_chain("p").checked == 10
    rows = journal.store._journal["p"]  # type: ignore[attr-defined]
    rows[7] = dataclasses.replace(rows[7], hash="0" * 64)
    report = journal.verify_chain("p")
    assert not report.ok and report.first_bad_seq == 8


def test_journal_rows_are_plain_data() -> None:
    row = JournalRow("p", 1, 1, "step", "a", "k", "{}", "", "h", 0.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        row.body = "x"  # type: ignore[misc]
