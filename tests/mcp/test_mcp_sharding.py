"""MCP ``add_message`` stores a long message as the namespace's recorded strategy does (ingress sharding:
a compressing strategy's handle shards it; the Python API's handle with the same strategy agrees), and
``compile_context`` sends it back whole."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")

from mcp import Client

from context_journal.manager import ContextManager
from context_journal.mcp import build_server
from context_journal.stores import MemoryStore
from tests.mcp.mcp_helpers import call


def test_add_message_shards_under_the_recorded_strategy(data_dir: Path) -> None:
    design = (data_dir.parent / "DESIGN.md").read_text(encoding="utf-8")
    store = MemoryStore()
    server, _backend = build_server(store)

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            for k in range(6):
                await call(
                    client, "add_message", participant="user" if k % 2 == 0 else "assistant", content=f"turn {k}"
                )
            await call(client, "compress", max_calls=5, budget=4000)  # records the autobiographical strategy
            added = await call(client, "add_message", participant="user", content=design)
            assert added["message_count"] > 8  # 6 turns and the design document's shards
            compiled = await call(client, "compile_context", max_tokens=100_000)
            texts = ["".join(b.get("text", "") for b in m["content"]) for m in compiled["messages"]]
            assert sum(design in t for t in texts) == 1

    anyio.run(main)
    stored = [m.id for m in ContextManager.open(store=store).messages.slice(0, None)]
    assert len(stored) > 8 and stored[7].endswith("#shard-2")
