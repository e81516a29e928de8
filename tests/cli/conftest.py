"""Fixtures of the CLI tests: a real Claude Code session imported through the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from context_journal.cli import app

SESSION = "claude-code-sessions/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """A real Claude Code session (308 messages, ~170k tokens) imported with ``import``, not compressed
    (one store per test module; copy it before writing to it)."""
    session = data_dir / SESSION
    if not session.exists():
        pytest.skip(f"shared data not found at {session}")
    path = tmp_path_factory.mktemp("cc") / "cc.db"
    res = CliRunner().invoke(app, ["import", str(session), "--store", str(path), "--json"])
    assert res.exit_code == 0, res.output
    return path
