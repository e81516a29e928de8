"""OpenTelemetry spans and metrics (optional: ``pip install 'context-journal[otel]'``, ``opentelemetry-api``).

With ``opentelemetry-api`` installed the library reports to the tracer and meter providers the application
configured (OpenTelemetry's global ones, or those given to :func:`configure`); without an SDK configured
the API's providers do nothing. Without ``opentelemetry-api`` every function here is a no-op: this module
then imports nothing beyond the guarded ``try`` below, and the instrumented code pays one function call.

What is reported (instrumentation scope ``context_journal``):

Spans
    ``context_journal.compile``: one per :func:`~context_journal.compile.compile_context` (a manager's
    ``compile``, the MCP tool, and the rendering of each summary request). Attributes
    ``context_journal.compile.strategy``, ``.budget_tokens`` (``max_tokens - reserve_for_response``),
    ``.max_tokens``, ``.tokens`` (the result's tokens), ``.messages`` (its message count), ``.dropped``,
    ``.repairs``, ``context_journal.namespace`` and ``context_journal.branch``. The span's own duration is
    the compile's.

    ``context_journal.compression.call``: one per summary call of a compression driver (inline
    ``tick``/``drain`` and :class:`~context_journal.workers.CompressionWorker` alike). Attributes
    ``context_journal.compression.work`` (the work item), ``.kind``, ``.level``, ``.input_tokens``,
    ``.output_tokens``, ``.attempt`` (1 for a first try), ``.retries`` (earlier failed attempts of the
    same work item), ``.outcome`` (``ok``, ``failed``: the answer was recorded as a failed attempt,
    ``refused``: the provider refused the request, ``error``, ``cancelled``) and ``.model``.

    A failure sets the span's status to ``ERROR`` and ``error.type``.

Metrics
    ``context_journal.compile.duration`` (histogram, ``s``; attributes ``context_journal.compile.strategy``,
    ``error.type`` on failures), ``context_journal.compile.tokens`` (counter, ``{token}``: tokens of the
    compiled contexts), ``context_journal.compression.duration`` (histogram, ``s``; ``.outcome``,
    ``.kind``), ``context_journal.compression.tokens`` (counter, ``{token}``; ``context_journal.token.type``
    ``input`` or ``output``), ``context_journal.compression.retries`` (counter, ``{call}``: calls that
    retried a failed work item), ``context_journal.store.transaction.duration`` (histogram, ``s``: each
    committed write transaction, begin to commit; ``context_journal.store.backend``) and
    ``context_journal.store.records`` (counter, ``{record}``: records those transactions wrote;
    ``context_journal.store.backend``).

Metric attributes are few-valued on purpose (no namespace, no work key); spans carry the detail.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

try:  # the only import of OpenTelemetry at module import time
    from opentelemetry import metrics as _metrics
    from opentelemetry import trace as _trace
except ImportError:  # the extra is not installed: everything below is a no-op
    _metrics = None  # type: ignore[assignment,unused-ignore]
    _trace = None  # type: ignore[assignment,unused-ignore]

if TYPE_CHECKING:
    from .compile import CompileResult
    from .strategies.base import SummaryRequest, SummaryResult

__all__ = ["SCOPE", "configure", "enabled"]

SCOPE = "context_journal"
"""Instrumentation scope name (tracer and meter)."""

T = TypeVar("T")


def enabled() -> bool:
    """True when ``opentelemetry-api`` is importable (spans and metrics go to the configured providers)."""
    return _trace is not None


class _Instruments:
    def __init__(self, tracer_provider: Any, meter_provider: Any) -> None:
        from ._version import __version__

        assert _trace is not None and _metrics is not None
        self.tracer = _trace.get_tracer(SCOPE, __version__, tracer_provider=tracer_provider)
        meter = _metrics.get_meter(SCOPE, __version__, meter_provider=meter_provider)
        self.compile_duration = meter.create_histogram(
            "context_journal.compile.duration", unit="s", description="Duration of context compiles"
        )
        self.compile_tokens = meter.create_counter(
            "context_journal.compile.tokens", unit="{token}", description="Tokens of the compiled contexts"
        )
        self.compression_duration = meter.create_histogram(
            "context_journal.compression.duration", unit="s", description="Duration of summary calls"
        )
        self.compression_tokens = meter.create_counter(
            "context_journal.compression.tokens", unit="{token}", description="Tokens in and out of summary calls"
        )
        self.compression_retries = meter.create_counter(
            "context_journal.compression.retries",
            unit="{call}",
            description="Summary calls that retried a work item whose earlier attempts failed",
        )
        self.store_duration = meter.create_histogram(
            "context_journal.store.transaction.duration",
            unit="s",
            description="Duration of committed store write transactions, begin to commit",
        )
        self.store_records = meter.create_counter(
            "context_journal.store.records", unit="{record}", description="Records written by committed transactions"
        )


_lock = threading.Lock()
_providers: tuple[Any, Any] = (None, None)
_instruments: _Instruments | None = None


def configure(*, tracer_provider: Any = None, meter_provider: Any = None) -> None:
    """Report to these providers instead of OpenTelemetry's global ones (None: the global one). Without
    ``opentelemetry-api`` it does nothing. Mostly for tests and for applications that keep providers of
    their own; an application that sets the global providers need not call it."""
    global _providers, _instruments
    with _lock:
        _providers = (tracer_provider, meter_provider)
        _instruments = None


def _get() -> _Instruments | None:
    global _instruments
    if _trace is None:
        return None
    instruments = _instruments
    if instruments is None:
        with _lock:
            if _instruments is None:
                _instruments = _Instruments(*_providers)
            instruments = _instruments
    return instruments


def _error_type(exc: BaseException) -> str:
    return type(exc).__qualname__


# ---- compile -------------------------------------------------------------------------------------


class _NoSpan:
    """What the instrumentation helpers return when OpenTelemetry is absent."""

    def __enter__(self) -> _NoSpan:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def done(self, result: CompileResult) -> None:
        return None


_NO_SPAN = _NoSpan()


class _CompileSpan:
    def __init__(self, inst: _Instruments, attributes: dict[str, Any]) -> None:
        self._inst = inst
        self._attributes = attributes
        self._strategy = attributes["context_journal.compile.strategy"]
        self._tokens: int | None = None
        self._started = 0.0
        self._span: Any = None
        self._scope: Any = None

    def __enter__(self) -> _CompileSpan:
        self._span = self._inst.tracer.start_span("context_journal.compile", attributes=self._attributes)
        self._scope = _trace.use_span(
            self._span, end_on_exit=False, record_exception=False, set_status_on_exception=False
        )
        self._scope.__enter__()
        self._started = time.perf_counter()
        return self

    def done(self, result: CompileResult) -> None:
        """Record the result's figures (call before leaving the block)."""
        self._strategy = result.strategy
        self._tokens = result.tokens
        self._span.set_attributes(
            {
                "context_journal.compile.strategy": result.strategy,
                "context_journal.compile.tokens": result.tokens,
                "context_journal.compile.messages": len(result.messages),
                "context_journal.compile.dropped": result.dropped,
                "context_journal.compile.repairs": len(result.repairs),
            }
        )

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        seconds = time.perf_counter() - self._started
        metric: dict[str, Any] = {"context_journal.compile.strategy": self._strategy}
        try:
            if exc is not None:
                metric["error.type"] = _error_type(exc)
                self._span.set_attribute("error.type", metric["error.type"])
                self._span.record_exception(exc)
                self._span.set_status(_trace.Status(_trace.StatusCode.ERROR, str(exc)[:500]))
            self._inst.compile_duration.record(seconds, metric)
            if self._tokens is not None:
                self._inst.compile_tokens.add(self._tokens, metric)
        finally:
            self._scope.__exit__(exc_type, exc, tb)
            self._span.end()


