"""CLI: stats and show on a real store, with --json, and clean errors at the edge."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from tests.cli.cli_helpers import cli_json

runner = CliRunner()


def _store(tmp_path: Path) -> Path:
    path = tmp_path / "s.db"
    with ContextManager.open(path) as cm:
        for i in range(12):
            cm.add_message("user" if i % 2 == 0 else "Claude", f"message {i}")
        cm.add_message("Claude", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "/a"}}])
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}])
    return path


def test_stats_json(tmp_path: Path) -> None:
    path = _store(tmp_path)
    res = runner.invoke(app, ["stats", "--store", str(path), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["messages"] == 14
    assert data["branches"] == 1
    assert data["payload_bytes"] > 0
    assert data["bytes_on_disk"] >= data["payload_bytes"]


def test_show_last_json_and_table(tmp_path: Path) -> None:
    path = _store(tmp_path)
    res = runner.invoke(app, ["show", "--store", str(path), "--last", "3", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["total"] == 14
    assert [m["content"][0]["type"] for m in data["messages"]] == ["text", "tool_use", "tool_result"]
    res = runner.invoke(app, ["show", "--store", str(path), "--last", "2"])
    assert res.exit_code == 0
    assert "tool_use Read t1" in res.stdout and "2 of 14" in res.stdout


def test_missing_store_and_branch_are_clean_errors(tmp_path: Path) -> None:
    res = runner.invoke(app, ["show", "--store", str(tmp_path / "none.db")])
    assert res.exit_code == 1
    assert "no store at" in res.output
    assert not (tmp_path / "none.db").exists()
    path = _store(tmp_path)
    res = runner.invoke(app, ["show", "--store", str(path), "--branch", "nope"])
    assert res.exit_code == 1 and "no live branch named 'nope'" in res.output


def test_import_json_on_real_data_then_reimport(tmp_path: Path, data_dir: Path) -> None:
    store = tmp_path / "tau.db"
    src = data_dir / "tau-bench-airline" / "gpt-4o-airline-dev150.json"
    res = runner.invoke(app, ["import", str(src), "--store", str(store), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert (data["format"], data["conversations"], data["messages"], data["skipped"]) == ("tau-bench", 150, 3916, 0)
    again = json.loads(runner.invoke(app, ["import", str(src), "--store", str(store), "--json"]).stdout)
    assert (again["messages"], again["skipped"]) == (0, 3916)
    stats = json.loads(runner.invoke(app, ["stats", "--store", str(store), "--json"]).stdout)
    assert stats["messages"] == 3916


def test_import_with_progress_bar_and_bad_format(tmp_path: Path, data_dir: Path) -> None:
    src = data_dir / "claude-code-sessions" / "short.jsonl"
    res = runner.invoke(app, ["import", str(src), "--store", str(tmp_path / "s.db")])
    assert res.exit_code == 0, res.output
    assert "imported 4 messages" in res.stdout
    res = runner.invoke(app, ["import", str(src), "--store", str(tmp_path / "s.db"), "--format", "nope"])
    assert res.exit_code != 0
    res = runner.invoke(app, ["import", str(src), "--store", str(tmp_path / "s.db"), "--format", "locomo"])
    assert res.exit_code == 1 and "error:" in res.output


def test_import_B51_lone_surrogate_is_read_as_u_fffd_and_reported(tmp_path: Path) -> None:
    """B51: an Anthropic transcript whose tool result holds half a surrogate pair: ``import --format
    anthropic`` writes every message, the bad character read as U+FFFD, reports the repair (message,
    block) instead of failing the file, and the store then compiles and exports valid JSON with the
    call answered by its own result."""
    case = json.loads((Path(__file__).resolve().parents[3] / "shared" / "bug-cases" / "B51.json").read_text())
    transcript = tmp_path / "b51.json"
    transcript.write_text(
        json.dumps({"messages": [{"role": m["role"], "content": m["content"]} for m in case["messages"]]})
    )
    assert "\\ud83d" in transcript.read_text()
    store = tmp_path / "b51.db"
    res = runner.invoke(app, ["import", str(transcript), "--store", str(store), "--format", "anthropic", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    # Every message was written: the repair is reported as such, not as a skip (a review saw "skipped 1").
    assert (data["messages"], data["skipped"], data["skipped_by_reason"], data["repaired"]) == (3, 0, {}, 1)
    [reason] = data["repaired_by_reason"]
    assert "anthropic:b51:2" in reason and "block 0" in reason and "surrogate" in reason and "U+FFFD" in reason
    again = runner.invoke(app, ["import", str(transcript), "--store", str(tmp_path / "b51b.db"), "-f", "anthropic"])
    assert "; skipped 0, repaired 1" in again.output and "  repaired 1: anthropic:b51: message" in again.output
    res = runner.invoke(app, ["compile", "--store", str(store), "--budget", "10000", "--format", "anthropic"])
    assert res.exit_code == 0, res.output
    params = json.loads(res.stdout)
    json.dumps(params, ensure_ascii=False).encode("utf-8")  # encodable: no lone surrogate
    result = params["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "t1" and not result.get("is_error")
    assert json.dumps(result["content"], ensure_ascii=False).count("build ok \ufffd") == 1


def test_branch_commands_echo_names_as_typed(tmp_path: Path) -> None:
    """A branch name with rich markup prints as typed in every branch command (never styled or raising)."""
    db = tmp_path / "b.db"
    with ContextManager.open(db) as cm:
        cm.add_message("user", "hello")
    name = "[bold]br[/bold]"
    res = runner.invoke(app, ["branch", "fork", name, "--store", str(db)])
    assert res.exit_code == 0 and name in res.output, res.output
    res = runner.invoke(app, ["branch", "list", "--store", str(db)])
    assert res.exit_code == 0 and name in res.output, res.output
    res = runner.invoke(app, ["branch", "switch", name, "--store", str(db)])
    assert res.exit_code == 0 and name in res.output, res.output
    res = runner.invoke(app, ["branch", "switch", "main", "--store", str(db)])
    assert res.exit_code == 0
    res = runner.invoke(app, ["branch", "delete", name, "--store", str(db)])
    assert res.exit_code == 0 and name in res.output, res.output


def test_branch_fork_at_a_message_of_an_imported_conversation(tmp_path: Path, data_dir: Path) -> None:
    """An imported conversation keeps its messages in a namespace of its own: ``branch fork --at ID -n NS``
    finds the message there (a review found fork had no ``-n``, so no imported message could be a fork
    point), the fork holds the conversation up to it, and an unknown namespace is refused."""
    db = str(tmp_path / "l.db")
    cli_json("import", str(data_dir / "locomo" / "locomo-dev7.json"), "--store", db)
    ns = "locomo:conv-26"
    ids = [m["id"] for m in cli_json("show", "--store", db, "-n", ns)["messages"]]
    at = ids[10]
    plain = runner.invoke(app, ["branch", "fork", "early", "--at", at, "--store", db])
    assert plain.exit_code == 1 and at in plain.output  # not in the shared namespace
    out = cli_json("branch", "fork", "early", "--at", at, "-n", ns, "--store", db)
    assert out["name"] == "early" and out["parent"] == "main"
    held = cli_json("show", "--store", db, "-n", ns, "--branch", "early")["messages"]
    assert [m["id"] for m in held] == ids[:11]
    bad = runner.invoke(app, ["branch", "fork", "x", "--at", at, "-n", "nope", "--store", db])
    assert bad.exit_code == 1 and "no namespace 'nope'" in bad.output
