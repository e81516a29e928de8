"""A second review found: a provider-side call id reused by a later message (a re-recorded response) is
renamed with its result at compile, as a reused client tool_use id is, so the namespace still compiles,
compresses and exports valid requests (it failed every compile, and drain, with duplicate_tool_use)."""

from __future__ import annotations

from typing import Any

import pytest

from context_journal import (
    AutobiographicalConfig,
    AutobiographicalStrategy,
    ContextManager,
    PassthroughStrategy,
    WindowedPassthroughStrategy,
)
from context_journal.validate import validate_messages


def _pair(kind: str) -> list[dict[str, Any]]:
    if kind == "server":
        return [
            {"type": "server_tool_use", "id": "srvtoolu_D", "name": "web_search", "input": {"query": "tides"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_D", "content": []},
        ]
    return [
        {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "look", "server_name": "s", "input": {}},
        {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "content": "found", "is_error": False},
    ]


@pytest.mark.parametrize("kind", ["server", "mcp"])
@pytest.mark.parametrize(
    "strategy",
    [
        PassthroughStrategy,
        WindowedPassthroughStrategy,
        lambda: AutobiographicalStrategy(AutobiographicalConfig.for_budget(2000)),
    ],
)
def test_a_reused_provider_call_id_is_renamed_with_its_result(kind: str, strategy: Any) -> None:
    cm = ContextManager.open("memory:", strategy=strategy())
    for turn in range(3):
        cm.add_message("user", f"question {turn}")
        cm.add_message("assistant", [*_pair(kind), {"type": "text", "text": f"answer {turn}"}])
    cm.add_message("user", "last")
    cm.drain()
    out = cm.compile(max_tokens=5000)
    messages = out.to_anthropic()["messages"]
    validate_messages(messages)
    calls = [b["id"] for m in messages for b in m["content"] if b.get("type") in ("server_tool_use", "mcp_tool_use")]
    assert len(calls) == 3 and len(set(calls)) == 3
    answered = [b["tool_use_id"] for m in messages for b in m["content"] if "tool_use_id" in b]
    assert answered == calls  # each result follows its renamed call
    assert [r.kind for r in out.repairs].count("duplicate_tool_use_renamed") == 2
    cm.close()
