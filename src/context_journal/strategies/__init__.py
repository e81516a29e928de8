"""Compile strategies (DESIGN.md 2.4): sans-I/O selection over a view; drivers do the I/O."""

from __future__ import annotations

from .base import (
    BaseStrategy,
    Budget,
    ContextEntry,
    RawSpan,
    RenderedEntry,
    Selection,
    Strategy,
    StrategyContext,
    SummaryRef,
    SummaryRequest,
    SummaryResult,
)
from .passthrough import PassthroughStrategy
from .windowed import WindowedPassthroughStrategy

__all__ = [
    "BaseStrategy",
    "Budget",
    "ContextEntry",
    "PassthroughStrategy",
    "RawSpan",
    "RenderedEntry",
    "Selection",
    "Strategy",
    "StrategyContext",
    "SummaryRef",
    "SummaryRequest",
    "SummaryResult",
    "WindowedPassthroughStrategy",
]
