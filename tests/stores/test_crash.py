"""Crash safety (invariant 1): kill -9 a writer at random moments; nothing it acknowledged is lost.

A child process (``_crash_child.py``) writes through :class:`ContextManager` in a loop and prints each
write after the call returned. The parent kills it with SIGKILL at a random moment, 20 times (some
during start-up and schema creation, most mid-write), five kills per store file, and after each kill
reopens the store and checks:

* it opens clean (``PRAGMA integrity_check`` is ``ok``, no foreign-key violations);
* every acknowledged append, batch, edit and branch is there;
* a batch (one transaction) is there whole or not at all, acknowledged or not;
* sequences are contiguous ``1..head`` and the message index agrees with the records.
"""

from __future__ import annotations

import io
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from context_journal.errors import MessageNotFoundError
from context_journal.manager import ContextManager
from context_journal.stores import ROOT_BRANCH, SQLiteStore

CHILD = Path(__file__).with_name("_crash_child.py")
KILLS = 20
PER_STORE = 5  # kills per store file (a store that keeps growing would make each restart slower)


@dataclass
class Acked:
    """What the children acknowledged, over all runs."""

    appended: set[str] = field(default_factory=set)
    batches: list[list[str]] = field(default_factory=list)
    edits: dict[str, int] = field(default_factory=dict)  # id -> newest acknowledged edit sequence
    branches: set[str] = field(default_factory=set)

    def add(self, line: str) -> None:
        kind, *args = line.split()
        if kind == "A":
            self.appended.add(args[0])
        elif kind == "M":
            self.batches.append(args)
            self.appended.update(args)
        elif kind == "E":
            self.edits[args[0]] = max(self.edits.get(args[0], 0), int(args[1]))
        elif kind == "B":
            self.branches.add(args[0])


def run_and_kill(db: Path, run: int, rng: random.Random) -> list[str]:
    """Start a writer, SIGKILL it at a random moment, return the complete lines it printed."""
    durability = "full" if run % 4 == 1 else "normal"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, str(CHILD), str(db), f"r{run}", durability],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    ready = threading.Event()

    def drain() -> None:  # keeps the pipe empty so the child never blocks on a full buffer
        out = proc.stdout
        assert isinstance(out, io.BufferedReader)  # a binary pipe: read1 returns what is there
        buf = b""
        for chunk in iter(lambda: out.read1(65536), b""):
            buf += chunk
            *done, buf = buf.split(b"\n")
            for raw in done:
                text = raw.decode()
                if text == "ready":
                    ready.set()
                else:
                    lines.append(text)
        # a partial last line (no newline) was never acknowledged: dropped

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    started = time.monotonic()
    try:
        if run % PER_STORE == 0:
            # anywhere from interpreter start-up through opening (and creating) the store
            time.sleep(rng.uniform(0.05, 0.3))
        else:
            assert ready.wait(30), "the writer did not start"
            time.sleep(rng.uniform(0.02, 0.25))
        if proc.poll() is not None:
            stderr = proc.stderr.read().decode() if proc.stderr else ""
            elapsed = time.monotonic() - started
            pytest.fail(f"the writer died on its own (exit {proc.returncode}) after {elapsed:.2f}s:\n{stderr}")
    finally:
        # killed (a no-op once it has exited) and reaped, the reader at EOF, both pipes closed here
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        reader.join(10)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    assert proc.returncode == -signal.SIGKILL
    return lines


def check_store(db: Path, acked: Acked, latest: list[str], rng: random.Random) -> None:
    if not db.exists():  # killed before the first open created the file
        assert not acked.appended
        return
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()
    with ContextManager.open(db) as cm:
        store = cm.store
        assert isinstance(store, SQLiteStore)
        head = store.head_seq()
        stats = store.stats()
        # contiguous sequences: unique (primary key) and as many as the head
        assert stats.records == head
        main = store.get_branch(ROOT_BRANCH).id
        records = store.read_slot("messages", main)
        assert [r.seq for r in records] == sorted(r.seq for r in records)
        present = {r.item for r in records}
        missing = acked.appended - present
        assert not missing, f"{len(missing)} acknowledged messages lost, e.g. {sorted(missing)[:5]}"
        # full reads of this run's acknowledged messages and a sample of the older ones
        older = sorted(acked.appended - set(latest))
        for mid in latest + rng.sample(older, min(50, len(older))):
            assert cm.get_message(mid).id == mid
        for batch in acked.batches:
            assert set(batch) <= present
        # every batch in the store, acknowledged or in flight, is whole
        by_batch: dict[str, set[str]] = {}
        for item in present:
            parts = item.split("-")
            if len(parts) == 3:
                by_batch.setdefault("-".join(parts[:2]), set()).add(parts[2])
        assert all(parts == {"0", "1", "2"} for parts in by_batch.values()), by_batch
        for mid, seq in acked.edits.items():
            assert cm.get_message(mid).sequence >= seq
            assert cm.get_message_at(mid, seq).sequence == seq
        names = {b.name for b in store.list_branches()}
        assert acked.branches <= names
        # the index built at open agrees with the records
        assert cm.message_count() == len(present)
        with pytest.raises(MessageNotFoundError):
            cm.get_message("never-written")


@pytest.mark.slow
def test_sigkill_loses_nothing_acknowledged(tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("CRASH_SEED", "0")) or time.time_ns())
    total = 0
    for run in range(KILLS):
        if run % PER_STORE == 0:  # a fresh store: the first kill of each lands in start-up or schema creation
            db = tmp_path / f"crash-{run // PER_STORE}.db"
            acked = Acked()
        lines = run_and_kill(db, run, rng)
        total += len(lines)
        for line in lines:
            acked.add(line)
        latest = [mid for line in lines if line[0] in "AM" for mid in line.split()[1:]]
        check_store(db, acked, latest, rng)
    assert total, "no write was acknowledged in any run; the kills came too early"
