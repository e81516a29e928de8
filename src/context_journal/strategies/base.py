"""The strategy protocol: sans-I/O selection over a view, state through a context, a summary queue.

A strategy decides *what* the next context holds; the compiler (``context_journal.compile``) turns
that into provider-valid messages within the budget, and the manager does the I/O. The contract:

1. ``load(ctx)`` — read the strategy's persisted state (the manager calls it before each compile and
   after a branch switch, so a state another handle wrote is seen).
2. ``select(view, budget) -> Selection`` — **pure** and fast: reads the view and in-memory state,
   returns the entries to render (raw spans of the view and rendered entries such as summaries) and the
   state it would persist. It must not write or call a model. The compiler may call it again with a
   smaller budget when repairs made the rendered context larger than the estimate.
3. ``commit(selection, ctx)`` — persist what the chosen selection decided (e.g. the windowed anchor).
   Not called by ``preview_context``.
4. ``on_messages_added(view, start)`` — told that positions ``start..len(view)-1`` are new; may queue
   work (no I/O).
5. ``pending_requests()`` / ``record_result(result, ctx)`` — the compression queue: a driver
   (``ContextManager.tick``) sends each :class:`SummaryRequest` to the LLM layer and hands the
   :class:`SummaryResult` back; the strategy records it through ``ctx``. A strategy that keeps its own
   queue and compression log implements :class:`CompressingStrategy` too: the driver then closes due
   work with ``prepare`` before each unit, reports the queue with ``pending_work``/``pending_counts``,
   reads holds and summaries from ``compression_log``, and names the summary a result stored with
   ``summary_for_request``; it knows nothing else of the strategy.

Entries are :class:`RawSpan` (messages of the view, rendered as stored then repaired) and
:class:`RenderedEntry` (content the strategy renders itself: a summary, the marker turn of a recall
pair, a note), each saying which view positions it stands for so the compile can report coverage and
provenance. Passthrough and windowed strategies only return raw spans.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..rendering.selection import (
    Budget,
    ContextEntry,
    RawSpan,
    RenderedEntry,
    Selection,
    SummaryRef,
)

if TYPE_CHECKING:
    from ..compile import CompileResult
    from ..messages import MessageInput
    from ..stores.base import Store
    from ..tokens import TokenCounter
    from ..views import MessageView
    from .autobiographical.state import CompressionLog
    from .autobiographical.work import PendingWork

__all__ = [
    "HOT_CONTEXT_STATE",
    "BaseStrategy",
    "Budget",
    "CompressingStrategy",
    "ContextEntry",
    "HeadResettingStrategy",
    "HotContextStrategy",
    "LevelPin",
    "LevelPinningStrategy",
    "RawSpan",
    "RecordedStrategy",
    "RenderedEntry",
    "Selection",
    "Strategy",
    "StrategyContext",
    "SummaryRef",
    "SummaryRequest",
    "SummaryResult",
    "has_summaries",
]


@dataclass(frozen=True)
class SummaryRequest:
    """One unit of compression work for a driver to send to the LLM layer.

    Attributes:
        id: Stable id (the strategy matches the result by it).
        system: System prompt of the request, or None.
        messages: ``{"participant", "role", "content"}`` dicts, themselves provider-valid.
        max_tokens: Output tokens asked for.
        metadata: The strategy's own bookkeeping (chunk id, level, source range...).
    """

    id: str
    system: str | None
    messages: tuple[Mapping[str, Any], ...]
    max_tokens: int
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SummaryResult:
    """What the LLM layer answered to a :class:`SummaryRequest`.

    Attributes:
        request_id: The request answered.
        text: The summary text, or None on failure.
        stop_reason: The provider's stop reason (``"end_turn"`` when complete).
        input_tokens: Input tokens the provider counted.
        output_tokens: Output tokens the provider counted.
        model: The model that answered.
        error: Why the call failed, when it did.
    """

    request_id: str
    text: str | None
    stop_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str | None = None
    error: str | None = None


class StrategyContext:
    """Persisted state of one strategy for one namespace on one branch (the manager makes it).

    Keys are relative: ``get_state("windowed/anchor")`` reads the store state
    ``"<namespace>/windowed/anchor"`` on the branch.

    Args:
        store: The record store.
        branch_id: The branch the manager reads and writes.
        namespace: The manager's namespace.
        counter: The manager's token counter.
        reader: The reader the manager compiles for.
        roles_from: The namespace whose roles apply when this one records none (``"default"`` for a
            namespace over the store's shared message slot: see :meth:`roles`).
        compile_context: The compiler (:func:`context_journal.compile.compile_context`), for a strategy
            that renders its own model requests through it (the autobiographical summary requests); the
            manager passes it, so no strategy imports the compiler. None: such requests cannot be made.
    """

    def __init__(
        self,
        store: Store,
        branch_id: int,
        namespace: str,
        counter: TokenCounter,
        *,
        reader: str | None = None,
        roles_from: str | None = None,
        compile_context: Callable[..., tuple[CompileResult, Any]] | None = None,
    ) -> None:
        self.store = store
        self.branch_id = branch_id
        self.namespace = namespace
        self.counter = counter
        self.reader = reader
        self.roles_from = roles_from
        self.compile_context = compile_context

    def roles(self) -> Any:
        """The roles the namespace records (``<namespace>/roles``: who is the assistant, who speaks as
        system or tool: what an import wrote), else those of ``roles_from``: a reader's namespace over
        the shared messages must not take the agent's turns for the user's (a server
        bound to a reader once summarised "The user said: … claude-opus-4-6: …")."""
        stored = self.get_state("roles")
        if stored is None and self.roles_from is not None and self.roles_from != self.namespace:
            stored = self.store.get_state(self.branch_id, f"{self.roles_from}/roles")
        return stored

    def note_compression_read(self, sequence: int) -> None:
        """Raise the namespace's compression read mark to ``sequence`` before compression reads messages
        up to it (never lowered). A no-op for a manager with no reader: it never reads a block
        with an audience, and may never narrow one.

        Raises:
            StoreError: the write failed; the caller must not send the request.
        """
        if self.reader is None:
            return
        from .. import _read_mark

        _read_mark.raise_compression_read(self.store, self.branch_id, self.namespace, sequence)

    def key(self, name: str) -> str:
        """The store key of a relative state name."""
        return f"{self.namespace}/{name}"

    def get_state(self, name: str, default: Any = None) -> Any:
        """The latest visible value of a state, or ``default``."""
        return self.store.get_state(self.branch_id, self.key(name), default=default)

    def put_states(self, values: Mapping[str, Any]) -> int:
        """Write several states in one transaction; returns the last sequence written (0 if none).

        Raises:
            StoreError: the write failed (nothing is written).
        """
        seq = 0
        if not values:
            return seq
        with self.store.transaction() as tx:
            for name, value in values.items():
                seq = tx.put_state(self.branch_id, self.key(name), value)
        return seq


@runtime_checkable
class Strategy(Protocol):
    """A compile strategy (see the module docstring for the contract)."""

    name: str

    def load(self, ctx: StrategyContext) -> None:
        """Read persisted state."""
        ...

    def select(self, view: MessageView, budget: Budget) -> Selection:
        """Choose the entries to render; pure."""
        ...

    def commit(self, selection: Selection, ctx: StrategyContext) -> None:
        """Persist what ``selection`` decided."""
        ...

    def on_messages_added(self, view: MessageView, start: int) -> None:
        """Positions ``start..len(view)-1`` were appended."""
        ...

    def pending_requests(self) -> Sequence[SummaryRequest]:
        """Compression work waiting for a driver."""
        ...

    def record_result(self, result: SummaryResult, ctx: StrategyContext) -> None:
        """Record what the LLM layer answered."""
        ...

    def is_ready(self) -> bool:
        """True when no compression work is pending."""
        ...


@runtime_checkable
class CompressingStrategy(Strategy, Protocol):
    """A :class:`Strategy` with a compression queue and log of its own: what the compression driver
    (``ContextManager.tick``/``drain``, the workers) needs of it, and all it uses.

    The driver calls ``prepare`` before each unit of work, sends the first of ``pending_requests()`` to
    the summarizer, hands the answer to ``record_result`` and reports the summary ``summary_for_request``
    names; ``pending_work``/``pending_counts`` report the queue as of the last ``prepare``, and
    ``compression_log`` gives the folded records (summaries, holds) the summary queries and hold
    expiry read. :class:`~context_journal.strategies.AutobiographicalStrategy` is one; a strategy of
    another package that implements these compresses through the same driver.

    Retries are the strategy's: ``record_result`` with an error must move the work out of the ready
    queue (waiting with a retry time in ``pending_counts``, or stuck after its last attempt), else
    ``drain`` asks again at once, without end. The summary queries, ``render_stats`` and the summaries
    in a compile's ``parts`` read the summaries the :class:`CompressionLog` holds; a strategy that keeps
    its summaries elsewhere is compressed and compiled alike, but its summaries are not listed there.
    """

    def prepare(
        self,
        view: MessageView,
        ctx: StrategyContext,
        *,
        now: float | None = None,
        request_view: MessageView | None = None,
    ) -> None:
        """Close the work that is due (persisted through ``ctx``) and make the next requests ready.
        ``view`` is what the strategy selects from, ``request_view`` the whole view (with the leading
        system messages) a request may quote; ``now`` is the driver's clock, seconds since the epoch."""
        ...

    def pending_work(self) -> PendingWork:
        """The queue as of the last :meth:`prepare`: ready, waiting, stuck and held items."""
        ...

    def pending_counts(self) -> tuple[int, int, int, float | None]:
        """``(ready, waiting, stuck, next retry time)`` as of the last :meth:`prepare`, cheaply."""
        ...

    def compression_log(self, ctx: StrategyContext) -> CompressionLog:
        """The folded compression records of ``ctx``'s namespace and branch, brought up to date."""
        ...

    def summary_for_request(self, request_id: str) -> str | None:
        """The id of the summary that the recorded answer to ``request_id`` stored, or None (a part of
        a summary, a failure, or a request this strategy does not know)."""
        ...


def has_summaries(strategy: Strategy, view: MessageView, start: int, end: int) -> bool:
    """Whether a summary of ``strategy`` stands for any message at ``view`` positions ``[start, end)``,
    asked of its ``summarised(view, start, end)`` method (a wrapper's is its inner strategy's); a
    compressing strategy without one counts as yes, any other strategy as no. Asked after ``load``, it
    answers from the state the next ``select`` reads."""
    ask = getattr(strategy, "summarised", None)
    if callable(ask):
        return bool(ask(view, start, end))
    return isinstance(strategy, CompressingStrategy)


@runtime_checkable
class HeadResettingStrategy(CompressingStrategy, Protocol):
    """A :class:`CompressingStrategy` that can start a new head window at a transition message
    (``ContextManager.reset_head_window``). The strategy plans and words the reset; the driver makes the
    model call and writes the message and the record in one transaction."""

    def transition_request(
        self, view: MessageView, ctx: StrategyContext, request_view: MessageView | None = None
    ) -> SummaryRequest | None:
        """The request for a summary of what ``view`` holds so far, or None when it holds nothing."""
        ...

    def transition_message(
        self, text: str | None, ctx: StrategyContext, audience: Sequence[str] | None, info: Mapping[str, Any]
    ) -> MessageInput:
        """The transition message holding ``text`` (None: nothing was said before it), for ``audience``
        (None: everyone), with ``info`` (the model, the request hash, input tokens) in its metadata."""
        ...

    def head_record(self, message_id: str, info: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """``(item, body)`` of the compression record marking a head reset at ``message_id``."""
        ...


@runtime_checkable
class LagReportingStrategy(CompressingStrategy, Protocol):
    """A :class:`CompressingStrategy` that prices the work it owes without listing it
    (``ContextManager.compression_lag``, and the advice of a compile that does not fit). Without this,
    the lag is read from :meth:`~CompressingStrategy.pending_work`, O(items)."""

    def pending_lag(self, view: MessageView) -> tuple[int, int]:
        """``(chunks, tokens)`` as of the last ``prepare``: the chunk summaries ready or waiting, and the
        tokens of ``view``'s messages not summarised yet (those chunks' and the middle not closed into
        chunks yet)."""
        ...


@dataclass(frozen=True, slots=True)
class LevelPin:
    """A pinned range to render at a summary level (``ContextManager.pin_range``), in view positions.

    Attributes:
        start: The range's first view position.
        end: One past its last.
        level: Render it at exactly this summary level (1 or more), or None.
        max_level: Render it at this summary level or finer, or None (one of the two is given).
    """

    start: int
    end: int
    level: int | None = None
    max_level: int | None = None

    @property
    def cap(self) -> int:
        """The coarsest level the range may be rendered at."""
        return self.level if self.level is not None else (self.max_level or 0)


@runtime_checkable
class LevelPinningStrategy(Strategy, Protocol):
    """A strategy that renders pinned ranges at a chosen summary level (the autobiographical one): the
    pin wrapper hands it the ranges pinned at a level, and renders the rest of the pins raw itself."""

    def select_pinned(self, view: MessageView, budget: Budget, pins: Sequence[LevelPin]) -> Selection:
        """:meth:`~Strategy.select`, with each of ``pins`` rendered at its level: no coarser than its
        ``cap``, and with an exact ``level`` no finer than the coarsest summary written for it."""
        ...


HOT_CONTEXT_STATE = "strategy/hot_context"
"""Namespace state on a branch: ``{setting: tokens}``, the window sizes changed at run time
(``ContextManager.set_hot_context``). A :class:`HotContextStrategy` applies it over its own settings at
every :meth:`~Strategy.load`, so every handle of the branch (the CLI, the MCP server, the workers) uses
the same windows; a fork inherits it."""


@runtime_checkable
class HotContextStrategy(Strategy, Protocol):
    """A strategy whose windows (what it keeps raw, and the size of the chunks it prepares for
    summarising) can change at run time, recorded per branch in :data:`HOT_CONTEXT_STATE`. Its
    :meth:`~Strategy.load` applies the recorded sizes over the settings it was built with."""

    def hot_context(self) -> dict[str, int]:
        """Every window setting it has, in tokens, as the last :meth:`~Strategy.load` applied them."""
        ...

    def check_hot_context(self, changes: Mapping[str, Any]) -> None:
        """Refuse ``changes`` (``{setting: tokens}``) it could not apply.

        Raises:
            TypeError: a name that is not one of its window settings.
            ValueError: a value out of the setting's range.
        """
        ...


@runtime_checkable
class RecordedStrategy(Protocol):
    """A strategy the command line and the MCP server can rebuild by name: what a namespace records of
    it (``{"strategy": name, "config": {...}}``, a name of ``strategies.by_name``) so that they compile
    a namespace as the host that compressed it does."""

    def settings_record(self) -> dict[str, Any]:
        """``{"strategy": name, "config": settings as JSON}``."""
        ...


class BaseStrategy:
    """Defaults for the optional parts of :class:`Strategy`: no state, no queue."""

    name = "base"

    def load(self, ctx: StrategyContext) -> None:
        """No state to read."""

    def reset(self) -> None:
        """Forget what was folded from the store, so the next :meth:`load` reads it again (after a
        redaction erased records this strategy may hold in memory). Nothing to forget here."""

    def select(self, view: MessageView, budget: Budget) -> Selection:  # pragma: no cover - abstract
        """Subclasses choose the entries."""
        raise NotImplementedError

    def raw_floor(self, view: MessageView) -> Iterator[tuple[int, int, bool]] | None:
        """Spans of ``view`` that every selection renders raw, whatever the budget (a lower bound the
        compiler prices before selecting, so an impossible budget fails without a selection), newest
        first, as ``(start, end, gives_way)`` (``gives_way``: the span is content not summarised yet that
        :attr:`Selection.give_way` or :attr:`Selection.last_resort` would name, which may go whole); None when
        the strategy promises none (here)."""
        return None

    def raw_head(self, view: MessageView) -> tuple[int, int] | None:
        """The head window ``(start, end)`` of ``view`` that every selection names
        :attr:`Selection.protected` (kept whole or excerpted, never left out) where :meth:`raw_floor` renders
        it raw, so the compiler prices it before selecting; None when the strategy keeps none (here)."""
        return None

    def commit(self, selection: Selection, ctx: StrategyContext) -> None:
        """Write the selection's state changes, if any."""
        if selection.state:
            ctx.put_states(selection.state)

    def on_messages_added(self, view: MessageView, start: int) -> None:
        """Nothing to queue."""

    def pending_requests(self) -> Sequence[SummaryRequest]:
        """Nothing pending."""
        return ()

    def record_result(self, result: SummaryResult, ctx: StrategyContext) -> None:
        """No requests are ever sent.

        Raises:
            ValueError: always (this strategy asks for no summaries).
        """
        raise ValueError(f"{self.name} strategy asked for no summary (result {result.request_id!r})")

    def is_ready(self) -> bool:
        """Always ready."""
        return True

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
