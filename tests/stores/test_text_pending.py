"""SQLite's full-text index writes (migration 6): pending rows, folds, compact document ids, the upgrade.

A write queues its documents in ``text_index_pending`` in the same transaction as its record; a search on
any handle folds every pending row into FTS5 before it reads, and so does every ``TEXT_FOLD_EVERY``-th write
of a handle and the second indexed write of one transaction. These tests check that the index is complete
whenever it is read: across handles, after a rollback (whose sequences are reused), after a killed process,
and after the upgrade of a store written by the previous schema (migration 5: sequence * 256 + group ids,
written at once), whose search results must not change.
"""

from __future__ import annotations

import importlib
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from context_journal import ContextManager
from context_journal.messages import MessageInput
from context_journal.stores import MemoryStore, SQLiteStore, Store
from context_journal.stores.fulltext import MAX_GROUPS, query_terms
from context_journal.stores.migrations import INDEX_FIELDS
from context_journal.stores.sqlite import TEXT_FOLD_EVERY

STAMP = 1_683_500_000.0  # 7 May 2023: every message of these tests carries a fixed date

TEXTS = [
    "We're planning the offsite in Lisbon next month; find a quiet cafe near the river.",
    "Cafe Tejo sits near the river and opens at 8. Another option: Cafe Aurora in Alfama.",
    "The deployment of module_3 failed on staging last night.",
    "The staging logs show a migration timeout. I suggest a rollback to build 41.",
    "Do the rollback, then rerun the migration with a longer timeout.",
    "Rolled back to build 41. The migration finished in 95 seconds.",
    "Remind me to bring the projector and the spare HDMI cables to Lisbon.",
    "Agenda: welcome coffee, roadmap review, hiring plan, dinner at the river cafe.",
]
QUERIES = ["cafe river", "rollback migration timeout", "Lisbon", "build 41", "projector cables", "secret plan river"]


def pending(store: Store) -> int:
    assert isinstance(store, SQLiteStore)
    return store.text_pending_rows()


def ids(cm: ContextManager, query: str) -> set[str]:
    return {h.message_id for h in cm.search_messages(query, limit=1000)}


def ranked(store: Store, query: str) -> list[tuple[int, int, float]]:
    return [(h.seq, h.group, round(h.score, 9)) for h in store.search_text(query_terms(query), ["messages"], 1000)]


def write_mixed(cm: ContextManager) -> None:
    """Single writes, a batch, an edit, a removal, and messages whose blocks have audiences (groups > 0)."""
    for i, text in enumerate(TEXTS[:5]):
        cm.add_message("user" if i % 2 == 0 else "assistant", text, id=f"m{i}", timestamp=STAMP + i)
    cm.add_messages(
        [MessageInput("assistant", text, id=f"m{i}", timestamp=STAMP + i) for i, text in enumerate(TEXTS) if i >= 5]
    )
    cm.edit_message("m2", "The deployment of module_3 failed again on staging: a migration timeout near the river.")
    cm.remove_message("m4")
    for k in range(3):
        cm.add_message(
            "user",
            [
                {"type": "text", "text": f"Cafe by the river, option {k}."},
                {"type": "text", "text": "secret plan: the river cafe", "audience": ["ann"]},
                {"type": "text", "text": "a river cafe secret", "audience": ["ann", "bob"]},
            ],
            id=f"a{k}",
            timestamp=STAMP + 10 + k,
        )


# ---- pending rows and folds -------------------------------------------------------------------------------


def test_a_write_queues_its_documents_and_a_search_on_any_handle_folds_them(tmp_path: Path) -> None:
    writer = ContextManager.open(tmp_path / "s.db")
    writer.add_message("user", "The quarterly numbers look odd.", id="q1")
    writer.add_message(
        "user",
        [{"type": "text", "text": "Odd numbers again."}, {"type": "text", "text": "odd for ann", "audience": ["ann"]}],
        id="q2",
    )
    assert pending(writer.store) == 3  # one row per document: q1, and q2's groups 0 and 1
    other = ContextManager.open(tmp_path / "s.db")  # another connection: sees every committed write
    assert ids(other, "odd numbers") == {"q1", "q2"}
    assert pending(writer.store) == pending(other.store) == 0
    writer.add_message("user", "Numbers are fine now.", id="q3")
    assert ids(other, "numbers") == {"q1", "q2", "q3"}
    ann = ContextManager.open(store=SQLiteStore(tmp_path / "s.db"), namespace="ann", view_reader="ann")
    assert [h.message_id for h in ann.search_messages("odd for ann")][:1] == ["q2"]
    for cm in (writer, other, ann):
        cm.close()


