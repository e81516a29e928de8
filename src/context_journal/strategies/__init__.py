"""Compile strategies (DESIGN.md 2.4): sans-I/O selection over a view; drivers do the I/O."""

from __future__ import annotations

from .autobiographical import AutobiographicalConfig, AutobiographicalStrategy, PendingWork, Summary
from .base import (
    BaseStrategy,
    Budget,
    CompressingStrategy,
    ContextEntry,
    LagReportingStrategy,
    LevelPin,
    LevelPinningStrategy,
    RawSpan,
    RenderedEntry,
    Selection,
    Strategy,
    StrategyContext,
    SummaryRef,
    SummaryRequest,
    SummaryResult,
)
from .by_name import COMPRESSING_STRATEGY_NAMES, STRATEGY_NAMES, strategy_by_name
from .knowledge import KnowledgeStrategy, Phase
from .passthrough import PassthroughStrategy
from .windowed import WindowedPassthroughStrategy

__all__ = [
    "COMPRESSING_STRATEGY_NAMES",
    "STRATEGY_NAMES",
    "AutobiographicalConfig",
    "AutobiographicalStrategy",
    "BaseStrategy",
    "Budget",
    "CompressingStrategy",
    "ContextEntry",
    "KnowledgeStrategy",
    "LagReportingStrategy",
    "LevelPin",
    "LevelPinningStrategy",
    "PassthroughStrategy",
    "PendingWork",
    "Phase",
    "RawSpan",
    "RenderedEntry",
    "Selection",
    "Strategy",
    "StrategyContext",
    "Summary",
    "SummaryRef",
    "SummaryRequest",
    "SummaryResult",
    "WindowedPassthroughStrategy",
    "strategy_by_name",
]
