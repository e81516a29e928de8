"""The newest message is never sent as its bare cut marker: the recent window's oldest turns (tool units
too), then the working-state block and the recall section give way first, and when even that leaves the
newest message nothing of its text, the compile raises (README, "the newest message ... is excerpted last
... and a compile that could fit only by sending it as its bare cut marker raises instead").

A review found fitting compiles of real Claude Code sessions (compression lagging) sending a session's
final answer as "[… about 288 of 288 tokens cut here …]" beside two older tool units cut to their markers,
and as "Ye", the marker and "." (two characters kept cost a token more than the marker alone).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import CompileResult, ContextManager, OverBudgetError, read_transcript
from context_journal.formats.importers import import_into
from context_journal.rendering.repairs import share_kept
from context_journal.stores import MemoryStore
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy
from context_journal.tokens import EstimatingCounter
from tests.compile.compile_helpers import LAG_WINDOWS, assert_valid, lag_config, words
from tests.hypothesis_budget import examples

_COUNTER = EstimatingCounter()


SAYS_SOMETHING = 0.01  # the share of its text a message keeps, by its markers, for it to say anything


def _says_something(content: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the blocks keep a hundredth of their text or more by their cut markers' own count (no
    marker: whole), date headers left out and tool results' text read."""
    return share_kept(content, _COUNTER) >= SAYS_SOMETHING


@pytest.mark.parametrize("stem", ["ae4a77f8", "258c7280"])
@pytest.mark.parametrize("sized", [False, True])
def test_a_real_sessions_final_answer_is_never_sent_as_its_marker(data_dir: Path, stem: str, sized: bool) -> None:
    # ae4a77f8's first conversation with for_budget(250) at 250 sent its final answer as "[… about 288 of
    # 288 tokens cut here …]"; 258c7280 at 375 as "Ye", the marker and ".".
    transcript = read_transcript(next((data_dir / "claude-code-sessions").glob(f"{stem}*.jsonl")))
    transcript = dataclasses.replace(transcript, conversations=transcript.conversations[:1])
    store = MemoryStore()
    import_into(store, transcript, namespace="s")
    fitted = 0
    for budget in range(200, 700, 25):
        strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget)) if sized else "autobiographical"
        cm = ContextManager.open(store=store, namespace="s", strategy=strategy)
        try:
            result = cm.compile(budget)
        except OverBudgetError:
            continue
        fitted += 1
        assert result.tokens <= budget
        assert_valid(result)
        last = result.messages[-1]
        assert _says_something(last.content), (budget, str(last.content[0])[:120])
    assert fitted >= 10  # most of these budgets fit


def _fits_saying_something(cm: ContextManager, budget: int, **options: Any) -> CompileResult | None:
    """``cm.compile(budget)``: a valid context within the budget whose newest message (id ``newest``) says
    something, or None when it raises, with a figure over the budget."""
    try:
        compiled = cm.compile(budget, **options)
    except OverBudgetError as err:
        assert err.actual > budget
        return None
    assert compiled.tokens <= budget
    assert_valid(compiled)
    last = compiled.messages[-1]
    assert last.sources[0].id == "newest" and _says_something(last.content), (budget, str(last.content)[:160])
    return compiled


