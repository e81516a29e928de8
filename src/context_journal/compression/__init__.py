"""Compression: the I/O half of compressing strategies, in three modules with one job each.

* :mod:`.driver`: :class:`CompressionDriver` runs the work (``tick``, ``drain``, retries, holds, head
  resets) for one manager, through the :class:`~context_journal.strategies.base.CompressingStrategy`
  protocol only, so a strategy of another package compresses through it too;
* :mod:`.requests`: :func:`provider_request` turns a strategy's summary request into a provider request;
* :mod:`.queries`: :class:`SummaryQueries`, the read-only summary API (list, search, get, range).
"""

from __future__ import annotations

from .driver import (
    CompressionDriver,
    CompressionHost,
    CompressionStats,
    CompressionUnavailableError,
    DrainProgress,
    DrainReport,
    TickResult,
)
from .queries import REGEX_SECONDS, SummaryNotFoundError, SummaryQueries
from .requests import provider_request

__all__ = [
    "REGEX_SECONDS",
    "CompressionDriver",
    "CompressionHost",
    "CompressionStats",
    "CompressionUnavailableError",
    "DrainProgress",
    "DrainReport",
    "SummaryNotFoundError",
    "SummaryQueries",
    "TickResult",
    "provider_request",
]
