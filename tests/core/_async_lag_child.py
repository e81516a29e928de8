"""Child process of ``test_async_manager.py``: 100 tasks writing and compiling concurrently through one
:class:`AsyncContextManager` over a SQLite store of 3,000 messages, with a probe task on the same loop
that sleeps 5 ms at a time and records how late it wakes. Start-up's objects are frozen first
(``gc.freeze()``, what the MCP server's ``settle_heap`` does): a full collection pauses every thread
whatever the API, and that is not what this measures. Prints one JSON line.

    python _async_lag_child.py STORE_PATH
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import sys
import time

from context_journal.aio import AsyncContextManager
from context_journal.messages import MessageInput


async def main(path: str) -> dict[str, object]:
    async with await AsyncContextManager.open(path) as cm:
        await cm.add_messages([MessageInput("user" if i % 2 else "assistant", f"warm {i} " * 40) for i in range(3000)])
        await cm.compile(max_tokens=4000)
        gc.collect()
        gc.freeze()
        lags: list[float] = []
        done = asyncio.Event()

        async def probe() -> None:
            while not done.is_set():
                t = time.perf_counter()
                await asyncio.sleep(0.005)
                lags.append(time.perf_counter() - t - 0.005)

        async def task(k: int) -> list[str]:
            ids = []
            for i in range(10):
                ids.append(await cm.add_message("user", f"task {k} message {i}"))
                if i % 3 == 0:
                    await cm.compile(max_tokens=4000)
            return ids

        probing = asyncio.create_task(probe())
        results = await asyncio.gather(*(task(k) for k in range(100)))
        done.set()
        await probing
        where = {m.id: k for k, m in enumerate(await cm.get_all_messages())}
        return {
            "max_ms": max(lags) * 1000,
            "median_ms": statistics.median(lags) * 1000,
            "samples": len(lags),
            "ids": sum(len(r) for r in results),
            "distinct": len({i for r in results for i in r}),
            "stored": len(where),
            "out_of_order": sum(1 for r in results if [where[i] for i in r] != sorted(where[i] for i in r)),
        }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1]))))
