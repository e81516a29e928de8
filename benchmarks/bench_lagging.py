"""How small a budget an agent's history fits while compression lags: real Claude Code sessions, nothing summarised.

    python benchmarks/bench_lagging.py [--data ../shared/data/claude-code-sessions] [--strategy autobiographical]
        [--budgets 1000,4000] [--repeat 5] [--sweep 200-4000:150]

For each session (``*.jsonl`` in ``--data``), imported into a memory store the way ``context-journal import``
writes it, with a compressing strategy and no summary written yet (no ``drain()``, no ``compress``): the
smallest budget at which ``ContextManager.compile`` returns a context (a binary search over budgets 1..60,000;
a budget that fails raises ``OverBudgetError``) and how long the search took; then at each of ``--budgets``
the tokens sent, the messages sent, how many stored messages the notes of the middle not summarised yet
stand for (``CompileResult.unsummarised_cut``) and the median time of ``--repeat`` compiles, each after one
appended user turn (the realistic case: a compile after an append). Printed, never asserted.

A budget that fits is not assumed to mean every larger one fits: the search reports the smallest budget it
found to fit, and the table at ``--budgets`` shows what those budgets did.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from context_journal import ContextManager, OverBudgetError, read_transcript
from context_journal.formats.importers import import_into
from context_journal.stores import MemoryStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: the tests package
from tests.compile.compile_helpers import bare_blocks, smallest_budget

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "claude-code-sessions"


def _open(path: Path, strategy: str) -> ContextManager:
    store = MemoryStore()
    import_into(store, read_transcript(path), namespace="s")
    return ContextManager.open(store=store, namespace="s", strategy=strategy)


def at_budget(cm: ContextManager, budget: int, repeat: int) -> str:
    """``tokens / messages / cut / median ms`` of compiles at ``budget``, each after an appended user turn."""
    times = []
    result = None
    for k in range(repeat):
        cm.add_message("user", f"And what about step {k}?")
        t0 = time.perf_counter()
        try:
            result = cm.compile(budget)
        except OverBudgetError as exc:
            return f"fails (needs {exc.actual:,})"
        times.append(time.perf_counter() - t0)
    assert result is not None
    return (
        f"{result.tokens:,} tokens, {len(result.messages)} msgs, {result.unsummarised_cut} in notes, "
        f"{statistics.median(times) * 1000:.1f} ms"
    )


def sweep(cm: ContextManager, budgets: range) -> str:
    """``fits / messages / tokens / bare`` over ``budgets``: the compiles that fit, the messages and tokens
    they send, and the blocks of stored messages sent as their bare cut markers (nothing of their text)."""
    fits = messages = tokens = bare = 0
    for budget in budgets:
        try:
            result = cm.compile(budget)
        except OverBudgetError:
            continue
        fits += 1
        messages += len(result.messages)
        tokens += result.tokens
        bare += len(bare_blocks(result))
    return f"{fits} of {len(budgets)} fit, {messages:,} msgs, {tokens:,} tokens, {bare} bare"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--strategy", default="autobiographical", choices=["autobiographical", "knowledge"])
    parser.add_argument("--budgets", default="1000,4000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--sweep", default=None, help="LOW-HIGH:STEP: compile at each of those budgets instead (see sweep())"
    )
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    sessions = sorted(args.data.glob("*.jsonl"))
    if not sessions:
        raise SystemExit(f"no *.jsonl sessions in {args.data}")
    if args.sweep:
        span, step = args.sweep.split(":")
        low, high = (int(x) for x in span.split("-"))
        print(f"# {args.strategy}, nothing summarised; every budget {low:,}-{high:,} in steps of {step}")
        for path in sessions:
            print(f"{path.stem[:8]} | {sweep(_open(path, args.strategy), range(low, high + 1, int(step)))}", flush=True)
        return
    print(f"# {args.strategy}, nothing summarised; budgets {', '.join(f'{b:,}' for b in budgets)}")
    header = ["session", "messages", "smallest budget", "search s", *(f"at {b:,}" for b in budgets)]
    print(" | ".join(header))
    for path in sessions:
        cm = _open(path, args.strategy)
        n = len(cm.get_all_messages())
        t0 = time.perf_counter()
        floor = smallest_budget(cm, 60_000)
        took = time.perf_counter() - t0
        row = [path.stem[:8], str(n), f"{floor:,}", f"{took:.1f}", *(at_budget(cm, b, args.repeat) for b in budgets)]
        print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()
