"""Child process of ``test_adapter_faults.py``: 20 Agents SDK sessions on one SQLite store, each adding 40
items one call at a time and reading them back, concurrently on one loop, with a probe task that sleeps
5 ms at a time and records how late it wakes. Start-up's objects are frozen first (``gc.freeze()``): a
full collection pauses every thread whatever the API, and that is not what this measures. Prints one
JSON line.

    python _session_lag_child.py STORE_PATH
"""

from __future__ import annotations

import asyncio
import gc
import json
import statistics
import sys
import time

from context_journal.integrations.openai_agents import JournalSession
from context_journal.stores import open_store

SESSIONS = 20
ITEMS = 40


async def main(path: str) -> dict[str, object]:
    store = open_store(path)
    sessions = [JournalSession(f"s{k}", store) for k in range(SESSIONS)]
    await sessions[0].add_items([{"role": "user", "content": "warm up"}])
    await sessions[0].pop_item()
    gc.collect()
    gc.freeze()
    lags: list[float] = []
    done = asyncio.Event()

    async def probe() -> None:
        while not done.is_set():
            t = time.perf_counter()
            await asyncio.sleep(0.005)
            lags.append(time.perf_counter() - t - 0.005)

    async def run(k: int, session: JournalSession) -> bool:
        written = []
        for i in range(ITEMS):
            item = {"role": "user" if i % 2 else "assistant", "content": f"session {k} item {i} " * 8}
            written.append(item)
            await session.add_items([item])
            if i % 5 == 0:
                assert await session.get_items() == written
        return await session.get_items() == written

    probing = asyncio.create_task(probe())
    results = await asyncio.gather(*(run(k, s) for k, s in enumerate(sessions)))
    done.set()
    await probing
    for session in sessions:
        await session.aclose()
    store.close()
    return {
        "max_ms": max(lags) * 1000,
        "median_ms": statistics.median(lags) * 1000,
        "samples": len(lags),
        "in_order": sum(results),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1]))))
