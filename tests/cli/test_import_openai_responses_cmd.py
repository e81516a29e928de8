"""``context-journal import`` reads an OpenAI Responses API transcript."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app

runner = CliRunner()

ITEMS = [
    {"role": "developer", "content": "Be brief."},
    {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
    {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAABo+/x=="},
    {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city": "Paris"}'},
    {"type": "function_call_output", "call_id": "call_1", "output": "18C, rain"},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "18C.", "annotations": []}]},
]


def test_import_reads_a_responses_transcript_into_a_store(tmp_path: Path) -> None:
    src = tmp_path / "run.json"
    src.write_text(json.dumps(ITEMS))
    store = tmp_path / "s.db"
    res = runner.invoke(app, ["import", str(src), "--store", str(store), "--format", "openai-responses", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert (data["format"], data["messages"], data["skipped"]) == ("openai-responses", 5, 0)
    again = json.loads(runner.invoke(app, ["import", str(src), "--store", str(store), "--json"]).stdout)  # detected
    assert (again["format"], again["messages"], again["skipped"]) == ("openai-responses", 0, 5)
    with ContextManager.open(str(store)) as cm:
        items = cm.compile(10_000).to_openai_responses()
    assert [i["type"] for i in items] == [
        "message",
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "message",
    ]
    assert items[2] == ITEMS[2]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([ITEMS[1], {"type": "function_call", "name": "f"}]))
    res = runner.invoke(app, ["import", str(bad), "--store", str(tmp_path / "b.db"), "--format", "openai-responses"])
    assert res.exit_code == 1 and "at [1]" in res.output and "call_id" in res.output
