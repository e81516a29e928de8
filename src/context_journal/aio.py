"""The async API: :class:`AsyncContextManager`, a :class:`~context_journal.ContextManager` whose I/O never
blocks the caller's event loop.

Every call on one store handle runs on that handle's own thread (:class:`StoreThread`): one thread per
open store object, shared by every async manager over it, with an asyncio loop of its own. A call is
queued there and the caller's task awaits its result, so the caller's loop keeps serving its other
tasks while SQLite reads its pages or PostgreSQL answers (the same design as ``aiosqlite``: one
connection, one thread). Calls on one handle run one at a time in the order they were made, so the
semantics are exactly the synchronous API's, and so are the errors: whatever the synchronous method
raises is raised from the ``await`` (the same exception object).

Compression (:meth:`AsyncContextManager.tick`, :meth:`~AsyncContextManager.drain`) runs the
manager's coroutine versions on the store thread's loop: while the summarizer's model call is awaited
there, the other calls queued on the handle (a write, a compile) run in between, as they would
around ``await cm.atick()`` in one loop. (The summarizer's client is therefore used from the store
thread's loop: give an async manager a provider of its own rather than an SDK client already bound to
another loop.)

A cancelled ``await`` stops a call that has not started; one already running on the store thread
finishes (synchronous store work cannot be interrupted) and its result is dropped. Attributes that do
no I/O (``namespace``, ``store``, ``messages``, ``strategy``...) are read directly; read them between
awaited calls, not while a call of another task is running on the handle.

asyncio only (``trio`` is not supported: the await goes through :func:`asyncio.wrap_future`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TypeVar, overload

from ._store_thread import StoreThread, acquire_thread, open_on_thread, release_thread
from .manager import ContextManager
from .stores import Store

__all__ = ["AsyncContextManager", "StoreThread"]

P = ParamSpec("P")
T = TypeVar("T")


def _on_store(
    method: Callable[Concatenate[ContextManager, P], T],
) -> Callable[Concatenate[AsyncContextManager, P], Coroutine[Any, Any, T]]:
    """The awaitable twin of a :class:`ContextManager` method: the same arguments, run on the store's thread."""
    name = method.__name__

    async def twin(self: AsyncContextManager, /, *args: P.args, **kwargs: P.kwargs) -> T:
        if self._closed:  # the manager's own error for a closed manager (no I/O: its thread may be gone)
            return getattr(self._cm, name)(*args, **kwargs)  # type: ignore[no-any-return]
        return await self._thread.call(getattr(self._cm, name), *args, **kwargs)

    twin.__name__ = twin.__qualname__ = name
    twin.__module__ = __name__
    twin.__doc__ = f"Awaitable :meth:`ContextManager.{name}` (run on the store's thread).\n\n{method.__doc__ or ''}"
    return twin


def _on_store_loop(
    method: Callable[Concatenate[ContextManager, P], Coroutine[Any, Any, T]], name: str
) -> Callable[Concatenate[AsyncContextManager, P], Coroutine[Any, Any, T]]:
    """A coroutine method of :class:`ContextManager` (``atick``, ``adrain``) run on the store thread's loop, as
    ``name``: the calls queued on the handle meanwhile run while it awaits the summarizer."""
    own = method.__name__

    async def twin(self: AsyncContextManager, /, *args: P.args, **kwargs: P.kwargs) -> T:
        if self._closed:
            return await getattr(self._cm, own)(*args, **kwargs)  # type: ignore[no-any-return]
        return await self._thread.run(functools.partial(getattr(self._cm, own), *args, **kwargs))

    twin.__name__ = twin.__qualname__ = name
    twin.__module__ = __name__
    twin.__doc__ = (
        f":meth:`ContextManager.{own}` run on the store thread's loop (other calls on the handle run while "
        f"it awaits the summarizer; a ``progress`` callback runs on the store's thread).\n\n{method.__doc__ or ''}"
    )
    return twin


