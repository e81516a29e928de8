"""The compile loop stops early: a selection the last pass rendered is not rendered again, the loop
ends once the strategy's smallest selection is the one it has, and a compile whose cheapest valid cover (priced
from the index) cannot fit fails before rendering. Outputs are the same as the loop without these shortcuts
(``context_journal.compile._SHORTCUTS = False``, the loop as it was): messages, repairs, tokens, omitted spans
and compile id, pass for pass; only the number of select+render passes drops (at most 2 unless excerpting)."""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import context_journal.compile as compile_module
import context_journal.rendering.reduce as reduce_module
from context_journal import ContextManager, MemoryStore
from context_journal.compile import CHEAPEST_PART, UNSUMMARISED_PART, CompileResult, OverBudgetError
from context_journal.fitting import fitting_budget
from context_journal.llm import OfflineSummarizer
from context_journal.rendering.fit import _minus, cover_floor, render, spans_floor
from context_journal.rendering.reduce import note_floor, shrink
from context_journal.strategies import (
    AutobiographicalConfig,
    AutobiographicalStrategy,
    PassthroughStrategy,
    RawSpan,
    Selection,
    Strategy,
    WindowedPassthroughStrategy,
)
from context_journal.tokens import EstimatingCounter
from tests.compile.compile_helpers import loop_history
from tests.compile.test_unread_fast_path import history as unread_history
from tests.compile.test_unread_fast_path import mutate, specs
from tests.hypothesis_budget import examples

WORDS = [
    "the",
    "file",
    "function",
    "test",
    "error",
    "value",
    "config",
    "build",
    "module",
    "cache",
    "token",
    "budget",
    "window",
    "summary",
    "branch",
]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)) + "."


