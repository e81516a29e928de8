"""What the MCP tools do, without the SDK: a thin layer over the Python API.

:class:`ToolBackend` holds one store, one :class:`~context_journal.journal.ExecutionJournal` over it and a
:class:`~context_journal.manager.ContextManager` per (namespace, branch), and has one method per tool. Each
method returns a typed result (a pydantic model: the tool's structured output) and lets library errors
propagate; :mod:`.server` turns them into tool errors with their message, at the edge.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import threading
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..compile import OverBudgetError
from ..errors import BranchNotFoundError, ContextJournalError, PicklableError
from ..fitting import fitting_budget
from ..journal import AppendOutcome, Brief, BriefTrigger, DriftReport, Entry, ExecutionJournal, SummaryPage
from ..journal.integrity import HEAD_KEY_ENV
from ..journal.synthesis import SynthesisConfig
from ..llm import Provider
from ..manager import ONCE_SUMMARISED_PART, ContextManager, why_unsummarised
from ..namespaces import (
    COMPRESS_BUDGET,
    NAMESPACE_MARK,
    list_namespaces,
    namespace_exists,
    record_strategy,
    recorded_config,
    recorded_strategy,
    require_namespace,
    strategy_record,
)
from ..readers import host_claim_problem, recorded_reader
from ..recall.query import shown_query
from ..recall.search import check_as_of_written
from ..rendering.cache_markers import CacheMarkersDroppedWarning
from ..rendering.reduce import cut_phrase
from ..stores import ROOT_BRANCH, Store
from ..strategies import COMPRESSING_STRATEGY_NAMES, STRATEGY_NAMES, strategy_by_name
from ..tokens import MAX_TOKEN_COUNT

__all__ = [
    "AddMessageResult",
    "BriefResult",
    "CompiledContext",
    "CompressResult",
    "DocumentsResult",
    "GetSummaryResult",
    "MessageHit",
    "MessageSearchResult",
    "PinnedRange",
    "PinsResult",
    "SummarySearchResult",
    "SummaryTextHit",
    "SummaryTextSearchResult",
    "ToolBackend",
    "ToolUnavailableError",
    "WorkingStateResult",
]

_log = logging.getLogger("context_journal.mcp")


class ToolUnavailableError(PicklableError, LookupError):
    """The tool needs a library feature this version does not have (the message names it)."""


class BriefResult(BaseModel):
    """Result of ``get_brief``.

    Attributes:
        brief: The brief (the current one, the version asked for, or the one just built), or None.
        built: True when this call built and stored a new brief.
        trigger: Whether a new brief is needed (token threshold), as of this call.
    """

    model_config = ConfigDict(frozen=True)

    brief: Brief | None
    built: bool
    trigger: BriefTrigger


class RedactResult(BaseModel):
    """Result of ``redact_message`` (the server was started with ``--allow-redact``).

    Attributes:
        message_id: The erased message.
        sequence: Store sequence of its redaction record.
        versions: Sequences of the message versions erased.
        derived: Sequences of the summaries and checkpoints erased with it.
        reason: The reason kept.
        notes: What the store's scrub could not do (empty when the bytes left its files).
    """

    model_config = ConfigDict(frozen=True)

    message_id: str
    sequence: int
    versions: list[int]
    derived: list[int]
    reason: str
    notes: list[str]


class AddMessageResult(BaseModel):
    """Result of ``add_message``.

    Attributes:
        id: The new message's id.
        namespace: The manager's namespace.
        branch: The branch written.
        message_count: Visible messages on the branch now.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    namespace: str
    branch: str
    message_count: int


class HoldsResult(BaseModel):
    """Result of ``hold_compression`` and ``release_compression``.

    Attributes:
        held: The message ids compression is held at now in the namespace and branch, sorted (a timed
            hold whose time is up is not listed).
    """

    model_config = ConfigDict(frozen=True)

    held: list[str]


class HotContextResult(BaseModel):
    """Result of ``set_hot_context`` and ``get_hot_context``.

    Attributes:
        changed: True when the call wrote a change (False: already so, or a reading).
        sequence: Store sequence of the state record written, when one was.
        hot_context: The window settings in use, in tokens (``head_window_tokens``,
            ``recent_window_tokens``, ``target_chunk_tokens``).
    """

    model_config = ConfigDict(frozen=True)

    changed: bool
    sequence: int | None
    hot_context: dict[str, int]


class PinnedRange(BaseModel):
    """A pinned range (``ContextManager.pin_range``).

    Attributes:
        pin_id: What ``unpin_message`` takes to remove it.
        first_id: Its first message.
        last_id: Its last message.
        name: Its label, or None.
        level: The exact summary level it renders at, or None (raw, unless ``max_level``).
        max_level: The coarsest summary level it may render at, or None.
    """

    model_config = ConfigDict(frozen=True)

    pin_id: str
    first_id: str
    last_id: str
    name: str | None = None
    level: int | None = None
    max_level: int | None = None


class PinsResult(BaseModel):
    """Result of ``pin_message``, ``pin_range``, ``unpin_message`` and ``list_pins``.

    Attributes:
        changed: True when the call changed the pins (False: already so, or a listing).
        sequence: Store sequence of the state record written, when one was (``pin_range``: None).
        pins: The pinned message ids of the namespace and branch, in the order they were pinned.
        ranges: Its pinned ranges, in the order they were pinned.
        pin_id: The range ``pin_range`` pinned (or found already pinned), else None.
    """

    model_config = ConfigDict(frozen=True)

    changed: bool
    sequence: int | None
    pins: list[str]
    ranges: list[PinnedRange] = []
    pin_id: str | None = None


class DocumentsResult(BaseModel):
    """Result of ``mark_document``.

    Attributes:
        changed: True when the call changed the marks (False: already so).
        sequence: Store sequence of the state record written, when one was.
        documents: The message ids marked as documents on the namespace and branch, in the order marked.
    """

    model_config = ConfigDict(frozen=True)

    changed: bool
    sequence: int | None
    documents: list[str]


