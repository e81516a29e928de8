"""Full-text search benchmark: indexing cost, disk, search and recall latency, at several sizes.

Usage::

    python benchmarks/bench_search.py --sizes 2000,20000,200000 [--writes 1000] [--rounds 3]
        [--compiles 40] [--budget 8000] [--strategy windowed|passthrough]

The messages are real conversation turns: the LoCoMo conversations in ``../shared/data/locomo``
(read with ``read_transcript(..., format="locomo")``, 4,124 turns), cycled, each copy marked with its
cycle and turn number (``#cycle-turn``) so that no two of the 200,000 messages are identical. For each
size N two SQLite stores (``durability="normal"``) receive the same N rows through ``add_messages`` in
batches of 1,000: one with the full-text index, and the floor, the same store class with the index
switched off (``has_text_index = False``: ``Transaction.index_text`` does nothing; the empty FTS5 table
still exists). Then, on the handles that built them (warm), it prints one table per size:

* ``add_message``: median µs of one ``ContextManager.add_message`` (one committed transaction), the
  same ``--writes`` rows on both stores, calls interleaved, each store first every other call (the
  second call of a pair finds the text's token estimate cached); and the difference (target: <= 25 µs);
  also the mean and p99, which carry the folds of pending rows into FTS5 (every 64th write of a handle)
  and FTS5's segment merges (done inside some commits, not all);
* disk: database + WAL bytes after ``checkpoint()``, with and without the index (target: <= 1.40x);
* ``search_messages`` top-10: median and p95 ms over ``--rounds`` passes of a fixed list of 50 queries
  (44 LoCoMo questions, 6 vaguer questions full of common words), after one untimed pass; and the
  store's ``search_text`` alone for the same queries (the 20 candidates ``search_messages`` first asks
  for), to show where the time goes (target: median <= 10 ms at 200,000), and the same ranked as one
  OR query, without ``SQLiteStore``'s split ranking (what the split saves); and the search a compile
  with ``query=`` makes (``RecallConfig().candidates`` hits, 200 by default, one pass);
* compile at ``--budget`` tokens with the strategy, measured as "append one message, then compile"
  (``--compiles`` times each, alternating without and with ``query=``), median ms of each and the
  difference (target: recall adds <= 5 ms at 200,000).

Below each table: the bulk import rate with and without the index, and the slowest queries with the
number of documents holding each of their words, and the load average (the timings are only as quiet as
the machine). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from context_journal import ContextManager
from context_journal.formats import read_transcript
from context_journal.messages import MessageInput
from context_journal.recall import RecallConfig
from context_journal.recall.search import search_messages
from context_journal.stores import SQLiteStore
from context_journal.stores.fulltext import query_terms, stem
from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev7.json"
BATCH = 1000
SEARCH_WANT = 20  # the candidates search_messages asks the store for first: max(limit, 20) (recall/search.py)

# Vaguer questions a user might ask of a long conversation: mostly common words.
VAGUE_QUERIES = [
    "What did you do with the kids last weekend?",
    "How are you feeling today, any good news?",
    "What was that great thing you told me about last time?",
    "Can you remind me what we talked about with your family?",
    "Did you have fun, and what are you planning next?",
    "What do you love most about your friends?",
]


class UnindexedSQLiteStore(SQLiteStore):
    """The floor: the same SQLite store with its full-text index switched off (no FTS5 rows written)."""

    has_text_index = False


def load_turns(path: Path) -> list[tuple[str, list[dict[str, Any]]]]:
    """(participant, content) of every LoCoMo turn, conversations one after another."""
    turns: list[tuple[str, list[dict[str, Any]]]] = []
    for conv in read_transcript(path, format="locomo").conversations:
        for m in conv.messages:
            assert isinstance(m.content, list)
            turns.append((m.participant, [dict(b) for b in m.content]))
    return turns


def load_queries(path: Path, n: int = 44, seed: int = 11) -> list[str]:
    """``n`` LoCoMo questions (categories 1-4, a fixed sample) plus the vague ones."""
    data = json.loads(path.read_text())
    questions = [q["question"] for conv in data for q in conv["qa"] if q.get("category") in (1, 2, 3, 4)]
    return random.Random(seed).sample(questions, n) + VAGUE_QUERIES


class Rows:
    """Message ``i`` is LoCoMo turn ``i % T`` of cycle ``i // T``, its first text marked ``#cycle-turn``."""

    def __init__(self, turns: list[tuple[str, list[dict[str, Any]]]]) -> None:
        self.turns = turns

    def __call__(self, i: int) -> tuple[str, list[dict[str, Any]]]:
        cycle, k = divmod(i, len(self.turns))
        participant, content = self.turns[k]
        first = dict(content[0])
        first["text"] = f"{first['text']} #{cycle}-{k}"
        return participant, [first, *content[1:]]


def build(cm: ContextManager, rows: Rows, n: int) -> float:
    """Append messages 0..n-1 in batches of BATCH; returns seconds."""
    t0 = time.perf_counter()
    for start in range(0, n, BATCH):
        cm.add_messages([MessageInput(*rows(i)) for i in range(start, min(n, start + BATCH))])
    return time.perf_counter() - t0


def timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    t = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - t


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def doc_counts(store: SQLiteStore, terms: list[str]) -> list[tuple[str, int]]:
    """Documents of the index holding each query word (its Porter stem), read through fts5vocab."""
    conn = store._conn
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.bench_vocab USING fts5vocab(main, text_index, row)")
    out: list[tuple[str, int]] = []
    for t in terms:
        found = conn.execute("SELECT doc FROM temp.bench_vocab WHERE term = ?", (stem(t),)).fetchone()
        out.append((t, int(found[0]) if found else 0))
    return out


def measure(n: int, args: argparse.Namespace, rows: Rows, queries: list[str], tmp: Path) -> dict[str, Any]:
    t_size = time.perf_counter()
    load_start = os.getloadavg()[0]
    path_on, path_off = tmp / f"search_{n}.db", tmp / f"floor_{n}.db"
    store_on, store_off = SQLiteStore(path_on, durability="normal"), UnindexedSQLiteStore(path_off, "normal")
    cm = ContextManager.open(store=store_on)
    floor = ContextManager.open(store=store_off)
    try:
        build_on = build(cm, rows, n)
        build_off = build(floor, rows, n)

        # add_message: the same rows on both stores, calls interleaved, each store first every other time
        # (the second call of a pair finds the text's token estimate cached: some 9 us less).
        add_on: list[float] = []
        add_off: list[float] = []
        for k in range(args.writes):
            participant, content = rows(n + k)
            pair = ((cm, add_on), (floor, add_off))
            for manager, samples in pair if k % 2 == 0 else pair[::-1]:
                samples.append(timed(manager.add_message, participant, content))
        total = n + args.writes

        # Disk, after a checkpoint.
        store_on.checkpoint()
        store_off.checkpoint()
        disk_on, disk_off = store_on.stats().bytes_on_disk, store_off.stats().bytes_on_disk

        # Search: warm handle, one untimed pass, then --rounds timed passes.
        t0 = time.perf_counter()
        cm.search_messages(queries[0], limit=10)
        first_search = time.perf_counter() - t0
        for q in queries:
            cm.search_messages(q, limit=10)
        slot = cm._messages.slot
        terms = {q: query_terms(q) for q in queries}
        search: list[float] = []
        raw: list[float] = []
        unsplit: list[float] = []
        per_query: dict[str, list[float]] = {q: [] for q in queries}
        recall_search: list[float] = []
        for _ in range(args.rounds):
            for q in queries:
                s = timed(cm.search_messages, q, limit=10)
                search.append(s)
                per_query[q].append(s)
                raw.append(timed(store_on.search_text, terms[q], [slot], SEARCH_WANT))
                store_on.TEXT_SPLIT_MIN_ROWS = 2**62  # the same search as one OR query (no split ranking)
                unsplit.append(timed(store_on.search_text, terms[q], [slot], SEARCH_WANT))
                del store_on.TEXT_SPLIT_MIN_ROWS
        for q in queries:  # the search a compile with query= makes (RecallConfig().candidates hits, no snippets)
            recall_search.append(
                timed(search_messages, cm._messages, q, limit=RecallConfig().candidates, snippets=False)
            )
        slowest = sorted(queries, key=lambda q: statistics.median(per_query[q]), reverse=True)[:3]

        # Compile: append one message, then compile; alternating without and with query=.
        cm.strategy = WindowedPassthroughStrategy() if args.strategy == "windowed" else PassthroughStrategy()
        cm.compile(args.budget)
        cm.compile(args.budget, query=queries[0])
        plain: list[float] = []
        recall: list[float] = []
        rendered = [0, 0]
        for k in range(args.compiles):
            cm.add_message(*rows(total + 2 * k))
            t = time.perf_counter()
            result = cm.compile(args.budget)
            plain.append(time.perf_counter() - t)
            rendered[0] = len(result.messages)
            cm.add_message(*rows(total + 2 * k + 1))
            q = queries[k % len(queries)]
            t = time.perf_counter()
            result = cm.compile(args.budget, query=q)
            recall.append(time.perf_counter() - t)
            rendered[1] = len(result.messages)
        vocab = [(q, statistics.median(per_query[q]) * 1000, doc_counts(store_on, terms[q])) for q in slowest]
    finally:
        cm.close()
        floor.close()
        store_on.close()
        store_off.close()
    for p in (path_on, path_off):
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.remove(str(p) + suffix)
    return {
        "n": n,
        "add_on_us": statistics.median(add_on) * 1e6,
        "add_off_us": statistics.median(add_off) * 1e6,
        "add_on_mean_us": statistics.mean(add_on) * 1e6,
        "add_off_mean_us": statistics.mean(add_off) * 1e6,
        "add_on_p99_us": pct(add_on, 0.99) * 1e6,
        "add_off_p99_us": pct(add_off, 0.99) * 1e6,
        "disk_on": disk_on,
        "disk_off": disk_off,
        "search_ms": statistics.median(search) * 1000,
        "search_p95_ms": pct(search, 0.95) * 1000,
        "raw_ms": statistics.median(raw) * 1000,
        "raw_p95_ms": pct(raw, 0.95) * 1000,
        "unsplit_ms": statistics.median(unsplit) * 1000,
        "first_search_ms": first_search * 1000,
        "recall_search_ms": statistics.median(recall_search) * 1000,
        "compile_ms": statistics.median(plain) * 1000,
        "compile_query_ms": statistics.median(recall) * 1000,
        "rendered": rendered,
        "import_on": n / build_on,
        "import_off": n / build_off,
        "slowest": vocab,
        "seconds": time.perf_counter() - t_size,
        "load": (load_start, os.getloadavg()[0]),
    }


