"""ContextManager: the host-facing object (DESIGN.md 2.5).

A manager is bound to one store, one **namespace** (whose strategy state it owns) and one **branch**:
two managers on two branches of one store never move each other. By default every namespace of a
store shares one message slot (one conversation read by several agents); ``isolate=True`` gives the
namespace a slot of its own.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import os
import re
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any, Literal, TypeVar, cast

from ._names import clip_repr, name_problem, shows_nothing
from .branching import BranchingMixin, StrategyInitError
from .compile import (
    UNSUMMARISED_PART,
    CompileOptions,
    CompileResult,
    Injection,
    OverBudgetError,
    RenderCache,
    Roles,
    Source,
    calibrated_parts,
    compile_context,
)
from .compression import (
    CompressionDriver,
    CompressionStats,
    CompressionUnavailableError,
    DrainProgress,
    DrainReport,
    TickResult,
)
from .compression.queue import CompressionDelegatedError, enqueue, workers_can_run
from .content import ContentInput, resolve_media, validate_content
from .errors import (
    BranchNotFoundError,
    ContextJournalError,
    MalformedContentError,
    MessageNotFoundError,
    RedactionError,
    ViewFilterError,
)
from .llm import OfflineSummarizer, Provider, ToolDefinition, run_sync
from .messages import Message, MessageInput, MessageStore, WriteHook, to_timestamp
from .namespaces import (
    AUXILIARY_STATE,
    NAMESPACE_MARK,
    AuxiliaryView,
    AuxiliaryViewsConflictError,
    namespace_is_isolated,
    recorded_auxiliary,
    recorded_strategy,
    resolve_auxiliary_views,
)
from .readers import (
    READER_STATE,
    ReaderConflictError,
    ReaderError,
    StaleReaderError,
    check_narrowing,
    compression_read_mark,
    keep_hidden,
    recorded_reader,
    require_recorded_reads,
    sees,
    validate_reader,
)
from .recall.lines import LineCache
from .recall.query import RecallArg, dated, recall_report, with_recall
from .recall.search import SearchHit, search_messages
from .recall.summaries import SummaryHit, search_summary_text
from .redaction import Redaction, list_redactions, redact_messages
from .render_stats import Shape, shape_of
from .retention import set_retention
from .sharding import (
    SHARD_KEY,
    group_of,
    is_shard_form,
    join_group,
    join_messages,
    layout_of,
    plan_shards,
    refuse_shard,
    shard_id,
    shard_ids,
)
from .state.host import FACTS_STATE, WorkingStateMixin
from .state.keeper import LedgerStrategy
from .stores import ROOT_BRANCH, Store, check_location, open_store
from .stores.base import Transaction
from .stores.queue import QueueStore
from .strategies import (
    STRATEGY_NAMES,
    PassthroughStrategy,
    PendingWork,
    Selection,
    Strategy,
    StrategyContext,
    Summary,
    strategy_by_name,
)
from .strategies.autobiographical import SYSTEM_STATE, TOOLS_STATE
from .strategies.autobiographical.records import StaleMark, slot_for
from .strategies.base import HOT_CONTEXT_STATE, BaseStrategy, HotContextStrategy, LevelPinningStrategy
from .strategies.newest import NEWEST_STATE, NewestStrategy, newest_ids
from .strategies.pinned import (
    DOCUMENTS_STATE,
    MAX_PIN_LEVEL,
    PINS_STATE,
    PinInfo,
    PinnedStrategy,
    PinRange,
    PinUnsupportedError,
    pinned_ids,
    pinned_ranges,
)
from .strategies.windowed import ANCHOR_STATE
from .tokens import Calibration, EstimatingCounter, TokenCounter, check_token_count, content_mix
from .views import MergedView, MessageView, ReaderView, ViewFilter, filter_for_reader

__all__ = ["DEFAULT_NAMESPACE", "ONCE_SUMMARISED_PART", "ContextManager", "why_unsummarised"]

DEFAULT_NAMESPACE = "default"

ONCE_SUMMARISED_PART = "needed once summarised"
"""Key of ``OverBudgetError.parts``: the tokens the smallest valid context needs once compression has
caught up, set when compression lags and even that is over the budget."""

logger = logging.getLogger("context_journal.compile")

_MAX_HOLD_SECONDS = 365 * 24 * 3600
"""The longest timed compression hold, in seconds."""


def _with_newest(strategy: Strategy, ctx: StrategyContext) -> Strategy:
    """``strategy`` wrapped to render the namespace's marked messages last (when it marks any)."""
    ids = newest_ids(ctx.get_state(NEWEST_STATE))
    return NewestStrategy(strategy, ids) if ids else strategy


def _auxiliary_sources(result: CompileResult, view: MergedView) -> CompileResult:
    """``result`` with each message source that came from an auxiliary slot naming its namespace."""

    kinds = ("message", "recall", "system")
    found = view.namespaces_of(
        s.id for srcs in (*(m.sources for m in result.messages), result.system_sources) for s in srcs if s.kind in kinds
    )

    def mark(sources: tuple[Source, ...]) -> tuple[Source, ...]:
        if not any(s.id in found for s in sources):
            return sources
        return tuple(s._replace(namespace=found[s.id]) if s.kind in kinds and s.id in found else s for s in sources)

    messages = tuple(m._replace(sources=mark(m.sources)) for m in result.messages)
    return dataclasses.replace(result, messages=messages, system_sources=mark(result.system_sources))


def _classes_differ(calibration: Calibration) -> bool:
    """Whether some content class's factor is more than 2% away from the overall one (a class not
    reported yet included: after reports on Hindi alone, English is priced at 1.0, not Hindi's rate)."""
    factors = [*calibration.classes.values(), calibration.unreported_factor]
    return any(abs(f / calibration.factor - 1) > 0.02 for f in factors)


def _ceiling(calibration: Calibration) -> Calibration:
    """``calibration`` with its overall factor raised to its largest class factor (a compile of content
    of one class alone then stays within the budget whichever class it is: the overall factor is their
    mean, up to 2% under one of them)."""
    top = max([calibration.factor, *calibration.classes.values(), calibration.unreported_factor])
    return calibration if top == calibration.factor else dataclasses.replace(calibration, factor=top)


def _compiled_mix(result: CompileResult, counter: TokenCounter) -> dict[str, int]:
    return content_mix([*result.system, *(b for m in result.messages for b in m.content)], counter)


def _repriced(result: CompileResult, tokens: int, factor: float) -> CompileResult:
    """``result`` priced at ``tokens`` (its content's own factor ``factor``), its parts with it."""
    parts = calibrated_parts(result.estimated_parts, tokens) if result.estimated_parts else result.parts
    return dataclasses.replace(result, tokens=tokens, calibration=factor, parts=parts)


def _per_class(
    result: CompileResult,
    selection: Selection,
    calibration: Calibration,
    run: Callable[[Calibration], tuple[CompileResult, Selection]],
    counter: TokenCounter,
) -> tuple[CompileResult, Selection]:
    """The compile corrected class by class (an English compile of a
    namespace also calibrated on Hindi was once priced at the mix's 2.07x, filling half its budget; a Hindi
    one would go over). The first compile used the overall factor; its content's own factor (the class
    factors over its mix) is the next compile's, until the class-by-class total fits the budget (three
    compiles, then one at the dearest class's factor if none fitted; the one that fits with the most
    tokens is kept, the first if none fits)."""
    best: tuple[CompileResult, Selection] | None = None
    current = result, selection
    factor = calibration.factor
    for _ in range(3):
        compiled, _selection = current
        mix = _compiled_mix(compiled, counter)
        # The content's own factor (its classes' factors over its mix) prices the whole estimate, the
        # framing of its messages (which no class holds) included.
        own = calibration.apply_mix(mix) / max(1, sum(mix.values())) if mix else factor
        provider = math.ceil(compiled.estimated_tokens * own - 1e-9)
        if provider <= compiled.budget:
            fitted = _repriced(compiled, provider, own)
            if best is None or fitted.tokens > best[0].tokens:
                best = fitted, current[1]
        if provider > compiled.budget:
            own = max(own, factor * provider / compiled.budget)  # over: take off at least the excess
        if abs(own / factor - 1) <= 0.02 and provider <= compiled.budget:
            break
        factor = own
        try:
            current = run(dataclasses.replace(calibration, factor=factor))
        except OverBudgetError:
            break
    if best is None:
        # None fitted (each smaller compile held more of the dearer class): price at the dearest class's
        # factor, an upper bound of any mix's own factor, so the content fits class by class.
        dearest = _ceiling(calibration)
        try:
            compiled, chosen = run(dearest)
        except OverBudgetError:
            return result, selection
        mix = _compiled_mix(compiled, counter)
        own = calibration.apply_mix(mix) / max(1, sum(mix.values())) if mix else dearest.factor
        provider = math.ceil(compiled.estimated_tokens * own - 1e-9)
        if provider <= compiled.budget:
            best = _repriced(compiled, provider, own), chosen
    return best if best is not None else (result, selection)


def _check_view_filter(keep: object) -> ViewFilter | None:
    """``keep`` as a filter view's predicate.

    Raises:
        TypeError: it is neither None nor callable.
    """
    if keep is not None and not callable(keep):
        raise TypeError(f"view_filter must be a callable (message -> bool) or None, got {type(keep).__name__}")
    return keep  # a callable of the right shape is the caller's promise


def _hold_timeout(name: str, value: object, *, true_holds: bool = True) -> float | None:
    """A hold's timeout in seconds from ``value``: a number of seconds in (0, one year] is itself;
    ``True`` (when ``true_holds``) is a hold without one (None).

    Raises:
        ValueError: anything else (naming the argument ``name``).
    """
    if value is True and true_holds:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= _MAX_HOLD_SECONDS:
        raise ValueError(f"{name} must be a number of seconds in (0, {_MAX_HOLD_SECONDS:,}], got {value!r}")
    return float(value)


def _namespace_name(namespace: str | None) -> str:
    """The namespace's name (None and ``""``: the default one).

    Raises:
        ValueError: a name that is blank, holds a control character or a lone surrogate, or is not text.
    """
    if not namespace:
        return DEFAULT_NAMESPACE
    problem = name_problem(namespace)
    if problem is not None:
        raise ValueError(f"a namespace name {problem}: {clip_repr(namespace)}")
    return namespace


_TOOL_KINDS = frozenset({"tool_use", "tool_result", "server_tool_use", "mcp_tool_use", "mcp_tool_result"})
"""Block kinds of a tool unit (a message holding one cannot be moved or rendered apart from its pair)."""

_COMPILE_STATES = (
    READER_STATE,
    "roles",
    PINS_STATE,
    DOCUMENTS_STATE,
    FACTS_STATE,
    NEWEST_STATE,
    "calibration",
    ANCHOR_STATE,
)
"""The states of its namespace a compile reads, fetched in one query at its start (Store.prefetch_states)."""

_Method = TypeVar("_Method", bound=Callable[..., Any])


def _in_read_scope(method: _Method) -> _Method:
    """Run a manager method inside its store's :meth:`~stores.base.Store.read_scope`: a state or slot
    missing at the start is missing for the whole call (one lookup each, where a compile made six)."""

    @functools.wraps(method)
    def scoped(self: ContextManager, *args: Any, **kwargs: Any) -> Any:
        with self._store.read_scope():
            return method(self, *args, **kwargs)

    return cast(_Method, scoped)