class FactsResult(BaseModel):
    """Result of ``set_fact`` and ``clear_fact``.

    Attributes:
        changed: True when the call changed the facts (False: the key already held that text, or there
            was no such fact to clear).
        sequence: Store sequence of the record written, when one was.
        facts: The host facts of the namespace and branch after the call, by key.
    """

    model_config = ConfigDict(frozen=True)

    changed: bool
    sequence: int | None
    facts: dict[str, str]


class WorkingStateResult(BaseModel):
    """Result of ``get_working_state``.

    Attributes:
        namespace: The manager's namespace.
        branch: The branch read.
        state: The working state (plans, facts, files, commands, errors, identifiers; see
            :class:`~context_journal.state.WorkingState`), lists cut to ``limit`` items.
        block: The block a compile would render (unbounded by a budget), or None when there is nothing.
    """

    model_config = ConfigDict(frozen=True)

    namespace: str
    branch: str
    state: dict[str, Any]
    block: str | None


class CompiledContext(BaseModel):
    """Result of ``compile_context``.

    Attributes:
        format: ``anthropic``, ``openai`` (Chat Completions) or ``openai-responses`` (Responses API input items in
            ``messages``).
        tokens: Estimated tokens of the context (``<= budget``).
        budget: ``max_tokens - reserve_for_response``, in tokens.
        compile_id: The compile's id.
        system: The system prompt (Anthropic format: text blocks; OpenAI: inside ``messages``).
        messages: The messages, in the provider's format.
        repairs: What was changed to make the context valid and fit.
        dropped: Messages of the view left out.
        journal_tokens: Tokens of the injected journal view, or None when none was asked for.
        recall: With a query (or recall_auto): the query, the matches found (``hits``), the messages
            brought back (``recalled``) and, when none was, a ``note`` saying why.
        cache_markers_dropped: Anthropic format: where the ``cache_control`` markers removed to keep the
            request within the API's limit of 4 were (paths into the request, e.g.
            ``"messages[2].content[0]"``); empty when none was.
        compression_lags: When messages no summary covers yet were cut to fit (a short note stands for
            each run of them): how many, and what summarises them (the compress tool, or the server's
            workers); None when none was.
    """

    model_config = ConfigDict(frozen=True)

    format: Literal["anthropic", "openai", "openai-responses"]
    tokens: int
    budget: int
    compile_id: str
    system: list[dict[str, Any]] = Field(default_factory=list)
    messages: list[dict[str, Any]]
    repairs: list[dict[str, Any]] = Field(default_factory=list)
    dropped: int = 0
    journal_tokens: int | None = None
    strategy: str = "passthrough"
    parts: dict[str, int] = Field(default_factory=dict)
    recall: dict[str, Any] | None = None
    cache_markers_dropped: list[str] = Field(default_factory=list)
    compression_lags: str | None = None


class CompressResult(BaseModel):
    """Result of ``compress``.

    Attributes:
        namespace: The namespace compressed.
        branch: The branch.
        mode: ``inline`` (this call did the work) or ``workers`` (queued for ``context-journal worker``).
        calls: Summarizer calls made by this call.
        summaries: Summaries stored by this call.
        input_tokens: Tokens the summarizer read.
        output_tokens: Tokens it wrote.
        pending: Work left: ``ready``, ``waiting`` (retry backoff), ``stuck``.
        done: True when nothing is ready or waiting.
    """

    model_config = ConfigDict(frozen=True)

    namespace: str
    branch: str
    mode: Literal["inline", "workers"]
    calls: int
    summaries: int
    input_tokens: int
    output_tokens: int
    pending: dict[str, int]
    done: bool


COMPRESSING = COMPRESSING_STRATEGY_NAMES


class MessageHit(BaseModel):
    """One message matching a ``search_messages`` query.

    Attributes:
        message_id: The message's id.
        sequence: Store sequence of the matching version.
        participant: Who wrote it.
        timestamp: When it was written (ISO-8601, UTC).
        score: Relevance, higher is better.
        snippet: At most 32 words (and 400 characters) around the best match, matched words marked
            ``**like this**``, ``…`` where text was cut; never the whole body of a long message.
    """

    model_config = ConfigDict(frozen=True)

    message_id: str
    sequence: int
    participant: str
    timestamp: str
    score: float
    snippet: str


class MessageSearchResult(BaseModel):
    """Result of ``search_messages``.

    Attributes:
        query: The query searched.
        namespace: The manager's namespace.
        branch: The branch searched.
        hits: The matching messages, best first.
    """

    model_config = ConfigDict(frozen=True)

    query: str
    namespace: str
    branch: str
    hits: list[MessageHit]


class SummaryTextHit(BaseModel):
    """One summary matching a ``search_summary_text`` query.

    Attributes:
        summary_id: The summary's id (``get_summary`` returns the whole row).
        level: 1 for a chunk's summary, higher for merges.
        first_message_id: First message of the range it covers.
        last_message_id: Last message of the range it covers.
        first_sequence: Created store sequence of its first message.
        last_sequence: Created store sequence of its last message.
        message_count: Messages in the range.
        start: Time of its first message (ISO-8601, UTC), or None when no longer visible.
        end: Time of its last message (ISO-8601, UTC), or None when no longer visible.
        score: Relevance, higher is better.
        snippet: At most 32 words (and 400 characters) around the best match, matched words marked
            ``**like this**``; never the whole summary.
        parent_id: The summary that merged it, or None (a root).
    """

    model_config = ConfigDict(frozen=True)

    summary_id: str
    level: int
    first_message_id: str
    last_message_id: str
    first_sequence: int
    last_sequence: int
    message_count: int
    start: str | None
    end: str | None
    score: float
    snippet: str
    parent_id: str | None


