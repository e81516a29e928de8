"""Wiring recall into a compile: the query (given, or the newest user turn) and the wrapped strategy."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .._graphemes import clip_end
from ..messages import MessageStore
from ..rendering.options import Roles
from ..sharding import group_of
from ..stores.fulltext import query_terms, stem
from ..strategies.base import Strategy
from ..tokens import TokenCounter
from ..views import MessageView
from .lines import LineCache
from .search import RankedHit, SearchHit, ranked_ids
from .spans import Candidate, RecallConfig
from .strategy import RecallStrategy

__all__ = ["RecallArg", "newest_user_text", "recall_report", "shown_query", "with_recall"]

RecallArg = RecallConfig | Literal["auto"] | None
"""What ``compile(recall=...)`` takes: a :class:`RecallConfig`, ``"auto"`` (default knobs) or None."""

_SCAN = 64  # messages looked at, from the newest, for the newest user turn


def newest_user_text(view: MessageView, roles: Roles) -> str | None:
    """The text of the newest user turn of ``view`` that has text (tool results alone do not count)."""
    n = len(view)
    for pos in range(n - 1, max(-1, n - 1 - _SCAN), -1):
        entry = view.entry(pos)
        if "text" not in entry.kinds or roles.role(entry.participant) != "user":
            continue
        text = "\n".join(b.get("text", "") for b in view.message(pos).content_dicts() if b.get("type") == "text")
        if text.strip():
            return text
    return None


def with_recall(
    strategy: Strategy,
    view: MessageView,
    messages: MessageStore,
    *,
    reader: str | None,
    query: str | None,
    recall: RecallArg,
    roles: Roles,
    counter: TokenCounter,
    dates: bool,
    lines: LineCache | None = None,
) -> tuple[Strategy, str | None]:
    """``strategy`` wrapped in a :class:`RecallStrategy` for ``query`` (or the newest user turn when
    ``recall`` is given without a query), and the query used; ``strategy`` itself when there is nothing
    to recall. ``lines`` keeps recalled lines across compiles (one per manager).

    Raises:
        ValueError: ``query`` is empty or whitespace, or ``recall`` is not a RecallConfig, "auto" or None.
    """
    if recall is not None and recall != "auto" and not isinstance(recall, RecallConfig):
        raise ValueError(f"recall must be a RecallConfig, 'auto' or None, got {recall!r}")
    if query is None and recall is None:
        return strategy, None
    config = recall if isinstance(recall, RecallConfig) else RecallConfig()
    if query is None:
        query = newest_user_text(view, roles)
        if query is None or not any(ch.isalnum() for ch in query):
            return strategy, query  # no turn, or one with no word to search for (the report says which)
    terms = query_terms(query)  # raises ValueError for an empty query
    if not terms or config.share == 0 or config.candidates == 0:
        return strategy, query
    auxiliary: Sequence[tuple[str, MessageStore]] = getattr(view, "auxiliary", ())
    # A merged view's other slots are searched with this one, in one ranking.
    others = [index for _, index in auxiliary]
    # The ids and scores of the search (no snippets, no SearchHit per hit: the candidates need no more).
    hits = ranked_ids(messages, query, reader=reader, limit=min(config.candidates, 1000), also=others)
    if auxiliary or getattr(view, "keep", None) is not None:
        # A filter view leaves some out, a merged view shows a message id held by two slots once.
        shown: dict[str, RankedHit] = {}
        for h in hits:
            if h.message_id not in shown and view.index_of(h.message_id) is not None:
                shown[h.message_id] = h
        hits = list(shown.values())
    stems = frozenset(stem(t) for t in terms)
    candidates = by_length(hits, view, config.length_norm, stems)
    show_dates = dates if config.dates is None else config.dates
    return RecallStrategy(strategy, candidates, config, counter, show_dates, reader, lines, messages), query


_K1 = 1.2  # bm25's k1, as in FTS5's bm25() and the memory index


def by_length(
    hits: Sequence[SearchHit | RankedHit], view: MessageView, b: float, stems: frozenset[str]
) -> list[Candidate]:
    """``hits`` as recall candidates, re-ranked with bm25's length normalisation of strength ``b``.

    The index ranks without document lengths (FTS5 ``columnsize=0``, see ``stores/fulltext.py``), so a long
    message that mentions a query word once ranks with a short one that is about it. Each score is
    multiplied by ``(1 + k1) / (1 + k1 * (1 - b + b * tokens / mean))`` — bm25's term weight for one
    occurrence (k1 = 1.2), relative to a message of ``mean`` tokens — where ``tokens`` is the message's
    estimated size and ``mean`` the view's mean. It is exact for hits whose query words occur once each
    (most chat turns). ``b = 0`` keeps the index's order. Ties keep the search order (newest first).
    """
    if b == 0 or not hits:
        return [Candidate(h.message_id, h.score, stems) for h in hits]
    n = len(view)
    mean = max(1.0, view.tokens() / n) if n else 1.0
    scored: list[tuple[float, int, SearchHit | RankedHit]] = []
    for k, hit in enumerate(hits):
        tokens = view.tokens_of(hit.message_id)
        size = mean if tokens is None else tokens
        scored.append((hit.score * (1 + _K1) / (1 + _K1 * (1 - b + b * size / mean)), k, hit))
    scored.sort(key=lambda row: (-row[0], row[1]))
    return [Candidate(hit.message_id, score, stems) for score, _, hit in scored]


def recall_report(
    strategy: Strategy, query: str | None, recall: RecallArg, asked: str | None, result: Any
) -> dict[str, Any] | None:
    """What recall did in a compile (``CompileResult.recall``): the query, the candidates found, the
    messages brought back, and when none was, a ``note`` saying why (no searchable word, no match,
    every match already in the context, or no room left beside the rest of the context). None when the
    compile asked for no recall. ``strategy`` is what :func:`with_recall` returned, ``query`` the query
    it used, ``recall`` and ``asked`` the compile's arguments."""
    if asked is None and recall is None:
        return None
    recalled = {s.id for m in result.messages for s in m.sources if s.kind == "recall"}
    report: dict[str, Any] = {
        "query": None if query is None else shown_query(query),
        "hits": 0,
        "recalled": len(recalled),
    }
    if not isinstance(strategy, RecallStrategy):
        if query is None:
            report["note"] = "no user turn with text to take the query from"
        elif not _searchable(query):
            report["note"] = "the query has no word to search for"
        else:
            report["note"] = "recall is off (RecallConfig share or candidates is 0)"
        return report
    ids = {group_of(c.message_id)[0] for c in strategy.candidates}  # a hit in any shard names the message
    report["hits"] = len(ids)
    if recalled:
        return report
    raw = {group_of(s.id)[0] for m in result.messages for s in m.sources if s.kind == "message"}
    if not ids:
        report["note"] = "no message matches the query"
    elif ids <= raw:
        report["note"] = "every message that matches the query is already in the context"
    else:
        report["note"] = (
            "no room: the rest of the context needs the whole budget (recall gives way first; a larger "
            "budget, or summaries sized for this one, leave room for it)"
        )
    return report


QUERY_SHOWN = 400
"""The most characters of the query a recall report repeats (``CompileResult.recall["query"]``, cut with
``…``): a 100,000-character query came back whole in every compile's report, over MCP too."""


def shown_query(query: str) -> str:
    """``query`` as reports and tools repeat it: at most :data:`QUERY_SHOWN` characters, cut on a cluster
    boundary with ``…``."""
    return query if len(query) <= QUERY_SHOWN else clip_end(query, QUERY_SHOWN - 1) + "…"


def _searchable(query: str) -> bool:
    try:
        return bool(query_terms(query))
    except ValueError:  # blank: only whitespace and invisible characters
        return False


def dated(stored_roles: Any) -> bool:
    """True when the namespace's imported conversation carries real dates (the importers record it)."""
    return isinstance(stored_roles, Mapping) and bool(stored_roles.get("dated"))
