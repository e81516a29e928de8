"""The conformance suite as a third-party backend runs it: imported from the installed package by a test
module in a directory of its own (no conftest, no configuration of this repository), with a backend class
written there. A store that keeps the contract passes; one that breaks a rule of it fails, at that rule."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

MODULE = '''
import pytest
from hypothesis import Phase, settings
from context_journal.stores import MemoryStore, SQLiteStore
from context_journal.stores import sqlite as sqlite_backend
from context_journal.testing.conformance import StoreBackend, StoreConformance


class IgnoresAsOf(MemoryStore):
    """A fault: reads ignore the sequence they are asked to stop at (every read is of the newest state)."""

    def _rows(self, slot, branch_id, after, upto, item=None):
        return super()._rows(slot, branch_id, after, 2**62, item)


class NamedFileBackend(StoreBackend):
    name = "named-file"
    migrations = sqlite_backend.MIGRATIONS

    def __init__(self, directory):
        super().__init__()
        self.directory = directory
        self.made = 0

    def new(self):
        self.made += 1
        return self.track(SQLiteStore(self.directory / f"journal-{self.made}.db"))

    def handle(self, store):
        return self.track(SQLiteStore(store.path))

    def reopen(self, store):
        store.close()
        return self.track(SQLiteStore(store.path))

    def reopen_factory(self, store):
        return lambda: self.track(SQLiteStore(store.path))


class FaultyBackend(StoreBackend):
    name = "faulty"
    durable = False

    def new(self):
        return self.track(IgnoresAsOf())

    def handle(self, store):
        return store


class TestNamedFile(StoreConformance):
    @pytest.fixture
    def backend(self, tmp_path):
        b = NamedFileBackend(tmp_path)
        yield b
        b.close_all()


class TestFaulty(StoreConformance):
    def machine_settings(self, backend):
        return settings(super().machine_settings(backend), phases=[Phase.generate])  # no shrinking: a failure is enough

    @pytest.fixture
    def backend(self):
        b = FaultyBackend()
        yield b
        b.close_all()
'''


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_my_backend.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf", *args, "test_my_backend.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_backend_written_outside_the_package_passes_the_suite(tmp_path: Path) -> None:
    run = _run(tmp_path, "-k", "TestNamedFile")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "43 passed" in run.stdout  # every test of the suite ran (the closed-store checks are 13 of them)


def test_a_backend_that_breaks_the_contract_fails_at_the_rules_it_breaks(tmp_path: Path) -> None:
    run = _run(tmp_path, "-k", "TestFaulty")
    assert run.returncode == 1, run.stdout[-3000:]
    failed = sorted(line.split("::")[-1].split(" ")[0] for line in run.stdout.splitlines() if line.startswith("FAILED"))
    assert "test_time_travel_reads_each_version" in failed
    assert "test_branching_visibility_matches_naive_model" in failed
    assert "test_blobs_are_stored_once_by_sha256" not in failed  # the rules it keeps still pass
    assert "skipped" in run.stdout  # not durable: no reopen; no migrations: the migration tests skip
