"""Reductions priced before selection (bug case B63): the compile's sure reductions (older images
shown as placeholders, tool results over ``CompileOptions.max_tool_result_tokens`` excerpted, and
without that cap, once a selection leaves messages out, the overflow reductions of :func:`overflow_cap`:
tool results and text messages over a quarter of what the strategy may fill) are
known before the strategy chooses what fits, through a :class:`PricedView` whose token sums already
hold them. So no message is left out that fits once reduced, and the repair passes in
:func:`context_journal.rendering.fit.render` apply the same reductions to what was chosen.

Cost: the pricing walks the view from the newest message back until the reduced sizes exceed what the
strategy may fill (older messages could not be rendered raw anyway), reading the bodies of the
messages that carry tool results or images among them: what the compile renders, not the history.
Private to :mod:`context_journal.compile`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

from .._block_types import SERVER_RESULT_TYPES
from .._provider_render import excerpt_provider, in_server_pair, without_reasoning
from ..sharding import group_of, is_shard_form
from .repairs import (
    _CUT_MARKER,
    F_PROVIDER,
    F_THINKING,
    F_TOOL_RESULT,
    F_TOOL_USE,
    Pass,
    Repair,
    Source,
    Work,
    _cut_text,
    _fewest,
    _rebuild,
    block_flags,
    cuttable,
    drop_empty,
    excerpt_blocks,
    image_placeholder,
    lead_with_user,
    merge_short_runs,
    share_kept,
    text_tokens_kept,
)
from .transcript import cut_transcript

if TYPE_CHECKING:
    from ..messages import Message
    from ..tokens import TokenCounter
    from ..views import MessageView, ViewEntry
    from .fit import RenderCache
    from .options import CompileOptions

__all__ = [
    "AUTO_CAP_SHARE",
    "PricedView",
    "ToolCap",
    "cut_phrase",
    "excerpt_tool_results",
    "messages_cut",
    "overflow_cap",
    "price_reductions",
    "priced",
    "reduce_text",
    "reduce_tool_results",
    "shrink",
    "tool_cap",
    "widened",
]

Block = dict[str, Any]


def _text_tokens(b: Mapping[str, Any], counter: TokenCounter) -> int:
    """Tokens of a tool_result's text (what an excerpt can cut; images stay to the image limit)."""
    content = b.get("content", "")
    if isinstance(content, str):
        return counter.count_block({"type": "text", "text": content})
    n_text = sum(counter.count_block(n) for n in content if n.get("type") == "text")
    # A search result in a tool result is cut like its text: its text blocks count.
    return n_text + sum(_text_tokens(n, counter) for n in content if n.get("type") == "search_result")


def _excerpt_result(b: Mapping[str, Any], ratio: float, size: int, counter: TokenCounter) -> Block:
    """A tool_result block with its text cut to about ``ratio`` (images and pairing kept)."""
    content = b.get("content", "")
    if isinstance(content, str):
        return {**b, "content": _cut_text(content, ratio, size, None)}
    out: list[Any] = []
    # Runs of short text blocks cut as one text, as the excerpt after the selection cuts them: priced whole
    # here, a result of 60 short blocks was kept and then cut to its bare marker at 87 tokens, where the same
    # text as one string is priced as its excerpt and gives way with its call (review).
    for n in merge_short_runs(list(content)):
        if n.get("type") == "text" and cuttable(str(n.get("text", "")), counter):
            n = {**n, "text": _cut_text(str(n["text"]), ratio, counter.count_block(n), None)}
        elif n.get("type") == "search_result" and isinstance(n.get("content"), list):
            n = _excerpt_result(n, ratio, size, counter)  # its source and title kept, its text cut
        out.append(n)
    return {**b, "content": out}


class ToolCap(NamedTuple):
    """Which tool results a compile excerpts, priced before the selection and applied after it."""

    over: int
    """Results with more text tokens than this are excerpted."""
    to: int
    """To about this many tokens."""
    kind: str
    """The repair reported: ``tool_result_excerpted`` (the host's cap) or ``excerpted`` (to fit)."""
    texts: bool = False
    """Messages of text blocks only with more text tokens than ``over`` are excerpted too (the compile's
    overflow reductions, see :func:`overflow_cap`)."""
    first: ToolCap | None = None
    """A cap applied before this one (the host's, under the overflow reductions)."""


AUTO_CAP_SHARE = 4
"""Without ``CompileOptions.max_tool_result_tokens``, once a selection leaves messages out, a tool result
or text message larger than ``1 / AUTO_CAP_SHARE`` of what the strategy may fill is excerpted to about
that size (then widened into the room left), so the messages before it still fit (bug
case B63; ``--overflow window`` once filled 626 of 4,000 tokens)."""


FITTED_SHARE_FLOOR = 32
"""The smallest overflow cap (tokens) a compile cuts bulky messages to so that a short history fits whole
(see ``fitted_overflow`` in :mod:`context_journal.compile`), and no less than ``1 / (16 * AUTO_CAP_SHARE)``
of what the strategy may fill: below it, an excerpt of a long result keeps a line or two."""


