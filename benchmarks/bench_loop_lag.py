"""Event-loop lag: how late a probe on the caller's loop wakes while many tasks use one store.

Usage::

    python benchmarks/bench_loop_lag.py [--sizes 3000,30000] [--runs 3]

A probe task sleeps 5 ms at a time and records how late it wakes. Each scenario runs in a child process of
its own (its own heap and loop; start-up's objects frozen with ``gc.freeze()`` first, as the MCP server's
``settle_heap`` does: a full collection pauses every thread whatever the API):

* ``floor``: the probe alone on an idle loop, as long as the ``async`` scenario took (the machine's own
  scheduling noise, in the same run);
* ``async``: 100 tasks, each writing 10 messages through one :class:`AsyncContextManager` and compiling
  (4,000 tokens) after every third, over a SQLite store of N messages;
* ``sessions``: 20 Agents SDK sessions (:class:`JournalSession`) on one SQLite store, each adding 40 items
  one call at a time and reading them back every fifth;
* ``mcp``: the MCP server over stdio (as ``run_stdio`` serves it) with a store of N messages, the probe on
  the server's loop, and 100 concurrent tool calls from a client (writes, searches and compiles).

For each: ``max_ms`` (the worst wake-up, the best of ``--runs`` runs and the worst), ``p99_ms`` and
``median_ms``. What the tests check instead is deterministic: the store and manager work of every
scenario runs on no loop's thread (``tests/core/test_async_manager.py``,
``tests/integrations/test_adapter_faults.py``, ``tests/mcp/test_mcp_loop_lag.py``). Figures are printed,
never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[1]))  # the repository root: the tests package
from tests.loop_workloads import manager_tasks, mcp_calls, session_items, warm_messages  # noqa: E402

PROBE_SECONDS = 0.005


def _figures(lags: list[float]) -> dict[str, float]:
    ordered = sorted(lags)
    return {
        "max_ms": ordered[-1] * 1000,
        "p99_ms": ordered[int(0.99 * (len(ordered) - 1))] * 1000,
        "median_ms": statistics.median(ordered) * 1000,
        "samples": len(ordered),
    }


async def _probed(work: Callable[[], Awaitable[None]]) -> dict[str, float]:
    """Run ``work()`` with the probe beside it on this loop; the probe's figures and the work's seconds."""
    gc.collect()
    gc.freeze()
    lags: list[float] = []
    done = asyncio.Event()

    async def probe() -> None:
        while not done.is_set():
            t = time.perf_counter()
            await asyncio.sleep(PROBE_SECONDS)
            lags.append(time.perf_counter() - t - PROBE_SECONDS)

    probing = asyncio.create_task(probe())
    start = time.perf_counter()
    await work()
    seconds = time.perf_counter() - start
    done.set()
    await probing
    return {**_figures(lags), "seconds": seconds}


async def _child_floor(seconds: float) -> dict[str, float]:
    async def idle() -> None:
        await asyncio.sleep(seconds)

    return await _probed(idle)


async def _child_async(path: str, n: int) -> dict[str, float]:
    from context_journal.aio import AsyncContextManager

    async with await AsyncContextManager.open(path) as cm:
        await cm.add_messages(warm_messages(n))
        await cm.compile(max_tokens=4000)

        async def work() -> None:
            await manager_tasks(cm, 100)

        return await _probed(work)


async def _child_sessions(path: str, n: int) -> dict[str, float]:
    from context_journal.integrations.openai_agents import JournalSession
    from context_journal.manager import ContextManager
    from context_journal.stores import open_store

    store = open_store(path)
    with ContextManager.open(store=store, namespace="history") as cm:
        cm.add_messages(warm_messages(n))
    sessions = [JournalSession(f"s{k}", store) for k in range(20)]

    async def work() -> None:
        assert await session_items(sessions, 40) == [True] * len(sessions)

    figures = await _probed(work)
    for session in sessions:
        await session.aclose()
    store.close()
    return figures


def _child_mcp_server(path: str, n: int, out: str) -> None:
    """The MCP server over stdio with the probe on its loop; figures written to ``out`` when stdin closes."""
    import anyio

    from context_journal.manager import ContextManager
    from context_journal.mcp import build_server
    from context_journal.mcp.server import settle_heap
    from context_journal.stores import SQLiteStore

    store = SQLiteStore(path)
    with ContextManager.open(store=store) as cm:
        cm.add_messages(warm_messages(n))
    server, backend = build_server(store)
    settle_heap()
    lags: list[float] = []

    async def serve() -> None:
        async with anyio.create_task_group() as tg:

            async def probe() -> None:
                while True:
                    t = time.perf_counter()
                    await anyio.sleep(PROBE_SECONDS)
                    lags.append(time.perf_counter() - t - PROBE_SECONDS)

            tg.start_soon(probe)
            await server.run_stdio_async()
            tg.cancel_scope.cancel()

    anyio.run(serve)
    backend.close()
    store.close()
    Path(out).write_text(json.dumps(_figures(lags)))


def _mcp_client(tmp: Path, n: int, attempt: int) -> dict[str, float]:
    import anyio
    from mcp import Client, StdioServerParameters

    out = tmp / f"mcp{attempt}.json"
    env = {"PYTHONPATH": os.pathsep.join(sys.path), "PATH": os.environ.get("PATH", "")}
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(HERE), "--child", "mcp-server", str(tmp / f"mcp{attempt}.db"), str(n), str(out)],
        env=env,
    )

    async def main() -> None:
        async with Client(params, mode="legacy") as client:
            errors = await mcp_calls(client, 100)
        if errors:
            raise RuntimeError(errors[0])

    anyio.run(main)
    for _ in range(300):  # the child writes its figures once its stdin is closed
        if out.exists():
            break
        time.sleep(0.1)
    figures: dict[str, float] = json.loads(out.read_text())
    return figures


def _child(argv: list[str]) -> None:
    kind = argv[0]
    if kind == "mcp-server":
        _child_mcp_server(argv[1], int(argv[2]), argv[3])
        return
    if kind == "floor":
        figures = asyncio.run(_child_floor(float(argv[1])))
    elif kind == "async":
        figures = asyncio.run(_child_async(argv[1], int(argv[2])))
    else:
        figures = asyncio.run(_child_sessions(argv[1], int(argv[2])))
    print(json.dumps(figures))


def _spawn(*args: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, str(HERE), "--child", *args], capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])

    def sizes(text: str) -> list[int]:
        try:
            out = [int(part) for part in text.split(",")]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"--sizes takes positive integers separated by commas, got {text!r}"
            ) from None
        if not out or min(out) < 1:
            raise argparse.ArgumentTypeError(f"--sizes takes positive integers, got {text!r}")
        return out

    def runs(text: str) -> int:
        if not text.isdigit() or int(text) < 1:
            raise argparse.ArgumentTypeError(f"--runs takes a positive integer, got {text!r}")
        return int(text)

    parser.add_argument("--sizes", type=sizes, default=[3000, 30000])
    parser.add_argument("--runs", type=runs, default=3)
    parser.add_argument("--child", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.child:
        _child(args.child)
        return
    print(f"{'scenario':<10} {'messages':>9} {'best max ms':>12} {'worst max ms':>13} {'p99 ms':>7} {'median ms':>10}")
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp_dir:
            tmp = Path(tmp_dir)
            rows: dict[str, list[dict[str, float]]] = {"floor": [], "async": [], "sessions": [], "mcp": []}
            for run in range(args.runs):
                rows["async"].append(_spawn("async", str(tmp / f"a{run}.db"), str(n)))
                rows["floor"].append(_spawn("floor", str(rows["async"][-1]["seconds"])))
                rows["sessions"].append(_spawn("sessions", str(tmp / f"s{run}.db"), str(n)))
                rows["mcp"].append(_mcp_client(tmp, n, run))
            for name, runs in rows.items():
                maxes = [r["max_ms"] for r in runs]
                print(
                    f"{name:<10} {n:>9,} {min(maxes):>12.1f} {max(maxes):>13.1f}"
                    f" {statistics.median(r['p99_ms'] for r in runs):>7.1f}"
                    f" {statistics.median(r['median_ms'] for r in runs):>10.2f}"
                )


if __name__ == "__main__":
    main()