INTERNAL_COMPILE = "summary-request"
"""The strategy that lays out a summary request's messages (a compile inside a compression call): not
reported as a compile (its cost is the compression call's)."""


def compile_span(
    strategy: object, max_tokens: int, reserve_for_response: int, namespace: str, branch: str
) -> _CompileSpan | _NoSpan:
    """A context manager around one compile; call ``.done(result)`` with its result inside the block."""
    inst = _get()
    name = str(getattr(strategy, "name", None) or type(strategy).__name__)
    if inst is None or name == INTERNAL_COMPILE:
        return _NO_SPAN
    attributes: dict[str, Any] = {
        "context_journal.compile.strategy": name,
        "context_journal.namespace": namespace,
        "context_journal.branch": branch,
    }
    if isinstance(max_tokens, int) and isinstance(reserve_for_response, int):
        attributes["context_journal.compile.max_tokens"] = max_tokens
        attributes["context_journal.compile.budget_tokens"] = max_tokens - reserve_for_response
    return _CompileSpan(inst, attributes)


# ---- compression calls ---------------------------------------------------------------------------


def _prior_failures(strategy: object, key: str) -> int:
    """Failed attempts recorded for the work item ``key`` (the autobiographical strategy's log), else 0."""
    log = getattr(strategy, "_log", None)
    attempts = getattr(log, "attempts", None)
    attempt = attempts.get(key) if isinstance(attempts, Mapping) else None
    count = getattr(attempt, "attempts", 0)
    return count if isinstance(count, int) and count > 0 else 0