class SummaryTextSearchResult(BaseModel):
    """Result of ``search_summary_text``.

    Attributes:
        query: The query searched (at most 400 characters shown).
        namespace: The manager's namespace.
        branch: The branch searched.
        hits: The matching summaries, best first.
    """

    model_config = ConfigDict(frozen=True)

    query: str
    namespace: str
    branch: str
    hits: list[SummaryTextHit]


class SummarySearchResult(BaseModel):
    """Result of ``search_summaries``.

    Attributes:
        results: The matching summaries, best first, as the manager returns them (JSON data).
    """

    model_config = ConfigDict(frozen=True)

    results: list[dict[str, Any]]


class GetSummaryResult(BaseModel):
    """Result of ``get_summary``.

    Attributes:
        summary: The summary as the manager returns it (JSON data).
    """

    model_config = ConfigDict(frozen=True)

    summary: dict[str, Any]


def _jsonable(value: Any) -> dict[str, Any]:
    """A manager's result as a JSON object (pydantic models, dataclasses, ``to_dict()`` objects, mappings)."""
    if isinstance(value, BaseModel):
        data: Any = value.model_dump(mode="json")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = dataclasses.asdict(value)
    elif hasattr(value, "to_dict"):
        data = value.to_dict()
    elif isinstance(value, Mapping):
        data = dict(value)
    else:
        data = {"value": value}
    return data if isinstance(data, dict) else {"value": data}