class ContextManager(BranchingMixin, WorkingStateMixin):
    """Messages of one namespace on one branch of a store. Use :meth:`open` to make one.

    A manager is a context manager: leaving the ``with`` block closes it (and the store, if the
    manager opened it from a path).
    """

    def __init__(
        self,
        store: Store,
        *,
        namespace: str | None = None,
        isolate: bool | None = None,
        strategy: Any = None,
        token_counter: TokenCounter | None = None,
        branch: str = ROOT_BRANCH,
        owns_store: bool = False,
        slot: str | None = None,
        index: MessageStore | None = None,
        summarizer: Provider | None = None,
        compression: str = "inline",
        view_reader: str | None = None,
        view_filter: ViewFilter | None = None,
        auxiliary_views: Sequence[Mapping[str, Any] | str] | None = None,
        index_thinking: bool = False,
        shard_tokens: int | None = None,
    ) -> None:
        if compression not in ("inline", "workers"):
            raise ValueError(f"compression must be 'inline' or 'workers', not {compression!r}")
        if isinstance(strategy, str):
            strategy = resolve_strategy(strategy)
        self._compression_mode = compression
        self._summarizer = summarizer
        self._store = store
        self._owns_store = owns_store
        self._namespace = _namespace_name(namespace)
        if isolate is None:  # a namespace with a slot of its own (an imported conversation) reads it
            isolate = slot is None and namespace_is_isolated(store, namespace)
        self._isolate = isolate
        self._counter: TokenCounter = token_counter or EstimatingCounter()
        self._branch = store.get_branch(branch)
        # Who this manager compiles for (its own reader, else the one the namespace records).
        reader = validate_reader(view_reader)
        recorded = recorded_reader(store, self._branch.id, self._namespace)
        # Bug case B64: a reader's view is an authority the caller must name; a handle that names no
        # reader is refused on a namespace that records one (never a silent fallback to that reader).
        if recorded is not None and recorded != reader:
            raise ReaderConflictError(self._namespace, recorded, reader, "open")
        self._view_reader: str | None = reader
        self._view_filter = _check_view_filter(view_filter)
        if self._view_reader is not None:
            require_recorded_reads(strategy)
        self._slot = slot or (f"messages/{self._namespace}" if isolate else "messages")
        self._auxiliary = self._open_auxiliary(auxiliary_views, compression)
        self._aux_indexes: dict[tuple[str, int], MessageStore] = {}
        if index is not None and index.slot == self._slot and index.branch_id == self._branch.id:
            self._messages = index  # a derived child's index, cloned from its parent's
        else:
            self._messages = MessageStore(store, self._slot, self._branch.id, self._counter)
        if not isinstance(index_thinking, bool):
            raise TypeError(f"index_thinking must be True or False, got {index_thinking!r}")
        if index_thinking:
            self._messages.index_thinking = True
        self.shard_tokens = shard_tokens
        self._branch_indexes: dict[int, MessageStore] = {}
        self._recall_lines = LineCache()  # recalled lines, by reader and version (recall/lines.py)
        self.strategy = resolve_strategy(strategy)
        self._check_workers_can_run(self.strategy)
        self._closed = False
        # A reader claims an unclaimed namespace with its first write, not at open: a read-only handle
        # (a CLI `show --reader`, a reader-bound MCP server answering a search) leaves the record alone.
        self._claim_pending = reader is not None and recorded is None
        self._mark_pending = self._slot == "messages" and self._namespace != "default"

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        store: Store | None = None,
        namespace: str | None = None,
        isolate: bool | None = None,
        strategy: Any = None,
        token_counter: TokenCounter | None = None,
        branch: str = ROOT_BRANCH,
        durability: str = "normal",
        summarizer: Provider | None = None,
        compression: str = "inline",
        view_reader: str | None = None,
        create_dirs: bool = False,
        view_filter: ViewFilter | None = None,
        auxiliary_views: Sequence[Mapping[str, Any] | str] | None = None,
        index_thinking: bool = False,
        shard_tokens: int | None = None,
    ) -> ContextManager:
        """Open a manager.

        Args:
            path: A store location: a file path (SQLite, the default backend), ``sqlite:///path``,
                ``memory:``, or a PostgreSQL URL. Exactly one of ``path`` and ``store`` is given.
            store: An open :class:`Store` shared with other managers (not closed by this manager).
            namespace: Whose strategy state this manager owns; ``None`` is ``"default"``.
            isolate: Give the namespace its own message slot instead of the store's shared one. None
                (the default): its own slot when the store already has one for it (an imported
                conversation, or an earlier ``isolate=True``), else the shared one.
            strategy: The compile strategy: a :class:`~context_journal.strategies.Strategy`, or one of the
                names ``"passthrough"``, ``"windowed"``, ``"autobiographical"``, ``"knowledge"`` (default
                settings); None is passthrough.
            token_counter: Token counter (default :class:`EstimatingCounter`).
            branch: The branch to read and write (default ``"main"``).
            durability: SQLite ``"normal"`` or ``"full"`` when opening from a path.
            summarizer: The model that writes summaries (default :class:`OfflineSummarizer`).
            view_reader: The reader this manager compiles for: compiles and compression read
                blocks with no audience and blocks whose audience names this reader. The first reader
                that writes through a namespace (a message, a compile, compression, a pin, a fact;
                opening and reading claim nothing) is recorded per branch, and from then on the
                namespace opens only for that reader: None compiles for no reader (no block with an audience) and is
                refused on a namespace that records a reader (bug case B64: a handle never compiles
                another agent's private blocks because it named nobody).
            compression: ``"inline"`` (``tick``/``drain`` call the summarizer in this process) or
                ``"workers"``: this manager never calls a model; it enqueues its conversation in the
                store's work queue (on each append and compile) for ``context-journal worker`` processes,
                and ``tick``/``drain`` raise :class:`~context_journal.workers.CompressionDelegatedError`.
            create_dirs: Create the missing directories of a SQLite file path (default: a missing directory
                is an error, so a mistyped path never leaves a new tree behind).
            view_filter: A filter view (see :attr:`view_filter`): ``keep(message) -> bool``; messages it
                rejects are left out of strategy reads, not of the store or raw reads.
            auxiliary_views: Other namespaces' message slots merged read-only into the strategy's view
                (see :attr:`auxiliary_views`): ``[{"namespace": "main"}, ...]``; recorded for the
                namespace. None: the ones the namespace records (none if it records none).
            index_thinking: Put the text of thinking blocks this handle writes in the full-text index too
                (default: not; thinking is the model's scratch space). A setting of the handle, kept by its
                branches and derived children; messages written before are indexed as they were.
            shard_tokens: Store a message of more estimated tokens than this as a body group of shards
                (see :attr:`shard_tokens`); None: twice the strategy's ``target_chunk_tokens`` (no
                sharding with a strategy that does not chunk); 0: never.

        Raises:
            ValueError: both or neither of ``path`` and ``store``, or an unknown ``compression``;
                an auxiliary view that lists this manager's own slot or has an unknown key, or auxiliary
                views with ``compression="workers"``.
            NamespaceNotFoundError: an auxiliary view names a namespace the branch does not have.
            AuxiliaryViewsConflictError: the namespace records other auxiliary views on the branch, or
                has summaries made without the ones named.
            TypeError: ``strategy`` is neither a strategy nor one of the names, ``view_filter`` is
                not callable, or ``path`` is an open store (pass it as ``store=``).
            StoreError: the SQLite file's directory does not exist (and ``create_dirs`` is False).
            BranchNotFoundError: the branch does not exist.
            StoreError: the store cannot be opened.
            ReaderConflictError: the namespace records another reader on the branch, or records a reader
                and ``view_reader`` is None (nothing is written).
            ReaderError: ``view_reader`` is empty, the namespace's record is not a reader's name, or the
                strategy does not record its compression reads.
            ValueError: ``shard_tokens`` is negative or not an integer.
        """
        if isinstance(path, Store):
            raise TypeError(
                "ContextManager.open() takes a location (a file path, 'memory:' or a URL) as its first argument; "
                "pass an open store as store=..."
            )
        if (path is None) == (store is None):
            raise ValueError("give exactly one of path= and store=")
        owns = store is None
        if store is None:
            assert path is not None
            text = os.fspath(path)
            opts: dict[str, Any] = {}
            if not text.startswith(("postgres", "memory:", ":memory:")):
                opts["durability"] = durability
                check_location(text, create_dirs)
            store = open_store(text, **opts)
        try:
            return cls(
                store,
                namespace=namespace,
                isolate=isolate,
                strategy=strategy,
                token_counter=token_counter,
                branch=branch,
                owns_store=owns,
                summarizer=summarizer,
                compression=compression,
                view_reader=view_reader,
                view_filter=view_filter,
                auxiliary_views=auxiliary_views,
                index_thinking=index_thinking,
                shard_tokens=shard_tokens,
            )
        except BaseException:
            if owns:
                store.close()
            raise

    # ---- properties -------------------------------------------------------------------------------

    @property
    def shard_tokens(self) -> int:
        """The shard threshold in estimated tokens: a message written through this handle that is larger
        (of text, image and document blocks only) is stored as a body group of shards, cut at the best
        seams (see :mod:`~context_journal.sharding`). Set an int (0: never shard) or None for the
        default: the active strategy's ``shard_threshold`` (the autobiographical strategy: twice its
        ``target_chunk_tokens``, and a message that opens the conversation inside the head window is
        kept whole up to four times the head window, as the head holds it), 0 for a strategy that does
        not chunk. Reading it gives the threshold of a message written in the middle.

        Raises:
            ValueError: set to a negative number or a non-integer.
        """
        return self._ingress_threshold(None)

    @shard_tokens.setter
    def shard_tokens(self, value: int | None) -> None:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"shard_tokens must be None or an integer >= 0, got {value!r}")
        self._shard_tokens = value

    def _ingress_threshold(self, tokens_before: Callable[[], int] | None) -> int:
        """The shard threshold of the next message (``tokens_before``: the tokens of the slot before it, None
        for a message in the middle)."""
        if self._shard_tokens is not None:
            return self._shard_tokens
        rule = getattr(self.strategy, "shard_threshold", None)
        if rule is None:
            return 0
        value = rule(tokens_before() if tokens_before is not None else 1 << 62)
        return value if isinstance(value, int) and value > 0 else 0

    def _append(self, items: Sequence[MessageInput]) -> list[str]:
        """Append ``items`` (:meth:`MessageStore.append`) with the shard threshold of messages appended now:
        the threshold in the middle, and the one at the slot's current size (which can only be higher)
        priced only for a message that could be over the first."""
        exact = None
        if self._shard_tokens is None and hasattr(self.strategy, "shard_threshold"):
            exact = functools.partial(self._ingress_threshold, self._messages.tokens)
        return self._messages.append(items, self._ingress_threshold(None), exact)

    @property
    def view_reader(self) -> str | None:
        """The reader this manager compiles for (None: no reader; no block with an audience is read)."""
        return self._view_reader

    @property
    def view_filter(self) -> ViewFilter | None:
        """The filter view's predicate (None: no filter): ``keep(message) -> bool``, given each message as
        this manager's reader sees it. A message it returns False for is left out of every strategy
        read (compiles, previews, recall, compression requests made by this handle) but stays in the
        store and in raw reads (:meth:`get_all_messages`, :meth:`get_message`, :meth:`search_messages`).

        A convenience, not a confidentiality boundary (audiences are that): it belongs to this handle
        (workers and other handles do not apply it), and it is not retroactive: a summary or a chunk
        record written before it keeps its text, and the working-state ledger is built from the journal.
        The filter sees each message version once (its verdict is kept per version); it should be a
        pure function of the message. Setting it makes the strategy reload its state.

        Raises (from compiles and other strategy reads):
            ViewFilterError: the predicate raised for a message (named, chained); nothing is written.
        """
        return self._view_filter

    @view_filter.setter
    def view_filter(self, keep: ViewFilter | None) -> None:
        self._view_filter = _check_view_filter(keep)
        self._compile_view = None
        self._raw_view = None
        if self.strategy is not None and hasattr(self.strategy, "load"):
            self.strategy.load(self._strategy_context())

    @property
    def auxiliary_views(self) -> list[dict[str, str]]:
        """Other namespaces' message slots merged read-only into this manager's strategy view:
        ``[{"namespace": "main"}, ...]`` (empty: none).

        A side reader (a critic, a planner, a summariser of someone else's conversation) writes its own
        slot and compiles it interleaved with another namespace's messages, in the order they were
        appended (by store sequence), on this manager's branch, as this manager's reader sees them
        (blocks addressed to other readers never appear) and through its filter view. The merged messages
        appear in every strategy read (compiles, previews, recall, the compression requests this handle
        makes) with their provenance (``Source.namespace`` names the auxiliary namespace); raw reads
        (:meth:`get_all_messages`, :meth:`get_message`, :meth:`search_messages`), pins and writes stay on
        this manager's own slot. A slot listed twice, or a message id held by two slots, is shown once.

        The views belong to the namespace, not to one handle: the first handle that names them records
        them on its branch (a state record; forks inherit it), and every later handle of the namespace
        (another process, the command line, the MCP server, a worker) opens with them when it names none.
        Its summaries are made from the merged view, so a handle naming other views is refused
        (:class:`~context_journal.namespaces.AuxiliaryViewsConflictError`), and so is naming views for
        a namespace that already has summaries made without them; another view needs another namespace
        or a derived branch (``derive(..., auxiliary_views=...)``). Setting the property records the views
        as opening with them does, and makes the strategy reload its state.

        Raises (from the setter):
            ValueError: a view lists this manager's own slot (a namespace over the shared slot reads the
                shared slot), names a namespace without a slot of its own (other than ``"default"``), or
                has an unknown key; or this manager hands compression to workers.
            TypeError: not a list of ``{"namespace": name}`` mappings (or names).
            NamespaceNotFoundError: a namespace does not exist on this branch.
            AuxiliaryViewsConflictError: the namespace records other views, or has summaries made
                without these.
        """
        return [v.to_dict() for v in self._auxiliary]

    @auxiliary_views.setter
    def auxiliary_views(self, specs: Sequence[Mapping[str, Any] | str] | None) -> None:
        found = self._check_auxiliary(specs, self._compression_mode)
        if [a.namespace for a in found] == [a.namespace for a in self._auxiliary]:
            return
        self._record_auxiliary(found)
        self._auxiliary = found
        self._compile_view = None
        self._raw_view = None
        if self.strategy is not None and hasattr(self.strategy, "load"):
            self.strategy.load(self._strategy_context())

    def _open_auxiliary(
        self, specs: Sequence[Mapping[str, Any] | str] | None, compression: str
    ) -> tuple[AuxiliaryView, ...]:
        """The auxiliary views a handle opens with: the ones named (recorded for the namespace when it
        records none), else the ones the namespace records on the branch."""
        if specs is None:
            specs = recorded_auxiliary(self._store, self._branch.id, self._namespace) or None
            return self._check_auxiliary(specs, compression)
        found = self._check_auxiliary(specs, compression)
        self._record_auxiliary(found)
        return found

    def _record_auxiliary(self, found: Sequence[AuxiliaryView]) -> None:
        """Record ``found`` as the namespace's auxiliary views on this branch, unless it records them.

        Raises:
            AuxiliaryViewsConflictError: the namespace records others, or records none and already has
                summaries (made from its own slot: the merged view would hide what they left out).
        """
        names = [a.namespace for a in found]
        recorded = recorded_auxiliary(self._store, self._branch.id, self._namespace)
        if recorded is not None and names != recorded:
            raise AuxiliaryViewsConflictError(self._namespace, recorded, names)
        if recorded is not None or not names:
            return
        if f"compression/{self._namespace}" in self._store.list_slots():
            raise AuxiliaryViewsConflictError(self._namespace, [], names, "it already has summaries made without them")
        with self._store.transaction() as tx:
            tx.put_state(self._branch.id, f"{self._namespace}/{AUXILIARY_STATE}", names)

    def _check_auxiliary(
        self, specs: Sequence[Mapping[str, Any] | str] | None, compression: str
    ) -> tuple[AuxiliaryView, ...]:
        found = resolve_auxiliary_views(self._store, self._branch.name, self._slot, specs)
        if found and compression == "workers":
            raise ValueError(
                "auxiliary views need compression='inline': a worker process summarises the namespace's own "
                "slot and would not see the merged messages"
            )
        return found

    def _aux_index(self, slot: str) -> MessageStore:
        """The message index of an auxiliary slot on this manager's branch (built once per branch)."""
        key = (slot, self._branch.id)
        index = self._aux_indexes.get(key)
        if index is None:
            index = self._aux_indexes[key] = MessageStore(self._store, slot, self._branch.id, self._counter)
        return index

    def _claim_reader(self, branch_id: int) -> None:
        """Record this manager's reader for its namespace on ``branch_id``."""
        with self._store.transaction() as tx:
            tx.put_state(branch_id, f"{self._namespace}/reader", self._view_reader)

    def _mark_namespace(self) -> None:
        """Record that this namespace exists (a namespace over the shared message slot leaves no slot of
        its own): the command line and the MCP server then find it instead of taking its name for a
        typo (``compile -n a`` after a Python host wrote through ``a`` once said "no
        namespace 'a'"). One state read per manager, before its first write."""
        self._mark_pending = False
        key = f"{self._namespace}/{NAMESPACE_MARK}"
        if self._store.get_state(self._branch.id, key) is None:
            with self._store.transaction() as tx:
                tx.put_state(self._branch.id, key, {"created_by": "python"})

    def _claim_if_pending(self) -> None:
        """Before a write: record this manager's reader for a namespace that records none yet.

        Raises:
            StaleReaderError: another handle claimed the namespace for another reader since this one opened.
        """
        if self._mark_pending:
            self._mark_namespace()
        if not self._claim_pending:
            return
        self._check_reader("write")
        if recorded_reader(self._store, self._branch.id, self._namespace) is None:
            self._claim_reader(self._branch.id)
        self._claim_pending = False

    def _check_reader(self, action: str = "read") -> None:
        """Refuse when the namespace now records a reader this manager does not compile for.

        Raises:
            StaleReaderError: another handle claimed the namespace (or the record is not a name).
        """
        try:
            recorded = recorded_reader(self._store, self._branch.id, self._namespace)
        except ReaderError as exc:
            raise StaleReaderError(str(exc)) from None
        if recorded is not None and recorded != self._view_reader:
            raise StaleReaderError(
                f"cannot {action}: namespace {self._namespace!r} now records reader {recorded!r} on branch "
                f"{self._branch.name!r}, and this manager compiles for "
                + ("no reader" if self._view_reader is None else f"reader {self._view_reader!r}")
                + "; reopen it"
            )

    def _reader_view(self, check: bool = True) -> ReaderView | MergedView:
        """The view strategies, compiles and compression read: this manager's reader's (checked first).

        Raises:
            StaleReaderError: as :meth:`_check_reader`.
        """
        if check:
            self._check_reader()
        view = self._compile_view
        if view is None or view.message_store is not self._messages:
            own = ReaderView(self._messages, self._view_reader, self._view_filter)
            aux = [
                (a.namespace, ReaderView(self._aux_index(a.slot), self._view_reader, self._view_filter))
                for a in self._auxiliary
            ]
            view = self._compile_view = MergedView(own, aux) if aux else own
            self._render_cache = RenderCache()
        return view

    def _raw_reader_view(self) -> ReaderView:
        """The view raw reads use: the reader's own slot, without the filter view or auxiliary views (the
        compile view when there are none)."""
        if self._view_filter is None and not self._auxiliary:
            own = self._reader_view()
            assert isinstance(own, ReaderView)
            return own
        self._check_reader()
        view = self._raw_view
        if view is None or view.message_store is not self._messages:
            view = self._raw_view = ReaderView(self._messages, self._view_reader)
        return view

    @property
    def store(self) -> Store:
        """The underlying record store."""
        return self._store

    @property
    def namespace(self) -> str:
        return self._namespace

    @property
    def slot(self) -> str:
        """Name of the message log this manager reads and writes."""
        return self._slot

    @property
    def messages(self) -> MessageStore:
        """The message index of this manager's slot and branch."""
        return self._messages

    @property
    def token_counter(self) -> TokenCounter:
        return self._counter

    def current_branch(self) -> str:
        """Name of the branch this manager reads and writes."""
        return self._branch.name

    # ---- writes -----------------------------------------------------------------------------------

    def add_message(
        self,
        participant: str,
        content: ContentInput,
        metadata: Mapping[str, Any] | None = None,
        *,
        id: str | None = None,
        timestamp: datetime | float | str | None = None,
        hold: bool | float | None = None,
    ) -> str:
        """Append a message in one transaction.

        Args:
            participant: Who wrote it (a free name: "user", "Claude", "ann").
            content: A string or a list of content blocks (dicts or models).
            metadata: JSON-serialisable host data.
            id: The message id (default: a fresh ``msg_...`` id).
            timestamp: When it was said (default: now).
            hold: Hold compression at this message as it is written, in the same transaction
                (:meth:`hold_compression`): ``True`` until :meth:`release_compression`, a number of
                seconds for a hold that ends by itself then; ``None`` or ``False``: no hold.

        A message larger than :attr:`shard_tokens` is stored as a body group of shards, in the same
        transaction; the id returned names it whole (reads join it back).

        Returns:
            The message id.

        Raises:
            MalformedContentError: the content, participant or metadata is malformed, or the content is an
                empty or whitespace-only string or only such text blocks (refused like an empty block list);
                nothing is written.
            DuplicateMessageError: ``id`` is already used on this branch.
            ValueError: ``hold`` is neither a bool, None nor a positive number of seconds (at most a
                year); nothing is written.
        """
        timeout = _hold_timeout("hold", hold) if hold is not None and hold is not False else None
        _refuse_blank(content, 0)
        _refuse_reserved(metadata, 0)
        item = MessageInput(participant, content, metadata, id, timestamp)
        if hold is None or hold is False:
            ids = self._append([item])
        else:
            with self._store.transaction():  # the message and its hold commit together, or neither
                ids = self._append([item])
                self.compressor.set_hold(ids[0], True, timeout, written=True)
        self._claim_if_pending()  # after the write: a refused message writes nothing, not even the claim
        self._messages_added(len(ids))
        return ids[0]

    def add_messages(self, messages: Sequence[MessageInput | Mapping[str, Any]]) -> list[str]:
        """Append several messages in one transaction (all or none).

        Args:
            messages: :class:`MessageInput` objects or dicts with ``participant``, ``content`` and
                optionally ``metadata``, ``id``, ``timestamp``.

        Returns:
            The ids, in order.

        Raises:
            MalformedContentError: naming the index of the first malformed message; nothing is written.
            DuplicateMessageError: an id is used twice or already exists; nothing is written.
        """
        items: list[MessageInput] = []
        for i, m in enumerate(messages):
            if isinstance(m, MessageInput):
                items.append(m)
                continue
            if not isinstance(m, Mapping) or "participant" not in m or "content" not in m:
                raise MalformedContentError("a message needs 'participant' and 'content'", message_index=i)
            unknown = set(m) - {"participant", "content", "metadata", "id", "timestamp"}
            if unknown:
                raise MalformedContentError(f"unknown message fields {sorted(unknown)}", message_index=i)
            items.append(
                MessageInput(m["participant"], m["content"], m.get("metadata"), m.get("id"), m.get("timestamp"))
            )
        for i, item in enumerate(items):
            _refuse_blank(item.content, i)
            _refuse_reserved(item.metadata, i)
        ids = self._append(items)
        self._claim_if_pending()
        self._messages_added(len(ids))
        return ids

    def edit_message(
        self,
        message_id: str,
        content: ContentInput | None = None,
        *,
        metadata: Mapping[str, Any] | None = None,
        participant: str | None = None,
    ) -> int:
        """Write a new version of a message (the old one stays readable with :meth:`get_message_at`).

        Returns:
            The sequence of the new version.

        Raises:
            MessageNotFoundError: no visible message has the id.
            MalformedContentError: the new content is malformed or blank (refused as by :meth:`add_message`);
                nothing is written.
            AudienceNarrowingError: the edit hides a block from a reader who may have seen it.
            StaleReaderError: another handle claimed the namespace for another reader.

        A manager with a reader edits what its reader sees: ``content`` replaces those blocks, and the
        blocks of other readers stay as they were, in their place (a reader never removes a block
        it cannot read).
        """
        self._check_reader("edit a message")
        refuse_shard(message_id, "edit")
        _refuse_reserved(metadata, 0)
        if content is not None:
            _refuse_blank(content, 0)
            new = validate_content(content, message_index=0, continuation=True)
            reader = self._view_reader
            # Read what other handles wrote first: a message this handle has not seen yet is still a
            # message with blocks its reader cannot see (the edit once took it for unknown,
            # skipped the check, and replaced another reader's private blocks).
            self._messages.refresh()
            if self._messages.entry_for(message_id) is not None and (
                reader is not None or any("audience" in b for b in new)
            ):
                current = self._joined(self._messages.get(message_id))
                old = current.content_dicts()
                if reader is not None:  # a reader edits what it sees; the blocks it cannot see stay
                    old = [b for b in old if sees(b, reader)]
                    if not old:
                        raise MessageNotFoundError(message_id, f"reader {reader!r} sees no block of it")
                check_narrowing(
                    message_id,
                    current.created_sequence,
                    old,
                    new,
                    reader,
                    compression_read_mark(self._store, self._branch.id, self._namespace),
                )
                if reader is not None:
                    content = keep_hidden(current.content_dicts(), new, reader)
        group = self._group_ids(message_id)
        if len(group) > 1:
            sequence = self._edit_group(group, content, metadata, participant)
            self._claim_if_pending()
            return sequence
        sequence = self._messages.edit(
            message_id,
            content=content,
            metadata=metadata,
            participant=participant,
            then=self._stale_hook(message_id, "edit"),
        )
        self._claim_if_pending()
        return sequence

    def remove_message(self, message_id: str) -> int:
        """Remove a message from the view by writing a tombstone; returns its sequence.

        A manager with a reader removes what its reader sees: a message that also holds blocks the reader
        cannot see keeps them (a new version of only those is written, as :meth:`edit_message` keeps
        them), and a message with no block for the reader is not found (a reader never removes
        what it cannot read).

        Raises:
            MessageNotFoundError: no visible message has the id (or none of its blocks is the reader's).
            StaleReaderError: another handle claimed the namespace for another reader.
        """
        reader = self._view_reader
        refuse_shard(message_id, "remove")
        group = self._group_ids(message_id)
        if reader is not None:
            self._check_reader("remove a message")
            self._messages.refresh()  # what other handles wrote counts (see edit_message)
            blocks = self._joined(self._messages.get(message_id)).content_dicts()
            hidden = [b for b in blocks if not sees(b, reader)]
            if len(hidden) == len(blocks):
                raise MessageNotFoundError(message_id, f"no block of it is for reader {reader!r}")
            if hidden:
                if len(group) > 1:
                    sequence = self._edit_group(group, hidden, None, None)
                else:
                    sequence = self._messages.edit(
                        message_id, content=hidden, then=self._stale_hook(message_id, "edit")
                    )
                self._claim_if_pending()
                return sequence
        with self._store.transaction():  # a body group goes as one
            for mid in group:
                sequence = self._messages.remove(mid, then=self._stale_hook(mid, "remove"))
        self._claim_if_pending()
        return sequence

    def _edit_group(
        self,
        group: Sequence[str],
        content: ContentInput | None,
        metadata: Mapping[str, Any] | None,
        participant: str | None,
    ) -> int:
        """Write a new version of a body group as one message, in one transaction: new content is cut
        again (into at most as many shards as the group has, at the current :attr:`shard_tokens`; the
        shards it no longer needs are removed, so a group that shrinks below the threshold becomes one
        message again). Returns the sequence of the last record written.

        Raises:
            MalformedContentError: the new content is malformed; nothing is written.
        """
        current = [self._messages.get(mid) for mid in group]
        joined = join_group(current)
        meta = dict(metadata) if metadata is not None else joined.metadata
        who = participant if participant is not None else joined.participant
        if content is None:
            plan = [(m.content_dicts(), list((layout_of(m.metadata) or {}).get("blocks") or ())) for m in current]
        else:
            blocks = validate_content(content, message_index=0, continuation=True)
            tokens = self._counter.count_message(who, [b for b in blocks if b.get("type") == "text"])
            plan = plan_shards(blocks, tokens, self.shard_tokens, most=len(group)) or [
                (blocks, list(range(len(blocks))))
            ]
        gid, n, sequence = group[0], len(plan), 0
        with self._store.transaction():
            for k, mid in enumerate(group, start=1):
                if k > n:
                    sequence = self._messages.remove(mid, then=self._stale_hook(mid, "remove"))
                    continue
                shard_blocks, layout = plan[k - 1]
                shard_meta = (
                    meta if n == 1 else {**meta, SHARD_KEY: {"group": gid, "index": k, "count": n, "blocks": layout}}
                )
                sequence = self._messages.edit(
                    mid,
                    content=shard_blocks,
                    metadata=shard_meta,
                    participant=who,
                    then=self._stale_hook(mid, "edit"),
                )
        return sequence

    def _stale_hook(self, message_id: str, op: Literal["edit", "remove"]) -> WriteHook:
        """The stale mark an edit or a removal writes with itself (:class:`~.strategies.autobiographical.records.
        StaleMark`): summaries that read the message before the change stop standing for it, on this branch,
        and compression writes them again. A tombstone or an edit is not an erasure (see :meth:`redact`)."""
        branch_id, slot = self._branch.id, slot_for(self._namespace)

        def write(tx: Transaction, sequence: int, created: int) -> None:
            mark = StaleMark(message_id, created, sequence, op)
            tx.append(branch_id, slot, mark.item, mark.to_body())

        return write

    # ---- erasure ----------------------------------------------------------------------------------

    def redact(self, message_id: str | SearchHit, *, reason: str, by: str | None = None) -> Redaction:
        """Erase a message everywhere the store holds it, keeping the proof that it happened.

        Every version of the message (on every branch) loses its body, with its full-text documents and the
        blobs no other message names; the summaries and summary parts that may have read it (each ending at or
        after it) and the working-state checkpoints that cover it are erased too (compression writes the
        summaries again; until then a compile shows the chunks' own messages); each live branch that still shows
        the message gets a removal; and a redaction record keeps the message's id, slot, participant, created
        sequence, the sha256 of each removed body, ``reason``, ``by`` and the time. Then the store scrubs its
        files (SQLite: the write-ahead log folded; a file written before secure deletion rewritten once). See
        :mod:`context_journal.redaction` for what it cannot reach (other processes' memory, backups).

        Args:
            message_id: The message to erase (visible, edited or removed; on any branch of this slot), or
                a hit of :meth:`search_messages`.
            reason: Why (non-empty, at most 2,000 characters); kept.
            by: Who asked; kept.

        Returns:
            What was erased (:class:`~context_journal.redaction.Redaction`); ``notes`` lists what the scrub
            could not do. Redacting it again returns the first redaction and writes nothing.

        Raises:
            RedactionError: a reader-bound handle asked (erasure belongs to the host), the reason is
                empty, or the backend cannot redact; nothing is erased.
            MessageNotFoundError: this slot never held a message with that id.
        """
        mid = message_id.message_id if isinstance(message_id, SearchHit) else message_id
        refuse_shard(mid, "redact")
        done = self._redact(self._group_ids(mid), reason, by)
        if len(done) == 1:
            return done[0]
        # A body group: one redaction of the message, holding what was erased of every shard.
        return dataclasses.replace(
            done[0],
            versions=tuple(v for r in done for v in r.versions),
            derived=tuple(d for r in done for d in r.derived),
            payload_sha256={k: v for r in done for k, v in r.payload_sha256.items()},
            placeholders=tuple(p for r in done for p in r.placeholders),
            notes=tuple(n for r in done for n in r.notes),
        )

    def redact_range(self, first_id: str, last_id: str, *, reason: str, by: str | None = None) -> list[Redaction]:
        """Erase the visible messages from ``first_id`` to ``last_id`` (inclusive, in this branch's order),
        as :meth:`redact` does each, in one transaction.

        Returns:
            One redaction per message, oldest first.

        Raises:
            MessageNotFoundError: either end is not visible on this branch.
            ValueError: ``last_id`` comes before ``first_id``.
            RedactionError: as :meth:`redact`; nothing is erased.
        """
        self._messages.refresh()
        for mid in (first_id, last_id):
            refuse_shard(mid, "redact")
            if self._messages.entry_for(mid) is None:
                raise MessageNotFoundError(mid)
        ids: list[str] = []
        for entry in self._messages.iter_entries():  # O(history): erasure is rare
            if entry.live and (ids or entry.id == first_id):
                ids.append(entry.id)
                if entry.id == last_id:
                    ids += self._group_ids(last_id)[1:]  # a body group is erased whole
                    return self._redact(ids, reason, by)
            elif not ids and entry.id == last_id:
                raise ValueError(f"{last_id!r} comes before {first_id!r}")
        raise MessageNotFoundError(last_id)  # pragma: no cover - both ends were visible

    def _redact(self, ids: Sequence[str], reason: str, by: str | None) -> list[Redaction]:
        if self._view_reader is not None:
            raise RedactionError(
                f"a handle bound to reader {self._view_reader!r} cannot redact: erasure belongs to the host "
                "(open the store without view_reader)"
            )
        done = redact_messages(
            self._store, self._slot, ids, reason=reason, by=by, index_thinking=self._messages.index_thinking
        )
        self.forget_erased([q for r in done for q in r.versions])
        # A body group leaves one placeholder: its first shard's (the rest are tombstoned).
        rest = [mid for mid in ids if is_shard_form(mid)]
        if rest:
            self._messages.refresh()
            with self._store.transaction():
                for mid in rest:
                    entry = self._messages.entry_for(mid)
                    if entry is not None and entry.live:
                        self._messages.remove(mid, then=self._stale_hook(mid, "remove"))
        return done

    def set_retention(self, retain_days: float | None) -> int:
        """Keep this namespace's messages ``retain_days`` days (None: forever); returns the policy record's
        sequence. Nothing is erased here: :func:`~context_journal.retention.apply_retention` (``context-journal
        retention apply``, or a compression worker every ``retention_seconds``) erases what is older.

        Raises:
            RedactionError: a reader-bound handle asked, ``retain_days`` is not a positive number of days,
                or the backend cannot redact.
        """
        if self._view_reader is not None:
            raise RedactionError(f"a handle bound to reader {self._view_reader!r} cannot set a retention policy")
        return set_retention(self._store, self._namespace, retain_days)

    def redactions(self) -> list[Redaction]:
        """Every redaction of the store (any slot), oldest first.

        Raises:
            RedactionError: a reader-bound handle asked (the records name messages of every reader, and
                why they were erased: they belong to the host).
        """
        if self._view_reader is not None:
            raise RedactionError(f"a handle bound to reader {self._view_reader!r} cannot list redactions")
        return list_redactions(self._store)

    def forget_erased(self, versions: Sequence[int]) -> None:
        """Drop what this handle holds in memory of erased records: cached message versions, folded
        summaries, the working-state ledger and recalled lines (each is read again on next use)."""
        for index in (self._messages, *self._branch_indexes.values()):
            index.forget_versions(versions)
            index.refresh()
        self._recall_lines = LineCache()
        for keeper in (self._ledger_keepers or {}).values():
            keeper.detach()
        self._ledger_keepers = {}
        self._ledger_inherited = ()
        for strategy in (self.strategy, self._default_strategy):
            if isinstance(strategy, BaseStrategy):
                strategy.reset()

    # ---- reads ------------------------------------------------------------------------------------

    # Raw reads: a manager with no reader (the host) reads messages as stored, every
    # block included; a manager opened for a reader reads them as that reader sees them — blocks meant
    # for other readers left out (with the ``audience`` field of its own removed, as compiles have them),
    # and a message with no block for it is not there. The host's own handle is the unfiltered view.

    def _readable(self, message: Message) -> Message:
        """``message`` as this manager's reader reads it (raises when nothing of it is the reader's)."""
        if self._view_reader is None:
            return message
        seen = filter_for_reader(message, self._view_reader)
        if seen is None:
            raise MessageNotFoundError(message.id, f"no block of it is for reader {self._view_reader!r}")
        return seen

    def _read_view(self) -> ReaderView:
        view = self._raw_reader_view()
        view.refresh()
        return view

    def get_message(self, message_id: str) -> Message:
        """The current version of a message: as stored (a manager with no reader) or as this manager's
        reader sees it.

        Raises:
            MessageNotFoundError: no visible message has the id (or none of its blocks is the reader's).
            StaleReaderError: another handle claimed the namespace for another reader.
        """
        if self._view_reader is not None:
            self._check_reader()
        return self._readable(self._joined(self._messages.get(message_id)))

    def get_message_at(self, message_id: str, sequence: int) -> Message:
        """The version of a message visible at store sequence ``sequence`` (time travel), read as
        :meth:`get_message` reads.

        Raises:
            MessageNotFoundError: it did not exist yet, or had been removed, at that sequence (or none of
                its blocks is the reader's).
        """
        head = self._messages.get_at(message_id, sequence)
        return self._readable(self._joined(head, lambda sid: self._messages.get_at(sid, sequence)))

    def get_all_messages(self, as_of: int | None = None) -> list[Message]:
        """Every visible message in order, read as :meth:`get_message` reads; ``as_of`` reads the branch
        as it stood at that sequence."""
        if self._view_reader is not None:
            if as_of is None:
                return join_messages(self._read_view().messages())
            kept = (filter_for_reader(m, self._view_reader) for m in self._messages.snapshot(as_of))
            return join_messages(m for m in kept if m is not None)
        if as_of is not None:
            return join_messages(self._messages.snapshot(as_of))
        return join_messages(self._messages.slice(0, None))

    def message_count(self) -> int:
        """Visible messages on this branch (for a reader: those with a block for it), each shard of a
        sharded message counted (see :attr:`shard_tokens`): the positions :meth:`get_messages` counts."""
        if self._view_reader is not None:
            return len(self._read_view())
        return self._messages.count()

    def get_messages(self, offset: int = 0, limit: int | None = None) -> list[Message]:
        """Visible messages ``[offset, offset + limit)`` in order, read as :meth:`get_message` reads (for
        a reader, positions count the messages it sees); O(log N + limit).

        Positions count stored messages, so each shard of a sharded message (:attr:`shard_tokens`)
        takes one: a sharded message is returned whole, joined, by the page that holds its first shard
        (that page grows past ``limit`` by the rest of its shards; the next page skips them). A page that
        falls wholly inside a sharded message is empty: page up to :meth:`message_count`, not to the
        first empty page.

        Raises:
            TypeError: ``offset`` or ``limit`` is a ``bool`` or not an ``int``.
            ValueError: ``offset`` or ``limit`` below 0.
        """
        for name, value in (("offset", offset), ("limit", limit)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"{name} must be an integer, got {value!r}")
        if offset < 0 or (limit is not None and limit < 0):
            raise ValueError("offset and limit must be >= 0")
        before = 1 if offset > 0 else 0  # the message before the page: is the page's first a group's rest?
        if self._view_reader is not None:
            page = self._read_view().messages(offset - before, None if limit is None else offset + limit)
        else:
            page = self._messages.slice(offset - before, None if limit is None else limit + before)
        return self._whole_groups(page, before)

    def _whole_groups(self, page: list[Message], before: int) -> list[Message]:
        """A page of stored messages (after ``before`` leading messages read only to look back) with
        each body group joined: a group whose first shard is on an earlier page is left out, and the rest
        of a group the page begins is read in."""
        head = page[:before]
        page = page[before:]
        if head and page:
            group = layout_of(head[0].metadata)
            k = 0
            while (
                k < len(page)
                and group is not None
                and (layout_of(page[k].metadata) or {}).get("group") == group.get("group")
            ):
                k += 1
            page = page[k:]
        last = layout_of(page[-1].metadata) if page else None
        if last is not None and int(last.get("index", 1)) < int(last.get("count", 1)):
            for k in range(int(last["index"]) + 1, int(last["count"]) + 1):
                try:
                    more = self._messages.get(shard_id(str(last["group"]), k))
                except MessageNotFoundError:
                    continue
                seen = filter_for_reader(more, self._view_reader) if self._view_reader is not None else more
                if seen is not None:
                    page.append(seen)
        return join_messages(page)

    def _group_ids(self, message_id: str) -> list[str]:
        """The ids of the body group whose first shard is ``message_id``, in order (``[message_id]`` for a
        message that is no group; see :attr:`shard_tokens`)."""
        if is_shard_form(message_id):
            return [message_id]
        self._messages.refresh()

        def live(mid: str) -> bool:
            entry = self._messages.entry_for(mid)
            return entry is not None and entry.live

        return shard_ids(message_id, live)

    def _position(self, view: MessageView, message_id: str) -> int | None:
        """Position in ``view`` of the message ``message_id`` names: of its first shard the view shows (a
        reader may see no block of a sharded message's first shard and blocks of a later one), None
        when the view shows none."""
        pos = view.index_of(message_id)
        if pos is not None or is_shard_form(message_id):
            return pos
        for mid in self._group_ids(message_id)[1:]:
            pos = view.index_of(mid)
            if pos is not None:
                return pos
        return None

    def _joined(self, head: Message, load: Callable[[str], Message] | None = None) -> Message:
        """``head`` with the rest of its body group joined to it (``load``: how to read a shard; default the
        current version), or ``head`` when it is no group's first shard."""
        layout = layout_of(head.metadata)
        if layout is None or int(layout.get("index", 1)) != 1 or int(layout.get("count", 1)) < 2:
            return head
        read = load or self._messages.get
        shards = [head]
        for k in range(2, int(layout["count"]) + 1):
            try:
                shards.append(read(shard_id(head.id, k)))
            except MessageNotFoundError:
                continue
        return join_group(shards)

    def query_messages(
        self,
        *,
        participant: str | Sequence[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        since: datetime | date | float | str | None = None,
        until: datetime | date | float | str | None = None,
        limit: int | None = None,
        reverse: bool = False,
    ) -> list[Message]:
        """Messages matching every filter given, in order (newest first with ``reverse=True``), read as
        :meth:`get_message` reads.

        Args:
            participant: A name or a list of names.
            metadata: Key/value pairs that must all equal the message's metadata values.
            since: Only messages with timestamp >= this (datetime, date, epoch seconds or ISO-8601).
            until: Only messages with timestamp < this.
            limit: At most this many.
            reverse: Walk from the newest message.
        """
        if limit is not None and limit <= 0:
            return []
        names = {participant} if isinstance(participant, str) else set(participant) if participant else None
        lo = to_timestamp(since) if since is not None else None
        hi = to_timestamp(until) if until is not None else None
        out: list[Message] = []
        self._messages.refresh()
        for entry in self._messages.iter_entries(reverse=reverse):
            if names is not None and entry.participant not in names:
                continue
            if lo is not None and entry.timestamp < lo:
                continue
            if hi is not None and entry.timestamp >= hi:
                continue
            if is_shard_form(entry.id):  # read with its group's first shard
                continue
            msg = self._joined(self._messages.load_entry(entry))
            if metadata and any(msg.metadata.get(k) != v for k, v in metadata.items()):
                continue
            if self._view_reader is not None:
                seen = filter_for_reader(msg, self._view_reader)
                if seen is None:
                    continue
                msg = seen
            out.append(msg)
            if limit is not None and len(out) >= limit:
                break
        return out

    def search_messages(
        self,
        query: str,
        *,
        limit: int = 10,
        as_of: int | None = None,
        participants: str | Sequence[str] | None = None,
        since: datetime | date | float | str | None = None,
        until: datetime | date | float | str | None = None,
    ) -> list[SearchHit]:
        """Full-text search of this manager's messages: the best ``limit`` matches of any word of
        ``query`` (minus stopwords; no query syntax), best first, as this manager's reader sees them
        (branch lineage, ``as_of``, its slot and reader view obeyed: a block meant for another reader is
        never matched, counted or shown in a snippet).

        Args:
            query: Plain text.
            limit: At most this many hits (1..1000).
            as_of: Search the branch as it stood at this store sequence.
            participants: Only messages by this participant (or these).
            since: Only messages with timestamp >= this (datetime, date, epoch seconds or ISO-8601).
            until: Only messages with timestamp < this.

        Returns:
            :class:`~context_journal.recall.SearchHit` list (id, sequence, participant, timestamp, score:
            bm25, higher is better, on SQLite and memory stores; ``ts_rank`` on PostgreSQL; snippet).

        Note:
            Hidden documents are never returned or counted, but bm25's corpus statistics (how many
            documents hold a word, the mean length) are the store's: the score of a visible hit can
            move when another reader's blocks or another namespace's messages hold the same word.

        Raises:
            ValueError: an empty or whitespace query, ``limit`` outside 1..1000, a negative ``as_of``, or
                ``since`` later than ``until``.
            StaleReaderError: another handle claimed this namespace for another reader.
        """
        self._check_reader("search")
        hits = search_messages(
            self._messages,
            query,
            reader=self._view_reader,
            limit=limit,
            as_of=as_of,
            participants=participants,
            since=since,
            until=until,
        )
        return _hits_by_group(hits)

    def search_summary_text(self, query: str, *, limit: int = 10, as_of: int | None = None) -> list[SummaryHit]:
        """Full-text search of this manager's summaries (every level): the best ``limit`` matches of any
        word of ``query`` (minus stopwords; no query syntax, as :meth:`search_messages`), best first.

        Only summaries this namespace's compression records keep on this branch are searched (branch
        lineage, fork points and ``as_of`` obeyed; copies the fold ignores never match), and only a
        namespace written for this manager's reader: a summary made from another reader's view is never
        matched, counted or shown in a snippet. Summaries merged into a higher level are searched too
        (their hit's ``parent_id`` names the merge). For a substring or regex filter over summaries see
        :meth:`search_summaries`.

        Args:
            query: Plain text.
            limit: At most this many hits (1..1000).
            as_of: Search the summaries as they stood at this store sequence.

        Returns:
            :class:`~context_journal.recall.SummaryHit` list: summary id, level, the first and last message
            covered (ids and created sequences), the date range covered (UTC; None where a covered end
            message is no longer visible), score (bm25 on SQLite and memory stores, ``ts_rank`` on
            PostgreSQL; higher is better) and a snippet with matched words marked ``**like this**``.

        Note:
            Summaries have an index of their own (they never take places from, or change the scores of,
            :meth:`search_messages`); its bm25 corpus statistics are those of every summary in the store,
            so a score can move when another namespace's summaries hold the same word.

        Raises:
            ValueError: an empty or whitespace query, ``limit`` outside 1..1000, or a negative ``as_of``.
            StaleReaderError: another handle claimed this namespace for another reader.
            StoreError: the store has no full-text index.
        """
        self._check_reader("search summaries")
        view = self._reader_view(check=False)
        view.refresh()
        messages = self._messages

        def timestamp(message_id: str) -> float | None:
            entry = messages.entry_for(message_id)
            return None if entry is None or view.index_of(message_id) is None else entry.timestamp

        return search_summary_text(
            self._store,
            self._branch.id,
            self._namespace,
            query,
            reader=self._view_reader,
            limit=limit,
            as_of=as_of,
            log=self.compressor.compression_log() if as_of is None else None,
            timestamps=timestamp,
        )

    def resolve_media(self, message: Message) -> list[dict[str, Any]]:
        """The message's content with stored media turned back into base64 (what providers accept)."""
        return resolve_media(message.content_dicts(), self._store.get_blob)

    # ---- compile -----------------------------------------------------------------------------------

    _compile_view: ReaderView | MergedView | None = None
    _raw_view: ReaderView | None = None
    _last_compile: CompileResult | None = None
    _render_cache: RenderCache | None = None
    _compile_estimates: dict[str, tuple[int, int]] | None = None  # compile id -> (estimate, branch id)
    _default_strategy: PassthroughStrategy | None = None

    def set_strategy(self, strategy: Strategy | str) -> None:
        """Use ``strategy`` (a Strategy, or a name :meth:`open` takes: ``"passthrough"``, ``"windowed"``,
        ``"autobiographical"``, ``"knowledge"``) for the following compiles; it initialises from this
        namespace and branch now.

        Raises:
            StrategyInitError: the strategy failed to initialise; the manager keeps its previous one.
            TypeError: an unknown name.
        """
        self._check_reader("set a strategy")
        chosen: Strategy = resolve_strategy(strategy) if isinstance(strategy, str) else strategy
        if self._view_reader is not None:
            require_recorded_reads(chosen)
        self._check_workers_can_run(chosen)
        try:
            chosen.load(self._strategy_context())
        except Exception as exc:
            raise StrategyInitError(type(chosen).__name__, exc) from exc
        self.strategy = chosen

    def _check_workers_can_run(self, strategy: Any) -> None:
        """Refuse, on a ``compression="workers"`` manager, a strategy that compresses but that workers
        cannot rebuild: nothing would ever compress its conversation."""
        if self._compression_mode == "workers" and not workers_can_run(strategy):
            raise CompressionUnavailableError(
                getattr(strategy, "name", type(strategy).__name__),
                "compression='workers'",
                "a strategy that workers rebuild by name (the autobiographical strategy, or the knowledge "
                "strategy with its default phases)",
                "open the manager with compression='inline' to compress in this process",
            )

    def _strategy_context(self, branch_id: int | None = None) -> StrategyContext:
        """The strategy context of this namespace on its branch (or on ``branch_id``)."""
        shared = "default" if self._slot == "messages" else None  # the shared slot's roles apply
        return StrategyContext(
            self._store,
            self._branch.id if branch_id is None else branch_id,
            self._namespace,
            self._counter,
            reader=self._view_reader,
            roles_from=shared,
            compile_context=compile_context,
        )

    def _active_strategy(self) -> Strategy:
        if self.strategy is not None:
            return self.strategy  # type: ignore[no-any-return]
        if self._default_strategy is None:
            self._default_strategy = PassthroughStrategy()
        return self._default_strategy

    @_in_read_scope
    def _run_compile(
        self,
        max_tokens: int,
        reserve_for_response: int,
        system: str | Sequence[Mapping[str, Any]] | None,
        injections: Sequence[Injection] | None,
        assistant: str | Sequence[str] | None,
        roles: Roles | None,
        options: CompileOptions | None,
        query: str | None = None,
        recall: RecallArg = None,
        render_dates: bool | None = None,
    ) -> tuple[CompileResult, Selection, Strategy, StrategyContext]:
        # The change token first (the view's refresh reads it), then the states, then the reader check that
        # reads one of them: what the read scope keeps is newer than the token, so the compile keeps it.
        view = self._reader_view(check=False)
        view.refresh()
        self._store.prefetch_states(self._branch.id, [f"{self._namespace}/{name}" for name in _COMPILE_STATES])
        self._check_reader()
        ctx = self._strategy_context()
        stored = ctx.roles()
        if roles is None:
            roles = Roles.from_metadata(stored) if isinstance(stored, Mapping) else Roles()
        dates = dated(stored) if render_dates is None else bool(render_dates)
        if assistant is not None:
            names = {assistant} if isinstance(assistant, str) else set(assistant)
            roles = Roles(roles.assistant | names, roles.user - names, roles.system, roles.tool, roles.name_format)
        base_strategy = self._active_strategy()
        base_strategy.load(ctx)
        pin_state = ctx.get_state(PINS_STATE)
        pins, ranges = pinned_ids(pin_state), pinned_ranges(pin_state)
        documents = pinned_ids(ctx.get_state(DOCUMENTS_STATE))
        asked = query
        strategy, query = with_recall(
            PinnedStrategy(base_strategy, pins, ranges, documents) if pins or ranges or documents else base_strategy,
            view,
            self._messages,
            reader=self._view_reader,
            query=query,
            recall=recall,
            roles=roles,
            counter=self._counter,
            dates=dates,
            lines=self._recall_lines,
        )
        recalling = strategy
        strategy = self._with_ledger(strategy, lambda who: roles.role(who) == "user", self._counter)
        ledger = strategy if isinstance(strategy, LedgerStrategy) else None
        strategy = _with_newest(strategy, ctx)  # outermost: nothing is placed after the marked messages
        calibration = Calibration.from_state(ctx.get_state("calibration"))

        def run(factor: Calibration) -> tuple[CompileResult, Selection]:
            while True:
                try:
                    return compile_context(
                        view,
                        strategy,
                        max_tokens=max_tokens,
                        reserve_for_response=reserve_for_response,
                        system=system,
                        injections=injections,
                        counter=self._counter,
                        roles=roles,
                        options=options,
                        calibration=factor,
                        cache=self._render_cache,
                        get_blob=self._store.get_blob,
                        namespace=self._namespace,
                        branch=self._branch.name,
                        state_key=(repr(getattr(base_strategy, "anchor", None)), query),
                        timestamp_of=self._timestamp_of if dates else None,
                    )
                except OverBudgetError as exc:
                    if ledger is None or not ledger.give_way(exc):
                        raise  # (the last try's error: with no block, none to shrink, or over without it)

        if _classes_differ(calibration):
            result, selection = run(calibration)
            result, selection = _per_class(result, selection, calibration, run, self._counter)
        else:  # the classes are within 2%: the largest factor, so content of any class stays within the budget
            result, selection = run(_ceiling(calibration))
        if isinstance(view, MergedView):
            result = _auxiliary_sources(result, view)
        report = recall_report(recalling, query, recall, asked, result)
        if report is not None:
            result = dataclasses.replace(result, recall=report)
        if self._compile_estimates is None:
            self._compile_estimates = {}
        estimates = self._compile_estimates
        estimates.pop(result.compile_id, None)
        estimates[result.compile_id] = (result.estimated_tokens, self._branch.id)
        while len(estimates) > 256:
            estimates.pop(next(iter(estimates)))
        return result, selection, base_strategy, ctx

    def _timestamp_of(self, message_id: str) -> float | None:
        entry = self._messages.entry_for(message_id)
        if entry is None and self._auxiliary:
            for a in self._auxiliary:
                entry = self._aux_index(a.slot).entry_for(message_id)
                if entry is not None:
                    break
        return None if entry is None else entry.timestamp

    def compile(
        self,
        max_tokens: int,
        reserve_for_response: int = 0,
        system: str | Sequence[Mapping[str, Any]] | None = None,
        injections: Sequence[Injection] | None = None,
        *,
        assistant: str | Sequence[str] | None = None,
        roles: Roles | None = None,
        options: CompileOptions | None = None,
        query: str | None = None,
        recall: RecallArg = None,
        render_dates: bool | None = None,
    ) -> CompileResult:
        """The context for the next model call, within ``max_tokens - reserve_for_response`` tokens.

        Never calls a model and never waits for compression. Writes nothing but the strategy's own
        state (e.g. the windowed anchor when it jumps); the journal is unchanged.

        Args:
            max_tokens: The model's context window, in tokens.
            reserve_for_response: Tokens kept free for the reply.
            system: System prompt text or text blocks, placed before the stored system messages.
            injections: Content added to this compile only (never stored).
            assistant: The participant(s) rendered as the assistant, added to the defaults
                (``"assistant"``, ``"Claude"``, or the namespace's stored roles).
            roles: Who plays which role (replaces the defaults).
            options: Repair knobs (images, thinking, cache breakpoints).
            query: Bring back what matches this text: a recall section of the best-matching spans of
                the journal not already in the context (see :mod:`context_journal.recall`), taking at
                most ``RecallConfig.share`` of the budget; what recall does not use goes to the strategy.
            recall: A :class:`~context_journal.recall.RecallConfig`, or ``"auto"``; without ``query``
                the query is the newest user turn's text. None with no query: no recall.
            render_dates: Show a ``[8 May 2023]`` line where the date changes between rendered turns,
                and dates in recalled spans. None: on when the namespace's imported conversation carries
                real dates (LoCoMo, Claude Code, IRC imports record it).

        Returns:
            The compiled context (see :class:`~context_journal.compile.CompileResult`).

        Raises:
            OverBudgetError: the system part and injections, or the smallest valid context, do not fit.
                When compression lags (chunks not summarised yet), ``parts`` has ``"pending chunks"`` and
                ``"pending tokens"`` and the message names the remedy (``drain()``, or
                ``AutobiographicalConfig(overflow="window")``).
            EmptyContextError: the result would hold no message (nothing to send).
            MalformedContentError: ``system`` or an injection is malformed.
            TypeError: ``max_tokens`` or ``reserve_for_response`` is not an ``int`` (a ``bool`` included).
            ValueError: ``max_tokens`` is not positive, ``reserve_for_response`` is negative or not less
                than ``max_tokens``, or ``query`` is empty or whitespace.
        """
        self._claim_if_pending()
        started = time.perf_counter()
        self._release_expired_holds()
        try:
            result, selection, strategy, ctx = self._run_compile(
                max_tokens,
                reserve_for_response,
                system,
                injections,
                assistant,
                roles,
                options,
                query,
                recall,
                render_dates,
            )
        except OverBudgetError as exc:
            raise self._lagging(exc, reserve_for_response) from None
        strategy.commit(selection, ctx)
        self._last_compile = result
        logger.info(
            "compiled %s/%s with %s: %d of %d tokens, %d messages in %.1f ms",
            self._namespace,
            self._branch.name,
            result.strategy,
            result.tokens,
            result.budget,
            len(result.messages),
            (time.perf_counter() - started) * 1000,
        )
        if self._compression_mode == "workers":
            self._enqueue_compression()
        return result

    def _release_expired_holds(self) -> None:
        """Record (and log) the timed holds whose time is up, as a tick does: checked on every compile
        (an expired hold stops holding at once either way). Costs one look at the compression log when
        no timed hold is in it (a runtime protocol check per compile cost more)."""
        log_of = getattr(self._active_strategy(), "compression_log", None)
        if not callable(log_of):
            return
        log = log_of(self._strategy_context())
        if getattr(log, "hold_expiry", None) and log.expired_holds(self.compressor.clock()):
            self.compressor.release_expired()

    def render_stats(self, result: CompileResult | None = None) -> Shape | None:
        """The render statistics of ``result`` (default: this handle's last :meth:`compile`, not a preview;
        None before the first): its parts in the order they are sent (system, head, summaries by level,
        the middle rendered raw, recall pairs, the working-state pair, the recent window or tail), each
        with its messages, tokens (estimated, before calibration) and the conversation positions and ids
        it stands for, and how many of the conversation's messages some part covers. See
        :mod:`context_journal.render_stats`.

        Reads the ids of the handle's messages (no payloads), its chunk records and the summaries the
        result renders; a result compiled by another handle or on another branch is read against this
        handle's messages.

        Raises:
            TypeError: ``result`` is neither None nor a :class:`CompileResult`.
        """
        if result is not None and not isinstance(result, CompileResult):
            raise TypeError(f"render_stats takes a CompileResult (or None), not {type(result).__name__}")
        chosen = result if result is not None else self._last_compile
        return None if chosen is None else shape_of(self, chosen)

    def preview_context(
        self,
        max_tokens: int,
        reserve_for_response: int = 0,
        system: str | Sequence[Mapping[str, Any]] | None = None,
        injections: Sequence[Injection] | None = None,
        *,
        assistant: str | Sequence[str] | None = None,
        roles: Roles | None = None,
        options: CompileOptions | None = None,
        query: str | None = None,
        recall: RecallArg = None,
        render_dates: bool | None = None,
    ) -> CompileResult:
        """What :meth:`compile` would return, writing nothing (not even strategy state).

        Raises:
            OverBudgetError: as :meth:`compile`.
            MalformedContentError: as :meth:`compile`.
            TypeError: as :meth:`compile`.
            ValueError: as :meth:`compile`.
        """
        return self._run_compile(
            max_tokens, reserve_for_response, system, injections, assistant, roles, options, query, recall, render_dates
        )[0]

    def compression_lag(self) -> tuple[int, int]:
        """Compression work waiting on this namespace and branch: ``(chunks, tokens)`` — the chunks not
        summarised yet (ready or waiting for a retry; closing the chunks that are due first) and the tokens
        of the messages they cover. ``(0, 0)`` when the strategy does not compress or nothing waits."""
        if not hasattr(self._active_strategy(), "prepare"):
            return 0, 0
        return self.compressor.pending_lag(self._reader_view(check=False))

    def _lagging(self, exc: OverBudgetError, reserve: int = 0) -> OverBudgetError:
        """``exc`` naming the compression work that waits, when some does.

        What the smallest valid context holds besides the raw middle no summary covers yet
        (``parts["not summarised yet"]``: excerpts of its tool units; its plain runs are already one short
        note each) is what it needs once compression has caught up. When that fits the budget, the
        remedy is to summarise (or ``overflow='window'``). When it does not (a budget too small for the
        head, the newest turn and the system part), the store still lags and the error says so, with the
        command that clears it, and that the budget must also reach that rest (``parts["needed once
        summarised"]``): ``max_tokens`` of at least that rest plus ``reserve`` (the reserve for the response)."""
        try:
            chunks, tokens = self.compression_lag()
        except Exception:  # the diagnosis must never hide the original error
            return exc
        if not chunks:
            return exc
        parts = {**exc.parts, "pending chunks": chunks, "pending tokens": tokens}
        rest = exc.actual - exc.parts.get(UNSUMMARISED_PART, 0)
        remedy = (
            "start a worker (command line: context-journal worker --store DB); this handle leaves compression "
            "to workers"
            if self._compression_mode == "workers"
            else "run cm.drain() (command line: context-journal compress --store DB)"
        )
        advice = (
            f"compression lags: {chunks} chunk{'s' if chunks != 1 else ''} ({tokens:,} tokens) wait to be summarised; "
            + remedy
        )
        if rest >= exc.budget:
            parts[ONCE_SUMMARISED_PART] = rest
            advice += (
                f"; even then the rest of the smallest valid context needs {'at least ' if exc.lower_bound else ''}"
                f"{rest:,} tokens{' (a lower bound priced from the index)' if exc.lower_bound else ''}, more than the "
                f"budget of {exc.budget:,}: raise max_tokens to at least {rest + reserve:,}"
                + (f" (the rest plus reserve_for_response={reserve:,}), or lower the reserve" if reserve else "")
            )
        else:
            advice += (
                ", or compile with AutobiographicalConfig(overflow='window') to leave the oldest unsummarised "
                "messages out"
            )
        err = OverBudgetError(exc.budget, exc.actual, parts, exc.what, advice)
        err.pending_chunks, err.pending_tokens = chunks, tokens  # type: ignore[attr-defined]
        return err

    def report_usage(self, compile: str | CompileResult, input_tokens: int) -> float:
        """Tell the manager how many input tokens the provider counted for a compiled request.

        The namespace's calibration factor moves toward ``input_tokens / estimate`` (per content class
        when the result itself is passed; see :class:`~context_journal.tokens.Calibration`) and is
        stored as the state ``<namespace>/calibration`` on the branch that was compiled (the manager may
        have switched branch since). Report only the tokens of the compiled context (leave out tool
        definitions the host adds to the request). A report weighs the compile's estimated tokens over 1,000, at most 1
        (:data:`~context_journal.tokens.FULL_REPORT_TOKENS`): a small request's count is mostly the
        provider's own framing, so it moves the factor little.

        Args:
            compile: The :class:`~context_journal.compile.CompileResult`, or its ``compile_id`` when it
                was made by this manager (the last 256 are remembered).
            input_tokens: Input tokens the provider reported (including cached ones), > 0.

        Returns:
            The new calibration factor.

        Raises:
            KeyError: a ``compile_id`` this manager did not make recently (pass the result instead).
            ValueError: the result was compiled for another namespace.
            BranchNotFoundError: the branch the result was compiled on was deleted since.
            TypeError: ``input_tokens`` is a ``bool`` or not an ``int``.
            ValueError: ``input_tokens`` is not positive or above ``MAX_TOKEN_COUNT``, or is not between
                0.1x and 20x the compile's estimate (the calibration's bounds: one report of 1 token for a
                6,000-token compile set the factor to its floor, and the next compile held ten times its
                budget); nothing is stored then.
        """
        check_token_count("input_tokens", input_tokens, 1)  # nan, inf, 1e30 and True moved the calibration
        self._claim_if_pending()
        mix = None  # estimated tokens by content class: the calibration learns a factor per class
        if isinstance(compile, CompileResult):
            if compile.namespace != self._namespace:
                raise ValueError(
                    f"this result was compiled for namespace {compile.namespace!r}, not {self._namespace!r}: "
                    "report it to a manager of that namespace"
                )
            estimated = compile.estimated_tokens
            mix = content_mix([*compile.system, *(b for m in compile.messages for b in m.content)], self._counter)
            branch_id = self._branch.id if compile.branch == self._branch.name else None
            if branch_id is None:
                branch_id = self._store.get_branch(compile.branch).id
        else:
            known = (self._compile_estimates or {}).get(compile)
            if known is None:
                raise KeyError(f"no recent compile with id {compile!r} on this manager; pass the CompileResult")
            estimated, branch_id = known
            compiled_on = self._store.branch_by_id(branch_id)
            if compiled_on.deleted:
                raise BranchNotFoundError(compiled_on.name)
        ctx = self._strategy_context(branch_id)
        with self._store.transaction():  # read and write under the write lock: no other handle's sample is lost
            calibration = Calibration.from_state(ctx.get_state("calibration"))
            ratio = input_tokens / max(1, estimated)
            if not calibration.lower <= ratio <= calibration.upper:
                raise ValueError(
                    f"input_tokens={input_tokens:,} is {ratio:.3g}x the compile's estimate of {estimated:,} tokens, "
                    f"outside {calibration.lower:g}x..{calibration.upper:g}x: not the count of this request (report "
                    "the provider's input tokens for this compiled context, cached ones included, tool definitions "
                    "left out); the calibration was left as it was"
                )
            factor = calibration.update(estimated, input_tokens, mix)
            ctx.put_states({"calibration": calibration.to_state()})
        return factor

    # ---- compression -------------------------------------------------------------------------------
    # The I/O half of compressing strategies lives in context_journal.compression; these are its handles.

    _compression: CompressionDriver | None = None

    @property
    def summarizer(self) -> Provider:
        """The model that writes summaries (default: :class:`~context_journal.llm.OfflineSummarizer`,
        no network). Settable; ``open(..., summarizer=...)`` sets it at open."""
        if self._summarizer is None:
            self._summarizer = OfflineSummarizer()
        return self._summarizer

    @summarizer.setter
    def summarizer(self, provider: Provider) -> None:
        self._summarizer = provider

    @property
    def compressor(self) -> CompressionDriver:
        """The compression driver of this manager: ``tick``/``drain`` and the summary queries run through it
        (its counters are :attr:`compression_stats`)."""
        if self._compression is None:
            self._compression = CompressionDriver(_DriverHost(self))
        return self._compression

    @property
    def compression(self) -> CompressionDriver:
        """Deprecated name of :attr:`compressor` (``compression`` is also the mode given to :meth:`open`:
        ``"inline"`` or ``"workers"``).

        Warns:
            DeprecationWarning: on every use; it will be removed before 1.0.
        """
        warnings.warn(
            "ContextManager.compression is deprecated: use ContextManager.compressor (the compression "
            "driver); compression= names the mode given to open()",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.compressor

    @property
    def compression_stats(self) -> CompressionStats:
        """Summarizer calls, failures, input and output tokens and summaries stored by this manager's
        ``tick``/``drain`` (in memory; ``compression_stats.reset()`` zeroes them)."""
        return self.compressor.stats

    def _messages_added(self, count: int) -> None:
        """Tell the strategy about ``count`` messages just appended (it may queue work; no I/O)."""
        strategy = self.strategy
        if count and strategy is not None and hasattr(strategy, "on_messages_added"):
            view = self._reader_view(check=False)
            entries = self._messages.rows
            first = entries[max(0, len(entries) - count)].created_seq if entries else 0
            try:
                start = view.index_at_sequence(first)
                told = start < len(view)  # nothing to tell when the reader sees none of them
            except ViewFilterError:  # the write stands; the next strategy read raises it, named
                told = False
            if told:
                strategy.on_messages_added(view, start)
        if count and self._compression_mode == "workers":
            self._enqueue_compression(grown=True)
        if count:
            self._ledger_appended()  # a persisted checkpoint every LedgerConfig.checkpoint_every

    def _enqueue_compression(self, grown: bool = False) -> None:
        """``compression="workers"``: put this conversation in the store's work queue (no model call; on
        appends only once a chunk's worth of tokens was added since the last enqueue)."""
        enqueue(self, only_if_grown=grown)

    def _refuse_inline(self, what: str) -> None:
        if self._compression_mode == "workers":
            raise CompressionDelegatedError(what)

    def tick(self) -> TickResult:
        """Do one unit of compression work: close the chunks that are due, send the next summary request
        to :attr:`summarizer`, store the summary (or the failure and its retry time).

        Returns:
            What was done (``status`` ``"done"``, ``"failed"``, ``"waiting"`` or ``"idle"``).

        Raises:
            StoreError: a write failed (the journal stays consistent).
            CompressionDelegatedError: the manager was opened with ``compression="workers"``.
        """
        self._claim_if_pending()
        self._refuse_inline("tick")
        return run_sync(self.compressor.atick())

    async def atick(self) -> TickResult:
        """:meth:`tick` for async hosts (awaits the summarizer on the running loop).

        Raises:
            StoreError: a write failed.
            CompressionDelegatedError: the manager was opened with ``compression="workers"``.
        """
        self._claim_if_pending()
        self._refuse_inline("atick")
        return await self.compressor.atick()

    def drain(
        self,
        progress: Callable[[DrainProgress], Any] | None = None,
        *,
        max_units: int | None = None,
        wait: bool = True,
        max_wait: float | None = None,
    ) -> DrainReport:
        """Tick until no compression work is pending (stuck work excepted; see :meth:`pending_work`).

        Args:
            progress: Called after each unit with a :class:`~context_journal.compression.DrainProgress`
                (units done, an estimate of what remains, the unit's result, the counters).
            max_units: Stop after this many units.
            wait: Wait out the retry backoff of failed work (until it succeeds or gets stuck).
            max_wait: Stop rather than wait past this many seconds.

        Returns:
            A :class:`~context_journal.compression.DrainReport` (units, summaries, failures, seconds,
            the work left, the counters).

        Raises:
            StoreError: a write failed.
            CompressionDelegatedError: the manager was opened with ``compression="workers"``.
        """
        self._claim_if_pending()
        self._refuse_inline("drain")
        return run_sync(self.compressor.adrain(progress, max_units=max_units, wait=wait, max_wait=max_wait))

    async def adrain(
        self,
        progress: Callable[[DrainProgress], Any] | None = None,
        *,
        max_units: int | None = None,
        wait: bool = True,
        max_wait: float | None = None,
    ) -> DrainReport:
        """:meth:`drain` for async hosts.

        Raises:
            StoreError: a write failed.
            CompressionDelegatedError: the manager was opened with ``compression="workers"``.
        """
        self._claim_if_pending()
        self._refuse_inline("adrain")
        return await self.compressor.adrain(progress, max_units=max_units, wait=wait, max_wait=max_wait)

    def is_ready(self) -> bool:
        """True when no compression work is ready or waiting for a retry on this namespace and branch
        (closing the chunks that are due first). Stuck work is reported by :meth:`pending_work` only."""
        return self.compressor.is_ready()

    def pending_work(self) -> PendingWork:
        """Compression work not done yet: ``ready``, ``waiting`` (retry backoff), ``stuck`` (failed
        ``max_attempts`` times; no longer retried), ``held`` message ids and unchunked tokens."""
        return self.compressor.pending_work()

    def hold_compression(self, message_id: str, *, timeout_seconds: float | None = None) -> None:
        """Keep compression away from ``message_id`` and everything after it: no chunk closes at or
        after it until :meth:`release_compression`, or, with ``timeout_seconds``, until that many
        seconds have passed (then the hold no longer holds; the next tick writes its release record and
        logs a warning). Holding again replaces the hold (and its timeout). Persisted per namespace and
        branch (other handles and workers respect it). Compiles are unaffected.

        Raises:
            MessageNotFoundError: no visible message has the id.
            ValueError: ``timeout_seconds`` is not a positive, finite number of seconds (at most a year).
            ShardingError: ``message_id`` names one shard of a sharded message (hold at the message).
        """
        refuse_shard(message_id, "hold compression at")
        if timeout_seconds is not None:
            _hold_timeout("timeout_seconds", timeout_seconds, true_holds=False)
        self.compressor.set_hold(message_id, True, timeout_seconds)

    def release_compression(self, message_id: str) -> None:
        """Release a :meth:`hold_compression` hold (a message never held is a no-op write)."""
        refuse_shard(message_id, "release compression at")
        self.compressor.set_hold(message_id, False)

    # ---- pins ---------------------------------------------------------------------------------------

    def pin(self, message_id: str) -> int:
        """Pin a message: it stays raw in every compile of this namespace and branch, with every strategy
        (with its tool unit), until :meth:`unpin`. Pins are state records of the branch: a fork inherits
        them, every change is in the history. Pinning a pinned message changes nothing. Returns the
        sequence of the state record written (0 when nothing changed).

        Raises:
            MessageNotFoundError: no message with the id is visible to this manager's reader (a message
                whose every block is addressed to other readers is not).
        """
        refuse_shard(message_id, "pin")
        view = self._raw_reader_view()
        view.refresh()
        if self._position(view, message_id) is None:
            raise MessageNotFoundError(message_id)
        return self._mark(PINS_STATE, message_id)

    def pin_range(
        self,
        first_id: str,
        last_id: str,
        *,
        name: str | None = None,
        level: int | None = None,
        max_level: int | None = None,
    ) -> str:
        """Pin the messages from ``first_id`` to ``last_id`` (both included, in conversation order) as one
        range: raw in every compile of this namespace and branch, with every strategy (each with its tool
        unit), until :meth:`unpin` of the returned pin id. A reader's compile shows the messages of the
        range its view holds. With ``max_level`` the range may be rendered at that summary level or finer
        (raw strategies render it raw); with ``level``, at exactly that level (0: raw; 1 or more needs a
        strategy that renders summaries at a chosen level). Pinning the same range with the same
        settings again returns its pin id and writes nothing. See
        :mod:`context_journal.strategies.pinned`.

        Args:
            first_id: The range's first message.
            last_id: The range's last message (``first_id`` itself for a range of one).
            name: A label shown in :meth:`list_pins` and in an ``OverBudgetError``'s parts (at most 200
                characters).
            level: The exact summary level to render the range at (0 to :data:`MAX_PIN_LEVEL`).
            max_level: The coarsest summary level the range may be rendered at (0 to
                :data:`MAX_PIN_LEVEL`); not with ``level``.

        Returns:
            The pin id (``"range-1"``, ``"range-2"``... numbered per branch).

        Raises:
            MessageNotFoundError: ``first_id`` or ``last_id`` is not a message this manager's reader sees.
            ValueError: ``last_id`` comes before ``first_id``; a level out of range or both given; a name
                that is empty or too long. Nothing is written.
            PinUnsupportedError: ``level`` is 1 or more and this manager's strategy cannot render
                summaries at a chosen level. Nothing is written.
        """
        for arg, value in (("level", level), ("max_level", max_level)):
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_PIN_LEVEL
            ):
                raise ValueError(f"{arg} must be an integer from 0 to {MAX_PIN_LEVEL} or None, got {value!r}")
        if level is not None and max_level is not None:
            raise ValueError("give level (exactly that summary level) or max_level (at most that level), not both")
        if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > 200):
            raise ValueError(f"name must be a non-blank string of at most 200 characters or None, got {name!r}")
        if level:
            self._check_pin_level(None, level)
        refuse_shard(first_id, "pin a range from")
        refuse_shard(last_id, "pin a range to")
        view = self._raw_reader_view()
        view.refresh()
        a, b = self._position(view, first_id), self._position(view, last_id)
        if a is None:
            raise MessageNotFoundError(first_id)
        if b is None:
            raise MessageNotFoundError(last_id)
        for shard in self._group_ids(last_id)[1:]:  # a range that ends at a sharded message holds all of it
            b = max(b, view.index_of(shard) or b)
        if b < a:
            raise ValueError(f"the range's last message {last_id!r} comes before its first {first_id!r}")
        first_seq, last_seq = view.entry(a).created_sequence, view.entry(b).created_sequence
        made: list[str] = []

        def change(value: dict[str, Any]) -> dict[str, Any]:
            ranges = pinned_ranges(value)
            for r in ranges:
                if (r.first_sequence, r.last_sequence, r.name, r.level, r.max_level) == (
                    first_seq,
                    last_seq,
                    name,
                    level,
                    max_level,
                ):
                    made.append(r.pin_id)
                    return value
            taken = {r.pin_id for r in ranges}
            number = value.get("next")
            if not isinstance(number, int) or isinstance(number, bool) or number < 1:
                number = len(ranges) + 1
            # Never the id of a pin or of a message this reader sees (unpin looks ranges up first).
            while f"range-{number}" in taken or view.index_of(f"range-{number}") is not None:
                number += 1
            pin = PinRange(f"range-{number}", first_id, last_id, first_seq, last_seq, name, level, max_level)
            made.append(pin.pin_id)
            return {**value, "ranges": [r.to_state() for r in ranges] + [pin.to_state()], "next": number + 1}

        self._change_state(PINS_STATE, change)
        return made[-1]

    def pin_at_level(self, first_id: str, last_id: str, level: int, *, name: str | None = None) -> str:
        """:meth:`pin_range` at exactly summary ``level`` (0: raw): the range is rendered at that level,
        never finer or coarser. Returns the pin id; raises as :meth:`pin_range` (``ValueError`` for a
        level that is not an integer, None included)."""
        if not isinstance(level, int) or isinstance(level, bool):
            raise ValueError(f"level must be an integer from 0 to {MAX_PIN_LEVEL}, got {level!r}")
        return self.pin_range(first_id, last_id, name=name, level=level)

    def _check_pin_level(self, pin_id: str | None, level: int) -> None:
        """Raise :class:`PinUnsupportedError` when this manager's strategy cannot render summary ``level``."""
        strategy = self._active_strategy()
        if not isinstance(strategy, LevelPinningStrategy):
            raise PinUnsupportedError(getattr(strategy, "name", type(strategy).__name__), pin_id, level)

    def unpin(self, pin_id: str) -> int:
        """Remove a pin: a pinned message (by its id) or a pinned range (by the id :meth:`pin_range`
        returned; a range's id is looked up first). Returns the sequence of the state record written (0:
        the message was not pinned, and nothing is written).

        Raises:
            MessageNotFoundError: the id is neither a pin nor a visible message (a typo, not a no-op).
        """
        if any(r.pin_id == pin_id for r in self._pin_ranges()):
            return self._change_state(
                PINS_STATE,
                lambda value: {
                    **value,
                    "ranges": [r.to_state() for r in pinned_ranges(value) if r.pin_id != pin_id],
                },
            )
        try:
            return self._unmark(PINS_STATE, pin_id, self.pins())
        except MessageNotFoundError as exc:
            if exc.message_id != pin_id:
                raise
            raise MessageNotFoundError(pin_id, "and no pin has this id: list_pins() lists them") from None

    def _pin_ranges(self) -> tuple[PinRange, ...]:
        return pinned_ranges(self._strategy_context().get_state(PINS_STATE))

    def list_pins(self) -> list[PinInfo]:
        """Every pin of this namespace and branch: the pinned messages in the order they were pinned,
        then the pinned ranges in the order they were pinned. A pin of a message removed since (or not
        visible to this manager's reader) stays listed and renders nothing."""
        out = [PinInfo(i, "message", i, i) for i in self.pins()]
        out += [
            PinInfo(r.pin_id, "range", r.first_id, r.last_id, r.name, r.level, r.max_level) for r in self._pin_ranges()
        ]
        return out

    def pins(self, *, visible_only: bool = False) -> list[str]:
        """The pinned message ids of this namespace and branch, in the order they were pinned (a sharded
        message once, by its id; its shards are pinned with it). A pinned message removed since (or not
        visible to this manager's reader) stays listed and renders nothing; ``visible_only=True`` leaves
        those out."""
        ids = _by_message(pinned_ids(self._strategy_context().get_state(PINS_STATE)))
        if not visible_only:
            return ids
        view = self._reader_view()
        view.refresh()
        return [i for i in ids if view.index_of(i) is not None]

    def mark_document(self, message_id: str) -> int:
        """Mark a message as a document: a long reference text (a spec, a manual, a file the user pasted)
        kept whole or summarised as one unit. A compile never excerpts it (it renders whole, or, with a
        summarising strategy, as its summary, or is left out as any message may be); the autobiographical
        strategy gives it a chunk of its own (summarised alone, in parts if it is larger than a request,
        and never chunked with the conversation around it). Not a pin: see :meth:`pin` to keep it raw.
        Marks are state records of the branch (a fork inherits them); marking a marked message changes
        nothing. Returns the sequence of the state record written (0 when nothing changed).

        Raises:
            MessageNotFoundError: no message with the id is visible to this manager's reader.
            ValueError: the message holds a tool call or result (it belongs to its tool unit), or
                compression already closed a chunk holding it with other messages (mark documents before
                compression reaches them: as they are written, or while a hold keeps compression away).
                Nothing is written.
        """
        refuse_shard(message_id, "mark")
        view = self._raw_reader_view()
        view.refresh()
        pos = self._position(view, message_id)
        if pos is None:
            raise MessageNotFoundError(message_id)
        entry = view.entry(pos)
        if set(entry.kinds) & _TOOL_KINDS:
            raise ValueError(f"message {message_id!r} holds a tool call or result: it belongs to its tool unit")
        if message_id not in self.documents():
            log = self.compressor.compression_log()
            for mid in self._group_ids(message_id):  # a sharded message: every shard
                pos = view.index_of(mid)
                chunk = None if pos is None else log.chunk_holding(view.entry(pos).created_sequence)
                if chunk is not None and any(group_of(i)[0] != message_id for i in chunk.ids):
                    raise ValueError(
                        f"message {message_id!r} is already in chunk {chunk.id} with {len(chunk.ids) - 1} other "
                        "messages (mark documents before compression reaches them)"
                    )
        return self._mark(DOCUMENTS_STATE, message_id)

    def unmark_document(self, message_id: str) -> int:
        """Undo :meth:`mark_document` (a chunk already closed keeps its bounds). Returns the sequence of the
        state record written (0: it was not marked, and nothing is written).

        Raises:
            MessageNotFoundError: the id is neither marked nor a visible message (a typo, not a no-op).
        """
        return self._unmark(DOCUMENTS_STATE, message_id, self.documents())

    def documents(self) -> list[str]:
        """The ids marked with :meth:`mark_document` on this namespace and branch, in the order marked (a
        message removed since stays listed and renders nothing)."""
        return _by_message(pinned_ids(self._strategy_context().get_state(DOCUMENTS_STATE)))

    def render_as_newest(self, message_id: str) -> int:
        """Render a message, or the messages of a pinned range (its pin id, see :meth:`pin_range`), after
        the recent window, as the newest content before the model's turn (a document the model must
        read last), in every compile of this namespace and branch until :meth:`render_in_place`: once
        per compile (taken out of its place), as a user turn each, with provenance; priced before the
        strategy selects, like a pin. A range is marked as its messages the reader sees when it is
        marked. Marks are state records of the branch (a fork inherits them). Marking a marked message
        changes nothing. Returns the sequence of the state record written (0 when nothing changed). See
        :mod:`context_journal.strategies.newest`.

        Raises:
            MessageNotFoundError: no message with the id is visible to this manager's reader, and no
                pinned range has it.
            ValueError: the message (or a message of the range) holds a tool call or a tool result (moved
                away from its pair, it would break the provider's pairing rule); nothing is written.
        """
        view = self._raw_reader_view()
        view.refresh()
        ids = self._newest_ids(view, message_id)
        for mid in ids:
            pos = view.index_of(mid)
            if pos is not None and set(view.entry(pos).kinds) & _TOOL_KINDS:
                raise ValueError(
                    f"message {mid!r} holds a tool call or result: it cannot be rendered away from its pair"
                )
        if len(ids) == 1:
            return self._mark(NEWEST_STATE, ids[0])
        return self._write_state_ids(NEWEST_STATE, lambda marked: [*marked, *(i for i in ids if i not in marked)])

    def _newest_ids(self, view: ReaderView, message_id: str) -> list[str]:
        """The message ids ``message_id`` names for :meth:`render_as_newest`: the messages of a pinned range
        the view holds (by its pin id; looked up first, as :meth:`unpin` does), else the message itself.

        Raises:
            MessageNotFoundError: neither a pinned range nor a visible message.
        """
        for r in self._pin_ranges():
            if r.pin_id == message_id:
                a, b = view.index_at_sequence(r.first_sequence), view.index_at_sequence(r.last_sequence + 1)
                found = [e.id for e in view.entries(a, b)]
                if not found:
                    raise MessageNotFoundError(message_id, "the pinned range holds no message this view shows")
                return found
        refuse_shard(message_id, "render")
        if self._position(view, message_id) is None:
            raise MessageNotFoundError(message_id, "and no pinned range has this id: list_pins() lists them")
        return [message_id]

    def render_in_place(self, message_id: str) -> int:
        """Undo :meth:`render_as_newest` of a message or of a pinned range (its pin id): it renders where it
        stands again. Returns the sequence of the state record written (0: it was not marked, and nothing
        is written).

        Raises:
            MessageNotFoundError: the id is neither marked, nor a visible message, nor a pinned range.
        """
        refuse_shard(message_id, "render in place")
        if any(r.pin_id == message_id for r in self._pin_ranges()):
            view = self._raw_reader_view()
            view.refresh()
            gone = set(self._newest_ids(view, message_id))
            return self._write_state_ids(NEWEST_STATE, lambda marked: [i for i in marked if i not in gone])
        return self._unmark(NEWEST_STATE, message_id, self.rendered_as_newest())

    def rendered_as_newest(self) -> list[str]:
        """The ids marked with :meth:`render_as_newest` on this namespace and branch, in the order marked
        (that is the order they are rendered in)."""
        return _by_message(newest_ids(self._strategy_context().get_state(NEWEST_STATE)))

    def set_hot_context(self, /, **changes: int) -> int:
        """Change the strategy's windows at run time on this namespace and branch: the raw head
        (``head_window_tokens``) and recent (``recent_window_tokens``) windows and the size of the chunks
        prepared for summarising (``target_chunk_tokens``), in tokens. The change is a state record of the
        branch (a fork inherits it, every change is in the history) applied over the settings the strategy
        was built with by every handle that loads it (the CLI, the MCP server, the workers, a reopen);
        settings not named keep their recorded value. Chunks closed before the change keep their size;
        the next compile and tick follow the new windows. Returns the sequence of the state record
        written (0 when nothing changed).

        Raises:
            CompressionUnavailableError: the strategy has no windows to change (it is no
                :class:`~context_journal.strategies.base.HotContextStrategy`).
            TypeError: a name that is not a hot-context setting (the message lists them).
            ValueError: no setting named, or a value the strategy's settings refuse; nothing is written.
        """
        strategy = self._hot_strategy("set_hot_context")
        if not changes:
            raise ValueError("name at least one setting to change, e.g. set_hot_context(recent_window_tokens=8000)")
        strategy.check_hot_context(changes)  # before any write: a refused change writes nothing
        self._claim_if_pending()
        ctx = self._strategy_context()
        with self._store.transaction() as tx:
            tx.lock_journal(f"{self._namespace}/{HOT_CONTEXT_STATE}")  # no concurrent change is lost
            stored = ctx.get_state(HOT_CONTEXT_STATE)
            old = dict(stored) if isinstance(stored, Mapping) else {}
            new = {**old, **changes}  # a setting a newer version recorded is kept as it is
            seq = 0 if new == old else tx.put_state(ctx.branch_id, ctx.key(HOT_CONTEXT_STATE), new)
        strategy.load(ctx)
        if seq and self._compressed_by_workers():
            self._enqueue_compression()  # smaller windows may make work due now
        return seq

    def _compressed_by_workers(self) -> bool:
        """True when workers compress this namespace: this manager was opened with
        ``compression="workers"``, or the namespace records it (an import or ``compress`` for workers), so
        a change made by another handle (the CLI, an MCP server that compresses inline) queues work too."""
        if self._compression_mode == "workers":
            return True
        if not isinstance(self._store, QueueStore):
            return False
        recorded = recorded_strategy(self._store, self._namespace, self._branch.name)
        return recorded is not None and recorded.get("compression") == "workers"

    def hot_context(self) -> dict[str, int]:
        """The strategy's window settings in use on this namespace and branch, in tokens (the recorded
        :meth:`set_hot_context` changes over the settings it was built with).

        Raises:
            CompressionUnavailableError: the strategy has no windows (no
                :class:`~context_journal.strategies.base.HotContextStrategy`).
        """
        strategy = self._hot_strategy("hot_context")
        strategy.load(self._strategy_context())
        return strategy.hot_context()

    def _hot_strategy(self, what: str) -> HotContextStrategy:
        strategy = self.strategy
        if not isinstance(strategy, HotContextStrategy):
            name = "passthrough" if strategy is None else getattr(strategy, "name", type(strategy).__name__)
            needs = "a strategy with windows (a HotContextStrategy, such as the autobiographical one)"
            raise CompressionUnavailableError(name, what, needs)
        return strategy

    def _mark(self, name: str, message_id: str) -> int:
        """Add ``message_id`` to the id list of the state ``name`` (pins, documents, newest); returns the
        sequence of the record written (0: it was there)."""
        group = self._group_ids(message_id)  # a body group is marked whole
        return self._write_state_ids(name, lambda ids: [*ids, *(g for g in group if g not in ids)])

    def _unmark(self, name: str, message_id: str, marked: Sequence[str]) -> int:
        """Take ``message_id`` out of the id list of the state ``name`` (``marked``: the list as read);
        returns the sequence of the record written (0: it was not there).

        Raises:
            MessageNotFoundError: the id is neither in the list nor a visible message (a typo, not a no-op).
            ShardingError: the id names one shard of a sharded message (undo the message's mark).
        """
        refuse_shard(message_id, "unmark")
        if message_id not in marked:
            self.get_message(message_id)
        group = set(self._group_ids(message_id))
        return self._write_state_ids(name, lambda ids: [i for i in ids if i not in group])

    def _write_state_ids(self, name: str, change: Callable[[list[str]], list[str]]) -> int:
        """Change the id list of the state ``name`` (pins, newest: ``{"ids": [...], ...}``) under a journal
        lock, keeping its other keys; returns the sequence of the record written (0: unchanged)."""
        return self._change_state(name, lambda value: {**value, "ids": change(list(pinned_ids(value)))})

    def _change_state(self, name: str, change: Callable[[dict[str, Any]], dict[str, Any]]) -> int:
        """Change the dict state ``name`` under a journal lock (``change`` gets the stored value, ``{}``
        when none); returns the sequence of the record written (0: unchanged, nothing written)."""
        self._claim_if_pending()
        ctx = self._strategy_context()
        with self._store.transaction() as tx:
            tx.lock_journal(f"{self._namespace}/{name}")  # no change of a concurrent writer is lost
            stored = ctx.get_state(name)
            value = dict(stored) if isinstance(stored, Mapping) else {}
            new = change(value)
            if new == value or (not stored and not any(new.values())):
                return 0
            return tx.put_state(ctx.branch_id, ctx.key(name), new)

    def search_summaries(
        self, text: str | None = None, regex: str | re.Pattern[str] | None = None, limit: int | None = 10
    ) -> list[Summary]:
        """Summaries of this namespace and branch whose text holds ``text`` (case-insensitive) and
        matches ``regex``; newest first. Both None lists every summary; ``limit=None`` returns all.

        Raises:
            TypeError: ``text`` is not a string or None, or ``regex`` not a string, pattern or None.
            ValueError: ``limit`` is not None or an integer >= 1, or ``regex`` ran longer than
                :data:`~context_journal.compression.REGEX_SECONDS`.
            re.error: ``regex`` is not a valid pattern.
        """
        return self.compressor.queries.search(text, regex, limit)

    def get_summary(self, summary_id: str) -> Summary:
        """A summary row (id, level, source ids and range, parent id, tokens, created, model, hash).

        Raises:
            SummaryNotFoundError: no such summary on this namespace and branch.
        """
        return self.compressor.queries.get(summary_id)

    def get_summaries_in_range(self, start: int | str, end: int | str) -> list[Summary]:
        """Summaries (every level) standing for any message of a range: positions ``[start, end)`` as
        :meth:`get_messages` counts them, or message ids ``start..end`` inclusive.

        Raises:
            MessageNotFoundError: a message id is not visible.
            ValueError: the range is reversed.
        """
        return self.compressor.queries.in_range(start, end)

    def reset_head_window(self, text: str | None = None) -> str:
        """Start a new topic: store a transition summary as a message and start the head window there.

        The summary is the host's ``text``, or (None) one the summarizer writes from the current head,
        summaries and newest messages. The message (participant ``marker_participant``, metadata
        ``{"context_journal": {"kind": "transition_summary", ...}}``) and the new head's record are
        written in one transaction; a reopen finds the head there. Older messages stay covered (chunked
        and summarised before the new head).

        Returns:
            The transition message's id.

        Raises:
            CompressionUnavailableError: the strategy cannot reset its head window (it is no
                :class:`~context_journal.strategies.base.HeadResettingStrategy`).
            ValueError: ``text`` is blank.
            ProviderError: the summarizer failed (nothing is written).
        """
        self._claim_if_pending()
        mid = run_sync(self.compressor.areset_head_window(text))
        self._head_reset()
        return mid

    def _head_reset(self) -> None:
        """After a transition message was written: tell the strategy, and on a ``compression="workers"``
        manager queue the work at once (the old topic is due now; a small message alone would not)."""
        self._messages_added(1)
        if self._compressed_by_workers():
            self._enqueue_compression()

    def set_tools(self, tools: Sequence[ToolDefinition | Mapping[str, Any]]) -> None:
        """Tool definitions sent with every summary request (so requests replaying tool calls are
        valid and share the agent's prompt-cache prefix). Stored per namespace and branch.

        Raises:
            pydantic.ValidationError: a definition is malformed.
        """
        self._claim_if_pending()
        value = [ToolDefinition.model_validate(t).model_dump() for t in tools]
        ctx = self._strategy_context()
        if ctx.get_state(TOOLS_STATE) != value:
            ctx.put_states({TOOLS_STATE: value})

    def set_system_prompt(self, text: str | None) -> None:
        """The host's system prompt, sent first with every summary request (None removes it). Stored
        per namespace and branch."""
        self._claim_if_pending()
        ctx = self._strategy_context()
        if ctx.get_state(SYSTEM_STATE) != text:
            ctx.put_states({SYSTEM_STATE: text})

    # ---- lifecycle --------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the manager (and its store when it opened the store itself). Idempotent."""
        if not self._closed:
            self._closed = True
            if self._owns_store:
                self._store.close()

    def __enter__(self) -> ContextManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ContextManager(store={self._store!r}, namespace={self._namespace!r}, branch={self.current_branch()!r})"


