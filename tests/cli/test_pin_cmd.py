"""CLI: ``pin``, ``unpin`` and ``pins`` on a real Claude Code import, and the pinned message raw in
``compile``."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import SESSION, cli_json, runner

from context_journal.cli import app


def test_pin_unpin_and_compile_on_a_claude_code_session(tmp_path: Path, data_dir: Path) -> None:
    db = str(tmp_path / "cc.db")
    cli_json("import", str(data_dir / SESSION), "--store", db)
    messages = cli_json("show", "--store", db)["messages"]
    first = messages[0]["id"]  # the task the developer gave: far outside a 2,000-token window
    plain = cli_json("compile", "--store", db, "--budget", "2000", "--format", "anthropic")
    assert first not in json.dumps(plain)
    out = cli_json("pin", first, "--store", db)
    assert out == {"message_id": first, "changed": True, "sequence": out["sequence"], "pins": [first]}
    assert cli_json("pin", first, "--store", db)["changed"] is False
    listed = cli_json("pins", "--store", db)
    assert [r["message_id"] for r in listed] == [first] and listed[0]["visible"] and listed[0]["tokens"] > 0
    assert "Work on bead" in listed[0]["text"]
    pinned = runner.invoke(app, ["compile", "--store", db, "--budget", "2000", "--format", "anthropic"])
    assert pinned.exit_code == 0 and "Work on bead" in pinned.stdout
    table = runner.invoke(app, ["pins", "--store", db])
    assert table.exit_code == 0 and first[:12] in table.stdout
    bad = runner.invoke(app, ["unpin", "no-such-id", "--store", db])
    assert bad.exit_code == 1 and "no-such-id" in bad.output
    assert cli_json("unpin", first, "--store", db)["pins"] == []
    assert runner.invoke(app, ["pins", "--store", db]).stdout.strip() == "no pinned messages"
