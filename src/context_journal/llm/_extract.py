"""Candidate fragments and their scores for the offline summarizer (:mod:`.offline`).

Every fragment is a slice of a string of the request (a text block, a tool-result text, a tool
input's value, a tool name or key) or, for a non-string tool input value, its JSON form: nothing is
rewritten, so a digest built from fragments never says anything the conversation did not.

**Units.** Text is cut into units at line breaks, then at sentence ends (``.``, ``!`` or ``?``
followed by space and a capital, digit or opening quote), and units longer than
:data:`MAX_UNIT_CHARS` at the last space before the limit. List markers, heading marks, line
numbers (``  12→``), ``**`` and enclosing tags (``<command-name>``) are trimmed from a unit's ends;
``<system-reminder>`` blocks (text a harness injects into user turns) and code-fence lines are
skipped; units with fewer than 2 letters or digits or 4 characters are dropped. Of a tool result
only the first :data:`RESULT_SCAN_HEAD` and last :data:`RESULT_SCAN_TAIL` lines are read. A tool
call is one unit: its name and up to :data:`MAX_CALL_ARGS` key arguments (first line of a string
value, at most :data:`MAX_ARG_CHARS` characters cut at a space; bulky arguments such as
``old_string`` or ``content`` only when short).

**Score** of a unit (weights set by hand, checked by the retention test in ``tests/llm``; cues and
concepts are defined in :mod:`._features`)::

    gain  = ROLE_WEIGHT[kind] + 2 * recency        (0 for the first turn summarised, 1 for the last)
          + cues                                   (error 3, decision/constraint 2, question 2,
                                                    content words, minus a social-formula penalty)
          + sum over concept kinds of weight * min(new concepts of that kind, cap)
                  paths 4 (cap 3), identifiers 2 (3), numbers 1 (3), dates 2 (2), names 1 (2)
    rank  = gain / sqrt(max(tokens, 8))             (dense facts first; long units pay for length)

A concept is *new* when no unit chosen before holds it (see :func:`.offline._select`), so the digest
covers many distinct paths and numbers instead of repeating one. Cues and concepts of a code line
in a tool result count :data:`CODE_FACTOR` times. My own words or thoughts with neither cue nor
concept under :data:`MIN_PLAIN_TOKENS` tokens are not candidates. Tool results contribute only
lines with a cue or concept, at most :data:`MAX_RESULT_LINES` per result (the best); an error
result always offers its first line. Equal fragments keep only their best-scoring occurrence.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..content import Block
from ..tokens import estimate_text_tokens
from ._features import Concept, analyse, concept_weight
from .types import LLMMessage

__all__ = [
    "MAX_ARG_CHARS",
    "MAX_CALL_ARGS",
    "MAX_RESULT_LINES",
    "MAX_UNIT_CHARS",
    "ROLE_WEIGHT",
    "Unit",
    "extract_units",
    "split_spans",
]

MAX_UNIT_CHARS = 320
"""Longest unit in characters; longer sentences are cut at a space."""
MAX_CALL_ARGS = 3
"""Key arguments shown per tool call."""
MAX_ARG_CHARS = 120
"""Longest argument value shown, in characters."""
MAX_RESULT_LINES = 4
"""Most lines one tool result contributes."""
MIN_PLAIN_TOKENS = 6
"""My own words with no cue and no concept are candidates only from this many tokens ("Good." is not)."""
MIN_RANK_TOKENS = 8
"""Units shorter than this are ranked as if this long, in tokens."""
CODE_FACTOR = 0.5
"""Salience multiplier of a tool-result line that is code: numbered (``cat -n``, Claude Code's Read
output) or at least 15% of its characters brackets, operators and the like."""
RESULT_SCAN_HEAD = 40
RESULT_SCAN_TAIL = 20
"""Lines of a tool result that are read: the first 40 and the last 20 (compiler errors come first,
test and build summaries last; the middle of a long file read or log is not remembered)."""

ROLE_WEIGHT = {"user": 4.0, "error": 3.0, "said": 2.0, "call": 1.0, "result": 0.0, "thought": -1.0}
"""Base score by what the unit is: the user's words first, then errors, my own words, my calls."""

