"""Second review of the Responses export of provider blocks:

1. reasoning the compile leaves out takes the item ids after it along (else 400 "Item 'fc_...' of type
   'function_call' was provided without its required 'reasoning' item"), the repair names it, and the
   validator checks the rule against the stored messages;
2. a ``custom_tool_call`` and what follows it in the same turn are one model turn;
3. an ``openai_item`` of a type with blocks of its own is refused at the write;
4. mid-conversation ``developer`` / ``system`` messages go back as such (round trip);
5. ``function_call.arguments`` go back byte for byte, with ``status``;
6. ``to_anthropic()`` adds cache markers by default, as documented.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.compile import EmptyContextError, OverBudgetError
from context_journal.errors import MalformedContentError
from context_journal.formats import import_into, read_openai_responses, read_transcript, validate_responses_items
from context_journal.manager import ContextManager
from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy
from tests.hypothesis_budget import examples
from tests.imported import content_of
from tests.provider_shapes import require_openai_responses

openai = require_openai_responses()
pydantic = pytest.importorskip("pydantic")
try:
    from openai.types.responses import ResponseInputItemParam
except ImportError as exc:  # pragma: no cover - an openai without the Responses API types
    pytest.skip(f"this openai lacks the Responses API types: {exc}", allow_module_level=True)

ADAPTER = pydantic.TypeAdapter(ResponseInputItemParam)


def _sdk(items: list[dict[str, Any]]) -> None:
    for item in items:
        ADAPTER.validate_python(item)


def _write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _export(path: Path, budget: int = 100_000) -> list[dict[str, Any]]:
    with ContextManager.open("memory:") as cm:
        import_into(cm.store, read_transcript(path))
        return cm.compile(max_tokens=budget).to_openai_responses()


# --- 1. reasoning left out: the items after it lose their id ---------------------------------------


def _big_reasoning_run(cm: ContextManager) -> list[list[dict[str, Any]]]:
    stored: list[list[dict[str, Any]]] = []
    cm.add_message("user", "look things up")
    for i in range(6):
        blocks: list[dict[str, Any]] = [
            {"type": "reasoning", "id": f"rs_{i}", "summary": [], "encrypted_content": "gAAAA" + "Q" * 4000},
            {"type": "tool_use", "id": f"call_{i}", "name": "lookup", "input": {"i": i}, "item_id": f"fc_{i}"},
        ]
        cm.add_message("assistant", blocks)
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"call_{i}", "content": "ok"}])
        stored.append(blocks)
    return stored


def test_reasoning_left_out_for_the_budget_takes_the_call_ids_along() -> None:
    with ContextManager.open("memory:") as cm:
        stored = _big_reasoning_run(cm)
        result = cm.compile(max_tokens=1500)
        items = result.to_openai_responses()
    calls = [i for i in items if i["type"] in ("reasoning", "function_call")]
    assert calls == [
        {"type": "function_call", "call_id": f"call_{i}", "name": "lookup", "arguments": json.dumps({"i": i})}
        for i in range(6)
    ]
    details = [r.detail for r in result.repairs if r.kind == "excerpted"]
    assert len(details) == 6
    assert details[0] == (
        "an OpenAI reasoning item too large for the budget left out (the items after it sent without their "
        "item id; a built-in tool call whose id is required, as a line of text), the message from about 1027 "
        "to 21 tokens"
    )
    assert validate_responses_items(items, stored=stored) == []
    _sdk(items)
    # what the export sent before the fix: the ids without their reasoning
    with_ids = [{**i, "id": f"fc_{i['call_id'][5:]}"} if i["type"] == "function_call" else i for i in items]
    issues = validate_responses_items(with_ids, stored=stored)
    assert [(i.code, i.index) for i in issues] == [
        ("missing_reasoning_item", k) for k, i in enumerate(items) if i["type"] == "function_call"
    ]
    assert validate_responses_items(with_ids) == []  # without the stored messages the rule cannot be judged


def test_reasoning_kept_keeps_the_ids_and_satisfies_the_rule() -> None:
    with ContextManager.open("memory:") as cm:
        stored = _big_reasoning_run(cm)
        items = cm.compile(max_tokens=100_000).to_openai_responses()
    sent = [(i["type"], i.get("id")) for i in items if i["type"] in ("reasoning", "function_call")]
    assert sent == [x for i in range(6) for x in (("reasoning", f"rs_{i}"), ("function_call", f"fc_{i}"))]
    assert validate_responses_items(items, stored=stored) == []
    _sdk(items)


def test_an_excerpt_that_leaves_reasoning_out_drops_the_ids_after_it() -> None:
    from context_journal._provider_render import excerpt_provider, without_reasoning

    blocks: list[dict[str, Any]] = [
        {"type": "text", "text": "before", "item_id": "msg_0"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "tool_use", "id": "c1", "name": "f", "input": {}, "item_id": "fc_1"},
        {"type": "text", "text": "after", "item_id": "msg_1"},
    ]
    expected = [
        {"type": "text", "text": "before", "item_id": "msg_0"},
        {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
        {"type": "text", "text": "after"},
    ]
    assert without_reasoning(blocks) == expected
    assert excerpt_provider(blocks, lambda t: t) == expected


@st.composite
def _runs(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Responses items with item ids: model turns of reasoning (small or large) then calls and messages."""
    items: list[dict[str, Any]] = [{"role": "user", "content": "start"}]
    n = 0
    for _ in range(draw(st.integers(1, 5))):
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            n += 1
            size = draw(st.sampled_from([10, 3000]))
            items.append(
                {"type": "reasoning", "id": f"rs_{n}", "summary": [], "encrypted_content": "gAAA" + "x" * size}
            )
        for _ in range(draw(st.integers(1, 3))):
            n += 1
            if draw(st.booleans()):
                args = json.dumps({"n": n}, separators=(",", ":"))
                call = {"type": "function_call", "id": f"fc_{n}", "call_id": f"c{n}", "name": "f", "arguments": args}
                items.append({**call, "status": "completed"})
                calls.append(f"c{n}")
            else:
                part = {"type": "output_text", "text": f"said {n}", "annotations": []}
                items.append({"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                              "content": [part]})  # fmt: skip
        items.extend({"type": "function_call_output", "call_id": c, "output": "ok"} for c in calls)
        items.append({"role": "user", "content": f"next {n}"})
    return items


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=_runs(), budget=st.integers(200, 6000), windowed=st.booleans())
def test_every_item_sent_with_its_id_has_its_reasoning(
    tmp_path: Path, items: list[dict[str, Any]], budget: int, windowed: bool
) -> None:
    result = read_openai_responses(_write(tmp_path, "run.json", items))
    stored = [content_of(m) for m in result.conversations[0].messages]
    strategy = WindowedPassthroughStrategy(0.5) if windowed else PassthroughStrategy()
    with ContextManager.open("memory:", strategy=strategy) as cm:
        import_into(cm.store, result)
        cm.messages.refresh()
        try:
            exported = cm.compile(budget).to_openai_responses()
        except (OverBudgetError, EmptyContextError):
            return
    assert validate_responses_items(exported, stored=stored) == []
    _sdk(exported)


# --- 2. a custom tool call and the items after it are one turn --------------------------------------


@pytest.mark.parametrize(
    "after",
    [
        {"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}"},
        {"type": "message", "role": "assistant", "content": "working on it"},
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "q"}},
    ],
)
def test_a_custom_tool_call_followed_by_another_item_exports(tmp_path: Path, after: dict[str, Any]) -> None:
    items = [
        {"role": "user", "content": "go"},
        {"type": "custom_tool_call", "call_id": "c1", "name": "patch", "input": "*** raw ***"},
        after,
        {"type": "custom_tool_call_output", "call_id": "c1", "output": "applied"},
    ]
    if after["type"] == "function_call":
        items.append({"type": "function_call_output", "call_id": "c2", "output": "ok"})
    exported = _export(_write(tmp_path, "custom.json", items))
    assert [i["type"] for i in exported] == [i.get("type", "message") for i in items]
    assert exported[1] == {"type": "custom_tool_call", "call_id": "c1", "name": "patch", "input": "*** raw ***"}
    assert exported[3] == {"type": "custom_tool_call_output", "call_id": "c1", "output": "applied"}
    assert validate_responses_items(exported) == []
    _sdk(exported)


