"""Reader-scoped views: audiences on blocks, reader views, namespace reader records,
narrowing after compression."""

from __future__ import annotations

import json
from typing import Any

import pytest

from context_journal.compile import EmptyContextError
from context_journal.errors import MalformedContentError
from context_journal.manager import ContextManager
from context_journal.readers import AudienceNarrowingError, ReaderConflictError, ReaderError, StaleReaderError
from context_journal.strategies import AutobiographicalStrategy, PassthroughStrategy
from context_journal.strategies.windowed import WindowedPassthroughStrategy
from context_journal.testing import ScriptedProvider

CFG: dict[str, Any] = {
    "head_window_tokens": 80,
    "recent_window_tokens": 150,
    "target_chunk_tokens": 120,
    "merge_threshold": 3,
}


def _strategy(kind: str) -> Any:
    if kind == "passthrough":
        return PassthroughStrategy()
    if kind == "windowed":
        return WindowedPassthroughStrategy()
    return AutobiographicalStrategy(**CFG)


def _texts(result: Any) -> list[str]:
    out = []
    for m in result.messages:
        content = m["content"] if isinstance(m, dict) else m.content
        if isinstance(content, str):
            out.append(content)
            continue
        for b in content:
            b = b if isinstance(b, dict) else b.model_dump()
            assert "audience" not in b
            if b.get("type") == "text":
                out.append(b["text"])
    return out


def _dump(result: Any) -> str:
    return json.dumps(result.messages, default=str, sort_keys=True)


def _fill(cm: ContextManager, n: int = 12) -> None:
    for i in range(n):
        cm.add_message(
            "user" if i % 2 == 0 else "assistant",
            [
                {"type": "text", "text": f"common line {i}"},
                {"type": "text", "text": f"for ann only {i}", "audience": ["ann"]},
                {"type": "text", "text": f"for bob only {i}", "audience": ["bob"]},
                {"type": "text", "text": f"for both {i}", "audience": ["ann", "bob"]},
            ],
        )
    cm.add_message("user", [{"type": "text", "text": "secret for annie", "audience": ["annie"]}])
    cm.add_message("assistant", "the end")


# ---- audience validation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("block", "path"),
    [
        ({"type": "tool_use", "id": "t1", "name": "x", "input": {}, "audience": ["ann"]}, "audience"),
        ({"type": "tool_result", "tool_use_id": "t1", "content": "ok", "audience": ["ann"]}, "audience"),
        (
            {"type": "image", "source": {"type": "url", "url": "http://x/y.png"}, "audience": ["ann"]},
            "audience",
        ),
        (
            {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "n", "audience": ["a"]}]},
            "content.0.audience",
        ),
        ({"type": "text", "text": "x", "audience": []}, "audience"),
        ({"type": "text", "text": "x", "audience": [""]}, "audience"),
        ({"type": "text", "text": "x", "audience": "ann"}, "audience"),
        ({"type": "text", "text": "x", "audience": [1]}, "audience"),
    ],
)
def test_misplaced_or_malformed_audience_is_refused_and_nothing_written(block: dict[str, Any], path: str) -> None:
    cm = ContextManager.open("memory:")
    with pytest.raises(MalformedContentError) as err:
        cm.add_message("user", [{"type": "text", "text": "fine"}, block])
    assert err.value.block_index == 1 and err.value.path == path
    assert cm.message_count() == 0
    mid = cm.add_message("user", "plain")
    with pytest.raises(MalformedContentError):
        cm.edit_message(mid, [block])
    assert cm.get_message(mid).text() == "plain"
    assert cm.messages.audience_count() == 0


def test_audience_inside_tool_input_is_data_and_injections_refuse_it() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "x", "input": {"audience": ["ann"]}}])
    assert cm.messages.audience_count() == 0
    from context_journal.compile import Injection

    with pytest.raises(MalformedContentError):
        cm.compile(10_000, injections=[Injection(content=[{"type": "text", "text": "x", "audience": ["ann"]}])])
    with pytest.raises(MalformedContentError):
        cm.preview_context(10_000, injections=[Injection(content=[{"type": "text", "text": "x", "audience": ["ann"]}])])


