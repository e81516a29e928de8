"""LoCoMo: how much of what the questions ask about survives in a bounded context (printed, never asserted).

    python benchmarks/eval_locomo.py [--data ../shared/data/locomo/locomo-dev7.json] [--budgets 1000,2000,4000,8000]

For each LoCoMo conversation the script replays it into a store with the offline summarizer
(``AutobiographicalConfig.for_budget(budget)``, drained to the end), compiles one context per budget, and
reports by QA category the share of questions whose gold answer appears in the compiled text:

* **autobiographical** — this library's strategy at the budget;
* **windowed (floor)** — the newest messages that fit the same budget, no memory of the rest;
* **unbounded (ceiling)** — the whole conversation (what a literal match can find at all).

Matching is literal: the answer and the compiled text (message text, tool blocks as JSON, the system
part) are lowercased, punctuation becomes a space, whitespace is folded, and the answer must appear as
a run of whole words. It measures whether the evidence is *in the context*, not whether a model would
answer correctly; the context is the same for every question of a conversation (no retrieval per
question). Category 5 (adversarial: the right reply is to abstain) is left out, as in most published
results. Published reference: Mem0 reports 1,764 tokens of memory per question on average, against
about 26,000 for the full-context prompt (Chhikara et al., "Mem0", 2025, Table 2).
"""

from __future__ import annotations

