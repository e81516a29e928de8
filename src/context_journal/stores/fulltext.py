"""The full-text index's shared parts: what a message's index text is, words, stems and queries.

Every backend indexes the same **documents**: one per (message version, audience group). Group 0 holds
the blocks with no ``audience``; each distinct audience set gets a group of its own, so a search for one
reader never matches, counts or snippets a block whose audience excludes it. A document's text is what a
model would read: the participant's name, text blocks, a tool_use's name and the string and number
values of its input, tool_result text, a text document's data, and thinking text only when the writer
asks for it. Media are never indexed (blobs hold no text a model reads as text).

A document's id is ``sequence * 256 + group`` (:func:`doc_id`), so the index needs no side table: the
record's slot, branch and item come from the record itself. (SQLite stores it more compactly as the FTS5
rowid: the sequence for group 0, ``-id`` for the other groups; ties are still ordered by this id.)

Words follow SQLite FTS5's ``unicode61 remove_diacritics 2`` tokenizer: runs of letters and digits,
lowercased, diacritics removed (an underscore separates words, as there). Stems are the Porter
stemmer's (FTS5's ``porter`` tokenizer; the memory backend uses ``snowballstemmer``'s ``porter``
algorithm). User text never reaches a backend's query syntax: a query is reduced to its words, minus
English stopwords (the Snowball list, which PostgreSQL's ``english`` configuration also drops), and the
backends match any of them (OR), ranked by bm25 (SQLite, memory) or ``ts_rank`` (PostgreSQL).

**Summaries** are indexed too, in a summary index of their own (same words, stems and ranking; apart, so
that they never take places from a message search nor move its bm25 statistics): a record ``summary/<id>``
of a compression slot (``compression/<namespace>``, see :mod:`context_journal.strategies.autobiographical
.records`) is one document, group 0, whose text is the summary's text (:func:`summary_documents`). Its
level and covered range stay in the record (a hit carries the record's slot, branch and item). Every
backend indexes it in the transaction that writes the record (:meth:`Transaction.append
<context_journal.stores.base.Transaction.append>`), whoever writes it; visibility (lineage, ``as_of``,
which version the namespace's fold keeps) is the searcher's concern, as for messages (see
:mod:`context_journal.recall.summaries`). Reader isolation needs no audience groups here: a namespace's
summaries are written from its one recorded reader's view (:mod:`context_journal.readers`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from .._names import shows_nothing

__all__ = [
    "MAX_GROUPS",
    "MAX_QUERY_TERMS",
    "STOPWORDS",
    "SUMMARY_ITEM_PREFIX",
    "SUMMARY_SLOT_PREFIX",
    "TextHit",
    "doc_id",
    "fold_text",
    "index_documents",
    "is_message_slot",
    "is_summary_record",
    "query_terms",
    "split_doc_id",
    "stem",
    "summary_documents",
    "words",
]

MAX_GROUPS = 256
"""Documents per message version: group 0 (no audience) and up to 255 audience sets (more are not indexed)."""

MAX_QUERY_TERMS = 32
"""Distinct query words kept: the last ones (a long turn usually ends with its question); a longer query
is cut, never refused."""

_WORD = re.compile(r"[^\W_]+")
_DATE_RANGE = (-62_135_596_800.0, 253_402_300_799.0)  # years 1..9999: what datetime can show

# The Snowball English stopword list (snowballstem.org/algorithms/english/stop.txt), which is also the
# list of PostgreSQL's ``english`` configuration, plus a few question words that carry no topic.
_STOPWORD_TEXT = """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
herself it its itself they them their theirs themselves what which who whom this that these those am is
are was were be been being have has had having do does did doing would should could ought i'm you're
he's she's it's we're they're i've you've we've they've i'd you'd he'd she'd we'd they'd i'll you'll
he'll she'll we'll they'll isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't won't
wouldn't shan't shouldn't can't cannot couldn't mustn't let's that's who's what's here's there's when's
where's why's how's a an the and but if or because as until while of at by for with about against
between into through during before after above below to from up down in out on off over under again
further then once here there when where why how all any both each few more most other some such no nor
not only own same so than too very s t can will just don should now d ll m o re ve y ain aren couldn
didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn also ever yet
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


@dataclass(frozen=True, slots=True)
class TextHit:
    """One matching document, as a backend returns it.

    Attributes:
        seq: Sequence of the message version matched.
        group: Audience group of the document (0: blocks with no audience).
        score: Relevance, higher is better (bm25 on SQLite and memory, ``ts_rank`` on PostgreSQL).
        slot: The message slot of the record.
        branch_id: The branch the record was written on.
        item: The message id.
    """

    seq: int
    group: int
    score: float
    slot: str
    branch_id: int
    item: str


