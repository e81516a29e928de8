"""Execution-journal benchmark: the cost of one ``ExecutionJournal.append`` and of a full verification.

Usage::

    python benchmarks/bench_journal.py --sizes 1000,10000 --appends 500

For each size N it builds a SQLite store whose project holds N handoff entries, then prints:

* ``append_us``: median microseconds of one append by a journal that has already read the project
  (one transaction; includes the integrity check of the head before the write);
* ``append_key_us``: the same with a signed head (an HMAC key);
* ``first_read_ms``: the first fold of the project by a new journal object (reads and verifies every entry);
* ``verify_ms``: a full ``verify_chain`` (every entry, its marker record, the head).

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from context_journal.journal import ExecutionJournal
from context_journal.stores import SQLiteStore


def _handoff(i: int) -> dict[str, Any]:
    return {
        "goal": "Ship the parser",
        "state": f"step {i}: the tokenizer handles nested quotes; the grammar still misses one rule",
        "next_step": "write the PEG rule for escapes",
        "ruled_out": [],
        "done_claims": [],
        "refs": [],
    }


def _appends(journal: ExecutionJournal, start: int, count: int, tag: str) -> list[float]:
    times = []
    for i in range(start, start + count):
        t0 = time.perf_counter()
        journal.append("p", "handoff", _handoff(i), "ann", f"{tag}{i}")
        times.append((time.perf_counter() - t0) * 1e6)
    return times


def run(size: int, appends: int, directory: Path) -> dict[str, Any]:
    path = directory / f"journal-{size}.db"
    journal = ExecutionJournal(SQLiteStore(path))
    with journal.store.transaction():
        for i in range(size):
            journal.append("p", "handoff", _handoff(i), "ann", f"fill{i}")
    plain = statistics.median(_appends(journal, 0, appends, "a"))
    journal.close()
    journal.store.close()
    keyed = ExecutionJournal(SQLiteStore(path), **_key_option())
    keyed.state("p")
    signed = statistics.median(_appends(keyed, 0, appends, "b"))
    keyed.store.close()
    fresh = ExecutionJournal(SQLiteStore(path))
    t0 = time.perf_counter()
    fresh.state("p")
    first = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    report = fresh.verify_chain("p")
    verify = (time.perf_counter() - t0) * 1e3
    fresh.store.close()
    return {
        "entries": size,
        "append_us": round(plain, 1),
        "append_key_us": round(signed, 1),
        "first_read_ms": round(first, 1),
        "verify_ms": round(verify, 1),
        "verified": report.ok,
    }


def _key_option() -> dict[str, Any]:
    import inspect

    if "head_key" in inspect.signature(ExecutionJournal).parameters:
        return {"head_key": b"benchmark key", "require_signed_head": False}  # the project was written unsigned
    return {}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--appends", type=int, default=500, help="timed appends per size")
    ap.add_argument("--json", action="store_true", help="print one JSON object per size")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            row = run(size, args.appends, Path(tmp))
            print(json.dumps(row) if args.json else "  ".join(f"{k}={v}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
