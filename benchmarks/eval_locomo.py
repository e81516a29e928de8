"""LoCoMo: how much of what the questions ask about survives in a bounded context (printed, never asserted).

    python benchmarks/eval_locomo.py [--data ../shared/data/locomo/locomo-dev7.json] [--budgets 1000,2000,4000,8000]

Each LoCoMo conversation is replayed into a store; for each budget and method the script compiles a
context and counts, by QA category, the questions whose gold answer appears in the compiled text:

* **recent window** — :class:`PassthroughStrategy`: the newest messages that fill the budget (the
  honest floor: no memory of the rest, the whole budget used);
* **autobiographical** — this library's memory strategy (``AutobiographicalConfig.for_budget(budget)``,
  offline summarizer, drained to the end); one context per conversation;
* **recall** — a small recent window (at least 10% of the budget) plus a recall section for the
  question (``compile(query=question, recall=RecallConfig(share=0.9))``): one context per question;
* **autobiographical + recall** — the memory strategy, configured for the 40% of the budget that
  recall leaves it (``AutobiographicalConfig.for_budget(0.4 * budget)``), with a recall section for the
  question (``RecallConfig()``: recall takes at most 60% of the budget, what it does not use goes to
  the strategy);
* **unbounded** — the whole conversation (what a literal match can find at all: the ceiling).

Every method is run **dated** (a ``[8 May 2023]`` line where the session date changes, and dates in
recalled spans: ``render_dates=True``) and **undated**; "of ceiling" compares with the unbounded text of
the same kind (dated with dated). The same figures are printed again without the questions whose answer
occurs in five or more turns of their conversation (answers such as "No" or "two" match almost
anywhere, which flatters every method).

Matching is literal: the answer and the compiled text (system part, message text, tool blocks as JSON)
are lowercased, punctuation becomes a space, whitespace is folded, and the answer must appear as a run
of whole words. It measures whether the evidence is *in the context*, not whether a model would answer
correctly. Category 5 (adversarial) is left out, as in most published results. Published reference:
Mem0 answers with 1,764 tokens of retrieved memory per question on average, against about 26,000 for
the full-context prompt, at 0.92x of the full-context score (Chhikara et al., "Mem0", 2025, Table 2);
that is answer quality judged by a model, not containment, so it is a reference point, not a like
for like comparison.
"""

from __future__ import annotations

import argparse
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from context_journal.compile import CompileResult, OverBudgetError
from context_journal.formats import load_locomo_qa, read_transcript
from context_journal.formats.base import Conversation
from context_journal.formats.locomo import CATEGORY_NAMES
from context_journal.llm import OfflineSummarizer
from context_journal.manager import ContextManager
from context_journal.recall import RecallConfig
from context_journal.strategies import (
    AutobiographicalConfig,
    AutobiographicalStrategy,
    PassthroughStrategy,
    Strategy,
)

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev7.json"
CATEGORIES = (4, 1, 2, 3)  # single-hop, multi-hop, temporal, open-domain (the paper's order of size)
ROLE_KEYS = ("assistant", "user", "system_participants", "tool_participants")
METHODS = ("recent window", "autobiographical", "recall", "autobiographical + recall")
RECALL_ALONE = RecallConfig(share=0.9)
FREQUENT = 5  # an answer found in this many turns or more is "frequent"
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


def _manager(conv: Conversation, strategy: Strategy) -> ContextManager:
    cm = ContextManager.open("memory:", strategy=strategy, summarizer=OfflineSummarizer())
    cm.add_messages(conv.messages)
    roles = {k: conv.metadata.get(k) for k in ROLE_KEYS if conv.metadata.get(k)}
    cm._strategy_context().put_states({"roles": roles})
    return cm


def _text(compile: Callable[..., CompileResult], *args: Any, **kwargs: Any) -> tuple[str, int | None]:
    """The normalised text of ``compile(*args, **kwargs)`` and its tokens ("" and None when it is over
    budget)."""
    try:
        result = compile(*args, **kwargs)
    except OverBudgetError:
        return "", None
    return normalise(compiled_text(result)), result.tokens


def _share(found: Iterable[bool]) -> float:
    values = list(found)
    return sum(values) / len(values) if values else float("nan")


class Tally:
    """hits[(method, budget, dated)][category] -> [found per question], with tokens and failures."""

    def __init__(self) -> None:
        self.hits: dict[tuple[str, int, bool], dict[int, list[tuple[bool, bool]]]] = defaultdict(
            lambda: defaultdict(list)
        )
        self.tokens: dict[tuple[str, int, bool], list[int]] = defaultdict(list)
        self.over: dict[tuple[str, int, bool], int] = defaultdict(int)

    def add(self, key: tuple[str, int, bool], q: Any, text: str, tokens: int | None, frequent: bool) -> None:
        answer = normalise(q.answer)
        self.hits[key][q.category].append((answer.strip() != "" and answer in text, frequent))
        if tokens is None:
            self.over[key] += 1
        else:
            self.tokens[key].append(tokens)

    def share(self, key: tuple[str, int, bool], category: int | None, rare_only: bool) -> float:
        cats = CATEGORIES if category is None else (category,)
        return _share(found for c in cats for found, frequent in self.hits[key][c] if not (rare_only and frequent))

    def count(self, key: tuple[str, int, bool], category: int | None, rare_only: bool) -> int:
        cats = CATEGORIES if category is None else (category,)
        return sum(1 for c in cats for _, frequent in self.hits[key][c] if not (rare_only and frequent))


