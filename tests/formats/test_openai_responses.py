"""The OpenAI Responses API: reasoning items in the content model, ``to_openai_responses()``
against the ``openai`` SDK's own request types, the ``openai-responses`` importer (item lists and stored
response chains), round trips, and the function-call pairing of every export."""

from __future__ import annotations

import base64
import dataclasses
import json
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import typing_extensions
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from context_journal.compile import EmptyContextError, OverBudgetError
from context_journal.content import validate_content
from context_journal.errors import ImportFormatError, MalformedContentError
from context_journal.formats import (
    detect_format,
    import_into,
    read_openai_responses,
    read_transcript,
    to_openai_responses,
    validate_responses_items,
)
from context_journal.manager import ContextManager
from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy
from context_journal.tokens import EstimatingCounter
from context_journal.validate import InvalidContextError, validate_messages
from tests.hypothesis_budget import examples
from tests.imported import content_of
from tests.provider_shapes import require_openai_responses

openai = require_openai_responses()
from openai.types.responses import (  # noqa: E402
    Response,
    ResponseFunctionToolCall,
    ResponseInputItemParam,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseReasoningItem,
)
from openai.types.responses.response_reasoning_item import Summary  # noqa: E402


def sdk_http(sdk: Any) -> Any:
    """The HTTP client module ``sdk`` is built on (``httpx2`` from openai 3, ``httpx`` before), found from
    its ``DefaultHttpxClient``: a mock transport must come from the same one."""
    import importlib

    base = next(k for k in sdk.DefaultHttpxClient.__mro__ if k.__name__ == "Client" and k.__module__ != sdk.__name__)
    return importlib.import_module(base.__module__.split(".")[0])


httpx = sdk_http(openai)

PNG = bytes(range(256))
PDF = b"%PDF-1.4 test document"
ENCRYPTED = ["gAAAAABo" + "Xk9/+=" * 40 + "q1", "gAAAAABp" + "Zz0+/_-" * 33 + "==", "gAAAAABq" + "a" * 301]


def conforms(value: Any, tp: Any, path: str = "$") -> list[str]:
    """Errors of ``value`` against a typing annotation, TypedDicts strictly (no unknown key, every
    required key, each value checked; lists element by element). Pydantic's TypeAdapter is too lax for
    this: it ignores unknown keys and does not look inside ``Iterable`` fields."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is typing.Any or tp is object:
        return []
    if origin in (typing.Required, typing.NotRequired, typing.Annotated, typing_extensions.Required):
        return conforms(value, args[0], path)
    if origin in (typing.Union, types.UnionType):
        found = [conforms(value, member, path) for member in args]
        return [] if any(not f for f in found) else [f"{path}: matches no member of the union"]
    if origin is typing.Literal:
        return [] if value in args else [f"{path}: {value!r} not in {args}"]
    if tp is type(None):
        return [] if value is None else [f"{path}: expected None"]
    if typing_extensions.is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: expected an object for {tp.__name__}"]
        hints = typing.get_type_hints(tp, include_extras=True)
        errors = [f"{path}: unknown key {k!r} for {tp.__name__}" for k in value if k not in hints]
        errors += [f"{path}: missing {k!r} for {tp.__name__}" for k in tp.__required_keys__ if k not in value]
        for k, v in value.items():
            if k in hints:
                errors += conforms(v, hints[k], f"{path}.{k}")
        return errors
    if isinstance(tp, type) and issubclass(tp, (str, bool, int, float)):
        ok = isinstance(value, tp) and not (tp is int and isinstance(value, bool))
        return [] if ok or (tp is float and isinstance(value, int)) else [f"{path}: expected {tp.__name__}"]
    if origin in (list, Iterable, Sequence, typing.Iterable, typing.Sequence, typing.List):  # noqa: UP006
        if not isinstance(value, list):
            return [f"{path}: expected a list"]
        return [e for i, item in enumerate(value) for e in conforms(item, args[0], f"{path}[{i}]")]
    if origin in (dict, Mapping, typing.Dict) or tp in (dict, Mapping):  # noqa: UP006
        return [] if isinstance(value, dict) else [f"{path}: expected an object"]
    return [f"{path}: {type(value).__name__} is not a {getattr(tp, '__name__', tp)}"]


def assert_sdk_items(items: list[dict[str, Any]]) -> None:
    """Every item is one of the SDK's ``ResponseInputItemParam`` shapes, exactly."""
    for i, item in enumerate(items):
        assert conforms(item, ResponseInputItemParam, f"input[{i}]") == [], item