def doc_id(seq: int, group: int) -> int:
    """The index's document id of a message version's audience group."""
    return seq * MAX_GROUPS + group


def split_doc_id(doc: int) -> tuple[int, int]:
    """``(sequence, group)`` of a document id."""
    return divmod(doc, MAX_GROUPS)


def is_message_slot(slot: str) -> bool:
    """True for the slots that hold messages (``messages`` and ``messages/<namespace>``)."""
    return slot == "messages" or slot.startswith("messages/")


SUMMARY_SLOT_PREFIX = "compression/"
"""Slots holding a namespace's compression records (summaries among them)."""

SUMMARY_ITEM_PREFIX = "summary/"
"""Items of a compression slot that are summaries."""


def is_summary_record(slot: str, item: str) -> bool:
    """True for the records that hold a summary (item ``summary/<id>`` of a ``compression/<namespace>`` slot)."""
    return slot.startswith(SUMMARY_SLOT_PREFIX) and item.startswith(SUMMARY_ITEM_PREFIX)


def summary_documents(body: Any) -> list[tuple[int, str]]:
    """The documents of a stored summary body: ``[(0, text)]``, or ``[]`` when it holds no text (a
    malformed body is not indexed; the fold ignores it too).

    Args:
        body: A summary record's JSON value (``{"type": "summary", "text": ..., "level": ...}``).
    """
    if not isinstance(body, Mapping):
        return []
    text = body.get("text")
    return [(0, text)] if isinstance(text, str) and text.strip() else []


# Invisible format characters that may sit inside a word (soft hyphen, zero-width space and joiners, word
# joiner, byte-order mark, Mongolian vowel separator): dropped before tokenizing, so "pass\u200bword"
# is the word "password" (FTS5's unicode61 would split it at the character).
_INVISIBLE = frozenset("\u00ad\u180e\u200b\u200c\u200d\u2060\ufeff")


class _Dropped(dict[int, int | None]):
    """A ``str.translate`` table that drops combining marks and :data:`_INVISIBLE` characters and keeps every
    other character: each code point is judged (``unicodedata.combining``) the first time it is looked up,
    then the table answers at C speed (a Python test per character took most of the time of indexing text
    that is not ASCII)."""

    def __missing__(self, code: int) -> int | None:
        char = chr(code)
        kept = None if unicodedata.combining(char) or char in _INVISIBLE else code
        self[code] = kept
        return kept


_DROPPED = _Dropped()


def _fold(text: str) -> str:
    if text.isascii():  # nothing to decompose: the fast path for large tool payloads (bug case B59)
        return text.lower()
    return unicodedata.normalize("NFKD", text.lower()).translate(_DROPPED)


def fold_text(text: str) -> str:
    """``text`` as the SQLite backend hands it to FTS5: unchanged when it is ASCII (FTS5 lowercases and
    stems it as :func:`words` does), else lowercased, compatibility-decomposed (NFKD) and without
    combining marks, the form query words take. FTS5's ``unicode61`` tokenizer applies neither the
    decomposition nor mark removal outside Latin scripts, so indexing the raw text left Hangul syllables,
    fullwidth letters, ligatures and words with virama unmatchable by their own query words."""
    return text if text.isascii() else _fold(text)


