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

While :meth:`CompressionWorker.arun` runs, the worker's store work (claims, managers' reads, the records,
the releases) runs on the store handle's own thread (:mod:`context_journal._store_thread`, shared with the
async manager): the ``concurrency`` items' model calls are awaited on the worker's loop, and one item's
store work never delays another's answer.

An idle worker (nothing claimable) waits ``poll_seconds`` before it tries again. On PostgreSQL it is
woken at once instead: every enqueue sends ``NOTIFY`` on the store's channel in its transaction, and the
worker waits with ``LISTEN`` on a connection of its own (an asyncio connection: the event loop is never
blocked), with ``poll_seconds`` as the timeout, so a missed notification costs at most one poll interval.
Expired leases of crashed workers and the retry times of failed work are still found by polling: with
notifications one may raise ``poll_seconds`` (say to 5 s) to cut the idle queries, and new work still starts
at once. Other backends poll.

While an item is worked on, a **heartbeat** thread renews its lease every ``heartbeat_seconds`` (default a
third of ``lease_seconds``; :meth:`~context_journal.stores.queue.QueueStore.queue_renew`, a compare-and-set
on owner and expiry), so a model call may take longer than the lease; the heartbeat stops before the item
is released. A worker killed mid-request stops renewing: its lease expires and any worker claims the item
and redoes the unit. A lease lost under a running call (the heartbeat could not reach the store in time,
the process stalled, or the heartbeat is off and the call outlasted the lease) drops the result: the worker
logs a warning (item, owner, call time against the lease) and counts it in :attr:`WorkerReport.lost`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ._store_thread import StoreThread, acquire_thread, release_thread
from .compression.queue import (
    CompressionDelegatedError,
    LeasedAutobiographical,
    enqueue,
    leased_strategy,
    strategy_config,
)
from .errors import ContextJournalError
from .llm.provider import run_sync
from .readers import recorded_reader
from .stores.queue import QueueStore, WorkClaim

if TYPE_CHECKING:
    from .llm.provider import Provider
    from .manager import ContextManager
    from .stores.base import Store
    from .stores.postgres import QueueListener

T = TypeVar("T")

__all__ = [
    "CompressionDelegatedError",
    "CompressionWorker",
    "LeaseLostError",
    "WorkerReport",
    "enqueue",
    "strategy_config",
]

logger = logging.getLogger("context_journal.workers")


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


@dataclass
class WorkerReport:
    """What a worker did (counters; not persisted).

    Attributes:
        claims: Queue items claimed.
        units: Units of work done (summaries or parts stored, and failed attempts recorded).
        summaries: Summaries and parts stored.
        failures: Failed model calls (recorded as attempts, retried after their backoff).
        lost: Results dropped because the lease was lost under a running call (each one logged as a
            warning).
        renewals: Lease renewals by the heartbeat.
        longest_lost_seconds: The longest call whose lease was lost, in seconds (0 when none was).
        lease_seconds: The worker's lease length, in seconds.
        errors: Items released after an unexpected error (message per item key).
        seconds: Wall time of the run, in seconds.
        redacted: Messages erased by retention policies (:meth:`CompressionWorker.apply_retention`).
    """

    claims: int = 0
    units: int = 0
    summaries: int = 0
    failures: int = 0
    lost: int = 0
    renewals: int = 0
    longest_lost_seconds: float = 0.0
    lease_seconds: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    redacted: int = 0

    @property
    def hint(self) -> str | None:
        """What to do about lost leases, or None when none was lost."""
        if not self.lost:
            return None
        return (
            f"{self.lost} result(s) dropped because a lease expired under a running call (longest call "
            f"{self.longest_lost_seconds:.1f} s, lease {self.lease_seconds:g} s); raise --lease-seconds "
            "(lease_seconds) above the longest model call and check that workers reach the store"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``hint`` is null unless a lease was lost)."""
        return {
            "claims": self.claims,
            "units": self.units,
            "summaries": self.summaries,
            "failures": self.failures,
            "lost": self.lost,
            "renewals": self.renewals,
            "longest_lost_seconds": round(self.longest_lost_seconds, 3),
            "lease_seconds": self.lease_seconds,
            "hint": self.hint,
            "errors": dict(self.errors),
            "seconds": round(self.seconds, 3),
            "redacted": self.redacted,
        }


class _Heartbeat:
    """Renews one lease from a background thread every ``interval`` seconds until :meth:`stop`.

    A thread, not an asyncio task: a provider that blocks the event loop does not starve it. It shares the
    worker's store handle (handles are thread-safe; each renewal is one short transaction). It stops at
    the first renewal the store refuses (the lease expired or another worker holds it), logging a warning
    and calling ``on_lost`` (the worker cancels the call: its result could not be written anyway).
    """

    def __init__(
        self, queue: QueueStore, key: str, owner: str, lease_seconds: float, interval: float, clock: Callable[[], float]
    ) -> None:
        self.queue = queue
        self.key = key
        self.owner = owner
        self.lease_seconds = lease_seconds
        self.interval = interval
        self.clock = clock
        self.renewals = 0
        self.lost_after: float | None = None
        """Seconds into the work when a renewal was refused, or None."""
        self.on_lost: Callable[[], object] | None = None
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"context-journal-heartbeat:{owner}", daemon=True)

    def start(self) -> _Heartbeat:
        self._thread.start()
        return self

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        """Stop renewing; returns once no renewal is in flight (so none follows a release)."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                renewed = self.queue.queue_renew(self.key, self.owner, self.lease_seconds, self.clock())
            except Exception as exc:  # a store hiccup: the lease may still be alive, try again
                logger.warning("lease renewal of %r by %r failed: %s; retrying", self.key, self.owner, exc)
                continue
            if not renewed:
                self.lost_after = time.monotonic() - self.started
                logger.warning(
                    "lease on %r lost by %r under a running call (%.2f s into it, lease %g s): it expired or "
                    "another worker took it over; a result not yet written will be dropped",
                    self.key,
                    self.owner,
                    self.lost_after,
                    self.lease_seconds,
                )
                if self.on_lost is not None:
                    with contextlib.suppress(RuntimeError):  # the event loop closed meanwhile: nothing to cancel
                        self.on_lost()
                return
            self.renewals += 1


