"""Redaction of execution-journal entries: the body is gone, the chain and the proof stay.

Each test writes a unique marker into one entry's body (and, through the offline synthesizer, into a stored
brief), redacts the entry, and looks for the marker wherever it could remain: every journal read (entries,
summaries, the fold, the harness view, briefs, drift), on SQLite the bytes of the file and its write-ahead
log, on PostgreSQL every row of every table of the store's schema as text. The chain still verifies and
names the redacted seqs; tampering is still caught; the database guards still refuse every other change.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.errors import RedactionError
from context_journal.journal import (
    EntryNotFoundError,
    ExecutionJournal,
    IdempotencyKeyReuseError,
    JournalIntegrityError,
)
from context_journal.journal.entries import HASH_VERSION_KEY
from context_journal.journal.redaction import JOURNAL_REDACTION_TYPE, REDACTED_BODY_PREFIX, redaction_item
from context_journal.stores import MemoryStore, SQLiteStore, Store
from context_journal.stores.integrity import check_store
from context_journal.stores.redaction import REDACTION_SLOT
from tests.hypothesis_budget import examples
from tests.journal._journal_helpers import handoff, plan

MARK = "WOMBATQUIXOTE4417"


def _fill(journal: ExecutionJournal) -> None:
    """Plan #1, handoffs #2..#5; #3 holds the marker (in its state and a rule-out)."""
    journal.append("p", "plan", plan(), "ann", "k1")
    journal.append("p", "handoff", handoff("state two"), "ann", "k2")
    secret = handoff(f"the deploy key is {MARK}", ruled_out=[("R1", f"key {MARK}", "leaked")])
    journal.append("p", "handoff", secret, "bob", "k3")
    journal.append("p", "handoff", handoff("state four"), "ann", "k4")
    journal.append("p", "step", {"report": "ran the tests"}, "cid", "k5")


def _everything(journal: ExecutionJournal) -> str:
    """Every text the journal gives out about project ``p``."""
    parts = [
        json.dumps([e.model_dump(mode="json") for e in journal.entries("p")]),
        journal.get_entry("p", 3).model_dump_json(),
        journal.get_project_summaries("p", limit=50).model_dump_json(),
        journal.state("p").model_dump_json(),
        journal.state("p", as_of=4).model_dump_json(),
        journal.render_for_harness("p", 4000).model_dump_json(),
        json.dumps([b.model_dump(mode="json") for b in journal.list_briefs("p")]),
        journal.check_drift("p").model_dump_json(),
    ]
    return " ".join(parts)


@contextmanager
def _raw(store: Store) -> Iterator[Any]:
    """A raw autocommit connection to the store's database, outside the library."""
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


def _set_row(store: Store, seq: int, **changes: Any) -> None:
    """Change columns of entry ``seq`` of ``p`` behind the journal's back (the guard dropped)."""
    if isinstance(store, MemoryStore):
        rows = store._journal["p"]
        rows[seq - 1] = dataclasses.replace(rows[seq - 1], **changes)
        return
    sets = ", ".join(f"{k} = {'?' if isinstance(store, SQLiteStore) else '%s'}" for k in changes)
    mark = "?" if isinstance(store, SQLiteStore) else "%s"
    with _raw(store) as conn:
        if isinstance(store, SQLiteStore):
            conn.execute("DROP TRIGGER journal_entries_no_update")
        else:
            conn.execute("ALTER TABLE journal_entries DISABLE TRIGGER USER")
        conn.execute(
            f"UPDATE journal_entries SET {sets} WHERE project = 'p' AND seq = {mark}", (*changes.values(), seq)
        )
        if not isinstance(store, SQLiteStore):
            conn.execute("ALTER TABLE journal_entries ENABLE TRIGGER USER")


