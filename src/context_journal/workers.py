"""Compression workers: summarisation work of many conversations, shared by processes on many hosts.

A manager opened with ``compression="workers"`` never calls a model. Each append and each compile
**enqueues** its conversation (namespace, branch, message slot and strategy configuration) in the store's
work queue (:mod:`context_journal.stores.queue`); its compiles render what exists at once.

A :class:`CompressionWorker` loops:

1. **claim** one pending conversation of any namespace and branch with a lease (PostgreSQL:
   ``SELECT ... FOR UPDATE SKIP LOCKED`` then the lease columns; SQLite: one ``UPDATE`` inside
   ``BEGIN IMMEDIATE``);
2. open (or reuse) an inline manager for it with the recorded strategy configuration and do **one unit**
   through its :class:`~context_journal.compression.CompressionDriver` (the code path of
   ``ContextManager.tick``: close the chunks that are due, one model call, record the result);
3. the record is written in one transaction that first checks the lease is still this worker's (and
   locks the queue row): a worker whose lease expired mid-request writes nothing, and the summary ids
   are deterministic (first write wins), so no summary is ever applied twice;
4. **release** the item: pending again (more work may remain; claimable at once, or at the retry time of
   failed work), or ``done`` when nothing is left (pending again if it was enqueued since the claim).

A worker killed mid-request holds its lease until it expires; then any worker claims the item and redoes
the unit. ``lease_seconds`` must exceed the longest model call, or results are dropped and redone.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import ContextJournalError
from .llm.provider import run_sync
from .readers import recorded_reader
from .stores.queue import QueueStore, WorkClaim, queue_key
from .strategies.autobiographical import AutobiographicalConfig, AutobiographicalStrategy

if TYPE_CHECKING:
    from .llm.provider import Provider
    from .manager import ContextManager
    from .stores.base import Store
    from .strategies.base import StrategyContext, SummaryResult

__all__ = [
    "CompressionDelegatedError",
    "CompressionWorker",
    "LeaseLostError",
    "WorkerReport",
    "enqueue",
    "strategy_config",
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


class LeaseLostError(ContextJournalError, RuntimeError):
    """A worker's lease on a queue item expired (another worker may hold it now); its result was not
    written. Raise ``lease_seconds`` above the longest model call if this happens without a crash.

    Attributes:
        key: The queue item.
        owner: The worker that lost it.
    """

    def __init__(self, key: str, owner: str) -> None:
        self.key = key
        self.owner = owner
        super().__init__(f"lease on {key!r} lost by {owner!r}; the result was dropped and the work will be redone")


def strategy_config(strategy: object) -> dict[str, Any] | None:
    """The JSON a worker rebuilds ``strategy`` from, or None when workers cannot run it (only the
    autobiographical strategy itself is supported; subclasses such as the knowledge strategy are not)."""
    if type(strategy) is AutobiographicalStrategy or isinstance(strategy, _LeasedAutobiographical):
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
    branch_id = manager._branch.id
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


class _LeasedAutobiographical(AutobiographicalStrategy):
    """The autobiographical strategy whose results are recorded only under a live lease: the lease check
    (which locks the queue row) and the summary records commit in one transaction."""

    guard: Callable[[], None] | None = None

    def record_result(self, result: SummaryResult, ctx: StrategyContext) -> None:
        with ctx.store.transaction():
            if self.guard is not None:
                self.guard()
            super().record_result(result, ctx)


@dataclass
class WorkerReport:
    """What a worker did (counters; not persisted).

    Attributes:
        claims: Queue items claimed.
        units: Units of work done (summaries or parts stored, and failed attempts recorded).
        summaries: Summaries and parts stored.
        failures: Failed model calls (recorded as attempts, retried after their backoff).
        lost: Results dropped because the lease had expired.
        errors: Items released after an unexpected error (message per item key).
        seconds: Wall time of the run, in seconds.
    """

    claims: int = 0
    units: int = 0
    summaries: int = 0
    failures: int = 0
    lost: int = 0
    errors: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "claims": self.claims,
            "units": self.units,
            "summaries": self.summaries,
            "failures": self.failures,
            "lost": self.lost,
            "errors": dict(self.errors),
            "seconds": round(self.seconds, 3),
        }


class CompressionWorker:
    """Claims and does compression work of any namespace and branch (see the module docstring).

    Args:
        store: An open store, or a location for :func:`~context_journal.stores.open_store` (a SQLite path,
            ``sqlite:///path`` or a PostgreSQL URL; the worker then owns and closes it).
        provider: The summarizer (default :class:`~context_journal.llm.OfflineSummarizer`).
        worker_id: Name recorded as lease owner (default ``host:pid:random``); each of the ``concurrency``
            loops leases as ``<worker_id>/<n>``.
        lease_seconds: Lease length, in seconds; must exceed the longest model call.
        concurrency: Items worked on at once (asyncio tasks sharing the store handle).
        poll_seconds: Wait between claims when nothing is claimable, in seconds.
        clock: Wall clock, seconds since the epoch (leases compare times across hosts: keep clocks synced).

    Raises:
        ValueError: ``lease_seconds`` or ``poll_seconds`` not positive, or ``concurrency < 1``.
        TypeError: the store has no work queue.
        StoreError: the store cannot be opened.
    """

    def __init__(
        self,
        store: str | os.PathLike[str] | Store,
        provider: Provider | None = None,
        *,
        worker_id: str | None = None,
        lease_seconds: float = 60.0,
        concurrency: int = 1,
        poll_seconds: float = 0.2,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if lease_seconds <= 0 or poll_seconds <= 0 or concurrency < 1:
            raise ValueError("lease_seconds and poll_seconds must be positive and concurrency at least 1")
        from .llm.offline import OfflineSummarizer
        from .stores import open_store
        from .stores.base import Store as _Store

        self._owns = not isinstance(store, _Store)
        self.store: Store = store if isinstance(store, _Store) else open_store(os.fspath(store))
        if not isinstance(self.store, QueueStore):
            if self._owns:
                self.store.close()
            raise TypeError(f"the {type(self.store).__name__} store has no compression work queue")
        self._queue: QueueStore = self.store
        self.provider: Provider = provider if provider is not None else OfflineSummarizer()
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.lease_seconds = float(lease_seconds)
        self.concurrency = int(concurrency)
        self.poll_seconds = float(poll_seconds)
        self.clock = clock
        self.report = WorkerReport()
        self._managers: dict[str, tuple[str, ContextManager]] = {}

    # ---- one item ----------------------------------------------------------------------------------

    def _manager(self, claim: WorkClaim) -> ContextManager:
        cached = self._managers.get(claim.key)
        if cached is not None and cached[0] == claim.config:
            return cached[1]
        from .manager import ContextManager

        spec = json.loads(claim.config)
        if not isinstance(spec, dict) or spec.get("strategy") != "autobiographical":
            raise ValueError(f"workers run the autobiographical strategy only, not {spec!r}")
        strategy = _LeasedAutobiographical(AutobiographicalConfig(**spec.get("config", {})))
        branch = self.store.branch_by_id(claim.branch_id).name
        # A worker is the operator's process: it summarises for the reader the namespace records.
        reader = recorded_reader(self.store, claim.branch_id, claim.namespace)
        manager = ContextManager(
            self.store,
            namespace=claim.namespace,
            branch=branch,
            slot=claim.slot,
            summarizer=self.provider,
            view_reader=reader,
        )
        manager.set_strategy(strategy)
        self._managers[claim.key] = (claim.config, manager)
        return manager

    def _guard(self, claim: WorkClaim, owner: str) -> None:
        if not self._queue.queue_check(claim.key, owner, self.clock()):
            raise LeaseLostError(claim.key, owner)

    def _release(
        self, claim: WorkClaim, owner: str, status: str, retry_at: float = 0.0, error: str | None = None
    ) -> None:
        self._queue.queue_finish(claim.key, owner, claim.generation, status, retry_at, self.clock(), error)

    async def process(self, claim: WorkClaim, owner: str) -> str:
        """Do one unit of a claimed item and release it.

        Args:
            claim: The leased item.
            owner: The lease owner.

        Returns:
            ``"done"`` (a summary or part stored), ``"failed"`` (a failed attempt recorded), ``"idle"``
            (nothing left: the item is done), ``"waiting"`` (failed work waits for its retry time),
            ``"lost"`` (the lease expired: nothing written) or ``"error"``.
        """
        try:
            manager = self._manager(claim)
        except Exception as exc:
            self.report.errors[claim.key] = f"{type(exc).__name__}: {exc}"
            self._release(claim, owner, "failed", error=self.report.errors[claim.key])
            return "error"
        strategy = manager.strategy
        assert isinstance(strategy, _LeasedAutobiographical)
        strategy.guard = lambda: self._guard(claim, owner)
        try:
            result = await manager.compression.atick()  # the code path of ContextManager.tick
        except LeaseLostError:
            self.report.lost += 1
            self._managers.pop(claim.key, None)  # its in-memory queue is stale
            return "lost"
        except Exception as exc:
            self.report.errors[claim.key] = f"{type(exc).__name__}: {exc}"
            self._managers.pop(claim.key, None)
            self._release(claim, owner, "pending", self.clock() + self.lease_seconds, self.report.errors[claim.key])
            return "error"
        finally:
            strategy.guard = None
        if result.status == "idle":
            self._release(claim, owner, "done")
        elif result.status == "waiting":
            next_at = strategy.pending_counts()[3]
            self._release(claim, owner, "pending", next_at if next_at is not None else self.clock() + 1.0)
        elif result.work is None:  # ready work whose request could not be built: nothing more to do
            self._release(claim, owner, "failed", error=result.error)
        else:
            self.report.units += 1
            if result.status == "done":
                self.report.summaries += 1
            else:
                self.report.failures += 1
            self._release(claim, owner, "pending")  # more may remain: claimable at once, by anyone
        return result.status

    # ---- loops -------------------------------------------------------------------------------------

    def _idle(self) -> bool:
        return not any(r["status"] == "pending" for r in self._queue.queue_rows())

    async def _loop(self, n: int, until_idle: bool, max_items: int | None) -> None:
        owner = f"{self.worker_id}/{n}"
        while max_items is None or self.report.claims < max_items:
            claim = self._queue.queue_claim(owner, self.lease_seconds, self.clock())
            if claim is None:
                if until_idle and self._idle():
                    return
                await asyncio.sleep(self.poll_seconds)
                continue
            self.report.claims += 1
            await self.process(claim, owner)

    async def arun(self, until_idle: bool = True, max_items: int | None = None) -> WorkerReport:
        """Claim and work until the queue has nothing pending (``until_idle``) or forever.

        Args:
            until_idle: Stop once no item is pending (items leased by others or waiting for a retry are
                pending: the worker waits for them). False runs until cancelled or ``max_items``.
            max_items: Stop after this many claims.

        Returns:
            The worker's counters (:attr:`report`, cumulative over runs).

        Raises:
            StoreError: a queue operation failed.
        """
        started = time.perf_counter()
        try:
            await asyncio.gather(*(self._loop(n, until_idle, max_items) for n in range(self.concurrency)))
        finally:
            self.report.seconds += time.perf_counter() - started
        return self.report

    def run(self, until_idle: bool = True, max_items: int | None = None) -> WorkerReport:
        """:meth:`arun` from synchronous code.

        Raises:
            StoreError: a queue operation failed.
        """
        return run_sync(self.arun(until_idle, max_items))

    def close(self) -> None:
        """Close the cached managers, and the store when the worker opened it; idempotent."""
        self._managers.clear()
        if self._owns:
            self.store.close()

    def __enter__(self) -> CompressionWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
