"""The full-text index (DESIGN.md 2.8) on every backend: the same hit sets on the same data.

Every test runs on memory, SQLite and PostgreSQL through the ``backend`` fixture. The expected hit sets
are written out by hand (words are cut on anything but letters and digits, lowercased, diacritics removed,
Porter-stemmed; a query is its words minus stopwords, OR-ed); a backend that returns them returns the same
sets as the others. Also here: visibility (edits, removals, forks, ``as_of``, readers), queries that are
empty or full of FTS syntax, the backfill of a store written before the index existed (resumable, nothing
indexed twice), and the PostgreSQL text-search configuration.
"""

from __future__ import annotations

import importlib
import uuid
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest

from context_journal import ContextManager
from context_journal.stores import Store
from context_journal.stores.fulltext import stem, words

if TYPE_CHECKING:
    from tests.conftest import Backend

# A 72-character identifier: FTS5 leaves words over 64 bytes unstemmed, and so must every backend.
CHECKSUM = "3f9a7c0b" * 9

TOOL_USE = {"type": "tool_use", "id": "toolu_01", "name": "search_flights", "input": {"from": "BER", "to": "LIS"}}
TOOL_RESULT = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "Two flights found: TP537 and FR1212."}

CONVERSATION: list[tuple[str, str, Any]] = [
    ("m01", "user", "We're planning the offsite in Lisbon next month. Can you find a quiet café near the river?"),
    ("m02", "assistant", "Sure. Café Tejo sits near the river and opens at 8. Another option: Cafe Aurora in Alfama."),
    ("m03", "user", "Book a table at Café Tejo for Tuesday morning, eight people."),
    ("m04", "assistant", "Booked: Tuesday 09:00, eight people, under the name Dana."),
    ("m05", "user", "Now the release. The deployment of module_3 failed on staging last night."),
    ("m06", "assistant", "The staging logs show a migration timeout in module_3. I suggest a rollback to build 41."),
    ("m07", "user", "Do the rollback, then rerun the migration with a longer timeout."),
    ("m08", "assistant", "Rolled back to build 41. The migration finished in 95 seconds with the new timeout."),
    ("m09", "user", "Deploy module 3 again tonight, and keep the old build around."),
    ("m10", "assistant", "Deployed. Build 42 went live; build 41 stays available for a quick rollback."),
    ("m11", "user", "What will the weather in Lisbon be like on Tuesday?"),
    ("m12", "assistant", "Sunny, 24 degrees, light wind from the north-west."),
    ("m13", "user", "Great. Remind me to bring the projector and the spare HDMI cables."),
    ("m14", "assistant", "Reminder set: projector and spare HDMI cables, Monday 18:00."),
    ("m15", "user", "Draft a short agenda: welcome, roadmap review, hiring plan, dinner."),
    ("m16", "assistant", "Agenda: 1) welcome coffee 2) roadmap review 3) hiring plan 4) dinner at Taberna Alfama."),
    ("m17", "user", "Who presents the roadmap?"),
    ("m18", "assistant", "Priya presents the roadmap; Jonas covers hiring."),
    ("m19", "user", "Add a naïve budget estimate for the dinner: forty euros per person."),
    ("m20", "assistant", "Estimate: eight people at forty euros, three hundred twenty euros in total."),
    ("m21", "user", "Let the team choose the restaurants themselves."),
    ("m22", "assistant", [{"type": "text", "text": "Checking flights."}, TOOL_USE]),
    ("m23", "user", [TOOL_RESULT]),
    ("m24", "assistant", f"Checksum of the agenda file: {CHECKSUM}"),
    ("m25", "user", "Thanks, that covers the whole plan."),
]

