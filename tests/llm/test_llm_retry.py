"""The retry loop and its policy, without any SDK."""

from __future__ import annotations

import asyncio
import email.utils
import random
from typing import Any

import pytest

from context_journal.errors import ContextJournalError
from context_journal.llm import (
    ProviderAuthError,
    ProviderError,
    ProviderRequestError,
    ProviderTransientError,
    RetryPolicy,
)
from context_journal.llm.retry import Failure, call_with_retries, classify_status, parse_retry_after


def test_backoff_grows_exponentially_within_jitter_and_cap() -> None:
    policy = RetryPolicy(base_delay=1.0, multiplier=2.0, max_delay=5.0, jitter=0.5)
    rng = random.Random(7)
    for retry, nominal in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)]:
        for _ in range(50):
            wait = policy.backoff(retry, rng)
            assert nominal * 0.5 <= wait <= nominal
    full = RetryPolicy(jitter=1.0)
    assert min(full.backoff(1, rng) for _ in range(200)) < 0.1


def test_policy_validation() -> None:
    with pytest.raises(ValueError):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError):
        RetryPolicy(jitter=1.5)


def test_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"Retry-After": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    when = email.utils.formatdate(2_000_000, usegmt=True)
    assert parse_retry_after({"retry-after": when}, now=1_999_990.0) == 10.0
    assert parse_retry_after({"retry-after": when}, now=2_000_100.0) == 0.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None and parse_retry_after(None) is None


TRANSIENT = [(408, "transient"), (409, "transient"), (429, "transient"), (500, "transient"), (529, "transient")]
CLIENT = [(400, "request"), (404, "request"), (413, "request"), (422, "request"), (401, "auth"), (403, "auth")]


@pytest.mark.parametrize(("status", "kind"), [*TRANSIENT, *CLIENT])
def test_status_classes(status: int, kind: str) -> None:
    assert classify_status(status).kind == kind


def test_should_retry_header_overrides() -> None:
    assert classify_status(500, {"x-should-retry": "false"}).kind == "request"
    assert classify_status(400, {"x-should-retry": "true"}).kind == "transient"


def test_error_tree() -> None:
    for cls in (ProviderTransientError, ProviderRequestError, ProviderAuthError):
        assert issubclass(cls, ProviderError) and issubclass(cls, ContextJournalError)
    err = Failure("transient", "overloaded", 529, 3.0).to_error(provider="p", model="m", attempts=4)
    assert isinstance(err, ProviderTransientError) and err.retry_after == 3.0
    assert str(err) == "p (m): overloaded; HTTP 529; after 4 attempts"


class Boom(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


def _classify(exc: BaseException) -> Failure | None:
    if isinstance(exc, Boom):
        return classify_status(exc.status)
    return None


def _run(script: list[Any], policy: RetryPolicy, waits: list[float]) -> Any:
    calls = iter(script)

    async def call() -> Any:
        item = next(calls)
        if isinstance(item, BaseException):
            raise item
        return item

    async def sleep(s: float) -> None:
        waits.append(s)

    return asyncio.run(
        call_with_retries(
            call, classify=_classify, policy=policy, provider="p", model="m", sleep=sleep, rng=random.Random(1)
        )
    )


def test_loop_retries_transient_then_returns() -> None:
    waits: list[float] = []
    assert _run([Boom(503), Boom(429), "ok"], RetryPolicy(jitter=0.0), waits) == "ok"
    assert waits == [1.0, 2.0]


def test_loop_stops_on_non_transient_and_unknown() -> None:
    waits: list[float] = []
    with pytest.raises(ProviderRequestError) as info:
        _run([Boom(400), "never"], RetryPolicy(), waits)
    assert info.value.attempts == 1 and waits == []
    assert isinstance(info.value.__cause__, Boom)
    with pytest.raises(KeyError):
        _run([KeyError("bug"), "never"], RetryPolicy(), waits)


def test_loop_gives_up_after_max_attempts() -> None:
    waits: list[float] = []
    with pytest.raises(ProviderTransientError) as info:
        _run([Boom(500)] * 5, RetryPolicy(max_attempts=5, jitter=0.0, max_delay=3.0), waits)
    assert info.value.attempts == 5 and waits == [1.0, 2.0, 3.0, 3.0]


def test_single_attempt_policy_never_sleeps() -> None:
    waits: list[float] = []
    with pytest.raises(ProviderTransientError):
        _run([Boom(500)], RetryPolicy(max_attempts=1), waits)
    assert waits == []


def test_cancellation_is_not_retried() -> None:
    waits: list[float] = []
    with pytest.raises(asyncio.CancelledError):
        _run([asyncio.CancelledError(), "never"], RetryPolicy(), waits)
    assert waits == []