MAX_CONCURRENCY = 256
"""Most items one worker process works on at once (each is an asyncio task sharing one store handle)."""

MAX_SECONDS = 86_400
"""Longest lease, in seconds (a day)."""

MIN_POLL_SECONDS = 0.01
"""Shortest ``poll_seconds`` (an idle worker polling every nanosecond once used a whole core)."""

LISTEN_RETRY_SECONDS = 30.0
"""Wait before a worker whose notification connection failed opens a new one (it polls meanwhile)."""


class CompressionWorker:
    """Claims and does compression work of any namespace and branch (see the module docstring).

    Args:
        store: An open store, or a location for :func:`~context_journal.stores.open_store` (a SQLite path,
            ``sqlite:///path`` or a PostgreSQL URL; the worker then owns and closes it).
        provider: The summarizer (default :class:`~context_journal.llm.OfflineSummarizer`).
        worker_id: Name recorded as lease owner (default ``host:pid:random``); each of the ``concurrency``
            loops leases as ``<worker_id>/<n>``.
        lease_seconds: Lease length, in seconds. The heartbeat renews it while an item is worked on, so
            a model call may run longer; without a heartbeat it must exceed the longest model call.
        heartbeat_seconds: Interval of lease renewals while an item is worked on, in seconds (default
            ``lease_seconds / 3``; below ``lease_seconds``); 0 turns the heartbeat off.
        concurrency: Items worked on at once (asyncio tasks sharing the store handle).
        poll_seconds: Wait between claims when nothing is claimable, in seconds. On a store with
            notifications (PostgreSQL, ``listen``) the wait ends at once when work is enqueued, and this is
            only the fallback: the longest a missed notification, an expired lease or a retry time waits.
        clock: Wall clock, seconds since the epoch (leases compare times across hosts: keep clocks synced).
        retention_seconds: Interval at which the worker applies the store's retention policies
            (:meth:`apply_retention`; the first time when it starts), in seconds; None never.
        listen: Wake on the store's work-queue notifications when it has them (PostgreSQL ``LISTEN``,
            on a connection of the worker's own while it runs); False always polls.

    Raises:
        ValueError: ``lease_seconds`` outside 0..:data:`MAX_SECONDS` (0 excluded) or ``poll_seconds`` outside
            :data:`MIN_POLL_SECONDS`..3600, ``concurrency`` outside 1..:data:`MAX_CONCURRENCY`, or ``heartbeat_seconds``
            negative or not below ``lease_seconds``.
        TypeError: the store has no work queue, or a ``bool`` or non-number where a number belongs.
        StoreError: the store cannot be opened.
    """

    def __init__(
        self,
        store: str | os.PathLike[str] | Store,
        provider: Provider | None = None,
        *,
        worker_id: str | None = None,
        lease_seconds: float = 60.0,
        heartbeat_seconds: float | None = None,
        concurrency: int = 1,
        poll_seconds: float = 0.2,
        clock: Callable[[], float] = time.time,
        retention_seconds: float | None = 3600.0,
        listen: bool = True,
    ) -> None:
        for name, value, top in (("lease_seconds", lease_seconds, MAX_SECONDS), ("poll_seconds", poll_seconds, 3600)):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"{name} must be a number of seconds, got {value!r}")
            if not 0 < value <= top:  # nan fails this too
                raise ValueError(f"{name} must be above 0 and at most {top:,} seconds, got {value!r}")
        if poll_seconds < MIN_POLL_SECONDS:  # a tighter poll spins a core (and a PostgreSQL server) for nothing
            raise ValueError(f"poll_seconds must be at least {MIN_POLL_SECONDS} seconds, got {poll_seconds!r}")
        if isinstance(concurrency, bool) or not isinstance(concurrency, int):
            raise TypeError(f"concurrency must be an integer, got {concurrency!r}")
        if not 1 <= concurrency <= MAX_CONCURRENCY:  # one task each: 10**9 of them never started
            raise ValueError(f"concurrency must be within 1..{MAX_CONCURRENCY}, got {concurrency}")
        if heartbeat_seconds is None:
            heartbeat_seconds = lease_seconds / 3
        if not 0 <= heartbeat_seconds < lease_seconds:
            raise ValueError(
                f"heartbeat_seconds must be at least 0 (0: no heartbeat) and below lease_seconds ({lease_seconds:g}),"
                f" not {heartbeat_seconds!r}"
            )
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
        self.heartbeat_seconds = float(heartbeat_seconds)
        self.concurrency = int(concurrency)
        self.poll_seconds = float(poll_seconds)
        self.clock = clock
        if retention_seconds is not None and (
            isinstance(retention_seconds, bool)
            or not isinstance(retention_seconds, int | float)
            or not 0 < retention_seconds <= MAX_SECONDS
        ):
            raise ValueError(
                f"retention_seconds must be None or above 0 and at most {MAX_SECONDS:,}, got {retention_seconds!r}"
            )
        self.retention_seconds = retention_seconds
        self._retention_due = 0.0  # the first loop applies the policies at once
        self.report = WorkerReport(lease_seconds=self.lease_seconds)
        # By (lease owner, item key): each loop has its own manager (its strategy's in-flight requests and
        # lease guard), so a loop that claims an item another loop of this worker lost does not take over
        # that loop's requests (the first one then failed with "no pending summary request").
        self._managers: dict[tuple[str, str], tuple[str, ContextManager]] = {}
        self.heartbeats: dict[str, _Heartbeat] = {}
        """The running heartbeats, by lease owner (for tests and diagnostics)."""
        self.listen = bool(listen)
        self.listener: QueueListener | None = None
        """The notification listener while :meth:`arun` runs on a store that has one, else None."""
        self._wakes = 0  # notifications received (a loop that saw one arrive during its claim claims again)
        self._waiting: asyncio.Future[None] | None = None  # the wait idle loops share
        self._listen_retry_at = 0.0
        self._thread: StoreThread | None = None  # the store's thread while arun runs
        self._claiming = 0  # claims under way (awaited on the store's thread)

    # ---- one item ----------------------------------------------------------------------------------

    async def _on_store(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the store's thread while :meth:`arun` runs (store work never runs on the worker's
        loop, where the other items' model calls are awaited); inline otherwise."""
        if self._thread is None:
            return fn(*args)
        return await self._thread.call(fn, *args)

    def _manager(self, claim: WorkClaim, owner: str) -> ContextManager:
        cached = self._managers.get((owner, claim.key))
        if cached is not None and cached[0] == claim.config:
            return cached[1]
        from .manager import ContextManager

        strategy = leased_strategy(json.loads(claim.config))
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
        self._managers[owner, claim.key] = (claim.config, manager)
        return manager

    def _guard(self, claim: WorkClaim, owner: str) -> None:
        if not self._queue.queue_check(claim.key, owner, self.clock()):
            raise LeaseLostError(claim.key, owner)

    def _release(
        self, claim: WorkClaim, owner: str, status: str, retry_at: float = 0.0, error: str | None = None
    ) -> None:
        self._queue.queue_finish(claim.key, owner, claim.generation, status, retry_at, self.clock(), error)

    async def process(self, claim: WorkClaim, owner: str) -> str:
        """Do one unit of a claimed item under a renewed lease and release it.

        Args:
            claim: The leased item.
            owner: The lease owner.

        Returns:
            ``"done"`` (a summary or part stored), ``"failed"`` (a failed attempt recorded), ``"idle"``
            (nothing left: the item is done), ``"waiting"`` (failed work waits for its retry time),
            ``"lost"`` (the lease was lost under the call: nothing written, a warning logged) or ``"error"``.
        """
        beat = None
        unit = asyncio.ensure_future(self._unit(claim, owner))
        if self.heartbeat_seconds > 0:
            beat = _Heartbeat(self._queue, claim.key, owner, self.lease_seconds, self.heartbeat_seconds, self.clock)
            loop = asyncio.get_running_loop()
            beat.on_lost = lambda: loop.call_soon_threadsafe(unit.cancel)  # stop paying for a dropped result
            self.heartbeats[owner] = beat.start()
        started = time.monotonic()
        try:
            status, release = await unit
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if beat is None or beat.lost_after is None or (current is not None and current.cancelling()):
                raise  # cancelled from outside
            self._managers.pop((owner, claim.key), None)
            status, release, cancelled = "lost", None, True
        else:
            cancelled = False
        finally:
            if beat is not None:
                beat.stop()  # before the release: no renewal follows it
                self.heartbeats.pop(owner, None)
                self.report.renewals += beat.renewals
        if status == "lost":
            self._lost(claim, owner, time.monotonic() - started, beat, cancelled)
        if release is not None:
            await self._on_store(self._release, claim, owner, *release)
        return status

    def _lost(self, claim: WorkClaim, owner: str, seconds: float, beat: _Heartbeat | None, cancelled: bool) -> None:
        self.report.lost += 1
        self.report.longest_lost_seconds = max(self.report.longest_lost_seconds, seconds)
        if beat is None:
            why = "no heartbeat renewed it"
        elif beat.lost_after is not None:
            why = f"{beat.renewals} renewal(s), then refused {beat.lost_after:.2f} s in"
            if cancelled:
                why += "; the call was cancelled"
        else:
            why = f"{beat.renewals} renewal(s); the heartbeat did not reach the store in time"
        logger.warning(
            "lease on %r expired under a running call of %r: the work ran %.2f s against a lease of %g s (%s); "
            "its result was dropped and the work will be redone. Raise lease_seconds (--lease-seconds) above "
            "the longest model call, or check that the worker reaches the store",
            claim.key,
            owner,
            seconds,
            self.lease_seconds,
            why,
        )

    async def _unit(self, claim: WorkClaim, owner: str) -> tuple[str, tuple[str, float, str | None] | None]:
        """One unit: its status and the release (status, retry time, error), or None to release nothing."""
        try:
            manager = await self._on_store(self._manager, claim, owner)
        except Exception as exc:
            self.report.errors[claim.key] = f"{type(exc).__name__}: {exc}"
            return "error", ("failed", 0.0, self.report.errors[claim.key])
        strategy = manager.strategy
        assert isinstance(strategy, LeasedAutobiographical)
        strategy.guard = lambda: self._guard(claim, owner)
        try:
            # The code path of ContextManager.tick, on the store's thread: the other loops' store work runs
            # there while this one awaits the model, and none of it runs on this loop.
            atick = manager.compressor.atick
            result = await (self._thread.run(atick) if self._thread is not None else atick())
        except LeaseLostError:
            self._managers.pop((owner, claim.key), None)  # its in-memory queue is stale
            return "lost", None
        except Exception as exc:
            self.report.errors[claim.key] = f"{type(exc).__name__}: {exc}"
            self._managers.pop((owner, claim.key), None)
            return "error", ("pending", self.clock() + self.lease_seconds, self.report.errors[claim.key])
        finally:
            strategy.guard = None
        if result.status == "idle":
            return result.status, ("done", 0.0, None)
        if result.status == "waiting":
            next_at = strategy.pending_counts()[3]
            return result.status, ("pending", next_at if next_at is not None else self.clock() + 1.0, None)
        if result.work is None:  # ready work whose request could not be built: nothing more to do
            return result.status, ("failed", 0.0, result.error)
        self.report.units += 1
        if result.status == "done":
            self.report.summaries += 1
        else:
            self.report.failures += 1
        return result.status, ("pending", 0.0, None)  # more may remain: claimable at once, by anyone

    # ---- loops -------------------------------------------------------------------------------------

    def _idle(self) -> bool:
        return not any(r["status"] == "pending" for r in self._queue.queue_rows())

    def apply_retention(self) -> int:
        """Apply the store's retention policies when ``retention_seconds`` have passed since the last time
        (:func:`~context_journal.retention.apply_retention`); returns the messages erased. A failure is
        logged and retried at the next interval (compression goes on)."""
        if self.retention_seconds is None or self.clock() < self._retention_due or not self.store.can_redact:
            return 0
        self._retention_due = self.clock() + self.retention_seconds
        from .retention import apply_retention

        try:
            erased = len(apply_retention(self.store, now=self.clock(), by=f"worker {self.worker_id}"))
        except Exception:  # the queue's work does not depend on it
            logger.warning("retention not applied", exc_info=True)
            return 0
        self.report.redacted += erased
        return erased

    async def _open_listener(self) -> None:
        """Start listening for enqueues when the store can notify (PostgreSQL); on failure poll (and try
        again after :data:`LISTEN_RETRY_SECONDS`)."""
        opener = getattr(self.store, "queue_listener", None)
        if not self.listen or opener is None or self.listener is not None or time.monotonic() < self._listen_retry_at:
            return
        self._listen_retry_at = time.monotonic() + LISTEN_RETRY_SECONDS  # other loops do not open one meanwhile
        try:
            self.listener = await opener()
        except Exception as exc:
            self._listen_retry_at = time.monotonic() + LISTEN_RETRY_SECONDS
            logger.warning(
                "cannot listen for work-queue notifications (%s); polling every %g s", exc, self.poll_seconds
            )

    async def _close_listener(self) -> None:
        waiting, self._waiting = self._waiting, None
        if waiting is not None and not waiting.done():
            waiting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiting
        listener, self.listener = self.listener, None
        if listener is not None:
            await listener.close()

    async def _wait_notified(self, listener: QueueListener) -> None:
        """One shared idle wait: a notification or ``poll_seconds``. A failed connection is closed and the
        worker polls (a new listener is opened after :data:`LISTEN_RETRY_SECONDS`)."""
        try:
            if await listener.wait(self.poll_seconds):
                self._wakes += 1
        except Exception as exc:
            logger.warning("work-queue notifications lost (%s); polling every %g s", exc, self.poll_seconds)
            self._listen_retry_at = time.monotonic() + LISTEN_RETRY_SECONDS
            if self.listener is listener:
                self.listener = None
            with contextlib.suppress(Exception):
                await listener.close()
            await asyncio.sleep(self.poll_seconds)

    async def _idle_wait(self) -> None:
        """Wait ``poll_seconds``, or until work is enqueued when the store notifies. The loops of this
        worker share one wait (one connection), so a notification wakes all of them."""
        if self.listener is None:
            await self._open_listener()
        listener = self.listener
        if listener is None:
            await asyncio.sleep(self.poll_seconds)
            return
        if self._waiting is None or self._waiting.done():
            self._waiting = asyncio.ensure_future(self._wait_notified(listener))
        await asyncio.shield(self._waiting)  # a loop cancelled here does not cancel the others' wait

    async def _loop(self, n: int, until_idle: bool, max_items: int | None) -> None:
        owner = f"{self.worker_id}/{n}"
        # Claims run on the store's thread, so the loops' claims are awaited together: a claim under way
        # counts toward max_items (another loop does not start one that could go beyond it).
        while max_items is None or self.report.claims + self._claiming < max_items:
            if n == 0:
                await self._on_store(self.apply_retention)
            wakes = self._wakes
            self._claiming += 1
            try:
                claim = await self._on_store(self._queue.queue_claim, owner, self.lease_seconds, self.clock())
            finally:
                self._claiming -= 1
            if claim is None:
                if max_items is not None and self.report.claims >= max_items:
                    return
                if until_idle and await self._on_store(self._idle):
                    return
                if self._wakes == wakes:  # else work was enqueued since the claim began: claim again now
                    await self._idle_wait()
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
        self._thread = acquire_thread(self.store)
        try:
            # Listen before the first claim: what is enqueued after that claim wakes the first wait.
            await self._open_listener()
            await asyncio.gather(*(self._loop(n, until_idle, max_items) for n in range(self.concurrency)))
        finally:
            try:
                await self._close_listener()
            finally:
                thread, self._thread = self._thread, None
                release_thread(self.store, thread)
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
