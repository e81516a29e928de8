"""Tool results larger than the whole budget, without ``max_tool_result_tokens`` (reductions priced before
selection, bug case B63). Such a result can never be sent raw, so its excerpt (about a quarter of the budget) is
priced before the strategy selects: passthrough and windowed keep the history before it, and the
autobiographical ``overflow="window"`` fallback fills the budget instead of keeping only the head and the
newest message (626 of 4,000 tokens on a real Claude Code session whose compression lagged)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.strategies import (
    AutobiographicalConfig,
    AutobiographicalStrategy,
    PassthroughStrategy,
    Strategy,
    WindowedPassthroughStrategy,
)
from tests.compile.compile_helpers import WordCounter, assert_valid, ids, manager_for, words
from tests.hypothesis_budget import examples

FAST = settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _strategies(budget: int) -> dict[str, Callable[[], Strategy]]:
    return {
        "passthrough": PassthroughStrategy,
        "windowed": WindowedPassthroughStrategy,
        "autobiographical": lambda: AutobiographicalStrategy(
            AutobiographicalConfig.for_budget(budget, overflow="window")
        ),
    }


def _loop(sizes: list[int]) -> list[dict[str, Any]]:
    """An instruction, then one tool call per size answered by that many words."""
    msgs: list[dict[str, Any]] = [{"id": "ask", "role": "user", "content": [{"type": "text", "text": "Look."}]}]
    for k, size in enumerate(sizes):
        msgs += [
            {
                "id": f"c{k}",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{k}", "name": "v", "input": {}}],
            },
            {
                "id": f"r{k}",
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": words(size, k)}],
            },
        ]
    return msgs


@pytest.mark.parametrize("strategy", ["passthrough", "windowed", "autobiographical"])
@FAST
@given(sizes=st.lists(st.integers(5, 8_000), min_size=1, max_size=6), budget=st.integers(1_500, 6_000))
def test_without_a_cap_no_message_is_dropped_that_fits_once_oversized_results_are_cut(
    strategy: str, sizes: list[int], budget: int
) -> None:
    counter = WordCounter()
    msgs = _loop(sizes)
    cm = manager_for(msgs, counter=counter, strategy=_strategies(budget)[strategy]())
    result = cm.compile(budget)
    assert_valid(result, counter)
    assert result.tokens <= budget
    # What the reductions leave: a result over the budget becomes about a quarter of it plus a marker.
    reduced = 3 + sum((budget // 4 + 25 if size > budget else size) + 5 for size in sizes)
    if reduced <= budget * 0.9:
        assert ids(result) == [m["id"] for m in msgs], (reduced, budget)
    cut = {r.message_id for r in result.repairs if r.kind == "excerpted"}
    assert {f"r{k}" for k, size in enumerate(sizes) if size > budget and f"r{k}" in ids(result)} <= cut


def test_a_result_that_fits_stays_raw() -> None:
    counter = WordCounter()
    cm = manager_for(_loop([50, 1_900]), counter=counter, strategy=PassthroughStrategy())
    result = cm.compile(2_000)
    assert ids(result)[-1] == "r1" and result.messages[-1].content[0]["content"] == words(1_900, 1)
    assert not result.repairs


@FAST
@given(
    turns=st.integers(30, 60),
    size=st.integers(30, 80),
    big=st.integers(1, 4),
    budget=st.integers(2_000, 6_000),
)
def test_overflow_window_fills_the_budget_with_a_result_larger_than_it(
    turns: int, size: int, big: int, budget: int
) -> None:
    """Compression not run (every chunk waits): the window fallback leaves the oldest raw turns out but
    keeps the newer ones up to the budget, with the oversized result excerpted, as passthrough would."""
    counter = WordCounter()
    msgs: list[dict[str, Any]] = [{"id": "rules", "role": "user", "content": [{"type": "text", "text": "Rules."}]}]
    for k in range(turns):
        msgs.append({"id": f"u{k}", "role": "user", "content": [{"type": "text", "text": words(size, k)}]})
        msgs.append({"id": f"a{k}", "role": "assistant", "content": [{"type": "text", "text": words(size, k + 1)}]})
    msgs += _loop([budget * big + 100])[1:]  # the newest call answered by a result over the budget
    msgs.append({"id": "end", "role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    cfg = AutobiographicalConfig.for_budget(budget, overflow="window")
    window = manager_for(msgs, counter=counter, strategy=AutobiographicalStrategy(cfg)).compile(budget)
    assert_valid(window, counter)
    passthrough = manager_for(msgs, counter=counter, strategy=PassthroughStrategy()).compile(budget)
    assert window.tokens <= budget
    turn = 2 * (2 * size + 10)  # the window leaves whole turns out: within a turn of what passthrough keeps
    assert window.tokens >= passthrough.tokens - turn
    assert window.tokens >= min(0.75 * budget, passthrough.tokens) - turn  # was the head and the newest message
    assert {"c0", "r0", "end"} <= set(ids(window))
