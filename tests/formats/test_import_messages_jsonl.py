"""The ``messages`` import format: one message per line as ``add_messages`` takes them, an optional
``{"conversation": ...}`` header, plain or gzip; damaged lines skipped and named; the demo ships in it."""

from __future__ import annotations

import gzip
import json
from importlib.resources import as_file, files
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from context_journal.cli import app
from context_journal.demo_data import DEMO_RESOURCE, demo_conversation
from context_journal.errors import ImportFormatError
from context_journal.formats import detect_format, import_into, read_transcript
from context_journal.manager import ContextManager
from context_journal.stores import MemoryStore

HEAD = {"conversation": {"id": "trip", "metadata": {"assistant": "assistant", "user": "user", "title": "Lisbon"}}}
MESSAGES: list[dict[str, Any]] = [
    {"id": "m1", "participant": "user", "content": "Plan a trip to Lisbon", "timestamp": "2024-03-04T09:00:00Z"},
    {
        "id": "m2",
        "participant": "assistant",
        "content": [{"type": "tool_use", "id": "t1", "name": "search", "input": {"q": "Lisbon hotels"}}],
        "timestamp": 1709542860.0,
        "metadata": {"model": "claude"},
    },
    {
        "id": "m3",
        "participant": "tool",
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "3 hotels"}],
    },
]


def _write(path: Path, rows: list[Any], gz: bool = False) -> Path:
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    return path


@pytest.mark.parametrize("gz", [False, True])
def test_a_messages_file_reads_back_as_written(tmp_path: Path, gz: bool) -> None:
    path = _write(tmp_path / ("log.jsonl.gz" if gz else "log.jsonl"), [HEAD, *MESSAGES], gz)
    assert detect_format(path) == "messages"
    result = read_transcript(path)
    assert result.format == "messages" and result.skipped == []
    conv = result.conversations[0]
    assert conv.id == "trip" and conv.primary and conv.metadata["title"] == "Lisbon"
    assert [(m.id, m.participant, m.content, m.metadata, m.timestamp) for m in conv.messages] == [
        (m["id"], m["participant"], m["content"], m.get("metadata"), m.get("timestamp")) for m in MESSAGES
    ]
    store = MemoryStore()
    report = import_into(store, result)
    assert report.conversations[0].written == 3
    assert import_into(store, read_transcript(path)).conversations[0].already_imported == 3  # ids make it idempotent
    cm = ContextManager.open(store=store, namespace="trip")
    assert [m.id for m in cm.get_all_messages()] == ["m1", "m2", "m3"]
    assert cm.get_message("m1").timestamp.isoformat() == "2024-03-04T09:00:00+00:00"


def test_damaged_lines_are_skipped_and_named_and_a_file_of_none_raises(tmp_path: Path) -> None:
    rows = [
        {"participant": "user", "content": "no id, no header"},
        "{not json",
        {"participant": "user", "content": "x", "role": "user"},
        {"participant": "", "content": "x"},
        {"participant": "assistant", "content": [{"type": "tool_use", "name": "search", "input": {}}]},
        {"participant": "user", "content": "x", "timestamp": "yesterday"},
        {"participant": "user", "content": 42},
        {"participant": "user", "content": "kept too"},
    ]
    path = _write(tmp_path / "damaged.jsonl", rows)
    result = read_transcript(path, format="messages")
    conv = result.conversations[0]
    assert [m.id for m in conv.messages] == ["messages:damaged.jsonl:1", "messages:damaged.jsonl:8"]
    reasons = " | ".join(s.reason for s in result.skipped)
    for line, words in [(2, "invalid JSON"), (3, "unknown keys ['role']"), (4, "participant"), (5, "content[0]"),
                        (6, "timestamp"), (7, "'content' must be")]:  # fmt: skip
        assert f"damaged.jsonl line {line}" in reasons and words in reasons, (line, reasons)
    with pytest.raises(ImportFormatError, match="no line of the file could be read"):
        read_transcript(_write(tmp_path / "bad.jsonl", [{"participant": 1, "content": "x"}]), format="messages")


def test_the_command_line_imports_a_messages_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "log.jsonl.gz", [HEAD, *MESSAGES], gz=True)
    db = str(tmp_path / "s.db")
    runner = CliRunner()
    res = runner.invoke(app, ["import", str(path), "--store", db, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["format"] == "messages"
    res = runner.invoke(app, ["import", str(path), "--store", db, "--format", "messags"])
    assert res.exit_code != 0 and "messages" in res.output


def test_the_demo_ships_as_a_messages_file() -> None:
    with as_file(files("context_journal") / DEMO_RESOURCE) as path:
        assert detect_format(path) == "messages"
        result = read_transcript(path)
    assert result.skipped == [] and result.conversations[0].id == "demo:tally"
    assert len(result.conversations[0].messages) == len(demo_conversation()) > 300


def test_a_real_session_round_trips_through_the_format(data_dir: Path, tmp_path: Path) -> None:
    """A Claude Code session of the shared data, written out as messages and read back: the same messages."""
    source = read_transcript(data_dir / "claude-code-sessions" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
    conv = source.conversations[0]
    rows: list[Any] = [{"conversation": {"id": conv.id, "metadata": conv.metadata}}]
    for m in conv.messages:
        row = {"id": m.id, "participant": m.participant, "content": m.content, "metadata": m.metadata}
        rows.append({**row, "timestamp": m.timestamp} if m.timestamp is not None else row)
    back = read_transcript(_write(tmp_path / "session.jsonl", rows))
    assert back.skipped == []
    got = back.conversations[0]
    assert got.id == conv.id and got.metadata == json.loads(json.dumps(conv.metadata))
    assert [(m.id, m.participant, m.content) for m in got.messages] == [
        (m.id, m.participant, json.loads(json.dumps(m.content))) for m in conv.messages
    ]
