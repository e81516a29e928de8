"""Builders of journal entry bodies shared by the journal and MCP tests."""

from __future__ import annotations

from typing import Any


def plan(tasks: int = 3, goal: str = "Ship the parser", conditions: int = 2) -> dict[str, Any]:
    """A plan body with tasks ``T1..Tn``, each with conditions ``c1..ck``."""
    return {
        "goal": goal,
        "tasks": [
            {
                "id": f"T{i}",
                "title": f"Task number {i}",
                "conditions": [
                    {"id": f"c{k}", "description": f"condition {k} of T{i} holds", "check": f"pytest -k t{i}_{k}"}
                    for k in range(1, conditions + 1)
                ],
            }
            for i in range(1, tasks + 1)
        ],
    }


def handoff(
    state: str = "Parser half done.",
    *,
    goal: str = "Ship the parser",
    next_step: str = "Write the PEG grammar",
    ruled_out: list[tuple[str, str, str]] | None = None,
    claims: list[str] | None = None,
    refs: list[str] | None = None,
) -> dict[str, Any]:
    """A handoff body; ``ruled_out`` as ``(id, item, reason)`` triples."""
    return {
        "goal": goal,
        "state": state,
        "next_step": next_step,
        "ruled_out": [{"id": i, "item": it, "reason": r} for i, it, r in ruled_out or []],
        "done_claims": claims or [],
        "refs": refs or [],
    }


def verification(task: str = "T1", passed: bool = True, conditions: int = 2) -> dict[str, Any]:
    """A verification body giving every condition of ``task`` the same result."""
    return {
        "task_id": task,
        "results": [
            {"condition_id": f"c{k}", "passed": passed, "detail": "ok" if passed else "assertion failed"}
            for k in range(1, conditions + 1)
        ],
    }
