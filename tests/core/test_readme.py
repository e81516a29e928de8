"""The README's Python example runs as written (in a temporary directory)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has no Python example"
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, str(README), "exec"), {})
    assert (tmp_path / "agent.db").exists()


def test_readme_opens_with_the_two_commands() -> None:
    text = README.read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, flags=re.S)
    assert first_block is not None
    lines = [line for line in first_block.group(1).splitlines() if line.strip()]
    assert lines == ["pip install . && context-journal demo", "pip install '.[dev]' && python -m pytest -q"]
    ci = (README.parent / ".ci" / "run").read_text()
    assert "pip install -q '.[dev]' && python -m pytest -q" in ci
