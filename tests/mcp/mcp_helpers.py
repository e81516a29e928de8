"""What the MCP tests share: calling a tool that must succeed or fail, and a subprocess environment."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from mcp import Client

__all__ = ["call", "env", "fail"]


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; its structured result."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    # Every tool's text content is its structured result as compact JSON (indented was +17%).
    text = " ".join(getattr(c, "text", "") for c in result.content)
    if text.startswith("{"):
        compact = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
        assert "\n" not in text and text == compact, text[:200]
    structured: dict[str, Any] = result.structured_content
    return structured


async def fail(client: Client, tool: str, **arguments: Any) -> str:
    """Call a tool that must fail; its error text."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return " ".join(getattr(c, "text", "") for c in result.content)


def env() -> dict[str, str]:
    """The environment of a server subprocess: this interpreter's import path."""
    return {"PYTHONPATH": os.pathsep.join(sys.path), "PATH": os.environ.get("PATH", "")}
