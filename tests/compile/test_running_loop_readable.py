"""A running tool loop opened by signed thinking is sent readable at every budget from the smallest that fits
(issue 13, kinds 1 and 2: "it shortens bulky tool results inside the turn before it drops any of the turn's
messages, and if that cannot fit it replaces the whole turn so far as one unit"; "no message is dropped that
would fit after reductions").

A review found, on a lagging history ending in a seven-step loop:

* the autobiographical compile failing at every budget from 100 to 640 tokens, where the windowed one sent
  the loop as a transcript from 120: the transcript, an origin-less note, was cut first, as the middle, and
  then failed as hollow while the head window's opening stood whole;
* from 650 tokens, six of the loop's seven results sent as bare cut markers beside its whole opening
  thinking: the loop's opening steps were cut as the middle that gives way first;
* a transcript held at 171 tokens at every budget from 170 to 640: cutting a text that joins several
  excerpts kept only what came before its first marker and after its last;
* beside the transcript, the turn the loop answers ("Go on, ...") and the chat turns the transcript made
  room for sent as their bare markers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import AutobiographicalConfig, AutobiographicalStrategy, CompileResult, ContextManager
from context_journal.compile import OverBudgetError
from context_journal.formats import import_into, read_transcript
from context_journal.rendering.repairs import excerpt_blocks, text_tokens_kept
from context_journal.tokens import EstimatingCounter
from tests.compile.compile_helpers import (
    WordCounter,
    _loop_strategy,
    assert_valid,
    bare_blocks,
    load_case,
    loop_history,
    manager_for,
    plain_words,
    running_loop_kept_whole,
    smallest_budget,
    words,
)
from tests.hypothesis_budget import examples

COUNTER = EstimatingCounter()
_MARKER = re.compile(r"\[… about (\d+) of (\d+) tokens cut here; the journal keeps the whole message …\]")


def _compile(cm: ContextManager, budget: int) -> CompileResult | None:
    try:
        return cm.compile(budget)
    except OverBudgetError:
        return None


def _check(cm: ContextManager, result: CompileResult, budget: int) -> None:
    assert result.tokens <= budget
    assert_valid(result, COUNTER, thinking=True)
    running_loop_kept_whole(cm, result)
    assert not bare_blocks(result), (budget, bare_blocks(result))


@pytest.mark.parametrize("name", ["autobiographical", "windowed", "passthrough"])
def test_the_reviewed_loop_fits_readable_from_its_smallest_budget(name: str) -> None:
    """The review's history (six chat turns, seven results of 60 words): every budget from the smallest
    that fits to the whole history fits, sends no stored block as its bare marker, and keeps the loop from
    its opening or as one transcript. (Autobiographical: it failed from 100 to 640 tokens, and sent six
    results bare from 650.)"""
    cm = loop_history(name, 6, 7, [60])
    whole = cm.compile(100_000).tokens
    smallest = smallest_budget(cm, whole)
    assert smallest <= 270  # (260 autobiographical, 170 the others, with the question kept readable)
    for budget in range(smallest, whole + 1, 37):
        result = _compile(cm, budget)
        assert result is not None, (budget, smallest)
        _check(cm, result, budget)


def test_a_transcript_fills_the_room_it_is_given() -> None:
    """The loop's transcript grows with the budget (it stood at 171 tokens from 170 to 640): at 400 and 600
    tokens the context uses more than 95% of the budget (521 of 600 before a cut by a water level that landed
    under the room was raised again), and the newest result's end is there. The
    head window's opening message is sent whole beside it (it went as "al [… about 99 of 101 tokens cut
    here …] 29" at both budgets, 85 tokens of 400 unused, while the transcript held 173 and 378: the opening
    was cut before the newest messages, the transcript among them, where now one level cuts them all)."""
    cm = loop_history("autobiographical", 6, 7, [60])
    sent = []
    for budget in (400, 600):
        result = cm.compile(budget)
        _check(cm, result, budget)
        transcript = [m for m in result.messages if any(s.id == "running turn" for s in m.sources)]
        assert transcript, budget
        assert result.tokens > 0.95 * budget, (budget, result.tokens)
        sent.append(sum(m.tokens for m in transcript))
        assert words(60, 6).split()[-1] in transcript[0].content[-1]["text"]  # the newest result's last word
        [opening] = [m for m in result.messages if m.sources[0].id == "c0"]
        assert list(opening.content) == [{"type": "text", "text": words(30, 0)}], budget
    assert sent[1] > sent[0] + 100


def test_the_rules_are_not_cut_below_the_transcript() -> None:
    """A review compiled a lagging history opened by 150 words of rules and ending in a five-step loop of
    150-word results: at every budget from 200 to 1,400 tokens the rules went as "Project [… about 493 of
    498 tokens cut here …] n149" (5 tokens kept) beside the loop's transcript at up to 1,225 tokens. The
    opening message was cut before the newest messages, where now one level cuts them: the rules keep at
    least a third of what the transcript takes (all of themselves once they fit), and grow with the budget.
    The loop goes raw only beside the rules whole (from 1,200 tokens, its older results at their readable
    floors and the newest cut toward its own: it went raw from 1,550 before, once the newest result fitted
    as the budget drew it), and never as its transcript again above that (see
    :func:`test_a_loop_sent_raw_stays_raw_budget_by_budget`)."""
    strategy = AutobiographicalStrategy(AutobiographicalConfig())
    cm = ContextManager.open("memory:", strategy=strategy)
    history: list[dict[str, Any]] = [
        {"participant": "user", "content": "Project rules: " + words(150, 7), "id": "rules"},
        {"participant": "assistant", "content": "Understood.", "id": "ok"},
        *(
            {"participant": "user" if k % 2 == 0 else "assistant", "content": words(30, k), "id": f"c{k}"}
            for k in range(4)
        ),
        {"participant": "user", "content": "Go on, " + words(20), "id": "ask"},
    ]
    opening = {"type": "thinking", "thinking": words(40), "signature": "sig"}
    for k in range(5):
        use = {"type": "tool_use", "id": f"t{k}", "name": f"tool{k}", "input": {"arg": words(3, k)}}
        history.append({"participant": "assistant", "content": [opening, use] if k == 0 else [use], "id": f"a{k}"})
        answer = {"type": "tool_result", "tool_use_id": f"t{k}", "content": words(150, k)}
        history.append({"participant": "user", "content": [answer], "id": f"r{k}"})
    cm.add_messages(history)
    kept_by_budget = []
    raw = []
    for budget in range(400, 1_600, 100):
        result = cm.compile(budget)
        _check(cm, result, budget)
        [rules] = [m for m in result.messages if m.sources[0].id == "rules"]
        kept, whole = text_tokens_kept(list(rules.content), COUNTER)
        transcript = sum(m.tokens for m in result.messages if any(s.id == "running turn" for s in m.sources))
        raw.append(_raw_whole(result))
        assert transcript or (raw[-1] and kept == whole), (budget, kept)
        assert kept >= min(whole, transcript / 3), (budget, kept, transcript)
        kept_by_budget.append(kept)
    assert kept_by_budget == sorted(kept_by_budget) and kept_by_budget[-1] == whole, kept_by_budget
    assert not raw[0] and raw[-1] and raw == sorted(raw), raw  # a transcript up to a budget, raw from it


@pytest.mark.parametrize("name", ["passthrough", "windowed", "autobiographical"])
def test_a_later_step_keeps_its_signed_thinking(name: str) -> None:
    """A review's loop: the second step's signed thinking (sigB, 300 words) came before a long text and a
    call; at 400 and 600 tokens its excerpt dropped the thinking and kept the call (only sigA was sent).
    Every step of the loop holding thinking now keeps it byte for byte, or the loop goes as its transcript
    (a loop is never sent raw with steps left out: at 400-600 passthrough and windowed once sent its opening
    and newest steps with a note naming the steps between)."""
    cm = ContextManager.open("memory:", strategy=_loop_strategy(name))
    cm.add_message("user", "Find every caller of parse_amount and make it reject negatives.")
    grep = {"type": "tool_use", "id": "g1", "name": "grep", "input": {"p": "x"}}
    cm.add_message("assistant", [{"type": "thinking", "thinking": "Plan: grep first.", "signature": "sigA"}, grep])
    cm.add_message(
        "user", [{"type": "tool_result", "tool_use_id": "g1", "content": "billing/a.py:12 parse_amount(x)\n" * 40}]
    )
    second = {"type": "thinking", "thinking": "Second thought: " + "check refund. " * 60, "signature": "sigB"}
    text = {"type": "text", "text": "Now I open the refund module. " * 30}
    cm.add_message(
        "assistant", [second, text, {"type": "tool_use", "id": "o1", "name": "open", "input": {"p": "r.py"}}]
    )
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "o1", "content": "def refund(x): ...\n" * 40}])
    for k in range(2, 6):
        cm.add_message("assistant", [{"type": "tool_use", "id": f"s{k}", "name": "open", "input": {}}])
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"s{k}", "content": "def m(x): ...\n" * 30}])
    for budget in (400, 500, 600, 700, 800, 1_000):
        result = cm.compile(budget)
        _check(cm, result, budget)
        sent = [dict(b) for m in result.messages for b in m.content if b.get("type") == "thinking"]
        first = dict(cm.get_all_messages()[1].content_dicts()[0])
        assert sent in ([], [first], [first, second]), (budget, sent)


def test_the_loop_is_not_cut_as_the_middle() -> None:
    """Bug case B62's shape, nothing summarised: three results of 600, 700 and 700 words. At 450-550 tokens
    (the default estimate) the first two went as their bare markers while the newest kept 65-137 tokens,
    and with the bug case's word counter at 300 tokens the first did while the others kept about a hundred
    each: the loop's opening steps lay in the middle that gives way first. Now each raw result keeps some
    of its text, or the loop goes as one transcript."""
    cm = loop_history("autobiographical", 0, 3, [600, 700, 700])
    for budget in (450, 500, 550, 700, 900):
        result = cm.compile(budget)
        _check(cm, result, budget)
        results = [b for m in result.messages for b in m.content if b.get("type") == "tool_result"]
        assert all(text_tokens_kept([b], COUNTER)[0] >= 10 for b in results), budget
    assert len(results) == 3  # raw at 900
    case = load_case("B62")
    strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(300))
    b62 = manager_for(case["messages"], counter=WordCounter(), strategy=strategy)
    result = b62.compile(300)
    assert not bare_blocks(result)
    kept = [
        text_tokens_kept([b], WordCounter())[0]
        for m in result.messages
        for b in m.content
        if b.get("type") == "tool_result"
    ]
    assert len(kept) == 3 and min(kept) >= 40, kept


@pytest.mark.parametrize("drained", [False, True])
def test_a_loop_with_one_huge_result_fits_readable_from_its_smallest_budget(drained: bool) -> None:
    """A review's history: six chat turns, the question, one step whose result is a 12,771-token log, under
    ``AutobiographicalConfig.for_budget(2000)``. It sent the result as "[… about 12771 of 12771 tokens cut
    here …]" at 230-250 tokens (the overflow excerpts the loop was drawn with, and the last cut, emptied it
    unnoticed) and failed at 270-300, each time naming the budget plus one. Now every budget from the
    smallest that fits (150) fits, and the result always keeps some of its text."""
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(AutobiographicalConfig.for_budget(2000)))
    for i in range(6):
        text = f"Earlier turn {i}: " + "we discussed the harbour database migration plans " * 5
        cm.add_message("user" if i % 2 == 0 else "assistant", text)
    cm.add_message("user", "Why does deploy of service-alpha fail on staging? Please investigate.")
    plan = {"type": "thinking", "thinking": "Let me plan: read the config, then the log. " * 5, "signature": "c2ln"}
    call = {"type": "tool_use", "id": "toolu_0", "name": "Read", "input": {"path": "/srv/app/file_0.log"}}
    cm.add_message("assistant", [plan, call])
    log = "\n".join(
        f"line {k} of file_0: ERROR connection refused at 10.0.0.{k} port 5432 retry {k}" for k in range(400)
    )
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "toolu_0", "content": log}])
    if drained:
        cm.drain()
    smallest = smallest_budget(cm, 600)
    assert smallest <= 200
    for budget in range(smallest, 600, 10):
        result = _compile(cm, budget)
        assert result is not None, (budget, smallest)
        _check(cm, result, budget)


def test_a_text_of_joined_excerpts_is_cut_as_a_new_text() -> None:
    """A text holding several cut markers (a transcript of results each cut) is cut by the share asked,
    never inside a marker, its new marker stating the cuts it folds in; its share kept counts each marker
    (read as one text cut again, seven results cut to half counted as keeping nothing)."""
    parts = [
        f"step {k}: "
        + words(40, k)
        + f"\n[… about 50 of 100 tokens cut here; the journal keeps the whole message …]\nend {k}"
        for k in range(7)
    ]
    text = "\n".join(parts)
    kept, whole = text_tokens_kept([{"type": "text", "text": text}], COUNTER)
    assert whole - kept == 350 and 0 < kept < whole  # seven cuts of 50, the rest kept
    sizes = []
    for ratio in (0.1, 0.3, 0.5, 0.8):
        out = excerpt_blocks([{"type": "text", "text": text}], ratio, COUNTER, None)[0]["text"]
        assert "[… about" not in _MARKER.sub("", out)  # no marker split
        sizes.append(len(out))
        markers = [(int(a), int(b)) for a, b in _MARKER.findall(out)]
        assert sum(cut for cut, _ in markers) >= 350  # the folded cuts are stated, not lost
        assert out.startswith("step 0:") and out.endswith("end 6")
    assert sizes == sorted(sizes) and sizes[-1] > 2 * sizes[0]


_History = tuple[str, int, int, list[int | tuple[int, ...]], int, bool, int, bool]
""":func:`loop_history`'s arguments: strategy, chat turns, steps, result sizes (a tuple: parallel calls),
thinking words, Claude Code's calls, words per chat turn, plain words."""


