"""PostgreSQL workers are woken by ``LISTEN``/``NOTIFY`` when work is enqueued, instead of waiting out their
poll interval; stores in other schemas do not wake them; a lost listener connection falls back to polling.

The bounds measured here are generous (seconds against a 30 s poll interval): they prove the wake-up, not
its speed."""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from context_journal import ContextManager
from context_journal.testing import ScriptedProvider
from context_journal.workers import CompressionWorker, enqueue
from tests.workers._work import PG_URL, pg_unavailable, strategy

POLL = 30.0
"""The workers' poll interval: far longer than any wake-up the tests accept."""

WAKE_BOUND = 2.0
"""Seconds within which a notified worker must have claimed the item."""


@pytest.fixture
def schemas() -> Iterator[list[str]]:
    """Names of fresh schemas (made by the stores that use them; dropped at teardown)."""
    reason = pg_unavailable()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set and the PostgreSQL suite cannot run: {reason}")
        pytest.skip(reason)
    from context_journal.stores.postgres import _NOTIFIES_TIMEOUT

    if not _NOTIFIES_TIMEOUT:
        pytest.skip("psycopg before 3.2 cannot wait for notifications with a timeout: workers poll")
    names = [f"cj_nt_{uuid.uuid4().hex[:12]}" for _ in range(2)]
    yield names
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        for name in names:
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


def _pg(schema: str) -> Any:
    from context_journal.stores.postgres import PostgresStore

    return PostgresStore(PG_URL, schema=schema)


def _conversation(schema: str) -> ContextManager:
    """A workers-mode conversation whose queue item is done (the queue has nothing pending)."""
    cm = ContextManager(_pg(schema), namespace="n", isolate=True, strategy=strategy(), compression="workers")
    for i in range(12):
        cm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i}: " + "the quick brown fox jumps " * 4)
    store: Any = cm.store
    claim = store.queue_claim("setup", 60.0, time.time())
    assert claim is not None
    assert store.queue_finish(claim.key, "setup", claim.generation, "done", 0.0, time.time(), None)
    assert store.queue_claim("setup", 60.0, time.time()) is None
    return cm


def _worker(schema: str, **kwargs: Any) -> CompressionWorker:
    return CompressionWorker(
        _pg(schema),
        ScriptedProvider(default="I remember it."),
        worker_id="w",
        poll_seconds=POLL,
        retention_seconds=None,
        **kwargs,
    )


async def _until(predicate: Any, seconds: float) -> float | None:
    """Seconds until ``predicate()`` held (checked every 10 ms), or None after ``seconds``."""
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        if predicate():
            return time.monotonic() - started
        await asyncio.sleep(0.01)
    return None


async def _idle(worker: CompressionWorker) -> None:
    """Wait until the worker sits in its idle wait (after a claim that found nothing)."""
    waited = await _until(lambda: worker._waiting is not None and not worker._waiting.done(), 10.0)
    assert waited is not None, "the worker never went idle"


def test_an_idle_worker_is_woken_by_an_enqueue(schemas: list[str]) -> None:
    cm = _conversation(schemas[0])
    worker = _worker(schemas[0])

    async def main() -> float | None:
        task = asyncio.create_task(worker.arun(until_idle=False, max_items=1))
        try:
            await _idle(worker)
            assert worker.listener is not None and worker.listener.channel == f"cj_queue_{schemas[0]}"
            await asyncio.to_thread(enqueue, cm)
            woke = await _until(lambda: worker.report.claims == 1, WAKE_BOUND)
            await asyncio.wait_for(task, 30.0)  # max_items=1: it ends after that item
            return woke
        finally:
            task.cancel()

    try:
        woke = asyncio.run(main())
        assert woke is not None, f"not woken within {WAKE_BOUND} s (poll interval {POLL} s)"
        assert worker.report.units == 1 and not worker.report.errors
        assert worker.listener is None  # closed with the run
    finally:
        worker.close()
        worker.store.close()
        cm.close()
        cm.store.close()


def test_without_listen_the_worker_waits_out_its_poll_interval(schemas: list[str]) -> None:
    """The control of the test above: the same enqueue does not wake a polling worker."""
    cm = _conversation(schemas[0])
    worker = _worker(schemas[0], listen=False)

    claims: list[Any] = []  # what each claim returned
    claim = worker._queue.queue_claim

    def counted(*args: Any, **kwargs: Any) -> Any:
        claims.append(claim(*args, **kwargs))
        return claims[-1]

    worker._queue.queue_claim = counted  # type: ignore[method-assign]

    async def main() -> None:
        task = asyncio.create_task(worker.arun(until_idle=False, max_items=1))
        try:
            # Its first claim found nothing: it sleeps POLL seconds (a fixed 0.3 s sleep raced a slow start).
            assert await _until(lambda: claims, 10.0) is not None and claims == [None]
            assert worker.listener is None
            await asyncio.to_thread(enqueue, cm)
            assert await _until(lambda: worker.report.claims == 1, 1.0) is None
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    try:
        asyncio.run(main())
    finally:
        worker.close()
        worker.store.close()
        cm.close()
        cm.store.close()


