"""Branch benchmark: fork and derive time by history length and by live-branch count, and the first
compile of a derived child.

Usage::

    python benchmarks/bench_branches.py --sizes 2000,20000,200000 [--drain-max 20000] [--branches 1,100,1000,3000]

First, on a small store holding 1, 100, 1,000 and 3,000 live branches (``--branches``), it prints the
median time of ``add_message``, ``fork`` and ``derive``, each beside its ratio to the one-branch row of
the same run (the floor; the target: within 1.2x up to 3,000 branches).

Then, for each size, it builds a SQLite store (the mix of bench_store.py) and prints the median time of
``fork`` (a branch row; target <= 0.5 ms at 200,000 messages) and of ``derive`` (a branch row, a
derivation state and the child manager, whose message index shares the parent's blocks copy-on-write;
target <= 1 ms at 200,000 messages: derive is O(1) in history length), each beside its ratio to the
smallest size's figure; for sizes up to ``--drain-max`` it compresses the parent with the offline
summarizer first and times the derived child's first compile at a 16k budget, counting the summarizer
calls it makes (expected: none; the child inherits the parent's summaries). Figures are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import build

from context_journal import AutobiographicalConfig, AutobiographicalStrategy, ContextManager
from context_journal.testing import ScriptedProvider

BUDGET = 16_000
SAMPLES = 20  # forks and derives timed per row


def measure(n: int, drain: bool, tmp: Path) -> dict[str, float | int | str]:
    path = tmp / f"branches_{n}.db"
    build(path, n)
    config = AutobiographicalConfig.for_budget(BUDGET)
    cm = ContextManager.open(path, strategy=AutobiographicalStrategy(config))
    drain_s = 0.0
    if drain:
        t = time.perf_counter()
        cm.drain()
        drain_s = time.perf_counter() - t
    forks, derives = [], []
    for k in range(SAMPLES):
        t = time.perf_counter()
        cm.fork(f"f{k}")
        forks.append(time.perf_counter() - t)
        t = time.perf_counter()
        child = cm.derive(f"d{k}", strategy=AutobiographicalStrategy(config))
        derives.append(time.perf_counter() - t)
    row: dict[str, float | int | str] = {
        "n": n,
        "fork_ms": statistics.median(forks) * 1000,
        "derive_ms": statistics.median(derives) * 1000,
        "drain_s": drain_s,
    }
    if drain:
        child.summarizer = ScriptedProvider()  # any model call would raise
        t = time.perf_counter()
        result = child.compile(BUDGET)
        row["child_first_compile_ms"] = (time.perf_counter() - t) * 1000
        row["child_summarizer_calls"] = len(child.summarizer.requests)  # type: ignore[attr-defined]
        row["child_tokens"] = result.tokens
    cm.close()
    return row


def with_branches(counts: list[int], tmp: Path, writes: int = 300) -> None:
    """Print the median ``add_message``, ``fork`` and ``derive`` times on a store holding 1, 100, 1,000...
    live branches, each with its ratio to the first row (targets: a write must not reload the branch
    table, and a fork or derive must not scan it)."""
    print("live branches | add_message ms | x floor | fork ms | x floor | derive ms | x floor")
    print("--- | --- | --- | --- | --- | --- | ---")
    floor: tuple[float, float, float] | None = None
    for count in counts:
        cm = ContextManager.open(tmp / f"append_{count}.db")
        cm.add_message("user", "first")
        for k in range(count - 1):
            cm.store.create_branch(f"b{k}", "main", None)
        adds, forks, derives = [], [], []
        for i in range(writes):
            t = time.perf_counter()
            cm.add_message("user", f"message {i}")
            adds.append(time.perf_counter() - t)
        for k in range(SAMPLES):
            t = time.perf_counter()
            cm.fork(f"f{k}")
            forks.append(time.perf_counter() - t)
            t = time.perf_counter()
            cm.derive(f"d{k}")
            derives.append(time.perf_counter() - t)
        cm.close()
        row = (statistics.median(adds) * 1000, statistics.median(forks) * 1000, statistics.median(derives) * 1000)
        floor = floor or row
        cells = " | ".join(f"{v:.3f} | {v / f:.2f}" for v, f in zip(row, floor, strict=True))
        print(f"{count:,} | {cells}", flush=True)
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="2000,20000,200000")
    ap.add_argument("--drain-max", type=int, default=20000, help="compress and compile a child up to this size")
    ap.add_argument("--branches", default="1,100,1000,3000", help="live-branch counts (the first is the floor)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        with_branches([int(s) for s in args.branches.split(",") if s], Path(d))
    print(
        "messages | fork ms | x first | derive ms | x first | parent drain s | child first compile ms | "
        "child model calls"
    )
    print("--- | --- | --- | --- | --- | --- | --- | ---")
    first: tuple[float, float] | None = None
    with tempfile.TemporaryDirectory() as d:
        for n in (int(s) for s in args.sizes.split(",") if s):
            r = measure(n, n <= args.drain_max, Path(d))
            fork_ms, derive_ms = float(r["fork_ms"]), float(r["derive_ms"])
            first = first or (fork_ms, derive_ms)
            compile_ms = f"{r['child_first_compile_ms']:.1f}" if "child_first_compile_ms" in r else "-"
            calls = str(r.get("child_summarizer_calls", "-"))
            print(
                f"{n:,} | {fork_ms:.3f} | {fork_ms / first[0]:.2f} | {derive_ms:.3f} | {derive_ms / first[1]:.2f} | "
                f"{r['drain_s']:.1f} | {compile_ms} | {calls}",
                flush=True,
            )


if __name__ == "__main__":
    main()
