"""PostgreSQL with many processes: every write exactly once, gap-free sequences, branch reads match a model,
and a manager sees another process's writes at its next compile."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any
from unittest import mock

import pytest

from context_journal import ContextManager
from context_journal.strategies import WindowedPassthroughStrategy
from tests.stores.read_scope_cases import CASES as READ_SCOPE_CASES

if TYPE_CHECKING:
    from context_journal.stores.postgres import PostgresStore

PG_URL = os.environ.get("CONTEXT_JOURNAL_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")


def _unavailable() -> str | None:
    try:
        import psycopg

        psycopg.connect(PG_URL, connect_timeout=2).close()
    except Exception as exc:  # ImportError or a connection error
        return f"no PostgreSQL server at {PG_URL}: {exc}"
    return None


@pytest.fixture
def schema() -> Iterator[str]:
    reason = _unavailable()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set and the PostgreSQL suite cannot run: {reason}")
        pytest.skip(reason)
    name = f"cj_mp_{uuid.uuid4().hex[:12]}"
    yield name
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


def _store(schema: str) -> PostgresStore:
    from context_journal.stores.postgres import PostgresStore

    return PostgresStore(PG_URL, schema=schema)


WRITER = textwrap.dedent(
    """
    import sys
    from context_journal import ContextManager
    from context_journal.stores.postgres import PostgresStore
    url, schema, branch, tag, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    store = PostgresStore(url, schema=schema)
    cm = ContextManager.open(store=store, branch=branch)
    for i in range(n):
        if i % 7 == 3:
            cm.add_messages([{"participant": tag, "content": f"{tag} {i}"},
                             {"participant": tag, "content": f"{tag} {i}b"}])
        else:
            cm.add_message(tag, f"{tag} {i}")
        print(f"{tag} {i}", flush=True)
    store.close()
    """
)


def _run_writers(schema: str, plan: list[tuple[str, str]], n: int) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, PG_URL, schema, branch, tag, str(n)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for branch, tag in plan
    ]
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
        assert len(out.splitlines()) == n


def _expected(tag: str, n: int) -> list[str]:
    out: list[str] = []
    for i in range(n):
        out.append(f"{tag} {i}")
        if i % 7 == 3:
            out.append(f"{tag} {i}b")
    return out


def test_eight_processes_on_one_branch(schema: str) -> None:
    store = _store(schema)
    store.close()
    n = 30
    tags = [f"w{k}" for k in range(8)]
    _run_writers(schema, [("main", t) for t in tags], n)
    store = _store(schema)
    try:
        cm = ContextManager.open(store=store)
        messages = cm.get_all_messages()
        for tag in tags:  # every write exactly once, each writer's order kept
            assert [m.text() for m in messages if m.participant == tag] == _expected(tag, n)
        seqs = [r.seq for r in store.read_slot("messages", store.get_branch("main").id)]
        assert seqs == list(range(1, len(seqs) + 1))  # unique and gap-free store-wide
        assert store.head_seq() == len(seqs)
    finally:
        store.close()


def test_eight_processes_on_four_branches(schema: str) -> None:
    store = _store(schema)
    with ContextManager.open(store=store) as cm:
        cm.add_message("user", "common root")
        for b in ("b0", "b1", "b2", "b3"):
            cm.fork(b)
    store.close()
    n = 25
    plan = [(f"b{k % 4}", f"w{k}") for k in range(8)]
    _run_writers(schema, plan, n)
    store = _store(schema)
    try:
        for branch in ("b0", "b1", "b2", "b3"):
            cm = ContextManager.open(store=store, branch=branch)
            texts = [m.text() for m in cm.get_all_messages()]
            assert texts[0] == "common root"
            writers = [tag for b, tag in plan if b == branch]
            for tag in writers:
                assert [t for t in texts if t.startswith(tag + " ")] == _expected(tag, n)
            assert len(texts) == 1 + sum(len(_expected(t, n)) for t in writers)  # nothing from other branches
        main = ContextManager.open(store=store)
        assert [m.text() for m in main.get_all_messages()] == ["common root"]
        assert store.head_seq() == 1 + 8 * len(_expected("x", n))
    finally:
        store.close()


def test_a_manager_sees_another_process_writes_at_its_next_compile(schema: str) -> None:
    store = _store(schema)
    try:
        cm = ContextManager.open(store=store)
        cm.add_message("user", "first")
        before = cm.compile(max_tokens=10_000)
        assert [m.content[0]["text"] for m in before.messages] == ["first"]
        _run_writers(schema, [("main", "other")], 3)
        after = cm.compile(max_tokens=10_000)
        texts = [b["text"] for m in after.messages for b in m.content if b.get("type") == "text"]
        assert any("other 2" in t for t in texts)
        assert cm.message_count() == 4
        assert json.dumps(before.to_anthropic()) != json.dumps(after.to_anthropic())
    finally:
        store.close()


def _with_schema(url: str, schema: str, extra: str = "") -> str:
    return f"{url}{'&' if '?' in url else '?'}{extra}schema={schema}"


def test_a_schema_in_the_url_reaches_that_schema_from_python_and_the_cli(schema: str) -> None:
    """``?schema=NAME`` in a PostgreSQL URL opens the store in that schema (taken out of the URL before
    psycopg sees it; the other parameters stay), from ``open_store``, ``ContextManager.open`` and the CLI."""
    import psycopg
    from typer.testing import CliRunner

    from context_journal.cli import app
    from context_journal.stores import open_store

    url = _with_schema(PG_URL, schema, extra="connect_timeout=5&")
    with open_store(url) as store:
        assert store.schema == schema  # type: ignore[attr-defined]
    with ContextManager.open(url) as cm:
        cm.add_message("user", "hello")
        cm.add_message("assistant", "hi")
    res = CliRunner().invoke(app, ["stats", "--store", url, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["messages"] == 2
    res = CliRunner().invoke(app, ["worker", "--store", url, "--until-idle", "--poll-seconds", "5", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["claims"] == 0
    with psycopg.connect(PG_URL) as conn:
        rows = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = %s AND table_name = 'records'",
            (schema,),
        ).fetchone()
    assert rows == (1,)


def test_a_url_schema_that_conflicts_is_refused() -> None:
    pytest.importorskip("psycopg")
    from context_journal.errors import StoreError
    from context_journal.stores import open_store

    with pytest.raises(ValueError, match="more than one schema"):
        open_store("postgresql://u@127.0.0.1:1/db?schema=a&schema=b")
    with pytest.raises(ValueError, match="schema 'a' and schema= 'b'"):
        open_store("postgresql://u@127.0.0.1:1/db?schema=a", schema="b")
    with pytest.raises(StoreError, match="lower-case identifier"):
        open_store("postgresql://u@127.0.0.1:1/db?schema=Not%20one")


def test_url_schema_is_taken_out_and_the_rest_kept() -> None:
    from context_journal.stores import _url_schema

    assert _url_schema("postgresql://u@h/db") == ("postgresql://u@h/db", None)
    assert _url_schema("postgresql://u@h/db?schema=team_a") == ("postgresql://u@h/db", "team_a")
    assert _url_schema("postgresql://u:p%3Fx@h/db?sslmode=require&schema=a&options=-c%20x%3D1") == (
        "postgresql://u:p%3Fx@h/db?sslmode=require&options=-c%20x%3D1",
        "a",
    )
    assert _url_schema("postgresql://u@h/db?connect_timeout=5") == ("postgresql://u@h/db?connect_timeout=5", None)


def _round_trips(store: PostgresStore, fn: Callable[[], object]) -> int:
    """Statements the store's connection sends while ``fn`` runs (each one round trip: no pipeline)."""
    import psycopg

    sent = 0
    execute = psycopg.Cursor.execute

    def counting(cursor: psycopg.Cursor[Any], query: Any, *args: Any, **kwargs: Any) -> psycopg.Cursor[Any]:
        nonlocal sent
        if cursor.connection is store._conn:
            sent += 1
        return execute(cursor, query, *args, **kwargs)

    with mock.patch.object(psycopg.Cursor, "execute", counting):
        fn()
    return sent


