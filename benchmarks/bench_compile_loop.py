"""The compile loop: compile after one appended message beside the warm figure, the select+render
passes, and the time of a compile that cannot fit (printed, never asserted).

Usage::

    python benchmarks/bench_compile_loop.py [--sizes 2000,20000,200000] [--budgets 8000,100000]
        [--strategy passthrough,windowed,autobiographical] [--fail-budget 60,90] [--repeat 15]
        [--summarizer stub|offline] [--store-dir DIR] [--no-ledger] [--baseline] [--skip-append] [--skip-fail]
        [--never-summarised [--never-budget 8000] [--named | --tools]]

**After an append.** For each size, budget and strategy, on a copy of a SQLite store of the synthetic agent
conversation of bench_compile.py (the autobiographical strategy's store drained first, every chunk summarised
for that budget), it prints the median of ``--repeat`` warm compiles (the same compile again: caches skip the
work), the median of compiles each after one appended user message (what an agent loop pays every turn), their
ratio, and the most select+render passes a compile made (``CompileResult.stats["passes"]``; at most 2 unless
the compile excerpts to fit). Targets: after an append <= 5 ms at 20,000 messages (8k budget) and
<= 10 ms at 200,000.

**A compile that cannot fit.** For each size and each of ``--fail-budget``'s budgets, a store never
summarised (no summarizer ever ran) is compiled with the autobiographical strategy (``overflow="excerpt"``,
the default): the first compile closes the chunks that are due (written once; timed apart), then it prints
the median time of a compile that raises ``OverBudgetError`` through ``ContextManager.compile`` (which
names the pending compression work) and through ``preview_context`` (the compile alone), and the error's
figures. Target: <= 50 ms at 200,000 messages. Since the middle not summarised yet gives way by closed tool
units too, and an excerpt can be cut again, such a history fits from about 94 tokens (the opening
message as its cut marker, one note for the rest, the newest answer at its smallest readable excerpt;
145 before). Below the cheapest cover the index proves (about 80 tokens: the head and the newest message
at their bare excerpts, one note; ``needs`` then gives where the scan stopped, a lower bound) the compile
fails before it selects; between the two (90, the default's second budget) it renders the history first
(the middle's plain turns that give way priced unread, its tool messages read but not excerpted), and
that row is the slow one.

**Compile through ContextManager on a never-summarised history** (``--never-summarised``; then only this
runs). For each size, a SQLite store of short plain text messages (added with ``cm.add_messages`` in
batches of 1,000, user and assistant alternating) that no summarizer ever ran on is compiled with the
autobiographical strategy (``overflow="excerpt"``, the default) at ``--never-budget`` tokens (8,000): the
context fits, the middle not summarised yet giving way as one note. It prints the first compile and the
median of ``--repeat`` compiles through ``ContextManager.compile`` and through ``preview_context`` (printed,
never asserted). A review found each read every message of the history (about 1 s at 20,000 messages);
the plain text messages cut whole are now priced from the index, unread. ``--named``: two named speakers
("Caroline: ...", as LoCoMo or IRC turns render), a new day every 20 messages, dates rendered (until both
were priced unread too, such a history was still read whole). ``--tools``: the tool-using history of the
other sections instead (a call and its result every third exchange): it fits since closed tool units give
way whole, but they are read and rendered (only plain text is priced unread).

``--baseline`` runs the same with the loop's shortcuts off (``context_journal.compile._SHORTCUTS = False``:
every pass renders, no early stop, no failure before rendering), the figures the issue measured before.
``--no-ledger`` turns the working-state block off (``LedgerConfig(share=0)``) to time the compile loop alone.
``--store-dir`` keeps the built (and drained) stores between runs (each timing runs on a fresh copy).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import contextlib

from bench_compile import STRATEGIES, StubSummarizer, build, drain, strategy_for

import context_journal.compile as compile_module
from context_journal.compile import OverBudgetError
from context_journal.llm import OfflineSummarizer, Provider
from context_journal.manager import ContextManager
from context_journal.state.ledger import LedgerConfig


def _copy(src: Path, dst: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(str(dst) + suffix).unlink(missing_ok=True)
    shutil.copy(src, dst)
    return dst


def _store(root: Path, n: int) -> Path:
    path = root / f"loop-{n}.db"
    if not path.exists():
        t0 = time.perf_counter()
        build(path, n)
        print(f"# built {n:,} messages in {time.perf_counter() - t0:.1f} s", flush=True)
    return path


def _drained(root: Path, n: int, budget: int, summarizer: Provider) -> Path:
    path = root / f"loop-{n}-drained-{budget}.db"
    if not path.exists():
        tmp = _copy(_store(root, n), root / "draining.db")
        print(f"# {n:,} messages, {budget:,} budget: {drain(tmp, budget, summarizer)}", flush=True)
        shutil.move(tmp, path)
    return path


def _open(path: Path, name: str, budget: int, ledger: bool) -> ContextManager:
    cm = ContextManager.open(path, strategy=strategy_for(name, budget))
    if not ledger:
        cm.ledger_config = LedgerConfig(share=0)
    return cm


def after_append(path: Path, name: str, budget: int, repeat: int, ledger: bool) -> dict[str, Any]:
    """Warm and after-append medians (ms) and the most passes of one strategy on a copy of ``path``."""
    work = _copy(path, path.parent / "timing.db")
    with _open(work, name, budget, ledger) as cm:
        cm.compile(budget)
        warm, after, passes = [], [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            result = cm.compile(budget)
            warm.append(time.perf_counter() - t0)
            passes.append(result.stats.get("passes", 0))
        for k in range(repeat):
            cm.add_message("user", f"One more question, number {k}: what does the build cache keep?")
            t0 = time.perf_counter()
            result = cm.compile(budget)
            after.append(time.perf_counter() - t0)
            passes.append(result.stats.get("passes", 0))
        excerpted = any(r.kind == "excerpted" for r in result.repairs)
        return {
            "warm": statistics.median(warm) * 1000,
            "after": statistics.median(after) * 1000,
            "passes": max(passes),
            "excerpted": excerpted,
            "messages": len(result.messages),
            "tokens": result.tokens,
        }


def cannot_fit(path: Path, budget: int, repeat: int, ledger: bool) -> dict[str, Any]:
    """Times of a compile that raises OverBudgetError on a never-summarised copy of ``path``."""
    work = _copy(path, path.parent / "timing.db")
    with _open(work, "autobiographical", budget, ledger) as cm:
        t0 = time.perf_counter()
        try:
            cm.compile(budget)
            return {"fits": True}
        except OverBudgetError:
            first = time.perf_counter() - t0
        times, previews = [], []
        error: OverBudgetError | None = None
        for _ in range(repeat):
            t0 = time.perf_counter()
            try:
                cm.compile(budget)
            except OverBudgetError as exc:
                error = exc
            times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            with contextlib.suppress(OverBudgetError):
                cm.preview_context(budget)
            previews.append(time.perf_counter() - t0)
        assert error is not None
        return {
            "fits": False,
            "first": first * 1000,
            "compile": statistics.median(times) * 1000,
            "preview": statistics.median(previews) * 1000,
            "needs": error.actual,
            "pending": error.parts.get("pending chunks", 0),
        }


def _plain_store(root: Path, n: int, named: bool = False) -> Path:
    """Short plain text messages; ``named``: two named speakers ("Caroline: ...", as LoCoMo or IRC render),
    a new day every 20 messages."""
    path = root / f"plain-{n}{'-named' if named else ''}.db"
    speakers = ("Caroline", "Melanie") if named else ("user", "assistant")
    if not path.exists():
        t0 = time.perf_counter()
        with ContextManager.open(path) as cm:
            for i in range(0, n, 1000):
                cm.add_messages(
                    [
                        {
                            "participant": speakers[(i + j) % 2],
                            "content": f"message {i + j}: the build cache keeps tokens for the compile step.",
                            "timestamp": 1_683_500_000.0 + (i + j) // 20 * 86_400 + (i + j) % 20,
                        }
                        for j in range(min(1000, n - i))
                    ]
                )
        print(f"# built {n:,} plain messages in {time.perf_counter() - t0:.1f} s", flush=True)
    return path


def never_summarised(path: Path, budget: int, repeat: int, ledger: bool, dates: bool = False) -> dict[str, Any]:
    """Compile times (ms) through ContextManager on a never-summarised copy of ``path`` that fits."""
    work = _copy(path, path.parent / "timing.db")
    with _open(work, "autobiographical", budget, ledger) as cm:
        t0 = time.perf_counter()
        result = cm.compile(budget, render_dates=dates)
        first = time.perf_counter() - t0
        times, previews = [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            result = cm.compile(budget, render_dates=dates)
            times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            cm.preview_context(budget, render_dates=dates)
            previews.append(time.perf_counter() - t0)
        return {
            "first": first * 1000,
            "compile": statistics.median(times) * 1000,
            "preview": statistics.median(previews) * 1000,
            "messages": len(result.messages),
            "tokens": result.tokens,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000,200000")
    parser.add_argument("--budgets", default="8000,100000")
    parser.add_argument("--strategy", default=",".join(STRATEGIES), help="comma-separated: " + ", ".join(STRATEGIES))
    parser.add_argument("--fail-budget", default="60,90", help="comma-separated budgets")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--summarizer", choices=("offline", "stub"), default="stub")
    parser.add_argument("--store-dir", default=None, help="keep built and drained stores here")
    parser.add_argument("--no-ledger", action="store_true", help="LedgerConfig(share=0): the compile loop alone")
    parser.add_argument("--baseline", action="store_true", help="the loop's shortcuts off (the figures before)")
    parser.add_argument("--skip-append", action="store_true")
    parser.add_argument("--skip-fail", action="store_true")
    parser.add_argument(
        "--never-summarised",
        action="store_true",
        help="only: compile through ContextManager on a never-summarised history of plain messages",
    )
    parser.add_argument("--never-budget", type=int, default=8000)
    parser.add_argument(
        "--named", action="store_true", help="with --never-summarised: two named speakers, dated turns, dates rendered"
    )
    parser.add_argument(
        "--tools",
        action="store_true",
        help="with --never-summarised: the tool-using history of the other sections (closed units give way whole)",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    budgets = [int(b) for b in args.budgets.split(",")]
    names = [n for n in args.strategy.split(",") if n]
    unknown = set(names) - set(STRATEGIES)
    if unknown:
        parser.error(f"unknown strategy {sorted(unknown)}; choose from {', '.join(STRATEGIES)}")
    if args.baseline:
        compile_module._SHORTCUTS = False
    summarizer: Provider = StubSummarizer() if args.summarizer == "stub" else OfflineSummarizer()
    ledger = not args.no_ledger
    mode = "baseline (shortcuts off)" if args.baseline else "shortcuts on"
    print(f"# compile loop, {mode}, working-state block {'on' if ledger else 'off'}, SQLite, medians of {args.repeat}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.store_dir) if args.store_dir else Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        if args.never_summarised:
            print(
                "# compile through ContextManager on a never-summarised history: autobiographical, "
                f"{args.never_budget:,} budget, "
                + ("a tool-using chat" if args.tools else "plain text messages")
                + (" of two named speakers, dated, dates rendered" if args.named and not args.tools else "")
            )
            print(f"{'messages':>9} {'first ms':>9} {'compile ms':>11} {'preview ms':>11} {'sent':>6} {'tokens':>7}")
            for n in sizes:
                path = _store(root, n) if args.tools else _plain_store(root, n, args.named)
                row = never_summarised(path, args.never_budget, args.repeat, ledger, args.named and not args.tools)
                print(
                    f"{n:>9,} {row['first']:>9.1f} {row['compile']:>11.1f} {row['preview']:>11.1f} "
                    f"{row['messages']:>6,} {row['tokens']:>7,}",
                    flush=True,
                )
            return
        if not args.skip_append:
            print(
                f"{'strategy':<16} {'messages':>9} {'budget':>8} {'warm ms':>8} {'append ms':>10} "
                f"{'ratio':>6} {'passes':>6}  excerpted"
            )
            for n in sizes:
                for budget in budgets:
                    for name in names:
                        path = _drained(root, n, budget, summarizer) if name == "autobiographical" else _store(root, n)
                        row = after_append(path, name, budget, args.repeat, ledger)
                        ratio = row["after"] / row["warm"] if row["warm"] else float("nan")
                        print(
                            f"{name:<16} {n:>9,} {budget:>8,} {row['warm']:>8.2f} {row['after']:>10.2f} "
                            f"{ratio:>6.2f} {row['passes']:>6}  {'yes' if row['excerpted'] else 'no'}",
                            flush=True,
                        )
        if not args.skip_fail:
            print("# a compile that cannot fit: autobiographical, never summarised")
            print(
                f"{'messages':>9} {'budget':>7} {'first ms':>9} {'compile ms':>11} {'preview ms':>11} "
                f"{'needs':>7} {'pending':>8}"
            )
            for n in sizes:
                for fail_budget in (int(b) for b in args.fail_budget.split(",")):
                    row = cannot_fit(_store(root, n), fail_budget, max(3, args.repeat // 3), ledger)
                    if row["fits"]:
                        print(f"{n:>9,} {fail_budget:>7,} fits")
                        continue
                    print(
                        f"{n:>9,} {fail_budget:>7,} {row['first']:>9.1f} {row['compile']:>11.1f} "
                        f"{row['preview']:>11.1f} {row['needs']:>7,} {row['pending']:>8,}",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
