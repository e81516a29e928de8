"""``set_hot_context``: the windows changed at run time, recorded per branch, applied by every handle
that loads the strategy; equal to building the strategy with those settings."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.compression import CompressionUnavailableError
from context_journal.errors import OverBudgetError
from context_journal.strategies import AutobiographicalStrategy
from context_journal.strategies.base import HOT_CONTEXT_STATE
from tests.autobiographical.autobio_helpers import (
    _omitted_ids,
    add,
    chat,
    check,
    chunks,
    echo_summarizer,
    manager,
    tool_chat,
)
from tests.hypothesis_budget import examples

CFG: dict[str, Any] = {
    "head_window_tokens": 150,
    "recent_window_tokens": 200,
    "target_chunk_tokens": 150,
    "merge_threshold": 3,
}


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
    with pytest.raises(
        CompressionUnavailableError, match=r"set_hot_context needs a strategy with windows.*'passthrough'"
    ):
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


def test_a_setting_of_a_newer_version_is_left_aside_and_kept(caplog: pytest.LogCaptureFixture) -> None:
    cm = manager(chat(30, 30), summarizer=echo_summarizer(), **CFG)
    with cm.store.transaction() as tx:  # a newer version records a setting this one does not know
        tx.put_state(
            cm.messages.branch_id, f"default/{HOT_CONTEXT_STATE}", {"recent_window_tokens": 500, "lookahead": 3}
        )
    with caplog.at_level(logging.WARNING, logger="context_journal.compression"):
        assert cm.hot_context()["recent_window_tokens"] == 500  # the settings it knows still apply
    assert "lookahead" in caplog.text
    assert cm.set_hot_context(head_window_tokens=90) > 0  # and a change is still accepted
    record = cm.store.get_state(cm.messages.branch_id, f"default/{HOT_CONTEXT_STATE}")
    assert record == {"recent_window_tokens": 500, "lookahead": 3, "head_window_tokens": 90}


def test_a_refused_change_on_a_reader_handle_writes_nothing() -> None:
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(**CFG), view_reader="ann")
    head = cm.store.head_seq()
    with pytest.raises(ValueError, match="recent_window_tokens"):
        cm.set_hot_context(recent_window_tokens=-3)
    with pytest.raises(TypeError):
        cm.set_hot_context(nonsense=3)
    assert cm.store.head_seq() == head  # not even the namespace's reader claim
    assert cm.set_hot_context(recent_window_tokens=300) > 0


def test_workers_pick_up_the_work_a_change_or_a_reset_makes_due(tmp_path: Path) -> None:
    """On a ``compression="workers"`` manager a smaller window and a head reset queue the work they make
    due (appends queue only once a chunk's worth has grown: a worker found nothing to do)."""
    from context_journal.workers import CompressionWorker

    path = tmp_path / "w.db"
    wide: dict[str, Any] = {**CFG, "recent_window_tokens": 1_000}  # messages of about 100 tokens: ten stay raw
    cm = ContextManager.open(path, strategy=AutobiographicalStrategy(**wide), compression="workers")
    add(cm, chat(30, 30))

    def work() -> int:
        with CompressionWorker(str(path), echo_summarizer(), lease_seconds=30) as worker:
            return worker.run(until_idle=True).units

    assert work() > 0
    assert work() == 0  # nothing left
    assert cm.set_hot_context(recent_window_tokens=200) > 0
    assert work() > 0  # the tail beyond the smaller window
    add(cm, chat(2, 30, start=100))
    cm.reset_head_window("A new topic.")
    assert work() > 0  # the old topic before the new head
    reader = manager(path=str(path), **CFG)
    order = [m.id for m in reader.get_all_messages()]
    covered = {i for c in chunks(reader) for i in range(order.index(c.first_id), order.index(c.last_id) + 1)}
    assert set(range(len(order) - 1)) <= covered  # all but the transition message


def test_the_async_manager_changes_windows_and_resets_the_head() -> None:
    import asyncio

    from context_journal.aio import AsyncContextManager

    async def main() -> None:
        async with await AsyncContextManager.open(
            "memory:", strategy=AutobiographicalStrategy(**CFG), summarizer=echo_summarizer()
        ) as acm:
            for i in range(20):
                await acm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i}: " + "words " * 30)
            assert await acm.set_hot_context(recent_window_tokens=300) > 0
            assert (await acm.hot_context())["recent_window_tokens"] == 300
            await acm.reset_head_window("Next.")
            await acm.drain()
            assert len(await acm.search_summaries(limit=None)) >= 3  # the old topic, summarised
            assert (await acm.pending_work()).ready == ()

    asyncio.run(main())


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
    budget, and every message is rendered or summarised (or, while compression lags, the compile says so
    with the documented OverBudgetError). After a drain the one thing the compile may leave out is a
    message no chunk can hold yet (the chunk still filling below its target, between the last chunk and
    the recent window), named in ``omitted``: with a head window of half the budget and the recent window
    at its floor (each message over it counts for a quarter of it), head, filling chunk and tail can
    outgrow the budget, and the middle gives way (found by hypothesis: head 626 and recent 20 at 1,200)."""
    cm = manager(summarizer=echo_summarizer(), **CFG)
    start = 0
    for count, name, value, drain in steps:
        add(cm, tool_chat(count, start=start) if tools else chat(count, 30, start=start))
        start += count
        cm.set_hot_context(**{name: value})
        if drain:
            cm.drain()
        try:
            check(cm, cm.compile(budget), allow_omitted=True)
        except OverBudgetError as exc:  # allowed only while compression lags (the documented error)
            assert not drain and exc.parts.get("pending chunks"), exc
    cm.drain()
    result = cm.compile(budget)
    check(cm, result, allow_omitted=True)
    if result.omitted:
        assert cm.pending_work().ready == ()  # nothing a drain could still summarise
        in_chunks = {i for c in chunks(cm) for i in c.ids}
        assert not _omitted_ids(cm, result) & in_chunks, result.omitted
        assert all(why.startswith("not summarised yet") for *_, why in result.omitted), result.omitted


def test_a_span_left_out_while_compression_lagged_comes_back_once_part_of_it_is_summarised() -> None:
    """The stable layout left m8..m12 out while compression lagged (the head window had just shrunk);
    after a drain m8..m11 are summarised but m12 never will be alone (its chunk is still filling). The
    span comes back: waiting for all of it kept every later compile naming m8..m12 "not summarised yet"
    at 835 of 1,200 tokens."""
    cm = manager(summarizer=echo_summarizer(), **CFG)
    start = 0
    for count, value, drain in ((1, 20, False), (1, 20, False), (7, 626, True), (5, 20, False)):
        add(cm, chat(count, 30, start=start))
        start += count
        cm.set_hot_context(head_window_tokens=value)
        if drain:
            cm.drain()
        cm.compile(1_200)
    assert cm.compile(1_200).omitted  # the lagging compile left the span out
    cm.drain()
    assert {i for c in chunks(cm) for i in c.ids} >= {"m8", "m9", "m10", "m11"}
    result = cm.compile(1_200)
    assert result.omitted == ()
    check(cm, result)
