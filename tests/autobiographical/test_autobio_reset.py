"""``reset_head_window``: a transition summary stored as a message that opens the new head; older
messages stay covered; a reopen finds the head; failures write nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal.compression import CompressionUnavailableError
from context_journal.manager import ContextManager
from context_journal.strategies import AutobiographicalStrategy
from context_journal.testing import ScriptedProvider
from context_journal.views import StoreView
from tests.autobiographical.autobio_helpers import add, chat, check, chunks, echo_summarizer, manager, tool_chat
from tests.hypothesis_budget import examples

CFG: dict[str, Any] = {
    "head_window_tokens": 150,
    "recent_window_tokens": 200,
    "target_chunk_tokens": 150,
    "merge_threshold": 3,
}


def _head(cm: ContextManager) -> tuple[int, int]:
    strategy = cm.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    strategy.load(cm._strategy_context())
    view = StoreView(cm.messages)
    view.refresh()
    lay = strategy.layout(view)
    return lay.head_start, lay.head_end


def test_reset_with_a_summarizer_made_transition(tmp_path: Path) -> None:
    db = str(tmp_path / "j.db")
    provider = echo_summarizer("carried over")
    cm = manager(tool_chat(12), path=db, summarizer=provider, **CFG)
    cm.drain()
    before = len(cm.get_all_messages())
    mid = cm.reset_head_window()
    request = provider.requests[-1]
    assert request.metadata["kind"] == "transition" and request.metadata["summarize_range"][0] == 0
    message = cm.get_message(mid)
    assert message.participant == "Context Manager"
    assert message.metadata["context_journal"]["kind"] == "transition_summary"
    assert "carried over" in message.text() and message.text().startswith("[Transition summary")
    assert _head(cm)[0] == before  # the head starts at the transition message
    add(cm, chat(30, 30, start=100))
    cm.drain()
    result = cm.compile(3_000)
    check(cm, result)
    raw = [s.id for m in result.messages for s in m.sources if s.kind == "message"]
    assert raw[0] == mid  # the new head opens with the transition, raw
    first_raw = next(i for i, m in enumerate(result.messages) if any(s.kind == "message" for s in m.sources))
    assert all(s.kind != "message" for m in result.messages[:first_raw] for s in m.sources)  # old topic summarised
    order = [m.id for m in cm.get_all_messages()]
    assert (
        max(order.index(c.last_id) for c in chunks(cm) if order.index(c.last_id) < order.index(mid))
        == order.index(mid) - 1
    )
    cm.close()
    reopened = manager(path=db, summarizer=ScriptedProvider(), **CFG)
    assert _head(reopened)[0] == order.index(mid)  # a reopen finds the head
    check(reopened, reopened.compile(3_000))


def test_reset_with_host_text_calls_no_model() -> None:
    provider = ScriptedProvider()
    cm = manager(chat(10, 30), summarizer=provider, **CFG)
    mid = cm.reset_head_window("We finished the parser; next: the CLI.")
    assert provider.calls == 0
    assert "We finished the parser" in cm.get_message(mid).text()
    assert _head(cm)[0] == 10


def test_a_failed_transition_writes_nothing() -> None:
    provider = ScriptedProvider([ScriptedProvider.refusal()])
    cm = manager(chat(10, 30), summarizer=provider, **CFG)
    records = len(cm.store.read_slot("compression/default", cm.messages.branch_id))
    from context_journal.llm import ProviderRefusalError

    with pytest.raises(ProviderRefusalError):
        cm.reset_head_window()
    assert len(cm.get_all_messages()) == 10
    assert len(cm.store.read_slot("compression/default", cm.messages.branch_id)) == records
    with pytest.raises(ValueError):
        cm.reset_head_window("   ")
    with pytest.raises(CompressionUnavailableError):
        ContextManager.open("memory:").reset_head_window("x")


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    before=st.integers(1, 24),
    drained=st.integers(0, 24),
    after=st.integers(0, 12),
    tools=st.booleans(),
)
@example(before=20, drained=0, after=4, tools=False)  # a reset right after appends, nothing chunked yet
def test_every_message_before_a_reset_head_is_chunked_by_the_next_drain(
    before: int, drained: int, after: int, tools: bool
) -> None:
    """The old topic is chunked at the first drain after a reset, however much of it was chunked
    before and however little the new topic holds (it stayed unchunked, and compiles excerpted it,
    until the new topic closed its first chunk)."""
    old = tool_chat(before) if tools else chat(before, 30)
    cm = manager(old[: min(drained, len(old))], summarizer=echo_summarizer("s"), **CFG)
    cm.drain()
    add(cm, old[min(drained, len(old)) :])
    mid = cm.reset_head_window("Next topic.")
    add(cm, chat(after, 30, start=500))
    cm.drain()
    order = [m.id for m in cm.get_all_messages()]
    covered: set[int] = set()
    for c in chunks(cm):
        covered.update(range(order.index(c.first_id), order.index(c.last_id) + 1))
    assert set(range(order.index(mid))) <= covered
    assert cm.pending_work().ready == ()
    check(cm, cm.compile(3_000))
