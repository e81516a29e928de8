"""A stored message that quotes a cut marker (a log of a compiled context, a pasted excerpt) is read as its own
text, never as an earlier cut. The compile reads what an excerpt keeps from the markers in its text, so a quoted
marker read as a cut made a tool result sent whole "say nothing": its running loop went as a transcript at every
budget, its signed thinking left out. Such a marker is sent opened by ``[... `` (a ``cut_marker_quoted`` repair
says so), and a history quoting markers compiles as the same history written with that opening by its host."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import AutobiographicalConfig, AutobiographicalStrategy, ContextManager
from context_journal.compile import OverBudgetError
from context_journal.rendering.repairs import QUOTED_OPENING, quote_markers, text_tokens_kept
from context_journal.testing import ScriptedProvider
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


@st.composite
def _histories(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]]]:
    """A history of chat turns and a thinking-led loop, some texts and results quoting markers at random
    places. The quoted markers state sizes of 100,000 tokens or more, which no cut of these small histories
    writes: one sent as written is told apart from the compile's own."""
    name = draw(st.sampled_from(["passthrough", "windowed", "autobiographical"]))

    def text(k: int) -> str:
        parts = [words(draw(st.sampled_from([1, 20, 80])), k)]
        for _ in range(draw(st.integers(0, 2))):
            whole = draw(st.integers(100_000, 999_999))
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
        content: Any = text(k)
        if draw(st.booleans()):
            content = [{"type": "text", "text": content}]
        msgs.append(
            {
                "participant": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": content}],
                "id": f"r{k}",
            }
        )
    return name, msgs


_QUOTED_SIZE = re.compile(r"\[… about \d+ of \d{6,} tokens cut here")


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_histories(), st.integers(60, 3_000))
def test_a_quoted_marker_is_never_read_or_sent_as_a_cut(history: tuple[str, list[dict[str, Any]]], budget: int) -> None:
    """Whatever the markers quoted and wherever: every compile is valid and within its budget, no quoted
    marker is sent as written (each goes opened by ``[... ``), and at a budget the whole history fits, it is
    sent whole: the loop raw from its thinking, nothing excerpted (read as cuts, quoted markers made whole
    messages "say nothing", and the loop went as a transcript)."""
    name, msgs = history
    cm = ContextManager.open("memory:", strategy=_loop_strategy(name))
    cm.add_messages(msgs)
    whole = cm.compile(1_000_000)
    for at in (budget, whole.tokens):
        try:
            result = cm.compile(at)
        except OverBudgetError:
            assert at == budget < whole.tokens
            continue
        assert_valid(result, COUNTER, thinking=True)
        running_loop_kept_whole(cm, result)
        assert not _QUOTED_SIZE.search(json.dumps([m.content for m in result.messages], ensure_ascii=False))
        if at >= whole.tokens:
            kinds = {r.kind for r in result.repairs}
            assert not kinds & {"excerpted", "running_turn_transcribed", "cut_to_fit"}, kinds


def test_a_sharded_message_quoting_markers_across_its_seams_sends_none_as_written() -> None:
    """A review: a message quoting 80 markers, stored in shards of 300 tokens, sent 10 as written (each split
    by a seam, quoted in no shard, whole once the shards were joined), and 11 repairs for one message."""
    cm = ContextManager.open("memory:", strategy="passthrough")
    cm.shard_tokens = 300
    cm.add_message("user", "Here is the compiled log: " + " ".join(marker(i, i + 100) for i in range(80)))
    cm.add_message("assistant", "I see it.")
    cm.add_message("user", "Summarise it.")
    result = cm.compile(100_000)
    sent = json.dumps([m.content for m in result.messages], ensure_ascii=False)
    assert "[… about" not in sent and sent.count(QUOTED_OPENING + "about") == 80
    assert [r.kind for r in result.repairs].count("cut_marker_quoted") == 1


def test_the_recall_section_sends_quoted_markers_opened() -> None:
    """A review: the recall section sent the markers recalled messages quote as written (10 at 1,500 tokens)."""
    cm = ContextManager.open("memory:", strategy="windowed")
    for i in range(120):
        said = f"Turn {i}: the log of module_{i} said {marker(i, 500)} and then build ok."
        cm.add_message("user" if i % 2 == 0 else "assistant", said)
    result = cm.compile(1_500, query="module_7 log")
    recalled = [m for m in result.messages if any(s.kind == "recall" for s in m.sources)]
    assert recalled and "module_7" in str(recalled)
    assert "[… about" not in json.dumps([m.content for m in recalled], ensure_ascii=False)