# query -> the ids of the messages it must find, worked out by hand.
EXPECTED: dict[str, set[str]] = {
    # "café" and "Cafe" fold to "cafe"; "Tejo" adds nothing new.
    "cafe": {"m01", "m02", "m03"},
    "CAFÉ Tejo": {"m01", "m02", "m03"},
    # "Rolled back" is two other words.
    "rollback": {"m06", "m07", "m10"},
    # Porter: deploy/deployed -> "deploi", but deployment -> "deploy" (m05 is not a hit).
    "deploy": {"m09", "m10"},
    # The underscore separates words: "module" and "3" (m16's "3) hiring plan" holds the word 3).
    "module_3": {"m05", "m06", "m09", "m16"},
    # Quotes, *, NEAR, -, a column filter and a stray parenthesis are plain words: deploy OR near OR
    # rollback OR staging OR body OR logs.
    '"deploy*" NEAR(rollback -staging) body:logs (': {"m01", "m02", "m05", "m06", "m07", "m09", "m10"},
    "naive": {"m19"},
    "naïve": {"m19"},
    # Only stopwords: they are searched (no backend drops stopwords from its index).
    "themselves?": {"m21"},
    "Lisbon": {"m01", "m11"},
    "eight people": {"m03", "m04", "m20"},
    # Tool names and tool results are indexed ("search_flights" holds the word "flights").
    "flight": {"m22", "m23"},
    "TP537": {"m23"},
    CHECKSUM: {"m24"},
    # "presents" and "presenting" stem alike; the question's other words are stopwords.
    "Who is presenting?": {"m17", "m18"},
    "weather OR (forecast AND NOT sunny)": {"m11", "m12"},
}


# A fixed time, one minute per message: an index may hold a message's date ("13 July 2023"), whose words
# must not meet the queries' (no 13, July or 2023 in the conversation).
DAY0 = datetime(2023, 7, 13, 9, 0, tzinfo=UTC)


def write_conversation(cm: ContextManager) -> None:
    cm.add_messages(
        [
            {"participant": who, "content": content, "id": mid, "timestamp": DAY0 + timedelta(minutes=i)}
            for i, (mid, who, content) in enumerate(CONVERSATION)
        ]
    )


def hits(cm: ContextManager, query: str, **kwargs: Any) -> set[str]:
    found = [h.message_id for h in cm.search_messages(query, limit=1000, **kwargs)]
    assert len(found) == len(set(found)), f"a message hit twice for {query!r}"
    return set(found)


def read_words(content: Any) -> list[str]:
    """Words a model reads in a message's content (text, tool name and input values, tool result)."""
    if isinstance(content, str):
        return words(content)
    out: list[str] = []
    for block in content:
        if block["type"] == "text":
            out += words(block["text"])
        elif block["type"] == "tool_use":
            out += words(block["name"]) + [w for v in block["input"].values() for w in words(v)]
        elif block["type"] == "tool_result":
            out += words(block["content"])
    return out


def fts5_term(word: str) -> str:
    """The term FTS5's ``porter`` tokenizer indexes for a word: Porter's stem, except for words under 3 or
    over 64 bytes, which it leaves as they are."""
    return word if not 3 <= len(word.encode()) <= 64 else stem(word)


@pytest.fixture
def cm(store: Store) -> Iterator[ContextManager]:
    manager = ContextManager.open(store=store)
    write_conversation(manager)
    yield manager
    manager.close()


# ---- hit sets ----------------------------------------------------------------------------------------------


def test_hit_sets_worked_out_by_hand(cm: ContextManager) -> None:
    found = {query: hits(cm, query) for query in EXPECTED}
    assert found == EXPECTED


def test_every_word_finds_every_message_holding_it(cm: ContextManager) -> None:
    # The oracle is FTS5's: a message matches a word when one of its words (or its participant's name)
    # has the same term. Words that Porter changes but FTS5 leaves alone ("a", "is") are left to
    # test_short_words_are_not_stemmed, with the words whose terms they would meet.
    held = {mid: [*words(who), *read_words(content)] for mid, who, content in CONVERSATION}
    vocabulary = sorted({w for found in held.values() for w in found})
    odd = {w for w in vocabulary if fts5_term(w) != stem(w)}
    clashing = {fts5_term(w) for w in odd} | {stem(w) for w in odd}
    checked = 0
    for word in vocabulary:
        if word in odd or fts5_term(word) in clashing:
            continue
        expected = {mid for mid, found in held.items() if fts5_term(word) in {fts5_term(w) for w in found}}
        assert hits(cm, word) == expected, word
        checked += 1
    assert checked > 150


