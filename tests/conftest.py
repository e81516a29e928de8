"""Shared fixtures.

``data_dir``: the real data sets in ``../shared/data`` beside the repository (CI lays ``../shared``
there).

``backend`` / ``store``: every store backend under one interface, so a test written against them runs
on each (memory, SQLite, and PostgreSQL when a server is reachable at ``CONTEXT_JOURNAL_TEST_PG_URL``).
A backend is one entry in ``BACKENDS`` plus one :class:`Backend` subclass: the tests never assume
SQLite.
"""

from __future__ import annotations

import functools
import itertools
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
import typer.testing
from hypothesis import settings

from context_journal.stores import MemoryStore, SQLiteStore, Store
from context_journal.stores import memory as memory_backend
from context_journal.stores import sqlite as sqlite_backend
from context_journal.testing.conformance import StoreBackend
from tests.hypothesis_budget import DEV_MAX_EXAMPLES, DEV_PROFILE
from tests.real_stores import CLAUDE_CODE_SESSION

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"

# Hypothesis profiles. "ci", loaded unless another is chosen, runs every test's examples as written. "dev"
# (``python -m pytest --hypothesis-profile=dev``, hypothesis's own option, applied after this file is read)
# runs about a tenth of them for a quicker local loop: a test's ``max_examples=examples(N)`` follows it
# (hypothesis_budget.py), and so does every test that names no count. Both start from the settings
# hypothesis would have loaded by itself (its built-in "ci" profile when it detects a CI run, else
# "default"), so a run that chooses no profile behaves exactly as before the profiles existed.
_HYPOTHESIS_BASE = settings.get_profile(settings.get_current_profile_name())
settings.register_profile("ci", _HYPOTHESIS_BASE)
settings.register_profile(DEV_PROFILE, _HYPOTHESIS_BASE, max_examples=DEV_MAX_EXAMPLES)
settings.load_profile("ci")


# The command-line tests run the CLI in process with typer's ``CliRunner``, whose ``invoke`` turns the typer app
# into its click command (every command's signature and type hints read again) on each call: 40 ms a call, and
# the suite makes hundreds of them. The app is fixed once its modules are imported, so the command is built once
# per app and reused; each invocation still parses, runs and reports through it as before (click keeps no state
# in a command between invocations: each gets a new context). The build itself is run by the first call, and
# by every test that starts the real command line in a process of its own.
_built: dict[int, tuple[typer.Typer, tuple[int, int, int], Any]] = {}


def _command_of(app: typer.Typer) -> Any:
    """The click command of ``app``, built again if commands, groups or the callback were added since."""
    shape = (len(app.registered_commands), len(app.registered_groups), id(app.registered_callback))
    held = _built.get(id(app))
    if held is None or held[0] is not app or held[1] != shape:
        held = (app, shape, typer.main.get_command(app))
        _built[id(app)] = held
    return held[2]


setattr(typer.testing, "_get_command", _command_of)  # noqa: B010 (a private name of typer's, set by name)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """``../shared/data`` beside the repository; skips the test when it is not there."""
    if not DATA_DIR.is_dir():
        pytest.skip(f"data sets not found at {DATA_DIR}")
    return DATA_DIR


