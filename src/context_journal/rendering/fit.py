"""The compiler's working steps: prepared message forms, entries to working messages and the repair
passes in order, fitting to the budget (re-selection, excerpts), cache breakpoints, provenance and
coverage. Private to :mod:`context_journal.compile`."""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from ..sharding import layout_of
from ..stores.fulltext import format_date
from ..tokens import TokenCounter
from .reduce import CALL_KINDS, LOOP_NOTE, ToolCap, excerpt_tool_results, note_floor
from .repairs import (
    F_IMAGE,
    F_MEDIA,
    F_PROBLEM,
    F_PROVIDER,
    F_THINKING,
    F_TOOL_RESULT,
    F_TOOL_USE,
    QUOTED_DETAIL,
    CompiledMessage,
    Instruction,
    Pass,
    Repair,
    Source,
    Work,
    block_flags,
    clean_blocks,
    date_headers,
    drop_empty,
    drop_old_thinking,
    last_compaction_only,
    lead_with_user,
    limit_images,
    message_line_text,
    pair_tools,
    place_tool_blocks,
    quote_call_inputs,
    quote_markers,
    rename_reused_server_calls,
    superseded_calls,
    trim_final_whitespace,
)
from .selection import ContextEntry, RawSpan, RenderedEntry, Selection
from .transcript import Transcript, call_short_form

if TYPE_CHECKING:
    from ..messages import Message
    from ..views import MessageView, ViewEntry
    from .options import CompileOptions, Injection, Roles

Block = dict[str, Any]


class RenderCache:
    """Prepared forms of message versions (block dicts, flags, metadata role, tokens), keyed by id and
    sequence (and name prefix for named turns), so a compile pays for parsing a message version once.
    Bounded: the least recently used forms are dropped first.

    Args:
        size: Message versions kept.
    """

    def __init__(self, size: int = 16384) -> None:
        self._base: OrderedDict[tuple[str, int], tuple[list[Block], int, Any, int | None]] = OrderedDict()
        self.quoted: set[tuple[str, int]] = set()
        """The message versions whose text quotes a cut marker (see :func:`.repairs.quote_markers`)."""
        self._named: OrderedDict[tuple[str, int, str], tuple[list[Block], int, int]] = OrderedDict()
        self._shards: dict[tuple[str, int], dict[str, Any]] = {}
        self.size = size
        self._layouts: OrderedDict[Any, tuple[Any, ...]] = OrderedDict()

    def kept_prefix(self, key: Any, layout: tuple[Any, ...]) -> int:
        """How many leading messages of ``layout`` (see :func:`layout_of_work`) the last compile under
        ``key`` (its namespace, branch, budget, strategy, system prompt and options) sent the same; the
        layout is then remembered under ``key`` (the last 16 keys, as one hash a message)."""
        previous = self._layouts.pop(key, ())
        self._layouts[key] = layout
        if len(self._layouts) > 16:
            self._layouts.popitem(last=False)
        same = 0
        for a, b in zip(previous, layout, strict=False):
            if a != b:
                break
            same += 1
        return same

    @property
    def has_shards(self) -> bool:
        """Whether a message version this cache prepared is a shard (the join pass runs only then)."""
        return bool(self._shards)

    def shard(self, message_id: str, sequence: int) -> tuple[list[Block], dict[str, Any]] | None:
        """``(blocks as stored, shard layout)`` of a message version this cache prepared that is a shard
        of a body group (see :mod:`context_journal.sharding`), else None."""
        key = (message_id, sequence)
        layout = self._shards.get(key)
        base = self._base.get(key)
        if layout is None or base is None:
            return None
        return base[0], layout

    def base(self, entry: ViewEntry, load: Callable[[], Message]) -> tuple[list[Block], int, Any, int | None]:
        """``(blocks, flags, metadata role, tokens)`` of a message version as stored (a cut marker its text
        quotes opened otherwise, see :func:`.repairs.quote_markers`; then its tokens None: counted again)."""
        key = (entry.id, entry.sequence)
        hit = self._base.get(key)
        if hit is not None:
            return hit
        msg = load()
        blocks = msg.content_dicts()
        tokens: int | None = entry.tokens
        quoted = quote_markers(blocks)
        if quoted is not None:
            blocks, tokens = quoted, None
            self.quoted.add(key)
        role = msg.metadata.get("role")
        value = (blocks, block_flags(blocks), role if isinstance(role, str) else None, tokens)
        self._base[key] = value
        layout = layout_of(msg.metadata)
        if layout is not None:
            self._shards[key] = layout
        if len(self._base) > self.size:
            gone, _ = self._base.popitem(last=False)
            self._shards.pop(gone, None)
            self.quoted.discard(gone)
        return value

    def holds(self, entry: ViewEntry) -> bool:
        """Whether this cache has prepared the message version (:meth:`base` reads nothing for it)."""
        return (entry.id, entry.sequence) in self._base

    def prefetch(self, view: MessageView, entries: list[ViewEntry]) -> None:
        """Load, in one store round trip, the bodies of the entries this cache has not prepared yet."""
        missing = [e for e in entries if (e.id, e.sequence) not in self._base]
        if len(missing) > 1:
            for e, msg in zip(missing, view.messages_for(missing), strict=True):
                self.base(e, partial(_same, msg))

    def named(
        self, entry: ViewEntry, blocks: list[Block], prefix: str, counter: TokenCounter
    ) -> tuple[list[Block], int, int]:
        """``(blocks, flags, tokens)`` of a message version rendered with a name prefix."""
        key = (entry.id, entry.sequence, prefix)
        hit = self._named.get(key)
        if hit is not None:
            return hit
        named = with_prefix(blocks, prefix)
        value = (named, block_flags(named), counter.count_message(entry.participant, named))
        self._named[key] = value
        if len(self._named) > self.size:
            self._named.popitem(last=False)
        return value