def conversation(n: int, seed: int = 7, big: int = 0, remark: bool = False) -> list[dict[str, Any]]:
    """``n`` messages of a tool-using chat (a call and its result every third exchange; with ``big``, some
    results of about ``big`` words; with ``remark``, each result message also says a word of its own, so
    no tool unit is closed: see :func:`context_journal.rendering.reduce.closed_unit`)."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    k = 0
    while len(out) < n:
        out.append({"participant": "user", "content": _text(rng, rng.randint(5, 40))})
        if k % 3 == 2 and len(out) + 2 < n:
            call = {"type": "tool_use", "id": f"call_{k}", "name": "read_file", "input": {"path": f"m{k}.py"}}
            out.append({"participant": "assistant", "content": [{"type": "text", "text": _text(rng, 6)}, call]})
            size = big if big and rng.random() < 0.3 else rng.randint(20, 120)
            result = {"type": "tool_result", "tool_use_id": f"call_{k}", "content": _text(rng, size)}
            out.append(
                {"participant": "tool", "content": [result, *([{"type": "text", "text": "ok"}] if remark else [])]}
            )
        out.append({"participant": "assistant", "content": _text(rng, rng.randint(10, 60))})
        k += 1
    return out[:n]


def both(
    cm: ContextManager, budget: int, exact: int | None = None
) -> tuple[CompileResult | OverBudgetError, CompileResult | OverBudgetError]:
    """The preview without the loop's shortcuts, then with them (``EXACT_FAILURE_MESSAGES`` at ``exact``
    when given: 0 makes every failure go through the floor)."""
    out: list[CompileResult | OverBudgetError] = []
    limit = compile_module.EXACT_FAILURE_MESSAGES
    if exact is not None:
        compile_module.EXACT_FAILURE_MESSAGES = exact
    try:
        for shortcuts in (False, True):
            compile_module._SHORTCUTS = shortcuts
            try:
                out.append(cm.preview_context(budget))
            except OverBudgetError as exc:
                out.append(exc)
            finally:
                compile_module._SHORTCUTS = True
    finally:
        compile_module.EXACT_FAILURE_MESSAGES = limit
    return out[0], out[1]


def same(before: CompileResult, after: CompileResult) -> None:
    assert after.messages == before.messages
    assert after.repairs == before.repairs
    assert (after.tokens, after.dropped, after.omitted) == (before.tokens, before.dropped, before.omitted)
    assert after.compile_id == before.compile_id


def same_outcome(
    before: CompileResult | OverBudgetError, after: CompileResult | OverBudgetError
) -> CompileResult | None:
    """Check that ``after`` (with the shortcuts) is ``before``'s outcome: the same failure figure, or the same
    context (see :func:`same`); the context, or None for a failure."""
    if isinstance(before, OverBudgetError):
        assert isinstance(after, OverBudgetError) and after.actual == before.actual
        return None
    assert isinstance(after, CompileResult)
    same(before, after)
    return after


def excerpts(result: CompileResult) -> bool:
    return any(r.kind in ("excerpted", "cut_to_fit") for r in result.repairs)


@pytest.fixture(scope="module")
def drained() -> Iterator[ContextManager]:
    """400 messages summarised for a 3,000-token budget: below it the coarsest cover does not fit and the
    compile excerpts (the layout the loop used to render again and again with less room)."""
    strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(3_000))
    cm = ContextManager.open("memory:", strategy=strategy, summarizer=OfflineSummarizer())
    cm.add_messages(conversation(400))
    cm.drain()
    yield cm
    cm.close()


def test_a_layout_rendered_again_and_again_is_rendered_once(drained: ContextManager) -> None:
    old_passes: list[int] = []
    for budget in (800, 1_100, 1_400, 1_700, 2_000, 2_300, 2_600, 2_900):
        before, after = both(drained, budget)
        if same_outcome(before, after) is None:
            continue
        assert isinstance(before, CompileResult) and isinstance(after, CompileResult)
        old_passes.append(before.stats["passes"])
        assert after.stats["passes"] <= before.stats["passes"]
        assert after.stats["passes"] <= 2 or excerpts(after)
        assert after.stats["passes"] == 1  # every pass rendered the coarsest cover: once is enough
    # The loop used to render the same coarsest cover up to 4 times here (6 at 8,000 tokens and 1,500
    # messages, 5 at 200,000 messages): the fixture exercises the early stop.
    assert max(old_passes) >= 3


def test_after_an_append_the_summary_spans_kept_give_the_layout_a_fresh_strategy_gives(
    drained: ContextManager,
) -> None:
    strategy = drained.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    for k in range(3):
        drained.preview_context(2_600)
        placed = {key: span for key, span in strategy._memo.items() if span is not None}
        assert placed
        drained.add_message("user", f"and one more question, number {k}?")
        warm = drained.preview_context(2_600)
        assert all(strategy._memo[key] is span for key, span in placed.items())  # kept, not placed afresh
        strategy._memo_key, strategy._memo = None, {}
        same(drained.preview_context(2_600), warm)
    # A removal moves positions: the spans are placed afresh.
    newest = drained.preview_context(2_600).messages[-1].sources[0].id
    drained.remove_message(newest)
    after = drained.preview_context(2_600)
    strategy._memo_key, strategy._memo = None, {}
    same(drained.preview_context(2_600), after)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(10, 120),
    seed=st.integers(0, 10_000),
    big=st.sampled_from([0, 400, 1_500]),
    budget=st.integers(60, 4_000),
    name=st.sampled_from(["passthrough", "windowed", "autobiographical"]),
    exact=st.sampled_from([0, 512]),
)
def test_the_shortcuts_change_no_output_and_fail_only_what_cannot_fit(
    n: int, seed: int, big: int, budget: int, name: str, exact: int
) -> None:
    """With ``EXACT_FAILURE_MESSAGES`` at 0 every impossible compile fails before rendering: the lower bound it
    names is never above the smallest valid context the full loop finds, and it fails only where the full
    loop fails."""
    strategies: dict[str, Callable[[], Strategy]] = {
        "passthrough": PassthroughStrategy,
        "windowed": WindowedPassthroughStrategy,
        "autobiographical": lambda: AutobiographicalStrategy(AutobiographicalConfig.for_budget(2_000)),
    }
    strategy = strategies[name]()
    cm = ContextManager.open("memory:", strategy=strategy)
    cm.add_messages(conversation(n, seed, big))
    before, after = both(cm, budget, exact=exact)
    if isinstance(after, OverBudgetError):
        assert isinstance(before, OverBudgetError)  # never a failure where the loop fits
        assert after.actual <= before.actual  # a lower bound of the smallest valid context
        if CHEAPEST_PART not in after.parts:
            assert after.actual == before.actual  # rendered and excerpted: the same figures
        else:
            assert after.parts.get(UNSUMMARISED_PART, 0) <= after.actual
        return
    assert isinstance(before, CompileResult)
    same(before, after)
    assert after.stats["passes"] <= before.stats["passes"]
    assert after.stats["passes"] <= 2 or excerpts(after)


def test_a_history_never_summarised_fails_before_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    """1,200 messages no summary covers at 600 tokens, their tool units not closed (each result message
    says a word of its own, so each call stays as an excerpt): the compile names the lower bound it
    priced and the pending compression work without rendering a message (the loop used to render and
    excerpt all of them, seconds at 5,000 messages, minutes at 200,000, then fail)."""
    cm = ContextManager.open(
        "memory:", strategy=AutobiographicalStrategy(AutobiographicalConfig.for_budget(600)), summarizer=None
    )
    cm.add_messages(conversation(1_200, remark=True))
    with pytest.raises(OverBudgetError) as first:
        cm.compile(600)  # closes the chunks that are due, and says that compression lags
    assert first.value.parts["pending chunks"] > 0 and "compression lags" in str(first.value)
    assert first.value.parts[CHEAPEST_PART] > 600 and CHEAPEST_PART in str(first.value)
    renders = 0
    real = render  # what compile_module calls by this name

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal renders
        renders += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(compile_module, "render", counting)
    before, after = both(cm, 600)
    assert isinstance(before, OverBudgetError) and isinstance(after, OverBudgetError)
    assert renders >= 2  # the loop without shortcuts rendered (and then excerpted) before failing
    renders = 0
    with pytest.raises(OverBudgetError) as again:
        cm.preview_context(600)
    assert renders == 0
    bound = again.value
    assert bound.parts[CHEAPEST_PART] == bound.actual > 600
    assert 0 < bound.parts[UNSUMMARISED_PART] <= bound.actual
    assert bound.actual <= before.actual == before.parts["smallest valid context"]
    # With overflow="window" the same history is windowed to fit, as before.
    windowed = AutobiographicalStrategy(AutobiographicalConfig.for_budget(600).with_(overflow="window"))
    cm = ContextManager.open("memory:", strategy=windowed)
    cm.add_messages(conversation(1_200, remark=True))
    fits = cm.preview_context(600)
    assert fits.tokens <= 600 and fits.omitted and fits.stats["passes"] <= 2


def test_a_history_never_summarised_gives_way_by_closed_tool_units() -> None:
    """The same history with closed tool units (the results alone answer the calls) fits 600 tokens: the
    middle not summarised yet gives way by whole units, notes standing for them (before, each call and
    its result stayed as a pair of bare excerpts, and the compile failed needing about 3,900 tokens). The
    loop's shortcuts give the same context, and the cheapest cover they price does not claim a failure."""
    cm = ContextManager.open(
        "memory:", strategy=AutobiographicalStrategy(AutobiographicalConfig.for_budget(600)), summarizer=None
    )
    cm.add_messages(conversation(1_200))
    before, after = both(cm, 600)
    assert isinstance(before, CompileResult) and isinstance(after, CompileResult)
    same(before, after)
    assert after.tokens <= 600
    sent = [b for m in after.messages for b in m.content]
    calls = {b["id"] for b in sent if b["type"] == "tool_use"}
    assert calls == {b["tool_use_id"] for b in sent if b["type"] == "tool_result"}  # whole units or none
    noted = [r for r in after.repairs if r.kind == "cut_to_fit"]
    assert noted and sum(int(r.detail.split()[0]) for r in noted) > 1_000  # most of the middle, in notes


