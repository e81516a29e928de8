"""Claude Code's own compaction against ours, at the same size (printed, never asserted).

    python benchmarks/eval_compaction.py [--data ../shared/data/claude-code-sessions]

Each long Claude Code session in the data set holds one real compaction: when its window filled up,
Claude Code replaced the history with a summary it wrote (the importer keeps the boundary as a
``compaction`` marker in the conversation's metadata, with the summary text and the position of the
first message after it). For each session this script takes the history before the boundary, replays
it with the offline summarizer, and compiles each method's context at **the token count of their
summary** (the same budget for every method):

- *compaction*: Claude Code's summary itself;
- *windowed*: :class:`WindowedPassthroughStrategy` (the floor: the newest messages that fit);
- *autobiographical*: :class:`AutobiographicalStrategy` with ``AutobiographicalConfig.for_budget``;
- *autobio + ledger 10/15/25%*: the same with the working-state ledger given that fixed share of the
  budget (``ContextManager.ledger_config``); the other methods compile with the ledger off;
- *autobio + ledger default*: the same with ``LedgerConfig()`` as shipped, whose share grows from 15%
  to 30% as the conversation grows from 4x to 16x the budget (these sessions hold 18-41x).

Under each session, ``tokens of ...`` says what each compiled context spent its tokens on: raw
messages (the head and the recent window), summaries, the ledger pair, other (markers, notes).

It then counts, in that history, the distinct **file paths** (matched by file name),
**identifiers** (snake_case, camelCase, dotted module names), **numbers** (two or more digits) and
**error lines**, and reports the share that survives in each method's text. Two universes for the
first three: *all* (anything in the history, tool output included: line numbers, every identifier
of every file read) and *salient* (only what the user and the assistant wrote, and the *values* of
tool-call inputs; no tool output, no thinking). Tool-input keys (``file_path``, ``old_string``,
``command``...) are not in either universe: they are the tools' names for their arguments, not
facts of the work, and counting them favoured us (our digests show them, a prose summary does not).

**Error lines** come from tool output in both universes: the error-looking lines of any tool result
(``** (CompileError) ...``, ``error: ...``, ``fatal: ...``, ``5 tests, 4 failures``, ``FooError:``,
``permission denied``...), and the first line of an error result that has none; "Exit code N" lines,
numbered file lines (``12→``) and lines under 12 characters are left out. A line is kept when its
first 60 characters appear in the text (whitespace collapsed) or when at least two thirds of its
distinctive words (4+ characters, not a generic word such as "error" or "file"; numbers of 2+ digits)
do: a paraphrase that names the same function, file and counts counts as kept.

Caveat: the offline summarizer is an extractive digest built to keep exactly these kinds of tokens,
and our context also keeps the recent messages raw; Claude Code's summary is prose meant to let the
model continue the task. The figures measure what concrete detail survives, not which context a model
would work better from.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from context_journal.compile import CompileResult
from context_journal.formats import read_transcript
from context_journal.llm import OfflineSummarizer
from context_journal.manager import ContextManager
from context_journal.messages import MessageInput
from context_journal.state import LedgerConfig
from context_journal.strategies import (
    AutobiographicalConfig,
    AutobiographicalStrategy,
    Strategy,
    WindowedPassthroughStrategy,
)
from context_journal.tokens import EstimatingCounter

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "claude-code-sessions"
ROLE_KEYS = ("assistant", "user", "system_participants", "tool_participants")
LEDGER_SHARES = (0.10, 0.15, 0.25)

_PATH = re.compile(r"(?:[\w.~-]*/)+[\w.-]+\.[A-Za-z][\w]{0,5}\b")
_DOTTED = re.compile(r"\b[A-Z]\w*(?:\.[A-Z]\w*)+\b")
_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*[?!]?")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z][a-z]+[A-Z]")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
KINDS = ("paths", "identifiers", "numbers")
UNIVERSES = ("salient", "all")

_ERROR_LINE = re.compile(
    r"^(?:\*\* \(\w+|(?i:error)\b|fatal:|panic:|Traceback|FAILED|FAIL\b|== Compilation error|<tool_use_error>)"
    r"|\b[1-9]\d* (?:failures?|errors?)\b|\b[A-Z]\w*(?:Error|Exception)\b[:)]"
    r"|(?i:\bcommand not found|permission denied|no such file)"
)
_EXIT_LINE = re.compile(r"^Exit code \d+$")
_NUMBERED_LINE = re.compile(r"\s*\d+(?:→|\t)")
_TOKEN = re.compile(r"[A-Za-z_][\w.]{3,}|\d{2,}")
_GENERIC_WORDS = (
    "error errors fatal failed failure failures exception file files with that this have been from into none"
    " were will when then than they there what which your should could would does expected found test tests"
    " compile compiling"
)
_GENERIC = frozenset(_GENERIC_WORDS.split())


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


# ---- error lines ---------------------------------------------------------------------------------


def _norm(line: str) -> str:
    return re.sub(r"\s+", " ", line.strip().strip("│┃└─├ ")).strip()


def _result_text(block: Mapping[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping))
    return ""


def error_lines(messages: list[MessageInput]) -> list[str]:
    """The distinct error lines of the history's tool results (rules in the module docstring)."""
    out: dict[str, None] = {}
    for m in messages:
        for b in _blocks(m):
            if b.get("type") != "tool_result":
                continue
            first: str | None = None
            found = False
            for raw in _result_text(b).splitlines():
                if _NUMBERED_LINE.match(raw):
                    continue
                line = _norm(raw)
                if len(line) < 12 or _EXIT_LINE.match(line):
                    continue
                first = first or line
                if _ERROR_LINE.search(line):
                    out.setdefault(line[:200], None)
                    found = True
            if b.get("is_error") and not found and first:
                out.setdefault(first[:200], None)
    return list(out)


