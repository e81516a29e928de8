"""The MCP server over the execution journal and context managers (extra ``mcp``: the official SDK
``mcp>=2.3,<3``).

``build_server(store)`` returns the server and its backend; ``run_stdio`` and ``run_http`` serve it (the
command line: ``context-journal mcp serve --store DB [--http HOST:PORT]``). The SDK is imported only when
one of these names is used; without the extra that raises :class:`~context_journal.errors.MissingExtraError`.
The tools' own logic (:mod:`.tools`) does not need the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .server import (
        SERVER_NAME,
        BearerTokenMiddleware,
        build_server,
        http_url,
        is_loopback,
        run_http,
        run_stdio,
        token_problem,
    )

__all__ = [
    "SERVER_NAME",
    "BearerTokenMiddleware",
    "build_server",
    "http_url",
    "is_loopback",
    "run_http",
    "run_stdio",
    "token_problem",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
