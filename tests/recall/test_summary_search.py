"""Full-text search of summaries: ``ContextManager.search_summary_text``.

* Conformance: the same conversation compressed (offline summarizer) on memory, SQLite and PostgreSQL gives
  the same hit sets, and they are exactly the summaries of the namespace's fold holding a query word.
* Visibility: branch lineage and fork points, ``as_of``, namespaces, copies the fold ignores.
* The migration that indexes the summaries of a store written before summaries were indexed.
* Reader isolation (hypothesis): a reader never gets a summary hit holding another reader's audience-only text.
* Real data: a LoCoMo conversation compressed by the offline summarizer; a summary is found by topic.
"""

from __future__ import annotations

import importlib
import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import AutobiographicalConfig, AutobiographicalStrategy, ContextManager, MemoryStore
from context_journal.formats import import_into, read_transcript
from context_journal.recall import SummaryHit
from context_journal.recall.summaries import fold_at
from context_journal.stores import Op, Store
from context_journal.stores.fulltext import query_terms, stem, words
from context_journal.strategies.autobiographical import INHERIT_STATE
from context_journal.testing import ScriptedProvider
from tests.hypothesis_budget import examples

if TYPE_CHECKING:
    from tests.conftest import Backend

CFG: dict[str, Any] = {
    "head_window_tokens": 60,
    "recent_window_tokens": 100,
    "target_chunk_tokens": 80,
    "merge_threshold": 2,
}
DAY0 = datetime(2023, 7, 13, 9, 0, tzinfo=UTC)

TOPICS = [
    "the lighthouse keeper repaired the lantern before the storm",
    "a migration timeout broke module_3 on staging last night",
    "Café Tejo near the river opens at eight for breakfast",
    "the naïve budget estimate for dinner came to forty euros",
    "Priya presents the roadmap while Jonas covers hiring",
    "we booked flights TP537 and FR1212 to Lisbon for Tuesday",
    "the projector and spare HDMI cables are packed in the blue box",
    "the garden needs compost, tomato seedlings and a new hose",
]

QUERIES = [
    "lighthouse",
    "lantern storm",
    "module_3",
    "cafe",
    "CAFÉ",
    "naive",
    "roadmap hiring",
    "TP537",
    "HDMI",
    "tomato compost",
    "Who is presenting?",
    '"deploy*" NEAR(lantern -storm) body:hose (',
    "zebracode",
]