def test_audience_counter_follows_edits_and_removals() -> None:
    cm = ContextManager.open("memory:")
    a = cm.add_message("user", [{"type": "text", "text": "x", "audience": ["ann"]}, {"type": "text", "text": "y"}])
    cm.add_message(
        "user", [{"type": "text", "text": "x", "audience": ["ann"]}, {"type": "text", "text": "z", "audience": ["bob"]}]
    )
    assert cm.messages.audience_count() == 3
    cm.edit_message(a, "now plain")  # widening goes through
    assert cm.messages.audience_count() == 2
    other = ContextManager.open(store=cm.store)
    assert other.messages.audience_count() == 2
    cm.remove_message(cm.get_all_messages()[1].id)
    assert cm.messages.audience_count() == 0


# ---- reader views ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["passthrough", "windowed", "autobiographical"])
def test_each_reader_compiles_exactly_its_blocks(kind: str) -> None:
    host = ContextManager.open("memory:")
    _fill(host)
    store = host.store
    ann = ContextManager.open(store=store, namespace="ann", view_reader="ann", strategy=_strategy(kind))
    bob = ContextManager.open(store=store, namespace="bob", view_reader="bob", strategy=_strategy(kind))
    none = ContextManager.open(store=store, namespace="none", strategy=_strategy(kind))
    assert ann.view_reader == "ann" and none.view_reader is None
    for cm, mine, others in [
        (ann, ("for ann only", "for both"), ("for bob only", "secret for annie")),
        (bob, ("for bob only", "for both"), ("for ann only", "secret for annie")),
        (none, (), ("for ann only", "for bob only", "for both", "secret for annie")),
    ]:
        if kind == "autobiographical":
            cm.summarizer = ScriptedProvider(default=lambda r: "memory")
        texts = _texts(cm.compile(100_000))
        joined = "\n".join(texts)
        for word in mine:
            assert word in joined
        for word in others:
            assert word not in joined
        assert "common line 0" in joined
        # raw reads (reader isolation): a reader's handle reads what the reader sees; a handle with no
        # reader (the host's) reads messages as stored
        raw = json.dumps([m.content_dicts() for m in cm.get_all_messages()])
        if cm.view_reader is None:
            assert "audience" in raw and all(w in raw for w in others)
        else:
            assert all(w in raw for w in mine) and not any(w in raw for w in others)
            assert [m.id for m in cm.get_all_messages()] == [m.id for m in cm.get_messages(0, None)]
            assert len(cm.get_all_messages()) == cm.message_count()


def test_a_message_wholly_for_others_is_left_out_and_token_counts_follow_the_view() -> None:
    host = ContextManager.open("memory:")
    host.add_message("user", "hello")
    host.add_message("user", [{"type": "text", "text": "bob secret " * 50, "audience": ["bob"]}])
    ann = ContextManager.open(store=host.store, namespace="a", view_reader="ann")
    bob = ContextManager.open(store=host.store, namespace="b", view_reader="bob")
    ra, rb = ann.compile(100_000), bob.compile(100_000)
    assert len(ra.messages) == 1 and len(rb.messages) >= 1
    assert ra.estimated_tokens < rb.estimated_tokens
    assert "bob secret" not in _dump(ra)


def test_names_match_exactly() -> None:
    host = ContextManager.open("memory:")
    host.add_message("user", [{"type": "text", "text": "x"}, {"type": "text", "text": "for an", "audience": ["an"]}])
    ann = ContextManager.open(store=host.store, namespace="a", view_reader="ann")
    assert "for an" not in _dump(ann.compile(10_000))


def test_strategy_is_told_only_what_its_reader_sees() -> None:
    seen: list[tuple[int, int]] = []

    class Spy(PassthroughStrategy):
        def on_messages_added(self, view: Any, start: int) -> None:
            seen.append((start, len(view)))

    cm = ContextManager.open("memory:", view_reader="ann", strategy=Spy())
    cm.add_message("user", "one")
    cm.add_message("user", [{"type": "text", "text": "bob", "audience": ["bob"]}])
    cm.add_message("user", [{"type": "text", "text": "ann", "audience": ["ann"]}])
    assert seen == [(0, 1), (1, 2)]


