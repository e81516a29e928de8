"""Second review of provider blocks in the OpenAI Responses format:

- built-in tool items (``web_search_call``, ``file_search_call``, ``code_interpreter_call``,
  ``image_generation_call``, ``mcp_list_tools``, ``mcp_call``, ``computer_call`` / ``computer_call_output``,
  ``local_shell_call`` / ``local_shell_call_output``) are kept whole as ``openai_item`` blocks, priced by
  their JSON text, sent back to the Responses API as they were and to the other exports as a line of text;
- ``custom_tool_call`` / ``custom_tool_call_output`` pair by ``call_id`` like function calls;
- ``url_citation`` annotations and ``refusal`` parts survive import and export;
- JSON Lines files and JSON lists of saved request bodies are read;
- a citation of a known type with a missing or mistyped field is refused with its place.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_journal.content import validate_content
from context_journal.errors import ImportFormatError, MalformedContentError
from context_journal.formats import (
    detect_format,
    import_into,
    read_openai_responses,
    read_transcript,
    validate_responses_items,
)
from context_journal.manager import ContextManager
from context_journal.tokens import EstimatingCounter, estimate_text_tokens
from context_journal.validate import validate_messages, validate_openai_messages
from tests.imported import content_of
from tests.provider_shapes import CHAR_LOCATION, require_openai_responses

openai = require_openai_responses()
from openai.types.responses import (  # noqa: E402
    ResponseCodeInterpreterToolCall,
    ResponseComputerToolCall,
    ResponseCustomToolCall,
    ResponseFileSearchToolCall,
    ResponseFunctionWebSearch,
    ResponseOutputMessage,
    ResponseOutputRefusal,
    ResponseOutputText,
)
from openai.types.responses.response_output_item import (  # noqa: E402
    ImageGenerationCall,
    LocalShellCall,
    McpCall,
    McpListTools,
)

from tests.formats.test_openai_responses import assert_sdk_items, pairing_oracle, sdk_http  # noqa: E402

SEARCH = {"type": "search", "query": "population of Lyon"}
CITE = {
    "type": "url_citation",
    "start_index": 0,
    "end_index": 24,
    "title": "Lyon - Wikipedia",
    "url": "https://en.wikipedia.org/wiki/Lyon",
}
IMAGE_B64 = "iVBORw0KGgo" + "A" * 400


def _dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json")  # nulls included, as a recorder keeps them
    return dumped


def recorded_items() -> list[dict[str, Any]]:
    """One conversation as ``input`` + each ``response.output`` give it, built from the SDK's models."""
    web = ResponseFunctionWebSearch.model_validate(
        {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": SEARCH}
    )
    cited = ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text="Lyon has about 520,000 people.", annotations=[CITE])],
    )
    files = ResponseFileSearchToolCall(id="fs_1", type="file_search_call", status="completed", queries=["lyon"])
    code = ResponseCodeInterpreterToolCall(
        id="ci_1",
        type="code_interpreter_call",
        status="completed",
        code="print(6*7)",
        container_id="cntr_1",
        outputs=None,
    )
    image = ImageGenerationCall(id="ig_1", type="image_generation_call", status="completed", result=IMAGE_B64)
    tools = McpListTools.model_validate(
        {
            "id": "mcpl_1",
            "type": "mcp_list_tools",
            "server_label": "deepwiki",
            "tools": [{"name": "ask_question", "input_schema": {"type": "object"}}],
        }
    )
    mcp = McpCall(
        id="mcp_1",
        type="mcp_call",
        server_label="deepwiki",
        name="ask_question",
        arguments='{"q": "lyon"}',
        output="Lyon is in France.",
    )
    refusal = ResponseOutputMessage(
        id="msg_2",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputRefusal(type="refusal", refusal="I can't help with that.")],
    )
    computer = ResponseComputerToolCall.model_validate(
        {
            "id": "cu_1",
            "type": "computer_call",
            "call_id": "call_cu",
            "status": "completed",
            "pending_safety_checks": [],
            "action": {"type": "click", "button": "left", "x": 10, "y": 20},
        }
    )
    shell = LocalShellCall.model_validate(
        {
            "id": "ls_1",
            "type": "local_shell_call",
            "call_id": "call_ls",
            "status": "completed",
            "action": {"type": "exec", "command": ["ls", "-la"], "env": {}},
        }
    )
    custom = ResponseCustomToolCall(
        id="ctc_1", type="custom_tool_call", call_id="call_patch", name="apply_patch", input="*** Begin Patch\n+x\n"
    )
    return [
        {"role": "user", "content": "How many people live in Lyon? Look it up, then run code."},
        _dump(web),
        _dump(cited),
        _dump(files),
        _dump(code),
        _dump(image),
        _dump(tools),
        _dump(mcp),
        {"role": "user", "content": "Do something forbidden."},
        _dump(refusal),
        {"role": "user", "content": "Click the button, list the files and patch."},
        _dump(computer),
        _dump(shell),
        _dump(custom),
        {
            "type": "computer_call_output",
            "call_id": "call_cu",
            "output": {"type": "computer_screenshot", "image_url": "https://example.org/shot.png"},
        },
        {"type": "local_shell_call_output", "id": "call_ls", "output": "a.txt\nb.txt"},
        {"type": "custom_tool_call_output", "call_id": "call_patch", "output": "Done, 1 file changed."},
        {"role": "user", "content": "Thanks."},
    ]


