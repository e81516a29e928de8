"""Compile: the message list for the next model call, within a token budget, always provider-valid.

:func:`compile_context` is what :meth:`ContextManager.compile` and ``preview_context`` run:

1. **Budget.** ``budget = max_tokens - reserve_for_response`` tokens (provider tokens: the estimate times
   the namespace's calibration factor). A result never exceeds it.
2. **Must-keep part.** The ``system`` argument, the view's leading system-flagged messages (participant in
   :attr:`Roles.system` or metadata ``{"role": "system"}``) and the injections always go in. When they
   alone do not fit, :class:`OverBudgetError` says so with the size of each part.
3. **Selection.** The strategy selects from the rest of the view (sans-I/O) within what is left, with
   the sure reductions priced in (images past the limit as placeholders, tool results over the host's
   cap as excerpts). When it leaves messages out, the bulky messages give way first: tool results and
   text messages over a quarter of what it may fill are priced as excerpts of that size (older images
   as placeholders; pins and the head window never) and it selects again; the
   excerpts then grow into the room the selection left. A running tool loop that must be sent as a
   transcript has the history before it chosen again with the loop priced as its transcript.
4. **Repairs** (passes in ``context_journal.rendering.repairs``, run in order by ``context_journal.rendering.fit``),
   whatever the strategy: empty blocks, unsigned thinking and thinking outside assistant turns left
   out, empty tool results filled, tool results split out of assistant turns, other agents' tool calls
   shown as text, reused call ids renamed, every call answered in the next turn (moved up, or stubbed as
   an error) and every orphan result dropped, old thinking dropped whole when asked, images beyond the
   limit replaced by placeholders, a user turn first. Each change is listed in ``result.repairs``; the
   journal never changes.
5. **Fit.** If the repaired context is over budget the strategy selects again with less; if its
   smallest selection is still over (one tool unit larger than the budget) the largest blocks are
   reduced to bounded excerpts that keep their tool pairing and say how much was cut. The loop stops
   early: a selection already rendered is not rendered again, and once the selection stops
   changing and is the strategy's smallest, the excerpts come next (``result.stats["passes"]``: at most
   2 select+render passes unless excerpting). Before rendering, the cheapest valid cover is priced from
   the index (what the strategy renders raw at any budget, and the smallest selection: the assistant's
   calls and their answers, which no cut removes); when even that is over and it holds more than
   :data:`EXACT_FAILURE_MESSAGES` messages, :class:`OverBudgetError` is raised at once with that lower
   bound (:data:`CHEAPEST_PART`) instead of rendering and excerpting the whole history.
6. **Check.** The result is validated (:func:`context_journal.validate.validate_messages`) before it
   is returned.

Participants are names. A participant in :attr:`Roles.assistant` (or a message whose metadata says
``{"role": "assistant"}``) is the assistant; everyone else speaks in user turns. A user-turn speaker
that is not in :attr:`Roles.user` or :attr:`Roles.tool` (a multi-party chat, another agent) is named: its
first text block is prefixed with ``"<name>: "`` (:attr:`Roles.name_format`). Consecutive turns of one
role stay separate in the result and are merged by the exporters where the provider requires it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import telemetry
from .content import ToolResultBlock, blob_digests, check_audience, parse_content
from .errors import CHEAPEST_PART as CHEAPEST_PART  # re-exported: the part a fast failure names
from .errors import ContextJournalError, OverBudgetError
from .rendering.fit import (
    RenderCache,
    cover_floor,
    coverage,
    finish,
    fresh_pass,
    layout_of_work,
    mark_breakpoints,
    render,
    separate_running_turn,
    spans_floor,
    system_head,
    tokens_of,
    transcribe_running_turn,
    with_loop_opening,
    with_prefix,
)
from .rendering.options import CompileOptions, Injection, Roles
from .rendering.reduce import (
    AUTO_CAP_SHARE,
    FITTED_SHARE_FLOOR,
    LOOP_NOTE_KEY,
    PricedView,
    ToolCap,
    cut_key,
    emptied_count,
    floor_sum_over,
    irreducible_over,
    kept_floor,
    loop_over,
    messages_cut,
    overflow_cap,
    priced,
    shrink,
    silent_results,
    tool_cap,
    transcript_says_nothing,
    widened,
)
from .rendering.repairs import F_TOOL_USE, CompiledMessage, Pass, Repair, Source, Work, says_nothing, text_kept
from .rendering.shards import NewestGroupView, fold_newest_group, join_shard_runs
from .strategies.base import Budget, RawSpan, Selection, Strategy, has_summaries
from .tokens import Calibration, TokenCounter, check_token_count
from .validate import InvalidContextError, validate_turns
from .views import MessageView, SliceView, ViewEntry, running_turn_start, sendable_thinking, unit_bounds
from .viz.trace import MapTrace, trace_compile

if TYPE_CHECKING:
    from .formats.exporters import AnthropicRequest

__all__ = [
    "CompileOptions",
    "CompileResult",
    "CompiledMessage",
    "EmptyContextError",
    "Injection",
    "OverBudgetError",
    "RenderCache",
    "Repair",
    "Roles",
    "Source",
    "compile_context",
]

Block = dict[str, Any]


_SHORTCUTS = True
"""The compile loop's shortcuts (reused renders, the early stop, the fast failure); off, every pass renders
as the loop did before them (the tests compare both)."""


UNSUMMARISED_PART = "not summarised yet"
"""The part of :attr:`OverBudgetError.parts` naming the tokens of the smallest valid context that stand for
raw middle content no summary covers yet (only compression can shrink it further)."""


FLOOR_SCAN = 2048
"""The most messages of the middle giving way the fast failure's floor scans for calls (see
:func:`.rendering.fit.spans_floor`): beyond it the floor counts none (still a lower bound), so a compile
of a long history never summarised does not pay a scan of all of it (0.75 s at 20,000 messages) before
its render; a failure the calls beyond it would prove is found by the render. Once the floor proves a
failure, its scan still goes on until it has covered this many messages, so the figure the error names
is the same at every budget below it (it stopped just past the budget, and rose with each one tried)."""

_LONG_TEXT = [{"type": "text", "text": "word " * 100}]
"""A message long enough to be cut: its bare excerpt is the cut marker alone (see ``floor_plain``)."""

KEPT_FLOOR_READS = 16
"""The most messages the fast failure's floor reads to price the head window's first message and the newest
message at their bare excerpts (see :func:`.rendering.reduce.kept_floor`); the rest are priced at 0."""

EXACT_FAILURE_MESSAGES = 512
"""A compile whose smallest selection cannot fit however it is cut (its lower bound priced from the index is
over the budget) and holds more raw messages than this fails before rendering anything, its error giving
that lower bound (:data:`CHEAPEST_PART`); a smaller one is rendered and excerpted first, so its error gives
the smallest valid context itself (``"smallest valid context"``)."""


class EmptyContextError(ContextJournalError, ValueError):
    """A compile would return no message (providers reject an empty message list): the namespace and
    branch hold no message this reader can see, or only system messages, or only assistant messages made of
    thinking (nothing for a model to answer: the compile would send its own filler turn alone). Add a
    message first.

    Attributes:
        namespace: The namespace compiled.
        branch: The branch compiled.
    """

    def __init__(self, namespace: str | None, branch: str | None) -> None:
        self.namespace = namespace
        self.branch = branch
        where = f" of namespace {namespace!r} on branch {branch!r}" if namespace or branch else ""
        super().__init__(
            f"the compiled context{where} holds no message (providers reject an empty message list): there is no "
            "message to send (a turn of thinking alone gives nothing to answer); add one first"
        )


class _Blobs:
    """The stored media of an unpickled :class:`CompileResult`: the bytes of each blob its messages name,
    read when it was pickled (the store it was compiled from holds a lock, which does not pickle)."""

    def __init__(self, data: dict[str, bytes]) -> None:
        self.data = data

    def __call__(self, digest: str) -> bytes:
        """The bytes of blob ``digest``.

        Raises:
            KeyError: the result names no such blob.
        """
        return self.data[digest]


@dataclass(frozen=True)
class CompileResult:
    """A compiled context.

    Attributes:
        messages: The messages, oldest first.
        system: System prompt text blocks (the ``system`` argument, stored system messages, injections).
        system_sources: Where the system blocks came from.
        tokens: Estimated total in provider tokens (estimate times calibration); ``<= budget``.
        estimated_tokens: The same before calibration.
        budget: ``max_tokens - reserve_for_response``.
        max_tokens: As given.
        reserve_for_response: As given.
        repairs: Every change made so the context is valid and fits.
        dropped: Messages of the view not in the result (left out by the strategy or emptied by repairs).
        omitted: Spans left out: ``(first id, last id, count, reason)``.
        compile_id: Deterministic id of this compile (same inputs, same id); give it to
            ``report_usage``.
        strategy: The strategy's name.
        namespace: The manager's namespace.
        branch: The branch compiled.
        calibration: The calibration factor applied.
        parts: Tokens by part: ``system``, ``injections``, ``messages`` (and ``recall``: the recall pairs,
            and ``ledger``: the working-state pair, both part of ``messages``), calibrated: the parts but
            ``recall`` and ``ledger`` add up to ``tokens`` (see :func:`calibrated_parts`).
        estimated_parts: The same before calibration (the parts but ``recall`` and ``ledger`` add up to
            ``estimated_tokens``).
        assistant: The names rendered as the assistant.
        recall: What recall did for a query (None without one): ``query`` (its first 400 characters),
            ``hits`` (candidates found), ``recalled`` (messages brought back) and, when none was,
            ``note`` saying why.
        stats: How the compile loop went (not part of the result's identity): ``passes`` (selections
            rendered by the select-and-fit loop: at most 2 unless the compile excerpts to fit),
            ``renders`` (every render, the excerpt passes included), ``selects`` (strategy calls) and
            ``loop_retries`` (passes that gave up older history to keep a running tool loop raw: the
            strategy's smallest selection tried once, then the allowance stepped down; 0 when the loop fitted
            raw at once, or there is none).
        cache_priority: The indexes into :attr:`messages` of those marked ``cache_breakpoint``, most
            important first: the last message, the strategy's newest breakpoint, the message before the
            working-state block, the strategy's other breakpoints (newest first), the end of the prefix the
            previous compile sent the same, the message before the last assistant turn. When a request's
            own markers (a host's on ``tools``) leave fewer of Anthropic's four, ``to_anthropic`` keeps the
            first ones.
    """

    messages: tuple[CompiledMessage, ...]
    system: tuple[Block, ...]
    system_sources: tuple[Source, ...]
    tokens: int
    estimated_tokens: int
    budget: int
    max_tokens: int
    reserve_for_response: int
    repairs: tuple[Repair, ...]
    dropped: int
    omitted: tuple[tuple[str, str, int, str], ...]
    compile_id: str
    strategy: str
    namespace: str
    branch: str
    calibration: float
    parts: Mapping[str, int]
    assistant: tuple[str, ...]
    get_blob: Callable[[str], bytes] | None = field(default=None, repr=False, compare=False)
    trace: MapTrace | None = field(default=None, repr=False, compare=False)
    """Where each compiled message comes from in the conversation (what :meth:`to_html` draws)."""
    recall: Mapping[str, Any] | None = None
    stats: Mapping[str, int] = field(default_factory=dict, repr=False, compare=False)
    estimated_parts: Mapping[str, int] = field(default_factory=dict, repr=False)
    cache_priority: tuple[int, ...] = field(default=(), repr=False)

    def __getstate__(self) -> dict[str, Any]:
        """What pickling keeps: every field, with the store's blob reader replaced by the bytes of the
        media the messages name (so an unpickled result exports them with the store closed or elsewhere).

        Raises:
            StoreClosedError: the result names stored media and its store was closed before pickling.
            KeyError: a medium it names was erased since the compile (``redact``), as its exporters raise.
        """
        state = dict(self.__dict__)
        read = self.get_blob
        if read is not None and not isinstance(read, _Blobs):
            digests = blob_digests(b for m in self.messages for b in m.content)
            state["get_blob"] = _Blobs({d: read(d) for d in digests})
        return state

    @property
    def provenance(self) -> list[tuple[Source, ...]]:
        """Sources per compiled message, parallel to :attr:`messages`."""
        return [m.sources for m in self.messages]

    @property
    def unsummarised_cut(self) -> int:
        """How many stored messages no summary covers yet were cut to fit the budget (its ``cut_to_fit``
        repairs: one short note stands for each run of them, and for whole closed tool units in it). Not 0
        when compression lags behind the conversation: ``drain()`` (``context-journal compress``, the MCP
        ``compress`` tool) summarises what is due, so the next compile sends summaries in their place. It can
        stay above 0 after a full drain: messages whose chunk is still filling (``pending_work()
        .why_unsummarised`` is ``"filling"``) wait for more messages, and a strategy that summarises nothing
        (passthrough, windowed) cuts its raw middle the same way."""
        return messages_cut(self.repairs)

    def as_messages(self) -> list[dict[str, Any]]:
        """``{"role", "content"}`` dicts (roles not merged), as the validator reads them."""
        return [{"role": m.role, "content": list(m.content)} for m in self.messages]

    def to_anthropic(self, assistant: str | None = None, **params: Any) -> AnthropicRequest:
        """Parameters for ``anthropic.Anthropic().messages.create(**params)`` (see
        :func:`context_journal.formats.exporters.to_anthropic`), with ``cache_control`` markers on the
        system prompt and the marked messages by default (``cache=False`` adds none of its own). Stored
        media are read from the store the result was compiled from, which must still be open.

        Raises:
            ValueError: ``assistant`` is not the compile's assistant.
            TypeError: ``params`` holds ``system`` or ``messages`` (the compile builds them; a system prompt
                goes to ``compile(system=...)``).
            StoreClosedError: the store was closed before its media were read.
        """
        from .formats.exporters import to_anthropic

        return to_anthropic(self, assistant=assistant, **params)

    def to_html(self, title: str | None = None) -> str:
        """A context map: one self-contained HTML page (no network) with the budget split into its parts
        and the whole conversation as a timeline showing what each compiled message stands for (see
        :mod:`context_journal.viz`)."""
        from .viz.html import render_html

        return render_html(self, title=title)

    def to_openai(self, assistant: str | None = None, **kwargs: Any) -> list[dict[str, Any]]:
        """Chat Completions messages (see :func:`context_journal.formats.exporters.to_openai`).

        Raises:
            ValueError: ``assistant`` is not the compile's assistant.
            StoreClosedError: the store was closed before its media were read.
        """
        from .formats.exporters import to_openai

        return to_openai(self, assistant=assistant, **kwargs)

    def to_openai_responses(self, assistant: str | None = None, **kwargs: Any) -> list[dict[str, Any]]:
        """Responses API ``input`` items (see :func:`context_journal.formats.openai_responses.to_openai_responses`).

        Raises:
            ValueError: ``assistant`` is not the compile's assistant.
            StoreClosedError: the store was closed before its media were read.
        """
        from .formats.openai_responses import to_openai_responses

        return to_openai_responses(self, assistant=assistant, **kwargs)

    def summary(self) -> dict[str, Any]:
        """The short report the CLI prints with ``--json``."""
        return {
            "tokens": self.tokens,
            "budget": self.budget,
            "messages": len(self.messages),
            "repairs": [r.to_dict() for r in self.repairs],
            "dropped": self.dropped,
            "compile_id": self.compile_id,
            "strategy": self.strategy,
            "parts": dict(self.parts),
            **({"recall": dict(self.recall)} if self.recall is not None else {}),
        }

    def to_dict(self) -> dict[str, Any]:
        """The whole result as JSON-ready data."""
        out = self.summary()
        out.update(
            {
                "system": list(self.system),
                "system_sources": [s.to_dict() for s in self.system_sources],
                "messages": [m.to_dict() for m in self.messages],
                "estimated_tokens": self.estimated_tokens,
                "estimated_parts": dict(self.estimated_parts),
                "max_tokens": self.max_tokens,
                "reserve_for_response": self.reserve_for_response,
                "omitted": [list(o) for o in self.omitted],
                "namespace": self.namespace,
                "branch": self.branch,
                "calibration": self.calibration,
                "assistant": list(self.assistant),
            }
        )
        return out


def _content_blocks(content: str | Sequence[Mapping[str, Any]]) -> list[Block]:
    from .content import blocks_to_dicts

    return blocks_to_dicts(parse_content(content))


def _has_bulky(view: MessageView, avail: int, over: int, media: Callable[[ViewEntry], bool] | None = None) -> bool:
    """Whether a message of the newest run that fits ``avail`` tokens, or the one before it (which did not
    fit), is over ``over`` tokens, or (with ``media``) is older than the newest message and holds an image
    or a document (``media`` says which): if none is, the overflow reductions change no size a selection
    within ``avail`` can reach, and the strategy need not select again (most compiles of a long chat).
    Older images give way whatever their size, so one at or under ``over`` counts too (else a budget whose
    share equals an image's size priced it raw and dropped the messages before it)."""
    start = max(0, view.suffix_start(avail) - 1)
    last = len(view) - 1
    return any(
        e.tokens > over or (media is not None and e.position < last and media(e))
        for k in range(start, len(view), 512)
        for e in view.entries(k, k + 512)
    )


def _raw_over(view: MessageView, selection: Selection, avail: int) -> bool:
    """Whether the messages ``selection`` renders raw are over ``avail`` tokens as priced: a selection that
    leaves nothing out (a strategy that keeps the middle raw while compression lags) but must be cut to
    fit, which the overflow reductions cut as they would a selection leaving messages out (the newest
    image and every message were once cut by one water level, most of the budget unused)."""
    total = 0
    for e in selection.entries:
        if isinstance(e, RawSpan):
            total += view.tokens(e.start, e.end)
            if total > avail:
                return True
    return False


def _copied(work: Sequence[Work], p: Pass) -> tuple[list[Work], Pass]:
    """Copies of ``work`` and ``p`` that the fitting can change in place (block lists are replaced, never
    changed in place, so they are shared)."""
    q = Pass()
    q.repairs, q.altered = list(p.repairs), set(p.altered)
    return [dataclasses.replace(m, sources=list(m.sources)) for m in work], q


def _is_loop_note(m: Work) -> bool:
    """The user note holding a running tool loop's transcript."""
    return cut_key(m) == LOOP_NOTE_KEY


def _loop_note(work: Sequence[Work]) -> Work | None:
    """The running loop's transcript note in ``work`` (there is at most one), or None."""
    return next((m for m in reversed(work) if _is_loop_note(m)), None)


def _transcript_size(work: Sequence[Work], counter: TokenCounter) -> tuple[int, int] | None:
    """``(characters of its transcript, tokens)`` of the running loop's note in ``work`` (the characters
    leave its heading out), or None when there is none."""
    note = _loop_note(work)
    if note is None:
        return None
    return text_kept(note.blocks[1:]), tokens_of(note, counter)


def _hollow_loop(work: Sequence[Work], before: tuple[int, int] | None, counter: TokenCounter) -> int | None:
    """When the running loop's transcript in ``work`` keeps none of its text, or under a hundredth of it and
    fewer than 16 tokens, by its cut markers' figures, its heading left out (see
    :func:`.rendering.reduce.transcript_says_nothing`): the tokens a hundredth of the
    transcript as drawn (``before``, see :func:`_transcript_size`) would add (at least 1); else None. (The
    cuts' own rule for the newest message, which the transcript stands for: they keep it readable and cut it
    last. Required to keep a tenth of its characters, a lagging history fitted at 234 tokens, failed at 236
    and 240 naming 292, and fitted again at 238 and from 242; judged by characters while the cuts judged by
    the markers, a windowed one fitted at 80 and failed at 81.)"""
    note = _loop_note(work)
    if note is None or before is None or not transcript_says_nothing(note.blocks[1:], counter):
        return None
    return max(1, before[1] // 100)


def _is_recall(m: CompiledMessage) -> bool:
    return any(s.kind == "recall" for s in m.sources)


def _precedes_recall(compiled: Sequence[CompiledMessage], k: int) -> bool:
    """True for the marker turn of a recall pair."""
    marker = any(s.kind == "synthetic" and s.id == "marker" for s in compiled[k].sources)
    return marker and k + 1 < len(compiled) and _is_recall(compiled[k + 1])


def _marker_tokens(m: CompiledMessage) -> int:
    """The tokens a synthetic pair's marker turn adds to the pair: all of them, unless the pairing pass
    moved tool results into it (they answer the call before it): then the turn is counted with the
    messages it carries, as :func:`~context_journal.render_stats.render_stats` counts it."""
    return 0 if any(b.get("type") == "tool_result" for b in m.content) else m.tokens


NESTED_PARTS = frozenset({"recall", "ledger"})
"""Keys of :attr:`CompileResult.parts` counted inside ``messages`` too (the others add up to the total)."""


def calibrated_parts(estimated: Mapping[str, int], tokens: int) -> dict[str, int]:
    """``estimated`` (tokens by part before calibration) scaled to ``tokens`` (the calibrated total).

    The parts outside :data:`NESTED_PARTS` add up to ``tokens`` exactly: each gets its share rounded
    down and the tokens left go to the largest remainders (ties to the earlier part); a nested part is
    its share rounded down, at most its container ``messages``. Rounding each part up on its own made
    the parts add up to more than ``tokens``, by up to 45 once the total was priced per content class.
    """
    top = [(k, v) for k, v in estimated.items() if k not in NESTED_PARTS]
    whole = sum(v for _, v in top)
    if whole <= 0:
        return {k: 0 for k in estimated}
    out = {k: v * tokens // whole for k, v in top}
    left = tokens - sum(out.values())
    by_remainder = sorted(range(len(top)), key=lambda i: (-(top[i][1] * tokens % whole), i))
    for i in by_remainder[:left]:
        out[top[i][0]] += 1
    for k, v in estimated.items():
        if k in NESTED_PARTS:
            out[k] = min(v * tokens // whole, out.get("messages", tokens))
    return {k: out[k] for k in estimated}


def _head_turns_give_way(
    spans: Iterable[tuple[int, int, int]], window: tuple[int, int] | None
) -> Iterator[tuple[int, int, int]]:
    """``spans`` (``(start, end, gives_way)``, newest first, see ``raw_floor``) with the head window's turns
    but its first message flagged 2 (they give way whole as a last resort, see
    :func:`.rendering.reduce.shrink`)."""
    for a, b, gives_way in spans:
        lo, hi = (window[0] + 1, window[1]) if window is not None else (0, 0)
        if gives_way or window is None or b <= lo or a >= hi:
            yield a, b, gives_way
            continue
        lo, hi = max(a, lo), min(b, hi)
        yield from ((x, y, f) for x, y, f in ((hi, b, gives_way), (lo, hi, 2), (a, lo, gives_way)) if y > x)


def _compile_id(parts: Sequence[Any]) -> str:
    digest = hashlib.blake2b(json.dumps(parts, sort_keys=True, default=str).encode(), digest_size=10)
    return "cmp_" + digest.hexdigest()


_RECORD_KINDS = frozenset({"text", "thinking", "redacted_thinking"})


_RECORDS_BEFORE = 8
"""Records of the running loop's speaker looked past, back from its thinking, for the question it answers."""


def _record_before(e: ViewEntry, speaker: str) -> bool:
    """Whether ``e`` is a record of ``speaker`` holding only text and thinking (no call, no result)."""
    return e.participant == speaker and bool(e.kinds) and all(k in _RECORD_KINDS for k in e.kinds)


def _loop_repairs(work: list[Work], turn: Sequence[str], records: frozenset[str], p: Pass, whole: bool) -> list[Work]:
    """``work`` with the running tool loop (ids ``turn``) opened by a note where it must be and brought in as
    a transcript where it is not raw from its opening (:func:`separate_running_turn`,
    :func:`transcribe_running_turn`), the turn's assistant records that hold no call (ids ``records``: its
    thinking or text stored apart, as Claude Code stores each block) read as steps of the loop, so its raw
    run goes on over them (the loop was once transcribed from the text after its thinking
    record). They are marked as calls for those two passes only, and given their own flags back."""
    own: dict[int, int] = {}
    marked: list[Work] = []
    for m in work:
        if m.origin in records and m.role == "assistant":
            flags = m.flags
            m = dataclasses.replace(m, flags=flags | F_TOOL_USE)
            own[id(m)] = flags
        marked.append(m)
    out = transcribe_running_turn(separate_running_turn(marked, turn, p), turn, p, whole=whole)
    for m in out:
        if id(m) in own:
            m.flags = own[id(m)]
    return out


def compile_context(
    view: MessageView,
    strategy: Strategy,
    *,
    max_tokens: int,
    reserve_for_response: int = 0,
    system: str | Sequence[Mapping[str, Any]] | None = None,
    injections: Sequence[Injection] | None = None,
    counter: TokenCounter,
    roles: Roles | None = None,
    options: CompileOptions | None = None,
    calibration: Calibration | None = None,
    cache: RenderCache | None = None,
    get_blob: Callable[[str], bytes] | None = None,
    namespace: str = "default",
    branch: str = "main",
    state_key: Any = None,
    timestamp_of: Callable[[str], float | None] | None = None,
) -> tuple[CompileResult, Selection]:
    """Compile ``view`` with ``strategy`` (see the module docstring). Reads only; writes nothing.

    Args:
        view: The messages to compile (the manager's view, refreshed once before the call).
        strategy: The strategy, with its state loaded.
        max_tokens: The model's context window, in tokens.
        reserve_for_response: Tokens kept free for the reply.
        system: System prompt text or text blocks placed first.
        injections: Content added to this compile only.
        counter: The token counter the view's index uses.
        roles: Who plays which role (default :class:`Roles`).
        options: Repair knobs (default :class:`CompileOptions`).
        calibration: The namespace's calibration (default: factor 1).
        cache: Prepared message forms kept between compiles.
        get_blob: Reads stored media for the exporters.
        namespace: For the result and its id.
        branch: For the result and its id.
        state_key: Anything that identifies the strategy's state (part of the compile id).
        timestamp_of: ``message id -> epoch seconds``; given, a ``[8 May 2023]`` line opens each rendered
            message whose date differs from the previous dated message's.

    Returns:
        The result and the strategy's selection (commit it to persist strategy state).

    Raises:
        TypeError: ``max_tokens`` or ``reserve_for_response`` is not an ``int`` (a ``bool`` included).
        ValueError: ``max_tokens`` is not positive, ``reserve_for_response`` is negative or not less than
            ``max_tokens``.
        MalformedContentError: ``system`` or an injection is malformed.
        OverBudgetError: the must-keep part, or the smallest valid context, does not fit.
        EmptyContextError: the result would hold no message.
        InvalidContextError: the result broke a provider rule (a bug; never expected).
    """
    args: dict[str, Any] = dict(
        max_tokens=max_tokens,
        reserve_for_response=reserve_for_response,
        system=system,
        injections=injections,
        counter=counter,
        roles=roles,
        options=options,
        calibration=calibration,
        cache=cache,
        get_blob=get_blob,
        namespace=namespace,
        branch=branch,
        state_key=state_key,
        timestamp_of=timestamp_of,
    )
    with telemetry.compile_span(strategy, max_tokens, reserve_for_response, namespace, branch) as span:
        try:
            compiled = _compile_fitting(view, strategy, args)
            if (
                compiled[0].dropped
                and len(view) * _LEAST_MESSAGE_TOKENS <= max_tokens
                and _newest_holds_media(view)
                and view.entry(len(view) - 1).tokens * 4 > max_tokens
                and not irreducible_over(view, FITTED_SHARE_FLOOR, max_tokens)
            ):
                # The newest message's image was kept by leaving messages out: when the whole history fits
                # with it as its placeholder, that is sent instead (a review's history sent the newest
                # screenshot, its call and a note at 1,650-1,800 tokens, the question and five messages left
                # out, where every message fitted with the screenshot as its placeholder; issue 13: no
                # message is left out that fits once reduced). A long history is left as it was (B28: the
                # screenshot asked about and as many recent turns as fit), and so is one whose newest
                # message is not bulky (over a quarter of the budget, as the overflow reductions count it):
                # then the image is not what left the messages out (a 200x200 screenshot, 255 tokens, went
                # as its placeholder at 3,000 tokens beside twelve windowed turns, and raw at 2,900).
                whole = _compile_fitting(view, strategy, {**args, "newest_media": False})
                if not whole[0].dropped:
                    compiled = whole
        except OverBudgetError as exc:
            if not _newest_holds_media(view):
                raise
            # The newest message's image stays while a context holding it fits (B28: the screenshot asked
            # about); when none does, it goes as its placeholder, as it does at smaller budgets (a review saw
            # every budget from 1,644 to 1,976 fail, naming the budget and a token, where 100-1,640 fitted).
            try:
                compiled = _compile_fitting(view, strategy, {**args, "newest_media": False})
            except OverBudgetError as placeholder:
                raise placeholder if placeholder.actual < exc.actual else exc from None
        span.done(compiled[0])
        return compiled


_LEAST_MESSAGE_TOKENS = 5
"""Fewer tokens than any message can be sent in (its overhead and a word): a history of more messages than
the budget holds so never fits whole."""

CLOSE_MISS_TRIES = 6
"""Smaller budgets a compile tries after it missed its budget by a little (see :func:`_fit_below`)."""


def _compile_fitting(view: MessageView, strategy: Strategy, args: Mapping[str, Any]) -> tuple[CompileResult, Selection]:
    """:func:`_compile_reading`, and when that misses its budget by a little, :func:`_fit_below`."""
    try:
        return _compile_reading(view, strategy, args)
    except OverBudgetError as exc:
        return _fit_below(view, strategy, args, exc)


_MEDIA = frozenset({"image", "document"})


def _newest_holds_media(view: MessageView) -> bool:
    """Whether the view's newest message holds an image or a document (in a tool result too)."""
    if not len(view):
        return False
    kinds = view.entry(len(view) - 1).kinds
    if _MEDIA & set(kinds):
        return True
    if "tool_result" not in kinds:
        return False
    blocks = view.message(len(view) - 1).content
    return any(
        isinstance(b, ToolResultBlock) and isinstance(b.content, list) and any(c.type in _MEDIA for c in b.content)
        for b in blocks
    )


def _compile_reading(view: MessageView, strategy: Strategy, args: Mapping[str, Any]) -> tuple[CompileResult, Selection]:
    """:func:`_compile_context`, again reading every message when one priced unread was not cut after all
    (never expected)."""
    try:
        return _compile_context(view, strategy, **args)
    except _ReadThem:
        return _compile_context(view, strategy, **args, unread_ok=False)


def _fit_below(
    view: MessageView, strategy: Strategy, args: Mapping[str, Any], exc: OverBudgetError
) -> tuple[CompileResult, Selection]:
    """A context that fits a smaller budget, when the compile at ``args["max_tokens"]`` missed by a little;
    else ``exc`` raised again.

    The excerpts that make a context fit are drawn for its budget, so a budget can fail by a token or two
    where a smaller one fits (windowed, a newest message of 60 text blocks fitted 39 and 41 tokens and
    failed at 40 needing 41): what fits under a smaller budget fits under this one too. Only a measured
    failure (its ``"smallest valid context"`` part: a lower bound priced from the index holds at any smaller
    budget) that missed by at most a sixteenth of the budget tries budgets lower by 1, 2, 4, ... tokens, up
    to that sixteenth (at least 2) and at most :data:`CLOSE_MISS_TRIES` of them: a run of failing budgets
    sits just above a run that fits (autobiographical, a newest message of 65 blocks fitted at 1,652-1,659
    tokens and failed at 1,660-1,666 needing 1,707). The result keeps the budget asked for, and has an id
    of its own.
    """
    max_tokens, reserve = args["max_tokens"], args["reserve_for_response"]
    reach = max(2, exc.budget // 16)
    if "smallest valid context" not in exc.parts or not 0 < exc.actual - exc.budget <= reach:
        raise exc
    for k in range(CLOSE_MISS_TRIES):
        lower = max_tokens - 2**k
        if 2**k > reach or lower <= reserve:
            break
        try:
            result, selection = _compile_reading(view, strategy, {**args, "max_tokens": lower})
        except OverBudgetError:
            continue
        # Its own id: the same context asked for with another budget is another compile (a review saw one id
        # for 39 and 40 tokens).
        compile_id = _compile_id([result.compile_id, max_tokens])
        return dataclasses.replace(result, budget=exc.budget, max_tokens=max_tokens, compile_id=compile_id), selection
    raise exc


class _ReadThem(Exception):
    """A compile that left unread messages in what it sends (see :data:`.rendering.fit.UNREAD_TEXT`)."""


@dataclass
class _Transcribing:
    """The attempt loop's state where it first found the running loop not to fit raw (over the room, or
    only with a result cut until it says nothing) beside the older history the strategy chose: restored,
    and the loop transcribed from it, when the loop does not fit raw even with that history given up
    (see ``_compile_context``). ``smallest``: whether the strategy's smallest selection was tried already
    and fitted the loop raw."""

    selection: Selection
    p: Pass
    work: list[Work]
    used: int
    silent: bool
    avail: int
    cap: ToolCap | None
    oversized: ToolCap | None
    chooser: MessageView
    priced_at: int
    unexcerpted: frozenset[str]
    key: tuple[Any, ...]
    smallest: bool = False


def _compile_context(
    view: MessageView,
    strategy: Strategy,
    *,
    max_tokens: int,
    reserve_for_response: int = 0,
    system: str | Sequence[Mapping[str, Any]] | None = None,
    injections: Sequence[Injection] | None = None,
    counter: TokenCounter,
    roles: Roles | None = None,
    options: CompileOptions | None = None,
    calibration: Calibration | None = None,
    cache: RenderCache | None = None,
    get_blob: Callable[[str], bytes] | None = None,
    namespace: str = "default",
    branch: str = "main",
    state_key: Any = None,
    timestamp_of: Callable[[str], float | None] | None = None,
    unread_ok: bool = True,
    newest_media: bool = True,
) -> tuple[CompileResult, Selection]:
    """:func:`compile_context`; ``unread_ok``: plain text messages of the middle that are cut whole may be
    priced from the index, unread (raises :class:`_ReadThem` when one was not cut after all);
    ``newest_media``: the newest message's images and documents are sent while it alone fits (else they
    are placeholders, as older ones are once the selection leaves messages out)."""
    check_token_count("max_tokens", max_tokens, 1)
    check_token_count("reserve_for_response", reserve_for_response, 0)
    if reserve_for_response >= max_tokens:  # equal left a budget of 0: an OverBudgetError, not this error
        raise ValueError(
            f"reserve_for_response ({reserve_for_response}) is not less than max_tokens ({max_tokens}): "
            "nothing would be left for the context"
        )
    roles = roles or Roles()
    options = options or CompileOptions()
    calibration = calibration or Calibration()
    cache = cache or RenderCache()
    budget = max_tokens - reserve_for_response
    raw_budget = calibration.raw_budget(budget) if budget > 0 else 0
    p = Pass()

    # --- the must-keep part ------------------------------------------------------------------------
    head = system_head(view, roles, cache)
    parts: dict[str, int] = {}
    system_blocks: list[Block] = []
    system_sources: list[Source] = []
    if system is not None:
        blocks = [b for b in _content_blocks(system) if not (b.get("type") == "text" and not b["text"].strip())]
        system_blocks.extend(blocks)
        if blocks:
            system_sources.append(Source("synthetic", "system argument"))
            parts["system"] = sum(counter.count_block(b) for b in blocks)
    for e in view.entries(0, head):
        msg = view.message(e.position)
        kept = []
        for b in msg.content_dicts():
            if b.get("type") == "text" and b["text"].strip():
                kept.append(b)
            elif b.get("type") != "text":
                why = f"a {b.get('type')} block cannot go in the system prompt"
                p.repairs.append(Repair("system_block_dropped", e.id, why))
        system_blocks.extend(kept)
        complete = len(kept) == len(msg.content)
        system_sources.append(Source("system", e.id, e.sequence, complete))
        parts[f"message {e.id} (system)"] = sum(counter.count_block(b) for b in kept)
    late: list[tuple[Injection, list[Block]]] = []
    late_tokens = 0  # injected turns: must be kept, counted with the messages they sit among
    for k, inj in enumerate(injections or ()):
        blocks = _content_blocks(inj.content)
        check_audience(blocks, message_index=k, allowed=False)
        if inj.position == "system":
            texts = [b for b in blocks if b.get("type") == "text" and b["text"].strip()]
            system_blocks.extend(texts)
            system_sources.append(Source("injection", inj.label))
            parts[f"injection {k} ({inj.label})"] = sum(counter.count_block(b) for b in texts)
        else:
            prefix = roles.prefix(inj.participant, "user")
            blocks = with_prefix(blocks, prefix) if prefix else blocks
            late.append((inj, blocks))
            parts[f"injection {k} ({inj.label})"] = counter.count_message(inj.participant, blocks)
            late_tokens += parts[f"injection {k} ({inj.label})"]
    if system_blocks:
        parts["system overhead"] = getattr(counter, "message_overhead", 0)
    needed = sum(parts.values())
    if needed > raw_budget:
        raise OverBudgetError(budget, calibration.apply(needed), {k: calibration.apply(v) for k, v in parts.items()})
    must_keep = needed - late_tokens  # the system part; injected turns are counted among the messages

    # --- select, render, fit -------------------------------------------------------------------------
    body: MessageView = SliceView(view, head) if head else view
    n_body = len(body)
    running = running_turn_start(body)
    if running is not None and not sendable_thinking(body.message(running).content_dicts()[0]):
        running = None  # unsigned thinking is never sent (it cannot be replayed): no loop opens with it
    turn = [e.id for e in body.entries(running, n_body)] if running is not None else []
    # The turn's own records that are no call (its thinking or text stored apart, as Claude Code does):
    # steps of the loop for its raw run.
    records = frozenset(
        e.id
        for e in (body.entries(running, n_body) if running is not None else ())
        if e.kinds and all(k in _RECORD_KINDS for k in e.kinds) and roles.role(e.participant) == "assistant"
    )
    # What the cuts keep in place, their thinking byte for byte: the loop's opening and those records (a
    # record cut whole would leave a user note inside the assistant turn).
    # Every step of the loop holding thinking keeps it byte for byte too (a review saw a later step's signed
    # thinking dropped by its excerpt, the step's calls kept).
    thinking_steps = frozenset(
        e.id
        for e in (body.entries(running, n_body) if running is not None else ())
        if "thinking" in e.kinds or "redacted_thinking" in e.kinds
    )
    keep_turn = frozenset(turn[:1]) | records | thinking_steps
    asked = None  # the user turn the running loop answers: raw with the whole loop when it fits
    if running:
        # Records its speaker wrote before the loop's thinking (a text, as Claude Code stores each block) stand
        # between it and the question (a review saw the question left out at 375-565 tokens behind one).
        at = running - 1
        speaker = body.entry(running).participant
        while at > max(0, running - _RECORDS_BEFORE) and _record_before(body.entry(at), speaker):
            at -= 1
        before = body.entry(at)
        if "text" in before.kinds and "tool_result" not in before.kinds and roles.role(before.participant) == "user":
            asked = at

    def pinned() -> frozenset[str]:
        """Pinned messages (with their tool units) and the summaries of ranges pinned at a level, of the
        latest selection: never cut to fit (the compile says so)."""
        return frozenset(getattr(strategy, "pinned_messages", ()))

    # Messages no excerpt may cut, known before the strategy selects (pins with their tool units, and
    # documents), so that they are priced whole: priced as excerpts but rendered whole, a 5,000-token
    # document once made the compile give its room away pass after pass (63 tokens sent of 3,000).
    held_of = getattr(strategy, "held", None)
    held = frozenset(held_of(body)) if callable(held_of) else frozenset()
    documents = frozenset(getattr(strategy, "document_ids", ()))

    def tiers(chosen: Selection) -> dict[str, frozenset[str]]:
        """What gives way first (middle not summarised yet), late (the head window, see :func:`opening`; then
        the newest unit) and only when nothing else is left (``late``: the oldest recent turns) when cutting."""
        # The user turn the running loop answers never gives way (a review saw it in the note while the loop
        # went on): it is excerpted with the rest, or the compile fails.
        ask = frozenset({body.entry(asked).id}) if asked is not None else frozenset()
        return {
            # (Nor is the running loop cut as the middle: its steps gave way to bare markers there while its
            # newer results stood at a hundred tokens each.)
            "first": frozenset(e.id for a, b in chosen.give_way for e in body.entries(a, b)) - ask - loop_ids,
            "last": opening(chosen),
            # (The running loop's transcript, when it is one, stands for the newest messages; the turn it
            # answers is cut with them, never to its bare marker: a review saw "Go on, ..." so beside the
            # transcript.)
            "newest": newest_unit() | (ask | {LOOP_NOTE_KEY} if turn else frozenset()),
            "late": frozenset(e.id for a, b in chosen.last_resort for e in body.entries(a, b)) - ask,
            "loop": frozenset(turn),
            "head": frozenset(e.id for a, b in chosen.protected for e in body.entries(a, b)),
        }

    def newest_unit() -> frozenset[str]:
        """The newest message with its tool unit: excerpted last, after the head window (cut by the same water
        level as older turns, it once went down to its marker while short older turns stood whole)."""
        return (
            frozenset(e.id for e in body.entries(unit_bounds(body, n_body - 1, n_body)[0], n_body))
            if n_body
            else frozenset()
        )

    def opening(chosen: Selection) -> frozenset[str]:
        """The head window's messages that give way last, which the overflow excerpts leave whole: under
        the overflow reductions, those the strategy chose at their whole size (at most ``cap.over`` tokens),
        and its first message (the opening instructions) whatever its size, cut only after the turns between
        it and the newest message's unit gave way (issue 13 kind 2: "the opening instructions are never
        excerpted while older middle content is kept raw"; rules over half the budget went cut to a quarter
        beside raw turns when the head window held every message). A large one is cut with the newest unit
        by one level (see :func:`.rendering.reduce.shrink`), never the newest down to its marker for it."""
        over = cap.over if cap is not None and cap.texts else None
        return frozenset(
            e.id
            for a, b in chosen.protected
            for e in body.entries(a, b)
            if over is None or e.tokens <= over or e.position == a
        )

    room = raw_budget - must_keep
    avail = max(0, room - late_tokens - options.repair_reserve)
    if running is None:
        # The newest message, sharded and not summarised in any part, is compiled as the one message it
        # was written as: kept, priced and excerpted whole (see :mod:`.rendering.shards`).
        addressed = held | documents | pinned() | frozenset(getattr(strategy, "marked_newest", ()))
        folded = fold_newest_group(body, counter, addressed, lambda a, b: has_summaries(strategy, body, a, b))
        if folded is not None:
            body, n_body = folded, len(folded)
    selection: Selection | None = None
    work: list[Work] = []
    previous: tuple[Any, ...] | None = None
    step = 0
    # The strategy chooses from sizes with the sure reductions in (older images as placeholders, tool
    # results over the cap as excerpts): what fits once reduced is never left out (bug case B63).
    cap = tool_cap(options, avail, oversized=False)
    priced_at = avail  # images of a message alone over it are priced (and rendered) as placeholders
    # ... of the newest message: over the whole of it, never less (B28: the screenshot asked about), unless
    # compiled again without ``newest_media`` because no context holding them fitted: then any size
    whole_image = avail if newest_media else 0
    newest_limit = None if newest_media else 0
    chooser = priced(body, options, counter, cache, avail, cap, keep=held, newest_limit=newest_limit)
    # Without a host cap, when the selection leaves messages out, the bulky messages (tool results and
    # text over a quarter of what the strategy may fill, and every older image) are priced as excerpts
    # and placeholders and the strategy chooses again, so what fits once they are cut is kept
    # (B63; --overflow window once filled 626 of 4,000, and a 1,700-token result at
    # 2,000 tokens left 33). A selection that leaves nothing out (summaries stand for the middle) keeps
    # its layout.
    # With a host cap, it applies first and these to what it leaves (ten results each at
    # the host's cap once pushed out the instruction).
    oversized: ToolCap | None = overflow_cap(avail, cap)
    # A running tool loop the selection enters is sent raw whole from its opening (its bulky results
    # shortened), or, when that cannot fit, as one unit: a transcript of every step (B62).
    transcribe = False
    loop_ids = frozenset(turn)
    silent = False  # the loop's raw steps fit only with a result cut until it says nothing
    unexcerpted: frozenset[str] = frozenset()  # what the overflow excerpts leave whole (pins, the head window)

    # Messages rendered unread so far (ids): none may be left in what the compile sends or prices.
    unread_ids: set[str] = set()
    # Every message index the view reads (its own slot's and each auxiliary slot's: a review found a blank
    # block in an auxiliary slot unseen, and priced as if the compile kept it).
    store = getattr(view, "message_store", None)
    indexes = [store, *(index for _, index in getattr(view, "auxiliary", ()))] if store is not None else []
    unread_blocked = not indexes or any(
        not callable(getattr(index, "odd_count", None)) or index.odd_count() != 0 for index in indexes
    )

    def odd_entry(e: ViewEntry) -> bool:
        """Whether the message may render other than its participant and block kinds say (a metadata role,
        a blank text block: see ``MessageStore.odd_count``); True when no index the view reads knows it."""
        if not unread_blocked:
            return False
        for index in indexes:
            found = index.entry_for(e.id) if callable(getattr(index, "entry_for", None)) else None
            if found is not None:
                return bool(getattr(found, "odd", True))
        return True

    def left_unread(out: list[Work]) -> None:
        """Raise :class:`_ReadThem` when a message rendered unread is still in ``out`` (not cut whole)."""
        if unread_ids and any(m.origin in unread_ids for m in out):
            raise _ReadThem

    def unread(chosen: Selection, with_cap: ToolCap | None) -> tuple[frozenset[int], frozenset[str]]:
        """Positions of the middle not summarised yet (``chosen.give_way``) that render unread: plain text
        messages, named by no prefix, that no tool call comes just before and no pin keeps, older than what
        twice the room holds (the repairs render them unchanged, and the middle gives way oldest first until
        the rest fits: they are cut whole, one note standing for each run, which counts their stored sizes);
        and the ids of the middle's messages (with tool blocks too) over the overflow cap that give way
        whatever their excerpts, which the render leaves whole (see below).
        Only when no message of the namespace carries a metadata role or a blank text block (the index
        knows), so each one's role, flags and tokens are its index entry's (plus its name prefix and date
        header, priced apart: see :func:`render`); never a system participant's (sent as an instruction).
        Before this, a never-summarised history of 200,000 messages was read whole (and overflowed the
        render cache) at every compile; until named speakers and dated renders were priced unread too, every
        LoCoMo-like history still was (93 s for one compile at 200,000 messages). Without ``unread_ok``
        (the reference render every body is read for) no position, the same ids."""
        if not chosen.give_way or unread_blocked:
            return frozenset(), frozenset()
        bound = n_body if running is None else running
        stop = min(bound, body.suffix_start(2 * room + 64, n_body))
        # A message over the overflow cap would render as its excerpt; older than what twice the room holds
        # at the prices the selection saw (the cap's excerpts in them) it gives way all the same (whole, or
        # a call or result whose unit is not closed as its bare marker, which its excerpt cut again also
        # is), so it is left whole, and a plain one rendered unread: its excerpt would never be sent (a
        # never-summarised agent history read and excerpted all 20,000 messages to fail at 90 tokens, 10 s).
        over = with_cap.over if with_cap is not None and with_cap.texts else None
        capped = min(bound, chooser.suffix_start(2 * room + 64, n_body)) if over is not None else 0
        pins = pinned()
        plain: dict[str, bool] = {}  # participant -> not sent as an instruction
        out: list[int] = []
        ids: list[str] = []
        whole: list[str] = []
        raw = [(e.start, e.end) for e in chosen.entries if isinstance(e, RawSpan)]
        for a, b in chosen.give_way:
            for start, end in raw:
                lo, hi = max(a, start + 1), min(b, end, max(stop, capped))
                if hi <= lo:
                    continue
                previous = body.entry(lo - 1).kinds
                for e in body.entries(lo, hi):
                    kinds = e.kinds
                    ok = bool(kinds) and "tool_use" not in previous and all(k == "text" for k in kinds)
                    previous = kinds
                    if e.id in pins or e.position == asked:
                        continue
                    named = plain.get(e.participant)
                    if named is None:
                        named = plain[e.participant] = roles.role(e.participant) != "system"
                    if not named:
                        continue
                    capped_out = over is not None and e.tokens > over
                    if capped_out and e.position < capped:
                        whole.append(e.id)
                    if ok and e.position < stop and (not capped_out or e.position < capped):
                        out.append(e.position)
                        ids.append(e.id)
        if not unread_ok:
            return frozenset(), frozenset(whole)
        unread_ids.update(ids)
        return frozenset(out), frozenset(whole)

    def draw(chosen: Selection, q: Pass, with_cap: ToolCap | None, whole: bool = False) -> list[Work]:
        """``chosen`` rendered and repaired, excerpting by ``with_cap``; the running loop (if any) sent as
        a transcript where it must be (always, with ``whole``)."""
        opening = turn[0] if turn else None
        skip, cut_whole = unread(chosen, with_cap)
        out = render(body, chosen, roles, options, counter, cache, q, late, timestamp_of, opening, with_cap,
                     priced_at, unexcerpted | cut_whole, whole_image, skip)  # fmt: skip
        if turn:
            out = _loop_repairs(out, turn, records, q, whole)
        return out

    def holds_media(e: ViewEntry) -> bool:
        """Whether the message holds an image or a document (in a tool result too: read only for those)."""
        if "image" in e.kinds or "document" in e.kinds:
            return True
        if "tool_result" not in e.kinds:
            return False
        blocks = cache.base(e, lambda: body.message(e.position))[0]
        return any(
            isinstance(b.get("content"), list) and any(c.get("type") in ("image", "document") for c in b["content"])
            for b in blocks
            if b.get("type") == "tool_result"
        )

    def choose(at: int) -> Selection:
        """The strategy's selection within ``at`` tokens, with the running loop's opening."""
        stats["selects"] += 1
        chosen = strategy.select(chooser, Budget(at, budget, max_tokens, reserve_for_response))
        return with_loop_opening(chosen, running, asked) if running is not None else chosen

    def layout_key(chosen: Selection) -> tuple[Any, ...]:
        """Everything a pass's render and its loop shortening read: equal keys, equal work."""
        return (chosen.entries, chosen.superseded, chosen.give_way, chosen.protected, chosen.last_resort, pinned(),
                cap, priced_at)  # fmt: skip

    def own_calls(e: ViewEntry) -> bool:
        """Whether the message's calls are sent as calls: the assistant's own, never shown as text (nor sent
        as an instruction: a review found calls stored with the metadata role "system" priced as kept pairs,
        where the compile sends them as text that gives way whole)."""
        return e.participant in roles.assistant and e.participant not in roles.system and not odd_entry(e)

    def cover_error(rest: int, middle: int, selected: bool = True) -> OverBudgetError:
        """The error of a compile whose cheapest valid cover (``rest`` plus ``middle``, the part giving way
        first, priced from the index: a lower bound) and injected turns are over the room (the pins of the
        strategy's last selection named too, when it ``selected``)."""
        floor = late_tokens + rest + middle
        parts[CHEAPEST_PART] = floor
        if middle:
            parts[UNSUMMARISED_PART] = middle
        if selected:
            parts.update(getattr(strategy, "pinned_parts", {}))
        return OverBudgetError(
            budget,
            calibration.apply(must_keep + floor),
            {k: calibration.apply(v) for k, v in parts.items()},
            "even the cheapest valid cover (every message the strategy must keep cut to its smallest, priced "
            "from the index: a lower bound)",
        )

    def plain_entry(e: ViewEntry) -> bool:
        """Whether the compile keeps the message (whole, at its index count, or excerpted, at least at its
        cut marker's price) or cuts it into a note, and never drops it otherwise: text blocks only, priced
        at a token or more, not sent as an instruction (and, see ``floor_plain``, no message of the
        namespace with a blank text block or a metadata role)."""
        return (
            e.tokens > 0
            and bool(e.kinds)
            and all(k == "text" for k in e.kinds)
            and roles.role(e.participant) != "system"
        )

    # Only when the index says no message is odd (a blank text block is dropped, a metadata role sent apart),
    # and the counter prices a cut marker at a token or more (a custom counter may price punctuation at 0).
    @functools.cache
    def floor_plain() -> Callable[[ViewEntry], bool] | None:
        """:func:`plain_entry` where the floor may count plain messages, else None (priced once, when a
        floor is priced)."""
        return None if unread_blocked or kept_floor(_LONG_TEXT, "user", counter, None) < 1 else plain_entry

    def kept_tokens(positions: Iterable[int]) -> int:
        """A lower bound of the tokens of the messages at ``positions``, each one the compile never leaves
        out (the head window, the newest message: kept whole or excerpted); only plain text ones are
        priced (see :func:`.rendering.reduce.kept_floor`), the rest at 0; at most
        :data:`KEPT_FLOOR_READS` are read (cached for the render)."""
        if floor_plain() is None:
            return 0
        total = reads = 0
        for position in positions:
            e = body.entry(position)
            if not plain_entry(e):
                continue
            reads += 1
            if reads > KEPT_FLOOR_READS:
                break
            blocks = cache.base(e, functools.partial(body.message, position))[0]
            total += kept_floor(blocks, e.participant, counter, e.id)
        return total

    def newest_kept(spans: Iterable[tuple[int, int, int]]) -> list[int]:
        """The newest message's position when a span not giving way holds it and no running loop does."""
        last = n_body - 1
        if running is not None or last < 0:
            return []
        return [last] if any(a <= last < b and not gives_way for a, b, gives_way in spans) else []

    def index_floor() -> None:
        """Fail before selecting when what the strategy renders raw at any budget (its ``raw_floor``) cannot
        fit however it is cut, and it is too large to render and excerpt cheaply."""
        floor_of = getattr(strategy, "raw_floor", None)
        spans = floor_of(body) if callable(floor_of) else None
        if spans is None:
            return
        # The spans' messages are scanned only once they hold more messages than a render costs and more
        # tokens than the room (no floor exceeds its messages' tokens): a compile that fits reads no entry.
        head_of = getattr(strategy, "raw_head", None)
        window = head_of(body) if callable(head_of) else None
        spans = _head_turns_give_way(spans, window)
        head: list[tuple[int, int, int]] = []
        count = tokens = 0
        for a, b, gives_way in spans:
            b = min(b, n_body if running is None else running)
            if b <= a:
                continue
            head.append((a, b, gives_way))
            count, tokens = count + b - a, tokens + body.tokens(a, b)
            if count > EXACT_FAILURE_MESSAGES and late_tokens + tokens > room:
                break
        else:
            return
        stop = n_body if running is None else running
        # Only the head window's first message: its other turns give way whole when cut to next to nothing.
        opening = [] if window is None or window[0] >= min(window[1], stop) else [window[0]]
        kept = kept_tokens(dict.fromkeys([*opening, *newest_kept(head[:1])]))  # spans come newest first
        both = itertools.chain(head, spans)
        limit = room - late_tokens - kept
        # (The spans hold more than EXACT_FAILURE_MESSAGES messages: a proof found in the first few stands.)
        rest, middle, _ = spans_floor(body, both, counter, limit, running, own_calls, floor_plain(), FLOOR_SCAN)
        if late_tokens + kept + rest + middle > room:
            raise cover_error(kept + rest, middle, selected=False)

    def cheapest_cover(chosen: Selection) -> None:
        """Fail now when even the strategy's smallest selection cannot fit, however its messages are cut
        (priced from the index: see :func:`context_journal.rendering.fit.cover_floor`, and the head window and
        newest message it never leaves out: :func:`kept_tokens`), and it is too large to render and excerpt
        cheaply; the caller's selection ``chosen`` is over already."""
        many = EXACT_FAILURE_MESSAGES
        rest, middle, count = cover_floor(
            body, chosen, counter, room - late_tokens, running, own_calls, many, floor_plain(), FLOOR_SCAN
        )
        if count <= EXACT_FAILURE_MESSAGES:
            return  # cheap to render and cut: render it
        if late_tokens + rest + middle <= room:
            kept = kept_tokens(never_left_out(chosen))
            if late_tokens + kept + rest + middle <= room:
                return  # the selection may fit once cut: render it
        smallest = choose(0)
        limit = room - late_tokens
        rest, middle, count = cover_floor(
            body, smallest, counter, limit, running, own_calls, many, floor_plain(), FLOOR_SCAN
        )
        kept = kept_tokens(never_left_out(smallest)) if late_tokens + rest + middle <= room else 0
        if late_tokens + kept + rest + middle <= room or count <= EXACT_FAILURE_MESSAGES:
            choose(avail)  # the strategy's state (pins) as of the selection rendered, not the probe's
            return
        raise cover_error(kept + rest, middle)

    def never_left_out(chosen: Selection) -> list[int]:
        """Positions of ``chosen`` the compile keeps, whole or excerpted, whatever the budget: its head window's
        first message (``protected``: the other turns of the head give way whole when cut to next to nothing)
        and the newest message, raw and neither giving way nor a last resort; oldest first."""
        raw = [(e.start, e.end) for e in chosen.entries if isinstance(e, RawSpan)]
        out = [a for a, b in chosen.protected[:1] if b > a]
        out += newest_kept([(a, b, False) for a, b in raw])
        cut = (*chosen.give_way, *chosen.last_resort)
        stop = n_body if running is None else running
        return [
            p
            for p in dict.fromkeys(out)
            if p < stop and any(a <= p < b for a, b in raw) and not any(a <= p < b for a, b in cut)
        ]

    def fitted_floor() -> int:
        """The smallest size :func:`fitted_overflow` cuts a bulky message to (tokens)."""
        return max(FITTED_SHARE_FLOOR, avail // (16 * AUTO_CAP_SHARE))

    def fits_when_cut(at: ToolCap) -> bool:
        """Whether the whole history fits ``avail`` once every bulky message is cut to the fitted floor
        (``at`` with that floor): a short history :func:`fitted_overflow` can send whole."""
        floor = fitted_floor()
        if floor_sum_over(body, floor, avail) or irreducible_over(body, floor, avail):
            return False  # (a long history: even cut to the floor, or what no cut reduces, it is over)
        lowest = at._replace(over=floor, to=floor)
        # (Else a long history when not even every bulky message at the floor lets it all fit.)
        return priced(body, options, counter, cache, avail, lowest, 0, held, newest_limit).tokens(0, n_body) <= avail

    def fitted_overflow(chosen: Selection, at: ToolCap, pricing: MessageView) -> tuple[Selection, ToolCap, MessageView]:
        """``chosen`` (selected from ``pricing``, priced with the overflow cap ``at``: a quarter of what the
        strategy may fill) or, when the whole history fits once its bulky messages are cut smaller (to no
        less than :data:`FITTED_SHARE_FLOOR` tokens each), the selection from it priced so, with that cap
        (halved from ``at`` until it fits; the excerpts are widened into the room left after drawing). A
        quarter each is what a long history's recent results keep; in a short one it dropped messages that
        fit once cut smaller: B63's history at 2,000 tokens sent its newest screenshot with the call before
        it and left out the question and the five messages before, all sent with the screenshot raw once
        the page text was cut to about 200 tokens (and all sent at 1,600, the screenshot a placeholder). Only
        older messages are cut so: not when the newest message's unit would be cut below its quarter, nor
        when the head window's opening message (the instructions, whole whatever its size: see
        :func:`opening`) would be cut, or cut further: the middle gives way before the rules (issue 13 kind 2,
        B61: with ``overflow="window"`` a 1,400-token rules message went as 187 tokens beside 80 short turns
        kept raw, where leaving the oldest turns out kept it whole). Also run for a selection that leaves
        nothing out but is over ``avail`` as priced (autobiographical with the middle not summarised yet):
        at the quarter the whole history was just over, and the cuts gave the head window's turns way whole
        (448 tokens sent at 1,100 where 973 were at 1,000, six messages in a note)."""
        floor = fitted_floor()
        if at.to <= floor or not fits_when_cut(at):
            return chosen, at, pricing
        newest = unit_bounds(body, n_body - 1, n_body)[0]
        # The opening message of the head window, unless it is the newest message's unit (guarded above).
        first = chosen.protected[0][0] if chosen.protected and chosen.protected[0][1] > chosen.protected[0][0] else None
        rules = body.entry(first).tokens if first is not None and first < newest else 0
        share = at.to
        while share > floor:
            share = max(floor, share // 2)
            if rules > 2 * share:
                break  # the rules would be cut (or cut further) while the middle stays: it gives way instead
            tried = at._replace(over=share, to=share)
            again = priced(body, options, counter, cache, avail, tried, priced_at, held, newest_limit)
            if again.tokens(newest, n_body) != pricing.tokens(newest, n_body):
                break  # the newest unit keeps its quarter: its own cuts come last (a message of 64 blocks sent
                # 50 of them as bare markers at 1,371 tokens once cut below it)
            if again.tokens(0, n_body) <= avail:
                picked = strategy.select(again, Budget(avail, budget, max_tokens, reserve_for_response))
                stats["selects"] += 1
                if not picked.omitted:
                    return picked, tried, again
        return chosen, at, pricing

    # ``stats["passes"]`` counts the passes that render a selection. A selection the last pass rendered is
    # not rendered again (its work is reused); once the selection stops changing, one look at the
    # strategy's smallest selection (within 0 tokens) ends the loop when it is the same: every lower
    # allowance would render it again (a strategy chooses less, never more, with less room), so the
    # excerpts come next.
    stats = {"passes": 0, "renders": 0, "selects": 0, "loop_retries": 0}
    unfit: _Transcribing | None = None  # where the running loop was first found not to fit raw (see below)
    drawn: tuple[Any, ...] | None = None  # the layout key of the last pass's render
    pristine: tuple[list[Work], Pass] | None = None  # that render, when a running loop may be cut in place
    last_key: tuple[Any, ...] | None = None
    probed = False
    used = 0
    if _SHORTCUTS:
        index_floor()
    for attempt in range(16):
        selection = strategy.select(chooser, Budget(avail, budget, max_tokens, reserve_for_response))
        stats["selects"] += 1
        if (
            oversized is not None
            and (selection.omitted or _raw_over(chooser, selection, avail))
            and (
                _has_bulky(chooser, avail, oversized.over, holds_media)
                # None over the quarter, but the whole fits once the largest are cut smaller: at a budget
                # whose quarter is just over a 3,300-token result, windowed sent 26 of 50 messages where
                # 32 tokens less had sent all 50 with that result excerpted (issue 13 kind 2, a review).
                # Only for a selection of raw messages alone (passthrough, windowed): one with a head
                # window lets its lagging middle give way instead (B61), and keeps its stable layout.
                or (running is None and selection.omitted and not selection.protected and fits_when_cut(oversized))
            )
        ):
            # Older images give way too, whatever their size (one crossing a size threshold as the budget
            # grows would push whole messages out: review of the overflow reductions); the newest
            # message's image stays while it can be sent at all.
            cap, oversized = oversized, None
            priced_at = 0
            chooser = priced(body, options, counter, cache, avail, cap, priced_at, held, newest_limit)
            selection = strategy.select(chooser, Budget(avail, budget, max_tokens, reserve_for_response))
            stats["selects"] += 1
            # (Also when it leaves nothing out but is over as priced: a lagging middle the cuts would give way.)
            if running is None and (selection.omitted or _raw_over(chooser, selection, avail)):
                selection, cap, chooser = fitted_overflow(selection, cap, chooser)
        if running is not None:
            selection = with_loop_opening(selection, running, asked)
        if attempt == 0 and _SHORTCUTS:
            cheapest_cover(selection)
        key = layout_key(selection)
        if unfit is not None and not unfit.smallest and key == unfit.key:
            transcribe = True  # the smallest selection is the one the loop did not fit beside (see below)
            break
        if key != drawn or not _SHORTCUTS:
            p = fresh_pass(p)
            unexcerpted = pinned() | documents | (opening(selection) if cap is not None and cap.texts else frozenset())
            work = draw(selection, p, cap)
            stats["passes"] += 1
            stats["renders"] += 1
            drawn = key
            used = sum(tokens_of(m, counter) for m in work)
            # A running loop's work may be shortened in place below: keep it as rendered for the next pass.
            pristine = _copied(work, p) if turn else None
        elif pristine is not None:
            work, p = _copied(*pristine)
            used = sum(tokens_of(m, counter) for m in work)
        loop_in = bool(turn) and any(m.origin == turn[0] for m in work)
        # Not even its steps cut to their markers fit: the whole loop goes as its transcript (below), with
        # no cut tried first (a 2,000-step loop's cuts took 20 s to find that), nor any older history given
        # up for it (the bound counts the loop's own steps only).
        hopeless = _SHORTCUTS and used > room and loop_in and loop_over(work, loop_ids, keep_turn, counter, room)
        if used > room and loop_in and not hopeless:
            # The running loop is in: shorten its bulky results before leaving any of it out.
            work = shrink(work, room, counter, p, options, keep_turn, pinned(), **tiers(selection), documents=documents)
            used = sum(tokens_of(m, counter) for m in work)
        # Fitting only with a result of the loop cut until it says nothing (by the cuts, or by the overflow
        # excerpts it was drawn with) is not shortening it: a review saw six of a loop's seven results sent as
        # bare cut markers beside its whole opening thinking, and another a loop's only result so.
        silent = loop_in and used <= room and silent_results(work, loop_ids, counter)
        if hopeless or (loop_in and (used > room or silent)) or (unfit is not None and not loop_in):
            # The whole loop does not fit raw beside the older history the strategy chose. That history
            # gives way first: the running turn is what the model answers next, and issue 13 asks that the
            # turn be shortened, then replaced as a unit, only when it cannot fit; older turns are left out
            # for the newest ones whatever else the budget holds. Without this, a budget a token larger took
            # one more older turn, the loop no longer fitted raw beside it, and the loop went as its
            # transcript where the budget before sent it raw (passthrough, two chat turns and a one-step loop:
            # raw at 437-478, a transcript at 479-488, raw at 489-561, a transcript at 562-571). So the
            # strategy's smallest selection (the head, pins and opening instructions it always keeps) is tried
            # once; when the loop fits raw beside it, the allowance comes down from where it was (by the
            # overshoot, twice as much when the selection did not change) until the loop fits raw, at the
            # smallest selection at the latest; else the loop goes as its transcript, from the state it was
            # first found not to fit in (so the transcript's own paths are unchanged).
            if unfit is None and not hopeless and avail > 0:
                unfit = _Transcribing(selection, p, work, used, silent, avail, cap, oversized, chooser, priced_at,
                                      unexcerpted, key)  # fmt: skip
                previous = selection.entries
                avail = 0
                stats["loop_retries"] += 1
                continue
            if unfit is not None and unfit.smallest:
                # (The smallest selection fits the loop raw: it is what the last attempts come down to.)
                stats["loop_retries"] += 1
                over_by = used - room + 8 if used > room else 0
                step = max(over_by, 2 * step if selection.entries == previous or silent else 0, 8)
                avail = 0 if attempt >= 13 else max(0, avail - step)
                previous = selection.entries
                continue
            # The whole loop does not fit even shortened: it goes as one unit, a transcript, below (never
            # its opening and newest steps with the steps between left out: a partial turn, B62).
            transcribe = True
            break
        if unfit is not None and not unfit.smallest:
            # The smallest selection fits the loop raw: now the most older history that still does.
            unfit.smallest = True
            stats["loop_retries"] += 1
            over_by = unfit.used - room + 8 if unfit.used > room else 0
            step = max(over_by, 8)
            avail = max(0, unfit.avail - step)
            previous = unfit.selection.entries
            continue
        if used < room and cap is not None and cap.texts:
            # The overflow excerpts were priced at a quarter each: give them the room the selection left
            # (the same messages, the excerpts as long as the room allows). Excerpts are cut by characters,
            # so their tokens land near the level, not on it: one over the room is tried again with the
            # overshoot taken off, twice as much each time (a cut changes the tokens less than the level:
            # 8,068, 8,018, 8,008 of 8,000 when the same overshoot was taken off each time), four tries at most.
            wider = widened(cap, work, p, body, room - used, counter)
            widening = {r.message_id for r in p.repairs if r.kind == cap.kind and r.message_id}
            for _try in range(4):
                if wider is None or wider.to <= cap.to:
                    break
                q = fresh_pass(p)
                again = draw(selection, q, wider)
                stats["renders"] += 1
                total = sum(tokens_of(m, counter) for m in again)
                if used < total <= room:
                    work, used, p, cap = again, total, q, wider
                    drawn = None
                    break
                # The overshoot is shared by the excerpts the cap cuts, first among all, then among fewer each
                # try (taken off each whole, three page texts of a lagging history were set to 116 tokens after
                # 240 overshot by 116: 621 of 900 sent).
                shared = max(1, len(widening) >> (2 * _try))
                less = wider.to - (total - room) * (1 << _try) // shared - 8
                wider = wider._replace(over=less, to=less)
        if used <= room or avail == 0:
            break
        if key == last_key and not probed and _SHORTCUTS:
            # The selection stopped changing: when the smallest one is the same, no pass would change it.
            probed = True
            if layout_key(choose(0)) == key:
                break
            selection = choose(avail)  # the strategy's state (pins) as of this pass, not the probe's
        last_key = key
        # Over after repairs: select again with the excess taken off; when that changed nothing, take
        # off twice as much as the time before (not half the budget at once, which would throw away
        # what fits).
        step = max(used - room + 8, 2 * step if selection.entries == previous else 0)
        avail = max(0, avail - step)
        previous = selection.entries
    assert selection is not None
    if unfit is not None and (transcribe or used > room or silent or not loop_in):
        # Older history given up did not let the loop fit raw: it goes as its transcript from where it was
        # first found not to fit, with the strategy's state (its pins) as of that selection.
        selection, p, work, used, silent = unfit.selection, unfit.p, unfit.work, unfit.used, unfit.silent
        cap, oversized, chooser, priced_at = unfit.cap, unfit.oversized, unfit.chooser, unfit.priced_at
        unexcerpted, avail = unfit.unexcerpted, unfit.avail
        strategy.select(chooser, Budget(avail, budget, max_tokens, reserve_for_response))
        stats["selects"] += 1
        transcribe = True
    silent = silent and used <= room and silent_results(work, loop_ids, counter)
    if used > room or silent:
        # A tool loop that opened with thinking keeps that opening byte for byte; when even its
        # excerpts do not fit, the whole loop becomes a transcript (never part of it raw: bug case B62).
        cut = tiers(selection)
        if not silent and not transcribe:  # (the loop's pass shortened its work already)
            work = shrink(work, room, counter, p, options, keep_turn, pinned(), **cut, documents=documents)
            used = sum(tokens_of(m, counter) for m in work)
            silent = used <= room and silent_results(work, loop_ids, counter)
        if (used > room or silent) and turn:
            # Every step of the loop goes into the transcript (it is shortened as one unit).
            assert running is not None
            selection = with_loop_opening(selection, running, asked)
            p = fresh_pass(p)
            whole = draw(selection, p, cap, whole=True)
            stats["renders"] += 1
            transcript = _transcript_size(whole, counter)
            work = shrink(whole, room, counter, p, options, keep_whole=pinned(), **cut, documents=documents)
            used = sum(tokens_of(m, counter) for m in work)
            hollow = _hollow_loop(work, transcript, counter)
            if used <= room and selection.omitted and hollow is None:
                # The last selection was made with the loop priced raw; as a transcript it takes far less,
                # so the history before it is chosen again with the loop priced at its transcript (issue
                # 13 review: at 3,000 tokens a transcribed loop was sent alone, 58 tokens, the rules gone).
                note = _loop_note(work)
                if note is not None:
                    loop = body.tokens(running, n_body)
                    chooser_loop = PricedView(chooser, {running: tokens_of(note, counter) - loop})
                    full = max(0, room - late_tokens - options.repair_reserve)
                    reselected = strategy.select(chooser_loop, Budget(full, budget, max_tokens, reserve_for_response))
                    stats["selects"] += 1
                    reselected = with_loop_opening(reselected, running, asked)
                    q = fresh_pass(p)
                    tried = draw(reselected, q, cap, whole=True)
                    stats["renders"] += 1
                    size = _transcript_size(tried, counter)
                    # The turns the loop's transcript made room for give way first, oldest first, when cut to
                    # next to nothing (a review saw six chat turns each sent as its bare marker beside it).
                    more = tiers(reselected)
                    had = {m.origin for m in work}
                    more["late"] |= frozenset(m.origin for m in tried if m.origin is not None and m.origin not in had)
                    tried = shrink(tried, room, counter, q, options, keep_whole=pinned(), **more, documents=documents)
                    total = sum(tokens_of(m, counter) for m in tried)
                    if (
                        total <= room
                        and len(tried) > len(work)
                        and _hollow_loop(tried, size, counter) is None
                        and emptied_count(tried, counter) <= emptied_count(work, counter)
                    ):
                        selection, work, used, p = reselected, tried, total, q
            if hollow is not None:
                # The transcript was cut to next to nothing (a review saw the whole running turn sent as
                # "[… about 376 of 376 tokens cut here …]"): as for the newest message, the compile fails
                # rather than send the turn unreadable, needing at least a hundredth of the transcript.
                used = max(used + hollow, room + 1)
        left_unread(work)
        if used > room and p.readable_at is not None:
            # The cut failed only because the newest message would have gone as its bare marker: what it
            # needs to keep a little of itself (more than the room in any case), not the failed context (far
            # larger: its late turns stand excerpted).
            used = min(used, max(room + 1, p.readable_at))
        if used > room or (not work and n_body):
            parts["smallest valid context"] = used
            middle = sum(tokens_of(m, counter) for m in work if m.origin in cut["first"])
            if middle:
                # Of it, the raw middle not summarised yet that is still there (excerpts of tool units;
                # plain runs are already one short note, which no summary undercuts): what summaries
                # could replace. Beyond it the compile cannot fit whatever compression does.
                parts[UNSUMMARISED_PART] = middle
            parts.update(getattr(strategy, "pinned_parts", {}))  # pins are part of what must be kept
            # A compaction block is sent exactly as received or not at all (never cut: its signature and
            # encrypted content come back unchanged), so no excerpt makes it smaller: each one still
            # there is named (an earlier error did not say why the excerpts were not enough).
            uncut = {
                f"compaction block of {m.origin or 'a compiled turn'} (never cut)": counter.count_block(b)
                for m in work
                for b in m.blocks
                if b.get("type") == "compaction"
            }
            parts.update(uncut)
            raise OverBudgetError(
                budget,
                calibration.apply(must_keep + used),
                {k: calibration.apply(v) for k, v in parts.items()},
                "what the strategy must keep, with its largest messages reduced to excerpts"
                + (" (a compaction block is never cut)," if uncut else ","),
            )

    # --- result ------------------------------------------------------------------------------------
    left_unread(work)
    if cache.has_shards:  # the raw shards of one message go as one provider message (after every cut)
        work = join_shard_runs(work, p, cache.shard, lambda m: tokens_of(m, counter))
    if isinstance(body, NewestGroupView):
        body.credit(work, p)
    unchanged = 0
    if options.cache_breakpoints > 0:
        same_as = (namespace, branch, max_tokens, reserve_for_response, strategy.name, repr(system), repr(options))
        unchanged = cache.kept_prefix((*same_as, newest_media), layout_of_work(work, p))
    cache_priority = mark_breakpoints(work, options.cache_breakpoints, unchanged)
    compiled = tuple(finish(m, p, counter) for m in work)
    if says_nothing(compiled):
        raise EmptyContextError(namespace, branch)
    estimated = must_keep + sum(m.tokens for m in compiled)
    if options.validate:
        issues = validate_turns([(m.role, m.content) for m in compiled], thinking=bool(turn))
        if issues:
            raise InvalidContextError(issues)
    covered, omitted = coverage(body, selection)
    rendered_ids = {s.id for m in compiled for s in m.sources if s.kind == "message"}
    # Messages the selection sends as stored: raw spans, and those rendered as newest (whole, named in the
    # provenance like raw ones): what repairs emptied is what of them no turn names.
    raw_count = sum(
        e.end - e.start if isinstance(e, RawSpan) else len(e.recalled) if e.kind == "newest" else 0
        for e in selection.entries
    )
    recalled = {s.id for m in compiled for s in m.sources if s.kind == "recall"} - rendered_ids
    dropped = max(0, n_body - covered - len(recalled)) + max(0, raw_count - len(rendered_ids))
    parts["messages"] = estimated - must_keep - late_tokens
    if recalled:
        # The recall pairs (marker turn and recalled transcript), counted inside "messages" too.
        parts["recall"] = sum(
            m.tokens if _is_recall(m) else _marker_tokens(m)
            for k, m in enumerate(compiled)
            if _is_recall(m) or _precedes_recall(compiled, k)
        )
    ledger = [k for k, m in enumerate(compiled) if any(s.kind == "ledger" for s in m.sources)]
    if ledger:  # the working-state pair (marker turn and block), counted inside "messages" too
        parts["ledger"] = sum(compiled[k].tokens + (_marker_tokens(compiled[k - 1]) if k else 0) for k in ledger)
    compile_id = _compile_id(
        [
            namespace,
            branch,
            getattr(view, "last_sequence", None),
            len(view),
            max_tokens,
            reserve_for_response,
            strategy.name,
            state_key,
            timestamp_of is not None,
            system,
            [repr(i) for i in injections or ()],
            repr(options),
            roles.to_dict(),
            calibration.factor,
            [repr(e) for e in selection.entries],
            *(() if newest_media else ("newest media as placeholders",)),
        ]
    )
    result = CompileResult(
        messages=compiled,
        system=tuple(system_blocks),
        system_sources=tuple(system_sources),
        tokens=calibration.apply(estimated),
        estimated_tokens=estimated,
        budget=budget,
        max_tokens=max_tokens,
        reserve_for_response=reserve_for_response,
        repairs=tuple(p.repairs),
        dropped=dropped,
        omitted=omitted,
        compile_id=compile_id,
        strategy=strategy.name,
        namespace=namespace,
        branch=branch,
        calibration=calibration.factor,
        parts=calibrated_parts(parts, calibration.apply(estimated)),
        estimated_parts=dict(parts),
        assistant=tuple(sorted(roles.assistant)),
        get_blob=get_blob,
        trace=trace_compile(view, head, selection, compiled, getattr(strategy, "pinned_messages", ())),
        stats=stats,
        cache_priority=cache_priority,
    )
    return result, selection
