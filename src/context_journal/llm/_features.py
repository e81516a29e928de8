"""Salient features of a text unit for the offline summarizer: cues and concepts.

**Cues** add to a unit's score once each: an error cue (error, failed, fix, cannot, not found...)
3, a decision or constraint cue (decided, instead, must, should, never, only, prefer...) 2, each
distinct content word (4+ letters, not a stopword and not a cue) :data:`CONTENT_WORD_WEIGHT` up to
:data:`CONTENT_WORD_CAP` words; a unit opening with a social formula ("Thanks", "Wow", "Sounds
good", "OK") loses :data:`PHATIC_PENALTY`. A question gets no bonus: digests that favoured questions
were a third questions where the conversations they summarised were a tenth.

**Concepts** are the facts a later turn looks up, each ``(kind, text)``: paths (``/a/b``,
``src/x.py``, ``name.ext`` with a known extension), identifiers (snake_case, camelCase, CamelCase,
dotted module names, prefixed ids such as ``toolu_``/``call_``/``msg_``, hex hashes of 7+ digits,
upper-case codes mixing letters and digits such as booking references), numbers, dates and times
(ISO, "7 May 2023", "May 7", "10:30 pm", weekdays, "yesterday"), and names (a capitalised word
after a lower-case word). Their weights (:data:`CONCEPT_WEIGHTS`) count only concepts not already
covered by the units chosen before, which is what makes the selection favour distinct facts.

**Recurrence.** A concept mentioned by many units of the text summarised (a file edited four times,
a function named in a call, its result and the next turn) is what the work was about: its weight is
multiplied by :func:`recurrence_boost` of its mention count (paths are counted by file name, so
``lib/a.ex`` and ``/abs/lib/a.ex`` are one item).
"""

from __future__ import annotations

import functools
import math
import re

from .._graphemes import ceil_boundary

__all__ = [
    "CONCEPT_WEIGHTS",
    "CONTENT_WORD_CAP",
    "CONTENT_WORD_WEIGHT",
    "PHATIC_PENALTY",
    "RECURRENCE_MAX",
    "RECURRENCE_WEIGHT",
    "Concept",
    "analyse",
    "concept_key",
    "concept_weight",
    "named_items",
    "recurrence_boost",
    "salience",
]

CONTENT_WORD_WEIGHT = 0.1
"""Added per distinct content word (4+ letters, not a stopword, not a cue)."""
CONTENT_WORD_CAP = 8
"""Most content words counted per unit."""
PHATIC_PENALTY = 2.0
"""Taken off a unit that opens with a social formula ("Thanks", "Wow", "Sounds great", "OK")."""

RECURRENCE_WEIGHT = 0.5
"""A concept mentioned ``n`` times weighs ``1 + RECURRENCE_WEIGHT * log2(n)`` times its kind's weight."""
RECURRENCE_MAX = 2.5
"""Most a recurrence multiplier reaches (8 mentions at the default weight)."""

Concept = tuple[str, str]
"""A salient feature occurrence: ``(kind, text)``, e.g. ``("path", "src/app.py")``."""