def _same(msg: Message) -> Message:
    return msg


def with_prefix(blocks: list[Block], prefix: str) -> list[Block]:
    """Name the speaker: prefix the first non-empty text block, or put a text block before the first
    image or document when there is no text (tool results and thinking are never named)."""
    out = list(blocks)
    for i, b in enumerate(out):
        if b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"].strip():
            out[i] = {**b, "text": prefix + b["text"]}
            return out
    for i, b in enumerate(out):
        if b.get("type") in ("image", "document", "tool_use"):
            out.insert(i, {"type": "text", "text": prefix.rstrip() or prefix})
            return out
    return out


def system_head(view: MessageView, roles: Roles, cache: RenderCache) -> int:
    """How many leading messages of the view are system-flagged."""
    k = 0
    n = len(view)
    while k < n:
        batch = view.entries(k, min(n, k + 8))
        for e in batch:
            if e.participant in roles.system:
                k += 1
                continue
            meta_role = cache.base(e, partial(view.message, e.position))[2]
            if roles.role(e.participant, meta_role) == "system":
                k += 1
                continue
            return k
    return k


def fresh_pass(p: Pass) -> Pass:
    """A new pass keeping the repairs made before the selection (system blocks)."""
    q = Pass()
    q.repairs = [r for r in p.repairs if r.kind == "system_block_dropped"]
    return q


def tokens_of(m: Work, counter: TokenCounter) -> int:
    if m.tokens is None:
        m.tokens = counter.count_message(m.participant, m.blocks)
    return m.tokens


_READ_BATCH = 512
"""Message bodies :func:`render` reads in one store round trip (well under :class:`RenderCache`'s size)."""


UNREAD_TEXT: list[Block] = [{"type": "text", "text": "[unread]"}]
"""The blocks of a message rendered unread (shared, never changed): a plain text message of the middle not
summarised yet that the compile cuts whole to fit (one note stands for it), so only its index entry (id,
sequence, participant, tokens) is used. The compiler checks that none is left in what it sends, and
otherwise compiles again reading every message."""


_QUOTED_KINDS = frozenset({"summary", "ledger", "newest"})
"""Rendered entries whose text is written from stored text (see :func:`.repairs.quote_markers`): not the
compile's notes and markers, nor the recall section (opened as it is written). Injections (the
working-state block, a host's text) are opened too."""


