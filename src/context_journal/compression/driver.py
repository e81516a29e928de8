"""The compression driver: the I/O half of a compressing strategy (``tick``, ``drain``, retries, holds).

Strategies are sans-I/O (DESIGN.md 2.4). A :class:`CompressionDriver` does the rest for one manager:

1. refresh the manager's view and let the strategy fold what other handles wrote;
2. ``strategy.prepare(view, ctx)`` when the strategy has it (the autobiographical strategies close the
   chunks that are due and render the next requests), then ``strategy.pending_requests()``;
3. send the first request to the manager's **summarizer** (any :class:`~context_journal.llm.Provider`;
   the default is the offline one), demanding usable text (:meth:`LLMResponse.require_text`: a refusal,
   an empty answer or a stop other than ``end_turn`` is a failure, like an exception);
4. hand the :class:`~context_journal.strategies.SummaryResult` back with ``strategy.record_result``,
   which stores a summary, or one more failed attempt with its backoff.

A model call never happens inside ``compile``; a failed call leaves the journal consistent (nothing but
the attempt is written, the chunk stays pending and is compiled raw or by older summaries). Everything
is async underneath (:meth:`atick`, :meth:`adrain`); the manager's ``tick``/``drain`` run them with
:func:`~context_journal.llm.run_sync`. Counters (:class:`CompressionStats`) count calls, failures and
the tokens the summarizer read and wrote.

Work is per namespace and branch (the strategy's records live there), so several drivers (threads,
processes, hosts) may drain one namespace: each refreshes before it works, and a result for work
another driver finished first is dropped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..errors import ContextJournalError
from ..llm.errors import ProviderRequestError
from ..llm.types import LLMRequest
from ..namespaces import STRATEGY_STATE, same_strategy, strategy_record
from ..rendering.fit import RenderCache, system_head
from ..rendering.options import Roles
from ..stores.base import Op
from ..stores.redaction import redactions_since
from ..strategies.autobiographical import CompressionLog, PendingItem, PendingWork
from ..strategies.base import (
    CompressingStrategy,
    HeadResettingStrategy,
    LagReportingStrategy,
    StrategyContext,
    SummaryRequest,
    SummaryResult,
)
from ..telemetry import traced_summary_call
from ..views import MergedView, MessageView, ReaderView, SliceView, StoreView
from .queries import SummaryQueries
from .requests import provider_request

if TYPE_CHECKING:
    from ..llm.provider import Provider
    from ..messages import MessageStore
    from ..stores.base import Store
    from ..strategies.base import Strategy

__all__ = [
    "CompressionDriver",
    "CompressionHost",
    "CompressionStats",
    "CompressionUnavailableError",
    "DrainProgress",
    "DrainReport",
    "TickResult",
]


logger = logging.getLogger("context_journal.compression")


_HEAD_RESETTING = "a strategy that resets its head window (a HeadResettingStrategy, such as the autobiographical one)"


def listed_lag(work: PendingWork, view: MessageView) -> tuple[int, int]:
    """``(chunks, tokens)`` read from a listing of the work: the chunk (or part) items ready or waiting,
    and the tokens of ``view``'s messages from each one's first to its last (none unless the view holds
    both: a listing names messages, not sequences, so a chunk whose first or last message was removed
    adds no tokens here, where a :class:`LagReportingStrategy` prices the rest of its span), plus the
    middle not closed into chunks yet. O(items)."""
    chunks = tokens = 0
    for item in (*work.ready, *work.waiting):
        if item.kind not in ("chunk", "part") or item.first_message_id is None or item.last_message_id is None:
            continue
        first, last = view.index_of(item.first_message_id), view.index_of(item.last_message_id)
        chunks += 1
        if first is not None and last is not None and last >= first:
            tokens += view.tokens(first, last + 1)
    return chunks, tokens + int(work.unchunked_tokens or 0)


class CompressionUnavailableError(ContextJournalError, TypeError):
    """The manager's strategy cannot do what was asked (``reset_head_window`` needs a
    :class:`~context_journal.strategies.base.HeadResettingStrategy`, ``set_hot_context`` a
    :class:`~context_journal.strategies.base.HotContextStrategy`: the autobiographical or knowledge
    strategy, not passthrough or windowed; ``compression="workers"`` a strategy workers can rebuild by
    name); set one first.

    Attributes:
        strategy: The strategy's name.
    """

    def __init__(
        self,
        strategy: str,
        what: str,
        needs: str = _HEAD_RESETTING,
        fix: str = "set_strategy(AutobiographicalStrategy()) first",
    ) -> None:
        self.strategy = strategy
        super().__init__(f"{what} needs {needs}, but this manager uses {strategy!r}; {fix}")


@dataclass(frozen=True)
class TickResult:
    """What one :meth:`CompressionDriver.atick` did.

    Attributes:
        status: ``"done"`` (a summary or a part of one was stored), ``"failed"`` (the attempt failed and
            was recorded), ``"waiting"`` (nothing ready; work waits for its retry backoff) or ``"idle"``
            (nothing pending; stuck work may remain, see ``pending_work()``).
        work: The work item's key, when one was attempted.
        kind: ``"chunk"``, ``"part"`` or ``"merge"``.
        level: Level of the summary made.
        summary_id: The summary stored, when one was.
        error: Why the attempt failed.
        input_tokens: Input tokens of the call (the provider's count, else the request's estimate).
        output_tokens: Output tokens of the call.
        seconds: Wall time of the model call.
    """

    status: Literal["done", "failed", "waiting", "idle"]
    work: str | None = None
    kind: str | None = None
    level: int | None = None
    summary_id: str | None = None
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0

    @property
    def progressed(self) -> bool:
        """True when the tick did a unit of work (stored a summary or recorded a failure)."""
        return self.status in ("done", "failed")


@dataclass
class CompressionStats:
    """Counters of one driver (reset with :meth:`reset`; not persisted).

    Attributes:
        calls: Model calls made.
        failures: Calls that failed (errors, refusals, empty or cut-off answers).
        summaries: Summaries stored, by level (``{1: n, 2: n}``).
        parts: Parts of large chunks stored.
        input_tokens: Input tokens sent to the summarizer (provider counts where reported).
        output_tokens: Output tokens it wrote.
        seconds: Wall time spent in model calls.
    """

    calls: int = 0
    failures: int = 0
    summaries: dict[int, int] = field(default_factory=dict)
    parts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0

    @property
    def summaries_total(self) -> int:
        return sum(self.summaries.values())

    def reset(self) -> None:
        """Zero every counter."""
        self.calls = self.failures = self.parts = self.input_tokens = self.output_tokens = 0
        self.summaries = {}
        self.seconds = 0.0

    def snapshot(self) -> CompressionStats:
        """A copy."""
        return replace(self, summaries=dict(self.summaries))

    def to_dict(self) -> dict[str, Any]:
        """JSON form (summaries keyed ``"L1"``, ``"L2"``...)."""
        return {
            "calls": self.calls,
            "failures": self.failures,
            "summaries": {f"L{k}": v for k, v in sorted(self.summaries.items())},
            "parts": self.parts,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class DrainProgress:
    """Passed to a ``drain(progress=...)`` callback after each unit of work.

    Attributes:
        done: Units done so far in this drain.
        remaining: Work items still pending (an estimate: merges appear as summaries complete).
        result: The unit just done.
        stats: The driver's counters (live object; copy it to keep).
    """

    done: int
    remaining: int
    result: TickResult
    stats: CompressionStats


@dataclass(frozen=True)
class DrainReport:
    """What a drain did.

    Attributes:
        units: Units of work done (summaries stored and failures recorded).
        summaries: Summaries (and parts) stored.
        failures: Failed attempts.
        seconds: Wall time of the drain.
        pending: The work left (stuck items, or waiting ones when the drain stopped waiting).
        stats: The driver's counters after the drain (a copy).
    """

    units: int
    summaries: int
    failures: int
    seconds: float
    pending: PendingWork
    stats: CompressionStats


class CompressionHost(Protocol):
    """What a driver needs from its manager (``ContextManager`` hands it an adapter of its own)."""

    @property
    def store(self) -> Store: ...

    @property
    def messages(self) -> MessageStore: ...

    @property
    def summarizer(self) -> Provider: ...

    def strategy_context(self) -> StrategyContext:
        """The strategy's context: store, branch, namespace, reader and state of the manager."""
        ...

    def active_strategy(self) -> Strategy:
        """The strategy compression works for (the manager's, or the one its namespace recorded)."""
        ...

    def reader_view(self) -> ReaderView | MergedView | StoreView:
        """The manager's view of its messages (its reader's, after checking the namespace's reader record)."""
        ...


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if type(exc).__name__ not in text else text


