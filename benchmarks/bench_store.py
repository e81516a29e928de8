"""Store benchmark: per-write cost against the bare SQLite transaction floor, at several store sizes.

Usage::

    python benchmarks/bench_store.py --sizes 2000,20000,200000

For each size N it builds a SQLite store of N messages (a realistic mix: prose, code, tool_use and
tool_result pairs), then prints:

* ``add_us``: median microseconds of one ``ContextManager.add_message`` (one transaction, committed);
* ``floor_us``: median microseconds of a bare ``BEGIN IMMEDIATE; INSERT; COMMIT`` of the same JSON body
  into a plain rowid table of the same database, measured in the same run (the floor);
* ``ratio``: add_us / floor_us (target: <= 1.5, flat across sizes);
* ``import_msg_s``: bulk import rate through ``add_messages`` in batches of 500;
* ``open_ms``: time to open the store and build the message index (in the process that wrote it);
* ``cold_*``: a fresh process: ``import_ms`` (``import context_journal``, apart), ``open_ms`` (open, the
  message index built from the token counts stored with the records), ``compile_ms`` (its first windowed
  compile at 8,000 tokens), and ``repriced_ms``: the same open with a counter whose counts are never stored
  (a subclass of the default), which prices every message as every open did before counts were stored;
* ``branch_ms``: median time of ``create_branch`` (target: < 1 ms at every size);
* ``disk/payload``: bytes on disk (database + WAL after a checkpoint) over payload bytes (target < 1.5).

Figures are printed, never asserted; the README's performance table is copied from this output.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from context_journal import ContextManager
from context_journal.messages import MessageInput
from context_journal.stores import SQLiteStore

SENTENCE = (
    "the store keeps every message and edit so a crash loses nothing committed while the compiler renders "
    "a bounded context for the next model call with summaries of older turns"
)
WORDS = SENTENCE.split()


def make_message(rng: random.Random, i: int) -> tuple[str, Any]:
    """A deterministic mix: 60% prose, 15% code, 25% tool pairs (returned as two messages by the caller)."""
    kind = rng.random()
    if kind < 0.6:
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 120)))
        return ("user" if i % 2 == 0 else "assistant"), text
    if kind < 0.75:
        code = "\n".join(
            f"def f_{i}_{k}(x):\n    return x * {k} + {rng.randint(0, 999)}" for k in range(rng.randint(2, 12))
        )
        return "assistant", [{"type": "text", "text": "```python\n" + code + "\n```"}]
    tid = f"toolu_{i:08d}"
    return "assistant", [
        {"type": "text", "text": "Reading the file."},
        {"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": f"/home/user/project/mod_{i}.py"}},
    ]


def tool_result(i: int, rng: random.Random) -> list[dict[str, Any]]:
    body = "\n".join(
        f"{n:>5}  line {n} of module {i}: value = {rng.randint(0, 10**6)}" for n in range(rng.randint(5, 40))
    )
    return [{"type": "tool_result", "tool_use_id": f"toolu_{i:08d}", "content": body}]


def build(path: Path, n: int, seed: int = 7) -> tuple[float, float]:
    """Fill a store with n messages; returns (seconds, payload-bytes-per-message)."""
    rng = random.Random(seed)
    batch: list[MessageInput] = []
    done = 0
    start = time.perf_counter()
    with ContextManager.open(path) as cm:
        i = 0
        while done < n:
            participant, content = make_message(rng, i)
            batch.append(MessageInput(participant, content))
            done += 1
            if isinstance(content, list) and content[-1]["type"] == "tool_use" and done < n:
                batch.append(MessageInput("user", tool_result(i, rng)))
                done += 1
            i += 1
            if len(batch) >= 500:
                cm.add_messages(batch)
                batch = []
        if batch:
            cm.add_messages(batch)
    return time.perf_counter() - start, 0.0


COLD = """
import json, sys, time
t0 = time.perf_counter()
from context_journal import ContextManager
from context_journal.strategies import WindowedPassthroughStrategy
from context_journal.tokens import EstimatingCounter
class Repricing(EstimatingCounter):
    pass
