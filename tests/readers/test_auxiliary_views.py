"""Auxiliary views (``auxiliary_views=[{"namespace": ...}]``): other slots merged read-only into a manager's
strategy view, interleaved by store sequence; listing the manager's own slot is an error; a slot or a message
listed twice is shown once; the merged messages carry their namespace in provenance; the reader's view and
the filter view apply to them as to the manager's own."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, MemoryStore
from context_journal.compile import EmptyContextError
from context_journal.formats import read_transcript
from context_journal.namespaces import AuxiliaryViewsConflictError, NamespaceNotFoundError
from context_journal.strategies import AutobiographicalStrategy, WindowedPassthroughStrategy
from context_journal.testing import ScriptedProvider
from context_journal.validate import validate_messages
from tests.hypothesis_budget import examples
from tests.imported import content_of

TAG = re.compile(r"TAG\d+")
CFG: dict[str, Any] = {
    "head_window_tokens": 60,
    "recent_window_tokens": 120,
    "target_chunk_tokens": 90,
    "merge_threshold": 2,
}


def _echo(request: Any) -> str:
    """A summary that repeats every tag it was shown."""
    return "memory " + " ".join(sorted(set(TAG.findall(request.model_dump_json()))))


def _sources(result: Any) -> list[tuple[str, str | None]]:
    return [(s.id, s.namespace) for m in result.messages for s in m.sources if s.kind == "message"]


def _side(store: Any, **kw: Any) -> ContextManager:
    return ContextManager.open(
        store=store, namespace="critic", isolate=True, auxiliary_views=[{"namespace": "default"}], **kw
    )


def test_side_reader_compiles_both_slots_in_sequence_order_and_writes_only_its_own() -> None:
    main = ContextManager.open("memory:")
    main.add_message("user", "Plan a trip to Lisbon", id="u1")
    side = _side(main.store)
    side.add_message("critic", "The plan has no budget yet", id="c1")
    main.add_message("assistant", "Day 1 Alfama, day 2 Belem", id="a1")
    side.add_message("critic", "Day 2 is too packed", id="c2")
    result = side.compile(10_000)
    assert _sources(result) == [("u1", "default"), ("c1", None), ("a1", "default"), ("c2", None)]
    assert [d["namespace"] for m in result.messages for d in m.to_dict()["sources"] if "namespace" in d] == [
        "default",
        "default",
    ]
    assert validate_messages(result.to_anthropic()["messages"]) == []
    assert side.auxiliary_views == [{"namespace": "default"}]
    # Raw reads and writes stay on the side reader's own slot; the main conversation is untouched.
    assert [m.id for m in side.get_all_messages()] == ["c1", "c2"]
    assert [m.id for m in main.get_all_messages()] == ["u1", "a1"]
    assert [h.message_id for h in side.search_messages("Belem")] == []
    assert _sources(main.compile(10_000)) == [("u1", None), ("a1", None)]
    # Appends in the other slot after a compile extend the view (another handle's write, applied at refresh).
    main.add_message("user", "Make day 2 lighter", id="u2")
    assert [i for i, _ in _sources(side.compile(10_000))] == ["u1", "c1", "a1", "c2", "u2"]
    # The views are the namespace's: recorded on the branch, taken by any later handle that names none.
    again = ContextManager.open(store=main.store, namespace="critic")
    assert again.auxiliary_views == [{"namespace": "default"}]
    assert [i for i, _ in _sources(again.compile(10_000))] == ["u1", "c1", "a1", "c2", "u2"]
    with pytest.raises(AuxiliaryViewsConflictError, match=r"records auxiliary views \['default'\]"):
        side.auxiliary_views = []
    with pytest.raises(AuxiliaryViewsConflictError):
        ContextManager.open(store=main.store, namespace="critic", auxiliary_views=[])


def test_listing_the_own_slot_an_unknown_namespace_or_a_bad_spec_is_refused_and_writes_nothing() -> None:
    store = MemoryStore()
    ContextManager.open(store=store).add_message("user", "hello")
    ContextManager.open(store=store, namespace="notes", isolate=True).add_message("user", "a note")
    head = store.head_seq()
    with pytest.raises(ValueError, match="own message slot 'messages'"):
        ContextManager.open(store=store, namespace="shared-side", auxiliary_views=[{"namespace": "default"}])
    with pytest.raises(ValueError, match="own message slot 'messages/notes'"):
        ContextManager.open(store=store, namespace="notes", auxiliary_views=[{"namespace": "notes"}])
    with pytest.raises(ValueError, match="own message slot 'messages/fresh'"):  # its own slot, not made yet
        ContextManager.open(store=store, namespace="fresh", isolate=True, auxiliary_views=[{"namespace": "fresh"}])
    with pytest.raises(NamespaceNotFoundError, match="no namespace 'mian'"):
        ContextManager.open(store=store, namespace="s", isolate=True, auxiliary_views=[{"namespace": "mian"}])
    with pytest.raises(ValueError, match=r"unknown keys \['x'\]"):
        ContextManager.open(
            store=store, namespace="s", isolate=True, auxiliary_views=[{"namespace": "default", "x": 1}]
        )
    with pytest.raises(TypeError, match="must be a list"):
        ContextManager.open(store=store, namespace="s", isolate=True, auxiliary_views={"namespace": "default"})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="compression='inline'"):
        ContextManager.open(
            store=store, namespace="s", isolate=True, compression="workers", auxiliary_views=["default"]
        )
    assert store.head_seq() == head
    # A bare name is the spec's short form; the same slot listed twice is merged once.
    side = ContextManager.open(
        store=store, namespace="s2", isolate=True, auxiliary_views=["default", "notes", "default"]
    )
    assert side.auxiliary_views == [{"namespace": "default"}, {"namespace": "notes"}]
    assert [ns for _, ns in _sources(side.compile(10_000))] == ["default", "notes"]
    assert [ns for _, ns in _sources(side.preview_context(10_000))] == ["default", "notes"]


def test_a_message_id_held_by_two_slots_is_shown_once_from_the_own_slot() -> None:
    main = ContextManager.open("memory:")
    main.add_message("user", "the original", id="same")
    side = _side(main.store)
    side.add_message("user", "the side copy", id="same")
    result = side.compile(10_000)
    assert _sources(result) == [("same", None)]
    assert "the side copy" in json.dumps(result.to_anthropic()) and "the original" not in json.dumps(
        result.to_anthropic()
    )


def test_the_reader_view_and_the_filter_view_apply_to_auxiliary_slots() -> None:
    main = ContextManager.open("memory:")
    main.add_message("user", [{"type": "text", "text": "for everyone"}], id="all")
    main.add_message("user", [{"type": "text", "text": "BOBONLY plan", "audience": ["bob"]}], id="bob")
    main.add_message(
        "user",
        [{"type": "text", "text": "shared part"}, {"type": "text", "text": "ANNPART", "audience": ["ann"]}],
        id="mixed",
    )
    main.add_message("user", "SECRET words", id="secret")
    ann = _side(main.store, view_reader="ann", view_filter=lambda m: "SECRET" not in m.text())
    ann.add_message("ann", "my note", id="note")
    text = json.dumps(ann.compile(10_000).to_anthropic())
    assert "for everyone" in text and "ANNPART" in text and "shared part" in text
    assert "BOBONLY" not in text and "SECRET" not in text
    assert _sources(ann.compile(10_000)) == [("all", "default"), ("mixed", "default"), ("note", None)]
    # Recall searches the auxiliary slot as the reader sees it: bob's block is no hit for ann.
    for q in ("BOBONLY", "SECRET"):
        report = ann.compile(10_000, query=q).recall
        assert report is not None and report["hits"] == 0, report


def test_recall_brings_back_an_auxiliary_message_with_its_namespace() -> None:
    main = ContextManager.open("memory:")
    main.add_message("user", "The venue for the offsite is the Quinta da Regaleira.", id="venue")
    for k in range(60):
        main.add_message("user" if k % 2 == 0 else "assistant", f"chatter number {k} about lunch " * 6, id=f"f{k}")
    side = ContextManager.open(
        store=main.store,
        namespace="critic",
        isolate=True,
        strategy=WindowedPassthroughStrategy(),
        auxiliary_views=[{"namespace": "default"}],
    )
    side.add_message("critic", "Where is the offsite venue?", id="ask")
    plain = side.compile(400)
    assert "Regaleira" not in json.dumps(plain.to_anthropic())
    result = side.compile(400, query="offsite venue")
    assert "Regaleira" in json.dumps(result.to_anthropic())
    recalled = [s for m in result.messages for s in m.sources if s.id == "venue"]
    assert recalled and all(s.namespace == "default" for s in recalled)


def test_autobiographical_compression_covers_the_auxiliary_messages() -> None:
    main = ContextManager.open("memory:")
    provider = ScriptedProvider(default=_echo)
    side = ContextManager.open(
        store=main.store,
        namespace="critic",
        isolate=True,
        strategy=AutobiographicalStrategy(**CFG),
        summarizer=provider,
        auxiliary_views=[{"namespace": "default"}],
    )
    tags = []
    for k in range(30):
        who, cm = ("critic", side) if k % 3 == 2 else ("user" if k % 2 else "assistant", main)
        cm.add_message(who, f"TAG{k} " + "words about the offsite plan " * 4, id=f"m{k}")
        tags.append(f"TAG{k}")
    side.drain()
    assert provider.calls > 0
    result = side.compile(600)
    text = json.dumps(result.to_anthropic())
    missing = [t for t in tags if not re.search(rf"\b{t}\b", text)]
    assert missing == [], missing  # every message raw or in a summary, the main conversation's included
    assert any(s.kind == "summary" for m in result.messages for s in m.sources)
    assert validate_messages(result.to_anthropic()["messages"]) == []
    assert {m.id for m in main.get_all_messages()} == {f"m{k}" for k in range(30) if k % 3 != 2}


def test_summaries_are_made_from_the_recorded_merged_view_by_every_handle() -> None:
    """A handle without auxiliary views cannot summarise the namespace from its own slot alone (the merged
    view's messages would disappear under summaries that do not hold them): any handle that names none
    compresses the recorded merged view, and one that names others is refused."""
    store = MemoryStore()
    talk = ContextManager.open(store=store, namespace="talk", isolate=True)
    talk.add_message("user", "TAG0 start", id="m0")
    cfg: dict[str, Any] = {"head_window_tokens": 40, "recent_window_tokens": 200, "target_chunk_tokens": 100}
    side = ContextManager.open(
        store=store,
        namespace="critic",
        isolate=True,
        strategy=AutobiographicalStrategy(**cfg),
        summarizer=ScriptedProvider(default=_echo),
    )
    for k in range(1, 40):
        talk.add_message("user" if k % 2 else "assistant", f"TAG{k} " + "we discussed the venue " * 6)
        if k % 3 == 0:
            side.add_message("critic", f"TAG{100 + k} " + "the venue is too far " * 6)
    side.auxiliary_views = [{"namespace": "talk"}]
    side.pending_work()  # chunks of the merged view
    with pytest.raises(AuxiliaryViewsConflictError):
        side.auxiliary_views = []
    other = ContextManager.open(  # another process, naming no views: the recorded ones
        store=store,
        namespace="critic",
        strategy=AutobiographicalStrategy(**cfg),
        summarizer=ScriptedProvider(default=_echo),
    )
    assert other.auxiliary_views == [{"namespace": "talk"}]
    other.drain()
    result = side.compile(1500)
    text = json.dumps(result.to_anthropic())
    tags = [f"TAG{k}" for k in range(40)] + [f"TAG{100 + k}" for k in range(3, 40, 3)]
    assert [t for t in tags if not re.search(rf"\b{t}\b", text)] == []
    # A namespace with summaries made from its own slot takes no auxiliary views afterwards.
    alone = ContextManager.open(
        store=store, namespace="solo", isolate=True, strategy=AutobiographicalStrategy(**cfg),
        summarizer=ScriptedProvider(default=_echo),
    )  # fmt: skip
    for k in range(30):
        alone.add_message("user", f"note {k} " + "words " * 20)
    alone.drain()
    with pytest.raises(AuxiliaryViewsConflictError, match="summaries made without them"):
        alone.auxiliary_views = [{"namespace": "talk"}]
    with pytest.raises(AuxiliaryViewsConflictError, match="summaries come to the new branch"):
        alone.derive("with-talk", auxiliary_views=[{"namespace": "talk"}])


def test_a_namespace_without_a_slot_of_its_own_is_refused_not_read_as_the_shared_one() -> None:
    store = MemoryStore()
    ContextManager.open(store=store).add_message("user", "the host's shared conversation")
    talk = ContextManager.open(store=store, namespace="talk", isolate=True)
    talk.set_fact("os", "linux")  # the namespace exists, its message slot does not yet
    with pytest.raises(ValueError, match="'talk' has no message slot of its own"):
        ContextManager.open(store=store, namespace="critic", isolate=True, auxiliary_views=["talk"])
    talk.add_message("user", "hello from talk")
    critic = ContextManager.open(store=store, namespace="critic", isolate=True, auxiliary_views=["talk"])
    critic.add_message("critic", "a note")
    assert "hello from talk" in json.dumps(critic.compile(1000).to_anthropic())
    assert "shared conversation" not in json.dumps(critic.compile(1000).to_anthropic())


def test_derive_and_branches_read_the_auxiliary_slot_on_their_own_branch() -> None:
    main = ContextManager.open("memory:")
    main.add_message("user", "before the fork", id="b")
    side = _side(main.store)
    side.add_message("critic", "a note", id="n")
    child = side.derive("what-if")
    assert child.auxiliary_views == [{"namespace": "default"}]
    main.add_message("user", "after the fork, on main", id="a")
    assert [i for i, _ in _sources(child.compile(10_000))] == ["b", "n"]
    assert [i for i, _ in _sources(side.compile(10_000))] == ["b", "n", "a"]
    plain = side.derive("plain", auxiliary_views=None)  # recorded on the new branch: none
    assert plain.auxiliary_views == [] and [i for i, _ in _sources(plain.compile(10_000))] == ["n"]
    assert ContextManager.open(store=main.store, namespace="critic", branch="plain").auxiliary_views == []
    side.switch_branch("what-if")
    assert [i for i, _ in _sources(side.compile(10_000))] == ["b", "n"]


def test_edits_and_removals_in_the_auxiliary_slot_show_in_the_next_compile() -> None:
    main = ContextManager.open("memory:")
    for k in range(4):
        main.add_message("user", f"main {k}", id=f"m{k}")
    side = _side(main.store)
    side.add_message("critic", "note", id="n")
    assert [i for i, _ in _sources(side.compile(10_000))] == ["m0", "m1", "m2", "m3", "n"]
    main.edit_message("m1", "main 1, edited")
    main.remove_message("m2")
    result = side.compile(10_000)
    assert [i for i, _ in _sources(result)] == ["m0", "m1", "m3", "n"]
    assert "main 1, edited" in json.dumps(result.to_anthropic())


READERS = [None, "ann", "bob"]


WHERE = ("own", "aux", "aux2")  # the side reader's slot, then its auxiliary views in the order listed
NAMESPACE = {"own": None, "aux": "main", "aux2": "default"}


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(
        st.tuples(
            st.sampled_from(["add", "add", "add", "edit", "remove", "copy"]),
            st.sampled_from(WHERE),
            st.sampled_from(READERS),
            st.integers(0, 40),
        ),
        min_size=1,
        max_size=30,
    ),
    reader=st.sampled_from(READERS),
    compile_between=st.booleans(),
    autobiographical=st.booleans(),
)
def test_the_merged_view_is_every_visible_message_of_the_slots_in_sequence_order(
    ops: list[tuple[str, str, str | None, int]], reader: str | None, compile_between: bool, autobiographical: bool
) -> None:
    """Random writes, edits, removals and copies (a message id written to a second slot) over three slots:
    a compile shows exactly the messages of the three slots the reader may read (a block for another
    reader never), each id once (the copy of the first slot in the view's order that shows it), in append
    order, whatever the order of writes and compiles (the side reader's own writes reach its index at
    once, the others' at the next compile: with a strategy that reads the view on each append, the merge
    then meets rows older than its newest)."""
    store = MemoryStore()
    writers = {
        "aux": ContextManager.open(store=store, namespace="main", isolate=True),
        "aux2": ContextManager.open(store=store),
    }
    writers["aux"].add_message("user", "start", id="start")
    writers["own"] = side = ContextManager.open(
        store=store,
        namespace="side",
        isolate=True,
        view_reader=reader,
        auxiliary_views=[{"namespace": "main"}, {"namespace": "default"}],
        # Windows wider than the history (everything raw); the strategy reads the view on each append.
        strategy=AutobiographicalStrategy(head_window_tokens=50_000, recent_window_tokens=50_000)
        if autobiographical
        else None,
    )
    copies: dict[tuple[str, str], tuple[int, str | None]] = {("aux", "start"): (0, None)}  # -> (order, audience)
    order = 1
    used: dict[str, set[str]] = {w: set() for w in WHERE}
    used["aux"].add("start")

    def block(text: str, audience: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "text", "text": f"{text} for {audience}"}
        if audience is not None:
            out["audience"] = [audience]
        return out

    for k, (op, where, audience, pick) in enumerate(ops):
        cm = writers[where]
        mine = [i for w, i in copies if w == where]
        others = sorted({i for w, i in copies if w != where} - used[where])  # an id is never reused in a slot
        if where == "own" and audience is not None and audience != reader:
            audience = reader  # the side handle writes what its reader may write
        if op == "copy" and others:
            mid = others[pick % len(others)]
        elif op in ("add", "copy") or not mine:
            mid = f"x{k}"
        else:
            target = mine[pick % len(mine)]
            if op == "edit":
                cm.edit_message(target, [block(f"TAG{k} edited", copies[where, target][1])])
            else:
                cm.remove_message(target)
                del copies[where, target]
            mid = ""
        if mid:
            cm.add_message("user", [block(f"TAG{k}", audience)], id=mid)
            copies[where, mid] = (order, audience)
            used[where].add(mid)
            order += 1
        if compile_between and k % 3 == 0:
            with contextlib.suppress(EmptyContextError):  # nothing the reader may read yet
                side.compile(100_000)
    shown: dict[str, tuple[int, str]] = {}
    for where in WHERE:
        for (w, mid), (at, aud) in copies.items():
            if w == where and mid not in shown and (aud is None or aud == reader):
                shown[mid] = (at, where)
    want = [(mid, NAMESPACE[where]) for mid, (_, where) in sorted(shown.items(), key=lambda kv: kv[1][0])]
    if not want:
        with pytest.raises(EmptyContextError):
            side.compile(100_000)
        return
    result = side.compile(100_000)
    assert _sources(result) == want
    # The merged rows and their token sums, kept up to date through the ops, equal a fresh handle's.
    view = side._reader_view()
    fresh = ContextManager.open(
        store=store, namespace="side", isolate=True, view_reader=reader, auxiliary_views=side.auxiliary_views
    )._reader_view()
    assert [e[1:] for e in view.entries()] == [e[1:] for e in fresh.entries()]
    n = len(view)
    for a, b in ((0, n), (n // 3, n), (0, n // 2)):
        assert view.tokens(a, b) == fresh.tokens(a, b) == sum(e.tokens for e in fresh.entries(a, b))
    text = json.dumps(result.to_anthropic())
    for other in READERS:
        if other not in (None, reader):
            assert f"for {other}" not in text


def test_a_side_reader_over_a_real_conversation(data_dir: Path) -> None:
    """A LoCoMo conversation in its own namespace; a critic reads it through an auxiliary view and writes
    its notes beside it: the autobiographical compile is valid, under budget, and covers both slots."""
    conv = read_transcript(data_dir / "locomo" / "locomo-dev7.json", format="locomo").conversations[0]
    store = MemoryStore()
    main = ContextManager.open(store=store, namespace="talk", isolate=True)
    main.add_message("system", "A conversation between two friends.", id="intro")
    provider = ScriptedProvider(default=_echo)
    side = ContextManager.open(
        store=store,
        namespace="critic",
        isolate=True,
        strategy=AutobiographicalStrategy(
            head_window_tokens=300, recent_window_tokens=600, target_chunk_tokens=500, merge_threshold=3
        ),
        summarizer=provider,
        auxiliary_views=[{"namespace": "talk"}],
    )
    for k, m in enumerate(conv.messages[:240]):
        content = [dict(b) for b in content_of(m)]
        content[0]["text"] = f"TAG{k} {content[0]['text']}"
        main.add_message(m.participant, content, id=m.id, timestamp=m.timestamp)
        if k % 40 == 39:
            side.add_message("critic", f"TAG{1000 + k} note: the talk so far is about {m.participant}")
    side.drain()
    result = side.compile(3000)
    assert result.tokens <= 3000
    assert validate_messages(result.to_anthropic()["messages"]) == []
    text = json.dumps(result.to_anthropic())
    tags = [f"TAG{k}" for k in range(240)] + [f"TAG{1000 + k}" for k in range(39, 240, 40)]
    assert [t for t in tags if not re.search(rf"\b{t}\b", text)] == []
    shown = {ns for _, ns in _sources(result)}
    assert shown == {None, "talk"}


def test_render_stats_count_the_merged_view() -> None:
    main = ContextManager.open("memory:")
    for k in range(6):
        main.add_message("user" if k % 2 == 0 else "assistant", f"main {k}")
    side = _side(main.store)
    side.add_message("critic", "a note")
    side.compile(10_000)
    stats = side.render_stats()
    assert stats is not None and stats.conversation_messages == 7 and stats.covered == 7
