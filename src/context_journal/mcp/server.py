"""The MCP server (official SDK ``mcp>=2.3,<3``, extra ``mcp``): tools over the journal and the managers.

Tools (each with a typed, structured result; an expected failure — an unknown entry, a refused body, a
stale brief version — is a tool error whose text says what went wrong and what to do):

* ``journal_append``, ``get_project_summaries``, ``get_entry``, ``get_brief``, ``check_drift`` — the
  execution journal (:class:`~context_journal.journal.ExecutionJournal`);
* ``add_message``, ``compile_context``, ``compress``, ``search_messages``, ``search_summary_text``,
  ``search_summaries``, ``get_summary``, ``pin_message``, ``pin_range``, ``mark_document``, ``unpin_message``,
  ``list_pins``, ``set_fact``, ``clear_fact``, ``get_working_state`` —
  context managers (:class:`~context_journal.manager.ContextManager`, one per namespace and branch; a
  namespace with a message slot of its own, such as an imported conversation, reads that slot).

The server is a thin shell: :class:`~.tools.ToolBackend` does the work through the Python API.

Transports: stdio (:func:`run_stdio`), and streamable HTTP (:func:`run_http`) bound to ``127.0.0.1`` by
default. Bound to any other address it requires a bearer token (``Authorization: Bearer <token>``); with a
token on a loopback address the token is required too.
"""

from __future__ import annotations

import gc
import hmac
import inspect
import io
import json
import re
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Annotated, Any, Literal, TextIO, TypeVar

from pydantic import BaseModel, Field, StrictBool, StrictFloat, StrictInt

from ..errors import ContextJournalError, MissingExtraError
from ..journal import AppendOutcome, DriftReport, Entry, SummaryPage
from ..llm import Provider
from ..stores import ROOT_BRANCH, Store, open_store
from ..tokens import MAX_TOKEN_COUNT
from .stdin_lines import MendedLines, mend_line, report_mended
from .tools import (
    AddMessageResult,
    BriefResult,
    CompiledContext,
    CompressResult,
    DocumentsResult,
    FactsResult,
    GetSummaryResult,
    HoldsResult,
    HotContextResult,
    MessageSearchResult,
    PinsResult,
    RedactResult,
    SummarySearchResult,
    SummaryTextSearchResult,
    ToolBackend,
    ToolUnavailableError,
    WorkingStateResult,
)

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations
except ImportError as _exc:  # pragma: no cover - depends on the extra
    raise MissingExtraError("mcp", "mcp") from _exc

__all__ = [
    "LOOPBACK_HOSTS",
    "MIN_TOKEN_LENGTH",
    "SERVER_NAME",
    "BearerTokenMiddleware",
    "MendedBodies",
    "build_server",
    "http_url",
    "is_loopback",
    "run_http",
    "run_stdio",
    "settle_heap",
    "token_problem",
]

SERVER_NAME = "context-journal"

T = TypeVar("T")

_EXPECTED = (ContextJournalError, ValueError, LookupError, PermissionError, re.error)
"""Failures the caller can act on: reported as tool errors with their message."""

Project = Annotated[str, Field(description="The project's slug (ASCII letters, digits, '.', '_', '-').")]
Namespace = Annotated[str | None, Field(description="The manager's namespace (default: the shared one).")]
Branch = Annotated[str, Field(description="The branch to read and write.")]

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
_APPEND = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)
_DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True)


def _message(exc: BaseException) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    return str(exc)


def _call(fn: Callable[[], T]) -> T:
    """Run a tool body; an expected failure becomes a :class:`ToolError` with its message."""
    try:
        result = fn()
        # A model's text content is compact JSON (the SDK would indent it: +17% for the client to read).
        return _compact(result) if isinstance(result, BaseModel) else result
    except ToolUnavailableError as exc:
        raise ToolError(str(exc)) from exc
    except _EXPECTED as exc:
        raise ToolError(f"{type(exc).__name__}: {_message(exc)}") from exc