def test_the_floor_counts_the_assistants_calls_and_their_answers() -> None:
    cm = ContextManager.open("memory:")
    cm.add_messages(conversation(40))
    view = cm._reader_view()
    counter = EstimatingCounter()
    entries = view.entries(0, len(view))
    calls = [e.position for e in entries if "tool_use" in e.kinds]
    assert calls == [5, 13, 21, 29, 37]
    each = counter.count_message("assistant", [{"type": "tool_use", "id": "", "name": "", "input": {}}])
    each += counter.count_block({"type": "tool_result", "tool_use_id": "", "content": ""})
    assert each == 21  # 4 overhead + 10 for the empty call + 7 for the empty result
    whole = Selection((RawSpan(0, len(view)),), give_way=((0, calls[1] + 2),))  # to the second result
    assert view.tokens() > 1_000
    # The calls in the middle that gives way may go whole with their results (closed units): 0 there.
    assert cover_floor(view, whole, counter, 200) == (3 * each, 0, 40)
    assert spans_floor(view, [(0, len(view), True)], counter, 0) == (0, 0, 40)
    # A result message that says more than the results is no closed unit: its call counts there too.
    cm = ContextManager.open("memory:")
    cm.add_messages(conversation(40, remark=True))
    view = cm._reader_view()
    assert [e.position for e in view.entries(0, len(view)) if "tool_use" in e.kinds] == calls
    assert cover_floor(view, whole, counter, 200) == (3 * each, 2 * each, 40)
    # The running loop's messages (from ``end``) are left out; another speaker's calls count nothing.
    assert cover_floor(view, whole, counter, 200, end=calls[2]) == (0, 2 * each, calls[2])
    assert cover_floor(view, whole, counter, 200, own_calls=lambda e: e.participant != "assistant")[:2] == (0, 0)
    # Nothing is read where no failure could be proved: tokens within the limit, or few messages.
    assert cover_floor(view, whole, counter, view.tokens()) == (0, 0, 40)
    assert cover_floor(view, whole, counter, 200, min_count=40) == (0, 0, 40)
    # The scan stops once the bound is over the limit: one batch of 512 entries at most past it.
    assert spans_floor(view, [(0, len(view), True)], counter, 0) == (0, 5 * each, 40)
    assert _minus([(0, 10), (20, 30)], [(5, 25)]) == ([(0, 5), (25, 30)], [(5, 10), (20, 25)])


