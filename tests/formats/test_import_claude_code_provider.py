"""The Claude Code importer and provider blocks: provider blocks kept, and the compaction records as a marker
(the decision and its evidence are in :mod:`context_journal.formats.claude_code`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_journal.formats import ImportResult, import_into, read_claude_code
from context_journal.manager import ContextManager
from context_journal.stores import MemoryStore
from tests.imported import metadata_of
from tests.provider_shapes import compaction_block, search_result_block, web_search_pair

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "claude-code-sessions"
MODEL = "claude-opus-4-6"


def _line(kind: str, uuid: str, content: Any, mid: str | None = None, **extra: Any) -> str:
    message: dict[str, Any] = {"role": kind, "content": content}
    if mid is not None:
        message.update({"id": mid, "model": MODEL})
    return json.dumps({"type": kind, "uuid": uuid, "sessionId": "s-2", "message": message, **extra})


def _write(tmp: Path, lines: list[str]) -> Path:
    path = tmp / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_result_without_its_call_in_the_response_is_left_out_and_reported(tmp_path: Path) -> None:
    call, result, answer = web_search_pair(0)
    lines = [
        _line("user", "u1", "search please"),
        _line("assistant", "a1", [call], "msg_01"),
        _line("user", "u2", "go on"),
        _line("assistant", "a2", [result], "msg_02"),  # another response: not where the provider puts it
        _line("assistant", "a3", [answer], "msg_02"),
    ]
    result_ = read_claude_code(_write(tmp_path, lines))
    (conv,) = result_.conversations
    # The paused call is followed by a user turn, not by its continuation: the store takes that (the
    # paused call is abandoned, and the compile shows it as text), so the call is kept as it was.
    assert [m.content for m in conv.messages[1::2]] == [[call], [answer]]
    skipped = {s.reason: s.count for s in result_.skipped}
    assert skipped["web_search_tool_result without its call earlier in the same response"] == 1
    assert "server call of a paused response without its continuation, kept as text" not in skipped
    store = MemoryStore()
    assert import_into(store, result_).messages == 4  # the store takes every message


def test_a_pause_turn_continuation_keeps_its_result_and_imports(tmp_path: Path) -> None:
    # Anthropic's pause_turn: the response msg_01 ends with the call; the continuation is a new response
    # (msg_02) that opens with the result.
    call, result, answer = web_search_pair(0)
    lines = [
        _line("user", "u1", "search please"),
        _line("assistant", "a1", [{"type": "text", "text": "Searching."}], "msg_01"),
        _line("assistant", "a2", [call], "msg_01", stop_reason="pause_turn"),
        _line("assistant", "a3", [result], "msg_02"),
        _line("assistant", "a4", [answer], "msg_02"),
        _line("user", "u2", "thanks"),
    ]
    result_ = read_claude_code(_write(tmp_path, lines))
    (conv,) = result_.conversations
    assert [m.content for m in conv.messages] == [
        [{"type": "text", "text": "search please"}],
        [{"type": "text", "text": "Searching."}, call],
        [result, answer],
        [{"type": "text", "text": "thanks"}],
    ]
    assert not {s.reason for s in result_.skipped} & {
        "web_search_tool_result without its call earlier in the same response",
        "server call of a paused response without its continuation, kept as text",
    }
    store = MemoryStore()
    assert import_into(store, result_).messages == 4
    cm = ContextManager(store)
    compiled = cm.compile(100_000).to_anthropic(cache=False)
    assert compiled["messages"][1]["content"] == [{"type": "text", "text": "Searching."}, call, result, answer]


def test_a_paused_response_left_newest_keeps_its_call(tmp_path: Path) -> None:
    call = web_search_pair(0)[0]
    lines = [_line("user", "u1", "search please"), _line("assistant", "a1", [call], "msg_01")]
    (conv,) = read_claude_code(_write(tmp_path, lines)).conversations
    assert conv.messages[-1].content == [call]


def test_a_server_side_compaction_block_and_a_search_result_in_a_tool_result(tmp_path: Path) -> None:
    inner = search_result_block(size=1)
    lines = [
        _line("user", "u1", "keep going"),
        _line("assistant", "a1", [compaction_block()], "msg_01"),
        _line(
            "assistant", "a2", [{"type": "tool_use", "id": "toolu_1", "name": "Search", "input": {"q": "x"}}], "msg_01"
        ),
        _line("user", "u2", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [inner]}]),
    ]
    (conv,) = read_claude_code(_write(tmp_path, lines)).conversations
    assert conv.messages[1].content[0] == compaction_block()
    assert conv.messages[2].content == [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [inner]}]


def test_a_list_summary_keeps_its_blocks_in_the_marker(tmp_path: Path) -> None:
    summary = [{"type": "text", "text": "This session is being continued."}, {"type": "text", "text": "Summary: A."}]
    lines = [
        _line("user", "u1", "hello"),
        _line("assistant", "a1", [{"type": "text", "text": "hi"}], "msg_01"),
        json.dumps(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "uuid": "b1",
                "compactMetadata": {"trigger": "manual", "preTokens": 9},
            }
        ),
        _line("user", "u2", summary, isCompactSummary=True),
        _line("user", "u3", "next"),
    ]
    (conv,) = read_claude_code(_write(tmp_path, lines)).conversations
    (marker,) = conv.metadata["markers"]
    assert marker["summary"] == "This session is being continued.\nSummary: A."
    assert marker["summary_content"] == summary
    assert (marker["position"], marker["trigger"]) == (2, "manual")
    assert [m.id for m in conv.messages] == ["u1", "msg_01", "u3"]


@pytest.mark.skipif(not DATA.is_dir(), reason=f"data sets not found at {DATA}")
@pytest.mark.parametrize(
    ("name", "after_tokens"),
    [
        ("258c7280-ae70-4798-800f-63464d01a85d", 33_960),
        ("4d5611e5-241a-462a-8d15-5122611a9569", 36_081),
        ("8463c716-a2ea-4c14-9efa-87158ebd9f20", 42_603),
        ("ae4a77f8-aedd-4bc1-888f-c94edc91af04", 45_263),
    ],
)
def test_compaction_evidence_the_summary_replaced_the_history(name: str, after_tokens: int) -> None:
    """The evidence for a marker: after the boundary the model was sent the summary, not the history
    (the first response's input is a fraction of ``preTokens``); the journal keeps the raw history, so
    an unbounded compile sends every message once and no summary."""
    (conv,) = read_claude_code(DATA / f"{name}.jsonl", include_subagents=False).conversations
    (marker,) = conv.metadata["markers"]
    first = next(m for m in conv.messages[marker["position"] :] if metadata_of(m).get("usage"))
    usage = metadata_of(first)["usage"]
    sent = usage["input_tokens"] + usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"]
    assert sent == after_tokens and sent < 0.35 * marker["preTokens"]
    assert marker["summary"].startswith("This session is being continued from a previous conversation")
    store = MemoryStore()
    import_into(store, ImportResult("claude-code", name, [conv]))
    compiled = ContextManager.open(store=store, strategy="passthrough").compile(100_000_000, render_dates=False)
    sent_text = json.dumps(compiled.to_anthropic())
    assert marker["summary"][200:300] not in sent_text
    assert len(compiled.messages) == len(conv.messages)
