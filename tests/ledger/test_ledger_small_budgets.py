"""The working-state block at small budgets (a review finding): when the compile must cut to fit, the
block is never cut in its middle (a middle cut kept the names line and lost the latest plan, while the
stale first plan stayed raw in the head). Every plan-tool shape, both compressing strategies, budgets
from 500 to 2,000 tokens, with a long opening message and a long newest question."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.state import LedgerConfig, PlanShape
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy, KnowledgeStrategy
from context_journal.strategies.base import Strategy
from tests.hypothesis_budget import examples
from tests.ledger.ledger_helpers import ITEMS, PLAN_SHAPES, STATUSES_V1, STATUSES_V2, bash_pair, ledger_block

RULES = "Project rules: " + " ".join(
    f"rule {i}: never touch table t{i} without a migration and a review by the DBA team." for i in range(25)
)
CUSTOM = LedgerConfig(plan_tools={"set_tasks": PlanShape(items="tasks", text=("title",), status="state")})
CUT = "tokens cut here"
SESSION = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"


def _session(cm: ContextManager, shape: str, filler: int = 63, question_repeats: int = 8) -> None:
    """B47 made harder: a long rules message opens it, the plan call carries prose, and a long status
    question closes it (the head and the recent window then need more than a small budget holds)."""
    make = PLAN_SHAPES[shape]
    cm.add_message("user", RULES + "\nThe monthly report endpoint is slow. Plan the work and do it.", id="u0")
    name, data = make(STATUSES_V1)
    prose: list[dict[str, Any]] = [{"type": "text", "text": "I will plan it first. " * 20}]
    cm.add_message("assistant", [*prose, {"type": "tool_use", "id": "t1", "name": name, "input": data}], id="c1")
    done = [{"type": "tool_result", "tool_use_id": "t1", "content": "Todos have been modified successfully."}]
    cm.add_message("user", done, id="r1")
    for k in range(1, 6):
        bash_pair(cm, k)
    name, data = make(STATUSES_V2)
    cm.add_message("assistant", [{"type": "tool_use", "id": "t7", "name": name, "input": data}], id="c7")
    done = [{"type": "tool_result", "tool_use_id": "t7", "content": "Todos have been modified successfully."}]
    cm.add_message("user", done, id="r7")
    for k in range(6, 6 + filler):
        bash_pair(cm, k)
    ask = "Please give me a detailed status of every step, the numbers you measured and what is left. "
    cm.add_message("user", "Status? " + ask * question_repeats, id="ask")


def _strategy(kind: str, budget: int) -> Strategy:
    if kind == "knowledge":
        return KnowledgeStrategy(AutobiographicalConfig.for_budget(budget))
    return AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget))


def _check(cm: ContextManager, budget: int, tool: str) -> None:
    result = cm.compile(budget)
    assert result.tokens <= budget
    block = ledger_block(result)
    assert block is not None, "the working state is in every compile of a long tool session"
    assert CUT not in block  # never cut in its middle
    assert f"Plan ({tool}, version 2, latest):" in block
    assert f"  [>] {ITEMS[1]} (in_progress)" in block
    assert "version 1" not in block


@pytest.mark.parametrize("kind", ["autobiographical", "knowledge"])
@pytest.mark.parametrize("budget", [500, 800, 1200, 2000])
@pytest.mark.parametrize("shape", sorted(PLAN_SHAPES))
def test_the_latest_plan_survives_small_budgets(shape: str, budget: int, kind: str) -> None:
    if kind == "knowledge" and budget <= 800:
        # 800 fitted by one token (799) until the estimate priced operators between spaces (the plan's
        # lines and the filler's commands): 802 now, a typed OverBudgetError naming what it keeps
        pytest.skip("knowledge keeps nine summary pairs here: 662 tokens even with the block at its heading")
    cm = ContextManager.open("memory:", strategy=_strategy(kind, budget))
    if shape == "custom":
        cm.ledger_config = CUSTOM
    _session(cm, shape)
    cm.drain()
    _check(cm, budget, PLAN_SHAPES[shape](STATUSES_V2)[0])


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    budget=st.integers(450, 2500),
    filler=st.integers(10, 80),
    repeats=st.integers(0, 20),
    shape=st.sampled_from(sorted(PLAN_SHAPES)),
)
def test_the_block_is_whole_lines_of_its_render(budget: int, filler: int, repeats: int, shape: str) -> None:
    """Whatever the compile cuts, the block it sends is its own render or that render less whole lines
    at its end: never a middle cut, and the plan (its first section) goes last."""
    cm = ContextManager.open("memory:", strategy=_strategy("autobiographical", budget))
    if shape == "custom":
        cm.ledger_config = CUSTOM
    _session(cm, shape, filler, repeats)
    cm.drain()
    try:
        result = cm.compile(budget)
    except Exception as e:  # a budget too small for the head and the question is a typed error
        assert type(e).__name__ == "OverBudgetError", e
        return
    block = ledger_block(result)
    if block is None:
        return
    assert CUT not in block
    lines = block.split("\n")
    assert lines[0].startswith("Working state")
    if len(lines) > 1 and lines[1].startswith("Plan ("):
        assert "version 2, latest" in lines[1]


def test_a_real_session_at_800_tokens_keeps_the_block_whole(data_dir: Any, tmp_path: Any) -> None:
    """The review's case: a real Claude Code session, compressed and compiled at 800 tokens, kept the
    names line of a block cut from 206 to 33 tokens. A later review found the same compile keeping a
    158-token block while the session's final answer went as its bare cut marker ("about 288 of 288 tokens
    cut here"): the block gives way before the newest message does, so at 800 the answer keeps 193 tokens
    and the block goes; where the block is sent, it is whole (files first) and within its share."""
    from context_journal import import_into, read_transcript
    from context_journal.rendering.repairs import share_kept
    from context_journal.stores import SQLiteStore
    from context_journal.tokens import EstimatingCounter

    db = tmp_path / "s.db"
    with SQLiteStore(db) as store:
        import_into(store, read_transcript(data_dir / "claude-code-sessions" / f"{SESSION}.jsonl"))
    with ContextManager.open(db, strategy=_strategy("autobiographical", 800)) as cm:
        cm.drain()
        sent = 0
        for budget in (800, 900, 1_000):
            result = cm.compile(budget)
            assert share_kept(result.messages[-1].content, EstimatingCounter()) > 0  # the answer says something
            block = ledger_block(result)
            if block is None:
                continue
            sent += 1
            assert CUT not in block
            assert "Files touched" in block  # files come before names: a cut from the end keeps them
            assert result.parts["ledger"] <= 0.3 * budget + 1
        assert sent >= 2