def tool_cap(options: CompileOptions, avail: int, oversized: bool = True) -> ToolCap | None:
    """The tool-result excerpting of a compile whose strategy may fill ``avail`` tokens: the host's cap
    (every result over it), else (``oversized``) the results too large for the budget (see
    :data:`AUTO_CAP_SHARE`)."""
    cap = options.max_tool_result_tokens
    if cap is not None:
        return ToolCap(cap, cap, "tool_result_excerpted")
    if avail <= 0 or not oversized:
        return None
    return ToolCap(avail, max(1, avail // AUTO_CAP_SHARE), "excerpted")


def overflow_cap(avail: int, host: ToolCap | None = None) -> ToolCap:
    """The reductions of a compile whose selection leaves messages out (without a host cap): every tool
    result and every message of text blocks with more than ``1 / AUTO_CAP_SHARE`` of what the strategy
    may fill is excerpted to that size, and every image but the newest message's becomes a placeholder
    (the strategy selects again with them priced; pins and the head window stay whole), so one bulky
    message never pushes out every message before it (at 2,000 tokens a 1,700-token tool
    result once left 33 tokens of context, where at 1,500 it was excerpted and everything fit).

    With the ``host``'s cap (``CompileOptions.max_tool_result_tokens``), that one applies first (each result
    over it excerpted), then this one to what it leaves."""
    share = max(1, avail // AUTO_CAP_SHARE)
    return ToolCap(share, share, "excerpted", texts=True, first=host)


def widened(
    cap: ToolCap, work: Sequence[Work], p: Pass, view: MessageView, spare: int, counter: TokenCounter
) -> ToolCap | None:
    """A larger overflow cap for the messages ``cap`` excerpted in ``work`` (named by ``p``'s repairs),
    so that their excerpts take ``spare`` more tokens between them (the water level over their whole
    sizes), or None when none was excerpted or nothing would grow."""
    cut = {r.message_id for r in p.repairs if r.kind == cap.kind and r.message_id}
    if not cut or spare <= 0:
        return None
    now = sum(_tokens(m, counter) for m in work if m.origin in cut)
    whole = [size for mid in cut if (size := view.tokens_of(mid)) is not None]
    if len(whole) != len(cut):
        return None
    water = _water_cap(whole, now + spare)
    # Whole when everything fits (its text is under its message's size); else an excerpt's marker and cut
    # points cost a little more than the level.
    level = max(whole) if water == float("inf") else int(water * 0.97)
    if level <= cap.to:
        return None
    return cap._replace(over=level, to=level)


def reduce_text(blocks: list[Block], cap: ToolCap, counter: TokenCounter) -> list[Block]:
    """A message made of text blocks only, with its long blocks (see :func:`.repairs.cuttable`) cut alike so that
    its text is about ``cap.to`` tokens, when it is over ``cap.over`` and ``cap.texts`` (else, or when
    cutting saves nothing, the same list)."""
    if not cap.texts or not blocks or any(b.get("type") != "text" for b in blocks):
        return blocks
    total = sum(counter.count_block(b) for b in blocks)
    if total <= cap.over:
        return blocks
    ratio = cap.to / total
    merged = merge_short_runs(blocks)  # many short blocks cut as one text (see there)
    out = [
        {**b, "text": _cut_text(str(b["text"]), ratio, counter.count_block(b), None)}
        if cuttable(str(b.get("text", "")), counter)
        else b
        for b in merged
    ]
    return out if sum(counter.count_block(b) for b in out) < total else blocks


READABLE_RESULTS = SERVER_RESULT_TYPES | {"search_result"}
"""Provider blocks whose text an excerpt may cut (code output, fetched pages, MCP results, search
results); encrypted ones become their one-line description, as :func:`excerpt_provider` does."""


def bulky_kinds(kinds: Sequence[str]) -> bool:
    """Whether a message of these block types can hold a result the overflow reductions excerpt (or an
    OpenAI reasoning item they leave out)."""
    return "tool_result" in kinds or any(k in READABLE_RESULTS or k == "reasoning" for k in kinds)


def irreducible_over(view: MessageView, over: int, limit: int) -> bool:
    """Whether the messages of ``view`` that no overflow cap of ``over`` tokens or more can reduce (no tool
    or provider result, image or document, and no text-only message over ``over``) take more than ``limit``
    tokens between them, by the index's sizes, no body read: walked from the newest back, so a long
    history answers after about ``limit`` tokens of such messages."""
    total = 0
    end = len(view)
    while end > 0:
        batch = view.entries(max(0, end - 64), end)
        end -= len(batch)
        for e in reversed(batch):
            kinds = e.kinds
            if bulky_kinds(kinds) or "image" in kinds or "document" in kinds:
                continue
            if e.tokens > over and all(k == "text" for k in kinds):
                continue
            total += e.tokens
            if total > limit:
                return True
    return False


def floor_sum_over(view: MessageView, floor: int, limit: int) -> bool:
    """Whether ``view``'s messages take more than ``limit`` tokens even with each cut to ``floor`` tokens
    (the sum of ``min(size, floor)``, a lower bound of any overflow cut's total), by the index's sizes, no
    body read: walked from the newest back, so a long history answers after about ``limit / floor``
    messages, where :func:`irreducible_over` may walk a long chat whole (its text messages are reducible)."""
    total = 0
    end = len(view)
    while end > 0:
        batch = view.entries(max(0, end - 64), end)
        end -= len(batch)
        for e in batch:
            total += min(e.tokens, floor)
        if total > limit:
            return True
    return False


def _reduce_provider(blocks: list[Block], cap: ToolCap, counter: TokenCounter) -> list[Block]:
    """``blocks`` with their provider results excerpted to about ``cap.to`` tokens when they hold more than
    ``cap.over``, and their OpenAI ``reasoning`` items left out when those do (encrypted: never cut; the
    Responses API takes a turn without them, as signed thinking outside the running turn is dropped, but
    not an item sent with its id without the reasoning before it: :func:`without_reasoning`); the same list
    otherwise, or when cutting saves nothing."""
    reasoning = sum(counter.count_block(b) for b in blocks if b.get("type") == "reasoning")
    if reasoning > cap.over:
        blocks = without_reasoning(blocks)  # the items after it lose their item id (the API pairs them)
    size = sum(counter.count_block(b) for b in blocks if b.get("type") in READABLE_RESULTS)
    if size <= cap.over:
        return blocks  # (without the reasoning when it was over)
    ratio = cap.to / size

    def cut(text: str) -> str:
        return _cut_text(text, ratio, counter.count_block({"type": "text", "text": text}), None)

    out = excerpt_provider(blocks, cut)
    before = sum(counter.count_block(b) for b in blocks)
    return out if sum(counter.count_block(b) for b in out) < before else blocks


def reduce_tool_results(blocks: list[Block], cap: ToolCap, counter: TokenCounter) -> list[Block]:
    """``blocks`` with the text of every tool_result over ``cap.over`` tokens excerpted to about ``cap.to``,
    and their provider results likewise (:func:`_reduce_provider`); the same list when none is over.

    With ``cap.texts`` (the overflow reductions) the cap is the message's: its tool results share it,
    each cut alike when their text together is over ``cap.over`` (ten parallel results
    each cut to a quarter of the budget once pushed out the user's instruction); ``cap.first`` applies before."""
    if cap.first is not None:
        blocks = reduce_tool_results(blocks, cap.first, counter)
    if any(b.get("type") in READABLE_RESULTS or b.get("type") == "reasoning" for b in blocks):
        blocks = _reduce_provider(blocks, cap, counter)
    sizes = {i: _text_tokens(b, counter) for i, b in enumerate(blocks) if b.get("type") == "tool_result"}
    shared = sum(sizes.values()) if cap.texts else 0
    out: list[Block] | None = None
    for i, b in enumerate(blocks):
        if i not in sizes:
            continue
        size = sizes[i]
        if shared > cap.over and size > 0:
            ratio = cap.to / shared
        elif size > cap.over:
            ratio = cap.to / size
        else:
            continue
        cut = _excerpt_result(b, ratio, size, counter)
        if cut != b and _text_tokens(cut, counter) < size:  # never an "excerpt" larger than the result
            out = list(blocks) if out is None else out
            out[i] = cut
    return blocks if out is None else out


def excerpt_tool_results(
    work: list[Work], p: Pass, cap: ToolCap, counter: TokenCounter, keep_whole: frozenset[str] = frozenset()
) -> None:
    """The repair pass: tool results over ``cap.over`` tokens reduced to excerpts of about ``cap.to``, and
    with ``cap.texts`` messages of text blocks over it too, but those in ``keep_whole`` (pins and their tool
    units, documents, and with ``cap.texts`` the head window), which are never excerpted while other
    messages stay raw; ``cap.first`` applies before."""
    if cap.first is not None:
        excerpt_tool_results(work, p, cap.first, counter, keep_whole)
        cap = cap._replace(first=None)
    for m in work:
        if m.origin is None:
            continue  # a summary, recall or ledger turn: sized by its strategy
        if m.origin in keep_whole:
            continue  # a pin, a document or the head window: never cut while other messages stay raw
        if bulky_kinds([str(b.get("type", "")) for b in m.blocks]):
            blocks = reduce_tool_results(m.blocks, cap, counter)
            what = _what_reduced(m.blocks, blocks, cap)
            if blocks is not m.blocks and m.flags & F_TOOL_RESULT:
                # What a running loop's step is cut from at its readable floor (see :func:`_level`).
                m.uncut = m.blocks
        elif cap.texts:
            blocks = reduce_text(m.blocks, cap, counter)
            what = "a message too large for the budget cut"
            if blocks is not m.blocks:
                # What its smallest readable excerpt is cut from, whatever the budget drew this one for.
                m.uncut = m.blocks
        else:
            continue
        if blocks is not m.blocks:
            before = counter.count_message(m.participant, m.blocks)
            _rebuild(m, blocks, p)
            after = counter.count_message(m.participant, blocks)
            p.repair(cap.kind, m, f"{what} from about {before} to {after} tokens")


def _what_reduced(before: list[Block], after: list[Block], cap: ToolCap) -> str:
    """What :func:`reduce_tool_results` did to a message, for its repair (``... from about N to M
    tokens`` follows): results cut, OpenAI reasoning left out (too large to send; the items after it go
    without their item id), or both."""
    result = "a tool result" if cap.kind == "tool_result_excerpted" else "a tool result too large for the budget"
    result += " cut"
    had = sum(1 for b in before if b.get("type") == "reasoning")
    if had == 0 or any(b.get("type") == "reasoning" for b in after):
        return result
    what = "an OpenAI reasoning item" if had == 1 else f"{had} OpenAI reasoning items"
    left = (
        f"{what} too large for the budget left out (the items after it sent without their item id; a built-in "
        "tool call whose id is required, as a line of text)"
    )
    if without_reasoning(before) == after:
        return f"{left}, the message"
    return f"{left} and {result}, the message"


def _images(blocks: list[Block], kind: str = "image") -> int:
    n = 0
    for b in blocks:
        if b.get("type") == kind:
            n += 1
        elif b.get("type") == "tool_result" and isinstance(b.get("content"), list):
            n += sum(1 for c in b["content"] if c.get("type") == kind)
    return n


def _placeholders(blocks: list[Block], keep: int, origin: str, kind: str = "image") -> list[Block]:
    """``blocks`` with every image (or ``kind`` block: documents) but the newest ``keep`` (counted from
    the end) as placeholders."""
    seen = 0

    def one(b: Block) -> Block:
        nonlocal seen
        seen += 1
        return b if seen <= keep else image_placeholder(b, origin)

    out: list[Block] = []
    for b in reversed(blocks):
        if b.get("type") == kind:
            b = one(b)
        elif b.get("type") == "tool_result" and isinstance(b.get("content"), list):
            b = {**b, "content": [one(c) if c.get("type") == kind else c for c in reversed(b["content"])][::-1]}
        out.append(b)
    out.reverse()
    return out


def price_reductions(
    view: MessageView,
    options: CompileOptions,
    counter: TokenCounter,
    cache: RenderCache,
    limit: int,
    cap: ToolCap | None = None,
    image_budget: int | None = None,
    whole: frozenset[str] = frozenset(),
    newest_limit: int | None = None,
) -> dict[int, int]:
    """``{position: token change}`` of the messages the repair passes will reduce, from the newest back
    until the reduced sizes pass ``limit`` tokens (see the module docstring). Mirrors the passes: tool
    results over ``cap`` excerpted first (and with ``cap.texts``, messages of text blocks over it), but
    not those of the messages ``whole`` names (pins and their tool units, documents: never excerpted, so
    priced whole), then images beyond ``max_images`` (from the newest), deeper than
    ``image_depth_tokens``, or in a message alone over ``image_budget`` (default ``limit``) made
    placeholders, and the documents of such a message too; the newest message's over ``newest_limit``
    (default ``limit``: the image a question is about stays while it can be sent at all)."""
    max_images, depth_limit = options.max_images, options.image_depth_tokens
    if cap is None and max_images is None and depth_limit is None:
        return {}
    image_limit = limit if image_budget is None else image_budget
    texts = cap is not None and cap.texts
    deltas: dict[int, int] = {}
    images = depth = total = 0
    end = len(view)
    over_at = None if cap is None else cap.over if cap.first is None else min(cap.over, cap.first.over)

    def read(e: ViewEntry) -> bool:
        """Whether the message's body is read to price it: what may hold a result, an image or a document,
        or (with ``cap.texts``) text over the cap (only a message over the cap can hold one over it)."""
        kinds = e.kinds
        if bulky_kinds(kinds) or "image" in kinds or "document" in kinds:
            return True
        return texts and over_at is not None and e.tokens > over_at and all(k == "text" for k in kinds)

    while end > 0 and total <= limit:
        batch = view.entries(max(0, end - 64), end)
        end -= len(batch)
        for at in range(len(batch) - 1, -1, -1):
            e = batch[at]
            cost = e.tokens
            over = over_at is not None and e.tokens > over_at
            long_text = texts and over and all(k == "text" for k in e.kinds)
            if read(e):
                if not cache.holds(e):
                    # The bodies this batch still prices, in one round trip (one each, a tool-heavy history's
                    # newest results were read in 300 round trips for 300 messages).
                    cache.prefetch(view, [x for x in batch[: at + 1] if read(x)])
                blocks = cache.base(e, partial(_load, view, e.position))[0]
                if cap is None or not over or e.id in whole:
                    reduced = blocks
                elif long_text:
                    reduced = reduce_text(blocks, cap, counter)
                else:
                    reduced = reduce_tool_results(blocks, cap, counter)
                if reduced is not blocks:
                    cost += _change(counter, e.participant, blocks, reduced)
                count = _images(reduced)
                # The newest message's images stay while it can be sent at all (the image a question is about).
                newest = limit if newest_limit is None else newest_limit
                alone = newest if e.position == len(view) - 1 else image_limit
                if cost > alone and _images(reduced, "document"):
                    # A document in a message alone over what may be filled can never be sent either: its
                    # placeholder is priced (a 40-page PDF as the newest message once pushed out
                    # the instruction before it, then became a 22-token placeholder).
                    reduced = _placeholders(reduced, 0, e.id, "document")
                if count and (max_images is not None or depth_limit is not None or cost > alone):
                    # An image whose message alone is over the budget can never be sent: the compile
                    # cuts it to a placeholder, so it is priced as one (a 1,612-token
                    # screenshot at 1,500 tokens once left room for nothing else, then became 29 tokens).
                    too_deep = cost > alone or (depth_limit is not None and depth + cost > depth_limit)
                    keep = 0 if too_deep else count if max_images is None else max(0, min(count, max_images - images))
                    images += count
                    if keep < count:
                        reduced = _placeholders(reduced, keep, e.id)
                depth += cost
                if reduced is not blocks:
                    delta = _change(counter, e.participant, blocks, reduced)
                    if delta:
                        deltas[e.position] = delta
                    cost = e.tokens + delta
            else:
                depth += cost
            total += cost
            if total > limit:
                break
    return deltas


def _change(counter: TokenCounter, participant: str, before: list[Block], after: list[Block]) -> int:
    return counter.count_message(participant, after) - counter.count_message(participant, before)


def _load(view: MessageView, position: int) -> Message:
    return view.message(position)


class PricedView:
    """``base`` with the token changes ``deltas`` (``{position: change}``) in its sums: what the
    strategy selects from when the compile prices its reductions first. Everything else is ``base``'s.

    Args:
        base: The view priced.
        deltas: Token change per position (negative for a reduction).
    """

    def __init__(self, base: MessageView, deltas: Mapping[int, int]) -> None:
        self._view = base
        self._at = sorted(deltas)
        self._delta = dict(deltas)
        sums = [0]
        for p in self._at:
            sums.append(sums[-1] + self._delta[p])
        self._sums = sums

    def __getattr__(self, name: str) -> Any:  # start, last_sequence... of the view priced
        return getattr(self._view, name)

    def reduced_from(self, position: int) -> bool:
        """Whether a message at ``position`` or after it is priced reduced (an excerpt, a placeholder)."""
        k = bisect.bisect_left(self._at, position)
        return any(self._delta[p] < 0 for p in self._at[k:])

    @property
    def base(self) -> Any:
        """What the view priced reads (a strategy's caches key on it, so pricing keeps them warm)."""
        return getattr(self._view, "base", None) or self._view

    def __len__(self) -> int:
        return len(self._view)

    def _change(self, start: int, end: int) -> int:
        a = bisect.bisect_left(self._at, start)
        b = bisect.bisect_left(self._at, end)
        return self._sums[b] - self._sums[a]

    def tokens(self, start: int = 0, end: int | None = None) -> int:
        stop = len(self) if end is None else min(end, len(self))
        start = max(0, start)
        if start >= stop:
            return 0
        return self._view.tokens(start, stop) + self._change(start, stop)

    def suffix_start(self, budget: int, end: int | None = None) -> int:
        stop = len(self) if end is None else min(max(end, 0), len(self))
        if stop == 0 or self.tokens(0, stop) <= budget:
            return 0
        return _fewest(0, stop, lambda s: self.tokens(s, stop) <= budget)  # (stop when none)

    def _priced(self, e: ViewEntry) -> ViewEntry:
        d = self._delta.get(e.position)
        return e if not d else e._replace(tokens=e.tokens + d)

    def entry(self, index: int) -> ViewEntry:
        return self._priced(self._view.entry(index))

    def entries(self, start: int = 0, end: int | None = None) -> list[ViewEntry]:
        return [self._priced(e) for e in self._view.entries(start, end)]

    def message(self, index: int) -> Message:
        return self._view.message(index)

    def messages(self, start: int = 0, end: int | None = None) -> list[Message]:
        return self._view.messages(start, end)

    def messages_for(self, entries: Any) -> list[Message]:
        return self._view.messages_for(entries)

    def index_of(self, message_id: str) -> int | None:
        return self._view.index_of(message_id)

    def tokens_of(self, message_id: str) -> int | None:
        tokens = self._view.tokens_of(message_id)
        if tokens is None or not self._delta:
            return tokens
        position = self._view.index_of(message_id)
        return tokens + self._delta.get(position, 0) if position is not None else tokens

    def index_at_sequence(self, created_sequence: int) -> int:
        return self._view.index_at_sequence(created_sequence)


def priced(
    view: MessageView,
    options: CompileOptions,
    counter: TokenCounter,
    cache: RenderCache,
    limit: int,
    cap: ToolCap | None = None,
    image_budget: int | None = None,
    keep: frozenset[str] = frozenset(),
    newest_limit: int | None = None,
) -> MessageView:
    """``view`` priced with its reductions (``view`` itself when none applies; ``keep``: messages never
    excerpted; ``newest_limit``: see :func:`price_reductions`)."""
    deltas = price_reductions(view, options, counter, cache, limit, cap, image_budget, keep, newest_limit)
    return PricedView(view, deltas) if deltas else view


# --- the fallback: excerpts when the smallest selection is still over ------------------------------


def _tokens(m: Work, counter: TokenCounter) -> int:
    if m.tokens is None:
        m.tokens = counter.count_message(m.participant, m.blocks)
    return m.tokens


_UNIT_FLAGS = F_TOOL_USE | F_TOOL_RESULT | F_THINKING
"""Blocks that tie a message to its tool unit or signed turn: such a message is cut to an excerpt, never
away whole, unless its whole tool unit goes with it (see :func:`closed_unit`)."""

CALL_KINDS = frozenset({"text", "tool_use", "thinking", "redacted_thinking"})
"""Block types of an assistant message whose tool unit may give way whole: its calls, what it said and
thought before them (a provider's own server calls and results are paired inside the message, and never
leave it)."""


def closed_unit(work: Sequence[Work], i: int, first: frozenset[str], hold: frozenset[str]) -> int:
    """The end (exclusive index) of the closed tool unit ``work[i]`` opens, or 0 when it opens none.

    A closed unit is one or more assistant messages holding calls (and only :data:`CALL_KINDS` blocks),
    then the user messages holding only the tool results that answer exactly those calls, every one
    answered: nothing outside it refers to it, so the middle not summarised yet (``first``) can give way
    by it whole, one note standing for it, where cutting each message to its bare excerpt kept a pair of
    stubs per call (a review: 150 tool steps not summarised yet failed at 8,000 tokens where as many text
    turns fit in 1,000). Never when a member is outside ``first``, in ``hold`` (pins, the running tool
    loop's messages: kept, or cut to excerpts, in place) or a shard of a longer message."""
    calls: set[str] = set()
    k = i
    while k < len(work) and work[k].role == "assistant" and work[k].flags & F_TOOL_USE:
        m = work[k]
        if not _may_go(work, k, first, hold) or any(b.get("type") not in CALL_KINDS for b in m.blocks):
            return 0
        calls.update(str(b.get("id")) for b in m.blocks if b.get("type") == "tool_use")
        k += 1
    answered: set[str] = set()
    while calls and k < len(work) and answered != calls:
        m = work[k]
        if m.role != "user" or not m.blocks or not _may_go(work, k, first, hold):
            return 0
        for b in m.blocks:
            if b.get("type") != "tool_result" or str(b.get("tool_use_id")) not in calls - answered:
                return 0
            answered.add(str(b.get("tool_use_id")))
        k += 1
    return k if calls and answered == calls else 0


def _may_go(work: Sequence[Work], k: int, first: frozenset[str], hold: frozenset[str]) -> bool:
    """Whether ``work[k]`` may go whole with its unit: a raw message of ``first``, not held, neither a later
    shard of a message nor followed by one; or the results the pairing pass moved up to follow their
    call (a turn of their own, standing for messages of ``first`` none of which is held: Claude Code
    stores parallel calls one message each, then their results, so the first call's result is moved)."""
    m = work[k]
    if m.origin is None:
        ids = [s.id for s in m.sources if s.kind == "message"]
        return m.kind == "answer" and all(i in first and i not in hold for i in ids)
    if m.origin not in first or m.origin in hold or is_shard_form(m.origin):
        return False
    return not (k + 1 < len(work) and _next_shard(m, work[k + 1]))


def _stands_for(members: Sequence[Work]) -> list[Source]:
    """The stored messages ``members`` stand for, each once, in order: a member's own id and its message
    sources (a turn the pairing pass filled with results moved from other messages names those too: a
    note once named only the turn's own id, and a moved result's message was named nowhere)."""
    out: dict[str, Source] = {}
    for x in members:
        own = [Source("message", x.origin, x.sequence, False)] if x.origin is not None else []
        for s in (*own, *(s for s in x.sources if s.kind == "message")):
            out.setdefault(s.id, s._replace(complete=False))
    return list(out.values())


def _water_cap(sizes: Sequence[int], target: float) -> float:
    """The largest cap ``C`` with ``sum(min(size, C)) <= target`` (infinite when everything fits)."""
    remaining = target
    ordered = sorted(sizes)
    n = len(ordered)
    for k, size in enumerate(ordered):
        if size * (n - k) <= remaining:
            remaining -= size
            continue
        return max(0.0, remaining / (n - k))
    return float("inf")


def _gap_note(count: int, tokens: int) -> str:
    return (
        f"[… {count} earlier message{'s' if count != 1 else ''} (about {tokens} tokens), not summarised yet, cut "
        "here to fit the budget; the journal keeps them whole …]"
    )


def note_floor(counter: TokenCounter) -> int:
    """The fewest tokens a note of the middle giving way can cost (one message, its smallest figures): a lower
    bound of what a run cut whole adds to a compiled context (see :func:`_give_way`)."""
    return counter.count_message("context-journal", [{"type": "text", "text": _gap_note(1, 0)}])


FLOOR_MARGIN = 3
"""Tokens :func:`kept_floor` takes off a message's bare excerpt: an excerpt that keeps a few characters has a
marker with smaller figures ("about 9 of 68 tokens"), so it may cost a token or two less than the bare one."""


def kept_floor(blocks: list[Block], participant: str, counter: TokenCounter, origin: str | None) -> int:
    """A lower bound of the tokens a message of text blocks that the compile never leaves out (the head
    window, the newest message) takes however it is cut: its whole size, or its bare excerpt (the cut
    marker alone, see :func:`_level`) less :data:`FLOOR_MARGIN`, whichever is less; a name prefix or a date
    header only adds to it. Both are priced with each text block's trailing whitespace taken off (a final
    assistant turn is sent without it: a review saw "ok" and 3,000 spaces priced at its bare excerpt, 22
    tokens, and sent as "ok", 6)."""
    blocks = [
        {**b, "text": b["text"].rstrip()} if b.get("type") == "text" and isinstance(b.get("text"), str) else b
        for b in blocks
    ]
    whole = counter.count_message(participant, blocks)
    bare = counter.count_message(participant, excerpt_blocks(blocks, 0.0, counter, origin))
    return max(0, min(whole, bare - FLOOR_MARGIN))


def loop_over(
    work: Sequence[Work], ids: frozenset[str], keep_thinking: frozenset[str], counter: TokenCounter, room: int
) -> bool:
    """Whether the messages of ``ids`` in ``work`` (a running tool loop's steps, which no cut leaves out) take
    more than ``room`` tokens however :func:`shrink` cuts them, by a lower bound: each at its whole size or its
    bare excerpt (every block at its cut marker, the thinking of those ``keep_thinking`` names whole),
    whichever is less, less :data:`FLOOR_MARGIN`. Then no cut of the raw loop fits, and the loop goes as its
    transcript without one (a 2,000-step loop's calls alone took four times an 8,000-token budget, and the
    cuts that proved it took 20 s). Stops once over: O(room) excerpts, not O(steps)."""
    total = 0
    for m in work:
        if m.origin in ids:
            bare = excerpt_message(m, m.blocks, 0.0, counter, m.origin in keep_thinking)
            total += max(0, min(_tokens(m, counter), counter.count_message(m.participant, bare)) - FLOOR_MARGIN)
            if total > room:
                return True
    return False


_GAP_NOTE = re.compile(r"\[… (\d+) earlier messages? \(about (\d+) tokens\), not summarised yet, cut here")


_CUT_DETAIL = re.compile(r"(\d+) messages? not summarised yet")
"""The count a ``cut_to_fit`` repair's detail opens with (``"316 messages not summarised yet (…) cut …"``)."""


def messages_cut(repairs: Sequence[Repair]) -> int:
    """How many stored messages no summary covers yet the ``cut_to_fit`` repairs of a compile cut to fit (notes
    stand for them)."""
    found = (_CUT_DETAIL.match(r.detail) for r in repairs if r.kind == "cut_to_fit")
    return sum(int(m.group(1)) for m in found if m is not None)


def cut_phrase(count: int) -> str:
    """What a caller is told of ``count`` messages not summarised yet cut to fit (see :func:`messages_cut`)."""
    return f"{count:,} message{' was' if count == 1 else 's were'} not summarised yet and cut to fit the budget"


def _cut_note(m: Work) -> tuple[int, int] | None:
    """``(messages, tokens)`` a note of :func:`_give_way` stands for, or None when ``m`` is not one."""
    if m.kind != "note" or not m.sources or m.sources[0] != Source("synthetic", "cut to fit") or len(m.blocks) != 1:
        return None
    found = _GAP_NOTE.match(str(m.blocks[0].get("text", "")))
    return (int(found.group(1)), int(found.group(2))) if found else None


def held(m: Work, keep: frozenset[str]) -> bool:
    """Whether ``m`` is one of the messages ``keep`` names: a raw message by its id, a rendered summary or
    message (no id of its own) when every summary and message it stands for is named."""
    if m.origin is not None:
        return m.origin in keep
    if cut_key(m) in keep:
        return True
    ids = [s.id for s in m.sources if s.kind in ("summary", "message")]
    return bool(ids) and all(i in keep for i in ids)


class _RunNote:
    """The note standing for a run :func:`_give_way` cuts whole: the note, the run's messages in order with
    the sources of an earlier cut's note it takes in where that note stood, and what the notes it took in
    stood for (messages, tokens)."""

    __slots__ = ("count", "note", "pieces", "tokens")

    def __init__(self, note: Work, count: int = 0, tokens: int = 0) -> None:
        self.note = note
        self.pieces: list[Work | list[Source]] = []
        self.count = count
        self.tokens = tokens

    @property
    def members(self) -> list[Work]:
        return [x for x in self.pieces if isinstance(x, Work)]

    def sources(self, named: list[Source]) -> list[Source]:
        """What the run's messages (``named``: what they stand for) and the notes taken in after it stand
        for, in order, each once."""
        if not any(isinstance(piece, list) for piece in self.pieces):
            return named
        out: dict[str, Source] = {}
        batch: list[Work] = []
        for piece in [*self.pieces, []]:
            if isinstance(piece, Work):
                batch.append(piece)
                continue
            for src in (*_stands_for(batch), *piece):
                out.setdefault(src.id, src)
            batch.clear()
        return list(out.values())


def _give_way(
    work: list[Work],
    room: int,
    counter: TokenCounter,
    p: Pass,
    first: frozenset[str],
    keep: frozenset[str],
    loop: frozenset[str] = frozenset(),
) -> list[Work]:
    """The middle gives way first (bug case B61): oldest first, the messages ``first`` names (raw middle
    content not summarised yet) are cut until the context fits; each run of plain messages cut whole
    becomes one short note standing for them (provenance: incomplete; its size is theirs as stored), and
    so does a closed tool unit (:func:`closed_unit`: calls and the results answering them, none in
    ``loop``, the running tool loop) with the run it is in; any other message with tool blocks or thinking
    is cut to its bare excerpt (its pairing kept). A run whose note
    would cost as much as it saves is not cut; a run right after an earlier cut's note (a later tier's)
    joins that note, and so does one right before it (the head window's turns given way)."""
    total = sum(_tokens(m, counter) for m in work)
    note_cost = counter.count_message("context-journal", [{"type": "text", "text": _gap_note(99, 99_999)}])
    gone: dict[int, int] = {}  # index -> its run's first index
    run: list[int] = []  # the run being cut, and what it saves (its note's cost taken off)
    saved = 0
    groups: list[tuple[int, int]] = []  # what went, in order: a message, a closed unit or a sharded message

    def close() -> None:
        """End the run: one that saves nothing (a short message whose note costs as much) stays."""
        nonlocal total, saved
        if run and saved <= 0:
            for k in run:
                del gone[k]
            total += saved
            groups[:] = [g for g in groups if g[0] in gone]
        run.clear()
        saved = 0

    hold = keep | loop
    after = 0  # the end of the closed unit the run took last: its members are in already
    for i, m in enumerate(work):
        if i < after:
            continue
        # A message stored as shards is cut whole once its first shard is: the model never reads it from
        # half-way (its last shards may be the recent window's: they go too, unless kept).
        rest = i - 1 in gone and _next_shard(work[i - 1], m)
        if total <= room and not rest:
            break
        if (m.origin not in first and not rest) or m.origin in keep:
            if run and run[-1] == i - 1 and _cut_note(m) is not None:
                # The run ends at an earlier cut's note, which takes it in (or merges into the note before
                # the run): one note fewer than priced (a history's head turn, 39 tokens as its excerpt, was
                # kept as its bare marker beside that note, the failure naming 93 tokens where 68 fitted).
                refund = _tokens(m, counter)
                total -= refund
                saved += refund
            close()
            continue
        after = closed_unit(work, i, first, hold) if m.flags & F_TOOL_USE else 0
        size = _tokens(m, counter) if not after else sum(_tokens(x, counter) for x in work[i:after])
        if not after and (m.flags & _UNIT_FLAGS or (m.flags & F_PROVIDER and in_server_pair(m.blocks))):
            close()  # a paused pair's half is cut to its excerpt, never away from its other half
            blocks = excerpt_blocks(m.blocks, 0.0, counter, m.origin)
            # Only a cut that makes it smaller (the marker of a short message's excerpt can outweigh
            # what it cuts: a review saw "cut from about 112 to 129 tokens").
            if blocks != m.blocks and blocks and counter.count_message(m.participant, blocks) < size:
                m.blocks, m.flags = blocks, block_flags(blocks)
                p.alter(m)
                p.repair("excerpted", m, f"cut from about {size} to {_tokens(m, counter)} tokens to fit the budget")
                total += _tokens(m, counter) - size
            continue
        if not run and not (i and _cut_note(work[i - 1])):  # a run right after an earlier cut's note joins it
            total += note_cost
            saved -= note_cost
        for k in range(i, after or i + 1):  # the message, or the closed unit it opens
            run.append(k)
            gone[k] = run[0]
        groups[-1:] = [(groups[-1][0], after or i + 1)] if rest and groups else [*groups[-1:], (i, after or i + 1)]
        total -= size
        saved += size
    if total > room:
        close()  # (a run that lowered the total to within room saved tokens)
    if not gone:
        return work
    if total < room:
        # The last to go may have freed far more than the room needed (a closed unit of a few hundred tokens):
        # what went before it comes back where it fits, the newest first (a review saw a real session's
        # question turn go into the note with the loop it asked for, 375 tokens of 800 unused). One that
        # splits a run in two pays for a second note.
        for a, b in reversed(groups):
            cost = sum(_tokens(x, counter) for x in work[a:b]) + (note_cost if a - 1 in gone and b in gone else 0)
            if total + cost <= room:
                for k in range(a, b):
                    del gone[k]
                total += cost
        for k in sorted(gone):  # each run's first index again
            gone[k] = gone.get(k - 1, k)
        if not gone:
            return work
    out: list[Work] = []
    notes: list[_RunNote] = []
    for i, m in enumerate(work):
        start = gone.get(i)
        if start is None:
            later = _cut_note(m) if i and i - 1 in gone else None
            if later is not None:  # an earlier cut's note right after the run: the run's note takes it in
                notes[-1].count += later[0]
                notes[-1].tokens += later[1]
                notes[-1].pieces.append(m.sources[1:])
                continue
            out.append(m)
            continue
        if start == i and not (notes and out and out[-1] is notes[-1].note):
            # A run starts: one note stands for it (the earlier cut's note right before it, or the note of a
            # run before that note, which took it in).
            earlier = _cut_note(out[-1]) if out else None
            if earlier is not None:
                notes.append(_RunNote(out[-1], *earlier))
            else:
                note = Work("context-journal", "user", [], 0, None, None, kind="note")
                out.append(note)
                notes.append(_RunNote(note))
        notes[-1].pieces.append(m)
    for stand_in in notes:
        note, members = stand_in.note, stand_in.members
        # Their size as stored (the index's count), the same whether they were read or priced unread.
        tokens = stand_in.tokens + sum(x.stored if x.stored is not None else _tokens(x, counter) for x in members)
        named = _stands_for(members)
        messages = len({group_of(s.id)[0] for s in named})
        note.blocks = [{"type": "text", "text": _gap_note(stand_in.count + messages, tokens)}]
        note.tokens = None
        note.sources = [*(note.sources or [Source("synthetic", "cut to fit")]), *stand_in.sources(named)]
        p.altered.update(s.id for s in named)
        span = f"{named[0].id} to {named[-1].id}" if len(named) > 1 else "".join(s.id for s in named)
        p.repair("cut_to_fit", None, f"{messages} messages not summarised yet ({span}) cut to fit the budget")
    return out


def _next_shard(before: Work, m: Work) -> bool:
    """Whether ``m`` is a later shard of ``before``'s stored message (a reader's view may skip the shards
    of blocks addressed to others, so the next one it shows need not be numbered one more)."""
    if before.origin is None or m.origin is None:
        return False
    group, index = group_of(before.origin)
    later, at = group_of(m.origin)
    return later == group and at > index


_MEMO_SIZE = 50_000
"""Excerpts one cut keeps for its levels to reuse, at most (see :func:`_level`): some tens of megabytes."""

_REFINE_STEPS = 5
"""How many times :func:`_level` raises a level that landed under the room again (halving the gap each time)."""


def _level(
    work: list[Work],
    chosen: Sequence[int],
    room: int,
    counter: TokenCounter,
    p: Pass,
    keep_thinking: frozenset[str],
    memo: dict[tuple[int, int, float], tuple[Work, list[Block], list[Block], int]] | None = None,
    floored: frozenset[str] = frozenset(),
    nearer: bool = False,
) -> None:
    """Cut the ``chosen`` messages by a water level until the context fits ``room`` (or cannot): every
    one above a cap is cut toward it (head and tail kept), the smaller ones stay whole; the cap is
    lowered until the recounted total fits. ``memo``: excerpts already made (keyed by message, blocks and
    ratio, each entry holding the objects it was made from, so a key is never reused by another) and their
    tokens, shared by the levels of one cut: its searches pour the same messages at the same levels again
    and again (196,000 excerpts of 28,000 kinds for a 2,000-step loop). The messages ``floored`` names (the
    running loop's steps) are never cut below their readable floor (see :func:`_loop_floor`): where the
    level would leave one saying nothing, it stands at its floor and the level is lowered for the others
    (issue 13: a result moved by a token or two across the line as the budget moved, and the loop went
    raw, as its transcript, raw again). With ``nearer`` (the loop's older steps), a floored one whose excerpt
    lands over the level stands at its floor too, when that is no higher than the level. Once the level has
    stopped at the largest floor and the context is still over, every floored one over the level stands at its
    floor (the level lowered no further, their excerpts at it would stay over at every lower target)."""
    if not chosen:
        return
    sizes = {i: _tokens(work[i], counter) for i in chosen}
    fixed = sum(_tokens(m, counter) for k, m in enumerate(work) if k not in sizes)
    originals = {i: work[i].blocks for i in chosen}
    # What a message set back to its original blocks gets back (a level raised again may leave it whole).
    states = {i: (work[i].flags, work[i].sources, work[i].origin in p.altered) for i in chosen}
    target = float(room - fixed)
    cut: set[int] = set()

    def put(i: int, blocks: list[Block], tokens: int | None = None) -> None:
        m = work[i]
        if m.blocks is blocks:
            return
        m.blocks = blocks
        if blocks is originals[i]:
            m.tokens = None
            m.flags, m.sources, altered = states[i]
            if m.origin is not None and not altered:
                p.altered.discard(m.origin)
            return
        m.flags = block_flags(blocks)
        p.alter(m)
        m.tokens = tokens
        cut.add(i)

    def excerpt(i: int, m: Work, ratio: float) -> tuple[list[Block], int]:
        """``m``'s original blocks cut to ``ratio``, and their tokens (from ``memo`` when made before)."""
        key = (id(m), id(originals[i]), ratio)
        hit = memo.get(key) if memo is not None else None
        if hit is not None and hit[0] is m and hit[1] is originals[i]:
            return hit[2], hit[3]
        blocks = excerpt_message(m, originals[i], ratio, counter, m.origin in keep_thinking)
        tokens = counter.count_message(m.participant, blocks)
        if memo is not None and len(memo) < _MEMO_SIZE:
            memo[key] = (m, originals[i], blocks, tokens)
        return blocks, tokens

    floors: dict[int, tuple[list[Block], int] | None] = {}

    def floor(i: int, m: Work) -> tuple[list[Block], int] | None:
        """``m``'s readable floor (see :func:`_loop_floor`) when ``floored`` names it, else None."""
        if m.origin not in floored:
            return None
        if i not in floors:
            keep = m.origin in keep_thinking
            # Cut from the step as written when it stands as the overflow excerpt the budget drew it as: a
            # floor cut from that excerpt grew with the budget (a step of two parallel results, its floor 183
            # tokens at 943 and 185 at 944), and the loop went raw, as its transcript, raw again.
            found = _loop_floor(m, m.uncut, counter, memo, keep) if m.uncut is not None else None
            if found is None or found[1] >= sizes[i]:
                found = _loop_floor(m, originals[i], counter, memo, keep)
            floors[i] = found
        return floors[i]

    # The level never goes below the largest floor: the others are not cut further for the floored ones to
    # stand (a loop's calls cut to nothing beside its results at their floors: the loop then went raw where
    # one level for all of them sends it as its transcript, which shows every call).
    found = [f[1] for i in sizes if (f := floor(i, work[i])) is not None] if len(sizes) <= _FLOORED_MAX else []
    lowest = float(max(found, default=0))

    def pour(target: float, lowered: bool = True, floors: bool = False) -> int:
        """Cut every chosen message above the level ``target`` gives (never below ``lowest``), from its
        original blocks; the total. A message whose excerpt would not be smaller than it (its marker
        outweighs the cut) keeps what it has while the level is ``lowered``, and is whole on a level raised
        again; a floored one whose excerpt says nothing stands at its floor, and with ``floors`` (the level
        stopped at ``lowest``) every floored one over the level does."""
        cap = max(lowest, _water_cap(list(sizes.values()), max(0.0, target)))
        for i, size in sizes.items():
            m = work[i]
            blocks, tokens = originals[i], None
            if size > cap:
                ratio = cap / size if cap > 0 else 0.0
                blocks, tokens = excerpt(i, m, ratio * 0.95)
                least = floor(i, m) if lowest else None
                if least is not None and (
                    floors
                    or tokens < least[1]
                    or _step_silent(blocks, counter)
                    or (nearer and least[1] <= cap < tokens)
                ):
                    # (Cut to a ratio, an excerpt may land far over the level, where the floor is nearer: a
                    # 209-token result cut for 50 kept 80 where the same result a token shorter kept 50, and the
                    # loop went as its transcript with one more token of budget: issue 13. Not the newest
                    # result while the level may still come down: its floor keeps less of its end, which the
                    # agent acts on next.)
                    blocks, tokens = least
                if tokens >= size:
                    blocks, tokens = (m.blocks, m.tokens) if lowered else (originals[i], None)
            put(i, blocks, tokens)
        return sum(_tokens(m, counter) for m in work)

    over: float | None = None  # the last level tried that left the context over the room
    for _ in range(16):
        total = pour(target)
        if total <= room:
            break
        over = target
        if lowest and _water_cap(list(sizes.values()), max(0.0, target)) <= lowest:
            # The level stopped at the largest floor and the context is still over: the floored messages stand at
            # their floors, lower it as it will. Left at the level, each one's excerpt landed over or under its
            # own floor by where the ratio fell, a token of budget apart: a step whose excerpt said nothing stood
            # at its floor (91 tokens) at 543, one keeping a little more stayed at the level (152) at 544 and
            # the loop went as its transcript; the newest result cut to 94 tokens over its floor of 76 kept a
            # loop over the room at 696-699 (issue 13, loops of parallel calls).
            total = pour(target, floors=True)
            break
        target = target * 0.85 - (total - room)
    if over is not None and total <= room:
        # Lowered in large steps, the level may land far under the room (a review saw a loop's transcript
        # and the rules cut to 521 tokens of 600): the level is raised again, halving the gap, while the
        # context fits, a few times (the last fitting level is the one kept).
        fits, best = target, [work[i].blocks for i in sizes]
        for _ in range(_REFINE_STEPS):
            if room - total <= max(2, room // 100):
                break
            trial = (fits + over) / 2
            if pour(trial, lowered=False) <= room:
                fits, best, total = trial, [work[i].blocks for i in sizes], sum(_tokens(m, counter) for m in work)
            else:
                over = trial
        for i, blocks in zip(sizes, best, strict=True):
            put(i, blocks)
    for i in sorted(cut):
        m = work[i]
        if m.blocks != originals[i]:
            p.repair("excerpted", m, f"cut from about {sizes[i]} to {_tokens(m, counter)}{_LEVEL_CUT}")


_LEDGER_GIVES = 128
"""About the most tokens the working-state block gives up for a running loop's steps to stand at their floors
(see ``loop_level`` in :func:`shrink`; whole lines, so a little more): what its smallest render takes (the
block comes in once its allowance, a share of the budget, reaches it, and took the room the steps had: issue
13). A larger block keeps the rest, and the loop goes as its transcript beside it when that is not enough."""

_FLOORED_MAX = 256
"""The most messages a level cuts with floors (see :func:`_level`); a longer loop's steps are cut by the
plain level (each floor is a search of a dozen excerpts)."""


def _step_silent(blocks: list[Block], counter: TokenCounter) -> bool:
    """Whether a tool result of ``blocks`` says nothing as a running loop's result (see
    :func:`silent_results`), or another of its blocks keeps none of its text (its bare cut marker)."""
    for b in blocks:
        if b.get("type") == "tool_result":
            if _says_nothing([b], counter, _HOLLOW_SHARE, _UNIT_KEPT_TOKENS):
                return True
            continue
        kept, whole = text_tokens_kept([b], counter)
        if whole and not kept:
            return True
    return False


def _loop_floor(
    m: Work,
    blocks: list[Block],
    counter: TokenCounter,
    memo: dict[tuple[int, int, float], tuple[Work, list[Block], list[Block], int]] | None,
    keep_thinking: bool = False,
) -> tuple[list[Block], int] | None:
    """The smallest excerpt of ``blocks`` (a step of a running loop, ``m``'s) in which no tool result says
    nothing (see :func:`silent_results`) and no other block is its bare cut marker, and its tokens; None
    when ``blocks`` say nothing already or no excerpt is smaller (``keep_thinking``: its thinking blocks
    stay byte for byte). The floor depends on the message alone, not on the budget."""
    key = (id(m), id(blocks), -1.0)
    hit = memo.get(key) if memo is not None else None
    if hit is not None and hit[0] is m and hit[1] is blocks:
        return (hit[2], hit[3]) if hit[3] >= 0 else None
    size = counter.count_message(m.participant, blocks)
    found: tuple[list[Block], int] | None = None
    if not _step_silent(blocks, counter):

        def cut(ratio: float) -> list[Block]:
            return blocks if ratio >= 1 else excerpt_message(m, blocks, ratio, counter, keep_thinking)

        def readable(kept: list[Block]) -> bool:
            return not _step_silent(kept, counter)

        k = _fewest(0, len(_READABLE_RATIOS) - 1, lambda k: readable(cut(_READABLE_RATIOS[k])))
        kept = cut(_READABLE_RATIOS[k])
        if k > 0 and readable(kept):
            kept = _readable_between(_READABLE_RATIOS[k - 1], _READABLE_RATIOS[k], kept, cut, readable)
        tokens = counter.count_message(m.participant, kept)
        if readable(kept) and tokens < size:
            found = (kept, tokens)
    if memo is not None and len(memo) < _MEMO_SIZE:
        memo[key] = (m, blocks, found[0] if found else blocks, found[1] if found else -1)
    return found


_READABLE_RATIOS = (*(0.001 * 1.1**k for k in range(73)), 1.0)
"""Ratios an excerpt is cut by in the search for a message's smallest readable excerpt, a tenth more each
time. Cut by characters, an excerpt lands near its ratio, not on it, and an excerpt cut again keeps more
than its ratio of what it keeps (its marker counts in its size): searched by shares of the message in
steps of a fiftieth and more (0.01, 0.02, 0.05, 0.1), the first readable one was often far above the
smallest (a review saw 97 tokens fit and 98-101 fail, naming 104: a newest message cut again from its
overflow excerpt kept 0.99% at a hundredth and took 47 tokens at a fiftieth, where 38 kept 1%)."""


LOOP_NOTE = Source("synthetic", "running turn")
"""The first source of the user note holding a running tool loop as a transcript (see
:func:`.fit.transcribe_running_turn`)."""
LOOP_NOTE_KEY = "\x00running turn"
"""The id the cuts know that note by (it stands for no one stored message): a ``newest`` of :func:`shrink`
holding it cuts the transcript last and never sends it as its bare cut marker."""


def cut_key(m: Work) -> str | None:
    """The id the cuts name ``m`` by: its stored id, :data:`LOOP_NOTE_KEY` for the running loop's
    transcript, else None."""
    if m.origin is not None:
        return m.origin
    return LOOP_NOTE_KEY if m.kind == "note" and m.sources and m.sources[0] == LOOP_NOTE else None


_BARE_SHARE = 0.01  # a message whose markers say it keeps less than this of its text says nothing
_HOLLOW_SHARE = 0.1  # a recent turn or a summary that keeps less than this of its text gives way whole
_UNIT_KEPT_TOKENS = 16  # a recent tool result keeping fewer tokens of its text (and under a hundredth) says nothing


def _said(m: Work, blocks: list[Block]) -> list[Block]:
    """The blocks of ``blocks`` (``m``'s) a reader reads as what ``m`` says: all of them, but the running
    loop's transcript's heading (a block never cut: counted in, the transcript cut to its bare marker read
    as keeping a hundredth of itself, and was sent so)."""
    return blocks[1:] if cut_key(m) == LOOP_NOTE_KEY else blocks


def _bare(m: Work, blocks: list[Block], counter: TokenCounter) -> bool:
    """Whether ``m``, cut from ``blocks``, says no more than its bare cut marker: it costs no more than the
    marker alone, or its markers say it keeps under a hundredth of its text (a review saw a final answer
    sent as "Ye", the marker "about 72 of 72 tokens cut here" and ".": two characters kept cost a token
    more than the marker, so the compile took it as kept; and one as "F", "about 990 of 991" and "9")."""
    bare = excerpt_blocks(blocks, 0.0, counter, m.origin)
    if counter.count_message(m.participant, m.blocks) <= counter.count_message(m.participant, bare):
        return True
    return _reads_as_nothing(m, m.blocks, counter)


def _reads_as_nothing(m: Work, blocks: list[Block], counter: TokenCounter) -> bool:
    """Whether ``blocks`` (``m``'s) keep under a hundredth of their text by their markers' figures; for the
    running loop's transcript, its heading left out, and also fewer than :data:`_UNIT_KEPT_TOKENS` tokens of
    it, or none (see :func:`says_nothing`: its calls and results are judged as results are)."""
    if cut_key(m) == LOOP_NOTE_KEY:
        return transcript_says_nothing(blocks[1:], counter)
    return share_kept(blocks, counter) < _BARE_SHARE


def excerpt_message(
    m: Work, blocks: list[Block], ratio: float, counter: TokenCounter, keep_thinking: bool = False
) -> list[Block]:
    """``blocks`` (``m``'s) cut to about ``ratio`` of their text: the running loop's transcript, uncut, line
    by line (:func:`.transcript.cut_transcript`: calls kept longest, the newest result last; its heading
    never cut), any other blocks by :func:`.repairs.excerpt_blocks`."""
    t = m.transcript
    if t is not None and ratio < 1 and len(blocks) == 2 and blocks[1].get("text") == t.body:
        return [blocks[0], {**blocks[1], "text": cut_transcript(t, ratio, counter)}]
    return excerpt_blocks(blocks, ratio, counter, m.origin, keep_thinking)


def transcript_says_nothing(blocks: list[Block], counter: TokenCounter) -> bool:
    """Whether the running loop's transcript ``blocks`` (its heading left out) says nothing: it shows no
    call line, and keeps none of its text or under a hundredth and fewer than :data:`_UNIT_KEPT_TOKENS`
    tokens (see :func:`says_nothing`). The calls are what the agent did: a transcript showing three of them
    and every result as its marker keeps 12 words of 2,030 and still tells the model where it stands."""
    if any(b.get("type") == "text" and "[called " in _CUT_MARKER.sub("\n", str(b.get("text", ""))) for b in blocks):
        return False
    return says_nothing(blocks, counter)


_LEVEL_CUT = " tokens to fit the budget"
"""How the repair of a message :func:`_level` cut ends (``cut from about N to M`` comes before it)."""


_BETWEEN_STEPS = 6
"""Halvings :func:`_readable_between` makes of a step of :data:`_READABLE_RATIOS`."""


def _readable_between(
    lo: float,
    hi: float,
    kept: list[Block],
    cut: Callable[[float], list[Block]],
    readable: Callable[[list[Block]], bool],
) -> list[Block]:
    """The excerpt ``cut`` gives at the smallest ratio between ``lo`` (not readable) and ``hi`` (readable,
    giving ``kept``) found readable by :data:`_BETWEEN_STEPS` halvings. A step of the ladder keeps a tenth
    more of every block: a newest message of 65 dense code blocks, each cut on its own, took 1,888 tokens at
    the ladder's smallest readable step where 1,741 kept a little of each, and budgets between failed."""
    for _ in range(_BETWEEN_STEPS):
        mid = (lo + hi) / 2
        tried = cut(mid)
        if readable(tried):
            hi, kept = mid, tried
        else:
            lo = mid
    return kept


def _smallest_readable(
    m: Work, blocks: list[Block], counter: TokenCounter, keep_thinking: bool = False
) -> tuple[list[Block], bool]:
    """The smallest excerpt of ``blocks`` (``m``'s, as they stood before a cut emptied it) that keeps more
    than its bare marker, and whether there is one: the excerpt at the smallest ratio of
    :data:`_READABLE_RATIOS` that costs more than the marker and is not bare by its marker's count (see
    :func:`_bare`), when it keeps at most a tenth of the message as written; else the excerpt keeping a
    tenth, and whether that one is readable. An excerpt the overflow reductions made is cut again (by
    shares of the message as written, each try once kept under a hundredth of a message it had kept 1.25%
    of, and a failure named 21 tokens where 24 was the smallest that fit), or kept as it is. With
    ``keep_thinking`` (the opening message of a running tool loop) its thinking stays byte for byte (a review
    saw a loop's opening excerpted so without its thinking, and the compile fail its own validation)."""
    bare = counter.count_message(m.participant, excerpt_blocks(blocks, 0.0, counter, m.origin, keep_thinking))

    def cut(ratio: float) -> list[Block]:
        return blocks if ratio >= 1 else excerpt_message(m, blocks, ratio, counter, keep_thinking)

    def readable(kept: list[Block]) -> bool:
        return counter.count_message(m.participant, kept) > bare and not _reads_as_nothing(m, kept, counter)

    # (A larger ratio keeps more: the smallest readable one is found by halving the ladder, then the step
    # below it.)
    k = _fewest(0, len(_READABLE_RATIOS) - 1, lambda k: readable(cut(_READABLE_RATIOS[k])))
    kept = cut(_READABLE_RATIOS[k])
    if k > 0 and readable(kept):
        kept = _readable_between(_READABLE_RATIOS[k - 1], _READABLE_RATIOS[k], kept, cut, readable)
    if readable(kept) and share_kept(_said(m, kept), counter) <= _HOLLOW_SHARE:
        return kept, True
    now = share_kept(_said(m, blocks), counter)
    tenth = cut(_HOLLOW_SHARE / now if now > 0 else _HOLLOW_SHARE)
    return tenth, readable(tenth)


def _says_nothing(blocks: list[Block], counter: TokenCounter, share: float, kept_under: int | None) -> bool:
    """Whether the excerpt ``blocks`` keeps under ``share`` of its text (and, with ``kept_under``, fewer
    tokens of it than that), by its cut markers' figures (see :func:`.repairs.text_tokens_kept`). A result
    keeping a few lines of a long output says something: "Compiling 7 files" of 7,461 tokens is under a
    hundredth."""
    kept, whole = text_tokens_kept(blocks, counter)
    return bool(whole) and kept / whole < share and (kept_under is None or kept < kept_under)


def says_nothing(blocks: list[Block], counter: TokenCounter) -> bool:
    """Whether the excerpt ``blocks`` keeps none of its text, or under a hundredth of it and fewer than
    :data:`_UNIT_KEPT_TOKENS` tokens, by its cut markers' figures: what the cuts never leave the running
    loop's transcript (which stands for the newest messages: see :func:`shrink`'s ``newest``), judged as
    a tool result is (see :func:`silent_results`)."""
    kept, whole = text_tokens_kept(blocks, counter)
    return kept == 0 or (kept / whole < _BARE_SHARE and kept < _UNIT_KEPT_TOKENS)


def silent_results(work: Sequence[Work], ids: frozenset[str], counter: TokenCounter) -> bool:
    """Whether a tool result of the messages ``ids`` names in ``work`` is cut until it says nothing (under a
    tenth of its text and under :data:`_UNIT_KEPT_TOKENS` tokens of it; the recent window's closed units are
    judged by a hundredth, see :meth:`_Snapshot.hollow`). A running loop's results are judged by a tenth: by
    a hundredth, a loop went raw at 161 tokens with a result keeping 1 token of 67 (the last-resort cut gave
    it back what the question's smallest excerpt left), and as its transcript at 169-233 where that result
    went down to its marker: more room sent less of the loop (issue 13)."""
    return any(
        _says_nothing([b], counter, _HOLLOW_SHARE, _UNIT_KEPT_TOKENS)
        for m in work
        if m.origin in ids and m.flags & F_TOOL_RESULT
        for b in m.blocks
        if b.get("type") == "tool_result"
    )


def emptied_count(work: Sequence[Work], counter: TokenCounter) -> int:
    """How many stored messages of ``work`` hold text and keep under a hundredth of it, by their cut markers'
    figures (see :func:`.repairs.share_kept`): what is sent as bare cut markers."""
    return sum(1 for m in work if m.origin is not None and _says_nothing(m.blocks, counter, _BARE_SHARE, None))


class _Snapshot:
    """A context being cut, as it stood (each message's blocks, flags, tokens and sources, and the pass's
    repairs and altered ids), to cut it again another way."""

    def __init__(self, work: list[Work], p: Pass, keep_thinking: frozenset[str] = frozenset()) -> None:
        self.work = list(work)
        self.keep_thinking = keep_thinking  # (messages whose thinking its smallest excerpts keep byte for byte)
        self.messages = [(m, m.blocks, m.flags, m.tokens, list(m.sources)) for m in work]
        self.repairs = list(p.repairs)
        self.altered = set(p.altered)

    def _emptied(
        self, work: list[Work], ids: frozenset[str], counter: TokenCounter
    ) -> Iterator[tuple[Work, list[Block]]]:
        """Each message of ``ids`` in ``work`` that a cut emptied since then (see :func:`_bare`), with its
        blocks as they stood."""
        was = {id(m): blocks for m, blocks, _f, _t, _s in self.messages}
        for m in work:
            blocks = was.get(id(m))
            if cut_key(m) in ids and blocks is not None and m.blocks is not blocks and _bare(m, blocks, counter):
                yield m, blocks

    def emptied_ids(self, work: list[Work], ids: frozenset[str], counter: TokenCounter) -> frozenset[str]:
        """The ids of the messages of ``ids`` in ``work`` that a cut emptied since then (see :func:`_bare`)."""
        return frozenset(key for m, _b in self._emptied(work, ids, counter) if (key := cut_key(m)) is not None)

    def emptied(self, work: list[Work], ids: frozenset[str], counter: TokenCounter) -> bool:
        """Whether a message of ``ids`` in ``work`` was cut down to its bare excerpt marker since then (see
        :func:`_bare`)."""
        return next(self._emptied(work, ids, counter), None) is not None

    def _smallest(self, m: Work, blocks: list[Block], counter: TokenCounter) -> tuple[list[Block], bool]:
        """:func:`_smallest_readable` of ``blocks`` (``m``'s as they stood), or of ``m``'s text before the
        overflow excerpt when that one is readable and smaller: the excerpt it stood as was drawn for the
        budget, and a smaller budget drawing a smaller one could leave a smaller floor (windowed, a newest
        message of 49 blocks of identifiers fitted at 1,318-1,323 tokens and failed at 1,324 naming 1,325)."""
        keep = m.origin in self.keep_thinking
        found = _smallest_readable(m, blocks, counter, keep)
        if m.uncut is None or m.uncut is blocks:
            return found
        whole = _smallest_readable(m, m.uncut, counter, keep)
        if whole[1] and (
            not found[1]
            or counter.count_message(m.participant, whole[0]) < counter.count_message(m.participant, found[0])
        ):
            return whole
        return found

    def readable_size(self, work: list[Work], ids: frozenset[str], counter: TokenCounter) -> int:
        """The tokens of ``work`` with each message of ``ids`` that a cut emptied since then (see
        :meth:`emptied`) at its smallest readable excerpt (see :func:`_smallest_readable`; a message with
        none counts at a tenth of its text)."""
        emptied = {id(m): blocks for m, blocks in self._emptied(work, ids, counter)}
        total = 0
        for m in work:
            blocks = emptied.get(id(m))
            if blocks is None:
                total += _tokens(m, counter)
            else:
                total += counter.count_message(m.participant, self._smallest(m, blocks, counter)[0])
        return total

    def readable(
        self, work: list[Work], ids: frozenset[str], counter: TokenCounter, p: Pass, emptied_only: bool = True
    ) -> bool:
        """Give each message of ``ids`` in ``work`` that a cut emptied since then (not ``emptied_only``: each
        one, as it stood) its smallest readable excerpt (see :func:`_smallest_readable`), in place; False,
        changing nothing, when one has none."""
        if emptied_only:
            found = list(self._emptied(work, ids, counter))
        else:
            was = {id(m): blocks for m, blocks, _f, _t, _s in self.messages}
            found = [(m, was[id(m)]) for m in work if cut_key(m) in ids and id(m) in was]
        emptied = [(m, blocks, *self._smallest(m, blocks, counter)) for m, blocks in found]
        if not all(ok for _m, _b, _k, ok in emptied):
            return False
        for m, blocks, kept, _ok in emptied:
            size = counter.count_message(m.participant, blocks)
            p.repairs[:] = [r for r in p.repairs if not (r.kind == "excerpted" and r.message_id == m.origin
                                                           and r.detail.endswith(_LEVEL_CUT))]  # fmt: skip
            if counter.count_message(m.participant, kept) >= size:
                # Its smallest readable excerpt is no smaller than it stood (an excerpt already): it stands so,
                # keeping at least as much (a property found "cut from about 36 to 36 tokens").
                self._put_back(m, p)
                continue
            m.blocks, m.flags, m.tokens = kept, block_flags(kept), None
            p.alter(m)
            p.repair("excerpted", m, f"cut from about {size} to {_tokens(m, counter)}{_LEVEL_CUT}")
        return True

    def _put_back(self, m: Work, p: Pass) -> None:
        """``m`` as it stood (blocks, flags, tokens, sources, and whether the pass counted it altered)."""
        for was, blocks, flags, tokens, sources in self.messages:
            if was is m:
                m.blocks, m.flags, m.tokens, m.sources = blocks, flags, tokens, list(sources)
                if m.origin is not None and m.origin not in self.altered:
                    p.altered.discard(m.origin)
                return

    def hollow(
        self,
        work: list[Work],
        ids: frozenset[str],
        counter: TokenCounter,
        units: frozenset[str] = frozenset(),
        unit_share: float = _HOLLOW_SHARE,
        unit_kept: int | None = None,
    ) -> set[str]:
        """The messages of ``ids`` in ``work`` (of this snapshot's) whose excerpt keeps less than a tenth of
        their text by their cut markers' figures (:func:`share_kept`: of the message as written, not of what
        this cut was given; plain messages only: a message with tool blocks or thinking keeps its pairing as a
        bare excerpt and cannot give way whole), and those of the closed tool units ``units`` names that keep
        less than ``unit_share`` (and, with ``unit_kept``, fewer tokens of their text than that). Measured
        against the snapshot's blocks, a recent turn that an earlier pass had cut to half went on to keep 5% of
        itself ("about 133 of 140 tokens cut here") while it kept 11% of what this cut was given, and stood."""
        was = {id(m) for m, _b, _f, _t, _s in self.messages}
        out: set[str] = set()
        for m in work:
            key = cut_key(m)
            if key is None or key not in ids or id(m) not in was:
                continue
            unit = bool(m.flags & _UNIT_FLAGS)
            if unit and key not in units:
                continue
            if not unit:
                if share_kept(_said(m, m.blocks), counter) < _HOLLOW_SHARE:
                    out.add(key)
                continue
            # With ``unit_kept`` (saying nothing), each of a message's parallel results is judged alone: one cut
            # to its bare marker beside a sibling kept whole said nothing all the same (a review saw "mix
            # credo"'s output sent as "[… about 66 of 66 tokens cut here …]" beside the dialyzer's).
            parts = [[b] for b in m.blocks if b.get("type") == "tool_result"] if unit_kept is not None else []
            if any(_says_nothing(blocks, counter, unit_share, unit_kept) for blocks in parts or [m.blocks]):
                out.add(key)
        return out

    def restore(self, p: Pass) -> list[Work]:
        for m, blocks, flags, tokens, sources in self.messages:
            m.blocks, m.flags, m.tokens, m.sources = blocks, flags, tokens, list(sources)
        p.repairs[:] = self.repairs
        p.altered.clear()
        p.altered.update(self.altered)
        return list(self.work)


def _late_groups(work: Sequence[Work], late: frozenset[str], hold: frozenset[str]) -> list[frozenset[str]]:
    """The ids of ``late`` (the oldest recent turns, see :func:`shrink`) as they give way, oldest first: a
    closed tool unit (see :func:`closed_unit`) as one group (it goes whole or not at all, so counting its
    messages apart made giving one more turn way change nothing, and the search for the fewest turns
    assumed it always helps), every other message alone."""
    out: list[frozenset[str]] = []
    after = 0
    for i, m in enumerate(work):
        if i < after or (m.origin not in late and m.origin is not None):
            continue
        after = closed_unit(work, i, late, hold) if m.flags & F_TOOL_USE and m.origin is not None else 0
        if after:
            members = work[i:after]
            out.append(frozenset(x.origin for x in members if x.origin is not None) | _moved_ids(members))
        elif m.origin is not None:
            out.append(frozenset({m.origin}))
    return out


def _head_groups(work: Sequence[Work], head: frozenset[str], hold: frozenset[str]) -> list[frozenset[str]]:
    """The groups of the head window's messages (``head``) that may give way whole, newest first (see
    :func:`_late_groups`): not its first message (the opening instructions, every shard of it), nor one
    ``hold`` names (pins,
    the running tool loop, the newest message's unit), nor a message of tool blocks or thinking outside a
    closed tool unit (cut to its excerpt, never away)."""
    first = next((m.origin for m in work if m.origin in head), None)
    opening = group_of(first)[0] if first is not None else None  # all the shards of a long opening message
    out = []
    for g in _late_groups(work, head - hold, hold):
        if any(group_of(i)[0] == opening for i in g) or (
            len(g) == 1 and any(m.origin in g and m.flags & _UNIT_FLAGS for m in work)
        ):
            continue
        out.append(g)
    return out[::-1]


def _moved_ids(members: Sequence[Work]) -> frozenset[str]:
    """The ids of the stored messages whose results the pairing pass moved into ``members``' answer turns."""
    return frozenset(s.id for x in members if x.origin is None for s in x.sources if s.kind == "message")


def _drop_last_lines(m: Work, excess: int, counter: TokenCounter, p: Pass) -> None:
    """Take at least ``excess`` tokens off the text block ``m`` by whole lines from its end (its first
    line, the heading, stays; so does no section heading, a line ending with ``:`` and not indented,
    with nothing left under it)."""
    if excess <= 0 or len(m.blocks) != 1 or m.blocks[0].get("type") != "text":
        return
    before = _tokens(m, counter)
    lines = str(m.blocks[0]["text"]).split("\n")
    keep = len(lines)
    while keep > 1:
        keep -= 1
        text = "\n".join(lines[:keep])
        # Priced as the message it is (a block's count leaves out the message's own tokens: a block cut
        # by that count left the context a token or two over, and the compile let the block go whole).
        if before - counter.count_message(m.participant, [{**m.blocks[0], "text": text}]) >= excess:
            break
    while keep > 1 and lines[keep - 1].endswith(":") and not lines[keep - 1][:1].isspace():
        keep -= 1  # a section heading left without its lines
    if keep < len(lines):
        m.blocks = [{**m.blocks[0], "text": "\n".join(lines[:keep])}]
        p.alter(m)
        p.repair("excerpted", m, f"{len(lines) - keep} last lines left out to fit the budget")


def _ledger_gives_way(work: list[Work], i: int, excess: int, counter: TokenCounter, p: Pass) -> list[Work]:
    """``work`` with its working-state block (at ``i``) shorter by at least ``excess`` tokens, by whole lines
    from its end (see :func:`_drop_last_lines`), or without it and its marker turn when only its heading is
    left (a marker turn carrying moved tool results keeps the heading: those results stay)."""
    m = work[i]
    _drop_last_lines(m, excess, counter, p)
    text = str(m.blocks[0].get("text", "")) if len(m.blocks) == 1 else "\n"
    if "\n" in text or i == 0 or work[i - 1].kind != "marker":
        return work
    if any(b.get("type") == "tool_result" for b in work[i - 1].blocks):
        return work
    p.repair("excerpted", m, "the working-state block was left out to fit the budget")
    return _without_pairs(work, {i})


def _has_extras(work: Sequence[Work]) -> bool:
    """Whether ``work`` holds a recall section (see :func:`_without_extras`)."""
    return any(m.kind == "recall" for m in work)


def _without_extras(work: list[Work], p: Pass) -> list[Work]:
    """``work`` without the recall section (each pair with its marker turn): what gives way after the oldest
    recent turns and before the newest message goes as its bare marker. (The working-state block is not
    cut here: the compile fails and the manager compiles again with a smaller block or none, see
    ``state.keeper``, so a block never makes a context fit that would fail without it.)"""
    return _drop_recall(work, p)


def _drop_recall(work: list[Work], p: Pass) -> list[Work]:
    """``work`` without its recall pairs (each marker turn and the recalled transcript after it): when
    nothing else can be cut, a query's recall gives way rather than the compile failing (a query never
    makes a compile fail that fits without it)."""
    gone = {i for i, m in enumerate(work) if m.kind == "recall"}
    if not gone:
        return work
    p.repair("recall_dropped", None, "the recall section was left out: the rest of the context needs the whole budget")
    return _without_pairs(work, gone)


def _without_pairs(work: list[Work], gone: set[int], stand_ins: Mapping[int, Work] | None = None) -> list[Work]:
    """``work`` without the synthetic turns at ``gone`` and the marker turn before each (those of
    ``stand_ins`` replaced by the message it gives for them). A marker turn may carry tool results the
    pairing pass moved into it (it follows their call): those stay, as a turn of their own, so no call
    loses its answer; only the marker's own text goes."""
    out: list[Work] = []
    for i, m in enumerate(work):
        if i in gone:
            if stand_ins and i in stand_ins:
                out.append(stand_ins[i])
            continue
        if i + 1 in gone and m.kind == "marker":
            results = [b for b in m.blocks if b.get("type") == "tool_result"]
            if not results:
                continue
            m.blocks, m.flags, m.tokens, m.kind = results, block_flags(results), None, "answer"
            m.sources = [s for s in m.sources if s.kind == "message"] or [Source("synthetic", "tool results")]
        out.append(m)
    return out


def _summary_note(summaries: Sequence[Work], counter: TokenCounter) -> Work:
    """One note standing for the rendered ``summaries`` left out whole with their marker turns (provenance:
    the summaries, incomplete; its figure is what their texts cost as they stood before the cut)."""
    named = [s._replace(complete=False) for m in summaries for s in m.sources if s.kind == "summary"]
    count = len(named)
    tokens = sum(_tokens(m, counter) for m in summaries)
    text = (
        f"[… {count} earlier summar{'y' if count == 1 else 'ies'} (about {tokens} tokens) cut here to fit the "
        f"budget; the journal keeps {'it' if count == 1 else 'them'} …]"
    )
    blocks: list[Block] = [{"type": "text", "text": text}]
    return Work(
        "context-journal",
        "user",
        blocks,
        block_flags(blocks),
        None,
        None,
        kind="note",
        sources=[Source("synthetic", "summaries cut to fit"), *named],
    )


def _summaries_give_way(work: list[Work], gone: Sequence[int], counter: TokenCounter, p: Pass) -> list[Work]:
    """``work`` with the rendered summaries at ``gone`` (ascending) and their marker turns left out, each run
    of consecutive pairs as one note (see :func:`_summary_note`) where its first summary stood."""
    runs: list[list[int]] = []
    for i in gone:
        if runs and i == runs[-1][-1] + 2 and work[i - 1].kind == "marker":
            runs[-1].append(i)
        else:
            runs.append([i])
    stand_ins: dict[int, Work] = {}
    for run in runs:
        stand_ins[run[0]] = note = _summary_note([work[i] for i in run], counter)
        ids = [s.id for s in note.sources[1:]]
        span = f"{ids[0]} to {ids[-1]}" if len(ids) > 1 else "".join(ids)
        p.repair("summaries_cut", None, f"{len(ids)} summaries ({span}) left out whole to fit the budget")
    return _without_pairs(work, set(gone), stand_ins)


def shrink(
    work: list[Work],
    room: int,
    counter: TokenCounter,
    p: Pass,
    options: CompileOptions,
    keep_thinking: frozenset[str] = frozenset(),
    keep_whole: frozenset[str] = frozenset(),
    first: frozenset[str] = frozenset(),
    last: frozenset[str] = frozenset(),
    documents: frozenset[str] = frozenset(),
    late: frozenset[str] = frozenset(),
    newest: frozenset[str] = frozenset(),
    loop: frozenset[str] = frozenset(),
    head: frozenset[str] = frozenset(),
) -> list[Work]:
    """Reduce messages to excerpts until the context fits ``room`` tokens (or cannot), in tiers:

    1. the messages ``first`` names (middle content not summarised yet), oldest first (see
       :func:`_give_way`);
    2. every other message by a water level (see :func:`_level`); when that leaves a rendered summary under
       a tenth of itself, the fewest oldest summaries give way whole instead, each run of them as one note
       (see :func:`_summaries_give_way`);
    3. the messages ``last`` names (the head window), only when nothing else is left to cut; then the
       running tool loop's steps (``loop``); then the head window's opening message (the instructions)
       and those ``newest`` names (the newest message and its tool unit, the running loop's transcript)
       by one level, so neither is cut below the other while the other is longer; neither the opening
       nor the newest message is sent as its bare cut marker (the compile fails rather), and the recent
       turns (then the head window's) give way before the opening is cut, when some number of them keeps
       it whole;
    4. the messages ``late`` names (the oldest turns of a recent window, which no excerpt made small
       enough), oldest first, as tier 1 cuts them, and after them the turns of the head window
       (``head``) but its first message, newest first (also when they leave a result of the running loop
       cut until it says nothing: the loop would go as its transcript for them): before the working-state
       block and the recall section give way (below).

    Those in ``keep_thinking`` (the opening message of a running tool loop) keep their thinking blocks
    byte for byte, and those ``loop`` and ``newest`` name never give way as closed tool units;
    those in ``keep_whole`` (pinned messages and their tool units, and rendered summaries
    or messages whose sources it names: summaries of a range pinned at a level, a pinned message rendered
    as newest) are never cut; ``documents`` are never excerpted (the middle that gives way first may
    still leave one out whole, with the run it is in). The working-state block is
    never cut in its middle (a middle cut once lost the latest plan and kept the names line): it is
    rendered within its own allowance, and only when everything else is cut does it
    lose whole lines from its end (its sections come in priority order, names last).
    """
    p.readable_at = None  # (set below when this cut fails for the newest message alone)
    if sum(_tokens(m, counter) for m in work) <= room:
        return work
    # The newest message's unit is excerpted last, never cut as the middle that gives way first, even where
    # the strategy's give-way spans reach it (a review saw a newest tool result cut there to its bare marker,
    # beside a whole working-state block and 176 tokens of room unused).
    first = first - newest
    if first:
        work = _give_way(work, room, counter, p, first, keep_whole | keep_thinking, loop | newest)

    # The opening message of the head window (the rules): cut after the head window's other turns, with the
    # newest messages, and never sent as its bare cut marker (see ``speaks`` below).
    opening = next((m.origin for m in work if m.origin in head), None) if head else None

    def tier(m: Work) -> int:
        """The order the levels cut in: the middle and the recent window, the head window's turns, the running
        tool loop's steps, then the opening message and the newest messages by one level (a review saw the
        rules cut to 5% beside 67 head and recent turns kept raw: cut by one level with the head's short
        turns, the longest message paid for them all; another saw a running loop's result cut to its bare
        marker beside whole head turns, the loop then sent as its transcript at 950 tokens where it went raw
        at 900; another saw the rules cut to "Project [… about 493 of 498 tokens cut here …] n149" beside
        the loop's transcript at 849 tokens: cut before the newest messages, the opening paid for them)."""
        if cut_key(m) in newest or (m.origin is not None and m.origin == opening):
            return 3
        return 2 if m.origin in loop else 1 if m.origin in last else 0

    whole = keep_whole | documents
    fixed: set[str] = set()  # messages set at their smallest readable excerpts, which the levels leave alone
    memo: dict[tuple[int, int, float], tuple[Work, list[Block], list[Block], int]] = {}  # see _level

    def level(work: list[Work], k: int, floored: frozenset[str] = frozenset(), steps: bool = False) -> list[int]:
        """Cut tier ``k`` by a water level (the messages of ``floored`` not below their readable floors; with
        ``steps``, only the running loop's results of the tier); the positions it chose."""
        keep = whole | fixed

        def cut(m: Work) -> bool:
            return tier(m) == k and (not steps or (m.origin in loop and bool(m.flags & F_TOOL_RESULT)))

        chosen = [i for i, m in enumerate(work) if not held(m, keep) and m.kind != "ledger" and cut(m)]
        _level(work, chosen, room, counter, p, keep_thinking, memo, floored, nearer=k == 2)
        return chosen

    def loop_level(work: list[Work]) -> list[Work]:
        """Cut the running loop's steps (tier 2) by a water level that leaves each of them at least its
        readable floor (see :func:`_loop_floor`), when that fits with the tiers above as they stand: first
        alone; then with the working-state block losing its last lines (or going whole), about
        :data:`_LEDGER_GIVES` tokens of them at most; then with the loop's newest result (of the tier above,
        cut after the older steps) cut toward its own floor too. Else by the plain level, which leaves a
        result saying nothing: the loop then goes as its transcript. Whether the loop goes raw so turns on
        what its steps need at their floors beside what is never cut for them (the opening message, the
        question), not on a result moved across the line where it says nothing, a token at a time, by the
        level's granularity as the budget moves (issue 13: raw at 1,173 tokens, a transcript at 1,174, raw
        from 1,175), nor on the block entering at a budget and taking the room the results had (it was cut
        only after them), nor on the newest result's excerpt, drawn for the budget, growing by three tokens
        as the budget grew by one."""
        if not any(m.origin in loop for m in work):  # (none, or the loop as its transcript: cut as the newest)
            level(work, 2)
            return work
        # With the opening message or the question set at their smallest readable excerpts (a cut that emptied
        # them, tried again), no floors: the loop never goes raw beside the rules cut to two tokens for them.
        # (The loop's newest result so set keeps them: its floor as the newest, a hundredth of it, is above
        # its floor as a step, and the others cut by the plain level moved across the line a token at a time.)
        floored = loop if fixed <= loop else frozenset()

        def over() -> bool:
            return sum(_tokens(m, counter) for m in work) > room

        start = _Snapshot(work, p, keep_thinking)
        level(work, 2, floored)
        if not over():
            return work
        block = next((i for i, m in enumerate(work) if m.kind == "ledger"), None)
        if block is not None:
            excess = min(_LEDGER_GIVES, sum(_tokens(m, counter) for m in work) - room)
            start.restore(p)
            work = _ledger_gives_way(work, block, excess, counter, p)
            start = _Snapshot(work, p, keep_thinking)
            level(work, 2, floored)
            if not over():
                return work
            # (The block stays shortened: the tiers after this one are cut with the room it left, where it
            # once lost its lines only after the opening message was cut to two tokens for it.)
        # The loop's newest result (cut with the opening message, after the older steps) down to its floor too
        # (its call is not: a newest call too large to fit sends the loop as its transcript, where its short
        # form names it, as before); not while the opening message stands as the overflow excerpt the budget
        # drew it as: that one grows with the budget, by all it cut once whole (a review's rules went from 278
        # tokens at 1,000 to 502 at 1,100), and the loop sent raw beside it would go as its transcript with
        # more room.
        if floored and not any(m.origin == opening and m.uncut is not None for m in work):
            level(work, 3, loop, steps=True)
            if not over():
                return work
        start.restore(p)
        level(work, 2)
        return work

    def hollow_summaries(work: list[Work], chosen: Sequence[int]) -> bool:
        return any(work[i].kind == "summary" and share_kept(work[i].blocks, counter) < _HOLLOW_SHARE for i in chosen)

    gone_before = [0]  # the most summaries a cut of this call gave way (the first, tightest cut's)

    def middle(work: list[Work], exact: bool = True) -> list[Work]:
        """The first tier by a water level; when that leaves a rendered summary keeping under a tenth of
        itself, the fewest oldest summaries give way whole (one note for each run of them) so that the
        rest keep more (a review saw a session compiled at 800 tokens send five summaries, each with its
        question turn, as "about 87 of 87 tokens cut here": 300 tokens that said nothing). Not ``exact``
        (the searches of the tiers below, each cut with more room than the first), as many as the first
        cut gave way when they are enough, not searched again: a search in each of their tries made a
        compile of a drained session 4-7 times slower."""
        start = _Snapshot(work, p, keep_thinking)
        summaries = [i for i, m in enumerate(work) if m.kind == "summary" and not held(m, whole) and tier(m) == 0]

        def attempt(k: int) -> tuple[list[Work], bool]:
            again = _summaries_give_way(start.restore(p), summaries[:k], counter, p) if k else start.restore(p)
            return again, not hollow_summaries(again, level(again, 0))

        if not summaries:
            level(work, 0)
            return work
        first = 0 if exact else min(gone_before[0], len(summaries))
        again, readable = attempt(first)
        if readable:
            return again
        # (With every one given way, none is left hollow.)
        k = _fewest(first + 1, len(summaries), lambda k: attempt(k)[1])
        gone_before[0] = max(gone_before[0], k)
        return attempt(k)[0]

    def levels(work: list[Work], exact: bool = True) -> list[Work]:
        for k in range(4):
            if sum(_tokens(m, counter) for m in work) <= room:
                break
            if k == 0:
                work = middle(work, exact)
            elif k == 2:
                work = loop_level(work)
            else:
                level(work, k)
        return work

    hold = keep_whole | keep_thinking | loop | newest
    before = _Snapshot(work, p, keep_thinking) if late or newest or head else None
    order = _late_groups(before.work, late, hold) if before is not None and late else []  # oldest first
    heads = _head_groups(before.work, head, hold) if before is not None and head else []  # newest first
    units = frozenset(i for g in heads if len(g) > 1 for i in g)  # closed tool units: judged by their results
    # The recent window's closed tool units whose result the cut leaves saying nothing (see ``attempt``).
    late_units = frozenset(i for g in order if len(g) > 1 for i in g)
    # ... judged by their results alone (judged by a call's long text cut to nothing, a unit whose result
    # stood whole gave way: review).
    late_results = frozenset(m.origin for m in work if m.origin in late_units and m.flags & F_TOOL_RESULT)
    head_turns = frozenset(i for g in heads for i in g)
    # The messages never sent as their bare cut marker (the compile fails rather): the newest, and the opening
    # message of the head window (a review saw a history's opening instructions sent as "[… about 67 of 67
    # tokens cut here …]" at 70 tokens beside a note of the middle and the newest answer).
    speaks = newest if opening is None else newest | {opening}

    def opening_cut(work: list[Work]) -> bool:
        """Whether the opening message was cut in ``work`` (against the blocks it had before this cut)."""
        assert before is not None
        was = {id(m): blocks for m, blocks, _f, _t, _s in before.messages}
        return any(m.origin == opening and id(m) in was and m.blocks is not was[id(m)] for m in work)

    def attempt(k: int, extras: bool = False, readable: bool = False, *, h: int = 0, exact: bool = False) -> list[Work]:
        """The context with the oldest ``k`` recent turns of ``late`` and the newest ``h`` turns of the head
        window given way whole, the rest excerpted (with ``extras``, without the recall section: see
        :func:`_without_extras`; ``exact``: see ``middle``; ``readable``: the newest and the opening
        message, when the excerpts leave one as its bare marker, at its smallest readable excerpt instead,
        the others cut again with the room left, see :meth:`_Snapshot.readable`). A closed tool unit of the
        recent window whose result the cut leaves saying nothing (judged result by result: under a hundredth
        of its text and under :data:`_UNIT_KEPT_TOKENS` tokens of it) gives way whole by itself, the oldest
        such unit first and one at a time, the rest cut again with the room each leaves before the next is
        judged: a review saw a real session's recent results sent as bare markers at 2,000 tokens ("[… about
        388 of 388 tokens cut here …]" after "mix test"); giving the oldest turns way until none was left so
        emptied the whole recent window for one result near its end (20 messages sent, then 8, as the budget
        rose)."""
        assert before is not None
        silent: frozenset[str] = frozenset()
        while True:
            gone = frozenset(i for group in (*order[:k], *heads[:h]) for i in group) | silent

            def cut(readable_ids: frozenset[str], gone: frozenset[str] = gone) -> list[Work] | None:
                """The context cut with ``readable_ids`` at their smallest readable excerpts first (None when one
                has none), the rest by the levels with the room they leave."""
                assert before is not None
                again = before.restore(p)
                if gone:
                    again = _give_way(again, -1, counter, p, gone, keep_whole | keep_thinking, loop | newest)
                if extras:
                    again = _without_extras(again, p)
                if readable_ids and not before.readable(again, readable_ids, counter, p, emptied_only=False):
                    return None
                fixed.update(readable_ids)
                try:
                    return levels(again, exact)
                finally:
                    fixed.clear()

            again = cut(frozenset())
            assert again is not None
            if readable:
                # A message cut to its bare marker goes at its smallest readable excerpt, and the others are cut
                # again with the room it leaves (set after the levels, it left the context over the room where a
                # cut of the others fitted: a review's history fitted at 117 tokens and failed at 118-119, its
                # opening message cut to its marker there); one that the next cut empties joins them.
                ids: frozenset[str] = frozenset()
                while more := before.emptied_ids(again, speaks, counter) - ids:
                    ids |= more
                    tried = cut(ids)
                    if tried is None:
                        again = cut(frozenset())
                        assert again is not None
                        before.readable(again, speaks, counter, p)
                        break
                    again = tried
            said = before.hollow(again, late_results - gone, counter, late_units, _BARE_SHARE, _UNIT_KEPT_TOKENS)
            # The oldest such unit alone, then the rest cut again: the room it leaves may keep the others readable
            # (all given way at once, a review saw five units go at 600 tokens and 225 sent).
            more = next((g for g in order if g & said), frozenset())
            if not more:
                return again
            silent |= more  # (each round gives one more unit way: it ends)

    def late_tier(h: int) -> tuple[list[Work], tuple[int, bool, bool]]:
        """The context cut by every tier with the newest ``h`` head turns given way, then, when its newest
        message or a recent turn is left as next to nothing, with the fewest oldest recent turns given way
        too; and the late turns given way, whether the recall section is left out and whether the newest
        message is at its smallest readable excerpt, as :func:`attempt` takes them. A cut that could fit
        only by sending the newest message as its bare marker sets ``p.readable_at`` and returns the
        context it restored."""
        assert before is not None

        def smallest(k: int) -> tuple[list[Work], tuple[int, bool, bool]] | None:
            """The context with the oldest ``k`` late turns and the recall section given way and the newest
            message at its smallest readable excerpt, when that fits: the last resort before failing (the
            water level can land below that excerpt: a history compiled at 93 tokens, and failed at 94,
            its newest message cut to its marker there, naming 95)."""
            taken = (k, _has_extras(before.work), True)
            tried = attempt(*taken, h=h)
            fits = sum(_tokens(m, counter) for m in tried) <= room
            return (tried, taken) if fits and not before.emptied(tried, speaks, counter) else None

        work = attempt(0, False, h=h)
        taken = (0, False, False)
        emptied = before.emptied(work, speaks, counter)
        if late and (
            sum(_tokens(m, counter) for m in work) > room
            or emptied
            or before.hollow(work, late | newest, counter)
            or opening_cut(work)
        ):
            # The oldest recent turns give way, and the excerpts are then made again with the room they leave:
            # made before, they were cut for a context that still held those turns (the newest message once
            # went down to its marker while the older turns that then gave way had stood whole; a review saw 35
            # recent turns each cut to "about 105 of 105 tokens cut here" where giving the oldest of them way
            # whole left the newer ones readable).
            over = _Snapshot(work, p, keep_thinking)  # what fails (or says next to nothing) without them

            def fits(k: int) -> bool:
                return sum(_tokens(m, counter) for m in attempt(k, False, h=h)) <= room

            def readable(k: int, ids: frozenset[str] = late | newest) -> bool:
                tried = attempt(k, False, h=h)
                return sum(_tokens(m, counter) for m in tried) <= room and not before.hollow(tried, ids, counter)

            def turns_readable(k: int) -> bool:
                return readable(k, late)

            # The fewest oldest turns to give way (halving: more given way leaves more room to the others) so
            # that the rest fit and none, the newest message included, is cut to next to nothing; when no
            # number keeps the newest a tenth of itself, the fewest that keep the turns so (a review saw no
            # turn given way and the newest answer cut to a token of 991 once the newest was asked for and
            # could not have it); when none does, the fewest that fit.
            def rules_whole(k: int) -> bool:
                tried = attempt(k, False, h=h)
                return (
                    sum(_tokens(m, counter) for m in tried) <= room
                    and not before.hollow(tried, late | newest, counter)
                    and not opening_cut(tried)
                )

            # First, the fewest that leave the opening message (the rules) whole as well, when some number does:
            # the recent turns give way before the rules are cut (a review saw the rules cut to 5% beside 67
            # raw turns, too short each for an excerpt to cut).
            test = (
                rules_whole
                if opening_cut(work) and rules_whole(len(order))
                else readable
                if readable(len(order))
                else turns_readable
                if turns_readable(len(order))
                else fits
            )
            lo = _fewest(0, len(order), test)
            work, taken = attempt(lo, False, h=h), (lo, False, False)
            if before.emptied(work, speaks, counter) and lo < len(order):
                # The fewest turns that fit leave the newest message as its marker: all of them may not (a
                # review saw 335 tokens fit and 336 fail, when the fewest that fit at 336 were fewer).
                work, taken = attempt(len(order), False, h=h), (len(order), False, False)
            if before.emptied(work, speaks, counter) and _has_extras(before.work):
                # Then the recall section gives way, before the newest message.
                work, taken = attempt(len(order), True, h=h), (len(order), True, False)
            if before.emptied(work, speaks, counter):
                # Only by sending the newest message as its cut marker: the turns stay and the compile fails,
                # as without this tier (a review saw 57 short turns whole and the newest answer as its
                # marker). The failure names what the context with every late turn given way needs once the
                # newest keeps a little of itself: the context restored, its late turns excerpted, said 1,527
                # tokens at a budget of 374 where 375 fit.
                needs = before.readable_size(work, speaks, counter)
                found = smallest(len(order))
                if found is not None:
                    return found
                work = over.restore(p)
                p.readable_at = needs
        elif emptied:
            # The excerpts fit only with the newest message as its bare cut marker and no recent turn is left
            # to give way (a review saw a session's final answer sent as "[… about 288 of 288 tokens cut here
            # …]" beside two older tool units cut to their markers, which the check above, run only when the
            # context was over or a plain recent turn hollow, let stand): the recall section gives way, and
            # when that does not keep some of it either, the compile fails (the manager then compiles again
            # with a smaller working-state block or none).
            needs = before.readable_size(work, speaks, counter)
            again = attempt(0, True, h=h) if _has_extras(before.work) else None
            if again is not None and before.emptied(again, speaks, counter):
                needs = min(needs, before.readable_size(again, speaks, counter))
                again = None
            if again is not None:
                work, taken = again, (0, True, False)
            else:
                found = smallest(0)
                if found is not None:
                    return found
                work = before.restore(p)
                p.readable_at = needs
        return work, taken

    if before is None:
        work = levels(work)
    else:
        # Turns of the head window but its opening message cut to next to nothing give way whole, the newest
        # first, the fewest that leave none so, and the rest are cut again with the room they leave (a review
        # saw four head turns of a lagging history each sent as "about 104 of 104 tokens cut here" beside a
        # newest message cut to a twentieth, and a real session's head tool result kept at a hundredth); the
        # recent turns that gave way for lack of room are then chosen again.
        h = 0
        work, taken = late_tier(0)

        # Whether the head window's turns giving way (all of them) would leave the opening message whole: then
        # they give way before the rules are cut, as the recent turns do (see ``late_tier``).
        rules_first = bool(heads) and opening_cut(work)
        if rules_first:
            tried = attempt(*taken, h=len(heads))
            rules_first = sum(_tokens(m, counter) for m in tried) <= room and not opening_cut(tried)

        def loop_silent(work: list[Work]) -> bool:
            """Whether a result of the running loop is cut in ``work`` until it says nothing: the loop then goes
            as its transcript (see :func:`silent_results`), so the head window's turns give way before it, as
            the older turns the strategy chose give way to the loop in the compile. (Issue 13: a lagging
            history's loop went raw at 614 tokens, a head turn cut into the note of the middle, and as its
            transcript at 615, where that turn stood whole and a result of the loop went silent for it; so on,
            raw and a transcript alternating every 20 tokens up to 847.)"""
            return bool(loop) and silent_results(work, loop, counter)

        def short(work: list[Work]) -> bool:
            """Whether ``work`` fails (over the room, or fitting only with its newest message as its marker)
            or holds a head turn cut to next to nothing, or the rules cut where the head's turns could give way,
            or a result of the running loop cut until it says nothing."""
            return (
                p.readable_at is not None
                or sum(_tokens(m, counter) for m in work) > room
                or bool(before.hollow(work, head_turns, counter, units))
                or (rules_first and opening_cut(work))
                or loop_silent(work)
            )

        while h < len(heads) and short(work):

            def settled(g: int, taken: tuple[int, bool, bool] = taken) -> bool:
                tried = attempt(*taken, h=g)
                return (
                    sum(_tokens(m, counter) for m in tried) <= room
                    and not before.emptied(tried, speaks, counter)
                    and not before.hollow(tried, head_turns, counter, units)
                    and not (rules_first and opening_cut(tried))
                    and not loop_silent(tried)
                )

            lo = _fewest(h + 1, len(heads), settled)
            # The late turns chosen again with the room those leave (when even all of them do not make it
            # fit, the failure names the smaller context).
            p.readable_at = None
            work, taken = late_tier(lo)
            h = lo
        if p.readable_at is None and gone_before[0]:
            # The tiers' searches cut with the summaries the first cut gave way; the fewest for the context
            # they chose may be fewer, kept when the context is no worse for it by any of their measures.
            def grade(work: list[Work]) -> tuple[bool, ...]:
                return (
                    sum(_tokens(m, counter) for m in work) <= room,
                    not before.emptied(work, speaks, counter),
                    not before.hollow(work, late | newest, counter),
                    not before.hollow(work, head_turns, counter, units),
                )

            mine = grade(work)
            work = attempt(*taken, h=h, exact=True)
            if not all(now or not was for now, was in zip(grade(work), mine, strict=True)):
                work = attempt(*taken, h=h)
    if p.readable_at is not None:
        # A failed cut stays over (a working-state block losing its lines made the context restored above
        # fit once, with the newest message as its bare marker): the manager tries a smaller block instead.
        # The context restored after the late turns gave way may itself fit with the newest message as its
        # marker (once an overflow excerpt could be cut again, a compile sent "[… about 320 of 320 tokens
        # cut here …]" as the newest message): then the context as it stood before any excerpt, which was
        # over the room (nothing is excerpted in a context that fits), stands for the failure.
        if before is not None and sum(_tokens(m, counter) for m in work) <= room:
            work = before.restore(p)
        return work
    for i, m in enumerate(work):
        if m.kind == "ledger":
            _drop_last_lines(m, sum(_tokens(x, counter) for x in work) - room, counter, p)
            if "\n" not in str(m.blocks[0].get("text", "")) if m.blocks else True:
                # Only its heading left: the block says nothing, so it goes with its marker turn.
                p.repair("excerpted", m, "the working-state block was left out to fit the budget")
                work = _without_pairs(work, {i})
                break
    if sum(_tokens(m, counter) for m in work) > room:
        work = _drop_recall(work, p)
    out = drop_empty(work, p)
    return lead_with_user(out, p, False) if out and out[0].role != "user" else out
