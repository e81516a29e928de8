"""Retries with exponential backoff and jitter, shared by the SDK adapters.

The adapters build their SDK clients with ``max_retries=0`` and retry here instead, so there is
exactly one retry loop, its policy is ours, and the clock and sleep are injectable for tests.

What is retried follows the official Anthropic and OpenAI Python SDKs (``_should_retry`` in their
``_base_client.py``): an ``x-should-retry: true|false`` header decides when present; otherwise 408
(request timeout), 409 (lock conflict), 429 (rate limit) and every 5xx (including Anthropic's 529
"overloaded") are transient, and so are timeouts and connection errors. 401 and 403 are
authentication failures; any other status is a request error. Nothing else is retried.

The wait before retry ``n`` (1-based) is ``d = min(max_delay, base_delay * multiplier**(n-1))``
seconds with "equal jitter": uniform in ``[d * (1 - jitter), d]`` (Marc Brooker, "Exponential
Backoff And Jitter", AWS Architecture Blog, 2015; ``jitter=1`` is his "full jitter"). A
``retry-after-ms`` or ``retry-after`` header (seconds or an HTTP date) raises the wait to at least
what the server asked; a server asking for more than ``max_retry_after`` seconds ends the retries at
once with a :class:`ProviderTransientError` carrying ``retry_after``, so the caller can schedule it.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal, TypeVar

from .errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRequestError,
    ProviderResponseError,
    ProviderTransientError,
)

__all__ = ["Failure", "RetryPolicy", "call_with_retries", "classify_sdk_error", "classify_status", "parse_retry_after"]

logger = logging.getLogger("context_journal.llm")

T = TypeVar("T")

FailureKind = Literal["transient", "request", "auth", "response"]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry transient failures.

    Attributes:
        max_attempts: Attempts in total, the first included (1 disables retries).
        base_delay: Wait before the first retry before jitter, in seconds.
        multiplier: Growth of the wait per retry.
        max_delay: Cap of the computed wait, in seconds.
        jitter: Share of the wait that is randomised, 0 (none) to 1 (full jitter).
        max_retry_after: Longest ``retry-after`` the loop waits out, in seconds; longer ends the retries.
    """

    max_attempts: int = 4
    base_delay: float = 1.0
    multiplier: float = 2.0
    max_delay: float = 30.0
    jitter: float = 0.5
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError("jitter must be between 0 and 1")
        if self.base_delay < 0 or self.max_delay < 0 or self.multiplier < 1:
            raise ValueError("delays must be non-negative and multiplier at least 1")

    def backoff(self, retry: int, rng: random.Random) -> float:
        """The jittered wait before retry number ``retry`` (1-based), in seconds."""
        d = min(self.max_delay, self.base_delay * self.multiplier ** (retry - 1))
        return d * (1.0 - self.jitter) + rng.random() * d * self.jitter

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float | None:
        """The wait before retry ``retry``, honouring ``retry_after``; None when it is too long."""
        wait = self.backoff(retry, rng)
        if retry_after is not None:
            if retry_after > self.max_retry_after:
                return None
            wait = max(wait, retry_after)
        return wait


@dataclass(frozen=True)
class Failure:
    """A classified failure of one attempt.

    Attributes:
        kind: ``"transient"`` (retried), ``"request"``, ``"auth"`` or ``"response"`` (not retried).
        reason: What happened, in words.
        status_code: HTTP status, or None.
        retry_after: Seconds the server asked to wait, or None.
    """

    kind: FailureKind
    reason: str
    status_code: int | None = None
    retry_after: float | None = None

    def to_error(self, *, provider: str, model: str | None, attempts: int) -> ProviderError:
        """The :class:`ProviderError` subclass for this failure."""
        common: dict[str, Any] = {
            "provider": provider,
            "model": model,
            "status_code": self.status_code,
            "attempts": attempts,
        }
        if self.kind == "transient":
            return ProviderTransientError(self.reason, retry_after=self.retry_after, **common)
        if self.kind == "auth":
            return ProviderAuthError(self.reason, **common)
        if self.kind == "response":
            return ProviderResponseError(self.reason, **common)
        return ProviderRequestError(self.reason, **common)


def _header(headers: Mapping[str, str] | None, name: str) -> str | None:
    if headers is None:
        return None
    value = headers.get(name)
    if value is None:
        lname = name.lower()
        for key, val in headers.items():
            if key.lower() == lname:
                return val
    return value