def test_every_handle_folds_at_its_nth_write_and_a_transaction_folds_at_its_second(tmp_path: Path) -> None:
    cm = ContextManager.open(tmp_path / "s.db")
    for i in range(TEXT_FOLD_EVERY - 1):
        cm.add_message("user", f"note number {i}", id=f"n{i}")
    assert pending(cm.store) == TEXT_FOLD_EVERY - 1
    cm.add_message("user", "the last note", id="last")  # folds the others, writes its own directly
    assert pending(cm.store) == 0
    cm.add_message("user", "one more note", id="more")
    assert pending(cm.store) == 1
    cm.add_messages([MessageInput("user", f"batch note {k}", id=f"b{k}") for k in range(5)])
    assert pending(cm.store) == 0  # the batch's second message folded
    assert ids(cm, "note") == {f"n{i}" for i in range(TEXT_FOLD_EVERY - 1)} | {"last", "more"} | {
        f"b{k}" for k in range(5)
    }
    cm.close()

    # Handles that write one message each and close (a CLI, say) still fold: a handle counts the table.
    for i in range(TEXT_FOLD_EVERY + 10):
        with ContextManager.open(tmp_path / "s.db") as short:
            short.add_message("user", f"short-lived note {i}", id=f"s{i}")
            assert pending(short.store) < TEXT_FOLD_EVERY
    with ContextManager.open(tmp_path / "s.db") as reader:
        assert len(ids(reader, "short-lived")) == TEXT_FOLD_EVERY + 10


def test_a_rolled_back_write_leaves_no_pending_row_and_its_sequence_is_indexed_afresh(tmp_path: Path) -> None:
    cm = ContextManager.open(tmp_path / "s.db")
    cm.add_message("user", "first message about apples", id="m1")
    before = pending(cm.store)
    with pytest.raises(RuntimeError), cm.store.transaction():
        cm.add_message("user", "a phantom about bananas", id="ghost")
        cm.add_message("user", "another phantom about bananas", id="ghost2")  # folds inside, rolled back too
        raise RuntimeError("abort")
    assert pending(cm.store) == before
    cm.add_message("user", "cherries, written at the sequence the phantom had", id="m2")
    assert ids(cm, "bananas") == set()
    assert ids(cm, "cherries") == {"m2"}
    assert ids(cm, "apples") == {"m1"}
    cm.close()


def test_a_search_inside_a_write_transaction_sees_its_writes(tmp_path: Path) -> None:
    cm = ContextManager.open(tmp_path / "s.db")
    cm.add_message("user", "committed words about kites", id="m1")
    with cm.store.transaction():
        cm.add_message("user", "uncommitted words about kites", id="m2")
        assert {h.item for h in cm.store.search_text(["kites"], ["messages"], 10)} == {"m1", "m2"}
    assert ids(cm, "kites") == {"m1", "m2"}
    cm.close()


CHILD = textwrap.dedent(
    """
    import sys, time
    from context_journal import ContextManager
    cm = ContextManager.open(sys.argv[1])
    for i in range(int(sys.argv[2])):
        if i % 9 == 4 and i < int(sys.argv[2]) - 9:
            cm.add_messages([{"participant": "user", "content": f"zqbatch{i}x{k} words", "id": f"c{i}-{k}"}
                             for k in range(2)])
            print(f"c{i}-0 zqbatch{i}x0", f"c{i}-1 zqbatch{i}x1", sep="\\n", flush=True)
        else:
            cm.add_message("user", f"zqword{i}x written before the kill", id=f"c{i}")
            print(f"c{i} zqword{i}x", flush=True)
    print("done", flush=True)
    time.sleep(600)  # killed here, the handle never closed
    """
)


def test_a_killed_writer_loses_no_indexed_write(tmp_path: Path) -> None:
    # SIGKILL of a writer that never closed its handle, with pending rows left behind: every acknowledged
    # write (single or batched) is found by the next search on a new handle.
    path = tmp_path / "s.db"
    ContextManager.open(path).close()
    writes = TEXT_FOLD_EVERY * 2 + 17
    acked: list[tuple[str, str]] = []
    # leaving the block closes the pipe and reaps the child (killed in every case, so the wait is short)
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), str(writes)], stdout=subprocess.PIPE, text=True
    ) as child:
        assert child.stdout is not None
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                line = child.stdout.readline()
                if not line or line.strip() == "done":
                    break
                mid, word = line.split()
                acked.append((mid, word))
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
    assert len(acked) > writes
    cm = ContextManager.open(path)
    assert pending(cm.store) > 0  # the kill left some writes queued
    for mid, word in acked:
        assert mid in ids(cm, word), word
    assert pending(cm.store) == 0
    # Nothing indexed twice, nothing unwritten indexed.
    docs = [(h.seq, h.group) for h in cm.store.search_text(["zqword", "written", "words"], ["messages"], 100_000)]
    assert len(docs) == len(set(docs)) == len(cm.get_all_messages())
    cm.close()


