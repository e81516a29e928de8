"""Bulky messages give way before whole messages do (reductions priced first, a fresh review): when a passthrough or
windowed selection leaves messages out, tool results and text messages over a quarter of what the
strategy may fill are priced as excerpts (older images in a message over it as placeholders) and the
strategy chooses again; the excerpts then take the room the selection left. So a larger budget never
shows fewer of the newest messages because one bulky message crossed the budget, pins and the head
window stay whole, and the newest message's image stays while it can be sent at all (B28)."""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.compile import CompileResult, OverBudgetError
from context_journal.validate import validate_messages, validate_openai_messages
from tests.compile.compile_helpers import png_image
from tests.hypothesis_budget import examples

WORDS = ["alpha", "beta", "gamma", "delta", "river", "stone", "cloud", "forest", "invoice", "refund"]
STRATEGIES = ["passthrough", "windowed"]


@functools.cache
def words(n: int, seed: int = 0) -> str:
    """``n`` words drawn from ``WORDS`` by a generator seeded with ``seed`` (the same text on every call)."""
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n))


def png(w: int = 200, h: int = 200, seed: int = 1) -> str:
    """A real PNG of random pixels (uncompressed: it costs its full image price)."""
    return png_image(w, h, 1.0, seed, level=0)


def shown(result: CompileResult) -> list[str]:
    return [s.id for m in result.messages for s in m.sources if s.kind == "message"]


def valid(result: CompileResult) -> None:
    assert validate_messages(result.as_messages()) == []
    assert validate_openai_messages(result.to_openai()) == []
    assert result.tokens <= result.budget


def _tool_history(cm: ContextManager) -> None:
    cm.add_message("user", "RULES: reply in French. " + words(300, 1), id="rules")
    cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "view", "input": {}}], id="call")
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": words(1500, 2)}], id="result")
    cm.add_message("assistant", "The log shows a timeout in the fetch step.", id="answer")
    cm.add_message("user", "Fix it.", id="q")


def _paste_history(cm: ContextManager) -> None:
    cm.add_message("user", "RULES: reply in French. " + words(100, 1), id="rules")
    cm.add_message("assistant", "Sure.", id="ok")
    cm.add_message("user", "Paste: " + words(2000, 3), id="paste")
    cm.add_message("assistant", "Thanks, reading it.", id="ack")
    cm.add_message("user", "Summarise it.", id="q")


def _image_history(cm: ContextManager) -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png()}}
    cm.add_message("user", "Project rules: reply in French, never push to main.", id="rules")
    cm.add_message("assistant", [{"type": "tool_use", "id": "v1", "name": "view", "input": {"url": "a"}}], id="call")
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "v1", "content": [image]}], id="result")
    cm.add_message("assistant", "The chart on the left is broken.", id="answer")
    cm.add_message("user", "Why?", id="q")


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("history", [_tool_history, _paste_history, _image_history])
def test_every_message_stays_at_every_budget_once_the_bulky_one_gives_way(strategy: str, history: Any) -> None:
    """The review's three histories: before, a band of budgets (1,770-2,170 for the tool result, 300-2,600
    for the paste, 1,612-1,661 for the image) kept only the last two messages."""
    cm = ContextManager.open("memory:", strategy=strategy)
    history(cm)
    ids = [m.id for m in cm.get_all_messages()]
    for budget in range(400, 3200, 50):
        result = cm.compile(budget)
        valid(result)
        assert shown(result) == ids, (budget, shown(result))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_excerpt_takes_the_room_the_selection_left(strategy: str) -> None:
    cm = ContextManager.open("memory:", strategy=strategy)
    _tool_history(cm)
    for budget in (1000, 1500, 2000):
        result = cm.compile(budget)
        assert result.tokens >= 0.9 * budget, (budget, result.tokens)  # was 938 of 2,000
        assert any(r.kind == "excerpted" and r.message_id == "result" for r in result.repairs)
        text = str(result.to_anthropic())
        assert "tokens cut here" in text and "French" in text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_pins_stay_whole_while_a_bulky_message_gives_way(strategy: str) -> None:
    cm = ContextManager.open("memory:", strategy=strategy)
    cm.add_message("user", "SPEC: " + words(700, 5), id="spec")
    cm.pin("spec")
    _paste_history(cm)
    result = cm.compile(2500)
    valid(result)
    assert set(shown(result)) >= {"spec", "paste", "q"}
    spec = next(m for m in result.messages if any(s.id == "spec" for s in m.sources))
    assert all(s.complete for s in spec.sources if s.id == "spec")
    assert "tokens cut here" not in str(spec.content)
    assert any(r.kind == "excerpted" and r.message_id == "paste" for r in result.repairs)


