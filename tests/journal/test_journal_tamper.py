"""Tamper evidence: what someone with write access to the database does behind the library.

Each tamper goes through a raw connection with the append-only guards lifted the way an owner of the
database can (SQLite: the triggers dropped, and put back afterwards; PostgreSQL: ``session_replication_role =
replica``), then the library is asked to read, append and verify. The checks are in
:mod:`context_journal.journal.integrity` and :mod:`context_journal.stores.integrity`.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from context_journal.journal import ExecutionJournal, HeadKeyRequiredError, JournalIntegrityError, entry_hash
from context_journal.stores import SQLiteStore, Store
from context_journal.stores import sqlite as sqlite_backend
from context_journal.stores.integrity import check_store
from context_journal.stores.migrations import INDEX_FIELDS
from tests.hypothesis_budget import examples
from tests.journal._journal_helpers import handoff

KEY = b"host-held secret"
runner = CliRunner()


def _fill(journal: ExecutionJournal, n: int = 6, start: int = 1) -> None:
    for i in range(start, start + n):
        journal.append("p", "handoff", handoff(f"state {i}"), "ann", f"k{i}")


@pytest.fixture
def db(backend: Any) -> Store:
    """A fresh store of each backend that has a database to tamper with (SQLite, PostgreSQL)."""
    if backend.name == "memory":
        pytest.skip("no database behind the memory backend")
    store: Store = backend.new()
    return store


def _fresh(store: Store, **options: Any) -> ExecutionJournal:
    """A journal object that has not read the project yet (as in a new process)."""
    return ExecutionJournal(store, **options)


@contextmanager
def _unguarded(store: Store) -> Iterator[tuple[Any, str]]:
    """A raw autocommit connection with the append-only guards lifted (put back on exit), and its placeholder."""
    if isinstance(store, SQLiteStore):
        conn = sqlite3.connect(store.path, isolation_level=None)
        triggers = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
        for name, _ in triggers:
            conn.execute(f"DROP TRIGGER {name}")
        try:
            yield conn, "?"
        finally:
            for _, sql in triggers:
                conn.execute(sql)
            conn.close()
        return
    import psycopg

    with psycopg.connect(store.url, autocommit=True) as pg:  # type: ignore[attr-defined]
        pg.execute(f'SET search_path TO "{store.schema}"')  # type: ignore[attr-defined]
        pg.execute("SET session_replication_role = replica")  # triggers do not fire (superuser only)
        yield pg, "%s"


def _sql(store: Store, statement: str, *params: Any) -> None:
    with _unguarded(store) as (conn, mark):
        conn.execute(statement.replace("?", mark), params)


def _edit_body(store: Store, seq: int, body: dict[str, Any]) -> None:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    _sql(store, "UPDATE journal_entries SET body = ? WHERE project = 'p' AND seq = ?", text, seq)


def _delete_entry(store: Store, seq: int) -> None:
    _sql(store, "DELETE FROM journal_entries WHERE project = 'p' AND seq = ?", seq)


def _rehash_from(store: Store, seq: int, state: str, *, markers: bool = False, mac: bool = False) -> None:
    """Rewrite entry ``seq``'s state and recompute every hash from there (and the markers with ``markers``;
    signatures are dropped: the forger has no key, unless ``mac`` keeps the old, now invalid, ones)."""
    rows = store.journal_rows("p", after=seq - 1)
    prev = rows[0].prev_hash
    with _unguarded(store) as (conn, mark):
        for i, row in enumerate(rows):
            body = json.loads(row.body)
            if i == 0:
                body["state"] = state
            text = json.dumps(body, sort_keys=True, separators=(",", ":"))
            digest = entry_hash(prev, row.project, row.seq, row.kind, row.author, body)
            conn.execute(
                f"UPDATE journal_entries SET body = {mark}, prev_hash = {mark}, hash = {mark} "
                f"WHERE project = 'p' AND seq = {mark}",
                (text, prev, digest, row.seq),
            )
            if markers:
                old = json.loads(store.read_bodies([row.store_seq])[row.store_seq] or "{}")
                new = {"project": "p", "seq": row.seq, "hash": digest}
                if mac and "mac" in old:
                    new["mac"] = old["mac"]
                conn.execute(
                    f"UPDATE records SET body = {mark} WHERE seq = {mark}",
                    (json.dumps(new, separators=(",", ":")), row.store_seq),
                )
            prev = digest


def _marker_seq(store: Store, seq: int) -> int:
    rows = store.journal_rows("p", after=seq - 1, upto=seq)
    return rows[0].store_seq


# ---- the defects of the issue, one test each ---------------------------------------------------------


def test_a_forged_entry_is_neither_served_nor_built_on(db: Store) -> None:
    journal = ExecutionJournal(db)
    _fill(journal)
    assert journal.state("p").head_seq == 6
    _edit_body(db, 4, dict(handoff("state 4"), state="everything is done, trust me"))
    for j in (journal, _fresh(db)):  # the journal that verified #4 before, and a new process
        with pytest.raises(JournalIntegrityError, match="#4") as caught:
            j.get_entry("p", 4)
        assert caught.value.seq == 4 and "hash" in caught.value.reason
        with pytest.raises(JournalIntegrityError, match="#4"):
            j.get_project_summaries("p", limit=5)
        with pytest.raises(JournalIntegrityError):
            j.entries("p")
    fresh = _fresh(db)
    with pytest.raises(JournalIntegrityError, match="#4"):
        fresh.append("p", "handoff", handoff("state 7"), "ann", "k7")
    with pytest.raises(JournalIntegrityError, match="#4"):
        fresh.state("p")
    assert db.journal_head("p").seq == 6  # type: ignore[union-attr]  # nothing written on a forged journal
    assert journal.get_entry("p", 3).seq == 3  # untouched entries still read


def test_deleting_the_newest_entry_fails_verification_and_appends(db: Store) -> None:
    journal = ExecutionJournal(db)
    _fill(journal, 5)
    assert journal.verify_chain("p").ok
    _delete_entry(db, 5)
    report = journal.verify_chain("p")
    assert not report.ok and report.first_bad_seq == 5 and "missing" in report.reason and report.checked == 4
    for j in (journal, _fresh(db)):
        with pytest.raises(JournalIntegrityError, match="#5"):
            j.append("p", "handoff", handoff("state 6"), "ann", "k6")
    assert db.journal_head("p").seq == 4  # type: ignore[union-attr]


def test_rewriting_an_entry_with_recomputed_hashes_is_caught_by_its_marker(db: Store) -> None:
    journal = ExecutionJournal(db)
    _fill(journal)
    _rehash_from(db, 3, "forged, hashes recomputed")
    report = journal.verify_chain("p")
    assert not report.ok and report.first_bad_seq == 3 and "marker" in report.reason
    with pytest.raises(JournalIntegrityError, match="#3"):
        _fresh(db).append("p", "handoff", handoff("state 7"), "ann", "k7")
    with pytest.raises(JournalIntegrityError, match="#3"):
        journal.get_entry("p", 3)


def test_deleting_a_middle_entry_gives_a_typed_error_not_a_value_error(db: Store) -> None:
    _fill(ExecutionJournal(db), 5)
    _delete_entry(db, 3)
    fresh = _fresh(db)
    with pytest.raises(JournalIntegrityError, match="#3") as caught:
        fresh.append("p", "handoff", handoff("state 6"), "ann", "k6")
    assert not isinstance(caught.value, ValueError) and "missing" in caught.value.reason
    report = fresh.verify_chain("p")
    assert not report.ok and report.first_bad_seq == 3


def test_sqlite_records_refuse_update_and_delete(tmp_path: Path) -> None:
    cm = ContextManager.open(tmp_path / "s.db")
    cm.add_message("user", "hello")
    cm.add_message("Claude", "hi")
    cm.close()
    conn = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    try:
        for statement in (
            "UPDATE records SET body = '{}' WHERE seq = 1",
            "UPDATE records SET ix = NULL WHERE seq = 1",  # the stored count too
            "DELETE FROM records WHERE seq = 1",
        ):
            with pytest.raises(sqlite3.DatabaseError, match="records are append-only"):
                conn.execute(statement)
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):  # an upsert's replace deletes a row
            conn.execute(
                "INSERT OR REPLACE INTO records(seq, branch_id, slot_id, item, op, ts, body, ix) SELECT * FROM records"
            )
    finally:
        conn.close()
    again = ContextManager.open(tmp_path / "s.db")
    assert [m.text() for m in again.get_all_messages()] == ["hello", "hi"]
    again.close()


def test_postgres_records_refuse_update_and_delete(db: Store) -> None:
    if isinstance(db, SQLiteStore):
        pytest.skip("see test_sqlite_records_refuse_update_and_delete")
    import psycopg

    _fill(ExecutionJournal(db), 1)
    with psycopg.connect(db.url, autocommit=True) as conn:  # type: ignore[attr-defined]
        conn.execute(f'SET search_path TO "{db.schema}"')  # type: ignore[attr-defined]
        for statement in ("UPDATE records SET body = '{}'", "DELETE FROM records", "TRUNCATE records"):
            with pytest.raises(psycopg.Error, match="append-only"):
                conn.execute(statement)


def test_a_dropped_or_disabled_guard_is_reported(db: Store) -> None:
    _fill(ExecutionJournal(db), 1)
    assert check_store(db).ok
    if isinstance(db, SQLiteStore):
        word = "missing"
        with sqlite3.connect(db.path, isolation_level=None) as conn:
            conn.execute("DROP TRIGGER records_no_delete")
    else:
        word = "disabled"
        _sql(db, "ALTER TABLE records DISABLE TRIGGER records_no_update")
    problems = check_store(db).problems
    assert len(problems) == 1 and problems[0].scope == "guards" and word in problems[0].reason


def test_an_older_sqlite_store_gets_the_record_triggers_at_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = list(sqlite_backend.MIGRATIONS)
    older = [m for m in full if m.version < 9 or m.name == INDEX_FIELDS]  # (the column reads and writes need)
    monkeypatch.setattr(sqlite_backend, "MIGRATIONS", older)
    old = ContextManager.open(tmp_path / "old.db")
    old.add_message("user", "written by the previous version")
    old.close()
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    conn.execute("UPDATE records SET ts = ts WHERE seq = 1")  # no guard yet
    conn.close()
    assert check_store(SQLiteStore(tmp_path / "old.db")).problems[0].scope == "guards"
    monkeypatch.undo()
    store = SQLiteStore(tmp_path / "old.db")  # migration 9 runs now
    assert check_store(store).ok
    store.close()
    conn = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    with pytest.raises(sqlite3.DatabaseError, match="records are append-only"):
        conn.execute("DELETE FROM records")
    conn.close()


# ---- the signed head ----------------------------------------------------------------------------------


def test_a_signed_head_catches_a_consistent_rewrite_of_both_tables(db: Store) -> None:
    signed = ExecutionJournal(db, head_key=KEY)
    _fill(signed)
    assert signed.verify_chain("p").ok
    _rehash_from(db, 2, "forged everywhere", markers=True)  # entries and markers agree: only the key tells
    assert ExecutionJournal(db).verify_chain("p").ok  # the documented limit without a key
    report = ExecutionJournal(db, head_key=KEY).verify_chain("p")
    assert not report.ok and report.first_bad_seq == 6 and "not signed" in report.reason
    with pytest.raises(JournalIntegrityError, match="not signed"):
        _fresh(db, head_key=KEY).append("p", "handoff", handoff("state 7"), "ann", "k7")
    with pytest.raises(JournalIntegrityError, match="not signed"):  # nor served (a review finding)
        _fresh(db, head_key=KEY).get_entry("p", 3)


def test_a_kept_signature_does_not_verify_for_a_forged_head(db: Store) -> None:
    _fill(ExecutionJournal(db, head_key=KEY))
    _rehash_from(db, 2, "forged, old signatures kept", markers=True, mac=True)
    report = ExecutionJournal(db, head_key=KEY).verify_chain("p")
    assert not report.ok and report.first_bad_seq == 2 and "signature" in report.reason
    wrong = ExecutionJournal(db, head_key=b"another key").verify_chain("p")
    assert not wrong.ok and "signature" in wrong.reason


def test_keys_roll_out_to_unsigned_projects_only_when_asked(db: Store) -> None:
    _fill(ExecutionJournal(db), 2)  # written before the key
    with pytest.raises(JournalIntegrityError, match="not signed"):
        ExecutionJournal(db, head_key=KEY).append("p", "handoff", handoff("x"), "ann", "k3")
    rollout = ExecutionJournal(db, head_key=KEY, require_signed_head=False)
    assert rollout.append("p", "handoff", handoff("x"), "ann", "k3").status == "appended"
    assert ExecutionJournal(db, head_key=KEY).verify_chain("p").ok  # the head is signed now
    with pytest.raises(ValueError, match="head_key"):
        ExecutionJournal(db, head_key=b"")


def test_a_journal_without_the_key_refuses_to_append_after_a_signed_head(db: Store) -> None:
    """A review found: a keyless writer appended an unsigned head after signed ones, and every keyed
    reader then refused the project as stripped. Now it is refused, nothing is written, and the keyed
    writer goes on; a keyless writer on an unsigned project is unaffected."""
    _fill(ExecutionJournal(db, head_key=KEY), 3)
    body, kind = handoff("from a keyless writer"), "handoff"
    keyless = ExecutionJournal(db)
    assert keyless.state("p").head_seq == 3  # reads are fine without the key
    with pytest.raises(HeadKeyRequiredError, match="CONTEXT_JOURNAL_HEAD_KEY") as info:
        keyless.append("p", kind, body, "bob", "keyless-1")
    assert info.value.seq == 3 and info.value.project == "p"
    with pytest.raises(HeadKeyRequiredError):  # the same handle again, and a fresh one
        _fresh(db).append("p", kind, body, "bob", "keyless-2")
    keyed = ExecutionJournal(db, head_key=KEY)
    assert keyed.verify_chain("p").ok and keyed.head_seq("p") == 3  # nothing was written
    assert keyed.append("p", "handoff", handoff("state 4"), "ann", "k4").status == "appended"
    plain = ExecutionJournal(db)
    plain.append("q", "handoff", handoff("unsigned project"), "ann", "q1")
    assert plain.append("q", "handoff", handoff("still unsigned"), "ann", "q2").status == "appended"


def test_cli_append_without_the_key_on_a_signed_project_is_one_line(tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / "s.db"
    monkeypatch.setenv("CONTEXT_JOURNAL_HEAD_KEY", "cli secret")
    args = ["journal", "append", "--store", str(path), "-p", "p", "-a", "ann", "-k", "handoff"]
    ok = runner.invoke(app, [*args, "--key", "c1", "--body", json.dumps(handoff("signed"))])
    assert ok.exit_code == 0, ok.output
    monkeypatch.delenv("CONTEXT_JOURNAL_HEAD_KEY")
    res = runner.invoke(app, [*args, "--key", "c2", "--body", json.dumps(handoff("keyless"))])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert "is signed" in res.stderr and "CONTEXT_JOURNAL_HEAD_KEY" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_a_kept_head_catches_a_journal_cut_back_with_its_markers(db: Store) -> None:
    journal = ExecutionJournal(db, head_key=KEY)
    _fill(journal, 5)
    kept = journal.signed_head("p")
    assert kept.seq == 5 and kept.mac is not None
    marker = _marker_seq(db, 5)
    _delete_entry(db, 5)
    _sql(db, "DELETE FROM records WHERE seq = ?", marker)  # the newest record: no hole left behind
    fresh = ExecutionJournal(db, head_key=KEY)
    assert fresh.verify_chain("p").ok  # a shorter journal whose head #4 is signed
    report = fresh.verify_chain("p", trusted_head=kept)
    assert not report.ok and report.first_bad_seq == 5 and "cut back" in report.reason
    with pytest.raises(JournalIntegrityError, match="#5"):  # the journal that saw #5 notices on its own
        journal.append("p", "handoff", handoff("state 6"), "ann", "k6")


# ---- the command line -----------------------------------------------------------------------------------


def _cli_store(tmp_path: Path) -> Path:
    path = tmp_path / "v.db"
    cm = ContextManager.open(path)
    for i in range(6):
        cm.add_message("user" if i % 2 == 0 else "Claude", f"message {i}")
    cm.close()
    journal = ExecutionJournal.open(path)
    _fill(journal, 4)
    journal.close()
    return path


def test_cli_verify_passes_a_healthy_store_and_lists_each_problem(tmp_path: Path) -> None:
    path = _cli_store(tmp_path)
    res = runner.invoke(app, ["verify", "--store", str(path)])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("ok:") and "1 journal projects (4 entries" in res.stdout
    store = SQLiteStore(path)
    _sql(store, "DELETE FROM records WHERE seq = 3")  # a message deleted from history
    _edit_body(store, 2, handoff("forged"))
    with sqlite3.connect(path, isolation_level=None) as conn:
        conn.execute("DROP TRIGGER records_no_update")
    store.close()
    res = runner.invoke(app, ["verify", "--store", str(path)])
    assert res.exit_code == 1
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith("guards: the append-only trigger records_no_update is missing")
    assert lines[1] == "records #3: records 3 are missing (deleted)"
    assert lines[2].startswith("journal p #2: the content does not match its hash")
    assert lines[3].startswith("3 problems in")
    res = runner.invoke(app, ["verify", "--store", str(path), "--json"])
    payload = json.loads(res.stdout)
    assert res.exit_code == 1 and not payload["ok"] and len(payload["problems"]) == 3
    assert payload["projects"]["p"] == {"ok": False, "checked": 1}


def test_cli_verify_checks_blobs_and_signed_heads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "b.db"
    store = SQLiteStore(path)
    with store.transaction() as txn:
        digest = txn.put_blob(b"image bytes")
    _fill(ExecutionJournal(store, head_key=KEY), 2)
    store.close()
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY + b"\n")
    res = runner.invoke(app, ["verify", "--store", str(path), "--key-file", str(key_file)])
    assert res.exit_code == 0 and "signed heads" in res.stdout, res.output
    monkeypatch.setenv("CONTEXT_JOURNAL_HEAD_KEY", "not the key")
    res = runner.invoke(app, ["verify", "--store", str(path)])
    assert res.exit_code == 1 and "journal p #1: its signature does not verify" in res.stdout
    monkeypatch.delenv("CONTEXT_JOURNAL_HEAD_KEY")
    with sqlite3.connect(path, isolation_level=None) as conn:
        conn.execute("UPDATE blobs SET data = ? WHERE sha256 = ?", (b"other bytes", digest))
    res = runner.invoke(app, ["verify", "--store", str(path)])
    assert res.exit_code == 1 and f"blobs #{digest}: the bytes do not hash" in " ".join(res.stdout.split())
    res = runner.invoke(app, ["verify", "--store", str(tmp_path / "missing.db")])
    assert res.exit_code == 1 and "no store at" in res.stderr


def test_a_project_whose_every_entry_was_deleted_is_still_verified(tmp_path: Path) -> None:
    path = _cli_store(tmp_path)
    store = SQLiteStore(path)
    _sql(store, "DELETE FROM journal_entries")
    reports = ExecutionJournal(store).verify_projects()
    assert not reports["p"].ok and reports["p"].first_bad_seq == 1
    store.close()


def test_the_memory_store_verifies(store: Store) -> None:
    journal = ExecutionJournal(store, head_key=KEY)
    _fill(journal, 3)
    assert check_store(store).ok and all(r.ok for r in journal.verify_projects().values())


# ---- any single-row tamper is detected -------------------------------------------------------------------

TAMPERS = ["edit_entry", "edit_author", "delete_entry", "rehash", "rehash_markers", "edit_marker", "delete_record"]


def _template(directory: Path) -> Path:
    """A store with messages, a blob and a signed journal, whose newest record is a journal marker."""
    path = directory / "template.db"
    if path.exists():
        return path
    cm = ContextManager.open(path)
    for i in range(5):
        cm.add_message("user" if i % 2 == 0 else "Claude", f"turn {i}")
    cm.edit_message(cm.get_all_messages()[1].id, "turn 1, edited")
    cm.close()
    journal = ExecutionJournal.open(path, head_key=KEY)
    _fill(journal, 5)
    journal.close()
    return path


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _template(tmp_path_factory.mktemp("tamper"))


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(TAMPERS), pick=st.integers(min_value=0, max_value=10_000))
def test_any_single_row_tamper_is_detected(tmp_path: Path, template: Path, kind: str, pick: int) -> None:
    """Edit, delete or re-hash one entry, or edit or delete one record (any record: a message, a state, a
    marker; the newest is a marker): ``verify`` with the key always finds it. Not covered, by design: a message
    record rewritten in place into other valid JSON (records carry no hash; the triggers refuse that edit)."""
    path = tmp_path / f"case-{kind}-{pick}.db"
    shutil.copy(template, path)
    store = SQLiteStore(path)
    try:
        seq = 1 + pick % 5
        if kind == "edit_entry":
            _edit_body(store, seq, handoff(f"forged {pick}"))
        elif kind == "edit_author":
            _sql(store, "UPDATE journal_entries SET author = 'mallory' WHERE project = 'p' AND seq = ?", seq)
        elif kind == "delete_entry":
            _delete_entry(store, seq)
        elif kind in ("rehash", "rehash_markers"):
            _rehash_from(store, seq, f"forged {pick}", markers=kind == "rehash_markers", mac=pick % 2 == 0)
        elif kind == "edit_marker":
            marker = _marker_seq(store, seq)
            body = json.dumps({"project": "p", "seq": seq, "hash": "0" * 64})
            _sql(store, "UPDATE records SET body = ? WHERE seq = ?", body, marker)
        else:
            record = 1 + pick % store.head_seq()
            _sql(store, "DELETE FROM records WHERE seq = ?", record)
        problems = list(check_store(store).problems)
        reports = ExecutionJournal(store, head_key=KEY).verify_projects()
        assert problems or not all(r.ok for r in reports.values()), (kind, pick)
        if kind != "delete_record":  # and a new journal object never folds, serves or extends it
            with pytest.raises(JournalIntegrityError):
                ExecutionJournal(store, head_key=KEY).state("p")
    finally:
        store.close()


def test_paged_verification_checks_the_head_signature_at_a_page_boundary(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from context_journal.journal import execution
    from context_journal.stores import MemoryStore

    monkeypatch.setattr(execution, "_PAGE", 3)
    store = MemoryStore()
    journal = ExecutionJournal(store, head_key=KEY)
    _fill(journal, 6)
    assert journal.verify_chain("p").ok and journal.verify_chain("p").checked == 6
    head = store.journal_head("p")
    assert head is not None
    record = store._records[head.store_seq - 1]
    store._records[head.store_seq - 1] = dataclasses.replace(
        record, body=json.dumps({"project": "p", "seq": 6, "hash": head.hash})
    )
    report = ExecutionJournal(store, head_key=KEY).verify_chain("p")
    assert not report.ok and report.first_bad_seq == 6 and "not signed" in report.reason and report.checked == 5


def test_the_mcp_server_signs_its_appends_with_the_hosts_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server started on a signed store (``CONTEXT_JOURNAL_HEAD_KEY`` set, as for the CLI) signs what
    ``journal_append`` writes, so a keyed check of the store still passes (a helper's review finding)."""
    from context_journal.mcp.tools import ToolBackend

    monkeypatch.setenv("CONTEXT_JOURNAL_HEAD_KEY", "host secret")
    store = SQLiteStore(tmp_path / "s.db")
    backend = ToolBackend(store)
    for i in range(3):
        backend.journal_append("p", "handoff", handoff(f"state {i}"), "ann", f"k{i}")
    keyed = ExecutionJournal(store, head_key="host secret")
    assert keyed.verify_chain("p").ok
    assert keyed.signed_head("p").mac  # the head carries a signature
    assert not ExecutionJournal(store, head_key="another key").verify_chain("p").ok
    store.close()