def test_an_invisible_character_inside_a_word_does_not_split_it(cm: ContextManager) -> None:
    """A review found: a zero-width space inside "password" made it two words, neither of them the one
    asked for. Soft hyphens, zero-width (non-)joiners, word joiners and byte-order marks likewise."""
    for k, mark in enumerate("\u200b\u200c\u200d\u2060\ufeff\u00ad"):
        cm.add_message("user", f"the pass{mark}word{k} is in the vault", id=f"z{k}")
        assert hits(cm, f"password{k}") == {f"z{k}"}
        assert hits(cm, f"word{k}") == set()


def test_short_words_are_not_stemmed(cm: ContextManager) -> None:
    # FTS5 leaves words under 3 bytes unstemmed: "is" is not "i", "us" is not "u", "as" is not "a".
    cm.add_message("user", "Send the slides to us, as agreed.", id="s1")
    cm.add_message("user", "u r late, a note said", id="s2")
    assert hits(cm, "us") == {"s1"}
    assert hits(cm, "as") == {"s1"}
    assert hits(cm, "u") == {"s2"}


def test_scores_rank_best_first(cm: ContextManager) -> None:
    found = cm.search_messages("roadmap hiring", limit=1000)
    assert {h.message_id for h in found} == {"m15", "m16", "m17", "m18"}
    assert [h.score for h in found] == sorted((h.score for h in found), reverse=True)
    assert all(h.score > 0 for h in found)
    # m18 holds both words, m17 only one.
    order = [h.message_id for h in found]
    assert order.index("m18") < order.index("m17")
    assert [h.message_id for h in cm.search_messages("roadmap hiring", limit=2)] == order[:2]


# ---- queries -----------------------------------------------------------------------------------------------


NASTY = [
    '"',
    '"unbalanced',
    "*",
    "NEAR(",
    "NEAR(a b, 3)",
    ")",
    "(((",
    "-",
    "- -staging",
    "body:",
    "body:staging",
    "{body}: x",
    "^",
    "'",
    "''",
    "\\",
    "a OR b AND NOT c",
    ":*",
    "x:*",
    "!staging & rollback | deploy <-> build",
    "<2>",
    "'; DROP TABLE records; --",
    "%s %(x)s {0} $1 ?",
    "\x00 nul",
    "!!! ??? ...",
    "日本語 テキスト",
    "x" * 3000,
    " ".join(f"w{i}" for i in range(200)),
]


def test_query_syntax_never_raises_and_an_empty_query_does(cm: ContextManager) -> None:
    for empty in ("", " ", "\n\t  "):
        with pytest.raises(ValueError):
            cm.search_messages(empty)
    ids = {mid for mid, _, _ in CONVERSATION}
    found = {query: hits(cm, query) for query in NASTY}  # raises nothing
    assert all(f <= ids for f in found.values())
    assert found["body:staging"] == {"m05", "m06"}
    assert found["!staging & rollback | deploy <-> build"] == {"m05", "m06", "m07", "m08", "m09", "m10"}
    assert found["'; DROP TABLE records; --"] == {"m03"}  # "Book a table"
    assert found["!!! ??? ..."] == found["x" * 3000] == set()


# ---- what a handle may see ---------------------------------------------------------------------------------