def test_a_marker_a_call_quotes_is_not_read_as_a_cut_of_the_transcript() -> None:
    """A review: a Bash command quoting a marker, written into the running loop's transcript, was read as a cut
    of it: at 100 tokens the note said "about 300559 of 300580 tokens cut here" for some 730 tokens. The call
    stays as the agent wrote it when sent raw; in the transcript its marker is opened, and the transcript's
    cut states figures of its own size."""
    cm = ContextManager.open("memory:", strategy="windowed")
    cm.add_message("user", "Why does the log lose lines?")
    command = f"grep -c '{marker(99999, 99999)}' part.log"
    for k in range(3):
        think = [{"type": "thinking", "thinking": "Check the log.", "signature": "s"}] if k == 0 else []
        use = {"type": "tool_use", "id": f"t{k}", "name": "Bash", "input": {"command": command}}
        cm.add_message("assistant", [*think, use])
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"t{k}", "content": words(60, k)}])
    raw = cm.compile(10_000)
    calls = [b for m in raw.messages for b in m.content if b.get("type") == "tool_use"]
    assert all(b["input"]["command"] == command for b in calls) and len(calls) == 3
    for budget in (100, 200, 300):
        text = str(cm.compile(budget).messages[-1].content[-1]["text"])
        figures = [int(whole) for whole in re.findall(r"\[… about \d+ of (\d+) tokens cut here", text)]
        assert figures and max(figures) < 2_000, (budget, figures)


def _sent(result: Any) -> str:
    return json.dumps([m.content for m in result.messages], ensure_ascii=False)


def test_a_summary_quoting_a_marker_is_sent_opened_and_never_read_as_cut() -> None:
    """A second review: a model's summary quoting a marker was sent as written, and at 1,050-1,350 tokens,
    excerpted, re-marked "about 260385 of 654321 tokens cut here" for some 60 tokens."""
    quote = marker(123_456, 654_321)
    cm = ContextManager.open(
        "memory:", strategy=AutobiographicalStrategy(AutobiographicalConfig.for_budget(2_000)), summarizer=None
    )
    cm.summarizer = ScriptedProvider(default="The log said " + quote + " and the module was fixed. " * 3)
    for i in range(60):
        cm.add_message("user", f"Step {i}: the log of module_{i}.py said the build failed with exit code {i % 7}.")
        cm.add_message("assistant", f"I fixed module_{i}.py and re-ran.")
    cm.drain()
    summarised = 0
    for budget in (100_000, 3_000, 1_500, 1_200, 1_050):
        try:
            result = cm.compile(budget)
        except OverBudgetError:
            continue
        summarised += any(s.kind == "summary" for m in result.messages for s in m.sources)
        assert not _QUOTED_SIZE.search(_sent(result)), budget
        figures = [int(w) for w in re.findall(r"\[… about \d+ of (\d+) tokens cut here", _sent(result))]
        assert all(w < 100_000 for w in figures), (budget, figures)
    assert summarised >= 3


def test_the_working_state_block_sends_quoted_markers_opened() -> None:
    """A second review: facts, commands and error lines quoting a marker went into the working-state block as
    written."""
    quote = marker(123_456, 654_321)
    cm = ContextManager.open("memory:", strategy="windowed")
    cm.set_fact("log", "the log said " + quote)
    cm.add_message("user", "Fix the build. " + words(30))
    for k in range(20):
        use = {"type": "tool_use", "id": f"t{k}", "name": "Bash", "input": {"command": f"make test {k} # {quote}"}}
        cm.add_message("assistant", [{"type": "text", "text": "running"}, use])
        failed = f"Error: build failed {quote}\n" + words(40, k) + "\nexit code 2"
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"t{k}", "is_error": True, "content": failed}])
        cm.add_message("assistant", "The build failed " + words(20, k))
    for budget in (100_000, 3_000):
        result = cm.compile(budget)
        block = [m.content for m in result.messages if any(s.kind == "ledger" for s in m.sources)]
        assert block and QUOTED_OPENING + "about 123456" in str(block), budget
        assert not _QUOTED_SIZE.search(json.dumps(block, ensure_ascii=False)), budget  # (calls sent raw keep theirs)


def test_a_search_result_quoting_a_marker_is_read_as_its_own_text() -> None:
    """A second review: a search_result block's text quoting a marker was sent as written, and excerpted, read
    as an earlier cut ("about 174261 of 654321")."""
    body = words(120, 1) + " " + marker(123_456, 654_321) + " " + words(120, 2)
    cm = ContextManager.open("memory:", strategy="passthrough")
    cm.add_message("user", "Hello " + words(10))
    cm.add_message("assistant", "Hi " + words(10))
    result_block = {"type": "search_result", "source": "https://ex.com/log", "title": "log"}
    cm.add_message(
        "user",
        [{"type": "text", "text": "Here are results."}, {**result_block, "content": [{"type": "text", "text": body}]}],
    )
    whole = cm.compile(100_000).tokens
    for budget in range(whole, 100, -80):
        try:
            result = cm.compile(budget)
        except OverBudgetError:
            break
        assert not _QUOTED_SIZE.search(_sent(result)), budget
        figures = [int(w) for w in re.findall(r"\[… about \d+ of (\d+) tokens cut here", _sent(result))]
        assert all(w < 100_000 for w in figures), (budget, figures)