def test_a_view_without_calls_is_not_scanned_for_them() -> None:
    """No ``tool_use`` block in any slot the view reads (the index counts them): the floor is 0 without a
    scan; a call in an auxiliary slot alone still makes the floor scan (and count it)."""
    store = MemoryStore()
    chat = ContextManager.open(store=store, namespace="chat", isolate=True)
    chat.add_messages([{"participant": "user" if k % 2 else "assistant", "content": f"turn {k}"} for k in range(30)])
    counter = EstimatingCounter()
    view = chat._reader_view()
    scans: list[int] = []
    real = type(view).entries

    def counted(self: Any, start: int = 0, end: int | None = None) -> Any:
        scans.append(start)
        return real(self, start, end)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(type(view), "entries", counted)
        assert spans_floor(view, [(0, len(view), True)], counter, 0) == (0, 0, 30)
        assert scans == []
    tools = ContextManager.open(store=store, namespace="tools", isolate=True)
    tools.add_messages(conversation(8, remark=True))  # holds an assistant call (no closed unit)
    side = ContextManager.open(store=store, namespace="chat", auxiliary_views=["tools"])
    merged = side._reader_view()
    rest, middle, scanned = spans_floor(merged, [(0, len(merged), True)], counter, 10_000)
    assert (rest, middle) == (0, 21) and scanned == len(merged) == 38


def test_the_floor_prices_a_note_for_the_plain_middle() -> None:
    """With ``plain`` (messages kept at a token or more, or cut into a note), the plain messages of the
    spans that give way count one token each, up to one note's smallest size; elsewhere they count nothing,
    and at most ``most`` messages of those spans are scanned (the rest counts nothing)."""
    cm = ContextManager.open("memory:")
    cm.add_messages([{"participant": "user" if k % 2 else "assistant", "content": f"turn {k}"} for k in range(300)])
    view = cm._reader_view()
    counter = EstimatingCounter()
    note = note_floor(counter)
    assert note == 38  # "[… 1 earlier message (about 0 tokens), not summarised yet, cut here …]"

    def plain(e: Any) -> bool:
        return bool(e.kinds == ("text",))

    assert spans_floor(view, [(0, 300, True)], counter, 10_000, plain=plain) == (0, note, 300)
    assert spans_floor(view, [(0, 10, True)], counter, 10_000, plain=plain) == (0, 10, 10)  # kept: 1 each
    assert spans_floor(view, [(0, 300, False)], counter, 10_000, plain=plain) == (0, 0, 300)
    assert spans_floor(view, [(0, 300, True)], counter, 10_000) == (0, 0, 300)  # without plain: nothing
    assert spans_floor(view, [(0, 300, True)], counter, 10_000, plain=plain, most=0) == (0, 0, 300)


