"""Working-state ledger benchmark: upkeep per message against the floor with the ledger off, rebuild cost,
and prompt-cache reuse by placement.

Usage::

    python benchmarks/bench_ledger.py --sizes 2000,5000,20000 [--session PATH] [--no-cache]

Last ``upkeep_us_per_add``: the fold plus the amortised checkpoint encoding, the upkeep an
``add_message`` carries on average, and ``upkeep_vs_floor``, the same over the median ``add_message`` with
the ledger off (the floor) in the same run: the target is 10 us against a floor of 54 us (0.185). The
``_cpu`` twins measure CPU time (the fold's, and the floor's), steadier than the wall clock when other
processes share the machine.

First ``fold_us_per_message``: the fold alone (``Ledger.add``), one pass over every message of the four
real Claude Code sessions (``../shared/data/claude-code-sessions``, nothing cycled): the ledger's upkeep
per appended message, less the O(1) queueing and the amortised checkpoint write below. It is the best of
five passes, so every whitespace-separated chunk is already classified (the process-wide chunk caches of
``_names``); ``fold_cold_us_per_message`` is the best of five passes each started with empty caches,
what a process meeting these sessions for the first time pays. ``upkeep_cold_us_per_add`` adds the
checkpoint's share to it. ``fold_unseen_cpu_us_per_message`` is the closest to what a long-running
process pays for a new session: each session folded once (CPU time, the best of three) after the other
sessions filled the caches (different projects share few words, so it lies near the cold figure: the
warm one flatters).

Then, for each size N (SQLite, ``durability="normal"``; the session's messages cycled with fresh tool
ids; the history written with the ledger off, so it starts without a checkpoint):

* ``add_off_us`` / ``add_on_us``: mean microseconds of ``add_message`` with the ledger off (no keeper)
  and on (a keeper queues each body, folds and writes a checkpoint every ``checkpoint_every`` = 512
  appends), over 1,000 appends (noisy: a disk write each);
* ``first_fold_ms``: a handle's first ``working_state()`` with no checkpoint (folds every message);
* ``checkpoint_encode_ms`` / ``checkpoint_us_per_append`` / ``checkpoint_bytes``: encoding one checkpoint
  (its write is one more record in the append path; the best of five encodings, CPU time), the same
  over 512 appends, and its JSON size;
* ``open_ms`` / ``open_folded``: a new handle's first ``working_state()`` (newest checkpoint + the
  messages after it) and how many messages it folded; ``open_no_checkpoint_ms``: the same with
  persistence off (``checkpoint_every=0``: what every open cost before checkpoints);
* ``fork_switch_ms`` / ``fork_switch_folded``: fork + switch_branch in the same process (a copy of the
  parent's ledger); ``fork_open_ms``: a new handle on the fork (the parent's checkpoint + tail).

Then, on the session itself, the prompt-cache reuse of each placement: the session is replayed and
compiled after each message (windowed and autobiographical at 16k tokens, offline compression drained
as it goes); ``cached`` is the share of each compile's tokens that form a prefix identical to the
previous compile's (what a provider's prompt cache can reuse), summed over the replay.

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

from context_journal import ContextManager, read_transcript
from context_journal.state import Ledger, LedgerConfig
from context_journal.state import ledger as ledger_module
from context_journal.state.checkpoint import dump_ledger
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy, WindowedPassthroughStrategy

DEFAULT_SESSION = (
    Path(__file__).resolve().parents[2] / "shared/data/claude-code-sessions/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
)


def session_messages(path: Path) -> list[tuple[str, list[dict[str, Any]]]]:
    conv = read_transcript(path).conversations[0]
    out = []
    for m in conv.messages:
        content = m.content if isinstance(m.content, list) else [{"type": "text", "text": m.content}]
        out.append((m.participant, [dict(b) if isinstance(b, dict) else b.model_dump() for b in content]))
    return out


def renamed(content: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    """The blocks with tool ids made unique for cycle ``k``."""
    out = []
    for b in content:
        b = dict(b)
        if b.get("type") == "tool_use":
            b["id"] = f"{b['id']}_{k}"
        elif b.get("type") == "tool_result":
            b["tool_use_id"] = f"{b['tool_use_id']}_{k}"
        out.append(b)
    return out


CPU: list[float] = []  # CPU seconds of each add_message of the last fill()


def fill(cm: ContextManager, msgs: list[tuple[str, list[dict[str, Any]]]], start: int, n: int) -> list[float]:
    """Wall seconds of each ``add_message`` (their CPU seconds in ``CPU``)."""
    times = []
    CPU.clear()
    for i in range(start, start + n):
        who, content = msgs[i % len(msgs)]
        content = renamed(content, i // len(msgs))
        c = time.process_time()
        t = time.perf_counter()
        cm.add_message(who, content)
        times.append(time.perf_counter() - t)
        CPU.append(time.process_time() - c)
    return times


def _timed(fn: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t) * 1000, out


def fold_cost(msgs: list[tuple[str, list[dict[str, Any]]]], repeats: int = 5) -> tuple[float, float, float, float]:
    """Microseconds per message of the fold alone (``Ledger.add``), one pass over the real messages:
    wall clock and CPU time (the process's), each the best of ``repeats`` passes with the chunk caches
    warm; then the same of passes each started with empty chunk caches."""

    def one_pass() -> tuple[float, float]:
        ledger = Ledger()
        c = time.process_time()
        t = time.perf_counter()
        for k, (_, content) in enumerate(msgs):
            ledger.add(f"m{k}", content)
        return time.perf_counter() - t, time.process_time() - c

    cold = cold_cpu = float("inf")
    for _ in range(repeats):
        ledger_module._CACHES = ledger_module._empty_caches()
        wall, cpu = one_pass()
        cold, cold_cpu = min(cold, wall), min(cold_cpu, cpu)
    best = best_cpu = float("inf")
    for _ in range(repeats):
        wall, cpu = one_pass()
        best, best_cpu = min(best, wall), min(best_cpu, cpu)
    n = len(msgs)
    return best * 1e6 / n, best_cpu * 1e6 / n, cold * 1e6 / n, cold_cpu * 1e6 / n


def fold_unseen(sessions: list[list[tuple[str, list[dict[str, Any]]]]], repeats: int = 3) -> float:
    """CPU microseconds per message of folding each session once after the other sessions filled the
    chunk caches (the best of ``repeats`` rounds)."""
    best = float("inf")
    for _ in range(repeats):
        total = 0.0
        for i, own in enumerate(sessions):
            ledger_module._CACHES = ledger_module._empty_caches()
            for j, other in enumerate(sessions):
                if j != i:
                    warm = Ledger()
                    for k, (_, content) in enumerate(other):
                        warm.add(f"m{k}", content)
            ledger = Ledger()
            c = time.process_time()
            for k, (_, content) in enumerate(own):
                ledger.add(f"m{k}", content)
            total += time.process_time() - c
        best = min(best, total)
    return best * 1e6 / sum(map(len, sessions))


def bench_size(n: int, msgs: list[tuple[str, list[dict[str, Any]]]], tmp: Path) -> dict[str, Any]:
    db = tmp / f"l{n}.db"
    off_config = LedgerConfig(share=0)
    with ContextManager.open(db) as cm:  # the history, written with the ledger off (no checkpoint)
        cm.ledger_config = off_config
        batch = 2000
        for i in range(0, n - 2000, batch):
            cm.add_messages(
                [
                    {"participant": w, "content": renamed(c, j // len(msgs))}
                    for j in range(i, min(i + batch, n - 2000))
                    for w, c in [msgs[j % len(msgs)]]
                ]
            )
        off = fill(cm, msgs, n - 2000, 1000)  # no keeper: the ledger is off
        off_cpu = list(CPU)
    with ContextManager.open(db) as cm:
        rebuild_ms, _ = _timed(cm.working_state)  # no checkpoint yet: folds every message
        on = fill(cm, msgs, n - 1000, 1000)  # keeper on: queues each body, folds and checkpoints every 512
        fold_ms, _ = _timed(cm.working_state)
        keeper = cm._ledger_keeper()
        save_ms = float("inf")
        for _ in range(5):
            c = time.process_time()
            text = json.dumps(dump_ledger(keeper.ledger), separators=(",", ":"))
            save_ms = min(save_ms, (time.process_time() - c) * 1000)
        size = len(text)
        cm.fork("side")
        cm.switch_branch("side")
        fork_ms, _ = _timed(cm.working_state)
        fork_folded = cm._ledger_keeper().folded
    with ContextManager.open(db) as cm:
        open_ms, _ = _timed(cm.working_state)  # the newest checkpoint + the messages after it
        folded = cm._ledger_keeper().folded
    with ContextManager.open(db, branch="side") as cm:
        fork_open_ms, _ = _timed(cm.working_state)  # another process on the fork
    with ContextManager.open(db) as cm:
        cm.ledger_config = LedgerConfig(checkpoint_every=0)  # persistence off: what open cost before
        open_off_ms, _ = _timed(cm.working_state)
    add_off, add_on = statistics.fmean(off) * 1e6, statistics.fmean(on) * 1e6
    return {
        "messages": n,
        "add_off_us": round(add_off, 1),
        "add_on_us": round(add_on, 1),
        "add_off_median_us": round(statistics.median(off) * 1e6, 1),
        "add_on_median_us": round(statistics.median(on) * 1e6, 1),
        "add_off_cpu_median_us": round(statistics.median(off_cpu) * 1e6, 1),
        "tail_fold_ms": round(fold_ms, 2),
        "checkpoint_encode_ms": round(save_ms, 2),
        "checkpoint_us_per_append": round(save_ms * 1000 / LedgerConfig().checkpoint_every, 2),
        "checkpoint_bytes": size,
        "first_fold_ms": round(rebuild_ms, 1),
        "open_ms": round(open_ms, 1),
        "open_folded": folded,
        "open_no_checkpoint_ms": round(open_off_ms, 1),
        "fork_switch_ms": round(fork_ms, 1),
        "fork_switch_folded": fork_folded,
        "fork_open_ms": round(fork_open_ms, 1),
    }


def prefix_tokens(a: Any, b: Any) -> int:
    """Tokens of the longest run of leading messages ``b`` shares with ``a`` (byte-identical)."""
    same = 0
    for x, y in zip(a.messages, b.messages, strict=False):
        if x.role != y.role or x.content != y.content:
            break
        same += y.tokens
    return same


def cache_reuse(msgs: list[tuple[str, list[dict[str, Any]]]], budget: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for strategy_name in ("windowed", "autobiographical"):
        for placement in ("none", "turn", "recent", "head"):
            if strategy_name == "windowed":
                strategy: Any = WindowedPassthroughStrategy()
            else:
                strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget))
            cm = ContextManager.open("memory:", strategy=strategy)
            cm.ledger_config = LedgerConfig(
                share=0 if placement == "none" else 0.15, placement=placement if placement != "none" else "turn"
            )
            prev = None
            reused = total = 0
            for who, content in msgs:
                cm.add_message(who, content)
                if strategy_name == "autobiographical":
                    cm.drain()
                try:
                    result = cm.compile(budget)
                except Exception:
                    continue
                if prev is not None:
                    reused += prefix_tokens(prev, result)
                total += result.tokens
                prev = result
            out[f"{strategy_name}/{placement}"] = round(reused / total, 3) if total else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2000,5000,20000")
    parser.add_argument("--session", default=str(DEFAULT_SESSION))
    parser.add_argument("--budget", type=int, default=16000)
    parser.add_argument("--no-cache", action="store_true", help="skip the placement replay")
    args = parser.parse_args()
    msgs = session_messages(Path(args.session))
    print(f"session: {len(msgs)} messages")
    sessions = [session_messages(p) for p in sorted(Path(args.session).parent.glob("*.jsonl"))]
    every = [m for s in sessions for m in s]
    fold_us, fold_cpu_us, cold_us, cold_cpu_us = fold_cost(every)
    unseen_cpu_us = fold_unseen(sessions)
    print(
        json.dumps(
            {
                "fold_us_per_message": round(fold_us, 1),
                "fold_cpu_us_per_message": round(fold_cpu_us, 1),
                "fold_cold_us_per_message": round(cold_us, 1),
                "fold_cold_cpu_us_per_message": round(cold_cpu_us, 1),
                "fold_unseen_cpu_us_per_message": round(unseen_cpu_us, 1),
                "sessions_messages": len(every),
            }
        )
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            rows.append(bench_size(max(n, 3000), msgs, Path(tmp)))
            print(json.dumps(rows[-1]))
    # The upkeep an add_message carries on average: the fold of its message (deferred to the next
    # sync, paid once) and its share of a checkpoint's encoding, against the floor add_message of the
    # same run (the median: the means carry the disk's noise). The target is 10 us where the
    # floor was 54 us: at most 10/54 of the floor.
    # On a loaded machine the wall clock counts the waits for a CPU: the CPU-time figures (the fold's and
    # the floor's, both the process's CPU time) are the steadier ones; both are printed.
    floor = statistics.median(r["add_off_median_us"] for r in rows)
    floor_cpu = statistics.median(r["add_off_cpu_median_us"] for r in rows)
    checkpoint = statistics.fmean(r["checkpoint_us_per_append"] for r in rows)
    upkeep, upkeep_cpu = fold_us + checkpoint, fold_cpu_us + checkpoint
    print(
        json.dumps(
            {
                "upkeep_us_per_add": round(upkeep, 1),
                "floor_add_median_us": round(floor, 1),
                "upkeep_vs_floor": round(upkeep / floor, 3),
                "upkeep_cpu_us_per_add": round(upkeep_cpu, 1),
                "floor_add_cpu_median_us": round(floor_cpu, 1),
                "upkeep_cpu_vs_floor_cpu": round(upkeep_cpu / floor_cpu, 3),
                "upkeep_cold_us_per_add": round(cold_us + checkpoint, 1),
                "upkeep_cold_cpu_us_per_add": round(cold_cpu_us + checkpoint, 1),
                "upkeep_unseen_cpu_us_per_add": round(unseen_cpu_us + checkpoint, 1),
                "target_vs_floor": round(10 / 54, 3),
            }
        )
    )
    if not args.no_cache:
        print(json.dumps({"cached_prefix_share": cache_reuse(msgs, args.budget)}))


if __name__ == "__main__":
    main()