class AsyncContextManager:
    """A :class:`~context_journal.ContextManager` with awaitable methods (see the module docstring).

    Open one with ``await AsyncContextManager.open(...)`` (the arguments of
    :meth:`ContextManager.open`), or wrap a manager with :meth:`wrap`; close it with ``await
    acm.aclose()`` or ``async with``. Every I/O method of the synchronous manager has an awaitable twin
    of the same name, arguments, result and errors; :meth:`tick` and :meth:`drain` are the manager's
    ``atick`` and ``adrain``; :meth:`run` runs any function of the manager on the store's thread.

    Example::

        async with await AsyncContextManager.open("chat.db") as cm:
            await cm.add_message("user", "hello")
            result = await cm.compile(max_tokens=4000)
    """

    def __init__(self, manager: ContextManager, thread: StoreThread) -> None:
        """Use :meth:`open` or :meth:`wrap` (this takes a thread already counted for ``manager``)."""
        self._cm = manager
        self._thread = thread
        self._closed = False

    # ---- opening and closing -------------------------------------------------------------------------

    @classmethod
    async def open(cls, path: Any = None, *, store: Store | None = None, **kwargs: Any) -> AsyncContextManager:
        """Open a manager as :meth:`ContextManager.open` does (same arguments), on the store's thread.

        Raises:
            StoreError, ValueError, TypeError: as :meth:`ContextManager.open`.
        """
        opener = functools.partial(ContextManager.open, path, store=store, **kwargs)
        manager, thread = await open_on_thread(opener, store, lambda cm: cm.store)
        return cls(manager, thread)

    @classmethod
    async def reopen_derived(cls, store: Store, branch: str, **kwargs: Any) -> AsyncContextManager:
        """:meth:`ContextManager.reopen_derived` (same arguments and errors) on the store's thread."""
        opener = functools.partial(ContextManager.reopen_derived, store, branch, **kwargs)
        manager, thread = await open_on_thread(opener, store, lambda cm: cm.store)
        return cls(manager, thread)

    @classmethod
    def wrap(cls, manager: ContextManager) -> AsyncContextManager:
        """An async manager over ``manager`` (which the caller stops using directly; :meth:`aclose`
        closes it)."""
        return cls(manager, acquire_thread(manager.store))

    async def aclose(self) -> None:
        """Close the manager (and its store when it opened it) after the calls queued before; a summary call
        still awaiting its model (``tick``/``drain``) is cancelled and its caller gets
        :class:`~context_journal.errors.StoreClosedError` (the work stays pending). Idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            await self._thread.call(self._cm.close)
        finally:
            release_thread(self._cm.store, self._thread)

    close = aclose

    async def __aenter__(self) -> AsyncContextManager:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # ---- running anything on the store's thread ---------------------------------------------------------

    @overload
    async def run(self, fn: Callable[[ContextManager], Awaitable[T]]) -> T: ...

    @overload
    async def run(self, fn: Callable[[ContextManager], T]) -> T: ...

    async def run(self, fn: Callable[[ContextManager], Any]) -> Any:
        """``fn(manager)`` run on the store's thread, between the other calls (for what has no twin here,
        or several calls that must run with no other call in between); a coroutine function is awaited
        there (on the store thread's loop)."""

        async def job() -> Any:
            out = fn(self._cm)
            return await out if inspect.isawaitable(out) else out

        return await self._thread.run(job)

    @property
    def manager(self) -> ContextManager:
        """The synchronous manager (use it through :meth:`run`: called directly it blocks the loop)."""
        return self._cm

    # ---- attributes read without I/O ------------------------------------------------------------------

    @property
    def store(self) -> Store:
        return self._cm.store

    @property
    def namespace(self) -> str:
        return self._cm.namespace

    @property
    def slot(self) -> str:
        return self._cm.slot

    @property
    def messages(self) -> Any:
        return self._cm.messages

    @property
    def strategy(self) -> Any:
        return self._cm.strategy

    @property
    def token_counter(self) -> Any:
        return self._cm.token_counter

    @property
    def summarizer(self) -> Any:
        return self._cm.summarizer

    @property
    def view_reader(self) -> str | None:
        return self._cm.view_reader

    @property
    def compression_stats(self) -> Any:
        """The manager's compression counters (:attr:`ContextManager.compression_stats`; no I/O)."""
        return self._cm.compression_stats

    def current_branch(self) -> str:
        """The branch this manager reads and writes (no I/O)."""
        return self._cm.current_branch()

    # ---- messages ----------------------------------------------------------------------------------

    add_message = _on_store(ContextManager.add_message)
    add_messages = _on_store(ContextManager.add_messages)
    edit_message = _on_store(ContextManager.edit_message)
    remove_message = _on_store(ContextManager.remove_message)
    get_message = _on_store(ContextManager.get_message)
    get_message_at = _on_store(ContextManager.get_message_at)
    get_messages = _on_store(ContextManager.get_messages)
    get_all_messages = _on_store(ContextManager.get_all_messages)
    query_messages = _on_store(ContextManager.query_messages)
    message_count = _on_store(ContextManager.message_count)
    resolve_media = _on_store(ContextManager.resolve_media)

    # ---- compiling -----------------------------------------------------------------------------------

    compile = _on_store(ContextManager.compile)
    preview_context = _on_store(ContextManager.preview_context)
    render_stats = _on_store(ContextManager.render_stats)
    report_usage = _on_store(ContextManager.report_usage)
    set_strategy = _on_store(ContextManager.set_strategy)
    set_system_prompt = _on_store(ContextManager.set_system_prompt)
    set_tools = _on_store(ContextManager.set_tools)
    pin = _on_store(ContextManager.pin)
    unpin = _on_store(ContextManager.unpin)
    pins = _on_store(ContextManager.pins)
    pin_range = _on_store(ContextManager.pin_range)
    pin_at_level = _on_store(ContextManager.pin_at_level)
    list_pins = _on_store(ContextManager.list_pins)
    mark_document = _on_store(ContextManager.mark_document)
    unmark_document = _on_store(ContextManager.unmark_document)
    documents = _on_store(ContextManager.documents)
    render_as_newest = _on_store(ContextManager.render_as_newest)
    render_in_place = _on_store(ContextManager.render_in_place)
    rendered_as_newest = _on_store(ContextManager.rendered_as_newest)
    working_state = _on_store(ContextManager.working_state)
    set_fact = _on_store(ContextManager.set_fact)
    clear_fact = _on_store(ContextManager.clear_fact)

    # ---- search and summaries ----------------------------------------------------------------------------

    search_messages = _on_store(ContextManager.search_messages)
    search_summary_text = _on_store(ContextManager.search_summary_text)
    search_summaries = _on_store(ContextManager.search_summaries)
    get_summary = _on_store(ContextManager.get_summary)
    get_summaries_in_range = _on_store(ContextManager.get_summaries_in_range)

    # ---- compression ------------------------------------------------------------------------------------

    pending_work = _on_store(ContextManager.pending_work)
    compression_lag = _on_store(ContextManager.compression_lag)
    is_ready = _on_store(ContextManager.is_ready)
    hold_compression = _on_store(ContextManager.hold_compression)
    release_compression = _on_store(ContextManager.release_compression)
    set_hot_context = _on_store(ContextManager.set_hot_context)
    hot_context = _on_store(ContextManager.hot_context)

    tick = _on_store_loop(ContextManager.atick, "tick")
    drain = _on_store_loop(ContextManager.adrain, "drain")

    async def reset_head_window(self, text: str | None = None) -> str:
        """:meth:`ContextManager.reset_head_window` with the summarizer's call awaited on the store's loop."""
        await self._thread.call(self._cm._claim_if_pending)
        mid = await self._thread.run(functools.partial(self._cm.compressor.areset_head_window, text))
        await self._thread.call(self._cm._head_reset)
        return mid

    # ---- erasure ----------------------------------------------------------------------------------------

    redact = _on_store(ContextManager.redact)
    redact_range = _on_store(ContextManager.redact_range)
    redactions = _on_store(ContextManager.redactions)
    set_retention = _on_store(ContextManager.set_retention)
    forget_erased = _on_store(ContextManager.forget_erased)

    # ---- branches -------------------------------------------------------------------------------------

    fork = _on_store(ContextManager.fork)
    switch_branch = _on_store(ContextManager.switch_branch)
    list_branches = _on_store(ContextManager.list_branches)
    delete_branch = _on_store(ContextManager.delete_branch)
    get_derivation = _on_store(ContextManager.get_derivation)

    async def derive(self, branch: str, *args: Any, **kwargs: Any) -> AsyncContextManager:
        """:meth:`ContextManager.derive` (same arguments and errors): the child as an async manager on the
        same store thread (close it with :meth:`aclose` too)."""
        child = await self._thread.call(self._cm.derive, branch, *args, **kwargs)
        return AsyncContextManager(child, acquire_thread(child.store))

    def __repr__(self) -> str:
        return f"Async{self._cm!r}"
