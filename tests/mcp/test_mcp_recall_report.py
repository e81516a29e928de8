"""MCP ``compile_context`` with a query on a store whose recorded strategy is autobiographical (a
fresh review): recall runs at the budget the store was compressed for, and when it brings nothing back
the result says why (it was silently ignored: no recall section, no word)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")

from mcp import Client
from typer.testing import CliRunner

from context_journal.cli import app
from context_journal.mcp import build_server
from context_journal.stores import SQLiteStore
from tests.mcp.mcp_helpers import call

NS = "locomo:conv-26"


def test_compile_context_recalls_or_says_why_not(tmp_path: Path, data_dir: Path) -> None:
    db = tmp_path / "l.db"
    runner = CliRunner()
    assert (
        runner.invoke(app, ["import", str(data_dir / "locomo" / "locomo-dev7.json"), "--store", str(db)]).exit_code == 0
    )
    assert runner.invoke(app, ["compress", "--store", str(db), "-n", NS, "--json"]).exit_code == 0
    store = SQLiteStore(db)
    server, backend = build_server(store)

    async def body(client: Client) -> None:
        ctx = await call(client, "compile_context", max_tokens=4000, namespace=NS, query="camping")
        assert ctx["strategy"] == "autobiographical" and ctx["tokens"] <= 4000
        assert ctx["parts"].get("recall", 0) > 0, ctx["parts"]
        assert ctx["recall"]["recalled"] > 0 and "camping" in json.dumps(ctx["messages"]).lower()
        none = await call(client, "compile_context", max_tokens=4000, namespace=NS, query="xylophone quartz")
        assert none["recall"] == {
            "query": "xylophone quartz",
            "hits": 0,
            "recalled": 0,
            "note": "no message matches the query",
        }
        plain = await call(client, "compile_context", max_tokens=4000, namespace=NS)
        assert plain.get("recall") is None

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            await body(client)

    anyio.run(main)
    backend.close()
    store.close()
