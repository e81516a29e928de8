"""SQLite's split ranking (``SQLiteStore._text_ranked``): the exact best k of an OR query without scoring
every document that holds one of its common words.

On a corpus with a few very common words (the speakers' names, which every document's header holds, and
a Zipf-like vocabulary), every query is ranked twice on the same store: split (the threshold of
``TEXT_SPLIT_MIN_ROWS`` lowered to 0) and as one OR query (threshold out of reach). The hits, their order
(ties newest first) and their scores must agree, and so must the memory backend's hit lists on the same
data; the split must also actually run for most of the queries, or the test proves nothing.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from context_journal import ContextManager
from context_journal.stores import MemoryStore, SQLiteStore
from context_journal.stores.fulltext import query_terms

STAMP = 1_683_500_000.0  # 7 May 2023: every message carries this date (its words are in every header)
N_DOCS = 1500
SYLLABLES = ["ka", "lo", "mi", "nu", "po", "ra", "si", "tu", "vo", "zu"]


def vocabulary(size: int) -> list[str]:
    """``size`` distinct made-up words that Porter leaves as they are (no suffix it strips)."""
    rng = random.Random(7)
    out: dict[str, None] = {}
    while len(out) < size:
        out.setdefault("".join(rng.choice(SYLLABLES) for _ in range(3)), None)
    return list(out)


VOCAB = vocabulary(400)


def corpus() -> list[tuple[str, str]]:
    """(participant, text) of N_DOCS messages: Zipf-like words, a few repeated within a message."""
    rng = random.Random(11)
    weights = [1 / (rank + 1) for rank in range(len(VOCAB))]
    out: list[tuple[str, str]] = []
    for i in range(N_DOCS):
        chosen = rng.choices(VOCAB, weights, k=rng.randint(3, 14))
        out.append(("ann" if i % 3 else "bob", " ".join(chosen)))
    return out


def queries() -> list[str]:
    """Queries mixing common words (speakers, top-ranked words) with middling and rare ones."""
    rng = random.Random(5)
    out: list[str] = []
    for _ in range(40):
        words = [rng.choice(["ann", "bob"])] if rng.random() < 0.7 else []
        words += rng.sample(VOCAB[:8], rng.randint(0, 2))
        words += rng.sample(VOCAB[8:60], rng.randint(1, 3))
        words += rng.sample(VOCAB[60:], rng.randint(0, 2))
        rng.shuffle(words)
        out.append(" ".join(words))
    return out


def fill(cm: ContextManager) -> None:
    cm.add_messages([{"participant": who, "content": text, "timestamp": STAMP} for who, text in corpus()])


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SQLiteStore, MemoryStore]]:
    path: Path = tmp_path_factory.mktemp("split") / "split.db"
    sqlite, memory = SQLiteStore(path), MemoryStore()
    for store in (sqlite, memory):
        cm = ContextManager.open(store=store)
        fill(cm)
        cm.close()
    yield sqlite, memory
    sqlite.close()
    memory.close()


def ranked(store: SQLiteStore, terms: list[str], k: int, split: bool) -> list[tuple[int, int, float]]:
    store.TEXT_SPLIT_MIN_ROWS = 0 if split else 10**12
    try:
        return [(h.seq, h.group, h.score) for h in store.search_text(terms, ["messages"], k)]
    finally:
        del store.TEXT_SPLIT_MIN_ROWS


@pytest.mark.parametrize("k", [1, 5, 20, 100, 200])
def test_split_ranking_is_the_full_ranking(stores: tuple[SQLiteStore, MemoryStore], k: int) -> None:
    sqlite, memory = stores
    used = 0
    for query in queries():
        terms = query_terms(query)
        split = ranked(sqlite, terms, k, split=True)
        full = ranked(sqlite, terms, k, split=False)
        assert [(s, g) for s, g, _ in split] == [(s, g) for s, g, _ in full], query
        assert [sc for _, _, sc in split] == pytest.approx([sc for _, _, sc in full], rel=1e-12), query
        mem = memory.search_text(terms, ["messages"], k)
        assert [h.seq for h in mem] == [s for s, _, _ in full], query
        sqlite.TEXT_SPLIT_MIN_ROWS = 0
        try:
            used += sqlite._text_ranked(terms, k) is not None
        finally:
            del sqlite.TEXT_SPLIT_MIN_ROWS
    assert used >= 10, f"the split ran for only {used} of 40 queries"


def test_index_totals_are_what_bm25_reads(stores: tuple[SQLiteStore, MemoryStore]) -> None:
    sqlite, _ = stores
    totals = sqlite._text_totals()
    assert totals is not None
    rows, tokens = totals
    assert rows == N_DOCS
    # Every document: the participant, the date's three words ("7 May 2023") and its text's words.
    assert tokens == sum(1 + 3 + len(text.split()) for _, text in corpus())


def test_word_counts_are_cached_as_lower_bounds(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "grow.db")
    cm = ContextManager.open(store=store)
    cm.add_messages([{"participant": "ann", "content": "kalomi nupora", "timestamp": STAMP}] * 40)
    assert cm.search_messages("kalomi", limit=5)  # folds the pending rows
    rows = store._text_totals()
    assert rows is not None
    assert store._text_docs(["kalomi", "situ"], rows[0]) == [40, 0]
    cm.add_messages([{"participant": "ann", "content": "kalomi", "timestamp": STAMP}] * 5)
    assert cm.search_messages("kalomi", limit=5)
    grown = store._text_totals()
    assert grown is not None and grown[0] == 45
    # Less than a quarter more documents: the cached count stands (a lower bound of today's 45).
    assert store._text_docs(["kalomi"], grown[0]) == [40]
    cm.add_messages([{"participant": "ann", "content": "kalomi", "timestamp": STAMP}] * 20)
    assert cm.search_messages("kalomi", limit=5)
    grown = store._text_totals()
    assert grown is not None
    assert store._text_docs(["kalomi"], grown[0]) == [65]
    cm.close()
    store.close()
