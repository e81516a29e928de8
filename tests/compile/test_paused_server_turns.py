"""Anthropic's ``pause_turn`` through selection, render and export: a paused message
(a server call waiting for its result) and its continuation (the same participant's next message, opening
with the result) are one unit for every strategy, are sent as two adjacent assistant turns the exporter
merges into one message (checked against the ``anthropic`` SDK's request types), and a paused message
still newest is sent as it is, so the model continues it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from context_journal.compile import CompileResult, EmptyContextError, OverBudgetError
from context_journal.content import SERVER_CALL_TYPES, SERVER_RESULT_TYPES
from context_journal.llm import LLMRequest
from context_journal.manager import ContextManager
from context_journal.recall import RecallConfig
from context_journal.strategies import (
    AutobiographicalStrategy,
    KnowledgeStrategy,
    PassthroughStrategy,
    WindowedPassthroughStrategy,
)
from context_journal.testing import ScriptedProvider
from context_journal.tokens import EstimatingCounter
from context_journal.validate import validate_messages
from context_journal.views import newest_unit_start, running_turn_start, unit_bounds, unit_start_at_or_after
from tests.compile.compile_helpers import assert_valid, words
from tests.hypothesis_budget import examples
from tests.provider_shapes import code_execution_pair, encrypted_code_pair, mcp_pair, web_fetch_pair, web_search_pair

anthropic = pytest.importorskip("anthropic")
import pydantic  # noqa: E402
from anthropic.types.beta import BetaMessageParam  # noqa: E402

Block = dict[str, Any]
SEARCHING: Block = {"type": "text", "text": "Let me look that up."}
MESSAGES = pydantic.TypeAdapter(list[BetaMessageParam])


def _sdk_valid(params: dict[str, Any]) -> None:
    MESSAGES.validate_python(params["messages"])
    assert validate_messages(params["messages"], alternate=True) == []


def _pair_history(cm: ContextManager) -> tuple[list[Block], list[Block]]:
    call, result, answer = web_search_pair(1)
    paused, cont = [SEARCHING, call], [result, answer]
    cm.add_message("user", "Who was Claude Shannon?", id="q")
    cm.add_message("Claude", paused, id="p")
    cm.add_message("Claude", cont, id="c")
    cm.add_message("user", "Thanks.", id="t")
    return paused, cont


def test_the_pair_is_sent_adjacent_and_exported_as_one_assistant_message() -> None:
    with ContextManager.open("memory:") as cm:
        paused, cont = _pair_history(cm)
        result = cm.compile(100_000)
        assert_valid(result, EstimatingCounter())
        assert [(m.role, [s.id for s in m.sources]) for m in result.messages] == [
            ("user", ["q"]),
            ("assistant", ["p"]),
            ("assistant", ["c"]),
            ("user", ["t"]),
        ]
        assert [m.content for m in result.messages[1:3]] == [tuple(paused), tuple(cont)]
        assert result.repairs == ()
        params = result.to_anthropic(cache=False)
        _sdk_valid(params)
        assert params["messages"][1] == {"role": "assistant", "content": [*paused, *cont]}
        assert len(params["messages"]) == 3


def test_a_paused_message_still_newest_is_sent_as_is() -> None:
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Run it.")
        fetch = web_fetch_pair(2, size=3)
        cm.add_message("Claude", [SEARCHING, fetch[0]])
        result = cm.compile(100_000)
        assert_valid(result)
        params = result.to_anthropic(cache=False)
        _sdk_valid(params)
        assert params["messages"][-1] == {"role": "assistant", "content": [SEARCHING, fetch[0]]}
        assert result.repairs == ()
        # once continued, the two are merged
        cm.add_message("Claude", fetch[1:])
        params = cm.compile(100_000).to_anthropic(cache=False)
        _sdk_valid(params)
        assert params["messages"][-1] == {"role": "assistant", "content": [SEARCHING, *fetch]}


def test_a_reused_call_id_is_renamed_in_the_continuation_too() -> None:
    call, result, answer = web_search_pair(1)
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Search.")
        cm.add_message("Claude", [call, result, {"type": "text", "text": "First."}])
        cm.add_message("user", "Again.")
        cm.add_message("Claude", [call])  # a re-recorded response reusing the id, paused
        cm.add_message("Claude", [result, answer])
        compiled = cm.compile(100_000)
        assert_valid(compiled)
        params = compiled.to_anthropic(cache=False)
        _sdk_valid(params)
        last = params["messages"][-1]["content"]
        assert [b.get("id") or b.get("tool_use_id") for b in last[:2]] == ["srvtoolu_01WS0001_2"] * 2
        assert "duplicate_tool_use_renamed" in {r.kind for r in compiled.repairs}


def test_the_views_keep_the_pair_one_unit() -> None:
    with ContextManager.open("memory:") as cm:
        _pair_history(cm)
        view = cm._reader_view()
        assert unit_bounds(view, 2, 3) == (1, 3)  # the continuation brings its paused message
        assert unit_bounds(view, 1, 2) == (1, 3)  # and the paused message its continuation
        assert unit_start_at_or_after(view, 2) == 3  # no window starts on the continuation
        assert newest_unit_start(view, 3) == 1
        assert newest_unit_start(view) == 3


def test_a_thinking_led_loop_that_pauses_is_one_running_turn() -> None:
    think = {"type": "thinking", "thinking": "Search, then run the script.", "signature": "sig1"}
    call, result, _ = web_search_pair(1)
    use = {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"cmd": "ls"}}
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.")
        cm.add_message("Claude", [think, call])
        cm.add_message("Claude", [result, use])
        cm.add_message("tool", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}])
        assert running_turn_start(cm._reader_view()) == 1
        result_ = cm.compile(100_000)
        assert_valid(result_, thinking=True)
        _sdk_valid(result_.to_anthropic(cache=False))


def test_the_validator_carries_a_paused_call_into_the_next_assistant_turn() -> None:
    call, result, answer = web_search_pair(1)
    q: dict[str, Any] = {"role": "user", "content": "q"}
    assert validate_messages([q, {"role": "assistant", "content": [call]}]) == []  # newest: sent as is
    pair = [q, {"role": "assistant", "content": [call]}, {"role": "assistant", "content": [result, answer]}]
    assert validate_messages(pair) == []
    assert [i.code for i in validate_messages(pair, alternate=True)] == ["same_role"]  # the exporters merge
    unanswered = [q, {"role": "assistant", "content": [call]}, {"role": "assistant", "content": [answer]}]
    assert [(i.index, i.code) for i in validate_messages(unanswered)] == [(2, "unanswered_server_call")]
    broken = [q, {"role": "assistant", "content": [call]}, {"role": "user", "content": "go"}]
    assert [(i.index, i.code) for i in validate_messages(broken)] == [(1, "unanswered_server_call")]
    late = [*broken, {"role": "assistant", "content": [result]}]
    assert {i.code for i in validate_messages(late)} == {"unanswered_server_call", "orphan_server_result"}


def test_a_tight_window_never_starts_on_the_continuation() -> None:
    counter = EstimatingCounter()
    with ContextManager.open("memory:", strategy=WindowedPassthroughStrategy(), token_counter=counter) as cm:
        cm.add_message("user", "Run the analysis. " + words(300))
        code = code_execution_pair(1, size=40)
        cm.add_message("Claude", [SEARCHING, code[0]], id="p")
        cm.add_message("Claude", [code[1], {"type": "text", "text": "Mean is 3."}], id="c")
        cm.add_message("user", "Good.", id="t")
        view = cm._reader_view()
        both = view.tokens(1, 4)
        for budget in range(view.tokens(2, 4) - 20, both + 200, 15):
            try:
                result = cm.compile(budget)
            except OverBudgetError:
                continue
            assert_valid(result, counter)
            shown = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
            assert ("p" in shown) == ("c" in shown), (budget, shown)


# --- property: every strategy, random histories with paused pairs ------------------------------

_MAKERS: list[Callable[..., list[Block]]] = [
    web_search_pair,
    web_fetch_pair,
    code_execution_pair,
    mcp_pair,
    encrypted_code_pair,
]


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """Messages (ids ``m0``...) with paused pairs, and the ``(paused id, continuation id)`` pairs."""
    msgs: list[dict[str, Any]] = []
    pairs: list[tuple[str, str]] = []
    call = 0

    def add(who: str, content: Any) -> str:
        mid = f"m{len(msgs)}"
        msgs.append({"participant": who, "content": content, "id": mid})
        return mid

    n_turns = draw(st.integers(1, 6))
    for t in range(n_turns):
        add("user", f"question {t}: " + words(draw(st.integers(3, 120))))
        kind = draw(st.sampled_from(["paused", "paused", "chain", "server", "loop", "text"]))
        if kind in ("paused", "chain"):
            steps = 2 if kind == "chain" else 1
            makes: list[Callable[..., list[Block]]] = [draw(st.sampled_from(_MAKERS)) for _ in range(steps)]
            built: list[list[Block]] = []
            for make in makes:
                call += 1
                built.append(make(call) if make is encrypted_code_pair else make(call, **_size(draw, make)))
            first = add(
                "Claude", [{"type": "text", "text": "Working: " + words(draw(st.integers(1, 20)))}, built[0][0]]
            )
            prev = first
            for k, pair in enumerate(built):
                last_turn = t == n_turns - 1 and k == len(built) - 1
                if last_turn and draw(st.booleans()):
                    break  # the newest message stays paused
                nxt = built[k + 1][0:1] if k + 1 < len(built) else []
                cont = [*pair[1:2], *nxt] if nxt else [*pair[1:], {"type": "text", "text": "Found it."}]
                mid = add("Claude", cont)
                pairs.append((prev, mid))
                prev = mid
        elif kind == "server":
            call += 1
            add("Claude", [*web_search_pair(call), {"type": "text", "text": "Here."}])
        elif kind == "loop":
            call += 1
            tid = f"toolu_{call:04d}"
            add("Claude", [{"type": "tool_use", "id": tid, "name": "bash", "input": {"cmd": "ls"}}])
            add("tool", [{"type": "tool_result", "tool_use_id": tid, "content": words(draw(st.integers(1, 300)))}])
            add("Claude", "Done: " + words(draw(st.integers(1, 20))))
        else:
            add("Claude", words(draw(st.integers(1, 80))))
    return msgs, pairs


def _size(draw: st.DrawFn, make: Any) -> dict[str, int]:
    if make is web_search_pair:
        return {"hits": draw(st.integers(1, 3)), "size": draw(st.sampled_from([64, 900]))}
    return {"size": draw(st.sampled_from([3, 40, 400]))}


def _strategy(name: str) -> Any:
    if name == "windowed":
        return WindowedPassthroughStrategy(0.5)
    if name == "autobiographical":
        return AutobiographicalStrategy(
            head_window_tokens=60, recent_window_tokens=200, target_chunk_tokens=150, summary_target_tokens=30
        )
    if name == "knowledge":
        return KnowledgeStrategy(
            head_window_tokens=60, recent_window_tokens=200, target_chunk_tokens=150, summary_target_tokens=30
        )
    return PassthroughStrategy()


def _summarizer() -> ScriptedProvider:
    def answer(request: LLMRequest) -> str:
        return f"summary of {request.metadata.get('work')}"

    return ScriptedProvider(default=answer)


def _chunk_ids(cm: ContextManager) -> list[set[str]]:
    strategy = cm.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    return [set(c.ids) for c in strategy.compression_log(cm._strategy_context()).chunks.values()]


def _check_pairs_whole(cm: ContextManager, result: CompileResult, pairs: list[tuple[str, str]]) -> None:
    """Both halves of every pair raw, or neither; a call sent with its result in one exported message (or
    as the newest turn, paused), never one without the other."""
    raw = {s.id for m in result.messages for s in m.sources if s.kind in ("message", "recall")}
    for p, c in pairs:
        assert (p in raw) == (c in raw), f"pair {p}/{c} split: {sorted(raw)}"
    params = result.to_anthropic(cache=False)
    for k, m in enumerate(params["messages"]):
        blocks = m["content"] if isinstance(m["content"], list) else []
        calls = {b["id"] for b in blocks if b.get("type") in SERVER_CALL_TYPES}
        answered = {b["tool_use_id"] for b in blocks if b.get("type") in SERVER_RESULT_TYPES}
        assert answered <= calls, f"a result sent without its call: {answered - calls}"
        if k < len(params["messages"]) - 1:
            open_ = calls - answered
            assert all(b.get("type") == "server_tool_use" for b in blocks if b.get("id") in open_)
            assert not open_ or any(b.get("type") == "tool_use" for b in blocks)  # only a deferred call


@pytest.mark.parametrize("strategy", ["passthrough", "windowed", "autobiographical", "knowledge", "pins", "recall"])
@settings(
    max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(
    history=histories(),
    max_tokens=st.one_of(st.integers(60, 1500), st.integers(1500, 40_000)),
    pick=st.integers(0, 10_000),
)
def test_paused_pairs_are_never_split_by_any_strategy(
    strategy: str, history: tuple[list[dict[str, Any]], list[tuple[str, str]]], max_tokens: int, pick: int
) -> None:
    msgs, pairs = history
    counter = EstimatingCounter()
    summarizer = _summarizer() if strategy in ("autobiographical", "knowledge") else None
    with ContextManager.open(
        "memory:", strategy=_strategy(strategy), token_counter=counter, summarizer=summarizer
    ) as cm:
        cm.add_messages(msgs)
        if summarizer is not None:
            cm.drain()
            for ids in _chunk_ids(cm):
                for p, c in pairs:
                    assert (p in ids) == (c in ids), f"chunk {sorted(ids)} splits {p}/{c}"
        if strategy == "pins":
            cm.pin(msgs[pick % len(msgs)]["id"])
        kwargs: dict[str, Any] = {}
        if strategy == "recall":
            kwargs = {"query": "Found it question", "recall": RecallConfig(before=0, after=0)}
        try:
            result = cm.compile(max_tokens, **kwargs)
        except (OverBudgetError, EmptyContextError):
            event("over budget")
            return
        assert_valid(result, counter)
        _check_pairs_whole(cm, result, pairs)
        MESSAGES.validate_python(result.to_anthropic(cache=False)["messages"])
        event(f"pairs raw: {sum(1 for p, _ in pairs if any(s.id == p for m in result.messages for s in m.sources))}")
        again = cm.compile(max_tokens, **kwargs)
        assert json.dumps(again.to_anthropic()) == json.dumps(result.to_anthropic())
