"""A real Claude Code session (``../shared/data/claude-code-sessions``): the files the session edited
and wrote are in the ledger, the compiled context carries the block, and the CLI and MCP read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from context_journal import ContextManager, import_into, read_transcript
from context_journal.cli import app
from context_journal.stores import SQLiteStore

SESSION = "claude-code-sessions/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


@pytest.fixture(scope="module")
def session_db(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    db = tmp_path_factory.mktemp("cc") / "cc.db"
    with SQLiteStore(db) as store:
        import_into(store, read_transcript(data_dir / SESSION))
    return db


def _edited(data_dir: Path) -> dict[str, str]:
    """Paths the raw session edits or writes through tool calls, with Claude Code's tool name."""
    out: dict[str, str] = {}
    for line in (data_dir / SESSION).read_text().splitlines():
        rec = json.loads(line)
        content = rec.get("message", {}).get("content") if rec.get("type") == "assistant" else None
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block.get("name") in ("Edit", "Write", "MultiEdit"):
                out[block["input"]["file_path"]] = block["name"]
    return out


def test_files_edited_in_the_session_are_in_the_ledger(session_db: Path, data_dir: Path) -> None:
    edited = _edited(data_dir)
    assert len(edited) >= 5
    with ContextManager.open(session_db) as cm:
        state = cm.working_state()
        touched = {f.path: f for f in state.files}
        assert set(edited) <= set(touched)
        for path in edited:
            assert touched[path].action in ("edited", "written", "created")
        assert any(c.command for c in state.commands) and state.identifiers
        result = cm.compile(16_000)
        block = next(m.content[0]["text"] for m in result.messages if any(s.kind == "ledger" for s in m.sources))
        assert result.parts["ledger"] <= 0.15 * 16_000
        shown = [p for p in edited if p.rsplit("/", 1)[1] in block]
        assert len(shown) >= len(edited) // 2  # the most recently touched files, grouped by directory


def test_cli_state_and_mcp_get_working_state(session_db: Path) -> None:
    out = CliRunner().invoke(app, ["state", "--store", str(session_db), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["namespace"] == "default" and data["branch"] == "main" and data["state"]["files"]
    text = CliRunner().invoke(app, ["state", "--store", str(session_db)])
    assert text.exit_code == 0 and "Files touched" in text.output

    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")
    import anyio
    from mcp import Client

    from context_journal.mcp import build_server

    with SQLiteStore(session_db) as store:
        server, _backend = build_server(store)

        async def main() -> dict[str, object]:
            async with Client(server) as client:
                result = await client.call_tool("get_working_state", {"limit": 3})
                assert not result.is_error
                return dict(result.structured_content or {})

        got = anyio.run(main)
    state = got["state"]
    assert isinstance(state, dict) and len(state["files"]) == 3 and len(state["identifiers"]) == 3
    assert isinstance(got["block"], str) and "Files touched" in got["block"]