def _plain_argument_errors(server: MCPServer[Any]) -> None:
    """Report a tool's argument errors as one plain sentence (no pydantic error links), and refuse an
    argument the tool does not take (a misspelt ``max_token`` is an error, not silently ignored)."""
    from pydantic import ConfigDict, ValidationError

    for registered in server._tool_manager.list_tools():
        meta = registered.fn_metadata  # the SDK reads arg_model live on each call
        loose = meta.arg_model
        meta.arg_model = type(
            loose.__name__,
            (loose,),
            {"model_config": ConfigDict(**{**loose.model_config, "extra": "forbid"}), "__module__": __name__},
        )
        original = registered.run

        async def run(*args: Any, _original: Any = original, _name: str = registered.name, **kwargs: Any) -> Any:
            try:
                return await _original(*args, **kwargs)
            except ToolError as exc:
                cause = exc.__cause__
                if not isinstance(cause, ValidationError):
                    raise
                problems = []
                for err in cause.errors(include_url=False):
                    where = ".".join(str(p) for p in err.get("loc", ()) if p != "arguments") or "arguments"
                    if err.get("type") == "extra_forbidden":
                        problems.append(f"unknown argument {where!r}")
                        continue
                    problems.append(f"argument {where!r}: {str(err.get('msg', 'invalid')).lower()}")
                raise ToolError(f"{_name} was called with invalid arguments: {'; '.join(problems)}.") from None

        object.__setattr__(registered, "run", run)


