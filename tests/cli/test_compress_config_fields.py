"""CLI (a fresh review): ``compress --config`` with a field that does not exist names the closest
field and lists the valid ones (it said only "__init__() got an unexpected keyword argument")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from context_journal import AutobiographicalConfig, AutobiographicalStrategy
from context_journal.cli import app

runner = CliRunner()


def test_an_unknown_config_field_lists_the_fields(tmp_path: Path, data_dir: Path) -> None:
    db = tmp_path / "s.db"
    session = data_dir / "claude-code-sessions" / "short.jsonl"
    assert runner.invoke(app, ["import", str(session), "--store", str(db)]).exit_code == 0
    res = runner.invoke(app, ["compress", "--store", str(db), "--config", '{"recent_window": 500}', "--json"])
    assert res.exit_code == 1
    message = json.loads(res.stdout)["error"]["message"]
    assert "unknown AutobiographicalConfig field 'recent_window'" in message
    assert "did you mean 'recent_window_tokens'?" in message
    assert "the fields are: head_window_tokens, recent_window_tokens, target_chunk_tokens" in message
    assert "unexpected keyword" not in message


def test_the_library_names_the_fields_too() -> None:
    for make in (
        lambda: AutobiographicalConfig.for_budget(4000, chunk_tokens=10),
        lambda: AutobiographicalConfig().with_(chunk_tokens=10),
        lambda: AutobiographicalStrategy(chunk_tokens=10),
    ):
        with pytest.raises(TypeError, match=r"'chunk_tokens' \(did you mean 'target_chunk_tokens'\?\); the fields are"):
            make()
