"""The session builder of the demo's conversation: messages, tool calls, and tools that act on a small
virtual file system (``Read`` shows the current text, ``Edit`` changes it, ``Grep``/``Glob`` search it)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from typing import Any

from .files import RATES, ROOT, initial_files

__all__ = ["RATES", "ROOT", "Session", "Use", "convert_minor", "half_up", "pytest_output"]

Use = tuple[str, dict[str, Any], tuple[str, bool]]
"""A tool call with a fixed result: ``(tool, input, (output, is_error))``."""


def _numbered(text: str, first: int = 1, count: int | None = None) -> str:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    chosen = lines[first - 1 : first - 1 + count if count is not None else None]
    return "\n".join(f"{first + i:>6}\t{line}" for i, line in enumerate(chosen))


class Session:
    """Appends messages and keeps the virtual files the tools read and change."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.files = initial_files()
        self.clock = datetime(2024, 3, 4, 9, 12, 5, tzinfo=UTC)
        self._tools = 0

    # -- clock and messages

    def day(self, when: datetime) -> None:
        self.clock = when

    def _add(self, participant: str, content: list[dict[str, Any]], seconds: int) -> None:
        self.clock += timedelta(seconds=seconds)
        n = len(self.messages) + 1
        self.messages.append(
            {
                "id": f"demo-{n:04d}",
                "participant": participant,
                "content": content,
                "timestamp": self.clock.isoformat().replace("+00:00", "Z"),
                "metadata": {"demo": True},
            }
        )

    def user(self, text: str) -> None:
        self._add("user", [{"type": "text", "text": text}], 75)

    def say(self, text: str) -> None:
        self._add("Claude", [{"type": "text", "text": text}], 20)

    def calls(self, text: str, uses: Sequence[tuple[str, dict[str, Any]] | Use]) -> None:
        """One assistant turn with ``uses`` (parallel calls), then one user turn with their results.

        A use is ``(tool, input)``, run on the virtual files, or ``(tool, input, (output, is_error))``
        with a fixed result (``Bash``).
        """
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        results: list[dict[str, Any]] = []
        for use in uses:
            name, tool_input = use[0], use[1]
            self._tools += 1
            tid = f"toolu_demo_{self._tools:04d}"
            blocks.append({"type": "tool_use", "id": tid, "name": name, "input": tool_input})
            output, error = use[2] if len(use) == 3 else self._run(name, tool_input)
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": output}
            if error:
                result["is_error"] = True
            results.append(result)
        self._add("Claude", blocks, 12)
        self._add("user", results, 4 + 3 * len(uses))

    def call(self, text: str, name: str, tool_input: dict[str, Any]) -> None:
        self.calls(text, [(name, tool_input)])

    # -- tools

    def _path(self, p: str) -> str:
        return p if p.startswith("/") else f"{ROOT}/{p}"

    def _run(self, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        if name == "Read":
            path = self._path(args["file_path"])
            if path not in self.files:
                return "File does not exist.", True
            return _numbered(self.files[path], args.get("offset", 1), args.get("limit")), False
        if name == "Write":
            path = self._path(args["file_path"])
            self.files[path] = args["content"]
            return f"File created successfully at: {path}", False
        if name == "Edit":
            return self._edit(self._path(args["file_path"]), args["old_string"], args["new_string"])
        if name == "Grep":
            return self._grep(args["pattern"], args.get("path", ROOT), args.get("glob")), False
        if name == "Glob":
            pattern = self._path(args["pattern"])
            found = sorted(p for p in self.files if fnmatch.fnmatch(p, pattern))
            return ("\n".join(found) if found else "No files found"), False
        raise ValueError(f"unknown demo tool {name!r}")

    def _edit(self, path: str, old: str, new: str) -> tuple[str, bool]:
        text = self.files.get(path)
        if text is None:
            return "File does not exist.", True
        if old not in text:
            return f"<tool_use_error>String to replace not found in file.\nString: {old}</tool_use_error>", True
        before = text.index(old)
        self.files[path] = text.replace(old, new, 1)
        first = text.count("\n", 0, before) + 1
        shown = max(1, first - 3)
        count = new.count("\n") + 7
        snippet = _numbered(self.files[path], shown, count)
        return (
            f"The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the "
            f"edited file:\n{snippet}"
        ), False

    def _grep(self, pattern: str, where: str, glob: str | None) -> str:
        rx = re.compile(pattern)
        base = self._path(where)
        hits = []
        for path in sorted(self.files):
            if not path.startswith(base) or (glob and not fnmatch.fnmatch(path.rsplit("/", 1)[-1], glob)):
                continue
            for i, line in enumerate(self.files[path].split("\n"), 1):
                if rx.search(line):
                    hits.append(f"{path}:{i}:{line}")
        return "\n".join(hits) if hits else "No matches found"

    # -- shortcuts

    def bash(self, text: str, command: str, output: str, *, error: bool = False, description: str = "") -> None:
        args = {"command": command, "description": description or command.split()[0]}
        self.calls(text, [("Bash", args, (output, error))])

    def read(self, text: str, path: str, **opts: int) -> None:
        self.call(text, "Read", {"file_path": self._path(path), **opts})

    def edit(self, text: str, path: str, old: str, new: str) -> None:
        self.call(text, "Edit", {"file_path": self._path(path), "old_string": old, "new_string": new})

    def write(self, text: str, path: str, content: str) -> None:
        self.call(text, "Write", {"file_path": self._path(path), "content": content})

    def grep(self, text: str, pattern: str, path: str = "src", glob: str | None = None) -> None:
        args: dict[str, Any] = {"pattern": pattern, "path": self._path(path), "output_mode": "content", "-n": True}
        if glob:
            args["glob"] = glob
        self.call(text, "Grep", args)


def pytest_output(passed: int, skipped: int, seconds: float, failures: Sequence[tuple[str, str]] = ()) -> str:
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.8, pytest-8.0.2, pluggy-1.4.0",
        "rootdir: /home/dev/tally",
        "configfile: pyproject.toml",
        f"collected {passed + skipped + len(failures)} items",
        "",
    ]
    if failures:
        lines.append("=================================== FAILURES ===================================")
        for node, detail in failures:
            lines.append(f"_{'_' * 20} {node.split('::')[-1]} {'_' * 20}")
            lines.extend(detail.split("\n"))
            lines.append("")
        lines.append("=========================== short test summary info ============================")
        for node, detail in failures:
            lines.append(f"FAILED {node} - {detail.strip().split(chr(10))[-1].lstrip('E ').strip()}")
    tail = f"{len(failures)} failed, " if failures else ""
    extra = f", {skipped} skipped" if skipped else ""
    lines.append(f"{'=' * 20} {tail}{passed} passed{extra} in {seconds:.2f}s {'=' * 20}")
    return "\n".join(lines)


def convert_minor(minor: int, src: str, dst: str, rates: dict[str, str] = RATES) -> int:
    digits = {"JPY": 0}
    value = Decimal(minor) / (10 ** digits.get(src, 2))
    eur = value if src == "EUR" else value / Decimal(rates[src])
    out = eur if dst == "EUR" else eur * Decimal(rates[dst])
    places = digits.get(dst, 2)
    return int(out.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN).scaleb(places))


def half_up(value: str) -> Decimal:
    """``value`` rounded half up to cents (what the old ``Money.from_decimal`` did)."""
    return Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