def test_the_newest_image_stays_while_it_can_be_sent() -> None:
    """B28's rule kept: the screenshot a question is about is sent whole as soon as it fits; older turns
    give way for it."""
    cm = ContextManager.open("memory:", strategy="windowed")
    for k in range(12):
        cm.add_message("user" if k % 2 == 0 else "assistant", words(200, k), id=f"m{k}")
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png()}}
    cm.add_message("user", [{"type": "text", "text": "What is in this screenshot?"}, image], id="ask")
    result = cm.compile(3000)
    valid(result)
    assert shown(result)[-1] == "ask"
    assert any(b.get("type") == "image" for b in result.messages[-1].content)


# --- generated histories: a larger budget never shows fewer of the newest messages --------------------

_kind = st.sampled_from(["text", "long", "tool", "big-tool"])


def _build(strategy: str, kinds: list[tuple[str, int]]) -> tuple[ContextManager, list[str]]:
    cm = ContextManager.open("memory:", strategy=strategy)
    cm.add_message("user", "RULES: " + words(60, 0), id="m0")
    for i, (kind, seed) in enumerate(kinds, 1):
        if kind in ("text", "long"):
            n = 30 + seed % 50 if kind == "text" else 700 + 97 * seed % 2300
            cm.add_message("assistant", words(n, seed), id=f"a{i}")
            cm.add_message("user", words(10 + seed % 30, seed + 1), id=f"u{i}")
        else:
            n = 20 + seed % 200 if kind == "tool" else 900 + 131 * seed % 3500
            cm.add_message(
                "assistant", [{"type": "tool_use", "id": f"t{i}", "name": "view", "input": {"k": i}}], id=f"c{i}"
            )
            content = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": words(n, seed)}]
            cm.add_message("user", content, id=f"r{i}")
    return cm, [m.id for m in cm.get_all_messages()]


def _newest_run(result: CompileResult, ids: list[str]) -> int:
    got = set(shown(result))
    n = 0
    for mid in reversed(ids):
        if mid not in got:
            break
        n += 1
    return n


def _never_fewer_newest(cm: ContextManager, ids: list[str], budgets: Any) -> None:
    """Compiles at ``budgets`` (ascending) are valid and never show fewer of the newest messages."""
    before: tuple[int, int] | None = None
    for budget in budgets:
        try:
            result = cm.compile(budget)
        except OverBudgetError:
            continue
        valid(result)
        run = _newest_run(result, ids)
        if before is not None:
            assert run >= before[1], f"{before[1]} newest messages at {before[0]} tokens, {run} at {budget}"
        before = (budget, run)


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    strategy=st.sampled_from(STRATEGIES),
    kinds=st.lists(st.tuples(_kind, st.integers(1, 500)), min_size=2, max_size=10),
    budgets=st.lists(st.integers(300, 9000), min_size=2, max_size=6, unique=True),
)
@example(  # a windowed jump widened only when it held little: 7 newest messages at 300 tokens, 4 at 466
    strategy="windowed", kinds=[("text", 1), ("text", 1), ("text", 1), ("big-tool", 1), ("text", 1)], budgets=[300, 466]
)
def test_a_larger_budget_never_shows_fewer_of_the_newest_messages(
    strategy: str, kinds: list[tuple[str, int]], budgets: list[int]
) -> None:
    cm, ids = _build(strategy, kinds)
    _never_fewer_newest(cm, ids, sorted(budgets))


