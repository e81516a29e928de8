"""CLI: ``redact`` (one message, a range), ``redactions`` and ``retention set|show|apply`` on a real
Claude Code import: what is erased is gone from ``search``, ``show`` and ``compile``, the rest stays, and
``verify`` passes and counts the erased records."""

from __future__ import annotations

import json
from pathlib import Path

from context_journal.cli import app
from tests.cli.cli_helpers import SESSION, cli_json, runner
from tests.real_stores import copy_store


def test_redact_a_message_and_a_range_of_a_real_session(tmp_path: Path, cli_imported_session: Path) -> None:
    db = str(tmp_path / "cc.db")
    copy_store(cli_imported_session, Path(db))  # what `import --json` of SESSION writes
    messages = cli_json("show", "--store", db)["messages"]
    first = messages[0]
    assert "Work on bead" in json.dumps(first)
    assert cli_json("search", "bead", "--store", db)["hits"]
    before = len(messages)
    out = cli_json("redact", first["id"], "--store", db, "--reason", "customer request", "--by", "ops")
    assert [r["message_id"] for r in out] == [first["id"]] and out[0]["by"] == "ops" and out[0]["versions"]
    after = cli_json("show", "--store", db)["messages"]
    assert len(after) == before and after[0]["id"] == first["id"] and "Work on bead" not in json.dumps(after)
    assert "[redacted]" in json.dumps(after[0])
    compiled = runner.invoke(app, ["compile", "--store", db, "--budget", "100000", "--format", "anthropic"])
    assert compiled.exit_code == 0 and "Work on bead" not in compiled.stdout
    lo, hi = after[3]["id"], after[6]["id"]
    ranged = cli_json("redact", lo, "--to", hi, "--store", db, "--reason", "range")
    assert [r["message_id"] for r in ranged] == [m["id"] for m in after[3:7]]
    shown = cli_json("show", "--store", db)["messages"]
    assert len(shown) == before and sum("[redacted]" in json.dumps(m) for m in shown) == 5
    listed = cli_json("redactions", "--store", db)
    assert [r["reason"] for r in listed] == ["customer request"] + ["range"] * 4
    table = runner.invoke(app, ["redactions", "--store", db])
    assert table.exit_code == 0 and "customer" in table.stdout
    check = cli_json("verify", "--store", db)
    assert check["ok"] and check["redacted"] >= 5
    again = runner.invoke(app, ["redact", "no-such-id", "--store", db, "--reason", "x"])
    assert again.exit_code == 1 and "never held it" in again.output
    empty = runner.invoke(app, ["redact", lo, "--store", db, "--reason", ""])
    assert empty.exit_code == 1 and "reason" in empty.output


def test_retention_set_show_apply(tmp_path: Path, cli_imported_session: Path) -> None:
    db = str(tmp_path / "cc.db")
    copy_store(cli_imported_session, Path(db))  # what `import --json` of SESSION writes
    n = len(cli_json("show", "--store", db)["messages"])
    assert cli_json("retention", "show", "--store", db) == []
    bad = runner.invoke(app, ["retention", "set", "--store", db, "--days", "-3"])
    assert bad.exit_code == 1 and "retain_days" in bad.output
    both = runner.invoke(app, ["retention", "set", "--store", db])
    assert both.exit_code == 1 and "exactly one" in both.output
    cli_json("retention", "set", "--store", db, "--days", "36500")  # the session is from 2025: kept
    assert cli_json("retention", "apply", "--store", db) == []
    cli_json("retention", "set", "--store", db, "--days", "30")
    assert [p["retain_days"] for p in cli_json("retention", "show", "--store", db)] == [30.0]
    done = cli_json("retention", "apply", "--store", db)
    assert len(done) == n and all(r["reason"] == "retention: older than 30 days" for r in done)
    assert all("[redacted]" in json.dumps(m) for m in cli_json("show", "--store", db)["messages"])
    cli_json("retention", "set", "--store", db, "--clear")
    assert cli_json("retention", "show", "--store", db) == []
    assert cli_json("verify", "--store", db)["ok"]


def test_purge_a_branch_and_a_namespace(tmp_path: Path, data_dir: Path) -> None:
    db = str(tmp_path / "cc.db")
    cli_json("import", str(data_dir / SESSION), "--store", db, "--namespace", "cc")
    cli_json("branch", "fork", "side", "--store", db)
    refused = runner.invoke(app, ["purge", "branch", "main", "--store", db, "--reason", "x"])
    assert refused.exit_code == 1 and "root branch" in refused.output
    out = cli_json("purge", "branch", "side", "--store", db, "--reason", "scratch")
    assert out["kind"] == "branch" and out["target"] == "side"
    assert [b["name"] for b in cli_json("branch", "list", "--store", db)] == ["main"]
    gone = cli_json("purge", "namespace", "cc", "--store", db, "--reason", "customer left", "--by", "ops")
    assert gone["kind"] == "namespace" and len(gone["erased"]) > 100 and gone["notes"] == []
    search = runner.invoke(app, ["search", "bead", "--store", db, "-n", "cc", "--json"])
    assert "Work on bead" not in search.output
    assert cli_json("verify", "--store", db)["ok"]
