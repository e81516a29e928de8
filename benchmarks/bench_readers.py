"""Reader-scoped views benchmark (run by hand: ``python benchmarks/bench_readers.py``): per-write and per-compile
cost with no reader and no audience, and with a reader and 1% audience blocks."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from context_journal.manager import ContextManager


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


if __name__ == "__main__":
    sizes = [int(a) for a in sys.argv[1:]] or [5_000]
    for n in sizes:
        for reader, share in [(None, 0.0), ("ann", 0.01)]:
            w, c, e = run(n, reader, share)
            print(
                f"{n:>6} msgs reader={reader!s:<5} audience={share:.0%}: {w:.3f} ms/write, "
                f"{c:.2f} ms/(write+compile), {e:.2f} ms/(edit+compile)"
            )
