"""Child process of ``test_mcp_loop_lag.py``: the MCP server over stdio, as ``run_stdio`` serves it
(:func:`settle_heap`, then the SDK's stdio transport), with a probe task on the server's own loop that
sleeps 5 ms at a time and records how late it wakes. When the client closes stdin, the figures are
written as JSON to ``OUT``.

    python _loop_lag_child.py STORE_PATH MESSAGES OUT
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import anyio

from context_journal.manager import ContextManager
from context_journal.mcp import build_server
from context_journal.mcp.server import settle_heap
from context_journal.messages import MessageInput
from context_journal.stores import SQLiteStore


def main() -> None:
    path, n, out = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    store = SQLiteStore(path)
    with ContextManager.open(store=store) as cm:
        cm.add_messages(
            [MessageInput("user" if i % 2 else "assistant", f"turn {i} about the harbour " * 12) for i in range(n)]
        )
    server, backend = build_server(store)
    settle_heap()
    lags: list[float] = []

    async def serve() -> None:
        async with anyio.create_task_group() as tg:

            async def probe() -> None:
                while True:
                    t = time.perf_counter()
                    await anyio.sleep(0.005)
                    lags.append(time.perf_counter() - t - 0.005)

            tg.start_soon(probe)
            await server.run_stdio_async()
            tg.cancel_scope.cancel()

    anyio.run(serve)
    backend.close()
    store.close()
    figures = {"max_ms": max(lags) * 1000, "median_ms": statistics.median(lags) * 1000, "samples": len(lags)}
    out.write_text(json.dumps(figures))


if __name__ == "__main__":
    main()
