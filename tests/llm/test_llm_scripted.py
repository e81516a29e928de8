"""The scripted fake provider of context_journal.testing."""

from __future__ import annotations

import asyncio
import time

import pytest

from context_journal.llm import LLMRequest, LLMResponse, ProviderTransientError, Usage
from context_journal.testing import ScriptedProvider, UnexpectedRequestError


def req(text: str = "go", **kw: object) -> LLMRequest:
    return LLMRequest.model_validate({"messages": [{"role": "user", "content": text}], **kw})


def call(p: ScriptedProvider, r: LLMRequest) -> LLMResponse:
    return asyncio.run(p.complete(r))


def test_answers_in_order_and_records_requests() -> None:
    p = ScriptedProvider(["one"]).enqueue(ScriptedProvider.refusal(), ScriptedProvider.truncated("cut"))
    answers = [call(p, req(str(i))) for i in range(3)]
    assert [a.text for a in answers] == ["one", "I can't help with that.", "cut"]
    assert [a.stop_reason for a in answers] == ["end_turn", "refusal", "max_tokens"]
    assert [r.messages[0].content[0].text for r in p.requests] == ["0", "1", "2"]  # type: ignore[union-attr]
    assert p.calls == 3 and p.pending == 0 and p.responses == answers
    p.assert_exhausted()


def test_unexpected_call_fails_loudly_naming_the_request() -> None:
    p = ScriptedProvider(model="fake")
    with pytest.raises(UnexpectedRequestError) as info:
        call(p, req("summarise chunk 7", model="m1"))
    err = info.value
    assert isinstance(err, AssertionError)
    assert "unexpected model call #0" in str(err) and "summarise chunk 7" in str(err) and "'m1'" in str(err)
    assert err.request is p.requests[0]


def test_default_answers_when_queue_is_empty() -> None:
    p = ScriptedProvider(default="fallback")
    assert call(p, req()).text == "fallback" and call(p, req()).text == "fallback"


def test_exceptions_instances_and_classes() -> None:
    p = ScriptedProvider([ProviderTransientError("overloaded", provider="x", status_code=529), TimeoutError])
    with pytest.raises(ProviderTransientError):
        call(p, req())
    with pytest.raises(TimeoutError, match="call #1"):
        call(p, req())
    assert p.calls == 2


def test_callables_sync_and_async() -> None:
    async def later(r: LLMRequest) -> str:
        return f"async saw {len(r.messages)}"

    p = ScriptedProvider([lambda r: ScriptedProvider.text(f"echo {r.max_tokens}"), later])
    assert call(p, req(max_tokens=77)).text == "echo 77"
    assert call(p, req()).text == "async saw 1"


def test_usage_is_estimated_unless_given_and_model_reported() -> None:
    p = ScriptedProvider(
        ["a fairly short answer", ScriptedProvider.text("x", usage=Usage(input_tokens=5, output_tokens=1))]
    )
    first = call(p, req("a question of some length " * 10))
    assert first.usage.input_tokens > 20 and first.usage.output_tokens > 0
    assert first.model == "scripted" and first.provider == "scripted"
    assert call(p, req(model="m2")).usage == Usage(input_tokens=5, output_tokens=1)
    assert p.responses[1].model == "m2"


def test_handy_constructors() -> None:
    assert ScriptedProvider.empty().content == [] and ScriptedProvider.empty().text == ""
    assert ScriptedProvider.max_tokens("x").stop_reason == "max_tokens"
    tu = ScriptedProvider.tool_use("Read", {"path": "/a"}, text="reading")
    assert tu.stop_reason == "tool_use" and [b.type for b in tu.content] == ["text", "tool_use"]


def test_wrong_script_item_type() -> None:
    def answer(request: LLMRequest) -> int:
        return 42

    p = ScriptedProvider([answer])  # type: ignore[list-item]  # an int is no answer: refused when called
    with pytest.raises(TypeError, match="response or a string"):
        call(p, req())


def test_assert_exhausted_reports_leftovers() -> None:
    with pytest.raises(AssertionError, match="2 scripted answers"):
        ScriptedProvider(["a", "b"]).assert_exhausted()


def test_latency_runs_calls_concurrently() -> None:
    p = ScriptedProvider(default="ok", latency=0.05)

    async def many() -> list[LLMResponse]:
        return await asyncio.gather(*(p.complete(req()) for _ in range(10)))

    start = time.perf_counter()
    answers = asyncio.run(many())
    elapsed = time.perf_counter() - start
    assert len(answers) == 10 and 0.05 <= elapsed < 0.45
