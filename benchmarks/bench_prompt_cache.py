"""The share of each compiled prompt an Anthropic prompt cache can serve, turn by turn (printed, never asserted).

    python benchmarks/bench_prompt_cache.py [--turns 80] [--budget 3000] [--words 40]
        [--summarizer echo|offline] [--per-turn]
    python benchmarks/bench_prompt_cache.py --session SESSION.jsonl [--budget 8000] [--compiles 150]

Bug case B49 (the prefix-stable layout) as a benchmark: a conversation of ``--turns`` turns (a ``--words``-word
question and a ``--words``-word answer each) is compiled after every turn at ``--budget`` tokens and
exported for Anthropic (``to_anthropic()``: the system prompt, the messages and their ``cache_control``
markers). For each request after the first it measures the share of the request read back from the
cache the previous request wrote: the longest prefix up to one of the previous request's markers that is
byte-identical in the new request, with a marker of the new request at most 20 blocks after it (the
API's lookback), as a share of the blocks and of the tokens of the new request.

Methods (one manager each, compression with the ``--summarizer`` after the turns named):

* **windowed** — :class:`WindowedPassthroughStrategy` (the anchor jumps; the reference figure);
* **autobiographical, drained every turn / every 10 turns** —
  ``AutobiographicalConfig.for_budget(budget)`` (``stable_prefix=True``, the default: each compile
  starts from the previous compile's layout);
* the same with ``stable_prefix=False`` (every compile folds afresh: the layout before it was made prefix-stable);
* **autobiographical (default config)** — ``AutobiographicalStrategy()``, what ``strategy="autobiographical"``
  opens, not sized for the budget (a review measured 26% there).

Printed: per method, the headline — the share of turns with half or more of the prompt's *tokens* read
from the cache (what a provider bills; B49's goal: at least 70% for autobiographical, with compression
running every turn) — and beside it, labelled, the same count over *blocks* (a short block weighs as
much as a long one there, so it flatters a layout whose cached prefix is many small blocks); the mean
cached share (tokens and blocks), the mean compiled tokens and raw messages (what the cache costs: a
stable layout compacts with headroom, so it fills less of the budget on average than a fresh fold), and
the cached token share of every turn (``--per-turn``: as a table, with the block share too).

``--session``: a real Claude Code session (``../shared/data/claude-code-sessions/*.jsonl``) replayed message by
message with tool calls, so the working-state block is rendered: compression drained and a compile made
after each message that is not the assistant's (where an agent calls the model: the user's turns and the tool
results), for the first ``--compiles`` of them, with windowed, autobiographical sized for the budget,
autobiographical as opened, and the sized one with the block off (``LedgerConfig(share=0)``) as the reference
(issue 13, kind 5: a review's replay read half the prompt from the cache on 12% of compiles with the block
where it read 73% without it).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

from context_journal.formats import read_transcript
from context_journal.llm import LLMRequest, OfflineSummarizer
from context_journal.manager import ContextManager
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy, WindowedPassthroughStrategy
from context_journal.testing import ScriptedProvider
from context_journal.tokens import EstimatingCounter

_FILLER = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau").split()  # noqa: SIM905 - the B49 test's filler words
LOOKBACK = 20
"""Blocks a marker looks back for an earlier cache entry (Anthropic's documented lookback)."""


def words(n: int, seed: int) -> str:
    """``n`` distinct-looking filler words."""
    return " ".join(f"{_FILLER[(i + seed) % len(_FILLER)]}{i}" for i in range(n))


def echo_summarizer() -> ScriptedProvider:
    """A stand-in summarizer: "memory of <work>: <first six words of the range>" (as the B49 test)."""

    def answer(request: LLMRequest) -> str:
        a, b = request.metadata.get("summarize_range", [0, 0])
        for m in request.messages[a:b]:
            for block in m.content:
                text = getattr(block, "text", None)
                if text:
                    return f"memory of {request.metadata.get('work')}: {' '.join(text.split()[:6])}"
        return f"memory of {request.metadata.get('work')}: tool work"

    return ScriptedProvider(default=answer)


def blocks(params: dict[str, Any]) -> tuple[list[str], list[int], list[dict[str, Any]]]:
    """A request's blocks in prompt order (tools, system, messages) as comparison keys (markers left
    out), the positions of its markers, and the blocks."""
    items = [*params.get("tools", []), *params.get("system", [])]
    items += [{"role": m["role"], **b} for m in params["messages"] for b in m["content"]]
    keys = [json.dumps({k: v for k, v in b.items() if k != "cache_control"}, sort_keys=True) for b in items]
    return keys, [i for i, b in enumerate(items) if "cache_control" in b], items


def cached(previous: dict[str, Any], new: dict[str, Any], size: Callable[[dict[str, Any]], int]) -> tuple[float, float]:
    """The share of ``new`` (blocks, tokens) read from the cache ``previous`` wrote."""
    old_keys, old_marks, _ = blocks(previous)
    keys, marks, items = blocks(new)
    best = 0
    for q in marks:
        for p in old_marks:
            if q - LOOKBACK <= p <= q and p + 1 > best and keys[: p + 1] == old_keys[: p + 1]:
                best = p + 1
    sizes = [size(b) for b in items]
    return best / len(keys), sum(sizes[:best]) / max(1, sum(sizes))


def strategy_for(method: str, budget: int) -> Any:
    """The strategy a method names: windowed, autobiographical as opened (``default config``), or sized for
    ``budget`` (``fresh fold``: every compile folds afresh)."""
    if method == "windowed":
        return WindowedPassthroughStrategy()
    if "default config" in method:
        return AutobiographicalStrategy()  # ContextManager.open(strategy="autobiographical"): not sized
    stable = "fresh fold" not in method
    return AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget, stable_prefix=stable))