def why_unsummarised(cm: ContextManager) -> tuple[str, tuple[str, ...]]:
    """Why the middle of ``cm``'s conversation that no summary covers stays so, and the message ids under
    a compression hold: :attr:`PendingWork.why_unsummarised` (``pending``, ``held``, ``stuck``,
    ``filling``; closing the chunks that are due first; also on a handle that leaves compression to
    workers), or ``unknown`` when the manager cannot tell (no compressing strategy)."""
    try:
        work = cm.pending_work()
    except ContextJournalError:
        return "unknown", ()
    return work.why_unsummarised, tuple(work.held)


def resolve_strategy(strategy: Any) -> Any:
    """``strategy`` itself, or the strategy a documented name stands for.

    Raises:
        TypeError: an unknown name, or an object that is not a strategy (no ``select`` and ``load``).
    """
    if strategy is None:
        return None
    if isinstance(strategy, str):
        try:
            return strategy_by_name(strategy.strip().lower())
        except ValueError:
            raise TypeError(
                f"unknown strategy {strategy!r}; give a Strategy or one of {', '.join(STRATEGY_NAMES)}"
            ) from None
    if not (callable(getattr(strategy, "select", None)) and callable(getattr(strategy, "load", None))):
        raise TypeError(
            f"strategy must be a Strategy (with select() and load()) or one of {', '.join(STRATEGY_NAMES)}, "
            f"not {type(strategy).__name__}"
        )
    return strategy


