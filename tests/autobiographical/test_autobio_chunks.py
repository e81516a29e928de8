"""Chunking: stable boundaries as messages arrive, ownership that survives restarts and configuration
changes (nothing summarised twice), head and recent windows snapped to tool units, holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.manager import ContextManager
from context_journal.strategies import AutobiographicalStrategy
from context_journal.strategies.autobiographical.chunking import recent_start
from context_journal.views import StoreView
from tests.autobiographical.autobio_helpers import (
    add,
    chat,
    chunks,
    echo_summarizer,
    l1_requests,
    manager,
    tool_chat,
    words,
)
from tests.hypothesis_budget import examples

FAST = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def growing(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Messages with tool units (parallel calls, results spread over messages), texts of varied size."""
    out: list[dict[str, Any]] = []
    call = 0
    for k in range(draw(st.integers(5, 40))):
        out.append({"role": "user", "content": words(draw(st.sampled_from([3, 20, 80, 300])), k)})
        if draw(st.booleans()):
            width = draw(st.integers(1, 3))
            uses = []
            for _ in range(width):
                call += 1
                uses.append({"type": "tool_use", "id": f"t{call}", "name": "Read", "input": {"path": f"f{call}"}})
            out.append({"role": "assistant", "content": uses})
            results = [
                {"type": "tool_result", "tool_use_id": u["id"], "content": words(draw(st.sampled_from([5, 60, 400])))}
                for u in uses
            ]
            if draw(st.booleans()):
                out.append({"role": "user", "content": results})
            else:
                out.extend({"role": "user", "content": [r]} for r in results)
        out.append({"role": "assistant", "content": words(draw(st.sampled_from([5, 50, 200])), k + 1)})
    return out


def _signature(cm: ContextManager) -> list[tuple[str, ...]]:
    return [c.ids for c in chunks(cm)]


def _answers_only(cm: ContextManager, message_id: str) -> bool:
    kinds = {b.type for b in cm.get_message(message_id).content}
    return kinds == {"tool_result"}


@FAST
@given(msgs=growing(), step=st.integers(1, 7))
def test_chunk_boundaries_are_stable_as_messages_are_added(msgs: list[dict[str, Any]], step: int) -> None:
    cfg: dict[str, Any] = {"head_window_tokens": 150, "recent_window_tokens": 300, "target_chunk_tokens": 250}
    msgs = [{**m, "id": f"x{i}"} for i, m in enumerate(msgs)]
    one_by_one = manager(**cfg)
    seen: dict[str, tuple[str, ...]] = {}
    for i in range(0, len(msgs), step):
        add(one_by_one, msgs[i : i + step])
        one_by_one.pending_work()  # closes the chunks that are due
        current = {c.id: c.ids for c in chunks(one_by_one)}
        for cid, ids in seen.items():
            assert current[cid] == ids  # a closed chunk never changes
        seen = current
    at_once = manager(msgs, **cfg)
    at_once.pending_work()
    assert _signature(one_by_one) == _signature(at_once)  # boundaries do not depend on arrival timing
    order = [m.id for m in one_by_one.messages.slice(0, None)]  # as stored: long texts are shards
    view = StoreView(one_by_one.messages)
    view.refresh()
    previous_end = None
    for c in chunks(one_by_one):
        a, b = order.index(c.first_id), order.index(c.last_id) + 1
        assert list(c.ids) == order[a:b]  # contiguous, in order
        assert previous_end is None or a == previous_end  # chunks tile the middle
        previous_end = b
        assert view.tokens(a, b) >= cfg["target_chunk_tokens"]  # no trailing partial chunk
        assert b < len(order) and not _answers_only(one_by_one, order[b])  # never ends inside a tool unit
    if previous_end is not None:  # no chunk closes inside the recent window
        assert previous_end <= recent_start(view, cfg["recent_window_tokens"])


def test_head_and_recent_windows_never_split_a_tool_unit() -> None:
    msgs = tool_chat(30, size=25)
    cm = manager(msgs, head_window_tokens=90, recent_window_tokens=200, target_chunk_tokens=150)
    cm.drain()
    strategy = cm.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    view = StoreView(cm.messages)
    view.refresh()
    lay = strategy.layout(view)
    order = [m["id"] for m in msgs]
    assert 0 < lay.head_end < len(order)
    assert not _answers_only(cm, order[lay.head_end])  # the head ends where a unit ends
    result = cm.compile(100_000)
    raw = [s.id for m in result.messages for s in m.sources if s.kind == "message"]
    assert raw[: lay.head_end] == order[: lay.head_end]  # the head is rendered raw, first
    tail = raw[-4:]
    assert tail == order[-4:]  # the newest unit and answer, raw, at the end
    small = cm.compile(1_500)
    ids = [s.id for m in small.messages for s in m.sources if s.kind == "message"]
    assert ids[: lay.head_end] == order[: lay.head_end]
    first_recent = ids[lay.head_end :]
    assert first_recent and not _answers_only(cm, first_recent[0])


