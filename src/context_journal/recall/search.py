"""Full-text search over one manager's messages: the store's candidates, filtered to what it may read.

The store's index (:mod:`context_journal.stores.fulltext`) knows documents, not visibility. A hit is
kept only when the same handle's reads would show it: the message version is the one its branch
shows now (or at ``as_of``: branch lineage, fork points, edits and tombstones all count), and its
audience group is one the reader may read (group 0, the blocks with no audience, for everyone; an
audience group only for a reader it names). The store is asked for more candidates until ``limit``
visible hits are found or it has no more, so a hidden document is never returned or counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, NamedTuple, TypeVar
from weakref import WeakKeyDictionary

from .._graphemes import ceil_boundary, floor_boundary, split_words
from .._names import shows_nothing
from ..messages import Message, MessageStore, to_timestamp
from ..stores.base import Op
from ..stores.fulltext import TextHit, audience_groups, block_text, query_terms, stem, words
from ..views import filter_for_reader

__all__ = [
    "MAX_LIMIT",
    "SNIPPET_CHARS",
    "RankedHit",
    "SearchHit",
    "check_as_of_written",
    "ranked_ids",
    "search_messages",
    "snippet",
]

MAX_LIMIT = 1000
"""The most hits one search returns."""

_SNIPPET_WORDS = 32

SNIPPET_CHARS = 400
"""The longest snippet, in characters: a snippet is at most 32 words, and this bounds words without
spaces (CJK text, a pasted blob: a 200,000-character run was one "word"), cut around the first match."""


@dataclass(frozen=True)
class SearchHit:
    """A message that matches a query.

    Attributes:
        message_id: The message's id.
        sequence: Store sequence of the matching version.
        participant: Who wrote it.
        timestamp: When it was written (UTC).
        score: Relevance, higher is better (bm25 on SQLite and memory stores, ``ts_rank`` on PostgreSQL).
        snippet: Up to 32 words (and :data:`SNIPPET_CHARS` characters) around the best match, matched
            words marked ``**like this**``, ``…`` where text was cut.
        terms: The query words (stemmed) this message matched.
    """

    message_id: str
    sequence: int
    participant: str
    timestamp: datetime
    score: float
    snippet: str
    terms: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form (timestamp as ISO-8601 text)."""
        return {
            "message_id": self.message_id,
            "sequence": self.sequence,
            "participant": self.participant,
            "timestamp": self.timestamp.isoformat(),
            "score": round(self.score, 6),
            "snippet": self.snippet,
        }


def message_text(message: Message, thinking: bool = False) -> str:
    """The indexed text of a (reader-filtered) message's blocks, without the participant name (thinking
    text too with ``thinking``, as a handle that indexes it does)."""
    parts: list[str] = []
    for block in message.content_dicts():
        parts.extend(block_text(block, thinking))
    return "\n".join(parts)


_RESTRICT_AFTER = 80
"""Candidates asked for before a search that found too few visible hits restricts the ranking to the
records it may show (an O(visible messages) pass over the message index, cheaper than ranking far more
matches than that)."""

_SNIPPET_SCAN = 5000  # whitespace tokens of a message looked at for a snippet (bounded work per hit)


