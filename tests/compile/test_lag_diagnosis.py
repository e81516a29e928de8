"""Issue 14 review: "compression lags" is said only when compression could make the compile fit. A budget too
small for the head, the newest turn and the system part is over budget whatever compression does: the
error says so (``OverBudgetError`` with the tokens needed), even while chunks wait, and a compile that
blamed the lag needs it (the rest fits), and none is blamed once the work is drained."""

from __future__ import annotations

from compile_helpers import words
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.compile import OverBudgetError
from context_journal.llm import OfflineSummarizer
from context_journal.manager import ContextManager
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy

FAST = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _lagging(turns: int, size: int, sized_for: int, head: int) -> ContextManager:
    cfg = AutobiographicalConfig.for_budget(sized_for)
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(cfg), summarizer=OfflineSummarizer())
    cm.add_message("user", "Rules: " + words(head))
    for k in range(turns):
        cm.add_message("user", f"Turn {k}: " + words(size, k))
        if k % 3 == 1:  # tool units in the middle: the compile can only excerpt them, summaries replace them
            cm.add_message("assistant", [{"type": "tool_use", "id": f"t{k}", "name": "grep", "input": {"q": f"{k}"}}])
            cm.add_message("tool", [{"type": "tool_result", "tool_use_id": f"t{k}", "content": words(size, k + 2)}])
        cm.add_message("assistant", f"Reply {k}: " + words(size, k + 1))
    return cm


@FAST
@given(
    turns=st.integers(20, 50),
    size=st.integers(30, 90),
    head=st.integers(40, 120),
    sized_for=st.integers(1_000, 6_000),
    budget=st.integers(1, 60),
)
def test_a_budget_too_small_for_anything_is_not_compression_lag(
    turns: int, size: int, head: int, sized_for: int, budget: int
) -> None:
    cm = _lagging(turns, size, sized_for, head)
    assert cm.compression_lag()[0] > 0  # chunks do wait
    try:
        cm.compile(budget)
        return  # the head and the newest turn cut to excerpts fit
    except OverBudgetError as exc:
        err = exc
    assert "compression lags" not in str(err) and "pending chunks" not in err.parts
    assert err.actual - err.parts.get("not summarised yet", 0) >= err.budget == budget
    assert "raise max_tokens" in str(err)


@FAST
@given(
    turns=st.integers(20, 50),
    size=st.integers(30, 90),
    head=st.integers(40, 120),
    sized_for=st.integers(1_000, 6_000),
    share=st.floats(0.05, 1.0),
)
def test_the_lag_is_blamed_only_where_the_rest_fits_and_not_after_draining(
    turns: int, size: int, head: int, sized_for: int, share: float
) -> None:
    cm = _lagging(turns, size, sized_for, head)
    budget = max(1, int(sized_for * share))
    try:
        cm.compile(budget)
        return
    except OverBudgetError as exc:
        err = exc
    if "pending chunks" in err.parts:
        assert err.actual - err.parts["not summarised yet"] < err.budget
    cm.drain()
    assert cm.compression_lag()[0] == 0  # no chunk waits (a few tokens may wait to close one)
    try:
        cm.compile(budget)
    except OverBudgetError as after:  # nothing pending: never "compression lags"
        assert "pending chunks" not in after.parts and "compression lags" not in str(after)