@st.composite
def _histories(draw: st.DrawFn) -> _History:
    name = draw(st.sampled_from(["autobiographical", "windowed", "passthrough"]))
    plain = draw(st.booleans())  # about a token a word: chat turns of 10-60 tokens, thinking up to ~360
    size = st.sampled_from([1, 5, 20, 40, 60, 150, 200, 400, 600, 700])
    # A step of two or three parallel calls answered by one message of their results (a review's loops).
    parallel = st.lists(size, min_size=2, max_size=3).map(tuple)
    sizes: list[int | tuple[int, ...]] = draw(st.lists(st.one_of(size, parallel), min_size=1, max_size=3))
    steps, thinking = draw(st.integers(1, 8)), draw(st.integers(5, 300 if plain else 120))
    chat, chat_words = draw(st.integers(0, 8)), draw(st.sampled_from([3, 10, 25, 30, 40]))
    return name, chat, steps, sizes, thinking, draw(st.booleans()), chat_words, plain


@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_histories())
@example(("autobiographical", 6, 2, [400], 37, False, 30, False))  # two of 90 scanned histories that sent the
@example(("autobiographical", 4, 4, [1, 400, 1], 55, False, 30, False))  # loop raw, then transcribed it with
@example(("autobiographical", 4, 3, [700, 600, 650], 120, False, 30, False))  # more room (see the test below)
@example(("autobiographical", 1, 2, [400, 700], 90, True, 30, False))
@example(("passthrough", 4, 1, [5], 300, False, 30, True))  # an older turn entering (see the test below)
@example(("autobiographical", 1, 5, [60], 21, False, 30, False))  # a cut past the level (see the test below)
@example(("windowed", 3, 4, [(40, 700), (40, 200), 40, 40], 7, False, 3, True))  # parallel calls (see below)
def test_every_budget_above_the_smallest_keeps_the_loop_readable(history: _History) -> None:
    """Over generated lagging histories ending in a thinking-led loop, at budgets from the smallest that fits
    up to the whole history (the next 8, then 24 evenly spread): each compile keeps the loop from its opening
    or as one transcript and sends no stored block as its bare marker, and from a tenth of the way up every
    budget fits. (The property found a windowed history fitting at 80 tokens and failing at 81: the compile
    judged the transcript by its characters, without its heading, and the cuts by their markers, with it.
    A passthrough one fitted at 134 and 135 tokens and failed at 136 and 137 until the transcript was judged
    as a result is, by the tokens it keeps too; none of 120 generated histories fails above its smallest
    now, but the bound asserted stays a tenth of the way up: see the closing note of issue 13.) And once a
    compile sends the loop raw from its opening with every step, every compile with more room does too: more
    room is never spent on older turns at the loop's cost (two of 90 scanned histories broke that before the
    loop's steps were cut after the head window's turns). The histories hold results of up to 700 words, and
    half of them Claude Code's calls, so the working-state block is rendered beside the loop (see
    :func:`test_a_loop_sent_raw_stays_raw_budget_by_budget`). Half of them are of plain words (about a token
    each), with chat turns of 3-40 words before the question, and from the first budget that sends the loop
    raw the next 160 are compiled 2 apart: as the budget grows the strategy takes one more older turn, and
    the loop, no longer fitting raw beside it, was transcribed where that turn gives way now (see
    :func:`test_an_older_turn_gives_way_to_the_raw_loop`). Steps make two or three parallel calls too, and chat
    turns are as short as 3 words (a fresh review's shapes: see
    :func:`test_a_loop_of_parallel_calls_sent_raw_stays_raw_budget_by_budget`)."""
    name, chat, steps, sizes, thinking, tools, chat_words, plain = history
    cm = loop_history(name, chat, steps, sizes, thinking, tools=tools, chat_words=chat_words, plain=plain)
    whole = cm.compile(1_000_000).tokens
    smallest = smallest_budget(cm, whole)
    spread = max(1, (whole - smallest) // 24)
    forms: list[tuple[int, bool]] = []
    budgets = [*range(smallest, smallest + 8), *range(smallest + 8, whole + 1, spread)]
    for budget in budgets:
        result = _compile(cm, budget)
        forms.append((budget, result is not None and _raw_whole(result)))
        if result is None:
            assert budget < smallest + (whole - smallest) // 10, (budget, smallest, whole)
            continue
        _check(cm, result, budget)
    first = next((k for k, (_, raw) in enumerate(forms) if raw), len(forms))
    assert all(raw for _, raw in forms[first:]), forms
    if first < len(forms):
        start = forms[first][0]
        for budget in range(start + 1, min(whole, start + 160) + 1, 2):
            result = _compile(cm, budget)
            assert result is not None and _raw_whole(result), (budget, start)


def test_an_autobiographical_loop_sent_raw_stays_raw_with_more_room() -> None:
    """CI's lowest-dependency run drew this history for the property above: autobiographical sent its loop
    raw whole at 161 tokens and as a transcript at 169-233 (raw again from 241). At 161 the cut had left
    the question at its smallest excerpt ("al [… about 99 of 101 tokens cut here …] 29") and given the
    loop's first result the token left ("[… about 66 of 67 tokens cut here …] 9"); with more room the
    question kept more and that result went down to its bare marker, so the loop was transcribed. A result
    of the running loop keeping under a tenth of itself and under 16 tokens now says nothing, as one
    keeping none does: from the first budget that sends the loop raw, every larger one does, and none
    sends a result so cut."""
    cm = loop_history("autobiographical", 1, 2, [20, 1], 5)
    forms = []
    for budget in range(140, 400, 3):
        result = _compile(cm, budget)
        assert result is not None, budget
        _check(cm, result, budget)
        forms.append(_raw_whole(result))
    first = forms.index(True)
    assert not any(forms[:first]) and all(forms[first:]), forms
    assert 140 + 3 * first <= 270


@pytest.mark.parametrize(
    ("history", "low", "high"),
    [
        ((4, 3, [700, 600, 650], 120, False), 1_150, 1_200),
        ((0, 4, [150, 700, 400], 21, False), 600, 660),
        ((1, 2, [400, 700], 90, True), 740, 900),
        ((1, 1, [650], 116, True), 500, 600),
    ],
)
def test_a_loop_sent_raw_stays_raw_budget_by_budget(
    history: tuple[int, int, list[int], int, bool], low: int, high: int
) -> None:
    """Histories of a review's shape (a few chat turns, the question, loops of 400-700-word results), scanned
    one token apart, autobiographical. Before, the first went raw at 1,171-1,173 tokens, as its transcript at
    1,174 and raw from 1,175: its older results stood at 16 tokens of about 2,000 by the loop's water level,
    and one token less of the level's granularity left one under the line where a result says nothing. The
    second went raw at 629, a transcript at 630-632 and 636, the same way. With Claude Code's calls (the
    working state then holds files and commands, and the working-state block is rendered): the third went raw
    at 762, a transcript at 763-766 and 768-770, raw, a transcript at 794-821 and again from 860 where the
    block entered (its allowance, a share of the budget, crossing what its smallest render takes) and took
    the room the results had, being cut only after them; the fourth, a one-step loop, a transcript at 530-534
    and 574-587 so. Now the loop's results are cut by a level that stops at each one's readable floor (the
    smallest excerpt keeping 16 tokens or a tenth of it), the block gives way, then the newest result is cut
    toward its own floor, before a result is cut below its floor (the opening message and the question are
    never cut for it): whether the loop goes raw follows what its floors need, which more room never
    undoes."""
    chat, steps, sizes, thinking, tools = history
    cm = loop_history("autobiographical", chat, steps, sizes, thinking, tools=tools)
    forms = []
    for budget in range(low, high):
        result = _compile(cm, budget)
        assert result is not None, budget
        _check(cm, result, budget)
        forms.append(_raw_whole(result))
    assert True in forms
    first = forms.index(True)
    assert all(forms[first:]), [low + k for k, raw in enumerate(forms) if k > first and not raw]


_SEED46 = [40, 40, 40, (200, 700), 200]
"""A fresh review's seed 46: results of 40 words, a step of two parallel calls answered by results of 200 and 700
words, then a result of 200 words (its generator is lost: these are :func:`loop_history`'s words)."""


@pytest.mark.parametrize(
    ("name", "history", "plain", "low", "high", "first"),
    [
        ("windowed", (2, 5, _SEED46, 5), False, 900, 1_010, 905),
        ("passthrough", (2, 5, _SEED46, 5), False, 900, 1_010, 905),
        ("autobiographical", (2, 5, _SEED46, 25), True, 590, 650, 595),
        ("windowed", (0, 5, [40, 40, (5, 40, 700), 200, (40, 700, 5)], 7), True, 1_080, 1_130, 1_080),
        ("autobiographical", (0, 5, [40, 40, (5, 40, 700), 200, (40, 700, 5)], 7), True, 1_080, 1_130, 1_080),
        ("passthrough", (0, 5, [40, 40, (5, 40, 700), 200, (40, 700, 5)], 7), True, 1_080, 1_130, 1_080),
        ("windowed", (3, 4, [(40, 700), (40, 200), 40, 40], 7), True, 500, 660, 502),
    ],
)
def test_a_loop_of_parallel_calls_sent_raw_stays_raw_budget_by_budget(
    name: str, history: tuple[int, int, list[int | tuple[int, ...]], int], plain: bool, low: int, high: int, first: int
) -> None:
    """Loops of a fresh review's shape (chat turns of 3 words, the question, a loop whose steps make parallel
    calls), scanned one token apart. Before, the first went raw at 943 tokens and as its transcript at 944
    (windowed, passthrough); of plain words, autobiographical, raw at 615 and a transcript at 616; the last,
    with steps of three parallel calls, raw at 1,080-1,091 and then raw and a transcript alternating up to
    1,126 with every strategy (the review saw seed 46 flip about 13 times between 704 and 803 so); the last,
    raw from 592 and a transcript at 596-611, 620-631 and 640-647. A step
    of parallel results over the overflow cap stands as the excerpt the budget drew (its results cut by one
    share), and its readable floor was cut from that excerpt: it grew with the budget (183 tokens at 943, 185
    at 944), and the loop no longer fitted raw. The floor is now cut from the step as written, so it is the
    same at every budget; and once the loop's water level stops at the largest floor with the context still
    over, every step over the level stands at its own floor: left where its ratio landed, a step stood at its
    floor (91 tokens) at 543 where its excerpt said nothing and at the level (152) at 544 where it kept a
    little more, and the loop no longer fitted raw. From the first budget that sends the loop raw, every
    larger one does."""
    chat, steps, sizes, thinking = history
    cm = loop_history(name, chat, steps, sizes, thinking, chat_words=3, plain=plain)
    forms = []
    for budget in range(low, high):
        result = _compile(cm, budget)
        forms.append(result is not None and _raw_whole(result))
        if result is not None and budget % 25 == 0:
            _check(cm, result, budget)
    start = forms.index(True)
    assert all(forms[start:]), [low + k for k, raw in enumerate(forms) if k > start and not raw]
    assert low + start == first


def test_an_older_turn_gives_way_to_the_raw_loop() -> None:
    """A review's passthrough history: two chat turns (four messages of 30 plain words), the question and a
    one-step loop opened by 300 words of signed thinking, its result 5 words. Scanned one token apart, the
    loop went raw at 437-478, as its transcript at 479-488 (131 tokens sent of 479), raw at 489-561, a
    transcript at 562-571 and raw from 572: at 479 the strategy took the newest chat turn (with the user
    turn its repairs put before it, which its selection did not price), the loop no longer fitted raw
    beside it, and the compile transcribed the loop instead of leaving that turn out. Older history now
    gives way to the running turn before it is transcribed: raw at every budget from 437, the older turns
    left out at 479-488 and 562-571 (the newest one, then the next), and the compile renders a few
    selections at most (the strategy's smallest one, tried once, then the most older history that
    fits)."""
    cm = loop_history("passthrough", 4, 1, [5], 300, plain=True)
    assert _compile(cm, 436) is not None and not _raw_whole(cm.compile(436))  # (the smallest raw budget)
    sent: dict[int, list[str | None]] = {}
    for budget in range(437, 700):
        result = cm.compile(budget)
        _check(cm, result, budget)
        assert _raw_whole(result), budget
        assert result.stats["passes"] <= 4, (budget, result.stats)
        sent[budget] = [s.id for m in result.messages for s in m.sources if s.kind == "message"]
    # Where the loop was transcribed, the turn that entered gives way: the same messages as one token before.
    assert all(sent[b] == sent[478] == ["ask", "a0", "r0"] for b in range(479, 489)), sent
    assert all(sent[b] == sent[561] == ["c2", "c3", "ask", "a0", "r0"] for b in range(562, 572)), sent
    assert sent[699] == ["c0", "c1", "c2", "c3", "ask", "a0", "r0"]


def test_a_head_turn_gives_way_to_the_raw_loop() -> None:
    """The autobiographical kind of :func:`test_an_older_turn_gives_way_to_the_raw_loop`, drawn by its property
    (eight chat messages of 30 plain words, nothing summarised: the head window holds them all; a five-step
    loop opened by 202 words of thinking, results of 5, 1 and 150 words). Scanned one token apart, the loop
    went raw at 596-614, as its transcript at 615-632, raw at 633-634, a transcript at 635, then raw and a
    transcript alternating every 21 tokens up to 847 (raw from 848): at 614 the head window's turns c1-c3
    went into the note of the middle, at 615 the cut kept c1 whole and cut the loop's 150-word result until
    it said nothing, so the loop was transcribed. The head window's turns now give way whole before a result
    of the loop goes silent, as they do before one of them is cut to next to nothing: raw at every budget
    from 596 to 860, the same messages at 615 as at 614. Raw at 593 and a transcript at 594-595 remained: with
    nothing older to give way, the level cut the 150-word result to 50 tokens at 593 and to 49, saying nothing,
    at 594; a result now stands at its floor where its excerpt would land over the level (see
    :func:`test_a_result_cut_past_the_level_stands_at_its_floor`), and the loop is raw from 592."""
    cm = loop_history("autobiographical", 8, 5, [5, 1, 150], 202, plain=True)
    sent: dict[int, list[str | None]] = {}
    for budget in range(592, 861):
        result = cm.compile(budget)
        assert _raw_whole(result), budget
        if budget in (614, 615, 860):
            _check(cm, result, budget)
            sent[budget] = [s.id for m in result.messages for s in m.sources if s.kind == "message"]
    assert sent[615] == sent[614] and "c1" in sent[614] and "c1" in sent[860], sent


def test_a_result_cut_past_the_level_stands_at_its_floor() -> None:
    """Drawn by the property above without CI's fixed seed (one chat turn of 30 words, a five-step loop of
    60-word results opened by 21 words of thinking, autobiographical): the loop went raw at 620-699, as its
    transcript at 700-735, raw from 736. The level that cuts the loop's steps to their floors (50 tokens)
    cut each 209-token result by a ratio; at 699 that kept 50 tokens of each, at 700, where the draw left
    the results a token longer, 80 of two of them, over the level, and the loop no longer fitted raw.
    A result whose excerpt lands over the level now stands at its floor: raw at every budget from 620."""
    cm = loop_history("autobiographical", 1, 5, [60], 21)
    for budget in range(620, 800):
        result = cm.compile(budget)
        assert _raw_whole(result), budget
        if budget in (699, 700, 799):
            _check(cm, result, budget)


@pytest.mark.parametrize("name", ["passthrough", "windowed", "autobiographical"])
def test_the_loop_s_opening_keeps_its_thinking_at_its_smallest_readable_excerpt(name: str) -> None:
    """A fresh review's history: five chat messages (the question 400 words), then a one-step loop whose
    opening holds 250 words of thinking, 33 of text and two calls. At 486-505 tokens every strategy's compile
    failed its own validation (``running_turn_without_thinking``): the newest unit, cut to next to nothing,
    was given its smallest readable excerpt, which dropped the opening's thinking. That excerpt keeps the
    thinking byte for byte now, as every other cut of the opening does."""
    cm = ContextManager.open("memory:", strategy=name)
    chat = [("user", 30), ("assistant", 5), ("user", 120), ("assistant", 30), ("user", 400)]
    msgs: list[dict[str, Any]] = [{"participant": who, "content": plain_words(n, k)} for k, (who, n) in enumerate(chat)]
    thinking = {"type": "thinking", "thinking": plain_words(250, 9), "signature": "sig"}
    calls = [{"type": "tool_use", "id": f"t{j}", "name": "Read", "input": {"file_path": f"/a/{j}.py"}} for j in (0, 1)]
    msgs.append(
        {"participant": "assistant", "content": [thinking, {"type": "text", "text": plain_words(33, 5)}, *calls]}
    )
    results = [
        {"type": "tool_result", "tool_use_id": f"t{j}", "content": plain_words(n, j)} for j, n in ((0, 40), (1, 3))
    ]
    msgs.append({"participant": "user", "content": results})
    cm.add_messages(msgs)
    for budget in [*range(300, 470, 17), *range(470, 530), *range(530, 1_400, 37)]:
        result = _compile(cm, budget)
        if result is not None:
            _check(cm, result, budget)
            sent = [b for m in result.messages for b in m.content if b.get("type") == "thinking"]
            assert sent in ([], [thinking]), budget  # (none: the loop went as its transcript)


def _raw_whole(result: CompileResult) -> bool:
    """Whether ``result`` sends the running loop raw from its thinking opening with every step: none
    transcribed (nor, as a compile once did, left out: ``running_turn_gap``)."""
    kinds = {r.kind for r in result.repairs}
    thinking = any(b.get("type") == "thinking" for m in result.messages for b in m.content)
    return thinking and not kinds & {"running_turn_gap", "running_turn_transcribed"}


def _tool_heavy_loop(data_dir: Path, tmp_path: Path) -> Path:
    """A store of ``tool_heavy.jsonl`` cut inside its loop: the user asks ("scrolling back in xterm.js ..."),
    then two steps of a loop opened by signed thinking, no final answer yet."""
    read = read_transcript(data_dir / "claude-code-sessions" / "tool_heavy.jsonl", format="claude-code")
    [conversation] = read.conversations
    conversation.messages = conversation.messages[:14]
    assert conversation.messages[10].content[0]["signature"]  # type: ignore[index]
    import_into(tmp_path / "s.db", read)
    return tmp_path / "s.db"


@pytest.mark.parametrize("name", ["passthrough", "windowed"])
def test_the_question_the_loop_answers_is_sent_with_it(data_dir: Path, tmp_path: Path, name: str) -> None:
    """A review compiled that store with passthrough at 590-610 tokens: the window opened on the loop's
    thinking and the question it answers was left out ("[earlier turns omitted]"), where the README says it
    never gives way. At every budget from 500 to 700 that fits, the question is sent."""
    cm = ContextManager.open(_tool_heavy_loop(data_dir, tmp_path), strategy=name)
    for budget in range(500, 710, 10):
        result = cm.compile(budget)
        _check(cm, result, budget)
        texts = [b.get("text", "") for m in result.messages for b in m.content if b.get("type") == "text"]
        assert any(t.startswith("scrolling back in xterm.js") for t in texts), (budget, texts)


def test_a_loop_sent_raw_stays_raw_with_more_room(data_dir: Path, tmp_path: Path) -> None:
    """A review compiled a real session (``tool_heavy.jsonl``) cut inside its thinking-led loop: the
    autobiographical compile sent the loop raw at 850-900 tokens, as its transcript at 950-1,100, raw at
    1,150-1,200, a transcript again at 1,250-1,350. The head window grows with the budget, and its turns were
    cut after the loop's results (by one water level with the middle), so at 950 a result went down to its
    bare marker beside whole head turns and the loop was transcribed. The loop's steps are now cut after
    the head window's turns, before its opening message; from the first budget the loop goes raw whole, it
    goes so at every larger one. (Budget by budget, it went raw at 812, as its transcript at 814 and raw
    from 816, the first result keeping 1 token at 812: such a result now says nothing, see
    :func:`test_an_autobiographical_loop_sent_raw_stays_raw_with_more_room`.)"""
    cm = ContextManager.open(_tool_heavy_loop(data_dir, tmp_path), strategy="autobiographical")
    budgets = sorted({*range(600, 1_700, 50), *range(780, 860, 2)})
    raw = [b for b in budgets if _raw_whole(cm.compile(b))]
    assert raw and raw == [b for b in budgets if b >= raw[0]], raw
    assert raw[0] <= 900