def _compact(model: Any) -> Any:
    """A tool result whose text content is compact JSON (the structured content is the model itself)."""
    from mcp.types import CallToolResult, TextContent

    if isinstance(model, CallToolResult):
        return model
    data = model.model_dump(mode="json")
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def build_server(
    store: Store | str,
    *,
    provider: Provider | None = None,
    allow_verification: bool = False,
    harness_authors: tuple[str, ...] = ("harness",),
    reader: str | None = None,
    compression: Literal["off", "inline", "workers"] = "off",
    summarizer: Provider | None = None,
    allow_redact: bool = False,
) -> tuple[MCPServer[Any], ToolBackend]:
    """The MCP server over one store.

    Args:
        store: An open store (left open) or a location to open (closed by ``backend.close()``).
        provider: Synthesizer for briefs (None: the offline default).
        allow_verification: Accept ``verification`` entries through ``journal_append``.
        harness_authors: Authors allowed to write them.
        reader: The reader every call reads as (``mcp serve --reader``); a call that names no namespace
            uses the namespace named after the reader (the shared messages as that reader sees them; the
            host's ``default`` is never claimed). None: no reader, and a namespace that records one is
            refused (never a silent fallback to its reader).
        compression: ``"off"``, ``"inline"`` (the ``compress`` tool and :meth:`ToolBackend.start_background`
            summarise in this process) or ``"workers"`` (compiles and ``compress`` only queue the work).
        summarizer: The model that writes summaries (default: the offline one).
        allow_redact: Register the ``redact_message`` tool (erasure). Off by default: a tool server must not
            let a model erase history unless its operator chose to; never on a reader-bound server.

    Returns:
        The server and its backend (call ``backend.close()`` when done).

    Raises:
        StoreError: the store cannot be opened.
    """
    owns = not isinstance(store, Store)
    st = open_store(store) if owns else store
    assert isinstance(st, Store)
    backend = ToolBackend(
        st,
        provider=provider,
        allow_verification=allow_verification,
        harness_authors=harness_authors,
        owns_store=owns,
        reader=reader,
        compression=compression,
        summarizer=summarizer,
    )
    from .._version import __version__

    server: MCPServer[Any] = MCPServer(
        SERVER_NAME,
        version=__version__,
        instructions=(
            "Execution journal and context compiler. Workers append handoffs with journal_append (retry with the "
            "same idempotency_key; a stale expected_seq answers status 'conflict'). Harnesses read "
            "get_project_summaries, get_brief and check_drift, never raw step reports. Never re-propose an "
            "active rule-out."
        ),
        warn_on_duplicate_tools=True,
        log_level="WARNING",
    )

    def tool(annotations: ToolAnnotations) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """Register a tool; its description is its docstring without the source indentation."""

        def register(fn: Callable[..., T]) -> Callable[..., T]:
            server.add_tool(fn, annotations=annotations, description=inspect.cleandoc(fn.__doc__ or ""))
            return fn

        return register

    @tool(_APPEND)
    def journal_append(
        project: Project,
        kind: Annotated[
            Literal["plan", "plan_revision", "step", "handoff", "reverse_ruleout", "verification"],
            Field(description="The entry kind."),
        ],
        body: Annotated[dict[str, Any], Field(description="The entry body; unknown fields are refused.")],
        author: Annotated[str, Field(description="Who writes it.")],
        idempotency_key: Annotated[
            str, Field(description="Unique per project; retry a failed or unanswered call with the same key.")
        ],
        expected_seq: Annotated[
            int | None,
            Field(
                strict=True,
                ge=0,
                le=2**62,
                description="The head seq you last saw (0 for an empty project); omit to append anyway.",
            ),
        ] = None,
    ) -> AppendOutcome:
        """Append an entry to a project's execution journal.

        status is 'appended', 'duplicate' (the key was used before for the same entry: the original is
        returned) or 'conflict' (expected_seq is stale: nothing written; head_seq is the current head).
        The body of each kind (unknown fields are refused):
        - plan: {"goal", "tasks": [{"id", "title", "conditions": [{"id", "description", "check"?}]}]}
        - plan_revision: {"replaces": seq of the plan or revision replaced, "reason", "goal"?, "tasks": [as in plan]}
        - step: {"report": text (a step report, bounded), "task_id"?}
        - handoff: {"goal", "state", "next_step", "ruled_out": [{"id", "item", "reason"}], "done_claims":
          [task ids], "refs": [text]}
        - reverse_ruleout: {"id": the rule-out's id, "reason"}
        - verification: {"task_id", "results": [{"condition_id", "passed": true|false, "detail"?}]} (harness
          authors only, and only when the server allows it)
        Fields marked ? are optional.
        """
        return _call(lambda: backend.journal_append(project, kind, body, author, idempotency_key, expected_seq))

    @tool(_READ_ONLY)
    def get_project_summaries(
        project: Project,
        limit: Annotated[int, Field(strict=True, ge=1, le=50, description="Handoffs per page.")] = 10,
        order: Annotated[Literal["desc", "asc"], Field(description="How the chosen window is sorted.")] = "desc",
        before_seq: Annotated[
            int | None,
            Field(
                strict=True,
                ge=1,
                le=2**62,
                description="Only handoffs before this seq: pass next_before_seq to page back.",
            ),
        ] = None,
    ) -> SummaryPage:
        """Bounded per-step summaries (the newest `limit` handoffs before `before_seq`; `order` sorts that
        window), with the active rule-outs, task status, latest goal and next step, and a cursor."""
        return _call(lambda: backend.get_project_summaries(project, limit, order, before_seq))

    @tool(_READ_ONLY)
    def get_entry(
        project: Project, seq: Annotated[int, Field(strict=True, ge=1, description="The entry's seq.")]
    ) -> Entry:
        """One journal entry, with its body and hashes."""
        return _call(lambda: backend.get_entry(project, seq))

    @tool(_APPEND)
    def get_brief(
        project: Project,
        version: Annotated[
            int | None, Field(strict=True, ge=1, description="A stored version; omit for the current brief.")
        ] = None,
        build: Annotated[
            Literal["never", "if_needed", "always"],
            Field(description="Build a new brief first: never, when none exists or the trigger fires, or always."),
        ] = "if_needed",
        mode: Annotated[Literal["windowed", "cumulative"], Field(description="How a new narrative is written.")] = (
            "windowed"
        ),
    ) -> BriefResult:
        """The rolling brief: mechanical fields folded from the journal, a narrative whose claims cite entry
        seqs as [#n], and the findings of its checks."""
        return _call(lambda: backend.get_brief(project, version, build, mode))

    @tool(_READ_ONLY)
    def check_drift(
        project: Project,
        brief_version: Annotated[
            int | None, Field(strict=True, ge=1, description="The brief to check (default: current).")
        ] = None,
        stale_after: Annotated[
            int | None, Field(strict=True, ge=0, description="Entries a brief may lag the head.")
        ] = None,
    ) -> DriftReport:
        """Drift findings with evidence seqs: rule-outs dropped or invented, unverified done claims, a stale
        brief, uncited or wrongly cited claims, reconciliation against the journal."""
        return _call(lambda: backend.check_drift(project, brief_version, stale_after))

    @tool(_WRITE)
    def add_message(
        participant: Annotated[str, Field(description="Who says it: 'user', 'Claude', 'ann'...")],
        content: Annotated[str | list[dict[str, Any]], Field(description="Text, or content blocks.")],
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
        metadata: Annotated[dict[str, Any] | None, Field(description="Host data stored with it.")] = None,
        id: Annotated[str | None, Field(description="The message id (default: a fresh one).")] = None,
        hold: Annotated[
            StrictBool | StrictInt | StrictFloat | None,
            Field(
                description="Hold compression at this message as it is written: true until released, or a "
                "number of seconds (at most a year) after which the hold ends by itself.",
            ),
        ] = None,
    ) -> AddMessageResult:
        """Append a message to a context manager's journal."""
        return _call(lambda: backend.add_message(participant, content, namespace, branch, metadata, id, hold))

    @tool(_WRITE)
    def compile_context(
        max_tokens: Annotated[
            int, Field(strict=True, ge=1, le=MAX_TOKEN_COUNT, description="The model's context window, in tokens.")
        ],
        reserve_for_response: Annotated[
            int, Field(strict=True, ge=0, le=MAX_TOKEN_COUNT, description="Tokens kept free for the reply.")
        ] = 0,
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
        system: Annotated[str | None, Field(description="System prompt text placed first.")] = None,
        format: Annotated[
            Literal["anthropic", "openai", "openai-responses"],
            Field(description="Provider format (openai-responses: Responses API input items in messages)."),
        ] = "anthropic",
        journal_project: Annotated[
            str | None, Field(description="Inject this project's bounded journal view into the system prompt.")
        ] = None,
        journal_tokens: Annotated[
            int,
            Field(strict=True, ge=300, le=MAX_TOKEN_COUNT, description="Bound of the injected view, in tokens."),
        ] = 1500,
        query: Annotated[
            str | None,
            Field(
                description="Bring back the earlier messages that best match this text (a recall section within "
                "a share of the budget)."
            ),
        ] = None,
        recall_auto: Annotated[
            bool, Field(description="Without query: recall what the newest user turn asks about.")
        ] = False,
        strategy: Annotated[
            Literal["passthrough", "windowed", "autobiographical", "knowledge"] | None,
            Field(
                description="How to fit a long conversation: autobiographical/knowledge render the head, summaries "
                "and recent turns (run `compress` first); default: the namespace's recorded strategy, else "
                "passthrough."
            ),
        ] = None,
        ledger_share: Annotated[
            float | None,
            Field(
                ge=0,
                le=0.9,
                description="Share of the budget for the working-state block (files, commands, latest plan), "
                "0..0.9; 0: none; default: 15%, growing to 30% as the conversation grows.",
            ),
        ] = None,
        auxiliary_namespaces: Annotated[
            list[str] | None,
            Field(
                max_length=16,
                description="Merge these namespaces' messages read-only into the namespace's compiles, in the "
                "order they were appended (a side reader reading the main conversation; the namespace compiled "
                "needs a message slot of its own). Recorded for the namespace by the first call that names "
                "them; later calls (and compress) use them without naming them; other ones are refused.",
            ),
        ] = None,
    ) -> CompiledContext:
        """The context for the next model call within the budget, in the provider's format (compact JSON);
        with `query` (or `recall_auto`) it also recalls the earlier messages that best match it."""
        return _compact(  # type: ignore[no-any-return]  # compact JSON text; the structured result is the model
            _call(
                lambda: backend.compile_context(
                    max_tokens,
                    reserve_for_response,
                    namespace,
                    branch,
                    system,
                    format,
                    journal_project,
                    journal_tokens,
                    query,
                    recall_auto,
                    strategy,
                    ledger_share,
                    auxiliary_namespaces,
                )
            )
        )

    @tool(_WRITE)
    def compress(
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
        max_calls: Annotated[
            int, Field(strict=True, ge=1, le=500, description="At most this many summarizer calls.")
        ] = 20,
        budget: Annotated[
            int | None,
            Field(strict=True, ge=100, description="The compile budget summaries are sized for (default 4000)."),
        ] = None,
    ) -> CompressResult:
        """Summarise a namespace's long conversation (bounded work: at most max_calls summarizer calls), so
        compile_context with strategy autobiographical fits it in a small budget; reports what is pending
        (call again until done). A server started with --compress workers only queues the work."""
        return _call(lambda: backend.compress(namespace, branch, max_calls, budget))

    @tool(_READ_ONLY)
    def search_messages(
        query: Annotated[str, Field(description="Plain words to look for (no query syntax; stopwords ignored).")],
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
        limit: Annotated[int, Field(strict=True, ge=1, le=50, description="At most this many hits.")] = 10,
        as_of: Annotated[
            int | None, Field(strict=True, ge=0, description="Search the branch as it stood at this store sequence.")
        ] = None,
        participants: Annotated[list[str] | None, Field(description="Only messages by these participants.")] = None,
        since: Annotated[
            str | None, Field(description="Only messages written at or after this ISO-8601 date or time (UTC).")
        ] = None,
        until: Annotated[
            str | None, Field(description="Only messages written before this ISO-8601 date or time (UTC).")
        ] = None,
    ) -> MessageSearchResult:
        """Full-text search of a manager's messages, best first (score: higher is better). Each hit has the
        message id, sequence, participant, time and a short snippet with matched words marked **like this**;
        compile_context with `query` brings the matching turns back into the context."""
        return _call(
            lambda: backend.search_messages(query, namespace, branch, limit, as_of, participants, since, until)
        )

    @tool(_READ_ONLY)
    def search_summary_text(
        query: Annotated[str, Field(description="Plain words to look for (no query syntax; stopwords ignored).")],
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
        limit: Annotated[int, Field(strict=True, ge=1, le=50, description="At most this many hits.")] = 10,
        as_of: Annotated[
            int | None,
            Field(strict=True, ge=0, description="Search the summaries as they stood at this store sequence."),
        ] = None,
    ) -> SummaryTextSearchResult:
        """Full-text search of a manager's summaries (every level), best first (score: higher is better).
        Each hit has the summary id and level, the first and last message it covers (ids, sequences, dates)
        and a short snippet with matched words marked **like this**; get_summary returns the whole summary."""
        return _call(lambda: backend.search_summary_text(query, namespace, branch, limit, as_of))

    if allow_redact and reader is None:  # a reader-bound server could never use it: erasure is the host's

        @tool(_DESTRUCTIVE)
        def redact_message(
            message_id: Annotated[str, Field(description="The message to erase.")],
            reason: Annotated[str, Field(description="Why it is erased (kept in the redaction record).")],
            namespace: Namespace = None,
            branch: Branch = ROOT_BRANCH,
        ) -> RedactResult:
            """Erase a message everywhere the store holds it (every version, every branch, its search
            entries, and the summaries that cover it), keeping a redaction record with its id, place, the
            hash of what was removed and the reason. Irreversible."""
            return _call(lambda: backend.redact_message(message_id, reason, namespace, branch))

    @tool(_APPEND)
    def pin_message(
        message_id: Annotated[str, Field(description="The message to keep raw in every compile.")],
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
    ) -> PinsResult:
        """Pin a message: it stays raw in every compile of the namespace and branch (standing instructions,
        a spec, a key decision), with its tool call or result. Pinning a pinned message changes nothing."""
        return _call(lambda: backend.pin_message(message_id, True, namespace, branch))

    @tool(_APPEND)
    def pin_range(
        first_id: Annotated[str, Field(description="The range's first message.")],
        last_id: Annotated[str, Field(description="The range's last message (the first again for one).")],
        name: Annotated[str | None, Field(description="A label for the range (<= 200 characters).")] = None,
        level: Annotated[
            int | None,
            Field(strict=True, ge=0, le=64, description="Render it at exactly this summary level (0: raw)."),
        ] = None,
        max_level: Annotated[
            int | None, Field(strict=True, ge=0, le=64, description="Render it at this summary level or finer.")
        ] = None,
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
    ) -> PinsResult:
        """Pin the messages from first_id to last_id as one range: raw in every compile of the namespace and
        branch (a spec, a decision and its discussion), or at a summary level (level: exactly that one;
        max_level: that one or finer), until unpin_message of the returned pin_id. Pinning the same range
        with the same settings again returns its pin_id and changes nothing."""
        return _call(lambda: backend.pin_range(first_id, last_id, name, level, max_level, namespace, branch))

    @tool(_APPEND)
    def mark_document(
        message_id: Annotated[str, Field(description="The message holding a long reference text.")],
        unmark: Annotated[bool, Field(description="Undo the mark.")] = False,
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
    ) -> DocumentsResult:
        """Mark a message as a document (a spec, a manual, a pasted file): compiles keep it whole or as one
        summary, never excerpted and never summarised together with the conversation around it. Mark it
        before compression reaches it. unmark=true undoes the mark."""
        return _call(lambda: backend.mark_document(message_id, not unmark, namespace, branch))

    @tool(_APPEND)
    def unpin_message(
        message_id: Annotated[str, Field(description="The pinned message, or a pinned range's pin_id.")],
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
    ) -> PinsResult:
        """Unpin a message, or remove a pinned range by its pin_id; compiles treat them like any others again."""
        return _call(lambda: backend.pin_message(message_id, False, namespace, branch))

    @tool(_APPEND)
    def set_hot_context(
        head_window_tokens: Annotated[
            int | None, Field(strict=True, ge=0, le=MAX_TOKEN_COUNT, description="The raw head window, in tokens.")
        ] = None,
        recent_window_tokens: Annotated[
            int | None, Field(strict=True, ge=0, le=MAX_TOKEN_COUNT, description="The raw recent window, in tokens.")
        ] = None,
        target_chunk_tokens: Annotated[
            int | None,
            Field(strict=True, ge=1, le=MAX_TOKEN_COUNT, description="The size of chunks prepared for summarising."),
        ] = None,
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
    ) -> HotContextResult:
        """Change the windows of the namespace's compressing strategy at run time (what stays raw at the
        head and the end, and the size of the chunks made next), as a record of the branch that every
        compile and compression of it applies; settings not given keep their value. Chunks closed before
        keep their size."""
        given = {
            "head_window_tokens": head_window_tokens,
            "recent_window_tokens": recent_window_tokens,
            "target_chunk_tokens": target_chunk_tokens,
        }
        changes = {name: value for name, value in given.items() if value is not None}
        if not changes:
            raise ToolError("give at least one of head_window_tokens, recent_window_tokens, target_chunk_tokens")
        return _call(lambda: backend.hot_context(changes, namespace, branch))

    @tool(_READ_ONLY)
    def get_hot_context(namespace: Namespace = None, branch: Branch = ROOT_BRANCH) -> HotContextResult:
        """The windows of the namespace's compressing strategy in use on the branch, in tokens."""
        return _call(lambda: backend.hot_context({}, namespace, branch))

    @tool(_APPEND)
    def hold_compression(
        message_id: Annotated[str, Field(description="Compression keeps away from this message and what follows.")],
        timeout_seconds: Annotated[
            StrictInt | StrictFloat | None,
            Field(
                description="Seconds after which the hold ends by itself (at most a year); none: until released.",
            ),
        ] = None,
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
    ) -> HoldsResult:
        """Hold compression at a message (a tool loop still running, a document still being written): no
        summary covers it or anything after it until release_compression or the timeout. Holding again
        replaces the hold."""
        return _call(lambda: backend.hold_compression(message_id, True, timeout_seconds, namespace, branch))

    @tool(_APPEND)
    def release_compression(
        message_id: Annotated[str, Field(description="The held message.")],
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
    ) -> HoldsResult:
        """Release a compression hold (a message never held changes nothing)."""
        return _call(lambda: backend.hold_compression(message_id, False, None, namespace, branch))

    @tool(_READ_ONLY)
    def list_pins(namespace: Namespace = None, branch: Branch = ROOT_BRANCH) -> PinsResult:
        """The pinned message ids of a namespace on a branch, in the order they were pinned, and its pinned
        ranges."""
        return _call(lambda: backend.list_pins(namespace, branch))

    @tool(_APPEND)
    def set_fact(
        key: Annotated[str, Field(description="The fact's name (replaces the text the key held).")],
        text: Annotated[str, Field(description="What the working state carries under the key (<= 4,000 characters).")],
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
    ) -> FactsResult:
        """Carry a fact in the working state of a namespace and branch (a journal record): it is shown in
        every compile's working-state block, also when the whole conversation fits raw. Setting a key to the
        text it holds changes nothing."""
        return _call(lambda: backend.set_fact(key, text, namespace, branch))

    @tool(_APPEND)
    def clear_fact(
        key: Annotated[str, Field(description="The fact to remove.")],
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
    ) -> FactsResult:
        """Remove a fact from the working state (a journal record); clearing a key that holds nothing changes
        nothing."""
        return _call(lambda: backend.set_fact(key, None, namespace, branch))

    @tool(_READ_ONLY)
    def get_working_state(
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
        limit: Annotated[int, Field(strict=True, ge=1, le=500, description="At most this many items per list.")] = 50,
    ) -> WorkingStateResult:
        """The working state folded from the journal's tool calls: the latest plan of each plan tool with
        item statuses, host facts, files touched (last action, touch count), commands run with exit status,
        the latest error lines and the identifiers in use (frequency x recency), and the block a compile
        renders from it."""
        return _call(lambda: backend.get_working_state(namespace, branch, limit))

    @tool(_READ_ONLY)
    def search_summaries(
        query: Annotated[str | None, Field(description="Text the summary holds (case-insensitive).")] = None,
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
        limit: Annotated[int, Field(strict=True, ge=1, le=100, description="At most this many.")] = 10,
        regex: Annotated[str | None, Field(description="A regular expression the summary matches.")] = None,
    ) -> SummarySearchResult:
        """Search a manager's summaries (every level), newest first."""
        return _call(lambda: backend.search_summaries(query, namespace, branch, limit, regex))

    @tool(_READ_ONLY)
    def get_summary(
        summary_id: Annotated[str, Field(description="The summary's id.")],
        namespace: Namespace = None,
        branch: Branch = ROOT_BRANCH,
    ) -> GetSummaryResult:
        """One summary of a manager."""
        return _call(lambda: backend.get_summary(summary_id, namespace, branch))

    _plain_argument_errors(server)
    return server, backend


