"""Compile through the manager: the must-keep part, injections, roles and names, provenance, summary
entries from a strategy (the protocol compressing strategies build on), and argument errors."""

from __future__ import annotations

from typing import Any

import pytest

from context_journal.compile import CompileOptions, EmptyContextError, Injection, OverBudgetError, Roles
from context_journal.errors import ContextJournalError, MalformedContentError
from context_journal.manager import ContextManager
from context_journal.strategies import (
    BaseStrategy,
    Budget,
    PassthroughStrategy,
    RawSpan,
    RenderedEntry,
    Selection,
    Strategy,
    StrategyContext,
    SummaryRef,
    WindowedPassthroughStrategy,
)
from context_journal.tokens import EstimatingCounter
from context_journal.validate import InvalidContextError, check_messages, validate_messages
from context_journal.views import MessageView
from tests.compile.compile_helpers import assert_valid, ids, journal_state, words


def _chat(n: int = 10) -> ContextManager:
    cm = ContextManager.open("memory:")
    cm.add_message("policy", "Always be polite.", metadata={"role": "system"}, id="p0")
    for k in range(n):
        cm.add_message("user" if k % 2 == 0 else "Claude", words(20, k), id=f"m{k}")
    return cm


def test_injections_are_placed_counted_and_never_stored() -> None:
    cm = _chat()
    before = journal_state(cm)
    injections = [
        Injection("memory: the user likes tea", position="system", label="memory"),
        Injection("reminder: cite sources", position="before_last_user", label="reminder"),
        Injection([{"type": "text", "text": "tool list changed"}], position="end", participant="host", label="note"),
    ]
    result = cm.compile(100_000, system="Be brief.", injections=injections)
    assert_valid(result, EstimatingCounter())
    assert [b["text"] for b in result.system] == ["Be brief.", "Always be polite.", "memory: the user likes tea"]
    assert [s.kind for s in result.system_sources] == ["synthetic", "system", "injection"]
    kinds = [[s.kind for s in m.sources] for m in result.messages]
    assert kinds[-4] == ["injection"] and ids(result)[-3] == "m8"  # just before the newest user turn
    assert result.messages[-1].content[0]["text"] == "host: tool list changed"
    assert result.parts["injection 1 (reminder)"] > 0
    assert journal_state(cm) == before


def test_system_flagged_messages_form_the_must_keep_head() -> None:
    cm = _chat(200)
    result = cm.compile(400)
    assert result.system_sources[0].id == "p0" and result.dropped > 0
    with pytest.raises(OverBudgetError) as info:
        cm.compile(8)
    assert isinstance(info.value, ContextJournalError)
    assert "message p0 (system)" in info.value.parts


