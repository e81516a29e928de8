"""The Responses importer after the review of provider blocks: uploads referenced by ``file_id`` are kept and sent
back as they were, a ``compaction`` item is kept whole, a response chain is read by its
``previous_response_id`` links (an inconsistent one refused), and the SDK's own models are accepted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_journal.errors import ImportFormatError
from context_journal.formats import import_into, read_openai_responses, read_transcript
from context_journal.manager import ContextManager
from tests.imported import content_of, metadata_of
from tests.provider_shapes import require_openai_responses

openai = require_openai_responses()
try:  # openai releases before these Responses API types skip this module
    from openai.types.responses import (
        Response,
        ResponseInputItemParam,
        ResponseOutputMessage,
        ResponseOutputText,
    )
except ImportError as exc:
    pytest.skip(f"this openai ({openai.__version__}) lacks the Responses API types: {exc}", allow_module_level=True)
from tests.formats.test_openai_responses import conforms  # noqa: E402


def _write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def _export(path: Path) -> list[dict[str, Any]]:
    with ContextManager.open("memory:") as cm:
        import_into(cm.store, read_transcript(path))
        items = cm.compile(max_tokens=100_000).to_openai_responses()
    for i, item in enumerate(items):
        assert conforms(item, ResponseInputItemParam, f"input[{i}]") == [], item
    return items


# --- 1. files and images by file_id --------------------------------------------------------------


def test_files_and_images_by_file_id_are_kept_and_sent_back(tmp_path: Path) -> None:
    items = [
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Summarise this."},
                {"type": "input_file", "file_id": "file_9"},
                {"type": "input_file", "file_id": "file_10", "filename": "report.pdf"},
            ],
        },
        {"type": "message", "role": "assistant", "content": "It is a report."},
        {"type": "message", "role": "user", "content": [{"type": "input_image", "file_id": "file_1"}]},
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_image", "file_id": "file_2", "detail": "high"}],
        },
    ]
    path = _write(tmp_path, "files.json", items)
    result = read_transcript(path)
    assert result.skipped == []
    assert [m.content for m in result.conversations[0].messages] == [
        [
            {"type": "text", "text": "Summarise this."},
            {"type": "document", "source": {"type": "file", "file_id": "file_9"}},
            {"type": "document", "source": {"type": "file", "file_id": "file_10"}, "title": "report.pdf"},
        ],
        [{"type": "text", "text": "It is a report."}],
        [{"type": "image", "source": {"type": "file", "file_id": "file_1"}}],  # no longer an "empty message"
        [{"type": "image", "source": {"type": "file", "file_id": "file_2"}, "detail": "high"}],
    ]
    out = _export(path)
    assert out == [
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Summarise this."},
                {"type": "input_file", "file_id": "file_9"},
                {"type": "input_file", "file_id": "file_10", "filename": "report.pdf"},
            ],
        },
        {"type": "message", "role": "assistant", "content": "It is a report."},
        # ``detail`` is required by the request type: "auto" (the API's default) when none was given
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_image", "file_id": "file_1", "detail": "auto"}],
        },
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_image", "file_id": "file_2", "detail": "high"}],
        },
    ]


def test_a_file_id_in_a_function_call_output_is_kept(tmp_path: Path) -> None:
    items = [
        {"role": "user", "content": "Fetch the chart."},
        {"type": "function_call", "call_id": "call_1", "name": "chart", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [{"type": "input_image", "file_id": "file_7"}, {"type": "input_file", "file_id": "file_8"}],
        },
    ]
    path = _write(tmp_path, "output.json", items)
    (_, _, tool) = read_transcript(path).conversations[0].messages
    assert tool.content == [
        {
            "type": "tool_result",
            "tool_use_id": "call_1",
            "content": [
                {"type": "image", "source": {"type": "file", "file_id": "file_7"}},
                {"type": "document", "source": {"type": "file", "file_id": "file_8"}},
            ],
        }
    ]
    assert _export(path)[-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": [
            {"type": "input_image", "file_id": "file_7", "detail": "auto"},
            {"type": "input_file", "file_id": "file_8"},
        ],
    }


def test_an_anthropic_files_api_source_goes_to_anthropic_unchanged() -> None:
    doc = {"type": "document", "source": {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}}
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", [{"type": "text", "text": "Read it."}, doc])
        sent = cm.compile(100_000).to_anthropic(cache=False)
    assert sent["messages"][0]["content"][1] == doc


def test_a_part_with_neither_a_url_nor_a_file_id_is_still_skipped(tmp_path: Path) -> None:
    items = [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}, {"type": "input_file", "file_data": "x"}]}
    ]
    result = read_transcript(_write(tmp_path, "bad.json", items))
    assert {s.reason: s.sample_locations for s in result.skipped} == {
        "unsupported input_file (no file_id, file_url, or file_data that is a data URL)": ("[0].content[1]",)
    }


# --- 5. compaction items -------------------------------------------------------------------------


def test_a_compaction_item_is_kept_whole_and_sent_back(tmp_path: Path) -> None:
    compaction = {"type": "compaction", "id": "cmp_1", "encrypted_content": "abc"}
    items = [
        {"type": "message", "role": "user", "content": "hi"},
        compaction,
        {"type": "message", "role": "user", "content": "again"},
    ]
    path = _write(tmp_path, "compacted.json", items)
    result = read_transcript(path)
    assert result.format == "openai-responses"
    assert result.skipped == []
    assert [(m.participant, m.content) for m in result.conversations[0].messages] == [
        ("user", [{"type": "text", "text": "hi"}]),
        ("assistant", [{"type": "openai_item", "item_type": "compaction", "item": compaction}]),
        ("user", [{"type": "text", "text": "again"}]),
    ]
    assert _export(path) == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        compaction,
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "again"}]},
    ]


# --- 6. a stored chain read by its links ---------------------------------------------------------


def _resp(n: int, prev: str | None, asked: str, said: str) -> dict[str, Any]:
    out = ResponseOutputMessage(
        id=f"msg_{n}",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=said, annotations=[])],
    )
    return {
        "object": "response",
        "id": f"resp_{n}",
        "previous_response_id": prev,
        "input": [{"role": "user", "content": asked}],
        "output": [out.model_dump(exclude_none=True)],
    }


R1 = _resp(1, None, "one", "A1")
R2 = _resp(2, "resp_1", "two", "A2")
R3 = _resp(3, "resp_2", "three", "A3")
IN_ORDER = [
    ("user", "one"),
    ("assistant", "A1"),
    ("user", "two"),
    ("assistant", "A2"),
    ("user", "three"),
    ("assistant", "A3"),
]


def _said(result: Any) -> list[tuple[str, str]]:
    return [(m.participant, m.content[0]["text"]) for m in result.conversations[0].messages]


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (2, 1, 0)])
def test_a_chain_is_read_by_its_links_whatever_the_file_order(tmp_path: Path, order: tuple[int, ...]) -> None:
    chain = [(R1, R2, R3)[k] for k in order]
    result = read_openai_responses(_write(tmp_path, "chain.json", chain))
    assert _said(result) == IN_ORDER
    # the places still name the file's positions
    first = result.conversations[0].messages[0]
    assert metadata_of(first)["items"] == [f"[{order.index(0)}].input[0]"]
    assert metadata_of(first)["response_id"] == "resp_1"


def test_a_chain_whose_first_response_continues_one_not_in_the_file_starts_there(tmp_path: Path) -> None:
    result = read_openai_responses(_write(tmp_path, "tail.json", [R3, R2]))
    assert _said(result) == IN_ORDER[2:]


@pytest.mark.parametrize(
    ("chain", "location", "words"),
    [
        ([R1, R2, {**R3, "previous_response_id": "resp_1"}], "[2].previous_response_id", "both continue 'resp_1'"),
        ([R1, R2, {**R3, "id": "resp_1"}], "[1].previous_response_id", "appears twice"),
        ([{**R1, "previous_response_id": "resp_2"}, R2], "[0].previous_response_id", "form a cycle"),
    ],
)
def test_an_inconsistent_chain_is_refused(tmp_path: Path, chain: list[Any], location: str, words: str) -> None:
    with pytest.raises(ImportFormatError, match=words) as exc:
        read_openai_responses(_write(tmp_path, "bad.json", chain))
    assert exc.value.location == location


# --- 7. the SDK's models as data -----------------------------------------------------------------


def _sdk_response(n: int, prev: str | None, said: str) -> Response:
    out = _resp(n, prev, "", said)["output"]
    return Response.model_validate(
        {
            "id": f"resp_{n}",
            "object": "response",
            "created_at": 1_700_000_000 + n,
            "model": "gpt-5",
            "previous_response_id": prev,
            "output": out,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    )


def test_sdk_models_are_accepted_as_data() -> None:
    one = read_openai_responses("run.json", data=_sdk_response(1, None, "A1"))
    assert _said(one) == [("assistant", "A1")]
    assert one.conversations[0].metadata["model"] == "gpt-5"
    chain = read_openai_responses("run.json", data=[_sdk_response(2, "resp_1", "A2"), _sdk_response(1, None, "A1")])
    # consecutive output items make one assistant message: A1 then A2, in chain order
    (msg,) = chain.conversations[0].messages
    assert [b["text"] for b in content_of(msg)] == ["A1", "A2"]
    assert metadata_of(msg)["response_id"] == "resp_1"
    assert msg.timestamp == 1_700_000_001
    items = read_openai_responses(
        "items.json", data=[ResponseOutputMessage.model_validate(_resp(4, None, "", "Hi")["output"][0])]
    )
    assert _said(items) == [("assistant", "Hi")]
