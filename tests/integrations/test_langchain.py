"""The LangChain chat history and agent middleware over a journal, with LangChain's fake chat models (offline)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
)
from langchain_core.tools import tool
from pydantic import Field

from context_journal import ContextManager
from context_journal.integrations.langchain import (
    MESSAGE_KEY,
    JournalChatMessageHistory,
    JournalMiddleware,
)
from context_journal.stores import Store


def pairing_errors(messages: list[BaseMessage]) -> list[str]:
    """Tool calls not answered before the next AI turn, and ToolMessages that answer no open call."""
    errors: list[str] = []
    open_calls: set[str] = set()
    for m in messages:
        if isinstance(m, AIMessage):
            errors += [f"unanswered {c}" for c in sorted(open_calls)]
            open_calls = {str(c["id"]) for c in m.tool_calls}
        elif isinstance(m, ToolMessage):
            if m.tool_call_id not in open_calls:
                errors.append(f"orphan result {m.tool_call_id}")
            open_calls.discard(m.tool_call_id)
        elif open_calls:
            errors += [f"unanswered {c}" for c in sorted(open_calls)]
            open_calls = set()
    return errors + [f"unanswered {c}" for c in sorted(open_calls)]


def tau_messages(data_dir: Path, at_least: int) -> list[BaseMessage]:
    """Real tau-bench airline trajectories (OpenAI tool calls) as LangChain messages with ids, one policy
    system prompt first, concatenated until there are ``at_least`` messages."""
    runs = json.loads((data_dir / "tau-bench-airline" / "gpt-4o-airline-dev150.json").read_text())
    out: list[BaseMessage] = []
    for run in runs:
        traj = run["traj"] if not out else [m for m in run["traj"] if m["role"] != "system"]
        for i, m in enumerate(convert_to_messages(traj)):
            m.id = f"tau-{run['task_id']}-{run['trial']}-{i}"
            out.append(m)
        if len(out) >= at_least:
            return out
    raise AssertionError("not enough trajectories")


def test_history_round_trip_keeps_ids_tool_calls_and_metadata(tmp_path: Path) -> None:
    path = str(tmp_path / "lc.db")
    written: list[BaseMessage] = [
        SystemMessage("You are a travel agent.", id="s1"),
        HumanMessage("Book me to Lima.", id="h1", additional_kwargs={"channel": "web"}),
        AIMessage(
            "Searching.",
            id="a1",
            tool_calls=[
                {"id": "call_1", "name": "search", "args": {"to": "LIM", "pax": 2}, "type": "tool_call"},
                {"id": "call_2", "name": "weather", "args": {"city": "Lima"}, "type": "tool_call"},
            ],
            response_metadata={"model_name": "fake", "finish_reason": "tool_calls"},
        ),
        ToolMessage('{"flights": ["LA2471"]}', tool_call_id="call_1", id="t1", name="search"),
        ToolMessage("sunny, 19 °C", tool_call_id="call_2", id="t2", name="weather"),
        AIMessage([{"type": "text", "text": "Flight LA2471 it is."}], id="a2"),
    ]
    history = JournalChatMessageHistory("trip", path)
    history.add_messages(written[:3])
    history.add_message(written[3])
    history.add_messages(written[4:])
    assert history.messages == written
    history.close()

    again = JournalChatMessageHistory("trip", path)
    read = again.messages
    assert read == written and [m.id for m in read] == ["s1", "h1", "a1", "t1", "t2", "a2"]
    assert isinstance(read[2], AIMessage)
    assert read[2].tool_calls[1] == {"id": "call_2", "name": "weather", "args": {"city": "Lima"}, "type": "tool_call"}
    # the journal holds blocks the compiler pairs: one tool_use per call, one tool_result per ToolMessage
    stored = again.manager.get_all_messages()
    assert [m.id for m in stored] == ["s1", "h1", "a1", "t1", "t2", "a2"]
    assert [b["type"] for b in stored[2].content_dicts()] == ["text", "tool_use", "tool_use"]
    assert stored[4].content_dicts() == [{"type": "tool_result", "tool_use_id": "call_2", "content": "sunny, 19 °C"}]
    assert stored[3].metadata[MESSAGE_KEY]["data"]["id"] == "t1"
    # compiled with room for everything: the same messages back, in order
    assert again.compiled_messages(4000) == written
    again.close()


def test_clear_starts_a_new_branch_and_keeps_the_old_one(tmp_path: Path) -> None:
    path = str(tmp_path / "lc.db")
    history = JournalChatMessageHistory("c", path)
    history.add_messages([HumanMessage("one", id="m1"), AIMessage("two", id="m2")])
    history.clear()
    assert history.messages == []
    history.add_messages([HumanMessage("one", id="m1")])  # the same id again: a new branch, no clash
    assert [m.content for m in history.messages] == ["one"]
    history.close()
    with ContextManager.open(path, namespace="langchain:c", branch="langchain:c") as cm:
        assert [m.id for m in cm.get_all_messages()] == ["m1", "m2"]


def test_histories_in_one_store_are_separate(store: Store) -> None:
    a = JournalChatMessageHistory("a", store)
    b = JournalChatMessageHistory("b", store)
    a.add_messages([HumanMessage("for a", id="x")])
    b.add_messages([HumanMessage("for b", id="x"), AIMessage("b again", id="y")])
    assert [m.content for m in a.messages] == ["for a"]
    assert [m.content for m in b.messages] == ["for b", "b again"]
    twin = JournalChatMessageHistory("b", store)
    assert twin.messages == b.messages


def test_tau_bench_replay_round_trips_and_compiles_paired(data_dir: Path) -> None:
    messages = tau_messages(data_dir, 240)
    assert len(messages) >= 240
    calls = sum(len(m.tool_calls) for m in messages if isinstance(m, AIMessage))
    results = sum(isinstance(m, ToolMessage) for m in messages)
    assert calls == results > 40
    history = JournalChatMessageHistory("tau")
    for start in range(0, len(messages), 7):  # written as an agent would: a few at a time
        history.add_messages(messages[start : start + 7])
    assert history.messages == messages
    assert pairing_errors(messages) == []

    for budget in (3000, 4000, 8000):
        compiled = history.compiled_messages(budget)
        assert pairing_errors(compiled) == []
        assert isinstance(compiled[0], SystemMessage) and compiled[0] == messages[0]  # the policy stays
        assert len(compiled) < len(messages) / 2
        assert compiled[-1] == messages[-1]  # the newest message raw
        raw = [m for m in compiled if m.id]
        assert all(m == next(x for x in messages if x.id == m.id) for m in raw)  # raw ones exactly as written
        assert history.manager.compile(budget).tokens <= budget


class ScriptedToolModel(GenericFakeChatModel):
    """LangChain's generic fake chat model, with tools bound (ignored) and every input recorded."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