def conversation() -> list[dict[str, Any]]:
    out = []
    for i in range(48):
        topic = TOPICS[(i // 3) % len(TOPICS)]
        who = "user" if i % 2 == 0 else "assistant"
        out.append(
            {
                "participant": who,
                "content": f"Turn {i}: {topic}. Noted, item {i} of the list.",
                "id": f"m{i:02d}",
                "timestamp": DAY0 + timedelta(hours=i),
            }
        )
    return out


def compressed(store: Store, namespace: str | None = None, **kwargs: Any) -> ContextManager:
    cm = ContextManager.open(store=store, namespace=namespace, strategy=AutobiographicalStrategy(**CFG), **kwargs)
    cm.add_messages(conversation())
    cm.drain(wait=False)
    return cm


def fts5_term(word: str) -> str:
    return word if not 3 <= len(word.encode()) <= 64 else stem(word)


def expected(cm: ContextManager, query: str, as_of: int | None = None) -> set[str]:
    """The oracle: summaries of the namespace's fold (at ``as_of``) whose text holds a query word."""
    wanted = {fts5_term(t) for t in query_terms(query)}
    if as_of is None:
        rows = cm.search_summaries(limit=None)
    else:
        rows = list(fold_at(cm.store, cm.messages.branch_id, cm.namespace, as_of).summaries.values())
    return {s.id for s in rows if wanted & {fts5_term(w) for w in words(s.text)}}


def found(cm: ContextManager, query: str, **kwargs: Any) -> set[str]:
    hits = cm.search_summary_text(query, limit=1000, **kwargs)
    ids = [h.summary_id for h in hits]
    assert len(ids) == len(set(ids)), f"a summary hit twice for {query!r}"
    return set(ids)


# ---- conformance ---------------------------------------------------------------------------------------------


def _results(store: Store) -> tuple[dict[str, set[str]], dict[str, str], ContextManager]:
    cm = compressed(store)
    return {q: found(cm, q) for q in QUERIES}, {s.id: s.text for s in cm.search_summaries(limit=None)}, cm


def test_hit_sets_are_the_same_on_every_backend_and_match_the_fold(store: Store) -> None:
    reference, reference_texts, _ = _results(MemoryStore())  # the reference backend
    results, texts, cm = _results(store)
    assert texts == reference_texts  # the same summaries (ids and texts) were written ...
    assert results == reference  # ... and the same hit sets come back
    summaries = cm.search_summaries(limit=None)
    assert len({s.level for s in summaries}) >= 2, "the conversation must reach merged summaries"
    for q in QUERIES:
        assert results[q] == expected(cm, q), q
    hits = cm.search_summary_text("lighthouse lantern", limit=5)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert results["lighthouse"] and results["zebracode"] == set()
    assert results["cafe"] == results["CAFÉ"] and results["naive"]


def test_a_hit_carries_level_range_dates_and_a_marked_snippet(store: Store) -> None:
    cm = compressed(store)
    hits = cm.search_summary_text("lighthouse lantern", limit=50)
    assert hits and all(isinstance(h, SummaryHit) for h in hits)
    for h in hits:
        s = cm.get_summary(h.summary_id)
        assert (h.level, h.first_message_id, h.last_message_id) == (s.level, s.first_message_id, s.last_message_id)
        assert (h.first_sequence, h.last_sequence, h.message_count) == (
            s.first_sequence,
            s.last_sequence,
            s.message_count,
        )
        assert h.parent_id == s.parent_id
        first, last = int(h.first_message_id[1:]), int(h.last_message_id[1:])
        assert h.start == DAY0 + timedelta(hours=first) and h.end == DAY0 + timedelta(hours=last)
        assert "**lighthouse**" in h.snippet or "**lantern**" in h.snippet
        assert set(h.terms) <= {stem("lighthouse"), stem("lantern")} and h.terms
        assert h.score > 0 and h.sequence > 0
        data = h.to_dict()
        assert data["start"] == h.start.isoformat() and data["summary_id"] == h.summary_id
        json.dumps(data)
    assert {h.level for h in hits} >= {1, 2}  # merged summaries are searched too, naming their merge
    assert any(h.parent_id is not None for h in hits) and any(h.parent_id is None for h in hits)
    # a removed end message: the summaries that read it are retired (a stale mark); written again, the range
    # is still reported from the chunk, and the removed message's date is not known any more
    cm.remove_message(hits[0].first_message_id)
    retired = {h.summary_id for h in cm.search_summary_text("lighthouse lantern", limit=50)}
    assert hits[0].summary_id not in retired
    cm.drain()
    again = [h for h in cm.search_summary_text("lighthouse lantern", limit=50) if h.level == 1]
    opening = [h for h in again if h.first_message_id == hits[0].first_message_id]
    assert opening and all(h.start is None and h.end is not None for h in opening)


def test_summaries_stay_out_of_message_search_and_its_scores(store: Store) -> None:
    cm = ContextManager.open(store=store, strategy=AutobiographicalStrategy(**CFG))
    cm.add_messages(conversation())
    before = [(h.message_id, h.score) for h in cm.search_messages("lighthouse lantern cafe", limit=1000)]
    cm.drain(wait=False)
    assert cm.search_summaries(limit=None)
    assert [(h.message_id, h.score) for h in cm.search_messages("lighthouse lantern cafe", limit=1000)] == before
    assert store.search_text(["lighthouse"], ["compression/default"], 100) == []  # not in the message index
    assert store.search_summary_index(["lighthouse"], ["messages"], 100) == []  # nor messages in this one
    assert store.search_summary_index(["lighthouse"], ["compression/default"], 100)


def test_query_rules_are_those_of_message_search(store: Store) -> None:
    cm = compressed(store)
    for bad in ("", "   ", "\n\t", "\u200b", " \u200d\ufeff "):  # zero-width and BOM show as nothing
        with pytest.raises(ValueError, match="non-empty"):
            cm.search_summary_text(bad)
        with pytest.raises(ValueError, match="non-empty"):
            cm.search_messages(bad)
        with pytest.raises(ValueError, match="non-empty"):
            cm.compile(10_000, query=bad)
    for limit in (0, 1001, True):
        with pytest.raises(ValueError, match="limit"):
            cm.search_summary_text("lighthouse", limit=limit)
    with pytest.raises(ValueError, match="as_of"):
        cm.search_summary_text("lighthouse", as_of=-1)
    for syntax in ('"lantern', "lantern*", "NEAR(lantern", "body:lantern", "-lantern", "lantern)"):
        assert expected(cm, "lantern") <= found(cm, syntax) == expected(cm, syntax)  # NEAR, body: are plain words
    assert len(cm.search_summary_text("lighthouse", limit=1)) == 1
    # message search and summary search do not see each other's documents
    assert not {h.message_id for h in cm.search_messages("lighthouse", limit=1000)} & found(cm, "lighthouse")


# ---- visibility: as_of, branches, namespaces, copies the fold ignores -------------------------------------------


def test_as_of_shows_the_summaries_that_existed_then(store: Store) -> None:
    cm = ContextManager.open(store=store, strategy=AutobiographicalStrategy(**CFG))
    cm.add_messages(conversation())
    before = store.head_seq()
    cm.drain(wait=False, max_units=2)
    middle = store.head_seq()
    cm.drain(wait=False)
    assert found(cm, "lighthouse", as_of=before) == set()
    partial = found(cm, "lighthouse lantern tomato roadmap", as_of=middle)
    assert partial == expected(cm, "lighthouse lantern tomato roadmap", as_of=middle)
    assert partial < found(cm, "lighthouse lantern tomato roadmap")
    assert found(cm, "lighthouse", as_of=store.head_seq()) == found(cm, "lighthouse") == expected(cm, "lighthouse")


def test_a_fork_sees_its_parents_summaries_up_to_the_fork_and_never_its_siblings(store: Store) -> None:
    main = ContextManager.open(store=store, strategy=AutobiographicalStrategy(**CFG))
    main.add_messages(conversation()[:24])
    main.drain(wait=False)
    at_fork = found(main, "lighthouse lantern cafe module_3 budget")
    assert at_fork
    child = main.derive("b", strategy=AutobiographicalStrategy(**CFG))
    child.add_message("user", "Turn x: the walrus choir sang sea shanties on the pier. " * 6, id="w1")
    child.add_messages(conversation()[24:])
    child.drain(wait=False)
    main.add_message("user", "Turn y: the glacier survey found a blue ice cave. " * 6, id="g1")
    main.add_messages([dict(m, id=f"n{i}") for i, m in enumerate(conversation()[24:])])
    main.drain(wait=False)
    assert found(child, "walrus shanties") == expected(child, "walrus shanties") != set()
    assert found(main, "walrus shanties") == set()
    assert found(main, "glacier") == expected(main, "glacier") != set()
    assert found(child, "glacier") == set()
    query = "lighthouse lantern cafe module_3 budget"
    assert at_fork <= found(child, query) and at_fork <= found(main, query)
    child_only = found(child, query) - at_fork
    assert child_only and not child_only & found(main, query)


def test_another_namespace_and_ignored_copies_are_never_matched(store: Store) -> None:
    cm = compressed(store)
    other = ContextManager.open(store=store, namespace="other", strategy=AutobiographicalStrategy(**CFG))
    other.add_message("user", "Turn z: the okapi sanctuary opened a night trail. " * 8, id="o1")
    other.add_messages([dict(m, id=f"x{i}") for i, m in enumerate(conversation())])
    other.drain(wait=False)
    assert found(other, "okapi") == expected(other, "okapi") != set()
    assert found(cm, "okapi") == set()
    slot = "compression/default"
    own = {rec.seq for rec in store.read_slot(slot, cm.messages.branch_id)}
    assert all(h.sequence in own for h in cm.search_summary_text("lighthouse lantern", limit=100))

    # A second record of a summary id (another worker's answer, which the fold ignores) is never matched.
    target = cm.search_summaries(limit=None)[0]
    body = {**target.to_body(), "text": "quixotic zeppelin " + target.text}
    with store.transaction() as tx:
        tx.append(cm.messages.branch_id, slot, f"summary/{target.id}", body, Op.EDIT)
    # ... nor is a summary the fold rejects (an L1 for a chunk that does not exist)
    orphan = {**target.to_body(), "id": "sum1_orphan", "level": 1, "source_ids": ["chk_nowhere"]}
    orphan["text"] = "quixotic orphan"
    with store.transaction() as tx:
        tx.append(cm.messages.branch_id, slot, "summary/sum1_orphan", orphan)
    assert cm.store.search_summary_index(["quixotic"], [slot], 10)  # both are indexed ...
    assert found(cm, "quixotic zeppelin orphan") == set()  # ... and neither is visible
    assert cm.get_summary(target.id).text == target.text


def test_a_namespace_of_another_reader_is_not_searched_through_inheritance(store: Store) -> None:
    host = ContextManager.open(store=store)
    host.add_messages(
        [
            {
                "participant": "user",
                "content": [
                    {"type": "text", "text": f"Note {i}: the shared harbour timetable changes on Monday. " * 3},
                    {"type": "text", "text": f"secret {i}: ann's passphrase is marmalade. " * 3, "audience": ["ann"]},
                ],
            }
            for i in range(30)
        ]
    )
    ann = ContextManager.open(
        store=store, namespace="ann-ns", view_reader="ann", strategy=AutobiographicalStrategy(**CFG)
    )
    ann.drain(wait=False)
    assert found(ann, "marmalade")  # ann's own summaries hold her block
    plain = ContextManager.open(store=store, namespace="plain-ns", strategy=AutobiographicalStrategy(**CFG))
    plain.drain(wait=False)
    assert found(plain, "harbour") and found(plain, "marmalade") == set()
    main = store.get_branch("main").id
    head = store.head_seq()
    for parent in ("ann-ns", "plain-ns"):
        with store.transaction() as tx:
            tx.put_state(main, f"bob-{parent}/reader", "bob")
            tx.put_state(main, f"bob-{parent}/{INHERIT_STATE}", {"namespace": parent, "as_of": head})
    bob_from_ann = ContextManager.open(store=store, namespace="bob-ann-ns", view_reader="bob")
    bob_from_plain = ContextManager.open(store=store, namespace="bob-plain-ns", view_reader="bob")
    for query in ("marmalade passphrase", "harbour timetable", "secret note"):
        for hit in bob_from_ann.search_summary_text(query, limit=1000):
            raise AssertionError(f"bob got a summary of ann's namespace: {hit}")
    assert found(bob_from_plain, "harbour timetable") == found(plain, "harbour timetable") != set()
    assert found(bob_from_plain, "marmalade") == set()


# ---- the migration of a store written before summaries were indexed ----------------------------------------------


def test_the_migration_indexes_the_summaries_of_an_older_store(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not backend.durable:
        pytest.skip("a memory store is never older than its index")
    module = importlib.import_module(f"context_journal.stores.{backend.name}")
    full = list(module.MIGRATIONS)
    later_ones = ("full-text index: summaries", "full-text index: non-ASCII text folded as query words are")
    monkeypatch.setattr(module, "MIGRATIONS", [m for m in full if m.name not in later_ones])
    assert len(module.MIGRATIONS) == len(full) - (2 if backend.name == "sqlite" else 1)
    base = importlib.import_module("context_journal.stores.base")
    monkeypatch.setattr(base, "is_summary_record", lambda slot, item: False)  # what the previous version wrote
    old = backend.new()
    writer = compressed(old)
    assert writer.search_summaries(limit=None)
    writer.close()
    monkeypatch.undo()

    store = backend.reopen(old)  # the migration runs now
    cm = ContextManager.open(store=store, strategy=AutobiographicalStrategy(**CFG))
    assert found(cm, "lighthouse")
    for q in QUERIES:
        assert found(cm, q) == expected(cm, q), q
    slot = "compression/default"
    docs = [h.seq for h in store.search_summary_index(["lighthouse", "lantern", "cafe", "hdmi"], [slot], 10_000)]
    assert docs and len(docs) == len(set(docs))  # nothing indexed twice
    again = backend.reopen(store)  # the migration is recorded: it does not run twice
    docs_again = [h.seq for h in again.search_summary_index(["lighthouse", "lantern", "cafe", "hdmi"], [slot], 10_000)]
    assert sorted(docs_again) == sorted(docs)
    later = ContextManager.open(store=again, strategy=AutobiographicalStrategy(**CFG))
    later.add_message("user", "Turn w: the kiln of the pottery studio cracked in the frost. " * 8, id="k1")
    later.add_messages([dict(m, id=f"k{i + 2}") for i, m in enumerate(conversation())])
    later.drain(wait=False)  # written after the migration: indexed with the write
    assert found(later, "kiln frost") == expected(later, "kiln frost") != set()


# ---- reader isolation (hypothesis) ----------------------------------------------------------------------------

READERS = ["ann", "bob", "cy"]
TAG = re.compile(r"tag\d+x\d+")

audiences = st.one_of(st.none(), st.lists(st.sampled_from(READERS), min_size=1, max_size=2, unique=True))
ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.lists(audiences, min_size=1, max_size=3)),
        st.tuples(st.just("tick"), st.integers(1, 3)),
        st.tuples(st.just("search"), st.integers(0, 10_000)),
    ),
    min_size=4,
    max_size=30,
)


