"""Reader-scoped views benchmark (run by hand: ``python benchmarks/bench_readers.py [N ...]``): per-write and
per-compile cost with no reader and no audience, and with a reader and 1% audience blocks; then auxiliary views.

Auxiliary views: N messages in one namespace's slot ("talk"); a side reader ("critic", a slot of its own) holds
one note in 50 and compiles the talk through ``auxiliary_views``. Measured: another handle appends to the talk,
then the side reader compiles (8,000 tokens, windowed), against the floor, the talk's own handle doing the
same after its own append; then an edit of the talk's first message and a compile (a merged view rebuilds
its rows, O(N)), with words the working-state ledger passes over, then with a new identifier in it (the
ledger folds the talk again, O(N)). Figures are medians in ms, printed, never asserted."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from context_journal.manager import ContextManager
from context_journal.strategies import WindowedPassthroughStrategy


def run(n: int, reader: str | None, share: float) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as d:
        cm = ContextManager.open(str(Path(d) / "s.db"), view_reader=reader)
        every = int(1 / share) if share else 0
        t0 = time.perf_counter()
        for i in range(n):
            content: list[dict[str, object]] = [{"type": "text", "text": f"line {i} " + "word " * 30}]
            if every and i % every == 0:
                content.append({"type": "text", "text": f"for ann {i}", "audience": ["ann"]})
            cm.add_message("user" if i % 2 else "assistant", content)
        write = (time.perf_counter() - t0) / n * 1000
        cm.compile(8_000)
        t0 = time.perf_counter()
        reps = 20
        for i in range(reps):
            cm.add_message("user", f"more {i}")
            cm.compile(8_000)
        comp = (time.perf_counter() - t0) / reps * 1000
        first = cm.get_messages(0, 1)[0].id
        t0 = time.perf_counter()
        for i in range(reps):  # an edit makes a reader view with audience blocks rebuild its rows (O(N))
            cm.edit_message(first, f"edited {i}")
            cm.compile(8_000)
        edit = (time.perf_counter() - t0) / reps * 1000
        cm.close()
        return write, comp, edit


def run_auxiliary(n: int, reps: int = 30) -> tuple[float, float, float, float, float, float, float]:
    """(floor ms, merged ms, floor and merged ms after an edit, the same after an edit that names an identifier,
    first merged compile ms) for N talk messages."""
    with tempfile.TemporaryDirectory() as d:
        talk = ContextManager.open(str(Path(d) / "s.db"), namespace="talk", isolate=True)
        talk.strategy = WindowedPassthroughStrategy()
        batch = [("user" if i % 2 else "assistant", f"line {i} " + "word " * 30) for i in range(n)]
        for start in range(0, n, 1000):
            talk.add_messages([{"participant": p, "content": c} for p, c in batch[start : start + 1000]])
        side = ContextManager.open(
            store=talk.store,
            namespace="critic",
            isolate=True,
            strategy=WindowedPassthroughStrategy(),
            auxiliary_views=[{"namespace": "talk"}],
        )
        side.add_message("critic", "a first note")
        t0 = time.perf_counter()
        side.compile(8_000)  # builds the talk's index for this handle and merges it
        first = (time.perf_counter() - t0) * 1000
        talk.compile(8_000)

        def compile_both(floor_ms: list[float], side_ms: list[float]) -> None:
            """The talk's compile, then the side reader's, each timed."""
            for cm, out in ((talk, floor_ms), (side, side_ms)):
                t0 = time.perf_counter()
                cm.compile(8_000)
                out.append(time.perf_counter() - t0)

        floor: list[float] = []
        merged: list[float] = []
        edited: list[float] = []
        first_id = talk.get_messages(0, 1)[0].id
        for i in range(reps):
            talk.add_message("user", f"more {i} " + "word " * 30)
            if i % 50 == 0:
                side.add_message("critic", f"note {i}")
            compile_both(floor, merged)

        def after_edits(text: str) -> tuple[list[float], list[float]]:
            floor_ms: list[float] = []
            side_ms: list[float] = []
            for i in range(reps // 3):
                talk.edit_message(first_id, text.format(i=i))
                compile_both(floor_ms, side_ms)
            return floor_ms, side_ms

        floor_edited, edited = after_edits("edited {i}")
        # An edit that names an identifier: the working-state ledger folds the talk again.
        floor_named, named = after_edits("edited {i}: see `load_rows_{i}`")
        talk.close()
        ms = [statistics.median(x) * 1000 for x in (floor, merged, floor_edited, edited, floor_named, named)]
        return ms[0], ms[1], ms[2], ms[3], ms[4], ms[5], first


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [5_000]
    for n in sizes:
        for reader, share in [(None, 0.0), ("ann", 0.01)]:
            w, c, e = run(n, reader, share)
            print(
                f"{n:>6} msgs reader={reader!s:<5} audience={share:.0%}: {w:.3f} ms/write, "
                f"{c:.2f} ms/(write+compile), {e:.2f} ms/(edit+compile)"
            )
    print(
        "\n| talk messages | compile after an append: floor / auxiliary view | after an edit of the first "
        "message: floor / auxiliary view | after an edit of it that names an identifier: floor / auxiliary view "
        "| first compile of the side reader |"
    )
    print("|---|---|---|---|---|")
    for n in sizes:
        f, m, fe, e, fn, en, first = run_auxiliary(n)
        print(f"| {n:,} | {f:.2f} / {m:.2f} ms | {fe:.2f} / {e:.2f} ms | {fn:.2f} / {en:.2f} ms | {first:.0f} ms |")
