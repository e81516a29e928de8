"""Working state: a deterministic ledger folded from the journal, rendered in every compile.

See :mod:`context_journal.state.ledger` (the fold and its data), :mod:`context_journal.state.tools`
(the tool table), :mod:`context_journal.state.render` (the block) and
:mod:`context_journal.state.keeper` (incremental upkeep and the strategy wrapper).
"""

from __future__ import annotations

from .keeper import LedgerKeeper, LedgerStrategy
from .ledger import CommandRun, FileTouch, Identifier, Ledger, LedgerConfig, Plan, PlanItem, WorkingState
from .render import render_state
from .tools import DEFAULT_PLAN_TOOLS, DEFAULT_TOOLS, PlanShape, ToolSpec

__all__ = [
    "DEFAULT_PLAN_TOOLS",
    "DEFAULT_TOOLS",
    "CommandRun",
    "FileTouch",
    "Identifier",
    "Ledger",
    "LedgerConfig",
    "LedgerKeeper",
    "LedgerStrategy",
    "Plan",
    "PlanItem",
    "PlanShape",
    "ToolSpec",
    "WorkingState",
    "render_state",
]