def _write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False))
    return path


def _shape(result: Any) -> list[tuple[str, Any]]:
    return [(m.participant, m.content) for m in result.conversations[0].messages]


def _compiled(path: Path, budget: int = 1_000_000) -> Any:
    with ContextManager.open("memory:") as cm:
        import_into(cm.store, read_transcript(path))
        cm.messages.refresh()
        return cm.compile(budget, render_dates=False)


# --- import ---------------------------------------------------------------------------------------


def test_built_in_items_are_kept_whole_on_their_side(tmp_path: Path) -> None:
    items = recorded_items()
    result = read_transcript(_write(tmp_path, "run.json", items))
    assert list(result.skipped) == []
    messages = result.conversations[0].messages
    kinds = [(m.participant, [b.get("item_type", b["type"]) for b in content_of(m)]) for m in messages]
    assert kinds == [
        ("user", ["text"]),
        (
            "assistant",
            [
                "web_search_call",
                "text",
                "file_search_call",
                "code_interpreter_call",
                "image_generation_call",
                "mcp_list_tools",
                "mcp_call",
            ],
        ),
        ("user", ["text"]),
        ("assistant", ["text"]),
        ("user", ["text"]),
        ("assistant", ["computer_call", "local_shell_call", "custom_tool_call"]),
        ("tool", ["custom_tool_call_output", "computer_call_output", "local_shell_call_output"]),
        ("user", ["text"]),
    ]
    web = messages[1].content[0]
    assert web == {
        "type": "openai_item",
        "item_type": "web_search_call",
        "item": {"id": "ws_1", "action": SEARCH, "status": "completed", "type": "web_search_call"},
    }
    code = content_of(messages[1])[3]["item"]
    assert code["outputs"] is None and "outputs" in code  # required even when null: kept
    assert messages[1].content[1] == {
        "type": "text",
        "text": "Lyon has about 520,000 people.",
        "item_id": "msg_1",
        "citations": [CITE],
    }
    assert messages[3].content == [
        {"type": "text", "text": "I can't help with that.", "item_id": "msg_2", "refusal": True}
    ]
    assert messages[5].content[2] == {
        "type": "tool_use",
        "id": "call_patch",
        "name": "apply_patch",
        "input": {"input": "*** Begin Patch\n+x\n"},
        "item_type": "custom_tool_call",
        "item_id": "ctc_1",
    }
    assert messages[6].content[0] == {
        "type": "tool_result",
        "tool_use_id": "call_patch",
        "content": "Done, 1 file changed.",
        "item_type": "custom_tool_call_output",
    }
    assert content_of(messages[6])[1]["item"] == items[14]


def test_an_output_without_its_call_is_left_out_and_reported(tmp_path: Path) -> None:
    data = [
        {"role": "user", "content": "go"},
        {"type": "computer_call_output", "call_id": "nope", "output": {"type": "computer_screenshot"}},
        {"type": "custom_tool_call_output", "call_id": "nope", "output": "x"},
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_9", "approve": True},
    ]
    result = read_transcript(_write(tmp_path, "orphans.json", data))
    assert {s.reason: s.sample_locations for s in result.skipped} == {
        "computer_call_output that answers no earlier call": ("[1]",),
        "custom_tool_call_output that answers no earlier custom_tool_call": ("[2]",),
        "mcp_approval_response that answers no earlier call": ("[3]",),
    }
    assert _shape(result) == [("user", [{"type": "text", "text": "go"}])]


