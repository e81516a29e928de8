"""Issue 15 kind 7 (review): a message record inserted by SQL that no read can use (content null, a
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
    """Issue 15 review: ``as_of=10**20`` (and a journal ``seq`` of 10**20) raised an untyped
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