def test_add_message_is_at_most_four_round_trips(schema: str) -> None:
    """BEGIN with the head lock, the record, its text index row, the head update with COMMIT; once a foreign
    write has been read, the next writes are four again (the branch table loaded under the write lock is
    trusted after the commit instead of being reloaded by every later write)."""
    ours, theirs = _store(schema), _store(schema)
    try:
        cm, other = ContextManager(ours), ContextManager(theirs)
        cm.add_message("user", "warm the handle")
        shapes: list[tuple[str, str | list[dict[str, Any]]]] = [
            ("user", "a plain text message"),
            ("assistant", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "/a"}}]),
            ("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "a=1"}]),
            ("user", [{"type": "text", "text": "for ann", "audience": ["ann"]}]),
        ]
        for participant, content in shapes:
            assert _round_trips(ours, functools.partial(cm.add_message, participant, content)) <= 4
        other.add_message("user", "a write by another handle")
        cm.add_message("user", "reads the foreign write and the branch table")
        assert _round_trips(ours, lambda: cm.add_message("user", "steady again")) <= 4
        other.fork("side")
        cm.add_message("user", "sees the new branch")
        assert ours.get_branch("side").name == "side"
        assert _round_trips(ours, lambda: cm.add_message("user", "steady after a fork")) <= 4
        seqs = [m.sequence for m in cm.get_all_messages()]
        assert seqs == sorted(seqs) and len(seqs) == len(set(seqs)) == 10  # theirs among ours, in order
    finally:
        ours.close()
        theirs.close()


