"""Helpers of the CLI tests: one runner, the shared Claude Code session they import, and a JSON call."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from context_journal.cli import app
from tests.real_stores import CLAUDE_CODE_SESSION

runner = CliRunner()

SESSION = CLAUDE_CODE_SESSION
"""A real Claude Code session of ``../shared/data`` (308 messages); the ``cli_imported_session`` fixture
is it imported with ``import --json``."""


def cli_json(*args: str) -> Any:
    """The JSON a command prints with ``--json`` (it must exit 0)."""
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)