@pytest.mark.parametrize(
    ("annotation", "location"),
    [
        ({"type": "url_citation", "start_index": 0, "end_index": 3, "title": "T"}, "[0].content[0].annotations.0.url"),
        (
            {"type": "url_citation", "start_index": "0", "end_index": 3, "title": "T", "url": "u"},
            "[0].content[0].annotations.0.start_index",
        ),
    ],
)
def test_a_damaged_annotation_names_its_place(tmp_path: Path, annotation: Any, location: str) -> None:
    data = [
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "x", "annotations": [annotation]}],
        }
    ]
    with pytest.raises(ImportFormatError) as exc:
        read_transcript(_write(tmp_path, "bad.json", data), format="openai-responses")
    assert exc.value.location == location


# --- export ---------------------------------------------------------------------------------------


def test_the_responses_export_sends_each_item_back_as_it_was(tmp_path: Path) -> None:
    items = recorded_items()
    out = _compiled(_write(tmp_path, "run.json", items)).to_openai_responses()
    assert_sdk_items(out)
    assert validate_responses_items(out) == [] and pairing_oracle(out) == []
    by_id = {i.get("id"): i for i in out if i.get("id")}
    assert by_id["ws_1"] == {"id": "ws_1", "action": SEARCH, "status": "completed", "type": "web_search_call"}
    assert by_id["ig_1"]["result"] == IMAGE_B64  # never cut
    assert by_id["ci_1"]["outputs"] is None
    assert by_id["msg_1"]["content"] == [
        {"type": "output_text", "text": "Lyon has about 520,000 people.", "annotations": [CITE]}
    ]
    assert by_id["msg_2"]["content"] == [{"type": "refusal", "refusal": "I can't help with that."}]
    assert by_id["ctc_1"] == {
        "type": "custom_tool_call",
        "call_id": "call_patch",
        "name": "apply_patch",
        "input": "*** Begin Patch\n+x\n",
        "id": "ctc_1",
    }
    assert [i["type"] for i in out][-4:] == [
        "custom_tool_call_output",
        "computer_call_output",
        "local_shell_call_output",
        "message",  # the closing user message
    ]
    answer = next(i for i in out if i["type"] == "custom_tool_call_output")
    assert answer == {"type": "custom_tool_call_output", "call_id": "call_patch", "output": "Done, 1 file changed."}
    assert next(i for i in out if i["type"] == "computer_call_output") == items[14]


def test_round_trip_import_compile_export_import_gives_the_same_messages(tmp_path: Path) -> None:
    first = read_transcript(_write(tmp_path, "run.json", recorded_items()))
    exported = _compiled(tmp_path / "run.json").to_openai_responses()
    again = read_openai_responses(_write(tmp_path, "again.json", exported))
    assert list(again.skipped) == []
    assert _shape(again) == _shape(first)


def test_other_exports_read_the_items_as_text(tmp_path: Path) -> None:
    result = _compiled(_write(tmp_path, "run.json", recorded_items()))
    anthropic = result.to_anthropic()
    assert validate_messages(anthropic["messages"]) == []
    sent = json.dumps(anthropic)
    assert "openai_item" not in sent and "url_citation" not in sent and IMAGE_B64 not in sent
    assistant = anthropic["messages"][1]["content"]
    assert assistant[0] == {
        "type": "text",
        "text": f"[OpenAI web_search_call: action: {json.dumps(SEARCH, separators=(',', ':'))}]",
    }
    assert assistant[1] == {"type": "text", "text": "Lyon has about 520,000 people."}  # no OpenAI citation
    chat = result.to_openai()
    assert validate_openai_messages(chat) == []
    chat_text = json.dumps(chat)
    assert "[OpenAI computer_call_output: output: (screenshot not shown)]" in chat_text
    assert "[OpenAI mcp_call: server_label: deepwiki; name: ask_question" in chat_text
    assert IMAGE_B64 not in chat_text
    calls = [c["function"] for m in chat if m.get("tool_calls") for c in m["tool_calls"]]
    assert calls == [{"name": "apply_patch", "arguments": json.dumps({"input": "*** Begin Patch\n+x\n"})}]


