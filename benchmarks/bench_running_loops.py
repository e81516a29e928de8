"""Real Claude Code sessions cut inside a running tool loop opened by signed thinking: how each budget sends it.

    python benchmarks/bench_running_loops.py [--data ../shared/data/claude-code-sessions] [--loops 4]
        [--budgets 2000,4000,6000,8000] [--strategies windowed,autobiographical,passthrough]

For each session (``*.jsonl`` in ``--data``), up to ``--loops`` prefixes (drawn with a fixed seed among those
ending in a message of tool results) that end inside a loop of at least 6 messages opened by thinking. The
publisher redacted the sessions' thinking signatures and the importer drops a redacted one (such a loop is
not thinking-led), so each thinking block is given a signature of its own here (``sig-N``), as a live
session holds. Each prefix is imported into a memory store and compiled under each strategy at each budget
(nothing summarised). Printed per strategy, over all compiles: how the loop was sent (``raw``: whole from its
opening; ``transcript``: as one user note; ``part``: some of its messages raw, others not: B62's partial
turn, which the compile must never send; ``fails``: ``OverBudgetError``), the tokens sent against the
budgets, and the loop's calls whose first string argument (its first 40 characters: a path, a command, a
pattern) the model reads somewhere in the context, and in how many compiles it reads the newest result's
last 40 characters (what the agent saw last). Every result is checked with
:func:`context_journal.validate.validate_messages` (extended thinking on) and the Anthropic export; a
violation stops the run. Printed, never asserted.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import random
import time
from pathlib import Path

from context_journal import ContextManager, OverBudgetError, read_transcript
from context_journal.formats.importers import import_into
from context_journal.stores import MemoryStore
from context_journal.validate import validate_messages
from context_journal.views import running_turn_start

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "claude-code-sessions"
MIN_LOOP = 6  # messages: a loop long enough that a budget can leave some of it out


def _signed(messages: list, start: int = 0) -> list:
    """``messages`` with every thinking block given a signature (the publisher's were redacted)."""
    out = []
    for i, m in enumerate(messages, start):
        if isinstance(m.content, list):
            content = [dict(b, signature=f"sig-{i}") if b.get("type") == "thinking" else b for b in m.content]
            m = dataclasses.replace(m, content=content)
        out.append(m)
    return out


def loop_prefixes(path: Path, count: int) -> list[tuple[MemoryStore, int]]:
    """Up to ``count`` stores of a prefix of the session at ``path`` that ends inside a thinking-led loop of at
    least :data:`MIN_LOOP` messages, each with the view position where its loop starts."""
    read = read_transcript(path, format="claude-code")
    conversation = read.conversations[0]
    messages = _signed(conversation.messages)
    ends = [
        k + 1
        for k, m in enumerate(messages)
        if isinstance(m.content, list) and m.content and all(b.get("type") == "tool_result" for b in m.content)
    ]
    random.Random(1).shuffle(ends)
    found: list[tuple[MemoryStore, int]] = []
    for end in ends:
        if len(found) >= count:
            break
        prefix = dataclasses.replace(read, conversations=[dataclasses.replace(conversation, messages=messages[:end])])
        store = MemoryStore()
        import_into(store, prefix, namespace="s")
        view = ContextManager.open(store=store, namespace="s")._reader_view()
        start = running_turn_start(view)
        if start is not None and len(view) - start >= MIN_LOOP:
            found.append((store, start))
    return found


def sent(cm: ContextManager, budget: int, start: int, tally: collections.Counter[str]) -> None:
    """Compile at ``budget`` and count how the loop starting at view position ``start`` was sent."""
    try:
        result = cm.compile(budget)
    except OverBudgetError:
        tally["fails"] += 1
        return
    issues = validate_messages(result.as_messages(), thinking=True)
    issues += validate_messages(result.to_anthropic()["messages"], alternate=True, thinking=True)
    if issues:
        raise SystemExit(f"invalid context at {budget}: {issues[:3]}")
    view = cm._reader_view()
    loop = [e.id for e in view.entries(start, len(view))]
    # Sent raw: a stored message rendered as itself (with results moved into it to follow their call).
    raw = {s.id for m in result.messages if m.sources and m.sources[0].kind == "message" for s in m.sources}
    shown = raw & set(loop)
    if shown == set(loop):
        tally["raw"] += 1
    elif shown:
        tally["part"] += 1
    else:
        tally["transcript"] += 1
    text = json.dumps([m.content for m in result.messages], ensure_ascii=False, default=str)
    for mid in loop:
        for block in cm.get_message(mid).content:
            if block.type != "tool_use":
                continue
            key = next((v for v in block.input.values() if isinstance(v, str) and v), "")[:40]
            if key:
                tally["calls"] += 1
                tally["calls read"] += json.dumps(key, ensure_ascii=False)[1:-1] in text
    # The newest result's end (its last 40 characters): what the agent saw last, which it acts on next.
    newest = next(
        (b for mid in reversed(loop) for b in reversed(cm.get_message(mid).content) if b.type == "tool_result"), None
    )
    end = _result_text(getattr(newest, "content", "")).strip()[-40:]
    if end:
        tally["results"] += 1
        tally["end read"] += json.dumps(end, ensure_ascii=False)[1:-1] in text
    tally["tokens"] += result.tokens
    tally["budget"] += budget


def _result_text(content: object) -> str:
    """A tool result's text: its string, or its text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(getattr(b, "text", "")) for b in content if getattr(b, "type", None) == "text")
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--loops", type=int, default=4, help="loops per session")
    parser.add_argument("--budgets", default="2000,4000,6000,8000")
    parser.add_argument("--strategies", default="windowed,autobiographical,passthrough")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    strategies = args.strategies.split(",")
    stores = [s for path in sorted(args.data.glob("*.jsonl")) for s in loop_prefixes(path, args.loops)]
    print(f"{len(stores)} loops of {MIN_LOOP}+ messages, budgets {budgets}")
    print(
        "| strategy | raw whole | transcript | part (B62) | fails | tokens / budget | loop calls read "
        "| newest result's end read | CPU |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name in strategies:
        tally: collections.Counter[str] = collections.Counter()
        t0 = time.process_time()
        for store, start in stores:
            cm = ContextManager.open(store=store, namespace="s", strategy=name)
            for budget in budgets:
                sent(cm, budget, start, tally)
        cpu = time.process_time() - t0
        fill = tally["tokens"] / tally["budget"] if tally["budget"] else 0.0
        read = tally["calls read"] / tally["calls"] if tally["calls"] else 0.0
        print(
            f"| {name} | {tally['raw']} | {tally['transcript']} | {tally['part']} | {tally['fails']} | "
            f"{tally['tokens']:,} / {tally['budget']:,} ({fill:.0%}) | {tally['calls read']:,} of "
            f"{tally['calls']:,} ({read:.1%}) | {tally['end read']} of {tally['results']} | {cpu:.1f} s |"
        )


if __name__ == "__main__":
    main()
