"""A compile is corrected class by class (token estimates, a fourth review): a namespace calibrated on
English (factor 1.0) and Hindi (3.0) has an overall factor between them, and compiles used it for any
content: English filled only part of its budget, Hindi went over it in provider tokens. Now the compiled
content's own mix prices it, and the total stays within the budget."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import CompileResult, ContextManager
from context_journal.tokens import Calibration, content_mix
from tests.hypothesis_budget import examples

ENGLISH = "Another plain English sentence about the build and its tests. "
HINDI = "नमस्ते दुनिया यह एक परीक्षण है और यह बहुत लंबा वाक्य है "


def _manager(prose: float, other: float, texts: list[str]) -> ContextManager:
    cm = ContextManager.open("memory:")
    cal = Calibration(factor=(prose + other) / 2, samples=10, classes={"prose": prose, "indic": other})
    cal.mix = {"prose": 0.5, "indic": 0.5}  # Hindi is "indic"
    cm._strategy_context().put_states({"calibration": cal.to_state()})
    for k, text in enumerate(texts):
        cm.add_message("user" if k % 2 == 0 else "assistant", text, id=f"m{k}")
    return cm


def _provider_tokens(cm: ContextManager, result: CompileResult) -> int:
    """The compile's estimate corrected by its content's classes (framing priced like its content)."""
    cal = Calibration.from_state(cm._strategy_context().get_state("calibration"))
    mix = content_mix([*result.system, *(b for m in result.messages for b in m.content)])
    return math.ceil(result.estimated_tokens * cal.apply_mix(mix) / sum(mix.values()) - 1e-9)


@pytest.mark.parametrize("budget", [2000, 5000])
def test_english_is_priced_by_the_english_factor_and_fills_its_budget(budget: int) -> None:
    cm = _manager(1.0, 3.0, [ENGLISH * 10] * 60)
    result = cm.compile(budget)
    assert result.calibration == pytest.approx(1.0, abs=0.03)
    assert result.tokens <= result.budget and result.tokens >= 0.9 * budget
    assert _provider_tokens(cm, result) <= budget


@pytest.mark.parametrize("budget", [2000, 5000])
def test_hindi_is_priced_by_its_own_factor_and_stays_within_the_budget(budget: int) -> None:
    cm = _manager(1.0, 3.0, [HINDI * 6] * 60)
    result = cm.compile(budget)
    assert result.calibration == pytest.approx(3.0, rel=0.03)
    assert _provider_tokens(cm, result) <= budget  # with the overall 2.0 it was about 1.5x over
    assert result.tokens <= result.budget


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    prose=st.floats(0.5, 4.0),
    other=st.floats(0.5, 4.0),
    kinds=st.lists(st.booleans(), min_size=5, max_size=40),
    budget=st.integers(800, 6000),
)
def test_any_mix_stays_within_the_budget_class_by_class(
    prose: float, other: float, kinds: list[bool], budget: int
) -> None:
    cm = _manager(prose, other, [(HINDI * 4) if hindi else (ENGLISH * 6) for hindi in kinds])
    try:
        result = cm.compile(budget)
    except Exception as exc:
        assert type(exc).__name__ == "OverBudgetError", exc
        return
    assert result.tokens <= result.budget
    assert _provider_tokens(cm, result) <= budget
