"""Several writers on one SQLite store at once (DESIGN.md 2.1: ``BEGIN IMMEDIATE``, WAL, busy timeout).

Two processes, and separately two threads (each with its own handle, or both sharing one), append to
the same branch and slot concurrently while a reader with its own handle reads the conversation over
and over. Every write must land exactly once with no error escaping (no "database is locked"),
sequences must be unique and gap-free, and the reader must never see a half-written entry or a torn
batch (helpers in ``_race.py``; B35 in test_bug_cases.py runs the bug case's own sizes).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from context_journal.manager import ContextManager
from context_journal.stores import ROOT_BRANCH, SQLiteStore
from tests.run_threads import run_threads
from tests.stores._race import Mode, RaceResult, check_final

Race = Callable[[list[str], int, Mode], RaceResult]


@pytest.mark.parametrize("mode", ["processes", "threads", "shared-handle"])
def test_concurrent_writers_every_write_lands_once(race: Race, mode: Mode) -> None:
    writers, count = ["ann", "bob"], 150
    result = race(writers, count, mode)
    check_final(result.db, writers, count)
    assert result.snapshots > 0


def test_three_processes_and_forks_while_writing(race: Race, tmp_path: Path) -> None:
    """More writers than cores, and a fork taken at each moment sees a whole prefix."""
    writers, count = ["ann", "bob", "cy"], 60
    stop = threading.Event()
    forks: list[tuple[str, int]] = []
    errors: list[BaseException] = []
    db = tmp_path / "race-processes.db"

    def forker() -> None:
        try:
            while not db.exists():
                if stop.wait(0.001):
                    return
            with SQLiteStore(db) as store:
                n = 0
                while not stop.is_set():
                    info = store.create_branch(f"fork{n}")
                    assert info.fork_seq is not None
                    forks.append((info.name, info.fork_seq))
                    n += 1
                    stop.wait(0.01)
        except BaseException as exc:
            errors.append(exc)

    t = threading.Thread(target=forker)
    t.start()
    try:
        result = race(writers, count, "processes")
    finally:
        stop.set()
        t.join(30)
    assert not errors, errors
    check_final(result.db, writers, count)
    with SQLiteStore(result.db) as store:
        main = store.read_slot("messages", store.get_branch(ROOT_BRANCH).id)
        for name, fork_seq in forks:
            with ContextManager.open(store=store, branch=name) as cm:
                seen = [m.id for m in cm.get_all_messages()]
            assert seen == [r.item for r in main if r.seq <= fork_seq]


def test_handles_opening_a_new_store_at_once(tmp_path: Path) -> None:
    """Several agents starting together on a store that does not exist yet: every open (switch to WAL,
    schema creation) and first write succeeds; none gets "database is locked". (SQLite answers a lost
    race for the WAL switch at once, without its busy handler; 60 rounds of 6 make a miss unlikely.)"""
    for trial in range(60):
        db = tmp_path / f"fresh-{trial}.db"

        def open_and_write(k: int, db: Path = db) -> None:
            with ContextManager.open(db) as cm:
                cm.add_message("user", f"agent {k} starts", id=f"agent-{k}")

        errors = run_threads(open_and_write, [(k,) for k in range(6)], barrier=True)
        assert not errors, f"round {trial}: {errors[0]!r}"
        with ContextManager.open(db) as cm:
            assert sorted(m.id for m in cm.get_all_messages()) == [f"agent-{k}" for k in range(6)]