# --- kind 1: a running loop sent as a transcript leaves room for the history before it ----------------


@pytest.mark.parametrize("strategy", [*STRATEGIES, "autobiographical"])
@pytest.mark.parametrize("history", [2, 8])
def test_a_transcribed_loop_keeps_the_history_that_fits_beside_it(strategy: str, history: int) -> None:
    """The loop's opening thinking (3,000 words) cannot be sent, so the loop becomes a transcript; the
    messages before it fit beside the transcript and stay (before: passthrough and windowed sent the
    transcript alone, 58 of 3,000 tokens)."""
    cm = ContextManager.open("memory:", strategy=strategy)
    cm.add_message("user", "Always answer in French.", id="rules")
    for k in range(history):
        cm.add_message("assistant" if k % 2 == 0 else "user", words(20, k), id=f"h{k}")
    cm.add_message("user", "Find the callers of parse_amount.", id="ask")
    thinking = {"type": "thinking", "thinking": "plan " * 3000, "signature": "sig"}
    cm.add_message("assistant", [thinking, {"type": "tool_use", "id": "t0", "name": "grep", "input": {"p": "x"}}])
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t0", "content": "a.py:3 parse_amount(x)"}])
    for budget in (1000, 3000):
        result = cm.compile(budget)
        assert validate_messages(result.as_messages(), thinking=True) == []
        assert result.tokens <= result.budget
        assert any(r.kind == "running_turn_transcribed" for r in result.repairs)
        kept = set(shown(result))
        assert {"rules", "ask", *(f"h{k}" for k in range(history))} <= kept, (budget, sorted(kept))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_pinned_tool_result_is_never_cut_to_make_room(strategy: str) -> None:
    """Review: a pinned 5,900-token result was cut to fit the turns after it; a pin is whole or the
    compile is over budget."""
    log = "\n".join(f"line {i}: error in src/mod_{i}.c: undefined symbol foo_{i}" for i in range(300))
    cm = ContextManager.open("memory:", strategy=strategy)
    cm.add_message("user", "Fix the build.")
    cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}])
    result_id = cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": log}])
    for i in range(6):
        cm.add_message("assistant" if i % 2 == 0 else "user", f"turn {i} " + "chatter " * 40)
    cm.pin(result_id)
    for budget in range(5800, 6500, 50):
        try:
            result = cm.compile(budget)
        except OverBudgetError:
            continue
        valid(result)
        assert not [r for r in result.repairs if r.message_id == result_id], budget
        sent = [b for m in result.to_anthropic()["messages"] for b in m["content"] if b.get("type") == "tool_result"]
        assert [b["content"] for b in sent if b["tool_use_id"] == "t1"] in ([log], [[{"type": "text", "text": log}]])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_older_image_never_pushes_out_the_messages_before_it_as_the_budget_grows(strategy: str) -> None:
    """Review: at 6,450 tokens an older screenshot fell under a quarter of the budget, was sent whole,
    and the call, its result and the first message went (all seven stayed at 6,425 and at 6,775)."""
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png(800, 600)}}
    cm = ContextManager.open("memory:", strategy=strategy)
    cm.add_message("user", "Fix the chart.", id="m0")
    cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "view", "input": {}}], id="m1")
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": words(12000, 4)}], id="m2")
    cm.add_message("assistant", words(2600, 5), id="m3")
    cm.add_message("user", [{"type": "text", "text": "look"}, image], id="m4")
    cm.add_message("assistant", "I see it.", id="m5")
    cm.add_message("user", [{"type": "text", "text": "and now?"}, image], id="m6")
    _never_fewer_newest(cm, [m.id for m in cm.get_all_messages()], range(2000, 8000, 125))