def _echo(request: Any) -> str:
    # the summary repeats every tag it was shown: a block leaking into a request would leak into the summary
    return "memory " + " ".join(dict.fromkeys(TAG.findall(request.model_dump_json())))


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=ops)
def test_a_reader_never_gets_a_summary_holding_another_readers_block(ops: list[Any]) -> None:
    store = MemoryStore()
    host = ContextManager.open(store=store)
    allowed: dict[str, set[str | None]] = {}
    managers = {
        r: ContextManager.open(
            store=store,
            namespace=f"ns-{r}",
            view_reader=r,
            strategy=AutobiographicalStrategy(**CFG),
            summarizer=ScriptedProvider(default=_echo),
        )
        for r in [*READERS, None]
    }
    n = 0

    def visible(tag: str, reader: str | None) -> bool:
        aud = allowed[tag]
        return None in aud or (reader is not None and reader in aud)

    def check(pick: int) -> None:
        tags = sorted(allowed)
        query = " ".join(tags[(pick + k * 7) % len(tags)] for k in range(3)) if tags else "tag0x0"
        for reader, cm in managers.items():
            hits = cm.search_summary_text(query, limit=1000)
            for hit in hits:
                text = cm.get_summary(hit.summary_id).text
                for tag in TAG.findall(text + " " + hit.snippet):
                    assert visible(tag, reader), (tag, reader, allowed[tag])
            assert {h.summary_id for h in hits} == expected(cm, query)  # everything it may see, nothing else

    for op in ops:
        if op[0] == "add":
            blocks = []
            for j, aud in enumerate(op[1]):
                tag = f"tag{n}x{j}"
                allowed[tag] = {None} if aud is None else set(aud)
                block: dict[str, Any] = {"type": "text", "text": f"{tag} " + "filler words " * 8}
                if aud is not None:
                    block["audience"] = aud
                blocks.append(block)
            host.add_message("user", blocks)
            n += 1
        elif op[0] == "tick":
            for cm in managers.values():
                for _ in range(op[1]):
                    cm.tick()
        else:
            check(op[1])
    for cm in managers.values():
        cm.drain(wait=False)
    check(0)
    check(3)


