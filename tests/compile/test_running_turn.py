"""Bug case B62: a tool loop that opened with signed thinking is kept from its first message, with its
thinking byte for byte, or replaced whole; never entered half-way. The literal case with every strategy,
then the validator's rule, then its whole kind over generated loops (the fuzzed compiles of
test_compile_properties.py also generate thinking-led loops)."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import AutobiographicalConfig, AutobiographicalStrategy
from context_journal.compile import OverBudgetError
from context_journal.validate import validate_messages
from context_journal.views import running_turn_start
from tests.compile.compile_helpers import (
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
from tests.hypothesis_budget import examples


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
    # The bulky results are shortened before any step is left out (a review found the middle step
    # went without a word), and the question the loop answers stays raw before it.
    assert ids(result)[-7:] == ["u1", "a1", "r1", "a2", "r2", "a3", "r3"]
    a1 = next(m for m in result.messages if "a1" in {s.id for s in m.sources})
    assert a1.content[0] == case["messages"][1]["content"][0]  # thinking byte for byte
    assert {r.message_id for r in result.repairs if r.kind == "excerpted"} <= {"r1", "r2", "r3"}
    assert sum(m.tokens for m in result.messages) < 2052  # the loop's 2,052 tokens, shortened


def test_B62_a_loop_that_cannot_fit_is_sent_as_a_transcript() -> None:
    case = load_case("B62")
    cm = manager_for(case["messages"], counter=WordCounter())
    result = cm.compile(60)
    assert_valid(result, WordCounter(), thinking=True)
    assert [m.role for m in result.messages] == ["user", "user"]  # nothing of the loop raw
    heading, body = (b["text"] for b in result.messages[-1].content)  # the heading is never excerpted
    assert heading == "[The current turn so far, its 3 calls and their results as a transcript:]"
    note = heading + "\n" + body
    assert '[called grep {"pattern":"parse_amount"}]' in note
    assert "running_turn_transcribed" in {r.kind for r in result.repairs}


def test_validator_reports_a_running_loop_without_its_thinking() -> None:
    use = {"type": "tool_use", "id": "t2", "name": "open", "input": {"path": "a.py"}}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "fix it"},
        {"role": "assistant", "content": [use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "x = 1"}]},
    ]
    issues = validate_messages(messages, thinking=True)
    assert [(i.index, i.code) for i in issues] == [(1, "running_turn_without_thinking")]
    assert validate_messages(messages) == []  # thinking off: no such rule
    opened: list[dict[str, Any]] = [{"type": "thinking", "thinking": "look at a.py", "signature": "s"}, use]
    assert validate_messages([messages[0], {"role": "assistant", "content": opened}, messages[2]], thinking=True) == []
    finished = [*messages, {"role": "assistant", "content": "done"}]
    assert validate_messages(finished, thinking=True) == []  # the loop is over: its turn is not running


@st.composite
def loops(draw: st.DrawFn, shape: str = "one") -> list[dict[str, Any]]:
    """Some chat, then a thinking-led tool loop of 1-8 calls with results of any size, at the end.

    ``shape``: how the assistant turn is stored. ``"one"``: the thinking in the first call's message;
    ``"split"``: as Claude Code stores it, each block a record of its own (the thinking alone, then a
    text, then each call), sometimes a text record between steps; ``"thinking_text"``: the thinking and a
    text in one record, then each call in a record of its own."""
    msgs: list[dict[str, Any]] = []
    for k in range(draw(st.integers(0, 6))):
        msgs.append({"id": f"c{k}", "role": "user" if k % 2 == 0 else "assistant", "content": words(30, k)})
    if not msgs or msgs[-1]["role"] != "user":
        msgs.append({"id": "ask", "role": "user", "content": "Go on, " + words(draw(st.integers(1, 80)))})
    thinking = {"type": "thinking", "thinking": words(draw(st.integers(5, 120))), "signature": "sig"}
    if shape == "split":
        msgs.append({"id": "think", "role": "assistant", "content": [thinking]})
        msgs.append({"id": "say", "role": "assistant", "content": "Let me look, " + words(draw(st.integers(1, 30)))})
    elif shape == "thinking_text":
        text = {"type": "text", "text": "Let me look, " + words(draw(st.integers(1, 30)))}
        msgs.append({"id": "think", "role": "assistant", "content": [thinking, text]})
    for k in range(draw(st.integers(1, 8))):
        use = {"type": "tool_use", "id": f"t{k}", "name": f"tool{k}", "input": {"arg": words(3, k)}}
        head = [thinking] if k == 0 and shape == "one" else []
        if shape != "one" and k and draw(st.booleans()):
            msgs.append({"id": f"s{k}", "role": "assistant", "content": f"Next, step {k}."})
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


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    msgs=loops(), budget=st.integers(40, 6000), name=st.sampled_from(["passthrough", "windowed", "autobiographical"])
)
# The newest result's 36-token excerpt, emptied by a cut, went back at its smallest readable excerpt, as large
# as the excerpt it stood as ("cut from about 36 to 36 tokens"): it now stands as it was.
@example(
    msgs=[
        {"id": "c0", "role": "user", "content": words(30, 0)},
        {
            "id": "a0",
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": words(5), "signature": "sig"},
                {"type": "tool_use", "id": "t0", "name": "tool0", "input": {"arg": words(3)}},
            ],
        },
        {"id": "r0", "role": "user", "content": [{"type": "tool_result", "tool_use_id": "t0", "content": words(3000)}]},
    ],
    budget=67,
    name="passthrough",
)
def test_any_running_loop_is_kept_whole_or_replaced(msgs: list[dict[str, Any]], budget: int, name: str) -> None:
    cm = manager_for(msgs, counter=WordCounter(), strategy=_strategy(name, budget))
    cm.drain()
    assert thinking_loop(cm)
    _checked(cm, budget)


def _checked(cm: Any, budget: int) -> Any:
    """The compile at ``budget``, valid with thinking on and its running loop whole or replaced; None when
    it raises ``OverBudgetError`` (which must name more than the budget)."""
    try:
        result = cm.compile(budget)
    except OverBudgetError as err:
        assert err.actual > err.budget
        return None
    assert_valid(result, WordCounter(), thinking=True)
    running_loop_kept_whole(cm, result)
    return result


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    shape=st.sampled_from(["split", "thinking_text"]),
    budget=st.integers(300, 8000),
    name=st.sampled_from(["passthrough", "windowed", "autobiographical"]),
)
def test_a_loop_whose_thinking_is_a_record_of_its_own_is_kept_whole_or_replaced(
    data: st.DataObject, shape: str, budget: int, name: str
) -> None:
    """A review found: Claude Code stores the thinking, the text and each call of an assistant turn as
    records of their own. The running turn starts at its first record (the thinking) and is kept from it
    (byte for byte, with the records after it up to the first call and its results right after it, no
    note between), or replaced whole as a transcript; before, passthrough and windowed sent the newest
    steps alone (the thinking gone) and autobiographical put a note between the thinking and the calls."""
    msgs = data.draw(loops(shape))
    cm = manager_for(msgs, counter=WordCounter(), strategy=_strategy(name, budget))
    cm.drain()
    view = cm._reader_view()
    start = running_turn_start(view)
    assert start is not None and view.entry(start).id == "think"  # the turn opens at its thinking record
    try:
        result = cm.compile(budget)
    except OverBudgetError as err:
        assert err.actual > err.budget
        return
    assert_valid(result, WordCounter(), thinking=True)
    running_loop_kept_whole(cm, result)
    # The stored message each compiled message renders raw (None for notes, stubs and transcripts).
    shown = [m.sources[0].id if m.sources and m.sources[0].kind == "message" else None for m in result.messages]
    if "think" in shown:  # raw from its opening: the records up to the first call follow it, then its result
        at = shown.index("think")
        opening = ["think", "say", "a0", "r0"] if shape == "split" else ["think", "a0", "r0"]
        assert shown[at : at + len(opening)] == opening
    else:  # nothing of the turn raw: every record of it is in the transcript, or left out
        assert not set(shown) & {e.id for e in view.entries(start, len(view))}


def _long_loop(steps: int, size: int) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"id": "ask", "role": "user", "content": "Fix the billing bug, " + words(20)}]
    for k in range(steps):
        head = [{"type": "thinking", "thinking": words(40), "signature": "sig"}] if k == 0 else []
        use = {"type": "tool_use", "id": f"t{k}", "name": "open", "input": {"path": f"billing/m{k}.py"}}
        msgs.append({"id": f"a{k}", "role": "assistant", "content": [*head, use]})
        result = {"type": "tool_result", "tool_use_id": f"t{k}", "content": words(size, k)}
        msgs.append({"id": f"r{k}", "role": "user", "content": [result]})
    return msgs


@pytest.mark.parametrize("name", ["passthrough", "windowed", "autobiographical"])
def test_a_long_loop_that_cannot_fit_whole_goes_as_one_transcript(name: str) -> None:
    """Forty steps cannot all fit raw even shortened at 900 tokens: the whole turn so far goes as one unit,
    a transcript in a user turn after the question it answers, and nothing of it raw (B62: "never a partial
    turn"). Before, passthrough and windowed sent the opening and the newest steps raw with a note before
    them naming the 76 messages between as not shown."""
    msgs = _long_loop(40, 300)
    cm = manager_for(msgs, counter=WordCounter(), strategy=_strategy(name, 900))
    cm.drain()
    result = cm.compile(900)
    assert_valid(result, WordCounter(), thinking=True)
    running_loop_kept_whole(cm, result)
    kinds = {r.kind for r in result.repairs}
    assert "running_turn_transcribed" in kinds and "running_turn_gap" not in kinds
    assert [m.sources[0].id for m in result.messages] == ["ask", "running turn"]
    assert result.tokens <= 900
    heading, transcript = (b["text"] for b in result.messages[1].content)
    assert heading == "[The current turn so far, its 40 calls and their results as a transcript:]"
    # Every call, in order (cut as one text by head and tail, it showed 4 of the 40), the newest result's end,
    # and one marker first standing for the older results it leaves out.
    calls = [f'assistant: [called open {{"path":"billing/m{k}.py"}}]' for k in range(40)]
    at = [transcript.index(c) for c in calls]
    assert at == sorted(at)
    assert transcript.startswith("[… about ") and "earlier results not shown)" in transcript.split("\n")[0]
    assert transcript.endswith("pi299]")
    # Every step is a source of the transcript: none is counted as left out.
    assert {s.id for s in result.messages[1].sources if s.kind == "message"} == {
        f"{x}{k}" for k in range(40) for x in "ar"
    }


# --- found by the fuzz (test_compile_properties.py): loops with another speaker's call --------------------

_PNG = {
    "type": "image",
    "source": {
        "type": "base64",
        "media_type": "image/png",
        "data": base64.b64encode(b"\x89PNG\r\n" + bytes(range(200))).decode(),
    },
}


def _previews_keep_the_loop(msgs: list[dict[str, Any]], strategy: Any, budgets: Any) -> None:
    """Preview ``msgs`` with ``strategy`` at each budget (a system prompt as the fuzz gives): each fits or
    raises OverBudgetError, is valid with thinking on, and keeps the running loop as promised."""
    from context_journal.manager import ContextManager

    cm = ContextManager.open("memory:", strategy=strategy)
    cm.add_messages(msgs)
    for budget in budgets:
        try:
            result = cm.preview_context(budget, system="You are a careful agent.")
        except OverBudgetError:
            continue
        assert_valid(result, thinking=True)
        running_loop_kept_whole(cm, result)


def _shot(tid: str) -> dict[str, Any]:
    content = [{"type": "text", "text": "shot"}, _PNG]
    return {"type": "tool_result", "tool_use_id": tid, "content": content, "is_error": False}


def _call(participant: str, *tids: str, thinking: bool = False, cmd: str = "alpha0") -> dict[str, Any]:
    head = [{"type": "thinking", "thinking": words(5), "signature": "sigL"}] if thinking else []
    uses = [{"type": "tool_use", "id": t, "name": "run", "input": {"cmd": cmd}} for t in tids]
    return {"participant": participant, "content": [*head, *uses]}


def test_a_stub_result_merged_into_a_transcribed_turn_stays_with_its_raw_call() -> None:
    """A windowed compile at 188 tokens kept the loop's opening and its newest call ``t8`` raw; the
    stub result the repairs gave ``t8`` was merged into the user turn of another speaker's call (``bob``,
    shown as text), which then went into the transcript: ``t8`` was sent without a result and the compile
    raised ``InvalidContextError``. A result of a call that stays raw stays raw."""
    from context_journal.manager import ContextManager
    from context_journal.strategies import WindowedPassthroughStrategy

    msgs = [_call("assistant", "t1", thinking=True), {"participant": "tool", "content": [_shot("t1")]}]
    for k in range(2, 5):
        msgs += [_call("assistant", f"t{k}"), {"participant": "tool", "content": [_shot(f"t{k}")]}]
    msgs += [_call("assistant", "t5", "t6", "t7"), {"participant": "tool", "content": [_shot("t5"), _shot("t6")]}]
    msgs += [_call("assistant", "t8"), _call("bob", "t9")]
    cm = ContextManager.open("memory:", strategy=WindowedPassthroughStrategy(0.3))
    cm.add_messages(msgs)
    for budget in (150, 188, 230, 300):
        result = cm.compile(budget)
        assert_valid(result, thinking=True)
        running_loop_kept_whole(cm, result)


def test_a_transcript_heading_that_names_steps_not_shown_is_never_cut() -> None:
    """At 99 tokens the whole loop went into a transcript that was then excerpted, and the cut fell in
    its heading ("… 1 of its [… cut …]"): the count of steps not shown never reached the model. The
    heading is a block of its own, short enough that an excerpt keeps it whole."""
    from context_journal.manager import ContextManager
    from context_journal.strategies import WindowedPassthroughStrategy

    see = {"participant": "user", "content": [{"type": "text", "text": "see"}, _PNG]}
    msgs = [_call("assistant", "t1"), {"participant": "tool", "content": [_shot("t1")]}, see, see]
    msgs += [_call("assistant", "t2", thinking=True, cmd="step 0"), {"participant": "tool", "content": [_shot("t2")]}]
    for k in range(3, 6):
        msgs += [_call("assistant", f"t{k}", cmd=f"step {k - 2}"), {"participant": "tool", "content": [_shot(f"t{k}")]}]
    msgs += [
        _call("assistant", "t6", "t7", "t8"),
        {"participant": "tool", "content": [_shot(f"t{k}") for k in (6, 7, 8)]},
    ]
    msgs += [_call("assistant", "t9"), _call("bob", "t10")]
    msgs += [{"participant": "tool", "content": [_shot("t9")]}, {"participant": "tool", "content": [_shot("t10")]}]
    cm = ContextManager.open("memory:", strategy=WindowedPassthroughStrategy(0.5))
    cm.add_messages(msgs)
    from context_journal.compile import CompileOptions

    seen = set()
    for budget in (80, 99, 120, 160):
        try:
            options = CompileOptions(max_images=1, keep_thinking_turns=0)
            # A preview (the windowed strategy's first layout, before a compile moves its anchor).
            result = cm.preview_context(budget, system="You are a careful agent.", options=options)
        except OverBudgetError:
            continue
        assert_valid(result, thinking=True)
        running_loop_kept_whole(cm, result)
        seen |= {r.kind for r in result.repairs}
    assert "running_turn_transcribed" in seen


def test_results_of_calls_made_before_the_loop_are_not_its_steps() -> None:
    """Fuzz: the loop's results come after results of two calls made before it (their call left out
    of a 244-token windowed compile, so they are dropped as orphans, which a repair says). They are not
    steps of the loop: no note claims them, and the results merged to follow their call count as shown."""
    from context_journal.strategies import WindowedPassthroughStrategy

    pdf = base64.b64encode(b"%PDF-1.4\n" + b"1 0 obj << /Type /Page >> endobj\n" * 3 + b"%%EOF\n").decode()
    doc = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}}
    msgs = [
        _call("assistant", "t1", "t2"),
        {"participant": "user", "content": [{"type": "text", "text": "read this"}, doc]},
        {"participant": "user", "content": [{"type": "text", "text": "see"}, _PNG]},
        _call("assistant", "t3", thinking=True, cmd="step 0"),
        {"participant": "tool", "content": [_shot("t3")]},
        _call("assistant", "t4", "t5", "t6"),
        *({"participant": "tool", "content": [_shot(t)]} for t in ("t1", "t2", "t4", "t5", "t6")),
    ]
    _previews_keep_the_loop(msgs, WindowedPassthroughStrategy(0.3), (200, 244, 300, 400))


@pytest.mark.parametrize("strategy", ["passthrough", "windowed"])
def test_a_result_of_a_call_before_the_loop_moved_before_its_opening_is_no_step_left_out(strategy: str) -> None:
    """Fuzz (windowed, 341 tokens): the result of ``t1``, a call made before the loop, arrived inside it
    and was moved to follow its call, before the loop's opening; the note before the opening said "1 of
    its messages between them are not shown" though the model reads it. A loop message shown anywhere in
    the context is shown: at every budget, no note or repair counts it."""
    from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy

    msgs = [
        _call("assistant", "t1"),
        {"participant": "user", "content": [{"type": "text", "text": "see"}, _PNG]},
        _call("assistant", "t2", thinking=True, cmd="step 0"),
        {"participant": "ann", "content": [{"type": "text", "text": words(12)}]},
        {"participant": "tool", "content": [_shot("t2")]},
        _call("assistant", "t3", thinking=True, cmd="step 0"),
        {"participant": "tool", "content": [_shot("t3")]},
        {"participant": "tool", "content": [_shot("t1")]},
        _call("assistant", "t4"),
    ]
    chosen = WindowedPassthroughStrategy(0.3) if strategy == "windowed" else PassthroughStrategy()
    _previews_keep_the_loop(msgs, chosen, range(150, 1200, 37))
    from context_journal.manager import ContextManager

    cm = ContextManager.open("memory:", strategy=chosen)
    cm.add_messages(msgs)
    result = cm.preview_context(4000, system="You are a careful agent.")
    assert not {"running_turn_gap"} & {r.kind for r in result.repairs}
    assert "result_relocated" in {r.kind for r in result.repairs}


@pytest.mark.parametrize("strategy", ["passthrough", "windowed"])
def test_a_late_result_of_a_call_before_the_loop_is_no_step_sent_in_a_note(strategy: str) -> None:
    """CI's derandomized fuzz (passthrough, 473 tokens): the last stored message answers ``t4``, a call
    made before the user turn that the loop follows. The repairs move it to follow its call, merged with
    the stubs of ``t5`` and ``t6`` into one user turn that opens with a marker; the loop (its opening's
    signed thinking, then ``t7``'s result) stays raw and whole. The moved result is not a step of the loop
    sent in a note: at every budget the compile is valid and keeps the loop as promised."""
    from context_journal.manager import ContextManager
    from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy

    msgs = [
        {"participant": "system", "content": [{"type": "text", "text": words(50)}]},
        _call("assistant", "t1", "t2", "t3"),
        {"participant": "tool", "content": [_shot("t1"), _shot("t2"), _shot("t3")]},
        _call("assistant", "t4", "t5", "t6"),
        {"participant": "user", "content": [{"type": "text", "text": "see"}, _PNG]},
        _call("assistant", "t7", thinking=True, cmd="step 0"),
        {"participant": "tool", "content": [_shot("t7")]},
        {"participant": "tool", "content": [{**_shot("t4"), "is_error": True}]},
    ]
    chosen = WindowedPassthroughStrategy(0.3) if strategy == "windowed" else PassthroughStrategy()
    _previews_keep_the_loop(msgs, chosen, [473, *range(380, 1400, 41)])
    if strategy == "windowed":
        return  # at 473 its window leaves ``t4``'s call out: the result is dropped as an orphan
    cm = ContextManager.open("memory:", strategy=chosen)
    stored = cm.add_messages(msgs)
    result = cm.preview_context(473, system="You are a careful agent.")
    sent = ids(result)
    assert "result_relocated" in {r.kind for r in result.repairs}
    moved = next(k for k, m in enumerate(result.messages) if stored[7] in {s.id for s in m.sources})
    assert moved < sent.index(stored[4]) < sent.index(stored[5]) < sent.index(stored[6])  # the loop raw, whole
    assert result.messages[sent.index(stored[5])].content[0] == msgs[5]["content"][0]


@pytest.mark.parametrize("name", ["passthrough", "windowed", "autobiographical"])
def test_a_message_written_while_the_loop_runs_does_not_split_it(name: str) -> None:
    """A review found: "ann" wrote between a call and its results inside a thinking-led loop; the loop
    was then taken to start after her message, at a step without thinking, and the compile sent that
    step raw as the newest turn (``running_turn_without_thinking`` at every budget). Her message is part
    of the running loop: the loop is kept raw up to it and the rest goes into a transcript that holds it."""
    msgs: list[dict[str, Any]] = [{"id": "ask", "role": "user", "content": "Fix the billing bug, " + words(20)}]
    for k in range(6):
        head = [{"type": "thinking", "thinking": words(40), "signature": "sig"}] if k == 0 else []
        use = {"type": "tool_use", "id": f"t{k}", "name": "open", "input": {"path": f"billing/m{k}.py"}}
        msgs.append({"id": f"a{k}", "role": "assistant", "content": [*head, use]})
        if k == 3:
            msgs.append({"id": "ann", "participant": "ann", "content": "Ann: the staging DB is down, careful."})
        msgs.append(
            {
                "id": f"r{k}",
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": words(60, k)}],
            }
        )
    cm = manager_for(msgs, counter=WordCounter(), strategy=_strategy(name, 3000))
    cm.drain()
    assert thinking_loop(cm)  # the loop from a0 (its thinking) to the end, Ann's message inside it
    for budget in (250, 400, 800, 3000, 100_000):
        result = _checked(cm, budget)
        if result is not None and budget >= 400:  # at 250 the transcript under its heading is cut too
            assert "staging DB is down" in str(result.to_anthropic())  # said, in the transcript


def test_a_transcript_does_not_count_an_orphan_result_as_a_step_left_out() -> None:
    """CI's fuzz: a loop holding a result of a call that is nowhere (``ghost0``) went whole into a
    transcript at 89 tokens, whose heading said one of its messages was not shown: the orphan the
    repairs dropped (and reported) is not a step of the loop."""
    from context_journal.strategies import WindowedPassthroughStrategy

    msgs = [_call("assistant", "t1", thinking=True, cmd="step 0"), {"participant": "tool", "content": [_shot("t1")]}]
    msgs += [_call("assistant", "t2", cmd="step 1"), {"participant": "tool", "content": [_shot("t2")]}]
    msgs += [{"participant": "tool", "content": [_shot("ghost0")]}]
    msgs += [_call("assistant", "t3", thinking=True, cmd="step 0"), {"participant": "tool", "content": [_shot("t3")]}]
    for k in range(4, 7):
        msgs += [_call("assistant", f"t{k}", cmd=f"step {k - 3}"), {"participant": "tool", "content": [_shot(f"t{k}")]}]
    _previews_keep_the_loop(msgs, WindowedPassthroughStrategy(0.3), (70, 89, 120, 200))


@pytest.mark.parametrize("name", ["passthrough", "windowed"])
def test_results_moved_into_an_interjection_are_named_by_the_transcript(name: str) -> None:
    """Fuzz: with a message written inside every step, each result was moved into that message's turn
    to follow its call; when those turns went into the transcript, only their own ids were its sources,
    so the results read as steps left out without a word. The transcript names what it holds."""
    from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy

    ann = {"participant": "ann", "content": [{"type": "text", "text": words(12)}]}
    msgs: list[dict[str, Any]] = [{"participant": "user", "content": [{"type": "text", "text": "see"}, _PNG]}]
    msgs += [{"participant": "user", "content": [{"type": "text", "text": "alpha0"}]}]
    for k in range(1, 4):
        msgs += [_call("assistant", f"t{k}", thinking=k == 1, cmd=f"step {k - 1}"), ann]
        msgs += [{"participant": "tool", "content": [_shot(f"t{k}")]}]
    strategy = PassthroughStrategy() if name == "passthrough" else WindowedPassthroughStrategy(0.3)
    _previews_keep_the_loop(msgs, strategy, range(100, 400, 16))


def test_a_loop_whose_thinking_is_unsigned_is_not_thinking_led() -> None:
    """Unsigned thinking cannot be replayed (every compile drops it), so a loop it opens is not held to
    open with it: found by the compile property test once thinking records of their own joined the turn."""
    from context_journal import ContextManager
    from context_journal.strategies import PassthroughStrategy
    from context_journal.validate import validate_messages
    from context_journal.views import running_turn_start

    for signature, start in (("", None), ("sig-b", 1)):
        cm = ContextManager.open("memory:", strategy=PassthroughStrategy())
        cm.add_message("user", "read this")
        thinking = {"type": "thinking", "thinking": "alpha0", "signature": signature}
        cm.add_message("assistant", [thinking, {"type": "text", "text": "x"}])
        cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "run", "input": {"cmd": "alpha0"}}])
        assert running_turn_start(cm._reader_view()) == start
        result = cm.preview_context(2000)
        assert validate_messages(result.as_messages(), thinking=start is not None) == []


@pytest.mark.parametrize("name", ["passthrough", "windowed"])
@pytest.mark.parametrize("result_words", [20, 150, 700])
def test_omitted_spans_name_only_messages_not_sent(name: str, result_words: int) -> None:
    """Fresh review: with a thinking-led running loop put back raw after selection, ``result.omitted``
    still named the strategy's span (messages 0-10 "older than the newest suffix that fits") though 4-10
    were sent. At every budget, an omitted span holds only messages no part of the context stands for,
    and with the loop's thinking or without, the counts agree with what was left out."""
    from context_journal.manager import ContextManager

    for thinking in (True, False):
        msgs: list[dict[str, Any]] = []
        for k in range(2):
            msgs += [
                {"participant": "user", "content": f"question {k}: " + words(30)},
                {"participant": "assistant", "content": f"answer {k}: " + words(30)},
            ]
        msgs.append({"participant": "user", "content": "now run the steps: " + words(10)})
        for k in range(6):
            msgs.append(_call("assistant", f"s{k}", thinking=thinking and k == 0, cmd=f"step {k}"))
            output = {"type": "tool_result", "tool_use_id": f"s{k}", "content": words(result_words)}
            msgs.append({"participant": "tool", "content": [output]})
        cm = ContextManager.open("memory:", strategy=strategy_named(name))
        cm.add_messages(msgs)
        order = [m.id for m in cm.get_all_messages()]
        for budget in (300, 800, 1500, 4000):
            try:
                result = cm.compile(max_tokens=budget)
            except OverBudgetError:
                continue
            shown = {s.id for m in result.messages for s in m.sources}
            for first, last, count, _reason in result.omitted:
                span = order[order.index(first) : order.index(last) + 1]
                assert len(span) == count
                assert not shown & set(span), (thinking, budget, first, last, sorted(shown & set(span)))
            left_out = [i for i in order if i not in shown]
            assert sum(o[2] for o in result.omitted) <= len(left_out)


@pytest.mark.parametrize("keep", [0, 1])
def test_older_turn_thinking_option_spares_every_step_of_the_running_loop(keep: int) -> None:
    """Fuzz (after every step of a running loop was checked, not only its opening): with
    ``keep_thinking_turns=0`` a later step's signed thinking was dropped as an older turn's, another
    participant's text between the steps counting as a new turn. The loop is one turn, every step of it kept
    whole; the turn before it loses its thinking as the option asks."""
    from context_journal.compile import CompileOptions
    from context_journal.manager import ContextManager

    def step(k: int, thinking: bool) -> dict[str, Any]:
        use = {"type": "tool_use", "id": f"t{k}", "name": "run", "input": {"cmd": f"step {k}"}}
        think = {"type": "thinking", "thinking": f"think {k}", "signature": f"sig{k}"}
        return {"participant": "assistant", "content": [think, use] if thinking else [use]}

    def result(k: int) -> dict[str, Any]:
        return {"participant": "tool", "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": "ok"}]}

    old = [{"type": "thinking", "thinking": "old", "signature": "sigOld"}, {"type": "text", "text": "done"}]
    msgs: list[dict[str, Any]] = [
        {"participant": "user", "content": "first"},
        {"participant": "assistant", "content": old},
        {"participant": "user", "content": "now run the steps"},
        step(1, True), result(1),
        step(2, True), {"participant": "ann", "content": "ann says hi"}, result(2),
        step(3, False), result(3),
    ]  # fmt: skip
    cm = ContextManager.open("memory:")
    cm.add_messages(msgs)
    result_ = cm.compile(4_000, options=CompileOptions(keep_thinking_turns=keep))
    assert_valid(result_, thinking=True)
    running_loop_kept_whole(cm, result_)
    sent = [b["signature"] for m in result_.messages for b in m.content if b.get("type") == "thinking"]
    assert sent == ["sig1", "sig2"]  # the turn before the loop is older than the newest `keep` turns