class ToolBackend:
    """The tools' implementation over one store.

    Args:
        store: The store (closed by :meth:`close` only when ``owns_store``).
        provider: Synthesizer for briefs (None: the offline default).
        allow_verification: Let ``journal_append`` write ``verification`` entries (off by default: workers
            talk over MCP, and only the harness runs task conditions).
        harness_authors: Authors allowed to write verifications when they are allowed at all.
        owns_store: Close the store in :meth:`close`.
        head_key: Key of the execution journal's signed heads (see ``context-journal verify``); None
            reads ``CONTEXT_JOURNAL_HEAD_KEY`` from the environment, as the CLI does, so a server on a
            signed store signs what it appends.
    """

    def __init__(
        self,
        store: Store,
        *,
        provider: Provider | None = None,
        allow_verification: bool = False,
        harness_authors: Sequence[str] = ("harness",),
        owns_store: bool = False,
        reader: str | None = None,
        compression: Literal["off", "inline", "workers"] = "off",
        summarizer: Provider | None = None,
        head_key: str | bytes | None = None,
    ) -> None:
        self.store = store
        self.reader = reader
        self.compression = compression
        self.summarizer = summarizer
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        key = head_key if head_key is not None else os.environ.get(HEAD_KEY_ENV) or None
        self.journal = ExecutionJournal(store, provider=provider, harness_authors=harness_authors, head_key=key)
        self.allow_verification = allow_verification
        self._owns_store = owns_store
        self._managers: dict[tuple[str | None, str], ContextManager] = {}
        self._may_claim: set[tuple[str | None, str]] = set()  # managers checked for a compile or a write
        self._targets: list[tuple[str | None, str]] = []
        self._scanned_at = float("-inf")
        self._manager_lock = threading.RLock()  # tools run on worker threads; managers are not shared across them

    def close(self) -> None:
        """Stop the background compression, close the managers, and the store when this backend owns it."""
        self.stop_background()
        with self._manager_lock:
            for cm in self._managers.values():
                cm.close()
            self._managers.clear()
            self._may_claim.clear()
        if self._owns_store:
            self.store.close()

    def _manager(self, namespace: str | None, branch: str, write: bool = False, claims: bool = True) -> ContextManager:
        """The manager of ``(namespace, branch)``; a namespace with a message slot of its own (an imported
        conversation) reads and writes that slot, as the command line's ``--namespace`` does.

        A read of a namespace or branch that does not exist is an error listing those that do (a mistyped
        namespace never reads the shared slot); a write creates the namespace. The manager reads as the
        server's reader (``--reader``); without one, a namespace that records a reader is refused. A
        reader-bound server given no namespace uses the one named after its reader (it reads the shared
        message slot as that reader, and never claims the host's ``default``). ``claims=False`` (a search,
        a listing: nothing that compiles or writes) lets a reader-bound server read the host's namespace
        as its reader sees it, as the command line's ``--reader`` does; compiling or writing it is refused.

        Raises:
            LookupError: the branch does not exist.
            NamespaceNotFoundError: a read of a namespace that does not exist.
            PermissionError: the namespace belongs to a reader this server is not bound to.
        """
        if namespace is None and self.reader is not None:
            # A reader-bound server's own namespace (over the shared message slot), never the host's
            # default: a compile there would claim it for the reader and lock the host out.
            namespace = self.reader
        key = (namespace, branch)
        cm = self._managers.get(key)
        if cm is not None and (not claims or key in self._may_claim):
            return cm
        try:
            branch_id = self.store.get_branch(branch).id
        except BranchNotFoundError:
            names = ", ".join(b.name for b in self.store.list_branches())
            raise LookupError(f"no live branch named {branch!r}; the branches are: {names}") from None
        created = not namespace_exists(self.store, namespace, branch)
        if created and not write and namespace != self.reader:  # the server's own namespace is no typo
            require_namespace(self.store, namespace, branch)
        ns = namespace or "default"
        owner = recorded_reader(self.store, branch_id, ns)
        if claims and self.reader is not None and owner is None and not created:
            problem = host_claim_problem(self.store, branch_id, ns, self.reader)
            if problem is not None:
                raise PermissionError(problem)
        if claims:
            self._may_claim.add(key)
        if cm is not None:
            return cm
        if self.reader is None and owner is not None:
            raise PermissionError(
                f"namespace {ns!r} belongs to reader {owner!r} and this server is bound to no reader; restart it "
                f"with --reader {owner} to read as that reader, or use another namespace"
            )
        cm = ContextManager.open(
            store=self.store,
            namespace=namespace,
            branch=branch,
            view_reader=self.reader,
            summarizer=self.summarizer,
            compression="workers" if self.compression == "workers" else "inline",
        )
        if created and namespace:
            with self.store.transaction() as tx:
                tx.put_state(branch_id, f"{namespace}/{NAMESPACE_MARK}", {"created_by": "mcp"})
        self._managers[key] = cm
        return cm

    def _use_strategy(self, cm: ContextManager, name: str | None, budget: int, sized: bool = False) -> str:
        """Give ``cm`` the strategy ``name`` (None: the namespace's recorded one, else passthrough); a
        compressing one takes the settings ``compress`` recorded for it (so a compile sees the pending work
        ``compress`` left, whatever its budget), else — or with ``sized`` — settings sized for ``budget``;
        returns the name used."""
        from ..strategies import AutobiographicalConfig

        recorded = recorded_strategy(self.store, cm.namespace, cm.current_branch())
        if name is None:
            name = recorded["strategy"] if recorded and recorded["strategy"] in STRATEGY_NAMES else "passthrough"
        cfg = None
        if name in COMPRESSING:
            cfg = (None if sized else recorded_config(recorded, name)) or AutobiographicalConfig.for_budget(budget)
        wanted = (name, json.dumps(cfg.to_dict(), sort_keys=True) if cfg is not None else "")
        if getattr(cm, "_mcp_strategy", None) == wanted:
            return name
        cm.set_strategy(strategy_by_name(name, cfg))
        cm._mcp_strategy = wanted  # type: ignore[attr-defined]
        return name

    # ---- compression -----------------------------------------------------------------------------------

    def compress(
        self, namespace: str | None = None, branch: str = ROOT_BRANCH, max_calls: int = 20, budget: int | None = None
    ) -> CompressResult:
        """Run at most ``max_calls`` units of compression work on a namespace (its recorded strategy, else
        the autobiographical one sized for ``budget`` or 4,000 tokens), or only queue it when the server
        leaves compression to workers; report what is pending."""
        with self._manager_lock:
            cm = self._manager(namespace, branch)
            self._compressing(cm, namespace, branch, budget)
            stats = cm.compression_stats.snapshot()
            if self.compression == "workers":
                from ..workers import enqueue

                enqueue(cm)
            else:
                cm.drain(max_units=max_calls, wait=False)
            after = cm.compression_stats
            work = cm.pending_work()
            return CompressResult(
                namespace=cm.namespace,
                branch=branch,
                mode="workers" if self.compression == "workers" else "inline",
                calls=after.calls - stats.calls,
                summaries=after.summaries_total + after.parts - stats.summaries_total - stats.parts,
                input_tokens=after.input_tokens - stats.input_tokens,
                output_tokens=after.output_tokens - stats.output_tokens,
                pending={"ready": len(work.ready), "waiting": len(work.waiting), "stuck": len(work.stuck)},
                done=not work.ready and not work.waiting,
            )

    def background_step(self) -> bool:
        """One unit of compression on the first namespace with ready work. Returns True when a unit was
        done.

        The namespaces are those of every live branch that this server reads as (the namespace records
        this server's reader, or none for a server bound to no reader; a reader-bound server never claims
        a namespace in the background), and that record a compressing strategy or none: a namespace that
        records none gets the autobiographical strategy sized for 4,000 tokens, recorded, as
        ``compress`` does (before, a freshly imported store was never compressed until a
        request named a strategy). Managers that requests opened with a compressing strategy come first.
        """
        with self._manager_lock:
            for cm in list(self._managers.values()):
                if getattr(cm, "_mcp_strategy", ("", 0))[0] not in COMPRESSING:
                    continue
                if cm.tick().progressed:
                    return True
            for namespace, branch in self._background_targets():
                try:
                    cm = self._manager(namespace, branch)
                    if getattr(cm, "_mcp_strategy", ("", 0))[0] not in COMPRESSING:
                        self._compressing(cm, namespace, branch, None)
                    if cm.tick().progressed:
                        return True
                except (ContextJournalError, LookupError, PermissionError) as exc:  # gone or claimed since the scan
                    _log.debug("background compression skipped %s on %s: %s", namespace or "default", branch, exc)
        return False

    def _background_targets(self) -> list[tuple[str | None, str]]:
        """``(namespace, branch)`` of the namespaces the background compresses (see
        :meth:`background_step`), scanned at most every 10 seconds."""
        now = time.monotonic()
        if now - self._scanned_at < 10.0:
            return self._targets
        found: list[tuple[str | None, str]] = []
        for b in self.store.list_branches():
            for ns in list_namespaces(self.store, b.name):
                if recorded_reader(self.store, b.id, ns) != self.reader:
                    continue  # another reader's (or, for a reader-bound server, one it has not claimed)
                recorded = recorded_strategy(self.store, ns, b.name)
                if recorded is None or recorded["strategy"] in COMPRESSING:
                    found.append((None if ns == "default" else ns, b.name))
        self._targets, self._scanned_at = found, now
        return found

    def _compressing(self, cm: ContextManager, namespace: str | None, branch: str, budget: int | None) -> str:
        """Give ``cm`` the namespace's recorded compressing strategy, else the autobiographical one sized
        for ``budget`` (or the recorded budget, or 4,000 tokens), and record it when the namespace records
        another (so ``compile_context`` and the command line default to it). Returns its name."""
        recorded = recorded_strategy(self.store, cm.namespace, branch)
        name = recorded["strategy"] if recorded and recorded["strategy"] in COMPRESSING else "autobiographical"
        size = budget or (int(recorded.get("budget") or COMPRESS_BUDGET) if recorded else COMPRESS_BUDGET)
        self._use_strategy(cm, name, size, sized=budget is not None)
        record = strategy_record(cm.strategy, size, self.compression)
        if record is not None:
            record_strategy(self.store, cm.namespace, branch, record)
        return name

    def start_background(self, calls_per_second: float = 2.0) -> None:
        """Compress in a background thread between requests (``compression="inline"``): at most
        ``calls_per_second`` units, idle-polling once a second; :meth:`close` stops it."""
        if self.compression != "inline" or self._thread is not None:
            return
        pause = 1.0 / max(0.01, calls_per_second)

        def run() -> None:
            while not self._stop.is_set():
                try:
                    worked = self.background_step()
                except Exception:  # a failing unit is recorded by the driver; keep serving
                    worked = False
                self._stop.wait(pause if worked else max(pause, 1.0))

        self._thread = threading.Thread(target=run, name="context-journal-compress", daemon=True)
        self._thread.start()

    def stop_background(self, timeout: float = 10.0) -> None:
        """Stop the background compression (after the unit in progress)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    # ---- journal tools -----------------------------------------------------------------------------

    def journal_append(
        self,
        project: str,
        kind: str,
        body: dict[str, Any],
        author: str,
        idempotency_key: str,
        expected_seq: int | None = None,
    ) -> AppendOutcome:
        """See :meth:`ExecutionJournal.append`.

        Raises:
            PermissionError: a ``verification`` while they are not allowed over MCP.
        """
        if kind == "verification" and not self.allow_verification:
            raise PermissionError(
                "verification entries are written by the harness through the Python API; this server does not "
                "accept them (start it with --allow-verification to change that)"
            )
        return self.journal.append(project, kind, body, author, idempotency_key, expected_seq)

    def _require_project(self, project: str) -> None:
        """Refuse a project with no entry (a typo must not read as an empty, healthy project).

        Raises:
            LookupError: naming the projects the store holds.
        """
        if self.journal.head_seq(project) > 0:
            return
        known = self.journal.projects()
        listed = ", ".join(known[:20]) + (f" (+{len(known) - 20} more)" if len(known) > 20 else "")
        raise LookupError(
            f"no project {project!r} in this store; "
            + (f"the projects are: {listed}" if known else "it holds none yet")
        )

    def get_project_summaries(
        self, project: str, limit: int = 10, order: Literal["desc", "asc"] = "desc", before_seq: int | None = None
    ) -> SummaryPage:
        """See :meth:`ExecutionJournal.get_project_summaries`.

        Raises:
            LookupError: the project has no entry.
        """
        self._require_project(project)
        return self.journal.get_project_summaries(project, limit, order, before_seq)

    def get_entry(self, project: str, seq: int) -> Entry:
        """See :meth:`ExecutionJournal.get_entry`."""
        return self.journal.get_entry(project, seq)

    def get_brief(
        self,
        project: str,
        version: int | None = None,
        build: Literal["never", "if_needed", "always"] = "if_needed",
        mode: Literal["windowed", "cumulative"] = "windowed",
        threshold_tokens: int = 4000,
    ) -> BriefResult:
        """The current brief (or ``version``), building and storing a new one first when ``build`` says so
        (``if_needed``: when there is none or the trigger fires)."""
        self._require_project(project)
        trigger = self.journal.brief_needed(project, threshold_tokens)
        built = False
        if version is None and self.journal.head_seq(project) > 0:
            need = build == "always" or (build == "if_needed" and (trigger.needed or trigger.brief_version is None))
            if need:
                self.journal.build_brief(project, config=SynthesisConfig(mode=mode))
                built = True
                trigger = self.journal.brief_needed(project, threshold_tokens)
        brief = self.journal.get_brief(project, version)
        if version is not None and brief is None:
            raise KeyError(f"project {project!r} has no brief v{version}")
        return BriefResult(brief=brief, built=built, trigger=trigger)

    def check_drift(
        self, project: str, brief_version: int | None = None, stale_after: int | None = None
    ) -> DriftReport:
        """See :meth:`ExecutionJournal.check_drift`.

        Raises:
            LookupError: the project has no entry.
        """
        self._require_project(project)
        return self.journal.check_drift(project, brief_version=brief_version, stale_after=stale_after)

    # ---- context manager tools ------------------------------------------------------------------------

    def add_message(
        self,
        participant: str,
        content: str | list[dict[str, Any]],
        namespace: str | None = None,
        branch: str = ROOT_BRANCH,
        metadata: dict[str, Any] | None = None,
        id: str | None = None,
        hold: bool | float | None = None,
    ) -> AddMessageResult:
        """See :meth:`ContextManager.add_message`."""
        with self._manager_lock:
            cm = self._manager(namespace, branch, write=True)
            # The namespace's recorded strategy decides how a long message is stored (ingress sharding).
            self._use_strategy(cm, None, 4000)
            mid = cm.add_message(participant, content, metadata, id=id, hold=hold)
            return AddMessageResult(id=mid, namespace=cm.namespace, branch=branch, message_count=cm.message_count())

    def redact_message(
        self, message_id: str, reason: str, namespace: str | None = None, branch: str = ROOT_BRANCH
    ) -> RedactResult:
        """``ContextManager.redact`` (only registered as a tool when the server allows erasure).

        Raises:
            RedactionError: a reader-bound server, or an empty reason.
            MessageNotFoundError: the namespace's slot never held the message.
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch)
            done = cm.redact(message_id, reason=reason, by="mcp")
            for other in self._managers.values():  # the others drop what they cached of it
                if other is not cm:
                    other.forget_erased(done.versions)
            return RedactResult(
                message_id=done.message_id,
                sequence=done.sequence,
                versions=list(done.versions),
                derived=list(done.derived),
                reason=done.reason,
                notes=list(done.notes),
            )

    def pin_message(
        self, message_id: str, pinned: bool, namespace: str | None = None, branch: str = ROOT_BRANCH
    ) -> PinsResult:
        """``ContextManager.pin`` (``pinned``) or ``unpin``.

        Raises:
            MessageNotFoundError: no visible message has the id (pinning; unpinning an id that is neither
                pinned nor a message).
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch)
            seq = cm.pin(message_id) if pinned else cm.unpin(message_id)
            return _pins(cm, changed=seq > 0, sequence=seq or None)

    def mark_document(
        self, message_id: str, marked: bool, namespace: str | None = None, branch: str = ROOT_BRANCH
    ) -> DocumentsResult:
        """``ContextManager.mark_document`` (``marked``) or ``unmark_document``.

        Raises:
            MessageNotFoundError: no visible message has the id.
            ValueError: a tool call or result, or a message compression already chunked with others.
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch)
            seq = cm.mark_document(message_id) if marked else cm.unmark_document(message_id)
            return DocumentsResult(changed=seq > 0, sequence=seq or None, documents=cm.documents())

    def pin_range(
        self,
        first_id: str,
        last_id: str,
        name: str | None = None,
        level: int | None = None,
        max_level: int | None = None,
        namespace: str | None = None,
        branch: str = ROOT_BRANCH,
    ) -> PinsResult:
        """``ContextManager.pin_range``; a summary ``level`` is checked against the strategy the namespace
        records (``compress`` records its compressing strategy; what ``compile_context`` uses by default).

        Raises:
            MessageNotFoundError: ``first_id`` or ``last_id`` is not a visible message.
            ValueError: the range or a setting is refused (see ``pin_range``).
            PinUnsupportedError: a level the strategy cannot render.
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch)
            if level:
                self._use_strategy(cm, None, COMPRESS_BUDGET)  # the recorded strategy, else passthrough
            before = {p.pin_id for p in cm.list_pins()}
            pin_id = cm.pin_range(first_id, last_id, name=name, level=level, max_level=max_level)
            return _pins(cm, changed=pin_id not in before, sequence=None, pin_id=pin_id)

    def hot_context(
        self, changes: Mapping[str, int], namespace: str | None = None, branch: str = ROOT_BRANCH
    ) -> HotContextResult:
        """``ContextManager.set_hot_context(**changes)`` (nothing written when ``changes`` is empty) on the
        namespace's recorded compressing strategy (else the autobiographical one), then ``hot_context()``.

        Raises:
            TypeError: a setting that cannot change at run time.
            ValueError: a value the strategy's settings refuse.
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch, write=bool(changes), claims=bool(changes))
            self._compressing(cm, namespace, branch, None)
            seq = cm.set_hot_context(**changes) if changes else 0
            return HotContextResult(changed=seq > 0, sequence=seq or None, hot_context=cm.hot_context())

    def hold_compression(
        self,
        message_id: str,
        held: bool,
        timeout_seconds: float | None = None,
        namespace: str | None = None,
        branch: str = ROOT_BRANCH,
    ) -> HoldsResult:
        """``ContextManager.hold_compression`` (``held``) or ``release_compression``.

        Raises:
            MessageNotFoundError: no visible message has the id (holding).
            ValueError: ``timeout_seconds`` is not a number of seconds in (0, one year].
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch)
            if held:
                cm.hold_compression(message_id, timeout_seconds=timeout_seconds)
            else:
                cm.release_compression(message_id)
            driver = cm.compressor
            return HoldsResult(held=sorted(driver.compression_log().active_holds(driver.clock())))

    def list_pins(self, namespace: str | None = None, branch: str = ROOT_BRANCH) -> PinsResult:
        """``ContextManager.pins()``."""
        with self._manager_lock:
            return _pins(self._manager(namespace, branch, claims=False), changed=False, sequence=None)

    def set_fact(
        self, key: str, text: str | None, namespace: str | None = None, branch: str = ROOT_BRANCH
    ) -> FactsResult:
        """``ContextManager.set_fact(key, text)``, or ``clear_fact(key)`` when ``text`` is None.

        Raises:
            ValueError: a key or text :meth:`ContextManager.set_fact` refuses.
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch, write=True)
            seq = cm.set_fact(key, text) if text is not None else cm.clear_fact(key)
            return FactsResult(changed=bool(seq), sequence=seq or None, facts=dict(cm.working_state().facts))

    def get_working_state(
        self, namespace: str | None = None, branch: str = ROOT_BRANCH, limit: int = 50
    ) -> WorkingStateResult:
        """``ContextManager.working_state()``, each list cut to ``limit`` items (the newest commands and
        errors, the most recent files, the best ranked identifiers)."""
        from ..state.render import render_state

        with self._manager_lock:
            cm = self._manager(namespace, branch, claims=False)
            state = cm.working_state()
            data = state.to_dict()
            for key in ("files", "identifiers"):
                data[key] = data[key][:limit]
            for key in ("commands", "errors"):
                data[key] = data[key][-limit:]
            block = render_state(state, 1 << 30, lambda t: 0)
            return WorkingStateResult(namespace=cm.namespace, branch=branch, state=data, block=block)

    def compile_context(
        self,
        max_tokens: int,
        reserve_for_response: int = 0,
        namespace: str | None = None,
        branch: str = ROOT_BRANCH,
        system: str | None = None,
        format: Literal["anthropic", "openai", "openai-responses"] = "anthropic",
        journal_project: str | None = None,
        journal_tokens: int = 1500,
        query: str | None = None,
        recall_auto: bool = False,
        strategy: str | None = None,
        ledger_share: float | None = None,
        auxiliary_namespaces: list[str] | None = None,
    ) -> CompiledContext:
        """See :meth:`ContextManager.compile`; ``journal_project`` injects that project's harness view
        (:meth:`ExecutionJournal.render_for_harness`, at most ``journal_tokens``) into the system prompt;
        ``query`` (or ``recall_auto``: the newest user turn) adds a recall section; ``ledger_share`` fixes
        the working-state block's share of the budget for this call (0..0.9; 0: none);
        ``auxiliary_namespaces`` merges those namespaces' messages read-only into the namespace's compiles
        (:attr:`ContextManager.auxiliary_views`: recorded for the namespace by the first call that names
        them; later calls may omit them).

        Raises:
            ValueError: both ``query`` and ``recall_auto`` given, an empty query, ``ledger_share``
                outside 0..0.9, or an auxiliary namespace that reads the compiled namespace's own slot
                (or has none of its own).
            AuxiliaryViewsConflictError: the namespace records other auxiliary namespaces.
            LookupError: ``journal_project`` has no entry (the error names the projects there are).
            NamespaceNotFoundError: an auxiliary namespace does not exist.
        """
        if ledger_share is not None and not 0 <= ledger_share <= 0.9:
            raise ValueError(f"ledger_share must be within 0..0.9, got {ledger_share}")
        if query is not None and recall_auto:
            raise ValueError("give query or recall_auto, not both")
        injections = []
        view_tokens: int | None = None
        if journal_project is not None:
            self._require_project(journal_project)  # a typo must not inject an empty project's view
            view = self.journal.render_for_harness(journal_project, journal_tokens)
            injections.append(view.to_injection())
            view_tokens = view.tokens
        if strategy is not None and strategy not in STRATEGY_NAMES:
            raise ValueError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGY_NAMES)}")
        with self._manager_lock:
            cm = self._manager(namespace, branch)
            used = self._use_strategy(cm, strategy, max(1, max_tokens - reserve_for_response))
            ledger = cm.ledger_config
            if ledger_share is not None:  # for this call only (the manager serves later calls too)
                cm.ledger_config = dataclasses.replace(ledger, share=ledger_share, share_long=ledger_share)
            try:
                if auxiliary_namespaces is not None:  # recorded for the namespace (refused when it records others)
                    cm.auxiliary_views = [{"namespace": name} for name in auxiliary_namespaces]
                result = cm.compile(
                    max_tokens,
                    reserve_for_response,
                    system,
                    injections or None,
                    query=query,
                    recall="auto" if recall_auto else None,
                )
                lag = self._lag_notice(cm, result.unsummarised_cut)
            except OverBudgetError as exc:
                chunks = exc.parts.get("pending chunks")
                if not chunks:
                    # The figure an MCP client can act on (the message once said only "raise max_tokens..."),
                    # and, with summaries sized for a larger compile, the compress call that resizes them.
                    # The budget a preview found to fit (the figure is a lower bound, or the smallest context
                    # at this budget: a review followed "62 would fit" to 62, 69 and 71 before one fit).
                    fits = fitting_budget(
                        exc,
                        reserve_for_response,
                        lambda window: cm.preview_context(
                            window,
                            reserve_for_response,
                            system,
                            injections or None,
                            query=query,
                            recall="auto" if recall_auto else None,
                        ),
                        stop=(ContextJournalError,),
                    )
                    needs = (
                        f"the context needs {'at least ' if exc.lower_bound else ''}{exc.actual:,} tokens plus "
                        f"reserve_for_response={reserve_for_response:,}"
                    )
                    if fits is not None:
                        advice = f"max_tokens of at least {fits:,} fits ({needs})"
                    elif exc.actual + reserve_for_response > MAX_TOKEN_COUNT:
                        # (No max_tokens the tool takes can hold it: a review was advised a max_tokens over the
                        # tool's own limit after reserve_for_response=99,999,990.)
                        advice = (
                            f"lower reserve_for_response ({reserve_for_response:,}): max_tokens is at most "
                            f"{MAX_TOKEN_COUNT:,} ({needs})"
                        )
                    else:
                        advice = f"max_tokens of more than {exc.actual + reserve_for_response:,} is needed ({needs})"
                    if used in COMPRESSING:
                        advice += (
                            f", or call the compress tool with budget={max(100, max_tokens - reserve_for_response)}"
                            " to size the summaries for this budget"
                        )
                    raise OverBudgetError(
                        exc.budget, exc.actual, exc.parts, exc.what, f"{advice}; or shorten the system prompt"
                    ) from None
                remedy = self._lag_remedy()
                rest = exc.parts.get(ONCE_SUMMARISED_PART)
                also = (
                    f"; even then the rest needs {'at least ' if exc.lower_bound else ''}{rest:,} tokens: "
                    "raise max_tokens to at least "
                    f"{rest + reserve_for_response:,}"
                    if rest is not None
                    else ", or compile with another strategy"
                )
                raise OverBudgetError(
                    exc.budget,
                    exc.actual,
                    exc.parts,
                    exc.what,
                    f"compression lags: {chunks} chunk{'s' if chunks != 1 else ''} "
                    f"({exc.parts.get('pending tokens', 0):,} tokens) wait to be summarised; {remedy}{also}",
                ) from None
            finally:
                cm.ledger_config = ledger
            markers_dropped: list[str] = []
            if format == "openai":
                messages = result.to_openai()
                system_blocks: list[dict[str, Any]] = []
            elif format == "openai-responses":
                messages = result.to_openai_responses()  # Responses API input items
                system_blocks = []
            else:
                with warnings.catch_warnings():  # (reported in the reply, not as a warning on the server's stderr)
                    warnings.simplefilter("ignore", CacheMarkersDroppedWarning)
                    params = result.to_anthropic()
                markers_dropped.extend(params.cache_markers_dropped)
                messages = list(params.get("messages", []))
                raw_system = params.get("system") or []
                system_blocks = (
                    [{"type": "text", "text": raw_system}] if isinstance(raw_system, str) else list(raw_system)
                )
        return CompiledContext(
            format=format,
            tokens=result.tokens,
            budget=result.budget,
            compile_id=result.compile_id,
            system=system_blocks,
            messages=messages,
            repairs=[r.to_dict() for r in result.repairs],
            dropped=result.dropped,
            journal_tokens=view_tokens,
            strategy=used,
            parts=dict(result.parts),
            recall=dict(result.recall) if result.recall is not None else None,
            cache_markers_dropped=markers_dropped,
            compression_lags=lag,
        )

    def _lag_notice(self, cm: ContextManager, cut: int) -> str | None:
        """What ``compile_context`` says when it cut ``cut`` messages not summarised yet to fit: what
        summarises them, or why nothing can yet (a compression hold; summary calls stuck; their chunk
        still filling, when a larger budget keeps them)."""
        if not cut:
            return None
        what = cut_phrase(cut)
        why, held = why_unsummarised(cm)  # a hold or stuck work keeps the server's workers off them too
        if why == "held":
            return (
                f"{what}; compression is held at {', '.join(held)}: call release_compression (or wait for "
                "the hold's timeout) to let them be summarised"
            )
        if why == "stuck":
            return f"{what}; their summary calls failed too often and are stuck (the compress tool reports them)"
        if why == "filling":
            return f"{what}; none is due to summarise yet (their chunk is still filling): raise max_tokens to keep them"
        return f"{what}; {self._lag_remedy()}"

    def _lag_remedy(self) -> str:
        """What summarises the messages a lagging compression left: the server's workers, or the caller."""
        if self.compression == "workers":
            return "the server's compression workers will summarise them (queued)"
        return "call the compress tool until it reports done"

    def search_messages(
        self,
        query: str,
        namespace: str | None = None,
        branch: str = ROOT_BRANCH,
        limit: int = 10,
        as_of: int | None = None,
        participants: Sequence[str] | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> MessageSearchResult:
        """See :meth:`ContextManager.search_messages`; each hit carries a bounded snippet, never the body.

        Raises:
            ValueError: an empty query, ``limit`` out of range, ``since``/``until`` not ISO-8601, or
                ``as_of`` negative or past the store's newest sequence.
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch, claims=False)
            check_as_of_written(cm.store.head_seq(), as_of)
            hits = cm.search_messages(
                query, limit=limit, as_of=as_of, participants=participants or None, since=since, until=until
            )
            return MessageSearchResult(
                query=shown_query(query),
                namespace=cm.namespace,
                branch=branch,
                hits=[
                    MessageHit(
                        message_id=h.message_id,
                        sequence=h.sequence,
                        participant=h.participant,
                        timestamp=h.timestamp.isoformat(),
                        score=round(h.score, 6),
                        snippet=h.snippet,  # at most SNIPPET_CHARS: recall.search.snippet bounds it
                    )
                    for h in hits
                ],
            )

    def search_summary_text(
        self,
        query: str,
        namespace: str | None = None,
        branch: str = ROOT_BRANCH,
        limit: int = 10,
        as_of: int | None = None,
    ) -> SummaryTextSearchResult:
        """See :meth:`ContextManager.search_summary_text`; each hit carries a bounded snippet, never the
        whole summary.

        Raises:
            ValueError: an empty query, ``limit`` out of range, or ``as_of`` negative or past the store's
                newest sequence.
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch, claims=False)
            check_as_of_written(cm.store.head_seq(), as_of)
            hits = cm.search_summary_text(query, limit=limit, as_of=as_of)
            return SummaryTextSearchResult(
                query=shown_query(query),
                namespace=cm.namespace,
                branch=branch,
                # The hit's JSON form (SummaryHit.to_dict: times as ISO-8601, score rounded), snippet bounded;
                # the fields the tool does not show (the record's sequence) are left out.
                hits=[SummaryTextHit.model_validate(h.to_dict()) for h in hits],  # snippets bounded by snippet()
            )

    def search_summaries(
        self,
        query: str | None = None,
        namespace: str | None = None,
        branch: str = ROOT_BRANCH,
        limit: int = 10,
        regex: str | None = None,
    ) -> SummarySearchResult:
        """``ContextManager.search_summaries(query, regex, limit)``: summaries holding ``query``
        (case-insensitive) and matching ``regex``, newest first.

        Raises:
            ToolUnavailableError: the manager has no summary search in this version.
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch, claims=False)
            search = getattr(cm, "search_summaries", None)
            if search is None:
                raise ToolUnavailableError(
                    "search_summaries needs ContextManager.search_summaries, which this version of context-journal "
                    "does not have yet (it comes with the autobiographical strategy)"
                )
            found = search(query, regex, limit=limit) if regex is not None else search(query, limit=limit)
            return SummarySearchResult(results=[_jsonable(s) for s in found])

    def get_summary(self, summary_id: str, namespace: str | None = None, branch: str = ROOT_BRANCH) -> GetSummaryResult:
        """``ContextManager.get_summary(summary_id)``.

        Raises:
            ToolUnavailableError: the manager has no summaries in this version.
            KeyError: no such summary.
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch, claims=False)
            get = getattr(cm, "get_summary", None)
            if get is None:
                raise ToolUnavailableError(
                    "get_summary needs ContextManager.get_summary, which this version of context-journal does not "
                    "have yet (it comes with the autobiographical strategy)"
                )
            found = get(summary_id)
            if found is None:
                raise KeyError(f"no summary with id {summary_id!r}")
            return GetSummaryResult(summary=_jsonable(found))


def _pins(cm: ContextManager, *, changed: bool, sequence: int | None, pin_id: str | None = None) -> PinsResult:
    """The pins of ``cm``'s namespace and branch as a tool result."""
    ranges = [PinnedRange(**p.row()) for p in cm.list_pins() if p.kind == "range"]
    return PinsResult(changed=changed, sequence=sequence, pins=cm.pins(), ranges=ranges, pin_id=pin_id)