def pairing_oracle(items: Sequence[Mapping[str, Any]]) -> list[str]:
    """Where the call rule breaks, computed independently of the module's validator: each function_call's
    output is later in the list, before the next item the model wrote after an output or a user message."""
    problems = []
    model_kinds = {"reasoning", "function_call"}

    def by_model(x: Mapping[str, Any]) -> bool:
        return x.get("type") in model_kinds or (x.get("type") == "message" and x.get("role") == "assistant")

    calls = [i for i, x in enumerate(items) if x.get("type") == "function_call"]
    for i in calls:
        cid = items[i]["call_id"]
        k = i + 1
        while k < len(items) and by_model(items[k]):  # the rest of the call's own turn
            k += 1
        while k < len(items) and not by_model(items[k]):
            if items[k].get("type") == "function_call_output" and items[k].get("call_id") == cid:
                break
            k += 1
        else:
            problems.append(f"call {cid} at {i} has no output before the next model turn")
    outputs = [x.get("call_id") for x in items if x.get("type") == "function_call_output"]
    if len(outputs) != len(set(outputs)):
        problems.append("an output is given twice")
    call_ids = [items[i]["call_id"] for i in calls]
    problems += [f"output {c} answers no call" for c in outputs if c not in call_ids]
    return problems


# --- a run recorded with the SDK's own models -----------------------------------------------------


def _response(rid: str, created: int, output: list[Any], **extra: Any) -> Response:
    return Response(
        id=rid,
        created_at=created,
        model="gpt-5-mini",
        object="response",
        output=output,
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
        **extra,
    )


def _reasoning(n: int, summary: str) -> ResponseReasoningItem:
    return ResponseReasoningItem(
        id=f"rs_{n:04d}",
        type="reasoning",
        summary=[Summary(type="summary_text", text=summary)],
        encrypted_content=ENCRYPTED[n],
        status="completed",
    )


def _said(n: int, text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=f"msg_{n:04d}",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def _call(n: int, name: str, args: dict[str, Any]) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        id=f"fc_{n:04d}", type="function_call", call_id=f"call_{n}", name=name, arguments=json.dumps(args)
    )


def recorded_chain() -> list[dict[str, Any]]:
    """Three responses as a host records them (``response.model_dump(mode="json")`` plus the ``input``
    it sent): the second chained by ``previous_response_id``, the third a stateless replay of the
    whole history."""
    png = base64.b64encode(PNG).decode()
    first_input: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "What is the weather in Paris and in Rome? Here is a map."},
                {"type": "input_image", "image_url": f"data:image/png;base64,{png}", "detail": "low"},
            ],
        }
    ]
    r1 = _response(
        "resp_1",
        1_760_000_000,
        [
            _reasoning(0, "Two cities: call the tool twice."),
            _call(1, "get_weather", {"city": "Paris"}),
            _call(2, "get_weather", {"city": "Rome"}),
        ],
        instructions="You are a weather assistant. " * 3,
    )
    second_input: list[dict[str, Any]] = [
        {"type": "function_call_output", "call_id": "call_1", "output": "Paris: 18C, light rain. " * 8},
        {"type": "function_call_output", "call_id": "call_2", "output": "Rome: 24C, sunny. " * 8},
    ]
    r2 = _response(
        "resp_2",
        1_760_000_060,
        [_reasoning(1, "Both answered; compare."), _said(3, "Paris is 18C with rain; Rome is 24C and sunny.")],
        instructions="You are a weather assistant. " * 3,
        previous_response_id="resp_1",
    )
    history = [
        *first_input,
        *[o.model_dump(mode="json") for o in r1.output],
        *second_input,
        {"role": "assistant", "content": "Paris is 18C with rain; Rome is 24C and sunny."},  # rewritten short
    ]
    third_input = [*history, {"role": "user", "content": "And tomorrow in Rome?"}]
    r3 = _response(
        "resp_3",
        1_760_000_120,
        [_reasoning(2, "Forecast call."), _call(4, "get_forecast", {"city": "Rome", "days": 1})],
        instructions="You are a weather assistant. " * 3,
    )
    return [
        {**r1.model_dump(mode="json"), "input": first_input},
        {**r2.model_dump(mode="json"), "input": second_input},
        {**r3.model_dump(mode="json"), "input": third_input},
    ]


def _write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False))
    return path


