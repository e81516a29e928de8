"""Bug case B62: a tool loop that opened with signed thinking is kept from its first message, with its
thinking byte for byte, or replaced whole; never entered half-way. The literal case with every strategy,
then the validator's rule, then its whole kind over generated loops (the fuzzed compiles of
test_compile_properties.py also generate thinking-led loops)."""

from __future__ import annotations

from typing import Any

import pytest
from compile_helpers import (
    WordCounter,
    assert_valid,
    ids,
    load_case,
    manager_for,
    running_loop_kept_whole,
    strategy_named,
    thinking_loop,
    words,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import AutobiographicalConfig, AutobiographicalStrategy
from context_journal.compile import OverBudgetError
from context_journal.validate import validate_messages


def _strategy(name: str, budget: int) -> Any:
    if name == "autobiographical":
        return AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget))
    return strategy_named(name)


@pytest.mark.parametrize("name", ["passthrough", "windowed", "autobiographical"])
@pytest.mark.parametrize("budget", [1500, 1000, 300])
def test_B62_the_running_turn_keeps_its_opening_thinking(name: str, budget: int) -> None:
    case = load_case("B62")
    cm = manager_for(case["messages"], counter=WordCounter(), strategy=_strategy(name, budget))
    cm.drain()
    result = cm.compile(budget)
    assert_valid(result, WordCounter(), thinking=True)
    running_loop_kept_whole(cm, result)
    loop = [i for i in ids(result) if i in {"a1", "r1", "a2", "r2", "a3", "r3"}]
    assert loop[:2] == ["a1", "r1"] and loop[-2:] == ["a3", "r3"]  # the opening, then the newest steps
    a1 = next(m for m in result.messages if "a1" in {s.id for s in m.sources})
    assert a1.content[0] == case["messages"][1]["content"][0]  # thinking byte for byte
    if name == "passthrough" and budget == 1500:
        # The whole loop (2,052 tokens) is within twice the budget: its bulky results are shortened in
        # place, no step is left out.
        assert loop == ["a1", "r1", "a2", "r2", "a3", "r3"]
        assert {r.message_id for r in result.repairs if r.kind == "excerpted"} == {"r1", "r2", "r3"}


def test_B62_a_loop_that_cannot_fit_is_sent_as_a_transcript() -> None:
    case = load_case("B62")
    cm = manager_for(case["messages"], counter=WordCounter())
    result = cm.compile(60)
    assert_valid(result, WordCounter(), thinking=True)
    assert [m.role for m in result.messages] == ["user", "user"]  # nothing of the loop raw
    note = result.messages[-1].content[0]["text"]
    assert note.startswith("[The current turn so far, its calls and results as a transcript:]")
    assert '[called grep {"pattern":"parse_amount"}]' in note
    assert "running_turn_transcribed" in {r.kind for r in result.repairs}


def test_validator_reports_a_running_loop_without_its_thinking() -> None:
    use = {"type": "tool_use", "id": "t2", "name": "open", "input": {"path": "a.py"}}
    messages = [
        {"role": "user", "content": "fix it"},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "x = 1"}]},
    ]
    issues = validate_messages(messages, thinking=True)
    assert [(i.index, i.code) for i in issues] == [(1, "running_turn_without_thinking")]
    assert validate_messages(messages) == []  # thinking off: no such rule
    opened = [{"type": "thinking", "thinking": "look at a.py", "signature": "s"}, use]
    assert validate_messages([messages[0], {"role": "assistant", "content": opened}, messages[2]], thinking=True) == []
    finished = [*messages, {"role": "assistant", "content": "done"}]
    assert validate_messages(finished, thinking=True) == []  # the loop is over: its turn is not running


@st.composite
def loops(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Some chat, then a thinking-led tool loop of 1-8 calls with results of any size, at the end."""
    msgs: list[dict[str, Any]] = []
    for k in range(draw(st.integers(0, 6))):
        msgs.append({"id": f"c{k}", "role": "user" if k % 2 == 0 else "assistant", "content": words(30, k)})
    if not msgs or msgs[-1]["role"] != "user":
        msgs.append({"id": "ask", "role": "user", "content": "Go on, " + words(draw(st.integers(1, 80)))})
    for k in range(draw(st.integers(1, 8))):
        use = {"type": "tool_use", "id": f"t{k}", "name": f"tool{k}", "input": {"arg": words(3, k)}}
        head = (
            [{"type": "thinking", "thinking": words(draw(st.integers(5, 120))), "signature": "sig"}] if k == 0 else []
        )
        msgs.append({"id": f"a{k}", "role": "assistant", "content": [*head, use]})
        size = draw(st.sampled_from([1, 40, 400, 3000]))
        msgs.append(
            {
                "id": f"r{k}",
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": words(size, k)}],
            }
        )
    return msgs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    msgs=loops(), budget=st.integers(40, 6000), name=st.sampled_from(["passthrough", "windowed", "autobiographical"])
)
def test_any_running_loop_is_kept_whole_or_replaced(msgs: list[dict[str, Any]], budget: int, name: str) -> None:
    cm = manager_for(msgs, counter=WordCounter(), strategy=_strategy(name, budget))
    cm.drain()
    assert thinking_loop(cm)
    try:
        result = cm.compile(budget)
    except OverBudgetError as err:
        assert err.actual > err.budget
        return
    assert_valid(result, WordCounter(), thinking=True)
    running_loop_kept_whole(cm, result)
