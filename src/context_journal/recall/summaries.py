"""Full-text search over one manager's summaries: the store's candidates, filtered to what it may read.

Summaries are indexed like messages (:mod:`context_journal.stores.fulltext`), in an index of their own
(:meth:`Store.search_summary_index <context_journal.stores.base.Store.search_summary_index>`): each summary
record of a compression slot ``compression/<namespace>`` is one document, written in the transaction that
writes the record. A candidate is kept only when the manager's own reads would show that summary:

* **namespace** — only the manager's namespace's slot is searched (and, for a derived context that
  inherits another namespace's compression records, that namespace's slot up to the inherited point),
  and only a namespace recording no reader or the manager's own reader. A namespace's summaries are
  written from its one recorded reader's view (:mod:`context_journal.readers`), so a summary holding a
  block whose audience excludes the reader is never matched, counted or snippeted for it;
* **branch lineage and ``as_of``** — the record is on the branch's lineage (each ancestor up to its fork
  point), no newer than ``as_of``;
* **the fold** — the summary is one the namespace's compression records keep
  (:class:`~context_journal.strategies.autobiographical.CompressionLog`: first valid record wins), and the
  record matched holds the very text the fold kept. Records the fold ignores (a second worker's copy of a
  summary, an L1 for a chunk that already has one, a merge whose sources were merged otherwise) are never
  returned.

Summaries merged into a higher level stay searchable (a compile renders each span at the cheapest level
that fits, and :meth:`~context_journal.manager.ContextManager.get_summary` shows them); a hit's
``parent_id`` names the summary that merged it (None: a root, what a roomy compile renders first).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..readers import ReaderError, recorded_reader
from ..stores.fulltext import SUMMARY_ITEM_PREFIX, TextHit, query_terms, stem
from ..strategies.autobiographical import INHERIT_STATE, CompressionLog, Summary
from ..strategies.autobiographical.records import slot_for
from .search import MAX_LIMIT, snippet

if TYPE_CHECKING:
    from ..stores.base import Store

__all__ = ["SummaryHit", "search_summary_text"]


@dataclass(frozen=True)
class SummaryHit:
    """A summary that matches a query.

    Attributes:
        summary_id: The summary's id (for :meth:`ContextManager.get_summary`).
        level: 1 for a chunk's summary, ``L + 1`` for a merge of level-``L`` summaries.
        first_message_id: First message of the range it covers.
        last_message_id: Last message of the range it covers.
        first_sequence: Created store sequence of its first message.
        last_sequence: Created store sequence of its last message.
        message_count: Messages in the range (when it was made).
        start: Time of its first message (UTC), or None when that message is no longer visible.
        end: Time of its last message (UTC), or None when that message is no longer visible.
        score: Relevance, higher is better (bm25 on SQLite and memory stores, ``ts_rank`` on PostgreSQL).
        snippet: Up to 32 words of the summary around the best match, matched words marked
            ``**like this**``, ``…`` where text was cut.
        sequence: Store sequence of the summary's record.
        parent_id: The summary that merged it, or None (a root).
        terms: The query words (stemmed) the summary matched.
    """

    summary_id: str
    level: int
    first_message_id: str
    last_message_id: str
    first_sequence: int
    last_sequence: int
    message_count: int
    start: datetime | None
    end: datetime | None
    score: float
    snippet: str
    sequence: int
    parent_id: str | None = None
    terms: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form (times as ISO-8601 text or null)."""
        return {
            "summary_id": self.summary_id,
            "level": self.level,
            "first_message_id": self.first_message_id,
            "last_message_id": self.last_message_id,
            "first_sequence": self.first_sequence,
            "last_sequence": self.last_sequence,
            "message_count": self.message_count,
            "start": None if self.start is None else self.start.isoformat(),
            "end": None if self.end is None else self.end.isoformat(),
            "score": round(self.score, 6),
            "snippet": self.snippet,
            "sequence": self.sequence,
            "parent_id": self.parent_id,
        }


def _inherited(store: Store, branch_id: int, namespace: str, as_of: int | None) -> tuple[str, int] | None:
    """``(namespace, as_of)`` whose compression records the namespace inherits (a derived context), or None."""
    value = store.get_state(branch_id, f"{namespace}/{INHERIT_STATE}", as_of)
    if isinstance(value, Mapping) and isinstance(value.get("namespace"), str):
        try:
            return str(value["namespace"]), int(value.get("as_of", 0))
        except (TypeError, ValueError):
            return None
    return None


def _readable(store: Store, branch_id: int, namespace: str, reader: str | None) -> bool:
    """True when the namespace's summaries were written for ``reader`` (or for no reader)."""
    try:
        recorded = recorded_reader(store, branch_id, namespace)
    except ReaderError:
        return False
    return recorded is None or recorded == reader


