"""One thread per store handle, with an asyncio loop of its own, where every call on that handle runs in
order (:class:`StoreThread`), shared by the users of the handle (:func:`acquire_thread`,
:func:`release_thread`): the async manager (:mod:`context_journal.aio`) and the compression workers
(:mod:`context_journal.workers`), so that store work never runs on a caller's event loop."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from .errors import StoreClosedError, StoreError
from .stores import Store

__all__ = ["StoreThread", "acquire_thread", "open_on_thread", "release_thread"]

P = ParamSpec("P")
T = TypeVar("T")

_numbers = itertools.count(1)
_IDLE_SECONDS = 0.00003  # a gap between calls longer than this (30 us): the thread waited for work, the GIL
# free (calls queued back to back start 2-6 us apart; a caller awaiting each result makes gaps of 60 us or more)
_BUSY_SECONDS = 0.002  # calls run back to back this long: release the GIL before the next


class StoreThread:
    """A thread with an asyncio loop of its own, where every call on one store handle runs, in order.

    Made and shared through :func:`acquire_thread` (one per open store object, counted by its users); it
    stops when its last user releases it.
    """

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"context-journal-store-{next(_numbers)}", daemon=True)
        self.users = 0
        self._last_end = 0.0  # perf_counter when the last call ended
        self._busy_since = 0.0  # when this thread last started running calls back to back
        self._stopping = False
        self.thread.start()
        self._ready.wait()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(self._ready.set)
        try:
            self._loop.run_forever()
        finally:
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()

    @property
    def running(self) -> bool:
        """True until :meth:`stop` was called (it takes no new calls then) or the thread ended."""
        return not self._stopping and self.thread.is_alive() and not self._loop.is_closed()

    async def run(self, start: Callable[[], Awaitable[T]]) -> T:
        """Await ``start()`` run on this thread's loop (the awaitable is made there), from another loop;
        from this thread's loop itself it is awaited in place, so a callback running on the store thread
        cannot deadlock. A cancelled caller's call that has not started never starts.

        Raises:
            StoreError: the thread was stopped (its store was closed).
        """
        if threading.current_thread() is self.thread:
            return await start()
        if not self.running:
            raise StoreError("the store's thread has stopped: the async manager was closed")
        cancelled = threading.Event()

        async def job() -> T:
            if cancelled.is_set():  # cancelled while queued behind other calls
                raise asyncio.CancelledError
            return await start()

        future = asyncio.run_coroutine_threadsafe(job(), self._loop)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            cancelled.set()
            task = asyncio.current_task()
            if self._stopping and future.cancelled() and (task is None or not task.cancelling()):
                # Not this caller's cancellation: stop() ended the call (its store was closed under it).
                raise StoreClosedError("the store was closed while this call was under way") from None
            raise

    async def call(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Await ``fn(*args, **kwargs)`` run on this thread (after the calls queued before it)."""

        async def job() -> T:
            self._hand_over_gil()
            try:
                return fn(*args, **kwargs)
            finally:
                self._last_end = time.perf_counter()

        return await self.run(job)

    def _hand_over_gil(self) -> None:
        """Before a call: release the GIL for a moment when this thread has run calls back to back for
        ``_BUSY_SECONDS`` (2 ms). Calls that block on no I/O (a compile whose reads a read scope keeps)
        never release it, so a caller's loop thread waiting for it would wait a whole switch interval
        (5 ms) each time, several times per loop iteration: the convoy effect of CPython's GIL (bpo-7946;
        tests/core/test_async_manager.py measures the loop's lag with 100 tasks). A call after idle time
        (the GIL was free meanwhile) pays nothing, so a lone call is not delayed."""
        now = time.perf_counter()
        if now - self._last_end > _IDLE_SECONDS:
            self._busy_since = now
        elif now - self._busy_since >= _BUSY_SECONDS:
            time.sleep(0)
            self._busy_since = time.perf_counter()

    def stop(self) -> None:
        """Take no more calls, cancel the ones still under way (a summary call awaiting its model: its
        caller gets :class:`~context_journal.errors.StoreClosedError`, never a wait that does not end),
        then end the loop and the thread. Returns at once. (Synchronous calls run to their end first: the
        loop runs one at a time, and this is queued after them.)"""
        if self._stopping or self._loop.is_closed():
            return
        self._stopping = True

        async def shutdown() -> None:
            me = asyncio.current_task()
            others = [t for t in asyncio.all_tasks() if t is not me]
            for task in others:
                task.cancel()
            if others:
                await asyncio.gather(*others, return_exceptions=True)
            self._loop.stop()

        if threading.current_thread() is self.thread:
            self._loop.create_task(shutdown())
        else:
            asyncio.run_coroutine_threadsafe(shutdown(), self._loop)


_threads: dict[int, tuple[Store, StoreThread]] = {}
_threads_lock = threading.Lock()


def acquire_thread(store: Store, made: StoreThread | None = None) -> StoreThread:
    """The thread of ``store`` (``made`` when it has none yet, else a new one), with one more user."""
    with _threads_lock:
        found = _threads.get(id(store))
        if found is not None and found[0] is store and found[1].running:
            thread = found[1]
            if made is not None and made is not thread:
                made.stop()
        else:
            thread = made or StoreThread()
            _threads[id(store)] = (store, thread)
        thread.users += 1
        return thread


def release_thread(store: Store, thread: StoreThread) -> None:
    with _threads_lock:
        thread.users -= 1
        if thread.users > 0:
            return
        found = _threads.get(id(store))
        if found is not None and found[1] is thread:
            del _threads[id(store)]
    thread.stop()


async def open_on_thread(
    opener: Callable[[], T], store: Store | None, store_of: Callable[[T], Store]
) -> tuple[T, StoreThread]:
    """``opener()`` run on the thread of ``store`` (one more user of it), or, when the store is not open
    yet (``store`` None: ``opener`` opens it), on a new thread that becomes the thread of the store it
    opened (``store_of(result)``); the result and its thread. Nothing opened on the caller's loop.

    Raises:
        What ``opener`` raises (the thread acquired for it is released first).
    """
    if store is not None:
        thread = acquire_thread(store)
        try:
            return await thread.call(opener), thread
        except BaseException:
            release_thread(store, thread)
            raise
    made = StoreThread()
    try:
        opened = await made.call(opener)
    except BaseException:
        made.stop()
        raise
    return opened, acquire_thread(store_of(opened), made)  # (another thread of that store: made stops)