def _manager(path: Path, strategy: Any = None) -> ContextManager:
    cm = ContextManager.open("memory:", strategy=strategy or PassthroughStrategy())
    import_into(cm.store, read_transcript(path))
    cm.messages.refresh()
    return cm


def _shape(result: Any) -> list[tuple[str, Any]]:
    return [(m.participant, m.content) for m in result.conversations[0].messages]


# --- content model --------------------------------------------------------------------------------


def test_a_reasoning_block_is_stored_as_given_and_priced_by_its_encrypted_content() -> None:
    item = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": ENCRYPTED[0], "new": {"a": [1]}}
    assert validate_content([item]) == [item]  # unknown fields kept, nothing added
    with pytest.raises(MalformedContentError) as exc:
        validate_content([{"type": "reasoning", "summary": []}])
    assert exc.value.path == "id"
    with pytest.raises(MalformedContentError) as exc:
        validate_content([{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text"}]}])
    assert exc.value.path == "summary.0.text"
    counter = EstimatingCounter()
    short = counter.count_block({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "A" * 400})
    long = counter.count_block({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "A" * 800})
    assert long - short == 100  # opaque: four characters a token
    issues = validate_messages([{"role": "user", "content": [item]}])
    assert [i.code for i in issues] == ["provider_block_not_assistant"]
    issues = validate_messages(
        [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{**item, "id": " "}, {"type": "text", "text": "ok"}]},
        ]
    )
    assert [i.code for i in issues] == ["bad_reasoning"]


def test_reasoning_goes_only_to_the_responses_export_and_never_into_another_turn(tmp_path: Path) -> None:
    reasoning = {"type": "reasoning", "id": "rs_9", "summary": [], "encrypted_content": ENCRYPTED[1]}
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "hi")
        cm.add_message("assistant", [reasoning, {"type": "text", "text": "hello"}])
        cm.add_message("user", [reasoning, {"type": "text", "text": "a pasted item"}])  # not the assistant's
        cm.add_message("assistant", [{**reasoning, "id": "rs_10"}])  # reasoning only: nothing follows it
        cm.add_message("user", "bye")
        result = cm.compile(100_000)
        assert "reasoning_dropped_outside_assistant" in {r.kind for r in result.repairs}
        assert "rs_9" not in json.dumps(result.to_anthropic()) and "rs_9" not in json.dumps(result.to_openai())
        assert [m["role"] for m in result.to_anthropic()["messages"]] == ["user", "assistant", "user", "user"]
        items = result.to_openai_responses()
    assert_sdk_items(items)
    assert [i.get("type") for i in items] == ["message", "reasoning", "message", "message", "message"]
    assert items[1] == reasoning  # rs_10, followed by nothing of its turn, is not sent
    with pytest.raises(ValueError, match="system_role"):
        to_openai_responses(result, system_role="user")
    with pytest.raises(ValueError, match="compile with assistant="):
        result.to_openai_responses(assistant="ann")


def test_an_excerpt_leaves_reasoning_out_whole_and_transcripts_omit_it() -> None:
    from context_journal._provider_render import excerpt_provider, provider_line

    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": ENCRYPTED[2]}
    text = {"type": "text", "text": "kept"}
    assert excerpt_provider([reasoning, text], lambda t: t[:10]) == [text]
    assert provider_line(reasoning) == ""  # not part of a transcript, as thinking is not


# --- export ---------------------------------------------------------------------------------------


