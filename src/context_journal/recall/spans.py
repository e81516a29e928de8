"""Recall spans: what a query brings back, planned and rendered without I/O (sans-I/O, like strategies).

A **span** is a hit message with its neighbours (``before`` and ``after`` messages, a tool unit taken
whole: a tool_use message with the message holding its results, whatever side the span reaches it
from). Spans are taken best hit first while they fit the recall allowance; messages the strategy
already renders raw are left out of them (a hit rendered raw is not recalled at all). A long message is
cut to its sentences that hold a query word (the hit) or to its opening (a neighbour), marked as an
excerpt. Spans are rendered as **recall pairs** (a marker turn, then the recalled transcript in the
assistant's voice), one pair per place in the conversation, in chronological order, each line saying
who spoke and, when the date changes, when.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._render import format_date
from ..stores.fulltext import stem, words
from ..tokens import TokenCounter
from ..views import MessageView, ViewEntry

__all__ = [
    "Candidate",
    "RecallConfig",
    "RecallSpan",
    "RecalledLine",
    "format_date",
    "message_line_text",
    "plan_spans",
    "render_transcript",
]

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True)
class RecallConfig:
    """How a query-aware compile recalls (``compile(..., query=..., recall=RecallConfig(...))``).

    Attributes:
        share: The most of the strategy's token allowance recall may take (0..1); what recall does not
            use goes back to the strategy.
        before: Messages taken before each hit.
        after: Messages taken after each hit.
        candidates: Hits asked of the search index.
        min_score_ratio: Hits scoring below this share of the best hit's score are not recalled.
        hit_tokens: A hit message longer than this many tokens is cut to its matching sentences.
        neighbour_tokens: A neighbour longer than this is cut to its opening.
        dates: Show each recalled line's date when it changes (None: when the compile renders dates).
        marker_participant: Who asks in the marker turn of a recall pair.
    """

    share: float = 0.6
    before: int = 1
    after: int = 1
    candidates: int = 40
    min_score_ratio: float = 0.0
    hit_tokens: int = 160
    neighbour_tokens: int = 60
    dates: bool | None = None
    marker_participant: str = "Context Manager"

    def __post_init__(self) -> None:
        if not 0.0 <= self.share <= 1.0:
            raise ValueError(f"share must be in 0..1, got {self.share}")
        for name in ("before", "after", "candidates", "hit_tokens", "neighbour_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 10_000:
                raise ValueError(f"{name} must be an integer in 0..10000, got {value!r}")
        if not 0.0 <= self.min_score_ratio <= 1.0:
            raise ValueError(f"min_score_ratio must be in 0..1, got {self.min_score_ratio}")


@dataclass(frozen=True)
class Candidate:
    """A search hit to recall: the message id, its score and the stems of the query words."""

    message_id: str
    score: float
    stems: frozenset[str]


@dataclass(frozen=True)
class RecalledLine:
    """One message of a span as rendered: who, when, the text, whether it was cut."""

    position: int
    message_id: str
    sequence: int
    participant: str
    timestamp: float | None
    text: str
    excerpt: bool


@dataclass(frozen=True)
class RecallSpan:
    """Positions ``[start, end)`` of the view recalled for a hit (minus those rendered raw)."""

    start: int
    end: int
    lines: tuple[RecalledLine, ...]
    tokens: int


def _tokens(counter: TokenCounter, text: str) -> int:
    return counter.count_block({"type": "text", "text": text})


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping) and b.get("type") == "text")
    return ""


def message_line_text(blocks: Sequence[Mapping[str, Any]]) -> str:
    """What a model reads of a message's blocks, as one line of plain text (tool calls written out)."""
    import json

    parts: list[str] = []
    for b in blocks:
        kind = b.get("type")
        if kind == "text":
            parts.append(str(b.get("text", "")))
        elif kind == "tool_use":
            args = json.dumps(b.get("input"), ensure_ascii=False, separators=(",", ":"))
            parts.append(f"[called {b.get('name')} {args}]")
        elif kind == "tool_result":
            parts.append(f"[{'error' if b.get('is_error') else 'result'}: {_result_text(b.get('content'))}]")
        elif kind in ("image", "document"):
            parts.append(f"[{kind}]")
    return " ".join(p for p in parts if p).strip()


