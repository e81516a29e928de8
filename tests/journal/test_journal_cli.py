"""CLI: ``context-journal journal append|summaries|brief|check|show|render`` with and without --json."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from context_journal.cli import app
from tests.journal._journal_helpers import handoff, plan

runner = CliRunner()


def _append(db: Path, kind: str, body: object, key: str, *extra: str) -> tuple[int, str]:
    args = ["journal", "append", "--project", "p", "--author", "ann", "--store", str(db), "--kind", kind]
    res = runner.invoke(app, [*args, "--key", key, "--body", json.dumps(body), *extra])
    return res.exit_code, res.stdout + res.stderr


def _filled(tmp_path: Path) -> Path:
    db = tmp_path / "j.db"
    assert _append(db, "plan", plan(tasks=2), "k0")[0] == 0
    for i in range(1, 5):
        rules = [(f"r{i}", f"idea {i}", "did not work")] if i % 2 else []
        assert _append(db, "handoff", handoff(f"state {i}", ruled_out=rules, claims=["T1"]), f"k{i}")[0] == 0
    return db


def test_append_outcomes_and_exit_codes(tmp_path: Path) -> None:
    db = tmp_path / "j.db"
    code, out = _append(db, "handoff", handoff("one"), "k1", "--json")
    assert code == 0 and json.loads(out)["status"] == "appended"
    code, out = _append(db, "handoff", handoff("one"), "k1")
    assert code == 0 and out.startswith("duplicate #1")
    code, out = _append(db, "handoff", handoff("two"), "k2", "--expected-seq", "0", "--json")
    assert code == 3 and json.loads(out.splitlines()[0])["status"] == "conflict"
    code, out = _append(db, "handoff", {"goal": "g"}, "k3")
    assert code == 1 and "refused" in out and "state" in out
    code, out = _append(db, "handoff", handoff("two"), "k1")
    assert code == 1 and "idempotency key" in out
    res = runner.invoke(
        app,
        ["journal", "append", "-s", str(db), "-p", "p", "-k", "step", "-a", "ann", "--key", "k4", "--body-file", "-"],
        input=json.dumps({"report": "from stdin"}),
    )
    assert res.exit_code == 0 and "appended #2" in res.stdout
    body_file = tmp_path / "b.json"
    body_file.write_text(json.dumps({"report": "from a file"}))
    res = runner.invoke(
        app,
        [
            "journal",
            "append",
            "-p",
            "p",
            "-k",
            "step",
            "-a",
            "a",
            "--key",
            "k5",
            "--body-file",
            str(body_file),
            "-s",
            str(db),
        ],
    )
    assert res.exit_code == 0
    res = runner.invoke(app, ["journal", "append", "-s", str(db), "-p", "p", "-k", "step", "-a", "a", "--key", "k6"])
    assert res.exit_code == 2 and "--body" in res.output
    res = runner.invoke(
        app, ["journal", "append", "-s", str(db), "-p", "bad slug", "-k", "step", "-a", "a", "--key", "k", "-b", "{}"]
    )
    assert res.exit_code == 2 and "slug" in res.output


def test_summaries_brief_check_show_render(tmp_path: Path) -> None:
    db = _filled(tmp_path)
    base = ["--store", str(db), "--project", "p"]
    res = runner.invoke(app, ["journal", "summaries", *base, "--limit", "2", "--json"])
    assert res.exit_code == 0, res.output
    page = json.loads(res.stdout)
    assert [s["seq"] for s in page["summaries"]] == [5, 4] and page["next_before_seq"] == 4
    res = runner.invoke(app, ["journal", "summaries", *base, "--before", "4"])
    assert res.exit_code == 0 and "state 2" in res.stdout and "2 active rule-outs" in res.stdout

    res = runner.invoke(app, ["journal", "brief", *base, "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout) is None
    res = runner.invoke(app, ["journal", "brief", *base, "--build", "--json"])
    assert res.exit_code == 0, res.output
    brief = json.loads(res.stdout)
    assert (
        brief["version"] == 1
        and brief["status"] == "accepted"
        and [r["id"] for r in brief["rule_outs"]]
        == [
            "r1",
            "r3",
        ]
    )
    res = runner.invoke(app, ["journal", "brief", *base])
    assert res.exit_code == 0 and "brief v1" in res.stdout and "ruled out r1" in res.stdout

    res = runner.invoke(app, ["journal", "check", *base, "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["ok"] is True
    for i in range(3):
        _append(db, "step", {"report": f"more {i}"}, f"s{i}")
    res = runner.invoke(app, ["journal", "check", *base, "--stale-after", "2"])
    assert res.exit_code == 1 and "brief_stale" in res.stdout and "drift found" in res.stdout

    res = runner.invoke(app, ["journal", "show", *base, "--verify", "--json"])
    assert res.exit_code == 0
    shown = json.loads(res.stdout)
    assert [e["seq"] for e in shown["entries"]] == list(range(1, 9)) and shown["chain"]["ok"] is True
    res = runner.invoke(app, ["journal", "show", *base, "--last", "2"])
    assert res.exit_code == 0 and "more 2" in res.stdout
    res = runner.invoke(app, ["journal", "show", *base, "--seq", "2"])
    assert res.exit_code == 0 and '"state 1"' in res.stdout
    res = runner.invoke(app, ["journal", "show", *base, "--seq", "42"])
    assert res.exit_code == 1 and "no entry #42" in res.stderr

    res = runner.invoke(app, ["journal", "render", *base, "--max-tokens", "400"])
    assert res.exit_code == 0 and "do not propose" in res.stdout
    res = runner.invoke(app, ["journal", "render", *base, "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["tokens"] <= 2000


def test_read_commands_do_not_create_a_store(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.db"
    res = runner.invoke(app, ["journal", "summaries", "--store", str(missing), "--project", "p"])
    assert res.exit_code == 1 and not missing.exists()
