"""Every Claude Code session (main and sub-agent threads) and every tau-bench trajectory in
``shared/data``, compiled at 4k, 16k and 64k tokens with both strategies, is provider-valid and within
budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from context_journal.compile import Roles
from context_journal.formats import read_transcript
from context_journal.formats.base import Conversation
from context_journal.manager import ContextManager
from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy
from context_journal.tokens import EstimatingCounter
from tests.compile.compile_helpers import assert_valid

BUDGETS = (4_000, 16_000, 64_000)


def _compile_all(conv: Conversation, stats: dict[str, int]) -> None:
    roles = Roles.from_metadata(conv.metadata)
    for make in (PassthroughStrategy, WindowedPassthroughStrategy):
        with ContextManager.open("memory:", strategy=make()) as cm:
            cm.add_messages(conv.messages)
            for budget in BUDGETS:
                result = cm.compile(budget, roles=roles)
                assert_valid(result, EstimatingCounter())
                assert result.tokens <= budget
                assert result.messages, f"{conv.id} compiled to nothing at {budget}"
                stats["compiles"] += 1
                stats["repairs"] += len(result.repairs)
                stats["messages"] += len(result.messages)


@pytest.mark.slow
def test_every_claude_code_session_compiles_valid_within_budget(data_dir: Path) -> None:
    stats = {"compiles": 0, "repairs": 0, "messages": 0}
    files = sorted((data_dir / "claude-code-sessions").glob("*.jsonl"))
    assert files
    threads = 0
    for path in files:
        for conv in read_transcript(path, format="claude-code").conversations:
            if conv.messages:
                _compile_all(conv, stats)
                threads += 1
    assert threads >= 6
    print(f"\nclaude-code: {threads} threads, {stats}")


@pytest.mark.slow
def test_every_tau_bench_trajectory_compiles_valid_within_budget(data_dir: Path) -> None:
    stats = {"compiles": 0, "repairs": 0, "messages": 0}
    result = read_transcript(data_dir / "tau-bench-airline" / "gpt-4o-airline-dev150.json", format="tau-bench")
    assert len(result.conversations) == 150
    for conv in result.conversations:
        _compile_all(conv, stats)
    print(f"\ntau-bench: {len(result.conversations)} trajectories, {stats}")


def test_tau_bench_policy_goes_to_the_system_prompt_and_roles_follow_metadata(data_dir: Path) -> None:
    conv = read_transcript(data_dir / "tau-bench-airline" / "gpt-4o-airline-dev150.json").conversations[0]
    with ContextManager.open("memory:") as cm:
        cm.add_messages(conv.messages)
        result = cm.compile(64_000, roles=Roles.from_metadata(conv.metadata))
    assert result.system[0]["text"].startswith("# Airline Agent Policy")
    assert result.system_sources[0].kind == "system"
    agent = conv.metadata["assistant"]
    assert {m.role for m in result.messages if m.participant == agent} == {"assistant"}
    first_user = result.messages[0]
    assert not first_user.content[0]["text"].startswith(conv.metadata["user"])  # the user speaks unnamed
