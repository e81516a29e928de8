"""The compiler's repair passes: they turn selected entries into a provider-valid message list.

Private to :mod:`context_journal.compile`. Every pass is a pure function of a list of :class:`Work`
messages; none mutates a block dict in place (block dicts may be shared with the render cache), each
records what it changed as a :class:`Repair`, and each leaves the journal untouched. Rules and their
sources are listed in :mod:`context_journal.validate`.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from .._graphemes import clip_end, clip_start
from .._provider_render import (
    PROVIDER_TYPES,
    excerpt_provider,
    provider_line,
    repair_provider_blocks,
    server_continuations,
)
from ..stores.fulltext import format_date
from ..tokens import TokenCounter

if TYPE_CHECKING:
    from .transcript import Transcript

__all__ = ["CompiledMessage", "Instruction", "Repair", "Source", "Work", "block_flags"]

F_TOOL_USE = 1
F_TOOL_RESULT = 2
F_IMAGE = 4
F_THINKING = 8
F_PROBLEM = 16  # an empty or whitespace text block, an empty tool_result, an unsigned thinking block
F_MEDIA = 32  # a top-level image or document block (user turns only)
F_PROVIDER = 64  # a provider block (server tool call or result, mcp_*, compaction, search_result, upload)

NO_OUTPUT = "(no output)"
STUB_TEXT = "[no result recorded for this call: it was cancelled, failed, or is still pending]"

Block = dict[str, Any]


class Source(NamedTuple):
    """Where (part of) a compiled message came from (a named tuple).

    Attributes:
        kind: ``"message"`` (a stored message), ``"summary"``, ``"recall"`` (a message brought back by
            a query, inside a recall entry), ``"injection"``, ``"ledger"`` (the working-state block; its id is
            the newest message the ledger folded), ``"system"`` (a stored
            system-flagged message) or ``"synthetic"`` (a note or stub the compiler wrote).
        id: The message id, summary id, injection label or a synthetic name.
        sequence: Store sequence of the message version rendered (messages only).
        complete: True when the whole source is in this message unaltered (a participant name
            prefix does not count as an alteration).
        level: Summary level (summaries only).
        namespace: The auxiliary namespace a message came from (messages merged into the view by
            ``auxiliary_views``); None for the compiling manager's own messages and other sources.
    """

    kind: Literal["message", "summary", "recall", "injection", "system", "synthetic", "ledger"]
    id: str
    sequence: int | None = None
    complete: bool = True
    level: int | None = None
    namespace: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        out: dict[str, Any] = {"kind": self.kind, "id": self.id, "complete": self.complete}
        if self.sequence is not None:
            out["sequence"] = self.sequence
        if self.level is not None:
            out["level"] = self.level
        if self.namespace is not None:
            out["namespace"] = self.namespace
        return out


@dataclass(frozen=True)
class Repair:
    """One change the compiler made so the context is valid and within budget (the journal is not
    changed).

    Attributes:
        kind: What was done: ``orphan_result_dropped``, ``duplicate_result_dropped``, ``result_relocated``,
            ``result_stubbed``, ``results_split_from_assistant``, ``results_moved_first``,
            ``foreign_tool_use_transcribed``, ``duplicate_tool_use_transcribed``, ``duplicate_tool_use_renamed``,
            ``empty_text_dropped``,
            ``empty_result_filled``, ``empty_message_dropped``, ``unsigned_thinking_dropped``,
            ``old_thinking_dropped``, ``thinking_dropped_outside_assistant``, ``image_placeholder``,
            ``media_outside_user_turn``,
            ``excerpted``, ``leading_user_turn``, ``trailing_whitespace_trimmed``,
            ``system_block_dropped``, ``cut_to_fit`` (messages not summarised yet cut whole, a note standing
            for them), ``summaries_cut`` (summaries left out whole, a note standing for them),
            ``recall_dropped``, ``cut_marker_quoted`` (a cut marker the stored text itself holds, sent
            opened by ``[... `` so that it is not read as a cut).
        message_id: The stored message concerned, when there is one.
        detail: What happened, in words.
        tool_use_id: The tool call concerned, when there is one.
    """

    kind: str
    message_id: str | None
    detail: str
    tool_use_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        out: dict[str, Any] = {"kind": self.kind, "message_id": self.message_id, "detail": self.detail}
        if self.tool_use_id is not None:
            out["tool_use_id"] = self.tool_use_id
        return out


class Instruction(NamedTuple):
    """What a stored instruction sent as a user turn was (see :attr:`CompiledMessage.instruction`)."""

    role: str
    """``"system"`` or ``"developer"``: the role its metadata records (``"system"`` when none)."""
    prefix: str
    """The name prefix the compile put before its first text (``"system: "``; ``""`` when none)."""


class CompiledMessage(NamedTuple):
    """One message of a compiled context (a named tuple).

    Attributes:
        participant: Who speaks it (a stored participant, or ``"context-journal"`` for a compiler note).
        role: ``"user"`` or ``"assistant"``.
        content: Block dicts (stored media appear as ``blob`` sources; exporters resolve them). Shared
            with the compiler's cache: treat them as read-only.
        cache_breakpoint: A prompt-cache breakpoint belongs after this message.
        sources: Where it came from (see :class:`Source`).
        tokens: Its estimated tokens (before calibration).
        instruction: For a stored instruction (a system participant's message, or one whose metadata
            role is ``system``) past the leading ones that make the system prompt: sent as a user turn
            named by its prefix (Messages and Chat Completions take instructions only first), its own
            role and that prefix, so an export that takes instructions anywhere (the Responses API) sends
            it as the ``system`` / ``developer`` message it was. None otherwise.
    """

    participant: str
    role: Literal["user", "assistant"]
    content: tuple[Block, ...]
    cache_breakpoint: bool = False
    sources: tuple[Source, ...] = ()
    tokens: int = 0
    instruction: Instruction | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``instruction`` only when there is one)."""
        out: dict[str, Any] = {
            "participant": self.participant,
            "role": self.role,
            "content": list(self.content),
            "cache_breakpoint": self.cache_breakpoint,
            "sources": [s.to_dict() for s in self.sources],
            "tokens": self.tokens,
        }
        if self.instruction is not None:
            out["instruction"] = {"role": self.instruction.role, "prefix": self.instruction.prefix}
        return out


@dataclass(eq=False, slots=True)
class Work:
    """A message while the compiler works on it."""

    participant: str
    role: str  # "user" | "assistant"
    blocks: list[Block]
    flags: int
    tokens: int | None  # known count of these blocks, or None to recount
    origin: str | None  # stored message id for raw messages
    sequence: int | None = None
    kind: str = "message"
    sources: list[Source] = field(default_factory=list)
    breakpoint: bool = False
    instruction: Instruction | None = None  # a stored instruction sent as a user turn (see CompiledMessage)
    stored: int | None = None  # a raw message's tokens as stored (the index's count, before any rendering)
    uncut: list[Block] | None = None  # a text or tool result message's blocks before the overflow excerpt (see
    # excerpt_tool_results)
    transcript: Transcript | None = None  # the running loop's note: its transcript's lines (see .transcript)


_WHOLE_KINDS = frozenset({"summary", "message", "recall"})
"""Sources a rendered entry holds whole until a pass changes it (see :meth:`Pass.alter`)."""


class Pass:
    """Shared state of the repair passes of one render: repairs so far and altered sources."""

    def __init__(self) -> None:
        self.repairs: list[Repair] = []
        self.altered: set[str] = set()
        self.readable_at: int | None = None
        """Set by a cut that could fit only by sending the newest message as its bare cut marker (and so
        failed): the tokens of that context with the newest message keeping the least of its text that is
        more than the marker (everything else already cut to its smallest). What the smallest valid
        context needs, near enough: the failed context itself, whose older turns stand excerpted, is far
        larger."""

    def repair(self, kind: str, m: Work | None, detail: str, tool_use_id: str | None = None) -> None:
        self.repairs.append(Repair(kind, m.origin if m else None, detail, tool_use_id))

    def alter(self, m: Work) -> None:
        """Note that ``m``'s content changed: its source is no longer whole (a stored message by its id; a
        rendered summary, recalled or newest message in its own sources: a summary cut to fit once
        still said ``complete=True``)."""
        m.tokens = None
        if m.origin is not None:
            self.altered.add(m.origin)
        elif m.sources:
            m.sources = [s._replace(complete=False) if s.kind in _WHOLE_KINDS else s for s in m.sources]


def _blank(text: Any) -> bool:
    return not isinstance(text, str) or not text.strip()


def block_flags(blocks: Iterable[Mapping[str, Any]]) -> int:
    """The flag bits of a block list (tool use, tool result, image, thinking, problem)."""
    flags = 0
    for b in blocks:
        kind = b.get("type")
        if kind == "text":
            if _blank(b.get("text")):
                flags |= F_PROBLEM
        elif kind == "tool_use":
            flags |= F_TOOL_USE
        elif kind == "tool_result":
            flags |= F_TOOL_RESULT
            content = b.get("content", "")
            if isinstance(content, str):
                if not content.strip():
                    flags |= F_PROBLEM
            elif not content:
                flags |= F_PROBLEM
            else:
                for nested in content:
                    if nested.get("type") == "image":
                        flags |= F_IMAGE
                    elif nested.get("type") == "text" and _blank(nested.get("text")):
                        flags |= F_PROBLEM
        elif kind == "image":
            flags |= F_IMAGE | F_MEDIA
        elif kind == "document":
            flags |= F_MEDIA
        elif kind == "thinking":
            flags |= F_THINKING
            if _blank(b.get("signature")):
                flags |= F_PROBLEM
        elif kind == "redacted_thinking":
            flags |= F_THINKING
        elif kind in PROVIDER_TYPES:
            flags |= F_PROVIDER
    return flags


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def message_line_text(blocks: Sequence[Mapping[str, Any]]) -> str:
    """What a model reads of a message's blocks, as one line of plain text (tool calls written out)."""
    parts: list[str] = []
    for b in blocks:
        kind = b.get("type")
        if kind == "text":
            parts.append(str(b.get("text", "")))
        elif kind == "tool_use":
            args = json.dumps(b.get("input"), ensure_ascii=False, separators=(",", ":"))
            parts.append(f"[called {b.get('name')} {args}]")
        elif kind == "tool_result":
            parts.append(f"[{'error' if b.get('is_error') else 'result'}: {_result_text(b.get('content'))}]")
        elif kind in ("image", "document"):
            parts.append(f"[{kind}]")
        elif kind in PROVIDER_TYPES:
            parts.append(provider_line(b))
    return " ".join(p for p in parts if p).strip()


def _text(text: str) -> Block:
    return {"type": "text", "text": text}


def _rebuild(m: Work, blocks: list[Block], p: Pass, lossy: bool = True) -> None:
    """Give ``m`` new blocks; ``lossy`` marks its source incomplete (content left out or changed, as
    opposed to blocks moved to another turn)."""
    if blocks is not m.blocks and blocks != m.blocks:
        m.blocks = blocks
        m.flags = block_flags(blocks)
        m.tokens = None
        if lossy:
            p.alter(m)


# --- pass 1: empty blocks, unsigned thinking ------------------------------------------------------


def _report(p: Pass, m: Work, kind: str, detail: str) -> None:
    p.repair(kind, m, detail)


def clean_blocks(work: list[Work], p: Pass) -> list[Work]:
    """Drop empty text blocks, unsigned thinking and thinking outside assistant turns; give empty tool
    results a placeholder text; show images and documents of assistant turns as placeholders (only
    user turns may carry media). A paused pair (``pause_turn``: an assistant turn leaving a server call
    waiting and the continuation after it that answers it) is sent as stored, and so is a paused turn that
    is the newest of the request (:func:`~context_journal._provider_render.server_continuations`)."""
    out: list[Work] = []
    later: dict[int, frozenset[str]] = {}
    earlier: dict[int, frozenset[str]] = {}
    if any(m.flags & F_PROVIDER for m in work):
        later, earlier = server_continuations([(m.participant, m.role, m.blocks) for m in work])
    last = len(work) - 1
    for i, m in enumerate(work):
        assistant = m.role == "assistant"
        if m.flags & F_PROBLEM or (m.flags & F_THINKING and not assistant) or (m.flags & F_MEDIA and assistant):
            blocks: list[Block] = []
            for b in m.blocks:
                kind = b.get("type")
                if kind in ("thinking", "redacted_thinking") and not assistant:
                    p.repair("thinking_dropped_outside_assistant", m, "thinking in a non-assistant turn left out")
                    continue
                if kind in ("image", "document") and assistant:
                    p.repair("media_outside_user_turn", m, f"an {kind} in an assistant turn is shown as a placeholder")
                    blocks.append(image_placeholder(b, m.origin))
                    continue
                if kind == "text" and _blank(b.get("text")):
                    p.repair("empty_text_dropped", m, "empty or whitespace-only text block left out")
                    continue
                if kind == "thinking" and _blank(b.get("signature")):
                    p.repair("unsigned_thinking_dropped", m, "thinking without a signature cannot be replayed")
                    continue
                if kind == "tool_result":
                    content = b.get("content", "")
                    if isinstance(content, list):
                        kept = [n for n in content if not (n.get("type") == "text" and _blank(n.get("text")))]
                        if len(kept) != len(content) or not kept:
                            b = {**b, "content": kept or NO_OUTPUT}
                            p.repair("empty_result_filled", m, "empty text left out of a tool result", b["tool_use_id"])
                    elif not content.strip():
                        b = {**b, "content": NO_OUTPUT}
                        p.repair("empty_result_filled", m, f"empty result shown as {NO_OUTPUT!r}", b["tool_use_id"])
                blocks.append(b)
            _rebuild(m, blocks, p)
        if m.flags & F_PROVIDER:
            fixed = repair_provider_blocks(
                m.blocks,
                m.role,
                partial(_report, p, m),
                answered_later=later.get(i, frozenset()),
                carried=earlier.get(i, frozenset()),
                newest=i == last,
            )
            if fixed is not m.blocks:
                _rebuild(m, fixed, p)
        if not m.blocks:
            p.repair("empty_message_dropped", m, "nothing left to send after empty blocks were left out")
            continue
        out.append(m)
    return out


def last_compaction_only(work: list[Work], p: Pass) -> None:
    """Show every ``compaction`` block with content but the newest as its summary text: the provider
    takes one (Anthropic: "messages holds more than one compaction block with content. Send only the
    block the conversation returned last", ``compaction_block_ambiguous``)."""
    newest: tuple[int, int] | None = None
    for i, m in enumerate(work):
        if m.flags & F_PROVIDER and m.role == "assistant":
            for j, b in enumerate(m.blocks):
                if b.get("type") == "compaction" and b.get("content"):
                    newest = (i, j)
    if newest is None:
        return
    for i, m in enumerate(work[: newest[0] + 1]):
        if not m.flags & F_PROVIDER:
            continue
        blocks = [
            _text(provider_line(b)) if b.get("type") == "compaction" and b.get("content") and (i, j) != newest else b
            for j, b in enumerate(m.blocks)
        ]
        if blocks != m.blocks:
            p.repair("compaction_superseded", m, "an older compaction summary is shown as text (one is sent)")
            _rebuild(m, blocks, p)


def superseded_calls(work: list[Work], p: Pass, latest: Mapping[str, tuple[int, str]]) -> None:
    """Show the input of a call superseded by a later call of the same tool as a note: ``latest`` maps
    a tool name to ``(sequence, note)`` of the message holding its latest call (a plan tool whose
    newest plan the working-state block shows); a ``tool_use`` of that tool in a raw message older
    than that sequence keeps its id and name (its result stays paired) and gets ``{"superseded":
    note}`` as its input, so a stale plan is never shown beside the latest (bug case B47); so does an
    earlier call of the tool in the message of the latest (the last call of a message is its latest)."""
    for m in work:
        if m.sequence is None or not m.flags & F_TOOL_USE:
            continue
        last = {b.get("name"): k for k, b in enumerate(m.blocks) if b.get("type") == "tool_use"}
        blocks = [
            {**b, "input": {"superseded": latest[b["name"]][1]}}
            if b.get("type") == "tool_use"
            and b.get("name") in latest
            and (m.sequence < latest[b["name"]][0] or (m.sequence == latest[b["name"]][0] and k < last[b["name"]]))
            else b
            for k, b in enumerate(m.blocks)
        ]
        if blocks != m.blocks:
            p.repair("call_superseded", m, "an older version of a plan is shown as a note (the latest is shown)")
            _rebuild(m, blocks, p)


# --- pass 2: tool blocks in the wrong role --------------------------------------------------------


def _transcribe_use(b: Mapping[str, Any], who: str) -> Block:
    return _text(f"[{who} called {b.get('name')} (call {b.get('id')}) with {_json(b.get('input', {}))}]")


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for n in content or []:
        if n.get("type") == "text":
            parts.append(str(n.get("text", "")))
        else:
            parts.append(f"[{n.get('type')} omitted]")
    return "\n".join(parts)


def _transcribe_result(b: Mapping[str, Any]) -> Block:
    err = " (error)" if b.get("is_error") else ""
    body = _result_text(b.get("content", "")).strip() or NO_OUTPUT
    return _text(f"[result of call {b.get('tool_use_id')}{err}]: {body}")


def place_tool_blocks(work: list[Work], p: Pass) -> list[Work]:
    """Split tool results out of assistant turns into user turns; transcribe as text the tool calls made
    in non-assistant turns (another agent's calls) and their results."""
    foreign: set[str] = set()
    out: list[Work] = []
    for m in work:
        if m.role == "user" and m.flags & F_TOOL_USE:
            blocks = []
            for b in m.blocks:
                if b.get("type") == "tool_use":
                    foreign.add(str(b.get("id")))
                    blocks.append(_transcribe_use(b, m.participant))
                    why = "a tool call outside an assistant turn is shown as text"
                    p.repair("foreign_tool_use_transcribed", m, why, str(b.get("id")))
                else:
                    blocks.append(b)
            _rebuild(m, blocks, p)
        if m.role == "assistant" and m.flags & F_TOOL_RESULT:
            runs: list[tuple[str, list[Block]]] = []
            for b in m.blocks:
                role = "user" if b.get("type") == "tool_result" else "assistant"
                if runs and runs[-1][0] == role:
                    runs[-1][1].append(b)
                else:
                    runs.append((role, [b]))
            p.repair("results_split_from_assistant", m, "tool results moved from an assistant turn into a user turn")
            for role, blocks in runs:
                part = Work(
                    m.participant,
                    role,
                    blocks,
                    block_flags(blocks),
                    None,
                    m.origin,
                    m.sequence,
                    m.kind,
                    list(m.sources),
                    m.breakpoint,
                )
                if part.flags & F_PROVIDER:  # a server pair the split cut in two is shown as text
                    fixed = repair_provider_blocks(part.blocks, role, partial(_report, p, m))
                    if fixed is not part.blocks:
                        _rebuild(part, fixed, p)
                out.append(part)
            continue
        out.append(m)
    if foreign:
        for m in out:
            if m.flags & F_TOOL_RESULT and any(
                b.get("type") == "tool_result" and b.get("tool_use_id") in foreign for b in m.blocks
            ):
                blocks = [
                    _transcribe_result(b) if b.get("type") == "tool_result" and b.get("tool_use_id") in foreign else b
                    for b in m.blocks
                ]
                _rebuild(m, blocks, p)
    return out


# --- pass 3: tool_use / tool_result pairing ---------------------------------------------------------


def _fresh_id(tid: str, n: int, taken: set[str]) -> str:
    new = f"{tid}_{n}"
    while new in taken:
        n += 1
        new = f"{tid}_{n}"
    taken.add(new)
    return new


def rename_reused_server_calls(work: list[Work], p: Pass) -> None:
    """Give a provider-side call (``server_tool_use``, ``mcp_tool_use``) whose id an earlier message already
    used a fresh id, with the result that answers it in its own message, or, for a paused turn's call, in
    the continuation just after it (a re-recorded response once reused its ids, and every
    compile of the namespace then failed the provider rules)."""
    seen: set[str] = set()
    calls = [(m, b) for m in work for b in m.blocks if b.get("type") in _SERVER_CALLS and isinstance(b.get("id"), str)]
    if not calls:
        return
    taken = {str(b["id"]) for _, b in calls}
    taken.update(str(b.get("id")) for m in work for b in m.blocks if b.get("type") == "tool_use")
    holders = {id(m) for m, _ in calls}
    for i, m in enumerate(work):
        if id(m) not in holders:
            continue
        blocks, renamed = list(m.blocks), False
        for k, b in enumerate(blocks):
            if b.get("type") not in _SERVER_CALLS or not isinstance(b.get("id"), str):
                continue
            tid = b["id"]
            if tid not in seen:
                seen.add(tid)
                continue
            new = _fresh_id(tid, 2, taken)
            blocks[k] = {**b, "id": new}
            if not _rename_result(blocks, k + 1, tid, new) and i + 1 < len(work) and work[i + 1].role == m.role:
                nxt = list(work[i + 1].blocks)
                if _rename_result(nxt, 0, tid, new):  # a paused turn's call: its result opens the continuation
                    _rebuild(work[i + 1], nxt, p)
            renamed = True
            p.repair("duplicate_tool_use_renamed", m, f"a reused provider call id renamed {new!r} with its result", tid)
        if renamed:
            _rebuild(m, blocks, p)


def _rename_result(blocks: list[Block], start: int, tid: str, new: str) -> bool:
    """Point the first server result at or after ``start`` that answers ``tid`` at ``new``; whether one did."""
    for j in range(start, len(blocks)):
        if blocks[j].get("tool_use_id") == tid and blocks[j].get("type") not in ("tool_result", *_SERVER_CALLS):
            blocks[j] = {**blocks[j], "tool_use_id": new}
            return True
    return False


_SERVER_CALLS = ("server_tool_use", "mcp_tool_use")


def pair_tools(work: list[Work], p: Pass, stub_participant: str) -> list[Work]:
    """Make every call answered in the next message and every result answer the call just before.

    A result pairs with the nearest call with its id before it (some agents reuse ids; a reused id is
    renamed, with its result, since providers want ids unique in a request). Results found later are
    moved up (``result_relocated``); missing ones are stubbed with an error result (``result_stubbed``);
    results with no call before them are dropped (``orphan_result_dropped``).
    """
    occurrences: dict[str, list[int]] = {}
    uses: dict[int, list[tuple[str, str]]] = {}
    taken = {str(b.get("id")) for m in work if m.flags & F_TOOL_USE for b in m.blocks if b.get("type") == "tool_use"}
    taken.update(str(b.get("id")) for m in work for b in m.blocks if b.get("type") in _SERVER_CALLS)
    for i, m in enumerate(work):
        if m.role != "assistant" or not m.flags & F_TOOL_USE:
            continue
        pairs: list[tuple[str, str]] = []
        blocks: list[Block] = []
        for b in m.blocks:
            if b.get("type") == "tool_use":
                tid = str(b.get("id"))
                occ = occurrences.setdefault(tid, [])
                if occ and occ[-1] == i:
                    blocks.append(_transcribe_use(b, m.participant))
                    p.repair("duplicate_tool_use_transcribed", m, "a second call with the same id in one turn", tid)
                    continue
                new = tid if not occ else _fresh_id(tid, len(occ) + 1, taken)
                if new != tid:
                    b = {**b, "id": new}
                    p.repair("duplicate_tool_use_renamed", m, f"a reused call id renamed {new!r} with its result", tid)
                occ.append(i)
                pairs.append((tid, new))
            blocks.append(b)
        _rebuild(m, blocks, p)
        uses[i] = pairs
    found: dict[tuple[str, int], tuple[Block, int]] = {}
    for j, m in enumerate(work):
        if m.role != "user" or not m.flags & F_TOOL_RESULT:
            continue
        for b in m.blocks:
            if b.get("type") != "tool_result":
                continue
            tid = str(b.get("tool_use_id"))
            occ = occurrences.get(tid, [])
            k = bisect.bisect_left(occ, j) - 1
            if k < 0:
                p.repair("orphan_result_dropped", m, "a tool result whose call is not in the context was left out", tid)
                p.alter(m)
            elif (tid, occ[k]) in found:
                p.repair("duplicate_result_dropped", m, "a second result for the same call was left out", tid)
                p.alter(m)
            else:
                found[(tid, occ[k])] = (b, j)
    if not uses and not found:
        return [m for m in work if not _strip_results(m, p)]
    out: list[Work] = []
    skip = -1
    for i, m in enumerate(work):
        if i == skip:
            continue
        if i not in uses:
            if m.role == "user" and m.flags & F_TOOL_RESULT and _strip_results(m, p):
                continue
            out.append(m)
            continue
        out.append(m)
        answer: list[Block] = []
        extra: list[Source] = []
        for tid, new in uses[i]:
            hit = found.get((tid, i))
            if hit is None:
                answer.append({"type": "tool_result", "tool_use_id": new, "content": STUB_TEXT, "is_error": True})
                p.repair("result_stubbed", m, "a call with no result in the context got an error result", new)
                continue
            b, j = hit
            src = work[j]
            if new != tid:
                b = {**b, "tool_use_id": new}
                if src.origin is not None:
                    p.altered.add(src.origin)
            answer.append(b)
            if j != i + 1:
                p.repair("result_relocated", src, "a tool result was moved to follow its call", tid)
                if src.origin is not None and all(s.id != src.origin for s in extra):
                    extra.append(Source("message", src.origin, src.sequence, True))
        nxt = work[i + 1] if i + 1 < len(work) and work[i + 1].role == "user" else None
        if nxt is None:
            stub = Work(
                stub_participant,
                "user",
                answer,
                block_flags(answer),
                None,
                None,
                kind="answer",
                sources=extra or [Source("synthetic", "tool results")],
            )
            out.append(stub)
            continue
        skip = i + 1
        rest = [b for b in nxt.blocks if b.get("type") != "tool_result"]
        blocks = answer + rest
        if blocks != nxt.blocks:
            own = [b for b in nxt.blocks if b.get("type") == "tool_result"]
            if own and own == answer and nxt.blocks[: len(own)] != own:
                p.repair("results_moved_first", nxt, "tool results placed before the other blocks of the turn")
            nxt.blocks = blocks
            nxt.flags = block_flags(blocks)
            nxt.tokens = None
        nxt.sources = nxt.sources + extra
        if nxt.blocks:
            out.append(nxt)
    return out


def _strip_results(m: Work, p: Pass) -> bool:
    """Remove every tool result of a user turn that answers no call just before; True if it is empty."""
    if not m.flags & F_TOOL_RESULT:
        return False
    blocks = [b for b in m.blocks if b.get("type") != "tool_result"]
    _rebuild(m, blocks, p, lossy=False)  # dropped orphans were marked when found; the rest moved
    return not m.blocks


# --- pass 4: thinking, empties, the first turn, images, trailing whitespace -----------------------


def drop_old_thinking(work: list[Work], p: Pass, keep_turns: int, opening: str | None = None) -> None:
    """Drop thinking blocks of assistant turns older than the newest ``keep_turns`` (whole blocks only).
    A tool loop (assistant messages with only tool results between them) is one turn: its opening
    thinking stays with it. The message ``opening`` (the one that opens a tool loop still running)
    keeps its thinking whatever ``keep_turns`` says: the provider requires it (bug case B62), and so does
    every message after it (the loop runs to the end; a fuzzed compile with ``keep_turns=0`` dropped the
    signed thinking of a later step, a text of another participant between them)."""
    seen = 0
    joined = False  # the newer assistant message continues this one's turn (only results between)
    start = next((k for k, m in enumerate(work) if opening is not None and m.origin == opening), len(work))
    for k in range(len(work) - 1, -1, -1):
        m = work[k]
        if m.role != "assistant":
            joined = joined and bool(m.blocks) and all(b.get("type") == "tool_result" for b in m.blocks)
            continue
        if k >= start:  # the running loop: one turn, kept whole
            seen, joined = 1, True
            continue
        if not joined:
            seen += 1
        joined = True
        if seen > keep_turns and m.flags & F_THINKING:
            blocks = [b for b in m.blocks if b.get("type") not in ("thinking", "redacted_thinking")]
            p.repair("old_thinking_dropped", m, "thinking of an older turn left out (never edited)")
            _rebuild(m, blocks, p)


LEADING_TURN = "leading user turn"
"""The provenance id of the user turn the compiler puts first when the context opens with the assistant."""


def drop_empty(work: list[Work], p: Pass) -> list[Work]:
    """Leave out messages with no blocks left."""
    out = []
    for m in work:
        if m.blocks:
            out.append(m)
        else:
            p.repair("empty_message_dropped", m, "nothing left to send")
    return out


def lead_with_user(work: list[Work], p: Pass, something_before: bool) -> list[Work]:
    """Open with a user turn: providers expect one first."""
    if work and work[0].role != "user":
        note = "[earlier turns omitted]" if something_before else "[start of the conversation]"
        blocks = [_text(note)]
        p.repair("leading_user_turn", None, f"a user turn {note!r} opens the context")
        return [
            Work(
                "context-journal",
                "user",
                blocks,
                0,
                None,
                None,
                kind="note",
                sources=[Source("synthetic", LEADING_TURN)],
            ),
            *work,
        ]
    return work


def says_nothing(messages: Sequence[CompiledMessage]) -> bool:
    """Whether a compiled context gives the model nothing to answer: no message, or only the compiler's own
    leading user turn beside assistant messages made only of thinking (signed thinking whose text is not
    displayed, redacted thinking): no text, tool call, tool result or media of the conversation, and no user
    turn but the filler. The compile raises :class:`~context_journal.compile.EmptyContextError` for it
    instead of sending the filler turn (issue 13, kind 7: a compile that would send no message raises)."""
    for m in messages:
        if m.sources and all(s.kind == "synthetic" and s.id == LEADING_TURN for s in m.sources):
            continue
        if any(b.get("type") not in ("thinking", "redacted_thinking") for b in m.content):
            return False
    return True


def image_placeholder(b: Mapping[str, Any], origin: str | None) -> Block:
    """A short text standing for an image or document left out."""
    source = b.get("source") or {}
    media = source.get("media_type", "") if isinstance(source, Mapping) else ""
    size = source.get("size") if isinstance(source, Mapping) else None
    what = ", ".join(x for x in (str(media), f"{size} bytes" if size else "") if x)
    # Not named by id (provenance names the message): a placeholder's size never depends on an id.
    where = "; kept in the journal" if origin else ""
    return _text(f"[{b.get('type')} omitted{': ' + what if what else ''}{where}]")


def limit_images(
    work: list[Work],
    p: Pass,
    max_images: int | None,
    depth_tokens: int | None,
    tokens_of: Callable[[Work], int],
    budget: int | None = None,
    newest_budget: int | None = None,
) -> None:
    """Replace images beyond ``max_images`` (counted from the newest) or deeper than ``depth_tokens`` from
    the newest message, and those of a message alone over ``budget`` tokens (``newest_budget`` for the
    newest message, when given: the image a question is about stays while it can be sent at all; the
    strategy priced them as placeholders: :func:`~context_journal.rendering.reduce.price_reductions`), by a
    placeholder text; the documents of a message alone over its budget too."""
    if max_images is None and depth_tokens is None and budget is None:
        return
    count = 0
    depth = 0
    for k, m in enumerate(reversed(work)):
        size = tokens_of(m)
        depth += size
        limit = newest_budget if k == 0 and newest_budget is not None else budget
        alone = limit is not None and size > limit  # never sendable: its documents give way too
        if not m.flags & F_IMAGE and not (alone and m.flags & (F_MEDIA | F_TOOL_RESULT)):
            continue
        too_deep = (depth_tokens is not None and depth > depth_tokens) or alone
        changed = False

        def swap(b: Block, m: Work = m, too_deep: bool = too_deep, alone: bool = alone) -> Block:
            """``b`` or its placeholder (an image counted from the newest, a document of a message alone
            over its budget); a block of a message or of a tool result inside it alike."""
            nonlocal count, changed
            if b.get("type") == "image":
                count += 1
                if too_deep or (max_images is not None and count > max_images):
                    changed = True
                    return image_placeholder(b, m.origin)
            elif b.get("type") == "document" and alone:
                changed = True
                return image_placeholder(b, m.origin)
            return b

        blocks: list[Block] = []
        for b in reversed(m.blocks):
            if b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                nested = [swap(n) for n in reversed(b["content"])]
                nested.reverse()
                if nested != b["content"]:
                    b = {**b, "content": nested}
            else:
                b = swap(b)
            blocks.append(b)
        if changed:
            blocks.reverse()
            what = "an image beyond the image limit" if not alone else "an image or document too large for the budget"
            p.repair("image_placeholder", m, f"{what} is shown as a placeholder")
            _rebuild(m, blocks, p)


def trim_final_whitespace(work: list[Work], p: Pass) -> list[Work]:
    """A final assistant turn may not end with whitespace (Anthropic rejects it as a prefill)."""
    if not work or work[-1].role != "assistant":
        return work
    m = work[-1]
    last = m.blocks[-1]
    if last.get("type") == "text" and last["text"] != last["text"].rstrip():
        text = last["text"].rstrip()
        blocks = m.blocks[:-1] + ([{**last, "text": text}] if text else [])
        p.repair("trailing_whitespace_trimmed", m, "trailing whitespace of the final assistant turn trimmed")
        _rebuild(m, blocks, p)
        if not m.blocks:
            return work[:-1]
    return work


# --- excerpts ------------------------------------------------------------------------------------


_MARKER = r"\[… about (\d+) of (\d+) tokens cut here; the journal keeps the whole message …\]"
_CUT_MARKER = re.compile(rf"\n?{_MARKER}\n?")

_QUOTED = re.compile(r"\[… (?=about \d+ of \d+ tokens cut here; the journal keeps the whole message …\])")
QUOTED_OPENING = "[... "
"""How a cut marker that a stored message itself holds opens when sent (see :func:`quote_markers`)."""

QUOTED_DETAIL = "a cut marker the message quotes sent opened by [... "
"""The detail of a ``cut_marker_quoted`` repair."""


def quote_text(text: str) -> str:
    """``text`` with each cut marker it holds opened by :data:`QUOTED_OPENING` (see :func:`quote_markers`)."""
    return _QUOTED.sub(QUOTED_OPENING, text) if "tokens cut here" in text else text


def quote_markers(blocks: list[Block]) -> list[Block] | None:
    """``blocks`` (a message as stored) with each cut marker their own text holds (a log of a compiled
    context, a pasted excerpt) opened by :data:`QUOTED_OPENING` instead of ``[…``, in text blocks and the
    text of tool results and search results; None when they hold none. The compile reads what a message
    keeps from the markers in its text (see :func:`text_tokens_kept`): read as a cut, a 78-token tool result
    that quoted one, sent whole, was judged to say nothing, and its running loop went as a transcript at
    every budget, its signed thinking left out. Thinking is never changed (its signature covers it)."""

    quoted = quote_text
    out: list[Block] = []
    changed = False
    for b in blocks:
        kind = b.get("type")
        if kind == "text" and isinstance(b.get("text"), str):
            text = quoted(b["text"])
            if text != b["text"]:
                b, changed = {**b, "text": text}, True
        elif kind in ("tool_result", "search_result"):
            content = b.get("content")
            if isinstance(content, str):
                text = quoted(content)
                if text != content:
                    b, changed = {**b, "content": text}, True
            elif isinstance(content, list):
                inner = quote_markers([c for c in content if isinstance(c, dict)])
                if inner is not None and len(inner) == len(content):
                    b, changed = {**b, "content": inner}, True
        out.append(b)
    return out if changed else None


def quote_call_inputs(blocks: list[Block]) -> list[Block]:
    """``blocks`` with each cut marker the strings of their tool_use inputs hold opened by
    :data:`QUOTED_OPENING` (see :func:`quote_markers`); the same list when they hold none. For text written
    from the calls (a running loop's transcript): the inputs sent as calls stay as the agent wrote them, but
    a marker a call quotes, written into the transcript, was read as a cut of it ("about 300559 of 300580
    tokens cut here" for a transcript of some 730 tokens: a review)."""

    def quoted(value: Any) -> Any:
        """``value`` with its strings' markers opened so; the same object when none holds one."""
        if isinstance(value, str):
            return quote_text(value)
        if isinstance(value, dict):
            items = {k: quoted(v) for k, v in value.items()}
            return value if all(items[k] is v for k, v in value.items()) else items
        if isinstance(value, list):
            listed = [quoted(v) for v in value]
            return value if all(a is b for a, b in zip(listed, value, strict=True)) else listed
        return value

    out = [{**b, "input": quoted(b.get("input"))} if b.get("type") == "tool_use" else b for b in blocks]
    return blocks if all(a is b or a.get("input") is b.get("input") for a, b in zip(out, blocks, strict=True)) else out


SHORT_TEXT = 200
"""Characters of text an excerpt leaves whole when it costs at most :data:`SHORT_TOKENS`: a shorter text of
prose costs little more than its cut marker."""

SHORT_TOKENS = 48
"""Tokens of a text under :data:`SHORT_TEXT` characters above which an excerpt cuts it all the same: about
what 200 characters of English prose cost, a little over twice a cut marker (21 tokens). Dense text costs
far more per character: ten file names on their lines (89 characters) cost 56 tokens, 30 identifiers (170
characters) 204, and 190 characters of Chinese about 190; judged by characters alone, such a message
could not be cut, and a compile failed at every budget under its whole size (a tool result of a file list
fit at 105 tokens, excerpted by the overflow reductions, and failed at 106, where the excerpt after the
selection would not cut it)."""


_OWN_MARKER = re.compile(rf"(?:^|\n){_MARKER}(?:\n|$)")
"""A cut marker on a line of its own, as :func:`_cut_text` writes it (a message may quote one inline)."""


def cuttable(text: str, counter: TokenCounter | None = None) -> bool:
    """Whether an excerpt may cut ``text``: longer than :data:`SHORT_TEXT` characters, or (with a ``counter``)
    costing more than :data:`SHORT_TOKENS` tokens, or an earlier excerpt (a cut marker on a line of its own)
    whatever its length. An excerpt cut to under 200 characters by the
    overflow reductions once could not be cut again: at 82-111 tokens a never-summarised history's opening
    and newest messages stood at 50-54 tokens each and the compile failed, naming 134-148 tokens, where 112
    fitted with both cut further. A short message that quotes a marker inline ("My log says: [… about 1000
    of 1000 tokens cut here …] what does it mean?") is not an excerpt and stays whole (a review saw it cut,
    and the failures below the smallest fitting budget name a token more than each budget)."""
    return (
        len(text) > SHORT_TEXT
        or ("tokens cut here" in text and _OWN_MARKER.search(text) is not None)
        or (counter is not None and len(text) * 4 > SHORT_TOKENS and counter.count_block(_text(text)) > SHORT_TOKENS)
    )


SHORT_RUN = 3
"""The fewest consecutive short text blocks an excerpt cuts as one text (see :func:`merge_short_runs`)."""


_RUN_KEYS = frozenset({"type", "text", "citations"})
"""The keys of a text block a run of short blocks may join: its text, and the citations of a cited answer (an
answer with citations comes as many short blocks, each cited fragment apart; joined, the excerpt keeps the
text around its cut and leaves the citations to the journal, which keeps the whole message)."""


def _short_plain(b: Mapping[str, Any]) -> bool:
    """A text block with nothing but its text (and citations, see :data:`_RUN_KEYS`) that an excerpt leaves
    whole (see :func:`cuttable`), and not a date header (which :func:`date_headers` wrote: it stays a block
    of its own)."""
    if b.get("type") != "text" or not b.keys() <= _RUN_KEYS:
        return False
    text = b["text"]
    # A block that quotes a cut marker stays apart: joined, the quote would read as an earlier cut (a review saw
    # "My log says: [… about 1000 of 1000 tokens cut here …] what does it mean?" cut around the quote).
    return (
        isinstance(text, str)
        and not cuttable(text)
        and "tokens cut here" not in text
        and not _DATE_HEADER.fullmatch(text)
    )


def merge_short_runs(blocks: list[Block]) -> list[Block]:
    """``blocks`` with each run of :data:`SHORT_RUN` or more consecutive short text blocks (see
    :func:`_short_plain`) joined into one text block (the texts separated by a line break, or, in a run with
    a cited block, as written: a cited answer's fragments are one text), which an excerpt
    can then cut like any long text (and which no longer pays a block's overhead per piece); the same list
    when there is none. Each block alone is too short to cut, so a message of many short blocks could not be
    excerpted at all: a 3,600-token message of 100 blocks of 150 characters failed every budget under 3,604
    tokens, and one of 5,000 tiny blocks took seconds to fail. Runs of two are left alone: the note standing
    for a running tool loop is a short heading and its transcript, and its heading is never cut."""
    if len(blocks) < SHORT_RUN:
        return blocks
    out: list[Block] = []
    run: list[Block] = []

    def flush() -> None:
        if len(run) >= SHORT_RUN:
            joint = "" if any("citations" in b for b in run) else "\n"
            out.append({"type": "text", "text": joint.join(b["text"] for b in run)})
        else:
            out.extend(run)
        run.clear()

    for b in blocks:
        if _short_plain(b):
            run.append(b)
            continue
        flush()
        out.append(b)
    flush()
    return out if len(out) != len(blocks) else blocks


def text_kept(blocks: Sequence[Mapping[str, Any]]) -> int:
    """Characters of the text blocks of ``blocks`` outside cut markers: what an excerpt still says."""
    kept = 0
    for b in blocks:
        text = b.get("text") if b.get("type") == "text" else None
        if isinstance(text, str):
            kept += len(_CUT_MARKER.sub("", text)) if "tokens cut here" in text else len(text)
    return kept


_DATE_HEADER = re.compile(r"\[\d{1,2} [A-Z][a-z]+ \d{4}\]")
"""A date header block's text as :func:`date_headers` writes it (``[8 May 2023]``): not the message's text."""


def _texts(blocks: Sequence[Mapping[str, Any]]) -> Iterator[str]:
    """The texts a reader reads in ``blocks``: text blocks (date headers left out) and the text of tool
    results and search results, a string or its text blocks."""
    for b in blocks:
        kind = b.get("type")
        if kind == "text":
            text = b.get("text")
            if isinstance(text, str) and text and not _DATE_HEADER.fullmatch(text):
                yield text
        elif kind in ("tool_result", "search_result"):
            content = b.get("content")
            if isinstance(content, str):
                if content:
                    yield content
            elif isinstance(content, list):
                yield from _texts([c for c in content if isinstance(c, Mapping)])


def share_kept(blocks: Sequence[Mapping[str, Any]], counter: TokenCounter) -> float:
    """The share (0..1) of the original text of ``blocks`` (text blocks but date headers, and the text of
    tool results and search results) that an excerpt still holds, by its cut markers' own figures: a text
    marked "about C of T tokens cut here" keeps ``T - C`` of its ``T`` tokens (an excerpt cut again states
    its cut against the original size), a text with no marker keeps all of its tokens (``counter``); 1.0
    when there is no text. What a reader of the context sees, whatever an earlier pass had cut before: a
    recent turn cut to half by one pass and to a tenth of that by the next keeps 5% of the message, not 10%
    of what the second pass was given (a review found a date header counted as kept text, and a tool
    result's text not read at all, each hiding a newest message cut to nothing)."""
    kept, whole = text_tokens_kept(blocks, counter)
    return kept / whole if whole else 1.0


def text_tokens_kept(blocks: Sequence[Mapping[str, Any]], counter: TokenCounter) -> tuple[int, int]:
    """``(kept, whole)``: the tokens of the original text of ``blocks`` an excerpt still holds and of the
    whole text, by the cut markers' own figures (see :func:`share_kept`)."""
    kept = whole = 0
    for text in _texts(blocks):
        marks = [*_CUT_MARKER.finditer(text)] if "tokens cut here" in text else []
        if len(marks) > 1:
            # Excerpts joined in one text (a running loop's transcript, a run of short blocks): each marker
            # stands for its own cut (read as one text cut again, a transcript of seven results each cut to
            # half counted as keeping nothing).
            outside = counter.count_block({"type": "text", "text": _CUT_MARKER.sub("\n", text)})
            kept += outside
            whole += outside + sum(int(m.group(1)) for m in marks)
        elif marks:
            total = max(int(m.group(2)) for m in marks)
            cut = min(total, sum(int(m.group(1)) for m in marks))
            kept += total - cut
            whole += total
        else:
            tokens = counter.count_block({"type": "text", "text": text})
            kept += tokens
            whole += tokens
    return kept, whole


def _cut_text(text: str, ratio: float, total_tokens: int, origin: str | None) -> str:
    ratio = max(0.0, min(1.0, ratio))
    keep = int(len(text) * ratio)
    earlier = list(_CUT_MARKER.finditer(text)) if "tokens cut here" in text else []
    if len(earlier) > 1:
        return _cut_joined(text, ratio, total_tokens, earlier)
    if earlier:
        # An excerpt cut again (a second pass to fit): the cut widens around the earlier one, and the
        # marker states it against the original size (a second cut once said "about 1921 of 2044 tokens" of a
        # result of about 26,200).
        original = max(int(m.group(2)) for m in earlier)
        before, after = text[: earlier[0].start()], text[earlier[-1].end() :]
        if ratio >= 1.0:
            return text
        # The ratio is of the whole excerpt, its marker included, which no cut makes shorter: what is kept
        # gives up the marker's characters (counted as keepable, an excerpt keeping 6 characters beside an
        # 84-character marker was left as it was at every ratio down to a tenth, and a water level could not
        # lower it: a budget failed a token short between two that fitted).
        keep = max(0, keep - (len(text) - len(before) - len(after)))
        head = min(len(before), keep * 2 // 3)
        tail = min(len(after), keep - head)
        head = min(len(before), keep - tail)
        if head + tail <= 0:
            return f"[… about {original} of {original} tokens cut here; the journal keeps the whole message …]"
        start, end = clip_end(before, head), clip_start(after, tail)
        # What it keeps is the earlier excerpt's kept tokens in the share of its kept characters still there
        # (priced from the excerpt's size with its marker, a newest message of 64 blocks kept the same few
        # characters of each as its first excerpt and was read as keeping under a hundredth: the budgets
        # between two that fitted failed).
        kept_before = max(0, original - int(earlier[0].group(1)))
        # (Rounded, not floored: a block's earlier excerpt keeps a few tokens, and flooring took a token off
        # each of 65 blocks whatever they kept.)
        outside = max(1, len(before) + len(after))
        kept = (2 * kept_before * (len(start) + len(end)) + outside) // (2 * outside)
        marker = f"[… about {original - kept} of {original} tokens cut here; the journal keeps the whole message …]"
        return f"{start}\n{marker}\n{end}".strip()
    cut = max(0, total_tokens - int(total_tokens * ratio))
    # The marker never names the message (provenance does): its size must not depend on an id's length
    # (bug case B61: the same input compiles the same whatever ids the host generates).
    marker = f"[… about {cut} of {total_tokens} tokens cut here; the journal keeps the whole message …]"
    if keep <= 0:
        return marker
    head = keep * 2 // 3 or keep  # (one character kept is the message's first)
    tail = keep - head
    # Cut between grapheme clusters: an emoji, a flag or a letter with its marks stays whole.
    return f"{clip_end(text, head)}\n{marker}\n{clip_start(text, tail)}".rstrip()


def _cut_joined(text: str, ratio: float, total_tokens: int, earlier: list[re.Match[str]]) -> str:
    """``text``, excerpts joined (a running loop's transcript: each result cut to its own marker), cut to
    about ``ratio`` of its characters as a new text: head and tail kept, neither cut point inside a marker,
    the markers between them folded into the new one, which states their cuts and the text it leaves out
    (its tokens estimated from ``total_tokens`` by characters). Cut as one excerpt cut again, only the text
    before the first marker and after the last could be kept: the transcript of a seven-step loop stayed at
    171 tokens at every budget from 170 to 640."""
    if ratio >= 1.0:
        return text
    keep = int(len(text) * ratio)
    head_end = keep * 2 // 3
    tail_start = len(text) - (keep - head_end)
    for m in earlier:
        if m.start() < head_end < m.end():
            head_end = m.start()
        if m.start() < tail_start < m.end():
            tail_start = m.end()
    before, after = clip_end(text, head_end), clip_start(text, len(text) - tail_start)
    head_end, tail_start = len(before), len(text) - len(after)  # (on cluster boundaries)
    if tail_start <= head_end:
        return text
    removed = text[head_end:tail_start]
    folded = [m for m in earlier if head_end <= m.start() and m.end() <= tail_start]
    per_char = total_tokens / len(text) if text else 0.0
    outside = len(_CUT_MARKER.sub("", text))
    cut = sum(int(m.group(1)) for m in folded) + round(len(_CUT_MARKER.sub("", removed)) * per_char)
    whole = sum(int(m.group(1)) for m in earlier) + round(outside * per_char)
    marker = f"[… about {cut} of {max(cut, whole)} tokens cut here; the journal keeps the whole message …]"
    return "\n".join(part for part in (before.rstrip("\n"), marker, after.lstrip("\n")) if part)


def _cut_json(value: Any, ratio: float, counter: TokenCounter, origin: str | None) -> Any:
    if isinstance(value, str):
        if not cuttable(value, counter):
            return value
        return _cut_text(value, ratio, counter.count_block(_text(value)), origin)
    if isinstance(value, dict):
        return {k: _cut_json(v, ratio, counter, origin) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_json(v, ratio, counter, origin) for v in value]
    return value


def _fewest(lo: int, hi: int, test: Callable[[int], bool]) -> int:
    """The smallest ``k`` of ``lo..hi`` for which ``test(k)`` holds, by halving (``test`` holds from some
    ``k`` on; ``hi`` when it holds at none before it)."""
    while lo < hi:
        mid = (lo + hi) // 2
        if test(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def excerpt_blocks(
    blocks: list[Block],
    ratio: float,
    counter: TokenCounter,
    origin: str | None,
    keep_thinking: bool = False,
) -> list[Block]:
    """The blocks reduced to about ``ratio`` of their text (head and tail kept, a marker in between
    saying how much was cut); calls keep their id and name, results their ``tool_use_id``; thinking is
    dropped (it cannot be cut), or kept byte for byte with ``keep_thinking`` (the opening message of a
    running tool loop), and media become placeholders. Runs of short text blocks, a message's or a tool
    result's, are cut as one text (see :func:`merge_short_runs`)."""
    out: list[Block] = []
    for b in merge_short_runs(blocks) if ratio < 1 else blocks:
        kind = b.get("type")
        if kind == "text":
            text = str(b.get("text", ""))
            if cuttable(text, counter):
                b = {**b, "text": _cut_text(text, ratio, counter.count_block(b), origin)}
        elif kind in ("thinking", "redacted_thinking"):
            if not keep_thinking:
                continue
        elif kind in ("image", "document"):
            b = image_placeholder(b, origin)
        elif kind == "tool_use":
            b = {**b, "input": _cut_json(b.get("input", {}), ratio, counter, origin)}
        elif kind == "tool_result":
            content = b.get("content", "")
            if isinstance(content, str):
                if cuttable(content, counter):
                    b = {**b, "content": _cut_text(content, ratio, counter.count_block(_text(content)), origin)}
            else:
                b = {**b, "content": excerpt_blocks(list(content), ratio, counter, origin) or NO_OUTPUT}
        out.append(b)
    if any(b.get("type") in PROVIDER_TYPES for b in out):
        out = excerpt_provider(out, lambda text: _cut_text(text, ratio, counter.count_block(_text(text)), origin))
    return out


_LEADING = frozenset({"thinking", "redacted_thinking", "tool_result"})


def date_headers(work: list[Work], timestamp_of: Callable[[str], float | None]) -> None:
    """Open each stored message whose date (UTC) differs from the previous dated message's with a
    ``[8 May 2023]`` text block, placed after any leading thinking and tool_result blocks (which must
    come first). Like a name prefix, the header does not count as an alteration of the message."""
    last: str | None = None
    for m in work:
        if m.origin is None:
            continue
        ts = timestamp_of(m.origin)
        if ts is None:
            continue
        day = format_date(ts)
        if day == last:
            continue
        last = day
        at = 0
        while at < len(m.blocks) and m.blocks[at].get("type") in _LEADING:
            at += 1
        m.blocks = [*m.blocks[:at], {"type": "text", "text": f"[{day}]"}, *m.blocks[at:]]
        m.flags = block_flags(m.blocks)
        m.tokens = None