LABELS = {
    "user": "The user said:",
    "said": "I said:",
    "thought": "I thought:",
    "call": "I called:",
    "result": "Results:",
    "error": "Errors:",
}
"""Fixed connective labels; the only words of a digest not taken from the input."""

_ARG_PRIORITY = (
    "file_path",
    "path",
    "notebook_path",
    "command",
    "pattern",
    "query",
    "url",
    "description",
    "subagent_type",
    "name",
    "id",
    "skill",
    "glob",
)
_BULKY_ARGS = frozenset({"old_string", "new_string", "content", "text", "code", "prompt", "plan", "todos"})

_SKIP_REGION = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.S)
_LINE = re.compile(r"[^\n]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'`(\[]?[A-Z0-9])")
_LEAD = re.compile(r"(?:\s+|\d+(?:→|\t)|(?:[-*+•>]|\d{1,3}[.)]|#{1,6})\s+|(?:<[^<>\n]{1,40}>)+|\*\*)+")
_NUMBERED = re.compile(r"\s*\d+(?:→|\t)")
_CODE_CHARS = frozenset("{}()[];=<>|&$\\")
_TAG = re.compile(r"</?[^<>\n]{1,40}>")
_ALNUM = re.compile(r"\w.*?\w", re.S)


@dataclass(slots=True)
class Unit:
    """A candidate fragment (or a tool call) of the digest.

    Attributes:
        kind: A key of :data:`LABELS`.
        fragments: Verbatim pieces: ``(text,)`` for text, ``(name, key, value, ...)`` for a call.
        rendered: How the unit reads in the digest.
        message_index: Index of the source message in the request.
        order: Position in the conversation (for chronological output and ties).
        tokens: Estimated tokens of ``rendered``.
        base: The part of the score that does not depend on what else is chosen (role, cues, recency).
        concepts: The distinct concepts (paths, identifiers, numbers, dates, names) of the unit.
        salience: Cues plus concept weights, the unit's value on its own (module docstring).
        label: The line label (``"ann said:"`` for a named user turn, else from :data:`LABELS`).
        factor: Multiplier of the cue and concept parts (:data:`CODE_FACTOR` for code lines, else 1).
    """

    kind: str
    fragments: tuple[str, ...]
    rendered: str
    message_index: int
    order: int
    tokens: int
    base: float
    concepts: tuple[Concept, ...]
    salience: float
    label: str
    factor: float = 1.0

    def gain(self, covered: set[Concept] | frozenset[Concept] = frozenset()) -> float:
        """The score given the concepts ``covered`` so far (all of it when nothing is covered)."""
        return self.base + self.factor * concept_weight(self.concepts, covered)

    def rank(self, covered: set[Concept] | frozenset[Concept] = frozenset()) -> float:
        """Selection priority given the concepts ``covered`` so far: gain per square root of tokens."""
        return self.gain(covered) / math.sqrt(max(self.tokens, MIN_RANK_TOKENS))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Offsets of ``text[start:end]`` without list markers, tags, ``**`` and spaces at its ends."""
    m = _LEAD.match(text, start, end)
    if m:
        start = m.end()
    while end > start:
        ch = text[end - 1]
        if ch.isspace():
            end -= 1
        elif ch == "*" and text.startswith("**", end - 2, end) and end - 2 >= start:
            end -= 2
        elif ch == ">":
            j = text.rfind("<", max(start, end - 42), end - 1)
            if j < 0 or not _TAG.fullmatch(text, j, end):
                break
            end = j
        else:
            break
    return start, end


def split_spans(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` offsets of the units of ``text`` (rules in the module docstring)."""
    skipped = [(m.start(), m.end()) for m in _SKIP_REGION.finditer(text)]
    pieces: list[tuple[int, int]] = []
    pos = 0
    for a, b in skipped:
        pieces.append((pos, a))
        pos = b
    pieces.append((pos, len(text)))
    for pa, pb in pieces:
        for line in _LINE.finditer(text, pa, pb):
            ls, le = line.span()
            if text.startswith("```", ls, le) or text[ls:le].lstrip().startswith("```"):
                continue
            starts = [ls] + [m.end() for m in _SENTENCE_END.finditer(text, ls, le)]
            ends = [*starts[1:], le]
            for s0, e0 in zip(starts, ends, strict=True):
                s, e = _trim(text, s0, e0)
                while e - s > MAX_UNIT_CHARS:
                    cut = text.rfind(" ", s, s + MAX_UNIT_CHARS)
                    if cut <= s:
                        cut = s + MAX_UNIT_CHARS
                    cs, ce = _trim(text, s, cut)
                    if _ALNUM.search(text, cs, ce) and ce - cs >= 4:
                        yield cs, ce
                    s, e = _trim(text, cut, e)
                if e - s >= 4 and _ALNUM.search(text, s, e):
                    yield s, e