def test_the_recorded_run_imports_compiles_small_and_exports_items_the_sdk_accepts(tmp_path: Path) -> None:
    chain = recorded_chain()
    path = _write(tmp_path, "run.json", chain)
    assert detect_format(path) == "openai-responses"
    result = read_transcript(path)
    assert [(m.participant, [b["type"] for b in content_of(m)]) for m in result.conversations[0].messages] == [
        ("system", ["text"]),
        ("user", ["text", "image"]),
        ("assistant", ["reasoning", "tool_use", "tool_use"]),
        ("tool", ["tool_result", "tool_result"]),
        ("assistant", ["reasoning", "text"]),
        ("user", ["text"]),  # the stateless replay's history was not read twice
        ("assistant", ["reasoning", "tool_use"]),
    ]
    last = result.conversations[0].messages[-1]
    assert last.metadata is not None and last.metadata["response_id"] == "resp_3" and last.timestamp == 1_760_000_120
    with _manager(path, WindowedPassthroughStrategy(0.5)) as cm:
        full = cm.compile(1_000_000, render_dates=False)
        small = cm.compile(500, render_dates=False)
        assert small.tokens <= 500 < full.tokens and small.dropped == 3  # the first exchange left out
        kinds = [i["type"] for i in small.to_openai_responses()]
        # the first exchange left out; a leading user turn stands for it
        assert kinds == [
            "message",  # developer
            "message",  # the leading user turn
            "reasoning",
            "message",  # the answer
            "message",  # the next question
            "reasoning",
            "function_call",
            "function_call_output",  # stubbed: the recorded run stops at the call
        ]
        for compiled in (full, small):
            items = compiled.to_openai_responses(assistant="assistant")
            assert_sdk_items(items)
            assert validate_responses_items(items) == [] and pairing_oracle(items) == []
        items = full.to_openai_responses()
    recorded = [o for r in chain for o in r["output"] if o["type"] == "reasoning"]
    sent = [i for i in items if i["type"] == "reasoning"]
    assert [s["encrypted_content"] for s in sent] == ENCRYPTED  # byte for byte
    assert sent == [{k: v for k, v in r.items() if v is not None} for r in recorded]
    assert items[0] == {
        "type": "message",
        "role": "developer",
        "content": "You are a weather assistant. " * 3,
    }
    image = items[1]["content"][1]
    assert image == {
        "type": "input_image",
        "image_url": f"data:image/png;base64,{base64.b64encode(PNG).decode()}",
        "detail": "low",
    }
    assert [i["call_id"] for i in items if i["type"] == "function_call"] == ["call_1", "call_2", "call_4"]
    assert (
        items[-1]["type"] == "function_call_output" and items[-1]["call_id"] == "call_4"
    )  # stubbed: the run stops here


def test_the_sdk_client_sends_the_items_as_they_are(tmp_path: Path) -> None:
    sent: list[dict[str, Any]] = []
    reply = _response("resp_9", 1_760_000_200, [_said(9, "ok")])

    def handler(request: Any) -> Any:  # httpx's, or httpx2's: the module is found at run time
        sent.append(json.loads(request.content))
        return httpx.Response(200, json=reply.model_dump(mode="json"))

    client = openai.OpenAI(
        api_key="test",
        base_url="http://localhost.test/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    )
    with _manager(_write(tmp_path, "run.json", recorded_chain())) as cm:
        items = cm.compile(1_000_000).to_openai_responses()
    answer = client.responses.create(model="gpt-5-mini", input=items, store=False)
    assert answer.output_text == "ok"
    assert sent[0]["input"] == items


def test_a_document_and_media_in_a_tool_output_are_sent_as_input_parts(tmp_path: Path) -> None:
    pdf = f"data:application/pdf;base64,{base64.b64encode(PDF).decode()}"
    png = f"data:image/png;base64,{base64.b64encode(PNG).decode()}"
    items = [
        {
            "role": "user",
            "content": [
                {"type": "input_file", "file_data": pdf, "filename": "spec.pdf"},
                {"type": "input_text", "text": "Summarise it."},
            ],
        },
        {"type": "function_call", "call_id": "c1", "name": "shot", "arguments": "not json"},
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": [
                {"type": "input_text", "text": "captured"},
                {"type": "input_image", "image_url": png, "detail": "auto"},
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Done.", "annotations": []}],
            "phase": "final_answer",
        },
    ]
    with _manager(_write(tmp_path, "media.json", items)) as cm:
        out = cm.compile(1_000_000).to_openai_responses()
    assert_sdk_items(out)
    assert out[0]["content"][0] == {"type": "input_file", "file_data": pdf, "filename": "spec.pdf"}
    assert out[1]["arguments"] == "not json"  # the raw text the import could not parse goes back as it was
    assert out[2]["output"] == [
        {"type": "input_text", "text": "captured"},
        {"type": "input_image", "image_url": png, "detail": "auto"},
    ]
    assert out[3] == {"type": "message", "role": "assistant", "content": "Done.", "phase": "final_answer"}


def test_the_validator_names_each_broken_call_rule() -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    answer = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
    said = {"type": "message", "role": "assistant", "content": "x"}
    assert validate_responses_items([call, said, answer]) == []  # the same turn goes on before the output
    assert [i.code for i in validate_responses_items([call, answer, call])] == ["duplicate_call_id"]
    unanswered = validate_responses_items([call, {"role": "user", "content": "?"}, said, answer])
    assert [(i.index, i.code) for i in unanswered] == [
        (0, "missing_function_call_output"),
        (3, "orphan_function_call_output"),
    ]
    assert [(i.index, i.code) for i in validate_responses_items([call])] == [(0, "missing_function_call_output")]
    assert [i.code for i in validate_responses_items([{**call, "call_id": ""}])] == ["bad_function_call"]