# ---- the same results as the memory backend, ties included --------------------------------------------------


def test_ties_are_ordered_newest_first_with_audience_groups_as_on_memory(tmp_path: Path) -> None:
    sqlite_cm = ContextManager.open(tmp_path / "s.db")
    memory_cm = ContextManager.open(store=MemoryStore())
    for cm in (sqlite_cm, memory_cm):
        write_mixed(cm)
    for query in QUERIES:
        got = ranked(sqlite_cm.store, query)
        assert [(s, g) for s, g, _ in got] == [(s, g) for s, g, _ in ranked(memory_cm.store, query)], query
    assert any(g > 0 for _, g, _ in ranked(sqlite_cm.store, "secret river"))
    # A limit that cuts through tied scores keeps the same (newest) documents.
    full = ranked(sqlite_cm.store, "river cafe")
    for limit in range(1, len(full) + 1):
        cut = sqlite_cm.store.search_text(query_terms("river cafe"), ["messages"], limit)
        assert [(h.seq, h.group) for h in cut] == [(s, g) for s, g, _ in full[:limit]]
    sqlite_cm.close()


# ---- the upgrade from migration 5 ----------------------------------------------------------------------------


def test_a_store_indexed_by_the_previous_schema_is_rebuilt_with_the_same_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = importlib.import_module("context_journal.stores.sqlite")
    full = list(module.MIGRATIONS)
    assert [m.version for m in full][:6] == [1, 2, 3, 4, 5, 6]  # (7 indexes summaries: none here)

    def old_index(self: SQLiteStore, tx: Any, seq: int, documents: Any) -> None:
        for group, text in documents:  # what migration 5's stores hold: sequence * 256 + group, at once
            self._exec("INSERT INTO text_index(rowid, body) VALUES (?, ?)", (seq * MAX_GROUPS + group, text))

    monkeypatch.setattr(module, "MIGRATIONS", [*full[:5], *(m for m in full if m.name == INDEX_FIELDS)])
    monkeypatch.setattr(module.SQLiteStore, "_text_index", old_index)
    old = ContextManager.open(tmp_path / "old.db")
    write_mixed(old)
    assert isinstance(old.store, SQLiteStore)
    old_rows = old.store._conn.execute("SELECT COUNT(*) FROM text_index WHERE text_index MATCH 'river'").fetchone()
    assert old_rows[0] > 0
    old.close()
    monkeypatch.undo()

    fresh = ContextManager.open(tmp_path / "fresh.db")  # the same writes with the current schema
    write_mixed(fresh)
    expected = {q: ranked(fresh.store, q) for q in QUERIES}
    expected_ids = {q: ids(fresh, q) for q in QUERIES}

    store = SQLiteStore(tmp_path / "old.db")  # migration 6 runs now: the index is rebuilt by the backfill
    assert 6 in store._applied_versions()
    head = store.head_seq()
    assert store.text_index_pending() == head

    seen: list[tuple[int, int]] = []

    class Stop(Exception):
        pass

    def stop(done: int, total: int) -> None:
        seen.append((done, total))
        raise Stop

    with pytest.raises(Stop):
        store.build_text_index(batch=3, progress=stop)  # killed after its first batch: resumable
    assert 0 < store.text_index_pending() < head
    upgraded = ContextManager.open(store=SQLiteStore(tmp_path / "old.db"))
    assert {q: ranked(upgraded.store, q) for q in QUERIES} == expected  # the search finishes the backfill first
    assert {q: ids(upgraded, q) for q in QUERIES} == expected_ids
    assert store.text_index_pending() == 0
    docs = [(h.seq, h.group) for h in upgraded.store.search_text(["river", "cafe"], ["messages"], 1000)]
    assert len(docs) == len(set(docs))  # nothing indexed twice
    upgraded.add_message("user", "a river cafe, written after the upgrade", id="late")
    assert "late" in ids(upgraded, "river cafe")
    for cm in (upgraded, fresh):
        cm.close()
    store.close()
