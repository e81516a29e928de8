"""Usage reports weigh by size: a small request's count is mostly the provider's framing and rounding,
so one tiny report must not reprice every later compile (a 6-token compile reported as 1 token set the
factor to 0.17, and a compile of "100,000 tokens" then held 600,000)."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.tokens import FULL_REPORT_TOKENS, Calibration
from tests.hypothesis_budget import examples

SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])

reports = st.lists(st.tuples(st.integers(1, 5 * FULL_REPORT_TOKENS), st.floats(0.01, 50.0)), min_size=1, max_size=12)


@SETTINGS
@given(reports=reports)
def test_a_report_moves_the_factor_at_most_by_its_weight(reports: list[tuple[int, float]]) -> None:
    cal = Calibration()
    for estimated, ratio in reports:
        actual = max(1, round(estimated * ratio))
        before, full = cal.factor, cal.weight >= 1.0
        heft = min(1.0, estimated / FULL_REPORT_TOKENS)
        after = cal.update(estimated, actual)
        wanted = math.log(min(cal.upper, max(cal.lower, actual / estimated))) - math.log(before)
        moved = math.log(after) - math.log(before)
        step = heft * (cal.alpha if full else 1.0)
        assert moved == pytest.approx(step * wanted, abs=1e-9)
        assert cal.lower <= after <= cal.upper
    back = Calibration.from_state(cal.to_state())
    assert (back.factor, back.samples, back.weight) == (cal.factor, cal.samples, cal.weight)


def test_a_tiny_report_barely_moves_a_later_compile() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hi")
    tiny = cm.compile(1_000)
    assert tiny.estimated_tokens < 20
    factor = cm.report_usage(tiny, 1)
    assert 0.98 < factor < 1.0  # 1/6 of the estimate, weighing 6/1000: moved 0.6% of the way (in log)
    for _ in range(30):
        cm.add_message("user", "word " * 200)
    big = cm.compile(100_000)
    assert big.tokens >= 0.98 * big.estimated_tokens  # was 0.17x: a request six times over its budget
    again = cm.report_usage(big, big.estimated_tokens * 2)  # a full report: exactly its ratio (the first full one)
    assert again == pytest.approx(2.0, rel=1e-6)
    cm.close()


def test_a_state_stored_before_weights_counts_each_report_fully() -> None:
    old = {"factor": 1.5, "samples": 3, "classes": {"prose": 1.5}, "mix": {"prose": 1.0}, "class_set": 2}
    cal = Calibration.from_state(old)
    assert cal.weight == 3.0
    cal.update(1_000, 2_000, {"prose": 1_000})  # past the first full report: an alpha step
    assert 1.5 < cal.class_factor("prose") < 2.0
    assert Calibration.from_state({**old, "weight": "nan"}).weight == 3.0


def test_an_implausible_report_is_refused_and_stores_nothing() -> None:
    """The review of issue 12: one report of 1 token for a 5,973-token compile set the factor to its floor
    (0.1), and the next compile held ten times what it said; 50x the estimate set it to 20."""
    cm = ContextManager.open("memory:")
    for i in range(40):
        cm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i}: the harbour at dawn, nets and gulls " * 4)
    result = cm.compile(100_000)
    for bad in (1, result.estimated_tokens // 20, result.estimated_tokens * 21, result.estimated_tokens * 50):
        with pytest.raises(ValueError, match="the calibration was left as it was"):
            cm.report_usage(result, bad)
    assert cm._strategy_context().get_state("calibration") is None  # nothing stored
    assert cm.report_usage(result, result.estimated_tokens * 3) == pytest.approx(3.0, rel=1e-3)  # within bounds
    cm.close()


@pytest.mark.parametrize("by_id", [False, True])
def test_a_report_lands_on_the_branch_that_was_compiled(by_id: bool) -> None:
    """A manager that switched branch after compiling (a fork to try something) still calibrates the branch
    whose compile the provider counted; the branch it is on now keeps its own factor."""
    cm = ContextManager.open("memory:")
    cm.add_message("user", "word " * 1500)
    result = cm.compile(10_000)
    cm.fork("attempt")
    cm.switch_branch("attempt")
    factor = cm.report_usage(result.compile_id if by_id else result, round(result.estimated_tokens * 1.5))
    assert factor > 1.3
    assert cm.compile(10_000).tokens == cm.compile(10_000).estimated_tokens  # "attempt": not calibrated
    cm.switch_branch("main")
    again = cm.compile(10_000)
    assert again.tokens > 1.3 * again.estimated_tokens


def test_a_report_of_another_namespaces_compile_is_refused() -> None:
    cm = ContextManager.open("memory:", namespace="a")
    other = ContextManager.open(store=cm.store, namespace="b")
    other.add_message("user", "word " * 1500)
    result = other.compile(10_000)
    with pytest.raises(ValueError, match="namespace 'b', not 'a'"):
        cm.report_usage(result, result.estimated_tokens)
    cm.add_message("user", "word " * 1500)
    assert cm.compile(10_000).tokens == cm.compile(10_000).estimated_tokens  # nothing was stored


def test_a_report_by_id_for_a_deleted_branch_is_refused() -> None:
    from context_journal.errors import BranchNotFoundError

    cm = ContextManager.open("memory:")
    cm.add_message("user", "word " * 1500)
    cm.fork("tmp")
    cm.switch_branch("tmp")
    result = cm.compile(10_000)
    cm.switch_branch("main")
    cm.delete_branch("tmp")
    with pytest.raises(BranchNotFoundError, match="tmp"):
        cm.report_usage(result.compile_id, result.estimated_tokens * 2)
    with pytest.raises(BranchNotFoundError, match="tmp"):
        cm.report_usage(result, result.estimated_tokens * 2)
