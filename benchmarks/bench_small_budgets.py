"""Every budget from the smallest that fits: does each fit, and does any sent message say nothing?

    python benchmarks/bench_small_budgets.py [--seeds 20] [--budgets 5-400]
        [--strategies windowed,autobiographical,passthrough] [--shape varied|loops]

For each seed, a generated history (``tests/compile/compile_helpers.varied_history``'s shapes: plain
turns, long texts, runs of short blocks, identifiers, Chinese, cited answers, file-list tool results) is
compiled under each strategy at every budget of ``--budgets``. With ``--shape loops``, each history ends in
a running tool loop opened by signed thinking (``compile_helpers.loop_history``, its sizes drawn by
``random_loop``: 0-6 chat turns, 1-8 steps, results of 1-400 words; nothing summarised), and a compile that
enters the loop half-way counts as failing. Printed per strategy: the histories with a
budget that fails above one that fits (and how many such budgets), the histories that never fit in the range,
the histories that send a stored message or a block of one as its bare cut marker (and at how many budgets),
the smallest budgets that fit, and the CPU time. Printed, never asserted (the test module asserts the
properties on fewer budgets).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from context_journal import ContextManager, OverBudgetError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: the tests package
from tests.compile.compile_helpers import (
    bare_blocks,
    loop_history,
    random_loop,
    running_loop_kept_whole,
    varied_history,
)


def _history(strategy: str, seed: int, shape: str) -> ContextManager:
    if shape == "loops":
        return loop_history(strategy, *random_loop(random.Random(seed)))
    cm = ContextManager.open("memory:", strategy=strategy)
    varied_history(cm, random.Random(seed))
    return cm


def _row(strategy: str, seeds: int, budgets: range, shape: str) -> str:
    holes = bare = never = 0
    hole_budgets = bare_budgets = 0
    smallest: list[int] = []
    t0 = time.process_time()
    for seed in range(seeds):
        cm = _history(strategy, seed, shape)
        fits: list[int] = []
        bare_here = 0
        for budget in budgets:
            try:
                result = cm.compile(budget)
            except OverBudgetError:
                continue
            try:
                running_loop_kept_whole(cm, result)
            except AssertionError:
                continue  # entered half-way: not a fit
            fits.append(budget)
            bare_here += bool(bare_blocks(result))
        if not fits:
            never += 1
            continue
        smallest.append(fits[0])
        failing = (fits[-1] - fits[0] + 1) - len(fits)
        holes += bool(failing)
        hole_budgets += failing
        bare += bool(bare_here)
        bare_budgets += bare_here
    cpu = time.process_time() - t0
    span = f"{min(smallest)}-{max(smallest)}" if smallest else "-"
    return (
        f"{strategy:17} {holes:3} ({hole_budgets:3} budgets) {never:6} {bare:5} ({bare_budgets:4} budgets) "
        f"{span:>10} {cpu:7.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--budgets", default="5-400", help="LOW-HIGH, both included")
    parser.add_argument("--strategies", default="windowed,autobiographical,passthrough")
    parser.add_argument("--shape", choices=["varied", "loops"], default="varied")
    args = parser.parse_args()
    low, high = (int(x) for x in args.budgets.split("-"))
    print(f"# {args.seeds} generated histories ({args.shape}), every budget {low}-{high}")
    print("strategy          fail above a fit  never  bare marker sent    smallest     CPU")
    for strategy in args.strategies.split(","):
        print(_row(strategy, args.seeds, range(low, high + 1), args.shape), flush=True)


if __name__ == "__main__":
    main()
