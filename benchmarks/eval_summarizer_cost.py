"""What compression costs in summarizer traffic (printed, never asserted).

    python benchmarks/eval_summarizer_cost.py [--data ../shared/data] [--budgets 4000,16000]

Each conversation is replayed into a store and drained with the offline summarizer, with the settings
``AutobiographicalConfig.for_budget(budget)`` (chunks of 12 % of the budget, L1 summaries of 2.5 %,
``merge_threshold`` 4). Reported per data set and budget: conversation tokens, the tokens sent to the
summarizer (its input: the replayed head, earlier summaries as recall pairs and the chunk, or the
summaries being merged), their ratio, model calls per 1,000 messages, and output tokens per
conversation token. With a real model the input would be billed at these counts (the offline
summarizer reports the same estimate the manager uses); prompt caching of the head and system prompt
would lower the cost of the repeated prefix.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from context_journal.demo_data import demo_conversation
from context_journal.formats import read_transcript
from context_journal.formats.base import Conversation
from context_journal.llm import OfflineSummarizer
from context_journal.manager import ContextManager
from context_journal.messages import MessageInput
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ROLE_KEYS = ("assistant", "user", "system_participants", "tool_participants")


def datasets(data: Path) -> dict[str, list[Conversation]]:
    """The conversations measured: Claude Code main sessions, LoCoMo, the built-in demo."""
    sessions = sorted(p for p in (data / "claude-code-sessions").glob("*.jsonl") if len(p.stem) == 36)
    cc = [next(c for c in read_transcript(p, format="claude-code").conversations if c.primary) for p in sessions]
    locomo = read_transcript(data / "locomo" / "locomo-dev7.json", format="locomo").conversations
    demo = [
        Conversation(
            "demo:tally",
            [
                MessageInput(m["participant"], m["content"], m["metadata"], m["id"], m["timestamp"])
                for m in demo_conversation()
            ],
            {"assistant": "Claude", "user": "user"},
        )
    ]
    return {"claude-code sessions": cc, "locomo": locomo, "built-in demo": demo}


def drain_cost(conv: Conversation, budget: int) -> dict[str, Any]:
    """Replay ``conv``, drain it, and return the counters."""
    roles = {k: conv.metadata.get(k) for k in ROLE_KEYS if conv.metadata.get(k)}
    strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget))
    with ContextManager.open("memory:", strategy=strategy, summarizer=OfflineSummarizer()) as cm:
        cm.add_messages(conv.messages)
        cm._strategy_context().put_states({"roles": roles})
        started = time.perf_counter()
        cm.drain()
        seconds = time.perf_counter() - started
        stats = cm.compression_stats
        return {
            "messages": cm.message_count(),
            "tokens": cm.messages.tokens(),
            "calls": stats.calls,
            "input": stats.input_tokens,
            "output": stats.output_tokens,
            "summaries": stats.summaries_total,
            "seconds": seconds,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--budgets", default="4000,16000")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    sets = datasets(args.data)
    print("summarizer traffic of a full drain (offline summarizer; AutobiographicalConfig.for_budget)")
    print(
        f"{'data set':<22} {'budget':>7} {'convs':>5} {'messages':>9} {'conv tokens':>12} {'input tokens':>13} "
        f"{'input/conv':>10} {'calls/1k msgs':>13} {'output/conv':>11} {'drain s':>8}"
    )
    for name, convs in sets.items():
        for budget in budgets:
            acc = {"messages": 0, "tokens": 0, "calls": 0, "input": 0, "output": 0, "summaries": 0, "seconds": 0.0}
            for conv in convs:
                for key, value in drain_cost(conv, budget).items():
                    acc[key] += value
            print(
                f"{name:<22} {budget:>7,} {len(convs):>5} {acc['messages']:>9,} {acc['tokens']:>12,} "
                f"{acc['input']:>13,} {acc['input'] / acc['tokens']:>10.2f} "
                f"{1000 * acc['calls'] / acc['messages']:>13.1f} {acc['output'] / acc['tokens']:>11.3f} "
                f"{acc['seconds']:>8.2f}"
            )


if __name__ == "__main__":
    main()
