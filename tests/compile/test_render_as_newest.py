"""Render as newest (``render_as_newest``): a marked message is sent once per compile, after the recent
window, as a user turn naming it in provenance; priced first like a pin; marks are branch state (forks
inherit them, reopen keeps them); tool calls and results cannot be marked; a reader's view of a marked
message holds only that reader's blocks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, MemoryStore
from context_journal.compile import OverBudgetError
from context_journal.errors import MessageNotFoundError
from context_journal.sharding import group_of
from context_journal.stores import SQLiteStore
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy
from context_journal.testing import ScriptedProvider
from context_journal.validate import validate_messages, validate_openai_messages
from tests.hypothesis_budget import examples

STRATEGIES = ["passthrough", "windowed", "autobiographical"]
SPEC = "SPEC: the API must return JSON, never HTML. " * 12


def _sources(result: Any) -> list[str]:
    return [s.id for m in result.messages for s in m.sources if s.kind == "message"]


def _omitted_positions(result: Any, order: list[str]) -> list[tuple[int, int, str]]:
    return [(order.index(first), order.index(last) + 1, why) for first, last, _n, why in result.omitted]


def _chat(cm: ContextManager, n: int) -> None:
    for k in range(n):
        cm.add_message("user" if k % 2 == 0 else "assistant", f"turn {k} " + "words " * 30, id=f"m{k}")


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("budget", [900, 1500, 4000, 50_000])
def test_a_marked_message_is_sent_once_last_as_a_user_turn(strategy: str, budget: int) -> None:
    sized = AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget))
    cm = ContextManager.open("memory:", strategy=sized if strategy == "autobiographical" else strategy)
    cm.add_message("user", SPEC, id="spec")
    _chat(cm, 40)
    assert cm.render_as_newest("spec") > 0
    if strategy == "autobiographical":
        cm.drain()  # summaries written: the compile is not waiting on compression
    result = cm.compile(budget)
    assert validate_messages(result.as_messages()) == [] and validate_openai_messages(result.to_openai()) == []
    assert result.tokens <= result.budget
    shown = _sources(result)
    assert shown.count("spec") == 1 and shown[-1] == "spec"
    last = result.messages[-1]
    assert last.role == "user" and "SPEC: the API" in str(last.content)
    order = [m.id for m in cm.get_all_messages()]
    assert all(not (a <= order.index("spec") < b) for a, b, _ in _omitted_positions(result, order))
    if strategy != "autobiographical":  # the marked message is in the result: not counted as dropped
        assert result.dropped == len(set(order) - set(shown))


def test_marks_are_idempotent_undone_and_checked() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "read this last", id="doc")
    cm.add_message(
        "assistant", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a.py"}}], id="c"
    )
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "x = 1"}], id="r")
    cm.add_message("user", "and now?", id="q")
    head = cm.store.head_seq()
    for tool_message in ("c", "r"):
        with pytest.raises(ValueError, match="pair"):
            cm.render_as_newest(tool_message)
    with pytest.raises(MessageNotFoundError):
        cm.render_as_newest("nope")
    assert cm.store.head_seq() == head  # refused marks write nothing
    assert cm.render_as_newest("doc") > 0 and cm.render_as_newest("doc") == 0
    assert cm.rendered_as_newest() == ["doc"]
    assert _sources(cm.compile(10_000)) == ["c", "r", "q", "doc"]
    assert cm.render_in_place("doc") > 0 and cm.render_in_place("doc") == 0
    assert _sources(cm.compile(10_000)) == ["doc", "c", "r", "q"]
    with pytest.raises(MessageNotFoundError):
        cm.render_in_place("nope")


def test_marks_follow_forks_and_survive_a_reopen(tmp_path: Any) -> None:
    path = tmp_path / "n.db"
    cm = ContextManager.open(store=SQLiteStore(path))
    cm.add_message("user", "the brief", id="brief")
    _chat(cm, 6)
    cm.render_as_newest("brief")
    child = cm.derive("child")
    assert child.rendered_as_newest() == ["brief"] and _sources(child.compile(10_000))[-1] == "brief"
    cm.store.close()
    again = ContextManager.open(store=SQLiteStore(path))
    assert again.rendered_as_newest() == ["brief"]
    assert _sources(again.compile(10_000))[-1] == "brief"
    again.store.close()


def test_a_reader_sees_only_its_blocks_of_a_marked_message() -> None:
    store = MemoryStore()
    host = ContextManager.open(store=store)
    host.add_message(
        "user",
        [{"type": "text", "text": "for everyone"}, {"type": "text", "text": "ann's key 42", "audience": ["ann"]}],
        id="doc",
    )
    host.add_message("user", "hello", id="h")
    bob = ContextManager.open(store=store, namespace="bob", view_reader="bob")
    bob.render_as_newest("doc")
    result = bob.compile(1000)
    assert _sources(result)[-1] == "doc"
    assert "42" not in str(result.to_anthropic()) and "for everyone" in str(result.to_anthropic())


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    strategy=st.sampled_from(STRATEGIES),
    shape=st.lists(st.sampled_from(["text", "tool", "long"]), min_size=3, max_size=20),
    marks=st.lists(st.integers(0, 40), max_size=3),
    budget=st.integers(400, 6000),
)
def test_any_history_with_marks_compiles_valid_with_each_mark_once_at_the_end(
    strategy: str, shape: list[str], marks: list[int], budget: int
) -> None:
    strat = (
        AutobiographicalStrategy(head_window_tokens=60, recent_window_tokens=200, target_chunk_tokens=150)
        if strategy == "autobiographical"
        else strategy
    )
    cm = ContextManager.open("memory:", strategy=strat, summarizer=ScriptedProvider(default="summary"))
    texts: list[str] = []
    for k, kind in enumerate(shape):
        if kind == "tool":
            cm.add_message("assistant", [{"type": "tool_use", "id": f"t{k}", "name": "Read", "input": {"p": k}}])
            cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"t{k}", "content": f"out {k} " * 20}])
        else:
            n = 300 if kind == "long" else 20
            texts.append(cm.add_message("user" if k % 2 == 0 else "assistant", f"m{k} " + "text " * n))
    marked: list[str] = []
    for k in marks:
        if texts:
            mid = texts[k % len(texts)]
            cm.render_as_newest(mid)
            if mid not in marked:
                marked.append(mid)
    cm.drain()
    try:
        result = cm.compile(budget)
    except OverBudgetError:
        return
    assert validate_messages(result.as_messages()) == []
    assert validate_openai_messages(result.to_openai()) == []
    assert result.tokens <= result.budget
    # By message: a long text is stored as shards (ingress sharding), each named in the provenance.
    shown = [group_of(i)[0] for i in _sources(result)]
    for mid in marked:
        assert shown.count(mid) == len(cm._group_ids(mid))
    shown = [x for k, x in enumerate(shown) if k == 0 or shown[k - 1] != x]
    assert shown[len(shown) - len(marked) :] == marked
    newest = [m for m in result.messages if any(s.kind == "message" and s.id in marked for s in m.sources)]
    assert len(newest) == len(marked)  # each marked message one user turn, its shards joined
    if strategy != "autobiographical":  # (no summary stands for a message): dropped is what no turn names
        every = {i for m in cm.get_all_messages() for i in cm._group_ids(m.id)}
        assert result.dropped == len(every - set(_sources(result)))


@pytest.mark.parametrize("strategy", ["passthrough", "windowed"])
@pytest.mark.parametrize("query", [None, "parser f3"])
def test_nothing_is_placed_after_a_marked_message(strategy: str, query: str | None) -> None:
    """The working-state pair and recall pairs go before the marked messages, never after them."""
    cm = ContextManager.open("memory:", strategy=strategy)
    cm.add_message("user", "Task: fix the parser.", id="brief")
    for k in range(20):
        call = {"type": "tool_use", "id": f"t{k}", "name": "Read", "input": {"file_path": f"src/p{k}.py"}}
        cm.add_message("assistant", [call])
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"t{k}", "content": f"def f{k}(): pass " * 10}])
    cm.add_message("assistant", "Looked at everything.")
    cm.render_as_newest("brief")
    result = cm.compile(1500, query=query)
    assert validate_messages(result.as_messages()) == []
    assert [s.id for s in result.messages[-1].sources] == ["brief"]
    kinds = {s.kind for m in result.messages for s in m.sources}
    assert "ledger" in kinds and (query is None or "recall" in kinds)


def test_a_pinned_range_is_rendered_as_newest_by_its_pin_id() -> None:
    cm = ContextManager.open("memory:", strategy="windowed")
    _chat(cm, 12)
    pin = cm.pin_range("m2", "m4", name="brief")
    assert cm.render_as_newest(pin) > 0
    assert cm.rendered_as_newest() == ["m2", "m3", "m4"]
    assert cm.render_as_newest(pin) == 0  # marked already: nothing written
    result = cm.compile(4000)
    assert validate_messages(result.as_messages()) == []
    assert _sources(result)[-3:] == ["m2", "m3", "m4"] and _sources(result).count("m3") == 1
    assert all(m.role == "user" for m in result.messages[-3:])
    assert cm.render_in_place(pin) > 0 and cm.rendered_as_newest() == []
    assert _sources(cm.compile(4000))[-1] == "m11"
    with pytest.raises(MessageNotFoundError):
        cm.render_as_newest("range-9")
    cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}], id="call")
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}], id="result")
    tools = cm.pin_range("m11", "result")
    with pytest.raises(ValueError, match="tool call or result"):
        cm.render_as_newest(tools)
    assert cm.rendered_as_newest() == []  # nothing written


def test_dropped_counts_a_message_repairs_emptied_beside_a_marked_one() -> None:
    """A marked message is sent (not dropped), and an orphan tool result the repairs empty still is dropped:
    ``dropped`` 1 with the mark and without (the mark once cancelled the orphan out: 0)."""
    for mark in (False, True):
        cm = ContextManager.open("memory:", strategy="passthrough")
        brief = cm.add_message("user", "Task: migrate billing to Postgres.")
        cm.add_message("assistant", "ok")
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": "ghost", "content": "orphan output"}])
        cm.add_message("assistant", "what next?")
        cm.add_message("user", "continue")
        if mark:
            cm.render_as_newest(brief)
        result = cm.compile(5000)
        every = {m.id for m in cm.get_all_messages()}
        assert result.dropped == len(every - set(_sources(result))) == 1
