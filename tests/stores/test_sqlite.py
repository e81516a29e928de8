"""What only the SQLite backend has: pragmas, durability modes, and a COMMIT that fails.

Everything the contract says is in test_conformance.py, run on every backend.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from context_journal.cli import app
from context_journal.errors import BranchNotFoundError, StoreBusyError, StoreError
from context_journal.stores import ROOT_BRANCH, SQLiteStore, Store, open_store
from tests.stores.read_scope_cases import CASES as READ_SCOPE_CASES


@pytest.mark.parametrize(("durability", "synchronous"), [("normal", 1), ("full", 2)])
def test_wal_and_durability(tmp_path: Path, durability: Any, synchronous: int) -> None:
    with SQLiteStore(tmp_path / "s.db", durability=durability) as store:
        assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == synchronous
        assert store._conn.execute("PRAGMA busy_timeout").fetchone()[0] > 0
    with pytest.raises(ValueError):
        SQLiteStore(tmp_path / "s.db", durability="sometimes")  # type: ignore[arg-type]


def test_open_store_locations(tmp_path: Path) -> None:
    with open_store(f"sqlite:///{tmp_path / 'a.db'}") as a, open_store(tmp_path / "b.db") as b:
        assert isinstance(a, SQLiteStore) and isinstance(b, SQLiteStore)
        assert open_store(a) is a


class _FailingCommit:
    """A connection whose next COMMIT fails (as on a full disk or an I/O error)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self.fail_next_commit = True

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql == "COMMIT" and self.fail_next_commit:
            self.fail_next_commit = False
            raise sqlite3.OperationalError("disk I/O error")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def test_failed_commit_rolls_back_and_forgets_its_caches(tmp_path: Path) -> None:
    """A COMMIT that fails leaves nothing behind: no record, no branch, and no cached slot id or branch
    row that the next transaction would trust (a stale slot id would file later records under a slot
    row that does not exist, invisible to every other handle)."""
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    main = store.get_branch(ROOT_BRANCH).id
    store._conn = _FailingCommit(store._conn)  # type: ignore[assignment]
    rolled_back: list[bool] = []
    with pytest.raises(StoreError) as err, store.transaction() as tx:
        tx.on_rollback(lambda: rolled_back.append(True))
        tx.append(main, "new-slot", "lost", {"t": 1})
        store.create_branch("lost-branch")
    assert not isinstance(err.value, StoreBusyError)
    assert rolled_back == [True]
    assert store.head_seq() == 0
    with pytest.raises(BranchNotFoundError):
        store.get_branch("lost-branch")
    with store.transaction() as tx:
        tx.append(main, "new-slot", "kept", {"t": 2})
    with SQLiteStore(path) as other:
        assert [r.item for r in other.read_slot("new-slot", main)] == ["kept"]
        assert other.list_slots() == ["new-slot"]
    store.close()


def test_second_process_sees_nothing_uncommitted(tmp_path: Path) -> None:
    """WAL readers see the last commit, never an open transaction's rows."""
    path = tmp_path / "s.db"
    with SQLiteStore(path) as writer, SQLiteStore(path) as reader:
        main = writer.get_branch(ROOT_BRANCH).id
        with writer.transaction() as tx:
            tx.append(main, "messages", "m1", {"t": 1})
            assert reader.read_slot("messages", main) == []
            assert reader.head_seq() == 0
        assert [r.item for r in reader.read_slot("messages", main)] == ["m1"]