def report(r: dict[str, Any], args: argparse.Namespace) -> None:
    n = r["n"]
    print(f"\n### {n:,} messages\n")
    print("| measure | with index | without index (floor) | difference | target |")
    print("|---|---|---|---|---|")
    d_add = r["add_on_us"] - r["add_off_us"]
    print(
        f"| add_message, median µs ({args.writes:,} calls) | {r['add_on_us']:.1f} | {r['add_off_us']:.1f} | "
        f"{d_add:+.1f} µs | <= +25 µs |"
    )
    d_mean = r["add_on_mean_us"] - r["add_off_mean_us"]
    print(
        f"| add_message, mean / p99 µs | {r['add_on_mean_us']:.0f} / {r['add_on_p99_us']:.0f} | "
        f"{r['add_off_mean_us']:.0f} / {r['add_off_p99_us']:.0f} | {d_mean:+.0f} µs (mean) | |"
    )
    ratio = r["disk_on"] / max(1, r["disk_off"])
    print(
        f"| disk after checkpoint, MB | {r['disk_on'] / 1e6:.1f} | {r['disk_off'] / 1e6:.1f} | "
        f"x{ratio:.2f} ({(ratio - 1) * 100:+.0f}%) | <= +40% |"
    )
    print(
        f"| search_messages top-10, ms median / p95 ({args.rounds} x 50 queries) | "
        f"{r['search_ms']:.2f} / {r['search_p95_ms']:.2f} | | | median <= 10 ms |"
    )
    print(
        f"| store.search_text alone ({SEARCH_WANT} candidates), ms median / p95 | "
        f"{r['raw_ms']:.2f} / {r['raw_p95_ms']:.2f} | | | |"
    )
    print(f"| store.search_text as one OR query (no split ranking), ms median | {r['unsplit_ms']:.2f} | | | |")
    print(
        f"| search_messages top-{RecallConfig().candidates} (a compile's search, no snippets), ms median | "
        f"{r['recall_search_ms']:.2f} | | | |"
    )
    d_compile = r["compile_query_ms"] - r["compile_ms"]
    print(
        f"| append + compile({args.budget:,}, {args.strategy}), median ms ({args.compiles} each) | "
        f"{r['compile_query_ms']:.2f} with query= ({r['rendered'][1]} rendered) | "
        f"{r['compile_ms']:.2f} without ({r['rendered'][0]} rendered) | {d_compile:+.2f} ms | <= +5 ms |"
    )
    print()
    print(
        f"bulk import (add_messages x {BATCH:,}): {r['import_on']:,.0f} msg/s with the index, "
        f"{r['import_off']:,.0f} without; first search on the handle {r['first_search_ms']:.1f} ms; "
        f"size done in {r['seconds']:.0f} s, load average {r['load'][0]:.2f} -> {r['load'][1]:.2f}"
    )
    print("slowest queries (median ms; documents holding each word):")
    for q, ms, counts in r["slowest"]:
        words = ", ".join(f"{t} {c:,}" for t, c in counts)
        print(f"  {ms:6.2f} ms  {q!r}: {words}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="2000,20000,200000")
    ap.add_argument("--writes", type=int, default=1000, help="timed add_message calls per store")
    ap.add_argument("--rounds", type=int, default=3, help="timed passes over the 50 queries")
    ap.add_argument("--compiles", type=int, default=40, help="timed compiles of each kind")
    ap.add_argument("--budget", type=int, default=8000)
    ap.add_argument("--strategy", choices=("windowed", "passthrough"), default="windowed")
    ap.add_argument("--data", type=Path, default=DATA, help="the LoCoMo file")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    rows = Rows(load_turns(args.data))
    queries = load_queries(args.data)
    start = time.perf_counter()
    load = os.getloadavg()
    print(
        f"bench_search: SQLite, durability normal, {len(rows.turns):,} LoCoMo turns cycled, {len(queries)} queries, "
        f"{os.cpu_count()} cores, load average {load[0]:.2f} at start"
    )
    with tempfile.TemporaryDirectory(prefix="bench_search_") as d:
        for n in sizes:
            report(measure(n, args, rows, queries, Path(d)), args)
    print(f"\nelapsed {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