def words(text: str) -> list[str]:
    """The words of ``text`` as the index sees them: lowercased, diacritics removed, split on anything
    that is not a letter or a digit."""
    return _WORD.findall(_fold(text))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of a lowercase word (``snowballstemmer``'s ``porter`` algorithm); a word under 3
    or over 64 bytes is its own stem, as in FTS5's ``porter`` tokenizer."""
    if not 3 <= len(word.encode()) <= 64:
        return word
    return _stemmer().stemWord(word)  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    from ._porter import porter_stemmer  # the porter module alone (see _porter.py: 20-40 ms less per process)

    return porter_stemmer()


def query_terms(query: str) -> list[str]:
    """The words a query searches for: its words minus stopwords (all of its words when every one is a
    stopword), one per stem (the first; SQLite's index scored "dogs dog" as two terms where the memory
    index scored one), first occurrence order, the last :data:`MAX_QUERY_TERMS` of them. Quotes, ``*``, ``NEAR``,
    ``-``, column filters and parentheses are plain text here: nothing of the query's syntax survives.

    Raises:
        ValueError: the query is empty, or only whitespace and invisible format characters (zero-width
            spaces and joiners, a byte-order mark: what shows as nothing).
    """
    if not isinstance(query, str) or shows_nothing(query):
        raise ValueError("a search query must be non-empty text")
    found = words(query)
    kept = [w for w in found if w not in STOPWORDS] or found
    seen: dict[str, str] = {}  # stem -> the first word with it: "dogs dog" is one term, as the index has one
    for w in kept:
        seen.setdefault(stem(w), w)
    return list(seen.values())[-MAX_QUERY_TERMS:]


def _values(value: Any, out: list[str], depth: int = 0) -> None:
    if depth > 64:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, (int, float)):
        out.append(str(value))
    elif isinstance(value, Mapping):
        for v in value.values():
            _values(v, out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _values(v, out, depth + 1)


def block_text(block: Mapping[str, Any], thinking: bool = False) -> list[str]:
    """The texts a model reads in one stored content block (see the module docstring)."""
    kind = block.get("type")
    out: list[str] = []
    if kind == "text":
        out.append(str(block.get("text", "")))
    elif kind == "tool_use":
        out.append(str(block.get("name", "")))
        _values(block.get("input"), out)
    elif kind == "tool_result":
        content = block.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            for inner in content:
                if isinstance(inner, Mapping):
                    out.extend(block_text(inner, thinking))
    elif kind == "thinking" and thinking:
        out.append(str(block.get("thinking", "")))
    elif kind == "document":
        source = block.get("source")
        if isinstance(source, Mapping) and source.get("type") == "text":
            out.append(str(source.get("data", "")))
        for key in ("title", "context"):
            if isinstance(block.get(key), str):
                out.append(block[key])
    return [t for t in out if t]


def format_date(ts: float) -> str:
    """A short UTC date: ``8 May 2023``."""
    return _day_label(int(ts // 86400))


@lru_cache(maxsize=4096)
def _day_label(day: int) -> str:
    d = datetime.fromtimestamp(day * 86400, UTC)
    return f"{d.day} {d.strftime('%B %Y')}"


def index_documents(body: Mapping[str, Any], thinking: bool = False) -> list[tuple[int, str]]:
    """The documents of a stored message body: ``(group, text)`` pairs, group 0 first (only groups with
    some text). Each group's text starts with the participant's name and the message's date
    (``8 May 2023``, the form compiles render), so "what did Ann say in May 2023" finds it.

    Args:
        body: A message body as stored (``participant``, ``content``, ``metadata``...).
        thinking: Index thinking text too.
    """
    participant = str(body.get("participant", ""))
    ts = body.get("timestamp")
    header = (
        f"{participant} {format_date(ts)}"
        if isinstance(ts, (int, float)) and _DATE_RANGE[0] <= ts <= _DATE_RANGE[1]
        else participant
    )
    content = body.get("content", ())
    # The common case first: no block has an audience, so the one document is group 0.
    texts: list[str] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        if isinstance(block.get("audience"), (list, tuple)):
            break
        if block.get("type") == "text":
            text = str(block.get("text", ""))
            if text:
                texts.append(text)
        else:
            texts.extend(block_text(block, thinking))
    else:
        return [(0, "\n".join([header, *texts]))] if texts else []
    groups: dict[tuple[str, ...] | None, list[str]] = {}
    for block in content:
        if not isinstance(block, Mapping):
            continue
        audience = block.get("audience")
        key = tuple(sorted(str(a) for a in audience)) if isinstance(audience, (list, tuple)) else None
        texts = block_text(block, thinking)
        if texts:
            groups.setdefault(key, []).extend(texts)
    numbers = {aud: n for n, aud in audience_groups(content).items()}
    out: list[tuple[int, str]] = []
    for aud, n in sorted(numbers.items(), key=lambda kv: kv[1]):
        found = groups.get(None if aud is None else tuple(sorted(aud)))
        if found:
            out.append((n, "\n".join([header, *found])))
    return out


def audience_groups(content: Sequence[Mapping[str, Any]]) -> dict[int, frozenset[str] | None]:
    """Group number -> audience (None for group 0) of a stored content list, numbered as
    :func:`index_documents` numbers them (so a hit's group can be checked against a reader)."""
    keys: set[tuple[str, ...]] = set()
    for block in content:
        audience = block.get("audience") if isinstance(block, Mapping) else None
        if isinstance(audience, (list, tuple)):
            keys.add(tuple(sorted(str(a) for a in audience)))
    out: dict[int, frozenset[str] | None] = {0: None}
    for n, key in enumerate(sorted(keys), start=1):
        if n >= MAX_GROUPS:
            break
        out[n] = frozenset(key)
    return out