def test_a_database_another_tool_made_is_refused_and_left_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE foo (x)")
    conn.execute("INSERT INTO foo VALUES (1)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"not a context-journal store: it holds other tables \(foo\)"):
        SQLiteStore(path)
    assert path.read_bytes() == before
    result = CliRunner().invoke(app, ["compile", "--store", str(path), "--budget", "4000"])
    assert result.exit_code == 1 and "not a context-journal store" in result.output
    assert path.read_bytes() == before
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()  # an empty database is a new store
    SQLiteStore(empty).close()


def test_a_slot_missing_in_a_read_scope_stays_missing_until_it_ends(tmp_path: Path) -> None:
    """A compile reads as of its start (Store.read_scope): a slot found missing is not looked up again
    inside the scope; outside it, or after this handle created it, it is found."""
    from context_journal import ContextManager

    path = tmp_path / "s.db"
    ours, theirs = SQLiteStore(path), SQLiteStore(path)
    try:
        cm, other = ContextManager(ours), ContextManager(theirs)
        first = cm.add_message("user", "pin me")
        cm.add_message("assistant", "ok")
        looked: list[str] = []
        real = ours._slot_id

        def counting(slot: str, create: bool) -> int | None:
            looked.append(slot)
            return real(slot, create)

        ours._slot_id = counting  # type: ignore[method-assign]
        with ours.read_scope():
            assert cm.pins() == []
            other.pin(first)  # another handle creates the state slot meanwhile
            assert cm.pins() == [] and cm.pins() == []
            assert looked.count("state") == 1
        assert cm.pins() == [first]  # outside the scope: looked up again, and found
    finally:
        ours.close()
        theirs.close()
    mine = SQLiteStore(tmp_path / "t.db")
    try:
        cm = ContextManager(mine)
        first = cm.add_message("user", "pin me")
        with mine.read_scope():
            assert cm.pins() == []  # no state slot yet
            cm.pin(first)  # this handle creates it inside the scope: found from then on
            assert cm.pins() == [first]
    finally:
        mine.close()


@pytest.mark.parametrize("case", READ_SCOPE_CASES)
def test_a_read_scope_forgets_what_a_newer_token_or_a_write_may_have_changed(
    tmp_path: Path, case: Callable[[Store, Store], None]
) -> None:
    """See tests/stores/read_scope_cases.py: the same cases run on PostgreSQL."""
    ours, theirs = SQLiteStore(tmp_path / "s.db"), SQLiteStore(tmp_path / "s.db")
    try:
        case(ours, theirs)
    finally:
        ours.close()
        theirs.close()


def test_checkpoint_gives_free_pages_back_to_the_file_system(tmp_path: Path) -> None:
    from context_journal import ContextManager

    path = tmp_path / "j.db"
    store = SQLiteStore(path)
    cm = ContextManager.open(store=store)
    rnd = random.Random(1)
    vocab = ["".join(rnd.choice("abcdefghijklmnop") for _ in range(rnd.randint(3, 9))) for _ in range(3000)]
    for _ in range(4):  # full-text segment merges free pages on the way (7 of them after the first batch)
        batch = [{"participant": "user", "content": " ".join(rnd.choices(vocab, k=30))} for _ in range(200)]
        cm.add_messages(batch)
    cm.add_message("user", "the harbour, nets and gulls")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # INCREMENTAL, set before the first table
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] > 0  # what the check below finds given back
    store.checkpoint()
    pages, free, size = (
        conn.execute(f"PRAGMA {p}").fetchone()[0] for p in ("page_count", "freelist_count", "page_size")
    )
    assert free == 0 and path.stat().st_size == pages * size
    assert not Path(str(path) + "-wal").exists() or Path(str(path) + "-wal").stat().st_size == 0
    assert len(cm.get_all_messages()) == 801 and cm.search_messages("harbour", limit=3)
    conn.close()
    cm.close()
    store.close()


def test_a_store_made_before_auto_vacuum_still_checkpoints(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    store = SQLiteStore(path)
    store.close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("PRAGMA auto_vacuum = NONE")
    conn.execute("VACUUM")  # as files made before the setting: no page map
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    conn.close()
    again = SQLiteStore(path)
    with again.transaction() as tx:
        tx.append(again.get_branch(ROOT_BRANCH).id, "messages", "m1", {"v": 1})
    again.checkpoint()  # nothing to give back: no error, and the file keeps its setting
    assert sqlite3.connect(path).execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    assert again.head_seq() >= 1
    again.close()