def test_a_long_history_of_closed_units_fails_fast_below_its_cheapest_cover(monkeypatch: pytest.MonkeyPatch) -> None:
    """A history never summarised whose tool units all close (they may all go whole, so the calls prove
    nothing) still fails before rendering below what it cannot go under: the head window and the newest
    message at their bare excerpts and one note for the middle. Where the floor cannot prove the failure
    the compile renders, and the figure the fast failure names is never above the smallest context the
    full loop finds (a lower bound)."""
    cm = ContextManager.open(
        "memory:", strategy=AutobiographicalStrategy(AutobiographicalConfig.for_budget(600)), summarizer=None
    )
    cm.add_messages(conversation(1_200))
    renders = 0
    real = render

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal renders
        renders += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(compile_module, "render", counting)
    with pytest.raises(OverBudgetError):
        cm.compile(40)  # closes the chunks that are due
    renders = 0
    with pytest.raises(OverBudgetError) as fast:
        cm.preview_context(40)
    assert renders == 0 and fast.value.parts[CHEAPEST_PART] == fast.value.actual > 40
    before, after = both(cm, 40)
    assert isinstance(before, OverBudgetError) and isinstance(after, OverBudgetError)
    assert after.actual <= before.actual
    # The figure does not stop just past the budget (a review saw it rise with each budget tried), and what
    # the lag's advice derives from it is named a lower bound.
    _, lower = both(cm, 20)
    assert isinstance(lower, OverBudgetError) and lower.actual == after.actual and lower.lower_bound
    with pytest.raises(OverBudgetError) as lagging:
        cm.compile(40)
    assert "needs at least" in str(lagging.value) and "raise max_tokens to at least" in str(lagging.value)
    # The figure is the smallest context at budget 40; at that budget its excerpts are drawn for it and may
    # need a token or two more, which the advice's previews follow (``fitting_budget``).
    smallest = before.actual
    found = fitting_budget(before, 0, cm.preview_context)
    assert found is not None and smallest <= found <= smallest + 8
    assert cm.preview_context(found).tokens <= found


