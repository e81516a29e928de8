"""The working-state block's share from the CLI (``compile --ledger-share``) and MCP (``compile_context``
``ledger_share``), on a real Claude Code session (a review found neither door could configure it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from context_journal import import_into, read_transcript
from context_journal.cli import app
from context_journal.mcp.tools import ToolBackend
from context_journal.stores import SQLiteStore

SESSION = "claude-code-sessions/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
runner = CliRunner()


@pytest.fixture(scope="module")
def session_db(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    db = tmp_path_factory.mktemp("doors") / "cc.db"
    with SQLiteStore(db) as store:
        import_into(store, read_transcript(data_dir / SESSION))
    return db


def _cli_parts(db: Path, *extra: str) -> dict[str, int]:
    res = runner.invoke(app, ["compile", "--store", str(db), "--budget", "16000", "--preview", "--json", *extra])
    assert res.exit_code == 0, res.output
    return dict(json.loads(res.stdout)["parts"])


def test_cli_ledger_share(session_db: Path) -> None:
    default = _cli_parts(session_db)["ledger"]
    small = _cli_parts(session_db, "--ledger-share", "0.05")["ledger"]
    assert small <= 0.05 * 16000 < default
    assert "ledger" not in _cli_parts(session_db, "--ledger-share", "0")
    res = runner.invoke(app, ["compile", "--store", str(session_db), "--budget", "16000", "--ledger-share", "2"])
    assert res.exit_code != 0 and "--ledger-share" in res.output


def test_mcp_ledger_share_is_for_the_call_only(session_db: Path) -> None:
    store = SQLiteStore(session_db)
    backend = ToolBackend(store)
    default = backend.compile_context(max_tokens=16000).parts["ledger"]
    small = backend.compile_context(max_tokens=16000, ledger_share=0.05).parts["ledger"]
    assert small <= 0.05 * 16000 < default
    assert "ledger" not in backend.compile_context(max_tokens=16000, ledger_share=0).parts
    assert backend.compile_context(max_tokens=16000).parts["ledger"] == default  # the next call: as before
    with pytest.raises(ValueError, match="ledger_share"):
        backend.compile_context(max_tokens=16000, ledger_share=1.5)
    backend.close()
    store.close()
