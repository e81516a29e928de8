"""More room never turns a sent image into its placeholder (issue 13 kind 2, a fresh review's finding 3): once a
selection leaves messages out, the overflow reductions price every older image and document as its
placeholder; they are kept where the whole history is still selected with them (see ``media_room`` in
:mod:`context_journal.compile`). Before, a history with two screenshots and a PDF sent both screenshots at
3,800 tokens and both as placeholders from 5,700, where the PDF fitted alone, was priced raw and pushed
messages out, so every older image gave way."""

from __future__ import annotations

import base64
import functools
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.compile import CompileResult, OverBudgetError
from context_journal.strategies import (
    AutobiographicalStrategy,
    PassthroughStrategy,
    Strategy,
    WindowedPassthroughStrategy,
)
from tests.compile.compile_helpers import assert_valid, png_image, words
from tests.compile.test_token_estimate_scripts import make_pdf
from tests.hypothesis_budget import examples

STRATEGIES = ["passthrough", "windowed", "autobiographical"]


def _strategy(name: str) -> Strategy:
    if name == "passthrough":
        return PassthroughStrategy()
    if name == "windowed":
        return WindowedPassthroughStrategy()
    return AutobiographicalStrategy(overflow="excerpt")


@functools.cache
def _png(side: int, seed: int) -> str:
    return png_image(side, side * 3 // 4, 1.0, seed, level=0)  # random pixels: priced at the full image price


@functools.cache
def _pdf_data(pages: int, seed: int) -> str:
    return base64.b64encode(make_pdf(pages, seed=seed)).decode()


def _image(side: int, seed: int) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _png(side, seed)}}


def _pdf(pages: int, seed: int) -> dict[str, Any]:
    source = {"type": "base64", "media_type": "application/pdf", "data": _pdf_data(pages, seed)}
    return {"type": "document", "source": source}


def _sent(result: CompileResult) -> tuple[int, int]:
    """(stored messages sent, raw or reduced; images and documents sent raw)."""
    messages = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
    media = 0
    for m in result.messages:
        for b in m.content:
            inner = b.get("content") if b.get("type") == "tool_result" else None
            for c in [b, *(inner if isinstance(inner, list) else [])]:
                media += c.get("type") in ("image", "document")
    return len(messages), media


def _history(cm: ContextManager, items: list[tuple[str, int]], seed: int) -> None:
    cm.add_message("user", "Project rules: reply in French. " + words(30, seed))
    for k, (what, n) in enumerate(items):
        if what == "chat":
            cm.add_message("assistant", words(5 + n % 60, seed + k))
            cm.add_message("user", words(3 + n % 20, seed + k + 1))
        elif what == "long":
            cm.add_message("assistant", words(300 + n % 700, seed + k))
        elif what == "pdf":
            cm.add_message("user", [_pdf(1 + n % 3, seed + k)])
            cm.add_message("assistant", "Read it.")
        elif what == "shot":
            call = {"type": "tool_use", "id": f"v{k}", "name": "view", "input": {"k": k}}
            cm.add_message("assistant", [call])
            shot = _image(200 * (1 + n % 4), seed + k)
            cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"v{k}", "content": [shot]}])
        else:  # a pasted image
            cm.add_message("user", [{"type": "text", "text": "look at this"}, _image(200 * (1 + n % 4), seed + k)])
            cm.add_message("assistant", words(5 + n % 40, seed + k))
    cm.add_message("user", "Which chart is broken?")


def _review_history(cm: ContextManager) -> None:
    """The review's shape: rules, a long reply, a 3-page PDF (5,666 tokens), a screenshot read by a tool and a
    pasted one (about 265 tokens each), a reply and the question."""
    cm.add_message("user", "Project rules: " + words(100, 1))
    cm.add_message("assistant", words(800, 2))
    cm.add_message("user", [_pdf(3, 3)])
    cm.add_message("assistant", "Read it.")
    cm.add_message("assistant", [{"type": "tool_use", "id": "v1", "name": "view", "input": {}}])
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "v1", "content": [_image(400, 1)]}])
    cm.add_message("user", [{"type": "text", "text": "look at this"}, _image(400, 2)])
    cm.add_message("assistant", words(60, 4))
    cm.add_message("user", "Which chart is broken?")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_review_history_keeps_both_screenshots_as_the_budget_grows(strategy: str) -> None:
    """Every message is sent at every budget, both screenshots raw (the PDF as its placeholder): before, both
    went as placeholders from 5,700 tokens (and at 1,500-3,750), raw at 3,800-5,650."""
    cm = ContextManager.open("memory:", strategy=_strategy(strategy))
    _review_history(cm)
    for budget in [1_500, 3_000, 3_800, 5_000, 5_650, 5_700, 5_800, 6_000]:
        result = cm.compile(budget)
        assert_valid(result)
        assert _sent(result) == (9, 2), (budget, _sent(result))


def _dominated(rows: list[tuple[int, int, int]]) -> list[str]:
    """Budgets whose result sends fewer messages and no more images, or fewer images and no more messages,
    than a smaller budget's."""
    out = []
    for j, (budget, messages, media) in enumerate(rows):
        for before, m0, i0 in rows[:j]:
            if (messages < m0 and media <= i0) or (media < i0 and messages <= m0):
                out.append(f"{m0} messages, {i0} images at {before}; {messages}, {media} at {budget}")
    return out


_items = st.lists(
    st.tuples(st.sampled_from(["chat", "chat", "long", "pdf", "shot", "paste"]), st.integers(0, 1_000)),
    min_size=1,
    max_size=6,
)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    strategy=st.sampled_from(STRATEGIES),
    items=_items,
    seed=st.integers(0, 50),
    budgets=st.lists(st.integers(800, 7_000), min_size=2, max_size=5, unique=True),
)
@example(  # two screenshots raw at 3,800 tokens, both placeholders at 5,700 (the 3-page PDF fits alone)
    strategy="passthrough",
    items=[("long", 500), ("pdf", 2), ("shot", 1), ("paste", 1), ("chat", 40)],
    seed=0,
    budgets=[3_800, 5_700],
)
def test_more_room_never_sends_fewer_messages_or_images(
    strategy: str, items: list[tuple[str, int]], seed: int, budgets: list[int]
) -> None:
    """Generated histories of short rules, chat, long replies, PDFs and older screenshots (read by a tool or
    pasted): over increasing budgets, no result sends fewer messages without sending more images, nor fewer
    images without sending more messages."""
    cm = ContextManager.open("memory:", strategy=_strategy(strategy))
    _history(cm, items, seed)
    rows = []
    for budget in sorted(budgets):
        try:
            result = cm.compile(budget)
        except OverBudgetError:
            continue
        assert_valid(result)
        rows.append((budget, *_sent(result)))
    assert not _dominated(rows), _dominated(rows)