# ---- real data ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def locomo(data_dir: Path) -> Iterator[ContextManager]:
    store = MemoryStore()
    import_into(store, read_transcript(data_dir / "locomo" / "locomo-dev7.json", format="locomo"))
    strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(2000))
    cm = ContextManager.open(store=store, namespace="locomo:conv-26", isolate=True, strategy=strategy)
    assert cm.drain().summaries > 10  # the offline summarizer
    yield cm
    cm.close()


def test_a_locomo_summary_is_found_by_topic(locomo: ContextManager) -> None:
    hits = locomo.search_summary_text("pottery class", limit=5)
    assert hits, "no summary of conv-26 mentions pottery"
    top = hits[0]
    assert "**pottery**" in top.snippet or "**class**" in top.snippet
    assert top.start is not None and top.end is not None and top.start <= top.end
    assert top.start.year == 2023
    # the summary stands for messages that talk about it (the offline summarizer is extractive)
    ids = [m.id for m in locomo.get_all_messages()]
    covered = locomo.get_all_messages()[ids.index(top.first_message_id) : ids.index(top.last_message_id) + 1]
    assert any("pottery" in json.dumps(m.content_dicts()).lower() for m in covered)
    assert {h.summary_id for h in locomo.search_summary_text("pottery", limit=1000)} == expected(locomo, "pottery")
    assert locomo.search_summary_text("adoption agencies", limit=3)


