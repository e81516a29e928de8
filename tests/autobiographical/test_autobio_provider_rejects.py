"""A provider that rejects the request itself (bad key, unknown model) is not a transient failure: the tick
raises it at once, records no attempt, and the same work succeeds once the configuration is fixed."""

from __future__ import annotations

import pytest

from context_journal.llm import ProviderAuthError
from context_journal.testing import ScriptedProvider
from tests.autobiographical.autobio_helpers import chat, echo_summarizer, manager


def test_rejected_request_raises_records_nothing_and_is_retried_after_the_fix() -> None:
    refusing = ScriptedProvider()
    refusing.enqueue(ProviderAuthError("401 invalid x-api-key", provider="p", model="m", status_code=401))
    cm = manager(
        chat(60),
        summarizer=refusing,
        head_window_tokens=100,
        recent_window_tokens=300,
        target_chunk_tokens=400,
        summary_target_tokens=60,
    )
    before = cm.pending_work()
    head = cm.store.head_seq()
    with pytest.raises(ProviderAuthError):
        cm.tick()
    after = cm.pending_work()
    assert cm.store.head_seq() == head  # no attempt record, no summary
    assert not after.stuck and not after.waiting
    assert len(after.ready) == len(before.ready)
    cm.summarizer = echo_summarizer()
    cm.drain()
    assert cm.is_ready()
    assert cm.search_summaries(limit=None)