def test_stores_in_other_schemas_do_not_wake_each_other(schemas: list[str]) -> None:
    mine, other = _conversation(schemas[0]), _conversation(schemas[1])
    assert mine.store.queue_channel != other.store.queue_channel  # type: ignore[attr-defined]
    worker = _worker(schemas[0], concurrency=3)  # three idle loops share one wait and one connection

    async def main() -> tuple[float | None, float | None]:
        task = asyncio.create_task(worker.arun(until_idle=False, max_items=1))
        try:
            await _idle(worker)
            listener = worker.listener
            assert listener is not None
            await asyncio.to_thread(enqueue, other)
            crossed = await _until(lambda: listener.received > 0 or worker.report.claims > 0, 1.0)
            await asyncio.to_thread(enqueue, mine)
            woke = await _until(lambda: worker.report.claims == 1, WAKE_BOUND)
            await asyncio.wait_for(task, 30.0)
            return crossed, woke
        finally:
            task.cancel()

    try:
        crossed, woke = asyncio.run(main())
        assert crossed is None, "an enqueue in another schema woke the worker"
        assert woke is not None, f"not woken within {WAKE_BOUND} s"
        assert worker.report.claims == 1 and worker.report.units == 1
        # The other store's item is still waiting for a worker of its own.
        assert [r["status"] for r in other.store.queue_rows()] == ["pending"]  # type: ignore[attr-defined]
    finally:
        worker.close()
        worker.store.close()
        for cm in (mine, other):
            cm.close()
            cm.store.close()


def test_a_rolled_back_enqueue_notifies_no_one(schemas: list[str]) -> None:
    from context_journal.stores.postgres import QueueListener

    store = _pg(schemas[0])

    async def main() -> tuple[bool, bool]:
        listener = await store.queue_listener()
        assert isinstance(listener, QueueListener)
        try:
            with pytest.raises(RuntimeError), store.transaction():
                store.queue_enqueue("k", "ns", 1, "messages", "{}", 1.0)
                raise RuntimeError("roll back")
            quiet = await listener.wait(0.5)
            store.queue_enqueue("k", "ns", 1, "messages", "{}", 2.0)
            heard = await listener.wait(5.0)  # already received: returns at once
            return quiet, heard
        finally:
            await listener.close()
            assert listener.closed

    try:
        quiet, heard = asyncio.run(main())
        assert not quiet and heard
        assert store.queue_rows()[0]["updated"] == 2.0
    finally:
        store.close()


def test_long_schema_names_get_a_channel_postgres_accepts() -> None:
    from context_journal.stores.postgres import _queue_channel

    long = "s" * 63
    channel = _queue_channel(long)
    assert len(channel) <= 63 and channel != _queue_channel("s" * 62)
    assert _queue_channel("context_journal") == "cj_queue_context_journal"


def test_a_lost_listener_connection_falls_back_to_polling(schemas: list[str], caplog: pytest.LogCaptureFixture) -> None:
    import psycopg

    cm = _conversation(schemas[0])
    worker = CompressionWorker(
        _pg(schemas[0]), ScriptedProvider(default="I remember it."), poll_seconds=0.2, retention_seconds=None
    )

    async def main() -> float | None:
        task = asyncio.create_task(worker.arun(until_idle=False, max_items=1))
        try:
            await _idle(worker)
            listener = worker.listener
            assert listener is not None
            pid = listener._conn.info.backend_pid
            with psycopg.connect(PG_URL, autocommit=True) as conn:
                conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
            lost = await _until(lambda: worker.listener is None, 5.0)
            assert lost is not None, "the dead listener was not dropped"
            await asyncio.to_thread(enqueue, cm)
            woke = await _until(lambda: worker.report.claims == 1, 5.0)  # found by polling
            await asyncio.wait_for(task, 30.0)
            return woke
        finally:
            task.cancel()

    try:
        with caplog.at_level(logging.WARNING, logger="context_journal.workers"):
            woke = asyncio.run(main())
        assert woke is not None
        assert any("notifications lost" in r.getMessage() for r in caplog.records)
    finally:
        worker.close()
        worker.store.close()
        cm.close()
        cm.store.close()
