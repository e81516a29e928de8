"""Recall spans: what a query brings back, planned and rendered without I/O (sans-I/O, like strategies).

Planning is greedy by hit score, in two passes, so a small budget holds many distinct hits rather than
a few hits with their surroundings: first every hit that fits (with the message after it when the hit
asks a question: the answer is usually the reply), the best ``full_windows`` hits with all their
neighbours at once; then, with what is left, the other hits' neighbours (``before`` and ``after``
messages), best hit first. A tool unit (a tool_use message and the message with its results) is taken
whole or not at all. Messages the strategy already renders raw are left out (a hit rendered raw is not
recalled). A long message is cut to its sentences that hold a query word (a hit) or to its opening
sentences (a neighbour), marked as an excerpt. Measured on LoCoMo with ``benchmarks/eval_locomo.py``.
A hit or neighbour that will not be cut is judged by the view's estimate before it is read (bigger,
less ``_SLACK``, than what is left: passed over), so a plan reads and prices little more than it takes.

Spans are rendered as **recall pairs** (a marker turn, then the recalled transcript in the assistant's
voice), one pair per place in the conversation, in chronological order, each line saying who spoke
and, when the date changes, when.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from .._graphemes import clip_end
from ..rendering.repairs import quote_text
from ..stores.fulltext import format_date, stem, words
from ..tokens import TokenCounter
from ..views import MessageView, ViewEntry, unit_bounds
from .lines import message_line_text

__all__ = [
    "Candidate",
    "Lines",
    "RecallConfig",
    "RecallSpan",
    "RecalledLine",
    "cut_line",
    "format_date",
    "message_line_text",
    "plan_spans",
    "render_transcript",
]

_BATCH = 16  # hits whose messages are read in one store round trip
_SLACK = 8  # tokens a recalled line may cost less than its message's estimate (the message's framing)

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


@dataclass(frozen=True)
class RecallConfig:
    """How a query-aware compile recalls (``compile(..., query=..., recall=RecallConfig(...))``).

    Raises:
        ValueError: a field out of its range or of the wrong type (named in the message).

    Attributes:
        share: The most of the strategy's token allowance recall may take (0..1); what recall does not
            use goes back to the strategy.
        before: Messages taken before each hit.
        after: Messages taken after each hit.
        candidates: Hits asked of the search index.
        length_norm: bm25's length normalisation ``b`` (0..1) applied to the candidates, which the
            index ranks without lengths: a long message that mentions a query word once ranks below a
            short one about it (see :func:`~.query.by_length`; 0 keeps the index's order).
        min_score_ratio: Hits scoring below this share of the best hit's score are not recalled.
        hit_tokens: A hit message (or the reply to a hit that asks a question) longer than this many
            tokens is cut to its matching sentences.
        neighbour_tokens: A neighbour longer than this is cut to its opening sentences.
        full_windows: The best hits that get their neighbours at once; the others get them only with
            what is left once every hit that fits is in.
        dates: Show each recalled line's date when it changes (None: when the compile renders dates).
        marker_participant: Who asks in the marker turn of a recall pair.
    """

    share: float = 0.6
    before: int = 1
    after: int = 1
    candidates: int = 200
    length_norm: float = 0.25
    min_score_ratio: float = 0.0
    hit_tokens: int = 160
    neighbour_tokens: int = 80
    full_windows: int = 5
    dates: bool | None = None
    marker_participant: str = "Context Manager"

    def __post_init__(self) -> None:
        for name in ("share", "length_norm", "min_score_ratio"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{name} must be a number, got {value!r}")
        if not 0.0 <= self.share <= 1.0:
            raise ValueError(f"share must be in 0..1, got {self.share}")
        for name in ("before", "after", "candidates", "hit_tokens", "neighbour_tokens", "full_windows"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 10_000:
                raise ValueError(f"{name} must be an integer in 0..10000, got {value!r}")
        if not 0.0 <= self.length_norm <= 1.0:
            raise ValueError(f"length_norm must be in 0..1, got {self.length_norm}")
        if not 0.0 <= self.min_score_ratio <= 1.0:
            raise ValueError(f"min_score_ratio must be in 0..1, got {self.min_score_ratio}")
        if self.hit_tokens < 1:
            raise ValueError(
                f"hit_tokens must be at least 1 (a hit is cut to its matching sentences), got {self.hit_tokens}"
            )
        if self.dates is not None and not isinstance(self.dates, bool):
            raise ValueError(f"dates must be True, False or None, got {self.dates!r}")
        if not isinstance(self.marker_participant, str) or not self.marker_participant.strip():
            raise ValueError(f"marker_participant must be a non-blank name, got {self.marker_participant!r}")


@dataclass(frozen=True)
class Candidate:
    """A search hit to recall: the message id, its score and the stems of the query words."""

    message_id: str
    score: float
    stems: frozenset[str]


@dataclass(frozen=True)
class RecalledLine:
    """One message of a span as rendered: who, when, the text, whether it was cut, the position of the
    hit it was recalled for (its own position for a hit), and the group of lines taken with it (a tool
    unit, or a hit and its reply: kept or left out together)."""

    position: int
    message_id: str
    sequence: int
    participant: str
    timestamp: float | None
    text: str
    excerpt: bool
    hit: int = -1
    group: int = -1


class Lines(Protocol):
    """Where the planner reads messages: ``load(entry) -> (line text, timestamp)``, and ``prefetch``
    to say which positions it will read next (read in the same batch). See :class:`~.lines.LineSource`
    (where a source has them, ``peek(position)`` gives a line already read, and ``text_tokens(position)``
    a line's tokens, without reading or counting)."""

    def __call__(self, entry: ViewEntry) -> tuple[str, float | None]: ...

    def prefetch(self, positions: Iterable[int]) -> None: ...


@dataclass(frozen=True)
class RecallSpan:
    """Positions ``[start, end)`` of the view recalled for a hit (minus those rendered raw)."""

    start: int
    end: int
    lines: tuple[RecalledLine, ...]
    tokens: int


def _tokens(counter: TokenCounter, text: str) -> int:
    return counter.count_block({"type": "text", "text": text})


def _text_tokens(counter: TokenCounter, text: str) -> int:
    """Tokens of text inside a larger block (no block overhead)."""
    return max(1, _tokens(counter, text) - _block_overhead(counter))  # type: ignore[arg-type]  # counters hash by identity


@lru_cache(maxsize=64)
def _block_overhead(counter: TokenCounter) -> int:
    """Tokens of an empty text block (what a block costs besides its text)."""
    return _tokens(counter, "")


@lru_cache(maxsize=16384)
def _line_cost(participant: str, text: str, counter: TokenCounter) -> int:
    """Tokens of one ``who: text`` line of a transcript (cached: lines are priced several times)."""
    return _text_tokens(counter, f"{participant}: {text}\n")


@lru_cache(maxsize=4096)
def _framing(participant: str, counter: TokenCounter) -> int:
    """What ``who: `` and the line break add to a line's text: ``_line_cost`` of a one-letter text less
    that text's tokens. Added to a text's known tokens (:meth:`Lines.text_tokens`) it prices the line
    without counting it: on the 4,124 LoCoMo turns it is the line's count or one more, never less
    (the count rounds each text up once, the sum twice)."""
    return _line_cost(participant, "x", counter) - _text_tokens(counter, "x")  # type: ignore[arg-type]  # counters hash by identity


@lru_cache(maxsize=8192)
def _cut(text: str, stems: frozenset[str], limit: int, counter: TokenCounter) -> tuple[str, bool]:
    """``text`` within about ``limit`` tokens. With ``stems``: its sentences that hold a query word, the
    ones adding query words not yet shown first, each distinct sentence once; else (or when none
    matches) its opening sentences. A sentence longer than the limit is cut at a word. Cached: the
    planner prices the same lines several times per compile."""
    if _tokens(counter, text) <= limit:
        return text, False
    sentences: list[str] = []
    seen: set[str] = set()
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip()
        if sentence and sentence not in seen:  # a log repeating one line shows it once
            seen.add(sentence)
            sentences.append(sentence)
    covers = [({stem(w) for w in words(s)} & stems) if stems else set() for s in sentences]
    order: list[int] = []
    shown: set[str] = set()
    remaining = [i for i, c in enumerate(covers) if c]
    while remaining:  # greedy: the sentence adding most query words not shown yet, earliest first
        best = max(remaining, key=lambda i: (len(covers[i] - shown), -i))
        if not covers[best] - shown:
            order.extend(sorted(remaining))
            break
        order.append(best)
        shown |= covers[best]
        remaining.remove(best)
    if not order:
        order = list(range(len(sentences)))
    kept: set[int] = set()
    used = 0
    for i in order:
        cost = _text_tokens(counter, sentences[i])
        if used + cost > limit:
            if kept:
                continue
            break
        kept.add(i)
        used += cost
    if not kept:
        first = sentences[order[0]] if sentences else text
        cut = clip_end(first, max(16, limit * 3)).rsplit(" ", 1)[0]  # whole grapheme clusters
        return ("… " if order and order[0] else "") + cut + " …", True
    out: list[str] = []
    for i in sorted(kept):
        if i and (i - 1) not in kept:
            out.append("…")
        out.append(sentences[i])
    if max(kept) < len(sentences) - 1:
        out.append("…")
    return " ".join(out), True


_CALLED = re.compile(r"\[called ([^\s\]\[{]+)")
_RESULT = re.compile(r"\[(?:result|error): ")
_TOOL_KINDS = frozenset({"tool_use", "tool_result", "server_tool_use", "mcp_tool_use", "mcp_tool_result"})


def cut_line(
    text: str, stems: frozenset[str], limit: int, counter: TokenCounter, kinds: Sequence[str] = ()
) -> tuple[str, bool]:
    """:func:`_cut` of a recalled line, the tool markers of a message with tool blocks (``kinds``) kept:
    a cut tool result still opens with ``[result: `` (or ``[error: ``) and closes with ``]``, a result a
    cut left out comes back as ``[result: …]``, and each ``[called NAME`` as ``[called NAME …]``. A
    review found 1,070 of 2,592 results recalled from a Claude Code session reading as the user's words
    once excerpted, and 470 shown without the call they answer (a tool unit is recalled whole or not at
    all)."""
    out, cut = _cut(text, stems, limit, counter)  # type: ignore[arg-type]  # counters hash by identity
    if not cut or _TOOL_KINDS.isdisjoint(kinds) or "[" not in text:
        return out, cut
    opening = _RESULT.match(text)
    if opening is not None:
        if not out.startswith(opening.group(0)):
            out = opening.group(0) + out
        if text.endswith("]") and not out.endswith("]"):
            out += "]"
    cut_away = len(_RESULT.findall(text)) - len(_RESULT.findall(out))
    if cut_away > 0:  # one result per call: those cut away shown as cut
        out += " [result: …]" * cut_away
    missing = [name for name in _CALLED.findall(text) if f"[called {name}" not in out]
    if missing:
        out += " " + " ".join(f"[called {name} …]" for name in dict.fromkeys(missing))
    return out, cut


def plan_spans(
    view: MessageView,
    candidates: Sequence[Candidate],
    allowance: int,
    config: RecallConfig,
    counter: TokenCounter,
    load: Lines,
    raw: Callable[[int], bool],
    pair_tokens: int,
    place: Callable[[int], int] = lambda position: 0,
    sizes: dict[int, int] | None = None,
) -> list[RecallSpan]:
    """The spans to recall within ``allowance`` tokens, in view order.

    Args:
        view: The view compiled.
        candidates: Search hits, best first.
        allowance: Tokens recall may use, pair overhead included.
        config: The recall knobs.
        counter: Token counter.
        load: ``entry -> (line text, timestamp)`` of a message (the reader's view of it), told ahead
            which positions come next.
        raw: True for a position the strategy renders raw (left out of spans).
        pair_tokens: Overhead of one recall pair (marker turn and message framing).
        place: The place in the context a span starting at a position goes to (spans with the same
            place share one recall pair, so only the first one pays ``pair_tokens``).
        sizes: Filled with ``{position: tokens}`` of every entry whose size the plan relied on (all
            it reads of the view besides lengths, ids, kinds and positions): the same plan holds for
            another view of the same messages that gives these positions the same sizes.

    The plan reads little: a hit's size comes from :meth:`MessageView.tokens_of` (its entry is read
    only when the hit may fit), each entry is read once, a group of lines is priced only until it is
    over what is left (it is not taken then, whatever its other lines cost), and a neighbour of one
    text block that will not be cut is neither read nor priced when the view's estimate of it, less
    ``_SLACK``, is over what is left (the rule hits follow): once the allowance is nearly used, the
    neighbours of the remaining hits cost nothing to pass over.
    """
    if allowance <= pair_tokens or not candidates:
        return []
    best = max(c.score for c in candidates)
    floor = best * config.min_score_ratio
    n = len(view)
    hit_tokens, neighbour_tokens = config.hit_tokens, config.neighbour_tokens
    before, after = config.before, config.after
    no_stems: frozenset[str] = frozenset()
    taken: dict[int, RecalledLine] = {}
    places: set[int] = set()
    used = 0
    group_ids = itertools.count()
    known: dict[int, ViewEntry] = {}  # entries read, by position (each read once)
    text_tokens: Callable[[int], int | None] | None = getattr(load, "text_tokens", None)
    overhead = _block_overhead(counter)  # type: ignore[arg-type]  # counters hash by identity

    def entry(p: int) -> ViewEntry:
        found = known.get(p)
        if found is None:
            found = known[p] = view.entry(p)
        return found

    def lines_for(
        positions: range, hit: int, stems: frozenset[str], reply: int = -1, room: int | None = None
    ) -> tuple[list[RecalledLine], int, set[int]]:
        """The lines of ``positions`` (those neither raw nor taken), their cost and the new places they
        open. With ``room``: no lines once the cost is over it (the rest is not read or priced)."""
        lines: list[RecalledLine] = []
        cost = 0
        new_places: set[int] = set()
        group = next(group_ids)
        for p in positions:
            if p in taken or raw(p):
                continue
            e = entry(p)
            text, ts = load(e)
            if not text:
                continue
            limit = hit_tokens if p in (hit, reply) else neighbour_tokens
            size = text_tokens(p) if text_tokens is not None else None
            if size is None:  # not known from the index: counted (the same count, cached by text)
                size = _tokens(counter, text)
            if size <= limit:
                cut = False  # what _cut finds first
                # Priced from the text's count, whether the index knew it or it was counted: the same
                # line costs the same whichever way it was read (the plan stays deterministic).
                cost += max(1, size - overhead) + _framing(e.participant, counter)  # type: ignore[arg-type]
            else:
                text, cut = cut_line(text, stems if p == hit else no_stems, limit, counter, e.kinds)
                cost += _line_cost(e.participant, text, counter)  # type: ignore[arg-type]
            where = place(p)
            if where not in places and where not in new_places:
                new_places.add(where)
                cost += pair_tokens
            if room is not None and cost > room:
                return [], cost, set()  # cannot be taken: the rest is not priced
            lines.append(RecalledLine(p, e.id, e.sequence, e.participant, ts, text, cut, hit, group))
        return lines, cost, new_places

    def take(lines: list[RecalledLine], cost: int, new_places: set[int]) -> bool:
        nonlocal used
        if not lines or used + cost > allowance:
            return False
        used += cost
        places.update(new_places)
        for line in lines:
            taken[line.position] = line
        return True

    def around(pos: int) -> list[int]:
        return [*range(pos - before, pos), *range(pos + 1, pos + 1 + after)]

    def neighbour_too_big(p: int) -> bool:
        """A neighbour of one text block that will not be cut and is bigger than what is left, judged
        by the view's estimate without reading it (as :func:`too_big` judges a hit)."""
        e = entry(p)
        if sizes is not None:
            sizes[p] = e.tokens
        return e.kinds == ("text",) and e.tokens <= neighbour_tokens and e.tokens - _SLACK > allowance - used

    def wanted(pos: int) -> Iterable[int]:
        """The neighbours of ``pos`` worth reading."""
        return (p for p in around(pos) if 0 <= p < n and p not in taken and not raw(p) and not neighbour_too_big(p))

    def add_neighbours(pos: int, cand: Candidate) -> None:
        for p in around(pos):
            if 0 <= p < n and p not in taken and not raw(p):
                if used >= allowance or neighbour_too_big(p):  # it cannot fit: it is not read
                    next(group_ids)  # the group it would have opened (numbers stay those of a full plan)
                    continue
                start, end = unit_bounds(view, p, p + 1)
                take(*lines_for(range(start, end), pos, cand.stems, room=allowance - used))

    def regrow(pos: int, stems: frozenset[str]) -> None:
        """A neighbour cut to its opening turned out to be a hit: cut it to its matching sentences."""
        nonlocal used
        old = taken.pop(pos)
        lines, cost, _ = lines_for(range(pos, pos + 1), pos, stems)
        was = _line_cost(old.participant, old.text, counter)  # type: ignore[arg-type]
        if lines and used + cost - was <= allowance:
            used += cost - was
            taken[pos] = lines[0]
        else:
            taken[pos] = old

    # Pass 1: as many hits as fit, each with the reply when the hit asks a question (the best
    # ``full_windows`` hits with all their neighbours at once).
    chosen: list[tuple[int, Candidate]] = []
    positions: list[int | None] = []  # found a batch at a time: most plans stop long before the last hit
    hit_size: dict[int, int] = {}
    peek: Callable[[int], tuple[str, float | None] | None] | None = getattr(load, "peek", None)
    questions: list[int] = []  # hits of the batch being read, whose replies are asked for once it is read

    def too_big(pos: int, message_id: str) -> bool:
        """A hit that will not be cut and is bigger than what is left (judged by the view's estimate,
        without reading its entry): most candidates once the allowance is nearly used."""
        size = hit_size.get(pos)
        if size is None:
            size = view.tokens_of(message_id)
            if size is None:  # a view that cannot tell without the position
                size = entry(pos).tokens
            hit_size[pos] = size
            if sizes is not None:
                sizes[pos] = size
        return size <= hit_tokens and size - _SLACK > allowance - used and pos not in taken

    for k, cand in enumerate(candidates):
        if cand.score < floor or allowance - used < _SLACK:
            break
        if k % _BATCH == 0:  # the next hits are read in one batch (then the replies that questions ask for)
            batch = candidates[k : k + _BATCH]
            found = [view.index_of(c.message_id) for c in batch]
            positions.extend(found)
            ahead = [
                p
                for p, c in zip(found, batch, strict=True)
                if p is not None and not raw(p) and not too_big(p, c.message_id)
            ]
            load.prefetch(ahead)
            if after and peek is None:
                load.prefetch(p + 1 for p in ahead)
            questions = ahead if after and peek is not None else []
        pos = positions[k]
        if pos is None or raw(pos) or too_big(pos, cand.message_id):
            continue
        already = pos in taken  # brought in as another hit's neighbour: still a hit, with its own reply
        if already and taken[pos].excerpt:
            regrow(pos, cand.stems)
        end = pos + 1
        if after and end < n:
            text = load(entry(pos))[0]
            if questions and peek is not None:  # the batch is read: its questions' replies come next
                load.prefetch(p + 1 for p in questions if "?" in (peek(p) or ("",))[0])
                questions = []
            if "?" in text:
                end += 1
        start, end = unit_bounds(view, pos, end)
        room = allowance - used
        if take(*lines_for(range(start, end), pos, cand.stems, pos + 1 if end > pos + 1 else -1, room)) or already:
            chosen.append((pos, cand))
            if len(chosen) <= config.full_windows:
                load.prefetch(wanted(pos))
                add_neighbours(pos, cand)
    # Pass 2: the chosen hits' neighbours, best hit first, while they fit (tool units whole).
    rest = chosen[config.full_windows :]
    for k, (pos, cand) in enumerate(rest):
        if used >= allowance:
            break  # nothing more fits
        if k % _BATCH == 0:
            load.prefetch(q for p, _ in rest[k : k + _BATCH] for q in wanted(p))
        add_neighbours(pos, cand)
    out: list[RecallSpan] = []
    run: list[RecalledLine] = []
    for p in sorted(taken):
        if run and run[-1].position + 1 != p:
            out.append(RecallSpan(run[0].position, run[-1].position + 1, tuple(run), 0))
            run = []
        run.append(taken[p])
    if run:
        out.append(RecallSpan(run[0].position, run[-1].position + 1, tuple(run), 0))
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
            # (A cut marker the message quotes is opened as in the rest of the context: read as a cut there.)
            out.append(f"{line.participant}: {quote_text(line.text)}")
        previous_end = span.end
    return "\n".join(out)
