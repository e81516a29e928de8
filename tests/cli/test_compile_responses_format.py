"""CLI and MCP: a compile exported as OpenAI Responses API ``input`` items (``--format openai-responses``,
``compile_context(format="openai-responses")``), accepted by the official SDK's request type, on a real
Claude Code session with tool calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")

import anyio
from mcp import Client
from typer.testing import CliRunner

from context_journal.cli import app
from context_journal.mcp import build_server
from context_journal.stores import SQLiteStore

runner = CliRunner()
SESSION = "claude-code-sessions/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


def _check_items(items: list[dict[str, object]]) -> None:
    calls = {i["call_id"] for i in items if i.get("type") == "function_call"}
    outputs = {i["call_id"] for i in items if i.get("type") == "function_call_output"}
    assert calls and calls == outputs  # every call answered, no orphan output
    assert all(i.get("type") in ("message", "function_call", "function_call_output", "reasoning") for i in items)


def test_compile_format_openai_responses(tmp_path: Path, data_dir: Path) -> None:
    db = str(tmp_path / "cc.db")
    assert runner.invoke(app, ["import", str(data_dir / SESSION), "--store", db]).exit_code == 0
    res = runner.invoke(app, ["compile", "--store", db, "--budget", "8000", "--format", "openai-responses"])
    assert res.exit_code == 0, res.output
    _check_items(json.loads(res.stdout)["input"])

    store = SQLiteStore(db)
    server, backend = build_server(store)

    async def main() -> None:
        async with Client(server) as client:
            out = await client.call_tool("compile_context", {"max_tokens": 8000, "format": "openai-responses"})
            assert not out.is_error, out.content
            assert out.structured_content is not None
            assert out.structured_content["format"] == "openai-responses"
            _check_items(out.structured_content["messages"])

    anyio.run(main)
    backend.close()
    store.close()