def test_the_recent_windows_closed_units_may_go_in_the_floor() -> None:
    """The oldest turns of the recent window give way whole as a last resort, closed tool units too: the
    floor prices their calls at 0 (``raw_floor`` flags them as giving way), so a history whose recent window
    is mostly tool units, never summarised, fits where its calls priced as kept pairs would have claimed a
    failure (a review of the fast failure: the floor counted 21 tokens a call there)."""
    rng = random.Random(3)
    history: list[dict[str, Any]] = [
        {"participant": "user" if k % 2 else "assistant", "content": _text(rng, 8)} for k in range(700)
    ]
    for k in range(40):
        call = {"type": "tool_use", "id": f"c{k}", "name": "read_file", "input": {"path": f"m{k}.py"}}
        history.append({"participant": "assistant", "content": [call]})
        history.append(
            {"participant": "tool", "content": [{"type": "tool_result", "tool_use_id": f"c{k}", "content": "ok"}]}
        )
    history.append({"participant": "assistant", "content": "Done: every module read."})
    strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(3_000))
    cm = ContextManager.open("memory:", strategy=strategy, summarizer=None)
    cm.add_messages(history)
    with contextlib.suppress(OverBudgetError):
        cm.compile(300)  # closes the chunks that are due
    spans = list(strategy.raw_floor(cm._reader_view()) or [])
    calls = [e.position for e in cm._reader_view().entries(0, 781) if "tool_use" in e.kinds]
    assert all(any(a <= p < b and gives for a, b, gives in spans) for p in calls)
    before, after = both(cm, 520, exact=0)  # the smallest that fits, give or take 20
    assert isinstance(before, CompileResult) and isinstance(after, CompileResult)
    same(before, after)
    assert any(r.kind == "cut_to_fit" for r in after.repairs)


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=specs(), budget=st.one_of(st.integers(30, 300), st.integers(300, 2_000)), scaled=st.booleans())
def test_the_floor_never_claims_a_budget_the_full_loop_fits(spec: Any, budget: int, scaled: bool) -> None:
    """Over messy histories never summarised (orphaned and late tool results, pins, edits, images, named
    speakers, a running loop), with every failure claimed by the floor (``EXACT_FAILURE_MESSAGES`` at 0):
    a fast failure is a failure of the full loop too, and the full loop fails one token under the figure the
    floor names (the head window and newest message priced at their bare excerpts, the note, the calls)."""
    config = AutobiographicalConfig.for_budget(budget) if scaled else AutobiographicalConfig()
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(config), summarizer=None)
    ids = cm.add_messages(unread_history(spec))
    mutate(cm, ids, spec)
    with contextlib.suppress(OverBudgetError):
        cm.compile(budget)  # closes the chunks that are due
    before, after = both(cm, budget, exact=0)
    if isinstance(after, CompileResult):
        assert isinstance(before, CompileResult)
        same(before, after)
        return
    assert isinstance(before, OverBudgetError)
    if CHEAPEST_PART in after.parts and after.actual - 1 > budget:
        below, _ = both(cm, after.actual - 1)
        assert isinstance(below, OverBudgetError), after


def smallest_fit(cm: ContextManager, low: int, high: int) -> int:
    """The smallest budget in ``[low, high)`` the full loop (shortcuts off) fits (``high`` when none)."""
    for budget in range(low, high):
        before, _ = both(cm, budget)
        if isinstance(before, CompileResult):
            return budget
    return high


def test_the_floor_prices_what_is_sent_without_trailing_whitespace() -> None:
    """A review's counterexample: the newest message, an assistant reply of "ok" and 3,000 spaces, was
    priced at its bare excerpt (22 tokens) while the compile sends it as "ok" (its trailing whitespace
    trimmed, 6 tokens): the fast failure refused a budget the full loop fits."""
    filler = " and the rest of the build cache details" * 16
    history: list[dict[str, Any]] = [{"participant": "user", "content": "Rules: be brief."}]
    for k in range(300):
        history.append({"participant": "user", "content": f"question {k}{filler}"})
        history.append({"participant": "assistant", "content": f"answer {k}{filler}"})
    history.append({"participant": "assistant", "content": "ok" + " " * 3000})
    strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(100))
    cm = ContextManager.open("memory:", strategy=strategy, summarizer=None)
    cm.add_messages(history)
    with contextlib.suppress(OverBudgetError):
        cm.compile(100)  # closes the chunks that are due
    assert fits_where_the_full_loop_fits(cm, 40, 200).messages[-1].content[-1]["text"] == "ok"


def fits_where_the_full_loop_fits(cm: ContextManager, low: int, high: int, exact: int = 512) -> CompileResult:
    """The shortcuts' result at the smallest budget in ``[low, high)`` the full loop fits (with
    ``EXACT_FAILURE_MESSAGES`` at ``exact``), checked to be the full loop's: no failure claimed there."""
    budget = smallest_fit(cm, low, high)
    assert budget < high
    before, after = both(cm, budget, exact=exact)
    assert isinstance(before, CompileResult) and isinstance(after, CompileResult), after
    same(before, after)
    return after


