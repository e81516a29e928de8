"""Recall: full-text search over the journal, and compiles that bring back what a query asks about.

- :func:`search_messages` — the best visible messages for a query (branch lineage, ``as_of``, slots and
  reader views obeyed), with scores and snippets.
- :func:`search_summary_text` — the best visible summaries for a query (the namespace's own, for its
  reader, on its branch), with their level, covered range, scores and snippets.
- :class:`RecallConfig` / :class:`RecallStrategy` — a recall section in any strategy's compile
  (``ContextManager.compile(max_tokens, query=...)``).
"""

from .search import SearchHit, search_messages
from .spans import RecallConfig
from .strategy import RecallStrategy
from .summaries import SummaryHit, search_summary_text

__all__ = ["RecallConfig", "RecallStrategy", "SearchHit", "SummaryHit", "search_messages", "search_summary_text"]
