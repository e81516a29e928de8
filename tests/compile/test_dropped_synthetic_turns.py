"""A synthetic turn the compiler leaves out to fit the budget (the working-state block, a recall section)
takes only its own text with it.

CI found the fault: a call whose results came only after another user message had them moved, by the
pairing pass, into the turn that followed the call, and that turn was the marker of the working-state
block. When the block was then left out to fit the budget its marker went too, results and all, and the
compile raised ``InvalidContextError`` (a call with no result). The same removal served recall sections.
These tests try the kind: results late by one or more messages, a working-state block and a recall
section, every strategy, a sweep of budgets from far too small to roomy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.compile import CompileResult, OverBudgetError
from context_journal.manager import ContextManager
from context_journal.strategies import PassthroughStrategy, Strategy, WindowedPassthroughStrategy
from context_journal.strategies.autobiographical import AutobiographicalStrategy
from tests.compile.compile_helpers import assert_valid, words
from tests.hypothesis_budget import examples

_STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "passthrough": PassthroughStrategy,
    "windowed": WindowedPassthroughStrategy,
    "autobiographical": lambda: AutobiographicalStrategy(
        head_window_tokens=0, recent_window_tokens=0, target_chunk_tokens=60, summary_target_tokens=40
    ),
}


def _late_results(first: int, width: int, gap: int, size: int) -> list[dict[str, Any]]:
    """A call of ``width`` parallel uses, ``gap`` user messages, then all the results in one message."""
    uses = [
        {"type": "tool_use", "id": f"t{first + k}", "name": "Read", "input": {"file_path": f"src/m{first + k}.py"}}
        for k in range(width)
    ]
    out: list[dict[str, Any]] = [{"participant": "assistant", "content": uses}]
    out += [{"participant": "user", "content": [{"type": "text", "text": f"meanwhile {k}"}]} for k in range(gap)]
    out.append(
        {
            "participant": "tool",
            "content": [{"type": "tool_result", "tool_use_id": u["id"], "content": words(size, first)} for u in uses],
        }
    )
    return out


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [
        {"participant": "user", "content": [{"type": "text", "text": "where is the parser " + words(20)}]}
    ]
    call = 1
    for k in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            msgs.append(
                {"participant": "user", "content": [{"type": "text", "text": words(draw(st.integers(5, 900)), k)}]}
            )
        width = draw(st.integers(1, 3))
        msgs += _late_results(call, width, draw(st.integers(0, 2)), draw(st.sampled_from([5, 80, 600])))
        call += width
    return msgs


def _compile(cm: ContextManager, budget: int, query: str | None = None) -> CompileResult | None:
    """The compile, checked valid, or None when it cannot fit (``OverBudgetError``, over for real)."""
    try:
        result = cm.compile(budget, query=query)
    except OverBudgetError as exc:
        assert exc.actual > exc.budget
        return None
    assert_valid(result)
    return result


@pytest.mark.parametrize("strategy", sorted(_STRATEGIES))
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(msgs=conversations(), recall=st.booleans(), drain=st.booleans())
def test_results_moved_into_a_dropped_turn_stay(
    strategy: str, msgs: list[dict[str, Any]], recall: bool, drain: bool
) -> None:
    """Every budget of a sweep (the window in which the block gives way is narrow), compression done or
    not started."""
    cm = ContextManager.open("memory:", strategy=_STRATEGIES[strategy]())
    cm.add_messages(msgs)
    if drain:
        cm.drain()
    for budget in range(100, 1_500, 40):
        _compile(cm, budget, "parser m1.py" if recall else None)


def test_the_handed_case_keeps_every_result_when_the_block_gives_way() -> None:
    """The shape CI found, at every budget from 200 to 1,500 tokens in steps of 25; where the block stays
    with the results in its marker turn, its part of the budget does not count them."""
    msgs = [
        {"participant": "user", "content": [{"type": "text", "text": words(1800)}]},
        *_late_results(1, 3, 1, 5),
        *_late_results(4, 3, 0, 600),
    ]
    carried = 0
    for name, make in _STRATEGIES.items():
        cm = ContextManager.open("memory:", strategy=make())
        cm.add_messages(msgs)
        for budget in range(200, 1_500, 25):
            result = _compile(cm, budget)
            if result is None:
                continue
            answered = {b["tool_use_id"] for m in result.messages for b in m.content if b["type"] == "tool_result"}
            called = {b["id"] for m in result.messages for b in m.content if b["type"] == "tool_use"}
            assert called <= answered, (name, budget)
            carried += _ledger_part_leaves_out_carried_results(cm, result)
    assert carried  # the sweep met a block that stayed with results in its marker turn


def _ledger_part_leaves_out_carried_results(cm: ContextManager, result: CompileResult) -> int:
    """Where the working-state block stays and its marker turn carries tool results, the turn counts with
    the messages it carries: ``parts["ledger"]`` is the block's tokens, as ``render_stats`` says; 1 if met."""
    for k, m in enumerate(result.messages[1:], start=1):
        if not any(s.kind == "ledger" for s in m.sources):
            continue
        marker = result.messages[k - 1]
        if any(b["type"] == "tool_result" for b in marker.content):
            stats = cm.render_stats(result)
            assert stats is not None
            assert result.parts["ledger"] == m.tokens == stats.tokens_by_part()["ledger"], (result.parts, m.tokens)
            return 1
    return 0
