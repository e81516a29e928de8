"""Helpers of the SQLite concurrency tests (test_concurrency.py and B35 in test_bug_cases.py).

:func:`run_race` runs several writers appending to one SQLite store at once — as
threads (each with its own handle, or all sharing one) or as processes (``_writer_child.py``) — while
a reader with its own handle keeps reading; it returns the store path and how many snapshots the
reader checked. Every snapshot must be whole (see :func:`check_snapshot`); the final store is checked
by :func:`check_final`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from context_journal.manager import ContextManager
from context_journal.messages import Message
from context_journal.stores import ROOT_BRANCH, Op, SQLiteStore
from tests.run_threads import run_threads
from tests.stores._writer_child import body, write_all

WRITER_CHILD = Path(__file__).with_name("_writer_child.py")

Mode = Literal["threads", "shared-handle", "processes"]


def expected_ids(name: str, count: int) -> list[str]:
    """The ids ``_writer_child.write_all`` writes, in order."""
    ids: list[str] = []
    i = 0
    while i < count:
        if i % 5 == 4 and i + 3 <= count:
            ids += [f"{name}-{i}-b{k}" for k in range(3)]
            i += 3
        else:
            ids.append(f"{name}-{i}")
            i += 1
    return ids


def check_snapshot(messages: list[Message], writers: list[str], count: int) -> None:
    """What a reader sees at any moment: whole entries, whole batches, each writer's prefix in order."""
    by_writer: dict[str, list[str]] = {w: [] for w in writers}
    for m in messages:
        text, meta = body(m.id)
        assert m.text() == text and m.metadata == meta, f"half-written entry {m.id}: {m!r}"
        assert m.participant == m.id.split("-")[0]
        by_writer[m.participant].append(m.id)
    for w, seen in by_writer.items():
        assert seen == expected_ids(w, count)[: len(seen)], f"writer {w}: not a prefix in order"
        last = seen[-1] if seen else ""
        assert "-b" not in last or last.endswith("-b2"), f"torn batch at {last}"
    seqs = [m.created_sequence for m in messages]
    assert seqs == sorted(set(seqs))


def check_final(db: Path, writers: list[str], count: int) -> None:
    """Every write landed exactly once; sequences are unique and gap-free."""
    with SQLiteStore(db) as store:
        records = store.read_slot("messages", store.get_branch(ROOT_BRANCH).id)
        appended = [r.item for r in records if r.op == Op.APPEND]
        assert len(appended) == len(set(appended)), "a write landed twice"
        assert sorted(appended) == sorted(i for w in writers for i in expected_ids(w, count))
        head = store.head_seq()
        assert store.stats().records == head  # unique sequences (primary key), as many as the head: gap-free
        seqs = [r.seq for r in records]  # the messages, in order (a writer's first write also marks its namespace)
        assert seqs == sorted(set(seqs)) and seqs[-1] <= head and head - len(seqs) <= len(writers)
    with ContextManager.open(db) as cm:
        check_snapshot(cm.get_all_messages(), writers, count)
        assert cm.message_count() == len(writers) * count


@dataclass
class RaceResult:
    db: Path
    snapshots: int


class _Reader(threading.Thread):
    """Reads the store through its own handle until stopped; records the first failure."""

    def __init__(self, db: Path, writers: list[str], count: int) -> None:
        super().__init__(daemon=True)
        self.db, self.writers, self.count = db, writers, count
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.snapshots = 0
        self.ready = threading.Event()  # set once the first snapshot is checked (or the reader failed)

    def run(self) -> None:
        try:
            with ContextManager.open(self.db) as cm:
                prev = 0
                while not self.stop.is_set():
                    msgs = cm.get_all_messages()
                    check_snapshot(msgs, self.writers, self.count)
                    assert len(msgs) >= prev, "a reader saw messages disappear"
                    prev = len(msgs)
                    assert cm.message_count() >= prev
                    self.snapshots += 1
                    self.ready.set()
                    # a pause between reads: a reader spinning on the GIL would slow the writer threads
                    # (each SQLite call gives up and retakes the GIL) and test the interpreter, not the store
                    self.stop.wait(0.002)
        except BaseException as exc:
            self.error = exc
        finally:
            self.ready.set()


def _run_threads(db: Path, writers: list[str], count: int, shared: bool) -> None:
    shared_store = SQLiteStore(db) if shared else None
    managers = [
        ContextManager.open(store=shared_store, namespace=w) if shared_store else ContextManager.open(db)
        for w in writers
    ]
    calls = [(cm, w, count) for cm, w in zip(managers, writers, strict=True)]
    errors = run_threads(write_all, calls, timeout=120, barrier=True)
    for cm in managers:
        cm.close()
    if shared_store is not None:
        shared_store.close()
    if errors:
        raise errors[0]


def _run_processes(db: Path, writers: list[str], count: int) -> None:
    go = db.with_suffix(".go")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen(
            [sys.executable, str(WRITER_CHILD), str(db), w, str(count), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for w in writers
    ]
    for p in procs:
        assert p.stdout is not None
        assert p.stdout.readline().strip() == "ready"
    go.touch()
    for p, w in zip(procs, writers, strict=True):
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0 and out.strip() == "done", f"writer {w} failed:\n{err}"
        assert "locked" not in err and "busy" not in err.lower()


def run_race(directory: Path, writers: list[str], count: int, mode: Mode) -> RaceResult:
    """Race ``writers`` (``count`` messages each) on a new store in ``directory`` while a reader reads."""
    db = directory / f"race-{mode}.db"
    SQLiteStore(db).close()  # created (and migrated) before the race
    reader = _Reader(db, writers, count)
    reader.start()
    # The writers start once the reader reads (on a loaded machine its open once outlasted 300 writes,
    # and it checked no snapshot at all).
    reader.ready.wait(60)
    try:
        if mode == "processes":
            _run_processes(db, writers, count)
        else:
            _run_threads(db, writers, count, shared=mode == "shared-handle")
    finally:
        reader.stop.set()
        reader.join(60)
    if reader.error is not None:
        raise reader.error
    return RaceResult(db, reader.snapshots)
