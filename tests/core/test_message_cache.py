"""The message cache: a batch read larger than the cache never loses a message it found there."""

from __future__ import annotations

from context_journal import ContextManager, MessageInput


def test_a_batch_larger_than_the_cache_keeps_every_hit() -> None:
    with ContextManager.open("memory:") as cm:
        cm.add_messages([MessageInput("user", f"message {k}") for k in range(6)])
        ms = cm.messages
        versions = [(e.id, e.seq, e.created_seq) for e in ms.iter_entries()]
        ms._cache.clear()
        ms._cache_size = 2
        ms.load_versions(versions[:1])  # cached now; the next batch evicts it while it runs
        loaded = ms.load_versions([*versions[1:], versions[0]])
        assert [m.text() for m in loaded] == [f"message {k}" for k in (1, 2, 3, 4, 5, 0)]
        assert len(ms._cache) == 2