def render(
    view: MessageView,
    selection: Selection,
    roles: Roles,
    options: CompileOptions,
    counter: TokenCounter,
    cache: RenderCache,
    p: Pass,
    late: Sequence[tuple[Injection, list[Block]]],
    timestamp_of: Callable[[str], float | None] | None = None,
    opening: str | None = None,
    cap: ToolCap | None = None,
    image_budget: int | None = None,
    keep_whole: frozenset[str] = frozenset(),
    newest_image_budget: int | None = None,
    unread: frozenset[int] = frozenset(),
) -> list[Work]:
    """The selection as work messages, repaired (``opening``: the message that opens a running tool
    loop with thinking; its thinking is never dropped; ``cap``: the tool results (and with ``cap.texts``
    the messages of text) excerpted, as priced before the selection, but the messages of ``keep_whole``;
    ``image_budget``: the images of a message alone over it become placeholders, as priced before the
    selection; ``newest_image_budget``: the same for the newest message, when given; ``unread``: positions
    of plain text messages the caller knows render unchanged and are cut whole to fit (see
    :data:`UNREAD_TEXT`): priced from the index, their bodies are never read)."""
    work: list[Work] = []
    first_index: int | None = None
    who: dict[tuple[str, Any], tuple[str, str, Instruction | None]] = {}
    prefixes: dict[tuple[str, str], int] = {}  # (participant, prefix) -> what the prefix adds
    for entry in selection.entries:
        if isinstance(entry, RawSpan):
            if first_index is None:
                first_index = entry.start
            span = list(view.entries(entry.start, entry.end))
            # Read and rendered a batch at a time: prefetched all at once, the bodies of a span longer than
            # the cache were evicted before their turn came and read again one by one (50,000 tool messages
            # of a never-summarised history read twice, the second time in 50,000 round trips).
            for k in range(0, len(span), _READ_BATCH):
                batch = span[k : k + _READ_BATCH]
                cache.prefetch(view, [e for e in batch if e.position not in unread] if unread else batch)
                for e in batch:
                    if unread and e.position in unread:
                        role = roles.role(e.participant)
                        role = "user" if role == "system" else role
                        tokens = e.tokens + _prefix_tokens(
                            e.participant, roles.prefix(e.participant, role), counter, prefixes
                        )
                        work.append(
                            Work(e.participant, role, UNREAD_TEXT, 0, tokens, e.id, e.sequence, stored=e.tokens)
                        )
                        continue
                    blocks, flags, meta_role, count = cache.base(e, partial(view.message, e.position))
                    known = who.get((e.participant, meta_role))
                    if known is None:
                        role = roles.role(e.participant, meta_role)
                        said = ("developer" if meta_role == "developer" else "system") if role == "system" else None
                        role = "user" if role == "system" else role
                        prefix = roles.prefix(e.participant, role)
                        known = who[(e.participant, meta_role)] = (
                            role,
                            prefix,
                            None if said is None else Instruction(said, prefix),
                        )
                    role, prefix, instruction = known
                    if prefix:
                        blocks, flags, count = cache.named(e, blocks, prefix, counter)
                    if (e.id, e.sequence) in cache.quoted:
                        p.repairs.append(Repair("cut_marker_quoted", e.id, QUOTED_DETAIL))
                    # The cached list is shared: passes replace a message's list, never change it in place.
                    work.append(
                        Work(
                            e.participant,
                            role,
                            blocks,
                            flags,
                            count,
                            e.id,
                            e.sequence,
                            instruction=instruction,
                            stored=e.tokens,
                        )
                    )
        elif isinstance(entry, RenderedEntry):
            if first_index is None and entry.covers is not None:
                first_index = entry.covers[0]
            role = entry.role or roles.role(entry.participant)
            role = "user" if role == "system" else role
            blocks = [dict(b) for b in entry.content]
            if entry.kind in _QUOTED_KINDS:
                # (A summary, the working-state block or the newest message quoting a cut marker: opened as
                # a stored message's is, never read as a cut of it. A review saw a model's summary quoting
                # one re-marked "about 260385 of 654321 tokens cut here" for some 60 tokens.)
                blocks = quote_markers(blocks) or blocks
            if timestamp_of is not None and entry.kind == "marker" and entry.covers is not None:
                blocks = _with_date_range(blocks, view, entry.covers, timestamp_of)
            prefix = roles.prefix(entry.participant, role)
            if prefix:
                blocks = with_prefix(blocks, prefix)
            sources = [Source("summary", s.id, None, not s.partial, s.level) for s in entry.summaries]
            if entry.kind == "recall":
                sources += [Source("recall", mid, seq, complete) for mid, seq, complete in entry.recalled]
            elif entry.kind == "ledger":
                sources += [Source("ledger", mid, seq or None, complete) for mid, seq, complete in entry.recalled]
            elif entry.kind == "newest":
                sources += [Source("message", mid, seq, complete) for mid, seq, complete in entry.recalled]
            work.append(
                Work(
                    entry.participant,
                    role,
                    blocks,
                    block_flags(blocks),
                    None,
                    None,
                    kind=entry.kind,
                    sources=sources or [Source("synthetic", entry.kind)],
                    breakpoint=entry.cache_breakpoint,
                )
            )
    for inj, inj_blocks in late:
        blocks = quote_markers(list(inj_blocks)) or list(inj_blocks)  # (the working-state block, host text)
        item = Work(
            inj.participant,
            "user",
            blocks,
            block_flags(blocks),
            None,
            None,
            kind="injection",
            sources=[Source("injection", inj.label)],
        )
        _place_injection(work, item, inj.position)
    seen = 0
    for m in work:
        seen |= m.flags
    # Each pass runs only when some message carries what it repairs (plain chat skips them all).
    if seen & (F_PROBLEM | F_THINKING | F_MEDIA | F_PROVIDER):
        work = clean_blocks(work, p)
    if seen & F_PROVIDER:
        last_compaction_only(work, p)
        rename_reused_server_calls(work, p)
    if selection.superseded and seen & F_TOOL_USE:
        superseded_calls(work, p, selection.superseded)
    if seen & (F_TOOL_USE | F_TOOL_RESULT):
        work = place_tool_blocks(work, p)
        work = pair_tools(work, p, next(iter(sorted(roles.tool)), "tool"))
    if options.keep_thinking_turns is not None and seen & F_THINKING:
        drop_old_thinking(work, p, options.keep_thinking_turns, opening)
    work = drop_empty(work, p)
    work = lead_with_user(work, p, bool(first_index))
    # The final reply's trailing whitespace goes before anything is excerpted to fit (a review saw "ok" and
    # 3,000 spaces sent as its bare cut marker, where trimmed it takes 6 tokens); again at the end.
    work = trim_final_whitespace(work, p)
    if cap is not None and (cap.texts or seen & F_TOOL_RESULT):
        excerpt_tool_results(work, p, cap, counter, keep_whole)  # priced before selection
    if seen & F_IMAGE or (image_budget is not None and seen & (F_MEDIA | F_TOOL_RESULT)):
        limit_images(
            work,
            p,
            options.max_images,
            options.image_depth_tokens,
            lambda m: tokens_of(m, counter),
            image_budget,
            newest_image_budget,
        )
    if timestamp_of is not None:
        priced = {id(m): m.tokens for m in work if m.blocks is UNREAD_TEXT} if unread else {}
        date_headers(work, timestamp_of)
        for m in work:
            before = priced.get(id(m))
            if before is not None and m.blocks is not UNREAD_TEXT:
                # A date header went into a message rendered unread: its price plus the header's (it is
                # cut whole; only the note standing for it, which counts stored sizes, could show an error).
                m.tokens = before + counter.count_block(m.blocks[0])
    return trim_final_whitespace(work, p)


def _prefix_tokens(participant: str, prefix: str, counter: TokenCounter, memo: dict[tuple[str, str], int]) -> int:
    """What a name prefix adds to a message of ``participant`` (0 without one), as the counter prices a
    one-word message with and without it: a message rendered unread is priced as its index count plus
    this (it is cut whole, so the exact count is never needed)."""
    if not prefix:
        return 0
    found = memo.get((participant, prefix))
    if found is None:
        plain = counter.count_message(participant, [{"type": "text", "text": "x"}])
        named = counter.count_message(participant, [{"type": "text", "text": prefix + "x"}])
        found = memo[(participant, prefix)] = max(0, named - plain)
    return found


def _with_date_range(
    blocks: list[Block], view: MessageView, covers: tuple[int, int], timestamp_of: Callable[[str], float | None]
) -> list[Block]:
    """A summary's marker turn with the dates its messages span (``(8 May 2023 to 9 June 2023)``)."""
    start, end = covers
    if not blocks or blocks[-1].get("type") != "text" or end <= start or end > len(view):
        return blocks
    first, last = timestamp_of(view.entry(start).id), timestamp_of(view.entry(end - 1).id)
    if first is None or last is None:
        return blocks
    a, b = format_date(first), format_date(last)
    span = a if a == b else f"{a} to {b}"
    return [*blocks[:-1], {**blocks[-1], "text": f"{blocks[-1]['text']} ({span})"}]