def _short(value: str) -> str:
    """The first line of ``value``, cut at a space to at most :data:`MAX_ARG_CHARS` characters."""
    line = value.strip()
    nl = line.find("\n")
    if nl >= 0:
        line = line[:nl].rstrip()
    if len(line) > MAX_ARG_CHARS:
        cut = line.rfind(" ", 0, MAX_ARG_CHARS)
        line = line[: cut if cut > MAX_ARG_CHARS // 2 else MAX_ARG_CHARS].rstrip()
    return line


def call_fragments(name: str, args: dict[str, Any]) -> tuple[str, ...]:
    """``(name, key, value, ...)`` for a tool call: up to :data:`MAX_CALL_ARGS` key arguments, keys in
    :data:`_ARG_PRIORITY` order first; bulky arguments only when short and single-line."""
    keys = sorted(
        args,
        key=lambda k: (_ARG_PRIORITY.index(k) if k in _ARG_PRIORITY else len(_ARG_PRIORITY), list(args).index(k)),
    )
    out: list[str] = [name]
    for key in keys:
        value = args[key]
        if isinstance(value, str):
            if key in _BULKY_ARGS and (len(value) > 80 or "\n" in value.strip()):
                continue
            text = _short(value)
        elif isinstance(value, bool | int | float):
            text = json.dumps(value)
        else:
            continue
        if not text:
            continue
        out += [key, text]
        if len(out) >= 1 + 2 * MAX_CALL_ARGS:
            break
    return tuple(out)


def render_call(fragments: tuple[str, ...]) -> str:
    """``name(key: value, key: value)``, or ``name`` alone."""
    name, rest = fragments[0], fragments[1:]
    if not rest:
        return name
    args = ", ".join(f"{rest[i]}: {rest[i + 1]}" for i in range(0, len(rest), 2))
    return f"{name}({args})"


def _result_text(block: Block) -> str:
    content = getattr(block, "content", "")
    if isinstance(content, str):
        return content
    return "\n".join(getattr(b, "text", "") for b in content if getattr(b, "type", "") == "text")


def _is_code(text: str, start: int, frag: str) -> bool:
    """Whether the line holding ``frag`` (at ``start`` in ``text``) is code (see :data:`CODE_FACTOR`)."""
    line_start = text.rfind("\n", 0, start) + 1
    if _NUMBERED.match(text, line_start, start + 1):
        return True
    return sum(1 for ch in frag if ch in _CODE_CHARS) >= 0.15 * len(frag)


def _scan_window(text: str) -> str:
    """``text`` without the middle lines beyond :data:`RESULT_SCAN_HEAD` + :data:`RESULT_SCAN_TAIL`.

    The two parts are joined by a line break, so no unit spans the gap and every unit is still a
    slice of the original.
    """
    head = 0
    for _ in range(RESULT_SCAN_HEAD):
        nl = text.find("\n", head)
        if nl < 0:
            return text
        head = nl + 1
    tail = len(text)
    for _ in range(RESULT_SCAN_TAIL):
        nl = text.rfind("\n", 0, tail)
        if nl < head:
            return text
        tail = nl
    return text[:head] + text[tail + 1 :]


def extract_units(messages: list[LLMMessage], start: int, end: int) -> list[Unit]:
    """Scored candidate units of ``messages[start:end]``, deduplicated, in conversation order.

    Args:
        messages: The request's messages.
        start: First message to summarise.
        end: One past the last message to summarise.

    Returns:
        The candidates (see the module docstring for what qualifies).
    """
    span = max(1, end - start - 1)
    units: list[Unit] = []
    order = 0

    def add(
        kind: str,
        fragments: tuple[str, ...],
        rendered: str,
        index: int,
        label: str,
        analysis: tuple[float, tuple[Concept, ...]] | None = None,
        factor: float = 1.0,
    ) -> None:
        nonlocal order
        cues, concepts = analysis if analysis is not None else analyse(rendered)
        sal = factor * (cues + concept_weight(concepts, frozenset()))
        tokens = estimate_text_tokens(rendered)
        if kind in ("said", "thought") and sal == 0 and tokens < MIN_PLAIN_TOKENS:
            return  # "Good.", "Now let me check." carry nothing a later turn needs
        base = ROLE_WEIGHT[kind] + factor * cues + 2.0 * (index - start) / span
        units.append(Unit(kind, fragments, rendered, index, order, tokens, base, concepts, sal, label, factor))
        order += 1

    for index in range(start, end):
        msg = messages[index]
        user = msg.role == "user"
        for block in msg.content:
            kind = block.type
            if kind in ("text", "thinking"):
                text = getattr(block, "text", None) if kind == "text" else getattr(block, "thinking", "")
                unit_kind = ("user" if user else "said") if kind == "text" else "thought"
                label = f"{msg.name} said:" if (user and kind == "text" and msg.name) else LABELS[unit_kind]
                for s, e in split_spans(text or ""):
                    frag = text[s:e] if text else ""
                    add(unit_kind, (frag,), frag, index, label)
            elif kind == "tool_use":
                frags = call_fragments(getattr(block, "name", ""), getattr(block, "input", {}))
                rendered = render_call(frags)
                add("call", frags, rendered, index, LABELS["call"])
            elif kind == "tool_result":
                text = _scan_window(_result_text(block))
                is_error = bool(getattr(block, "is_error", False))
                unit_kind = "error" if is_error else "result"
                lines: list[tuple[float, int, str, tuple[float, tuple[Concept, ...]], float]] = []
                for n, (s, e) in enumerate(split_spans(text)):
                    frag = text[s:e]
                    analysis = analyse(frag)
                    factor = CODE_FACTOR if _is_code(text, s, frag) else 1.0
                    sal = factor * (analysis[0] + concept_weight(analysis[1], frozenset()))
                    if sal > 0 or (is_error and n == 0):
                        lines.append((sal, n, frag, analysis, factor))
                best = sorted(lines, key=lambda t: (-t[0], t[1]))[:MAX_RESULT_LINES]
                for _, _, frag, analysis, factor in sorted(best, key=lambda t: t[1]):
                    add(unit_kind, (frag,), frag, index, LABELS[unit_kind], analysis, factor)
    # Equal fragments: keep the best-scoring occurrence.
    best_of: dict[tuple[str, str], Unit] = {}
    for u in units:
        key = (u.kind, u.rendered)
        if key not in best_of or u.gain() > best_of[key].gain():
            best_of[key] = u
    kept = {id(u) for u in best_of.values()}
    return [u for u in units if id(u) in kept]
