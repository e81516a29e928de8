"""A review found: a compile over budget while chunks wait says that compression lags and what clears it,
at any budget. Where compression alone would make it fit (the rest fits), that is the remedy; a budget too
small for the head, the newest turn and the system part also says the budget must exceed what they need
(``parts["needed once summarised"]``) -- the lag message used to vanish there (a fresh review: below about
500 tokens a lagging store got the generic advice). None is blamed once the work is drained."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.compile import OverBudgetError
from context_journal.llm import OfflineSummarizer
from context_journal.manager import ContextManager
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy
from tests.compile.compile_helpers import words
from tests.hypothesis_budget import examples

FAST = settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _lagging(turns: int, size: int, sized_for: int, head: int) -> ContextManager:
    cfg = AutobiographicalConfig.for_budget(sized_for)
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(cfg), summarizer=OfflineSummarizer())
    cm.add_message("user", "Rules: " + words(head))
    for k in range(turns):
        cm.add_message("user", f"Turn {k}: " + words(size, k))
        if k % 3 == 1:  # closed tool units in the middle: they give way whole, summaries replace them
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
def test_a_budget_too_small_for_anything_still_says_compression_lags(
    turns: int, size: int, head: int, sized_for: int, budget: int
) -> None:
    cm = _lagging(turns, size, sized_for, head)
    chunks = cm.compression_lag()[0]
    assert chunks > 0  # chunks do wait
    try:
        cm.compile(budget)
        return  # the head and the newest turn cut to excerpts fit
    except OverBudgetError as exc:
        err = exc
    assert "compression lags" in str(err) and err.parts["pending chunks"] == chunks
    assert "context-journal compress" in str(err)
    once = err.parts["needed once summarised"]
    assert once == err.actual - err.parts.get("not summarised yet", 0) >= err.budget == budget
    assert f"raise max_tokens to at least {once:,}" in str(err)


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
        rest = err.actual - err.parts.get("not summarised yet", 0)  # 0: all of it gave way already
        # Compression is the remedy where the rest fits; else the error also names the budget the rest needs.
        assert (rest < err.budget) == ("needed once summarised" not in err.parts)
    cm.drain()
    assert cm.compression_lag()[0] == 0  # no chunk waits (a few tokens may wait to close one)
    try:
        cm.compile(budget)
    except OverBudgetError as after:  # nothing pending: never "compression lags"
        assert "pending chunks" not in after.parts and "compression lags" not in str(after)


@FAST
@given(
    turns=st.integers(20, 50),
    size=st.integers(30, 90),
    budget=st.integers(1, 60),
    reserve=st.integers(1, 3_000),
)
def test_the_advice_counts_the_reserve_for_the_response(turns: int, size: int, budget: int, reserve: int) -> None:
    """A review found: with max_tokens=4,000 and a reserve of 4,000 the advice said "raise max_tokens
    above 2,136", which it already was; the figure is the rest plus the reserve."""
    cm = _lagging(turns, size, 4_000, 80)
    try:
        cm.compile(budget + reserve, reserve_for_response=reserve)
        return
    except OverBudgetError as exc:
        err = exc
    once = err.parts.get("needed once summarised")
    if once is None:
        return
    assert f"raise max_tokens to at least {once + reserve:,}" in str(err) and "reserve" in str(err)
    assert once + reserve > budget + reserve  # the advice names a larger max_tokens than was given


def test_a_handle_that_leaves_compression_to_workers_is_told_to_start_one() -> None:
    # A review found the advice "run cm.drain()" on a handle whose drain() raises
    # CompressionDelegatedError (compression="workers").
    cfg = AutobiographicalConfig(head_window_tokens=40, recent_window_tokens=80, target_chunk_tokens=100)
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(cfg), compression="workers")
    for k in range(60):
        cm.add_message("user" if k % 2 == 0 else "assistant", f"Turn {k}: " + words(20, k))
    try:
        cm.compile(60)
    except OverBudgetError as err:
        assert "compression lags" in str(err) and "context-journal worker --store DB" in str(err)
        assert "cm.drain()" not in str(err)
    else:
        raise AssertionError("a 60-token budget cannot hold this conversation")
