"""Ingress sharding: a message far larger than a chunk is stored as a body group of shards cut at the
best seams, reassembles byte for byte, compresses like messages, re-joins into one provider message when
rendered raw, and is edited, removed, erased, pinned and marked only as a group."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, MemoryStore
from context_journal.compile import OverBudgetError
from context_journal.errors import MalformedContentError, MessageNotFoundError
from context_journal.rendering.repairs import Source
from context_journal.sharding import (
    SHARD_KEY,
    ShardingError,
    group_of,
    join_content,
    plan_shards,
    shard_id,
    split_text,
)
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy
from context_journal.strategies.pinned import PINS_STATE, pinned_ids
from context_journal.validate import validate_messages
from tests.hypothesis_budget import examples

CHUNK = 600  # target_chunk_tokens of the strategy below: messages over 1,200 tokens are sharded


def _strategy(**config: Any) -> AutobiographicalStrategy:
    return AutobiographicalStrategy(
        AutobiographicalConfig(
            target_chunk_tokens=CHUNK,
            head_window_tokens=200,
            recent_window_tokens=600,
            summary_target_tokens=120,
            **config,
        )
    )


def _manager(**kwargs: Any) -> ContextManager:
    return ContextManager.open("memory:", strategy=_strategy(), **kwargs)


def _doc(sections: int = 12) -> str:
    parts = []
    for k in range(sections):
        parts.append(f"## Section {k}\n\n" + f"Paragraph {k} says the limit is {k * 7} requests per minute. " * 25)
        parts.append("```python\n" + f"def handler_{k}(event):\n    return {k}\n" * 6 + "```\n")
    return "\n\n".join(parts)


def _stored(cm: ContextManager) -> list[str]:
    return [m.id for m in cm.messages.slice(0, None)]


# ---- cutting ----------------------------------------------------------------------------------------


def test_pieces_cut_before_headings_and_join_to_the_text() -> None:
    text = _doc()
    pieces = split_text(text, 4)
    assert len(pieces) == 4 and "".join(pieces) == text
    assert all(p.startswith("## Section") for p in pieces[1:])  # every cut at a heading near the even split


def test_text_without_seams_is_cut_between_grapheme_clusters() -> None:
    text = "e\u0301" * 3000 + "\U0001f468\u200d\U0001f469\u200d\U0001f467" * 500 + "\r\n" * 10
    pieces = split_text(text, 7)
    assert "".join(pieces) == text and len(pieces) == 7
    for p in pieces[1:]:
        assert p[0] not in "\u0301\u200d\n", repr(p[:3])  # no piece starts inside a cluster


_CLUSTERS = st.sampled_from(
    ["a", "b", " ", ". ", "\n", "\n\n", "\r\n", "e\u0301", "\U0001f44d\U0001f3fd", "\u0915\u094d\u0937", "# ", "```"]
)


@settings(max_examples=examples(120), deadline=None)
@given(st.lists(_CLUSTERS, min_size=2, max_size=400), st.integers(2, 12))
def test_any_text_reassembles_and_no_cut_splits_a_cluster(parts: list[str], n: int) -> None:
    import regex  # type: ignore[import-untyped]

    text = "".join(parts)
    pieces = split_text(text, n)
    assert "".join(pieces) == text
    assert len(pieces) <= n
    assert all(p.strip() for p in pieces) or len(pieces) == 1
    clusters = regex.findall(r"\X", text)
    bounds = {0}
    at = 0
    for c in clusters:
        at += len(c)
        bounds.add(at)
    cut = 0
    for p in pieces:
        cut += len(p)
        assert cut in bounds


_BLOCK = st.one_of(
    st.builds(
        lambda t, aud: {"type": "text", "text": t, **({"audience": aud} if aud else {})},
        st.text(st.sampled_from("ab .\n#é"), min_size=1, max_size=300).filter(str.strip),
        st.sampled_from([None, ["ann"], ["bob"]]),
    ),
    st.just({"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}),
    st.just({"type": "text", "text": ""}),  # an empty text block beside others is valid content
)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(_BLOCK, min_size=1, max_size=6), st.integers(1, 40))
def test_any_content_reassembles_byte_exactly_with_riders_on_the_first_shard(
    content: list[dict[str, Any]], threshold: int
) -> None:
    chars = sum(len(b.get("text", "")) for b in content)
    plan = plan_shards(content, chars, threshold)
    if plan is None:
        return
    assert join_content(plan) == content
    for k, (blocks, layout) in enumerate(plan):
        assert len(blocks) == len(layout) and layout == sorted(layout)
        assert all(b["type"] == "text" for b in blocks) or k == 0
        assert all(b.get("text", "x").strip() or b["type"] != "text" for b in blocks) or len(blocks) > 0


def test_tool_and_thinking_messages_are_never_sharded() -> None:
    big = "word " * 5000
    assert (
        plan_shards(
            [{"type": "text", "text": big}, {"type": "tool_use", "id": "t", "name": "x", "input": {}}], 9000, 100
        )
        is None
    )
    assert plan_shards([{"type": "thinking", "thinking": big, "signature": "s"}], 9000, 100) is None
    assert plan_shards([{"type": "text", "text": big}], 900, 1000) is None  # under the threshold
    assert plan_shards([{"type": "text", "text": big}], 9000, 0) is None  # sharding off


def test_shard_ids_name_their_group() -> None:
    assert shard_id("m1", 1) == "m1" and shard_id("m1", 3) == "m1#shard-3"
    assert group_of("m1#shard-3") == ("m1", 3) and group_of("m1") == ("m1", 1)


# ---- writing and reading ---------------------------------------------------------------------------


def test_a_large_message_is_stored_as_shards_and_read_back_whole() -> None:
    cm = _manager()
    assert cm.shard_tokens == 2 * CHUNK
    doc = _doc()
    content = [{"type": "text", "text": "Here is the spec:"}, {"type": "text", "text": doc}]
    cm.add_message("user", "hello", id="a")
    gid = cm.add_message("user", content, id="spec", metadata={"source": "paste"})
    cm.add_message("assistant", "read it", id="b")
    stored = _stored(cm)
    n = len(stored) - 2
    assert gid == "spec" and n >= 3
    assert stored[1:-1] == ["spec", *(f"spec#shard-{k}" for k in range(2, n + 1))]
    first = cm.messages.get("spec")
    assert first.metadata[SHARD_KEY] == {"group": "spec", "index": 1, "count": n, "blocks": [0, 1]}
    whole = cm.get_message("spec")
    assert whole.content_dicts() == content and whole.metadata == {"source": "paste"}
    assert [m.id for m in cm.get_all_messages()] == ["a", "spec", "b"]
    assert cm.get_all_messages()[1].content_dicts() == content
    assert cm.get_message_at("spec", whole.sequence).content_dicts() == content
    assert [m.id for m in cm.query_messages(participant="user")] == ["a", "spec"]
    assert cm.query_messages(metadata={"source": "paste"})[0].content_dicts() == content
    # Pages count stored messages; each message comes whole from the page that holds its first shard.
    assert cm.message_count() == n + 2
    seen: list[str] = []
    for offset in range(0, n + 2, 2):
        seen += [m.id for m in cm.get_messages(offset, 2)]
    assert seen == ["a", "spec", "b"]
    hits = cm.search_messages("handler_11 requests")
    assert [h.message_id for h in hits] == ["spec"]


def test_sharding_settings() -> None:
    big = _doc()
    off = _manager(shard_tokens=0)
    off.add_message("user", big, id="d")
    assert _stored(off) == ["d"]
    raw = ContextManager.open("memory:", strategy="passthrough")
    assert raw.shard_tokens == 0  # a strategy that does not chunk: no default sharding
    raw.add_message("user", big, id="d")
    assert _stored(raw) == ["d"]
    raw.shard_tokens = 1000
    raw.add_message("user", big, id="e")
    assert len(_stored(raw)) > 3
    with pytest.raises(ValueError, match="shard_tokens"):
        raw.shard_tokens = -1


def test_ids_of_the_shard_form_are_refused_for_hosts() -> None:
    cm = _manager()
    with pytest.raises(MalformedContentError, match="shard"):
        cm.add_message("user", "hi", id="x#shard-2")
    assert cm.message_count() == 0


# ---- compiling -------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["passthrough", "windowed", "autobiographical"])
def test_raw_shards_rejoin_into_one_provider_message(strategy: str) -> None:
    cm = ContextManager.open("memory:", strategy=_strategy() if strategy == "autobiographical" else strategy)
    cm.shard_tokens = 2 * CHUNK
    doc = _doc()
    cm.add_message("user", "hello", id="a")
    cm.add_message("user", [{"type": "text", "text": doc}], id="spec")
    cm.add_message("assistant", "read it", id="b")
    result = cm.compile(200_000)
    assert validate_messages(result.as_messages()) == []
    held = [m for m in result.messages if any(s.id == "spec" for s in m.sources)]
    assert len(held) == 1
    text = "".join(b["text"] for b in held[0].content if b["type"] == "text")
    assert doc in text
    assert [s.id for s in held[0].sources] == [i for i in _stored(cm) if group_of(i)[0] == "spec"]


def test_shards_compress_like_messages_and_every_shard_is_accounted_for() -> None:
    cm = _manager()
    for k in range(6):
        cm.add_message("user" if k % 2 == 0 else "assistant", f"turn {k} " + "words " * 80, id=f"t{k}")
    cm.add_message("user", _doc(20), id="spec")
    for k in range(6, 14):
        cm.add_message("user" if k % 2 == 0 else "assistant", f"turn {k} " + "words " * 80, id=f"t{k}")
    cm.drain()
    shards = [i for i in _stored(cm) if group_of(i)[0] == "spec"]
    assert len(shards) >= 4
    for sid in shards:  # every shard is summarised, as any message is
        assert cm.get_summaries_in_range(sid, sid), sid
    result = cm.compile(2500)
    assert result.tokens <= 2500
    assert validate_messages(result.as_messages()) == []
    assert set(_stored(cm)) <= _covered(cm, result)


def _covered(cm: ContextManager, result: Any) -> set[str]:
    """The stored ids a compile accounts for: shown raw, summarised by a summary it shows, or omitted."""
    covered = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
    for m in result.messages:
        for s in m.sources:
            if s.kind == "summary":
                summary = cm.get_summary(s.id)
                covered.update(_range(cm, summary.first_message_id, summary.last_message_id))
    for first, last, _n, _why in result.omitted:
        covered.update(_range(cm, first, last))
    return covered


def _range(cm: ContextManager, first: str, last: str) -> list[str]:
    order = _stored(cm)
    return order[order.index(first) : order.index(last) + 1]


# ---- group writes -----------------------------------------------------------------------------------


def test_edits_and_removals_are_of_the_whole_group() -> None:
    cm = _manager()
    cm.add_message("user", "hello", id="a")
    cm.add_message("user", _doc(), id="spec")
    n = len(_stored(cm)) - 1
    with pytest.raises(ShardingError, match=r"spec#shard-2.*shard of message 'spec'"):
        cm.edit_message("spec#shard-2", "x")
    with pytest.raises(ShardingError):
        cm.remove_message("spec#shard-2")
    longer = _doc(16)
    cm.edit_message("spec", longer)  # grows: cut again into as many shards as the group has
    assert len(_stored(cm)) - 1 == n
    assert cm.get_message("spec").text() == longer
    shorter = _doc(6)
    cm.edit_message("spec", shorter)
    assert cm.get_message("spec").text() == shorter
    assert len(_stored(cm)) - 1 < n  # the shards it no longer needs are removed
    cm.edit_message("spec", metadata={"tag": "v3"})
    assert cm.get_message("spec").metadata == {"tag": "v3"} and cm.get_message("spec").text() == shorter
    cm.edit_message("spec", "now short")
    assert _stored(cm) == ["a", "spec"] and cm.get_message("spec").text() == "now short"
    cm.add_message("user", _doc(), id="two")
    cm.remove_message("two")
    assert _stored(cm) == ["a", "spec"]


def test_pins_marks_and_erasure_take_the_whole_group() -> None:
    cm = _manager()
    cm.add_message("user", "hello", id="a")
    cm.add_message("user", _doc(), id="spec")
    group = [i for i in _stored(cm) if group_of(i)[0] == "spec"]
    cm.pin("spec")
    assert cm.pins() == ["spec"]  # listed by the message's id; every shard is pinned
    assert list(pinned_ids(cm._strategy_context().get_state(PINS_STATE))) == group
    cm.unpin("spec")
    assert cm.pins() == []
    cm.mark_document("spec")
    assert cm.documents() == ["spec"]
    cm.render_as_newest("spec")
    assert cm.rendered_as_newest() == ["spec"]
    cm.render_in_place("spec")
    done = cm.redact("spec", reason="pasted a secret")
    assert done.message_id == "spec" and len(done.versions) == len(group)  # every shard's version erased
    assert cm.get_message("spec").text() == "[redacted]"  # one placeholder stands for the group
    assert [m.id for m in cm.get_all_messages()] == ["a", "spec"]
    assert not any("handler_" in str(v) for v in cm.store.read_slot("messages", cm._branch.id))
    assert cm.search_messages("handler_3") == []


def test_a_reader_sees_only_its_blocks_of_a_sharded_message() -> None:
    cm = _manager()
    mine, theirs = _doc(8), _doc(8).replace("Paragraph", "Secret")
    cm.add_message(
        "user",
        [{"type": "text", "text": mine, "audience": ["ann"]}, {"type": "text", "text": theirs, "audience": ["bob"]}],
        id="spec",
    )
    assert len(_stored(cm)) > 2
    ann = ContextManager(cm.store, strategy=_strategy(), view_reader="ann")
    assert ann.get_message("spec").content_dicts() == [{"type": "text", "text": mine}]
    assert ann.get_all_messages()[0].content_dicts() == [{"type": "text", "text": mine}]
    assert "Secret" not in str(ann.compile(200_000).as_messages())
    assert all("Secret" not in h.snippet for h in ann.search_messages("Secret Paragraph"))


# ---- real input ------------------------------------------------------------------------------------


def test_real_documents_shard_and_reassemble(data_dir: Path) -> None:
    texts = [
        (data_dir.parent / "DESIGN.md").read_text(encoding="utf-8"),
        (data_dir / "claude-code-sessions" / "README.md").read_text(encoding="utf-8"),
    ]
    sessions = sorted((data_dir / "claude-code-sessions").glob("*.jsonl"))
    texts.append(sessions[0].read_bytes()[:300_000].decode("utf-8", errors="ignore"))
    irc = sorted((data_dir / "ubuntu-irc-disentanglement").rglob("*.txt"))
    if irc:
        texts.append(irc[0].read_text(encoding="utf-8", errors="ignore")[:200_000])
    for k, text in enumerate(texts):
        cm = _manager()
        cm.add_message("user", text, id=f"doc{k}")
        assert cm.get_message(f"doc{k}").text() == text
        cm.drain()
        result = cm.compile(3000)
        assert result.tokens <= 3000 and validate_messages(result.as_messages()) == []
        raw = ContextManager(cm.store, strategy="passthrough").compile(10_000_000)
        assert raw.messages[0].content[0]["text"] == text


# ---- property: coverage with pins and shards ---------------------------------------------------------

_TURNS = st.lists(st.sampled_from(["short", "long", "doc"]), min_size=2, max_size=14)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=_TURNS,
    pick=st.integers(0, 1000),
    budget=st.integers(1500, 6000),
    name=st.sampled_from(["passthrough", "windowed", "autobiographical"]),
)
def test_every_shard_is_shown_summarised_or_omitted_and_pinned_groups_stay_raw(
    turns: list[str], pick: int, budget: int, name: str
) -> None:
    cm = ContextManager.open("memory:", strategy=_strategy() if name == "autobiographical" else name)
    cm.shard_tokens = 2 * CHUNK
    ids = []
    for k, kind in enumerate(turns):
        text = {"short": f"turn {k} ok", "long": f"turn {k} " + "words " * 150, "doc": _doc(3 + k % 4)}[kind]
        ids.append(cm.add_message("user" if k % 2 == 0 else "assistant", text, id=f"m{k}"))
    groups = {i: [s for s in _stored(cm) if group_of(s)[0] == i] for i in ids}
    pinned = ids[pick % len(ids)]
    cm.pin(pinned)
    if name == "autobiographical":
        cm.drain()
    try:
        result = cm.compile(budget)
    except OverBudgetError as err:  # only the pinned message can be too large to fit
        assert all(key.startswith("pinned") for key in err.parts if key in groups[pinned] or "pinned" in key)
        assert "pinned" in str(err) and len(groups[pinned]) > 1, err
        return
    assert result.tokens <= budget and validate_messages(result.as_messages()) == []
    shown: list[str] = [s.id for m in result.messages for s in m.sources if s.kind == "message"]
    assert len(shown) == len(set(shown))  # no shard twice
    assert set(_stored(cm)) <= _covered(cm, result)
    # The pinned message is raw: every shard of it, once.
    assert [i for i in shown if i in groups[pinned]] == groups[pinned]
    # Raw shards of one message that follow each other unaltered are one provider message.
    for a, b in zip(result.messages, result.messages[1:], strict=False):
        tail, head = a.sources[-1], b.sources[0]
        if tail.kind == head.kind == "message" and tail.complete and head.complete:
            assert not (group_of(tail.id)[0] == group_of(head.id)[0] and group_of(head.id)[1] > 1), (tail, head)


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["passthrough", "windowed", "autobiographical"]),
    before=st.lists(st.sampled_from(["short", "long", "tool"]), max_size=6),
    sections=st.integers(3, 14),
    who=st.sampled_from(["user", "assistant"]),
    budget=st.integers(600, 9000),
    query=st.sampled_from([None, "limit requests per minute", "handler event", "turn words"]),
)
def test_a_sharded_newest_message_compiles_as_the_message_it_was_written_as(
    name: str, before: list[str], sections: int, who: str, budget: int, query: str | None
) -> None:
    """While no summary stands for any part of it, the newest message compiles exactly as it would
    unsharded: kept, priced and excerpted whole, head and tail (a tight compile once kept its last
    shards and cut its first), with a query too (recall once brought back its shards and cut its head);
    its provenance names every shard, complete only when sent uncut."""

    def build(shard_tokens: int) -> ContextManager:
        cm = ContextManager.open("memory:", strategy=_strategy() if name == "autobiographical" else name)
        cm.shard_tokens = shard_tokens
        for k, kind in enumerate(before):
            if kind == "tool":
                cm.add_message("assistant", [{"type": "tool_use", "id": f"c{k}", "name": "read", "input": {}}])
                cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"c{k}", "content": "ok " * 400}])
            else:
                cm.add_message(
                    "user" if k % 2 else "assistant", f"turn {k} " + "words " * (5 if kind == "short" else 300)
                )
        cm.add_message(who, _doc(sections), id="spec")
        return cm

    sharded, whole = build(2 * CHUNK), build(0)
    shards = [i for i in _stored(sharded) if group_of(i)[0] == "spec"]
    assert len(shards) > 1 and "spec" in _stored(whole)
    try:
        expected = whole.compile(budget, query=query)
    except OverBudgetError:
        with pytest.raises(OverBudgetError):
            sharded.compile(budget, query=query)
        return
    result = sharded.compile(budget, query=query)
    assert [(m.role, m.content) for m in result.messages] == [(m.role, m.content) for m in expected.messages]
    assert result.tokens == expected.tokens and result.dropped == expected.dropped
    assert result.recall == expected.recall  # a hit in any shard is a hit in the message, in the context
    newest = result.messages[-1]
    assert [s.id for s in newest.sources if s.kind == "message"] == shards
    sent_whole = expected.messages[-1].sources[0].complete
    assert all(s.complete == sent_whole for s in newest.sources if s.kind == "message")


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    before=st.integers(0, 6),
    sections=st.integers(3, 12),
    ticks=st.integers(0, 6),
    budget=st.integers(150, 6000),
    overflow=st.sampled_from(["excerpt", "window"]),
)
def test_a_sharded_newest_message_partly_summarised_is_accounted_for(
    before: int, sections: int, ticks: int, budget: int, overflow: str
) -> None:
    """Once a summary stands for one of its shards, shown or left out, the newest message is compiled as
    its shards: every shard is raw, summarised or omitted, never lost (read whole, a summary of its first
    shard once stood for all of it and its other shards were neither shown nor listed)."""
    strategy = AutobiographicalStrategy(
        AutobiographicalConfig(
            target_chunk_tokens=CHUNK,
            head_window_tokens=60,
            recent_window_tokens=200,
            summary_target_tokens=30,
            overflow=overflow,  # type: ignore[arg-type]
        )
    )
    cm = ContextManager.open("memory:", strategy=strategy)
    for k in range(before):
        cm.add_message("user" if k % 2 else "assistant", f"turn {k} " + "words " * 40)
    cm.add_message("user", _doc(sections), id="spec")
    cm.drain(max_units=ticks)
    try:
        result = cm.compile(budget)
    except OverBudgetError:
        return
    assert result.tokens <= budget and validate_messages(result.as_messages()) == []
    covered = _covered(cm, result) | {r.message_id for r in result.repairs if r.message_id}
    assert set(_stored(cm)) <= covered, sorted(set(_stored(cm)) - covered)


def test_the_folded_view_reads_as_the_unsharded_view() -> None:
    """The view a compile reads a sharded newest message through answers every question as the view of
    the same history written unsharded: sizes, suffixes, entries, positions, bodies."""
    from context_journal.rendering.shards import fold_newest_group, newest_group_start
    from context_journal.tokens import EstimatingCounter

    def build(shard_tokens: int) -> Any:
        cm = ContextManager.open("memory:", strategy="passthrough")
        cm.shard_tokens = shard_tokens
        for k in range(4):
            cm.add_message("user" if k % 2 == 0 else "assistant", f"turn {k} " + "words " * 30, id=f"t{k}")
        cm.add_message("user", _doc(6), id="spec")
        return cm._read_view()

    plain, sharded = build(0), build(2 * CHUNK)
    assert newest_group_start(plain) is None and newest_group_start(sharded) == 4
    folded = fold_newest_group(sharded, EstimatingCounter(), frozenset(), lambda a, b: False)
    assert folded is not None and len(folded) == len(plain) == 5
    total = plain.tokens()
    assert folded.tokens() == total
    for a in range(6):
        for b in range(a, 6):
            assert folded.tokens(a, b) == plain.tokens(a, b), (a, b)
    for budget in [*range(0, total + 200, 37), total]:
        for end in range(6):
            assert folded.suffix_start(budget, end) == plain.suffix_start(budget, end), (budget, end)

    def strip(e: Any) -> tuple[Any, ...]:
        return (e.position, e.id, e.participant, e.kinds, e.tokens)

    assert [strip(e) for e in folded.entries()] == [strip(e) for e in plain.entries()]
    assert [strip(e) for e in folded.iter_reverse()] == [strip(e) for e in reversed(plain.entries())]
    assert [m.content_dicts() for m in folded.messages()] == [m.content_dicts() for m in plain.messages()]
    assert folded.index_of("spec") == plain.index_of("spec") == 4 and folded.index_of("spec#shard-2") is None
    assert folded.tokens_of("spec") == plain.tokens_of("spec")
    with pytest.raises(IndexError):
        folded.entry(5)


@pytest.mark.parametrize("name", ["passthrough", "windowed", "autobiographical"])
@pytest.mark.parametrize("reader", [None, "bob", "ann"])
def test_a_newest_message_with_a_block_for_one_reader_is_read_whole_by_every_reader(
    name: str, reader: str | None
) -> None:
    """A reader that does not see the shards holding another reader's block still reads the newest
    message as written, head and tail (it was compiled shard by shard for everyone but ann: its head cut
    at 1,000 tokens)."""

    def build(shard_tokens: int) -> ContextManager:
        store = MemoryStore()
        host = ContextManager.open(store=store, strategy=_strategy() if name == "autobiographical" else name)
        host.shard_tokens = shard_tokens
        for k in range(10):
            host.add_message("user" if k % 2 == 0 else "assistant", f"turn {k} " + "words " * 20)
        public = {"type": "text", "text": "HEAD " + _doc(10) + " TAIL"}
        private = {"type": "text", "text": "for ann only. " + "the plan for ann alone. " * 300, "audience": ["ann"]}
        host.add_message("user", [public, private], id="big")
        return ContextManager.open(
            store=store, view_reader=reader, strategy=_strategy() if name == "autobiographical" else name
        )

    whole, sharded = build(0), build(2 * CHUNK)
    assert len([i for i in _stored(sharded) if group_of(i)[0] == "big"]) > 2
    expected, result = whole.compile(1000), sharded.compile(1000)
    assert [(m.role, m.content) for m in result.messages] == [(m.role, m.content) for m in expected.messages]
    text = str(result.messages[-1].content)
    assert "HEAD" in text and "TAIL" in text and ("for ann only" in text) == (reader == "ann")


def test_recall_lines_of_a_message_read_whole_and_of_its_last_shard_never_stand_for_each_other() -> None:
    """A compile reads the newest sharded message whole under its last shard's sequence; recall lines are
    kept by message id and sequence, so an earlier compile never changes a later one (it did: a handle
    that had compiled with one query recalled 1 message with another, a fresh handle 3)."""

    def build() -> ContextManager:
        cm = ContextManager.open("memory:", strategy="passthrough")
        cm.shard_tokens = 2 * CHUNK
        for k in range(30):
            cm.add_message("user" if k % 2 == 0 else "assistant", f"turn {k}: we discuss the build " * 5)
        cm.add_message("user", "Here is the log:\n\n" + _doc(12) + "\n\nwhat does the last line mean?", id="big")
        return cm

    for budget in (400, 1000):
        for first in ("last line", "handler event limit", "requests per minute"):
            fresh = build().compile(budget, query="build")
            used = build()
            used.compile(budget, query=first)
            again = used.compile(budget, query="build")
            assert again.to_anthropic() == fresh.to_anthropic() and again.recall == fresh.recall, (budget, first)


def test_a_reader_marks_a_sharded_message_whose_first_shard_it_cannot_see() -> None:
    """A reader who sees only a later shard's blocks (the public text after a long private one) pins,
    pins a range to, marks as a document and renders as newest the message, as it would unsharded."""
    for shard_tokens in (0, 2 * CHUNK):
        store = MemoryStore()
        host = ContextManager.open(store=store, strategy=_strategy())
        host.shard_tokens = shard_tokens
        host.add_message("user", "hello", id="a")
        private = {"type": "text", "text": "ANN " + "the plan for ann alone. " * 400, "audience": ["ann"]}
        host.add_message("user", [private, {"type": "text", "text": "PUBLIC PART"}], id="doc")
        assert (len(_stored(host)) > 2) == bool(shard_tokens)
        bob = ContextManager.open(store=store, view_reader="bob", strategy=_strategy())
        assert bob.get_message("doc").content_dicts() == [{"type": "text", "text": "PUBLIC PART"}]
        assert bob.pin("doc") > 0 and bob.pins() == ["doc"]
        assert bob.pin_range("a", "doc").startswith("range-")
        assert bob.mark_document("doc") > 0 and bob.documents() == ["doc"]
        assert bob.render_as_newest("doc") > 0
        shown = bob.compile(2000)
        assert "ANN" not in str(shown.as_messages()) and "PUBLIC PART" in str(shown.messages[-1].content)
        with pytest.raises(MessageNotFoundError):
            bob.pin("nope")


def test_a_fork_at_a_sharded_message_holds_all_of_it() -> None:
    cm = _manager()
    cm.add_message("user", "hello", id="a")
    cm.add_message("user", _doc(), id="spec")
    cm.add_message("assistant", "noted", id="b")
    cm.fork("side", at="spec")
    side = ContextManager(cm.store, strategy=_strategy(), branch="side")
    assert [m.id for m in side.get_all_messages()] == ["a", "spec"]
    assert side.get_message("spec").text() == cm.get_message("spec").text()


# ---- one shard is never written alone ------------------------------------------------------------------


def test_writes_naming_one_shard_are_refused_and_write_nothing() -> None:
    cm = _manager()
    cm.add_message("user", "hello", id="a")
    cm.add_message("user", _doc(), id="spec")
    cm.add_message("assistant", "noted", id="b")
    records = len(list(cm.store.read_slot("messages", cm._branch.id)))
    shard = "spec#shard-2"
    for write in (
        lambda: cm.redact(shard, reason="pii"),
        lambda: cm.redact_range("a", shard, reason="pii"),
        lambda: cm.pin(shard),
        lambda: cm.pin_range("a", shard),
        lambda: cm.pin_range(shard, "b"),
        lambda: cm.mark_document(shard),
        lambda: cm.render_as_newest(shard),
        lambda: cm.hold_compression(shard),
        lambda: cm.fork("side", at=shard),
    ):
        with pytest.raises(ShardingError, match="shard of message 'spec'"):
            write()
    assert len(list(cm.store.read_slot("messages", cm._branch.id))) == records
    assert cm.pins() == [] and cm.rendered_as_newest() == [] and cm.documents() == []
    assert cm.get_message("spec").text() == _doc()
    # Nor is one shard's mark undone alone: the message would render in pieces at two places.
    cm.pin("spec")
    cm.mark_document("spec")
    cm.render_as_newest("spec")
    cm.hold_compression("spec")
    for undo in (
        lambda: cm.unpin(shard),
        lambda: cm.unmark_document(shard),
        lambda: cm.render_in_place(shard),
        lambda: cm.release_compression(shard),
    ):
        with pytest.raises(ShardingError, match="shard of message 'spec'"):
            undo()
    group = [i for i in _stored(cm) if group_of(i)[0] == "spec"]
    assert list(pinned_ids(cm._strategy_context().get_state(PINS_STATE))) == group
    assert cm.pins() == cm.documents() == cm.rendered_as_newest() == ["spec"]


def test_the_shard_layout_key_is_reserved_for_sharding() -> None:
    cm = _manager()
    for write in (
        lambda: cm.add_message("user", "hi", metadata={SHARD_KEY: {"group": "x", "index": 1, "count": 2}}),
        lambda: cm.add_messages([{"participant": "user", "content": "hi", "metadata": {SHARD_KEY: 1}}]),
    ):
        with pytest.raises(MalformedContentError, match="reserved"):
            write()
    cm.add_message("user", "hi", id="m")
    with pytest.raises(MalformedContentError, match="reserved"):
        cm.edit_message("m", metadata={SHARD_KEY: "forged"})
    assert cm.get_message("m").metadata == {}


def test_a_view_filter_judges_the_whole_message_not_one_shard() -> None:
    def no_dumps(m: Any) -> bool:
        return "DEBUG DUMP" not in json.dumps(m.content_dicts())

    cm = _manager(view_filter=no_dumps)
    cm.add_message("user", "hello", id="a")
    dump = "DEBUG DUMP:\n" + "\n".join(f"worker-{k} heap=0x{k * 7919:08x} ok" for k in range(600))
    cm.add_message("user", dump, id="dump")
    cm.add_message("assistant", "What broke?", id="b")
    assert len(_stored(cm)) > 5  # stored as shards; only the first holds the words the filter looks for
    compiled = json.dumps(cm.compile(200_000).to_anthropic())
    assert "worker-" not in compiled and "What broke?" in compiled
    assert cm.get_message("dump").text() == dump  # left out of strategy reads only


def test_only_text_counts_toward_the_threshold() -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(30_000)).decode()  # a large image beside a short text
    cm = ContextManager.open("memory:", shard_tokens=300)
    content: list[dict[str, Any]] = [
        {"type": "text", "text": "Look at this chart please. " * 20},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
    ]
    cm.add_message("user", content, id="chart")
    assert _stored(cm) == ["chart"]  # the text is under the threshold: the image is no reason to cut it


_NOTE = re.compile(r"\[… (\d+) earlier messages? \(about (\d+) tokens\)")


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=_TURNS, budget=st.integers(900, 5000), tail=st.integers(2, 10))
def test_a_sharded_message_not_summarised_yet_gives_way_whole(turns: list[str], budget: int, tail: int) -> None:
    # Compression lags (nothing drained): the middle not summarised yet gives way to a note, oldest first.
    # A review found the first shards of a pasted document cut into the note while its last shards stayed
    # raw (the model read it from half-way), and the note counting each shard as a message.
    cm = ContextManager.open("memory:", strategy=_strategy())
    cm.shard_tokens = 2 * CHUNK
    cm.add_message("user", "Project rules: answer briefly.", id="rules")
    kinds = [*turns, *(["short"] * tail)]
    for k, kind in enumerate(kinds):
        text = {"short": f"turn {k} ok " + "fine " * 20, "long": f"turn {k} " + "words " * 150, "doc": _doc(3 + k % 4)}[
            kind
        ]
        cm.add_message("user" if k % 2 == 0 else "assistant", text, id=f"m{k}")
    try:
        result = cm.compile(budget)
    except OverBudgetError:
        return
    assert result.tokens <= budget and validate_messages(result.as_messages()) == []
    cut: set[str] = set()
    shown: set[str] = set()
    for m in result.messages:
        ids = {s.id for s in m.sources if s.kind == "message"}
        if m.sources and m.sources[0] == Source("synthetic", "cut to fit"):
            cut |= ids
            found = _NOTE.search(" ".join(str(b.get("text", "")) for b in m.content))
            assert found is not None
            assert int(found.group(1)) == len({group_of(i)[0] for i in ids})  # shards of one message count once
        else:
            shown |= ids
    for group in {group_of(i)[0] for i in cut}:
        assert not any(group_of(i)[0] == group for i in shown), f"{group} is partly cut, partly shown"


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(budget=4000, blocks=["bob", "ann", "bob"])
@given(budget=st.integers(2500, 7000), blocks=st.lists(st.sampled_from(["bob", "ann", None]), min_size=2, max_size=4))
def test_a_reader_never_reads_its_sharded_message_from_half_way(budget: int, blocks: list[str | None]) -> None:
    # A fresh attack found bob's view of a message whose blocks alternate audiences (bob, ann, bob) holding
    # shards 1-4 and 8-11: the cut stopped at the gap the other reader's shards leave in the numbers.
    store = MemoryStore()
    host = ContextManager.open(store=store, strategy=_strategy())
    host.shard_tokens = 2 * CHUNK
    host.add_message("user", "Project rules: answer briefly.", id="rules")
    for k in range(4):
        host.add_message("user" if k % 2 == 0 else "assistant", f"turn {k} " + "fine " * 20)
    content = [
        {"type": "text", "text": _doc(4 + k), **({"audience": [who]} if who else {})} for k, who in enumerate(blocks)
    ]
    host.add_message("user", content, id="big")
    for k in range(4, 12):
        host.add_message("user" if k % 2 == 0 else "assistant", f"turn {k} " + "fine " * 20)
    bob = ContextManager.open(store=store, namespace="bob", view_reader="bob", strategy=_strategy())
    try:
        result = bob.compile(budget)
    except OverBudgetError:
        return
    assert result.tokens <= budget and validate_messages(result.as_messages()) == []
    cut = shown = False
    for m in result.messages:
        mine = [s for s in m.sources if s.kind == "message" and group_of(s.id)[0] == "big"]
        if mine and m.sources[0] == Source("synthetic", "cut to fit"):
            cut = True
        elif mine:
            shown = True
    assert not (cut and shown), "bob's message was cut at its start and its later shards sent raw"


def _window_strategy(name: str) -> Any:
    from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy

    if name == "passthrough":
        return PassthroughStrategy()
    if name == "windowed":
        return WindowedPassthroughStrategy()
    return _strategy(overflow="window", stable_prefix=name == "stable")


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(strategy="autobiographical", turns=["short"] * 6 + ["doc"] + ["short"] * 6, budget=900, reader=None)
@example(strategy="passthrough", turns=["short"] * 6 + ["doc"] + ["short"] * 6, budget=1050, reader=None)
@example(strategy="windowed", turns=["short"] * 6 + ["doc"] + ["short"] * 6, budget=900, reader=None)
@given(
    strategy=st.sampled_from(["passthrough", "windowed", "autobiographical", "stable"]),
    turns=_TURNS,
    budget=st.integers(700, 6000),
    reader=st.sampled_from([None, "bob"]),
)
def test_a_window_never_reads_a_sharded_message_from_half_way(
    strategy: str, turns: list[str], budget: int, reader: str | None
) -> None:
    # A fresh review found every windowing strategy (passthrough, windowed, autobiographical with
    # overflow="window") sending the last shards of a pasted document without its first ones: the window
    # was snapped to tool units only. A window leaves a sharded message out whole or keeps it whole.
    store = MemoryStore()
    host = ContextManager.open(store=store, strategy=_window_strategy(strategy))
    host.shard_tokens = 2 * CHUNK
    host.add_message("user", "Project rules: answer briefly.", id="rules")
    for k, kind in enumerate([*turns, "short"]):
        role = "user" if k % 2 == 0 else "assistant"
        if kind == "doc":  # a document whose middle section is for ann only (bob's view skips its shards)
            content: Any = [
                {"type": "text", "text": _doc(2 + k % 3)},
                {"type": "text", "text": _doc(2), "audience": ["ann"]},
                {"type": "text", "text": _doc(2 + k % 2)},
            ]
        else:
            content = f"turn {k} " + ("fine " * 20 if kind == "short" else "words " * 150)
        host.add_message(role, content, id=f"m{k}")
    cm = (
        host
        if reader is None
        else ContextManager.open(store=store, view_reader=reader, strategy=_window_strategy(strategy))
    )
    view = cm._reader_view()
    first: dict[str, str] = {}
    for i in range(len(view)):
        first.setdefault(group_of(view.entry(i).id)[0], view.entry(i).id)
    try:
        result = cm.compile(budget)
    except OverBudgetError:
        return
    assert result.tokens <= budget and validate_messages(result.as_messages()) == []
    shown = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
    for sid in shown:
        group = group_of(sid)[0]
        assert first[group] in shown, f"{sid} is sent without the start of its message ({first[group]})"


def _read_from_half_way(cm: ContextManager, result: Any) -> list[str]:
    """The stored messages some later shards of which are sent raw while their first shard is neither
    sent raw nor stood for by a summary the context shows (a summary's covered sequence range)."""
    created = {e.id: e.created_seq for e in cm.messages.iter_entries() if e.live}
    raw = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
    ranges = []
    for m in result.messages:
        for s in m.sources:
            if s.kind == "summary":
                found = cm.get_summary(s.id)
                ranges.append((found.first_sequence, found.last_sequence))
    bad = []
    for sid in raw:
        group, index = group_of(sid)
        stood_for = group in created and any(a <= created[group] <= b for a, b in ranges)
        if index > 1 and group in created and group not in raw and not stood_for:
            bad.append(sid)
    return bad


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(sections=12, before=10, after=2, stable=False)
@given(sections=st.integers(4, 16), before=st.integers(2, 14), after=st.integers(1, 8), stable=st.booleans())
def test_a_window_over_summaries_never_reads_a_sharded_message_from_half_way(
    sections: int, before: int, after: int, stable: bool
) -> None:
    # A fresh review: with overflow="window" after a drain, the summaries of a document's first shards
    # were left out as the oldest summaries while its last shards stayed raw (read from "## Section 9");
    # and a sharded newest message partly summarised was sent as its last shard alone.
    cfg = AutobiographicalConfig(
        head_window_tokens=100,
        recent_window_tokens=600,
        target_chunk_tokens=200,
        overflow="window",
        stable_prefix=stable,
    )
    for newest in (False, True):
        cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(cfg))
        for k in range(before):
            cm.add_message("user" if k % 2 == 0 else "assistant", f"turn {k}: " + "we talk about the release " * 8)
        text = "\n\n".join(
            f"## Section {j}\n\n" + f"Rule {j}: check canary {j} before rollout. " * 20 for j in range(sections)
        )
        cm.add_message("user", text, id="doc")
        for k in range(0 if newest else after):
            cm.add_message("assistant" if k % 2 == 0 else "user", f"reply {k}: " + "noted, we go on " * 6)
        cm.drain()
        for budget in range(300, 2_400, 150):
            try:
                result = cm.compile(budget)
            except OverBudgetError:
                continue
            assert result.tokens <= budget and validate_messages(result.as_messages()) == []
            assert _read_from_half_way(cm, result) == [], (newest, budget)
        cm.close()
