"""Helpers of the CLI tests: one runner, the shared Claude Code session they import, and a JSON call."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from context_journal.cli import app

runner = CliRunner()

SESSION = "claude-code-sessions/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
"""A real Claude Code session of ``../shared/data`` (308 messages)."""


def cli_json(*args: str) -> Any:
    """The JSON a command prints with ``--json`` (it must exit 0)."""
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)