def test_redacted_entry_is_gone_from_every_read_and_the_chain_verifies(journal: ExecutionJournal) -> None:
    _fill(journal)
    brief = journal.build_brief("p")  # the offline synthesizer quotes the handoffs verbatim
    assert MARK in brief.model_dump_json() and MARK in _everything(journal)  # the scans below can fail
    store = journal.store
    before = {r.seq: r for r in store.journal_rows("p")}

    red = journal.redact_entry("p", 3, reason="a deploy key was pasted", by="security")

    assert (red.project, red.seq, red.kind, red.author) == ("p", 3, "handoff", "bob")
    assert red.hash == before[3].hash
    assert red.body_sha256 == hashlib.sha256(before[3].body.encode()).hexdigest()
    assert (red.reason, red.by, red.briefs, red.notes) == ("a deploy key was pasted", "security", (1,), ())
    assert red.sequence > 0 and len(red.derived) == 1
    after = {r.seq: r for r in store.journal_rows("p")}
    assert after[3].body == REDACTED_BODY_PREFIX + red.body_sha256
    assert dataclasses.replace(after[3], body=before[3].body) == before[3]  # only the body changed
    assert {s: r for s, r in after.items() if s != 3} == {s: r for s, r in before.items() if s != 3}

    assert MARK not in _everything(journal)
    entry = journal.get_entry("p", 3)
    assert entry.redacted and entry.body == {"[redacted]": True, "body_sha256": red.body_sha256}
    assert entry.hash == before[3].hash and entry.kind == "handoff"
    assert [e.redacted for e in journal.entries("p")] == [False, False, True, False, False]
    assert {**journal.get_entry("p", 2).body, HASH_VERSION_KEY: 2} == json.loads(before[2].body)
    summaries = {s.seq: s for s in journal.get_project_summaries("p", limit=50).summaries}
    assert summaries[3].redacted and summaries[3].state == "[redacted]" and not summaries[2].redacted
    assert summaries[2].state == "state two"
    state = journal.state("p")
    assert state.head_seq == 5 and state.rule_outs == () and state.plan is not None  # R1 came from #3 only
    assert journal.get_brief("p") is None and journal.list_briefs("p") == []  # the brief quoted it: erased
    assert MARK not in journal.build_brief("p").model_dump_json()

    report = journal.verify_chain("p")
    assert report.ok and report.checked == 5 and report.redacted == (3,)
    assert check_store(store).problems == ()  # the erased brief record is accounted for
    assert journal.redactions("p") == [dataclasses.replace(red, notes=())]
    fresh = ExecutionJournal(store)  # another journal object reads the same
    assert fresh.verify_chain("p").redacted == (3,) and MARK not in _everything(fresh)
    # the journal goes on: appends chain to the redacted entry's neighbours, a retry is still a duplicate
    assert journal.append("p", "handoff", handoff("state six"), "ann", "k6").status == "appended"
    secret = handoff(f"the deploy key is {MARK}", ruled_out=[("R1", f"key {MARK}", "leaked")])
    retry = journal.append("p", "handoff", secret, "bob", "k3")
    assert retry.status == "duplicate" and retry.entry is not None and retry.entry.redacted
    with pytest.raises(IdempotencyKeyReuseError, match="body"):
        journal.append("p", "handoff", handoff("other"), "bob", "k3")
    assert journal.verify_chain("p").redacted == (3,) and journal.verify_chain("p").checked == 6
    # redacting again writes nothing and returns the first redaction
    head = store.head_seq()
    assert journal.redact_entry("p", 3, reason="again").sequence == red.sequence and store.head_seq() == head


def test_redaction_keeps_a_signed_head_valid(store: Store) -> None:
    journal = ExecutionJournal(store, head_key="host secret")
    _fill(journal)
    signed = journal.signed_head("p")
    journal.redact_entry("p", 5, reason="the head itself")
    report = ExecutionJournal(store, head_key="host secret").verify_chain("p", trusted_head=signed)
    assert report.ok and report.redacted == (5,)
    assert journal.append("p", "handoff", handoff("next"), "ann", "k6").status == "appended"
    assert ExecutionJournal(store, head_key="host secret").verify_chain("p").redacted == (5,)


def test_redaction_refusals(journal: ExecutionJournal) -> None:
    _fill(journal)
    for reason in ("", "   ", "x" * 2001):
        with pytest.raises(RedactionError):
            journal.redact_entry("p", 3, reason=reason)
    with pytest.raises(EntryNotFoundError, match="#9"):
        journal.redact_entry("p", 9, reason="r")
    with pytest.raises(EntryNotFoundError):
        journal.redact_entry("q", 1, reason="r")
    with pytest.raises(ValueError, match="slug"):
        journal.redact_entry("bad slug!", 1, reason="r")
    assert journal.verify_chain("p").redacted == () and not journal.redactions("p")
    # a tampered entry is reported, not laundered into one whose content can no longer be checked
    _set_row(journal.store, 2, body=json.dumps(handoff("forged"), sort_keys=True, separators=(",", ":")))
    with pytest.raises(JournalIntegrityError, match="#2"):
        journal.redact_entry("p", 2, reason="hide the forgery")
    assert not journal.redactions("p")


