"""The search a compile with ``query=`` makes: ``ranked_ids`` is ``search_messages(..., snippets=False)``.

A recall compile needs only each hit's message id and score (``by_length`` re-ranks them), so it asks
``ranked_ids``, which makes no :class:`SearchHit` and no timestamp per hit. Its hits must be the search's
hits exactly (same ids, order and scores) for every reader, after edits and removals, on every backend:
reader isolation and visibility are the search's, not a second implementation's.
"""

from __future__ import annotations

import random

import pytest

from context_journal import ContextManager
from context_journal.recall.search import ranked_ids, search_messages
from context_journal.stores import Store

WORDS = ["harbour", "kite", "river", "garden", "violin", "pottery", "camping", "lake", "museum", "painting"]


def _fill(cm: ContextManager, n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    ids: list[str] = []
    for i in range(n):
        text = " ".join(rng.choices(WORDS, k=rng.randint(2, 8)))
        if i % 5 == 0:  # a block only ann may read, beside one everyone reads
            content: list[dict[str, object]] = [
                {"type": "text", "text": f"{text} secret {i}", "audience": ["ann"]},
                {"type": "text", "text": f"turn {i}"},
            ]
            ids.append(cm.add_message("bob", content))
        else:
            ids.append(cm.add_message("ann" if i % 2 else "bob", f"{text} turn {i}"))
    return ids


@pytest.mark.parametrize("limit", [1, 10, 200])
def test_ranked_ids_are_the_search_hits(store: Store, limit: int) -> None:
    cm = ContextManager.open(store=store)
    ids = _fill(cm, 120)
    cm.edit_message(ids[3], "violin harbour edited")
    cm.remove_message(ids[8])
    for reader in (None, "ann", "bob"):
        for query in ["harbour kite", "river secret", "violin lake museum", "turn garden", "secret"]:
            hits = search_messages(cm._messages, query, reader=reader, limit=limit, snippets=False)
            ranked = ranked_ids(cm._messages, query, reader=reader, limit=limit)
            assert [(h.message_id, h.score) for h in hits] == [(r.message_id, r.score) for r in ranked], (
                reader,
                query,
            )
    with pytest.raises(ValueError):
        ranked_ids(cm._messages, "   ", limit=10)
    with pytest.raises(ValueError):
        ranked_ids(cm._messages, "river", limit=0)