def test_the_exporter_refuses_items_that_break_the_call_rule() -> None:
    """A compile never hands the exporter an unanswered call; a result built by hand may."""
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "hi")
        result = cm.compile(1_000)
    call = {"type": "tool_use", "id": "c1", "name": "f", "input": {}}
    user = result.messages[0]
    unanswered = dataclasses.replace(result, messages=(user, user._replace(role="assistant", content=(call,))))
    with pytest.raises(InvalidContextError, match="missing_function_call_output"):
        to_openai_responses(unanswered)


# --- import ---------------------------------------------------------------------------------------


def test_round_trip_import_compile_export_import_gives_the_same_messages(tmp_path: Path) -> None:
    last = recorded_chain()[-1]  # a stateless request: its input is the whole history
    answer = {"type": "function_call_output", "call_id": "call_4", "output": "Rome tomorrow: 22C"}
    items = [*last["input"], *last["output"], answer]
    for name, data in (("chain.json", recorded_chain()), ("items.json", items)):
        first = read_transcript(_write(tmp_path, name, data))
        with _manager(tmp_path / name) as cm:
            exported = cm.compile(1_000_000, render_dates=False).to_openai_responses()
        if name == "chain.json":  # the final call was stubbed: what was read ends with its call
            assert exported[-1]["type"] == "function_call_output"
            exported = exported[:-1]
        again = read_openai_responses(_write(tmp_path, "again-" + name, exported))
        assert _shape(again) == _shape(first), name


def test_a_chained_and_a_stateless_chain_read_each_item_once(tmp_path: Path) -> None:
    r1 = _response("resp_a", 1, [_said(1, "Hello.")]).model_dump(mode="json")
    r2 = _response("resp_b", 2, [_said(2, "Fine.")], previous_response_id="resp_a").model_dump(mode="json")
    chained = [{**r1, "input": "Hi"}, {**r2, "input": [{"role": "user", "content": "Hi"}]}]  # a new "Hi"
    assert [
        content_of(m)[0]["text"] for m in read_transcript(_write(tmp_path, "c.json", chained)).conversations[0].messages
    ] == ["Hi", "Hello.", "Hi", "Fine."]
    r2_stateless = {**r2, "previous_response_id": None}
    replay = [
        {**r1, "input": "Hi"},
        {
            **r2_stateless,
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
                r1["output"][0],
                {"role": "user", "content": "How are you?"},
            ],
        },
    ]
    got = read_transcript(_write(tmp_path, "s.json", replay)).conversations[0].messages
    assert [(m.participant, content_of(m)[0]["text"]) for m in got] == [
        ("user", "Hi"),
        ("assistant", "Hello."),
        ("user", "How are you?"),
        ("assistant", "Fine."),
    ]
    single = read_transcript(_write(tmp_path, "one.json", {**r1, "input": "Hi"}))
    assert [m.participant for m in single.conversations[0].messages] == ["user", "assistant"]


@pytest.mark.parametrize(
    ("data", "location", "words"),
    [
        ([{"role": "user", "content": "hi"}, {"type": "function_call", "name": "f"}], "[1]", "call_id"),
        ([{"type": "reasoning", "summary": "x"}, "oops"], "[0]", "reasoning item needs its id"),
        (
            [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}, "oops"],
            "[1]",
            "must be an object",
        ),
        ([{"role": "robot", "type": "message", "content": "hi"}], "[0]", "role"),
        ([{"type": "message", "role": "user", "content": 5}], "[0].content", "text or a list"),
        ([{"type": "function_call_output", "call_id": "c", "output": 3}], "[0].output", "text or a list"),
        ([{"id": "resp_1", "object": "response", "output": []}, {"id": "resp_2"}], "[1]", "output"),
        ([{"object": "response", "output": [{"type": "reasoning", "id": "", "summary": []}]}], "[0].output[0]", "id"),
    ],
)
def test_damaged_input_names_the_index(tmp_path: Path, data: Any, location: str, words: str) -> None:
    with pytest.raises(ImportFormatError, match=words) as exc:
        read_transcript(_write(tmp_path, "bad.json", data), format="openai-responses")
    assert exc.value.location == location