def test_tampering_around_a_redacted_entry_is_still_caught(backend: Any) -> None:
    cases = {
        "redacted hash": (3, {"hash": "0" * 64}, 3),
        "other body": (4, {"body": json.dumps(handoff("forged"), sort_keys=True, separators=(",", ":"))}, 4),
        "erased without record": (2, {"body": REDACTED_BODY_PREFIX + "a" * 64}, 2),
        "redacted body hash": (3, {"body": REDACTED_BODY_PREFIX + "b" * 64}, 3),
        "redacted author": (3, {"author": "mallory"}, 3),
    }
    for name, (seq, changes, bad) in cases.items():
        journal = ExecutionJournal(backend.new())
        _fill(journal)
        journal.redact_entry("p", 3, reason="r")
        _set_row(journal.store, seq, **changes)
        report = ExecutionJournal(journal.store).verify_chain("p")
        assert not report.ok and report.first_bad_seq == bad, (name, report)
        with pytest.raises(JournalIntegrityError, match=f"#{bad}"):
            ExecutionJournal(journal.store).entries("p")
    reasons = {
        "erased without record": "without a redaction record",
        "redacted body hash": "removed body",
    }
    for name, reason in reasons.items():
        seq, changes, bad = cases[name]
        journal = ExecutionJournal(backend.new())
        _fill(journal)
        journal.redact_entry("p", 3, reason="r")
        _set_row(journal.store, seq, **changes)
        assert reason in journal.verify_chain("p").reason


def test_a_redaction_record_whose_body_came_back_is_reported() -> None:
    journal = ExecutionJournal(MemoryStore())
    _fill(journal)
    original = journal.store.journal_rows("p", after=2, upto=3)[0].body
    journal.redact_entry("p", 3, reason="r")
    _set_row(journal.store, 3, body=original)  # put back behind the journal's back
    report = journal.verify_chain("p")
    assert not report.ok and report.first_bad_seq == 3 and "body is still stored" in report.reason


def test_guards_still_refuse_every_other_change(journal: ExecutionJournal) -> None:
    store = journal.store
    if isinstance(store, MemoryStore):
        pytest.skip("no database guards in memory")
    _fill(journal)
    red = journal.redact_entry("p", 3, reason="r")
    sqlite = isinstance(store, SQLiteStore)
    if sqlite:
        error: Any = sqlite3.DatabaseError
    else:
        import psycopg

        error = psycopg.Error
    marker = REDACTED_BODY_PREFIX + "c" * 64
    with _raw(store) as conn:
        statements = [
            f"UPDATE journal_entries SET body = '{marker}' WHERE project = 'p' AND seq = 2",  # no permit
            "UPDATE journal_entries SET author = 'mallory' WHERE seq = 1",
            "DELETE FROM journal_entries WHERE seq = 3",
        ]
        for statement in statements:
            with pytest.raises(error, match="immutable"):
                conn.execute(statement)
        # even holding the permit, only "body := the marker of an intact row, nothing else" passes
        permitted = [
            f"UPDATE journal_entries SET body = '{marker}', author = 'x' WHERE seq = 2",
            "UPDATE journal_entries SET body = '{}' WHERE seq = 2",
            f"UPDATE journal_entries SET body = '{marker}' WHERE seq = 3",  # already redacted
            "UPDATE journal_entries SET hash = 'h' WHERE seq = 3",
            "DELETE FROM journal_entries WHERE seq = 5",
        ]
        for statement in permitted:
            if sqlite:
                conn.execute("BEGIN")
                conn.execute("INSERT INTO redaction_permit(id) VALUES (1)")
            else:
                conn.execute("BEGIN")
                conn.execute("SELECT set_config('context_journal.redaction', 'on', true)")
            with pytest.raises(error, match="immutable"):
                conn.execute(statement)
            conn.execute("ROLLBACK")
        if sqlite:
            assert conn.execute("SELECT COUNT(*) FROM redaction_permit").fetchone() == (0,)
    rows = store.journal_rows("p")
    assert [r.body.startswith(REDACTED_BODY_PREFIX) for r in rows] == [False, False, True, False, False]
    assert rows[2].body == REDACTED_BODY_PREFIX + red.body_sha256
    assert check_store(store).problems == ()  # no permit left, every trigger in place
    assert journal.verify_chain("p").ok


def _bytes(path: str) -> bytes:
    return b"".join(Path(path + s).read_bytes() for s in ("", "-wal", "-journal") if Path(path + s).exists())


def test_sqlite_file_and_wal_keep_no_byte_of_the_body(tmp_path: Path) -> None:
    path = str(tmp_path / "j.db")
    store = SQLiteStore(path)
    journal = ExecutionJournal(store)
    _fill(journal)
    journal.build_brief("p")
    assert MARK.encode() in _bytes(path)  # in the WAL before a checkpoint
    store.checkpoint()
    assert MARK.encode() in _bytes(path)  # and in the file after it: the scan below can fail
    journal.append("p", "handoff", handoff("more"), "ann", "k6")  # a page image with it in the WAL again

    red = journal.redact_entry("p", 3, reason="r")
    assert red.notes == ()
    assert MARK.encode() not in _bytes(path)
    store.checkpoint()
    store.close()
    assert MARK.encode() not in _bytes(path)
    reopened = ExecutionJournal.open(path)
    assert reopened.verify_chain("p").redacted == (3,) and MARK not in _everything(reopened)
    reopened.close()