def test_autobiographical_requests_and_summaries_hold_only_the_readers_blocks() -> None:
    host = ContextManager.open("memory:")
    for i in range(40):
        host.add_message(
            "user" if i % 2 == 0 else "assistant",
            [
                {"type": "text", "text": f"public {i} " + "word " * 20},
                {"type": "text", "text": f"BOBONLY{i}", "audience": ["bob"]},
                {"type": "text", "text": f"ANNONLY{i}", "audience": ["ann"]},
            ],
        )
    for reader, banned in [("ann", "BOBONLY"), ("bob", "ANNONLY"), (None, "ONLY")]:
        provider = ScriptedProvider(
            default=lambda r: (
                "summary: " + json.dumps([getattr(b, "text", "") for m in r.messages for b in m.content])[:400]
            )
        )
        cm = ContextManager.open(
            store=host.store,
            namespace=f"ns-{reader}",
            view_reader=reader,
            strategy=AutobiographicalStrategy(**CFG),
            summarizer=provider,
        )
        cm.drain(wait=False, max_units=50)
        assert provider.requests, "compression should have asked the model"
        for req in provider.requests:
            assert banned not in req.model_dump_json()
        for s in cm.search_summaries(limit=None):
            assert banned not in json.dumps(
                s.model_dump(mode="json") if hasattr(s, "model_dump") else str(s), default=str
            )
        result = cm.compile(2_000)
        assert banned not in _dump(result)
        assert banned not in json.dumps([p for p in getattr(result, "provenance", [])], default=str)


# ---- a namespace's reader ------------------------------------------------------------------------


def test_first_reader_is_recorded_and_others_are_refused_without_writes() -> None:
    cm = ContextManager.open("memory:", view_reader="ann")
    store = cm.store
    assert store.get_state(cm._branch.id, "default/reader") is None  # opening (or reading) claims nothing
    cm.add_message("user", "hello")  # the first write claims the namespace for ann
    assert store.get_state(cm._branch.id, "default/reader") == "ann"
    head = store.head_seq()
    with pytest.raises(ReaderConflictError) as err:
        ContextManager.open(store=store, view_reader="bob")
    assert "ann" in str(err.value) and "bob" in str(err.value)
    with pytest.raises(ReaderConflictError):
        ContextManager.open(store=store, namespace="", view_reader="bob")
    with pytest.raises(ReaderConflictError):
        ContextManager.open(store=store, namespace="default", view_reader="bob")
    assert store.head_seq() == head
    with pytest.raises(ReaderError):
        ContextManager.open(store=store, namespace="x", view_reader="")
    # no reader: refused (bug case B64), never a fallback to the recorded reader; nothing is written
    with pytest.raises(ReaderConflictError, match="belongs to reader 'ann'") as err:
        ContextManager.open(store=store)
    assert err.value.requested is None and err.value.recorded == "ann"
    assert store.head_seq() == head
    again = ContextManager.open(store=store, view_reader="ann")
    cm.add_message("user", [{"type": "text", "text": "hi ann", "audience": ["ann"]}])
    assert "hi ann" in _dump(again.compile(1000))


def test_bad_record_refuses() -> None:
    cm = ContextManager.open("memory:")
    with cm.store.transaction() as tx:
        tx.put_state(cm._branch.id, "default/reader", 42)
    with pytest.raises(ReaderError, match="not a reader"):
        ContextManager.open(store=cm.store, view_reader="ann")
    with pytest.raises(StaleReaderError):
        cm.compile(1000)


def test_stale_manager_is_refused_at_its_next_read_and_compression_stops() -> None:
    provider = ScriptedProvider()
    old = ContextManager.open("memory:", strategy=AutobiographicalStrategy(**CFG), summarizer=provider)
    for i in range(30):
        old.add_message("user", f"line {i} " + "word " * 20)
    ann = ContextManager.open(store=old.store, view_reader="ann")  # opening claims nothing ...
    old.compile(1000)
    ann.set_fact("owner", "ann")  # ... a write does
    for call in (
        lambda: old.compile(1000),
        lambda: old.preview_context(1000),
        old.tick,
        lambda: old.edit_message(old.get_all_messages()[0].id, "x"),
        lambda: old.drain(wait=False),
    ):
        with pytest.raises(StaleReaderError):
            call()
    assert provider.calls == 0


