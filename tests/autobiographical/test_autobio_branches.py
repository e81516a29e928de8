"""Compression state per namespace and branch: a fork or derived child inherits chunks and summaries up
to its fork point (and never re-summarises them); what either side writes afterwards stays on its own
branch; edits and removals after compression keep every compile complete and valid."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.manager import ContextManager
from context_journal.strategies import AutobiographicalStrategy
from context_journal.testing import ScriptedProvider
from tests.autobiographical.autobio_helpers import add, chat, check, chunks, echo_summarizer, manager, tool_chat
from tests.hypothesis_budget import examples

CFG: dict[str, Any] = {
    "head_window_tokens": 80,
    "recent_window_tokens": 150,
    "target_chunk_tokens": 120,
    "merge_threshold": 3,
}


def test_a_derived_child_reuses_the_parents_summaries_without_a_model_call() -> None:
    parent = manager(tool_chat(20), summarizer=echo_summarizer("parent"), **CFG)
    parent.drain()
    before = {r.id for r in parent.search_summaries(limit=None)}
    child = parent.derive("child", strategy=AutobiographicalStrategy(**CFG))
    child.summarizer = ScriptedProvider()  # any call would fail the test
    assert child.is_ready() and child.tick().status == "idle"
    result = child.compile(1_500)
    check(child, result)
    used = {s.id for m in result.messages for s in m.sources if s.kind == "summary"}
    assert used and used <= before
    # Work done on either side after the fork stays there.
    child.summarizer = echo_summarizer("child")
    add(child, tool_chat(8, start=100))
    child.drain()
    add(parent, tool_chat(8, start=200))
    parent.drain()
    mine = {r.id for r in child.search_summaries(limit=None)} - before
    theirs = {r.id for r in parent.search_summaries(limit=None)} - before
    assert mine and theirs and not mine & theirs
    assert all("child" in child.get_summary(r).text for r in mine)
    check(child, child.compile(1_500))
    check(parent, parent.compile(1_500))


def test_switching_branches_reloads_the_compression_state() -> None:
    cm = manager(chat(40, 30), summarizer=echo_summarizer(), **CFG)
    cm.drain()
    cm.fork("side")
    add(cm, chat(20, 30, start=100))
    cm.drain()
    on_main = len(chunks(cm))
    cm.switch_branch("side")
    assert len(chunks(cm)) < on_main
    assert cm.is_ready()
    check(cm, cm.compile(1_200))
    cm.switch_branch("main")
    assert len(chunks(cm)) == on_main


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    removals=st.lists(st.integers(0, 79), max_size=20),
    edits=st.lists(st.integers(0, 79), max_size=10),
    budget=st.integers(900, 6_000),
)
def test_edits_and_removals_after_compression_keep_compiles_complete(
    removals: list[int], edits: list[int], budget: int
) -> None:
    cm = manager(tool_chat(20), summarizer=echo_summarizer(), **CFG)
    cm.drain()
    ids = [m.id for m in cm.get_all_messages()]
    for k in sorted(set(removals)):
        cm.remove_message(ids[k])
    for k in sorted(set(edits) - set(removals)):
        message = cm.get_message(ids[k])
        if all(b.type == "text" for b in message.content):
            cm.edit_message(ids[k], "edited: " + message.text())
    try:
        result = cm.compile(budget)
    except Exception as exc:  # only an honest over-budget is allowed
        from context_journal.compile import OverBudgetError

        assert isinstance(exc, OverBudgetError) and exc.actual > exc.budget
        return
    check(cm, result)
    cm.drain()  # compression goes on over what is left
    check(cm, cm.compile(100_000))


def test_a_second_handle_sees_the_first_handles_summaries() -> None:
    first = manager(tool_chat(15), summarizer=echo_summarizer(), **CFG)
    second = ContextManager.open(
        store=first.store, strategy=AutobiographicalStrategy(**CFG), summarizer=ScriptedProvider()
    )
    first.drain()
    assert second.is_ready()
    result = second.compile(1_500)
    check(second, result)
    assert any(s.kind == "summary" for m in result.messages for s in m.sources)
