"""Ranges pinned at a summary level (``ContextManager.pin_at_level``, ``pin_range(max_level=...)``) with
the autobiographical strategy.

Property (hypothesis): drained conversations of many levels, one range pinned at an exact level or with
``max_level``, budgets from tight to loose, ``overflow`` "excerpt" and "window": every summary rendered
over the range is at most the range's level, and with an exact level never finer unless nothing coarser
was written; a message of the range is raw only where no summary stands for it; the compile stays valid,
within budget, and covers every message (with "window", every message of the range). Then examples: a
strategy that cannot render a level fails the compile with a typed error naming the pin.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import WindowedPassthroughStrategy
from context_journal.compile import OverBudgetError
from context_journal.manager import ContextManager
from context_journal.strategies.pinned import PinUnsupportedError
from context_journal.validate import validate_messages
from tests.autobiographical.autobio_helpers import chat, coverage, echo_summarizer, manager
from tests.hypothesis_budget import examples


def _levels(n: int, **config: Any) -> ContextManager:
    """``n`` chat turns compressed into a tree of summaries several levels deep."""
    cm = manager(
        chat(n, 40),
        summarizer=echo_summarizer(),
        head_window_tokens=100,
        recent_window_tokens=300,
        target_chunk_tokens=200,
        merge_threshold=3,
        **config,
    )
    cm.drain()
    return cm


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(30, 110),
    start=st.integers(0, 10_000),
    length=st.integers(0, 12),
    level=st.integers(1, 4),
    exact=st.booleans(),
    budget=st.sampled_from([900, 1500, 2500, 6000]),
    window=st.booleans(),
)
def test_ranges_at_a_level_render_at_that_level(
    n: int, start: int, length: int, level: int, exact: bool, budget: int, window: bool
) -> None:
    cm = _levels(n, overflow="window" if window else "excerpt")
    ids = [m.id for m in cm.get_all_messages()]
    a = start % n
    b = min(n - 1, a + length)
    if exact:
        cm.pin_at_level(ids[a], ids[b], level)
    else:
        cm.pin_range(ids[a], ids[b], max_level=level)
    try:
        result = cm.compile(max_tokens=budget)
    except OverBudgetError:
        return  # the pinned levels (or compression's lag) do not fit this budget
    validate_messages(result.to_anthropic()["messages"])
    assert result.tokens <= budget
    by_id = {m.id: m for m in cm.get_all_messages()}
    seqs = [by_id[i].created_sequence for i in ids[a : b + 1]]
    lo, hi = min(seqs), max(seqs)
    summaries = cm.search_summaries(limit=None)
    covered, everything = coverage(cm, result)
    if not window:
        assert covered == everything
    else:  # the window leaves out old parts, never the range
        assert set(ids[a : b + 1]) <= covered
    for m in result.messages:
        for source in m.sources:
            if source.kind == "summary":
                s = cm.get_summary(source.id)
                if s.last_sequence < lo or s.first_sequence > hi:
                    continue  # not over the range
                assert s.level <= level, (s.id, s.level, level)
                assert source.complete, f"summary {s.id} over a range pinned at a level was cut"
                if exact and s.level < level:
                    assert s.parent_id is None, (s.id, s.level, level)  # nothing coarser was written
            elif source.kind == "message" and exact and lo <= by_id[source.id].created_sequence <= hi:
                seq = by_id[source.id].created_sequence
                # Raw inside a range pinned at a level: only where no summary stands for the message.
                assert not any(s.first_sequence <= seq <= s.last_sequence for s in summaries), source.id


def test_a_level_the_strategy_cannot_render_fails_the_compile_named() -> None:
    cm = _levels(60)
    pid = cm.pin_at_level("m10", "m14", 2, name="design")
    assert any(s.kind == "summary" for m in cm.compile(max_tokens=2000).messages for s in m.sources)
    cm.strategy = WindowedPassthroughStrategy()
    with pytest.raises(PinUnsupportedError) as caught:
        cm.compile(max_tokens=2000)
    assert caught.value.pin_id == pid and caught.value.level == 2 and "unpin it" in str(caught.value)
    cm.unpin(pid)
    assert cm.compile(max_tokens=2000).messages


def test_overflow_window_never_leaves_a_pinned_level_out() -> None:
    cm = _levels(90, overflow="window")
    ids = [m.id for m in cm.get_all_messages()]
    cm.pin_at_level(ids[20], ids[24], 1)
    out = cm.compile(max_tokens=700)
    covered, _ = coverage(cm, out)
    assert set(ids[20:25]) <= covered
    assert {cm.get_summary(s.id).level for m in out.messages for s in m.sources if s.kind == "summary"} >= {1}


def test_summaries_of_a_pinned_level_are_never_cut_and_an_error_names_the_pin() -> None:
    # A review's case: at 12,000 tokens every one of 138 level-1 summaries over the range was cut to about
    # a tenth (and still said complete); at 3,000 to 4,000 they were placeholders.
    cm = _levels(200)
    ids = [m.id for m in cm.get_all_messages()]
    pid = cm.pin_at_level(ids[20], ids[150], 1, name="the design")
    label = f"pinned range {pid} (the design)"
    outcomes = []
    for budget in (3000, 6000, 9000, 12_000, 16_000, 40_000):
        try:
            result = cm.compile(max_tokens=budget)
        except OverBudgetError as err:
            assert err.parts[label] > 1000, err.parts  # the level-1 summaries' estimated tokens
            outcomes.append("over")
            continue
        rendered = [s for m in result.messages for s in m.sources if s.kind == "summary"]
        assert rendered and all(s.complete for s in rendered), budget
        assert not [r for r in result.repairs if r.kind == "excerpted"], budget
        outcomes.append("fits")
    assert outcomes[0] == "over" and outcomes[-1] == "fits", outcomes
