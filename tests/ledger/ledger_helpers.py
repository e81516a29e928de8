"""Helpers of the ledger tests: B47's conversation for any plan-tool shape, and the compiled text."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from context_journal.compile import CompileResult
from context_journal.manager import ContextManager

STATUSES_V1 = ("pending", "pending", "pending")
STATUSES_V2 = ("completed", "in_progress", "pending")
ITEMS = ("add index on orders.customer_id", "rewrite slow report query", "benchmark report endpoint")


def todo_write(statuses: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    """Claude Code's ``TodoWrite``."""
    return "TodoWrite", {"todos": [{"content": t, "status": s} for t, s in zip(ITEMS, statuses, strict=True)]}


def update_plan(statuses: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    """OpenAI/Codex ``update_plan``."""
    return "update_plan", {
        "explanation": "speed up the report",
        "plan": [{"step": t, "status": s} for t, s in zip(ITEMS, statuses, strict=True)],
    }


def write_todos(statuses: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    """LangChain deep agents' ``write_todos``."""
    return "write_todos", {"todos": [{"content": t, "status": s} for t, s in zip(ITEMS, statuses, strict=True)]}


def task_board(statuses: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    """A host's own MCP tool, configured with ``PlanShape(items="tasks", text=("title",), status="state")``."""
    return "mcp__board__set_tasks", {"tasks": [{"title": t, "state": s} for t, s in zip(ITEMS, statuses, strict=True)]}


PLAN_SHAPES: dict[str, Callable[[tuple[str, ...]], tuple[str, dict[str, Any]]]] = {
    "TodoWrite": todo_write,
    "update_plan": update_plan,
    "write_todos": write_todos,
    "custom": task_board,
}


def bash_pair(cm: ContextManager, k: int) -> None:
    """One Bash call and its 30-line result (B47's filler)."""
    cm.add_message(
        "assistant",
        [{"type": "tool_use", "id": f"b{k}", "name": "Bash", "input": {"command": f"psql -c 'EXPLAIN ANALYZE q{k}'"}}],
        id=f"w{2 * k}",
    )
    lines = "\n".join(f"row {k}.{i}: seq scan on orders cost=0.00..{1000 + i}.00 rows={i * 7}" for i in range(30))
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"b{k}", "content": lines}], id=f"w{2 * k + 1}")


def b47(cm: ContextManager, shape: Callable[[tuple[str, ...]], tuple[str, dict[str, Any]]]) -> None:
    """B47 with ``shape``'s plan tool: the plan (all pending), 5 Bash pairs, the update, 63 Bash pairs."""
    cm.add_message("user", "The monthly report endpoint is slow. Plan the work and do it.", id="u0")
    name, data = shape(STATUSES_V1)
    cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": name, "input": data}], id="c1")
    cm.add_message(
        "user",
        [{"type": "tool_result", "tool_use_id": "t1", "content": "Todos have been modified successfully."}],
        id="r1",
    )
    for k in range(1, 6):
        bash_pair(cm, k)
    name, data = shape(STATUSES_V2)
    cm.add_message("assistant", [{"type": "tool_use", "id": "t7", "name": name, "input": data}], id="c7")
    cm.add_message(
        "user",
        [{"type": "tool_result", "tool_use_id": "t7", "content": "Todos have been modified successfully."}],
        id="r7",
    )
    for k in range(6, 69):
        bash_pair(cm, k)


def text_of(result: CompileResult) -> str:
    """Everything the model reads, as one string."""
    return json.dumps([list(m.content) for m in result.messages])


def ledger_block(result: CompileResult) -> str | None:
    """The working-state block's text, or None."""
    for m in result.messages:
        if any(s.kind == "ledger" for s in m.sources):
            return str(m.content[0]["text"])
    return None