def test_an_output_whose_call_was_left_out_is_sent_as_text() -> None:
    """The compile keeps a tool turn whose assistant turn the window left out: its built-in output
    cannot go back without its call."""
    shot = {"type": "computer_call_output", "call_id": "call_cu", "output": {"type": "computer_screenshot"}}
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "hi")
        cm.add_message("tool", [{"type": "openai_item", "item_type": "computer_call_output", "item": shot}])
        cm.add_message("user", "bye")
        out = cm.compile(100_000).to_openai_responses()
    assert_sdk_items(out)
    assert validate_responses_items(out) == []
    assert [i["type"] for i in out] == ["message", "message", "message"]
    line = "[OpenAI computer_call_output: output: (screenshot not shown)]"
    assert out[1]["content"] == [{"type": "input_text", "text": line}]
    assert [i.code for i in validate_responses_items([shot])] == ["orphan_item_output"]


def test_the_sdk_client_sends_the_items_as_they_are(tmp_path: Path) -> None:
    httpx = sdk_http(openai)  # the HTTP client module openai is built on

    sent: list[dict[str, Any]] = []
    reply = {
        "id": "resp_9",
        "object": "response",
        "created_at": 1,
        "model": "gpt-5-mini",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }

    def handler(request: Any) -> Any:
        sent.append(json.loads(request.content))
        return httpx.Response(200, json=reply)

    client = openai.OpenAI(
        api_key="test",
        base_url="http://localhost.test/v1",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    )
    items = _compiled(_write(tmp_path, "run.json", recorded_items())).to_openai_responses()
    client.responses.create(model="gpt-5-mini", input=items, store=False)
    assert sent[0]["input"] == items


# --- content model --------------------------------------------------------------------------------


def test_an_openai_item_block_is_checked_and_priced_by_its_json_text() -> None:
    block = {"type": "openai_item", "item_type": "web_search_call", "item": {"type": "web_search_call", "id": "ws_1"}}
    assert validate_content([{**block, "x_host": 1}]) == [{**block, "x_host": 1}]  # extra fields kept
    with pytest.raises(MalformedContentError) as exc:
        validate_content([{**block, "item_type": "mcp_call"}])
    assert "item_type" in str(exc.value)
    with pytest.raises(MalformedContentError) as exc:
        validate_content([{"type": "openai_item", "item_type": "mcp_call"}])
    assert exc.value.path == "item"
    counter = EstimatingCounter()
    text = json.dumps(block, separators=(",", ":"), ensure_ascii=False)
    assert counter.count_block(block) == estimate_text_tokens(text) + counter.block_overhead
    output = {"type": "openai_item", "item_type": "computer_call_output", "item": {"type": "computer_call_output"}}
    issues = validate_messages([{"role": "user", "content": [block]}, {"role": "assistant", "content": [output]}])
    assert [i.code for i in issues] == ["provider_block_not_assistant", "provider_block_not_user"]


def test_an_item_in_the_wrong_turn_is_shown_as_text_by_the_compile() -> None:
    block = {"type": "openai_item", "item_type": "web_search_call", "item": {"type": "web_search_call", "id": "ws_1"}}
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", [{"type": "text", "text": "pasted:"}, block])
        result = cm.compile(10_000)
    assert "provider_block_transcribed" in {r.kind for r in result.repairs}
    assert result.messages[0].content[1] == {"type": "text", "text": "[OpenAI web_search_call]"}


CHAR = CHAR_LOCATION


