"""Review finding: a reasoning item the compile leaves out (too large for the budget) took the item ids
of the function calls and messages after it along, but not those of the built-in tools' calls
(``openai_item`` blocks: ``web_search_call`` ``ws_...``, ``code_interpreter_call`` ``ci_...``), whose id
the request types require: such a call goes as its text line instead (the line the other exports send),
one whose type takes no id (``shell_call``...) goes without it, and the validator, given the stored
messages, now checks the built-in calls too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from context_journal._provider_render import provider_line
from context_journal.formats import import_into, read_openai_responses, validate_responses_items
from context_journal.manager import ContextManager
from tests.imported import content_of
from tests.provider_shapes import require_openai_responses

openai = require_openai_responses()
from openai.types.responses import (  # noqa: E402
    ResponseCodeInterpreterToolCall,
    ResponseFunctionWebSearch,
    ResponseInputItemParam,
)

from tests.formats.test_openai_responses import conforms  # noqa: E402

BIG = "gAAAAB" + "Q" * 4000  # encrypted content a budget of 800 tokens leaves out


def _web() -> dict[str, Any]:
    item = ResponseFunctionWebSearch.model_validate(
        {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "lyon"}}
    )
    return item.model_dump(mode="json", exclude_none=True)


def _code() -> dict[str, Any]:
    item = ResponseCodeInterpreterToolCall(
        id="ci_1", type="code_interpreter_call", status="completed", code="print(6*7)", container_id="cntr_1",
        outputs=None,
    )  # fmt: skip
    return {**item.model_dump(mode="json", exclude_none=True), "outputs": None}  # required even when null


def _items() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "How many people live in Lyon? Look it up, run code, then patch."},
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": BIG},
        _web(),
        _code(),
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_p", "name": "apply_patch", "input": "+x\n"},
        {"type": "custom_tool_call_output", "call_id": "call_p", "output": "Done."},
        {"role": "user", "content": "Thanks."},
    ]


def _compile(tmp_path: Path, items: list[dict[str, Any]], budget: int) -> tuple[Any, list[list[dict[str, Any]]]]:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    result = read_openai_responses(path)
    stored = [content_of(m) for m in result.conversations[0].messages]
    with ContextManager.open("memory:") as cm:
        import_into(cm.store, result)
        cm.messages.refresh()
        compiled = cm.compile(max_tokens=budget)
        return compiled, stored


def _sdk(items: list[dict[str, Any]]) -> None:
    for i, item in enumerate(items):
        assert conforms(item, ResponseInputItemParam, f"input[{i}]") == [], item


def test_builtin_calls_after_left_out_reasoning_go_as_their_text_line(tmp_path: Path) -> None:
    compiled, stored = _compile(tmp_path, _items(), 800)
    items = compiled.to_openai_responses()
    sent = json.dumps(items)
    for item_id in ("rs_2", "ws_1", "ci_1", "ctc_1"):
        assert item_id not in sent, item_id
    web_line = provider_line({"type": "openai_item", "item_type": "web_search_call", "item": _web()})
    code_line = provider_line({"type": "openai_item", "item_type": "code_interpreter_call", "item": _code()})
    assert items[1:5] == [
        {"type": "message", "role": "assistant", "content": web_line},
        {"type": "message", "role": "assistant", "content": code_line},
        {"type": "custom_tool_call", "call_id": "call_p", "name": "apply_patch", "input": "+x\n"},
        {"type": "custom_tool_call_output", "call_id": "call_p", "output": "Done."},
    ]
    chat = json.dumps(compiled.to_openai())  # the same line the Chat Completions export sends
    assert json.dumps(web_line)[1:-1] in chat and json.dumps(code_line)[1:-1] in chat
    assert any("OpenAI reasoning item" in r.detail for r in compiled.repairs)
    assert validate_responses_items(items, stored=stored) == []
    _sdk(items)
    # what the export sent before the fix: the built-in calls with their ids, without their reasoning
    before = [*items[:1], _web(), _code(), *items[3:]]
    issues = validate_responses_items(before, stored=stored)
    assert [(i.code, i.index) for i in issues] == [("missing_reasoning_item", 1), ("missing_reasoning_item", 2)]


def test_with_the_reasoning_kept_the_builtin_calls_keep_their_ids(tmp_path: Path) -> None:
    compiled, stored = _compile(tmp_path, _items(), 100_000)
    items = compiled.to_openai_responses()
    assert [(i["type"], i.get("id")) for i in items[1:5]] == [
        ("reasoning", "rs_2"),
        ("web_search_call", "ws_1"),
        ("code_interpreter_call", "ci_1"),
        ("custom_tool_call", "ctc_1"),
    ]
    assert items[2] == _web() and items[3] == _code()
    assert validate_responses_items(items, stored=stored) == []
    _sdk(items)


def test_a_call_sent_as_text_takes_its_output_along_and_an_optional_id_is_dropped() -> None:
    computer = {
        "type": "computer_call", "id": "cu_1", "call_id": "call_cu", "status": "completed",
        "pending_safety_checks": [], "action": {"type": "click", "button": "left", "x": 1, "y": 2},
    }  # fmt: skip
    shell = {
        "type": "shell_call", "id": "sh_1", "call_id": "call_sh", "status": "completed",
        "action": {"commands": ["ls"]},
    }  # fmt: skip
    shot = {"type": "computer_call_output", "call_id": "call_cu", "output": {"type": "computer_screenshot"}}
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "click, then list")
        cm.add_message(
            "assistant",
            [
                {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": BIG},
                {"type": "openai_item", "item_type": "computer_call", "item": computer},
                {"type": "openai_item", "item_type": "shell_call", "item": shell},
                {"type": "text", "text": "Clicked.", "item_id": "msg_1"},
            ],
        )
        cm.add_message("tool", [{"type": "openai_item", "item_type": "computer_call_output", "item": shot}])
        cm.add_message("user", "thanks")
        items = cm.compile(max_tokens=800).to_openai_responses()
    assert [i["type"] for i in items] == ["message", "message", "shell_call", "message", "message", "message"]
    assert items[1] == {
        "type": "message",
        "role": "assistant",
        "content": provider_line({"type": "openai_item", "item_type": "computer_call", "item": computer}),
    }
    assert items[2] == {k: v for k, v in shell.items() if k != "id"}
    assert items[3] == {"type": "message", "role": "assistant", "content": "Clicked."}
    assert items[4]["role"] == "user" and items[4]["content"][0]["text"].startswith("[OpenAI computer_call_output")
    assert "rs_1" not in json.dumps(items) and "cu_1" not in json.dumps(items)


def test_only_the_builtin_calls_after_the_last_kept_item_id_change() -> None:
    from context_journal.formats.openai_responses import _after_lost_reasoning

    early = {"type": "web_search_call", "id": "ws_0", "status": "completed", "action": {"type": "search"}}
    late = {**early, "id": "ws_1"}
    blocks: list[dict[str, Any]] = [
        {"type": "openai_item", "item_type": "web_search_call", "item": early},
        {"type": "text", "text": "before", "item_id": "msg_0"},  # kept its id: the reasoning came after it
        {"type": "openai_item", "item_type": "web_search_call", "item": late},
        {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
    ]
    out = _after_lost_reasoning(blocks)
    assert out[:2] == blocks[:2] and out[3] == blocks[3]
    assert out[2] == {"type": "text", "text": provider_line(blocks[2])}
