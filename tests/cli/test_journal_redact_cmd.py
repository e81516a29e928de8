"""CLI: ``context-journal journal redact`` erases an entry's body; ``verify`` and ``journal show`` report it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from typer.testing import CliRunner

from context_journal.cli import app
from context_journal.stores import SQLiteStore
from tests.journal._journal_helpers import handoff, plan

runner = CliRunner()
MARK = "PANGOLINSECRET9052"


def _filled(tmp_path: Path) -> Path:
    db = tmp_path / "j.db"
    bodies = [("plan", plan(tasks=2)), ("handoff", handoff("state one")), ("handoff", handoff(f"key {MARK}"))]
    for i, (kind, body) in enumerate(bodies, start=1):
        args = ["journal", "append", "-s", str(db), "-p", "p", "-k", kind, "-a", "ann", "--key", f"k{i}"]
        res = runner.invoke(app, [*args, "--body", json.dumps(body)])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["journal", "brief", "-s", str(db), "-p", "p", "--build", "--json"])
    assert res.exit_code == 0 and MARK in res.stdout
    return db


def test_journal_redact_then_verify_and_show(tmp_path: Path) -> None:
    db = _filled(tmp_path)
    store = SQLiteStore(db)
    body = store.journal_rows("p", after=2, upto=3)[0].body
    store.close()
    base = ["journal", "redact", "--store", str(db), "--project", "p", "--seq", "3"]

    res = runner.invoke(app, [*base, "--reason", "a key was pasted", "--by", "ops", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["type"] == "journal-redaction" and (out["project"], out["seq"], out["kind"]) == ("p", 3, "handoff")
    assert out["body_sha256"] == hashlib.sha256(body.encode()).hexdigest()
    assert (out["reason"], out["by"], out["briefs"], out["notes"]) == ("a key was pasted", "ops", [1], [])

    res = runner.invoke(app, ["verify", "--store", str(db), "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["ok"] and report["projects"]["p"] == {"ok": True, "checked": 3, "redacted": [3]}
    assert report["journal_redacted"] == 1
    res = runner.invoke(app, ["verify", "--store", str(db)])
    assert res.exit_code == 0 and res.stdout.startswith("ok:")
    line = " ".join(res.stdout.split())  # the console wraps long lines
    assert "records (1 redacted)," in line and "(3 entries), 1 journal entry redacted (p #3) verified" in line

    res = runner.invoke(app, ["journal", "show", "-s", str(db), "-p", "p", "--verify", "--json"])
    assert res.exit_code == 0 and MARK not in res.stdout
    shown = json.loads(res.stdout)
    assert shown["chain"] == {"ok": True, "checked": 3, "first_bad_seq": None, "redacted": [3]}
    assert [e["redacted"] for e in shown["entries"]] == [False, False, True]
    assert shown["entries"][2]["body"] == {"[redacted]": True, "body_sha256": out["body_sha256"]}
    res = runner.invoke(app, ["journal", "brief", "-s", str(db), "-p", "p", "--json"])
    assert res.exit_code == 0 and res.stdout.strip() == "null"  # the brief that quoted it is erased

    res = runner.invoke(app, [*base, "--reason", "again"])  # text output; nothing new is written
    line = " ".join(res.stdout.split())
    assert res.exit_code == 0 and f"redacted #3 (handoff) of p: body sha256 {out['body_sha256']}" in line


def test_journal_redact_refusals(tmp_path: Path) -> None:
    db = _filled(tmp_path)
    base = ["journal", "redact", "--store", str(db), "--project", "p"]
    res = runner.invoke(app, [*base, "--seq", "9", "--reason", "r"])
    assert res.exit_code == 1 and "#9" in res.output
    res = runner.invoke(app, [*base, "--seq", "2", "--reason", "  "])
    assert res.exit_code == 1 and "reason" in res.output
    res = runner.invoke(
        app, ["journal", "redact", "--store", str(db), "--project", "nope", "--seq", "1", "--reason", "r"]
    )
    assert res.exit_code == 1 and "no project 'nope'" in res.output
    res = runner.invoke(app, [*base, "--seq", "2"])  # --reason is required
    assert res.exit_code == 2
    res = runner.invoke(app, ["verify", "--store", str(db), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["projects"]["p"] == {"ok": True, "checked": 3}
