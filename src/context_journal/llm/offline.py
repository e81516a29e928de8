"""The offline summarizer: the embedded default provider (no network, no weights, deterministic).

:class:`OfflineSummarizer` answers a summarisation request with an **extractive** digest written
from the agent's side: fixed labels (``The user said:``, ``I said:``, ``I called:``,
``Results:``, ``Errors:``, ``I thought:``, or ``<name> said:`` for a named user turn) followed by
fragments copied verbatim from the request. A tool call reads ``Name(key: value, ...)`` with its
arguments kept compactly: long strings clipped, the clipping marked with what it left out and the
names it held (``old_string: def foo(x) do… [clipped 1,234 chars; names: load_user]``), lists and
dicts flattened to ``[key: value, ...]``, absolute paths as ``…/`` and their last parts. Nothing else
is written, so the digest can leave things out but never invents them. Which fragments are
candidates and how they are scored is documented in :mod:`context_journal.llm._extract`.

**What is summarised.** ``request.metadata["summarize_range"] = [start, end)`` names the messages to
summarise; the others are context (the head, earlier summaries) and are not repeated. Without it,
every message is summarised except the last one when it is a user turn of text only and
``metadata["instruction_last"]`` is not False: that turn is taken as the instruction (as is the
system prompt).

**How long.** The target in tokens (:func:`~context_journal.tokens.estimate_text_tokens`) is
``metadata["target_tokens"]``, else the first "N tokens" / "N words" (words × 4/3, OpenAI's rule of
thumb of 3/4 word per token) in the instruction or system prompt, else ``max_tokens``; it never
exceeds ``max_tokens``.

**Which units.** Greedy maximum coverage (as in Gillick and Favre, "A Scalable Global Model for
Summarization", 2009): repeatedly take the unit of highest rank that still fits, where a unit's
rank counts only the concepts (paths, identifiers, numbers, dates, names) that the units taken
before it do not hold yet, each weighted by how often the text summarised mentions it. A call's
argument is taken only with its call (priced together until the call is in). The chosen units are
emitted in conversation order, consecutive units with the same label sharing a line. A merge's
digest reads the earlier digests line by line, keeping each line's label, so calls stay calls. If
the rendered digest still exceeds the target (the estimate is not additive over pieces), the
last-chosen units are dropped until it fits. When not even the best unit fits, its longest prefix
that fits (cut at a space, else between two grapheme clusters) is used.

**Cuts.** Every place the digest shortens text (a unit's ends, a long sentence, a clipped argument, the
prefix above) cuts between grapheme clusters (:mod:`context_journal._graphemes`): an emoji with its
joiners, a flag or a letter with its combining marks is kept whole or left out, never split.
"""

from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

from .._graphemes import clip_end
from ..content import TextBlock, block_to_dict
from ..tokens import EstimatingCounter, estimate_text_tokens
from ._extract import MIN_RANK_TOKENS, Unit, extract_units, render_call
from ._features import Concept
from .types import LLMRequest, LLMResponse, Usage

__all__ = ["EMPTY_DIGEST", "Digest", "DigestLine", "OfflineSummarizer", "summarize_request", "target_tokens"]

EMPTY_DIGEST = "(nothing to summarise)"
"""Fixed text answered when the messages hold no text at all (e.g. only images)."""

_TARGET = re.compile(r"(\d[\d,]*)\s*(tokens|words)\b", re.I)


@dataclass(frozen=True)
class DigestLine:
    """One line of a digest.

    Attributes:
        label: The fixed label (or ``"<name> said:"``).
        kind: What the fragments are (``"user"``, ``"said"``, ``"call"``, ``"result"``, ``"error"``,
            ``"thought"``).
        fragments: The verbatim pieces in order (a call contributes ``name, key, value...``).
        text: The rendered line.
    """

    label: str
    kind: str
    fragments: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class Digest:
    """An extractive digest.

    Attributes:
        lines: The lines in conversation order.
        target_tokens: The size aimed at, in estimated tokens.
        candidates: How many candidate units there were.
        range: The ``[start, end)`` message indices summarised.
    """

    lines: tuple[DigestLine, ...]
    target_tokens: int
    candidates: int
    range: tuple[int, int]
    text: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", "\n".join(line.text for line in self.lines) or EMPTY_DIGEST)

    @property
    def fragments(self) -> list[str]:
        """Every verbatim fragment of the digest, in order."""
        return [f for line in self.lines for f in line.fragments]

    @property
    def tokens(self) -> int:
        """Estimated tokens of :attr:`text`."""
        return estimate_text_tokens(self.text)


