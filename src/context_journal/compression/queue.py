"""Handing a conversation's compression to workers: the work-queue entry that a manager opened with
``compression="workers"`` writes on appends and compiles (:func:`enqueue`), the error its ``tick`` and
``drain`` raise, and the strategy a worker runs under a lease. Below the manager (which enqueues) and
the workers (which claim, see :mod:`context_journal.workers`)."""

from __future__ import annotations

import json
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import ContextJournalError
from ..stores.queue import QueueStore, queue_key
from ..strategies.autobiographical import AutobiographicalConfig, AutobiographicalStrategy
from ..strategies.base import CompressingStrategy
from ..strategies.by_name import COMPRESSING_STRATEGY_NAMES
from ..strategies.knowledge import DEFAULT_PHASE_BREAK_FRACTION, DEFAULT_PHASES, KnowledgeStrategy

if TYPE_CHECKING:
    from ..manager import ContextManager
    from ..strategies.base import StrategyContext, SummaryResult

__all__ = [
    "CompressionDelegatedError",
    "LeasedAutobiographical",
    "LeasedKnowledge",
    "enqueue",
    "leased_strategy",
    "strategy_config",
    "workers_can_run",
]


class CompressionDelegatedError(ContextJournalError, RuntimeError):
    """``tick``/``drain`` on a manager opened with ``compression="workers"``: its compression is left to
    ``context-journal worker`` processes (or a :class:`CompressionWorker`); open it with
    ``compression="inline"`` to compress in this process.

    Attributes:
        operation: The refused method.
    """

    def __init__(self, operation: str) -> None:
        self.operation = operation
        super().__init__(
            f"{operation}() is left to compression workers: this manager was opened with compression='workers'; "
            "run `context-journal worker --store URL` (or CompressionWorker(...).run()), or open the manager "
            "with compression='inline'"
        )


class LeasedAutobiographical(AutobiographicalStrategy):
    """The autobiographical strategy whose results are recorded only under a live lease: the lease check
    (which locks the queue row) and the summary records commit in one transaction."""

    guard: Callable[[], None] | None = None

    def record_result(self, result: SummaryResult, ctx: StrategyContext) -> None:
        with ctx.store.transaction():
            if self.guard is not None:
                self.guard()
            super().record_result(result, ctx)


class LeasedKnowledge(LeasedAutobiographical, KnowledgeStrategy):
    """The knowledge strategy (default phases) under a lease, as :class:`LeasedAutobiographical`."""


def strategy_config(strategy: object) -> dict[str, Any] | None:
    """The JSON a worker rebuilds ``strategy`` from (``{"strategy": name, "config": settings}``), or None
    when workers cannot rebuild it: only the autobiographical strategy and the knowledge strategy with
    its default phases and phase break are rebuilt by name (a subclass, custom phases or a third-party
    strategy carry code a worker does not have)."""
    kind = type(strategy)
    if kind in (AutobiographicalStrategy, LeasedAutobiographical):
        assert isinstance(strategy, AutobiographicalStrategy)
        return {"strategy": "autobiographical", "config": strategy.config.to_dict()}
    if kind in (KnowledgeStrategy, LeasedKnowledge):
        assert isinstance(strategy, KnowledgeStrategy)
        if strategy.phases == DEFAULT_PHASES and strategy.phase_break_fraction == DEFAULT_PHASE_BREAK_FRACTION:
            return {"strategy": "knowledge", "config": strategy.config.to_dict()}
    return None


def workers_can_run(strategy: object) -> bool:
    """False for a strategy that compresses but that workers cannot rebuild (see :func:`strategy_config`):
    a manager opened with ``compression="workers"`` would enqueue nothing for it and nothing would ever
    compress its conversation. True for the strategies workers run and for those that do not compress."""
    return strategy_config(strategy) is not None or not isinstance(strategy, CompressingStrategy)


def leased_strategy(spec: Any) -> LeasedAutobiographical:
    """The leased strategy a work-queue entry names (:func:`strategy_config`'s JSON, parsed).

    Raises:
        ValueError: the entry names no strategy workers run, or its settings are invalid.
    """
    name = spec.get("strategy") if isinstance(spec, dict) else None
    if name not in COMPRESSING_STRATEGY_NAMES:
        raise ValueError(f"workers run the autobiographical and knowledge strategies only, not {spec!r}")
    try:
        config = AutobiographicalConfig(**spec.get("config", {}))
    except TypeError as exc:
        raise ValueError(f"the work-queue entry's settings are not valid: {exc}") from None
    return LeasedAutobiographical(config) if name == "autobiographical" else LeasedKnowledge(config)


_ENQUEUED_AT: weakref.WeakKeyDictionary[ContextManager, tuple[int, int]] = weakref.WeakKeyDictionary()
"""Per manager: (branch id, message tokens) at its last enqueue."""


def enqueue(manager: ContextManager, *, now: float | None = None, only_if_grown: bool = False) -> bool:
    """Put the manager's conversation in its store's work queue (no model call, one small write).

    Args:
        manager: The manager (its namespace, branch, slot and strategy are recorded).
        now: Time of the enqueue, seconds since the epoch (default: now).
        only_if_grown: Skip the write unless the conversation grew by at least ``target_chunk_tokens``
            tokens (or changed branch, or shrank) since this manager's last enqueue: appends call it so,
            keeping the per-append cost at one write per chunk's worth of messages; compiles always enqueue.

    Returns:
        True when enqueued; False when the manager's strategy does not compress (nothing to do) or the
        enqueue was skipped.

    Raises:
        TypeError: the store has no work queue.
        StoreError: the write failed.
    """
    config = strategy_config(manager.strategy)
    if config is None:
        return False
    store = manager.store
    if not isinstance(store, QueueStore):
        raise TypeError(f"the {type(store).__name__} store has no compression work queue")
    branch_id = manager.messages.branch_id
    tokens = manager.messages.tokens()
    last = _ENQUEUED_AT.get(manager)
    if only_if_grown and last is not None and last[0] == branch_id:
        grown = tokens - last[1]
        if 0 <= grown < int(config["config"].get("target_chunk_tokens", 0)):
            return False
    _ENQUEUED_AT[manager] = (branch_id, tokens)
    key = queue_key(manager.namespace, branch_id, manager.slot)
    text = json.dumps(config, sort_keys=True, separators=(",", ":"))
    store.queue_enqueue(key, manager.namespace, branch_id, manager.slot, text, time.time() if now is None else now)
    return True