def test_no_chunk_is_summarised_twice_across_restarts(tmp_path: Path) -> None:
    db = tmp_path / "journal.db"
    cfg: dict[str, Any] = {
        "head_window_tokens": 100,
        "recent_window_tokens": 200,
        "target_chunk_tokens": 200,
        "merge_threshold": 3,
    }
    first = echo_summarizer()
    cm = manager(tool_chat(20), path=str(db), summarizer=first, **cfg)
    for _ in range(4):
        cm.tick()
    cm.close()
    # A restart (a new process would do the same): a new store handle, a new strategy object.
    second = echo_summarizer()
    cm = manager(path=str(db), summarizer=second, **cfg)
    add(cm, tool_chat(10, start=20))
    cm.drain()
    cm.close()
    third = echo_summarizer()
    cm = manager(path=str(db), summarizer=third, **cfg)
    cm.drain()
    assert third.calls == 0  # nothing left to do after a restart
    done = l1_requests(first) + l1_requests(second)
    assert len(done) == len(set(done))  # every chunk summarised once
    assert {f"chunk:{c.id}" for c in chunks(cm)} == set(done)
    rows = cm.search_summaries(limit=None)
    assert len({r.id for r in rows}) == len(rows)
    assert cm.is_ready()


def test_a_configuration_change_never_resummarises_covered_ground(tmp_path: Path) -> None:
    db = str(tmp_path / "j.db")
    before = echo_summarizer()
    cm = manager(
        chat(60, 30),
        path=db,
        summarizer=before,
        head_window_tokens=60,
        recent_window_tokens=200,
        target_chunk_tokens=150,
    )
    cm.drain()
    old_chunks = chunks(cm)
    old_rows = {r.id for r in cm.search_summaries(limit=None)}
    cm.close()
    after = echo_summarizer()
    cm = manager(
        path=db,
        summarizer=after,
        head_window_tokens=400,
        recent_window_tokens=100,
        target_chunk_tokens=500,
        summary_target_tokens=80,
        merge_threshold=2,
    )
    cm.drain()
    new_chunks = chunks(cm)
    assert new_chunks[: len(old_chunks)] == old_chunks  # closed chunks are kept as they were
    assert not any(r.startswith(tuple(f"chunk:{c.id}" for c in old_chunks)) for r in l1_requests(after))
    assert old_rows <= {r.id for r in cm.search_summaries(limit=None)}
    # The larger head does not take messages a chunk owns.
    strategy = cm.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    view = StoreView(cm.messages)
    view.refresh()
    lay = strategy.layout(view)
    assert lay.head_end <= view.index_of(old_chunks[0].first_id)  # type: ignore[operator]
    cm.close()


def test_hold_keeps_compression_away_until_released() -> None:
    msgs = chat(40, 40)
    cm = manager(
        msgs, summarizer=echo_summarizer(), head_window_tokens=50, recent_window_tokens=100, target_chunk_tokens=150
    )
    cm.hold_compression("m10")
    assert cm.pending_work().held == ("m10",)
    cm.drain()
    order = [m["id"] for m in msgs]
    for c in chunks(cm):
        assert order.index(c.last_id) < order.index("m10")
    result = cm.compile(100_000)
    assert "m10" in {s.id for m in result.messages for s in m.sources if s.kind == "message"}
    cm.release_compression("m10")
    assert cm.pending_work().held == ()
    cm.drain()
    assert any(order.index(c.last_id) > order.index("m10") for c in chunks(cm))
    other = ContextManager.open(store=cm.store, strategy=AutobiographicalStrategy())
    other.hold_compression("m39")
    assert cm.pending_work().held == ("m39",)  # holds are stored: other handles see them


def test_short_conversations_cost_nothing() -> None:
    provider = echo_summarizer()
    cm = manager(chat(6, 20), summarizer=provider)
    report = cm.drain()
    assert report.units == 0 and provider.calls == 0 and cm.is_ready()
    assert cm.compile(10_000).messages
