"""The Agents SDK session over a journal, driven by the real ``agents.Runner`` and a scripted model (offline)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

agents = pytest.importorskip("agents", reason="the openai-agents extra is not installed")

from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool  # noqa: E402
from agents.items import ModelResponse  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.usage import Usage  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from context_journal import ContextManager  # noqa: E402
from context_journal.integrations.openai_agents import ITEM_KEY, JournalSession  # noqa: E402
from context_journal.stores import Store, open_store  # noqa: E402


class ScriptedModel(Model):
    """A model that answers each call with the next canned output and records the input it was given."""

    def __init__(self, script: list[list[Any]]) -> None:
        self.script = list(script)
        self.inputs: list[list[dict[str, Any]]] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.inputs.append(json.loads(json.dumps(input)) if isinstance(input, list) else [input])
        return ModelResponse(output=self.script.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def say(text: str, n: int) -> ResponseOutputMessage:
    part = ResponseOutputText(type="output_text", text=text, annotations=[])
    return ResponseOutputMessage(id=f"msg_{n}", type="message", role="assistant", status="completed", content=[part])


def call(city: str, call_id: str) -> ResponseFunctionToolCall:
    args = json.dumps({"city": city})
    return ResponseFunctionToolCall(
        id=f"fc_{call_id}", type="function_call", call_id=call_id, name="weather", arguments=args
    )


@function_tool
def weather(city: str) -> str:
    """The weather in a city."""
    return f"It is 21 °C and sunny in {city}; wind 3 m/s from the north-west, humidity 40%."


CITIES = ["Oslo", "Lima", "Pune", "Kyiv", "Baku", "Doha", "Riga", "Quito", "Accra", "Hanoi"]


def script_for(turns: int, tag: str = "") -> list[list[Any]]:
    """Per turn: two parallel weather calls, then a one-call follow-up, then the answer (4 model calls)."""
    out: list[list[Any]] = []
    for t in range(turns):
        a, b = CITIES[t % 10], CITIES[(t + 3) % 10]
        out.append([call(a, f"{tag}c{t}a"), call(b, f"{tag}c{t}b")])
        out.append([call(a, f"{tag}c{t}c")])
        out.append([say(f"{tag}Turn {t}: {a} and {b} are sunny.", t)])
    return out


async def run_turns(session: Any, turns: int, config: RunConfig | None = None, tag: str = "") -> ScriptedModel:
    model = ScriptedModel(script_for(turns, tag))
    agent = Agent(name="forecaster", instructions="Answer briefly.", model=model, tools=[weather])
    for t in range(turns):
        result = await Runner.run(
            agent,
            f"{tag}What is the weather for turn {t}?",
            session=session,
            run_config=config or RunConfig(tracing_disabled=True),
        )
        assert result.final_output == f"{tag}Turn {t}: {CITIES[t % 10]} and {CITIES[(t + 3) % 10]} are sunny."
    return model


def pairing_errors(items: list[dict[str, Any]]) -> list[str]:
    """Calls without their output after them, and outputs without their call before them."""
    errors: list[str] = []
    open_calls: set[str] = set()
    for item in items:
        if item.get("type") == "function_call":
            open_calls.add(item["call_id"])
        elif item.get("type") == "function_call_output":
            if item["call_id"] not in open_calls:
                errors.append(f"output without call {item['call_id']}")
            open_calls.discard(item["call_id"])
    return errors + [f"call without output {c}" for c in sorted(open_calls)]


def test_round_trip_equals_sqlite_session_on_a_multi_turn_tool_run(tmp_path: Path) -> None:
    async def main() -> None:
        reference = SQLiteSession("trip", str(tmp_path / "sdk.db"))
        ours = JournalSession("trip", str(tmp_path / "journal.db"))
        assert isinstance(ours, agents.memory.Session)  # the SDK's runtime-checkable protocol
        await run_turns(reference, 10)
        await run_turns(ours, 10)
        expected = await reference.get_items()
        got = await ours.get_items()
        # 10 turns x (user, 2 calls, 2 outputs, 1 call, 1 output, answer) = 80 items
        assert len(expected) == 80
        assert got == expected
        assert await ours.get_items(limit=3) == expected[-3:] == await reference.get_items(limit=3)
        assert await ours.get_items(limit=0) == [] == await reference.get_items(limit=0)
        ours.close()
        reference.close()
        # reopened from disk: the same items, each kept verbatim beside its blocks
        again = JournalSession("trip", str(tmp_path / "journal.db"))
        assert await again.get_items() == expected
        first_call = again.manager.get_all_messages()[1]
        assert first_call.content_dicts() == [
            {"type": "tool_use", "id": "c0a", "name": "weather", "input": {"city": "Oslo"}}
        ]
        assert first_call.metadata[ITEM_KEY] == expected[1]
        again.close()

    asyncio.run(main())


def test_pop_item_rewinds_like_the_sdk_session_and_keeps_history() -> None:
    async def main() -> None:
        reference = SQLiteSession("pop")
        ours = JournalSession("pop")
        await run_turns(reference, 2)
        await run_turns(ours, 2)
        before = await ours.get_items()
        popped = []
        for _ in range(3):
            item = await ours.pop_item()
            assert item is not None
            popped.append(item)
        assert popped == [await reference.pop_item() for _ in range(3)]
        assert popped == before[-1:-4:-1]
        assert popped[0]["type"] == "message" and popped[1]["type"] == "function_call_output"
        assert await ours.get_items() == before[:-3] == await reference.get_items()
        # the journal keeps the popped items as tombstoned versions: readable as of before the pop
        cm = ours.manager
        head_before_pop = max(m.sequence for m in cm.get_all_messages(as_of=None)) + 3
        assert [m.metadata[ITEM_KEY] for m in cm.get_all_messages(as_of=head_before_pop)] == before
        # the next run continues from the rewound history
        model = ScriptedModel([[say("Rewound.", 99)]])
        agent = Agent(name="forecaster", model=model, tools=[weather])
        await Runner.run(
            agent,
            "Again?",
            session=ours,  # type: ignore[arg-type]  # items typed as dicts, not the SDK's TypedDicts
            run_config=RunConfig(tracing_disabled=True),
        )
        assert model.inputs[0] == [*before[:-3], {"content": "Again?", "role": "user"}]
        empty = JournalSession("empty")
        assert await empty.pop_item() is None

    asyncio.run(main())


def test_clear_session_moves_to_a_new_branch_and_deletes_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        path = str(tmp_path / "j.db")
        session = JournalSession("clear", path)
        await run_turns(session, 1)
        old = await session.get_items()
        await session.clear_session()
        assert await session.get_items() == []
        assert session.branch == "openai-agents:clear#1"
        await session.add_items([{"role": "user", "content": "fresh start"}])
        session.close()
        reopened = JournalSession("clear", path)  # finds the current branch
        assert await reopened.get_items() == [{"role": "user", "content": "fresh start"}]
        reopened.close()
        # the old branch still holds every item
        with ContextManager.open(path, namespace="openai-agents:clear", branch="openai-agents:clear") as cm:
            assert [m.metadata[ITEM_KEY] for m in cm.get_all_messages()] == old

    asyncio.run(main())


def test_concurrent_sessions_share_one_store(store: Store) -> None:
    async def main() -> None:
        sessions = [JournalSession(f"user-{k}", store) for k in range(4)]
        references = [SQLiteSession(f"user-{k}") for k in range(4)]
        await asyncio.gather(*(run_turns(s, 3, tag=f"u{k}-") for k, s in enumerate(sessions)))
        await asyncio.gather(*(run_turns(s, 3, tag=f"u{k}-") for k, s in enumerate(references)))
        for ours, reference in zip(sessions, references, strict=True):
            got = await ours.get_items()
            assert len(got) == 24
            assert got == await reference.get_items()
        # a second handle on the same session sees the same items; a clear there is followed here
        twin = JournalSession("user-0", store)
        assert await twin.get_items() == await sessions[0].get_items()
        await twin.clear_session()
        assert await sessions[0].get_items() == []
        assert len(await sessions[1].get_items()) == 24

    asyncio.run(main())


def test_compiled_input_callback_bounds_the_model_input_and_stores_every_item() -> None:
    async def main() -> None:
        reference = SQLiteSession("full")
        await run_turns(reference, 10)
        session = JournalSession("compiled", strategy="windowed")
        config = RunConfig(tracing_disabled=True, session_input_callback=session.input_callback(700))
        model = await run_turns(session, 10, config)
        # every item is stored, none of the compiled ones (the omission marker) twice
        assert await session.get_items() == await reference.get_items()
        counter = session.manager.token_counter
        first_inputs = [model.inputs[3 * t] for t in range(10)]  # the first model call of each run
        assert len(first_inputs[-1]) < 80 / 2  # far fewer than the 73 items stored before the last run
        for items in first_inputs:
            assert pairing_errors(items) == []
            assert items[-1]["role"] == "user" and items[-1]["content"].startswith("What is the weather")
        last = first_inputs[-1]
        from context_journal.integrations.openai_agents import blocks_of_item

        assert sum(counter.count_message(*blocks_of_item(i)) for i in last) <= 700
        assert last[0] == {"role": "user", "content": last[0]["content"]}  # the compiler's note
        assert "omitted" in last[0]["content"]

    asyncio.run(main())


def test_model_input_filter_compiles_before_every_model_call() -> None:
    async def main() -> None:
        reference = SQLiteSession("full")
        await run_turns(reference, 10)
        expected = await reference.get_items()
        session = JournalSession("filtered")
        config = RunConfig(tracing_disabled=True, call_model_input_filter=session.model_input_filter(600))
        model = await run_turns(session, 10, config)
        assert await session.get_items() == expected
        sizes = [len(i) for i in model.inputs]
        assert sizes[:4] == [1, 5, 7, 9]  # everything fits at first: the whole session
        assert max(sizes) < 40 and len(model.inputs) == 30
        for items in model.inputs:
            assert pairing_errors(items) == []
        # the newest call sees the newest items raw, exactly as stored
        assert model.inputs[-1][-7:] == expected[-8:-1]  # this turn: user, 2 calls, 2 outputs, call, output

    asyncio.run(main())


def test_sessions_on_a_shared_store_do_not_see_each_other(tmp_path: Path) -> None:
    async def main() -> None:
        store = open_store(str(tmp_path / "shared.db"))
        a, b = JournalSession("a", store), JournalSession("b", store)
        await a.add_items([{"role": "user", "content": "only a"}])
        await b.add_items([{"role": "user", "content": "only b"}, {"role": "user", "content": "and b"}])
        assert await a.get_items() == [{"role": "user", "content": "only a"}]
        assert len(await b.get_items()) == 2
        a.close()
        b.close()
        assert not store.closed  # a shared store stays open
        store.close()

    asyncio.run(main())


def test_compiled_input_with_summaries_sends_them_once_and_never_stores_them() -> None:
    from context_journal import AutobiographicalConfig, AutobiographicalStrategy

    async def main() -> None:
        reference = SQLiteSession("full")
        await run_turns(reference, 30)
        strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(1200))
        session = JournalSession("summarised", strategy=strategy)
        config = RunConfig(tracing_disabled=True, session_input_callback=session.input_callback(1200))
        model = ScriptedModel(script_for(30))
        agent = Agent(name="forecaster", model=model, tools=[weather])
        for t in range(30):
            await Runner.run(
                agent,
                f"What is the weather for turn {t}?",
                session=session,  # type: ignore[arg-type]  # items typed as dicts, not the SDK's TypedDicts
                run_config=config,
            )
            session.manager.drain()  # the offline summarizer writes the summaries between runs
        assert await session.get_items() == await reference.get_items()  # 240 items, no summary among them
        last = model.inputs[-3]  # the first model call of the last run
        assert len(last) < 40 and pairing_errors(last) == []
        asked = [i for i in last if str(i.get("content", "")).startswith("Context Manager: What do you remember")]
        assert len(asked) >= 2  # summaries of several levels, each asked for and given as a turn pair
        for question in asked:
            answer = last[last.index(question) + 1]
            assert question["role"] == "user" and answer["role"] == "assistant" and "type" not in answer
            # a summary of what was said, not a stub (the shortest here is two turns of it, 90 characters)
            assert len(answer["content"]) > 60 and "said: " in answer["content"], answer["content"]
        assert last[0] == {"content": "What is the weather for turn 0?", "role": "user"}  # the head window

    asyncio.run(main())


def test_unusual_items_round_trip_and_compile_back_unchanged() -> None:
    items: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "see"},
                {"type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "auto"},
            ],
        },
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "xyz"},
        {"type": "function_call", "call_id": "call:a/1 x", "name": "f", "arguments": "not json", "id": "fc_1"},
        {"type": "function_call_output", "call_id": "call:a/1 x", "output": [{"type": "input_text", "text": "ok"}]},
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}},
        {"role": "assistant", "content": []},
        {"type": "item_reference", "id": "msg_9"},
        {"role": "user", "content": "x", "weight": 1.0},
    ]

    async def main() -> None:
        session = JournalSession("odd")
        await session.add_items(items)
        got = await session.get_items()
        assert got == items and isinstance(got[-1]["weight"], float)
        # all fit: every item raw, as written, but the blank message, sent with the journal's text
        sent = [{**i, "content": "(empty)"} if i == {"role": "assistant", "content": []} else i for i in items]
        assert session.compiled_items(2000) == sent
        blocks = [m.content_dicts() for m in session.manager.get_all_messages()]
        assert blocks[0] == [{"type": "text", "text": "see\n[input_image]"}]
        assert blocks[2] == [{"type": "tool_use", "id": "call:a/1 x", "name": "f", "input": {"arguments": "not json"}}]
        assert blocks[3] == [{"type": "tool_result", "tool_use_id": "call:a/1 x", "content": "ok"}]
        assert blocks[4][0]["text"].startswith("[web_search_call] ")  # no call left without a result
        assert blocks[5] == [{"type": "text", "text": "(empty)"}]

    asyncio.run(main())


def test_items_that_are_not_sdk_items_are_refused_and_bad_limits_named() -> None:
    """A review found: malformed items were stored and sent on; bad limits failed with internal names."""
    from context_journal.errors import MalformedContentError

    async def main() -> None:
        session = JournalSession("bad-input")
        try:
            for bad, index in (
                ([{"no": "type"}], 0),
                ([{"role": "user", "content": "ok"}, {"role": "user"}], 1),
                ([{"role": "wizard", "content": "x"}], 0),
                ([{"type": "function_call", "name": "f", "arguments": "{}"}], 0),  # no call_id
                ([{"type": "function_call_output", "output": "x"}], 0),
                ([{"role": "user", "content": "x", 1: 2}], 0),
            ):
                with pytest.raises(MalformedContentError) as exc:
                    await session.add_items(bad)
                assert exc.value.message_index == index
            with pytest.raises(TypeError, match="takes a list of items"):
                await session.add_items({"role": "user", "content": "x"})  # type: ignore[arg-type]
            for limit in (1.5, "2", True):
                with pytest.raises(TypeError, match="limit must be an integer"):
                    await session.get_items(limit)  # type: ignore[arg-type]
            assert await session.get_items() == []  # nothing was written
        finally:
            await session.aclose()

    asyncio.run(main())


def test_a_blank_message_is_stored_as_given_and_sent_with_the_journals_text() -> None:
    written = [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": []},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "what now?"},
    ]

    async def main() -> tuple[list[Any], list[Any]]:
        session = JournalSession("blank")
        try:
            await session.add_items(written)
            return await session.get_items(), await session.acompiled_items(2_000)
        finally:
            await session.aclose()

    stored, compiled = asyncio.run(main())
    assert stored == written  # lossless
    assert [i["content"] for i in compiled] == ["hi", "(empty)", "(empty)", "what now?"]
