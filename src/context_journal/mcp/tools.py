"""What the MCP tools do, without the SDK: a thin layer over the Python API.

:class:`ToolBackend` holds one store, one :class:`~context_journal.journal.ExecutionJournal` over it and a
:class:`~context_journal.manager.ContextManager` per (namespace, branch), and has one method per tool. Each
method returns a typed result (a pydantic model: the tool's structured output) and lets library errors
propagate; :mod:`.server` turns them into tool errors with their message, at the edge.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..journal import AppendOutcome, Brief, BriefTrigger, DriftReport, Entry, ExecutionJournal, SummaryPage
from ..journal.synthesis import SynthesisConfig
from ..llm import Provider
from ..manager import ContextManager
from ..stores import ROOT_BRANCH, Store

__all__ = [
    "AddMessageResult",
    "BriefResult",
    "CompiledContext",
    "MessageHit",
    "MessageSearchResult",
    "PinsResult",
    "SummaryResult",
    "SummarySearchResult",
    "ToolBackend",
    "ToolUnavailableError",
]


class ToolUnavailableError(LookupError):
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


class PinsResult(BaseModel):
    """Result of ``pin_message``, ``unpin_message`` and ``list_pins``.

    Attributes:
        changed: True when the call changed the pins (False: already so, or a listing).
        sequence: Store sequence of the state record written, when one was.
        pins: The pinned message ids of the namespace and branch, in the order they were pinned.
    """

    model_config = ConfigDict(frozen=True)

    changed: bool
    sequence: int | None
    pins: list[str]


class CompiledContext(BaseModel):
    """Result of ``compile_context``.

    Attributes:
        format: ``anthropic`` or ``openai``.
        tokens: Estimated tokens of the context (``<= budget``).
        budget: ``max_tokens - reserve_for_response``, in tokens.
        compile_id: The compile's id.
        system: The system prompt (Anthropic format: text blocks; OpenAI: inside ``messages``).
        messages: The messages, in the provider's format.
        repairs: What was changed to make the context valid and fit.
        dropped: Messages of the view left out.
        journal_tokens: Tokens of the injected journal view, or None when none was asked for.
    """

    model_config = ConfigDict(frozen=True)

    format: Literal["anthropic", "openai"]
    tokens: int
    budget: int
    compile_id: str
    system: list[dict[str, Any]] = Field(default_factory=list)
    messages: list[dict[str, Any]]
    repairs: list[dict[str, Any]] = Field(default_factory=list)
    dropped: int = 0
    journal_tokens: int | None = None


SNIPPET_CHARS = 400
"""The longest snippet ``search_messages`` returns, in characters (a snippet is at most 32 words; this
also bounds words without spaces, such as a pasted blob)."""


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


def _bounded(snippet: str, limit: int = SNIPPET_CHARS) -> str:
    return snippet if len(snippet) <= limit else snippet[: limit - 1] + "…"


class SummarySearchResult(BaseModel):
    """Result of ``search_summaries``.

    Attributes:
        results: The matching summaries, best first, as the manager returns them (JSON data).
    """

    model_config = ConfigDict(frozen=True)

    results: list[dict[str, Any]]


class SummaryResult(BaseModel):
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
    """

    def __init__(
        self,
        store: Store,
        *,
        provider: Provider | None = None,
        allow_verification: bool = False,
        harness_authors: Sequence[str] = ("harness",),
        owns_store: bool = False,
    ) -> None:
        self.store = store
        self.journal = ExecutionJournal(store, provider=provider, harness_authors=harness_authors)
        self.allow_verification = allow_verification
        self._owns_store = owns_store
        self._managers: dict[tuple[str | None, str], ContextManager] = {}
        self._manager_lock = threading.RLock()  # tools run on worker threads; managers are not shared across them

    def close(self) -> None:
        """Close the managers, and the store when this backend owns it."""
        with self._manager_lock:
            for cm in self._managers.values():
                cm.close()
            self._managers.clear()
        if self._owns_store:
            self.store.close()

    def _manager(self, namespace: str | None, branch: str) -> ContextManager:
        """The manager of ``(namespace, branch)``; a namespace with a message slot of its own (an imported
        conversation) reads and writes that slot, as the command line's ``--namespace`` does."""
        key = (namespace, branch)
        cm = self._managers.get(key)
        if cm is None:
            isolate = bool(namespace) and f"messages/{namespace}" in self.store.list_slots()
            cm = ContextManager.open(store=self.store, namespace=namespace, branch=branch, isolate=isolate)
            self._managers[key] = cm
        return cm

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

    def get_project_summaries(
        self, project: str, limit: int = 10, order: Literal["desc", "asc"] = "desc", before_seq: int | None = None
    ) -> SummaryPage:
        """See :meth:`ExecutionJournal.get_project_summaries`."""
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
        """See :meth:`ExecutionJournal.check_drift`."""
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
    ) -> AddMessageResult:
        """See :meth:`ContextManager.add_message`."""
        with self._manager_lock:
            cm = self._manager(namespace, branch)
            mid = cm.add_message(participant, content, metadata, id=id)
            return AddMessageResult(id=mid, namespace=cm.namespace, branch=branch, message_count=cm.message_count())

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
            if not pinned and message_id not in cm.pins():
                cm.get_message(message_id)  # an unknown id is an error, not a silent no-op
            seq = cm.pin(message_id) if pinned else cm.unpin(message_id)
            return PinsResult(changed=seq > 0, sequence=seq or None, pins=cm.pins())

    def list_pins(self, namespace: str | None = None, branch: str = ROOT_BRANCH) -> PinsResult:
        """``ContextManager.pins()``."""
        with self._manager_lock:
            return PinsResult(changed=False, sequence=None, pins=self._manager(namespace, branch).pins())

    def compile_context(
        self,
        max_tokens: int,
        reserve_for_response: int = 0,
        namespace: str | None = None,
        branch: str = ROOT_BRANCH,
        system: str | None = None,
        format: Literal["anthropic", "openai"] = "anthropic",
        journal_project: str | None = None,
        journal_tokens: int = 1500,
        query: str | None = None,
        recall_auto: bool = False,
    ) -> CompiledContext:
        """See :meth:`ContextManager.compile`; ``journal_project`` injects that project's harness view
        (:meth:`ExecutionJournal.render_for_harness`, at most ``journal_tokens``) into the system prompt;
        ``query`` (or ``recall_auto``: the newest user turn) adds a recall section.

        Raises:
            ValueError: both ``query`` and ``recall_auto`` given, or an empty query.
        """
        if query is not None and recall_auto:
            raise ValueError("give query or recall_auto, not both")
        injections = []
        view_tokens: int | None = None
        if journal_project is not None:
            view = self.journal.render_for_harness(journal_project, journal_tokens)
            injections.append(view.to_injection())
            view_tokens = view.tokens
        with self._manager_lock:
            cm = self._manager(namespace, branch)
            result = cm.compile(
                max_tokens,
                reserve_for_response,
                system,
                injections or None,
                query=query,
                recall="auto" if recall_auto else None,
            )
            if format == "openai":
                messages = result.to_openai()
                system_blocks: list[dict[str, Any]] = []
            else:
                params = result.to_anthropic()
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
        )

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
            ValueError: an empty query, ``limit`` out of range, or ``since``/``until`` not ISO-8601.
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch)
            hits = cm.search_messages(
                query, limit=limit, as_of=as_of, participants=participants or None, since=since, until=until
            )
            return MessageSearchResult(
                query=_bounded(query),
                namespace=cm.namespace,
                branch=branch,
                hits=[
                    MessageHit(
                        message_id=h.message_id,
                        sequence=h.sequence,
                        participant=h.participant,
                        timestamp=h.timestamp.isoformat(),
                        score=round(h.score, 6),
                        snippet=_bounded(h.snippet),
                    )
                    for h in hits
                ],
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
            cm = self._manager(namespace, branch)
            search = getattr(cm, "search_summaries", None)
            if search is None:
                raise ToolUnavailableError(
                    "search_summaries needs ContextManager.search_summaries, which this version of context-journal "
                    "does not have yet (it comes with the autobiographical strategy)"
                )
            found = search(query, regex, limit=limit) if regex is not None else search(query, limit=limit)
            return SummarySearchResult(results=[_jsonable(s) for s in found])

    def get_summary(self, summary_id: str, namespace: str | None = None, branch: str = ROOT_BRANCH) -> SummaryResult:
        """``ContextManager.get_summary(summary_id)``.

        Raises:
            ToolUnavailableError: the manager has no summaries in this version.
            KeyError: no such summary.
        """
        with self._manager_lock:
            cm = self._manager(namespace, branch)
            get = getattr(cm, "get_summary", None)
            if get is None:
                raise ToolUnavailableError(
                    "get_summary needs ContextManager.get_summary, which this version of context-journal does not "
                    "have yet (it comes with the autobiographical strategy)"
                )
            found = get(summary_id)
            if found is None:
                raise KeyError(f"no summary with id {summary_id!r}")
            return SummaryResult(summary=_jsonable(found))