def test_postgres_tables_keep_no_row_with_the_body(backend: Any) -> None:
    if backend.name != "postgres":
        pytest.skip("PostgreSQL only")
    store = backend.new()
    journal = ExecutionJournal(store)
    _fill(journal)
    journal.build_brief("p")

    def rows_with_marker() -> list[str]:
        found = []
        with _raw(store) as conn:
            tables = conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = %s AND table_type = 'BASE TABLE'",
                (store.schema,),
            ).fetchall()
            assert len(tables) >= 5
            for (table,) in tables:
                for (text,) in conn.execute(f'SELECT t::text FROM "{table}" t').fetchall():
                    if MARK in text:
                        found.append(table)
        return found

    assert set(rows_with_marker()) >= {"journal_entries", "records"}  # the entry and the brief: the scan can fail
    journal.redact_entry("p", 3, reason="r")
    assert rows_with_marker() == []
    assert journal.verify_chain("p").redacted == (3,)


def test_the_redaction_record_is_in_the_stores_redaction_slot(store: Store) -> None:
    journal = ExecutionJournal(store)
    _fill(journal)
    red = journal.redact_entry("p", 2, reason="why", by="who")
    root = store.get_branch("main").id
    records = store.read_slot(REDACTION_SLOT, root, item=redaction_item("p", 2))
    assert [r.seq for r in records] == [red.sequence]
    body = records[0].value()
    assert body["type"] == JOURNAL_REDACTION_TYPE and body["hash"] == red.hash and body["reason"] == "why"
    assert body["body_sha256"] == red.body_sha256 and body["by"] == "who" and body["briefs"] == []
    assert MARK not in records[0].body  # type: ignore[operator]


_ENTRY = st.sampled_from(["handoff", "step"])


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    kinds=st.lists(_ENTRY, min_size=1, max_size=8),
    picks=st.lists(st.integers(min_value=1, max_value=8), max_size=8),
    sqlite=st.booleans(),
    brief_at=st.integers(min_value=0, max_value=8),
)
def test_random_chains_with_random_redactions(kinds: list[str], picks: list[int], sqlite: bool, brief_at: int) -> None:
    store: Store = SQLiteStore(":memory:") if sqlite else MemoryStore()
    journal = ExecutionJournal(store)
    tokens = {}
    for seq, kind in enumerate(kinds, start=1):
        tokens[seq] = f"TOKEN{seq:02d}XYZ"
        body = handoff(f"state {tokens[seq]}") if kind == "handoff" else {"report": f"report {tokens[seq]}"}
        journal.append("p", kind, body, "ann", f"k{seq}")
        if seq == brief_at:
            journal.build_brief("p")
    original = {r.seq: r for r in store.journal_rows("p")}
    redacted: set[int] = set()
    for seq in picks:
        if seq in original:
            journal.redact_entry("p", seq, reason=f"pick {seq}")
            redacted.add(seq)
    report = ExecutionJournal(store).verify_chain("p")
    assert report.ok and report.checked == len(kinds) and report.redacted == tuple(sorted(redacted))
    text = _dump(journal)
    for seq in original:
        assert (tokens[seq] in text) == (seq not in redacted)
    for entry in journal.entries("p"):
        row = original[entry.seq]
        assert entry.hash == row.hash and entry.redacted == (entry.seq in redacted)
        if entry.seq not in redacted:
            assert {**entry.body, HASH_VERSION_KEY: entry.hash_version} == json.loads(row.body)
        else:
            assert entry.body["body_sha256"] == hashlib.sha256(row.body.encode()).hexdigest()
            assert entry.hash_version is None
    assert check_store(store).problems == ()
    store.close()


def _dump(journal: ExecutionJournal) -> str:
    return " ".join(
        [
            json.dumps([e.model_dump(mode="json") for e in journal.entries("p")]),
            json.dumps([b.model_dump(mode="json") for b in journal.list_briefs("p")]),
            journal.render_for_harness("p", 4000).model_dump_json(),
            journal.get_project_summaries("p", limit=50).model_dump_json(),
            journal.state("p").model_dump_json(),
        ]
    )


def test_mcp_reads_a_redacted_entry(tmp_path: Path) -> None:
    from context_journal.mcp.tools import ToolBackend

    store = SQLiteStore(tmp_path / "m.db")
    tools = ToolBackend(store)
    _fill(tools.journal)
    tools.journal.redact_entry("p", 3, reason="r")
    entry = tools.get_entry("p", 3)
    assert entry.redacted and entry.body["[redacted]"] is True
    page = tools.get_project_summaries("p", 50, "desc", None)
    assert MARK not in page.model_dump_json() and 3 in [s.seq for s in page.summaries]
    store.close()
