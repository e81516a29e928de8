"""Budgets and counts are bounded: a budget that hangs. ``compile(max_tokens=10**30)`` never returned (a loop stepped
down by one token from a float-rounded value). Token counts have an upper bound everywhere they are taken
(``MAX_TOKEN_COUNT``; Python, CLI, MCP), and the calibration's inverse bisects instead of stepping."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from context_journal.tokens import MAX_TOKEN_COUNT, Calibration
from tests.hypothesis_budget import examples


@pytest.mark.parametrize("value", [MAX_TOKEN_COUNT + 1, 10**30, 2**63])
def test_huge_budgets_are_refused_at_once(value: int) -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hi")
    with pytest.raises(ValueError, match="at most 100,000,000"):
        cm.compile(max_tokens=value)
    with pytest.raises(ValueError, match="at most"):
        cm.compile(max_tokens=1000, reserve_for_response=value)
    assert cm.compile(max_tokens=MAX_TOKEN_COUNT).tokens > 0  # the bound itself compiles


def test_cli_refuses_a_huge_budget(tmp_path: object) -> None:
    db = f"{tmp_path}/b.db"
    ContextManager.open(db).add_message("user", "hi")
    res = CliRunner().invoke(app, ["compile", "--store", db, "--budget", str(10**30)])
    assert res.exit_code == 2 and "Traceback" not in res.output


@settings(max_examples=examples(200), deadline=None)
@given(factor=st.floats(0.25, 4.0), budget=st.integers(0, 50_000))
def test_raw_budget_is_the_largest_estimate_that_fits(factor: float, budget: int) -> None:
    cal = Calibration(factor=factor)
    raw = cal.raw_budget(budget)
    assert raw >= 0 and (raw == 0 or cal.apply(raw) <= budget)
    assert cal.apply(raw + 1) > budget


def test_raw_budget_at_the_bound_is_fast() -> None:
    cal = Calibration(factor=1.0 / 3.0)
    raw = cal.raw_budget(MAX_TOKEN_COUNT)
    assert cal.apply(raw) <= MAX_TOKEN_COUNT < cal.apply(raw + 1)
    assert math.isclose(raw, MAX_TOKEN_COUNT * 3, rel_tol=1e-6)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("head_window_tokens", float("nan")),
        ("head_window_tokens", 1e308),
        ("head_window_tokens", True),
        ("recent_window_tokens", 10**30),
        ("summary_output_tokens", float("inf")),
        ("merge_growth", float("inf")),
        ("prefix_headroom", float("nan")),
        ("retry_max_seconds", 1e300),
        ("stable_prefix", 1),
    ],
)
def test_an_autobiographical_config_refuses_numbers_no_compile_can_use(field: str, value: object) -> None:
    """A review found: ``AutobiographicalConfig`` took nan, inf, 1e308 and True (and ``compress --config``
    stored them with the namespace, after which every compile of it failed). They are ``ValueError``
    naming the field, in Python and on the command line; the bounds themselves are kept."""
    from typer.testing import CliRunner

    from context_journal import AutobiographicalConfig
    from context_journal.cli import app

    bad: dict[str, Any] = {field: value}  # a value out of the field's bounds
    with pytest.raises(ValueError, match=field):
        AutobiographicalConfig(**bad)
    assert AutobiographicalConfig(recent_window_tokens=MAX_TOKEN_COUNT).recent_window_tokens == MAX_TOKEN_COUNT
    if isinstance(value, float):
        text = {float("inf"): "Infinity"}.get(value, "NaN" if value != value else repr(value))
        res = CliRunner().invoke(app, ["compress", "--store", "memory:", "--config", f'{{"{field}": {text}}}'])
        assert res.exit_code != 0 and field in res.output and "Traceback" not in res.output, res.output
