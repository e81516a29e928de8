"""MCP: the ``redact_message`` tool exists only on a server started with ``allow_redact``
(``mcp serve --allow-redact``), erases the message, and is refused to a reader-bound server."""

from __future__ import annotations

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")

import anyio
from mcp import Client

from context_journal import ContextManager
from context_journal.mcp import build_server
from context_journal.stores import MemoryStore
from tests.mcp.mcp_helpers import call, fail


def _run(server: object, body: object) -> None:
    async def main() -> None:
        async with Client(server) as client:  # type: ignore[arg-type]
            await body(client)  # type: ignore[operator]

    anyio.run(main)


def test_no_erasure_tool_unless_allowed() -> None:
    server, backend = build_server(MemoryStore())

    async def body(client: Client) -> None:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "redact_message" not in names and "add_message" in names

    _run(server, body)
    backend.close()


def test_redact_message_tool_erases_and_is_refused_to_a_reader() -> None:
    store = MemoryStore()
    server, backend = build_server(store, allow_redact=True)

    async def body(client: Client) -> None:
        tool = next(t for t in (await client.list_tools()).tools if t.name == "redact_message")
        assert tool.annotations is not None and tool.annotations.destructive_hint is True
        first = await call(client, "add_message", participant="user", content="my card is 4111-SECRETCARD")
        await call(client, "add_message", participant="assistant", content="noted")
        hits = await call(client, "search_messages", query="SECRETCARD")
        assert [h["message_id"] for h in hits["hits"]] == [first["id"]]
        out = await call(client, "redact_message", message_id=first["id"], reason="user request")
        assert out["message_id"] == first["id"] and out["versions"] and out["sequence"] > 0
        assert (await call(client, "search_messages", query="SECRETCARD"))["hits"] == []
        compiled = await call(client, "compile_context", max_tokens=2000)
        assert "SECRETCARD" not in str(compiled)
        assert "reason" in await fail(client, "redact_message", message_id=first["id"], reason=" ")
        assert "MessageNotFoundError" in await fail(client, "redact_message", message_id="nope", reason="x")

    _run(server, body)
    backend.close()
    assert [r.reason for r in ContextManager.open(store=store).redactions()] == ["user request"]

    reader_server, reader_backend = build_server(store, allow_redact=True, reader="ann")

    async def as_reader(client: Client) -> None:  # a reader-bound server never offers erasure
        assert "redact_message" not in {t.name for t in (await client.list_tools()).tools}

    _run(reader_server, as_reader)
    reader_backend.close()
