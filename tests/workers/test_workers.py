"""Compression workers in one process: the queue's leases, ``compression="workers"`` managers, a result
whose lease expired is dropped (never applied twice), and the ``worker`` command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from context_journal.llm.types import LLMRequest, LLMResponse
from context_journal.stores.base import Store
from context_journal.stores.memory import MemoryStore
from context_journal.stores.queue import QueueStore
from context_journal.testing import ScriptedProvider
from context_journal.workers import CompressionDelegatedError, CompressionWorker, LeaseLostError, enqueue
from tests.workers._work import CONFIG, assert_each_once, open_spec, record_counts, seed, strategy


@pytest.mark.parametrize("kind", ["memory", "store"])
def test_queue_leases_expire_and_generations_keep_new_work(kind: str, spec: str) -> None:
    store: Store = MemoryStore() if kind == "memory" else open_spec(spec)
    try:
        assert isinstance(store, QueueStore)
        store.queue_enqueue("k", "ns", 1, "messages", "{}", 100.0)
        claim = store.queue_claim("a", 10.0, 100.0)
        assert claim is not None and claim.key == "k" and claim.attempts == 1
        assert store.queue_claim("b", 10.0, 105.0) is None  # leased
        assert store.queue_check("k", "a", 105.0) and not store.queue_check("k", "b", 105.0)
        assert not store.queue_check("k", "a", 111.0)  # expired
        again = store.queue_claim("b", 10.0, 111.0)  # another worker takes it over
        assert again is not None and again.attempts == 2
        assert not store.queue_finish("k", "a", claim.generation, "done", 0.0, 112.0, None)  # a lost it
        store.queue_enqueue("k", "ns", 1, "messages", "{}", 113.0)  # new messages while b works
        assert store.queue_finish("k", "b", again.generation, "done", 0.0, 114.0, None)
        (row,) = store.queue_rows()
        assert row["status"] == "pending" and row["lease_owner"] is None  # the newer generation stays pending
        last = store.queue_claim("c", 10.0, 115.0)
        assert last is not None
        assert store.queue_finish("k", "c", last.generation, "pending", 200.0, 116.0, "later")
        assert store.queue_claim("c", 10.0, 150.0) is None  # waits for its retry time
        last = store.queue_claim("c", 10.0, 201.0)
        assert last is not None and store.queue_finish("k", "c", last.generation, "done", 0.0, 202.0, None)
        assert store.queue_rows()[0]["status"] == "done"
    finally:
        store.close()


def test_workers_manager_compiles_at_once_and_sees_summaries_next_compile(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    cm = ContextManager.open(path, namespace="a", isolate=True, strategy=strategy(), compression="workers")
    for i in range(30):
        cm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i}: " + "words and more words " * 6)
    with pytest.raises(CompressionDelegatedError, match="compression workers"):
        cm.tick()
    with pytest.raises(CompressionDelegatedError):
        cm.drain()
    before = cm.compile(100_000)  # pending work: everything is rendered raw, at once, no model call
    assert len(before.messages) == 30
    rows = cm.store.queue_rows()  # type: ignore[attr-defined]
    assert [r["status"] for r in rows] == ["pending"]
    provider = ScriptedProvider(default="I remember it well.")
    with CompressionWorker(str(path), provider, lease_seconds=30) as worker:
        report = worker.run(until_idle=True)
    assert report.summaries > 0 and provider.calls == report.units
    after = cm.compile(600)
    assert any("I remember it well." in json.dumps(m, default=str) for m in after.messages)
    assert_each_once(cm.store, "a")
    cm.close()


def test_compression_option_is_checked() -> None:
    with pytest.raises(ValueError, match="compression"):
        ContextManager.open("memory:", compression="elsewhere")


def test_passthrough_managers_enqueue_nothing() -> None:
    cm = ContextManager.open("memory:", compression="workers")
    cm.add_message("user", "hello")
    cm.compile(1000)
    assert not enqueue(cm) and cm.store.queue_rows() == []  # type: ignore[attr-defined]


class _Slow:
    """A provider whose call lets the clock pass the lease and another worker redo the same unit."""

    name = "slow"
    model = "scripted"

    def __init__(self, during: Any) -> None:
        self.during = during

    async def complete(self, request: LLMRequest) -> LLMResponse:
        await self.during()
        return await ScriptedProvider(default="A's memory.").complete(request)


def test_a_result_whose_lease_expired_is_dropped_never_applied_twice(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    seeded = open_spec(f"sqlite:{path}")
    seed(seeded, 1, 24)
    now = [1000.0]
    b = CompressionWorker(
        str(path), ScriptedProvider(default="B's memory."), worker_id="b", lease_seconds=10, clock=lambda: now[0]
    )

    async def during() -> None:
        now[0] += 60  # a's lease (10 s) expires during its model call
        claim = b._queue.queue_claim("b/0", 10, now[0])
        assert claim is not None
        assert await b.process(claim, "b/0") == "done"

    a = CompressionWorker(str(path), _Slow(during), worker_id="a", lease_seconds=10, clock=lambda: now[0])
    claim = a._queue.queue_claim("a/0", 10, now[0])
    assert claim is not None
    from context_journal.llm import run_sync

    assert run_sync(a.process(claim, "a/0")) == "lost"
    assert a.report.lost == 1 and a.report.summaries == 0 and b.report.summaries == 1
    _, counts = record_counts(seeded, "c00")
    assert max(counts.values()) == 1  # no record written twice
    texts = [r.body for r in seeded.read_slot("compression/c00", 1) if r.item.startswith("summary/")]
    assert texts and all("A's memory" not in (t or "") for t in texts)
    with pytest.raises(LeaseLostError):
        a._guard(claim, "a/0")
    a.close()
    b.close()
    seeded.close()


def test_worker_command_drains_the_queue(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = open_spec(f"sqlite:{path}")
    names = seed(store, 3, 24)
    result = CliRunner().invoke(
        app, ["worker", "--store", str(path), "--until-idle", "--concurrency", "2", "--lease-seconds", "30", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["summaries"] > 0 and report["lost"] == 0
    for ns in names:
        assert_each_once(store, ns)
    assert {r["status"] for r in store.queue_rows()} == {"done"}  # type: ignore[attr-defined]
    bad = CliRunner().invoke(app, ["worker", "--store", str(path), "--provider", "nope"])
    assert bad.exit_code == 2
    store.close()


def test_config_round_trips() -> None:
    assert strategy().config.to_dict()["target_chunk_tokens"] == CONFIG["target_chunk_tokens"]
