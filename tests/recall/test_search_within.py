"""A search whose filters hide most candidates ranks only what it may show.

``Store.search_text(..., within=seqs)`` ranks only the documents of the records ``seqs``: on every backend
its hits are the unrestricted ranking's hits of those records, in the same order with the same scores.
``search_messages`` turns to it once a round of candidates held too few visible hits (another branch's
writes, old versions, a participant or time filter, a past ``as_of``), so a filter that matches nothing
stops after two small rounds instead of ranking every match of the query, and what it finds is what the
unrestricted search finds.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from context_journal import ContextManager, MemoryStore
from context_journal.recall import search as search_module
from context_journal.stores import Store
from context_journal.stores.fulltext import query_terms

WORDS = ["harbour", "kite", "river", "garden", "violin", "pottery", "camping", "lake", "museum", "painting"]
STAMP = 1_683_500_000.0


def _fill(cm: ContextManager, n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        text = " ".join(rng.choices(WORDS, k=rng.randint(2, 9)))
        who = "carol" if i == n // 2 else ("ann" if i % 2 else "bob")
        rows.append({"participant": who, "content": f"{text} turn {i}", "timestamp": STAMP + 60 * i})
    return cm.add_messages(rows)


def test_within_is_the_full_ranking_restricted(store: Store) -> None:
    cm = ContextManager.open(store=store)
    _fill(cm, 240)
    slot = cm._messages.slot
    seqs = [e.seq for e in cm._messages.iter_entries()]
    rng = random.Random(5)
    for query in ["harbour kite", "river", "violin lake museum", "turn garden"]:
        terms = query_terms(query)
        full = store.search_text(terms, [slot], 10_000)
        for size in (1, 7, 60, 240):
            chosen = frozenset(rng.sample(seqs, size))
            expected = [(h.seq, h.group, h.item) for h in full if h.seq in chosen]
            for k in (1, 5, 50):
                got = store.search_text(terms, [slot], k, within=chosen)
                assert [(h.seq, h.group, h.item) for h in got] == expected[:k], (query, size, k)
                scores = {h.seq: h.score for h in full}
                assert [h.score for h in got] == pytest.approx([scores[h.seq] for h in got], rel=1e-9)
    assert store.search_text(query_terms("river"), [slot], 10, within=frozenset()) == []


class _Counting:
    """Records the ``(limit, within size)`` of every ``search_text`` call of a store."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
        self.asks: list[tuple[int, int | None]] = []
        real = store.search_text

        def counted(terms: Any, slots: Any, limit: int, *, within: Any = None) -> Any:
            self.asks.append((limit, None if within is None else len(within)))
            return real(terms, slots, limit, within=within)

        monkeypatch.setattr(store, "search_text", counted)


def _brute(cm: ContextManager, query: str, **filters: Any) -> list[str]:
    """The unrestricted search's hits passing the filters, as ids (every visible match ranked)."""
    names = filters.get("participants")
    lo, hi = filters.get("since"), filters.get("until")
    out = []
    for hit in cm.search_messages(query, limit=1000):
        stamp = hit.timestamp.timestamp()
        if names is not None and hit.participant not in names:
            continue
        if (lo is not None and stamp < lo) or (hi is not None and stamp >= hi):
            continue
        out.append(hit.message_id)
    return out


@pytest.mark.parametrize(
    "filters",
    [
        {"participants": ["nobody"]},
        {"participants": ["carol"]},
        {"since": STAMP + 60 * 590},
        {"since": STAMP + 60 * 100, "until": STAMP + 60 * 103},
        {"until": STAMP - 1},
    ],
)
def test_filters_that_hide_most_candidates_rank_only_what_they_keep(
    store: Store, monkeypatch: pytest.MonkeyPatch, filters: dict[str, Any]
) -> None:
    cm = ContextManager.open(store=store)
    _fill(cm, 600)
    expected = _brute(cm, "harbour river kite", **filters)
    counting = _Counting(monkeypatch, store)
    hits = cm.search_messages("harbour river kite", limit=10, **filters)
    assert [h.message_id for h in hits] == expected[:10]
    # Two unrestricted rounds (20 and 80 candidates), then at most one restricted one: never the ~590
    # matches of the query.
    assert [limit for limit, _ in counting.asks] in ([20], [20, 80], [20, 80, 80])
    assert all(size is None or size <= 600 for _, size in counting.asks)
    if not expected:
        assert all(size is None for _, size in counting.asks)  # nothing may be shown: nothing restricted


def test_a_past_as_of_ranks_only_the_versions_visible_then(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    cm = ContextManager.open(store=store)
    ids = _fill(cm, 400)
    early = cm.get_message(ids[9]).sequence
    expected = [h.message_id for h in cm.search_messages("harbour", limit=1000) if ids.index(h.message_id) < 10]
    counting = _Counting(monkeypatch, store)
    hits = cm.search_messages("harbour", limit=5, as_of=early)
    assert [h.message_id for h in hits] == expected[:5]
    assert counting.asks[-1] == (80, 10)


class _NoWithin(MemoryStore):
    search_within = False


def test_a_backend_without_within_pages_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    store = _NoWithin()
    cm = ContextManager.open(store=store)
    _fill(cm, 600)
    expected = _brute(cm, "harbour river kite", participants=["carol"])
    hits = cm.search_messages("harbour river kite", limit=10, participants=["carol"])
    assert [h.message_id for h in hits] == expected[:10]
    with pytest.raises(NotImplementedError, match="does not restrict"):
        store.search_text(query_terms("river"), [cm._messages.slot], 10, within={1})
    assert search_module._RESTRICT_AFTER == 80


def test_a_blank_participant_filter_is_refused() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hello world")
    for bad in ("", "\u200b", ["ann", " "]):
        with pytest.raises(ValueError, match="participants"):
            cm.search_messages("hello", participants=bad)
    assert len(cm.search_messages("hello", participants=[])) == 1  # no filter
