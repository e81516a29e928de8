"""The Anthropic adapter against a mock HTTP transport: request JSON, response mapping, retries."""

from __future__ import annotations

import asyncio
import email.utils
from typing import Any

import pytest

from context_journal.errors import MissingExtraError
from context_journal.llm import (
    AnthropicProvider,
    LLMRequest,
    ProviderAuthError,
    ProviderRequestError,
    ProviderTransientError,
    RetryPolicy,
)
from context_journal.llm.anthropic import encode_anthropic_request

pytest.importorskip("anthropic")

TOOLS = [
    {"name": "Read", "description": "Read a file", "input_schema": {"type": "object", "properties": {}}},
    {"name": "Bash", "description": "Run a command", "input_schema": {"type": "object", "properties": {}}},
]


def message_body(**over: Any) -> dict[str, Any]:
    body = {
        "id": "msg_01ABC",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": "Done.", "citations": None}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 12,
            "output_tokens": 3,
            "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 7,
        },
    }
    body.update(over)
    return body


def error_body(kind: str = "overloaded_error") -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": f"{kind} happened"}}


def tool_request(**over: Any) -> LLMRequest:
    data: dict[str, Any] = {
        "system": "You are terse.",
        "messages": [
            {"role": "user", "content": "Read the config.", "cache": True},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "unsigned musing"},
                    {"type": "thinking", "thinking": "signed musing", "signature": "sig=="},
                    {"type": "text", "text": "Reading it."},
                    {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "/etc/app.toml"}},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "port = 8080"}],
                "cache": True,
            },
        ],
        "tools": TOOLS,
        "tool_choice": "none",
        "max_tokens": 300,
        "temperature": 0.2,
        "stop_sequences": ["END"],
        "cache_system": True,
        "cache_tools": True,
        "metadata": {"target_tokens": 100},
    }
    data.update(over)
    return LLMRequest.model_validate(data)


def provider(server: Any, sleep: Any, **kw: Any) -> AnthropicProvider:
    kw.setdefault("retry", RetryPolicy(max_attempts=4, base_delay=1.0, jitter=0.0))
    return AnthropicProvider("claude-test", api_key="test-key", http_client=server.client(), sleep=sleep, **kw)


