"""Workers run the knowledge strategy too (a ``compression="workers"`` manager with it enqueued nothing
and its conversation was never compressed), and a manager refuses a strategy workers cannot rebuild
instead of leaving its conversation uncompressed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from context_journal import ContextManager, read_transcript
from context_journal.compression import CompressionUnavailableError
from context_journal.strategies import AutobiographicalConfig, KnowledgeStrategy
from context_journal.strategies.autobiographical import AutobiographicalStrategy
from context_journal.strategies.knowledge import DEFAULT_PHASES
from context_journal.testing import ScriptedProvider
from context_journal.workers import CompressionWorker, enqueue

SESSION = "claude-code-sessions/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
CONFIG = AutobiographicalConfig(
    head_window_tokens=600, recent_window_tokens=1_200, target_chunk_tokens=2_000, merge_threshold=3
)


def _chunk_bounds(cm: ContextManager) -> list[tuple[int, int]]:
    """(first, last) positions of the namespace's chunks, in order."""
    strategy = cm.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    log = strategy.compression_log(cm._strategy_context())
    order = {m.id: i for i, m in enumerate(cm.get_all_messages())}
    return sorted((order[c.first_id], order[c.last_id]) for c in log.chunks.values())


def test_workers_compress_a_knowledge_namespace_as_inline_compression_does(tmp_path: Path, data_dir: Path) -> None:
    messages: list[Any] = read_transcript(data_dir / SESSION).conversations[0].messages[:160]
    path = tmp_path / "w.db"
    delegated = ContextManager.open(path, strategy=KnowledgeStrategy(CONFIG), compression="workers")
    delegated.add_messages(messages)
    delegated.compile(8_000)  # a compile enqueues too
    rows = delegated.store.queue_rows()  # type: ignore[attr-defined]
    assert [r["status"] for r in rows] == ["pending"]
    with CompressionWorker(str(path), ScriptedProvider(default="I remember it."), lease_seconds=30) as worker:
        report = worker.run(until_idle=True)
    assert report.summaries > 0 and not report.errors
    inline = ContextManager.open(
        "memory:", strategy=KnowledgeStrategy(CONFIG), summarizer=ScriptedProvider(default="x")
    )
    inline.add_messages(messages)
    inline.drain()
    reader = ContextManager.open(path, strategy=KnowledgeStrategy(CONFIG))
    assert _chunk_bounds(reader) == _chunk_bounds(inline)  # the same phase-aware chunks
    assert len(_chunk_bounds(reader)) >= 3
    assert reader.pending_work().ready == ()
    result = reader.compile(4_000)
    assert any(s.kind == "summary" for m in result.messages for s in m.sources)


def test_a_strategy_workers_cannot_rebuild_is_refused_on_a_workers_manager() -> None:
    custom = KnowledgeStrategy(CONFIG, phases=DEFAULT_PHASES[:1])  # phases are code a worker does not have
    with pytest.raises(CompressionUnavailableError, match="compression='workers' needs a strategy that workers"):
        ContextManager.open("memory:", strategy=custom, compression="workers")

    class Mine(AutobiographicalStrategy):
        pass

    cm = ContextManager.open("memory:", compression="workers")  # passthrough compresses nothing: fine
    with pytest.raises(CompressionUnavailableError, match="compression='inline'"):
        cm.set_strategy(Mine(CONFIG))
    assert cm.strategy is None  # the previous strategy stays (the default: passthrough)
    cm.set_strategy(KnowledgeStrategy(CONFIG))  # the default phases: workers rebuild it
    cm.add_message("user", "hello " * 400)
    assert enqueue(cm)
    inline = ContextManager.open("memory:", strategy=custom)  # compressed in this process: fine
    assert inline.strategy is custom
