"""The MCP server's requests, with lone surrogates read as U+FFFD: standard input (one JSON-RPC message a
line) here, and each HTTP request's body through :class:`~.server.MendedBodies`.

JSON can carry half of a UTF-16 surrogate pair (``"\\ud83d"``: a tool output cut between the two halves of
an emoji); the MCP SDK's parser refuses such a line, and since it cannot read the request's id it answers
nothing, so the client waits for ever (a review: ``add_message`` with ``"a \\ud83d b"`` over stdio had no
answer, and the requests after it did). No store can keep the character either (``add_message`` refuses it
in Python). A line the SDK's parser refuses that Python's reads, holding such a character, is passed on
with each one read as U+FFFD REPLACEMENT CHARACTER (as the importers read them, bug case B51) and a
line on standard error says so; every other line is passed on as it came.
"""

from __future__ import annotations

import io
import json
import re
from typing import IO, Any

import pydantic_core

from .._names import replace_lone_surrogates

__all__ = ["MendedLines", "mend_line", "report_mended"]

_SURROGATE_ESCAPE = re.compile(rb"\\[uU][dD][89a-fA-F]")
"""A JSON escape of a surrogate code point (U+D800-DFFF): a line without one needs no look."""


def mend_line(line: bytes) -> tuple[bytes, bool]:
    """``line`` (one JSON-RPC message, UTF-8) with every lone surrogate read as U+FFFD, and whether it
    held one. A line without a surrogate escape, one the SDK's parser reads (escaped pairs), and one that
    is not JSON at all (the SDK reports it) come back as they are."""
    if _SURROGATE_ESCAPE.search(line) is None:
        return line, False
    try:
        pydantic_core.from_json(line)
        return line, False
    except ValueError:
        pass
    try:
        value = json.loads(line)
    except ValueError:
        return line, False
    mended = json.dumps(_mend(value), ensure_ascii=False).encode("utf-8")
    return mended + (b"\n" if line.endswith(b"\n") else b""), True


def report_mended(log: IO[str]) -> None:
    """Say on ``log`` that a request was read with U+FFFD for a lone surrogate."""
    print(
        "context-journal: a request held a lone surrogate (half of a UTF-16 pair, which no store can keep); "
        "it was read as U+FFFD",
        file=log,
        flush=True,
    )


def _mend(value: Any) -> Any:
    if isinstance(value, str):
        return replace_lone_surrogates(value)
    if isinstance(value, list):
        return [_mend(v) for v in value]
    if isinstance(value, dict):
        return {_mend(k): _mend(v) for k, v in value.items()}
    return value


class MendedLines(io.RawIOBase):
    """A binary stream of the lines of ``source``, each through :func:`mend_line`; a mended one is
    reported on ``log``. It has no file descriptor, so the SDK reads it in place (it claims the process's
    standard input only when that is a descriptor)."""

    def __init__(self, source: IO[bytes], log: IO[str]) -> None:
        super().__init__()
        self._source = source
        self._log = log
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        """Fill ``buffer`` from the current line (reading the next one when it is used up); 0 at the end."""
        if not self._pending:
            line = self._source.readline()
            if not line:
                return 0
            self._pending, mended = mend_line(line)
            if mended:
                report_mended(self._log)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size
