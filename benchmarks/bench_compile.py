"""Compile time by strategy and history length (printed, never asserted).

    python benchmarks/bench_compile.py --sizes 2000,20000,200000 [--budget 100000] [--repeat 30]
        [--strategy passthrough,windowed,autobiographical] [--summarizer offline|stub]

Builds one SQLite store per size with a synthetic agent conversation (user questions, assistant
answers, a tool call with its result every third exchange, an occasional parallel call), then times
``compile`` at the budget with each strategy: the median over ``--repeat`` warm compiles, the first
(cold) compile, and how many messages were rendered. The reference library takes 140-219 ms per
compile at 20,000 messages; the target here is under 5 ms, set by what is rendered, not by history.

The autobiographical strategy (``AutobiographicalConfig.for_budget(budget)``) is timed with its
summaries present: the store is drained first (every chunk summarised, every merge done), by the
offline summarizer or, with ``--summarizer stub``, by a stand-in that answers each request with its
first words at the requested size (same number and size of summaries, less time to build them). Its
rows also show how many summaries the compile rendered and the drain's figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from context_journal.llm import LLMRequest, LLMResponse, OfflineSummarizer, Provider, Usage
from context_journal.manager import ContextManager
from context_journal.strategies import (
    AutobiographicalConfig,
    AutobiographicalStrategy,
    PassthroughStrategy,
    Strategy,
    WindowedPassthroughStrategy,
)

STRATEGIES = ("passthrough", "windowed", "autobiographical")

_VOCABULARY = """
the of and to in is that for it as with was on be by this are from or at an which have not but they
file function test error value config build module import return class request response cache token
budget window summary branch store message compile strategy context agent tool result call index
"""
WORDS = _VOCABULARY.split()


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words)) + "."


def conversation(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` messages of a synthetic tool-using conversation."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    k = 0
    while len(out) < n:
        out.append({"participant": "user", "content": _text(rng, rng.randint(10, 80))})
        if k % 3 == 2 and len(out) + 2 < n:
            calls = rng.choice([1, 1, 1, 2])
            uses = [
                {
                    "type": "tool_use",
                    "id": f"call_{k}_{j}",
                    "name": "read_file",
                    "input": {"path": f"src/module_{rng.randint(0, 999)}.py"},
                }
                for j in range(calls)
            ]
            out.append({"participant": "assistant", "content": [{"type": "text", "text": _text(rng, 15)}, *uses]})
            results = [
                {"type": "tool_result", "tool_use_id": u["id"], "content": _text(rng, rng.randint(80, 400))}
                for u in uses
            ]
            out.append({"participant": "tool", "content": results})
        out.append({"participant": "assistant", "content": _text(rng, rng.randint(30, 200))})
        k += 1
    return out[:n]


def build(path: Path, n: int) -> None:
    with ContextManager.open(path) as cm:
        msgs = conversation(n)
        for i in range(0, n, 2000):
            cm.add_messages(msgs[i : i + 2000])


class StubSummarizer:
    """Answers a summary request with its first words, at about the size asked (no extraction)."""

    name = "stub"
    model = "stub"

    async def complete(self, request: LLMRequest) -> LLMResponse:
        target = int(request.metadata.get("target_tokens") or 200)
        words: list[str] = []
        for m in request.messages:
            for b in m.content:
                text = getattr(b, "text", None)
                if isinstance(text, str):
                    words.extend(text.split())
                if len(words) >= target:
                    break
        text = " ".join(words[: max(1, target * 3 // 4)]) or "(nothing)"
        return LLMResponse.model_validate(
            {
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "usage": Usage(input_tokens=0, output_tokens=target),
                "model": self.model,
            }
        )


def strategy_for(name: str, budget: int) -> Strategy:
    if name == "autobiographical":
        return AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget))
    return WindowedPassthroughStrategy() if name == "windowed" else PassthroughStrategy()


def drain(path: Path, budget: int, summarizer: Provider) -> str:
    """Summarise everything the autobiographical strategy owes; returns a one-line report."""
    with ContextManager.open(path, strategy=strategy_for("autobiographical", budget), summarizer=summarizer) as cm:
        t0 = time.perf_counter()
        report = cm.drain()
        seconds = time.perf_counter() - t0
        levels = ", ".join(f"{k} {v:,}" for k, v in report.stats.to_dict()["summaries"].items())
        per_unit = 1000 * seconds / report.units if report.units else 0.0
        return f"drained {report.units:,} units in {seconds:.1f} s ({per_unit:.1f} ms each): {levels}"


def bench(path: Path, strategy: Any, budget: int, repeat: int) -> tuple[float, float, int, int, int]:
    with ContextManager.open(path, strategy=strategy) as cm:
        t0 = time.perf_counter()
        result = cm.compile(budget)
        cold = time.perf_counter() - t0
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            result = cm.compile(budget)
            times.append(time.perf_counter() - t0)
        summaries = sum(1 for m in result.messages if any(s.kind == "summary" for s in m.sources))
        return statistics.median(times) * 1000, cold * 1000, len(result.messages), result.tokens, summaries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000,200000")
    parser.add_argument("--budget", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--strategy", default=",".join(STRATEGIES), help="comma-separated: " + ", ".join(STRATEGIES))
    parser.add_argument("--summarizer", choices=("offline", "stub"), default="offline")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    names = [n for n in args.strategy.split(",") if n]
    unknown = set(names) - set(STRATEGIES)
    if unknown:
        parser.error(f"unknown strategy {sorted(unknown)}; choose from {', '.join(STRATEGIES)}")
    summarizer: Provider = StubSummarizer() if args.summarizer == "stub" else OfflineSummarizer()
    print(f"compile at a {args.budget:,}-token budget (SQLite store, warm median over {args.repeat} compiles)")
    columns = ("median ms", 10), ("cold ms", 9), ("rendered", 9), ("tokens", 8), ("summaries", 9)
    print(f"{'strategy':<16} {'messages':>9} " + " ".join(f"{c:>{w}}" for c, w in columns))
    rows: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"bench-{n}.db"
            t0 = time.perf_counter()
            build(path, n)
            print(f"# built {n:,} messages in {time.perf_counter() - t0:.1f} s")
            if "autobiographical" in names:
                print(f"# autobiographical, {args.summarizer} summarizer: {drain(path, args.budget, summarizer)}")
            for name in names:
                strategy = strategy_for(name, args.budget)
                median, cold, rendered, tokens, summaries = bench(path, strategy, args.budget, args.repeat)
                rows.setdefault(name, []).append(median)
                shown = f"{summaries:>9,}" if name == "autobiographical" else f"{'':>9}"
                print(f"{name:<16} {n:>9,} {median:>10.2f} {cold:>9.1f} {rendered:>9,} {tokens:>8,} {shown}")
    if len(sizes) > 1:
        for name, medians in rows.items():
            growth = medians[-1] / medians[0] if medians[0] else float("nan")
            print(f"# {name}: {sizes[-1] // sizes[0]}x the history -> {growth:.2f}x the compile time")


if __name__ == "__main__":
    main()
