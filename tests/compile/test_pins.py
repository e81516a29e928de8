"""Pins: a pinned message is raw in every compile that fits, with every strategy, across
forks, derives, reopen and compression, and named in the OverBudgetError of every compile it does not fit.

Property (hypothesis): random conversations with tool units, random pins (tool_use and tool_result
messages included), random budgets, passthrough / windowed / autobiographical (drained): each compile
either succeeds, is provider-valid and holds every pinned message raw and once, or raises
OverBudgetError; when the pins alone exceed what is left for messages, the error's parts name every one.
Then plain examples with real expected values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import (
    AutobiographicalConfig,
    AutobiographicalStrategy,
    ContextManager,
    MessageNotFoundError,
    WindowedPassthroughStrategy,
)
from context_journal.compile import CompileResult, OverBudgetError
from context_journal.recall import RecallConfig
from context_journal.strategies import PassthroughStrategy
from context_journal.validate import validate_messages
from tests.hypothesis_budget import examples

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]


def _strategy(name: str, budget: int) -> Any:
    if name == "passthrough":
        return PassthroughStrategy()
    if name == "windowed":
        return WindowedPassthroughStrategy()
    return AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget))


def _build(cm: ContextManager, plan: list[tuple[str, int]]) -> list[str]:
    """Messages from a plan of ``(kind, size)``: "text" turns alternate user/assistant; "tool" is a
    tool_use message and its tool_result message."""
    ids: list[str] = []
    user = True
    for k, (kind, size) in enumerate(plan):
        words = " ".join(WORDS[(k + j) % len(WORDS)] for j in range(size))
        if kind == "tool":
            if user:
                ids.append(cm.add_message("user", f"turn {k}: please run it. {words}"))
            call = {"type": "tool_use", "id": f"t{k}", "name": "Bash", "input": {"command": f"echo {k}"}}
            ids.append(cm.add_message("assistant", [{"type": "text", "text": f"running {k}"}, call]))
            result = {"type": "tool_result", "tool_use_id": f"t{k}", "content": f"output {k}: {words}"}
            ids.append(cm.add_message("user", [result]))
            ids.append(cm.add_message("assistant", f"done {k}"))
            user = True
        else:
            ids.append(cm.add_message("user" if user else "assistant", f"turn {k}: {words}"))
            user = not user
    return ids


def rendered_ids(result: CompileResult) -> list[str]:
    return [s.id for m in result.messages for s in m.sources if s.kind == "message"]


def check_compile(cm: ContextManager, budget: int, pinned: list[str], **kwargs: Any) -> CompileResult | None:
    try:
        result = cm.compile(max_tokens=budget, **kwargs)
    except OverBudgetError as err:
        named = {i for key in err.parts if key.startswith("pinned ") for i in key[len("pinned ") :].split(",")}
        if named:
            assert named == set(pinned), (named, pinned)
        return None
    validate_messages(result.to_anthropic()["messages"])
    shown = rendered_ids(result)
    for message_id in pinned:
        assert shown.count(message_id) == 1, (message_id, shown)
    assert result.tokens <= budget
    return result


plans = st.lists(st.tuples(st.sampled_from(["text", "text", "tool"]), st.integers(1, 60)), min_size=3, max_size=40)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    plan=plans,
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=4),
    budget=st.integers(150, 3000),
    name=st.sampled_from(["passthrough", "windowed", "autobiographical"]),
)
def test_pinned_messages_are_raw_in_every_compile_that_fits(
    plan: list[tuple[str, int]], picks: list[int], budget: int, name: str
) -> None:
    cm = ContextManager.open("memory:", strategy=_strategy(name, budget))
    ids = _build(cm, plan)
    pinned = list(dict.fromkeys(ids[p % len(ids)] for p in picks))
    for message_id in pinned:
        cm.pin(message_id)
    if name == "autobiographical":
        cm.drain()
    check_compile(cm, budget, pinned)
    check_compile(cm, budget, pinned, query="alpha delta", recall=RecallConfig(share=0.3))
    big = check_compile(cm, 10 * budget + 20_000, pinned)
    assert big is not None  # a budget far above the pins always fits


def test_pin_is_a_branch_record_that_forks_inherit_and_reopen_keeps(tmp_path: Path) -> None:
    path = tmp_path / "pins.db"
    cm = ContextManager.open(str(path), strategy=WindowedPassthroughStrategy())
    ids = _build(cm, [("text", 50)] * 80)
    spec = ids[1]
    seq = cm.pin(spec)
    assert seq > 0 and cm.pin(spec) == 0 and cm.pins() == [spec]
    cm.fork("experiment")
    cm.switch_branch("experiment")
    assert cm.pins() == [spec]
    cm.unpin(spec)
    assert cm.pins() == [] and cm.unpin(spec) == 0
    assert spec not in rendered_ids(cm.compile(max_tokens=1500))
    cm.switch_branch("main")
    assert cm.pins() == [spec]
    assert spec in rendered_ids(cm.compile(max_tokens=1500))
    child = cm.derive("child", strategy=PassthroughStrategy())
    assert child.pins() == [spec] and spec in rendered_ids(child.compile(max_tokens=1500))
    cm.close()
    again = ContextManager.open(str(path), strategy=PassthroughStrategy())
    assert again.pins() == [spec]
    result = again.compile(max_tokens=1500)
    assert spec in rendered_ids(result)
    assert result.omitted and all(spec not in (first, last) for first, last, _, _ in result.omitted)
    again.close()


def test_pinned_tool_result_keeps_its_call_and_pin_of_unknown_message_fails() -> None:
    cm = ContextManager.open("memory:", strategy=PassthroughStrategy())
    ids = _build(cm, [("tool", 40), *[("text", 50)] * 60])
    result_id = ids[2]  # the tool_result message of the first unit
    cm.pin(result_id)
    out = cm.compile(max_tokens=1200)
    shown = rendered_ids(out)
    assert shown[:2] == [ids[1], ids[2]]  # the call and its result, before the recent window
    validate_messages(out.to_anthropic()["messages"])
    with pytest.raises(MessageNotFoundError):
        cm.pin("no-such-message")
    cm.remove_message(ids[1])
    assert ids[2] in cm.pins()
    cm.pin(ids[5])
    cm.remove_message(ids[5])
    assert cm.pins() == [ids[2], ids[5]] and cm.pins(visible_only=True) == [ids[2]]


def test_pins_that_do_not_fit_are_named() -> None:
    cm = ContextManager.open("memory:", strategy=PassthroughStrategy())
    ids = _build(cm, [("text", 200)] * 10)
    for message_id in ids[:6]:
        cm.pin(message_id)
    with pytest.raises(OverBudgetError) as caught:
        cm.compile(max_tokens=600)
    named = [key for key in caught.value.parts if key.startswith("pinned ")]
    assert len(named) == 6 and "pinned messages" in str(caught.value)
    assert caught.value.actual > 600