class CompressionDriver:
    """Runs compression for one manager (see the module docstring).

    Args:
        host: The manager.
        clock: Wall clock used for retry backoff (seconds since the epoch).
        sleep: Awaited to wait for a backoff during :meth:`adrain`.
    """

    def __init__(
        self,
        host: CompressionHost,
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    ) -> None:
        self.host = host
        self.clock = clock
        self.sleep = sleep
        self.stats = CompressionStats()
        self._cache = RenderCache(size=256)
        self._log: CompressionLog | None = None
        self._recorded: str | None = None  # the strategy record this driver made sure of last
        self.queries = SummaryQueries(self.compression_log, host.reader_view)
        """The summary query API (list, search, get, range) over this manager's compression log."""

    # ---- views and state -------------------------------------------------------------------------

    def views(self, ctx: StrategyContext) -> tuple[MessageView, MessageView]:
        """The manager's whole view (refreshed) and the part a strategy selects from (after the
        leading system messages, as ``compile`` gives it)."""
        full = self.host.reader_view()
        full.refresh()
        stored = ctx.roles()
        roles = Roles.from_metadata(stored) if isinstance(stored, Mapping) else Roles()
        head = system_head(full, roles, self._cache)
        return full, (SliceView(full, head) if head else full)

    def _setup(self) -> tuple[Strategy, StrategyContext, MessageView, MessageView]:
        ctx = self.host.strategy_context()
        strategy = self.host.active_strategy()
        strategy.load(ctx)
        full, body = self.views(ctx)
        return strategy, ctx, full, body

    def release_expired(self) -> list[str]:
        """Write a release record for each timed hold whose time is up (logged as a warning: work the
        host held was let go without it), so the history says when it ended; returns their message ids.
        An expired hold stops holding at once (compiles and ticks read the clock); this records it."""
        log = self.compression_log()
        expired = log.expired_holds(self.clock())
        if not expired:
            return []
        ctx = self.host.strategy_context()
        with ctx.store.transaction() as tx:
            for message_id in expired:
                body = {"type": "hold", "message_id": message_id, "active": False, "at": self.clock(), "expired": True}
                tx.append(ctx.branch_id, log.slot, f"hold/{message_id}", body, Op.EDIT)
        log.refresh()
        for message_id in expired:
            logger.warning("compression hold at message %s expired: compression may now close chunks there", message_id)
        return expired

    def _prepare(self) -> tuple[Strategy, StrategyContext, bool]:
        self.release_expired()
        strategy, ctx, full, body = self._setup()
        if isinstance(strategy, CompressingStrategy):
            strategy.prepare(body, ctx, now=self.clock(), request_view=full)
            return strategy, ctx, True
        return strategy, ctx, False

    @staticmethod
    def _counts(strategy: Strategy, prepared: bool) -> tuple[int, int, int, float | None]:
        if prepared and isinstance(strategy, CompressingStrategy):
            return strategy.pending_counts()
        return len(strategy.pending_requests()), 0, 0, None

    def compression_log(self) -> CompressionLog:
        """The folded compression records of the manager's namespace and branch (the strategy's own
        when it compresses, else a read-only fold)."""
        ctx = self.host.strategy_context()
        strategy = self.host.active_strategy()
        if isinstance(strategy, CompressingStrategy):
            return strategy.compression_log(ctx)
        log = self._log
        if log is None or not log.reads(ctx):
            log = self._log = CompressionLog(ctx.store, ctx.branch_id, ctx.namespace)
        log.refresh()
        return log

    def pending_work(self) -> PendingWork:
        """Work not done yet (closing the chunks that are due first)."""
        strategy, _, prepared = self._prepare()
        if prepared and isinstance(strategy, CompressingStrategy):
            return strategy.pending_work()
        rows = tuple(PendingItem(r.id, "request", 0, None, None, "ready") for r in strategy.pending_requests())
        return PendingWork(ready=rows)

    def pending_lag(self, view: MessageView) -> tuple[int, int]:
        """``(chunks, tokens)`` of the chunk summaries owed (ready or waiting; closing the chunks that are
        due first), and the tokens of ``view``'s messages they and the middle not closed into chunks yet
        hold: priced without listing the work when the strategy can (:class:`LagReportingStrategy`),
        else read from :meth:`pending_work` (:func:`listed_lag`)."""
        strategy, _, prepared = self._prepare()
        if prepared and isinstance(strategy, LagReportingStrategy):
            return strategy.pending_lag(view)
        return listed_lag(self.pending_work(), view)

    def is_ready(self) -> bool:
        """True when no work is ready or waiting (stuck work only shows in :meth:`pending_work`)."""
        strategy, _, _ = self._prepare()
        return strategy.is_ready()

    # ---- requests --------------------------------------------------------------------------------

    def llm_request(self, request: SummaryRequest) -> LLMRequest:
        """The provider request for a strategy's :class:`SummaryRequest` (see :func:`.requests.provider_request`)."""
        return provider_request(request, self.host.store.get_blob)

    async def _call(self, request: SummaryRequest) -> tuple[SummaryResult, float]:
        llm = self.llm_request(request)
        provider = self.host.summarizer
        started = time.perf_counter()
        self.stats.calls += 1
        estimate = int(request.metadata.get("estimated_input_tokens", 0) or 0)
        try:
            response = await provider.complete(llm)
        except AssertionError:
            raise  # a scripted provider's "unexpected call", or a bug: never a provider failure
        except ProviderRequestError:
            # The provider refused the request itself (bad key, unknown model, malformed request): the same
            # request would fail again, so nothing is recorded and the host hears it now; the work stays
            # pending and is retried at the next tick, once the configuration is fixed.
            raise
        except Exception as exc:
            logger.warning("summary call for %s failed: %s", request.id, _describe(exc))
            return SummaryResult(request.id, None, error=_describe(exc), model=getattr(exc, "model", None)), started
        usage = response.usage
        tokens_in = usage.total_input_tokens or estimate
        logger.info(
            "summary call for %s: %d tokens in, %d out, %.3f s (%s)",
            request.id,
            tokens_in,
            usage.output_tokens,
            time.perf_counter() - started,
            response.model,
        )
        try:
            text = response.require_text()
        except ContextJournalError as exc:
            return (
                SummaryResult(
                    request.id,
                    None,
                    response.stop_reason,
                    tokens_in,
                    usage.output_tokens,
                    response.model,
                    _describe(exc),
                ),
                started,
            )
        return (
            SummaryResult(request.id, text, response.stop_reason, tokens_in, usage.output_tokens, response.model),
            started,
        )

    # ---- tick and drain --------------------------------------------------------------------------

    async def atick(self) -> TickResult:
        """Do one unit of pending work: one model call and its record.

        Returns:
            What was done (see :class:`TickResult`).

        Raises:
            StoreError: a write failed.
        """
        strategy, ctx, prepared = self._prepare()
        requests = list(strategy.pending_requests())
        if not requests:
            ready, waiting, _, _ = self._counts(strategy, prepared)
            if ready:
                return TickResult("failed", error="the next requests could not be built (see pending_work())")
            return TickResult("waiting" if waiting else "idle")
        request = requests[0]
        meta = request.metadata
        sent_at = ctx.store.head_seq()  # what the request read was committed by then
        result, started = await traced_summary_call(self._call, request, strategy)
        seconds = time.perf_counter() - started
        self.stats.seconds += seconds
        self.stats.input_tokens += result.input_tokens or 0
        self.stats.output_tokens += result.output_tokens or 0
        dropped = self._outdated(strategy, ctx, sent_at)
        if dropped is None:
            try:
                strategy.record_result(result, ctx)
            except ValueError as exc:  # the strategy no longer knows the request (it was reloaded meanwhile)
                dropped = f"the strategy no longer expects it ({exc})"
        if dropped is not None:
            logger.warning("summary for %s dropped: %s; the work stays pending", request.id, dropped)
            return TickResult("failed", work=request.id, error=f"result dropped: {dropped}", seconds=seconds)
        self._record_strategy(strategy, ctx)
        kind = str(meta.get("kind")) if meta.get("kind") is not None else None
        level = int(meta["level"]) if isinstance(meta.get("level"), int) else None
        base = TickResult(
            "done",
            work=request.id,
            kind=kind,
            level=level,
            input_tokens=result.input_tokens or 0,
            output_tokens=result.output_tokens or 0,
            seconds=seconds,
        )
        if result.text is None:
            self.stats.failures += 1
            return replace(base, status="failed", error=result.error)
        summary_id = self._stored_summary(request.id)
        if summary_id is not None and level is not None:
            self.stats.summaries[level] = self.stats.summaries.get(level, 0) + 1
        elif kind == "part":
            self.stats.parts += 1
        return replace(base, summary_id=summary_id)

    def _outdated(self, strategy: Strategy, ctx: StrategyContext, sent_at: int) -> str | None:
        """Why a summary answered for a request sent when the store's head was ``sent_at`` must not be
        stored, or None. Calls run on the manager while the model call is awaited (the async API, other
        tasks on one loop): a redaction committed meanwhile may have erased text the request carried (a
        summary of it would bring the text back), and a branch switch or a new strategy leaves the result
        without the context it was asked for. The work stays pending and is asked again."""
        if self.host.active_strategy() is not strategy:
            return "the manager's strategy changed during the call"
        now = self.host.strategy_context()
        if (now.branch_id, now.namespace) != (ctx.branch_id, ctx.namespace):
            return "the manager switched branch during the call"
        if ctx.store.head_seq() > sent_at and redactions_since(ctx.store, sent_at):
            return "a redaction was committed during the call (the request may carry erased text)"
        return None

    def _record_strategy(self, strategy: Strategy, ctx: StrategyContext) -> None:
        """Record the strategy this work was done with for the namespace (unless it records the same one
        already), so ``context-journal compile`` and the MCP server's ``compile_context`` default to it and
        see the summaries a Python host made (they once compiled passthrough). One state read
        per driver and strategy."""
        record = strategy_record(strategy)
        if record is None:
            return
        key = json.dumps(record, sort_keys=True)
        if self._recorded == key:
            return
        recorded = ctx.get_state(STRATEGY_STATE)
        if not (isinstance(recorded, dict) and same_strategy(recorded, record)):
            ctx.put_states({STRATEGY_STATE: record})
        self._recorded = key

    def _stored_summary(self, key: str) -> str | None:
        strategy = self.host.active_strategy()
        return strategy.summary_for_request(key) if isinstance(strategy, CompressingStrategy) else None

    async def adrain(
        self,
        progress: Callable[[DrainProgress], Any] | None = None,
        *,
        max_units: int | None = None,
        wait: bool = True,
        max_wait: float | None = None,
    ) -> DrainReport:
        """Tick until nothing is pending (stuck work excepted).

        Args:
            progress: Called with a :class:`DrainProgress` after each unit of work.
            max_units: Stop after this many units.
            wait: Wait for the backoff of failed work and retry it (until it succeeds or is stuck);
                False stops when only waiting work is left.
            max_wait: Stop rather than wait past this many seconds of the drain.

        Returns:
            A :class:`DrainReport`.

        Raises:
            StoreError: a write failed.
            TypeError: ``max_units`` is a ``bool`` or not an ``int``, ``max_wait`` not a number.
            ValueError: ``max_units`` below 0, ``max_wait`` below 0 or NaN.
        """
        if max_units is not None:
            if isinstance(max_units, bool) or not isinstance(max_units, int):
                raise TypeError(f"max_units must be an integer or None, got {max_units!r}")
            if max_units < 0:
                raise ValueError(f"max_units must be >= 0, got {max_units}")
        if max_wait is not None:
            if isinstance(max_wait, bool) or not isinstance(max_wait, int | float):
                raise TypeError(f"max_wait must be a number of seconds or None, got {max_wait!r}")
            if not max_wait >= 0:  # nan fails this
                raise ValueError(f"max_wait must be >= 0 seconds, got {max_wait!r}")
        started = time.perf_counter()
        units = summaries = failures = 0
        while max_units is None or units < max_units:
            result = await self.atick()
            if result.status == "idle":
                break
            if result.status == "waiting":
                strategy, _, prepared = self._prepare()
                next_at = self._counts(strategy, prepared)[3]
                if not wait or next_at is None:
                    break
                delay = max(0.0, next_at - self.clock())
                if max_wait is not None and time.perf_counter() - started + delay > max_wait:
                    break
                await self.sleep(delay)
                continue
            units += 1
            summaries += result.status == "done"
            failures += result.status == "failed"
            if progress is not None:
                ready, waiting, _, _ = self._counts(self.host.active_strategy(), True)
                progress(DrainProgress(units, max(0, ready + waiting - 1), result, self.stats))
            # A summarizer that never awaits (the offline one) gives the loop no point to cancel at:
            # yield once per unit, so Ctrl-C (a cancelled task) stops the drain after the unit in
            # progress, its work kept (1,651 calls once ran on after SIGINT).
            await asyncio.sleep(0)
        pending = self.pending_work()
        return DrainReport(units, summaries, failures, time.perf_counter() - started, pending, self.stats.snapshot())

    # ---- holds -----------------------------------------------------------------------------------

    def set_hold(
        self, message_id: str, active: bool, timeout_seconds: float | None = None, *, written: bool = False
    ) -> None:
        """Hold (or release) compression at a message: no chunk closes at or after it while held; a
        hold with ``timeout_seconds`` ends by itself then (see :meth:`release_expired`). ``written``: the
        message was appended in the transaction this call joins (it is not visible before the commit).

        Raises:
            MessageNotFoundError: no visible message has the id (when holding).
        """
        if active and not written:
            self.host.messages.get(message_id)
        log = self.compression_log()
        ctx = self.host.strategy_context()
        at = self.clock()
        body: dict[str, Any] = {"type": "hold", "message_id": message_id, "active": active, "at": at}
        if active and timeout_seconds is not None:
            body["expires"] = at + timeout_seconds
        item = f"hold/{message_id}"
        with ctx.store.transaction() as tx:
            tx.append(ctx.branch_id, log.slot, item, body, Op.EDIT if log.has_item(item) else Op.APPEND)
        log.refresh()

    # ---- head resets -----------------------------------------------------------------------------

    async def areset_head_window(self, text: str | None = None) -> str:
        """Start a new head window at a transition message (see ``ContextManager.reset_head_window``).

        Raises:
            CompressionUnavailableError: the strategy does not compress.
            ValueError: ``text`` is blank.
            ProviderError: the summarizer failed (nothing is written).
        """
        if text is not None and not text.strip():
            raise ValueError("text must be non-blank (or None to have the summarizer write it)")
        strategy, ctx, full, body = self._setup()
        if not isinstance(strategy, HeadResettingStrategy):
            raise CompressionUnavailableError(getattr(strategy, "name", type(strategy).__name__), "reset_head_window")
        info: dict[str, Any] = {}
        # A summary made from a reader's view is that reader's; a host's own text is stored as given.
        audience = [ctx.reader] if text is None and ctx.reader is not None else None
        if text is None:
            request = strategy.transition_request(body, ctx, full)
            if request is not None:
                self.stats.calls += 1
                started = time.perf_counter()
                response = await self.host.summarizer.complete(self.llm_request(request))
                self.stats.seconds += time.perf_counter() - started
                self.stats.input_tokens += response.usage.total_input_tokens
                self.stats.output_tokens += response.usage.output_tokens
                text = response.require_text()
                info = {
                    "model": response.model,
                    "request_hash": request.metadata.get("request_hash"),
                    "input_tokens": response.usage.total_input_tokens,
                }
        message = strategy.transition_message(text, ctx, audience, info)
        log = strategy.compression_log(ctx)
        with ctx.store.transaction() as tx:
            mid = self.host.messages.append([message])[0]
            item, record = strategy.head_record(mid, info)
            tx.append(ctx.branch_id, log.slot, item, record)
        log.refresh()
        return mid
