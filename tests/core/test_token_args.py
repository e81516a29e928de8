"""Token counts given by a caller are ints. ``compile(max_tokens=True)`` was a budget of one token
(``bool`` is an ``int`` to Python); a float was silently used. Every place that takes ``max_tokens``,
``reserve_for_response`` or a budget refuses a ``bool`` or a non-int with ``TypeError`` and an int out of
range with ``ValueError``: ``compile``, ``preview_context``, ``AutobiographicalConfig.for_budget``, the
execution journal's bounded views and the MCP ``compile_context`` tool's arguments."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.strategies import AutobiographicalConfig
from context_journal.tokens import check_token_count
from tests.hypothesis_budget import examples

FAST = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])

not_ints = st.one_of(
    st.booleans(),
    st.floats(allow_nan=True),
    st.integers(1, 10_000).map(float),
    st.integers(1, 10_000).map(str),
    st.integers(1, 10_000).map(Decimal),
    st.integers(1, 10_000).map(Fraction),
    st.none(),
    st.just([100]),
)


def _manager() -> ContextManager:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hello there")
    return cm


@FAST
@given(value=not_ints)
def test_compile_refuses_a_non_int_max_tokens_or_reserve(value: Any) -> None:
    cm = _manager()
    for call in (cm.compile, cm.preview_context):
        with pytest.raises(TypeError, match="max_tokens must be an int"):
            call(value)
        with pytest.raises(TypeError, match="reserve_for_response must be an int"):
            call(1_000, value)


def test_compile_max_tokens_true_is_refused_not_a_one_token_budget() -> None:
    cm = _manager()
    with pytest.raises(TypeError, match="not bool True"):
        cm.compile(max_tokens=True)
    with pytest.raises(TypeError, match="not bool False"):
        cm.compile(1_000, reserve_for_response=False)
    assert cm.compile(1_000, 0).budget == 1_000


@FAST
@given(value=not_ints)
def test_for_budget_refuses_a_non_int(value: Any) -> None:
    with pytest.raises(TypeError, match="budget must be an int"):
        AutobiographicalConfig.for_budget(value)


@FAST
@given(value=st.integers(-10_000, 0))
def test_out_of_range_ints_are_value_errors(value: int) -> None:
    cm = _manager()
    with pytest.raises(ValueError, match="max_tokens must be positive"):
        cm.compile(value)
    with pytest.raises(ValueError, match="budget must be positive"):
        AutobiographicalConfig.for_budget(value)
    if value < 0:
        with pytest.raises(ValueError, match="reserve_for_response must be >= 0"):
            cm.compile(1_000, value)


def test_check_token_count_returns_good_values_and_names_the_argument() -> None:
    assert check_token_count("n", 5, 1) == 5
    with pytest.raises(TypeError, match="n must be an int"):
        check_token_count("n", 5.0, 1)
    with pytest.raises(ValueError, match="n must be >= 300, got 299"):
        check_token_count("n", 299, 300)


def test_journal_views_refuse_a_bool_max_tokens() -> None:
    from context_journal.journal import ExecutionJournal
    from context_journal.stores import MemoryStore

    journal = ExecutionJournal(MemoryStore())
    with pytest.raises(TypeError, match="max_tokens must be an int"):
        journal.render_for_harness("proj", max_tokens=True)
    with pytest.raises(TypeError, match="max_tokens must be an int"):
        journal.get_project_summaries("proj", max_tokens=5000.0)  # type: ignore[arg-type]


def test_mcp_compile_context_refuses_bools_and_floats() -> None:
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")
    import anyio
    from mcp import Client

    from context_journal.mcp import build_server
    from context_journal.stores import MemoryStore

    store = MemoryStore()
    ContextManager.open(store=store).add_message("user", "hello")
    server, backend = build_server(store)

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            for args in (
                {"max_tokens": True},
                {"max_tokens": 1000.5},
                {"max_tokens": 1000, "reserve_for_response": True},
            ):
                result = await client.call_tool("compile_context", args)
                text = " ".join(getattr(c, "text", "") for c in result.content)
                assert result.is_error, args
                assert "invalid arguments" in text and "integer" in text, text
            ok = await client.call_tool("compile_context", {"max_tokens": 1000, "reserve_for_response": 0})
            assert not ok.is_error, ok.content

    anyio.run(main)
    backend.close()
