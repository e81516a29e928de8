"""An excerpt is cut again when the context needs it, and the smallest context a compile finds keeps the
newest message readable.

A review found a never-summarised agent history (2,000 messages) failing at every budget from 82 to 111
tokens while 112 fitted, each failure naming a larger figure (134, 137, 140, ... 148 tokens: more than
the budget that fitted). The overflow reductions had excerpted the opening and the newest messages to
under 200 characters (50-54 tokens each), and an excerpt never cut a text that short again, so the water
level could not lower them. Once it could, the level sometimes landed below the newest message's smallest
readable excerpt and the compile failed between two budgets that fitted (93 fitted, 94 failed naming 95):
the newest message now takes its smallest readable excerpt as a last resort before the compile fails.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import CompileResult, ContextManager, OverBudgetError
from context_journal.rendering.repairs import QUOTED_OPENING, cuttable, excerpt_blocks, share_kept, text_tokens_kept
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy, PassthroughStrategy
from context_journal.tokens import EstimatingCounter
from tests.hypothesis_budget import examples

COUNTER = EstimatingCounter()

_SENTENCE = (
    "the build cache keeps every layer of the image until a tag moves and the runner prunes old entries after a week"
)
WORDS = tuple(_SENTENCE.split())


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _history(seed: int) -> ContextManager:
    """A never-summarised agent history: a rules message, plain turns and tool calls of random sizes, a
    question and a final answer (the autobiographical strategy, no summarizer)."""
    rng = random.Random(seed)
    history: list[dict[str, Any]] = [
        {"participant": "user", "content": "Project rules: " + _text(rng, rng.randint(5, 120))}
    ]
    for k in range(rng.randint(10, 60)):
        if rng.random() < 0.3:
            call = {
                "type": "tool_use",
                "id": f"t{k}",
                "name": "Bash",
                "input": {"command": _text(rng, rng.randint(1, 30))},
            }
            result = {"type": "tool_result", "tool_use_id": f"t{k}", "content": _text(rng, rng.randint(1, 300))}
            history += [{"participant": "assistant", "content": [call]}, {"participant": "user", "content": [result]}]
        else:
            history.append(
                {"participant": "user" if k % 2 else "assistant", "content": _text(rng, rng.randint(1, 150))}
            )
    history.append({"participant": "user", "content": _text(rng, rng.randint(1, 40))})
    history.append({"participant": "assistant", "content": _text(rng, rng.randint(1, 200))})
    config = AutobiographicalConfig.for_budget(rng.choice([300, 1000, 4000]))
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(config), summarizer=None)
    cm.add_messages(history)
    return cm


def _compile(cm: ContextManager, budget: int) -> CompileResult | OverBudgetError:
    try:
        return cm.compile(budget)
    except OverBudgetError as exc:
        return exc


def _smallest(cm: ContextManager, hi: int = 600) -> int:
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        if isinstance(_compile(cm, mid), OverBudgetError):
            lo = mid + 1
        else:
            hi = mid
    return lo


def _newest_readable(cm: ContextManager, result: CompileResult) -> None:
    """The newest stored message is in ``result`` and keeps at least a hundredth of its text, and so does
    the opening message (the rules) when it is sent on its own (not inside a note)."""
    stored = cm.get_all_messages()
    newest = stored[-1]
    sent = [m for m in result.messages if any(s.kind == "message" and s.id == newest.id for s in m.sources)]
    assert sent, "the newest message is not sent"
    assert share_kept(list(sent[-1].content), COUNTER) >= 0.01, sent[-1].content
    for m in result.messages:
        if [s.id for s in m.sources if s.kind == "message"] == [stored[0].id]:
            assert share_kept(list(m.content), COUNTER) >= 0.01, m.content


def test_an_excerpt_is_cut_again() -> None:
    """An excerpt of any length can be cut again (it holds a cut marker), and the marker states the cut
    against the original size; a short text with no marker is left whole."""
    counter = EstimatingCounter()
    long = " ".join(WORDS * 6)
    once = excerpt_blocks([{"type": "text", "text": long}], 0.1, counter, None)
    assert len(once[0]["text"]) < 200 and cuttable(once[0]["text"])
    again = excerpt_blocks(once, 0.3, counter, None)
    assert len(again[0]["text"]) < len(once[0]["text"])
    original = counter.count_block({"type": "text", "text": long})
    assert f"of {original} tokens cut here" in again[0]["text"]
    assert share_kept(again, counter) < share_kept(once, counter)
    assert not cuttable("a short note")
    assert excerpt_blocks([{"type": "text", "text": "a short note"}], 0.0, counter, None)[0]["text"] == "a short note"
    # A marker quoted inside a line is the user's text, not an excerpt of ours.
    quoted = "My log says: [… about 1000 of 1000 tokens cut here; the journal keeps the whole message …] what?"
    assert not cuttable(quoted) and cuttable(quoted.replace(": [", ":\n[").replace("] what", "]\nwhat"))


def test_a_short_message_quoting_a_marker_stays_whole() -> None:
    """A review's counterexample: a short newest message quoting a cut marker was taken for an excerpt and
    cut, and every failure below the smallest fitting budget (35) named one token more than its budget."""
    quoted = "My log says: [… about 1000 of 1000 tokens cut here; the journal keeps the whole message …] what?"
    cm = ContextManager.open("memory:", strategy=PassthroughStrategy())
    cm.add_messages(
        [
            {"participant": "user", "content": "hello " + " ".join(WORDS * 14)},
            {"participant": "assistant", "content": "ok"},
            {"participant": "user", "content": quoted},
        ]
    )
    smallest = _smallest(cm)
    # (Sent with the quoted marker opened by "[... ": it is the message's own text, not a cut.)
    assert cm.compile(smallest).messages[-1].content[0]["text"] == quoted.replace("[… ", QUOTED_OPENING)
    for budget in range(smallest - 8, smallest):
        failed = _compile(cm, budget)
        assert isinstance(failed, OverBudgetError) and failed.actual == smallest, (budget, failed)


def test_the_handed_history_fits_at_its_smallest_readable_context() -> None:
    """The review's shape (seed 7 here): before, the smallest budget that fitted was 116 and the failures
    below it named up to 150 tokens; the smallest now is the opening's and the newest answer's smallest
    readable excerpts with one note between them (at 93 tokens the opening went as its bare marker, until
    a review; at 129 it was set readable after the others were cut and they were not cut again), and every
    failure below it names at most four tokens more (the failed cut's figures, priced from a context cut
    another way)."""
    cm = _history(7)
    smallest = _smallest(cm)
    result = cm.compile(smallest)
    assert smallest == 97 and result.tokens == 97
    _newest_readable(cm, result)
    opening = result.messages[0].content
    kept, whole = text_tokens_kept(opening, COUNTER)
    # (The opening is cut last, with the newest answer by one level: its head and its tail, since issue 13's
    # "never excerpted while older middle content is kept raw" made it whole at any size in the head window.)
    assert opening[0]["text"].startswith("Proj\n[… about 57 of 58 tokens cut here") and kept / whole >= 0.01
    kinds = [m.sources[0].kind for m in result.messages]
    assert kinds == ["message", "synthetic", "message"], kinds
    for budget in range(smallest, smallest + 20):
        assert isinstance(_compile(cm, budget), CompileResult), budget
    for budget in (40, 70, 84, smallest - 1):
        failed = _compile(cm, budget)
        assert isinstance(failed, OverBudgetError)
        assert smallest <= failed.actual <= smallest + 4, (budget, failed.actual)


def _code(i: int, chars: int) -> str:
    """``chars`` characters of dense code (calls with numbered names: about two characters a token)."""
    calls = (f"fn_{(i * 7919 + j * 104729) % 99991}(x{j % 10})" for j in range(chars // 10 + 1))
    return " ".join(calls)[:chars]


def _blocks_history(strategy: str, blocks: int, chars: int, code: bool = False) -> ContextManager:
    """A review's shape: a request, a short answer and a newest message of ``blocks`` text blocks, each a
    note number and ``chars`` characters of prose (or of dense ``code``)."""
    cm = ContextManager.open("memory:", strategy=strategy, summarizer=None)
    cm.add_message("user", "Please review the design notes I will paste next.")
    cm.add_message("assistant", "Sure.")
    line = ("the cache keeps the newest entries and drops the oldest ones first " * 8)[:chars]
    texts = [_code(i, chars) if code else line for i in range(blocks)]
    cm.add_message("user", [{"type": "text", "text": f"Note {i}: " + text} for i, text in enumerate(texts)])
    return cm


def test_a_close_miss_sends_the_context_a_smaller_budget_fits() -> None:
    """The excerpts are drawn for the budget: windowed, a review's newest message of 60 blocks fitted 39
    and 41 tokens and failed at 40 needing 41. The compile now sends what a budget a little smaller fits,
    and reports the budget it was asked for."""
    cm = _blocks_history("windowed", 60, 150)
    at_39, at_40 = cm.compile(39), cm.compile(40)
    assert (at_40.max_tokens, at_40.budget) == (40, 40)
    assert at_40.tokens == at_39.tokens == 39
    assert at_40.messages == at_39.messages
    assert at_40.compile_id != at_39.compile_id and at_40.compile_id == cm.compile(40).compile_id
    failed = _compile(cm, 20)  # far from fitting: no smaller budget is tried, the failure is as it was
    assert isinstance(failed, OverBudgetError) and (failed.budget, failed.actual) == (20, 37)


@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["windowed", "passthrough", "autobiographical"]),
    st.integers(1, 80),
    st.integers(1, 500),
    st.booleans(),
)
# Each failed between budgets that fitted: 40 (39 and 41 fit), 1,660-1,666 (1,652-1,659 fit), 34 (33 fits).
@example("windowed", 60, 150, False)
@example("autobiographical", 65, 480, False)
@example("passthrough", 63, 19, False)
# Dense code: 1,636 fitted and 1,642-1,648 failed naming 1,755 (the newest message's smallest readable
# excerpt was priced a step of the ratio ladder too high: a tenth more of each of 60 blocks); 1,539 fits now.
@example("windowed", 60, 398, True)
def test_a_budget_above_the_smallest_fit_fits(strategy: str, blocks: int, chars: int, code: bool) -> None:
    """Over newest messages of many text blocks (prose or dense code), with every strategy: from the smallest
    budget that fits, the next fifteen fit too (a compile that missed its budget by a little once failed
    between two that fitted)."""
    cm = _blocks_history(strategy, blocks, chars, code)
    smallest = _smallest(cm, 20000)
    for budget in range(smallest, smallest + 15):
        result = _compile(cm, budget)
        assert isinstance(result, CompileResult), (budget, smallest, result)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
@example(691)  # fitted at 107, failed at 108 needing 109: the excerpts were drawn for 108 (now 108 fits too)
# 68 fitted, 51-63 failed naming 93: a head turn cut to its excerpt was priced as needing a note of its own to
# give way, where it joins the note right after it, so it stayed as its bare marker
@example(259)
def test_the_smallest_context_is_found_and_failures_do_not_overstate(seed: int) -> None:
    """Over generated never-summarised histories: from the smallest budget that fits, the next ten fit too,
    each sending the newest message readable; a failure below it never names more than that budget and a
    few tokens of cut-marker figures (before, up to 35 more)."""
    cm = _history(seed)
    smallest = _smallest(cm)
    for budget in range(smallest, smallest + 10):
        result = _compile(cm, budget)
        assert isinstance(result, CompileResult), (budget, smallest, result)
        _newest_readable(cm, result)
    for budget in {smallest - 1, smallest * 3 // 4}:
        failed = _compile(cm, budget)
        assert isinstance(failed, OverBudgetError)
        assert failed.actual <= smallest + 8, (budget, failed.actual, smallest)