def test_locomo_summaries_of_one_conversation_are_not_found_from_another(locomo: ContextManager) -> None:
    other = ContextManager.open(store=locomo.store, namespace="locomo:conv-30", isolate=True)
    assert other.search_summary_text("pottery class", limit=10) == []


def test_a_pattern_that_backtracks_without_end_is_stopped_with_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A review found: ``search_summaries(regex=...)`` ran the pattern on Python's ``re``, so a pattern
    that backtracks without end held the handle (and over MCP its lock, so every other tool waited).
    A pattern given as text runs with a time limit for the whole search: ValueError naming the limit;
    a valid pattern still finds what it finds, an invalid one is still ``re.error``."""
    import context_journal.compression.queries as queries

    monkeypatch.setattr(queries, "REGEX_SECONDS", 0.3)
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(**CFG))
    for i in range(40):
        cm.add_message("user" if i % 2 == 0 else "assistant", f"note {i}: " + "a" * 60 + f"b the lighthouse {i}.")
    cm.drain(wait=False)
    assert cm.search_summaries(limit=None)
    started = time.monotonic()
    with pytest.raises(ValueError, match=r"ran longer than 0\.3 s"):
        cm.search_summaries(regex=r"(a|aa)+$", limit=None)
    assert time.monotonic() - started < 5
    assert cm.search_summaries(regex=r"lighthouse \d+", limit=None)
    with pytest.raises(re.error):
        cm.search_summaries(regex="(unclosed", limit=None)
    assert cm.search_summaries(regex=re.compile("lighthouse"), limit=None)  # a compiled pattern runs as given
    # Compiling is bounded too (the time limit covers matching only): 9.5 s, or every byte of memory.
    for pattern in (r"(?:a{3000}){3000}", r"(?:a{,999999}){,999999}", r"a{1000000000}", r"x{" + "9" * 5000 + "}"):
        started = time.monotonic()
        with pytest.raises(ValueError, match="repeats too much"):
            cm.search_summaries(regex=pattern, limit=None)
        assert time.monotonic() - started < 1
    assert cm.search_summaries(regex=r"lighthouse \d{1,3}\.", limit=None)  # counted repeats of a sane size


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((5,), TypeError, "text must be a string or None, got int"),
        ((b"lighthouse",), TypeError, "got bytes"),
        ((None, 7), TypeError, "regex must be a string"),
        ((None, None, -1), ValueError, "limit must be None"),
        ((None, None, 0), ValueError, "limit must be None"),
        ((None, None, True), ValueError, "limit must be None"),
        ((None, None, 2.5), ValueError, "limit must be None"),
    ],
)
def test_summary_search_arguments_of_the_wrong_kind_are_named(args: tuple[Any, ...], error: type, match: str) -> None:
    """A wrong argument to ``search_summaries`` is a typed error naming it (an int query raised
    AttributeError from inside the filter, a negative or bool limit was taken as a slice)."""
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(**CFG))
    for i in range(40):
        cm.add_message("user" if i % 2 == 0 else "assistant", f"note {i}: the lighthouse keeper logs ship {i}.")
    cm.drain(wait=False)
    assert len(cm.search_summaries("lighthouse", limit=1)) == 1
    with pytest.raises(error, match=match):
        cm.search_summaries(*args)
