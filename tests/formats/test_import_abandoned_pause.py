"""A ``pause_turn`` that was never continued (a review finding): the paused call is abandoned, the
conversation after it is imported, and the compile shows the call as text."""

from __future__ import annotations

import json
from pathlib import Path

from context_journal.formats import import_into, read_transcript
from context_journal.manager import ContextManager
from context_journal.stores import MemoryStore

CALL = {"type": "server_tool_use", "id": "srvtoolu_p", "name": "web_search", "input": {"query": "x"}}


def test_an_anthropic_transcript_keeps_the_messages_after_a_paused_call(tmp_path: Path) -> None:
    path = tmp_path / "paused.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": "Go"},
                {"role": "assistant", "content": [CALL]},
                {"role": "user", "content": "hm"},
                {"role": "assistant", "content": "ok"},
            ]
        )
    )
    result = read_transcript(path)
    assert result.format == "anthropic"
    store = MemoryStore()
    report = import_into(store, result)
    assert (report.messages, report.skipped) == (4, 0)  # formerly 2 written, the last 2 refused
    cm = ContextManager(store)
    assert [m.content_dicts() for m in cm.get_messages()] == [
        [{"type": "text", "text": "Go"}],
        [CALL],  # stored as it was
        [{"type": "text", "text": "hm"}],
        [{"type": "text", "text": "ok"}],
    ]
    sent = cm.compile(100_000).to_anthropic(cache=False)["messages"]
    assert sent == [
        {"role": "user", "content": [{"type": "text", "text": "Go"}]},
        {"role": "assistant", "content": [{"type": "text", "text": '[called web_search {"query":"x"}]'}]},
        {"role": "user", "content": [{"type": "text", "text": "hm"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
    ]


def test_a_result_after_the_interruption_is_still_refused_and_reported(tmp_path: Path) -> None:
    result_block = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_p", "content": []}
    path = tmp_path / "late.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": "Go"},
                {"role": "assistant", "content": [CALL]},
                {"role": "user", "content": "hm"},
                {"role": "assistant", "content": [result_block, {"type": "text", "text": "ok"}]},
            ]
        )
    )
    report = import_into(MemoryStore(), read_transcript(path))
    assert report.messages == 3
    ((reason, count),) = report.skipped_by_reason.items()
    assert count == 1
    assert "web_search_tool_result answers server_tool_use 'srvtoolu_p', which is not earlier" in reason