@tool
def lookup(code: str) -> str:
    """Look up a booking code."""
    return f"Booking {code}: 2 passengers, LIM to CUZ on 12 May, seats 14A and 14B, fare class Q, refundable."


def scripted_replies(turns: int) -> list[AIMessage]:
    replies: list[AIMessage] = []
    for t in range(turns):
        replies.append(AIMessage("", tool_calls=[{"id": f"t{t}a", "name": "lookup", "args": {"code": f"A{t}"}}]))
        replies.append(AIMessage("", tool_calls=[{"id": f"t{t}b", "name": "lookup", "args": {"code": f"B{t}"}}]))
        replies.append(AIMessage(f"Both bookings {t} are fine."))
    return replies


def test_middleware_journals_240_messages_and_sends_a_paired_compiled_context() -> None:
    turns = 40  # 40 x (human, call, result, call, result, answer) = 240 messages
    model = ScriptedToolModel(messages=iter(scripted_replies(turns)))
    history = JournalChatMessageHistory("agent-run")
    middleware = JournalMiddleware(history, max_tokens=600)
    agent = create_agent(model, tools=[lookup], system_prompt="You check bookings.", middleware=[middleware])
    state: dict[str, Any] = {"messages": []}
    for t in range(turns):
        state = agent.invoke({"messages": [*state["messages"], HumanMessage(f"Check bookings A{t} and B{t}.")]})
    assert len(state["messages"]) == 240
    assert history.messages == state["messages"]  # every message journaled, ids and all
    assert len(model.seen) == 120
    counter = history.manager.token_counter
    from context_journal.integrations.langchain import blocks_of_message

    for sent in model.seen:
        assert isinstance(sent[0], SystemMessage) and sent[0].content == "You check bookings."
        assert pairing_errors(sent[1:]) == []
        assert sum(counter.count_message(*blocks_of_message(m)) for m in sent) <= 600 + 20
    assert max(len(s) for s in model.seen) < 30  # instead of up to 240
    # the newest call sees this turn whole
    assert [type(m).__name__ for m in model.seen[-1][-5:]] == [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
        "ToolMessage",
    ]
    assert model.seen[-1][-5:] == state["messages"][-6:-1]


def test_middleware_async_agent_run() -> None:
    model = ScriptedToolModel(messages=iter(scripted_replies(3)))
    history = JournalChatMessageHistory("async-run")
    agent = create_agent(model, tools=[lookup], middleware=[JournalMiddleware(history, max_tokens=400)])

    async def main() -> list[BaseMessage]:
        state: dict[str, Any] = {"messages": []}
        for t in range(3):
            state = await agent.ainvoke({"messages": [*state["messages"], HumanMessage(f"Check {t}.")]})
        return list(state["messages"])

    final = asyncio.run(main())
    assert len(final) == 18 and history.messages == final
    assert all(pairing_errors(s) == [] for s in model.seen)


def test_add_new_skips_what_another_handle_already_journaled(store: Store) -> None:
    mine = JournalChatMessageHistory("shared", store)
    other = JournalChatMessageHistory("shared", store)
    assert mine.add_new([HumanMessage("hi", id="m1")]) == 1
    other.add_messages([AIMessage("hello", id="m2")])  # written behind mine's back
    assert mine.add_new([HumanMessage("hi", id="m1"), AIMessage("hello", id="m2"), HumanMessage("bye", id="m3")]) == 1
    assert [m.id for m in other.messages] == ["m1", "m2", "m3"]


def test_async_history_methods(tmp_path: Path) -> None:
    history = JournalChatMessageHistory("async", str(tmp_path / "lc.db"))

    async def main() -> None:
        await history.aadd_messages([HumanMessage("one", id="m1"), AIMessage("two", id="m2")])
        assert [m.id for m in await history.aget_messages()] == ["m1", "m2"]
        await history.aclear()
        assert await history.aget_messages() == []

    asyncio.run(main())
    history.close()
