"""Cache markers removed to keep a request within Anthropic's limit of 4 are reported by every door: a
warning in Python, a line on stderr from the CLI, ``cache_markers_dropped`` in the MCP result (a
review found the CLI and MCP results did not say so)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from context_journal.mcp.tools import ToolBackend
from context_journal.stores import SQLiteStore


def _marked_store(path: Path, messages: int) -> None:
    """``messages`` turns, each text block carrying a ``cache_control`` marker (a host that marks every
    turn, as some do)."""
    with ContextManager.open(path) as cm:
        for k in range(messages):
            block = {"type": "text", "text": f"turn {k}: the report query", "cache_control": {"type": "ephemeral"}}
            cm.add_message("user" if k % 2 == 0 else "assistant", [block])


def test_mcp_result_lists_the_markers_it_removed(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _marked_store(db, 8)
    store = SQLiteStore(db)
    backend = ToolBackend(store)
    out = backend.compile_context(max_tokens=4000)
    sent = [b for m in out.messages for b in m["content"] if isinstance(b, dict) and "cache_control" in b]
    assert len(sent) <= 4
    assert out.cache_markers_dropped and len(out.cache_markers_dropped) == 8 - len(sent)
    assert all(p.startswith("messages[") for p in out.cache_markers_dropped)
    few = tmp_path / "few.db"
    _marked_store(few, 2)
    assert ToolBackend(SQLiteStore(few)).compile_context(max_tokens=4000).cache_markers_dropped == []
    store.close()


def test_cli_says_so_on_stderr_and_keeps_stdout_valid(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    _marked_store(db, 8)
    res = CliRunner().invoke(app, ["compile", "--store", str(db), "--budget", "4000", "-f", "anthropic"])
    assert res.exit_code == 0, res.output
    request = json.loads(res.stdout)
    assert sum("cache_control" in b for m in request["messages"] for b in m["content"]) <= 4
    assert "cache_control marker(s) removed" in res.stderr
