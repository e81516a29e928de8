"""Hypothesis: random conversations (tool calls, parallel calls, misplaced and missing results, signed and
unsigned thinking, images, huge and empty messages, several speakers) and random budgets. Every compile,
with either strategy, is provider-valid, within budget or raises OverBudgetError, deterministic, and leaves
the journal unchanged."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from context_journal.compile import CompileOptions, EmptyContextError, Injection, OverBudgetError
from context_journal.manager import ContextManager
from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy
from context_journal.tokens import EstimatingCounter
from tests.compile.compile_helpers import (
    assert_valid,
    journal_state,
    running_loop_kept_whole,
    stored_blocks,
    thinking_loop,
    words,
)
from tests.hypothesis_budget import examples

PNG = base64.b64encode(b"\x89PNG\r\n" + bytes(range(200))).decode()
PDF = base64.b64encode(b"%PDF-1.4\n" + b"1 0 obj << /Type /Page >> endobj\n" * 3 + b"%%EOF\n").decode()
SPEAKERS = ["user", "assistant", "assistant", "ann", "tool", "system"]


def _text(draw: st.DrawFn) -> dict[str, Any]:
    size = draw(st.sampled_from([0, 1, 5, 40, 400, 6000]))
    if size == 0:
        return {"type": "text", "text": draw(st.sampled_from(["", " ", "\n\t "]))}
    return {"type": "text", "text": draw(st.sampled_from([words(size), "日本語のテキスト " * size, "😀 ok " * size]))}


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    if draw(st.booleans()):
        msgs.append({"participant": "system", "content": [{"type": "text", "text": words(draw(st.integers(1, 60)))}]})
    calls = 0
    open_calls: list[str] = []
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(
            st.sampled_from(["text", "text", "call", "call", "result", "thinking", "loop", "image", "document", "odd"])
        )
        who = draw(st.sampled_from(SPEAKERS[:4]))
        if kind == "text":
            msgs.append({"participant": who, "content": [_text(draw) for _ in range(draw(st.integers(1, 2)))]})
        elif kind == "call":
            width = draw(st.integers(1, 3))
            uses: list[dict[str, Any]] = []
            for _ in range(width):
                calls += 1
                uses.append(
                    {
                        "type": "tool_use",
                        "id": f"t{calls}",
                        "name": "run",
                        "input": {"cmd": words(draw(st.sampled_from([1, 10, 800])))},
                    }
                )
            pre = [_text(draw)] if draw(st.booleans()) else []
            msgs.append(
                {"participant": draw(st.sampled_from(["assistant", "assistant", "bob"])), "content": pre + uses}
            )
            open_calls.extend(u["id"] for u in uses)
            # Results right away, spread, later, or never.
            mode = draw(st.sampled_from(["together", "spread", "later", "never"]))
            if mode in ("together", "spread"):
                results = [_result(draw, tid) for tid in open_calls]
                open_calls = []
                if mode == "together":
                    msgs.append({"participant": "tool", "content": results})
                else:
                    msgs.extend({"participant": "tool", "content": [r]} for r in results)
        elif kind == "result":
            # A late result, an orphan, or a result sitting in an assistant turn.
            tid = open_calls.pop(0) if bool(open_calls) and draw(st.booleans()) else f"ghost{draw(st.integers(0, 3))}"
            where = draw(st.sampled_from(["tool", "user", "assistant"]))
            msgs.append(
                {"participant": where, "content": [_result(draw, tid)] + ([_text(draw)] if draw(st.booleans()) else [])}
            )
        elif kind == "thinking":
            sig = draw(st.sampled_from(["sigA", "", None]))
            block: dict[str, Any] = {"type": "thinking", "thinking": words(draw(st.integers(1, 50)))}
            if sig is not None:
                block["signature"] = sig
            extra = [{"type": "redacted_thinking", "data": "Zm9v"}] if draw(st.booleans()) else []
            msgs.append(
                {"participant": draw(st.sampled_from(["assistant", "user"])), "content": [block, *extra, _text(draw)]}
            )
        elif kind == "loop":
            # A tool loop that opens with signed thinking (B62), often the newest messages (still running).
            for step in range(draw(st.integers(1, 4))):
                calls += 1
                use: dict[str, Any] = {
                    "type": "tool_use",
                    "id": f"t{calls}",
                    "name": "run",
                    "input": {"cmd": f"step {step}"},
                }
                head = [{"type": "thinking", "thinking": words(draw(st.integers(5, 60))), "signature": "sigL"}]
                msgs.append({"participant": "assistant", "content": [*(head if step == 0 else []), use]})
                if draw(st.integers(0, 5)) == 0:  # someone writes while the loop runs (a review finding)
                    msgs.append({"participant": "ann", "content": [{"type": "text", "text": words(12)}]})
                msgs.append({"participant": "tool", "content": [_result(draw, use["id"])]})
        elif kind == "document":
            # A PDF (priced from its pages) with a title, and now and then a plain-text document.
            if draw(st.booleans()):
                source = {"type": "base64", "media_type": "application/pdf", "data": PDF}
            else:
                source = {"type": "text", "media_type": "text/plain", "data": words(draw(st.integers(1, 400)))}
            doc = {"type": "document", "source": source, "title": "spec"}
            msgs.append({"participant": who, "content": [{"type": "text", "text": "read this"}, doc]})
        elif kind == "image":
            image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
            msgs.append({"participant": who, "content": [{"type": "text", "text": "see"}, image]})
        else:
            msgs.append({"participant": draw(st.sampled_from(["ann", "system", "tool"])), "content": [_text(draw)]})
    # A message of blank text only is refused at write (tests/core/test_blank_writes.py): such
    # messages are left out here, blank blocks beside other content stay.
    return [m for m in msgs if not all(b["type"] == "text" and not b["text"].strip() for b in m["content"])]


def _result(draw: st.DrawFn, tid: str) -> dict[str, Any]:
    content: Any = draw(st.sampled_from(["ok", "", words(300), words(5000)]))
    if draw(st.integers(0, 5)) == 0:
        content = [
            {"type": "text", "text": "shot"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        ]
    return {"type": "tool_result", "tool_use_id": tid, "content": content, "is_error": draw(st.booleans())}


def _manager(msgs: list[dict[str, Any]], strategy: str, fraction: float) -> ContextManager:
    chosen = WindowedPassthroughStrategy(fraction) if strategy == "windowed" else PassthroughStrategy()
    cm = ContextManager.open("memory:", strategy=chosen)
    cm.add_messages(msgs)
    return cm


@pytest.mark.parametrize("strategy", ["passthrough", "windowed"])
@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    msgs=conversations(),
    max_tokens=st.one_of(st.integers(30, 600), st.integers(600, 40_000)),
    reserve=st.sampled_from([0, 0, 0.1, 0.5]),
    fraction=st.sampled_from([0.3, 0.5, 1.0]),
    max_images=st.sampled_from([None, 0, 1, 20]),
    keep_thinking=st.sampled_from([None, 0, 1]),
    inject=st.booleans(),
)
def test_every_compile_is_valid_within_budget_deterministic_and_read_only(
    strategy: str,
    msgs: list[dict[str, Any]],
    max_tokens: int,
    reserve: float,
    fraction: float,
    max_images: int | None,
    keep_thinking: int | None,
    inject: bool,
) -> None:
    cm = _manager(msgs, strategy, fraction)
    before = journal_state(cm)
    options = CompileOptions(max_images=max_images, keep_thinking_turns=keep_thinking)
    injections = [Injection("remember: be brief", position="before_last_user")] if inject else None
    args = (max_tokens, int(max_tokens * reserve), "You are a careful agent.", injections)
    try:
        preview = cm.preview_context(*args, options=options)
    except OverBudgetError as err:
        event("over budget")
        assert err.actual > err.budget and err.parts
        with pytest.raises(OverBudgetError):
            cm.compile(*args, options=options)
        assert journal_state(cm) == before
        return
    except EmptyContextError:  # nothing to send (only empty or filtered messages): an error
        event("empty")
        with pytest.raises(EmptyContextError):
            cm.compile(*args, options=options)
        return
    assert_valid(preview, EstimatingCounter(), thinking=thinking_loop(cm))
    running_loop_kept_whole(cm, preview)
    event(f"dropped some: {preview.dropped > 0}")
    for r in {r.kind for r in preview.repairs}:
        event(f"repair {r}")
    assert journal_state(cm) == before  # preview wrote nothing at all
    cm.compile(*args, options=options)  # a windowed anchor may move once here
    result = cm.compile(*args, options=options)
    again = cm.compile(*args, options=options)
    assert json.dumps(result.to_dict()) == json.dumps(again.to_dict())
    assert json.dumps(result.to_anthropic()) == json.dumps(again.to_anthropic())
    assert json.dumps(result.to_openai()) == json.dumps(again.to_openai())
    if strategy == "passthrough":
        assert result.to_dict() == preview.to_dict()
    assert [r for r in journal_state(cm) if r["item"].startswith("msg")] == [
        r for r in before if r["item"].startswith("msg")
    ]
    assert result.tokens <= max_tokens - args[1]
    # Signed thinking is sent byte-identical or not at all.
    stored = set(stored_blocks(cm, "thinking"))
    for m in result.messages:
        for b in m.content:
            if b["type"] == "thinking":
                assert json.dumps(b, sort_keys=True) in stored and b.get("signature")
    # Coverage: every message of the view is rendered, or counted as dropped.
    own = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
    system = {s.id for s in result.system_sources if s.kind == "system"}
    assert len(own) + len(system) + result.dropped == cm.message_count()
