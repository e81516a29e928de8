"""The Claude Code importer on the real sessions in ``../shared/data/claude-code-sessions``.

Every expected figure is either the data README's table or recomputed here from the raw lines.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from context_journal.errors import ImportFormatError
from context_journal.formats import ImportResult, read_claude_code, read_transcript
from context_journal.formats.base import pairing_problems
from context_journal.messages import MessageInput, to_timestamp
from tests.imported import content_of, metadata_of

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "claude-code-sessions"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"data sets not found at {DATA}")

# From the data README: file -> (user lines, assistant lines, tool pairs, trigger, preTokens, summary chars)
SESSIONS = {
    "258c7280-ae70-4798-800f-63464d01a85d": (192, 299, 186, "auto", 167_094, 14_518),
    "4d5611e5-241a-462a-8d15-5122611a9569": (154, 254, 150, "auto", 170_251, 15_743),
    "8463c716-a2ea-4c14-9efa-87158ebd9f20": (180, 278, 177, "auto", 167_731, 12_181),
    "ae4a77f8-aedd-4bc1-888f-c94edc91af04": (249, 408, 242, "manual", 142_431, 16_162),
}

_cache: dict[str, ImportResult] = {}


def _read(name: str) -> ImportResult:
    if name not in _cache:
        _cache[name] = read_claude_code(DATA / f"{name}.jsonl")
    return _cache[name]


def _raw(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _blocks(m: MessageInput, kind: str) -> list[dict[str, Any]]:
    assert isinstance(m.content, list)
    return [b for b in m.content if isinstance(b, dict) and b.get("type") == kind]


def _raw_blocks(lines: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for d in lines:
        if d.get("type") in ("user", "assistant") and isinstance(d["message"]["content"], list):
            out.extend(b for b in d["message"]["content"] if b.get("type") == kind)
    return out


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_counts_equal_the_readme(name: str) -> None:
    user_lines, assistant_lines, pairs, *_ = SESSIONS[name]
    result = _read(name)
    main = result.conversations[0]
    assert main.primary and main.parent_id is None
    assistant = main.metadata["assistant"]
    assert assistant == "claude-opus-4-6"
    tool_uses = [b for m in main.messages for b in _blocks(m, "tool_use")]
    tool_results = [b for m in main.messages for b in _blocks(m, "tool_result")]
    assert len(tool_uses) == len(tool_results) == pairs
    # Every raw user/assistant line is accounted for: assistant lines inside assistant messages, user
    # lines inside the other messages, plus the one compaction-summary line kept as a marker.
    lines_by = Counter[str]()
    for m in main.messages:
        lines_by["assistant" if m.participant == assistant else "user"] += len(metadata_of(m)["source_lines"])
    assert lines_by["assistant"] == assistant_lines
    assert lines_by["user"] + 1 == user_lines
    # One assistant message per API response (distinct message.id), recomputed from the raw file.
    raw = _raw(DATA / f"{name}.jsonl")
    ids = {d["message"]["id"] for d in raw if d.get("type") == "assistant"}
    assert [m.id for m in main.messages if m.participant == assistant] == sorted(
        ids, key=[d["message"]["id"] for d in raw if d.get("type") == "assistant"].index
    )
    assert 139 <= len(ids) <= 217


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_every_tool_use_is_answered_in_the_next_message(name: str) -> None:
    for conv in _read(name).conversations:
        assert pairing_problems(conv.messages) == {}
        for k, m in enumerate(conv.messages):
            uses = {b["id"] for b in _blocks(m, "tool_use")}
            if uses:
                answered = {b["tool_use_id"] for b in _blocks(conv.messages[k + 1], "tool_result")}
                assert answered == uses, (conv.id, m.id)
        assert "unanswered_tool_uses" not in conv.metadata and "orphan_tool_results" not in conv.metadata


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_ids_and_timestamps_are_kept(name: str) -> None:
    raw = _raw(DATA / f"{name}.jsonl")
    with (DATA / f"{name}.jsonl").open(encoding="utf-8") as lines:
        by_line = {i: json.loads(x) for i, x in enumerate(lines, start=1)}
    main = _read(name).conversations[0]
    assert {b["id"] for m in main.messages for b in _blocks(m, "tool_use")} == {
        b["id"] for b in _raw_blocks(raw, "tool_use")
    }
    assert {b["tool_use_id"] for m in main.messages for b in _blocks(m, "tool_result")} == {
        b["tool_use_id"] for b in _raw_blocks(raw, "tool_result")
    }
    assert len({m.id for m in main.messages}) == len(main.messages)
    for m in main.messages:
        first = by_line[metadata_of(m)["source_lines"][0]]
        assert m.timestamp == first["timestamp"]
        assert isinstance(m.timestamp, str) and to_timestamp(m.timestamp) > 1.7e9
        if m.participant == main.metadata["assistant"]:
            assert m.id == first["message"]["id"]
            assert metadata_of(m)["model"] == first["message"]["model"]
            assert "usage" in metadata_of(m)
    stamps = [to_timestamp(m.timestamp) for m in main.messages if isinstance(m.timestamp, str)]
    assert datetime.fromtimestamp(stamps[0]) < datetime.fromtimestamp(stamps[-1])


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_compaction_is_a_marker_not_a_message(name: str) -> None:
    *_, trigger, pre_tokens, summary_chars = SESSIONS[name]
    result = _read(name)
    main = result.conversations[0]
    (marker,) = main.metadata["markers"]
    assert marker["kind"] == "compaction"
    assert (marker["trigger"], marker["preTokens"]) == (trigger, pre_tokens)
    assert len(marker["summary"]) == summary_chars
    ids = {m.id for m in main.messages}
    assert marker["summary_uuid"] not in ids
    assert not any(marker["summary"][:200] in b.get("text", "") for m in main.messages for b in _blocks(m, "text"))
    assert 0 < marker["position"] < len(main.messages)
    after = main.messages[marker["position"]]
    assert after.metadata["after_compaction"] == marker["uuid"]
    # The compaction call's file is its own conversation, linked to the marker.
    compaction = result.conversation(marker["conversation_id"])
    assert compaction.metadata["kind"] == "compaction-call"
    assert compaction.parent_id == main.id and compaction.metadata["compaction_marker"] == marker["uuid"]


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_subagents_are_linked_child_conversations(name: str) -> None:
    result = _read(name)
    main = result.conversations[0]
    files = sorted((DATA / name / "subagents").glob("agent-*.jsonl"))
    children = result.conversations[1:]
    assert [c.id.rsplit(":", 1)[1] for c in children] == [f.stem for f in files]
    task_ids = {b["id"] for m in main.messages for b in _blocks(m, "tool_use") if b["name"] == "Task"}
    for child, file in zip(children, files, strict=True):
        assert child.parent_id == main.id and not child.primary
        assert child.metadata["assistant"] == f"subagent:{file.stem[len('agent-') :]}"
        raw = _raw(file)
        assert sum(len(_blocks(m, "tool_use")) for m in child.messages) == len(_raw_blocks(raw, "tool_use"))
        if child.metadata["kind"] == "subagent":
            assert child.metadata["parent_tool_use_id"] in task_ids
            assert child.metadata["user"] == main.metadata["assistant"]
            assert child.metadata["subagent_type"]


def test_skipped_lines_are_reported_by_reason() -> None:
    name = "258c7280-ae70-4798-800f-63464d01a85d"
    result = _read(name)
    files = [DATA / f"{name}.jsonl", *sorted((DATA / name / "subagents").glob("*.jsonl"))]
    raw = [d for f in files for d in _raw(f)]
    reasons = {s.reason: s for s in result.skipped}
    for kind in ("progress", "file-history-snapshot", "queue-operation"):
        assert reasons[kind].count == sum(1 for d in raw if d.get("type") == kind)
    assert reasons["system/turn_duration"].count == 1
    assert reasons["system/stop_hook_summary"].count == 3
    assert reasons["whitespace-only text block"].count == sum(
        1 for b in _raw_blocks(raw, "text") if not b["text"].strip()
    )
    assert all(s.sample_locations and ":line " in s.sample_locations[0] for s in result.skipped)
    assert result.skipped_count == sum(s.count for s in result.skipped)


def test_injected_text_is_flagged() -> None:
    result = _read("ae4a77f8-aedd-4bc1-888f-c94edc91af04")
    main = result.conversations[0]
    flagged = [m for m in main.messages if metadata_of(m).get("system_injected")]
    assert {metadata_of(m)["injected_kind"] for m in flagged} >= {"meta", "local-command"}
    assert all(m.participant == "developer" for m in flagged)
    human = [m for m in main.messages if m.participant == "developer" and not metadata_of(m).get("system_injected")]
    assert any("Work on bead spotter-4te" in b["text"] for m in human for b in _blocks(m, "text"))
    compaction = next(c for c in result.conversations if c.metadata["kind"] == "compaction-call")
    assert compaction.metadata["user"] == "claude-code"
    # Redacted thinking signatures are dropped (they cannot be replayed) and counted.
    thinking = [b for m in main.messages for b in _blocks(m, "thinking")]
    assert thinking and all("signature" not in b for b in thinking)
    assert sum(metadata_of(m).get("redacted_signatures", 0) for m in main.messages) == len(thinking)


def test_short_fixture() -> None:
    result = read_transcript(DATA / "short.jsonl")
    assert result.format == "claude-code"
    (conv,) = result.conversations
    assert [m.participant for m in conv.messages] == ["developer", "claude-opus-4-6", "tools:claude-code", "developer"]
    prompt, answer, results, interrupt = conv.messages
    assert prompt.content == [{"type": "text", "text": "mix phx.server doesnt seem to start"}]
    assert [b["type"] for b in content_of(answer)] == ["thinking", "text", "tool_use", "tool_use"]
    assert _blocks(answer, "thinking")[0]["signature"].startswith("EsMC")  # a real signature is kept
    assert answer.id == "msg_01MKH1ccEGrZGNPvu8pYiiQa" and metadata_of(answer)["source_lines"] == [5, 6, 7, 8, 10]
    assert [b["tool_use_id"] for b in _blocks(results, "tool_result")] == [b["id"] for b in _blocks(answer, "tool_use")]
    assert all(b["is_error"] for b in _blocks(results, "tool_result"))
    assert metadata_of(results)["answers"] == answer.id
    assert interrupt.timestamp == "2026-02-10T21:12:02.480Z"
    assert {s.reason: s.count for s in result.skipped} == {
        "progress": 3,
        "system/local_command": 2,
        "file-history-snapshot": 1,
        "whitespace-only text block": 1,
    }


def _copy_short(tmp_path: Path) -> tuple[Path, list[str]]:
    target = tmp_path / "session.jsonl"
    shutil.copy(DATA / "short.jsonl", target)
    return target, target.read_text(encoding="utf-8").splitlines()


def test_a_line_cut_in_the_middle_is_skipped_and_named(tmp_path: Path) -> None:
    """A review found (damaged input): one damaged line no longer fails the file; it is left out and reported
    under a reason naming the file and line. A file with no readable line still raises, naming it."""
    target, lines = _copy_short(tmp_path)
    clean = read_claude_code(target)
    lines[6] = lines[6][: len(lines[6]) // 2]  # line 7 cut in the middle
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = read_claude_code(target)
    assert clean.message_count - 1 <= result.message_count <= clean.message_count
    reasons = [s.reason for s in result.skipped]
    assert any(r.startswith("session.jsonl line 7: invalid JSON") and "skipped" in r for r in reasons), reasons
    target.write_text(lines[6] + "\n", encoding="utf-8")
    with pytest.raises(ImportFormatError) as info:
        read_claude_code(target)
    assert info.value.location == "line 1" and info.value.source == str(target)
    assert "session.jsonl at line 1: no line of the file could be read" in str(info.value)


@pytest.mark.parametrize(
    ("bad", "needle"),
    [
        ("[1, 2]", "JSON object"),
        ('{"type": "assistant", "uuid": "x"}', "'message'"),
        ('{"uuid": "x", "message": {}}', "'type'"),
        (
            '{"type": "assistant", "message": {"id": "m", "content": [{"type": "tool_use", "name": "Bash"}]}}',
            "tool_use",
        ),
    ],
)
def test_wrong_shapes_are_skipped_and_named(tmp_path: Path, bad: str, needle: str) -> None:
    target, lines = _copy_short(tmp_path)
    clean = read_claude_code(target)
    lines.insert(4, bad)  # becomes line 5
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = read_claude_code(target)
    assert result.message_count == clean.message_count
    assert [m.id for m in result.conversations[0].messages] == [m.id for m in clean.conversations[0].messages]
    named = [
        s.reason for s in result.skipped if s.reason.startswith(("session.jsonl line 5: ", "session.jsonl line 5,"))
    ]
    assert len(named) == 1 and needle in named[0] and named[0].endswith("the line was skipped"), result.skipped
    target.write_text(bad + "\n", encoding="utf-8")  # nothing else: the file is not a session
    with pytest.raises(ImportFormatError, match=needle) as info:
        read_claude_code(target)
    assert str(info.value.location).startswith("line 1")