# ---- transports ------------------------------------------------------------------------------------------


LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
"""The addresses served without a token: exactly those for which the MCP SDK turns on its DNS-rebinding
protection (Host and Origin checks; ``MCPServer.streamable_http_app``). Another loopback address
(``127.0.0.2``) is reachable through a rebinding name without those checks, so it needs a token too."""


MIN_TOKEN_LENGTH = 16
"""Shortest bearer token the HTTP server takes, in characters (a shorter one is guessed by trying: 16
random base64 characters are 96 bits; ``python -c "import secrets; print(secrets.token_urlsafe())"``
makes 43)."""


def token_problem(token: str) -> str | None:
    """Why ``token`` cannot be a bearer token (too short, or holding whitespace or a control character,
    which no ``Authorization: Bearer`` header carries intact), or None when it can."""
    if len(token) < MIN_TOKEN_LENGTH:
        plural = "s" if len(token) != 1 else ""
        return (
            f"the bearer token is {len(token)} character{plural}; use at least {MIN_TOKEN_LENGTH} (for example "
            '`python -c "import secrets; print(secrets.token_urlsafe())"`)'
        )
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in token):
        return "the bearer token holds whitespace or a control character; an Authorization header cannot carry it"
    return None


def http_url(host: str, port: int, path: str = "") -> str:
    """``http://host:port/path``, an IPv6 address in brackets (RFC 3986 section 3.2.2)."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}{path}"


def is_loopback(host: str) -> bool:
    """True for ``127.0.0.1``, ``localhost`` and ``::1`` (``[::1]``): the loopback addresses the SDK guards
    against DNS rebinding (:data:`LOOPBACK_HOSTS`); other addresses, other ``127.0.0.0/8`` ones included,
    are not served without a token."""
    return host.strip("[]") in LOOPBACK_HOSTS


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class BearerTokenMiddleware:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>`` (compared in constant time);
    others get 401 with ``WWW-Authenticate: Bearer``. Lifespan events pass through.

    Args:
        app: The ASGI app guarded.
        token: The token.
    """

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], token: str) -> None:
        if not token:
            raise ValueError("the bearer token must not be empty")
        self.app = app
        self._expected = token.encode()

    def _authorised(self, header: bytes) -> bool:
        """The ``Authorization`` value names the ``Bearer`` scheme (case-insensitive, RFC 7235 section 2.1)
        and the token (compared in constant time)."""
        scheme, _, given = header.strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self._expected)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not self._authorised(given):
                body = json.dumps({"error": "unauthorized", "detail": "send Authorization: Bearer <token>"}).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="context-journal"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


