"""Review fixes of provider blocks for the OpenAI Responses format:

- export: an assistant message or ``function_call`` the import read with its item id is sent with it (a
  ``reasoning`` item is paired with the item that followed it by id: without it the API answers "Item
  'rs_...' of type 'reasoning' was provided without its required following item"), as the SDK's
  ``ResponseOutputMessageParam`` / ``ResponseFunctionToolCallParam``;
- import: a JSONL file of ``response.model_dump()`` records, a saved request body, an output that answers
  no call (skipped, with a note), a ``call_id`` that is not text (an error naming the type).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_journal.errors import ImportFormatError
from context_journal.formats import detect_format, import_into, read_openai_responses, read_transcript
from context_journal.manager import ContextManager
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

from tests.formats.test_openai_responses import conforms  # noqa: E402

ENC = "gAAAAABo" + "Zm9vYmFy" * 12


def _reasoning(n: int) -> dict[str, Any]:
    item = ResponseReasoningItem(id=f"rs_{n}", type="reasoning", summary=[], encrypted_content=f"{ENC}{n}")
    return item.model_dump(exclude_none=True)


def _call(n: int, city: str) -> dict[str, Any]:
    call = ResponseFunctionToolCall(
        id=f"fc_{n}", call_id=f"call_{n}", type="function_call", name="get_weather",
        arguments=json.dumps({"city": city}), status="completed",
    )  # fmt: skip
    return call.model_dump(exclude_none=True)


def _said(n: int, *texts: str) -> dict[str, Any]:
    parts = [ResponseOutputText(type="output_text", text=t, annotations=[]) for t in texts]
    msg = ResponseOutputMessage(id=f"msg_{n}", type="message", role="assistant", status="completed", content=parts)
    return msg.model_dump(exclude_none=True)


def _items() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        _reasoning(1),
        _call(1, "Paris"),
        _call(2, "Rome"),
        {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
        {"type": "function_call_output", "call_id": "call_2", "output": "25C"},
        _reasoning(2),
        _said(1, "Paris: 18C.", "Rome: 25C."),
        {"role": "user", "content": "Thanks."},
        _said(2, "You're welcome."),
    ]


def _export(path: Path) -> list[dict[str, Any]]:
    with ContextManager.open("memory:") as cm:
        import_into(cm.store, read_transcript(path))
        return cm.compile(max_tokens=100_000).to_openai_responses()


def test_items_after_reasoning_are_sent_with_their_ids(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_items()))
    out = _export(path)
    for i, item in enumerate(out):
        assert conforms(item, ResponseInputItemParam, f"input[{i}]") == [], item
    follows = {out[i]["id"]: out[i + 1] for i, x in enumerate(out) if x.get("type") == "reasoning"}
    assert follows["rs_1"] == {
        "type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city": "Paris"}',
        "id": "fc_1", "status": "completed",  # the status as recorded (second review, item 5)
    }  # fmt: skip
    assert follows["rs_2"] == {
        "type": "message", "role": "assistant", "id": "msg_1", "status": "completed",
        "content": [
            {"type": "output_text", "text": "Paris: 18C.", "annotations": []},
            {"type": "output_text", "text": "Rome: 25C.", "annotations": []},
        ],
    }  # fmt: skip
    assert [x.get("id") for x in out if x.get("type") == "function_call"] == ["fc_1", "fc_2"]
    assert out[-1]["id"] == "msg_2"


def test_the_ids_survive_a_second_round_trip(tmp_path: Path) -> None:
    first = tmp_path / "first.json"
    first.write_text(json.dumps(_items()))
    once = _export(first)
    second = tmp_path / "second.json"
    second.write_text(json.dumps(once))
    assert _export(second) == once


def test_other_exports_leave_the_item_id_out(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_items()))
    with ContextManager.open("memory:") as cm:
        import_into(cm.store, read_transcript(path))
        result = cm.compile(max_tokens=100_000)
        assert "item_id" not in json.dumps(result.to_anthropic()) + json.dumps(result.to_openai())


def _response(n: int, output: list[dict[str, Any]], previous: str | None, new_input: list[Any]) -> dict[str, Any]:
    resp = Response(
        id=f"resp_{n}", object="response", created_at=1_700_000_000 + n, model="gpt-5", output=output,
        parallel_tool_calls=True, tool_choice="auto", tools=[], previous_response_id=previous,
    )  # fmt: skip
    return {**resp.model_dump(mode="json"), "input": new_input}


def test_a_jsonl_file_of_response_dumps_is_read_as_a_chain(tmp_path: Path) -> None:
    items = _items()
    chain = [
        _response(1, items[1:4], None, items[:1]),
        _response(2, items[6:8], "resp_1", items[4:6]),
        _response(3, items[9:], "resp_2", items[8:9]),
    ]
    jsonl = tmp_path / "chain.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in chain) + "\n")
    listed = tmp_path / "chain.json"
    listed.write_text(json.dumps(chain))
    assert detect_format(jsonl) == "openai-responses"
    got = read_transcript(jsonl)
    want = read_openai_responses(listed)
    assert got.format == "openai-responses"
    assert [(m.participant, m.content) for m in got.conversations[0].messages] == [
        (m.participant, m.content) for m in want.conversations[0].messages
    ]
    assert len(got.conversations[0].messages) == 6


def test_a_bad_line_of_a_jsonl_chain_is_skipped_and_named(tmp_path: Path) -> None:
    path = tmp_path / "chain.jsonl"
    first = json.dumps(_response(1, _items()[1:4], None, _items()[:1]))
    path.write_text(first + "\n{not json\n")
    result = read_transcript(path)
    assert result.format == "openai-responses"
    assert [m.participant for m in result.conversations[0].messages] == ["user", "assistant"]
    (skip,) = result.skipped
    assert skip.sample_locations == ("chain.jsonl line 2",)
    assert skip.reason.startswith("chain.jsonl line 2: invalid JSON (")
    assert skip.reason.endswith("; the line was skipped")
    # a bad first line does not turn the file into a Claude Code session
    path.write_text("{not json\n" + first + "\n")
    result = read_transcript(path)
    assert result.format == "openai-responses"
    assert len(result.conversations[0].messages) == 2
    # a file of which no line can be read still raises, naming the first
    path.write_text("{not json\n")
    with pytest.raises(ImportFormatError) as exc:
        read_openai_responses(path)
    assert exc.value.location == "line 1"


def test_a_saved_request_body_is_read_as_its_items(tmp_path: Path) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps({"model": "gpt-5", "instructions": "Be brief.", "input": _items(), "store": False}))
    assert detect_format(path) == "openai-responses"
    messages = read_transcript(path).conversations[0].messages
    assert [m.participant for m in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
    ]
    assert messages[0].content == [{"type": "text", "text": "Be brief."}]


def test_an_output_without_its_call_is_skipped_with_a_note(tmp_path: Path) -> None:
    items = [*_items()[:6], {"type": "function_call_output", "call_id": "call_9", "output": "?"}, *_items()[6:]]
    path = tmp_path / "orphan.json"
    path.write_text(json.dumps(items))
    result = read_transcript(path)
    assert [(s.reason, s.count, s.sample_locations) for s in result.skipped] == [
        ("function_call_output that answers no earlier function_call", 1, ("[6]",))
    ]
    found = [b for m in result.conversations[0].messages for b in content_of(m)]
    assert [b["tool_use_id"] for b in found if b["type"] == "tool_result"] == ["call_1", "call_2"]


@pytest.mark.parametrize("at", [2, 4])
def test_a_call_id_that_is_not_text_names_its_type(tmp_path: Path, at: int) -> None:
    items = _items()
    items[at] = {**items[at], "call_id": 123}
    path = tmp_path / "int.json"
    path.write_text(json.dumps(items))
    with pytest.raises(ImportFormatError) as exc:
        read_transcript(path)
    assert exc.value.location == f"[{at}].call_id"
    assert "'call_id' must be text, got int 123" in str(exc.value)


def test_reasoning_items_in_a_row_go_back_with_the_call_they_lead_to() -> None:
    """Second review: [rs_1, rs_2, function_call] exported without rs_1 (only a reasoning item directly
    before a call or message was kept); a run of reasoning items before one goes back whole."""
    from context_journal.formats.openai_responses import _followed_reasoning

    items: list[dict[str, Any]] = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "E1"},
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "E2"},
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}", "id": "fc_1"},
        {"type": "function_call_output", "call_id": "call_1", "output": "x"},
        {"type": "reasoning", "id": "rs_3", "summary": [], "encrypted_content": "E3"},  # nothing follows it
    ]
    assert [i.get("id") for i in _followed_reasoning(items)] == [None, "rs_1", "rs_2", "fc_1", None]