async def traced_summary_call(
    call: Callable[[SummaryRequest], Awaitable[tuple[SummaryResult, T]]],
    request: SummaryRequest,
    strategy: object = None,
) -> tuple[SummaryResult, T]:
    """``await call(request)`` (a compression driver's summary call) inside a
    ``context_journal.compression.call`` span, recording its tokens, latency, retries and outcome."""
    inst = _get()
    if inst is None:
        return await call(request)
    meta = request.metadata
    retries = _prior_failures(strategy, request.id)
    kind = str(meta.get("kind")) if meta.get("kind") is not None else "unknown"
    attributes: dict[str, Any] = {
        "context_journal.compression.work": request.id,
        "context_journal.compression.kind": kind,
        "context_journal.compression.attempt": retries + 1,
        "context_journal.compression.retries": retries,
    }
    if isinstance(meta.get("level"), int):
        attributes["context_journal.compression.level"] = meta["level"]
    metric: dict[str, Any] = {"context_journal.compression.kind": kind}
    if retries:
        inst.compression_retries.add(1, metric)
    started = time.perf_counter()
    with inst.tracer.start_as_current_span(
        "context_journal.compression.call", attributes=attributes, record_exception=False, set_status_on_exception=False
    ) as span:
        try:
            answer = await call(request)
        except BaseException as exc:
            import asyncio

            outcome = "cancelled" if isinstance(exc, asyncio.CancelledError) else _refused_or_error(exc)
            metric["context_journal.compression.outcome"] = outcome
            span.set_attribute("context_journal.compression.outcome", outcome)
            if outcome != "cancelled":
                metric["error.type"] = _error_type(exc)
                span.set_attribute("error.type", metric["error.type"])
                span.record_exception(exc)
                span.set_status(_trace.Status(_trace.StatusCode.ERROR, str(exc)[:500]))
            inst.compression_duration.record(time.perf_counter() - started, metric)
            raise
        result = answer[0]
        outcome = "ok" if result.text is not None and result.error is None else "failed"
        tokens_in, tokens_out = result.input_tokens or 0, result.output_tokens or 0
        span.set_attributes(
            {
                "context_journal.compression.outcome": outcome,
                "context_journal.compression.input_tokens": tokens_in,
                "context_journal.compression.output_tokens": tokens_out,
            }
        )
        if result.model:
            span.set_attribute("context_journal.compression.model", result.model)
        if outcome == "failed":
            why = result.error or "no text"
            head = why.split(":", 1)[0].strip()
            metric["error.type"] = head if head.isidentifier() else "failed"
            span.set_attribute("error.type", metric["error.type"])
            span.set_status(_trace.Status(_trace.StatusCode.ERROR, why[:500]))
        metric["context_journal.compression.outcome"] = outcome
        inst.compression_duration.record(time.perf_counter() - started, metric)
        tokens = {"context_journal.compression.kind": kind}
        inst.compression_tokens.add(tokens_in, {**tokens, "context_journal.token.type": "input"})
        inst.compression_tokens.add(tokens_out, {**tokens, "context_journal.token.type": "output"})
        return answer


def _refused_or_error(exc: BaseException) -> str:
    from .llm.errors import ProviderRequestError

    return "refused" if isinstance(exc, ProviderRequestError) else "error"


# ---- store writes --------------------------------------------------------------------------------


def store_commit(backend: str, records: int, seconds: float) -> None:
    """Record one committed write transaction of a ``backend`` store: ``records`` written, ``seconds``
    from begin to commit."""
    inst = _get()
    if inst is None:
        return
    attributes = {"context_journal.store.backend": backend}
    inst.store_duration.record(seconds, attributes)
    if records:
        inst.store_records.add(records, attributes)