def test_request_json_has_system_tools_messages_and_cache_markers(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("anthropic")
    server.script.append((200, message_body()))
    asyncio.run(provider(server, fake_sleep).complete(tool_request()))
    assert server.urls == ["https://api.anthropic.com/v1/messages"]
    assert any("test-key" in v for v in server.headers[0].values())
    eph = {"type": "ephemeral"}
    assert server.bodies[0] == {
        "model": "claude-test",
        "max_tokens": 300,
        "system": [{"type": "text", "text": "You are terse.", "cache_control": eph}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Read the config.", "cache_control": eph}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "signed musing", "signature": "sig=="},
                    {"type": "text", "text": "Reading it."},
                    {"type": "tool_use", "id": "toolu_01", "name": "Read", "input": {"file_path": "/etc/app.toml"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01", "content": "port = 8080", "cache_control": eph}
                ],
            },
        ],
        "tools": [TOOLS[0], {**TOOLS[1], "cache_control": eph}],
        "tool_choice": {"type": "none"},
        "temperature": 0.2,
        "stop_sequences": ["END"],
    }


def test_at_most_four_cache_markers_keeping_prefix_and_latest() -> None:
    messages = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}", "cache": True} for i in range(7)
    ]
    req = LLMRequest(messages=messages, system="S", tools=TOOLS, cache_system=True, cache_tools=True)
    params = encode_anthropic_request(req, model="m")
    marked = [i for i, m in enumerate(params["messages"]) if "cache_control" in m["content"][-1]]
    assert marked == [5, 6]
    assert "cache_control" in params["tools"][-1]
    assert "cache_control" in params["system"][-1]
    # A host's own markers count first.
    own = [{"role": "user", "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}]}] * 3
    req2 = LLMRequest(
        messages=[*own, {"role": "assistant", "content": "y", "cache": True}], system="S", cache_system=True
    )
    params2 = encode_anthropic_request(req2, model="m")
    assert "cache_control" in params2["system"][-1]
    assert "cache_control" not in params2["messages"][-1]["content"][-1]


def test_more_than_four_markers_in_the_content_are_capped_to_the_newest() -> None:
    """B48 (kind 4): a host's own markers alone exceed the limit: the request carries 4, the system
    prompt's first (the adapter places it; review finding F11: the most stable prefix is kept) then the
    newest messages', and a warning names the rest (the adapter counts with the exporter's one function)."""
    from context_journal.formats.exporters import CacheMarkersDroppedWarning

    eph = {"type": "ephemeral"}
    messages = [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "content": [{"type": "text", "text": f"t{i}", "cache_control": eph}],
        }
        for i in range(6)
    ]
    with pytest.warns(CacheMarkersDroppedWarning) as caught:
        params = encode_anthropic_request(LLMRequest(messages=messages, system="S", cache_system=True), model="m")
    marked = [i for i, m in enumerate(params["messages"]) if "cache_control" in m["content"][-1]]
    assert marked == [3, 4, 5]
    assert params["system"][-1]["cache_control"] == eph
    assert caught[0].message.dropped == (  # type: ignore[union-attr]
        "messages[0].content[0]",
        "messages[1].content[0]",
        "messages[2].content[0]",
    )


def test_cache_ttl_and_plain_system_without_flag() -> None:
    req = LLMRequest(messages=[{"role": "user", "content": "hi", "cache": True}], system="plain")
    params = encode_anthropic_request(req, model="m", cache_ttl="1h")
    assert params["system"] == "plain"
    assert params["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}


def test_response_mapping(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("anthropic")
    content = [
        {"type": "thinking", "thinking": "hmm", "signature": "abc"},
        {"type": "text", "text": "Calling.", "citations": None},
        {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "ls"}},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
    ]
    server.script.append((200, message_body(content=content, stop_reason="tool_use")))
    resp = asyncio.run(provider(server, fake_sleep).complete(tool_request()))
    assert [b.type for b in resp.content] == ["thinking", "text", "tool_use"]
    assert resp.stop_reason == "tool_use"
    assert resp.id == "msg_01ABC" and resp.model == "claude-test" and resp.provider == "anthropic"
    assert resp.usage.input_tokens == 12 and resp.usage.output_tokens == 3
    assert resp.usage.cache_read_input_tokens == 100 and resp.usage.cache_creation_input_tokens == 7
    assert resp.tool_uses[0].input == {"command": "ls"}  # type: ignore[union-attr]
    assert resp.text == "Calling."


@pytest.mark.parametrize("status", [529, 500, 429])
def test_retries_transient_status_then_succeeds(status: int, mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("anthropic")
    server.script += [(status, error_body()), (status, error_body()), (200, message_body())]
    resp = asyncio.run(provider(server, fake_sleep).complete(tool_request()))
    assert resp.text == "Done."
    assert len(server.bodies) == 3
    assert server.bodies[0] == server.bodies[2]  # the same request each time
    assert fake_sleep.waits == [1.0, 2.0]  # exponential, no jitter in this policy


def test_honours_retry_after(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("anthropic")
    later = email.utils.formatdate(1_000_000 + 9, usegmt=True)
    server.script += [
        (429, error_body("rate_limit_error"), {"retry-after": "7"}),
        (429, error_body("rate_limit_error"), {"retry-after": later}),
        (200, message_body()),
    ]
    p = provider(server, fake_sleep, clock=lambda: 1_000_000.0)
    asyncio.run(p.complete(tool_request()))
    assert fake_sleep.waits == [7.0, 9.0]


def test_gives_up_after_max_attempts(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("anthropic")
    server.script += [(529, error_body())] * 3
    p = provider(server, fake_sleep, retry=RetryPolicy(max_attempts=3, base_delay=0.5, jitter=0.0))
    with pytest.raises(ProviderTransientError) as info:
        asyncio.run(p.complete(tool_request()))
    err = info.value
    assert err.status_code == 529 and err.attempts == 3 and err.provider == "anthropic"
    assert err.model == "claude-test"
    assert "after 3 attempts" in str(err)
    assert len(server.bodies) == 3 and fake_sleep.waits == [0.5, 1.0]


def test_too_long_retry_after_ends_retries(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("anthropic")
    server.script += [(429, error_body("rate_limit_error"), {"retry-after": "3600"})]
    with pytest.raises(ProviderTransientError) as info:
        asyncio.run(provider(server, fake_sleep).complete(tool_request()))
    assert info.value.retry_after == 3600.0 and info.value.attempts == 1
    assert fake_sleep.waits == []


def test_max_retries_shortcut(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("anthropic")
    server.script += [(500, error_body("api_error"))] * 2
    p = AnthropicProvider("m", api_key="k", http_client=server.client(), sleep=fake_sleep, max_retries=1)
    with pytest.raises(ProviderTransientError) as info:
        asyncio.run(p.complete(tool_request()))
    assert info.value.attempts == 2 and len(server.bodies) == 2


def test_connection_errors_are_retried(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("anthropic")
    server.script += [server.httpx.ConnectError("refused"), (200, message_body())]
    resp = asyncio.run(provider(server, fake_sleep).complete(tool_request()))
    assert resp.text == "Done." and len(fake_sleep.waits) == 1


@pytest.mark.parametrize(("status", "error"), [(400, ProviderRequestError), (401, ProviderAuthError)])
def test_client_errors_are_not_retried(
    status: int, error: type[Exception], mock_server_factory: Any, fake_sleep: Any
) -> None:
    server = mock_server_factory("anthropic")
    server.script += [(status, error_body("invalid_request_error"))]
    with pytest.raises(error) as info:
        asyncio.run(provider(server, fake_sleep).complete(tool_request()))
    assert info.value.status_code == status  # type: ignore[attr-defined]
    assert info.value.attempts == 1  # type: ignore[attr-defined]
    assert fake_sleep.waits == []


def test_x_should_retry_header_wins(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("anthropic")
    server.script += [(400, error_body(), {"x-should-retry": "true"}), (200, message_body())]
    asyncio.run(provider(server, fake_sleep).complete(tool_request()))
    assert len(server.bodies) == 2


def test_blob_media_is_refused_before_sending() -> None:
    blob = {"type": "image", "source": {"type": "blob", "media_type": "image/png", "sha256": "ab", "size": 1}}
    req = LLMRequest(messages=[{"role": "user", "content": [blob]}])
    with pytest.raises(ProviderRequestError, match="resolve_media"):
        encode_anthropic_request(req, model="m")


def test_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    real = importlib.import_module

    def fake(name: str, *a: Any) -> Any:
        if name == "anthropic":
            raise ImportError("no anthropic")
        return real(name, *a)

    monkeypatch.setattr(importlib, "import_module", fake)
    with pytest.raises(MissingExtraError, match=r"context-journal\[anthropic\]"):
        AnthropicProvider("m")


def test_given_client_has_sdk_retries_switched_off() -> None:
    import anthropic

    client = anthropic.AsyncAnthropic(api_key="k", max_retries=5)
    p = AnthropicProvider("m", client=client)
    assert p.client.max_retries == 0