def snippet(text: str, stems: set[str], width: int = _SNIPPET_WORDS) -> tuple[str, tuple[str, ...]]:
    """The ``width`` words of ``text`` around its densest run of matches, matches marked with ``**``;
    also the stems matched. Of a text longer than 5,000 words, the 5,000 around the first place a query
    word starts are looked at."""
    tokens = split_words(text)  # whitespace that carries a mark or joiner stays in its word
    offset = 0
    if len(tokens) > _SNIPPET_SCAN:
        # A long text (a log, a file dump): look around the first place a stem occurs as a word's start
        # (a Porter stem is the start of its words, bar a final y/i), not only at its opening.
        pattern = "|".join(re.escape(st) for st in sorted(stems, key=len, reverse=True) if st)
        found = re.search(rf"(?<![^\W_])(?:{pattern})", text, flags=re.IGNORECASE) if pattern else None
        if found is not None:
            at = len(split_words(text[: found.start()]))
            offset = max(0, min(at - _SNIPPET_SCAN // 2, len(tokens) - _SNIPPET_SCAN))
    scanned = tokens[offset : offset + _SNIPPET_SCAN]
    token_stems = [{stem(w) for w in words(t)} & stems for t in scanned]
    flags = [False] * offset + [bool(found) for found in token_stems]
    matched = tuple(sorted(set().union(*token_stems))) if token_stems else ()
    if not tokens:
        return "", matched
    best, best_at, count = -1, 0, 0
    for i, flag in enumerate(flags):
        count += flag
        if i >= width:
            count -= flags[i - width]
        if count > best:
            best, best_at = count, max(0, i - width + 1)
    start = best_at
    end = min(len(tokens), start + width)
    shown = [_mark(t) if start + k < len(flags) and flags[start + k] else t for k, t in enumerate(tokens[start:end])]
    text = ("… " if start else "") + " ".join(shown) + (" …" if end < len(tokens) else "")
    return _window(text, SNIPPET_CHARS), matched


def _window(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters around its first mark (a third of the room before
    it), on grapheme-cluster boundaries, ``…`` where it was cut."""
    if len(text) <= limit:
        return text
    room = limit - 2  # the two ellipses
    mark = max(0, text.find("**"))
    a = max(0, min(mark - room // 3, len(text) - room))
    a = ceil_boundary(text, a) if a else 0
    b = floor_boundary(text, min(len(text), a + room))
    return ("…" if a else "") + text[a:b] + ("…" if b < len(text) else "")


_WORD_PART = re.compile(r"\w(?:.*\w)?", re.DOTALL)  # a token's first to last word character


def _mark(token: str) -> str:
    """A matched whitespace token with its word part marked ``**like this**``: the punctuation around
    it stays outside (``(**museum**),``), and a word the text already shows in bold, or at an edge of a
    bold run (``**museum**``, ``museum**``), is left as it is rather than marked again
    (``****museum****``). The marks stand on grapheme-cluster boundaries: a letter's combining marks stay
    inside them (``**café**`` written with U+0301, ``**مُحَمَّدٌ**``; a review found ``**cafe**\u0301``, the accent
    left on the asterisk)."""
    found = _WORD_PART.search(token)
    if found is None:
        return f"**{token}**"
    a, b = floor_boundary(token, found.start()), ceil_boundary(token, found.end())
    head, tail = token[:a], token[b:]
    if head.endswith("**") or tail.startswith("**"):
        return token
    return f"{head}**{token[a:b]}**{tail}"


def check_as_of_written(head: int, as_of: int | None, name: str = "as_of") -> None:
    """Refuse a search ``as_of`` past ``head``, the store's newest sequence: nothing was written there
    yet, so the search would silently read the branch as it stands now (what the library does when asked
    directly; the CLI and the MCP server, whose callers type or guess sequences, refuse instead).

    Raises:
        ValueError: ``as_of`` is greater than ``head`` (the message names ``name`` and the valid range).
    """
    if as_of is not None and not isinstance(as_of, bool) and isinstance(as_of, int) and as_of > head:
        raise ValueError(
            f"{name} {as_of} is past the newest sequence of this store ({head}); give a sequence from 0 to {head}"
        )


def _visible_versions(ms: MessageStore, as_of: int) -> dict[str, tuple[int, int]]:
    """item -> (visible version sequence, created sequence) as the branch stood at ``as_of``."""
    latest: dict[str, tuple[int, int]] = {}
    for rec in ms.store.read_slot(ms.slot, ms.branch_id, as_of=as_of, bodies=False):
        if rec.op == Op.REMOVE:
            latest.pop(rec.item, None)
        elif rec.op in (Op.APPEND, Op.EDIT):
            created = latest[rec.item][1] if rec.item in latest else rec.seq
            latest[rec.item] = (rec.seq, created)
    return latest


_hides: WeakKeyDictionary[MessageStore, bool] = WeakKeyDictionary()
"""Message indexes whose searches met candidates they may not show (another branch's writes, an
edited message's old version, an audience group, a filter): their first ask carries spare places."""


_Hit = TypeVar("_Hit")


def _first_ask(ms: MessageStore, limit: int) -> int:
    """Candidates to ask the store for first: ``limit`` (at least 20), with a quarter more once a search
    of ``ms`` met hidden candidates. The hits are the same either way (a round that finds too few asks
    again); only the cost differs: the store ranks exactly the best ``want``, and a quarter more places
    cost a sixth more at 200,000 messages (``benchmarks/bench_search.py``), while a second round costs
    a whole search."""
    return max(limit + limit // 4 if _hides.get(ms) else limit, 20)


class RankedHit(NamedTuple):
    """A visible hit as a compile's recall needs it: the message id and its score (what
    :func:`ranked_ids` returns: the ids and scores of :func:`search_messages` with ``snippets=False``,
    without building a :class:`SearchHit` and its timestamp for each)."""

    message_id: str
    score: float


def ranked_ids(
    ms: MessageStore,
    query: str,
    *,
    reader: str | None = None,
    limit: int = 10,
    also: Sequence[MessageStore] = (),
) -> list[RankedHit]:
    """The ids and scores of ``search_messages(ms, query, reader=reader, limit=limit, snippets=False,
    also=also)``, in its order (see :func:`search_messages`; the same checks and errors)."""
    return _search(ms, query, reader, limit, None, None, None, None, False, also, _ranked)


def _ranked(hit: TextHit, seq: int, participant: str, ts: float, text: str, matched: tuple[str, ...]) -> RankedHit:
    return RankedHit(hit.item, hit.score)


def _search_hit(hit: TextHit, seq: int, participant: str, ts: float, text: str, matched: tuple[str, ...]) -> SearchHit:
    return SearchHit(hit.item, seq, participant, datetime.fromtimestamp(ts, UTC), hit.score, text, matched)


def search_messages(
    ms: MessageStore,
    query: str,
    *,
    reader: str | None = None,
    limit: int = 10,
    as_of: int | None = None,
    participants: Sequence[str] | str | None = None,
    since: datetime | date | float | str | None = None,
    until: datetime | date | float | str | None = None,
    snippets: bool = True,
    also: Sequence[MessageStore] = (),
) -> list[SearchHit]:
    """The best ``limit`` visible messages of ``ms`` matching any word of ``query`` (see the module
    docstring), best first, ties newest first.

    Args:
        ms: The message index of one slot and branch.
        query: Plain text; its words minus stopwords are searched (no query syntax).
        reader: The reader whose view is searched (None: only blocks with no audience).
        limit: At most this many hits (1..1000).
        as_of: Search the branch as it stood at this sequence.
        participants: Only messages by these participants.
        since: Only messages with timestamp >= this (datetime, date, epoch seconds or ISO-8601).
        until: Only messages with timestamp < this.
        snippets: Make snippets (False: empty snippets and terms, for callers that need only ids).
        also: Message indexes of other slots on the same branch searched with ``ms`` in one ranking (a
            merged view's auxiliary slots); a message id held by two slots may come once from each.

    Raises:
        ValueError: the query is empty or whitespace, ``limit`` is outside 1..1000, ``as_of`` is negative,
            ``since`` is later than ``until``, or a participant is blank.
        StoreError: the store has no full-text index.
    """
    return _search(ms, query, reader, limit, as_of, participants, since, until, snippets, also, _search_hit)


def _search(
    ms: MessageStore,
    query: str,
    reader: str | None,
    limit: int,
    as_of: int | None,
    participants: Sequence[str] | str | None,
    since: datetime | date | float | str | None,
    until: datetime | date | float | str | None,
    snippets: bool,
    also: Sequence[MessageStore],
    build: Callable[[TextHit, int, str, float, str, tuple[str, ...]], _Hit],
) -> list[_Hit]:
    """:func:`search_messages`, each hit made by ``build(hit, version, participant, timestamp, snippet,
    matched stems)``."""
    terms = query_terms(query)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be an integer in 1..{MAX_LIMIT}, got {limit!r}")
    names = {participants} if isinstance(participants, str) else set(participants) if participants else None
    if names is not None and any(not isinstance(n, str) or shows_nothing(n) for n in names):
        raise ValueError(f"participants must be names that show something, got {sorted(map(repr, names))}")
    lo = to_timestamp(since) if since is not None else None
    hi = to_timestamp(until) if until is not None else None
    if lo is not None and hi is not None and lo > hi:
        raise ValueError("since is later than until: no message could match")
    if as_of is not None and (isinstance(as_of, bool) or not isinstance(as_of, int) or as_of < 0):
        raise ValueError(f"as_of must be a store sequence (an integer >= 0), got {as_of!r}")
    indexes = {ms.slot: ms}
    for other in also:
        indexes.setdefault(other.slot, other)
    for index in indexes.values():
        index.refresh()
    versions = {slot: _visible_versions(index, as_of) for slot, index in indexes.items()} if as_of is not None else None
    stems = {stem(t) for t in terms}

    def version_of(hit: TextHit) -> tuple[int, int, str | None, float | None] | None:
        """(version, created sequence, participant, timestamp) of a visible hit, None if hidden (the
        participant and timestamp are only known without reading the body when reading the present)."""
        if hit.slot not in indexes:
            return None
        if versions is not None:
            found = versions[hit.slot].get(hit.item)
            return None if found is None or found[0] != hit.seq else (found[0], found[1], None, None)
        entry = indexes[hit.slot].entry_for(hit.item)
        if entry is None or entry.seq != hit.seq:
            return None
        return entry.seq, entry.created_seq, entry.participant, entry.timestamp

    def passes(participant: str, ts: float) -> bool:
        return (names is None or participant in names) and (lo is None or ts >= lo) and (hi is None or ts < hi)

    def visible_seqs() -> frozenset[int]:
        """The record sequences this search may show (visible versions passing the participant and time
        filters; at ``as_of``, the versions visible then, whose participant and time only bodies hold)."""
        seqs: set[int] = set()
        for slot, index in indexes.items():
            if versions is not None:
                seqs.update(seq for seq, _created in versions[slot].values())
            else:
                seqs.update(e.seq for e in index.iter_entries() if passes(e.participant, e.timestamp))
        return frozenset(seqs)

    want = _first_ask(ms, limit)
    within: frozenset[int] | None = None
    while True:
        candidates = ms.store.search_text(terms, list(indexes), want, within=within)
        out: list[_Hit] = []
        seen: set[tuple[str, str]] = set()
        keep: list[tuple[TextHit, tuple[int, int, str | None, float | None]]] = []
        for hit in candidates:
            v = version_of(hit)
            if v is not None and (v[2] is None or v[3] is None or passes(v[2], v[3])):
                keep.append((hit, v))
        if len(keep) < len(candidates):
            _hides[ms] = True  # this index's searches meet hidden versions: ask with spare from now on
        # Bodies are read (in batches) only where needed: an audience group to check, a snippet to
        # make, or a past version whose participant and time only the body holds.
        for k in range(0, len(keep), max(limit, 16)):
            batch = keep[k : k + max(limit, 16)]
            loaded: dict[int, Message] = {}
            for slot, index in indexes.items():
                need = [
                    (h.item, v[0], v[1]) for h, v in batch if h.slot == slot and (snippets or h.group or v[2] is None)
                ]
                if need:
                    loaded.update((m.sequence, m) for m in index.load_versions(need))
            for hit, (seq, _created, participant, ts) in batch:
                if (hit.slot, hit.item) in seen:
                    continue
                message = loaded.get(seq)
                shown: Message | None = None
                if message is not None:
                    if hit.group:
                        audience = audience_groups(message.content_dicts()).get(hit.group)
                        if reader is None or audience is None or reader not in audience:
                            continue
                    participant, ts = message.participant, message.timestamp.timestamp()
                    if not passes(participant, ts):
                        continue
                    shown = filter_for_reader(message, reader)
                    if shown is None:
                        continue
                assert participant is not None and ts is not None
                seen.add((hit.slot, hit.item))
                text = ""
                matched: tuple[str, ...] = ()
                if shown is not None and snippets:
                    text, matched = snippet(message_text(shown, ms.index_thinking), stems)
                out.append(build(hit, seq, participant, ts, text, matched))
                if len(out) >= limit:
                    return out
        if len(candidates) < want:
            return out
        if within is None and want >= _RESTRICT_AFTER and ms.store.search_within:
            # Most candidates were hidden or filtered out (another branch's or reader's writes, a
            # participant or time filter, a past as_of): rank only what may be shown, rather than every
            # match of the query (a filter that matched nothing read all 70,000 matches of a common word).
            within = visible_seqs()
            if not within:
                return out
            continue
        want *= 4
