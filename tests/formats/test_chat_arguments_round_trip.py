"""Review finding: Chat Completions tool-call ``arguments`` came back normalised (``'{"a":  1,\\n"b":2}'``
as ``'{"a": 1, "b": 2}'``) and non-JSON arguments wrapped by ``to_openai()`` (``'{"_raw_arguments":
"{bad"}'``) while ``to_openai_responses()`` sent ``'{bad'``. The Chat importer now keeps the text it read
(``item_extra["arguments"]``, as the Responses importer does) and both exports send it back byte for
byte while parsing it still gives the block's ``input``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_journal.formats import import_into, read_openai, read_openai_responses, read_transcript
from context_journal.manager import ContextManager
from tests.imported import content_of

ARGUMENTS = [
    '{"a":  1,\n"b":2}',  # odd whitespace
    "{bad",  # not JSON
    '{"b":1,"a":"\\u00e9"}',  # compact, keys out of order, an escape
    '{"city": "Paris"}',  # what the exports write themselves
    "",  # no arguments at all
    # valid JSON text whose values the journal cannot store: kept as text (the turn used to be dropped)
    '{"b": 1e400}',
    '{"x": NaN}',
    '{"x": -Infinity}',
    '{"a": "\\ud800"}',
]


def _chat(arguments: list[str]) -> list[dict[str, Any]]:
    calls = [
        {"id": f"call_{k}", "type": "function", "function": {"name": "f", "arguments": a}}
        for k, a in enumerate(arguments)
    ]
    return [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *({"role": "tool", "tool_call_id": c["id"], "content": "ok"} for c in calls),
        {"role": "assistant", "content": "done"},
    ]


def _write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _exports(path: Path, fmt: str) -> tuple[list[str], list[str]]:
    """The ``arguments`` strings ``to_openai()`` and ``to_openai_responses()`` send for the calls of a
    transcript imported and compiled without a budget that cuts anything."""
    with ContextManager.open("memory:") as cm:
        import_into(cm.store, read_transcript(path, fmt))
        result = cm.compile(max_tokens=100_000)
        chat = [c["function"]["arguments"] for m in result.to_openai() for c in m.get("tool_calls", [])]
        responses = [i["arguments"] for i in result.to_openai_responses() if i["type"] == "function_call"]
    return chat, responses


def test_chat_arguments_come_back_byte_for_byte_from_both_exports(tmp_path: Path) -> None:
    path = _write(tmp_path, "chat.json", {"messages": _chat(ARGUMENTS)})
    chat, responses = _exports(path, "openai")
    assert chat == ARGUMENTS
    assert responses == ARGUMENTS


def test_the_import_keeps_the_text_only_when_the_exports_would_not_write_it() -> None:
    result = read_openai(Path("chat.json"), data={"messages": _chat(ARGUMENTS)})
    uses = [b for m in result.conversations[0].messages for b in content_of(m) if b["type"] == "tool_use"]
    assert [u.get("item_extra") for u in uses] == [
        {"arguments": ARGUMENTS[0]},
        None,  # not JSON: the input holds it ({"_raw_arguments": ...})
        {"arguments": ARGUMENTS[2]},
        None,
        {"arguments": ""},
        *[None] * 4,  # unstorable values: the input holds the text ({"_raw_arguments": ...})
    ]
    assert [u["input"] for u in uses[5:]] == [{"_raw_arguments": a} for a in ARGUMENTS[5:]]
    assert uses[0]["input"] == {"a": 1, "b": 2}
    assert uses[1]["input"] == {"_raw_arguments": "{bad"}


@pytest.mark.parametrize(
    ("edited", "sent"),
    [
        ({"a": 2, "b": 2}, '{"a": 2, "b": 2}'),  # a changed value
        ({"a": True, "b": 2}, '{"a": true, "b": 2}'),  # true == 1 in Python: still an edit
        ({"b": 2, "a": 1}, '{"a":  1,\n"b":2}'),  # the same object, keys in another order: the text read
    ],
)
def test_an_edited_input_is_not_overridden_by_the_text_read(edited: dict[str, Any], sent: str) -> None:
    use = {"type": "tool_use", "id": "c1", "name": "f", "input": edited, "item_extra": {"arguments": ARGUMENTS[0]}}
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "go")
        cm.add_message("assistant", [use])
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": "c1", "content": "ok"}])
        result = cm.compile(max_tokens=10_000)
        chat = result.to_openai()[1]["tool_calls"][0]["function"]["arguments"]
        responses = result.to_openai_responses()[1]["arguments"]
    assert chat == responses == sent


def test_responses_arguments_go_back_byte_for_byte_to_chat_completions_too(tmp_path: Path) -> None:
    items: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for k, a in enumerate(ARGUMENTS):
        items.append({"type": "function_call", "call_id": f"c{k}", "name": "f", "arguments": a})
    items += [{"type": "function_call_output", "call_id": f"c{k}", "output": "ok"} for k in range(len(ARGUMENTS))]
    path = _write(tmp_path, "responses.json", items)
    assert content_of(read_openai_responses(path).conversations[0].messages[1])[0]["item_extra"] == {
        "arguments": ARGUMENTS[0]
    }
    chat, responses = _exports(path, "openai-responses")
    assert chat == ARGUMENTS
    assert responses == ARGUMENTS
