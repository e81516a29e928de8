"""A CLI error is one line on stderr however long, when stderr is not a terminal (issue 14 review: rich
wrapped it at 80 columns, splitting paths and names across lines)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from context_journal.cli import app


def test_a_long_error_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / ("a-very-long-directory-name-" * 6) / "store.db"
    res = CliRunner().invoke(app, ["show", "--store", str(missing)])
    assert res.exit_code == 1
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and str(missing) in lines[0], res.stderr