def fold_at(store: Store, branch_id: int, namespace: str, as_of: int) -> CompressionLog:
    """The namespace's compression records on the branch folded as they stood at sequence ``as_of``
    (the inherited namespace's first, as :class:`CompressionLog` folds them)."""
    log = CompressionLog(store, branch_id, namespace)
    inherit = _inherited(store, branch_id, namespace, as_of)
    records = []
    if inherit is not None:
        records += store.read_slot(slot_for(inherit[0]), branch_id, as_of=min(as_of, inherit[1]))
    records += store.read_slot(log.slot, branch_id, as_of=as_of)
    for rec in records:
        log._apply(rec)
    return log


def search_summary_text(
    store: Store,
    branch_id: int,
    namespace: str,
    query: str,
    *,
    reader: str | None = None,
    limit: int = 10,
    as_of: int | None = None,
    log: CompressionLog | None = None,
    timestamps: Callable[[str], float | None] | None = None,
    snippets: bool = True,
) -> list[SummaryHit]:
    """The best ``limit`` summaries of a namespace on a branch matching any word of ``query`` (see the
    module docstring for what is visible), best first, ties newest first.

    Args:
        store: The record store (with a full-text index).
        branch_id: The branch searched.
        namespace: Whose summaries are searched.
        query: Plain text; its words minus stopwords are searched (no query syntax).
        reader: The reader searching (None: no reader). A namespace recording another reader is not searched.
        limit: At most this many hits (1..1000).
        as_of: Search the summaries as they stood at this store sequence.
        log: The namespace's current fold on the branch (the manager's; used when ``as_of`` is None, else
            one is folded here).
        timestamps: Message id -> its time (seconds since the epoch), or None when not visible; gives a
            hit's ``start`` and ``end`` (default: both None).
        snippets: Make snippets (False: empty snippets and terms).

    Returns:
        :class:`SummaryHit` list, at most ``limit`` long, one per summary.

    Raises:
        ValueError: an empty or whitespace query, ``limit`` outside 1..1000, or a negative ``as_of``.
        StoreError: the store has no full-text index.
    """
    terms = query_terms(query)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be an integer in 1..{MAX_LIMIT}, got {limit!r}")
    if as_of is not None and (isinstance(as_of, bool) or not isinstance(as_of, int) or as_of < 0):
        raise ValueError(f"as_of must be a store sequence (an integer >= 0), got {as_of!r}")
    if not _readable(store, branch_id, namespace, reader):
        return []
    inherit = _inherited(store, branch_id, namespace, as_of)
    if log is not None and as_of is None and log.inherit == inherit:
        fold = log
    else:  # a past state, or a fold that leaves the inherited records out (a read-only one)
        fold = fold_at(store, branch_id, namespace, store.head_seq() if as_of is None else as_of)
    own = slot_for(namespace)
    bounds = {own: as_of}  # slot -> newest sequence it may show (None: any)
    if inherit is not None and inherit[0] != namespace and _readable(store, branch_id, inherit[0], reader):
        bounds[slot_for(inherit[0])] = inherit[1] if as_of is None else min(inherit[1], as_of)
    segments = dict(store.lineage(branch_id, as_of).segments)  # branch id -> newest visible sequence
    stems = {stem(t) for t in terms}

    def candidate(hit: TextHit) -> Summary | None:
        if not hit.item.startswith(SUMMARY_ITEM_PREFIX) or hit.slot not in bounds:
            return None
        upto = segments.get(hit.branch_id)
        bound = bounds[hit.slot]
        if upto is None or hit.seq > upto or (bound is not None and hit.seq > bound):
            return None
        with fold.lock:
            return fold.summaries.get(hit.item[len(SUMMARY_ITEM_PREFIX) :])

    def when(message_id: str) -> datetime | None:
        ts = timestamps(message_id) if timestamps is not None else None
        return None if ts is None else datetime.fromtimestamp(ts, UTC)

    want = max(2 * limit, 20)
    while True:
        found = store.search_summary_index(terms, list(bounds), want)
        kept = [(hit, s) for hit in found if (s := candidate(hit)) is not None]
        # The record matched must hold the text the fold kept (not a copy the fold ignored).
        bodies = store.read_bodies([hit.seq for hit, _ in kept]) if kept else {}
        out: list[SummaryHit] = []
        seen: set[str] = set()
        with fold.lock:
            parents = {s.id: fold.parent.get(s.id) for _, s in kept}
        for hit, s in kept:
            if s.id in seen or not _same_text(bodies.get(hit.seq), s):
                continue
            seen.add(s.id)
            text, matched = snippet(s.text, stems) if snippets else ("", ())
            out.append(
                SummaryHit(
                    s.id,
                    s.level,
                    s.first_message_id,
                    s.last_message_id,
                    s.first_sequence,
                    s.last_sequence,
                    s.message_count,
                    when(s.first_message_id),
                    when(s.last_message_id),
                    hit.score,
                    text,
                    hit.seq,
                    parents[s.id],
                    matched,
                )
            )
            if len(out) >= limit:
                return out
        if len(found) < want:
            return out
        want *= 4


def _same_text(body: str | None, summary: Summary) -> bool:
    if body is None:
        return False
    try:
        value = json.loads(body)
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("text") == summary.text and value.get("id") == summary.id
