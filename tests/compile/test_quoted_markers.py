"""A stored message that quotes a cut marker (a log of a compiled context, a pasted excerpt) is read as its own
text, never as an earlier cut. The compile reads what an excerpt keeps from the markers in its text, so a quoted
marker read as a cut made a tool result sent whole "say nothing": its running loop went as a transcript at every
budget, its signed thinking left out. Such a marker is sent opened by ``[... `` (a ``cut_marker_quoted`` repair
says so), and a history quoting markers compiles as the same history written with that opening by its host."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import CompileResult, ContextManager
from context_journal.compile import OverBudgetError
from context_journal.rendering.repairs import QUOTED_OPENING, quote_markers, text_tokens_kept
from context_journal.tokens import EstimatingCounter
from tests.compile.compile_helpers import _loop_strategy, assert_valid, running_loop_kept_whole, words
from tests.hypothesis_budget import examples

COUNTER = EstimatingCounter()


def marker(cut: int, whole: int) -> str:
    return f"[… about {cut} of {whole} tokens cut here; the journal keeps the whole message …]"


def _loop(name: str, result: Any) -> ContextManager:
    cm = ContextManager.open("memory:", strategy=_loop_strategy(name))
    cm.add_message("user", "Look at what the compile log says.")
    call = {"type": "tool_use", "id": "t1", "name": "cat", "input": {"path": "compile.log"}}
    cm.add_message("assistant", [{"type": "thinking", "thinking": "Read the log.", "signature": "s"}, call])
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": result}])
    return cm


@pytest.mark.parametrize("name", ["passthrough", "windowed", "autobiographical"])
@pytest.mark.parametrize(
    "content",
    [
        "line one\n" + marker(500, 500) + "\nline two",
        marker(90, 100),
        [{"type": "text", "text": "output:"}, {"type": "text", "text": marker(7, 7)}],
    ],
    ids=["inline", "alone", "blocks"],
)
def test_a_loop_that_fits_whole_is_sent_raw_whatever_its_result_quotes(name: str, content: Any) -> None:
    """The review's case: a 78-token loop whose result quotes a marker went as a transcript at 1,000 tokens
    (and at 200) with every strategy. It is sent raw whole, thinking and all, the marker opened by ``[... ``."""
    cm = _loop(name, content)
    for budget in (1_000, 200):
        result = cm.compile(budget)
        assert_valid(result, COUNTER, thinking=True)
        running_loop_kept_whole(cm, result)
        kinds = [r.kind for r in result.repairs]
        assert "running_turn_transcribed" not in kinds and "excerpted" not in kinds, kinds
        assert kinds == ["cut_marker_quoted"]
        sent = str(result.messages[-1].content)
        assert QUOTED_OPENING + "about" in sent and "[… about" not in sent


def test_quote_markers_leaves_other_text_and_thinking_alone() -> None:
    thinking = {"type": "thinking", "thinking": marker(3, 3), "signature": "s"}
    plain = {"type": "text", "text": "about 3 of 3 tokens cut here"}  # not a marker: no brackets
    assert quote_markers([thinking, plain]) is None
    [quoted] = quote_markers([{"type": "text", "text": "a " + marker(3, 3) + " b " + marker(1, 9)}]) or []
    assert quoted["text"] == "a [... about 3 of 3 tokens cut here; the journal keeps the whole message …] b " + (
        "[... about 1 of 9 tokens cut here; the journal keeps the whole message …]"
    )
    assert text_tokens_kept([quoted], COUNTER)[0] == text_tokens_kept([quoted], COUNTER)[1]  # all of it kept


def _quoted(text: str) -> str:
    return text.replace("[… about", QUOTED_OPENING + "about")


@st.composite
def _histories(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """A history of chat turns and a thinking-led loop, some texts and results quoting markers at random
    places; and the same history with each marker opened by ``[... `` as its host wrote it."""
    name = draw(st.sampled_from(["passthrough", "windowed", "autobiographical"]))

    def text(k: int) -> str:
        parts = [words(draw(st.sampled_from([1, 20, 80])), k)]
        for _ in range(draw(st.integers(0, 2))):
            whole = draw(st.integers(1, 5_000))
            parts.insert(draw(st.integers(0, len(parts))), marker(draw(st.integers(0, whole)), whole))
        return draw(st.sampled_from(["\n", " "])).join(parts)

    msgs: list[dict[str, Any]] = [
        {"participant": "user" if k % 2 == 0 else "assistant", "content": text(k), "id": f"c{k}"}
        for k in range(draw(st.integers(0, 4)))
    ]
    if not msgs or msgs[-1]["participant"] != "user":
        msgs.append({"participant": "user", "content": text(99), "id": "ask"})
    for k in range(draw(st.integers(1, 4))):
        use = {"type": "tool_use", "id": f"t{k}", "name": "cat", "input": {"path": f"f{k}.log"}}
        opening = [{"type": "thinking", "thinking": words(10), "signature": "sig"}] if k == 0 else []
        msgs.append({"participant": "assistant", "content": [*opening, use], "id": f"a{k}"})
        result = {"type": "tool_result", "tool_use_id": f"t{k}", "content": text(k)}
        msgs.append({"participant": "user", "content": [result], "id": f"r{k}"})

    def host(m: dict[str, Any]) -> dict[str, Any]:
        content = m["content"]
        if isinstance(content, str):
            return {**m, "content": _quoted(content)}
        return {**m, "content": [{**b, "content": _quoted(b["content"])} if "content" in b else b for b in content]}

    return name, msgs, [host(m) for m in msgs]


def _outcome(name: str, msgs: list[dict[str, Any]], budget: int) -> CompileResult | int:
    cm = ContextManager.open("memory:", strategy=_loop_strategy(name))
    cm.add_messages(msgs)
    try:
        return cm.compile(budget)
    except OverBudgetError as exc:
        return exc.actual


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_histories(), st.integers(60, 3_000))
def test_a_history_quoting_markers_compiles_as_its_quoted_text(
    history: tuple[str, list[dict[str, Any]], list[dict[str, Any]]], budget: int
) -> None:
    """Whatever the markers quoted and wherever, the context (or the failure's figure) is the one compiled
    from the history with those markers opened by ``[... ``: the same messages, the same repairs but the
    ``cut_marker_quoted`` ones, one for each message quoting a marker that is sent."""
    name, msgs, hosted = history
    mine, theirs = _outcome(name, msgs, budget), _outcome(name, hosted, budget)
    if isinstance(theirs, int):
        assert mine == theirs
        return
    assert isinstance(mine, CompileResult)
    assert [(m.role, m.content) for m in mine.messages] == [(m.role, m.content) for m in theirs.messages]
    assert [r for r in mine.repairs if r.kind != "cut_marker_quoted"] == list(theirs.repairs)
    assert mine.tokens == theirs.tokens