def _by_message(ids: Iterable[str]) -> list[str]:
    """Marked ids as a host names them: a sharded message once, by its id (its shards are marked with it;
    a shard marked alone stays listed by its own id)."""
    ids = list(ids)
    marked = set(ids)
    return [i for i in ids if not (is_shard_form(i) and group_of(i)[0] in marked)]


def _hits_by_group(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Search hits with a shard's hit naming its message (the group id), each message once (its best
    hit: the list is best first)."""
    out: list[SearchHit] = []
    seen: set[str] = set()
    for hit in hits:
        group = group_of(hit.message_id)[0]
        if group in seen:
            continue
        seen.add(group)
        out.append(hit if group == hit.message_id else dataclasses.replace(hit, message_id=group))
    return out


def _refuse_reserved(metadata: Any, index: int) -> None:
    """Refuse host metadata that holds the shard layout's key (:data:`~.sharding.SHARD_KEY`: only
    sharding writes it; a forged layout would make reads join unrelated messages).

    Raises:
        MalformedContentError: naming the message and the key.
    """
    if isinstance(metadata, Mapping) and SHARD_KEY in metadata:
        raise MalformedContentError(
            f"metadata key {SHARD_KEY!r} is reserved for sharding", message_index=index, path="metadata"
        )


def _refuse_blank(content: Any, index: int) -> None:
    """A message with nothing to send is refused like an empty block list (a provider rejects an empty
    message, and the compiler leaves blank text out, so it could never be rendered): an empty or
    whitespace-only string, or a block list made only of such text blocks and unsigned thinking blocks with
    empty or whitespace-only thinking (unsigned thinking is never sent: it cannot be replayed, so such a
    block says nothing; a signed one with empty thinking is what a provider returns when its thinking is
    not displayed, and is kept).

    Raises:
        MalformedContentError: ``content`` is an empty or whitespace-only string, or every block is such a
            ``text`` or ``thinking`` block (placed at the first of them).
    """
    if isinstance(content, str):
        if shows_nothing(content):
            raise MalformedContentError(
                "a message needs non-empty text (an empty string is refused like [])", message_index=index
            )
        return
    if isinstance(content, (list, tuple)) and content and all(_blank_text_block(b) for b in content):
        raise MalformedContentError(
            "a message needs non-empty text (a message of only empty or whitespace-only text blocks and "
            'unsigned empty thinking blocks is refused like "" and [])',
            message_index=index,
            block_index=0,
            path="thinking" if _field(content[0], "type") == "thinking" else "text",
        )


def _field(block: Any, name: str) -> Any:
    """``block[name]`` of a dict, or the attribute of a block model (None when it has none)."""
    return block.get(name) if isinstance(block, Mapping) else getattr(block, name, None)


def _blank_text_block(block: Any) -> bool:
    """Whether ``block`` (a dict or a block model) says nothing: a ``text`` block holding only whitespace,
    or a ``thinking`` block with no signature whose thinking is only whitespace (a review stored one and
    compiled it to a lone "[start of the conversation]")."""
    kind = _field(block, "type")
    if kind == "text":
        text = _field(block, "text")
        return isinstance(text, str) and shows_nothing(text)
    if kind == "thinking":
        thinking = _field(block, "thinking")
        return isinstance(thinking, str) and shows_nothing(thinking) and not _field(block, "signature")
    return False


class _DriverHost:
    """What a manager shows its compression driver (:class:`~context_journal.compression.CompressionHost`):
    the store, messages and summarizer it reads, and its strategy, strategy context and reader view."""

    __slots__ = ("_cm",)

    def __init__(self, cm: ContextManager) -> None:
        self._cm = cm

    @property
    def store(self) -> Store:
        return self._cm.store

    @property
    def messages(self) -> MessageStore:
        return self._cm.messages

    @property
    def summarizer(self) -> Provider:
        return self._cm.summarizer

    def strategy_context(self) -> StrategyContext:
        return self._cm._strategy_context()

    def active_strategy(self) -> Strategy:
        return self._cm._active_strategy()

    def reader_view(self) -> ReaderView | MergedView:
        return self._cm._reader_view()