def test_the_floor_counts_no_token_for_a_message_the_counter_prices_at_none() -> None:
    """A review's counterexample: with a counter of words (no overhead a message), a middle of emoji costs 0
    tokens a message, kept whole; the floor priced "a token each, up to one note" for them and refused
    budgets 24-29, where the full loop fits at 24 (23 since an excerpt cut again gives up its marker's
    characters). A message the index prices at 0 counts nothing now."""

    class Words:
        def count_block(self, block: Any) -> int:
            return len(re.findall(r"\w+", str(block.get("text", block.get("input", block.get("content", ""))))))

        def count_message(self, participant: str, blocks: Any) -> int:
            return sum(self.count_block(b) for b in blocks)

    history: list[dict[str, Any]] = [{"participant": "user", "content": "Rules: be brief."}]
    for k in range(300):
        history += [{"participant": "user", "content": "👍"}, {"participant": "assistant", "content": "🎉"}]
        if k % 150 == 0:
            history.append({"participant": "user", "content": "ok"})
    history.append({"participant": "user", "content": "what is the status of the build now " * 40})
    config = AutobiographicalConfig.for_budget(100).with_(
        target_chunk_tokens=2, recent_window_tokens=2, head_window_tokens=3
    )
    cm = ContextManager.open(
        "memory:", strategy=AutobiographicalStrategy(config), summarizer=None, token_counter=Words()
    )
    cm.add_messages(history)
    with contextlib.suppress(OverBudgetError):
        cm.compile(10)
    assert fits_where_the_full_loop_fits(cm, 10, 60).tokens == 23


def test_calls_sent_as_instructions_are_not_priced_as_kept_pairs() -> None:
    """A review's counterexample: assistant calls stored with the metadata role "system" are sent as
    instruction text, which gives way whole with the middle; the floor priced each as a kept call and
    result (21 tokens) and refused every budget from 157 (where the full loop fits) to about 6,200."""
    rng = random.Random(1)
    history: list[dict[str, Any]] = [{"participant": "user", "content": "Rules: be brief."}]
    for k in range(300):
        call = {"type": "tool_use", "id": f"c{k}", "name": "run", "input": {"cmd": "ls"}}
        history.append({"participant": "assistant", "metadata": {"role": "system"}, "content": [call]})
        result = {"type": "tool_result", "tool_use_id": f"c{k}", "content": _text(rng, 30)}
        history.append({"participant": "tool", "content": [result, {"type": "text", "text": "noted"}]})
    history.append({"participant": "user", "content": "and now?"})
    strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(100))
    cm = ContextManager.open("memory:", strategy=strategy, summarizer=None)
    cm.add_messages(history)
    with contextlib.suppress(OverBudgetError):
        cm.compile(20)
    fits_where_the_full_loop_fits(cm, 100, 400)


def test_an_odd_message_in_an_auxiliary_slot_turns_the_plain_floor_off() -> None:
    """A review's counterexample: a text block of 3,000 spaces in an auxiliary slot (the compile drops it)
    was unseen by the check that turns the plain floor off (it read the handle's own slot only), so the
    opening message was priced at the bare excerpt of its blank block, and budgets 57-69 were refused
    where the full loop fits at 57."""
    filler = " and the rest of the build cache details" * 16
    store = MemoryStore()
    side = ContextManager.open(store=store, namespace="side", isolate=True)
    side.add_message("user", [{"type": "text", "text": "Rules: be brief."}, {"type": "text", "text": " " * 3000}])
    chat = ContextManager.open(store=store, namespace="chat", isolate=True)
    for k in range(300):
        chat.add_message("user", f"question {k}{filler}")
        chat.add_message("assistant", f"answer {k}{filler}")
    chat.add_message("user", "and now?")
    strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(100))
    cm = ContextManager.open(
        store=store, namespace="chat", auxiliary_views=["side"], strategy=strategy, summarizer=None
    )
    with contextlib.suppress(OverBudgetError):
        cm.compile(20)
    fits_where_the_full_loop_fits(cm, 30, 200)


def test_a_passthrough_newest_reply_is_priced_without_its_trailing_whitespace() -> None:
    """The same fault as the autobiographical one above, through the selection's floor (passthrough,
    every failure claimed by the floor): "ok" and 2,000 spaces fits at 16 tokens."""
    cm = ContextManager.open("memory:", strategy=PassthroughStrategy())
    cm.add_messages(
        [
            {"participant": "user", "content": "branch test token"},
            {"participant": "assistant", "content": "summary error config test token"},
            {"participant": "assistant", "content": "ok" + " " * 2000},
        ]
    )
    fits_where_the_full_loop_fits(cm, 5, 40, exact=0)


