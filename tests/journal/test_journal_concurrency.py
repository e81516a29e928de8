"""Many processes on one journal, and crashes (SQLite and PostgreSQL; the memory backend is one process).

* Four processes append to one project at once: the seqs are exactly 1..N, every key is there once, each
  writer's entries are in its own order, and the chain verifies.
* A writer is killed with SIGKILL at a random moment, 10 times: every entry it acknowledged is there with
  the seq it was told; a retry of its last acknowledged key is a ``duplicate``; a retry of the key that was
  in flight is ``appended`` or ``duplicate`` and then present exactly once.
"""

from __future__ import annotations

import io
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from context_journal.journal import ExecutionJournal
from context_journal.journal.entries import parse_body
from context_journal.stores import MemoryStore, SQLiteStore, Store
from tests.journal._append_child import body

CHILD = Path(__file__).with_name("_append_child.py")
WRITERS = 4
PER_WRITER = 30
KILLS = 10


def _location(store: Store) -> str:
    if isinstance(store, MemoryStore):
        pytest.skip("the memory backend lives in one process")
    if isinstance(store, SQLiteStore):
        return store.path
    return f"pg:{store.url}#{store.schema}"  # type: ignore[attr-defined]


class Child:
    """A child process whose complete stdout lines are collected by a thread."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        self.proc = subprocess.Popen(
            [sys.executable, str(CHILD), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        self.lines: list[str] = []
        self.ready = threading.Event()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        out = self.proc.stdout
        assert isinstance(out, io.BufferedReader)  # a binary pipe: read1 returns what is there
        buf = b""
        for chunk in iter(lambda: out.read1(65536), b""):
            buf += chunk
            *done, buf = buf.split(b"\n")
            for raw in done:
                text = raw.decode()
                if text == "ready":
                    self.ready.set()
                else:
                    self.lines.append(text)
        # a partial last line was never acknowledged: dropped

    def wait_ready(self) -> None:
        if not self.ready.wait(60):
            self.proc.kill()
            stderr = self.proc.stderr.read().decode() if self.proc.stderr else ""
            self.close()
            pytest.fail(f"the child did not start:\n{stderr}")

    def finish(self, timeout: float = 120) -> None:
        self.proc.wait(timeout)
        self._reader.join(10)
        if self.proc.returncode != 0:
            stderr = self.proc.stderr.read().decode() if self.proc.stderr else ""
            self.close()
            pytest.fail(f"child exited {self.proc.returncode}:\n{stderr}")
        self.close()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._reader.join(10)
        self.close()

    def close(self) -> None:
        """Kill the child if it still runs, reap it and close both pipes (none is left to the garbage collector)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        self._reader.join(10)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


def test_four_processes_append_at_once(store: Store, tmp_path: Path) -> None:
    location = _location(store)
    go = tmp_path / "go"
    children = [Child(location, "race", f"w{k}", "race", str(PER_WRITER), str(go)) for k in range(WRITERS)]
    try:
        for c in children:
            c.wait_ready()
        go.touch()
        for c in children:
            c.finish()
    finally:
        for c in children:
            c.close()
    journal = ExecutionJournal(store)
    entries = journal.entries("race")
    n = WRITERS * PER_WRITER
    assert [e.seq for e in entries] == list(range(1, n + 1))
    keys = [e.idempotency_key for e in entries]
    assert sorted(keys) == sorted(f"w{k}-{i}" for k in range(WRITERS) for i in range(PER_WRITER))
    for k in range(WRITERS):  # each writer's entries in its own order, with the seqs it was told
        mine = [e for e in entries if e.author == f"w{k}"]
        assert [e.idempotency_key for e in mine] == [f"w{k}-{i}" for i in range(PER_WRITER)]
        told = {line.split()[1]: int(line.split()[2]) for line in children[k].lines if line.startswith("A ")}
        assert told == {e.idempotency_key: e.seq for e in mine}
        assert all(e.body == parse_body("handoff", body(e.idempotency_key)).model_dump() for e in mine)
    assert journal.verify_chain("race").ok
    # the marker records took gap-free store sequences, in journal order
    assert [e.store_seq for e in entries] == sorted(e.store_seq for e in entries)
    assert len({e.store_seq for e in entries}) == n
    assert len(journal.state("race").rule_outs) == n


def test_sigkill_mid_append_loses_nothing_acknowledged(store: Store) -> None:
    location = _location(store)
    rng = random.Random(int(os.environ.get("CRASH_SEED", "0")) or time.time_ns())
    acked: dict[str, int] = {}
    acknowledged_runs = 0
    for run in range(KILLS):
        child = Child(location, "crash", f"r{run}", "crash")
        try:
            child.wait_ready()
            time.sleep(rng.uniform(0.01, 0.25))
            if child.proc.poll() is not None:
                stderr = child.proc.stderr.read().decode() if child.proc.stderr else ""
                pytest.fail(f"the writer died on its own:\n{stderr}")
        finally:
            child.kill()
        assert child.proc.returncode == -signal.SIGKILL
        in_flight: str | None = None
        last_acked: str | None = None
        for line in child.lines:
            kind, key, *rest = line.split()
            if kind == "T":
                in_flight = key
            else:
                acked[key] = int(rest[0])
                last_acked, in_flight = key, None
        # reopen, as a restarted harness would
        journal = ExecutionJournal(store)
        entries = {e.idempotency_key: e for e in journal.entries("crash")}
        missing = {k for k in acked if k not in entries}
        assert not missing, f"acknowledged entries lost: {sorted(missing)}"
        assert all(entries[k].seq == s for k, s in acked.items())
        assert journal.verify_chain("crash").ok
        if last_acked is not None:
            acknowledged_runs += 1
            retry = journal.append("crash", "handoff", body(last_acked), f"r{run}", last_acked)
            assert retry.status == "duplicate" and retry.entry is not None
            assert retry.entry.seq == acked[last_acked]
        if in_flight is not None:
            retry = journal.append("crash", "handoff", body(in_flight), f"r{run}", in_flight)
            assert retry.status in ("appended", "duplicate") and retry.entry is not None
            acked[in_flight] = retry.entry.seq
            again = journal.append("crash", "handoff", body(in_flight), f"r{run}", in_flight)
            assert again.status == "duplicate"
        seqs = [e.seq for e in journal.entries("crash")]
        assert seqs == list(range(1, len(seqs) + 1))
    assert acknowledged_runs, "no append was acknowledged in any run; the kills came too early"
