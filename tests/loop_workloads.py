"""The concurrent workloads that must leave a caller's event loop free: run by the tests (which count the
threads that ran store work, ``thread_probe.py``) and by ``benchmarks/bench_loop_lag.py`` (which measures
how late the loop wakes meanwhile)."""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["manager_tasks", "mcp_calls", "session_items", "warm_messages"]


def warm_messages(n: int) -> list[Any]:
    """``n`` alternating user/assistant messages of about 60 tokens, the history the workloads run over."""
    from context_journal.messages import MessageInput

    return [MessageInput("user" if i % 2 else "assistant", f"turn {i} about the harbour " * 12) for i in range(n)]


async def manager_tasks(cm: Any, tasks: int = 100) -> list[list[str]]:
    """``tasks`` tasks on one :class:`AsyncContextManager`, each writing 10 messages and compiling (4,000
    tokens) after every third; each task's message ids, in its order."""

    async def task(k: int) -> list[str]:
        ids = []
        for i in range(10):
            ids.append(await cm.add_message("user", f"task {k} message {i}"))
            if i % 3 == 0:
                await cm.compile(max_tokens=4000)
        return ids

    return list(await asyncio.gather(*(task(k) for k in range(tasks))))


async def session_items(sessions: list[Any], items: int = 40) -> list[bool]:
    """Each Agents SDK session adds ``items`` items one call at a time, reading them back every fifth; per
    session, whether it read back exactly what it wrote."""

    async def run(k: int, session: Any) -> bool:
        written = []
        for i in range(items):
            item = {"role": "user" if i % 2 else "assistant", "content": f"session {k} item {i} " * 8}
            written.append(item)
            await session.add_items([item])
            if i % 5 == 0 and await session.get_items() != written:
                return False
        return bool(await session.get_items() == written)

    return list(await asyncio.gather(*(run(k, s) for k, s in enumerate(sessions))))


async def mcp_calls(client: Any, calls: int = 100) -> list[str]:
    """``calls`` concurrent MCP tool calls (a write, a search, then two compiles, in turn) after one compile
    that opens the namespace; the errors' texts (empty: none failed)."""
    import anyio  # the MCP SDK's (extra "mcp")

    errors: list[str] = []
    await client.call_tool("compile_context", {"max_tokens": 4000})

    async def one(k: int) -> None:
        if k % 4 == 0:
            result = await client.call_tool("add_message", {"participant": "user", "content": f"call {k}"})
        elif k % 4 == 1:
            result = await client.call_tool("search_messages", {"query": f"turn {k} harbour"})
        else:
            result = await client.call_tool("compile_context", {"max_tokens": 4000})
        if result.is_error:
            errors.append(str(result.content)[:200])

    async with anyio.create_task_group() as tg:
        for k in range(calls):
            tg.start_soon(one, k)
    return errors