def _place_injection(work: list[Work], item: Work, position: str) -> None:
    if position == "before_last_user":
        for i in range(len(work) - 1, -1, -1):
            if work[i].role == "user":
                if any(b.get("type") == "tool_result" for b in work[i].blocks):
                    break  # an answer turn: put the injection after it
                work.insert(i, item)
                return
    work.append(item)


def layout_of_work(work: list[Work], p: Pass) -> tuple[Any, ...]:
    """What identifies each message ``work`` sends, for :meth:`RenderCache.kept_prefix` (a hash each): a
    stored message sent as stored by its id and sequence, any other (cut, rendered, a note) by its role and
    blocks."""
    return tuple(
        hash((m.role, m.origin, m.sequence))
        if m.origin is not None and m.origin not in p.altered
        else hash((m.role, repr(m.blocks)))
        for m in work
    )


def mark_breakpoints(work: list[Work], limit: int, kept: int = 0) -> tuple[int, ...]:
    """Mark at most ``limit`` of ``work`` for a prompt-cache breakpoint; ``kept``: how many leading messages
    the previous compile of the same key sent the same (:meth:`RenderCache.kept_prefix`). Returns the
    positions marked, most important first (what an exporter keeps when a request has fewer markers left:
    :attr:`CompileResult.cache_priority`)."""
    if not work or limit <= 0:
        for m in work:
            m.breakpoint = False
        return ()
    # By priority: the last message (the next request extends the prompt), the strategy's breakpoints,
    # newest first (where its next change most likely starts), the end of the prefix the previous compile
    # sent the same (issue 13, kind 5: "markers are placed on the longest prefix that did not change since
    # the previous compile"; the next compile most likely keeps it too: a strategy that asks for none, or
    # an autobiographical one not sized for the budget, whose note of what is not summarised yet changes
    # every turn, had its prompt's start cached on 26% of a review's turns), then the message before the
    # last assistant turn (read back when that turn is trimmed or replaced).
    last = len(work) - 1
    order = [last, *sorted((i for i, m in enumerate(work) if m.breakpoint and i != last), reverse=True)]
    # The message before the working-state block: with the block placed before the newest user turn, the
    # prompt up to there stays the same until the next user turn moves the block, and that compile reads it
    # back only if it was marked (a replay of a real Claude Code session whose model's replies opened user
    # turns: half the prompt from the cache on 46% of compiles with the block steady but unmarked, 58%
    # marked). It ranks after the strategy's newest breakpoint.
    block = next((i for i, m in enumerate(work) if any(s.kind == "ledger" for s in m.sources)), None)
    if block is not None and block >= 2:
        order.insert(min(2, len(order)), block - 2)
    if 0 < kept < last:
        order.append(kept - 1)
    for i in range(last, 0, -1):
        if work[i].role == "assistant":
            order.append(i - 1)
            break
    ranked = tuple(list(dict.fromkeys(order))[:limit])
    for i, m in enumerate(work):
        m.breakpoint = i in ranked
    return ranked


def finish(m: Work, p: Pass, counter: TokenCounter) -> CompiledMessage:
    role: Literal["user", "assistant"] = "assistant" if m.role == "assistant" else "user"
    tokens = m.tokens if m.tokens is not None else tokens_of(m, counter)
    if m.origin is not None:
        own = Source("message", m.origin, m.sequence, m.origin not in p.altered)
        if not m.sources:
            return CompiledMessage(m.participant, role, tuple(m.blocks), m.breakpoint, (own,), tokens, m.instruction)
        sources = (own, *(_recheck(s, p) for s in m.sources if not (s.kind == "message" and s.id == m.origin)))
    else:
        sources = tuple(_recheck(s, p) for s in m.sources)
    return CompiledMessage(m.participant, role, tuple(m.blocks), m.breakpoint, sources, tokens, m.instruction)


def _recheck(s: Source, p: Pass) -> Source:
    if s.kind == "message" and s.complete and s.id in p.altered:
        return s._replace(complete=False)
    return s


def coverage(view: MessageView, selection: Selection) -> tuple[int, tuple[tuple[str, str, int, str], ...]]:
    """``(positions of the view the selection shows, the spans it left out on purpose that nothing shows:
    (first id, last id, count, reason))``: raw spans, the ranges rendered entries cover, and messages
    rendered as newest count as shown."""
    spans: list[tuple[int, int]] = []
    for entry in selection.entries:
        if isinstance(entry, RawSpan):
            spans.append((entry.start, entry.end))
        elif entry.covers is not None:
            spans.append(entry.covers)
        elif entry.kind == "newest":  # messages rendered after the recent window, whole
            for mid, _, _ in entry.recalled:
                at = view.index_of(mid)
                if at is not None:
                    spans.append((at, at + 1))
    spans.sort()
    covered = 0
    reach = 0
    merged: list[tuple[int, int]] = []  # the covered positions, as disjoint sorted spans
    for a, b in spans:
        a = max(a, reach)
        if b > a:
            covered += b - a
            reach = b
            if merged and merged[-1][1] == a:
                merged[-1] = (merged[-1][0], b)
            else:
                merged.append((a, b))
    omitted: list[tuple[str, str, int, str]] = []
    for a, b, reason in selection.omitted:
        # A span the strategy left out may have been brought back since (the running tool loop's opening
        # and steps, put back raw after selection): only what is still not covered is omitted.
        for x, y in _uncovered(a, b, merged):
            omitted.append((view.entry(x).id, view.entry(y - 1).id, y - x, reason))
    return covered, tuple(omitted)


