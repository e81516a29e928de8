"""What the MCP tests share: calling a tool that must succeed or fail, and a subprocess environment."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from typing import Any

import pytest
from mcp import Client

__all__ = ["call", "env", "fail", "free_port", "wait_until_listening"]


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


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_listening(proc: subprocess.Popen[bytes], port: int, seconds: float = 30) -> None:
    """Wait until something listens on 127.0.0.1:``port``; the test fails, with ``proc``'s standard error,
    when ``proc`` exits first or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the server did not start: {proc.stderr.read().decode() if proc.stderr else ''}")
            time.sleep(0.05)
