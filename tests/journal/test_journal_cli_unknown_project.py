"""CLI (a fresh review): the journal read commands refuse a project with no entry and name the
projects there are (as the MCP project tools do), instead of an empty, healthy-looking answer with exit 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from context_journal.cli import app
from tests.journal._journal_helpers import plan

runner = CliRunner()


@pytest.mark.parametrize(
    "command", [["summaries"], ["brief"], ["brief", "--build"], ["check"], ["show"], ["show", "--verify"], ["render"]]
)
def test_an_unknown_project_is_an_error_naming_the_projects(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "j.db"
    base = ["journal", "append", "--store", str(db), "--author", "ann", "--kind", "plan", "--body"]
    for project in ("alpha", "beta"):
        res = runner.invoke(app, [*base, json.dumps(plan()), "--project", project, "--key", f"k-{project}"])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["journal", *command, "--store", str(db), "--project", "alhpa"])
    assert res.exit_code == 1
    assert "no project 'alhpa'" in res.stderr and "the projects are: alpha, beta" in res.stderr
    res = runner.invoke(app, ["journal", *command, "--store", str(db), "--project", "alhpa", "--json"])
    assert res.exit_code == 1
    error = json.loads(res.stdout)["error"]
    assert error["type"] == "ProjectNotFoundError" and error["projects"] == ["alpha", "beta"]
    # A project that exists still reads.
    res = runner.invoke(app, ["journal", *command, "--store", str(db), "--project", "alpha"])
    assert res.exit_code == 0, res.output
