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
from ..strategies.autobiographical import AutobiographicalStrategy

if TYPE_CHECKING:
    from ..manager import ContextManager
    from ..strategies.base import StrategyContext, SummaryResult

__all__ = ["CompressionDelegatedError", "LeasedAutobiographical", "enqueue", "strategy_config"]


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


def strategy_config(strategy: object) -> dict[str, Any] | None:
    """The JSON a worker rebuilds ``strategy`` from, or None when workers cannot run it (only the
    autobiographical strategy itself is supported; subclasses such as the knowledge strategy are not)."""
    if type(strategy) is AutobiographicalStrategy or isinstance(strategy, LeasedAutobiographical):
        return {"strategy": "autobiographical", "config": strategy.config.to_dict()}
    return None


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
