"""A compressing strategy written outside the package compresses through the manager's driver:
``tick``/``drain`` know only the :class:`CompressingStrategy` protocol, not the autobiographical strategy.

The toy keeps the newest ``keep`` messages raw and summarises the older ones in blocks of ``block``
messages, one summary request per block, storing each summary as a state of its namespace; a compile
shows the summaries of the blocks done, the raw messages of the blocks not done yet, then the tail.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from context_journal import ContextManager, MemoryStore
from context_journal.compression import CompressionUnavailableError
from context_journal.messages import MessageInput
from context_journal.namespaces import STRATEGY_STATE, strategy_record
from context_journal.strategies import (
    BaseStrategy,
    Budget,
    CompressingStrategy,
    ContextEntry,
    PendingWork,
    RawSpan,
    RenderedEntry,
    Selection,
    StrategyContext,
    SummaryRef,
    SummaryRequest,
    SummaryResult,
)
from context_journal.strategies.autobiographical import CompressionLog
from context_journal.strategies.autobiographical.work import PendingItem
from context_journal.strategies.base import HeadResettingStrategy, RecordedStrategy
from context_journal.testing import ScriptedProvider
from context_journal.views import MessageView


class BlockSummaries(BaseStrategy):
    name = "block-summaries"

    def __init__(self, block: int = 10, keep: int = 6) -> None:
        self.block, self.keep = block, keep
        self.summaries: dict[int, str] = {}
        self._requests: list[SummaryRequest] = []
        self._log: CompressionLog | None = None

    def load(self, ctx: StrategyContext) -> None:
        self.summaries = {int(k): v for k, v in (ctx.get_state("blocks") or {}).items()}

    def _blocks(self, n: int) -> range:
        return range(0, max(0, n - self.keep - self.block + 1), self.block)

    def prepare(
        self, view: MessageView, ctx: StrategyContext, *, now: float | None = None, request_view: Any = None
    ) -> None:
        self.load(ctx)
        self._requests = []
        for start in self._blocks(len(view)):
            if start in self.summaries:
                continue
            lines = [
                f"{m.participant}: " + " ".join(b.get("text", "") for b in m.content_dicts())
                for m in view.messages(start, start + self.block)
            ]
            self._requests.append(
                SummaryRequest(
                    id=f"block:{start}",
                    system="Summarise the conversation excerpt in one sentence.",
                    messages=({"role": "user", "content": [{"type": "text", "text": "\n".join(lines)}]},),
                    max_tokens=100,
                )
            )

    def pending_requests(self) -> Sequence[SummaryRequest]:
        return tuple(self._requests)

    def pending_counts(self) -> tuple[int, int, int, float | None]:
        return len(self._requests), 0, 0, None

    def pending_work(self) -> PendingWork:
        return PendingWork(ready=tuple(PendingItem(r.id, "block", 1, None, None, "ready") for r in self._requests))

    def is_ready(self) -> bool:
        return not self._requests

    def record_result(self, result: SummaryResult, ctx: StrategyContext) -> None:
        if result.text is None:
            return
        start = int(result.request_id.split(":")[1])
        self.summaries[start] = result.text
        ctx.put_states({"blocks": {str(k): v for k, v in self.summaries.items()}})
        self._requests = [r for r in self._requests if r.id != result.request_id]

    def summary_for_request(self, request_id: str) -> str | None:
        start = int(request_id.split(":")[1])
        return request_id if start in self.summaries else None

    def compression_log(self, ctx: StrategyContext) -> CompressionLog:
        if self._log is None or self._log.branch_id != ctx.branch_id:
            self._log = CompressionLog(ctx.store, ctx.branch_id, ctx.namespace)
        self._log.refresh()
        return self._log

    def select(self, view: MessageView, budget: Budget) -> Selection:
        n = len(view)
        entries: list[ContextEntry] = []
        raw_from = 0
        for start in self._blocks(n):
            if start not in self.summaries:
                break
            text = self.summaries[start]
            entries.append(
                RenderedEntry(
                    "Context Manager",
                    ({"type": "text", "text": text},),
                    covers=(start, start + self.block),
                    summaries=(SummaryRef(f"block:{start}", 1),),
                )
            )
            raw_from = start + self.block
        if raw_from < n:
            entries.append(RawSpan(raw_from, n))
        return Selection(tuple(entries))


def test_a_third_party_strategy_compresses_through_tick_and_drain() -> None:
    provider = ScriptedProvider(default="They talked about the harbour.", model="toy-model")
    cm = ContextManager.open(store=MemoryStore(), summarizer=provider)
    toy = BlockSummaries()
    cm.set_strategy(toy)
    assert isinstance(toy, CompressingStrategy)
    for i in range(36):
        cm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i} about the harbour and the boats")
    assert [r.key for r in cm.pending_work().ready] == ["block:0", "block:10", "block:20"]
    first = cm.tick()
    assert first.status == "done" and first.work == "block:0" and first.summary_id == "block:0"
    report = cm.drain()
    assert report.units == 2 and report.failures == 0 and cm.is_ready()
    assert provider.calls == 3 and "turn 12 about the harbour" in str(provider.requests[1].messages)
    result = cm.compile(max_tokens=4000)
    texts = [b.get("text", "") for m in result.messages for b in m.content]
    assert sum("They talked about the harbour." in t for t in texts) == 3
    assert any("turn 35" in t for t in texts) and not any("turn 3 about" in t for t in texts)
    # Its summaries are not in the compression log the summary API reads: the render statistics still
    # count them as a summary part (a review found render_stats raising SummaryNotFoundError).
    shape = cm.render_stats(result)
    assert shape is not None
    (part,) = [p for p in shape.parts if p.kind == "summary"]
    assert part.level == 1 and part.summary_ids == ["block:0", "block:10", "block:20"]
    # Nine more messages complete no block outside the raw tail yet; the tenth completes the fourth.
    for i in range(36, 45):
        cm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i} about the nets")
    assert cm.pending_work().ready == ()
    cm.add_message("assistant", "turn 45 about the nets")
    assert [r.key for r in cm.pending_work().ready] == ["block:30"]
    assert cm.tick().summary_id == "block:30"


class BlockSummariesWithResets(BlockSummaries):
    """The toy with head resets (``HeadResettingStrategy``) and a record the namespace keeps
    (``RecordedStrategy``): the driver plans nothing of either, it calls them."""

    name = "block-summaries-with-resets"

    def __init__(self) -> None:
        super().__init__()
        self.heads: list[str] = []

    def transition_request(
        self, view: MessageView, ctx: StrategyContext, request_view: MessageView | None = None
    ) -> SummaryRequest | None:
        if len(view) == 0:
            return None
        text = " / ".join(b.get("text", "") for m in view.messages(max(0, len(view) - 3)) for b in m.content_dicts())
        return SummaryRequest(
            id="transition",
            system="Say where the conversation stands.",
            messages=({"role": "user", "content": [{"type": "text", "text": text}]},),
            max_tokens=50,
        )

    def transition_message(
        self, text: str | None, ctx: StrategyContext, audience: Sequence[str] | None, info: Mapping[str, Any]
    ) -> MessageInput:
        block: dict[str, Any] = {"type": "text", "text": f"New topic. {text or 'Nothing before.'}"}
        if audience is not None:
            block["audience"] = list(audience)
        return MessageInput("Context Manager", [block], {"toy": dict(info)})

    def head_record(self, message_id: str, info: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        self.heads.append(message_id)
        return f"head/{message_id}", {"type": "toy-head", "message_id": message_id}

    def settings_record(self) -> dict[str, Any]:
        return {"strategy": self.name, "config": {"block": self.block, "keep": self.keep}}


def test_a_third_party_strategy_resets_its_head_window_and_is_recorded() -> None:
    provider = ScriptedProvider(default="They moved on to the nets.", model="toy-model")
    store = MemoryStore()
    cm = ContextManager.open(store=store, summarizer=provider)
    toy = BlockSummariesWithResets()
    cm.set_strategy(toy)
    assert isinstance(toy, HeadResettingStrategy) and isinstance(toy, RecordedStrategy)
    assert strategy_record(toy, 900) == {
        "strategy": "block-summaries-with-resets",
        "config": {"block": 10, "keep": 6},
        "budget": 900,
    }
    for i in range(20):
        cm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i} about the harbour")
    cm.drain()
    assert cm._strategy_context().get_state(STRATEGY_STATE)["strategy"] == "block-summaries-with-resets"
    mid = cm.reset_head_window()
    assert "turn 19 about the harbour" in str(provider.requests[-1].messages)
    message = cm.get_message(mid)
    assert message.participant == "Context Manager"
    assert message.content_dicts()[0]["text"] == "New topic. They moved on to the nets."
    assert message.metadata["toy"]["model"] == "toy-model"
    assert toy.heads == [mid]
    log = toy.compression_log(cm._strategy_context())
    records = [r for r in store.read_slot(log.slot, log.branch_id) if r.item == f"head/{mid}"]
    assert [json.loads(r.body or "null") for r in records] == [{"type": "toy-head", "message_id": mid}]
    # The host's own text: no model call.
    calls = provider.calls
    second = cm.reset_head_window("Back to the boats.")
    assert (
        provider.calls == calls and cm.get_message(second).content_dicts()[0]["text"] == "New topic. Back to the boats."
    )


def test_a_strategy_without_head_resets_says_so() -> None:
    cm = ContextManager.open(store=MemoryStore(), summarizer=ScriptedProvider(default="x"))
    cm.set_strategy(BlockSummaries())
    cm.add_message("user", "hello")
    with pytest.raises(CompressionUnavailableError, match="reset_head_window"):
        cm.reset_head_window("A new topic.")
    assert strategy_record(BlockSummaries()) is None  # nothing the command line could rebuild
    assert cm.message_count() == 1  # nothing written
