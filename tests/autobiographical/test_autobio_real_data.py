"""Every data set in ``shared/data`` replays end to end with the offline summarizer: imported, drained,
compiled at 4k and 16k tokens (settings from ``AutobiographicalConfig.for_budget``) — provider-valid,
within budget, every message covered. One test per data set; the counts are printed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from context_journal.formats import read_transcript
from context_journal.formats.base import Conversation
from context_journal.llm import OfflineSummarizer
from context_journal.manager import ContextManager
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy
from tests.autobiographical.autobio_helpers import check

BUDGETS = (4_000, 16_000)
ROLE_KEYS = ("assistant", "user", "system_participants", "tool_participants")


def _replay(conv: Conversation, stats: dict[str, Any]) -> None:
    roles = {k: conv.metadata.get(k) for k in ROLE_KEYS if conv.metadata.get(k)}
    for budget in BUDGETS:
        strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget))
        with ContextManager.open("memory:", strategy=strategy, summarizer=OfflineSummarizer()) as cm:
            cm.add_messages(conv.messages)
            cm._strategy_context().put_states({"roles": roles})
            started = time.perf_counter()
            report = cm.drain()
            stats["drain_seconds"] += time.perf_counter() - started
            assert not report.pending.stuck and cm.is_ready()
            result = cm.compile(budget)
            check(cm, result)
            assert result.tokens <= budget and result.messages
            stats["compiles"] += 1
            stats["calls"] += cm.compression_stats.calls
            stats["input_tokens"] += cm.compression_stats.input_tokens
            stats["messages"] += len(conv.messages) if budget == BUDGETS[0] else 0
            stats["summaries in compiles"] += sum(
                1 for m in result.messages if any(s.kind == "summary" for s in m.sources)
            )


def _stats() -> dict[str, Any]:
    return {
        "compiles": 0,
        "messages": 0,
        "calls": 0,
        "input_tokens": 0,
        "summaries in compiles": 0,
        "drain_seconds": 0.0,
    }


@pytest.mark.slow
def test_claude_code_sessions_replay_at_4k_and_16k(data_dir: Path) -> None:
    stats = _stats()
    sessions = sorted(p for p in (data_dir / "claude-code-sessions").glob("*.jsonl") if len(p.stem) == 36)
    assert len(sessions) == 4
    for path in sessions:
        main = next(
            c for c in read_transcript(path, format="claude-code").conversations if c.metadata["kind"] == "session"
        )
        _replay(main, stats)
    assert stats["summaries in compiles"] >= 8
    print(f"\nclaude-code: {stats}")


@pytest.mark.slow
def test_tau_bench_trajectories_replay_at_4k_and_16k(data_dir: Path) -> None:
    stats = _stats()
    conversations = read_transcript(data_dir / "tau-bench-airline" / "gpt-4o-airline-dev150.json").conversations
    for conv in conversations[::10]:
        _replay(conv, stats)
    print(f"\ntau-bench (every 10th of {len(conversations)}): {stats}")


@pytest.mark.slow
def test_locomo_conversations_replay_at_4k_and_16k(data_dir: Path) -> None:
    stats = _stats()
    conversations = read_transcript(data_dir / "locomo" / "locomo-dev7.json", format="locomo").conversations
    assert len(conversations) == 7
    for conv in conversations:
        _replay(conv, stats)
    assert stats["summaries in compiles"] >= 7
    print(f"\nlocomo: {stats}")


@pytest.mark.slow
def test_irc_logs_replay_at_4k_and_16k(data_dir: Path) -> None:
    stats = _stats()
    files = sorted((data_dir / "ubuntu-irc-disentanglement" / "dev").glob("*.raw.txt"))[:2]
    for path in files:
        for conv in read_transcript(path, format="irc").conversations:
            _replay(conv, stats)
    print(f"\nirc ({len(files)} files): {stats}")