def parse_retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date).

    Args:
        headers: Response headers (any case), or None.
        now: The current Unix time in seconds, for HTTP dates (default :func:`time.time`).

    Returns:
        A non-negative number of seconds, or None when no header parses.
    """
    ms = _header(headers, "retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    raw = _header(headers, "retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def classify_status(
    status: int, headers: Mapping[str, str] | None = None, *, reason: str = "", now: float | None = None
) -> Failure:
    """Classify an HTTP error status (rules in the module docstring).

    Args:
        status: The HTTP status code.
        headers: The response headers, for ``x-should-retry`` and ``retry-after``.
        reason: The provider's error message.
        now: The current Unix time in seconds (for HTTP-date ``retry-after``).

    Returns:
        The failure, with ``retry_after`` parsed for transient ones.
    """
    text = reason or f"HTTP {status}"
    should = (_header(headers, "x-should-retry") or "").lower()
    if should == "true":
        transient = True
    elif should == "false":
        transient = False
    else:
        transient = status in (408, 409, 429) or status >= 500
    if transient:
        return Failure("transient", text, status, parse_retry_after(headers, now=now))
    if status in (401, 403):
        return Failure("auth", text, status)
    return Failure("request", text, status)


def classify_sdk_error(exc: BaseException, sdk: ModuleType, *, now: float | None = None) -> Failure | None:
    """Classify an exception raised by the ``anthropic`` or ``openai`` SDK (same class names in both).

    Args:
        exc: The exception.
        sdk: The imported SDK module.
        now: The current Unix time in seconds.

    Returns:
        The failure, or None when ``exc`` is not an SDK or timeout error (it is then re-raised as is).
    """
    if isinstance(exc, sdk.APIStatusError):
        headers = getattr(getattr(exc, "response", None), "headers", None)
        message = getattr(exc, "message", None) or str(exc)
        return classify_status(int(exc.status_code), headers, reason=message, now=now)
    if isinstance(exc, sdk.APITimeoutError):
        return Failure("transient", "the request timed out")
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        detail = f" ({type(cause).__name__}: {cause})" if cause is not None else ""
        return Failure("transient", f"connection error{detail}")
    if isinstance(exc, sdk.APIResponseValidationError):
        return Failure("response", f"the response did not match the API schema: {exc}")
    if isinstance(exc, TimeoutError):
        return Failure("transient", "the request timed out")
    if isinstance(exc, TypeError) and "authentication method" in str(exc):
        # The anthropic SDK's check for a missing key is a TypeError raised when the request is built.
        return Failure("auth", str(exc).strip('"'))
    base = getattr(sdk, "AnthropicError", None) or getattr(sdk, "OpenAIError", None)
    if base is not None and isinstance(exc, base):
        text = str(exc)
        kind: FailureKind = "auth" if ("api_key" in text or "auth" in text.lower()) else "request"
        return Failure(kind, text)
    return None


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    classify: Callable[[BaseException], Failure | None],
    policy: RetryPolicy,
    provider: str,
    model: str | None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    rng: random.Random | None = None,
) -> T:
    """Await ``call()`` until it succeeds, retrying transient failures under ``policy``.

    Args:
        call: Makes one attempt (a fresh awaitable each time).
        classify: Turns an attempt's exception into a :class:`Failure`, or None to re-raise it as is.
        policy: The retry policy.
        provider: Provider name for the error.
        model: Model name for the error.
        sleep: Awaits the given seconds (inject a fake in tests).
        rng: Source of jitter (default: a fresh :class:`random.Random`).

    Returns:
        The first successful attempt's result.

    Raises:
        ProviderError: the subclass for the last failure, with ``attempts`` set, chained to the
            SDK exception.
        asyncio.CancelledError: when cancelled (never retried).
    """
    rng = rng if rng is not None else random.Random()
    attempt = 0
    while True:
        attempt += 1
        try:
            return await call()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            failure = classify(exc)
            if failure is None:
                raise
            if failure.kind == "transient" and attempt < policy.max_attempts:
                wait = policy.delay(attempt, failure.retry_after, rng)
                if wait is not None:
                    logger.warning(
                        "%s: %s; retry %d of %d in %.2f s",
                        provider,
                        failure.reason,
                        attempt,
                        policy.max_attempts - 1,
                        wait,
                    )
                    await sleep(wait)
                    continue
            raise failure.to_error(provider=provider, model=model, attempts=attempt) from exc
