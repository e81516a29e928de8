"""A review found: a large provider-side result (a fetched page, code output, an MCP result, a search result
in a user turn) is excerpted by the overflow reductions of every strategy, as a client tool_result is;
passthrough and windowed used to leave the whole history out, the user's question included."""

from __future__ import annotations

from typing import Any

import pytest

from context_journal import ContextManager, PassthroughStrategy, WindowedPassthroughStrategy
from context_journal.validate import validate_messages

BIG = "Paris weather: 18C, rain, wind from the west. " * 1200  # about 12,000 tokens


def _result(kind: str) -> list[dict[str, Any]]:
    if kind == "web_fetch":
        doc = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": BIG}}
        return [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_fetch", "input": {"url": "https://w.example"}},
            {
                "type": "web_fetch_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": {"type": "web_fetch_result", "url": "https://w.example", "content": doc},
            },
        ]
    if kind in ("code_execution", "bash_code_execution"):
        return [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": kind, "input": {"command": "cat w.txt"}},
            {
                "type": f"{kind}_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": {"type": f"{kind}_result", "stdout": BIG, "stderr": "", "return_code": 0, "content": []},
            },
        ]
    return [
        {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "weather", "server_name": "w", "input": {}},
        {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "content": BIG, "is_error": False},
    ]


@pytest.mark.parametrize("strategy", [PassthroughStrategy, WindowedPassthroughStrategy])
@pytest.mark.parametrize("kind", ["web_fetch", "code_execution", "bash_code_execution", "mcp", "search_result"])
def test_a_large_provider_result_is_excerpted_not_the_history_dropped(kind: str, strategy: type) -> None:
    cm = ContextManager.open("memory:", strategy=strategy())
    cm.add_message("user", "What's the weather in Paris?")
    if kind == "search_result":
        cm.add_message("assistant", "Let me look.")
        result = {
            "type": "search_result",
            "source": "https://w.example",
            "title": "Weather",
            "content": [{"type": "text", "text": BIG}],
        }
        cm.add_message("user", [result])
    else:
        cm.add_message("assistant", [*_result(kind), {"type": "text", "text": "It is 18C."}])
    cm.add_message("user", "thanks, and tomorrow?")
    out = cm.compile(max_tokens=6000)
    text = str(out.to_dict())
    assert "What's the weather in Paris?" in text and "thanks, and tomorrow?" in text
    assert not out.omitted and 4000 < out.tokens <= 6000
    assert "excerpted" in [r.kind for r in out.repairs]
    assert "tokens cut here" in text
    validate_messages(out.to_anthropic()["messages"])
    cm.close()


@pytest.mark.parametrize("strategy", [PassthroughStrategy, WindowedPassthroughStrategy])
def test_a_large_encrypted_reasoning_item_is_left_out_not_the_history(strategy: type) -> None:
    """Second review: 12 KB of encrypted reasoning beside a tool call made passthrough and windowed leave
    out every earlier message and the question; the reasoning (optional to send back) goes instead."""
    cm = ContextManager.open("memory:", strategy=strategy())
    for k in range(5):
        cm.add_message("user", f"earlier question {k}")
        cm.add_message("assistant", f"earlier answer {k}")
    cm.add_message("user", "Please check the weather in Paris.")
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA" + "x" * 48_000}
    call = {"type": "tool_use", "id": "call_9", "name": "weather", "input": {"city": "Paris"}}
    cm.add_message("assistant", [reasoning, call])
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "call_9", "content": "18C"}])
    out = cm.compile(max_tokens=3000)
    text = str(out.to_dict())
    assert not out.omitted and "Please check the weather in Paris." in text and "earlier question 0" in text
    assert "gAAAA" not in text and "call_9" in text
    items = out.to_openai_responses()
    assert [i["type"] for i in items if i["type"] != "message"] == ["function_call", "function_call_output"]
    cm.close()
