"""Recalled lines (recall/lines.py): read on demand in batches, cached across compiles by reader and version."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from context_journal import ContextManager, MemoryStore
from context_journal.messages import Message
from context_journal.recall import RecallConfig
from context_journal.recall.lines import LineCache, LineSource, message_line_text
from context_journal.stores import SQLiteStore
from context_journal.strategies import PassthroughStrategy
from context_journal.views import ReaderView, ViewEntry


def _conversation(cm: ContextManager, n: int = 60) -> None:
    for i in range(n):
        topic = "kayak" if i % 10 == 3 else "weather"
        cm.add_message("ann" if i % 2 else "bob", f"turn {i}: we talked about the {topic} again, at length.")


def test_message_line_text_writes_tool_calls_out() -> None:
    blocks: list[dict[str, Any]] = [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a.py"}},
    ]
    assert message_line_text(blocks) == 'Looking. [called Read {"file_path":"/a.py"}]'
    result = [{"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True}]
    assert message_line_text(result) == "[error: boom]"


def test_source_reads_prefetched_positions_in_one_batch_and_only_once() -> None:
    cm = ContextManager.open(store=MemoryStore(), strategy=PassthroughStrategy())
    _conversation(cm)
    view = ReaderView(cm._messages, None)
    source = LineSource(view, None)
    source.prefetch([3, 4, 13, 14, 999, -1])  # out-of-range positions are ignored
    assert source.reads == 0  # nothing is read before it is asked for
    text, ts = source(view.entry(13))
    assert text == "turn 13: we talked about the kayak again, at length." and ts is not None
    assert source.reads == 4  # 13 and the prefetched 3, 4, 14, together
    source(view.entry(4))
    source(view.entry(13))
    assert source.reads == 4
    source(view.entry(20))
    assert source.reads == 5


def test_cache_serves_a_second_source_and_is_keyed_by_reader() -> None:
    cm = ContextManager.open(store=MemoryStore(), strategy=PassthroughStrategy())
    _conversation(cm)
    view = ReaderView(cm._messages, None)
    cache = LineCache(size=3)
    first = LineSource(view, None, cache)
    for p in (1, 2, 3, 4):
        first(view.entry(p))
    assert len(cache) == 3  # the least recently used line (position 1) was dropped
    again = LineSource(view, None, cache)
    for p in (2, 3, 4):
        again(view.entry(p))
    assert again.reads == 0
    other = LineSource(view, "ann", cache)
    other(view.entry(3))
    assert other.reads == 1  # another reader's lines are never served from the cache


def test_a_sharded_newest_message_read_whole_and_its_last_shard_keep_their_own_lines() -> None:
    """A compile reads a sharded newest message whole, under its last shard's sequence (the newest
    version of the group): the cache keeps lines by message id too, so the whole message's line never
    stands for its last shard's, nor the other way round."""
    from context_journal.rendering.shards import fold_newest_group
    from context_journal.tokens import EstimatingCounter

    cm = ContextManager.open(store=MemoryStore(), strategy=PassthroughStrategy())
    cm.shard_tokens = 300
    _conversation(cm)
    cm.add_message("user", "FIRST " + "a long pasted line of the build log. " * 120 + "LAST", id="paste")
    view = ReaderView(cm._messages, None)
    folded = fold_newest_group(view, EstimatingCounter(), frozenset(), lambda a, b: False)
    assert folded is not None
    cache = LineCache()
    whole = LineSource(folded, None, cache)(folded.entry(len(folded) - 1))
    last = LineSource(view, None, cache)(view.entry(len(view) - 1))
    assert view.entry(len(view) - 1).sequence == folded.entry(len(folded) - 1).sequence
    assert "FIRST" in whole[0] and "LAST" in whole[0]
    assert "FIRST" not in last[0] and "LAST" in last[0]  # the last shard's own line, not the cached whole


def test_compile_with_the_same_query_twice_reads_no_message_again() -> None:
    cm = ContextManager.open(store=MemoryStore(), strategy=PassthroughStrategy())
    _conversation(cm, 400)
    config = RecallConfig(share=0.5)
    first = cm.compile(max_tokens=600, query="kayak", recall=config)
    filled = len(cm._recall_lines)
    assert 0 < filled < 100  # only what the plan looked at, not every candidate's neighbourhood
    second = cm.compile(max_tokens=600, query="kayak", recall=config)
    assert second.to_anthropic() == first.to_anthropic()
    assert len(cm._recall_lines) == filled
    assert second.parts["recall"] > 0 and "kayak" in str(second.to_anthropic()["messages"])


def _mixed(cm: ContextManager) -> None:
    """Messages of every shape a line is made from: text-only ones (read from the stored JSON) and
    the others (read through the view)."""
    cm.add_message("ann", "  plain string with spaces around  ", timestamp=1_700_000_000.1234567)
    cm.add_message(
        "bob", [{"type": "text", "text": "first"}, {"type": "text", "text": ""}, {"type": "text", "text": "third"}]
    )
    cm.add_message(
        "ann", [{"type": "text", "text": "for bob only", "audience": ["bob"]}, {"type": "text", "text": "for all"}]
    )
    cm.add_message(
        "bob",
        [{"type": "text", "text": "Looking."}, {"type": "tool_use", "id": "t1", "name": "Read", "input": {"p": 1}}],
    )
    cm.add_message("ann", [{"type": "tool_result", "tool_use_id": "t1", "content": "done"}])
    cm.add_message("bob", "édité ✓ — unicode", timestamp="2023-05-08T13:56:00+00:00")
    cm.edit_message(cm.add_message("ann", "before the edit"), "after the edit")


def test_lines_read_from_stored_json_equal_those_made_from_messages(tmp_path: Path, monkeypatch: Any) -> None:
    through_view: list[str] = []
    messages_for = ReaderView.messages_for

    def counted(self: ReaderView, entries: Sequence[ViewEntry]) -> list[Message]:
        through_view.extend(e.id for e in entries)
        return messages_for(self, entries)

    for store in (MemoryStore(), SQLiteStore(tmp_path / "lines.db")):
        cm = ContextManager.open(store=store, strategy=PassthroughStrategy())
        _mixed(cm)
        for reader in (None, "bob"):
            view = ReaderView(cm._messages, reader)
            entries = view.entries()
            fast = LineSource(view, reader, messages=cm._messages)
            fast.prefetch(range(len(view)))
            through_view.clear()
            monkeypatch.setattr(ReaderView, "messages_for", counted)
            fast(entries[0])
            monkeypatch.setattr(ReaderView, "messages_for", messages_for)
            # Only the messages with an audience or tool blocks are built as messages.
            assert len(through_view) == 3
            expected = [
                (message_line_text(m.content_dicts()), m.timestamp.timestamp()) for m in view.messages_for(entries)
            ]
            assert [fast(e) for e in entries] == expected
            assert fast.reads == len(entries)
        assert ("after the edit", view.messages_for([entries[-1]])[0].timestamp.timestamp()) == fast(entries[-1])