def _tokens(text: str) -> set[str]:
    return {t.lower().rstrip(".") for t in _TOKEN.findall(text)}


def error_survival(lines: Sequence[str], text: str) -> tuple[int, int]:
    """(error ``lines`` kept in ``text``, error lines)."""
    flat = _norm(text).replace("\n", " ")
    flat = re.sub(r"\s+", " ", flat)
    have = _tokens(text)
    kept = 0
    for line in lines:
        if line[:60] in flat:
            kept += 1
            continue
        want = _tokens(line) - _GENERIC
        if len(want) >= 2 and 3 * len(want & have) >= 2 * len(want):
            kept += 1
    return kept, len(lines)


# ---- texts ---------------------------------------------------------------------------------------


def _input_values(value: Any) -> Iterable[str]:
    """The values of a tool input (strings and numbers), never its keys."""
    if isinstance(value, Mapping):
        for v in value.values():
            yield from _input_values(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _input_values(v)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def _block_texts(blocks: Iterable[Mapping[str, Any]], salient: bool) -> Iterable[str]:
    for b in blocks:
        kind = b.get("type")
        if kind == "text":
            yield str(b.get("text", ""))
        elif kind == "tool_use":
            yield from _input_values(b.get("input", {}))
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
    """The compiled context as text (system part, text, tool input values and results)."""
    parts = [str(b.get("text", "")) for b in result.system]
    for m in result.messages:
        parts.extend(_block_texts(m.content, salient=False))
    return "\n".join(parts)


# ---- methods -------------------------------------------------------------------------------------


def _compile(
    history: list[MessageInput],
    roles: dict[str, Any],
    strategy: Strategy,
    budget: int,
    ledger: LedgerConfig,
    drain: bool = True,
) -> tuple[CompileResult, dict[str, Any]]:
    """Compile ``history`` at ``budget`` with the working-state ledger configured by ``ledger``, after
    summarising everything due (``drain``) or nothing (compression lagging a whole session behind)."""
    with ContextManager.open("memory:", strategy=strategy, summarizer=OfflineSummarizer()) as cm:
        cm.ledger_config = ledger
        cm.add_messages(history)
        cm._strategy_context().put_states({"roles": roles})
        if drain:
            cm.drain()
        return cm.compile(budget), cm.compression_stats.to_dict()


LAGGING = " (nothing summarised)"
"""The suffix of a method compiled with no summary written (the middle gives way to notes)."""


OFF = LedgerConfig(share=0)


def methods(budget: int) -> list[tuple[str, Callable[[], tuple[Strategy, LedgerConfig]]]]:
    """``(name, factory)`` of each compiled method at ``budget``: the strategy and the ledger's knobs
    (fixed shares: ``share_long`` = ``share``; *default*: ``LedgerConfig()`` as shipped, whose share
    grows with the conversation's length against the budget)."""

    def autobio() -> Strategy:
        return AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget))

    out: list[tuple[str, Callable[[], tuple[Strategy, LedgerConfig]]]] = [
        ("windowed", lambda: (WindowedPassthroughStrategy(), OFF)),
        ("autobiographical", lambda: (autobio(), OFF)),
    ]
    for share in LEDGER_SHARES:
        out.append((f"autobio+ledger {share:.0%}", lambda s=share: (autobio(), LedgerConfig(share=s, share_long=s))))
    out.append(("autobio+ledger default", lambda: (autobio(), LedgerConfig())))
    out.append(("autobio" + LAGGING, lambda: (autobio(), OFF)))
    out.append(("autobio+ledger" + LAGGING, lambda: (autobio(), LedgerConfig())))
    return out


