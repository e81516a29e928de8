"""The README's Python example runs as written (in a temporary directory)."""

from __future__ import annotations

import ast
import importlib.util
import re
import textwrap
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _missing_modules(code: str) -> list[str]:
    """The modules ``code`` imports that are not installed (an optional extra's packages, such as
    ``agents`` or ``langchain_core``), found before the block runs."""
    names: list[str] = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    missing = []
    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:  # its parent package is not installed
            found = False
        if not found:
            missing.append(name)
    return missing


def test_readme_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every block runs, each in its own namespace; a block importing a package of an extra that is not
    installed is left out (and the test reported skipped once the others have run)."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has no Python example"
    monkeypatch.chdir(tmp_path)
    left_out: list[str] = []
    for code in blocks:
        code = textwrap.dedent(code)  # a block in a list item is indented
        missing = _missing_modules(code)
        if missing:
            left_out += missing
            continue
        exec(compile(code, str(README), "exec"), {})
    assert (tmp_path / "agent.db").exists()
    if left_out:
        pytest.skip(f"README blocks importing {', '.join(sorted(set(left_out)))} not run: not installed")


def test_readme_opens_with_the_two_commands() -> None:
    text = README.read_text()
    first_block = re.search(r"```bash\n(.*?)```", text, flags=re.S)
    assert first_block is not None
    lines = [line for line in first_block.group(1).splitlines() if line.strip()]
    assert lines == ["pip install . && context-journal demo", "pip install '.[dev]' && python -m pytest -q -n auto"]
    ci = (README.parent / ".ci" / "run").read_text()
    assert "pip install -q '.[dev]' && python -m pytest -q -n auto\n" in ci


def _demo_block() -> tuple[str, str]:
    text = README.read_text()
    intro = re.search(
        r"What `context-journal demo` prints \(.*?a (\d+)-column terminal\):\n\n```\n(.*?)```", text, re.S
    )
    assert intro is not None, "the README no longer shows what the demo prints"
    return intro.group(1), intro.group(2)


def test_readme_demo_output_is_what_the_demo_prints() -> None:
    """A review found (5): the README showed figures the demo no longer printed (9,784 tokens, 59
    messages, sum3_0bcc…). Run it as the README says, at the width it names; only timings may differ."""
    import os
    import subprocess
    import sys

    width, shown = _demo_block()
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "TERM")}
    env["COLUMNS"] = width
    res = subprocess.run(
        [sys.executable, "-c", "from context_journal.cli import main; main()", "demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=README.parent,
    )
    assert res.returncode == 0, res.stderr

    def plain(text: str) -> list[str]:
        return [re.sub(r"\d+(\.\d+)? s\b", "T s", line.rstrip()) for line in text.strip("\n").splitlines()]

    assert plain(shown) == plain(res.stdout)


def test_readme_layout_lists_every_benchmark() -> None:
    """A review found (6): the Layout section left out benchmarks/bench_journal.py; every file in
    benchmarks/ is listed there, one line each with what it measures."""
    text = README.read_text()
    layout = re.search(r"## Layout\n\n```\n(.*?)```", text, re.S)
    assert layout is not None
    lines = layout.group(1).splitlines()
    for path in sorted((README.parent / "benchmarks").glob("*.py")):
        listed = [line for line in lines if re.match(rf"\s+{re.escape(path.name)}\s+\S", line)]
        assert len(listed) == 1, f"{path.name} is not listed (with a description) in the README's Layout"
