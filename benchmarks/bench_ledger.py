"""Working-state ledger benchmark: upkeep per message against the floor with the ledger off, rebuild cost,
and prompt-cache reuse by placement.

Usage::

    python benchmarks/bench_ledger.py --sizes 2000,20000 [--session PATH]

Messages are the real Claude Code session's messages (``../shared/data/claude-code-sessions``), cycled
with fresh tool ids. For each size N (SQLite, ``durability="normal"``) it prints:

* ``add_off_us`` / ``add_on_us``: mean microseconds of ``add_message`` with the ledger off (no keeper)
  and on (a keeper watching the index: it queues each appended body), over the last 1,000 appends;
* ``fold_us``: mean microseconds per message of folding queued messages (``working_state()`` after
  1,000 appends; what a compile pays for the messages added since the previous one);
* ``upkeep_us``: ``add_on - add_off + fold``: the ledger's whole cost per appended message;
* ``rebuild_ms``: a new handle's first ``working_state()`` (reads and folds every message: what open and
  switch_branch cost, since the ledger is kept in memory).

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
from context_journal.state import LedgerConfig
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


def fill(cm: ContextManager, msgs: list[tuple[str, list[dict[str, Any]]]], start: int, n: int) -> list[float]:
    times = []
    for i in range(start, start + n):
        who, content = msgs[i % len(msgs)]
        content = renamed(content, i // len(msgs))
        t = time.perf_counter()
        cm.add_message(who, content)
        times.append(time.perf_counter() - t)
    return times


def bench_size(n: int, msgs: list[tuple[str, list[dict[str, Any]]]], tmp: Path) -> dict[str, Any]:
    db = tmp / f"l{n}.db"
    with ContextManager.open(db) as cm:
        batch = 2000
        for i in range(0, n - 2000, batch):
            cm.add_messages(
                [
                    {"participant": w, "content": renamed(c, j // len(msgs))}
                    for j in range(i, min(i + batch, n - 2000))
                    for w, c in [msgs[j % len(msgs)]]
                ]
            )
        off = fill(cm, msgs, n - 2000, 1000)  # no keeper yet: the ledger is off
        t = time.perf_counter()
        cm.working_state()  # the keeper is made and folds the whole store
        first_ms = (time.perf_counter() - t) * 1000
        on = fill(cm, msgs, n - 1000, 1000)
        t = time.perf_counter()
        cm.working_state()
        fold_us = (time.perf_counter() - t) * 1e6 / 1000
    with ContextManager.open(db) as cm:
        t = time.perf_counter()
        cm.working_state()
        rebuild_ms = (time.perf_counter() - t) * 1000
    add_off, add_on = statistics.fmean(off) * 1e6, statistics.fmean(on) * 1e6
    return {
        "messages": n,
        "add_off_us": round(add_off, 1),
        "add_on_us": round(add_on, 1),
        "add_off_median_us": round(statistics.median(off) * 1e6, 1),
        "add_on_median_us": round(statistics.median(on) * 1e6, 1),
        "fold_us": round(fold_us, 1),
        "upkeep_us": round(add_on - add_off + fold_us, 1),
        "first_fold_ms": round(first_ms, 1),
        "rebuild_ms": round(rebuild_ms, 1),
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
    parser.add_argument("--sizes", default="2000,20000")
    parser.add_argument("--session", default=str(DEFAULT_SESSION))
    parser.add_argument("--budget", type=int, default=16000)
    parser.add_argument("--no-cache", action="store_true", help="skip the placement replay")
    args = parser.parse_args()
    msgs = session_messages(Path(args.session))
    print(f"session: {len(msgs)} messages")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            print(json.dumps(bench_size(max(n, 3000), msgs, Path(tmp))))
    if not args.no_cache:
        print(json.dumps({"cached_prefix_share": cache_reuse(msgs, args.budget)}))


if __name__ == "__main__":
    main()
