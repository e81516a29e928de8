"""PostgreSQL against SQLite: per-write cost, compile time, writer and compression-worker throughput.

Usage::

    python benchmarks/bench_postgres.py [--messages 20000] [--pg URL] [--latency 0.05]

Prints, for SQLite and (when a server answers at ``--pg``) PostgreSQL:

* ``write_ms``: median milliseconds of one ``add_message`` (one committed transaction) at ``--messages``
  messages, and ``compile_ms``: median of ``compile(8000)`` (passthrough) at that size;
* ``writers``: messages per second with 1, 2 and 4 writer processes appending to one branch;
* ``workers``: summarisation units per second with 1, 2 and 4 compression worker processes, over
  ``--conversations`` workers-mode conversations, with a scripted provider answering after ``--latency``
  seconds (the model call dominates: throughput should scale with the number of workers).

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from context_journal import ContextManager
from context_journal.stores.base import Store
from context_journal.strategies import AutobiographicalStrategy

PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/test"
TEXT = "The quick brown fox jumps over the lazy dog; a benchmark message with a little prose in it. "
CONFIG: dict[str, Any] = {
    "head_window_tokens": 40,
    "recent_window_tokens": 80,
    "target_chunk_tokens": 100,
    "merge_threshold": 3,
}


def open_spec(spec: str, pg_url: str) -> Store:
    """``sqlite:<path>`` or ``pg:<schema>``."""
    kind, _, rest = spec.partition(":")
    if kind == "pg":
        from context_journal.stores.postgres import PostgresStore

        return PostgresStore(pg_url, schema=rest)
    from context_journal.stores.sqlite import SQLiteStore

    return SQLiteStore(rest)


def drop(spec: str, pg_url: str) -> None:
    if spec.startswith("pg:"):
        import psycopg

        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{spec[3:]}" CASCADE')


# ---- children ---------------------------------------------------------------------------------------


def child_writer(spec: str, pg_url: str, n: int, tag: str) -> None:
    store = open_spec(spec, pg_url)
    cm = ContextManager(store)
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(n):
        cm.add_message("user", f"{tag} {i} {TEXT}")
    store.close()


def child_worker(spec: str, pg_url: str, latency: float, worker_id: str) -> None:
    from context_journal.testing import ScriptedProvider
    from context_journal.workers import CompressionWorker

    store = open_spec(spec, pg_url)
    worker = CompressionWorker(
        store, ScriptedProvider(default="A memory.", latency=latency), worker_id=worker_id, poll_seconds=0.02
    )
    print("ready", flush=True)
    sys.stdin.readline()
    report = worker.run(until_idle=True)
    store.close()
    print(json.dumps(report.to_dict()), flush=True)


def spawn(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, __file__, "--child", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def start_all(procs: list[subprocess.Popen[str]]) -> float:
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    started = time.perf_counter()
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    return started


# ---- measurements -----------------------------------------------------------------------------------


def per_write_and_compile(spec: str, pg_url: str, messages: int) -> dict[str, float]:
    store = open_spec(spec, pg_url)
    cm = ContextManager(store)
    batch = [{"participant": "user" if i % 2 == 0 else "assistant", "content": f"{i} {TEXT}"} for i in range(500)]
    for _ in range(max(0, messages - 200) // 500):
        cm.add_messages(batch)
    while cm.message_count() < messages - 200:
        cm.add_message("user", TEXT)
    times = []
    for i in range(200):
        t = time.perf_counter()
        cm.add_message("user" if i % 2 == 0 else "assistant", f"{i} {TEXT}")
        times.append(time.perf_counter() - t)
    compiles = []
    for _ in range(20):
        t = time.perf_counter()
        cm.compile(8000)
        compiles.append(time.perf_counter() - t)
    t = time.perf_counter()
    fresh = ContextManager(open_spec(spec, pg_url))
    fresh.compile(8000)
    cold = time.perf_counter() - t
    fresh.store.close()
    store.close()
    return {
        "messages": float(messages),
        "write_ms": round(statistics.median(times) * 1000, 3),
        "compile_ms": round(statistics.median(compiles) * 1000, 3),
        "open_and_compile_ms": round(cold * 1000, 1),
    }


def writers(make_spec: Any, pg_url: str, per_writer: int) -> dict[int, float]:
    out = {}
    for n in (1, 2, 4):
        spec = make_spec()
        open_spec(spec, pg_url).close()  # migrate once
        procs = [spawn(["writer", spec, pg_url, str(per_writer), f"w{k}"]) for k in range(n)]
        started = start_all(procs)
        for p in procs:
            p.wait()
        out[n] = round(n * per_writer / (time.perf_counter() - started), 1)
        drop(spec, pg_url)
    return out


def workers(make_spec: Any, pg_url: str, conversations: int, latency: float) -> dict[int, dict[str, float]]:
    out = {}
    for n in (1, 2, 4):
        spec = make_spec()
        store = open_spec(spec, pg_url)
        for c in range(conversations):
            cm = ContextManager(
                store,
                namespace=f"c{c}",
                isolate=True,
                strategy=AutobiographicalStrategy(**CONFIG),
                compression="workers",
            )
            cm.add_messages([{"participant": "user", "content": f"{c} {i} {TEXT}"} for i in range(24)])
        store.close()
        procs = [spawn(["worker", spec, pg_url, str(latency), f"w{k}"]) for k in range(n)]
        started = start_all(procs)
        units = 0
        for p in procs:
            out_text, _ = p.communicate()
            units += json.loads(out_text.strip().splitlines()[-1])["units"]
        seconds = time.perf_counter() - started
        out[n] = {"units": units, "seconds": round(seconds, 2), "units_per_s": round(units / seconds, 1)}
        drop(spec, pg_url)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--child", nargs="+")
    ap.add_argument("--messages", type=int, default=20_000)
    ap.add_argument("--pg", default=PG_DEFAULT)
    ap.add_argument("--per-writer", type=int, default=500)
    ap.add_argument("--conversations", type=int, default=12)
    ap.add_argument("--latency", type=float, default=0.05)
    args = ap.parse_args()
    if args.child:
        kind, spec, pg_url, *rest = args.child
        if kind == "writer":
            child_writer(spec, pg_url, int(rest[0]), rest[1])
        else:
            child_worker(spec, pg_url, float(rest[0]), rest[1])
        return
    tmp = Path(tempfile.mkdtemp(prefix="cj_bench_pg_"))
    backends: dict[str, Any] = {"sqlite": lambda: f"sqlite:{tmp / uuid.uuid4().hex[:8]}.db"}
    try:
        import psycopg

        psycopg.connect(args.pg, connect_timeout=2).close()
        backends["postgres"] = lambda: f"pg:cj_bench_{uuid.uuid4().hex[:10]}"
    except Exception as exc:
        print(f"postgres: skipped ({exc})")
    for name, make_spec in backends.items():
        spec = make_spec()
        result: dict[str, Any] = {"backend": name}
        result.update(per_write_and_compile(spec, args.pg, args.messages))
        drop(spec, args.pg)
        result["writers_msg_per_s"] = writers(make_spec, args.pg, args.per_writer)
        result["workers"] = workers(make_spec, args.pg, args.conversations, args.latency)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
