"""Faults found in review of the framework adapters, with the real frameworks (offline):

* what the compile repaired reaches the framework's input (a stub result for a call with no result, a
  result moved up to its call), never an unpaired call or an orphan result (a property test);
* the LangChain middleware mirrors the agent state: removed and replaced messages leave the model's input;
* the Agents SDK session does its store work on the store handle's thread, not on the event loop.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hypothesis_budget import examples
from tests.loop_workloads import session_items
from tests.run_threads import run_threads
from tests.thread_probe import ThreadProbe

pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")
pytest.importorskip("agents", reason="the openai-agents extra is not installed")

from agents import Agent, RunConfig, Runner
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    ToolMessage,
)
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from openai.types.responses import ResponseOutputMessage, ResponseOutputText
from pydantic import Field

from context_journal import _store_thread
from context_journal.compile import OverBudgetError
from context_journal.errors import StoreClosedError, StoreError
from context_journal.integrations.langchain import JournalChatMessageHistory, JournalMiddleware
from context_journal.integrations.openai_agents import JournalSession
from context_journal.stores import SQLiteStore, open_store

STUB = "[no result recorded for this call: it was cancelled, failed, or is still pending]"


def lc_pairing_errors(messages: list[BaseMessage]) -> list[str]:
    """LangChain: every tool call answered by ToolMessages right after its AIMessage; no orphan result."""
    errors: list[str] = []
    open_calls: set[str] = set()
    for m in messages:
        if isinstance(m, ToolMessage):
            if m.tool_call_id not in open_calls:
                errors.append(f"orphan result {m.tool_call_id}")
            open_calls.discard(m.tool_call_id)
            continue
        errors += [f"unanswered {c}" for c in sorted(open_calls)]
        open_calls = {str(c["id"]) for c in m.tool_calls} if isinstance(m, AIMessage) else set()
    return errors + [f"unanswered {c}" for c in sorted(open_calls)]


def sdk_pairing_errors(items: list[dict[str, Any]]) -> list[str]:
    """Agents SDK: a model turn's calls (consecutive call items) answered by outputs before any other
    item; every output answers an open call."""
    errors: list[str] = []
    open_calls: set[str] = set()
    previous = ""
    for item in items:
        kind = item.get("type", "message")
        if kind == "function_call":
            if open_calls and previous != "call":
                errors += [f"unanswered {c}" for c in sorted(open_calls)]
                open_calls = set()
            open_calls.add(item["call_id"])
            previous = "call"
        elif kind == "function_call_output":
            if item["call_id"] not in open_calls:
                errors.append(f"orphan output {item['call_id']}")
            open_calls.discard(item["call_id"])
            previous = "output"
        else:
            errors += [f"unanswered {c}" for c in sorted(open_calls)]
            open_calls = set()
            previous = "message"
    return errors + [f"unanswered {c}" for c in sorted(open_calls)]


# ---- 1. what the compile repaired reaches the framework ------------------------------------------------


def test_langchain_history_sends_the_stub_result_of_an_interrupted_call() -> None:
    h = JournalChatMessageHistory("interrupted")
    h.add_messages(
        [
            HumanMessage("q", id="q"),
            AIMessage("", id="a", tool_calls=[{"id": "cx", "name": "t", "args": {}}]),
            HumanMessage("next", id="q2"),
        ]
    )
    assert [r.kind for r in h.manager.compile(1000).repairs] == ["result_stubbed"]
    compiled = h.compiled_messages(max_tokens=1000)
    assert [type(m).__name__ for m in compiled] == ["HumanMessage", "AIMessage", "ToolMessage", "HumanMessage"]
    assert [m.id for m in compiled] == ["q", "a", None, "q2"]
    stub = compiled[2]
    assert isinstance(stub, ToolMessage)
    assert (stub.tool_call_id, stub.content, stub.status) == ("cx", STUB, "error")
    assert lc_pairing_errors(compiled) == []


def test_langchain_history_moves_a_late_result_up_to_its_call() -> None:
    h = JournalChatMessageHistory("late")
    written: list[BaseMessage] = [
        HumanMessage("q", id="q"),
        AIMessage("", id="a", tool_calls=[{"id": "cx", "name": "t", "args": {}}]),
        HumanMessage("next", id="q2"),
        ToolMessage("res", tool_call_id="cx", id="t"),
    ]
    h.add_messages(written)
    compiled = h.compiled_messages(max_tokens=1000)
    assert compiled == [written[0], written[1], written[3], written[2]]  # where the compile put it


class ScriptedToolModel(GenericFakeChatModel):
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def test_langchain_middleware_sends_the_stub_to_the_model() -> None:
    model = ScriptedToolModel(messages=iter([AIMessage("done", id="r")]))
    history = JournalChatMessageHistory("agent-interrupted")
    agent = create_agent(model, tools=[], middleware=[JournalMiddleware(history, max_tokens=1000)])
    agent.invoke(
        {
            "messages": [
                HumanMessage("q", id="q"),
                AIMessage("", id="a", tool_calls=[{"id": "cx", "name": "t", "args": {}}]),
                HumanMessage("next", id="q2"),
            ]
        }
    )
    (sent,) = model.seen
    assert [type(m).__name__ for m in sent] == ["HumanMessage", "AIMessage", "ToolMessage", "HumanMessage"]
    assert isinstance(sent[2], ToolMessage) and (sent[2].tool_call_id, sent[2].content) == ("cx", STUB)


class RecordingModel(Model):
    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.inputs: list[list[dict[str, Any]]] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.inputs.append(json.loads(json.dumps(input)) if isinstance(input, list) else [input])
        part = ResponseOutputText(type="output_text", text=self.replies.pop(0), annotations=[])
        out = ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed", content=[part])
        return ModelResponse(output=[out], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def test_agents_session_sends_the_stub_output_through_the_runner() -> None:
    async def main() -> None:
        session = JournalSession("interrupted")
        await session.add_items(
            [
                {"role": "user", "content": "q"},
                {"type": "function_call", "call_id": "c1", "name": "t", "arguments": "{}"},
            ]
        )
        stub = {"type": "function_call_output", "call_id": "c1", "output": STUB}
        model = RecordingModel(["fine"])
        agent = Agent(name="a", instructions="Be brief.", model=model)
        config = RunConfig(tracing_disabled=True, call_model_input_filter=session.model_input_filter(1000))
        await Runner.run(agent, "next", session=session, run_config=config)  # type: ignore[arg-type]
        assert model.inputs[0] == [
            {"role": "user", "content": "q"},
            {"type": "function_call", "call_id": "c1", "name": "t", "arguments": "{}"},
            stub,
            {"role": "user", "content": "next"},
        ]
        assert session.compiled_items(1000)[2] == stub  # and the direct form
        # the input callback sends it too, and the stub is never stored as an item
        callback = session.input_callback(1000)
        sent = await callback([], [{"role": "user", "content": "again"}])
        assert stub in sent and sdk_pairing_errors(sent) == []
        assert stub not in await session.get_items()
        await session.aclose()

    asyncio.run(main())


# Random histories: parallel calls, results missing (interrupted), errors, late or reordered results.
_steps = st.lists(
    st.tuples(
        st.sampled_from(["user", "calls", "answer"]),
        st.integers(1, 3),  # calls in a turn
        st.lists(st.sampled_from(["ok", "error", "missing", "late", "swap"]), min_size=3, max_size=3),
    ),
    min_size=1,
    max_size=12,
)


def _lc_history(steps: list[Any]) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    late: list[BaseMessage] = []
    n = 0
    for kind, width, fates in steps:
        n += 1
        if kind == "user":
            out += [HumanMessage(f"question {n} " * 5, id=f"h{n}"), *late]
            late = []
            continue
        if kind == "answer":
            out.append(AIMessage(f"answer {n} " * 5, id=f"a{n}"))
            continue
        calls = [{"id": f"c{n}_{k}", "name": "lookup", "args": {"k": k}} for k in range(width)]
        out.append(AIMessage("", id=f"a{n}", tool_calls=calls))
        results: list[BaseMessage] = []
        for k, fate in enumerate(fates[:width]):
            status = "error" if fate == "error" else "success"
            result = ToolMessage(f"result {n}.{k} " * 6, tool_call_id=f"c{n}_{k}", id=f"t{n}_{k}", status=status)
            if fate == "late":
                late.append(result)
            elif fate != "missing":
                results.append(result)
        if any(f == "swap" for f in fates[:width]):
            results.reverse()
        out += results
    return out + late


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=_steps, budget=st.integers(150, 3000))
def test_langchain_compiled_messages_are_always_paired(steps: list[Any], budget: int) -> None:
    history = JournalChatMessageHistory("prop")
    written = _lc_history(steps)
    history.add_messages(written)
    try:
        compiled = history.compiled_messages(budget)
    except OverBudgetError:
        return
    assert lc_pairing_errors(compiled) == [], (written, compiled)
    by_id = {m.id: m for m in written}
    assert all(m == by_id[m.id] for m in compiled if m.id)  # stored messages come back as written


def _sdk_history(steps: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    late: list[dict[str, Any]] = []
    n = 0
    for kind, width, fates in steps:
        n += 1
        if kind == "user":
            out += [{"role": "user", "content": f"question {n} " * 5}, *late]
            late = []
            continue
        if kind == "answer":
            out.append({"role": "assistant", "content": f"answer {n} " * 5})
            continue
        out += [
            {"type": "function_call", "call_id": f"c{n}_{k}", "name": "lookup", "arguments": json.dumps({"k": k})}
            for k in range(width)
        ]
        results = []
        for k, fate in enumerate(fates[:width]):
            text = ("error: " if fate == "error" else "") + f"result {n}.{k} " * 6
            result = {"type": "function_call_output", "call_id": f"c{n}_{k}", "output": text}
            if fate == "late":
                late.append(result)
            elif fate != "missing":
                results.append(result)
        if any(f == "swap" for f in fates[:width]):
            results.reverse()
        out += results
    return out + late


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=_steps, budget=st.integers(150, 3000))
def test_agents_compiled_items_are_always_paired(steps: list[Any], budget: int) -> None:
    written = _sdk_history(steps)

    async def main() -> list[dict[str, Any]]:
        session = JournalSession("prop")
        await session.add_items(written)
        try:
            return await session.acompiled_items(budget)
        finally:
            await session.aclose()

    try:
        compiled = asyncio.run(main())
    except OverBudgetError:
        return
    assert sdk_pairing_errors(compiled) == [], (written, compiled)
    calls = {i["call_id"]: i for i in written if i.get("type") == "function_call"}
    for item in compiled:
        if item.get("type") == "function_call":
            assert item == calls[item["call_id"]]


@pytest.mark.parametrize(
    ("call", "answered_by"),
    [
        (
            {
                "type": "computer_call",
                "id": "cu_1",
                "call_id": "call_cu",
                "action": {"type": "click", "x": 10, "y": 20, "button": "left"},
                "pending_safety_checks": [],
                "status": "completed",
            },
            "a screenshot",
        ),
        (
            {
                "type": "local_shell_call",
                "id": "ls_1",
                "call_id": "call_ls",
                "action": {"type": "exec", "command": ["ls", "-la"], "env": {}},
                "status": "completed",
            },
            "an exit status",
        ),
    ],
    ids=["computer_call", "local_shell_call"],
)
def test_agents_a_call_whose_output_cannot_be_a_stub_is_sent_as_a_transcript(
    call: dict[str, Any], answered_by: str
) -> None:
    """A computer or shell call that never got its output: the compile stubs the result, and since no output
    item can carry a text stub (it wants {answered_by}), the call goes as an assistant line saying so, in its
    place; the model never sees a call without its output."""
    written = [
        {"role": "user", "content": "open the settings"},
        call,
        {"role": "user", "content": "never mind, what time is it?"},
    ]

    async def main() -> list[dict[str, Any]]:
        session = JournalSession(f"stub-{call['type']}")
        await session.add_items(written)
        try:
            assert await session.get_items() == written  # stored as given
            return await session.acompiled_items(2_000)
        finally:
            await session.aclose()

    compiled = asyncio.run(main())
    kinds = [i.get("type", "message") for i in compiled]
    assert call["type"] not in kinds and f"{call['type']}_output" not in kinds and "unanswerable" not in kinds
    transcript = [i for i in compiled if i.get("role") == "assistant"]
    assert len(transcript) == 1 and transcript[0]["content"].startswith(f"[{call['type']} ")
    assert json.dumps(call["action"], ensure_ascii=False) in transcript[0]["content"]
    assert [i["content"] for i in compiled if i.get("role") == "user"] == [
        "open the settings",
        "never mind, what time is it?",
    ]
    assert sdk_pairing_errors(compiled) == []


# ---- 2. the LangChain middleware mirrors the agent state -----------------------------------------------


def test_middleware_drops_a_message_replaced_in_the_state_by_a_redacted_copy() -> None:
    model = ScriptedToolModel(messages=iter([AIMessage("noted", id="r1"), AIMessage("ok", id="r2")]))
    history = JournalChatMessageHistory("card")
    agent = create_agent(model, tools=[], middleware=[JournalMiddleware(history, max_tokens=1000)])
    state = agent.invoke({"messages": [HumanMessage("my card is 4111 1111 1111 1111", id="p1")]})
    rest = [m for m in state["messages"] if m.id != "p1"]
    redacted = HumanMessage("my card is [REDACTED]", id="p1b")
    agent.invoke({"messages": [redacted, *rest, HumanMessage("thanks", id="p2")]})
    sent = model.seen[-1]
    assert [m.content for m in sent] == ["my card is [REDACTED]", "noted", "thanks"]
    assert not any("4111" in str(m.content) for m in sent)
    assert [m.id for m in history.messages] == ["p1b", "r1", "p2", "r2"]
    # a tombstone, not a deletion: the card message is readable as of before
    cm = history.manager
    assert cm.get_message_at("p1", 2).content_dicts()[0]["text"].startswith("my card is 4111")


def test_middleware_edits_a_message_replaced_under_the_same_id() -> None:
    model = ScriptedToolModel(messages=iter([AIMessage("noted", id="r1"), AIMessage("ok", id="r2")]))
    history = JournalChatMessageHistory("same-id")
    agent = create_agent(model, tools=[], middleware=[JournalMiddleware(history, max_tokens=1000)])
    state = agent.invoke({"messages": [HumanMessage("my card is 4111 1111 1111 1111", id="p1")]})
    messages = [HumanMessage("my card is [REDACTED]", id="p1"), *state["messages"][1:], HumanMessage("hi", id="p2")]
    agent.invoke({"messages": messages})
    assert [m.content for m in model.seen[-1]] == ["my card is [REDACTED]", "noted", "hi"]
    assert history.messages[0] == HumanMessage("my card is [REDACTED]", id="p1")
    stored = history.manager.get_message("p1")
    assert stored.sequence > stored.created_sequence  # a new version of the same message


def test_middleware_replacement_reaches_no_summary_with_a_summarising_strategy() -> None:
    """A review found: a summary written before the app replaced a message still carried the card number to
    the model. The edit retires the summaries that read it; the chunk is shown as it is now, then summarised
    again."""
    from context_journal.strategies import AutobiographicalStrategy

    small: dict[str, Any] = {"head_window_tokens": 60, "recent_window_tokens": 120, "target_chunk_tokens": 100}
    history = JournalChatMessageHistory("card-summarised", strategy=AutobiographicalStrategy(**small))
    talk = [
        (HumanMessage if k % 2 == 0 else AIMessage)(
            f"turn {k}: the garden, the river walk and the tomatoes.", id=f"t{k}"
        )
        for k in range(30)
    ]
    talk[9] = HumanMessage("my card is 4111 1111 1111 1111, card card card", id="t9")
    history.add_messages(talk)
    cm = history.manager
    cm.drain()
    assert any("4111" in s.text for s in cm.get_summaries_in_range("t9", "t9"))  # a summary holds it
    model = ScriptedToolModel(messages=iter([AIMessage("noted", id="r1")]))
    agent = create_agent(model, tools=[], middleware=[JournalMiddleware(history, max_tokens=500)])
    agent.invoke(
        {
            "messages": [
                *talk[:9],
                HumanMessage("my card is [REDACTED]", id="t9"),
                *talk[10:],
                HumanMessage("hi", id="q"),
            ]
        }
    )
    sent = " ".join(str(m.content) for m in model.seen[-1])
    assert "4111" not in sent
    assert not any("4111" in s.text for s in cm.get_summaries_in_range("t0", "q"))
    cm.drain()
    assert not any("4111" in s.text for s in cm.get_summaries_in_range("t0", "q"))
    assert "4111" not in str(cm.compile(500).to_dict())


class RemoveFirst(AgentMiddleware):
    """Removes the oldest message with ``RemoveMessage`` once the state holds more than four."""

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        messages = state["messages"]
        return {"messages": [RemoveMessage(id=messages[0].id)]} if len(messages) > 4 else None


def test_middleware_follows_remove_message() -> None:
    model = ScriptedToolModel(messages=iter([AIMessage(f"reply {i}", id=f"r{i}") for i in range(3)]))
    history = JournalChatMessageHistory("remove")
    agent = create_agent(model, tools=[], middleware=[RemoveFirst(), JournalMiddleware(history, max_tokens=1000)])
    state: dict[str, Any] = {"messages": []}
    for i in range(3):
        state = agent.invoke({"messages": [*state["messages"], HumanMessage(f"question {i}", id=f"q{i}")]})
    # q0 removed: the model sees the rest (the compile opens with a user turn, as providers want)
    sent = [m.content for m in model.seen[-1]]
    assert sent == ["[start of the conversation]", "reply 0", "question 1", "reply 1", "question 2"]
    assert [m.id for m in history.messages] == [m.id for m in state["messages"]] == ["r0", "q1", "r1", "q2", "r2"]


class Summarize(AgentMiddleware):
    """What LangChain's summarization middleware returns: remove all, a summary, the messages kept."""

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        messages = state["messages"]
        if len(messages) < 5:
            return None
        summary = HumanMessage("Here is a summary of the conversation to date: greetings.", id=f"sum{len(messages)}")
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), summary, *messages[-2:]]}


