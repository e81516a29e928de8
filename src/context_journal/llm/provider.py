"""The :class:`Provider` protocol and a bridge from synchronous code.

Every model backend (the SDK adapters, the offline summarizer, the scripted fake of
:mod:`context_journal.testing`) is a :class:`Provider`: an object with a ``name``, a default
``model`` and one coroutine, :meth:`Provider.complete`. Drivers (``ContextManager.tick``) await it;
synchronous hosts call :func:`run_sync`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar, runtime_checkable

from .types import LLMRequest, LLMResponse

__all__ = ["Provider", "complete_sync", "run_sync"]

T = TypeVar("T")


@runtime_checkable
class Provider(Protocol):
    """A model backend.

    Attributes:
        name: Short name of the backend (``"anthropic"``, ``"openai"``, ``"offline"``, ``"scripted"``).
        model: The model used when a request names none.
    """

    name: str
    model: str

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Send one request and return the answer.

        Args:
            request: The call; ``request.model`` overrides :attr:`model` when set.

        Returns:
            The answer. A refusal or a ``max_tokens`` stop is a normal response here; use
            :meth:`LLMResponse.require_text` to demand usable text.

        Raises:
            ProviderError: (a subclass) when the call failed after the provider's retries.
        """
        ...


def run_sync(coro: Coroutine[Any, Any, T], *, timeout: float | None = None) -> T:
    """Run a coroutine to completion from synchronous code.

    Without a running event loop in this thread the coroutine runs under :func:`asyncio.run`.
    When a loop is already running here (a Jupyter cell, a sync callback inside async code),
    ``asyncio.run`` would fail, so the coroutine runs on a fresh loop in a worker thread while this
    thread waits; that blocks the running loop for the duration, so prefer ``await`` there. Objects
    bound to the outer loop (e.g. an SDK client already used on it) should not be shared with such
    a coroutine.

    Args:
        coro: The coroutine to run (it is consumed).
        timeout: Seconds to wait in the worker-thread case, or None for no limit.

    Returns:
        The coroutine's result.

    Raises:
        TimeoutError: when ``timeout`` passed in the worker-thread case (the coroutine keeps running
            until it finishes).
        Exception: whatever the coroutine raised.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="context-journal-run-sync") as pool:
        return pool.submit(asyncio.run, coro).result(timeout)


def complete_sync(provider: Provider, request: LLMRequest, *, timeout: float | None = None) -> LLMResponse:
    """``provider.complete(request)`` from synchronous code (see :func:`run_sync`).

    Raises:
        ProviderError: as :meth:`Provider.complete`.
    """
    return run_sync(provider.complete(request), timeout=timeout)
