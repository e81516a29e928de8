"""Every budget from the smallest that fits: does each fit, and does any sent message say nothing?

    python benchmarks/bench_small_budgets.py [--seeds 20] [--budgets 5-400]
        [--strategies windowed,autobiographical,passthrough] [--shape varied|loops|blocks] [--above 30]

For each seed, a generated history (``tests/compile/compile_helpers.varied_history``'s shapes: plain
turns, long texts, runs of short blocks, identifiers, Chinese, cited answers, file-list tool results) is
compiled under each strategy at every budget of ``--budgets``. With ``--shape loops``, each history ends in
a running tool loop opened by signed thinking (``compile_helpers.loop_history``, its sizes drawn by
``random_loop``: 0-6 chat turns, 1-8 steps, results of 1-400 words; nothing summarised), and a compile that
enters the loop half-way counts as failing. With ``--shape blocks``, each history is a request, a short
answer and a newest message of 1-80 text blocks of 1-500 characters each (prose, dense code, or hex ids,
identifier lists, Chinese and paths: ``test_excerpt_cut_again._blocks_history`` and
``test_cut_again_figures._line``); its smallest budget that fits is found by halving (up to 60,000) and the
``--above`` budgets after it are compiled (``--budgets`` is not used). Printed per strategy: the histories with a
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
from tests.compile.test_cut_again_figures import _line
from tests.compile.test_excerpt_cut_again import _blocks_history, _smallest


def _blocks(strategy: str, seed: int) -> ContextManager:
    """A newest message of many text blocks (see the module docstring)."""
    rng = random.Random(seed)
    blocks, chars, kind = rng.randint(1, 80), rng.randint(1, 500), rng.choice(["prose", "code", "mixed"])
    if kind != "mixed":
        return _blocks_history(strategy, blocks, chars, code=kind == "code")
    cm = ContextManager.open("memory:", strategy=strategy, summarizer=None)
    cm.add_message("user", "Please review the design notes I will paste next.")
    cm.add_message("assistant", "Sure.")
    cm.add_message("user", [{"type": "text", "text": f"Note {i}: " + _line(rng, chars)} for i in range(blocks)])
    return cm


def _history(strategy: str, seed: int, shape: str) -> ContextManager:
    if shape == "loops":
        return loop_history(strategy, *random_loop(random.Random(seed)))
    if shape == "blocks":
        return _blocks(strategy, seed)
    cm = ContextManager.open("memory:", strategy=strategy)
    varied_history(cm, random.Random(seed))
    return cm


def _row(strategy: str, seeds: int, budgets: range, shape: str, above: int) -> str:
    holes = bare = never = 0
    hole_budgets = bare_budgets = 0
    smallest: list[int] = []
    t0 = time.process_time()
    for seed in range(seeds):
        cm = _history(strategy, seed, shape)
        if shape == "blocks":
            first = _smallest(cm, 60_000)
            budgets = range(first, first + above + 1)
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
    parser.add_argument("--shape", choices=["varied", "loops", "blocks"], default="varied")
    parser.add_argument("--above", type=int, default=30, help="budgets above the smallest fit (--shape blocks)")
    args = parser.parse_args()
    low, high = (int(x) for x in args.budgets.split("-"))
    where = f"the smallest fit and {args.above} above" if args.shape == "blocks" else f"every budget {low}-{high}"
    print(f"# {args.seeds} generated histories ({args.shape}), {where}")
    print("strategy          fail above a fit  never  bare marker sent    smallest     CPU")
    for strategy in args.strategies.split(","):
        print(_row(strategy, args.seeds, range(low, high + 1), args.shape, args.above), flush=True)


if __name__ == "__main__":
    main()