def _cut(text: str, stems: frozenset[str], limit: int, counter: TokenCounter) -> tuple[str, bool]:
    """``text`` within about ``limit`` tokens: its sentences holding a query word (else its opening)."""
    if _tokens(counter, text) <= limit:
        return text, False
    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    kept: list[str] = []
    used = 0
    if stems:
        for s in sentences:
            if any(stem(w) in stems for w in words(s)):
                cost = _tokens(counter, s)
                if used + cost > limit and kept:
                    break
                kept.append(s.strip())
                used += cost
    if not kept:
        head = text[: max(16, limit * 3)]
        return head.rsplit(" ", 1)[0] + " …", True
    joined = " … ".join(kept)
    if _tokens(counter, joined) > limit * 2:
        joined = joined[: limit * 6].rsplit(" ", 1)[0]
    return "… " + joined + " …", True


def _unit_bounds(view: MessageView, start: int, end: int) -> tuple[int, int]:
    """Widen ``[start, end)`` so no tool unit is cut (a tool_use message and the results after it)."""
    n = len(view)
    for _ in range(64):
        changed = False
        if start > 0 and "tool_result" in view.entry(start).kinds and "tool_use" in view.entry(start - 1).kinds:
            start -= 1
            changed = True
        if end < n and "tool_use" in view.entry(end - 1).kinds and "tool_result" in view.entry(end).kinds:
            end += 1
            changed = True
        if not changed:
            break
    return start, end


def plan_spans(
    view: MessageView,
    candidates: Sequence[Candidate],
    allowance: int,
    config: RecallConfig,
    counter: TokenCounter,
    load: Callable[[ViewEntry], tuple[str, float | None]],
    raw: Callable[[int], bool],
    pair_tokens: int,
) -> list[RecallSpan]:
    """The spans to recall within ``allowance`` tokens, in view order.

    Args:
        view: The view compiled.
        candidates: Search hits, best first.
        allowance: Tokens recall may use, pair overhead included.
        config: The recall knobs.
        counter: Token counter.
        load: ``entry -> (line text, timestamp)`` of a message (the reader's view of it).
        raw: True for a position the strategy renders raw (left out of spans).
        pair_tokens: Overhead of one recall pair (marker turn and message framing).
    """
    if allowance <= pair_tokens or not candidates:
        return []
    best = max(c.score for c in candidates)
    taken: dict[int, RecalledLine] = {}
    spans: list[tuple[int, int]] = []
    used = 0
    for cand in candidates:
        if cand.score < best * config.min_score_ratio:
            break
        pos = view.index_of(cand.message_id)
        if pos is None or raw(pos) or pos in taken:
            continue
        start, end = _unit_bounds(view, max(0, pos - config.before), min(len(view), pos + 1 + config.after))
        lines: list[RecalledLine] = []
        cost = 0
        for p in range(start, end):
            if raw(p) or p in taken:
                continue
            entry = view.entry(p)
            text, ts = load(entry)
            if not text:
                continue
            limit = config.hit_tokens if p == pos else config.neighbour_tokens
            text, cut = _cut(text, cand.stems if p == pos else frozenset(), limit, counter)
            lines.append(RecalledLine(p, entry.id, entry.sequence, entry.participant, ts, text, cut))
            cost += _tokens(counter, f"{entry.participant}: {text}\n") + 1
        if not lines:
            continue
        # A new place in the conversation costs a pair of its own (merged later when adjacent).
        extra = pair_tokens if not any(a <= start <= b for a, b in spans) else 0
        if used + cost + extra > allowance:
            continue
        used += cost + extra
        spans.append((start, end))
        for line in lines:
            taken[line.position] = line
    out: list[RecallSpan] = []
    for start, end in sorted(spans):
        kept = tuple(taken[p] for p in range(start, end) if p in taken)
        if kept:
            if out and out[-1].end >= start:  # overlapping or touching: one span
                prev = out[-1]
                merged = tuple(sorted({*prev.lines, *kept}, key=lambda ln: ln.position))
                out[-1] = RecallSpan(prev.start, max(prev.end, end), merged, prev.tokens)
            else:
                out.append(RecallSpan(start, end, kept, 0))
    return out


def render_transcript(spans: Sequence[RecallSpan], dates: bool) -> str:
    """The recalled text of consecutive spans: ``who: text`` lines, ``[date]`` lines where the date
    changes, ``…`` between spans that are not adjacent."""
    out: list[str] = []
    last_date: str | None = None
    previous_end: int | None = None
    for span in spans:
        if previous_end is not None and span.start > previous_end:
            out.append("…")
        for line in span.lines:
            if dates and line.timestamp is not None:
                day = format_date(line.timestamp)
                if day != last_date:
                    out.append(f"[{day}]")
                    last_date = day
            out.append(f"{line.participant}: {line.text}")
        previous_end = span.end
    return "\n".join(out)