def run(data: Path, budgets: list[int]) -> tuple[Tally, dict[str, Any]]:
    conversations = read_transcript(data, format="locomo").conversations
    questions = [q for q in load_locomo_qa(data) if q.category in CATEGORIES]
    by_conv: dict[str, list[Any]] = defaultdict(list)
    for q in questions:
        by_conv[q.conversation_id].append(q)
    tally = Tally()
    info: dict[str, Any] = {"conversations": len(conversations), "questions": len(questions), "conv_tokens": []}
    for conv in conversations:
        qs = by_conv.get(conv.id, [])
        started = time.perf_counter()
        turns = [normalise(_message_text(m.content)) for m in conv.messages]
        frequent = {id(q): sum(normalise(q.answer) in t for t in turns) >= FREQUENT for q in qs}
        plain = _manager(conv, PassthroughStrategy())
        for dated in (True, False):
            text, tokens = _text(plain.preview_context, 10_000_000, render_dates=dated)
            if not dated and tokens is not None:
                info["conv_tokens"].append(tokens)
            for q in qs:
                tally.add(("unbounded", 0, dated), q, text, tokens, frequent[id(q)])
        for budget in budgets:
            auto = _manager(conv, AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget)))
            auto.drain()
            mixed = _manager(conv, AutobiographicalStrategy(AutobiographicalConfig.for_budget(int(budget * 0.4))))
            mixed.drain()
            for dated in (True, False):
                for method, cm in (("recent window", plain), ("autobiographical", auto)):
                    text, tokens = _text(cm.preview_context, budget, render_dates=dated)
                    for q in qs:
                        tally.add((method, budget, dated), q, text, tokens, frequent[id(q)])
                for q in qs:
                    text, tokens = _text(
                        plain.preview_context, budget, query=q.question, recall=RECALL_ALONE, render_dates=dated
                    )
                    tally.add(("recall", budget, dated), q, text, tokens, frequent[id(q)])
                    text, tokens = _text(mixed.preview_context, budget, query=q.question, render_dates=dated)
                    tally.add(("autobiographical + recall", budget, dated), q, text, tokens, frequent[id(q)])
            auto.close()
            mixed.close()
        plain.close()
        print(
            f"# {conv.id}: {len(conv.messages)} messages, {info['conv_tokens'][-1]:,} tokens, {len(qs)} questions, "
            f"{time.perf_counter() - started:.1f} s",
            flush=True,
        )
    return tally, info


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))


def report(tally: Tally, info: dict[str, Any], budgets: list[int], rare_only: bool) -> None:
    names = [f"{CATEGORY_NAMES[c]} ({c})" for c in CATEGORIES]
    ceiling_key = ("unbounded", 0, True)
    counts = [tally.count(ceiling_key, c, rare_only) for c in CATEGORIES]
    title = "questions whose answer occurs in fewer than 5 turns" if rare_only else "all questions of categories 1-4"
    print()
    print(
        f"LoCoMo, {info['conversations']} conversations, {title} ({sum(counts):,}); mean conversation "
        f"{sum(info['conv_tokens']) / len(info['conv_tokens']):,.0f} tokens: share of questions whose gold "
        "answer appears in the compiled context"
    )
    header = "| budget | method | dates | mean tokens | " + " | ".join(names) + " | all | of unbounded |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    print("| | (questions) | | | " + " | ".join(f"{n:,}" for n in counts) + f" | {sum(counts):,} | |")
    rows: list[tuple[str, int, bool]] = [("unbounded", 0, True), ("unbounded", 0, False)]
    rows += [(m, b, d) for b in budgets for m in METHODS for d in (True, False)]
    for key in rows:
        method, budget, dated = key
        ceiling = tally.share(("unbounded", 0, dated), None, rare_only)
        toks = tally.tokens[key]
        mean = f"{sum(toks) / len(toks):,.0f}" if toks else "-"
        cells = " | ".join(f"{tally.share(key, c, rare_only):.1%}" for c in CATEGORIES)
        overall = tally.share(key, None, rare_only)
        over = f" ({tally.over[key]} over budget)" if tally.over[key] else ""
        shown = "all" if budget == 0 else f"{budget:,}"
        print(
            f"| {shown} | {method}{over} | {'dated' if dated else 'undated'} | {mean} | {cells} | {overall:.1%} "
            f"| {overall / ceiling:.3f}x |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--budgets", default="1000,2000,4000,8000")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    started = time.perf_counter()
    tally, info = run(args.data, budgets)
    report(tally, info, budgets, rare_only=False)
    report(tally, info, budgets, rare_only=True)
    print()
    print(
        "# reference: Mem0 answers with 1,764 tokens of retrieved memory per question on average at 0.92x of "
        "its full-context score (model-judged answers, not containment)."
    )
    print(f"# {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
