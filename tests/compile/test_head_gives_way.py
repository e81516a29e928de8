"""The head window's turns but its opening message give way whole when they would be sent as next to nothing:
after the recent window's oldest turns, the fewest of the head's newest turns (a closed tool unit as one)
go into the middle's note, and the rest are cut again with the room they leave. The opening message, the
newest message's unit and pins never give way.

A review found a lagging history at 248 tokens sending four head turns each as "[… about 104 of 104 tokens
cut here …]" beside a newest message cut to a twentieth, and a real Claude Code session (8463c716, drained)
at 590-630 tokens keeping its head tool result at a hundredth of itself while the user turn the newest
answer replies to went into a note or kept an eighth.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import CompileResult, ContextManager, OverBudgetError, read_transcript
from context_journal.formats.importers import import_into
from context_journal.rendering.repairs import share_kept
from context_journal.stores import MemoryStore
from context_journal.tokens import EstimatingCounter
from tests.compile.compile_helpers import LAG_WINDOWS, assert_valid, lag_config, lagging_turns, words
from tests.hypothesis_budget import examples

_COUNTER = EstimatingCounter()


def _in_notes(result: CompileResult) -> set[str]:
    return {s.id for m in result.messages if any(s.id == "cut to fit" for s in m.sources) for s in m.sources}


def _kept(result: CompileResult) -> dict[str, float]:
    """The share of its text each raw message keeps, by id (tool results' text read)."""
    return {
        s.id: share_kept(m.content, _COUNTER)
        for m in result.messages
        if not any(s.id == "cut to fit" for s in m.sources)
        for s in m.sources
        if s.kind == "message"
    }


@settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(
    turns=st.integers(4, 60),
    size=st.sampled_from([5, 30, 120]),
    newest=st.sampled_from([10, 60, 312]),
    budget=st.integers(120, 1_500),
    **LAG_WINDOWS,
)
@example(turns=49, size=30, newest=312, budget=248, head=500, recent=2_000, chunk=400)
@example(turns=4, size=5, newest=60, budget=120, head=500, recent=300, chunk=200)  # the newest in the head: 4%
def test_no_head_turn_is_sent_as_next_to_nothing(
    turns: int, size: int, newest: int, budget: int, head: int, recent: int, chunk: int
) -> None:
    """Lagging histories (nothing summarised) at random budgets: every compile that fits is valid, keeps its
    opening message and the newest message out of every note, and sends no turn of the head window (plain
    turns here) under a tenth of itself, the newest message under a hundredth; the turns it cut instead are
    in a note."""
    cm = lagging_turns(lag_config(head, recent, chunk), turns, size)
    cm.add_message("user" if turns % 2 == 0 else "assistant", "Newest: " + words(newest, 99), id="newest")
    try:
        result = cm.compile(budget)
    except OverBudgetError as err:
        assert err.actual > budget
        return
    assert_valid(result)
    noted = _in_notes(result)
    assert "rules" not in noted and not any(i.startswith("newest") for i in noted)
    kept = _kept(result)
    # The newest message (in the head window when the history is short) may keep less when nothing is left to
    # give way for it, since an excerpt can be cut again: never under a hundredth of itself.
    assert all(kept[i] >= 0.1 for i in _head_of(cm, head) if i in kept and not i.startswith("newest")), kept
    assert all(share >= 0.01 for i, share in kept.items() if i.startswith("newest")), kept


def _head_of(cm: ContextManager, head_tokens: int) -> set[str]:
    """The ids of the head window's turns but its first message (the strategy's own head range)."""
    from context_journal.strategies import AutobiographicalStrategy
    from context_journal.strategies.autobiographical.chunking import head_range

    strategy = cm.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    view = cm._reader_view()
    log = strategy.compression_log(cm._strategy_context())
    start, end = head_range(view, log, head_tokens)
    return {view.entry(k).id for k in range(start + 1, end)}


@pytest.fixture(scope="module")
def drained(data_dir: Path) -> ContextManager:
    path = next((data_dir / "claude-code-sessions").glob("8463c716*.jsonl"))
    store = MemoryStore()
    import_into(store, read_transcript(path), namespace="s")
    cm = ContextManager.open(store=store, namespace="s", strategy="autobiographical")
    cm.drain()
    return cm


@pytest.mark.parametrize("budget", [580, 590, 600, 610, 620, 630])
def test_a_real_sessions_head_tool_result_gives_way_rather_than_keep_a_hundredth(
    drained: ContextManager, budget: int
) -> None:
    result = drained.compile(budget)
    assert_valid(result)
    first = drained.get_all_messages()[:3]  # the task, its `bd show` call, and the call's result
    noted = _in_notes(result)
    assert first[0].id not in noted  # the opening message stays
    assert {first[1].id, first[2].id} <= noted  # the closed tool unit gave way whole
    kept = _kept(result)
    # The user turn the newest answer replies to keeps a fifth of itself or more (an eighth before, or a note).
    question = drained.get_all_messages()[-2]
    assert kept[question.id] >= 0.2, kept[question.id]


def test_every_shard_of_a_long_opening_message_stays_with_it() -> None:
    """A review found the second shard of a long opening message (stored in shards of 300 tokens) given way
    as a head turn at 150 tokens, leaving only the first shard of the instructions: every shard of the
    first message is the opening."""
    from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy

    config = AutobiographicalConfig.for_budget(3_000)
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(config), shard_tokens=300)
    rules = "# Instructions\n\n" + "\n\n".join(f"Rule {i}: " + words(60, i) + "." for i in range(15))
    cm.add_message("user", rules, id="rules")
    for i in range(60):
        cm.add_message("assistant" if i % 2 == 0 else "user", f"Turn {i}: " + words(80, 100 + i))
    cm.add_message("user", "Newest: " + words(50, 999), id="newest")
    opening = {i for i in _head_of(cm, config.head_window_tokens) if i.startswith("rules")}
    assert opening  # (the head window holds a shard after the first)
    for budget in (150, 250, 400):
        try:
            result = cm.compile(budget)
        except OverBudgetError as err:  # (150: the opening's two shards, excerpted, and the newest need 289)
            assert err.actual > budget
            continue
        assert_valid(result)
        assert not opening & _in_notes(result), budget