@pytest.mark.parametrize(
    ("citation", "path"),
    [
        ({k: v for k, v in CHAR.items() if k != "start_char_index"}, "citations.0.start_char_index"),
        ({**CHAR, "document_index": "0"}, "citations.0.document_index"),
        ({**CHAR, "end_char_index": True}, "citations.0.end_char_index"),
        ({**CHAR, "end_char_index": 1.0}, "citations.0.end_char_index"),
        ({**CHAR, "document_title": 5}, "citations.0.document_title"),
        (
            {
                "type": "page_location",
                "cited_text": "x",
                "document_index": 0,
                "document_title": None,
                "start_page_number": 1,
            },
            "citations.0.end_page_number",
        ),
        ({"type": "web_search_result_location", "cited_text": "x", "url": "u"}, "citations.0.encrypted_index"),
        ({**CITE, "url": None}, "citations.0.url"),
    ],
)
def test_a_malformed_known_citation_is_refused_with_its_place(citation: dict[str, Any], path: str) -> None:
    with pytest.raises(MalformedContentError) as exc:
        validate_content([{"type": "text", "text": "ok"}, {"type": "text", "text": "x", "citations": [CHAR, citation]}])
    assert (exc.value.block_index, exc.value.path) == (1, path.replace("citations.0", "citations.1"))


def test_unknown_citation_types_and_nullable_fields_are_kept() -> None:
    blocks = [
        {"type": "text", "text": "a", "citations": [{"type": "future_location", "anything": [1, {"x": None}]}]},
        {"type": "text", "text": "b", "citations": [{**CHAR, "document_title": None, "file_id": None, "extra": 1}]},
        {"type": "text", "text": "c", "citations": [CITE]},
    ]
    assert validate_content(blocks) == blocks


# --- JSON Lines and request bodies -------------------------------------------------------------------


def _bodies() -> list[dict[str, Any]]:
    """Three requests of a stateless client: each sends the whole history again (reasoning left out of
    the last one), with the model's answers in the next body's input."""
    call = {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": '{"city":"Lyon"}'}
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAB" + "x" * 40}
    first = [{"role": "user", "content": "Weather in Lyon?"}]
    second = [*first, reasoning, call, {"type": "function_call_output", "call_id": "c1", "output": "12C"}]
    third = [*first, call, second[-1], {"role": "assistant", "content": "12C."}, {"role": "user", "content": "Thanks!"}]
    return [
        {"model": "gpt-5-mini", "instructions": "Be brief.", "input": first},
        {"model": "gpt-5-mini", "instructions": "Be brief.", "input": second},
        {"instructions": "Be brief.", "input": third},
    ]


EXPECTED_BODIES = [
    ("system", ["text"]),
    ("user", ["text"]),
    ("assistant", ["reasoning", "tool_use"]),
    ("tool", ["tool_result"]),
    ("assistant", ["text"]),
    ("user", ["text"]),
]


def test_a_json_list_of_request_bodies_reads_each_item_once(tmp_path: Path) -> None:
    path = _write(tmp_path, "bodies.json", _bodies())
    assert detect_format(path) == "openai-responses"
    for result in (read_transcript(path), read_transcript(path, format="openai-responses")):
        got = result.conversations[0].messages
        assert [(m.participant, [b["type"] for b in content_of(m)]) for m in got] == EXPECTED_BODIES
        assert content_of(got[0])[0]["text"] == "Be brief." and content_of(got[-1])[0]["text"] == "Thanks!"
        assert result.conversations[0].metadata["model"] == "gpt-5-mini"


def test_jsonl_of_request_bodies_or_of_items_is_read(tmp_path: Path) -> None:
    bodies = tmp_path / "bodies.jsonl"
    bodies.write_text("\n".join(json.dumps(b) for b in _bodies()) + "\n")
    assert detect_format(bodies) == "openai-responses"
    got = read_transcript(bodies).conversations[0].messages
    assert [(m.participant, [b["type"] for b in content_of(m)]) for m in got] == EXPECTED_BODIES
    lines = tmp_path / "items.jsonl"
    lines.write_text("\n".join(json.dumps(i) for i in recorded_items()))
    assert detect_format(lines) == "openai-responses"
    assert _shape(read_transcript(lines, format="openai-responses")) == _shape(
        read_transcript(_write(tmp_path, "items.json", recorded_items()))
    )


def test_the_cli_imports_a_jsonl_of_request_bodies(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from context_journal.cli import app

    bodies = tmp_path / "bodies.jsonl"
    bodies.write_text("\n".join(json.dumps(b) for b in _bodies()))
    store = tmp_path / "s.db"
    out = CliRunner().invoke(app, ["import", str(bodies), "--store", str(store), "--json"])
    assert out.exit_code == 0, out.output
    with ContextManager.open(str(store)) as cm:
        assert [m.participant for m in cm.get_messages()] == [p for p, _ in EXPECTED_BODIES]
