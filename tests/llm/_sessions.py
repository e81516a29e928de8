"""A small local reader of Claude Code session files (the importer lives in ``formats/``; these tests
only need messages): ``user``/``assistant`` lines, ``message.content``, consecutive same-role lines
merged into one message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from context_journal.llm import LLMMessage, LLMRequest

KNOWN = {"text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document"}


def _clean(block: dict[str, Any]) -> dict[str, Any] | None:
    kind = block.get("type")
    if kind not in KNOWN:
        return None
    if kind == "text" and not block.get("text", "").strip():
        return None
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, list):
            content = [b for b in content if isinstance(b, dict) and b.get("type") in ("text", "image")]
        return {
            "type": "tool_result",
            "tool_use_id": block["tool_use_id"],
            "content": content,
            "is_error": bool(block.get("is_error", False)),
        }
    if kind == "thinking":
        return {"type": "thinking", "thinking": block.get("thinking", "")}
    return block


def load_session(path: Path) -> list[LLMMessage]:
    """The session's user/assistant turns as request messages."""
    merged: list[tuple[str, list[dict[str, Any]]]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("type") not in ("user", "assistant") or rec.get("isCompactSummary"):
            continue
        msg = rec.get("message") or {}
        role = msg.get("role")
        content = msg.get("content")
        if isinstance(content, str):
            blocks = [{"type": "text", "text": content}] if content.strip() else []
        else:
            blocks = [b for b in (_clean(b) for b in content or []) if b is not None]
        if not blocks or role not in ("user", "assistant"):
            continue
        if merged and merged[-1][0] == role:
            merged[-1][1].extend(blocks)
        else:
            merged.append((role, blocks))
    return [LLMMessage(role=role, content=blocks) for role, blocks in merged]


def summary_request(messages: list[LLMMessage], target_tokens: int) -> LLMRequest:
    """A summarisation request over ``messages`` with an instruction turn at the end."""
    instruction = LLMMessage(
        role="user",
        content="Write a first-person memory of the conversation above that keeps concrete details.",
    )
    return LLMRequest(
        system="You are summarising your own work.",
        messages=[*messages, instruction],
        max_tokens=4 * target_tokens,
        metadata={"target_tokens": target_tokens},
    )