def test_edits_and_removals_hide_old_versions(cm: ContextManager) -> None:
    before_edit = cm.store.head_seq()
    new_seq = cm.edit_message("m07", "Do the revert, then rerun the migration with a longer timeout.")
    assert hits(cm, "rollback") == {"m06", "m10"}
    assert hits(cm, "revert") == {"m07"}
    assert [h.sequence for h in cm.search_messages("revert")] == [new_seq]
    # As the branch stood before the edit: the old version, not the new one.
    assert hits(cm, "rollback", as_of=before_edit) == {"m06", "m07", "m10"}
    assert hits(cm, "revert", as_of=before_edit) == set()
    old = cm.search_messages("rollback", as_of=before_edit, limit=1000)
    assert {h.sequence for h in old if h.message_id == "m07"} == {cm.get_message_at("m07", before_edit).sequence}

    before_removal = cm.store.head_seq()
    cm.remove_message("m03")
    assert hits(cm, "cafe") == {"m01", "m02"}
    assert hits(cm, "cafe", as_of=before_removal) == {"m01", "m02", "m03"}
    # Before m03 was written, it was not there either.
    assert hits(cm, "cafe", as_of=cm.get_message("m02").sequence) == {"m01", "m02"}
    assert hits(cm, "cafe", as_of=0) == set()


def test_a_fork_sees_its_parent_up_to_the_fork(store: Store, cm: ContextManager) -> None:
    cm.fork("alt", at="m10")
    cm.add_message("user", "Book the quasar lounge for the rollback party.", id="main-late")
    alt = ContextManager.open(store=store, branch="alt")
    alt.add_message("user", "Take the zeppelin tour instead; forget the rollback.", id="alt-1")
    alt.edit_message("m06", "The staging logs show a lock timeout in module_3.")

    assert hits(alt, "rollback") == {"m07", "m10", "alt-1"}  # m06 edited away on alt only
    assert hits(cm, "rollback") == {"m06", "m07", "m10", "main-late"}
    assert hits(alt, "quasar") == set()
    assert hits(cm, "zeppelin") == set()
    assert hits(alt, "zeppelin") == {"alt-1"}
    assert hits(alt, "lisbon") == {"m01"}  # m11 came after the fork
    assert hits(cm, "lisbon") == {"m01", "m11"}
    alt.close()


def test_audience_blocks_match_only_their_readers(store: Store, cm: ContextManager) -> None:
    cm.add_message(
        "host",
        [
            {"type": "text", "text": "Dinner menu is final."},
            {"type": "text", "text": "Ann: order the saffron risotto.", "audience": ["ann"]},
            {"type": "text", "text": "Bob: order the tamarind prawns.", "audience": ["bob"]},
            {"type": "text", "text": "Both of you: the juniper sorbet.", "audience": ["ann", "bob"]},
        ],
        id="menu",
    )
    ann = ContextManager.open(store=store, namespace="ann", view_reader="ann")
    bob = ContextManager.open(store=store, namespace="bob", view_reader="bob")
    for manager, expected in (
        (ann, {"saffron": {"menu"}, "tamarind": set(), "juniper": {"menu"}, "menu": {"menu"}}),
        (bob, {"saffron": set(), "tamarind": {"menu"}, "juniper": {"menu"}, "menu": {"menu"}}),
        (cm, {"saffron": set(), "tamarind": set(), "juniper": set(), "menu": {"menu"}}),
    ):
        for word, ids in expected.items():
            assert hits(manager, word) == ids, (manager.view_reader, word)
    # Another reader's words never reach a snippet.
    (hit,) = ann.search_messages("saffron juniper tamarind risotto prawns")
    assert "saffron" in hit.snippet and "tamarind" not in hit.snippet
    assert "prawns" not in " ".join(h.snippet for h in ann.search_messages("risotto prawns menu"))
    assert "risotto" not in " ".join(h.snippet for h in bob.search_messages("risotto prawns menu"))
    ann.close()
    bob.close()


def test_a_huge_document_is_accepted_and_searchable(backend: Backend, store: Store) -> None:
    # Over 1 MiB of distinct words, a PostgreSQL tsvector's limit: the write must not fail. (Store level: the
    # memory backend's pure-Python stemmer, and snippets, take seconds over 100,000 distinct words.)
    if backend.name == "memory":
        pytest.skip("the limit is PostgreSQL's; the memory backend only takes its time")
    body = "zyzzyva " + " ".join(f"tok{i:07d}x" for i in range(100_000))
    with store.transaction() as tx:
        seq = tx.append(store.get_branch("main").id, "messages", "huge", {"participant": "user", "content": []})
        tx.index_text(seq, [(0, body)])
    for term in ("zyzzyva", "tok0000001x"):
        assert [(h.seq, h.item) for h in store.search_text([term], ["messages"], 10)] == [(seq, "huge")]