def composition(result: CompileResult) -> str:
    """What the compiled context spent its tokens on: raw messages (the recent window and the head),
    summaries, the ledger pair, other (markers, recall, notes)."""
    parts = {"raw": 0, "summaries": 0, "ledger": 0, "other": 0}
    for k, m in enumerate(result.messages):
        kinds = {s.kind for s in m.sources}
        nxt = result.messages[k + 1] if k + 1 < len(result.messages) else None
        if "ledger" in kinds or (
            nxt is not None and any(s.kind == "ledger" for s in nxt.sources) and not kinds - {"synthetic"}
        ):
            parts["ledger"] += m.tokens
        elif "summary" in kinds:
            parts["summaries"] += m.tokens
        elif kinds and kinds <= {"message", "system"}:
            parts["raw"] += m.tokens
        else:
            parts["other"] += m.tokens
    return ", ".join(f"{k} {v:,}" for k, v in parts.items())


# ---- report --------------------------------------------------------------------------------------

Counts = dict[str, tuple[int, int]]  # column -> (kept, of)
COLUMNS = (*(f"salient {k}" for k in KINDS), *(f"all {k}" for k in KINDS), "error lines")


def _pct(pair: Sequence[int]) -> str:
    return f"{pair[0] / pair[1]:.0%}" if pair[1] else "-"


def _measure(pools: Mapping[str, Mapping[str, set[str]]], errors: list[str], text: str) -> Counts:
    out: Counts = {}
    for universe in UNIVERSES:
        for k, pair in survival(pools[universe], text).items():
            out[f"{universe} {k}"] = pair
    out["error lines"] = error_survival(errors, text)
    return out


def _header() -> str:
    short = {"salient": "sal", "all": "all"}
    cols = [f"{short[c.split()[0]]} {c.split()[1][:6]}" if c != "error lines" else "errors" for c in COLUMNS]
    return f"  {'method':<36} {'tokens':>6} " + " ".join(f"{c:>11}" for c in cols)


