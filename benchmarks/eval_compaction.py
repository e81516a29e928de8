"""Claude Code's own compaction against ours, at the same size (printed, never asserted).

    python benchmarks/eval_compaction.py [--data ../shared/data/claude-code-sessions]

Each long Claude Code session in the data set holds one real compaction: when its window filled up,
Claude Code replaced the history with a summary it wrote (the importer keeps the boundary as a
``compaction`` marker in the conversation's metadata, with the summary text and the position of the
first message after it). For each session this script takes the history before the boundary, replays
it with the offline summarizer, and compiles our context at **the token count of their summary**
(``AutobiographicalConfig.for_budget``); the windowed strategy at the same budget is the floor.

It then counts the distinct **file paths** (matched by file name), **identifiers** (snake_case,
camelCase, dotted module names) and **numbers** (two or more digits) of that history, and reports the
share that survive in their summary and in our compiled context. Two universes: *all* (anything in
the history, tool output included: line numbers, every identifier of every file read) and *salient*
(only what the user and the assistant wrote, including tool-call inputs; no tool output, no thinking).

Caveat: the offline summarizer is an extractive digest built to keep exactly these kinds of tokens,
and our context also keeps the recent messages raw; Claude Code's summary is prose meant to let the
model continue the task. The figures measure what concrete detail survives, not which context a model
would work better from.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from context_journal.compile import CompileResult
from context_journal.formats import read_transcript
from context_journal.llm import OfflineSummarizer
from context_journal.manager import ContextManager
from context_journal.messages import MessageInput
from context_journal.strategies import (
    AutobiographicalConfig,
    AutobiographicalStrategy,
    Strategy,
    WindowedPassthroughStrategy,
)
from context_journal.tokens import EstimatingCounter

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "claude-code-sessions"
ROLE_KEYS = ("assistant", "user", "system_participants", "tool_participants")

_PATH = re.compile(r"(?:[\w.~-]*/)+[\w.-]+\.[A-Za-z][\w]{0,5}\b")
_DOTTED = re.compile(r"\b[A-Z]\w*(?:\.[A-Z]\w*)+\b")
_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*[?!]?")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z][a-z]+[A-Z]")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
KINDS = ("paths", "identifiers", "numbers")


def concepts(text: str) -> dict[str, set[str]]:
    """File names (of paths), identifiers and numbers in ``text``."""
    paths = {m.group(0).rsplit("/", 1)[-1] for m in _PATH.finditer(text)}
    idents = {m.group(0) for m in _DOTTED.finditer(text)}
    for m in _WORD.finditer(text):
        word = m.group(0)
        core = word.strip("_?!")
        if len(core) >= 4 and ("_" in core or _CAMEL.search(core)) and not core.isupper():
            idents.add(word)
    numbers = {m.group(0).replace(",", "") for m in _NUMBER.finditer(text)}
    numbers = {n for n in numbers if len(n.replace(".", "")) >= 2}
    return {"paths": paths, "identifiers": idents - paths, "numbers": numbers}


def _found(concept: str, kind: str, text: str, numbers: set[str]) -> bool:
    if kind == "numbers":
        return concept in numbers
    return concept in text


def survival(universe: Mapping[str, set[str]], text: str) -> dict[str, tuple[int, int]]:
    """Per kind: (concepts of ``universe`` found in ``text``, concepts in the universe)."""
    numbers = concepts(text)["numbers"]
    return {k: (sum(_found(c, k, text, numbers) for c in universe[k]), len(universe[k])) for k in KINDS}


def _block_texts(blocks: Iterable[Mapping[str, Any]], salient: bool) -> Iterable[str]:
    for b in blocks:
        kind = b.get("type")
        if kind == "text":
            yield str(b.get("text", ""))
        elif kind == "tool_use":
            yield json.dumps(b.get("input", {}), ensure_ascii=False)
        elif kind == "tool_result" and not salient:
            content = b.get("content")
            if isinstance(content, str):
                yield content
            elif isinstance(content, list):
                yield from _block_texts(content, salient)


def _blocks(m: MessageInput) -> list[Mapping[str, Any]]:
    if isinstance(m.content, str):
        return [{"type": "text", "text": m.content}]
    return [b if isinstance(b, Mapping) else b.model_dump() for b in m.content]


def history_text(messages: list[MessageInput], salient: bool) -> str:
    """The text of ``messages`` (see the module docstring for what *salient* keeps)."""
    out: list[str] = []
    for m in messages:
        out.extend(_block_texts(_blocks(m), salient))
    return "\n".join(out)


def compiled_text(result: CompileResult) -> str:
    """The compiled context as text (system part, text, tool inputs and results)."""
    parts = [str(b.get("text", "")) for b in result.system]
    for m in result.messages:
        parts.extend(_block_texts(m.content, salient=False))
    return "\n".join(parts)


def _compile(
    history: list[MessageInput], roles: dict[str, Any], strategy: Strategy, budget: int
) -> tuple[CompileResult, dict[str, Any]]:
    with ContextManager.open("memory:", strategy=strategy, summarizer=OfflineSummarizer()) as cm:
        cm.add_messages(history)
        cm._strategy_context().put_states({"roles": roles})
        cm.drain()
        return cm.compile(budget), cm.compression_stats.to_dict()


def _pct(pair: Sequence[int]) -> str:
    return f"{pair[0] / pair[1]:.0%}" if pair[1] else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    started = time.perf_counter()
    counter = EstimatingCounter()
    sessions = sorted(p for p in args.data.glob("*.jsonl") if len(p.stem) == 36)
    totals: dict[tuple[str, str, str], list[int]] = {}
    print("Claude Code compaction vs ours at the same token count: share of the history's distinct concepts kept")
    print(
        f"{'session':<10} {'msgs':>5} {'history':>8} {'their':>6} {'ours':>6} {'universe':<9} "
        + " ".join(f"{k + ' theirs/ours/windowed':>30}" for k in KINDS)
    )
    for path in sessions:
        main_conv = next(c for c in read_transcript(path, format="claude-code").conversations if c.primary)
        marker = next(m for m in main_conv.metadata.get("markers", []) if m.get("kind") == "compaction")
        history = main_conv.messages[: int(marker["position"])]
        roles = {k: main_conv.metadata.get(k) for k in ROLE_KEYS if main_conv.metadata.get(k)}
        theirs = str(marker["summary"])
        budget = counter.count_message("user", [{"type": "text", "text": theirs}])
        ours, stats = _compile(
            history, roles, AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget)), budget
        )
        floor, _ = _compile(history, roles, WindowedPassthroughStrategy(), budget)
        history_tokens = sum(counter.count_message(m.participant, _blocks(m)) for m in history)
        for universe in ("all", "salient"):
            pool = concepts(history_text(history, salient=universe == "salient"))
            rows = {
                "theirs": survival(pool, theirs),
                "ours": survival(pool, compiled_text(ours)),
                "windowed": survival(pool, compiled_text(floor)),
            }
            cells = []
            for k in KINDS:
                n = rows["theirs"][k][1]
                cells.append(f"{'/'.join(_pct(rows[w][k]) for w in ('theirs', 'ours', 'windowed'))} of {n:,}".rjust(30))
                for who in rows:
                    acc = totals.setdefault((universe, who, k), [0, 0])
                    acc[0] += rows[who][k][0]
                    acc[1] += rows[who][k][1]
            print(
                f"{path.stem[:8]:<10} {len(history):>5} {history_tokens:>8,} {budget:>6,} {ours.tokens:>6,} "
                f"{universe:<9} " + " ".join(cells)
            )
        print(
            f"{'':<10} # preTokens {marker.get('preTokens'):,} ({marker.get('trigger')}); our summarizer: "
            f"{stats['calls']} calls, {stats['input_tokens']:,} input tokens; summaries {stats['summaries']}"
        )
    print()
    print("pooled over the sessions (concepts found / concepts):")
    for universe in ("all", "salient"):
        line = []
        for k in KINDS:
            shares = "/".join(_pct(totals[(universe, who, k)]) for who in ("theirs", "ours", "windowed"))
            line.append(f"{k} {shares}")
        print(f"  {universe:<8} theirs/ours/windowed: " + "; ".join(line))
    print(f"# {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