# ---- the backfill of a store written before the index existed ----------------------------------------------


class Interrupted(Exception):
    """Raised by a progress callback, as a killed build would stop."""


def _without_text_index(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> Sequence[Any]:
    module = importlib.import_module(f"context_journal.stores.{backend.name}")
    full = list(module.MIGRATIONS)
    monkeypatch.setattr(module, "MIGRATIONS", [m for m in full if "full-text" not in m.name])
    assert 0 < len(module.MIGRATIONS) < len(full)  # SQLite: the index (5) and its rebuild (6)
    return full


def test_backfill_indexes_old_records_once_and_resumes(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    if not backend.durable:
        pytest.skip("a memory store is never older than its index")
    _without_text_index(backend, monkeypatch)
    old = backend.new()
    old.has_text_index = False  # what a library of the previous version writes
    writer = ContextManager.open(store=old)
    write_conversation(writer)
    writer.edit_message("m07", "Do the revert, then rerun the migration with a longer timeout.")
    writer.remove_message("m03")
    versions = len(CONVERSATION) + 1  # message appends and edits with a body (the tombstone has none)
    writer.close()
    monkeypatch.undo()

    store = backend.reopen(old)  # the text-index migration runs now
    upto = store.head_seq()
    assert store.text_index_pending() == upto

    progress: list[tuple[int, int]] = []

    def stop(done: int, total: int) -> None:
        progress.append((done, total))
        raise Interrupted

    with pytest.raises(Interrupted):
        store.build_text_index(batch=2, progress=stop)
    first = progress[0][0]
    assert progress == [(first, upto)] and 0 < first < upto
    assert store.text_index_pending() == upto - first

    second = backend.handle(store)  # another process resumes where the first stopped, and is stopped too
    with pytest.raises(Interrupted):
        second.build_text_index(batch=4, progress=stop)
    assert progress[1][1] == upto - first and 0 < progress[1][0] < upto - first
    assert second.text_index_pending() == upto - first - progress[1][0]

    cm = ContextManager.open(store=backend.handle(store))  # a search finishes the build first
    assert hits(cm, "rollback") == {"m06", "m10"}
    assert hits(cm, "revert") == {"m07"}
    assert hits(cm, "cafe") == {"m01", "m02"}
    assert {q: hits(cm, q) for q in ("module_3", "flight", "Lisbon")} == {
        q: EXPECTED[q] for q in ("module_3", "flight", "Lisbon")
    }
    assert store.text_index_pending() == second.text_index_pending() == 0
    assert cm.store.build_text_index() == store.build_text_index() == 0

    docs = [(h.seq, h.group) for h in cm.store.search_text(["user", "assistant"], ["messages"], 10_000)]
    assert len(docs) == len(set(docs)) == versions  # every version once, none twice

    cm.add_message("user", "Rollback drill on Friday.", id="late")  # written after the migration: indexed now
    assert hits(cm, "rollback") == {"m06", "m10", "late"}


# ---- PostgreSQL: the text-search configuration -------------------------------------------------------------


def test_postgres_text_search_config_and_append_only_index(backend: Backend) -> None:
    if backend.name != "postgres":
        pytest.skip("PostgreSQL only")
    from context_journal.errors import StoreError
    from context_journal.stores.postgres import PostgresStore

    base = backend.new()
    assert isinstance(base, PostgresStore)
    assert base.text_search_config == "english"
    url = base.url
    for bad in ("English", "no_such_config", "english; DROP SCHEMA x", "a.b.c", "", "pg_catalog.nope"):
        with pytest.raises(ValueError):
            PostgresStore(url, schema=base.schema, text_search_config=bad)
    with pytest.raises(ValueError, match="english"):
        PostgresStore(url, schema=base.schema, text_search_config="simple")  # the index exists: english

    schema = f"cj_test_{uuid.uuid4().hex[:16]}"
    simple = PostgresStore(url, schema=schema, text_search_config="simple")
    try:
        cm = ContextManager.open(store=simple)
        cm.add_message("user", "The runners were running late.", id="r1")
        cm.add_message("user", "We run at dawn.", id="r2")
        assert hits(cm, "running") == {"r1"}  # no stemming in 'simple'
        assert hits(cm, "run") == {"r2"}
        assert hits(cm, "were") == {"r1"}
        again = PostgresStore(url, schema=schema)  # None: the store's recorded configuration
        assert again.text_search_config == "simple"
        assert hits(ContextManager.open(store=again), "running") == {"r1"}
        again.close()
        with pytest.raises(ValueError, match="simple"):
            PostgresStore(url, schema=schema, text_search_config="english")
        PostgresStore(url, schema=schema, text_search_config="simple").close()
        # The index is append-only, like the records.
        for statement in ("UPDATE text_index SET seq = seq", "DELETE FROM text_index", "TRUNCATE text_index"):
            with pytest.raises(StoreError, match="append-only"):
                simple._execute(statement)
        assert hits(cm, "running") == {"r1"}
    finally:
        simple.drop_schema()


# ---- scripts beyond Latin ------------------------------------------------------------------------------------

SCRIPTS = [
    ("k1", "안녕하세요 세계, 한국어 검색 테스트입니다"),
    ("h1", "नमस्ते दुनिया, यह खोज की जाँच है"),
    ("w1", "Ｆｕｌｌｗｉｄｔｈ letters in a report"),
    ("l1", "The ﬁnance team met in chapter Ⅻ"),
    ("d1", "ǆungla trip and a café au lait"),
    ("r1", "Привет, мир: проверка поиска"),
    ("a1", "مرحبا بالعالم"),
    ("j1", "東京で会議"),
]
SCRIPT_QUERIES = {
    "한국어": {"k1"},
    "세계": {"k1"},
    "नमस्ते": {"h1"},
    "दुनिया": {"h1"},
    "Ｆｕｌｌｗｉｄｔｈ": {"w1"},
    "fullwidth": {"w1"},
    "finance": {"l1"},
    "ﬁnance": {"l1"},
    "Ⅻ": {"l1"},
    "xii": {"l1"},
    "dzungla": {"d1"},
    "cafe": {"d1"},
    "café": {"d1"},
    "мир": {"r1"},
    "مرحبا": {"a1"},
}


def test_every_script_is_found_by_its_own_words_on_every_backend(store: Store) -> None:
    """A word is found by itself whatever its script, and the same on every backend: SQLite indexes
    non-ASCII text folded as query words are (NFKD, marks removed), which FTS5's tokenizer does not do."""
    cm = ContextManager.open(store=store)
    for mid, text in SCRIPTS:
        cm.add_message("user", text, id=mid)
    found = {q: {h.message_id for h in cm.search_messages(q)} for q in SCRIPT_QUERIES}
    assert found == SCRIPT_QUERIES
    cm.close()


def test_words_with_one_stem_are_one_term_on_every_backend(cm: ContextManager) -> None:
    """A review found SQLite scoring "dogs dog parrot" with the stem "dog" twice (FTS5 adds a term per
    phrase) where the memory index counted it once, so the backends ranked the same query differently."""
    cm.add_message("user", "my dog barks at night", id="d1")
    cm.add_message("user", "the cat and the parrot and the hamster", id="d2")
    for doubled, single in (("dogs dog parrot", "dog parrot"), ("running runs hamster", "run hamster")):
        got = [(h.message_id, round(h.score, 9)) for h in cm.search_messages(doubled, limit=20)]
        want = [(h.message_id, round(h.score, 9)) for h in cm.search_messages(single, limit=20)]
        assert got == want and got