def block_size() -> Callable[[dict[str, Any]], int]:
    """A request block's tokens by the default estimate (its role and marker left out)."""
    counter = EstimatingCounter()
    return lambda block: counter.count_block({k: v for k, v in block.items() if k not in ("role", "cache_control")})


def run(method: str, turns: int, budget: int, n_words: int, summarizer: str) -> dict[str, Any]:
    """One method's run: per turn, the cached shares and the compiled tokens."""
    drain_every = {"drained every turn": 1, "drained every 10 turns": 10}.get(method.split(", ", 1)[-1], 0)
    provider = echo_summarizer() if summarizer == "echo" else OfflineSummarizer()
    cm = ContextManager.open("memory:", strategy=strategy_for(method, budget), summarizer=provider)
    size = block_size()
    previous: dict[str, Any] | None = None
    shares: list[tuple[float, float]] = []
    tokens: list[int] = []
    raw: list[int] = []
    started = time.perf_counter()
    for turn in range(turns):
        cm.add_message("user", f"Question {turn}: {words(n_words, turn)}")
        cm.add_message("assistant", f"Answer {turn}: {words(n_words, turn + 7)}")
        if drain_every and (turn + 1) % drain_every == 0:
            cm.drain()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a dropped-marker report is not what this measures
            result = cm.compile(budget, system="You are a helpful assistant.")
        params = result.to_anthropic()
        tokens.append(result.tokens)
        raw.append(sum(1 for m in result.messages if any(s.kind == "message" for s in m.sources)))
        if previous is not None:
            shares.append(cached(previous, params, size))
        previous = params
    cm.close()
    return {"shares": shares, "tokens": tokens, "raw": raw, "seconds": time.perf_counter() - started}


SESSION_METHODS = ("windowed", "autobiographical, sized", "autobiographical (default config)", "sized, block off")