def test_reasoning_before_a_custom_tool_call_is_sent_with_it(tmp_path: Path) -> None:
    items = [
        {"role": "user", "content": "go"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAenc"},
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "c1", "name": "patch", "input": "x"},
        {"type": "custom_tool_call_output", "call_id": "c1", "output": "done"},
    ]
    exported = _export(_write(tmp_path, "r.json", items))
    assert [(i["type"], i.get("id")) for i in exported] == [
        ("message", None),
        ("reasoning", "rs_1"),
        ("custom_tool_call", "ctc_1"),
        ("custom_tool_call_output", None),
    ]
    _sdk(exported)


def test_the_validator_pairs_custom_calls_across_a_turn() -> None:
    call = {"type": "custom_tool_call", "call_id": "c1", "name": "g", "input": "x"}
    fcall = {"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}"}
    outs = [
        {"type": "custom_tool_call_output", "call_id": "c1", "output": "a"},
        {"type": "function_call_output", "call_id": "c2", "output": "b"},
    ]
    assert validate_responses_items([call, fcall, *outs]) == []
    late = validate_responses_items([call, outs[0], {"role": "user", "content": "?"}, call | {"call_id": "c3"}])
    assert [i.code for i in late] == ["missing_function_call_output"]


# --- 3. openai_item of a natively modelled type ------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "use"),
    [
        ({"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}, "'tool_use' block"),
        ({"type": "function_call_output", "call_id": "c", "output": "x"}, "'tool_result' block"),
        ({"type": "message", "role": "assistant", "content": "hi"}, "'text' blocks"),
        ({"type": "reasoning", "id": "rs_1", "summary": []}, "'reasoning' block"),
        ({"type": "custom_tool_call", "call_id": "c", "name": "g", "input": "x"}, "item_type 'custom_tool_call'"),
    ],
)
def test_an_openai_item_of_a_native_type_is_refused(item: dict[str, Any], use: str) -> None:
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "x")
        role = "user" if item["type"].endswith("_output") else "assistant"
        with pytest.raises(MalformedContentError) as err:
            cm.add_message(role, [{"type": "openai_item", "item_type": item["type"], "item": item}])
        assert use in str(err.value) and err.value.path == "item_type"
        assert len(cm.compile(max_tokens=10_000).messages) == 1  # nothing written
        ws = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
        cm.add_message("assistant", [{"type": "openai_item", "item_type": "web_search_call", "item": ws}])
        assert cm.compile(max_tokens=10_000).to_openai_responses()[-1] == ws


