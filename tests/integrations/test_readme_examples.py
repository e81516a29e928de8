"""The README's agent-framework examples run as written (offline: the model call is skipped without a key)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def section_blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Agent frameworks: OpenAI Agents SDK and LangChain")
    end = text.index("\n## ", start + 3)
    return re.findall(r"```python\n(.*?)```", text[start:end], flags=re.S)


def run(code: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_section_has_one_example_per_framework() -> None:
    blocks = section_blocks()
    assert len(blocks) == 2
    assert "JournalSession" in blocks[0] and "JournalChatMessageHistory" in blocks[1]


def test_agents_sdk_example_runs(tmp_path: Path) -> None:
    pytest.importorskip("agents", reason="the openai-agents extra is not installed")
    out = run(section_blocks()[0], tmp_path)
    assert out.splitlines() == [
        "[{'type': 'function_call_output', 'call_id': 'c1', 'output': '19 °C, cloudy'}]",
        "openai-agents:user-42#1",
    ]
    assert (tmp_path / "agents.db").exists()


def test_langchain_example_runs(tmp_path: Path) -> None:
    pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")
    out = run(section_blocks()[1], tmp_path)
    assert "id='h1'" in out and "tool_call_id='c1'" in out and "id='t1'" in out