def test_switch_fork_derive_and_set_strategy_refusals() -> None:
    ann = ContextManager.open("memory:", view_reader="ann")
    store = ann.store
    ann.fork("side")
    side = ContextManager.open(store=store, branch="side", view_reader="ann")
    assert side.view_reader == "ann"  # the fork inherits the record ...
    with pytest.raises(ReaderConflictError, match="belongs to reader 'ann'"):
        ContextManager.open(store=store, branch="side")  # ... and a handle naming nobody is refused there
    nobody = ContextManager.open(store=store, namespace="other")
    nobody.switch_branch("side")  # its namespace records no reader there: allowed
    # a no-reader manager on ann's namespace but opened before the claim is stale everywhere
    stale = ContextManager.open("memory:")
    store2 = stale.store
    stale.fork("b2")
    ContextManager.open(store=store2, branch="b2", view_reader="bob").set_fact("owner", "bob")
    with pytest.raises(ReaderConflictError):
        stale.switch_branch("b2")
    assert stale.current_branch() == "main"
    # derive for the recorded reader: child records it, reopen_derived reopens for it
    child = ann.derive("kid")
    assert child.view_reader == "ann"
    kid_info = store.get_branch("kid")
    assert store.get_state(kid_info.id, "default/reader") == "ann"
    again = ContextManager.reopen_derived(store, "kid", view_reader="ann")
    assert again.view_reader == "ann"
    with pytest.raises(ReaderConflictError):
        ContextManager.reopen_derived(store, "kid")

    # a strategy that does not record its reads is refused; nothing is created
    class NoRecord:
        name = "norec"

    names = {b.name for b in ann.list_branches()}
    with pytest.raises(ReaderError):
        ann.derive("bad", strategy=NoRecord())  # type: ignore[arg-type]
    assert {b.name for b in ann.list_branches()} == names
    with pytest.raises(ReaderError):
        ann.set_strategy(NoRecord())  # type: ignore[arg-type]
    with pytest.raises(ReaderError):
        ContextManager.open(store=store, namespace="z", view_reader="zed", strategy=NoRecord())
    assert store.get_state(ann._branch.id, "z/reader") is None
    # a derive into a namespace that records another reader leaves no branch
    ContextManager.open(store=store, namespace="bobs", view_reader="bob").set_fact("owner", "bob")
    with pytest.raises(ReaderConflictError):
        ann.derive("bad2", namespace="bobs")
    assert {b.name for b in ann.list_branches()} == names
    # fork by a stale manager leaves no branch
    ContextManager.open(store=store2, view_reader="cy").set_fact("owner", "cy")
    with pytest.raises(StaleReaderError):
        stale.fork("bad3")
    assert "bad3" not in {b.name for b in stale.list_branches()}


# ---- narrowing -----------------------------------------------------------------------------------


def _chunked_manager(reader: str | None = "ann") -> tuple[ContextManager, ScriptedProvider, list[str]]:
    provider = ScriptedProvider(default=lambda r: "memory")
    cm = ContextManager.open(
        "memory:", view_reader=reader, strategy=AutobiographicalStrategy(**CFG), summarizer=provider
    )
    ids = [
        cm.add_message(
            "user",
            [
                {"type": "text", "text": f"line {i} " + "word " * 30},
                {"type": "text", "text": "shared", "audience": ["ann", "bob"]},
            ],
        )
        for i in range(30)
    ]
    return cm, provider, ids