MAX_REQUEST_BODY = 4 * 1024 * 1024
"""Bytes of a request body :class:`MendedBodies` reads at most: the MCP SDK's ``DEFAULT_MAX_REQUEST_BODY_SIZE``
(``mcp.server.transport_security``), the limit the served app enforces."""


class MendedBodies:
    """ASGI middleware: the body of a POST request, one JSON-RPC message (or a batch), through
    :func:`mend_line`, so a request holding a lone surrogate is answered as over standard input rather
    than refused as a parse error (a review saw HTTP answer 400 "unexpected end of hex escape" where stdio
    wrote the message); a mended one is reported on ``log``. Other requests and events pass through.

    A body over ``max_body`` bytes (declared or as it arrives) is passed on as it came, unread past that
    size, for the SDK to refuse (413): read whole first, a review's 300 MiB body took 3.1 GB and 27 s before
    the SDK refused it, against 6 MB and 1 s without this middleware.

    Args:
        app: The ASGI app served.
        log: Where a mended request is reported (standard error by default).
        max_body: Bytes read at most (default: the SDK's own limit, ``DEFAULT_MAX_REQUEST_BODY_SIZE``, 4 MiB).
    """

    def __init__(
        self,
        app: Callable[[Scope, Receive, Send], Awaitable[None]],
        log: TextIO | None = None,
        max_body: int = MAX_REQUEST_BODY,
    ) -> None:
        self.app = app
        self._log = log
        self._max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self._max_body:
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: the app sees that as it came
                await self.app(scope, _replay([message], receive), send)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self._max_body and message.get("more_body", False):
                read = {"type": "http.request", "body": b"".join(chunks), "more_body": True}
                await self.app(scope, _replay([read], receive), send)  # the rest as it comes
                return
            if not message.get("more_body", False):
                break
        body, mended = mend_line(b"".join(chunks))
        if mended:
            report_mended(self._log if self._log is not None else sys.stderr)
            headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"content-length"]
            scope = {**scope, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
        await self.app(scope, _replay([{"type": "http.request", "body": body, "more_body": False}], receive), send)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """``receive`` that first hands out ``messages``, then reads on."""
    pending = list(messages)

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return replayed


def settle_heap() -> None:
    """Put what start-up allocated (modules, the server, its tools, the stores' indexes) beyond the cycle
    collector's reach (:func:`gc.freeze`), before serving.

    Tool calls run on worker threads, so the server's event loop waits for none of them; what still
    stops it is the collector: a full collection pauses every thread, for as long as it takes to scan
    every tracked object. Over a store of 3,000 messages under 100 concurrent tool calls that was a
    47-50 ms pause of the loop; with start-up's objects frozen the longest pause was 6-7 ms (measured by
    ``benchmarks/bench_loop_lag.py``). Objects made while serving are collected as usual.
    """
    gc.collect()
    gc.freeze()


def run_stdio(server: MCPServer[Any]) -> None:
    """Serve over stdin/stdout until the client closes them. A request holding a lone surrogate, which the
    SDK would leave unanswered, is read with U+FFFD in its place (see :mod:`.stdin_lines`)."""
    settle_heap()
    reader = io.BufferedReader(MendedLines(sys.stdin.buffer, sys.stderr))
    sys.stdin = io.TextIOWrapper(reader, encoding="utf-8", errors="replace")
    server.run("stdio")


def run_http(
    server: MCPServer[Any], host: str = "127.0.0.1", port: int = 8765, *, token: str | None = None, path: str = "/mcp"
) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` (``http://[::1]:port/mcp`` for IPv6) until interrupted.

    Args:
        server: The server.
        host: The address to bind (default loopback only).
        port: The TCP port.
        token: Bearer token required from clients; mandatory when ``host`` is not a loopback address.
        path: The endpoint's path.

    Raises:
        ValueError: a non-loopback ``host`` without a token, or a token :func:`token_problem` refuses.
    """
    problem = token_problem(token) if token else None
    if problem is not None:
        raise ValueError(problem)
    if not is_loopback(host) and not token:
        raise ValueError(
            f"binding to {host} exposes the store to the network; pass a bearer token (--token or "
            "CONTEXT_JOURNAL_MCP_TOKEN), or bind to 127.0.0.1"
        )
    import anyio
    import uvicorn

    app: Any = MendedBodies(server.streamable_http_app(streamable_http_path=path, host=host))
    if token:
        app = BearerTokenMiddleware(app, token)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    settle_heap()
    anyio.run(uvicorn.Server(config).serve)
