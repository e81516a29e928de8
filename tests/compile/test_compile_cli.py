"""CLI: ``context-journal compile`` with each strategy and output format, and clean errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from context_journal.cli import app
from context_journal.manager import ContextManager
from context_journal.validate import validate_messages, validate_openai_messages
from tests.compile.compile_helpers import words

runner = CliRunner()


def _store(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    with ContextManager.open(path) as cm:
        cm.add_message("system", "You are a file assistant.")
        for i in range(40):
            cm.add_message("user" if i % 2 == 0 else "Claude", words(40, i))
        cm.add_message("Claude", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "/a"}}])
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": ""}])
    return path


def test_compile_json_summary(tmp_path: Path) -> None:
    path = _store(tmp_path)
    res = runner.invoke(app, ["compile", "--store", str(path), "--budget", "800", "--reserve", "100", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert {"tokens", "budget", "messages", "repairs", "dropped"} <= set(data)
    assert data["budget"] == 700 and 0 < data["tokens"] <= 700
    assert data["dropped"] > 0
    assert [r["kind"] for r in data["repairs"]] == ["empty_result_filled"]


def test_compile_formats_and_strategies(tmp_path: Path) -> None:
    path = _store(tmp_path)
    for strategy in ("passthrough", "windowed"):
        res = runner.invoke(
            app, ["compile", "-s", str(path), "--budget", "2000", "--strategy", strategy, "--format", "anthropic"]
        )
        assert res.exit_code == 0, res.output
        params = json.loads(res.stdout)
        assert params["system"][0]["text"] == "You are a file assistant."
        assert validate_messages(params["messages"], alternate=True) == []
    res = runner.invoke(app, ["compile", "-s", str(path), "--budget", "2000", "--format", "openai"])
    assert res.exit_code == 0, res.output
    assert validate_openai_messages(json.loads(res.stdout)["messages"]) == []
    res = runner.invoke(app, ["compile", "-s", str(path), "--budget", "2000", "--preview"])
    assert res.exit_code == 0, res.output
    whole = json.loads(res.stdout)
    assert whole["strategy"] == "passthrough" and whole["messages"][-1]["role"] == "user"


def test_compile_errors_are_clean(tmp_path: Path) -> None:
    path = _store(tmp_path)
    res = runner.invoke(app, ["compile", "--store", str(path), "--budget", "5"])
    assert res.exit_code == 1
    assert "budget" in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["compile", "--store", str(tmp_path / "missing.db"), "--budget", "500"])
    assert res.exit_code == 1
    res = runner.invoke(app, ["compile", "--store", str(path), "--budget", "500", "--strategy", "nope"])
    assert res.exit_code == 2