def test_narrowing_rules() -> None:
    cm, provider, ids = _chunked_manager()
    cm.drain(wait=False)
    assert provider.calls > 0
    first = ids[0]
    shared = {"type": "text", "text": "shared"}
    # removing ann (the manager's own reader) after compression read it: refused
    with pytest.raises(AudienceNarrowingError, match="compression may already have read"):
        cm.edit_message(first, [{"type": "text", "text": "x"}, {**shared, "audience": ["bob"]}])
    # removing someone else: refused always
    with pytest.raises(AudienceNarrowingError, match="own reader"):
        cm.edit_message(ids[-1], [{"type": "text", "text": "x"}, {**shared, "audience": ["ann"]}])
    # giving an audience to a public block: refused
    with pytest.raises(AudienceNarrowingError):
        cm.edit_message(ids[-1], [{"type": "text", "text": "x", "audience": ["ann"]}, shared])
    # widening goes through
    cm.edit_message(first, [{"type": "text", "text": "x"}, {**shared, "audience": ["ann", "bob", "cy"]}])
    # a message newer than anything compression read: ann may drop herself
    new = cm.add_message("user", [{"type": "text", "text": "n"}, {**shared, "audience": ["ann", "bob"]}])
    cm.edit_message(new, [{"type": "text", "text": "n"}, {**shared, "audience": ["bob"]}])
    # after a reopen, a fork and a derive the mark still holds
    again = ContextManager.open(store=cm.store, strategy=AutobiographicalStrategy(**CFG), view_reader="ann")
    with pytest.raises(AudienceNarrowingError):
        again.edit_message(ids[1], [{"type": "text", "text": "x"}, {**shared, "audience": ["bob"]}])
    cm.fork("f")
    forked = ContextManager.open(
        store=cm.store, branch="f", strategy=AutobiographicalStrategy(**CFG), view_reader="ann"
    )
    with pytest.raises(AudienceNarrowingError):
        forked.edit_message(ids[1], [{"type": "text", "text": "x"}, {**shared, "audience": ["bob"]}])
    child = cm.derive("d", strategy=AutobiographicalStrategy(**CFG))
    with pytest.raises(AudienceNarrowingError):
        child.edit_message(ids[1], [{"type": "text", "text": "x"}, {**shared, "audience": ["bob"]}])


def test_no_reader_manager_never_narrows() -> None:
    cm = ContextManager.open("memory:")
    mid = cm.add_message("user", [{"type": "text", "text": "x", "audience": ["ann", "bob"]}])
    with pytest.raises(AudienceNarrowingError, match="no reader"):
        cm.edit_message(mid, [{"type": "text", "text": "x", "audience": ["bob"]}])
    cm.edit_message(mid, [{"type": "text", "text": "x", "audience": ["ann", "bob"]}, {"type": "text", "text": "y"}])


def test_failed_read_mark_sends_no_request(monkeypatch: pytest.MonkeyPatch) -> None:
    cm, provider, _ = _chunked_manager()
    import context_journal._read_mark as read_mark

    def boom(*a: Any, **k: Any) -> None:
        raise RuntimeError("store down")

    monkeypatch.setattr(read_mark, "raise_compression_read", boom)
    with pytest.raises(Exception):  # noqa: B017
        cm.tick()
    assert provider.calls == 0


def test_reset_head_window_summary_belongs_to_the_reader() -> None:
    cm, _, _ = _chunked_manager()
    mid = cm.reset_head_window()
    assert cm.messages.get(mid).content_dicts()[0]["audience"] == ["ann"]  # as stored
    assert "audience" not in cm.get_message(mid).content_dicts()[0]  # as ann reads it
    mid2 = cm.reset_head_window("host text")
    assert "audience" not in cm.messages.get(mid2).content_dicts()[0]


def test_narrowing_refused_while_a_request_that_may_carry_it_is_out() -> None:
    outcomes: list[str] = []
    holder: dict[str, Any] = {}

    def answer(request: Any) -> str:
        cm, mid = holder["cm"], holder["mid"]
        try:
            cm.edit_message(mid, [{"type": "text", "text": "x"}, {"type": "text", "text": "s", "audience": ["bob"]}])
            outcomes.append("edited")
        except AudienceNarrowingError:
            outcomes.append("refused")
        return "memory"

    cm = ContextManager.open(
        "memory:",
        view_reader="ann",
        strategy=AutobiographicalStrategy(**CFG),
        summarizer=ScriptedProvider(default=answer),
    )
    ids = [
        cm.add_message(
            "user",
            [
                {"type": "text", "text": f"line {i} " + "word " * 30},
                {"type": "text", "text": "s", "audience": ["ann", "bob"]},
            ],
        )
        for i in range(30)
    ]
    holder.update(cm=cm, mid=ids[0])
    cm.tick()
    assert outcomes and outcomes[0] == "refused"


