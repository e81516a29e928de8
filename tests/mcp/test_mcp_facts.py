"""MCP: ``set_fact`` and ``clear_fact`` (a review found no door to host facts but Python): the fact in
``get_working_state`` and in ``compile_context``'s working-state block, and bad keys and texts as tool
errors that write nothing."""

from __future__ import annotations

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")

from mcp import Client

from context_journal.mcp import build_server
from context_journal.stores import MemoryStore
from tests.mcp.mcp_helpers import call, fail


def test_set_and_clear_facts_through_the_server() -> None:
    server, backend = build_server(MemoryStore())

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            await call(client, "add_message", participant="user", content="Fix the flaky deploy test.")
            out = await call(client, "set_fact", key="deadline", text="Friday 17:00 UTC")
            assert out == {"changed": True, "sequence": out["sequence"], "facts": {"deadline": "Friday 17:00 UTC"}}
            same = await call(client, "set_fact", key="deadline", text="Friday 17:00 UTC")
            assert same["changed"] is False and same["sequence"] is None
            state = await call(client, "get_working_state")
            assert state["state"]["facts"] == {"deadline": "Friday 17:00 UTC"}
            compiled = await call(client, "compile_context", max_tokens=2000)
            assert "deadline: Friday 17:00 UTC" in str(compiled["messages"])
            error = await fail(client, "set_fact", key="\u200b", text="x")
            assert "blank" in error
            error = await fail(client, "set_fact", key="ok", text="\x00")
            assert "control" in error
            cleared = await call(client, "clear_fact", key="deadline")
            assert cleared["changed"] is True and cleared["facts"] == {}
            again = await call(client, "clear_fact", key="deadline")
            assert again["changed"] is False
            assert (await call(client, "get_working_state"))["state"]["facts"] == {}

    anyio.run(main)
    backend.close()
