"""Request plans for work items (and head transitions), and the records a successful answer writes.

A plan names, by created sequences, what a request replays (see :mod:`.requests`): the head window,
earlier summaries as recall pairs (:func:`recall_context`: the summaries before the target, coarse
ones first, refined newest-first within ``recall_context_tokens``, never finer going back in time),
and the target. :func:`store_summary` turns an answer into rows: an L1 summary, a part of one (and
the L1 once the last part is in), or a merge.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..._graphemes import ceil_boundary, clip_end
from .chunking import Regions, summary_span
from .records import PartRecord, Summary, merge_id, summary_id_for_chunk
from .requests import RequestPlan

if TYPE_CHECKING:
    from ...views import MessageView
    from ..base import SummaryRequest, SummaryResult
    from .state import CompressionLog
    from .strategy import AutobiographicalStrategy
    from .work import WorkItem

__all__ = ["cap_text", "plan_for", "plan_read_sequence", "recall_context", "store_summary", "transition_plan"]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n")


def cap_text(text: str, cap: int, tokens: Callable[[str], int]) -> tuple[str, bool]:
    """``text`` cut to at most ``cap`` tokens (as ``tokens`` counts them) at the last line or sentence
    end in its second half (else where the cap falls); True when it was cut."""
    if tokens(text) <= cap:
        return text, False
    lo, hi = 1, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if tokens(text[:mid]) <= cap:
            lo = mid
        else:
            hi = mid - 1
    cut = clip_end(text, lo)  # whole grapheme clusters (an emoji, a flag, a letter with its marks)
    ends = [m.start() for m in _SENTENCE_END.finditer(cut)]
    if ends and ends[-1] > len(cut) // 2:
        cut = cut[: ends[-1]]
    return cut.rstrip() or clip_end(text, max(lo, ceil_boundary(text, 1))).rstrip(), True


def _seqs(view: MessageView, a: int, b: int) -> tuple[int, int] | None:
    if b <= a:
        return None
    return view.entry(a).created_sequence, view.entry(b - 1).created_sequence


def recall_context(
    strategy: AutobiographicalStrategy,
    view: MessageView,
    log: CompressionLog,
    before_seq: int,
    memo: dict[str, tuple[int, int] | None],
) -> tuple[Summary, ...]:
    """The summaries recalled by a request whose target starts at created sequence ``before_seq``:
    the newest roots that fit ``recall_context_tokens`` (walked back from the target: O(what is
    recalled)), then refined newest-first while the budget allows, never finer going back in time."""
    budget = strategy.config.recall_context_tokens
    nodes: list[Summary] = []
    spent = 0
    for root in log.roots_before(before_seq):
        if root.kind != "summary":
            continue
        s = log.summaries[root.id]
        cost = strategy.pair_cost(s)
        if spent + cost > budget:
            break
        if summary_span(view, log, s, strategy.owned_ids, memo) is None:
            continue
        nodes.append(s)
        spent += cost
    nodes.reverse()
    remaining = budget - spent
    out_rev: list[Summary] = []
    min_level = 1

    def visit(s: Summary) -> None:
        nonlocal remaining, min_level
        kids = log.children(s)
        if (
            s.level - 1 >= min_level
            and kids
            and all(summary_span(view, log, k, strategy.owned_ids, memo) is not None for k in kids)
        ):
            delta = sum(strategy.pair_cost(k) for k in kids) - strategy.pair_cost(s)
            if delta <= remaining:
                remaining -= delta
                for k in reversed(kids):
                    visit(k)
                return
        out_rev.append(s)
        min_level = max(min_level, s.level)

    for s in reversed(nodes):
        visit(s)
    out_rev.reverse()
    return tuple(out_rev)


def _head(view: MessageView, reg: Regions) -> tuple[int, int] | None:
    return _seqs(view, reg.head_start, reg.head_end)


def plan_for(
    strategy: AutobiographicalStrategy,
    view: MessageView,
    log: CompressionLog,
    reg: Regions,
    item: WorkItem,
) -> RequestPlan:
    """The request plan of a work item."""
    cfg = strategy.config
    memo: dict[str, tuple[int, int] | None] = {}
    a = view.index_at_sequence(item.first_seq)
    b = view.index_at_sequence(item.last_seq + 1)
    context = recall_context(strategy, view, log, item.first_seq, memo)
    if item.kind == "merge":
        sources = tuple(log.summaries[i] for i in item.source_ids)
        instruction = cfg.merge_prompt.format(count=len(sources), target=item.target_tokens)
        return RequestPlan(
            item.key,
            "merge",
            item.level,
            item.target_tokens,
            instruction,
            head=_head(view, reg),
            context=context,
            target_summaries=sources,
        )
    chunk = log.chunks[item.chunk_id or ""]
    parts: tuple[str, ...] = ()
    if item.kind == "part" and item.part is not None:
        done = log.parts.get(chunk.id, {})
        parts = tuple(done[r].text for r in item.parts[: item.part[0]] if r in done)
    hint = strategy.chunk_hint(chunk)
    instruction = cfg.chunk_prompt.format(
        count=max(0, b - a),
        first_id=view.entry(a).id if b > a else chunk.first_id,
        last_id=view.entry(b - 1).id if b > a else chunk.last_id,
        target=item.target_tokens,
        hint=f" {hint}" if hint else "",
    )
    return RequestPlan(
        item.key,
        item.kind,
        1,
        item.target_tokens,
        instruction,
        head=_head(view, reg),
        context=context,
        recalled_parts=parts,
        target_raw=_seqs(view, a, b),
    )


def transition_plan(
    strategy: AutobiographicalStrategy, view: MessageView, log: CompressionLog, reg: Regions
) -> RequestPlan:
    """The plan of a head-reset transition summary: the head, the summaries, the newest messages."""
    cfg = strategy.config
    target = cfg.level_target(2)
    n = len(view)
    context = recall_context(strategy, view, log, view.entry(n - 1).created_sequence + 1 if n else 0, {})
    return RequestPlan(
        "transition",
        "transition",
        0,
        target,
        cfg.transition_prompt.format(target=target),
        head=_head(view, reg),
        context=context,
        tail_raw=_seqs(view, max(reg.frontier, reg.head_end), n),
    )


def plan_read_sequence(view: MessageView, log: CompressionLog, plan: RequestPlan) -> int:
    """Newest message-version sequence a plan's request reads (metadata only; no body is read)."""
    newest = max([0, *(s.read_sequence for s in plan.target_summaries), *(s.read_sequence for s in plan.context)])
    for seqs in (plan.head, plan.target_raw, plan.tail_raw):
        if seqs is not None:
            a, b = view.index_at_sequence(seqs[0]), view.index_at_sequence(seqs[1] + 1)
            newest = max([newest, *(e.sequence for e in view.entries(a, b))])
    return newest