t1 = time.perf_counter()
counter = Repricing() if sys.argv[2] == "reprice" else None
cm = ContextManager.open(sys.argv[1], strategy=WindowedPassthroughStrategy(), token_counter=counter)
t2 = time.perf_counter()
cm.compile(8000)
t3 = time.perf_counter()
print(json.dumps({"import_ms": (t1 - t0) * 1000, "open_ms": (t2 - t1) * 1000, "compile_ms": (t3 - t2) * 1000}))
"""


def cold_start(path: Path, mode: str) -> dict[str, float]:
    """Import, open and first compile in a fresh process (best of three)."""
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", COLD, str(path), mode], capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    return min(runs, key=lambda r: r["open_ms"] + r["compile_ms"])


def median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def measure(n: int, writes: int, tmp: Path) -> dict[str, float]:
    path = tmp / f"bench_{n}.db"
    build_s, _ = build(path, n)
    t0 = time.perf_counter()
    cm = ContextManager.open(path)
    open_ms = (time.perf_counter() - t0) * 1000
    rng = random.Random(99)
    bodies = [make_message(rng, n + k) for k in range(writes)]
    add: list[float] = []
    for participant, content in bodies:
        t = time.perf_counter()
        cm.add_message(participant, content)
        add.append(time.perf_counter() - t)
    store = cm.store
    assert isinstance(store, SQLiteStore)
    # The floor: a bare insert-and-commit of the same JSON body, same connection, same pragmas.
    conn = store._conn
    conn.execute("CREATE TABLE IF NOT EXISTS bench_floor (seq INTEGER PRIMARY KEY, body TEXT)")
    floor: list[float] = []
    for participant, content in bodies:
        body = json.dumps({"participant": participant, "content": content}, separators=(",", ":"))
        t = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO bench_floor(body) VALUES (?)", (body,))
        conn.execute("COMMIT")
        floor.append(time.perf_counter() - t)
    conn.execute("DROP TABLE bench_floor")
    branch: list[float] = []
    for k in range(30):
        t = time.perf_counter()
        store.create_branch(f"b{k}", "main")
        branch.append(time.perf_counter() - t)
    store.checkpoint()
    stats = store.stats()
    cm.close()
    cold = cold_start(path, "stored")
    repriced = cold_start(path, "reprice")
    return {
        "n": n,
        "add_us": median_us(add),
        "floor_us": median_us(floor),
        "ratio": median_us(add) / median_us(floor),
        "import_msg_s": n / build_s,
        "open_ms": open_ms,
        "cold_import_ms": cold["import_ms"],
        "cold_open_ms": cold["open_ms"],
        "cold_compile_ms": cold["compile_ms"],
        "cold_repriced_ms": repriced["open_ms"],
        "branch_ms": statistics.median(branch) * 1000,
        "disk_mb": stats.bytes_on_disk / 1e6,
        "payload_mb": stats.payload_bytes / 1e6,
        "disk_ratio": stats.bytes_on_disk / max(1, stats.payload_bytes),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="2000,20000,200000")
    ap.add_argument("--writes", type=int, default=1000, help="timed add_message calls per size")
    ap.add_argument("--json", action="store_true", help="print one JSON object per size")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    with tempfile.TemporaryDirectory() as d:
        rows = [measure(n, args.writes, Path(d)) for n in sizes]
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return
    head = (
        "messages",
        "add_us",
        "floor_us",
        "ratio",
        "import_msg_s",
        "open_ms",
        "cold: import / open / first compile / open repricing (ms)",
        "branch_ms",
        "disk/payload",
    )
    print(" | ".join(head))
    print(" | ".join("---" for _ in head))
    for r in rows:
        print(
            f"{r['n']:,} | {r['add_us']:.1f} | {r['floor_us']:.1f} | {r['ratio']:.2f} | {r['import_msg_s']:,.0f} | "
            f"{r['open_ms']:.0f} | {r['cold_import_ms']:.0f} / {r['cold_open_ms']:.0f} / {r['cold_compile_ms']:.0f} / "
            f"{r['cold_repriced_ms']:.0f} | {r['branch_ms']:.3f} | {r['disk_mb']:.1f}/{r['payload_mb']:.1f} MB "
            f"= {r['disk_ratio']:.2f}"
        )


if __name__ == "__main__":
    main()
