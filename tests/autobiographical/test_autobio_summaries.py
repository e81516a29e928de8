"""Summaries: requests (what they replay, validity, size), rows, merges that cascade with contiguous
sources, failures and retries (backoff, stuck), compile while work is pending, the summary API, drain."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from context_journal.compression import SummaryNotFoundError
from context_journal.llm import LLMRequest, OfflineSummarizer, ProviderTransientError
from context_journal.strategies import AutobiographicalStrategy
from context_journal.testing import ScriptedProvider
from context_journal.tokens import EstimatingCounter
from context_journal.validate import validate_messages
from context_journal.views import StoreView
from tests.autobiographical.autobio_helpers import (
    chat,
    check,
    chunks,
    compile_checked,
    echo_summarizer,
    manager,
    tool_chat,
    words,
)

SMALL: dict[str, Any] = {"head_window_tokens": 80, "recent_window_tokens": 150, "target_chunk_tokens": 120}


def test_merges_cascade_and_every_summary_covers_contiguous_sources() -> None:
    cm = manager(chat(160, 30), summarizer=echo_summarizer(), merge_threshold=2, summary_target_tokens=30, **SMALL)
    report = cm.drain()
    rows = {r.id: r for r in cm.search_summaries(limit=None)}
    assert report.summaries == len(rows)
    assert max(r.level for r in rows.values()) >= 4  # cascades without a fixed top
    order = [m.id for m in cm.get_all_messages()]
    by_chunk = {c.id: c for c in chunks(cm)}
    for row in rows.values():
        a, b = order.index(row.first_message_id), order.index(row.last_message_id)
        assert b - a + 1 == row.message_count
        if row.level == 1:
            chunk = by_chunk[row.source_ids[0]]
            assert (chunk.first_id, chunk.last_id) == row.source_range
            continue
        kids = [rows[s] for s in row.source_ids]
        assert len(kids) == 2 and {k.level for k in kids} == {row.level - 1}
        assert kids[0].first_message_id == row.first_message_id and kids[-1].last_message_id == row.last_message_id
        for left, right in itertools.pairwise(kids):
            assert order.index(left.last_message_id) + 1 == order.index(right.first_message_id)  # adjacent
        assert all(k.parent_id == row.id for k in kids)
        assert sum(k.message_count for k in kids) == row.message_count
    unmerged = sorted((r for r in rows.values() if r.parent_id is None), key=lambda r: r.first_sequence)
    for left, right in itertools.pairwise(unmerged):  # no two adjacent unmerged summaries of one level are left
        adjacent = order.index(left.last_message_id) + 1 == order.index(right.first_message_id)
        assert not (adjacent and left.level == right.level)
    assert cm.is_ready()
    check(cm, cm.compile(2_000))


def test_summary_rows_have_every_field_and_can_be_read_back() -> None:
    cm = manager(tool_chat(20), summarizer=OfflineSummarizer(), merge_threshold=2, **SMALL)
    cm.drain()
    rows = cm.search_summaries(limit=None)
    assert rows
    for row in rows:
        assert row.id and row.level >= 1 and row.source_ids
        assert row.tokens > 0 and row.created > 0 and row.model == "offline-extractive-1"
        assert row.request_hash is not None and len(row.request_hash) == 64
        assert row.first_sequence <= row.last_sequence and row.read_sequence >= row.last_sequence
        assert cm.get_summary(row.id) == row
        assert row.to_dict()["source_ids"] == list(row.source_ids)
    with pytest.raises(SummaryNotFoundError) as info:
        cm.get_summary("nope")
    assert isinstance(info.value, KeyError)
    found = cm.search_summaries("src/mod3.py", limit=None)
    assert found and all("src/mod3.py" in r.text for r in found)
    assert cm.search_summaries(regex=r"mod1\d\.py", limit=2)
    assert len(cm.search_summaries(limit=1)) == 1
    in_range = cm.get_summaries_in_range("u3", "a3")
    assert in_range and all(r.first_sequence <= cm.get_message("a3").created_sequence for r in in_range)
    assert {r.level for r in in_range} == {r.level for r in in_range if r.level >= 1}
    assert cm.get_summaries_in_range(0, 4) == [r for r in cm.get_summaries_in_range("u0", "a0")]
    n = len(cm.get_all_messages())
    assert cm.get_summaries_in_range(n - 1, n) == []  # the recent window is never summarised


def test_a_request_replays_head_recalled_summaries_and_the_chunk_and_is_valid() -> None:
    provider = echo_summarizer()
    cm = manager(summarizer=provider, summarizer_context_tokens=3_000, **SMALL)
    cm.set_system_prompt("You are a careful coding agent.")
    cm.set_tools([{"name": "Grep", "description": "search", "input_schema": {"type": "object", "properties": {}}}])
    msgs = tool_chat(16)
    cm.add_messages([{"participant": m["role"], "content": m["content"], "id": m["id"]} for m in msgs])
    cm.drain()
    chunk_requests = [r for r in provider.requests if r.metadata.get("kind") == "chunk"]
    assert len(chunk_requests) >= 3
    later: LLMRequest = chunk_requests[-1]
    assert later.system_text.startswith("You are a careful coding agent.")
    assert [t.name for t in later.tools][:1] == ["Grep"] and "Read" in {t.name for t in later.tools}
    assert later.tool_choice == "none" and later.cache_system and later.cache_tools
    data = later.to_dict()
    assert validate_messages(data["messages"]) == []
    texts = [" ".join(b.get("text", "") for b in m["content"] if b["type"] == "text") for m in data["messages"]]
    assert texts[0].startswith("Step 0")  # the head, raw, first
    assert any(m.cache for m in later.messages)  # a cache breakpoint after the head
    assert any("What do you remember" in t for t in texts)  # earlier summaries as recall pairs
    assert any(t.startswith("memory of chunk:") for t in texts)
    a, b = later.metadata["summarize_range"]
    chunk = {c.id: c for c in chunks(cm)}[str(later.metadata["work"]).split(":")[1]]
    assert b - a == len(chunk.ids)  # the range holds the chunk's messages, nothing recalled
    assert "memory of" not in " ".join(texts[a:b])
    assert b == len(texts) - 1 and texts[-1].startswith("Context Manager:")
    assert str(later.metadata["target_tokens"]) in texts[-1]
    counter = EstimatingCounter()
    size = sum(counter.count_message(m["role"], m["content"]) for m in data["messages"])
    assert size + later.max_tokens <= 3_000 + 200


def test_a_chunk_too_large_for_one_request_is_summarised_in_parts() -> None:
    provider = echo_summarizer()
    big = [{"id": f"m{k}", "role": "user" if k % 2 == 0 else "assistant", "content": words(120, k)} for k in range(40)]
    cm = manager(
        big,
        summarizer=provider,
        head_window_tokens=0,
        recent_window_tokens=200,
        target_chunk_tokens=2_000,
        summarizer_context_tokens=900,
        summary_output_tokens=100,
    )
    cm.drain()
    parts = [r for r in provider.requests if r.metadata.get("kind") == "part"]
    assert parts
    counter = EstimatingCounter()
    for r in parts:
        data = r.to_dict()
        assert validate_messages(data["messages"]) == []
        assert sum(counter.count_message(m["role"], m["content"]) for m in data["messages"]) <= 900
    rows = [r for r in cm.search_summaries(limit=None) if r.level == 1]
    assert rows and all(r.kind == "chunk" for r in rows)
    assert any(r.text.count("memory of chunk:") >= 2 for r in rows)  # the parts joined into the L1
    check(cm, cm.compile(3_000))


FAILURES: dict[str, Any] = {
    "timeout": TimeoutError("slow"),
    "transient": ProviderTransientError("overloaded", provider="x", status_code=529, attempts=3),
    "refusal": ScriptedProvider.refusal(),
    "empty": ScriptedProvider.empty(),
    "cut off": ScriptedProvider.truncated(),
    "blank": "   ",
}


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_a_failed_summary_leaves_the_journal_consistent_and_is_retried(kind: str) -> None:
    provider = echo_summarizer().enqueue(FAILURES[kind])
    cm = manager(tool_chat(10), summarizer=provider, retry_base_seconds=0, **SMALL)
    records_before = len(cm.store.read_slot("compression/default", cm.messages.branch_id))
    first = cm.tick()
    assert first.status == "failed" and first.error
    after = cm.store.read_slot("compression/default", cm.messages.branch_id)
    new = [r.item for r in after[records_before:]]
    assert [i for i in new if not i.startswith("chunk/")] == [f"attempt/{first.work}"]  # only the attempt
    assert cm.search_summaries(limit=None) == []
    pending = cm.pending_work()
    assert pending.ready[0].key == first.work and pending.ready[0].attempts == 1 and pending.ready[0].last_error
    for budget in (600, 2_000, 50_000):
        compile_checked(cm, budget)  # still complete and valid (or over budget, saying so)
    check(cm, cm.compile(50_000))
    again = cm.tick()
    assert again.status == "done" and again.work == first.work and again.summary_id
    cm.drain()
    assert cm.compression_stats.failures == 1


def test_backoff_then_stuck_then_unstuck_by_a_higher_limit() -> None:
    now = [1_000.0]
    provider = ScriptedProvider(default=TimeoutError)
    cm = manager(
        chat(5, 30),
        summarizer=provider,
        retry_base_seconds=10,
        max_attempts=3,
        head_window_tokens=0,
        recent_window_tokens=250,
        target_chunk_tokens=150,
    )
    assert len(cm.pending_work().ready) == 1
    driver = cm.compressor
    driver.clock = lambda: now[0]
    assert cm.tick().status == "failed"
    assert cm.tick().status == "waiting"
    waiting = cm.pending_work().waiting
    assert waiting and waiting[0].next_attempt_at == 1_010.0
    now[0] += 10
    assert cm.tick().status == "failed"  # attempt 2, next after 20 s
    now[0] += 19
    assert cm.tick().status == "waiting"
    now[0] += 1
    assert cm.tick().status == "failed"  # attempt 3: stuck
    assert cm.tick().status == "idle"
    stuck = cm.pending_work().stuck
    assert stuck and stuck[0].attempts == 3 and "TimeoutError" in (stuck[0].last_error or "")
    assert cm.is_ready()  # stuck work is reported, not pending
    compile_checked(cm, 1_000)
    cm.set_strategy(AutobiographicalStrategy(cm.strategy.config.with_(max_attempts=5)))
    provider.default = lambda request: "recovered memory"
    now[0] += 1_000
    report = cm.drain()
    assert report.summaries >= 1 and not cm.pending_work().stuck


def test_drain_waits_out_the_backoff_with_the_drivers_sleep() -> None:
    now = [0.0]
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    provider = echo_summarizer().enqueue(TimeoutError("a"), TimeoutError("b"))
    cm = manager(chat(30, 30), summarizer=provider, retry_base_seconds=4, **SMALL)
    cm.compressor.clock = lambda: now[0]
    cm.compressor.sleep = fake_sleep
    report = cm.drain()
    assert report.failures == 2 and slept and cm.is_ready() and not cm.pending_work().stuck
    no_wait = manager(chat(30, 30), summarizer=ScriptedProvider(default=TimeoutError), retry_base_seconds=100, **SMALL)
    early = no_wait.drain(wait=False)
    assert early.failures >= 1 and early.pending.waiting


def test_compile_during_pending_work_is_complete_and_valid() -> None:
    cm = manager(tool_chat(30), summarizer=OfflineSummarizer(), merge_threshold=3, **SMALL)
    compiled = 0
    for _ in range(12):
        for budget in (700, 1_500, 4_000, 8_000, 100_000):
            compiled += compile_checked(cm, budget) is not None
        cm.tick()
    assert compiled > 12  # more fit as summaries arrive
    cm.drain()
    result = cm.compile(1_500)
    check(cm, result)
    assert {s.level for m in result.messages for s in m.sources if s.kind == "summary"}


def test_drain_reports_progress_and_counts_calls_and_tokens() -> None:
    events: list[Any] = []
    cm = manager(tool_chat(25), summarizer=OfflineSummarizer(), **SMALL)
    report = cm.drain(progress=events.append)
    assert report.units == len(events) == cm.compression_stats.calls > 0
    assert [e.done for e in events] == list(range(1, len(events) + 1))
    assert events[-1].remaining == 0
    stats = cm.compression_stats.to_dict()
    assert stats["input_tokens"] > 0 and stats["output_tokens"] > 0 and stats["summaries"]["L1"] >= 1
    assert report.stats.calls == cm.compression_stats.calls and report.seconds >= 0
    assert cm.is_ready() and cm.tick().status == "idle"
    cm.compression_stats.reset()
    assert cm.compression_stats.calls == 0


def test_async_tick_and_drain() -> None:
    cm = manager(tool_chat(12), summarizer=OfflineSummarizer(), **SMALL)

    async def run() -> int:
        first = await cm.atick()
        assert first.status == "done"
        return (await cm.adrain()).units

    assert asyncio.run(run()) >= 1 and cm.is_ready()


def test_a_result_for_work_done_elsewhere_is_dropped() -> None:
    cm = manager(tool_chat(12), summarizer=echo_summarizer("first"), **SMALL)
    other = type(cm).open(store=cm.store, strategy=AutobiographicalStrategy(**SMALL), summarizer=echo_summarizer("x"))
    strategy = cm.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    ctx = cm._strategy_context()
    view = StoreView(cm.messages)
    view.refresh()
    strategy.prepare(view, ctx)
    request = strategy.pending_requests()[0]
    other.tick()  # another worker does the same chunk first
    from context_journal.strategies import SummaryResult

    strategy.record_result(SummaryResult(request.id, "late text"), ctx)
    rows = [r for r in cm.search_summaries(limit=None) if r.level == 1]
    assert len(rows) == 1 and rows[0].text.startswith("x of")  # the first writer wins; the late text is dropped
    with pytest.raises(ValueError):
        strategy.record_result(SummaryResult("unknown", "x"), ctx)


def test_summaries_are_capped_per_level() -> None:
    provider = ScriptedProvider(default=lambda request: words(2_000))
    cm = manager(
        chat(40, 30), summarizer=provider, summary_target_tokens=40, summary_cap_factor=2.0, merge_threshold=2, **SMALL
    )
    cm.drain()
    strategy = cm.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    for row in cm.search_summaries(limit=None):
        assert row.truncated
        assert row.tokens <= strategy.config.level_cap(row.level) + 8


def test_compression_is_the_deprecated_name_of_the_compressor() -> None:
    """``compression`` named both the mode given to ``open`` and the driver property: the driver is
    ``compressor`` now, and the old name still returns it, with a ``DeprecationWarning``."""
    import warnings

    from context_journal import ContextManager

    cm = ContextManager.open(":memory:", strategy="autobiographical")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        driver = cm.compressor
    with pytest.warns(DeprecationWarning, match="use ContextManager.compressor"):
        assert cm.compression is driver
    cm.close()
