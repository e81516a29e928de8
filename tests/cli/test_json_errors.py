"""CLI: with ``--json`` every failure prints one JSON object on stdout,
``{"ok": false, "error": {"type", "message", ...}}``, and exits non-zero; without it the error stays one
plain line on stderr. One helper (``cli._app.report_error``) does it for every command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from tests.hypothesis_budget import examples

runner = CliRunner()


def _store(tmp_path: Path, messages: int = 3) -> str:
    db = tmp_path / "s.db"
    with ContextManager.open(str(db)) as cm:
        for i in range(messages):
            cm.add_message("user" if i % 2 == 0 else "assistant", f"message number {i} " * 5)
    return str(db)


def _json_error(res: Any) -> dict[str, Any]:
    assert res.exit_code != 0, res.output
    lines = [line for line in res.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, res.stdout
    data = json.loads(lines[0])
    assert data["ok"] is False and set(data["error"]) >= {"type", "message"}
    assert isinstance(data["error"]["message"], str) and data["error"]["message"]
    error: dict[str, Any] = data["error"]
    return error


def test_compile_json_over_budget_is_a_json_error(tmp_path: Path) -> None:
    db = _store(tmp_path, 6)
    res = runner.invoke(app, ["compile", "--store", db, "--budget", "3", "--json"])
    error = _json_error(res)
    assert res.exit_code == 1
    assert error["type"] == "OverBudgetError"
    assert "budget" in error["message"]
    plain = runner.invoke(app, ["compile", "--store", db, "--budget", "3"])
    assert plain.exit_code == 1 and plain.stdout == "" and "error:" in plain.stderr


def test_compile_json_empty_store_and_missing_namespace(tmp_path: Path) -> None:
    empty = tmp_path / "e.db"
    ContextManager.open(str(empty)).close()
    error = _json_error(runner.invoke(app, ["compile", "--store", str(empty), "--budget", "100", "--json"]))
    assert error["type"] == "EmptyContextError"
    db = _store(tmp_path)
    error = _json_error(runner.invoke(app, ["compile", "--store", db, "--budget", "100", "-n", "nope", "--json"]))
    assert "nope" in error["message"]


def test_usage_errors_under_json_are_json(tmp_path: Path) -> None:
    db = _store(tmp_path)
    res = runner.invoke(app, ["compile", "--store", db, "--budget", "100", "--strategy", "windowd", "--json"])
    error = _json_error(res)
    assert res.exit_code == 2 and error["type"] == "BadParameter" and "windowd" in error["message"]
    res = runner.invoke(app, ["compile", "--store", db, "--budget", "lots", "--json"])
    assert res.exit_code == 2 and "--budget" in _json_error(res)["message"]
    res = runner.invoke(app, ["worker", "--store", db, "--provider", "nobody", "--json"])
    assert res.exit_code == 2 and "nobody" in _json_error(res)["message"]


COMMANDS: list[list[str]] = [
    ["compile", "--budget", "100"],
    ["search", "anything"],
    ["compress"],
    ["worker", "--until-idle"],
    ["state"],
    ["pins"],
    ["stats"],
    ["branch", "list"],
    ["journal", "show", "--project", "p"],
    ["verify"],
]


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(COMMANDS), name=st.sampled_from(["missing.db", "[bold]x[/].db", "a b.db"]))
def test_every_json_command_reports_a_missing_store_as_json(tmp_path: Path, command: list[str], name: str) -> None:
    store = str(tmp_path / "no" / name)
    res = runner.invoke(app, [*command, "--store", store, "--json"])
    error = _json_error(res)
    assert res.exit_code == 1 and error["type"] == "StoreError" and name in error["message"]


@pytest.mark.parametrize("command", COMMANDS[:3])
def test_without_json_errors_stay_one_line_on_stderr(tmp_path: Path, command: list[str]) -> None:
    res = runner.invoke(app, [*command, "--store", str(tmp_path / "none.db")])
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.startswith("error:") and "no store at" in " ".join(res.stderr.split())