@st.composite
def _messy_loop(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A thinking-led running loop of 2-7 steps, some of them messy as stored transcripts are: a call never
    answered before the next step, a call reusing an earlier step's id, a stray result of no call."""
    steps = draw(st.integers(2, 7))
    msgs: list[dict[str, Any]] = [{"id": "ask", "role": "user", "content": "Fix the parser, " + words(10)}]
    for k in range(steps):
        head = [{"type": "thinking", "thinking": words(20), "signature": "sig"}] if k == 0 else []
        mess = draw(st.sampled_from(["plain", "plain", "unanswered", "reused", "stray"])) if k else "plain"
        tid = "t0" if mess == "reused" else f"t{k}"
        use = {"type": "tool_use", "id": tid, "name": "open", "input": {"path": f"src/m{k}.py"}}
        msgs.append({"id": f"a{k}", "role": "assistant", "content": [*head, use]})
        if mess == "stray":
            msgs.append({"id": f"x{k}", "role": "user", "content": [{"type": "tool_result", "tool_use_id": "nope"}]})
        if mess != "unanswered" or k == steps - 1:
            size = draw(st.integers(1, 200))
            result = {"type": "tool_result", "tool_use_id": tid, "content": words(size, k)}
            msgs.append({"id": f"r{k}", "role": "user", "content": [result]})
    return msgs


@pytest.mark.parametrize("name", ["passthrough", "windowed", "autobiographical"])
@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(msgs=_messy_loop(), budget=st.integers(60, 1_500))
def test_a_messy_loop_is_sent_whole_or_as_one_transcript(name: str, msgs: list[dict[str, Any]], budget: int) -> None:
    """A review's loop: a call never answered (the repairs give it an error result) ended the loop's raw run,
    and the steps after it went as a transcript after the raw opening, at every budget up to 100,000: a
    partial turn (B62). Calls never answered, reused ids and stray results inside the loop leave it raw whole
    or one transcript (the helper rejects a loop part raw and part in a note)."""
    cm = manager_for(msgs, counter=WordCounter(), strategy=_strategy(name, budget))
    result = _checked(cm, budget)
    if result is not None and budget >= 1_400:  # room for all of it: the whole loop raw
        assert "running_turn_transcribed" not in {r.kind for r in result.repairs}


def test_the_reviewed_unanswered_call_leaves_the_loop_raw() -> None:
    """The review's input: the opening, its result, a call never answered, then the newest step. At 100,000
    tokens every message goes raw (the stub answers the call in place); before, the newest step went as a
    transcript."""
    msgs: list[dict[str, Any]] = [
        {"id": "ask", "role": "user", "content": "Fix the parser"},
        _call("assistant", "t1", thinking=True),
        {"participant": "tool", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": words(200)}]},
        _call("assistant", "t2"),
        _call("assistant", "t3"),
        {"participant": "tool", "content": [{"type": "tool_result", "tool_use_id": "t3", "content": words(200, 1)}]},
    ]
    for name in ("passthrough", "windowed", "autobiographical"):
        cm = manager_for(msgs, counter=WordCounter(), strategy=_strategy(name, 100_000))
        result = cm.compile(100_000)
        assert_valid(result, WordCounter(), thinking=True)
        running_loop_kept_whole(cm, result)
        assert [r.kind for r in result.repairs] == ["result_stubbed"], name
        assert [m.role for m in result.messages] == ["user", *["assistant", "user"] * 3]


@pytest.mark.parametrize("records", [1, 3])
@pytest.mark.parametrize("name", ["passthrough", "windowed", "autobiographical"])
def test_the_question_comes_with_a_loop_after_records_of_its_speaker(name: str, records: int) -> None:
    """A review: the user asks, the assistant writes a text record ("Sure, looking."), then its signed thinking
    record and the calls (as Claude Code stores each block). Passthrough and windowed sent the loop raw at
    every budget from 375 to 565 with "[earlier turns omitted]" where the question was, and kept the text
    record. Whenever the loop's thinking is sent raw, the question is sent too."""
    msgs: list[dict[str, Any]] = [{"id": "q", "role": "user", "content": "Fix it."}]
    msgs += [{"id": f"x{k}", "role": "assistant", "content": f"Sure, looking ({k})."} for k in range(records)]
    msgs.append(
        {"id": "th", "role": "assistant", "content": [{"type": "thinking", "thinking": words(40), "signature": "s"}]}
    )
    for k in range(2):
        use = {"type": "tool_use", "id": f"t{k}", "name": "R", "input": {}}
        msgs.append({"id": f"a{k}", "role": "assistant", "content": [use]})
        answer = {"type": "tool_result", "tool_use_id": f"t{k}", "content": words(500, k)}
        msgs.append({"id": f"r{k}", "role": "user", "content": [answer]})
    cm = manager_for(msgs, counter=WordCounter(), strategy=_strategy(name, 2_000))
    raw_at = []
    for budget in range(100, 2_300, 25):
        result = _checked(cm, budget)
        if result is None:
            continue
        shown = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
        if "th" in ids(result):
            raw_at.append(budget)
            assert "q" in shown, budget
    assert raw_at and raw_at[-1] == 2_275  # the loop goes raw (at the largest budgets at least)
