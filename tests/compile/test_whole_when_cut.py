"""A history that fits whole once its largest messages are cut is sent whole at every larger budget.

Issue 13, kind 2 ("no message is dropped that would fit after reductions"). A fresh review compiled a
50-message history (16,519 tokens, one 3,000-word tool result) with the windowed strategy: from 14,400 to
14,568 tokens it sent all 50 messages with that result excerpted, from 14,600 to 16,519 only the newest 26
(7,304 tokens, half the budget). The overflow reductions ran only when a message was over a quarter of what
the strategy may fill; at 14,600 the result was just under it, so nothing was cut and the window jumped.
Now a selection that leaves messages out is priced with its largest messages cut whenever the whole history
fits so, whatever their size against the quarter.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, OverBudgetError
from context_journal.compile import CompileResult
from tests.compile.compile_helpers import assert_valid
from tests.hypothesis_budget import examples

FAST = settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
_WORDS = ["ledger", "invoice", "refund", "build", "test", "deploy", "cache", "parse", "amount", "error", "line"]


def review_history(
    seed: int, results: tuple[int, ...] = (20, 300, 3000), asks: tuple[int, ...] = (10, 80, 900)
) -> list[Any]:
    """The review's shape: 230 words of rules, then 25 rounds, each a tool call with a result of one of
    ``results`` words and a reply, or a question of one of ``asks`` words and a reply (drawn by ``seed``)."""
    rng = random.Random(seed)

    def words(n: int) -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(n))

    hist: list[Any] = [("user", "Project rules: " + words(230))]
    for i in range(25):
        if rng.random() < 0.4:
            hist.append(("assistant", [{"type": "tool_use", "id": f"t{i}", "name": "run", "input": {"cmd": words(5)}}]))
            result = {"type": "tool_result", "tool_use_id": f"t{i}", "content": words(rng.choice(results))}
            hist.append(("user", [result]))
            hist.append(("assistant", words(rng.randint(5, 60))))
        else:
            hist.append(("user", words(rng.choice(asks))))
            hist.append(("assistant", words(rng.randint(5, 200))))
    return hist


def _open(strategy: str, hist: list[Any]) -> ContextManager:
    cm = ContextManager.open("memory:", strategy=strategy)
    for participant, content in hist:
        cm.add_message(participant, content)
    return cm


def _dropped(result: CompileResult) -> int:
    dropped: int = result.summary()["dropped"]
    return dropped


def test_the_reviews_windowed_history_is_whole_from_where_it_first_fits() -> None:
    cm = _open("windowed", review_history(0))
    assert cm.compile(max_tokens=100_000).summary()["tokens"] == 16_519
    for budget in (14_400, 14_568, 14_600, 14_665, 15_000, 16_000, 16_518):
        result = cm.compile(max_tokens=budget)
        assert_valid(result)
        assert _dropped(result) == 0, budget  # (before: 28 dropped from 14,600, 7,304 tokens sent)
        assert len(result.to_anthropic()["messages"]) == 50
        assert budget - 100 <= result.summary()["tokens"] <= budget


@FAST
@given(
    seed=st.integers(0, 2**16),
    strategy=st.sampled_from(["windowed", "passthrough"]),
    results=st.sampled_from([(20, 300, 3000), (40, 1200), (10, 600, 2000, 4000)]),
)
def test_once_whole_always_whole_up_to_the_raw_size(seed: int, strategy: str, results: tuple[int, ...]) -> None:
    """Over budgets from where the history is first sent whole (its bulky results cut) to its raw size, in
    steps of about 1% of it, it stays whole: no larger budget leaves a message out."""
    hist = review_history(seed, results)
    cm = _open(strategy, hist)
    total = cm.preview_context(1_000_000).summary()["tokens"]
    whole_from: int | None = None
    for budget in range(total // 3, total + 1, max(1, total // 100)):
        try:
            result = cm.preview_context(budget)
        except OverBudgetError:
            continue
        if _dropped(result) == 0:
            whole_from = whole_from or budget
        else:
            assert whole_from is None, (seed, strategy, whole_from, budget, _dropped(result))