def test_middleware_follows_a_summarization_style_replacement() -> None:
    model = ScriptedToolModel(messages=iter([AIMessage(f"reply {i}", id=f"r{i}") for i in range(3)]))
    history = JournalChatMessageHistory("summarized")
    agent = create_agent(model, tools=[], middleware=[Summarize(), JournalMiddleware(history, max_tokens=1000)])
    state: dict[str, Any] = {"messages": []}
    for i in range(3):
        state = agent.invoke({"messages": [*state["messages"], HumanMessage(f"question {i}", id=f"q{i}")]})
    summary = "Here is a summary of the conversation to date: greetings."
    assert [m.content for m in model.seen[-1]] == [summary, "reply 1", "question 2"]
    assert [m.id for m in history.messages] == [m.id for m in state["messages"]] == ["sum5", "r1", "q2", "r2"]


# ---- 3. the Agents SDK session works on the store's thread ---------------------------------------------


def test_many_sessions_on_one_store_keep_order_and_no_store_work_on_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20 sessions x 40 add_items (and get_items every fifth) on one SQLite store: every item kept, in order,
    and no store method runs on the caller's loop thread (how late the loop wakes meanwhile depends on the
    machine: ``benchmarks/bench_loop_lag.py`` measures it)."""
    probe = ThreadProbe(monkeypatch).watch(SQLiteStore)
    store = open_store(str(tmp_path / "s.db"))  # opened and closed by the test on its thread, off the loop

    async def main() -> tuple[list[bool], dict[str, int]]:
        sessions = [JournalSession(f"s{k}", store) for k in range(20)]
        results = await session_items(sessions, 40)
        for session in sessions:
            await session.aclose()
        return results, probe.on(loop_thread)

    probe.reset()
    loop_thread = threading.get_ident()  # asyncio.run runs the loop on this thread
    try:
        results, on_loop = asyncio.run(main())
    finally:
        store.close()
    assert results == [True] * 20
    assert on_loop == {}
    assert probe.elsewhere(loop_thread) >= 20 * 40


def test_session_work_runs_on_the_store_thread_and_close_releases_it(tmp_path: Path) -> None:
    async def main() -> None:
        store = open_store(str(tmp_path / "t.db"))
        a, b = JournalSession("a", store), JournalSession("b", store)
        await asyncio.gather(a.add_items([{"role": "user", "content": "x"}]), b.get_items())
        thread = _store_thread._threads[id(store)][1]
        assert thread.users == 2 and thread.running
        assert await a.get_items() == [{"role": "user", "content": "x"}]
        await a.aclose()
        assert thread.users == 1
        with pytest.raises(StoreClosedError):
            await a.get_items()
        b.close()  # the synchronous form, from inside a running loop
        assert not thread.running and id(store) not in _store_thread._threads
        store.close()

    asyncio.run(main())


def test_a_session_opens_nothing_until_its_first_call_and_fails_there_cleanly(tmp_path: Path) -> None:
    """Making a session does no I/O (its first async call opens the store on the store's thread), so a bad
    location fails at that call with the store's own error, and the session can still be closed; a bad
    session id fails at once."""
    with pytest.raises(ValueError, match="non-empty"):
        JournalSession("", str(tmp_path / "never.db"))
    for bad in (" ", "\u200b", "a\x00b", "x" * 5000):  # a review found these failed only at the first await
        with pytest.raises(ValueError, match="session id"):
            JournalSession(bad, str(tmp_path / "never.db"))
    with pytest.raises(TypeError, match="store"):
        JournalSession("s", 42)  # type: ignore[arg-type]
    target = tmp_path / "a-directory"
    target.mkdir()
    session = JournalSession("s", str(target))  # a directory is no SQLite file: nothing opened yet

    async def main() -> None:
        with pytest.raises(StoreError):
            await session.get_items()
        await session.aclose()
        with pytest.raises(StoreClosedError):
            await session.get_items()

    asyncio.run(main())
    assert not (tmp_path / "never.db").exists()
    fresh = tmp_path / "fresh.db"
    lazy = JournalSession("s", str(fresh))
    assert not fresh.exists()
    asyncio.run(lazy.add_items([{"role": "user", "content": "hi"}]))
    assert fresh.exists() and asyncio.run(lazy.get_items()) == [{"role": "user", "content": "hi"}]
    lazy.close()


def test_a_mistyped_location_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    """A review found ``JournalSession("s", "/missing/dir/x.db")`` made the directory and an empty store:
    the location is checked as ``ContextManager.open`` checks it."""
    missing = tmp_path / "missing" / "dir" / "x.db"
    session = JournalSession("s", str(missing))

    async def main() -> None:
        with pytest.raises(StoreError, match="does not exist"):
            await session.add_items([{"role": "user", "content": "hi"}])
        await session.aclose()

    asyncio.run(main())
    assert not (tmp_path / "missing").exists()
    closed = JournalSession("t", str(tmp_path / "t.db"))
    closed.close()
    with pytest.raises(StoreClosedError):
        closed.manager  # noqa: B018 (a closed, never-used session opens nothing again)
    assert not (tmp_path / "t.db").exists()


def test_a_fresh_session_used_from_two_event_loops_at_once(tmp_path: Path) -> None:
    """A review found the first calls of a never-used session from two loops at once lost one loop's 50
    writes (an asyncio lock bound to the other loop): the binding is made once, whichever loop asks."""
    session = JournalSession("s", str(tmp_path / "two.db"))

    async def writes(k: int) -> None:
        await asyncio.gather(*(session.add_items([{"role": "user", "content": f"{k}-{i}"}]) for i in range(50)))

    assert run_threads(lambda k: asyncio.run(writes(k)), [(0,), (1,)]) == []
    items = asyncio.run(session.get_items())
    assert sorted(i["content"] for i in items) == sorted(f"{k}-{i}" for k in range(2) for i in range(50))
    session.close()
