"""A review found (bad stored data): a message record inserted by SQL that no read can use (content null, a
timestamp of 1e30, a lone surrogate escape) made every CLI read end in a traceback, and ``verify``
called the store healthy. ``verify`` names the record; the CLI commands end in one line naming
``verify``."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app

POISONS = {
    "content null": '{"participant":"user","content":null,"metadata":{},"timestamp":null}',
    "timestamp 1e30": '{"participant":"user","content":[{"type":"text","text":"x"}],"metadata":{},"timestamp":1e30}',
    "lone surrogate": '{"participant":"user","content":[{"type":"text","text":"x\\ud800"}],"metadata":{}}',
    "not JSON": "{participant: user",
}


def _poisoned(tmp_path: Path, body: str) -> Path:
    db = tmp_path / "p.db"
    with ContextManager.open(db) as cm:
        cm.add_message("user", "hello")
        cm.add_message("assistant", "hi there")
    con = sqlite3.connect(db)
    seq, branch, slot = con.execute("SELECT seq, branch_id, slot_id FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    con.execute(
        "INSERT INTO records (seq, branch_id, slot_id, item, op, ts, body) VALUES (?, ?, ?, 'msg_poison', 1, 0, ?)",
        (seq + 1, branch, slot, body),
    )
    con.commit()
    con.close()
    return db


@pytest.mark.parametrize("kind", sorted(POISONS))
def test_verify_names_an_unreadable_message_record_and_commands_end_in_one_line(tmp_path: Path, kind: str) -> None:
    db = _poisoned(tmp_path, POISONS[kind])
    runner = CliRunner()
    res = runner.invoke(app, ["verify", "--store", str(db)])
    assert res.exit_code != 0 and "msg_poison" in res.output, res.output
    for cmd in (["show"], ["compile", "--budget", "2000"], ["state"]):
        res = runner.invoke(app, [*cmd, "--store", str(db)])
        assert res.exception is None or isinstance(res.exception, SystemExit), (cmd, res.exception)
        if res.exit_code:
            assert "Traceback" not in res.output and len(res.stderr.strip().splitlines()) == 1, (cmd, res.stderr)


@pytest.mark.parametrize("location", ["memory", "sqlite"])
def test_sequences_past_every_record_and_lone_surrogates_get_the_same_answer_on_every_store(
    tmp_path: Path, location: str
) -> None:
    """A review found: ``as_of=10**20`` (and a journal ``seq`` of 10**20) raised an untyped
    ``OverflowError`` on SQLite, in Python and over MCP; a lone surrogate in a fact, a journal author
    or an idempotency key was accepted by the memory store and failed on SQLite with
    ``UnicodeEncodeError``. A sequence past every record reads the whole branch (or finds no entry);
    a lone surrogate is a ``ValueError`` on every store, nothing written."""
    from context_journal.journal import EntryNotFoundError, ExecutionJournal

    cm = ContextManager.open("memory:" if location == "memory" else tmp_path / "s.db")
    mid = cm.add_message("user", "hello world")
    big = 10**20
    assert [m.id for m in cm.get_all_messages(as_of=big)] == [mid]
    assert cm.get_message_at(mid, big).text() == "hello world"
    assert len(cm.search_messages("hello", as_of=big)) == 1
    assert cm.search_summary_text("hello", as_of=big) == []
    journal = ExecutionJournal(cm.store)
    with pytest.raises(EntryNotFoundError):
        journal.get_entry("p", big)
    head = cm.store.head_seq()
    with pytest.raises(ValueError):
        cm.set_fact("k", "x\ud800")
    handoff = {"goal": "g", "state": "s", "next_step": "n", "ruled_out": [], "done_claims": [], "refs": []}
    for author, key in (("a\ud800", "k1"), ("ann", "k\ud800")):
        with pytest.raises(ValueError):
            journal.append("p", "handoff", handoff, author, key)
    assert cm.store.head_seq() == head  # nothing written
    cm.close()


def test_not_json_is_a_typed_error_naming_the_record(tmp_path: Path) -> None:
    """A review found: a record body that is not JSON raised a bare ``JSONDecodeError`` from every read,
    and the CLI printed only the decoder's message. It is ``CorruptRecordError`` (a ``StoreError`` and a
    ``ValueError``) naming the record and ``verify``."""
    from context_journal import CorruptRecordError, StoreError

    db = _poisoned(tmp_path, POISONS["not JSON"])
    with pytest.raises(CorruptRecordError, match=r"record \d+ .*msg_poison.*verify") as info:
        ContextManager.open(db).get_all_messages()  # the open may read it already
    assert isinstance(info.value, StoreError) and isinstance(info.value, ValueError)
    res = CliRunner().invoke(app, ["show", "--store", str(db)])
    assert res.exit_code == 1 and "msg_poison" in res.stderr and "verify" in res.stderr, res.stderr


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def test_verify_finds_a_deleted_blob_and_deleted_newest_records(tmp_path: Path) -> None:
    """A review found: ``DELETE FROM blobs`` and the deletion of the newest message records (triggers
    dropped and restored around it) both passed verify, though every compile then failed (the blob) or
    every later write did (the queue of the full-text index still held the deleted sequences). Verify
    names both: the blob a record refers to, and the records the index's queue names past the head."""
    db = tmp_path / "b.db"
    with ContextManager.open(db) as cm:
        cm.add_message(
            "user",
            [
                {"type": "text", "text": "see"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            ],
        )
        for i in range(6):
            cm.add_message("assistant" if i % 2 else "user", f"turn {i} about the lighthouse")
    runner = CliRunner()
    assert runner.invoke(app, ["verify", "--store", str(db)]).exit_code == 0
    con = sqlite3.connect(db)
    con.execute("DELETE FROM blobs")
    con.commit()
    res = runner.invoke(app, ["verify", "--store", str(db), "--json"])
    assert res.exit_code == 1 and "missing (deleted)" in res.output and "blobs" in res.output, res.output
    # the newest records, deleted around the append-only trigger
    (trigger,) = con.execute(
        "SELECT sql FROM sqlite_master WHERE type='trigger' AND name='records_no_delete'"
    ).fetchone()
    head = con.execute("SELECT MAX(seq) FROM records").fetchone()[0]
    con.execute("DROP TRIGGER records_no_delete")
    con.execute("DELETE FROM records WHERE seq > ?", (head - 2,))
    con.execute(trigger)
    con.commit()
    con.close()
    res = runner.invoke(app, ["verify", "--store", str(db)])
    assert res.exit_code == 1 and "the newest were deleted" in res.output, res.output


@pytest.mark.parametrize("location", ["memory", "sqlite"])
def test_journal_reads_with_numbers_past_any_record_read_the_widest_range(tmp_path: Path, location: str) -> None:
    """A review found: ``entries(limit=10**30)``, ``entries(after=-10**30)`` and
    ``get_project_summaries(before_seq=-10**30)`` raised ``OverflowError`` on SQLite (and the CLI's
    ``journal show --last 10**30`` blamed the store). They read what the widest range reads; the CLI
    refuses such a number as a usage error."""
    from context_journal.journal import ExecutionJournal
    from context_journal.stores import open_store

    url = "memory:" if location == "memory" else str(tmp_path / "j.db")
    store = open_store(url)
    journal = ExecutionJournal(store)
    handoff = {"goal": "ship", "state": "green", "next_step": "tag", "ruled_out": [], "done_claims": [], "refs": []}
    journal.append("demo", "handoff", handoff, "w", "k1")
    assert [e.seq for e in journal.entries("demo", limit=10**30)] == [1]
    assert [e.seq for e in journal.entries("demo", after=-(10**30))] == [1]
    assert journal.entries("demo", upto=-(10**30)) == [] and journal.entries("demo", after=10**30) == []
    assert journal.get_project_summaries("demo", before_seq=-(10**30)).next_before_seq is None
    if location == "sqlite":
        store.close()
        for args in (["--last", str(10**30)], ["--seq", str(10**30)]):
            res = CliRunner().invoke(app, ["journal", "show", "--store", url, "--project", "demo", *args])
            assert res.exit_code == 2 and "Traceback" not in res.output and "OverflowError" not in res.output, (
                res.output
            )


_DEEP = '{"a":' * 300 + "1" + "}" * 300
ROW_POISONS = {  # (op, body, ts) of a message record inserted with SQL
    "append without body": (1, None, 0),
    "edit without body": (2, None, 0),
    "content a string": (1, '{"participant":"user","content":"hello","metadata":{}}', 0),
    "content of numbers": (1, '{"participant":"user","content":[1,2],"metadata":{}}', 0),
    "metadata a list": (1, '{"participant":"user","content":[{"type":"text","text":"x"}],"metadata":[1,2]}', 0),
    "participant a number": (1, '{"participant":5,"content":[{"type":"text","text":"x"}],"metadata":{}}', 0),
    "audience a number": (
        1,
        '{"participant":"u","content":[{"type":"text","text":"x","audience":5}],"metadata":{}}',
        0,
    ),
    "unknown block type": (1, '{"participant":"user","content":[{"type":"wat"}],"metadata":{}}', 0),
    "text a number": (1, '{"participant":"user","content":[{"type":"text","text":5}],"metadata":{}}', 0),
    "no blocks": (1, '{"participant":"user","content":[],"metadata":{}}', 0),
    "deep tool input": (
        1,
        '{"participant":"a","content":[{"type":"tool_use","id":"t","name":"n","input":' + _DEEP + '}],"metadata":{}}',
        0,
    ),
    "unknown operation": (77, '{"participant":"user","content":[{"type":"text","text":"x"}],"metadata":{}}', 0),
    "time not a number": (1, '{"participant":"user","content":[{"type":"text","text":"x"}],"metadata":{}}', "abc"),
}


@pytest.mark.parametrize("kind", sorted(ROW_POISONS))
def test_a_record_written_around_the_library_is_named_by_verify_and_every_read_ends_in_one_line(
    tmp_path: Path, kind: str
) -> None:
    """A second review round found: message records inserted by SQL with no body, content of the
    wrong shape, an unknown block type or operation, or a time that is not a number ended the CLI's reads
    in tracebacks (AssertionError, AttributeError), in pydantic's many-line text, or in a line pointing to
    a ``verify`` that then said the store was fine. ``verify`` names each record, and every read either
    works or ends in one line naming it."""
    op, body, ts = ROW_POISONS[kind]
    db = tmp_path / "p.db"
    with ContextManager.open(db) as cm:
        first = cm.add_message("user", "hello")
        cm.add_message("assistant", "hi there")
    con = sqlite3.connect(db)
    seq, branch, slot = con.execute("SELECT seq, branch_id, slot_id FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    item = first if op == 2 else "msg_poison"
    con.execute(
        "INSERT INTO records (seq, branch_id, slot_id, item, op, ts, body) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (seq + 1, branch, slot, item, op, ts, body),
    )
    con.commit()
    con.close()
    runner = CliRunner()
    res = runner.invoke(app, ["verify", "--store", str(db)])
    if kind != "time not a number":  # the scan does not read the time column
        assert res.exit_code == 1 and (f"#{seq + 1}" in res.output or item in res.output), res.output
    for cmd in (
        ["show"],
        ["compile", "--budget", "2000"],
        ["search", "hello"],
        ["state"],
        ["pins"],
        ["map", "--budget", "2000", "--html", str(tmp_path / "m.html")],
    ):
        res = runner.invoke(app, [*cmd, "--store", str(db)])
        assert res.exception is None or isinstance(res.exception, SystemExit), (cmd, repr(res.exception))
        if res.exit_code:
            err = res.stderr.strip()
            assert "Traceback" not in err and len(err.splitlines()) == 1, (cmd, err)
            assert str(seq + 1) in err and "verify" in err, (cmd, err)


def test_an_expected_seq_past_any_journal_is_an_argument_error() -> None:
    """A review found: ``expected_seq=10**30`` came back as a normal "conflict"; a number no backend can
    hold is a ``ValueError`` (CLI: a usage error), as for every other sequence argument."""
    from context_journal.journal import ExecutionJournal
    from context_journal.stores import MemoryStore

    journal = ExecutionJournal(MemoryStore())
    handoff = {"goal": "g", "state": "s", "next_step": "n", "ruled_out": [], "done_claims": [], "refs": []}
    for bad in (10**30, -1, True):
        with pytest.raises(ValueError, match="expected_seq"):
            journal.append("demo", "handoff", handoff, "w", f"k{bad}", expected_seq=bad)
    assert journal.append("demo", "handoff", handoff, "w", "k1", expected_seq=0).status == "appended"