def _instruction_text(request: LLMRequest, end: int) -> str:
    parts = [request.system_text]
    if end < len(request.messages):
        last = request.messages[-1]
        parts += [b.text for b in last.content if isinstance(b, TextBlock)]
    return "\n".join(parts)


def summary_range(request: LLMRequest) -> tuple[int, int]:
    """The ``[start, end)`` message indices to summarise (rules in the module docstring)."""
    n = len(request.messages)
    raw = request.metadata.get("summarize_range")
    if raw is not None:
        start, end = int(raw[0]), int(raw[1])
        return max(0, min(start, n)), max(0, min(end, n))
    last = request.messages[-1]
    if (
        n > 1
        and last.role == "user"
        and request.metadata.get("instruction_last", True) is not False
        and all(b.type == "text" for b in last.content)
    ):
        return 0, n - 1
    return 0, n


def target_tokens(request: LLMRequest) -> int:
    """The digest's target size in tokens (rules in the module docstring)."""
    _, end = summary_range(request)
    value: Any = request.metadata.get("target_tokens")
    if value is None:
        m = _TARGET.search(_instruction_text(request, end))
        if m:
            n = int(m.group(1).replace(",", ""))
            value = n * 4 // 3 if m.group(2).lower() == "words" else n
    target = int(value) if value is not None else request.max_tokens
    return max(1, min(target, request.max_tokens))


_LABELLED = re.compile(r"^(?:The user said|I said|I called|Results|Errors|I thought|\S{1,60} said):")


def _call_body(run: list[Unit]) -> str:
    """Calls of a run joined by ``"; "``, each head with its chosen arguments inside its parentheses."""
    calls: list[tuple[Unit, list[str]]] = []
    for u in run:
        if u.head is not None and calls and calls[-1][0] is u.head:
            calls[-1][1].append(u.rendered)
        else:
            calls.append((u, []))
    return "; ".join(render_call(head.rendered, args) for head, args in calls)


def _group(units: list[Unit]) -> list[DigestLine]:
    lines: list[DigestLine] = []
    run: list[Unit] = []

    def flush() -> None:
        if not run:
            return
        head = run[0]
        body = _call_body(run) if head.kind == "call" else " ".join(u.fragments[0] for u in run)
        frags = tuple(f for u in run for f in u.fragments)
        # A merge summarises earlier digests, whose sentences already open with a label: keep one label.
        text = body if _LABELLED.match(body) else f"{head.label} {body}"
        lines.append(DigestLine(head.label, head.kind, frags, text))
        run.clear()

    for u in units:
        if run and u.label != run[0].label:
            flush()
        run.append(u)
    flush()
    return lines


def _prefix_unit(unit: Unit, budget: int) -> Unit | None:
    """``unit`` cut to its longest prefix (at a space) whose line fits ``budget`` tokens (a tool call
    keeps only its name)."""
    text = unit.fragments[0]
    label_cost = estimate_text_tokens(unit.label) + 1
    lo, hi, best = 1, len(text), ""
    while lo <= hi:
        mid = (lo + hi) // 2
        cut = text.rfind(" ", 0, mid + 1)
        piece = clip_end(text, cut if cut > 0 else mid).rstrip()  # whole grapheme clusters
        if piece and estimate_text_tokens(piece) + label_cost <= budget:
            best, lo = piece, mid + 1
        else:
            hi = mid - 1
    if not best:
        return None
    return replace(unit, fragments=(best,), rendered=best, tokens=estimate_text_tokens(best))


