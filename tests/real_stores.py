"""Stores built from the real data sets once per run and handed to each test as a copy of its own."""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["CLAUDE_CODE_SESSION", "copy_store"]

CLAUDE_CODE_SESSION = "claude-code-sessions/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
"""The real Claude Code session (308 messages, ~170k tokens) the command-line and MCP tests import."""


def copy_store(source: Path, target: Path) -> Path:
    """A copy of the closed SQLite store ``source`` at ``target`` (once closed, its file is all of it)."""
    assert not Path(f"{source}-wal").exists(), f"{source} is still open"
    shutil.copy(source, target)
    return target