def test_unknown_items_and_parts_are_skipped_and_reported(tmp_path: Path) -> None:
    data = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "hi"},
                {"type": "input_image", "detail": "auto"},  # neither a URL nor a file id
            ],
        },
        {"type": "item_reference", "id": "msg_0"},  # a stored item by id: nothing to keep
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "  ", "annotations": []}]},
    ]
    result = read_transcript(_write(tmp_path, "skips.json", data))
    assert result.format == "openai-responses"
    assert {s.reason: (s.count, s.sample_locations) for s in result.skipped} == {
        "unsupported input_image (neither an image_url nor a file_id)": (1, ("[0].content[1]",)),
        "unsupported item type 'item_reference'": (1, ("[1]",)),
        "whitespace-only text part": (1, ("[2].content[0]",)),
        "empty message": (1, ("[2]",)),
    }
    assert _shape(result) == [("user", [{"type": "text", "text": "hi"}])]


def test_chat_transcripts_are_still_detected_as_chat(tmp_path: Path) -> None:
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert detect_format(_write(tmp_path, "a.json", chat)) == "anthropic"
    tool = [{"role": "assistant", "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": "{}"}}]}]
    assert detect_format(_write(tmp_path, "o.json", tool)) == "openai"
    assert (
        detect_format(_write(tmp_path, "r.json", [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]))
        == "openai-responses"
    )


# --- every export pairs its calls ------------------------------------------------------------------


@st.composite
def item_sequences(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Responses item lists with the faults transcripts have: calls never answered, answers to calls
    that were never made or answered twice, reasoning that nothing follows, consecutive reasoning."""
    items: list[dict[str, Any]] = []
    open_calls: list[str] = []
    n = 0
    words = st.text(alphabet="abcdefgh ", min_size=1, max_size=30).filter(str.strip)
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["user", "turn", "turn", "outputs", "stray"]))
        if kind == "user":
            items.append({"role": "user", "content": draw(words)})
        elif kind == "turn":
            for _ in range(draw(st.integers(0, 2))):
                n += 1
                items.append({"type": "reasoning", "id": f"rs_{n}", "summary": [], "encrypted_content": f"enc{n}=="})
            for _ in range(draw(st.integers(0, 3))):
                n += 1
                if draw(st.booleans()):
                    items.append({"type": "message", "role": "assistant", "content": draw(words)})
                else:
                    items.append({"type": "function_call", "call_id": f"call_{n}", "name": "f", "arguments": "{}"})
                    open_calls.append(f"call_{n}")
        elif kind == "outputs":
            answered = draw(st.lists(st.sampled_from(open_calls), unique=True)) if open_calls else []
            items.extend({"type": "function_call_output", "call_id": c, "output": draw(words)} for c in answered)
        else:
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": draw(st.sampled_from(["nope", *open_calls[:1]])),
                    "output": "x",
                }
            )
    return items


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=item_sequences(), budget=st.integers(120, 2_000), windowed=st.booleans())
def test_every_export_answers_each_call_before_the_next_model_turn(
    tmp_path: Path, items: list[dict[str, Any]], budget: int, windowed: bool
) -> None:
    path = _write(tmp_path, "gen.json", items)
    result = read_openai_responses(path)
    if not result.message_count:
        return
    strategy = WindowedPassthroughStrategy(0.5) if windowed else PassthroughStrategy()
    with ContextManager.open("memory:", strategy=strategy) as cm:
        import_into(cm.store, result)
        cm.messages.refresh()
        try:
            compiled = cm.compile(budget)
        except (OverBudgetError, EmptyContextError):
            return
        exported = compiled.to_openai_responses()
    assert pairing_oracle(exported) == []
    assert validate_responses_items(exported) == []
    assert_sdk_items(exported)
    for k, item in enumerate(exported):  # a reasoning item is sent only with the item it leads to
        if item["type"] == "reasoning":
            after = [i for i in exported[k + 1 :] if i["type"] != "reasoning"]  # a run of them goes together
            assert after
            assert after[0]["type"] == "function_call" or after[0].get("role") == "assistant"
            assert item in items
    calls = sum(i["type"] == "function_call" for i in exported)
    event(f"function calls sent: {min(calls, 3)}{'+' if calls > 3 else ''}")
    event(f"messages left out: {'some' if compiled.dropped else 'none'}")