import argparse
import re
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from context_journal.compile import CompileResult, OverBudgetError
from context_journal.formats import load_locomo_qa, read_transcript
from context_journal.formats.base import Conversation
from context_journal.formats.locomo import CATEGORY_NAMES
from context_journal.llm import OfflineSummarizer
from context_journal.manager import ContextManager
from context_journal.strategies import (
    AutobiographicalConfig,
    AutobiographicalStrategy,
    PassthroughStrategy,
    Strategy,
    WindowedPassthroughStrategy,
)

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev7.json"
CATEGORIES = (4, 1, 2, 3)  # single-hop, multi-hop, temporal, open-domain (the paper's order of size)
ROLE_KEYS = ("assistant", "user", "system_participants", "tool_participants")
_PUNCT = re.compile(r"[^\w\s]|_")
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Lowercase, punctuation to spaces, whitespace folded, padded with one space on each side."""
    return " " + _SPACE.sub(" ", _PUNCT.sub(" ", text.lower())).strip() + " "


def compiled_text(result: CompileResult) -> str:
    """Everything a model would read: the system blocks and every block of every message."""
    parts: list[str] = [str(b.get("text", "")) for b in result.system]
    for m in result.messages:
        for b in m.content:
            kind = b.get("type")
            if kind == "text":
                parts.append(str(b["text"]))
            elif kind == "tool_use":
                parts.append(f"{b.get('name')} {b.get('input')}")
            elif kind == "tool_result":
                content = b.get("content")
                parts.append(content if isinstance(content, str) else str(content))
    return "\n".join(parts)


def _compile(
    conv: Conversation, strategy: Strategy, budget: int, drain: bool
) -> tuple[CompileResult | OverBudgetError, dict[str, Any]]:
    roles = {k: conv.metadata.get(k) for k in ROLE_KEYS if conv.metadata.get(k)}
    with ContextManager.open("memory:", strategy=strategy, summarizer=OfflineSummarizer()) as cm:
        cm.add_messages(conv.messages)
        cm._strategy_context().put_states({"roles": roles})
        if drain:
            cm.drain()
        try:
            result: CompileResult | OverBudgetError = cm.compile(budget)
        except OverBudgetError as exc:  # the coarsest valid cover does not fit: counted as finding nothing
            result = exc
        return result, cm.compression_stats.to_dict()


def _share(found: Iterable[bool]) -> float:
    values = list(found)
    return sum(values) / len(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--budgets", default="1000,2000,4000,8000")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    started = time.perf_counter()
    conversations = read_transcript(args.data, format="locomo").conversations
    questions = [q for q in load_locomo_qa(args.data) if q.category in CATEGORIES]
    by_conv: dict[str, list[Any]] = defaultdict(list)
    for q in questions:
        by_conv[q.conversation_id].append(q)

    # hits[(label, budget)][category] -> list of bools; tokens[(label, budget)] -> compiled tokens
    hits: dict[tuple[str, int], dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    tokens: dict[tuple[str, int], list[int]] = defaultdict(list)
    conv_tokens: list[int] = []
    over: dict[tuple[str, int], list[str]] = defaultdict(list)
    calls = 0
    for conv in conversations:
        qs = by_conv.get(conv.id, [])
        runs: list[tuple[str, int, Strategy, bool]] = [("unbounded (ceiling)", 0, PassthroughStrategy(), False)]
        for budget in budgets:
            runs.append(("windowed (floor)", budget, WindowedPassthroughStrategy(), False))
            runs.append(
                ("autobiographical", budget, AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget)), True)
            )
        for label, budget, strategy, drain in runs:
            result, stats = _compile(conv, strategy, budget or 10_000_000, drain)
            calls += stats["calls"]
            if isinstance(result, OverBudgetError):
                over[(label, budget)].append(f"{conv.id} needs {result.actual:,}")
                text = ""
            else:
                text = normalise(compiled_text(result))
                tokens[(label, budget)].append(result.tokens)
            if budget == 0 and not isinstance(result, OverBudgetError):
                conv_tokens.append(result.tokens)
            for q in qs:
                answer = normalise(q.answer)
                hits[(label, budget)][q.category].append(answer.strip() != "" and answer in text)
        print(f"# {conv.id}: {len(conv.messages)} messages, {conv_tokens[-1]:,} tokens, {len(qs)} questions")

    names = [f"{CATEGORY_NAMES[c]} ({c})" for c in CATEGORIES]
    counts = [sum(len(v[c]) for k, v in hits.items() if k == ("unbounded (ceiling)", 0)) for c in CATEGORIES]
    print()
    print(
        f"LoCoMo ({len(conversations)} conversations, {len(questions)} questions of categories 1-4; mean "
        f"conversation {sum(conv_tokens) / len(conv_tokens):,.0f} tokens): share of questions whose gold answer "
        "appears in the compiled context"
    )
    header = f"{'budget':>9} {'strategy':<20} {'mean tokens':>11} " + " ".join(f"{n:>15}" for n in names)
    print(header + f" {'all 1-4':>8} {'of ceiling':>10}")
    print(f"{'':>9} {'(questions)':<20} {'':>11} " + " ".join(f"{n:>15,}" for n in counts) + f" {sum(counts):>8,}")
    ceiling = _share(x for c in CATEGORIES for x in hits[("unbounded (ceiling)", 0)][c])
    rows = [("unbounded (ceiling)", 0)] + [
        (label, b) for b in budgets for label in ("windowed (floor)", "autobiographical")
    ]
    for label, budget in rows:
        cats = hits[(label, budget)]
        mean_tokens = sum(tokens[(label, budget)]) / len(tokens[(label, budget)])
        cells = " ".join(f"{_share(cats[c]):>15.1%}" for c in CATEGORIES)
        overall = _share(x for c in CATEGORIES for x in cats[c])
        shown = "all" if budget == 0 else f"{budget:,}"
        failed = (
            f"  ({len(over[(label, budget)])} over budget: {'; '.join(over[(label, budget)])})"
            if over[(label, budget)]
            else ""
        )
        print(
            f"{shown:>9} {label:<20} {mean_tokens:>11,.0f} {cells} {overall:>8.1%} {overall / ceiling:>10.0%}{failed}"
        )
    print()
    print(
        "# reference: Mem0 answers with 1,764 tokens of retrieved memory per question on average; a full-context "
        "prompt takes about 26,000 tokens (Mem0 paper, LoCoMo). Our context is built once per conversation, "
        "not per question."
    )
    print(f"# offline summarizer calls: {calls:,}; {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
