"""The OpenAI adapter against a mock HTTP transport: request JSON, response mapping, retries."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest

from context_journal.llm import (
    LLMRequest,
    OpenAIProvider,
    ProviderRequestError,
    ProviderResponseError,
    ProviderTransientError,
    RetryPolicy,
)
from context_journal.llm.openai import encode_openai_request

pytest.importorskip("openai")

PNG = base64.b64encode(b"\x89PNG fake").decode()
TOOLS = [{"name": "Read", "description": "Read a file", "input_schema": {"type": "object", "properties": {}}}]


def completion(message: dict[str, Any], finish: str = "stop", **usage: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", **message}}],
        "usage": {
            "prompt_tokens": usage.get("prompt", 50),
            "completion_tokens": usage.get("completion", 5),
            "total_tokens": 55,
            "prompt_tokens_details": {"cached_tokens": usage.get("cached", 20)},
        },
    }


def error_body() -> dict[str, Any]:
    return {"error": {"message": "slow down", "type": "rate_limit", "code": None, "param": None}}


def tool_request(**over: Any) -> LLMRequest:
    data: dict[str, Any] = {
        "system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Use tools."}],
        "messages": [
            {"role": "user", "name": "ann", "content": "Open the config."},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "t", "signature": "s"},
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "call_1", "name": "Read", "input": {"path": "/etc/a"}},
                    {"type": "tool_use", "id": "call_2", "name": "Read", "input": {"path": "/etc/b"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": "a=1"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "call_2",
                        "is_error": True,
                        "content": [
                            {"type": "text", "text": "no such file"},
                            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                        ],
                    },
                    {"type": "text", "text": "Now what?"},
                ],
            },
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "only thinking"}]},
        ],
        "tools": TOOLS,
        "tool_choice": "any",
        "max_tokens": 200,
        "stop_sequences": ["STOP"],
        "cache_system": True,
    }
    data.update(over)
    return LLMRequest.model_validate(data)


def provider(server: Any, sleep: Any, **kw: Any) -> OpenAIProvider:
    kw.setdefault("retry", RetryPolicy(max_attempts=3, base_delay=1.0, jitter=0.0))
    return OpenAIProvider("gpt-test", api_key="sk-test", http_client=server.client(), sleep=sleep, **kw)


def test_request_json_maps_tools_and_tool_results(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("openai")
    server.script.append((200, completion({"content": "ok"})))
    asyncio.run(provider(server, fake_sleep).complete(tool_request()))
    assert server.urls == ["https://api.openai.com/v1/chat/completions"]
    assert server.bodies[0] == {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "Be brief.\n\nUse tools."},
            {"role": "user", "content": "Open the config.", "name": "ann"},
            {
                "role": "assistant",
                "content": "Reading.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "Read", "arguments": '{"path": "/etc/a"}'},
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "Read", "arguments": '{"path": "/etc/b"}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "a=1"},
            {"role": "tool", "tool_call_id": "call_2", "content": "[error] no such file"},
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                    {"type": "text", "text": "Now what?"},
                ],
            },
        ],
        "max_completion_tokens": 200,
        "tools": [
            {
                "type": "function",
                "function": {"name": "Read", "description": "Read a file", "parameters": TOOLS[0]["input_schema"]},
            }
        ],
        "tool_choice": "required",
        "stop": ["STOP"],
    }


def test_compatible_server_through_base_url(
    mock_server_factory: Any, fake_sleep: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = mock_server_factory("openai")
    server.script.append((200, completion({"content": "local"})))
    p = OpenAIProvider("llama", base_url="http://localhost:8000/v1", http_client=server.client(), sleep=fake_sleep)
    req = LLMRequest(messages=[{"role": "user", "content": "hi"}], temperature=0.0)
    resp = asyncio.run(p.complete(req))
    assert resp.text == "local"
    assert server.urls == ["http://localhost:8000/v1/chat/completions"]
    assert server.bodies[0] == {
        "model": "llama",
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 1024,
        "temperature": 0.0,
    }


@pytest.mark.parametrize(
    ("finish", "stop"),
    [("stop", "end_turn"), ("length", "max_tokens"), ("tool_calls", "tool_use"), ("content_filter", "refusal")],
)
def test_finish_reason_mapping(finish: str, stop: str, mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("openai")
    server.script.append((200, completion({"content": "x"}, finish)))
    resp = asyncio.run(provider(server, fake_sleep).complete(tool_request()))
    assert resp.stop_reason == stop


def test_response_tool_calls_refusal_and_usage(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("openai")
    calls = [{"id": "call_9", "type": "function", "function": {"name": "Read", "arguments": '{"path": "/x"}'}}]
    server.script.append((200, completion({"content": None, "tool_calls": calls}, "tool_calls", prompt=80, cached=30)))
    server.script.append((200, completion({"content": None, "refusal": "I cannot."})))
    p = provider(server, fake_sleep)
    resp = asyncio.run(p.complete(tool_request()))
    assert [b.type for b in resp.content] == ["tool_use"]
    assert resp.content[0].model_dump() == {"type": "tool_use", "id": "call_9", "name": "Read", "input": {"path": "/x"}}
    assert resp.usage.input_tokens == 50 and resp.usage.cache_read_input_tokens == 30
    assert resp.usage.output_tokens == 5 and resp.id == "chatcmpl-1" and resp.model == "gpt-test"
    refused = asyncio.run(p.complete(tool_request()))
    assert refused.stop_reason == "refusal" and refused.text == "I cannot."


def test_bad_tool_arguments_are_a_response_error(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("openai")
    calls = [{"id": "call_9", "type": "function", "function": {"name": "Read", "arguments": "{not json"}}]
    server.script.append((200, completion({"content": None, "tool_calls": calls}, "tool_calls")))
    with pytest.raises(ProviderResponseError, match="call_9"):
        asyncio.run(provider(server, fake_sleep).complete(tool_request()))


@pytest.mark.parametrize("status", [429, 500, 503])
def test_retries_then_succeeds(status: int, mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("openai")
    server.script += [(status, error_body(), {"retry-after-ms": "2500"}), (200, completion({"content": "ok"}))]
    resp = asyncio.run(provider(server, fake_sleep).complete(tool_request()))
    assert resp.text == "ok" and fake_sleep.waits == [2.5]
    assert server.bodies[0] == server.bodies[1]


def test_gives_up(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("openai")
    server.script += [(500, error_body())] * 3
    with pytest.raises(ProviderTransientError) as info:
        asyncio.run(provider(server, fake_sleep).complete(tool_request()))
    assert info.value.attempts == 3 and info.value.status_code == 500 and fake_sleep.waits == [1.0, 2.0]


def test_timeouts_are_retried(mock_server_factory: Any, fake_sleep: Any) -> None:
    server = mock_server_factory("openai")
    server.script += [server.httpx.ReadTimeout("slow"), (200, completion({"content": "ok"}))]
    assert asyncio.run(provider(server, fake_sleep).complete(tool_request())).text == "ok"
    assert len(server.bodies) == 2


def test_url_document_and_file_image_become_lines_naming_them() -> None:
    """Chat Completions has no form for a URL document or an image given by Files API id: each becomes a
    text line naming it (what the exporter sends too)."""
    blocks = [
        {"type": "document", "source": {"type": "url", "url": "https://x/y.pdf"}},
        {"type": "image", "source": {"type": "file", "file_id": "file_01"}},
    ]
    params = encode_openai_request(LLMRequest(messages=[{"role": "user", "content": blocks}]), model="m")
    assert params["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "[document: https://x/y.pdf]"},
                {"type": "text", "text": "[image: Files API file file_01]"},
            ],
        }
    ]


def test_blob_media_is_a_request_error_naming_the_place() -> None:
    image = {"type": "image", "source": {"type": "blob", "media_type": "image/png", "sha256": "ab", "size": 1}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": [image]}
    with pytest.raises(ProviderRequestError, match="message 0, block 1"):
        encode_openai_request(
            LLMRequest(messages=[{"role": "user", "content": [{"type": "text", "text": "x"}, result]}]), model="m"
        )


def test_text_document_and_base64_pdf() -> None:
    pdf = base64.b64encode(b"%PDF-1.4").decode()
    blocks = [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "plain doc"}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}},
    ]
    params = encode_openai_request(LLMRequest(messages=[{"role": "user", "content": blocks}]), model="m")
    parts = params["messages"][0]["content"]
    assert parts[0] == {"type": "text", "text": "plain doc"}
    assert parts[1]["file"]["file_data"] == f"data:application/pdf;base64,{pdf}"
    assert json.dumps(params)  # JSON-ready
