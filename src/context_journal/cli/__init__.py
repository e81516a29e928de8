"""The ``context-journal`` command line: a thin typer shell over the Python API.

Each command group lives in its own module and registers itself on :data:`app`; library errors become
messages (exit code 1) only here, at the edge.
"""

from __future__ import annotations

from . import branch_cmd as _branch_cmd  # noqa: F401  (registers branch list|fork|switch|delete)
from . import compile_cmd as _compile_cmd  # noqa: F401  (registers compile)
from . import compress_cmd as _compress_cmd  # noqa: F401  (registers compress)
from . import demo_cmd as _demo_cmd  # noqa: F401  (registers demo, replay, summaries)
from . import fact_cmd as _fact_cmd  # noqa: F401  (registers fact set|clear|list)
from . import hot_cmd as _hot_cmd  # noqa: F401  (registers hot-context)
from . import journal_cmd as _journal_cmd  # noqa: F401  (registers journal append|summaries|brief|check|show|render)
from . import map_cmd as _map_cmd  # noqa: F401  (registers map)
from . import mcp_cmd as _mcp_cmd  # noqa: F401  (registers mcp serve)
from . import pin_cmd as _pin_cmd  # noqa: F401  (registers pin, unpin, pins)
from . import redact_cmd as _redact_cmd  # noqa: F401  (registers redact, redactions, retention, purge)
from . import search_cmd as _search_cmd  # noqa: F401  (registers search)
from . import state_cmd as _state_cmd  # noqa: F401  (registers state)
from . import store_cmds as _store_cmds  # noqa: F401  (registers import, stats, show)
from . import verify_cmd as _verify_cmd  # noqa: F401  (registers verify)
from . import worker_cmd as _worker_cmd  # noqa: F401  (registers worker)
from ._app import app, main

__all__ = ["app", "main"]
