"""The autobiographical strategy: raw head and recent windows, the middle as chunks → L1 summaries →
merged L2..Ln summaries, each span compiled at the finest level that fits (DESIGN.md 2.4).

Modules: :mod:`.config` (settings and prompts), :mod:`.records` (persisted rows), :mod:`.state` (the
incremental fold of a namespace's records on a branch), :mod:`.chunking` (head, recent window, chunk
cuts, layout), :mod:`.folding` (select), :mod:`.work` (the queue and retries), :mod:`.planning` and
:mod:`.requests` (summary requests), :mod:`.strategy` (the strategy).
"""

from __future__ import annotations

from .config import AutobiographicalConfig
from .records import Attempt, ChunkRecord, HeadMark, PartRecord, Summary, slot_for
from .state import CompressionLog
from .strategy import HOT_SETTINGS, INHERIT_STATE, SYSTEM_STATE, TOOLS_STATE, AutobiographicalStrategy
from .work import PendingItem, PendingWork, WorkItem

__all__ = [
    "HOT_SETTINGS",
    "INHERIT_STATE",
    "SYSTEM_STATE",
    "TOOLS_STATE",
    "Attempt",
    "AutobiographicalConfig",
    "AutobiographicalStrategy",
    "ChunkRecord",
    "CompressionLog",
    "HeadMark",
    "PartRecord",
    "PendingItem",
    "PendingWork",
    "Summary",
    "WorkItem",
    "slot_for",
]