def test_participants_are_names_mapped_to_roles() -> None:
    cm = ContextManager.open("memory:")
    cm.add_messages(
        [
            {"participant": "ann", "content": "hi all"},
            {"participant": "bob", "content": "hello ann"},
            {"participant": "Claude", "content": "hello both"},
            {"participant": "ann", "content": [{"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}]},
        ]
    )
    result = cm.compile(10_000)
    assert_valid(result)
    assert [m.role for m in result.messages] == ["user", "user", "assistant", "user"]
    assert result.messages[0].content[0]["text"] == "ann: hi all"
    assert result.messages[3].content[0] == {"type": "text", "text": "ann:"}
    assert all(s.complete for m in result.messages for s in m.sources)  # a name is not an alteration
    as_ann = cm.compile(10_000, roles=Roles.of("ann", user="bob"))
    # ann speaks first as the assistant: a user turn opens the context.
    assert [m.role for m in as_ann.messages] == ["user", "assistant", "user", "assistant", "assistant"]
    assert as_ann.messages[2].content[0]["text"] == "hello ann"
    # Stored roles for the namespace (as an importer would write them) are the default.
    with cm.store.transaction() as tx:
        tx.put_state(cm.messages.branch_id, "default/roles", {"assistant": "bob", "user": "ann"})
    stored = cm.compile(10_000)
    assert [m.role for m in stored.messages][:2] == ["user", "assistant"]


class _SummaryStrategy(BaseStrategy):
    """A stand-in for the autobiographical strategy: the first half as a recall pair, the rest raw."""

    name = "summary-test"

    def select(self, view: MessageView, budget: Budget) -> Selection:
        half = len(view) // 2
        marker = RenderedEntry(
            "Context Manager",
            ({"type": "text", "text": "What do you remember?"},),
            kind="marker",
            covers=(0, half),
            role="user",
        )
        summary = RenderedEntry(
            "Claude",
            ({"type": "text", "text": "I remember the first half."},),
            kind="summary",
            covers=(0, half),
            summaries=(SummaryRef("s1", 1), SummaryRef("s2", 2, partial=True)),
            cache_breakpoint=True,
        )
        return Selection((marker, summary, RawSpan(half, len(view))))


def test_a_strategy_can_render_summaries_with_provenance() -> None:
    cm = _chat(10)
    cm.set_strategy(_SummaryStrategy())
    assert isinstance(cm.strategy, Strategy)
    result = cm.compile(100_000)
    assert_valid(result)
    assert result.dropped == 0  # the summary covers what it stands for
    assert result.messages[0].sources[0].kind == "synthetic"
    summary = result.messages[1]
    assert summary.role == "assistant"
    assert [(s.id, s.level, s.complete) for s in summary.sources] == [("s1", 1, True), ("s2", 2, False)]
    assert summary.cache_breakpoint
    assert ids(result)[2:] == [f"m{k}" for k in range(5, 10)]


class _Recorder(PassthroughStrategy):
    def __init__(self) -> None:
        self.loaded = 0
        self.committed: list[Selection] = []

    def load(self, ctx: StrategyContext) -> None:
        self.loaded += 1
        assert ctx.key("x") == "default/x"

    def commit(self, selection: Selection, ctx: StrategyContext) -> None:
        self.committed.append(selection)


def test_preview_never_commits_and_compile_commits_once() -> None:
    cm = _chat(4)
    strategy = _Recorder()
    cm.set_strategy(strategy)  # initialises from the store once
    assert strategy.loaded == 1
    cm.preview_context(1_000)
    assert strategy.loaded == 2 and not strategy.committed
    cm.compile(1_000)
    assert strategy.loaded == 3 and len(strategy.committed) == 1


def test_argument_errors() -> None:
    cm = _chat(2)
    with pytest.raises(ValueError):
        cm.compile(0)
    with pytest.raises(ValueError):
        cm.compile(100, -1)
    with pytest.raises(MalformedContentError):
        cm.compile(100, system=[{"type": "nope"}])
    with pytest.raises(MalformedContentError):
        cm.compile(100, injections=[Injection([])])
    with pytest.raises(EmptyContextError, match="holds no message"):  # providers reject an empty message list
        ContextManager.open("memory:").compile(100)


def test_default_strategy_is_passthrough_and_windowed_is_selectable() -> None:
    cm = _chat(3)
    assert cm.compile(1_000).strategy == "passthrough"
    cm.set_strategy(WindowedPassthroughStrategy())
    assert cm.compile(1_000).strategy == "windowed"


def test_set_strategy_takes_the_names_open_takes() -> None:
    cm = _chat(3)
    cm.set_strategy("windowed")
    assert isinstance(cm.strategy, WindowedPassthroughStrategy)
    assert cm.compile(1_000).strategy == "windowed"
    cm.set_strategy(" Passthrough ")
    assert cm.compile(1_000).strategy == "passthrough"
    with pytest.raises(TypeError, match="unknown strategy 'nope'"):
        cm.set_strategy("nope")
    assert cm.compile(1_000).strategy == "passthrough"  # the previous one is kept


def test_validator_reports_each_rule() -> None:
    bad: list[dict[str, Any]] = [
        {"role": "assistant", "content": [{"type": "text", "text": " "}]},
        {"role": "user", "content": [{"type": "text", "text": "x"}, {"type": "tool_result", "tool_use_id": "a"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t", "name": "n", "input": {}},
                {"type": "thinking", "thinking": "x"},
            ],
        },
        {"role": "assistant", "content": []},
    ]
    codes = {i.code for i in validate_messages(bad, alternate=True)}
    assert {
        "first_not_user",
        "empty_text",
        "orphan_tool_result",
        "tool_result_not_first",
        "empty_tool_result",
        "unsigned_thinking",
        "missing_tool_result",
        "same_role",
        "empty_message",
    } <= codes
    with pytest.raises(InvalidContextError) as info:
        check_messages(bad)
    assert info.value.issues


def test_options_are_honoured() -> None:
    cm = _chat(6)
    plain = cm.compile(100_000, options=CompileOptions(cache_breakpoints=0))
    assert not any(m.cache_breakpoint for m in plain.messages)


def test_windowed_anchor_follows_the_budget() -> None:
    """A windowed anchor set under a small budget does not leave a larger budget mostly empty."""
    cm = _chat(60)
    cm.set_strategy(WindowedPassthroughStrategy())
    small = cm.compile(300)
    large = cm.compile(50_000)
    assert len(large.messages) > len(small.messages)
    assert large.dropped == 0
    again = cm.compile(300)  # back to the small budget: a fresh jump, within budget
    assert again.tokens <= 300
