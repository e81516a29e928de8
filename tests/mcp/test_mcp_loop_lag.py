"""The MCP server's event loop under 100 concurrent tool calls: no store or manager work runs on it.

Tool bodies run on worker threads (the SDK runs a synchronous tool with ``anyio.to_thread``; the backend
serialises managers with a lock), so store I/O and compiles never run on the loop. This is checked
deterministically: every method call of the store and of the manager is counted by thread, and none may
run on the loop's thread while a client (in process, so the loop is this test's) makes 100 calls at once
(compiles, writes and searches). How late the loop wakes meanwhile depends on the machine, and on the
cycle collector that ``run_stdio``/``run_http`` tame with :func:`~context_journal.mcp.server.settle_heap`:
``benchmarks/bench_loop_lag.py`` measures it over stdio, as deployed.
"""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")

from mcp import Client

from context_journal.manager import ContextManager
from context_journal.mcp import build_server
from context_journal.stores import SQLiteStore
from tests.loop_workloads import mcp_calls, warm_messages
from tests.thread_probe import ThreadProbe

CALLS = 100


def test_100_concurrent_tool_calls_run_no_store_work_on_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path / "lag.db")
    with ContextManager.open(store=store) as cm:
        cm.add_messages(warm_messages(1000))
    server, backend = build_server(store)
    probe = ThreadProbe(monkeypatch).watch(ContextManager, SQLiteStore)
    errors: list[str] = []
    loop_thread = threading.get_ident()  # anyio.run runs the loop on this thread
    on_loop: dict[str, int] = {}

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            errors.extend(await mcp_calls(client, CALLS))
        on_loop.update(probe.on(loop_thread))  # before the test closes the store on this thread

    try:
        anyio.run(main)
    finally:
        backend.close()
        store.close()
    assert errors == []
    assert on_loop == {}
    assert probe.elsewhere(loop_thread) >= CALLS
    with ContextManager.open(tmp_path / "lag.db") as cm:
        assert cm.message_count() == 1000 + CALLS // 4
