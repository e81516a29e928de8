"""Wiring recall into a compile: the query (given, or the newest user turn) and the wrapped strategy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ..compile import Roles
from ..messages import MessageStore
from ..stores.fulltext import query_terms, stem
from ..strategies.base import Strategy
from ..tokens import TokenCounter
from ..views import MessageView
from .lines import LineCache
from .search import search_messages
from .spans import Candidate, RecallConfig
from .strategy import RecallStrategy

__all__ = ["RecallArg", "newest_user_text", "with_recall"]

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
            return strategy, None
    terms = query_terms(query)  # raises ValueError for an empty query
    if not terms or config.share == 0 or config.candidates == 0:
        return strategy, query
    hits = search_messages(messages, query, reader=reader, limit=min(config.candidates, 1000), snippets=False)
    stems = frozenset(stem(t) for t in terms)
    candidates = [Candidate(h.message_id, h.score, stems) for h in hits]
    show_dates = dates if config.dates is None else config.dates
    return RecallStrategy(strategy, candidates, config, counter, show_dates, reader, lines), query


def dated(stored_roles: Any) -> bool:
    """True when the namespace's imported conversation carries real dates (the importers record it)."""
    return isinstance(stored_roles, Mapping) and bool(stored_roles.get("dated"))