def run_session(method: str, path: str, budget: int, compiles: int) -> dict[str, Any]:
    """One method's replay of a Claude Code session (see the module docstring): per compile, the cached shares."""
    from context_journal.state import LedgerConfig

    cm = ContextManager.open("memory:", strategy=strategy_for(method, budget), summarizer=OfflineSummarizer())
    if method.endswith("block off"):
        cm.ledger_config = LedgerConfig(share=0.0)
    size = block_size()
    previous: dict[str, Any] | None = None
    shares: list[tuple[float, float]] = []
    tokens: list[int] = []
    started = time.perf_counter()
    conversation = read_transcript(path).conversations[0]
    assistant = str(conversation.metadata.get("assistant") or "assistant")  # the model's name, as imported
    for message in conversation.messages:
        cm.add_messages([message])
        if message.participant == assistant:
            continue
        cm.drain()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = cm.compile(budget, system="You are Claude Code.", assistant=assistant)
        params = result.to_anthropic()
        tokens.append(result.tokens)
        if previous is not None:
            shares.append(cached(previous, params, size))
        previous = params
        if len(tokens) >= compiles:
            break
    cm.close()
    return {"shares": shares, "tokens": tokens, "raw": [0], "seconds": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, default=80)
    parser.add_argument("--budget", type=int, default=3000)
    parser.add_argument("--words", type=int, default=40)
    parser.add_argument("--summarizer", choices=("echo", "offline"), default="echo")
    parser.add_argument("--per-turn", action="store_true", help="print the cached share of every turn")
    parser.add_argument("--session", help="replay this Claude Code session (.jsonl) instead of the chat")
    parser.add_argument("--compiles", type=int, default=150, help="compiles of the --session replay")
    args = parser.parse_args()
    if args.session:
        print(
            f"# {args.session}: compiled at {args.budget:,} tokens after each message not the assistant's "
            f"(first {args.compiles}), drained each time (offline summarizer); cached as below"
        )
        print(f"\n{'method':40} {'compiles >= half of tokens cached':>34} {'mean cached tokens':>19} {'seconds':>8}")
        for m in SESSION_METHODS:
            r = run_session(m, args.session, args.budget, args.compiles)
            shares = r["shares"]
            good = sum(t >= 0.5 for _, t in shares) / max(1, len(shares))
            mean = statistics.mean(t for _, t in shares) if shares else 0.0
            print(f"{m:40} {good:>34.0%} {mean:>19.0%} {r['seconds']:>8.2f}")
        return
    methods = [
        "windowed",
        "autobiographical, drained every turn",
        "autobiographical, drained every 10 turns",
        "autobiographical (fresh fold), drained every turn",
        "autobiographical (fresh fold), drained every 10 turns",
        "autobiographical (default config), drained every turn",
    ]
    print(
        f"# {args.turns} turns of a {args.words}-word question and answer, compiled at {args.budget:,} tokens "
        f"after each turn ({args.summarizer} summarizer); cached = the prefix up to one of the previous "
        f"request's cache markers, unchanged, with a new marker within {LOOKBACK} blocks"
    )
    runs = {m: run(m, args.turns, args.budget, args.words, args.summarizer) for m in methods}
    print(
        f"\n{'method':56} {'turns >= half of tokens cached':>31} {'(by blocks)':>12} "
        f"{'mean cached tokens':>19} {'(blocks)':>9} {'mean tokens':>12} {'mean raw msgs':>14} {'seconds':>8}"
    )
    for m, r in runs.items():
        shares = r["shares"]
        good_tokens = sum(t >= 0.5 for _, t in shares) / len(shares)
        good_blocks = sum(b >= 0.5 for b, _ in shares) / len(shares)
        print(
            f"{m:56} {good_tokens:>31.0%} {good_blocks:>12.0%} "
            f"{statistics.mean(t for _, t in shares):>19.0%} {statistics.mean(b for b, _ in shares):>9.0%} "
            f"{statistics.mean(r['tokens']):>12,.0f} {statistics.mean(r['raw']):>14.1f} {r['seconds']:>8.2f}"
        )
    if args.per_turn:
        print("\nper turn: the share of the prompt served from the cache, tokens (blocks)")
        names = ["windowed", "auto/1", "auto/10", "fresh/1", "fresh/10", "default/1"]
        print(f"{'turn':>4}  " + "  ".join(f"{n:>14}" for n in names))
        for t in range(args.turns - 1):
            row = "  ".join(
                f"{runs[m]['shares'][t][1]:>6.0%} ({runs[m]['shares'][t][0]:>4.0%})".rjust(14) for m in methods
            )
            print(f"{t + 1:>4}  {row}")
    else:
        print("\nper turn: the share of the prompt's tokens served from the cache")
        for m, r in runs.items():
            line = " ".join(f"{t:.0%}" for _, t in r["shares"])
            print(f"  {m}: {line}")


if __name__ == "__main__":
    main()
