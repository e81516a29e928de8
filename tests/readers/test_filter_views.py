"""Filter views (``view_filter=``): a message the predicate rejects is left out of every strategy read
(compiles with each strategy, recall, compression requests) but stays in the store and in raw reads;
not retroactive (a summary written before keeps its text); the predicate sees each version once, as
the manager's reader sees it; an error in it is named and leaves everything as it was."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, MemoryStore, ViewFilterError
from context_journal.messages import Message
from context_journal.strategies import (
    AutobiographicalStrategy,
    PassthroughStrategy,
    WindowedPassthroughStrategy,
)
from context_journal.testing import ScriptedProvider
from context_journal.validate import validate_messages, validate_openai_messages
from tests.hypothesis_budget import examples

TAG = re.compile(r"TAG\d+")
CFG: dict[str, Any] = {
    "head_window_tokens": 60,
    "recent_window_tokens": 120,
    "target_chunk_tokens": 90,
    "merge_threshold": 2,
}


def _echo(request: Any) -> str:
    """A summary that repeats every tag it was shown (a filtered message in a request shows up in it)."""
    return "memory " + " ".join(sorted(set(TAG.findall(request.model_dump_json()))))


def _no_secret(message: Message) -> bool:
    return "SECRET" not in json.dumps(message.content_dicts())  # tool results included


def _texts(result: Any) -> str:
    return repr(result.as_messages())


def _chat(cm: ContextManager, n: int, secret_every: int = 3) -> list[str]:
    ids = []
    for k in range(n):
        mark = " SECRET" if k % secret_every == 1 else ""
        who = "user" if k % 2 == 0 else "assistant"
        ids.append(cm.add_message(who, f"TAG{k}{mark} " + "words about the plan " * 6, id=f"m{k}"))
    return ids


@pytest.mark.parametrize("strategy", [PassthroughStrategy, WindowedPassthroughStrategy])
def test_rejected_messages_leave_compiles_and_stay_in_raw_reads(strategy: type) -> None:
    cm = ContextManager.open("memory:", strategy=strategy(), view_filter=_no_secret)
    _chat(cm, 12)
    head = cm.store.head_seq()
    result = cm.compile(100_000)
    shown = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
    assert shown == {f"m{k}" for k in range(12) if k % 3 != 1}
    assert "SECRET" not in _texts(result)
    assert len(cm.get_all_messages()) == 12 and cm.message_count() == 12  # raw reads keep them
    assert cm.get_message("m1").text().startswith("TAG1 SECRET")
    assert [h.message_id for h in cm.search_messages("SECRET", limit=20)] != []  # raw search too
    assert cm.store.head_seq() == head  # the filter wrote nothing
    cm.view_filter = None
    assert "SECRET" in _texts(cm.compile(100_000))


def test_recall_never_brings_back_a_rejected_message() -> None:
    cm = ContextManager.open("memory:", strategy=WindowedPassthroughStrategy(), view_filter=_no_secret)
    cm.add_message("user", "The launch code is SECRET zebra-42.", id="code")
    cm.add_message("user", "The zebra enclosure opens at nine.", id="zoo")
    for k in range(40):
        cm.add_message("user" if k % 2 == 0 else "assistant", "unrelated chatter about lunch " * 8, id=f"f{k}")
    result = cm.compile(300, query="zebra")
    assert "zebra-42" not in _texts(result)
    assert "enclosure" in _texts(result)


def test_filter_sees_each_version_once_as_the_reader_sees_it() -> None:
    seen: list[tuple[str, str]] = []

    def keep(message: Message) -> bool:
        seen.append((message.id, message.text()))
        return True

    store = MemoryStore()
    host = ContextManager.open(store=store, namespace="ann-view", view_reader="ann", view_filter=keep)
    host.add_message(
        "user", [{"type": "text", "text": "for all"}, {"type": "text", "text": "for bob", "audience": ["bob"]}], id="a"
    )
    host.add_message("user", [{"type": "text", "text": "only bob", "audience": ["bob"]}], id="b")
    host.add_message("user", "plain", id="c")
    host.compile(10_000)
    host.compile(10_000)
    assert sorted(seen) == [("a", "for all"), ("c", "plain")]  # b has nothing for ann: never judged
    host.edit_message("c", "plain, edited")
    host.compile(10_000)
    assert seen[-1] == ("c", "plain, edited") and len(seen) == 3


def test_an_error_in_the_filter_is_named_and_changes_nothing() -> None:
    calls = {"fail": True}

    def keep(message: Message) -> bool:
        if message.id == "m4" and calls["fail"]:
            raise RuntimeError("classifier offline")
        return True

    cm = ContextManager.open("memory:", view_filter=keep)
    _chat(cm, 8)
    head = cm.store.head_seq()
    with pytest.raises(ViewFilterError, match=r"m4.*classifier offline") as info:
        cm.compile(10_000)
    assert info.value.message_id == "m4" and isinstance(info.value.__cause__, RuntimeError)
    assert cm.store.head_seq() == head
    calls["fail"] = False
    result = cm.compile(10_000)  # asked again; the view is whole
    assert [s.id for m in result.messages for s in m.sources if s.kind == "message"] == [f"m{k}" for k in range(8)]


@pytest.mark.parametrize("bad", ["keep", 3, object()])
def test_a_filter_that_is_not_callable_is_refused(bad: Any) -> None:
    with pytest.raises(TypeError, match="view_filter"):
        ContextManager.open("memory:", view_filter=bad)
    cm = ContextManager.open("memory:")
    with pytest.raises(TypeError, match="view_filter"):
        cm.view_filter = bad


def test_derive_inherits_the_filter_unless_told_otherwise() -> None:
    cm = ContextManager.open("memory:", view_filter=_no_secret)
    _chat(cm, 6)
    child = cm.derive("child")
    assert child.view_filter is _no_secret
    assert "SECRET" not in _texts(child.compile(10_000))
    open_child = cm.derive("open-child", view_filter=None)
    assert open_child.view_filter is None and "SECRET" in _texts(open_child.compile(10_000))
    other = cm.derive("other", view_filter=lambda m: m.participant == "user")
    assert {m.participant for m in other.compile(10_000).messages} == {"user"}


def test_summaries_written_before_the_filter_keep_their_text_and_later_ones_never_see_rejected_messages() -> None:
    cm = ContextManager.open(
        "memory:", strategy=AutobiographicalStrategy(**CFG), summarizer=ScriptedProvider(default=_echo)
    )
    _chat(cm, 20)
    cm.drain()
    before = {s.id: s.text for s in cm.compressor.queries.summaries()}
    assert any("TAG1" in t for t in before.values())  # TAG1 is a SECRET message, summarised unfiltered
    cm.view_filter = _no_secret
    assert {s.id: s.text for s in cm.compressor.queries.summaries()} == before  # not retroactive
    for k in range(20, 44):
        mark = " SECRET" if k % 3 == 1 else ""
        cm.add_message("user" if k % 2 == 0 else "assistant", f"TAG{k}{mark} " + "more about the plan " * 6)
    cm.drain()
    new = [s for s in cm.compressor.queries.summaries() if s.id not in before]
    assert new, "compression went on"
    secret = {f"TAG{k}" for k in range(20, 44) if k % 3 == 1}
    leaked = {t for s in new for t in TAG.findall(s.text)} & secret
    assert not leaked, leaked
    result = cm.compile(800)
    assert validate_messages(result.as_messages()) == []


# --- property: every strategy, any filter, any budget ------------------------------------------------


def _tool_unit(k: int, secret: bool) -> list[tuple[str, Any, str]]:
    mark = " SECRET" if secret else ""
    return [
        ("assistant", [{"type": "tool_use", "id": f"t{k}", "name": "Read", "input": {"path": f"f{k}.py"}}], f"c{k}"),
        ("user", [{"type": "tool_result", "tool_use_id": f"t{k}", "content": f"TAG{k}{mark} body " * 5}], f"r{k}"),
    ]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shape=st.lists(st.tuples(st.sampled_from(["text", "tool"]), st.booleans()), min_size=2, max_size=24),
    strategy=st.sampled_from(["passthrough", "windowed", "autobiographical"]),
    budget=st.integers(200, 3000),
    drain=st.booleans(),
)
def test_no_rejected_message_reaches_any_compile(
    shape: list[tuple[str, bool]], strategy: str, budget: int, drain: bool
) -> None:
    strat = AutobiographicalStrategy(**CFG) if strategy == "autobiographical" else strategy
    cm = ContextManager.open(
        "memory:", strategy=strat, summarizer=ScriptedProvider(default=_echo), view_filter=_no_secret
    )
    rejected: set[str] = set()
    for k, (kind, secret) in enumerate(shape):
        rows = (
            _tool_unit(k, secret)
            if kind == "tool"
            else [("user", f"TAG{k}{' SECRET' if secret else ''} x " * 8, f"m{k}")]
        )
        for who, content, mid in rows:
            cm.add_message(who, content, id=mid)
            if secret and (kind == "text" or mid.startswith("r")):
                rejected.add(mid)
    if drain:
        cm.drain()  # every summary is written under the filter: none may hold a rejected message's text
    try:
        result = cm.compile(budget)
    except Exception as exc:
        assert type(exc).__name__ in ("OverBudgetError", "EmptyContextError"), exc
        return
    assert validate_messages(result.as_messages()) == []
    assert validate_openai_messages(result.to_openai()) == []
    assert result.tokens <= result.budget
    shown = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
    assert not shown & rejected
    assert "SECRET" not in _texts(result)


def test_a_filter_that_fails_on_a_new_message_lets_the_write_stand() -> None:
    def keep(message: Message) -> bool:
        if "boom" in message.text():
            raise ValueError("cannot judge")
        return True

    cm = ContextManager.open("memory:", view_filter=keep)
    cm.add_message("user", "fine", id="a")
    cm.compile(1000)
    cm.add_message("user", "boom", id="b")  # committed: the filter is a read-side view
    assert [m.id for m in cm.get_all_messages()] == ["a", "b"]
    with pytest.raises(ViewFilterError, match="'b'"):
        cm.compile(1000)


def test_recall_reports_no_match_when_every_hit_is_filtered_out() -> None:
    cm = ContextManager.open("memory:", strategy=WindowedPassthroughStrategy(), view_filter=_no_secret)
    for k in range(40):
        cm.add_message("user" if k % 2 == 0 else "assistant", f"SECRET xyzzy note {k} " + "words " * 20)
        cm.add_message("user" if k % 2 else "assistant", "ordinary chatter about lunch " * 5)
    result = cm.compile(3000, query="xyzzy")
    assert result.recall is not None
    assert result.recall["hits"] == 0 and result.recall["note"] == "no message matches the query"


def test_a_filter_that_compiles_again_raises_a_short_named_error() -> None:
    """Review: a filter calling compile nested its errors into a message of 8,917 characters."""
    holder: dict[str, ContextManager] = {}

    def keep(message: Message) -> bool:
        holder["cm"].compile(1000)
        return True

    cm = ContextManager.open("memory:", view_filter=keep)
    holder["cm"] = cm
    cm.add_message("user", "hello", id="a")
    with pytest.raises(ViewFilterError) as info:
        cm.compile(1000)
    assert info.value.message_id == "a" and len(str(info.value)) < 500