def test_a_final_reply_is_trimmed_before_it_is_excerpted_to_fit() -> None:
    """A review: the windowed strategy sent a final reply of "ok" and 3,000 spaces as its bare cut marker
    ("[… about 29 of 29 tokens cut here …]", 25 tokens) at the smallest budget that fit (35), where
    trimmed first it is "ok" (6 tokens) and fits from 16."""
    filler = " and the rest of the build cache details" * 16
    history: list[dict[str, Any]] = [{"participant": "user", "content": "Rules: be brief."}]
    for k in range(300):
        history.append({"participant": "user", "content": f"question {k}{filler}"})
        history.append({"participant": "assistant", "content": f"answer {k}{filler}"})
    history += [
        {"participant": "user", "content": "status?"},
        {"participant": "assistant", "content": "ok" + " " * 3000},
    ]
    cm = ContextManager.open("memory:", strategy=WindowedPassthroughStrategy())
    cm.add_messages(history)
    result = fits_where_the_full_loop_fits(cm, 1, 60)
    assert result.messages[-1].content == ({"type": "text", "text": "ok"},) and result.tokens <= 16


@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["autobiographical", "windowed", "passthrough"]),
    st.integers(0, 4),
    st.integers(1, 80),
    st.lists(st.sampled_from([1, 20, 60, 150]), min_size=1, max_size=3),
    st.integers(60, 4_000),
)
def test_a_running_loop_too_long_to_cut_goes_as_its_transcript_at_once(
    name: str, chat: int, steps: int, sizes: list[int], budget: int
) -> None:
    """A running tool loop whose steps, each cut to its marker, take more than the room goes as its
    transcript without the cuts that would prove it (``loop_over``): the same context or failure as the
    loop without the shortcut, over generated thinking-led loops of 1-80 steps."""
    cm = loop_history(name, chat, steps, sizes)
    same_outcome(*both(cm, budget))


def test_a_loop_of_hundreds_of_steps_is_not_cut_raw_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """A review timed a 2,000-step thinking-led loop at 5.5 s a compile (20 s autobiographical at 8,000
    tokens): its calls alone took several budgets, and the cuts of the raw loop proved so by excerpting every
    step at each water level before the transcript was drawn. A 300-step loop at 2,000 tokens now goes as its
    transcript with no cut of the raw loop (``shrink`` runs only on the transcript), the same context as the
    loop without the shortcut."""
    cm = loop_history("windowed", 2, 300, [20, 150, 60])
    raw_cuts = 0
    real = shrink  # what compile_module calls by this name

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal raw_cuts
        raw_cuts += bool(args[5] if len(args) > 5 else kwargs.get("keep_thinking"))  # the raw loop's cut
        return real(*args, **kwargs)

    monkeypatch.setattr(compile_module, "shrink", counting)
    before, after = both(cm, 2_000)
    assert raw_cuts >= 1  # without the shortcut, the raw loop was cut first
    assert same_outcome(before, after) is not None
    raw_cuts = 0
    result = cm.preview_context(2_000)
    assert raw_cuts == 0
    assert any(r.kind == "running_turn_transcribed" for r in result.repairs)


def test_the_levels_of_one_cut_make_each_excerpt_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A review timed a 2,000-step loop at 115,000-125,000 tokens at 19-20 s a compile: its steps' markers fit,
    so the raw loop is cut (to find its results would say nothing), and the cut's searches poured the same
    messages at the same levels again and again. A 300-step loop at 18,000 tokens made 222,602 excerpts of
    19,241 kinds; the levels now reuse what one cut made (the same excerpt objects: the same context)."""
    made: list[tuple[int, float]] = []
    real = reduce_module.excerpt_message

    def counting(m: Any, blocks: Any, ratio: float, *args: Any, **kwargs: Any) -> Any:
        made.append((id(blocks), ratio))
        return real(m, blocks, ratio, *args, **kwargs)

    monkeypatch.setattr(reduce_module, "excerpt_message", counting)
    cm = loop_history("autobiographical", 2, 300, [20, 150, 60])
    result = cm.preview_context(18_000)
    assert any(r.kind == "running_turn_transcribed" for r in result.repairs)
    assert len(made) <= 1.25 * len(set(made)), (len(made), len(set(made)))
