"""MCP ``compile_context(auxiliary_namespaces=...)``: a side reader's namespace compiled with an imported
conversation merged in, recorded for the namespace (later calls and compress use it); a mistyped, own-slot
or conflicting list is a one-line error."""

from __future__ import annotations

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")

from mcp import Client

from context_journal.manager import ContextManager
from context_journal.mcp import build_server
from context_journal.stores import MemoryStore
from tests.mcp.mcp_helpers import call, fail


def test_compile_context_merges_auxiliary_namespaces_for_the_call() -> None:
    store = MemoryStore()
    talk = ContextManager.open(store=store, namespace="talk", isolate=True)  # an imported conversation's slot
    talk.add_message("user", "We meet at the Quinta da Regaleira on Friday.")
    talk.add_message("assistant", "Noted: Friday at the Quinta.")
    server, backend = build_server(store)

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            await call(client, "add_message", participant="critic", content="Check the Friday plan", namespace="critic")
            merged = await call(
                client, "compile_context", max_tokens=2000, namespace="critic", auxiliary_namespaces=["talk"]
            )
            text = str(merged["messages"])
            assert "Regaleira" in text and "Check the Friday plan" in text
            assert text.index("Regaleira") < text.index("Check the Friday plan")  # in append order
            later = await call(client, "compile_context", max_tokens=2000, namespace="critic")
            assert "Regaleira" in str(later["messages"])  # recorded for the namespace
            error = await fail(client, "compile_context", max_tokens=2000, namespace="critic", auxiliary_namespaces=[])
            assert "records auxiliary views ['talk']" in error and error.count("\n") == 0
            error = await fail(
                client, "compile_context", max_tokens=2000, namespace="critic", auxiliary_namespaces=["tlak"]
            )
            assert "no namespace 'tlak'" in error and "talk" in error and error.count("\n") == 0
            await call(client, "add_message", participant="critic", content="x", namespace="other")
            error = await fail(
                client, "compile_context", max_tokens=2000, namespace="other", auxiliary_namespaces=["default"]
            )
            assert "own message slot" in error
            # the talk itself is untouched: its own compile holds its two messages only
            own = await call(client, "compile_context", max_tokens=2000, namespace="talk")
            assert "Check the Friday plan" not in str(own["messages"])

    anyio.run(main)
    backend.close()
