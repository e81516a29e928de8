"""``set_hot_context``: the windows changed at run time, recorded per branch, applied by every handle
that loads the strategy; equal to building the strategy with those settings."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from autobio_helpers import add, chat, check, chunks, echo_summarizer, manager, tool_chat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_budget import examples

from context_journal import ContextManager
from context_journal.compression import CompressionUnavailableError
from context_journal.strategies import AutobiographicalStrategy
from context_journal.strategies.base import HOT_CONTEXT_STATE

CFG = {"head_window_tokens": 150, "recent_window_tokens": 200, "target_chunk_tokens": 150, "merge_threshold": 3}


def _texts(cm: ContextManager, budget: int = 3_000) -> list[tuple[str, str]]:
    result = cm.compile(budget)
    check(cm, result)
    return [(m.role, str(m.content)) for m in result.messages]


def _raw_tail(cm: ContextManager, budget: int = 3_000) -> int:
    """Messages rendered raw after the last summary of a compile."""
    result = cm.compile(budget)
    kinds = [{s.kind for s in m.sources} for m in result.messages]
    last = max((i for i, k in enumerate(kinds) if "summary" in k), default=-1)
    return sum(1 for k in kinds[last + 1 :] if "message" in k)


def test_a_hot_change_compiles_as_a_strategy_built_with_it() -> None:
    built = manager(summarizer=echo_summarizer(), **{**CFG, "recent_window_tokens": 450, "head_window_tokens": 60})
    hot = manager(summarizer=echo_summarizer(), **CFG)
    assert hot.hot_context() == {"head_window_tokens": 150, "recent_window_tokens": 200, "target_chunk_tokens": 150}
    assert hot.set_hot_context(recent_window_tokens=450, head_window_tokens=60) > 0
    assert hot.hot_context() == {"head_window_tokens": 60, "recent_window_tokens": 450, "target_chunk_tokens": 150}
    for cm in (built, hot):
        add(cm, chat(40, 30))
        cm.drain()
    assert _texts(hot) == _texts(built)
    assert hot.set_hot_context(recent_window_tokens=450) == 0  # nothing changed, nothing written


def _chunked(cm: ContextManager) -> int:
    """Messages from the first up to the end of the last chunk."""
    order = [m.id for m in cm.get_all_messages()]
    return max((order.index(c.last_id) + 1 for c in chunks(cm)), default=0)


def test_the_recent_window_decides_what_stays_unchunked() -> None:
    cm = manager(chat(60, 30), summarizer=echo_summarizer(), **{**CFG, "recent_window_tokens": 1_000})
    cm.drain()  # messages of about 100 tokens: some ten stay raw
    before = _chunked(cm)
    assert 46 <= before <= 52
    cm.set_hot_context(recent_window_tokens=300)  # smaller: more of the tail is chunked at the next tick
    cm.drain()
    smaller = _chunked(cm)
    assert 54 <= smaller <= 58
    cm.set_hot_context(recent_window_tokens=3_000)  # larger: new messages stay raw, nothing is un-chunked
    add(cm, chat(20, 30, start=100))
    cm.drain()
    assert _chunked(cm) == smaller
    assert _raw_tail(cm, 4_000) >= 80 - smaller


def test_the_change_is_recorded_and_a_reopen_uses_it(tmp_path: Path) -> None:
    db = str(tmp_path / "j.db")
    cm = manager(chat(30, 30), path=db, summarizer=echo_summarizer(), **CFG)
    seq = cm.set_hot_context(target_chunk_tokens=300)
    record = cm.store.get_state(cm.messages.branch_id, f"default/{HOT_CONTEXT_STATE}")
    assert record == {"target_chunk_tokens": 300} and seq == cm.store.head_seq()
    cm.drain()
    expected = _texts(cm)
    cm.close()
    again = manager(path=db, summarizer=echo_summarizer(), **CFG)  # built with the old settings
    assert again.hot_context()["target_chunk_tokens"] == 300
    strategy = again.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    assert strategy.base_config.target_chunk_tokens == 150  # what it was built with, and records
    assert strategy.settings_record()["config"]["target_chunk_tokens"] == 150
    assert _texts(again) == expected


def test_each_branch_has_its_own_windows_and_a_fork_inherits() -> None:
    cm = manager(chat(50, 30), summarizer=echo_summarizer(), **CFG)
    cm.set_hot_context(recent_window_tokens=300)
    cm.fork("wide")
    cm.switch_branch("wide")
    assert cm.hot_context()["recent_window_tokens"] == 300  # inherited at the fork
    cm.set_hot_context(recent_window_tokens=1200)
    cm.drain()
    wide = _chunked(cm)  # chunks closed on this branch leave a dozen messages raw
    cm.switch_branch("main")
    assert cm.hot_context()["recent_window_tokens"] == 300
    cm.drain()
    assert _chunked(cm) > wide + 5  # three messages raw
    cm.switch_branch("wide")
    assert cm.hot_context()["recent_window_tokens"] == 1200


def test_bad_changes_are_refused_and_write_nothing() -> None:
    cm = manager(chat(10, 30), **CFG)
    head = cm.store.head_seq()
    with pytest.raises(TypeError, match=r"merge_threshold.*cannot change at run time"):
        cm.set_hot_context(merge_threshold=2)
    with pytest.raises(TypeError, match="recent_windows_tokens"):
        cm.set_hot_context(recent_windows_tokens=900)
    with pytest.raises(ValueError, match="recent_window_tokens"):
        cm.set_hot_context(recent_window_tokens=-1)
    with pytest.raises(ValueError, match="recent_window_tokens"):
        cm.set_hot_context(recent_window_tokens=True)
    with pytest.raises(ValueError, match="at least one setting"):
        cm.set_hot_context()
    assert cm.store.head_seq() == head
    plain = ContextManager.open("memory:")
    with pytest.raises(CompressionUnavailableError, match="set_hot_context needs a strategy with windows"):
        plain.set_hot_context(recent_window_tokens=900)
    with pytest.raises(CompressionUnavailableError, match="hot_context needs"):
        plain.hot_context()


def test_a_record_this_version_cannot_apply_is_ignored_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    cm = manager(chat(30, 30), summarizer=echo_summarizer(), **CFG)
    cm.drain()
    expected = _texts(cm)
    with cm.store.transaction() as tx:  # written by another version, or by hand
        tx.put_state(cm.messages.branch_id, f"default/{HOT_CONTEXT_STATE}", {"recent_window_tokens": "wide"})
    with caplog.at_level(logging.WARNING, logger="context_journal.compression"):
        assert cm.hot_context()["recent_window_tokens"] == 200
    assert "hot-context record" in caplog.text
    assert _texts(cm) == expected


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(
        st.tuples(
            st.integers(1, 12),
            st.sampled_from(["head_window_tokens", "recent_window_tokens", "target_chunk_tokens"]),
            st.integers(20, 900),
            st.booleans(),
        ),
        min_size=1,
        max_size=5,
    ),
    tools=st.booleans(),
    budget=st.integers(1_200, 4_000),
)
def test_windows_changed_between_writes_keep_every_compile_valid_and_complete(
    steps: list[tuple[int, str, int, bool]], tools: bool, budget: int
) -> None:
    """Whatever the windows do between appends and drains, each compile is provider-valid, within its
    budget, and every message is rendered or summarised."""
    cm = manager(summarizer=echo_summarizer(), **CFG)
    start = 0
    for count, name, value, drain in steps:
        add(cm, tool_chat(count, start=start) if tools else chat(count, 30, start=start))
        start += count
        cm.set_hot_context(**{name: value})
        if drain:
            cm.drain()
        check(cm, cm.compile(budget), allow_omitted=True)
    cm.drain()
    check(cm, cm.compile(budget))
