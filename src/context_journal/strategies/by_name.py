"""The strategies by name: the one factory the command line, the MCP server and
``ContextManager.open(strategy="...")`` use."""

from __future__ import annotations

from .autobiographical import AutobiographicalConfig, AutobiographicalStrategy
from .base import Strategy
from .knowledge import KnowledgeStrategy
from .passthrough import PassthroughStrategy
from .windowed import WindowedPassthroughStrategy

__all__ = ["COMPRESSING_STRATEGY_NAMES", "STRATEGY_NAMES", "strategy_by_name"]

STRATEGY_NAMES = ("passthrough", "windowed", "autobiographical", "knowledge")
"""The names :func:`strategy_by_name` knows."""

COMPRESSING_STRATEGY_NAMES = ("autobiographical", "knowledge")
"""The names of the strategies that compress (they take an :class:`AutobiographicalConfig`)."""


def strategy_by_name(name: str, config: AutobiographicalConfig | None = None) -> Strategy:
    """A new strategy called ``name`` (one of :data:`STRATEGY_NAMES`), a compressing one with ``config``
    (None: its default settings).

    Raises:
        ValueError: an unknown name (the message lists the names), or a ``config`` for a strategy that
            does not compress.
    """
    if name in COMPRESSING_STRATEGY_NAMES:
        return AutobiographicalStrategy(config) if name == "autobiographical" else KnowledgeStrategy(config)
    if name not in STRATEGY_NAMES:
        raise ValueError(f"unknown strategy {name!r}; choose one of {', '.join(STRATEGY_NAMES)}")
    if config is not None:
        raise ValueError(f"the {name} strategy does not compress: it takes no AutobiographicalConfig")
    return WindowedPassthroughStrategy() if name == "windowed" else PassthroughStrategy()