def _tool_history(
    turns: int, size: int, result: int, newest: int, config: AutobiographicalConfig, running: bool = False
) -> ContextManager:
    """Rules, ``turns`` turns with a tool unit (a Bash call and its ``result``-word output) every third,
    a short question and a long final answer (``newest`` words), or with ``running`` a call whose result
    of ``newest`` words is the newest message (the loop still running); nothing summarised."""
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(config))
    cm.add_message("user", "Rules: answer briefly and cite the file.", id="rules")
    for k in range(turns):
        if k % 3 == 2:
            call = {
                "type": "tool_use",
                "id": f"c{k}",
                "name": "Bash",
                "input": {"command": "git log " + words(size // 4, k)},
            }
            cm.add_message("assistant", [{"type": "text", "text": f"Checking {k}."}, call], id=f"a{k}")
            cm.add_message(
                "user", [{"type": "tool_result", "tool_use_id": f"c{k}", "content": words(result, k)}], id=f"r{k}"
            )
        else:
            cm.add_message("user" if k % 2 == 0 else "assistant", f"Turn {k}: " + words(size, k), id=f"t{k}")
    cm.add_message("user", "Did it work?", id="ask")
    if running:
        call = {"type": "tool_use", "id": "cz", "name": "Bash", "input": {"command": "pytest -q"}}
        cm.add_message("assistant", [{"type": "text", "text": "Running tests."}, call], id="run")
        result_block = {"type": "tool_result", "tool_use_id": "cz", "content": "Output: " + words(newest, 7)}
        cm.add_message("user", [result_block], id="newest")
    else:
        cm.add_message("assistant", "Final answer: " + words(newest, turns), id="newest")
    return cm


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(turns=36, size=19, result=71, newest=553, head=200, recent=300, chunk=1_000, running=False, budgets=[318])
# A running loop whose newest result the strategy's give-way spans reached: it was cut as the middle, to its
# bare marker, beside a whole working-state block and 176 tokens of room (a review; budgets 880-980).
@example(turns=32, size=20, result=79, newest=501, head=500, recent=300, chunk=200, running=True, budgets=[900])
@given(
    turns=st.integers(6, 40),
    size=st.integers(10, 60),
    result=st.integers(20, 400),
    newest=st.integers(40, 600),
    **LAG_WINDOWS,
    running=st.booleans(),
    budgets=st.lists(st.integers(100, 1_500), min_size=1, max_size=4),
)
def test_the_newest_message_keeps_some_of_itself_or_the_compile_raises(
    turns: int,
    size: int,
    result: int,
    newest: int,
    head: int,
    recent: int,
    chunk: int,
    running: bool,
    budgets: list[int],
) -> None:
    """Over tool-using histories whose compression lags: every compile that fits keeps some of the newest
    message's text, a final answer or a running loop's result (the first example: the working-state
    block, cut line by line after the recent window's tool unit could not save it, once made the context
    fit with the answer as its bare marker)."""
    cfg = lag_config(head, recent, chunk)
    cm = _tool_history(turns, size, result, newest, cfg, running)
    for budget in budgets:
        _fits_saying_something(cm, budget)
    cm.close()


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
# The newest answer was cut to one token of 991 ("F", the marker, "9") and two recent turns to nothing,
# where they could give way (a review: the search for the turns to give way asked the newest to keep a
# tenth of itself, found no number of turns that did, and fell back to none).
@example(turns=30, size=40, newest=300, dated=False, budget=490)
# A date header counted as the newest message's kept text (a review: "[20 November 2023]", then "F", the
# marker and "9").
@example(turns=30, size=40, newest=300, dated=True, budget=448)
@given(
    turns=st.integers(10, 60),
    size=st.integers(15, 80),
    newest=st.integers(60, 600),
    dated=st.booleans(),
    budget=st.integers(150, 2_000),
)
def test_a_final_answer_and_the_recent_turns_keep_some_of_themselves(
    turns: int, size: int, newest: int, dated: bool, budget: int
) -> None:
    """Plain turns, a question and a long final answer, nothing summarised (the default autobiographical
    strategy), with or without dates rendered: a compile that fits keeps a hundredth of the answer at
    least, and no recent turn after the note is cut to under a twentieth of itself."""
    cm = ContextManager.open("memory:", strategy="autobiographical")
    start = 1.7e9
    cm.add_message("user", "Rules: answer briefly.", id="rules", timestamp=start)
    for k in range(turns):
        role = "user" if k % 2 == 0 else "assistant"
        cm.add_message(role, f"Turn {k}: " + words(size, k), id=f"t{k}", timestamp=start + 60 * k)
    cm.add_message("user", "Did it work?", id="ask", timestamp=start + 5 * 86_400)
    cm.add_message("assistant", "Final answer: " + words(newest, 99), id="newest", timestamp=start + 6 * 86_400)
    compiled = _fits_saying_something(cm, budget, render_dates=dated)
    if compiled is None:
        return
    notes = [k for k, m in enumerate(compiled.messages) if m.sources and m.sources[0].id == "cut to fit"]
    for m in compiled.messages[notes[0] + 1 if notes else len(compiled.messages) : -1]:
        assert share_kept(m.content, _COUNTER) >= 0.05, (m.sources[0].id, str(m.content)[:160])
    cm.close()
