"""Plain Anthropic Messages and OpenAI Chat Completions transcripts, and format detection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_journal.errors import ImportFormatError
from context_journal.formats import detect_format, read_anthropic, read_openai, read_transcript
from context_journal.formats.base import pairing_problems
from tests.imported import metadata_of

ANTHROPIC: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "system": "You are terse.",
    "messages": [
        {"role": "user", "content": "What is in /tmp?"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "list it", "signature": "sig=="},
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "/tmp"}},
                {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt", "is_error": False}],
            "timestamp": "2025-01-02T03:04:05Z",
        },
        {"role": "assistant", "content": "One file: a.txt", "cache_hint": 1},
        {"role": "user", "content": "   "},
    ],
}

OPENAI: dict[str, Any] = {
    "messages": [
        {"role": "developer", "content": "Be helpful."},
        {
            "role": "user",
            "name": "ann",
            "content": [
                {"type": "text", "text": "Weather in Paris and Rome?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
                {"type": "input_audio", "input_audio": {"data": "", "format": "wav"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Paris"}'}},
                {"id": "call_b", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Ro'}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_b", "content": [{"type": "text", "text": "rain"}]},
        {"role": "assistant", "content": "Paris is sunny, Rome rainy."},
    ]
}


def _write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_anthropic(tmp_path: Path) -> None:
    path = _write(tmp_path, "chat.json", ANTHROPIC)
    assert detect_format(path) == "anthropic"
    result = read_transcript(path)
    (conv,) = result.conversations
    assert conv.id == "anthropic:chat" and conv.primary and conv.metadata["model"] == "claude-sonnet-4-5"
    assert [m.participant for m in conv.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert [m.id for m in conv.messages] == ["anthropic:chat:system"] + [f"anthropic:chat:{i}" for i in range(4)]
    assistant = conv.messages[2]
    # Signed thinking kept byte-identical; a provider-side call is kept too (without its result,
    # as a pause_turn response ends).
    assert assistant.content == ANTHROPIC["messages"][1]["content"]
    assert conv.messages[3].timestamp == "2025-01-02T03:04:05Z"
    assert pairing_problems(conv.messages) == {}
    assert {s.reason: s.count for s in result.skipped} == {"empty message": 1}
    assert result.skipped_count == 1


def test_anthropic_bare_list_and_malformed_block(tmp_path: Path) -> None:
    path = _write(tmp_path, "list.json", ANTHROPIC["messages"][:1])
    assert read_anthropic(path).message_count == 1
    # A review found: a malformed block (a tool_use without an id, a text that is not text, a NUL in a
    # tool name) failed the whole file; its message is skipped and reported at the block, the rest read.
    bad = [
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "name": "x"}]},
        {"role": "user", "content": [{"type": "text", "text": 5}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "gr\x00ep", "input": {}}]},
        {"role": "user", "content": "still here"},
    ]
    path = _write(tmp_path, "bad.json", {"system": "s", "messages": bad})
    result = read_transcript(path)
    assert [m.content for m in result.conversations[0].messages][-1] == [{"type": "text", "text": "still here"}]
    assert result.message_count == 2  # the system prompt and the last message
    places = {loc: s.reason for s in result.skipped for loc in s.sample_locations}
    assert set(places) == {"messages[0].content[1]", "messages[1].content[0]", "messages[2].content[0]"}, places
    assert all(reason.startswith("malformed content block") for reason in places.values())
    path = _write(tmp_path, "bad2.json", {"system": "s", "messages": [{"role": "robot", "content": "hi"}]})
    with pytest.raises(ImportFormatError, match="role") as info:
        read_anthropic(path)
    assert info.value.location == "messages[0]"


def test_openai(tmp_path: Path) -> None:
    path = _write(tmp_path, "oa.json", OPENAI)
    assert detect_format(path) == "openai"
    result = read_transcript(path)
    (conv,) = result.conversations
    assert [m.participant for m in conv.messages] == ["system", "ann", "assistant", "tool", "assistant"]
    user = conv.messages[1]
    assert user.content[1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
    }
    call = conv.messages[2]
    assert call.content == [
        {"type": "tool_use", "id": "call_a", "name": "weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "call_b", "name": "weather", "input": {"_raw_arguments": '{"city": "Ro'}},
    ]
    assert metadata_of(call)["unparsed_arguments"] == ["call_b"]
    merged = conv.messages[3]  # both tool messages answer one assistant message: merged into one
    assert merged.content == [
        {"type": "tool_result", "tool_use_id": "call_a", "content": "sunny"},
        {"type": "tool_result", "tool_use_id": "call_b", "content": "rain"},
    ]
    assert merged.id == "openai:oa:3" and metadata_of(merged)["indices"] == [3, 4]
    assert pairing_problems(conv.messages) == {}
    assert [s.reason for s in result.skipped] == ["unsupported content part 'input_audio'"]
    assert result.skipped[0].sample_locations == ("messages[1].content[2]",)


def test_openai_malformed(tmp_path: Path) -> None:
    path = _write(tmp_path, "oa.json", [{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}])
    with pytest.raises(ImportFormatError, match="tool_call_id") as info:
        read_openai(path)
    assert info.value.location == "messages[1]"
    path = _write(tmp_path, "oa2.json", {"messages": [{"role": "assistant", "tool_calls": [{"function": {}}]}]})
    with pytest.raises(ImportFormatError, match="tool call") as info:
        read_openai(path)
    assert info.value.location == "messages[0].tool_calls[0]"


def test_detection_errors(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match="no such"):
        detect_format(tmp_path / "missing.json")
    path = _write(tmp_path, "odd.json", {"hello": 1})
    with pytest.raises(ImportFormatError, match="cannot detect"):
        read_transcript(path)
    with pytest.raises(ImportFormatError, match="unknown format"):
        read_transcript(path, format="csv")
    truncated = tmp_path / "cut.json"
    truncated.write_text('{"messages": [{"role": "user",\n "content": "hi"', encoding="utf-8")
    with pytest.raises(ImportFormatError) as info:
        read_transcript(truncated)
    assert info.value.location == "line 2" and str(truncated) in str(info.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ImportFormatError, match="directory"):
        detect_format(tmp_path / "empty")


def test_openai_a_malformed_call_or_image_skips_only_its_message_or_part(tmp_path: Path) -> None:
    """A review found: importers check per message. A tool call whose name holds a NUL skips its
    assistant message (reported at the call); an image part that is not an image is left out and
    reported; the rest of the file is read."""
    raw = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "function": {"name": "a\x00b", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": "data:text/plain;base64,aGk="}},
                {"type": "text", "text": "see"},
            ],
        },
    ]
    result = read_openai(_write(tmp_path, "oa.json", raw))
    participants = [m.participant for m in result.conversations[0].messages]
    assert participants == ["user", "tool", "user"], participants
    assert result.conversations[0].messages[-1].content == [{"type": "text", "text": "see"}]
    places = {loc for s in result.skipped for loc in s.sample_locations}
    assert places == {"messages[1].tool_calls[0]", "messages[3].content[0]"}, places


def test_a_list_holding_only_provider_blocks_is_detected_as_anthropic(tmp_path: Path) -> None:
    """A bare message list whose only typed blocks are server-side tool blocks is Anthropic's shape (it was
    read as OpenAI chat, which has none of them)."""
    path = tmp_path / "server.json"
    call = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "tides"}}
    result = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
    path.write_text(json.dumps([{"role": "user", "content": "find"}, {"role": "assistant", "content": [call, result]}]))
    read = read_transcript(path)
    assert read.format == "anthropic"
    assert read.conversations[0].messages[1].content == [call, result]


@pytest.mark.parametrize("text", ["", "\n  \n"])
def test_an_empty_jsonl_file_is_not_taken_for_a_claude_code_session(tmp_path: Path, text: str) -> None:
    """A review: an empty ``.jsonl`` was detected as Claude Code and "imported 0 messages from 1
    conversation(s)". Detection says the file holds no records; with ``format=`` named, nothing is read."""
    path = tmp_path / "empty.jsonl"
    path.write_text(text)
    with pytest.raises(ImportFormatError, match="holds no records"):
        detect_format(path)
    with pytest.raises(ImportFormatError, match="holds no records"):
        read_transcript(path)
    assert sum(len(c.messages) for c in read_transcript(path, format="claude-code").conversations) == 0
