"""``AnthropicTokenCounter``: the provider's token-counting endpoint through the official SDK,
over a mock HTTP transport (no network): the request it sends, the count it returns, the calibration it
reports, and its failures as the ``ProviderError`` family after the usual retries."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from context_journal import ContextManager, MemoryStore
from context_journal.tokens import FULL_REPORT_TOKENS

if TYPE_CHECKING:  # the fixtures' types (tests/llm/conftest.py); imported by name only for the checker
    from tests.llm.conftest import FakeSleep, MockServer

from context_journal.llm import (
    AnthropicTokenCounter,
    ProviderAuthError,
    ProviderResponseError,
    ProviderTransientError,
)


@pytest.fixture
def server(mock_server_factory: Callable[[str], MockServer]) -> MockServer:
    return mock_server_factory("anthropic")


def _counter(server: MockServer, sleep: FakeSleep | None = None, **kwargs: Any) -> AnthropicTokenCounter:
    return AnthropicTokenCounter(
        "claude-sonnet-4-5", api_key="test-key", http_client=server.client(), sleep=sleep, **kwargs
    )


def test_counts_a_compiled_request_and_sends_what_takes_tokens(server: MockServer) -> None:
    cm = ContextManager.open(store=MemoryStore())
    cm.add_message("user", "What is the capital of France?")
    cm.add_message("assistant", "Paris.")
    result = cm.compile(max_tokens=1000, system="Be brief.")
    server.script.append((200, {"input_tokens": 27}))
    assert _counter(server).count(result.to_anthropic()) == 27
    assert server.urls[0].endswith("/v1/messages/count_tokens")
    body = server.bodies[0]
    assert body["model"] == "claude-sonnet-4-5"
    assert body["messages"] == result.to_anthropic()["messages"]
    assert body["system"] == result.to_anthropic()["system"]
    sent_headers = {k.lower(): v for k, v in server.headers[0].items()}
    assert "test-key" in (sent_headers.get("x-api-key"), sent_headers.get("authorization", "").removeprefix("Bearer "))


def test_tools_go_with_the_request_and_other_fields_stay_out(server: MockServer) -> None:
    tool = {"name": "lookup", "description": "Look a word up.", "input_schema": {"type": "object"}}
    server.script.append((200, {"input_tokens": 412}))
    request = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 100, "temperature": 0.2}
    assert _counter(server).count(request, tools=[tool]) == 412
    assert server.bodies[0] == {
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [tool],
        "model": "claude-sonnet-4-5",
    }


def test_calibrate_reports_the_count_to_the_manager(server: MockServer) -> None:
    cm = ContextManager.open(store=MemoryStore())
    for i in range(80):  # over 1,000 tokens: a report that weighs fully (FULL_REPORT_TOKENS)
        cm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i}: the harbour at dawn, nets and gulls")
    result = cm.compile(max_tokens=4000)
    assert result.estimated_tokens >= FULL_REPORT_TOKENS
    exact = round(result.estimated_tokens * 1.3)
    server.script.append((200, {"input_tokens": exact}))
    factor = _counter(server).calibrate(cm, result)
    assert factor > 1.0  # the estimate was low: the namespace's factor moved up
    again = cm.compile(max_tokens=4000)
    assert again.calibration == pytest.approx(factor)  # the next compile prices with it
    assert sum(again.parts.values()) > result.estimated_tokens


def test_transient_failures_are_retried_then_raised(server: MockServer, fake_sleep: FakeSleep) -> None:
    overloaded = (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    server.script.extend([overloaded, (200, {"input_tokens": 9})])
    assert _counter(server, fake_sleep).count({"messages": [{"role": "user", "content": "hi"}]}) == 9
    assert len(fake_sleep.waits) == 1
    server.script.extend([overloaded] * 4)
    with pytest.raises(ProviderTransientError, match="after 4 attempts"):
        _counter(server, fake_sleep).count({"messages": [{"role": "user", "content": "hi"}]})


def test_auth_failure_and_a_bad_answer_are_typed(server: MockServer) -> None:
    server.script.append(
        (401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})
    )
    with pytest.raises(ProviderAuthError, match="HTTP 401"):
        _counter(server).count({"messages": [{"role": "user", "content": "hi"}]})
    server.script.append((200, {"input_tokens": 0}))
    with pytest.raises(ProviderResponseError, match="not a positive input_tokens"):
        _counter(server).count({"messages": [{"role": "user", "content": "hi"}]})


def test_a_request_without_messages_is_refused_before_any_call(server: MockServer) -> None:
    with pytest.raises(ValueError, match="at least one message"):
        _counter(server).count({"messages": []})
    with pytest.raises(TypeError, match="takes a Messages request"):
        _counter(server).count("nonsense")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must name a model"):
        AnthropicTokenCounter("")
    assert server.urls == []


def test_no_api_key_is_an_auth_error_not_a_type_error(server: MockServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A review found: without a key the SDK raises TypeError while building the request."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    counter = AnthropicTokenCounter("claude-sonnet-4-5", http_client=server.client())
    with pytest.raises(ProviderAuthError, match="authentication method"):
        counter.count({"messages": [{"role": "user", "content": "hi"}]})
    assert server.urls == []


def test_the_request_model_is_counted_for_and_an_absurd_count_is_a_provider_error(server: MockServer) -> None:
    server.script.append((200, {"input_tokens": 5}))
    assert _counter(server).count({"model": "claude-haiku-4-5", "messages": [{"role": "user", "content": "hi"}]}) == 5
    assert server.bodies[0]["model"] == "claude-haiku-4-5"
    server.script.append((200, {"input_tokens": 10**12}))
    with pytest.raises(ProviderResponseError, match="at most"):
        _counter(server).count({"messages": [{"role": "user", "content": "hi"}]})


def test_calibrate_awaits_an_async_manager(server: MockServer) -> None:
    import asyncio

    from context_journal import AsyncContextManager

    async def main() -> tuple[float, float]:
        async with await AsyncContextManager.open(store=MemoryStore()) as acm:
            for i in range(100):  # over 1,000 tokens: a report that weighs fully
                await acm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i}: nets and gulls at dawn")
            result = await acm.compile(max_tokens=4000)
            assert result.estimated_tokens >= FULL_REPORT_TOKENS
            server.script.append((200, {"input_tokens": round(result.estimated_tokens * 1.3)}))
            factor = await _counter(server).acalibrate(acm, result)
            return factor, (await acm.compile(max_tokens=4000)).calibration

    factor, calibration = asyncio.run(main())
    assert isinstance(factor, float) and factor > 1.0 and calibration == pytest.approx(factor)
