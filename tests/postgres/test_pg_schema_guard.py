"""PostgreSQL schemas (a review finding): a read command never creates a store in a schema named by mistake,
and a store never takes a schema it would share with the database's other users or with PostgreSQL itself."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from context_journal.cli import app
from context_journal.errors import StoreError
from context_journal.stores import open_store

PG_URL = os.environ.get("CONTEXT_JOURNAL_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
runner = CliRunner()


def _schema_exists(name: str) -> bool:
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        return conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (name,)).fetchone() is not None


@pytest.fixture
def schema() -> Iterator[str]:
    try:
        import psycopg

        psycopg.connect(PG_URL, connect_timeout=2).close()
    except Exception as exc:  # ImportError or a connection error
        if os.environ.get("CI"):
            pytest.fail(f"CI is set and the PostgreSQL suite cannot run: {exc}")
        pytest.skip(f"no PostgreSQL server at {PG_URL}: {exc}")
    name = f"cj_guard_{uuid.uuid4().hex[:12]}"
    yield name
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.mark.parametrize(
    "command",
    [["stats"], ["compile", "--budget", "500"], ["branch", "list"], ["worker", "--until-idle"]],
    ids=lambda c: "-".join(c[:2]),
)
def test_a_read_command_on_a_schema_without_a_store_fails_and_creates_nothing(schema: str, command: list[str]) -> None:
    url = f"{PG_URL}?schema={schema}"
    res = runner.invoke(app, [*command, "--store", url])
    assert res.exit_code != 0
    text = " ".join(res.output.split())
    assert f"no context-journal store in schema '{schema}'" in text and "nothing was created" in text
    assert not _schema_exists(schema)


def test_a_store_opens_for_reading_once_written(schema: str) -> None:
    url = f"{PG_URL}?schema={schema}"
    with pytest.raises(StoreError, match="no context-journal store"):
        open_store(url, create=False)
    open_store(url).close()  # a writer creates it
    store = open_store(url, create=False)
    try:
        assert store.head_seq() >= 0
    finally:
        store.close()


@pytest.mark.parametrize("name", ["public", "information_schema", "pg_catalog", "pg_mine"])
def test_shared_and_reserved_schemas_are_refused_before_anything_is_written(schema: str, name: str) -> None:
    with pytest.raises(StoreError, match="cannot hold a store"):
        open_store(f"{PG_URL}?schema={name}")
    if name == "pg_mine":
        assert not _schema_exists(name)