def _row(name: str, tokens: int | None, counts: Counts | None) -> str:
    if counts is None:
        return f"  {name:<36} {'-':>6}  n/a"
    return f"  {name:<36} {tokens if tokens is not None else 0:>6,} " + " ".join(
        f"{_pct(counts[c]):>11}" for c in COLUMNS
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    started = time.perf_counter()
    counter = EstimatingCounter()
    sessions = sorted(p for p in args.data.glob("*.jsonl") if len(p.stem) == 36)
    pooled: dict[str, dict[str, list[int]]] = {}
    order: list[str] = ["compaction"]
    print("Claude Code compaction vs ours at the same token count: share of the history's distinct items kept")
    print("(sal = salient: user/assistant words and tool-input values; all = tool output too; errors: see docstring)")
    for path in sessions:
        main_conv = next(c for c in read_transcript(path, format="claude-code").conversations if c.primary)
        marker = next(m for m in main_conv.metadata.get("markers", []) if m.get("kind") == "compaction")
        history = main_conv.messages[: int(marker["position"])]
        roles = {k: main_conv.metadata.get(k) for k in ROLE_KEYS if main_conv.metadata.get(k)}
        theirs = str(marker["summary"])
        budget = counter.count_message("user", [{"type": "text", "text": theirs}])
        history_tokens = sum(counter.count_message(m.participant, _blocks(m)) for m in history)
        pools = {u: concepts(history_text(history, salient=u == "salient")) for u in UNIVERSES}
        errors = error_lines(history)
        print()
        print(
            f"{path.stem[:8]}: {len(history)} messages, {history_tokens:,} tokens before the compaction "
            f"(preTokens {marker.get('preTokens'):,}, {marker.get('trigger')}); budget {budget:,} = their summary"
        )
        print(
            "  universe sizes: "
            + ", ".join(f"{c} {len(pools[c.split()[0]][c.split()[1]]):,}" for c in COLUMNS if c != "error lines")
            + f", error lines {len(errors)}"
        )
        print(_header())
        rows: list[tuple[str, int | None, Counts | None]] = [("compaction", budget, _measure(pools, errors, theirs))]
        notes: list[str] = []
        spent: list[str] = []
        for name, factory in methods(budget):
            strategy, ledger = factory()
            result, stats = _compile(history, roles, strategy, budget, ledger, drain=not name.endswith(LAGGING))
            rows.append((name, result.tokens, _measure(pools, errors, compiled_text(result))))
            spent.append(f"{name}: {composition(result)}")
            if stats.get("calls"):
                notes.append(
                    f"{name}: {stats['calls']} summarizer calls, {stats['input_tokens']:,} input tokens, "
                    f"summaries {stats['summaries']}"
                )
        for name, tokens, counts in rows:
            print(_row(name, tokens, counts))
            if name not in order:
                order.append(name)
            if counts is not None:
                acc = pooled.setdefault(name, {})
                for c, (kept, of) in counts.items():
                    pair = acc.setdefault(c, [0, 0])
                    pair[0] += kept
                    pair[1] += of
        for line in spent:
            print(f"  tokens of {line}")
        for note in notes:
            print(f"  # {note}")
    print()
    print(f"pooled over the {len(sessions)} sessions (items kept / items):")
    print(_header())
    for name in order:
        counts = {c: (p[0], p[1]) for c, p in pooled[name].items()} if name in pooled else None
        print(_row(name, None if counts is None else 0, counts).replace(f"{0:>6,}", f"{'':>6}", 1))
    print()
    print("pooled, as a multiple of the compaction's share:")
    base = pooled["compaction"]
    cols = [c for c in COLUMNS]
    print(f"  {'method':<36} {'':>6} " + " ".join(f"{c.replace('salient', 'sal')[:11]:>11}" for c in cols))
    for name in order[1:]:
        if name not in pooled:
            print(_row(name, None, None))
            continue
        cells = []
        for c in cols:
            ours, theirs_ = pooled[name][c], base[c]
            share_o = ours[0] / ours[1] if ours[1] else 0.0
            share_t = theirs_[0] / theirs_[1] if theirs_[1] else 0.0
            cells.append(f"{share_o / share_t:.2f}x" if share_t else "-")
        print(f"  {name:<36} {'':>6} " + " ".join(f"{x:>11}" for x in cells))
    print(f"# {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