def test_cli_verify_without_the_key_does_not_call_a_signed_journal_ok(tmp_path: Path, monkeypatch: Any) -> None:
    """A review found: with entry 3 rewritten, its hashes and marker recomputed, ``verify`` run without
    the key printed "ok" for a journal whose heads are signed. It says the signatures were not checked
    (exit 1); with the key it names the forged head."""
    path = tmp_path / "signed.db"
    journal = ExecutionJournal.open(path, head_key=KEY)
    _fill(journal, 4)
    journal.close()
    monkeypatch.delenv("CONTEXT_JOURNAL_HEAD_KEY", raising=False)
    res = runner.invoke(app, ["verify", "--store", str(path)])
    assert (
        res.exit_code == 1 and "signatures were not checked" in res.stdout and "CONTEXT_JOURNAL_HEAD_KEY" in res.stdout
    )
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY)
    res = runner.invoke(app, ["verify", "--store", str(path), "--key-file", str(key_file)])
    assert res.exit_code == 0 and res.stdout.startswith("ok:"), res.output
    unsigned = tmp_path / "plain.db"
    plain = ExecutionJournal.open(unsigned)
    _fill(plain, 2)
    plain.close()
    assert runner.invoke(app, ["verify", "--store", str(unsigned)]).exit_code == 0  # nothing signed: ok