def test_a_compile_after_an_append_is_three_round_trips(schema: str) -> None:
    """The namespace's states in one query (or one lookup of the state slot the store does not have yet),
    the change token, and the new record's body: a compile read six states one by one, and looked the
    missing slot up six times."""
    ours = _store(schema)
    try:
        cm = ContextManager(ours)
        for i in range(20):
            cm.add_message("user" if i % 2 else "assistant", f"message {i}")
        cm.compile(2000)
        cm.add_message("user", "one more")
        assert _round_trips(ours, lambda: cm.compile(2000)) == 3
        cm.pin(cm.get_all_messages()[0].id)
        cm.set_fact("goal", "ship it")
        cm.add_message("user", "and another")
        assert _round_trips(ours, lambda: cm.compile(2000)) == 3
        result = cm.compile(2000)
        assert "ship it" in json.dumps(result.to_anthropic())  # the states read in one query are the ones used
        cm.strategy = WindowedPassthroughStrategy()  # its anchor is read with the others
        cm.compile(2000)
        cm.add_message("user", "and one for the window")
        assert _round_trips(ours, lambda: cm.compile(2000)) == 3
    finally:
        ours.close()


def test_a_slot_missing_in_one_compile_is_looked_up_again_by_the_next(schema: str) -> None:
    """A compile reads as of its start; the next one sees what another handle wrote since."""
    ours, theirs = _store(schema), _store(schema)
    try:
        cm, other = ContextManager(ours), ContextManager(theirs)
        first = cm.add_message("user", "pin me")
        cm.add_message("assistant", "ok")
        with ours.read_scope():
            assert cm.pins() == []
            other.pin(first)  # another handle creates the state slot meanwhile
            assert cm.pins() == []  # missing for the rest of the scope
        assert cm.pins() == [first]  # outside the scope: looked up again
        with ours.read_scope():
            assert cm.working_state().facts == {}
            cm.set_fact("k", "v")  # this handle's own write inside a scope is found
            assert cm.working_state().facts == {"k": "v"}
    finally:
        ours.close()
        theirs.close()


def test_a_write_that_times_out_on_the_lock_leaves_the_handle_usable(schema: str) -> None:
    """The write lock is taken with BEGIN (where the change token is read): a lock timeout there is a
    StoreBusyError the caller may retry, and the handle's next write and read work (they once found the
    connection stuck in an aborted transaction)."""
    from context_journal.errors import StoreBusyError
    from context_journal.stores.postgres import PostgresStore

    holder, waiter = _store(schema), PostgresStore(PG_URL, schema=schema, lock_timeout=0.3)
    try:
        first, second = ContextManager(holder), ContextManager(waiter)
        second.add_message("user", "caches the branch table")
        with holder.transaction():
            first.add_message("user", "holds the write lock")
            with pytest.raises(StoreBusyError, match="lock timeout"):
                second.add_message("user", "waits, then gives up")
        second.add_message("user", "the retry")
        texts = [m.text() for m in second.get_all_messages()]
        assert texts == ["caches the branch table", "holds the write lock", "the retry"]
        assert waiter.head_seq() == holder.head_seq() == 3
    finally:
        holder.close()
        waiter.close()


def test_a_commit_that_fails_forgets_the_slot_it_created(schema: str) -> None:
    """A slot created in a transaction whose COMMIT fails is rolled back with it: the handle creates it
    again for its next write, so other handles find that write (a deferred check fails the COMMIT)."""
    import psycopg

    from context_journal.errors import StoreError

    store = _store(schema)
    try:
        ContextManager(store).add_message("user", "seed")
        with psycopg.connect(PG_URL, autocommit=True) as conn:
            conn.execute(
                f'CREATE FUNCTION "{schema}".fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN '
                "IF NEW.body LIKE '%FAIL AT COMMIT%' THEN RAISE EXCEPTION 'failed at commit'; END IF; "
                "RETURN NEW; END $$"
            )
            conn.execute(
                f'CREATE CONSTRAINT TRIGGER fail_at_commit AFTER INSERT ON "{schema}".records DEFERRABLE '
                f'INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "{schema}".fail_at_commit()'
            )
        cm = ContextManager.open(store=store, namespace="fresh", isolate=True)
        with pytest.raises(StoreError, match="failed at commit"):
            cm.add_message("user", "FAIL AT COMMIT")
        cm.add_message("user", "after")
        other = _store(schema)
        try:
            seen = ContextManager.open(store=other, namespace="fresh", isolate=True)
            assert [m.text() for m in seen.get_all_messages()] == ["after"]
        finally:
            other.close()
    finally:
        store.close()


@pytest.mark.parametrize("case", READ_SCOPE_CASES)
def test_a_read_scope_forgets_what_a_newer_token_or_a_write_may_have_changed(schema: str, case: Any) -> None:
    """See tests/stores/read_scope_cases.py: the same cases run on SQLite."""
    ours, theirs = _store(schema), _store(schema)
    try:
        case(ours, theirs)
    finally:
        ours.close()
        theirs.close()