def _uncovered(a: int, b: int, covered: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``[a, b)`` outside the disjoint sorted spans ``covered``."""
    out: list[tuple[int, int]] = []
    at = a
    for x, y in covered[max(0, bisect.bisect_right(covered, (a, a)) - 1) :]:
        if x >= b:
            break
        if y <= at:
            continue
        if x > at:
            out.append((at, x))
        at = max(at, y)
    if at < b:
        out.append((at, b))
    return out


def transcribe_running_turn(work: list[Work], turn: Sequence[str], p: Pass, whole: bool = False) -> list[Work]:
    """``work`` with the messages of a running tool loop (ids ``turn``, oldest first, the first opening
    with thinking) brought in as one user note holding their transcript, when they are rendered without
    the loop's opening message right before them (or always, with ``whole``: the loop does not fit even
    shortened).

    With extended thinking on, a loop still running must be sent from its thinking opening or not at
    all (bug case B62); as a transcript in a user turn, its calls and results stay readable and the
    model opens a new turn with its own thinking.
    """
    ids = set(turn)
    at = [i for i, m in enumerate(work) if m.origin in ids]
    opening = next((i for i in at if work[i].origin == turn[0]), None)
    if not whole and opening is not None:
        # Raw from the opening on, as long as nothing else comes between; what comes after a break
        # (a summary pair between the head's copy of the opening and the newest steps) is detached.
        run = opening
        # A loop message rendered as a user text (another speaker's call, shown as text) ends the run:
        # the user turn it makes would leave the steps after it without their thinking. Results the
        # repairs wrote for a call of the loop (a stub for a call never answered) go on with it (a review
        # saw the steps after such a call sent as a transcript after the raw opening: a partial turn).
        calls = {b.get("id") for m in work if m.origin in ids for b in m.blocks if b.get("type") == "tool_use"}
        while run + 1 < len(work) and _loop_step(work[run + 1], ids, calls):
            run += 1
        at = [i for i in at if i > run]
    if not at:
        return work
    # Stored results the repairs moved into a turn of their own to follow their call (origin None) go
    # with that call into the transcript, named as its sources (fuzz: they were dropped with the stubs,
    # their content and ids gone).
    inside = {b.get("id") for i in at for b in work[i].blocks if b.get("type") == "tool_use"}
    moved_turns = [
        j
        for j, m in enumerate(work)
        if m.origin is None
        and j > at[0]
        and m.blocks
        and any(src.kind == "message" for src in m.sources)
        and all(b.get("type") == "tool_result" and b.get("tool_use_id") in inside for b in m.blocks)
    ]
    at = sorted({*at, *moved_turns})
    # Results answering calls that stay raw (a stub the repairs merged into a transcribed user turn)
    # stay raw too, right before the note: a raw call must keep its result.
    at_set = set(at)
    raw_calls = {
        b.get("id") for j, m in enumerate(work) if j not in at_set for b in m.blocks if b.get("type") == "tool_use"
    }
    answers: list[Block] = []
    answered: list[Source] = []  # the stored results they came from (relocated into that turn)
    for i in at:
        kept = [b for b in work[i].blocks if b.get("type") == "tool_result" and b.get("tool_use_id") in raw_calls]
        if kept:
            answers.extend(kept)
            answered += _moved_into(work[i])
            rest = [b for b in work[i].blocks if not any(b is k for k in kept)]
            work[i] = replace(work[i], blocks=rest, flags=block_flags(rest), tokens=None)
            work[i].sources = [s for s in work[i].sources if s not in answered]
    # (Markers the calls' inputs quote are opened as a stored message's are: read as cuts of the transcript.)
    written = [quote_call_inputs(work[i].blocks) for i in at]
    lines = [_transcript_line(work[i], blocks) for i, blocks in zip(at, written, strict=True)]
    transcript = Transcript(
        tuple(lines),
        tuple(call_short_form(work[i].participant, blocks) for i, blocks in zip(at, written, strict=True)),
        tuple(
            (
                sum(1 for b in work[i].blocks if b.get("type") == "tool_use"),
                sum(1 for b in work[i].blocks if b.get("type") == "tool_result"),
            )
            for i in at
        ),
    )
    # The heading counts the calls: an excerpt of the transcript may cut a call's line with the results
    # around it (a review saw 1 of 3 calls shown at 100-220 tokens, the rest inside cut markers).
    n_calls = sum(1 for i in at for b in work[i].blocks if b.get("type") == "tool_use")
    held = f"its {n_calls} calls and their results" if n_calls != 1 else "its call and its result"
    heading = f"[The current turn so far, {held} as a transcript:]"
    # The note that opened the loop goes: the transcript is a user turn of its own. When it named
    # messages of the loop not shown, the transcript says so instead.
    # What the transcript holds: each message, and the results moved into it (relocated to follow their
    # call, into the turn of another speaker who wrote while the loop ran).
    moved = [s for i in at for s in _moved_into(work[i])]
    present = {work[i].origin for i in at} | {s.id for s in moved}
    opened: list[int] = []
    gap: list[str] = []
    if turn[0] in present:  # the whole loop goes into the transcript: it replaces the opening's note
        opened = [i for i, m in enumerate(work) if m.sources and m.sources[0] == _OPENING and i < at[0]]
        last = max(k for k, mid in enumerate(turn) if mid in present)
        orphans = _dropped_answers(p)
        gap = [mid for mid in turn[:last] if mid not in present and mid not in orphans]
    if gap:
        heading = (
            f"[The current turn so far, {held} as a transcript; {len(gap)} of its messages "
            "are not shown (left out to fit the budget, or summarised above); the journal keeps them:]"
        )
    p.repair("running_turn_transcribed", None, f"{len(at)} messages of the running tool loop sent as a transcript")
    for i in at:
        if (origin := work[i].origin) is not None:
            p.altered.add(origin)
    note = Work(
        "context-journal",
        "user",
        # The heading is a block of its own, short enough that an excerpt never cuts it (only the
        # transcript below it is cut): what it says about steps not shown always reaches the model.
        [{"type": "text", "text": heading}, {"type": "text", "text": "\n".join(lines)}],
        0,
        None,
        None,
        kind="note",
        transcript=transcript,
        sources=[
            LOOP_NOTE,
            *(Source("message", origin, work[i].sequence, False) for i in at if (origin := work[i].origin)),
            *(s._replace(complete=False) for s in moved),
        ],
    )
    first = at[0]
    skip = set(at) | set(opened)
    kept_answers = (
        [
            Work(
                "tool",
                "user",
                answers,
                block_flags(answers),
                None,
                None,
                kind="answer",
                sources=answered or [Source("synthetic", "tool results")],
            )
        ]
        if answers
        else []
    )
    # Results the compiler added for calls now in the transcript (stubs of unanswered calls) go too.
    calls = {b.get("id") for i in at for b in work[i].blocks if b.get("type") == "tool_use"}
    for i, m in enumerate(work):
        if i not in skip and m.origin is None and any(b.get("tool_use_id") in calls for b in m.blocks):
            kept = [b for b in m.blocks if not (b.get("type") == "tool_result" and b.get("tool_use_id") in calls)]
            if kept:
                m.blocks, m.flags, m.tokens = kept, block_flags(kept), None
            else:
                skip.add(i)
    return [
        *(m for i, m in enumerate(work[:first]) if i not in skip),
        *kept_answers,
        note,
        *(m for i, m in enumerate(work) if i > first and i not in skip),
    ]


_OPENING = Source("synthetic", "running turn opening")


def _moved_into(m: Work) -> list[Source]:
    """The stored messages whose content the repairs moved into ``m`` (results relocated to follow
    their call): its message sources other than its own."""
    return [s for s in m.sources if s.kind == "message" and s.id != m.origin]


def _dropped_answers(p: Pass) -> set[str | None]:
    """Messages the repairs left out as results of calls the context does not hold (orphans, repeats):
    not steps of a running loop, so no note counts them (the repairs say they went)."""
    return {r.message_id for r in p.repairs if r.kind in ("orphan_result_dropped", "duplicate_result_dropped")}


def _transcript_line(m: Work, blocks: list[Block]) -> str:
    """``participant: text`` of one message of a transcript, ``m`` written as ``blocks`` (the name once, also
    when the renderer already opened the text with it)."""
    text = message_line_text(blocks)
    prefix = f"{m.participant}: "
    return text if text.startswith(prefix) else prefix + text


def _loop_step(m: Work, ids: set[str], calls: set[Any]) -> bool:
    """Whether ``m`` goes on with a running loop's raw run (message ids ``ids``, calls ``calls``): a step of
    the loop rendered as one, or results answering only its calls that the repairs wrote or moved there."""
    if m.origin is None:
        return bool(m.blocks) and all(
            b.get("type") == "tool_result" and b.get("tool_use_id") in calls for b in m.blocks
        )
    return m.origin in ids and _loop_message(m)


def _loop_message(m: Work) -> bool:
    if m.role == "assistant":
        return bool(m.flags & F_TOOL_USE)
    return bool(m.blocks) and all(b.get("type") == "tool_result" for b in m.blocks)


def separate_running_turn(work: list[Work], turn: Sequence[str], p: Pass) -> list[Work]:
    """``work`` with a short user note right before the running tool loop's opening message ``turn[0]``
    when what precedes it would read as part of that loop: an assistant message (the exporters merge
    it into the opening, which then no longer starts with its thinking) or older tool results (the
    turns between rendered as nothing). The provider then sees the loop open with its thinking (bug
    case B62).

    The compiler sends a loop raw only whole (:func:`with_loop_opening`; B62: never a partial turn), so
    no step between its opening and its newest is missing; should one be (a layout this pass cannot
    foresee), the note says how many and that the journal keeps them rather than let it go without a
    word (DESIGN invariant 12): a note inside the loop would end it (a user text starts a new turn, which
    must open with thinking of its own), so it goes before the opening."""
    at = next((i for i, m in enumerate(work) if m.origin == turn[0]), None)
    if at is None:
        return work
    # Shown: rendered raw, also merged into another message (results moved to follow their call, which
    # may come before the opening: results answering a call made before the loop are shown there).
    # Not a step of the loop: a message of results answering calls before it, dropped as orphans.
    shown = {m.origin for m in work} | {s.id for m in work for s in m.sources if s.kind == "message"}
    orphans = _dropped_answers(p)
    last = max((k for k, mid in enumerate(turn) if mid in shown), default=0)
    missing = [mid for mid in turn[: last + 1] if mid not in shown and mid not in orphans]
    before = work[at - 1] if at else None
    if not missing and (before is None or (before.role == "user" and not _loop_message(before))):
        return work
    text = "[The current turn:]"
    sources = [_OPENING]
    if missing:
        text = (
            f"[The current turn: its opening step, then its newest steps; {len(missing)} of its messages "
            "between them are not shown here (left out to fit the budget, or summarised above); the journal "
            "keeps them.]"
        )
        span = f"{missing[0]} to {missing[-1]}" if len(missing) > 1 else missing[0]
        p.repair("running_turn_gap", None, f"{len(missing)} messages of the running tool loop not shown ({span})")
    else:
        p.repair("running_turn_opened", None, "a user note opens the running tool loop's turn")
    # The messages not shown are not sources of the note (none of their content is in it): the
    # compile counts them as left out, in ``dropped`` and ``omitted``.
    blocks: list[Block] = [{"type": "text", "text": text}]
    note = Work("context-journal", "user", blocks, 0, None, None, kind="note", sources=sources)
    return [*work[:at], note, *work[at:]]


def with_loop_opening(selection: Selection, start: int, asked: int | None = None) -> Selection:
    """``selection`` with every message of the running tool loop that starts at ``start`` (its first
    message, which holds the thinking, to the newest) rendered raw as one span, when the strategy shows
    any of it raw: a loop still running is sent whole from its thinking opening or not at all (bug case
    B62; the compiler then shortens bulky results, and when even that cannot fit, sends the whole loop as
    one transcript). What stood for the loop's middle (gaps, summaries and their pairs) gives way.
    ``asked``: the position of the user turn the loop answers (kept raw with the loop unless another
    entry stands for it). What the strategy shows raw stays raw."""
    entries = list(selection.entries)
    raw = [(k, e) for k, e in enumerate(entries) if isinstance(e, RawSpan)]
    into = [(k, e) for k, e in raw if e.end > start]  # raw spans that show some of the loop
    if not into:
        return selection  # none of the loop raw
    if len(into) == 1 and into[0][1].start <= (start if asked is None else asked):
        return selection  # one raw span holds the loop from its opening (and the question it answers)
    # One raw span from the opening (or the span holding it) to the newest raw message; what
    # stood for the loop's middle in between (gaps, summaries and their pairs) gives way.
    k_last, last = into[-1]
    begin = min(start, into[0][1].start)
    drop: set[int] = {k for k, _ in into}
    for j, e in enumerate(entries):
        if entry_after(e, start) or (
            j - 1 in drop and isinstance(e, RenderedEntry) and e.covers is None and e.kind == "summary"
        ):
            drop.add(j)
    if (
        asked is not None
        and asked < begin
        and not any(_stands_for(e, asked) for j, e in enumerate(entries) if j not in drop)
    ):
        begin = asked
    span = RawSpan(begin, last.end)
    out = [span if j == k_last else e for j, e in enumerate(entries) if j == k_last or j not in drop]
    return replace(selection, entries=tuple(out))


def _stands_for(entry: ContextEntry, position: int) -> bool:
    if isinstance(entry, RawSpan):
        return entry.start <= position < entry.end
    return entry.covers is not None and entry.covers[0] <= position < entry.covers[1]


def entry_after(entry: ContextEntry, position: int) -> bool:
    """True for an entry that stands for messages at or after view ``position`` only."""
    if isinstance(entry, RawSpan):
        return entry.start >= position
    return entry.covers is not None and entry.covers[0] >= position


# --- the cheapest valid cover: a lower bound priced from the index ---------------------------------


def _minus(spans: Sequence[tuple[int, int]], cut: Sequence[tuple[int, int]]) -> tuple[list[tuple[int, int]], ...]:
    """``(spans without cut, spans within cut)``: the position ranges of ``spans`` outside and inside the
    ranges of ``cut`` (each list oldest first; empty ranges left out)."""
    cuts = sorted((a, b) for a, b in cut if b > a)
    outside: list[tuple[int, int]] = []
    inside: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        at = a
        for c, d in cuts:
            if d <= at or c >= b:
                continue
            if c > at:
                outside.append((at, c))
            inside.append((max(at, c), min(b, d)))
            at = min(b, d)
            if at >= b:
                break
        if at < b:
            outside.append((at, b))
    return outside, inside


def cover_floor(
    view: MessageView,
    selection: Selection,
    counter: TokenCounter,
    limit: int,
    end: int | None = None,
    own_calls: Callable[[ViewEntry], bool] = lambda entry: True,
    min_count: int = 0,
    plain: Callable[[ViewEntry], bool] | None = None,
    most: int | None = None,
) -> tuple[int, int, int]:
    """A lower bound of the tokens the raw messages of ``selection`` take in a compiled context however
    the compile cuts them (see :func:`spans_floor`, which ``plain`` and ``most`` are passed to), split into
    outside and inside what may go whole (``selection.give_way`` and ``selection.last_resort``: the recent
    window's oldest turns give way whole as a last resort, closed tool units too, and so do the turns of the
    head window, ``selection.protected``, but its first message), and how many raw messages it selects
    (before ``end``).

    No entry is read (the floor is given as 0) when the raw messages are ``min_count`` or fewer, or their
    tokens are ``limit`` or fewer (no floor exceeds them): only a selection that may prove a failure is
    scanned.

    Returns:
        ``(floor outside the middle giving way, floor inside it, raw messages selected)``, in estimated
        tokens (the last resort's part is the first one's: it need not be content not summarised yet).
    """
    stop = len(view) if end is None else min(end, len(view))
    raw = [(e.start, min(e.end, stop)) for e in selection.entries if isinstance(e, RawSpan) and e.start < stop]
    count = sum(b - a for a, b in raw)
    if count <= min_count or sum(view.tokens(a, b) for a, b in raw) <= limit:
        return 0, 0, count
    # What may go whole: the middle, the recent window's oldest turns and the head window's turns but its first
    # message (they give way, after the recent turns, when cut to next to nothing).
    head = [(a + 1, b) if k == 0 else (a, b) for k, (a, b) in enumerate(selection.protected)]
    last = (*selection.last_resort, *((a, b) for a, b in head if b > a))
    outside, inside = _minus(raw, (*selection.give_way, *last))
    middle, late = _minus(inside, last)
    spans = [(a, b, 0) for a, b in outside] + [(a, b, 1) for a, b in middle] + [(a, b, 2) for a, b in late]
    rest, middle_floor, _ = spans_floor(view, spans, counter, limit, end, own_calls, plain, most)
    return rest, middle_floor, count


def spans_floor(
    view: MessageView,
    spans: Iterable[tuple[int, int, int]],
    counter: TokenCounter,
    limit: int,
    end: int | None = None,
    own_calls: Callable[[ViewEntry], bool] = lambda entry: True,
    plain: Callable[[ViewEntry], bool] | None = None,
    most: int | None = None,
) -> tuple[int, int, int]:
    """A lower bound of the tokens the messages of ``spans`` (``(start, end, gives_way)``, positions of
    ``view``), rendered raw, take in a compiled context however the compile cuts them, priced from the
    index (no body read). ``gives_way`` is false (kept, excerpted at most), true or 1 (the middle not
    summarised yet, which gives way first) or 2 (the recent window's oldest turns, which give way as a
    last resort: priced as the middle, counted with the spans kept).

    What no reduction removes: every message holding a call of the assistant's own (``own_calls`` of
    its entry) stays, a call is excerpted but never dropped, and it is answered in the next turn (by
    its result, excerpted, or a stub): at no less than a message with one empty call plus one empty
    result block; but in the spans giving way, a message of calls that may open a closed tool unit (see
    :func:`context_journal.rendering.reduce.closed_unit`: whether its results answer exactly its calls
    is not in the index) may go whole, and is priced at 0. With ``plain`` (which messages of the spans
    giving way the compile either keeps, at a token or more, or cuts into a note: the caller knows), those
    count one token each, up to one note's smallest size (see
    :func:`context_journal.rendering.reduce.note_floor`): kept, they take that much; cut, a note
    stands for them. Everything else is priced at 0: plain messages outside the spans giving way (they
    can be excerpted), other speakers' calls (shown as text, which gives way like plain text), summaries
    and every other rendered entry. Messages at or after ``end`` (a running tool loop, which may become
    one transcript) are left out; spans should not overlap.

    The scan stops once the bound passes ``limit`` tokens: a bound over ``limit`` is a proof, its exact
    size is not needed. With ``most``, it goes on until it has covered that many messages (so the figure an
    error names does not stop just past the budget: a review saw it rise with each budget tried), and
    at most that many messages of the spans giving way are scanned (the bound of the rest is taken as 0:
    still a lower bound, read in bounded time). Cost: the index
    entries scanned, at most those of the spans, in practice about ``limit / floor`` calls' worth (a few
    hundred entries for an impossible budget); none where the index holds no call, once ``plain`` has
    found a note's worth.

    Args:
        view: The view the spans are positions of.
        spans: ``(start, end, gives_way)`` ranges, read in the order given (an iterator is read only
            as far as needed).
        counter: The compile's token counter.
        limit: Stop once the bound exceeds this many tokens.
        end: Leave positions at or after it out (default: none left out).
        own_calls: Whether a message's calls are the assistant's own (rendered as calls, never as
            text); default: every message's.
        plain: Whether a message of the spans giving way is kept or cut into a note, never dropped
            otherwise (default: none counted).
        most: Scan at most this many messages of the spans giving way (default: all).

    Returns:
        ``(floor of the spans not giving way first, floor of those giving way first, messages covered)``,
        in estimated tokens (before calibration; the note's part goes with the middle's when the middle
        holds a plain message); the messages covered are those of the spans read so far, scanned or not.
    """
    from ..views import may_hold

    stop = len(view) if end is None else min(end, len(view))
    call = counter.count_message("assistant", [{"type": "tool_use", "id": "", "name": "", "input": {}}])
    floor = max(0, call + counter.count_block({"type": "tool_result", "tool_use_id": "", "content": ""}))
    calls = floor > 0 and may_hold(view, ("tool_use",))  # none anywhere the view reads: no call to count
    note = note_floor(counter) if plain is not None else 0
    totals = [0, 0, 0]  # kept, the middle, the last resort
    found = [0, 0, 0]  # plain messages of the middle and the last resort (kept at a token each, or a note)
    covered = middle_scanned = 0

    def split() -> tuple[int, int]:
        plain_floor = min(note, found[1] + found[2])
        into_middle = plain_floor if found[1] else 0
        return totals[0] + totals[2] + plain_floor - into_middle, totals[1] + into_middle

    for a, b, flag in spans:
        gives_way = int(flag)
        b = min(b, stop)
        at = a
        while at < b:
            if sum(split()) > limit and (most is None or covered >= most):
                return (*split(), covered)
            useful = calls or (gives_way and found[1] + found[2] < note)
            if not useful or (gives_way and most is not None and middle_scanned >= most):
                break
            end = min(b, at + 512)
            entries = view.entries(at, end + 1 if gives_way and end < b else end)  # one more: the next's kinds
            covered += end - at
            if gives_way:
                middle_scanned += end - at
            for k, e in enumerate(entries[: end - at]):
                if gives_way and plain is not None and plain(e):
                    found[gives_way] += 1
                if (
                    calls
                    and "tool_use" in e.kinds
                    and own_calls(e)
                    and not (gives_way and _may_close(e, entries[k + 1] if k + 1 < len(entries) else None))
                ):
                    totals[gives_way] += floor
            at = end
        covered += max(0, b - at)
    return (*split(), covered)


def _may_close(call: ViewEntry, after: ViewEntry | None) -> bool:
    """Whether the message of calls ``call`` may open a closed tool unit, as far as the index tells: only
    blocks of :data:`~context_journal.rendering.reduce.CALL_KINDS`, and the message after it (None: not
    in the span, unknown) holding only tool results or more calls."""
    if not all(k in CALL_KINDS for k in call.kinds):
        return False
    return after is None or all(k == "tool_result" for k in after.kinds) or all(k in CALL_KINDS for k in after.kinds)