def _select(units: list[Unit], target: int) -> list[Unit]:
    """Greedy coverage selection: repeatedly take the unit of highest rank *given the concepts
    already covered* that still fits ``target`` tokens.

    Gains only shrink as concepts get covered, so the lazy greedy algorithm (Minoux, 1978) is exact
    here: a unit whose re-computed rank still beats the best stale rank is taken. Ties go to the
    earlier unit. An argument of a tool call is shown only with its call's head, and competes only
    once the head is taken (so a call's file is kept before its bulky text), then at its own cost;
    when the head shows nothing but the tool's name, the argument competes from the start, priced
    and valued together with the head (taking it takes the head). Returns the units in
    the order they were chosen (best first; a head before its arguments).
    """
    covered: set[Concept] = set()
    chosen: list[Unit] = []
    taken: set[int] = set()
    args_of: dict[int, list[int]] = {}
    for i, u in enumerate(units):
        if u.head is not None:
            args_of.setdefault(id(u.head), []).append(i)
    total = 0

    def price(unit: Unit) -> tuple[float, int]:
        """(rank, cost in tokens) of taking ``unit`` now."""
        cost = unit.tokens + 2  # a separator, and on average part of a label
        gain = unit.gain(covered)
        head = unit.head
        if head is not None and id(head) not in taken:
            cost += head.tokens + 2
            gain = head.gain(covered) + unit.gain(covered | set(head.concepts))
        return gain / math.sqrt(max(cost, MIN_RANK_TOKENS)), cost

    def waits(unit: Unit) -> bool:
        """An argument of a call whose head shows something of its own waits for the head."""
        return unit.head is not None and id(unit.head) not in taken and bool(unit.head.concepts)

    heap = [(-price(u)[0], u.order, i) for i, u in enumerate(units) if not waits(u)]
    heapq.heapify(heap)
    while heap:
        _, order, i = heapq.heappop(heap)
        unit = units[i]
        if id(unit) in taken or waits(unit):
            continue
        fresh, cost = price(unit)
        if total + cost > target:
            continue
        if heap and fresh < -heap[0][0]:
            heapq.heappush(heap, (-fresh, order, i))
            continue
        new = [unit] if unit.head is None or id(unit.head) in taken else [unit.head, unit]
        for u in new:
            chosen.append(u)
            taken.add(id(u))
            covered.update(u.concepts)
        total += cost
        # A head just taken makes its arguments cheaper: rank them again (also those that did not fit).
        for j in args_of.get(id(new[0]), []) if new[0].head is None else []:
            if id(units[j]) not in taken:
                heapq.heappush(heap, (-price(units[j])[0], units[j].order, j))
    return chosen


def summarize_request(request: LLMRequest) -> Digest:
    """The extractive digest of ``request`` (what :class:`OfflineSummarizer` answers).

    Args:
        request: A summarisation request (module docstring).

    Returns:
        The digest; ``digest.text`` is the answer's text.
    """
    start, end = summary_range(request)
    target = target_tokens(request)
    units = extract_units(request.messages, start, end)
    chosen = _select(units, target)
    chosen_ids = {id(u) for u in chosen}
    lines = _group([u for u in units if id(u) in chosen_ids])
    # The estimate is not additive over pieces; drop the lowest-ranked until the rendering fits.
    while chosen and estimate_text_tokens("\n".join(line.text for line in lines)) > target:
        dropped = chosen.pop()  # a head's arguments were chosen after it, so they go first
        chosen_ids.discard(id(dropped))
        lines = _group([u for u in units if id(u) in chosen_ids])
    heads = [u for u in units if u.head is None]
    if not chosen and heads:
        cut = _prefix_unit(max(heads, key=lambda u: (u.rank(), -u.order)), target)
        lines = _group([cut]) if cut is not None else []
    return Digest(tuple(lines), target, len(units), (start, end))


class OfflineSummarizer:
    """A :class:`~context_journal.llm.Provider` that writes extractive digests locally.

    Deterministic (same request, same bytes), no network, no model weights. Rules: module docstring.

    Args:
        model: The name reported as the answering model.
        counter: Token counter for the reported input usage (default :class:`EstimatingCounter`).
    """

    name = "offline"

    def __init__(self, model: str = "offline-extractive-1", *, counter: EstimatingCounter | None = None) -> None:
        self.model = model
        self._counter = counter or EstimatingCounter()

    def summarize(self, request: LLMRequest) -> Digest:
        """The digest itself, with its lines and verbatim fragments (see :func:`summarize_request`)."""
        return summarize_request(request)

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer ``request`` with its digest.

        Args:
            request: A summarisation request.

        Returns:
            One text block, ``stop_reason="end_turn"``, estimated usage in tokens.
        """
        digest = summarize_request(request)
        input_tokens = estimate_text_tokens(request.system_text) + sum(
            self._counter.count_message(m.role, [block_to_dict(b) for b in m.content]) for m in request.messages
        )
        return LLMResponse(
            content=[TextBlock(text=digest.text)],
            stop_reason="end_turn",
            usage=Usage(input_tokens=input_tokens, output_tokens=digest.tokens),
            model=request.model or self.model,
            id=f"offline_{request.fingerprint()[:24]}",
            provider=self.name,
        )