@pytest.fixture(scope="session")
def cli_imported_session(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """``CLAUDE_CODE_SESSION`` imported with the command line's ``import --json``, once per run: a SQLite
    file no test opens. Tests take a copy of it (:func:`copy_store`), so none sees another's writes and each
    starts from what its own import would have written."""
    from typer.testing import CliRunner

    from context_journal.cli import app

    session = data_dir / CLAUDE_CODE_SESSION
    if not session.exists():
        pytest.skip(f"shared data not found at {session}")
    path = tmp_path_factory.mktemp("cc-imported") / "cc.db"
    res = CliRunner().invoke(app, ["import", str(session), "--store", str(path), "--json"])
    assert res.exit_code == 0, res.output
    return path


class Backend(StoreBackend):
    """How the tests make stores of one backend (the conformance suite's :class:`StoreBackend`); every
    store it made is closed at the fixture's teardown."""


class MemoryBackend(Backend):
    """The reference backend: "another handle" is the same object (that is how it is shared)."""

    name = "memory"
    durable = False
    migrations = memory_backend.MIGRATIONS

    def new(self) -> Store:
        return self.track(MemoryStore())

    def handle(self, store: Store) -> Store:
        return store

    def reopen(self, store: Store) -> Store:
        raise pytest.skip.Exception("the memory backend is not durable")

    def reopen_factory(self, store: Store) -> Callable[[], Store]:
        raise pytest.skip.Exception("the memory backend is not durable")


class SQLiteBackend(Backend):
    """One SQLite file per store in a temporary directory."""

    name = "sqlite"
    migrations = sqlite_backend.MIGRATIONS

    def __init__(self, directory: Path) -> None:
        super().__init__()
        self.directory = directory
        self._counter = itertools.count()

    def new(self) -> Store:
        return self.track(SQLiteStore(self.directory / f"store-{next(self._counter)}.db"))

    def handle(self, store: Store) -> Store:
        assert isinstance(store, SQLiteStore)
        return self.track(SQLiteStore(store.path))

    def reopen(self, store: Store) -> Store:
        assert isinstance(store, SQLiteStore)
        store.close()
        return self.track(SQLiteStore(store.path))

    def reopen_factory(self, store: Store) -> Callable[[], Store]:
        assert isinstance(store, SQLiteStore)
        path = store.path
        return lambda: self.track(SQLiteStore(path))


PG_URL = os.environ.get("CONTEXT_JOURNAL_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
"""The PostgreSQL server the ``postgres`` backend tests use (CI starts one; skipped when absent)."""


def _postgres_unavailable() -> str | None:
    """Why the PostgreSQL backend cannot be tested here, or None when it can."""
    try:
        import psycopg

        from context_journal.stores import postgres  # noqa: F401
    except ImportError as exc:
        return f"PostgreSQL backend not importable: {exc}"
    try:
        psycopg.connect(PG_URL, connect_timeout=2).close()
    except psycopg.Error as exc:
        return f"no PostgreSQL server at {PG_URL}: {exc}"
    return None


class PostgresBackend(Backend):
    """One schema per store in the test database; every schema made is dropped at teardown."""

    name = "postgres"

    def __init__(self) -> None:
        super().__init__()
        from context_journal.stores import postgres

        self._module = postgres
        self.migrations = postgres.MIGRATIONS
        self._schemas: list[str] = []

    def _open(self, schema: str) -> Store:
        store: Store = self._module.PostgresStore(PG_URL, schema=schema)
        return self.track(store)

    def new(self) -> Store:
        schema = f"cj_test_{uuid.uuid4().hex[:16]}"
        self._schemas.append(schema)
        return self._open(schema)

    def handle(self, store: Store) -> Store:
        return self._open(store.schema)  # type: ignore[attr-defined]

    def reopen(self, store: Store) -> Store:
        store.close()
        return self._open(store.schema)  # type: ignore[attr-defined]

    def reopen_factory(self, store: Store) -> Callable[[], Store]:
        schema = store.schema  # type: ignore[attr-defined]
        return lambda: self._open(schema)

    def close_all(self) -> None:
        super().close_all()
        if self._schemas:
            import psycopg

            with psycopg.connect(PG_URL, autocommit=True) as conn:
                for schema in self._schemas:
                    conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            self._schemas.clear()


BACKENDS = ["memory", "sqlite", "postgres"]
"""Backends every conformance test runs on; each has a :class:`Backend` in :func:`make_backend`."""


@functools.cache
def backend_unavailable(name: str) -> str | None:
    return _postgres_unavailable() if name == "postgres" else None


def make_backend(name: str, tmp_path: Path) -> Backend:
    reason = backend_unavailable(name)
    if reason is not None:
        if os.environ.get("CI") and name == "postgres":
            pytest.fail(f"CI is set and the PostgreSQL suite cannot run: {reason}")
        pytest.skip(reason)
    if name == "memory":
        return MemoryBackend()
    if name == "sqlite":
        return SQLiteBackend(tmp_path)
    if name == "postgres":
        return PostgresBackend()
    raise ValueError(f"unknown backend {name!r}")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """Each store backend in turn; every store it made is closed at teardown."""
    b = make_backend(request.param, tmp_path)
    try:
        yield b
    finally:
        b.close_all()


@pytest.fixture
def store(backend: Backend) -> Store:
    """A fresh, empty store of each backend."""
    return backend.new()