# --- 4. instructions in mid-conversation -----------------------------------------------------------


def test_developer_and_system_messages_go_back_as_such(tmp_path: Path) -> None:
    items = [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"type": "message", "role": "assistant", "content": "hello"},
        {"role": "developer", "content": "dev note"},
        {"role": "system", "content": "sys note"},
        {"role": "user", "content": "again"},
    ]
    path = _write(tmp_path, "dev.json", items)
    exported = _export(path)
    assert exported == [
        {"type": "message", "role": "developer", "content": "Be brief."},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "message", "role": "assistant", "content": "hello"},
        {"type": "message", "role": "developer", "content": "dev note"},
        {"type": "message", "role": "system", "content": "sys note"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "again"}]},
    ]
    _sdk(exported)

    def shape(p: Path) -> list[tuple[str, Any, Any]]:
        msgs = read_openai_responses(p).conversations[0].messages
        return [(m.participant, (m.metadata or {}).get("role"), m.content) for m in msgs]

    assert shape(_write(tmp_path, "again.json", exported)) == shape(path)
    with ContextManager.open("memory:") as cm:  # the other exports still name it in a user turn
        import_into(cm.store, read_transcript(path))
        chat = cm.compile(max_tokens=100_000).to_openai()
    assert chat[3] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "system: dev note"},
            {"type": "text", "text": "system: sys note"},
            {"type": "text", "text": "again"},
        ],
    }


# --- 5. arguments byte for byte, status kept ---------------------------------------------------------


def test_function_call_arguments_and_status_go_back_as_received(tmp_path: Path) -> None:
    call = {
        "type": "function_call", "id": "fc_1", "call_id": "c1", "name": "weather",
        "arguments": '{"city":"Paris"}', "status": "completed",
    }  # fmt: skip
    items = [
        {"role": "user", "content": "weather?"},
        call,
        {"type": "function_call_output", "call_id": "c1", "output": "18C"},
    ]
    exported = _export(_write(tmp_path, "args.json", items))
    assert exported[1] == call
    _sdk(exported)
    spaced = {**call, "arguments": '{"city": "Paris"}'}  # what the export writes itself: nothing extra stored
    result = read_openai_responses(_write(tmp_path, "spaced.json", [items[0], spaced, items[2]]))
    block = content_of(result.conversations[0].messages[1])[0]
    assert block["item_extra"] == {"status": "completed"}


def test_arguments_that_no_longer_say_the_input_are_written_afresh() -> None:
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "weather?")
        use = {"type": "tool_use", "id": "c1", "name": "weather", "input": {"city": "Rome"}}
        use["item_extra"] = {"arguments": '{"city":"Paris"}', "status": "completed"}  # edited input
        cm.add_message("assistant", [use])
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": "c1", "content": "22C"}])
        sent = cm.compile(max_tokens=10_000).to_openai_responses()[1]
    assert sent == {
        "type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city": "Rome"}',
        "status": "completed",
    }  # fmt: skip


# --- 6. cache markers by default ---------------------------------------------------------------------


def test_to_anthropic_adds_cache_markers_by_default_and_not_with_cache_false() -> None:
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "hello")
        result = cm.compile(max_tokens=10_000, system="Be brief.")
        assert "cache_control" in json.dumps(result.to_anthropic())
        assert "cache_control" not in json.dumps(result.to_anthropic(cache=False))