def test_stale_after_another_handle_switches_onto_the_branch_and_mid_drain_claim() -> None:
    a = ContextManager.open("memory:")
    a.fork("b")
    on_b = ContextManager.open(store=a.store, branch="b")
    with pytest.raises(EmptyContextError):  # empty, and no reader recorded yet: nothing to be stale about
        on_b.compile(1000)
    # a handle with a reader on another branch switches onto "b" and claims it there
    ann2 = ContextManager.open(store=a.store, namespace="default", branch="main", view_reader="ann")
    ann2.switch_branch("b")
    on_b.add_message("user", "still nobody's")  # switching claims nothing yet
    ann2.set_fact("owner", "ann")  # the first write there does
    with pytest.raises(StaleReaderError):
        on_b.compile(1000)

    # a drain that began before the claim stops asking the model at its next unit
    calls: list[int] = []

    def answer(request: Any) -> str:
        calls.append(1)
        if len(calls) == 1:
            ContextManager.open(store=store, namespace="late", view_reader="zoe").set_fact("owner", "zoe")
        return "memory"

    cm = ContextManager.open(
        "memory:",
        namespace="late",
        strategy=AutobiographicalStrategy(**CFG),
        summarizer=ScriptedProvider(default=answer),
    )
    store = cm.store
    for i in range(40):
        cm.add_message("user", f"line {i} " + "word " * 30)
    with pytest.raises(StaleReaderError):
        cm.drain(wait=False)
    assert len(calls) == 1


def test_summary_range_by_id_is_the_readers() -> None:
    from context_journal.errors import MessageNotFoundError

    cm = ContextManager.open("memory:", view_reader="ann")
    cm.add_message("user", "public")
    hidden = cm.add_message("user", [{"type": "text", "text": "b", "audience": ["bob"]}])
    with pytest.raises(MessageNotFoundError):
        cm.get_summaries_in_range(hidden, hidden)


@pytest.mark.parametrize("auxiliary", [False, True])
def test_a_read_that_fails_while_edits_are_applied_to_a_view_is_made_again(tmp_path: Any, auxiliary: bool) -> None:
    """A reader view replaces the rows of edited messages in place, reading each edited message that has
    blocks with an audience; a read that fails there (a dropped connection) changes no row, and the next
    compile applies the edits, as a fresh handle shows them (the view once counted the edits as applied
    before reading, and kept the old rows for good)."""
    from context_journal.messages import MessageStore

    path = str(tmp_path / "s.db")
    host = ContextManager.open(path, namespace="talk", isolate=True) if auxiliary else ContextManager.open(path)

    def blocks(k: int, text: str) -> list[dict[str, Any]]:
        return [{"type": "text", "text": f"public {k}"}, {"type": "text", "text": text, "audience": ["ann"]}]

    ids = [host.add_message("user" if k % 2 else "assistant", blocks(k, f"for ann {k}: first")) for k in range(6)]

    def open_ann() -> ContextManager:
        if auxiliary:
            return ContextManager.open(
                path, namespace="ann", isolate=True, view_reader="ann", auxiliary_views=[{"namespace": "talk"}]
            )
        return ContextManager.open(path, namespace="ann", view_reader="ann")

    ann = open_ann()
    if auxiliary:
        ann.add_message("ann", "a note of my own")
    ann.compile(4000)
    for i in (1, 3):
        host.edit_message(ids[i], blocks(i, f"for ann {i}: SECOND, much longer " * 5))
    real = MessageStore.load_versions
    calls = 0

    def flaky(self: MessageStore, versions: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise OSError("a read failed")
        return real(self, versions)

    MessageStore.load_versions = flaky  # type: ignore[method-assign]
    try:
        with pytest.raises(OSError):
            ann.compile(4000)
    finally:
        MessageStore.load_versions = real  # type: ignore[method-assign]
    result, fresh = ann.compile(4000), open_ann().compile(4000)
    # (without the compile's own cache markers: one marks the prefix this handle's previous compile sent
    # the same, which a fresh handle has not made)
    assert result.to_anthropic(cache=False) == fresh.to_anthropic(cache=False) and result.tokens == fresh.tokens
    assert json.dumps(result.to_anthropic()).count("SECOND") == 2 * 5