_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
_FEATURES = re.compile(
    # Every feature starts where no word character precedes it: the guard fails fast inside words.
    r"(?<!\w)(?:"
    r"(?P<path>(?:~|\.{1,2})?/(?:[\w.@+-]+/)*[\w@+-][\w.@+-]*|\b[\w.-]+/[\w.@+-]+(?:/[\w.@+-]+)*"
    r"|\b[\w-]+\.(?:py|pyi|ex|exs|heex|eex|js|jsx|ts|tsx|rs|go|rb|java|kt|c|h|cc|cpp|hpp|cs|swift|md|rst|txt"
    r"|json|jsonl|toml|yaml|yml|ini|cfg|sql|sh|html|css|scss|lock|csv|xml|proto|db|log)\b)"
    r"|(?P<date>\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?|\b" + _MONTH + r"\s+\d{1,2}(?:,?\s+\d{4})?\b"
    r"|\b\d{1,2}\s+" + _MONTH + r"(?:\s+\d{4})?\b|\b\d{1,2}:\d{2}\s*(?:[ap]\.?m\.?)?"
    r"|\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b"
    r"|(?i:\b(?:yesterday|today|tomorrow|tonight|last (?:week|month|year)|next (?:week|month|year))\b))"
    r"|(?P<id>\b(?:toolu|srvtoolu|call|msg|req|chatcmpl|run|resp)_\w+|\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b"
    r"|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[A-Z]\w*(?:\.[A-Z]\w*)+\b"
    r"|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b|\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{5,10}\b)"
    r"|(?P<number>\b\d+(?:[.,]\d+)*%?)"
    r"|(?P<error>(?i:\b(?:errors?|exceptions?|traceback|fail(?:s|ed|ure|ures|ing)?|bugs?|broken|crash(?:es|ed)?"
    r"|fix(?:es|ed)?|cannot|can't|couldn't|unable|denied|invalid|not found|undefined|missing|warning"
    r"|time[d ]?out|panic|wrong)\b))"
    r"|(?P<decision>(?i:\b(?:decid\w*|decision|chose|choose|will|going to|plan(?:s|ned)?|instead|switch\w*|must"
    r"|should|need(?:s|ed)? to|have to|don't|do not|never|always|only|prefer\w*|requir\w*|constraint\w*"
    r"|make sure|ensure|important|remember|approach)\b))"
    r"|(?P<name>(?<=[a-z,;:] )[A-Z][a-z]{2,}\b)"
    r"|(?P<word>[A-Za-z][a-z]{3,}\b))"
)
_PHATIC = re.compile(
    r"(?i:thanks|thank you|thx|wow|congrats|congratulations|glad|great|awesome|cool|nice|good|perfect|haha|lol"
    r"|hey|hi|hello|sounds|ok|okay|sure|yay|aww|oh|ah|yeah|yes|no worries|exactly|absolutely|totally)\b"
)
_STOPWORD_TEXT = (
    "about above after again also back been before being below between both came come could does doing down"
    " during each even from further have having here hers herself himself into itself just know like made make"
    " many more most much myself once other ours ourselves over really same said says some such than that their"
    " theirs them themselves then there these they thing things think this those through very want well went"
    " were what when where which while whom with would your yours yourself yourselves"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
CONCEPT_WEIGHTS = {"path": (4.0, 3), "id": (2.0, 3), "number": (1.0, 3), "date": (2.0, 2), "name": (1.0, 2)}
"""Concept kind → (weight, most counted per unit); paths weigh most because a coding agent's later
turns need them most (checked by the retention test in ``tests/llm``)."""
_FLAGS = {"error": 3.0, "decision": 2.0}


def concept_key(concept: Concept) -> str:
    """What recurrences of ``concept`` are counted by: a path's file name, else the concept's text."""
    kind, text = concept
    if kind == "path":
        return "path:" + text.rstrip("/").rsplit("/", 1)[-1]
    return f"{kind}:{text}"


def recurrence_boost(mentions: int) -> float:
    """The weight multiplier of a concept mentioned ``mentions`` times (1 for one mention)."""
    if mentions <= 1:
        return 1.0
    return min(RECURRENCE_MAX, 1.0 + RECURRENCE_WEIGHT * math.log2(mentions))


def concept_weight(
    concepts: tuple[Concept, ...],
    covered: set[Concept] | frozenset[Concept],
    boosts: tuple[float, ...] = (),
) -> float:
    """Weight of the ``concepts`` not yet ``covered``: per kind, the ``cap`` new ones of highest
    multiplier, each ``weight * multiplier`` (``boosts[i]`` is the multiplier of ``concepts[i]``; 1
    when ``boosts`` is empty)."""
    by_kind: dict[str, list[float]] = {}
    for i, c in enumerate(concepts):
        if c not in covered:
            by_kind.setdefault(c[0], []).append(boosts[i] if boosts else 1.0)
    total = 0.0
    for kind, mults in by_kind.items():
        weight, cap = CONCEPT_WEIGHTS[kind]
        if len(mults) > cap:
            mults = sorted(mults, reverse=True)[:cap]
        total += weight * sum(mults)
    return total


@functools.lru_cache(maxsize=8192)
def analyse(text: str) -> tuple[float, tuple[Concept, ...]]:
    """The cue part of a unit's score (error, decision, content words) and its distinct concepts.

    Cached: a digest analyses each unit of its window, and the next request's window repeats most of them
    (one real session's drain analysed 34,000 texts, 1,150 of them distinct). The result is immutable.
    """
    cues = 0.0
    seen_flags: set[str] = set()
    concepts: dict[Concept, None] = {}
    words: set[str] = set()
    for m in _FEATURES.finditer(text):
        kind = m.lastgroup
        if kind is None:
            continue
        if kind == "word":
            word = m.group().lower()
            if word not in _STOPWORDS:
                words.add(word)
        elif kind in _FLAGS:
            if kind not in seen_flags:
                seen_flags.add(kind)
                cues += _FLAGS[kind]
        else:
            concepts[(kind, m.group())] = None
    cues += CONTENT_WORD_WEIGHT * min(len(words), CONTENT_WORD_CAP)
    if _PHATIC.match(text):
        cues -= PHATIC_PENALTY
    return cues, tuple(concepts)


def named_items(text: str) -> list[str]:
    """The distinct identifiers and paths of ``text``, most mentioned first (ties: first mention).

    A name whose last letter carries a combining mark (or a joiner) ends after the mark: names are shown
    in clip marks, and a shown name never splits a grapheme cluster.
    """
    counts: dict[str, int] = {}
    for m in _FEATURES.finditer(text):
        if m.lastgroup in ("id", "path"):
            name = text[m.start() : ceil_boundary(text, m.end())]
            counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda k: -counts[k])  # stable: first mention breaks ties


def salience(text: str) -> float:
    """The value of ``text`` on its own: cues plus concept weights (module docstring)."""
    cues, concepts = analyse(text)
    return cues + concept_weight(concepts, frozenset())
