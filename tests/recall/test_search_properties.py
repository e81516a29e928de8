"""Property tests: full-text search never returns, counts or snippets what the same handle's
reads would not show, and finds every visible message holding a query word.

A rule-based machine on MemoryStore and on SQLite writes random messages (a small vocabulary so queries
hit; some blocks addressed to "ann", "bob" or both), edits, removals, forks and switches through four
handles on one store: one per reader ("ann", "bob", None; each reader in its own namespace over the shared
slot) and one isolated namespace. After every step, for random queries and ``as_of`` sequences, each
handle's hits are checked against the handle's own reads (``get_all_messages`` / ``as_of``, filtered with
:func:`~context_journal.views.filter_for_reader`): soundness, versions, no duplicates, completeness, the
``limit`` prefix, the participant and time filters, and the words addressed to one reader only.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from context_journal import ContextManager, MemoryStore
from context_journal.messages import Message
from context_journal.readers import AudienceNarrowingError
from context_journal.stores import SQLiteStore, Store
from context_journal.stores.fulltext import query_terms, stem, words
from context_journal.views import filter_for_reader
from tests.hypothesis_budget import examples

# Stems collide on purpose (running/runs, deploy/deployed); diacritics, an underscore, digits and two
# stopwords are in the mix.
SHARED = [
    "apple",
    "banana",
    "running",
    "runs",
    "deployed",
    "deploy",
    "café",
    "naïve",
    "build_log",
    "v2",
    "42",
    "window",
    "the",
    "and",
]
ANN_ONLY = "zephyr"  # written only in blocks whose audience is exactly ["ann"]
BOB_ONLY = "quokka"  # written only in blocks whose audience is exactly ["bob"]
PARTICIPANTS = ["user", "assistant", "carol"]
QUERY_WORDS = [*SHARED, ANN_ONLY, BOB_ONLY, "carol", "grep", "ponder", "absent"]
NOISE = [" ", " ", ' "', " *", " NEAR(", " -", " body:", ") ", " OR ", " AND ", "^"]
READERS: list[str | None] = ["ann", "bob", None]
AUDIENCES: list[list[str] | None] = [None, None, ["ann"], ["bob"], ["ann", "bob"]]
DAY0 = datetime(2023, 5, 8, 12, 0, tzinfo=UTC)
ALL_WORDS_QUERY = " ".join(QUERY_WORDS)  # every word the machine ever writes (under 32 terms)


# ---- the oracle: what a reader reads of a message -------------------------------------------------------


def _values(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [str(value)]
    if isinstance(value, Mapping):
        return [t for v in value.values() for t in _values(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _values(v)]
    return []


def read_text(message: Message) -> str:
    """The text a model reads in a (reader-filtered) message's blocks: text, tool names and inputs,
    tool results (thinking is indexed only when the store is told to, and these stores are not)."""
    parts: list[str] = []
    for b in message.content_dicts():
        if b["type"] == "text":
            parts.append(b["text"])
        elif b["type"] == "tool_use":
            parts.append(b["name"])
            parts.extend(_values(b.get("input")))
        elif b["type"] == "tool_result" and isinstance(b.get("content"), str):
            parts.append(b["content"])
    return "\n".join(parts)


def indexed_words(message: Message) -> list[str]:
    """The words a search may match in a (reader-filtered) message: what it reads, and the participant's
    name when there is anything to read (a message with nothing indexed has no document at all)."""
    text = read_text(message)
    return words(f"{message.participant} {text}") if text else []


def snippet_words(snippet: str) -> list[str]:
    return words(snippet.replace("**", " ").replace("…", " "))


# ---- content generation ---------------------------------------------------------------------------------


@st.composite
def block_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["text", "text", "text", "tool_use", "tool_result", "thinking"]))
        text = " ".join(draw(st.lists(st.sampled_from(SHARED), min_size=1, max_size=4)))
        if kind == "text":
            audience = draw(st.sampled_from(AUDIENCES))
            if audience == ["ann"] and draw(st.booleans()):
                text += f" {ANN_ONLY}"
            if audience == ["bob"] and draw(st.booleans()):
                text += f" {BOB_ONLY}"
            block: dict[str, Any] = {"type": "text", "text": text}
            if audience is not None:
                block["audience"] = audience
        elif kind == "tool_use":
            block = {"type": "tool_use", "id": "", "name": "grep", "input": {"pattern": text, "n": 42, "ok": True}}
        elif kind == "tool_result":
            block = {"type": "tool_result", "tool_use_id": "toolu_x", "content": text}
        else:  # thinking is not indexed (the store is not told to): never a hit, never in a snippet
            block = {"type": "thinking", "thinking": f"{text} ponder", "signature": "sig"}
        blocks.append(block)
    return blocks


# ---- the machine ----------------------------------------------------------------------------------------


class SearchMachine(RuleBasedStateMachine):
    """Random writes through four handles on one store; search checked against each handle's reads."""

    def make_store(self) -> Store:
        self.stores.append(MemoryStore())
        return self.stores[-1]

    def other_handle(self) -> Store:
        """Another handle on the same data (the same object where the backend shares it that way)."""
        return self.store

    @initialize()
    def setup(self) -> None:
        self.tmp: str | None = None
        self.stores: list[Store] = []
        self.store = self.make_store()
        other = self.other_handle()
        self.handles: dict[str, ContextManager] = {
            "ann": ContextManager.open(store=self.store, namespace="ann", view_reader="ann"),
            "bob": ContextManager.open(store=other, namespace="bob", view_reader="bob"),
            "host": ContextManager.open(store=self.store, namespace="host"),
            "iso": ContextManager.open(store=other, namespace="iso", isolate=True),
        }
        self.branches = ["main"]
        self.n = 0

    def teardown(self) -> None:
        for store in getattr(self, "stores", []):
            store.close()
        if getattr(self, "tmp", None):
            shutil.rmtree(self.tmp, ignore_errors=True)  # type: ignore[arg-type]

    def _content(self, blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for b in blocks:
            if b["type"] == "tool_use":
                self.n += 1
                b = {**b, "id": f"toolu_{self.n}"}
            out.append(b)
        return out

    @rule(
        handle=st.sampled_from(["ann", "bob", "host", "host", "iso"]),
        who=st.sampled_from(PARTICIPANTS),
        blocks=block_lists(),
        day=st.integers(0, 3),
    )
    def add(self, handle: str, who: str, blocks: list[dict[str, Any]], day: int) -> None:
        self.handles[handle].add_message(who, self._content(blocks), timestamp=DAY0 + timedelta(days=day))

    @rule(
        handle=st.sampled_from(["ann", "bob", "host", "iso"]),
        data=st.data(),
        blocks=block_lists(),
        who=st.none() | st.sampled_from(PARTICIPANTS),
    )
    def edit(self, handle: str, data: st.DataObject, blocks: list[dict[str, Any]], who: str | None) -> None:
        cm = self.handles[handle]
        live = cm.get_all_messages()
        if not live:
            return
        target = data.draw(st.sampled_from([m.id for m in live]))
        with contextlib.suppress(AudienceNarrowingError):  # an edit may not hide a block a reader has seen
            cm.edit_message(target, self._content(blocks), participant=who)

    @rule(handle=st.sampled_from(["ann", "bob", "host", "iso"]), data=st.data())
    def remove(self, handle: str, data: st.DataObject) -> None:
        cm = self.handles[handle]
        live = cm.get_all_messages()
        if live:
            cm.remove_message(data.draw(st.sampled_from([m.id for m in live])))

    @rule(handle=st.sampled_from(["ann", "bob", "host", "iso"]), data=st.data(), switch=st.booleans())
    def fork(self, handle: str, data: st.DataObject, switch: bool) -> None:
        cm = self.handles[handle]
        live = cm.get_all_messages()
        at = data.draw(st.none() | st.sampled_from([m.id for m in live])) if live else None
        name = f"b{len(self.branches)}"
        cm.fork(name, at=at)
        self.branches.append(name)
        if switch:
            cm.switch_branch(name)

    @rule(handle=st.sampled_from(["ann", "bob", "host", "iso"]), data=st.data())
    def switch(self, handle: str, data: st.DataObject) -> None:
        self.handles[handle].switch_branch(data.draw(st.sampled_from(self.branches)))

    # ---- checks -----------------------------------------------------------------------------------------

    def check(self, cm: ContextManager, query: str, as_of: int | None) -> None:
        reader = cm.view_reader
        terms = query_terms(query)
        stems = {stem(t) for t in terms}
        visible: dict[str, Message] = {}
        for m in cm.get_all_messages(as_of=as_of):
            shown = filter_for_reader(m, reader)
            if shown is not None:
                visible[m.id] = shown
        hits = cm.search_messages(query, limit=1000, as_of=as_of)
        ids = [h.message_id for h in hits]
        where = f"query {query!r}, reader {reader!r}, branch {cm.current_branch()!r}, as_of {as_of}"
        assert len(ids) == len(set(ids)), f"a message hit twice: {where}"
        for h in hits:
            assert h.message_id in visible, f"hit {h.message_id} is not in the handle's view: {where}"
            shown = visible[h.message_id]
            assert h.sequence == shown.sequence, f"hit {h.message_id} is not the visible version: {where}"
            assert h.participant == shown.participant
            assert h.timestamp == shown.timestamp
            text = read_text(shown)
            assert stems & {stem(w) for w in indexed_words(shown)}, (
                f"hit {h.message_id} holds no query word in what {reader!r} reads: {text!r}, {where}"
            )
            assert set(snippet_words(h.snippet)) <= set(words(text)), (
                f"snippet {h.snippet!r} shows words {reader!r} does not read in {text!r}: {where}"
            )
            assert set(h.terms) <= stems
        for mid, shown in visible.items():
            if set(terms) & set(indexed_words(shown)):
                assert mid in ids, f"visible message {mid} ({read_text(shown)!r}) not found: {where}"
        # Words meant for one reader only never show to anyone else.
        for word, owner in ((ANN_ONLY, "ann"), (BOB_ONLY, "bob")):
            if reader != owner:
                assert all(word not in h.snippet.lower() for h in hits), f"{word} leaked into a snippet: {where}"
        # limit is a prefix of the full ranking; the filters are subsets of it.
        for k in (1, 3):
            assert [h.message_id for h in cm.search_messages(query, limit=k, as_of=as_of)] == ids[:k], where
        who = hits[0].participant if hits else "carol"
        narrowed = cm.search_messages(query, limit=1000, as_of=as_of, participants=who)
        assert [h.message_id for h in narrowed] == [h.message_id for h in hits if h.participant == who], where
        lo, hi = DAY0 + timedelta(days=1), DAY0 + timedelta(days=3)
        dated = cm.search_messages(query, limit=1000, as_of=as_of, since=lo, until=hi)
        assert [h.message_id for h in dated] == [h.message_id for h in hits if lo <= h.timestamp < hi], where

    @rule(
        data=st.data(),
        words_=st.lists(st.sampled_from(QUERY_WORDS), min_size=1, max_size=3),
        noise=st.lists(st.sampled_from(NOISE), min_size=3, max_size=3),
    )
    def search(self, data: st.DataObject, words_: list[str], noise: list[str]) -> None:
        query = "".join(n + w for n, w in zip(noise, words_, strict=False)) + noise[-1]
        for cm in self.handles.values():
            as_of = data.draw(st.none() | st.integers(0, self.store.head_seq() + 1))
            self.check(cm, query, as_of)

    @invariant()
    def every_word_every_handle(self) -> None:
        for cm in self.handles.values():
            self.check(cm, ALL_WORDS_QUERY, None)

    @invariant()
    def one_readers_words_never_reach_another(self) -> None:
        for cm in self.handles.values():
            for word, owner in ((ANN_ONLY, "ann"), (BOB_ONLY, "bob")):
                if cm.view_reader != owner:
                    assert cm.search_messages(word, limit=1000) == [], (word, cm.view_reader)


class SQLiteSearchMachine(SearchMachine):
    """The same machine on SQLite; "bob" and "iso" write and search through a second connection."""

    def make_store(self) -> Store:
        self.tmp = tempfile.mkdtemp(prefix="cj-search-")
        self.stores.append(SQLiteStore(f"{self.tmp}/store.db"))
        return self.stores[-1]

    def other_handle(self) -> Store:
        self.stores.append(SQLiteStore(f"{self.tmp}/store.db"))
        return self.stores[-1]


_SETTINGS = settings(
    max_examples=examples(50), stateful_step_count=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
SearchMachine.TestCase.settings = _SETTINGS
SQLiteSearchMachine.TestCase.settings = _SETTINGS
TestSearchMemory = SearchMachine.TestCase
TestSearchSQLite = SQLiteSearchMachine.TestCase


# ---- paging past hidden documents -----------------------------------------------------------------------


@pytest.mark.parametrize("reader", ["bob", None])
def test_hidden_documents_never_crowd_out_a_visible_hit(store: Store, reader: str | None) -> None:
    """More than a page of better-ranked hidden documents (old versions, tombstoned messages, a sibling
    branch, blocks for "ann") stand before the one visible match: ``limit=1`` still finds it, and nothing
    hidden is counted."""
    host = ContextManager.open(store=store, namespace="host")
    cm = host if reader is None else ContextManager.open(store=store, namespace=reader, view_reader=reader)
    visible = host.add_message("user", "target " + "filler " * 60)  # oldest and longest: ranked last
    host.fork("sibling")
    sibling = ContextManager.open(store=store, namespace="sib", branch="sibling")
    for i in range(40):
        sibling.add_message("user", "target")
        edited = host.add_message("user", "target")
        host.edit_message(edited, f"plain {i}")
        host.remove_message(host.add_message("user", "target"))
        host.add_message(
            "user", [{"type": "text", "text": "plain"}, {"type": "text", "text": "target", "audience": ["ann"]}]
        )
    hits = cm.search_messages("target", limit=1)
    assert [h.message_id for h in hits] == [visible]
    assert [h.message_id for h in cm.search_messages("target", limit=1000)] == [visible]
    ann = ContextManager.open(store=store, namespace="ann", view_reader="ann")
    assert len(ann.search_messages("target", limit=1000)) == 41
    assert len(sibling.search_messages("target", limit=1000)) == 41