def _usage(result: SummaryResult) -> dict[str, Any]:
    return {"model": result.model, "input_tokens": result.input_tokens, "output_tokens": result.output_tokens}


def store_summary(
    strategy: AutobiographicalStrategy,
    log: CompressionLog,
    item: WorkItem,
    plan: RequestPlan,
    request: SummaryRequest,
    text: str,
    result: SummaryResult,
) -> list[tuple[str, Mapping[str, Any]]]:
    """The records an answer writes (empty when the work was done meanwhile by another worker)."""
    cfg = strategy.config
    meta = request.metadata
    digest = meta.get("request_hash")
    read_seq = int(meta.get("read_sequence", 0))
    as_of = int(meta.get("as_of", read_seq))
    now = time.time()
    participant = cfg.summary_participant
    if item.kind == "merge":
        sources = [log.summaries.get(i) for i in item.source_ids]
        if any(s is None or s.id in log.parent for s in sources):
            return []
        srcs = [s for s in sources if s is not None]
        body, cut = strategy.cap_text(text, item.level, item.target_tokens)
        summary = Summary(
            merge_id(item.level, item.source_ids),
            item.level,
            body,
            item.source_ids,
            srcs[0].first_message_id,
            srcs[-1].last_message_id,
            srcs[0].first_sequence,
            srcs[-1].last_sequence,
            sum(s.message_count for s in srcs),
            strategy.message_tokens(participant, body),
            now,
            request_hash=digest,
            read_sequence=max([read_seq, *(s.read_sequence for s in srcs)]),
            truncated=cut,
            kind="merge",
            as_of=as_of,
            **_usage(result),
        )
        return [(f"summary/{summary.id}", summary.to_body())]
    cid = item.chunk_id or ""
    chunk = log.chunks.get(cid)
    if chunk is None or cid in log.l1_of:
        return []
    records: list[tuple[str, Mapping[str, Any]]] = []
    usage = _usage(result)
    if item.kind == "part" and item.part is not None:
        body, _ = strategy.cap_text(text, 1, item.target_tokens)
        part = PartRecord(
            cid,
            item.first_seq,
            item.last_seq,
            body,
            result.model,
            result.input_tokens,
            result.output_tokens,
            digest,
            read_seq,
            as_of,
        )
        records.append((part.item, part.to_body()))
        done = dict(log.parts.get(cid, {}))
        done[(item.first_seq, item.last_seq)] = part
        if any(r not in done for r in item.parts):
            return records
        pieces = [done[r] for r in item.parts]
        text = "\n\n".join(p.text for p in pieces)
        usage["input_tokens"] = sum(p.input_tokens or 0 for p in pieces) or None
        usage["output_tokens"] = sum(p.output_tokens or 0 for p in pieces) or None
        read_seq = max(p.read_sequence for p in pieces)
        # Each part the log keeps is fresh for its own range (a stale mark retires the one it touches),
        # so the whole is as fresh as the newest part read.
        as_of = max(p.read_bound for p in pieces)
    target = strategy.chunk_target(chunk)
    body, cut = strategy.cap_text(text, 1, target)
    summary = Summary(
        summary_id_for_chunk(cid),
        1,
        body,
        (cid,),
        chunk.first_id,
        chunk.last_id,
        chunk.first_seq,
        chunk.last_seq,
        len(chunk.ids),
        strategy.message_tokens(participant, body),
        now,
        request_hash=digest,
        read_sequence=read_seq,
        phase=chunk.phase,
        truncated=cut,
        kind="chunk",
        as_of=as_of,
        **usage,
    )
    records.append((f"summary/{summary.id}", summary.to_body()))
    return records
