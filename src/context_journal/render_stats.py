"""Render statistics: the shape of a compiled context, its parts in order, their tokens and where each
came from (``ContextManager.render_stats()``, and what ``context-journal demo`` prints).

A compiled context reads, in order: the system part (the system argument and leading system messages),
the **head** (the first messages, raw), the **summaries** (recall pairs, coarsest first), raw messages of
the **middle** that are rendered at full detail (a chunk not summarised yet, or a span the budget let
unfold), and the **recent** window (the newest messages, raw: the tail). A message is placed in the middle
when a chunk owns it or a summary stands for it; raw messages before the middle are the head, after it the
recent window. Strategies that do not compress have no middle: their messages are one ``raw`` part. The
working-state pair is a ``ledger`` part and each recall pair a ``recall`` part, where they are placed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .compression.queries import SummaryNotFoundError

if TYPE_CHECKING:
    from .compile import CompileResult
    from .manager import ContextManager
    from .strategies import Summary

__all__ = ["Part", "Shape", "shape_of"]


@dataclass
class Part:
    """A run of compiled messages of one kind (consecutive summaries of one level form one part).

    Attributes:
        kind: ``"system"``, ``"head"``, ``"summary"``, ``"middle"``, ``"recent"``, ``"raw"``, ``"ledger"``
            or ``"recall"``.
        level: The summaries' level (summary parts), else None.
        messages: Compiled messages in the part (a recall pair counts two).
        tokens: Their estimated tokens.
        first_index: Position in the conversation of the first message the part stands for.
        last_index: Position of the last one.
        first_id: Id of that first message.
        last_id: Id of that last message.
        summary_ids: The summaries rendered (summary parts).
        stands_for: Conversation messages the part covers (``last_index - first_index + 1`` for
            summaries; the raw messages rendered otherwise).
    """

    kind: str
    level: int | None = None
    messages: int = 0
    tokens: int = 0
    first_index: int | None = None
    last_index: int | None = None
    first_id: str | None = None
    last_id: str | None = None
    summary_ids: list[str] = field(default_factory=list)
    stands_for: int = 0

    @property
    def label(self) -> str:
        """``"L2"`` for a summary part, the kind otherwise."""
        return f"L{self.level}" if self.kind == "summary" else self.kind

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "kind": self.kind,
            "level": self.level,
            "messages": self.messages,
            "tokens": self.tokens,
            "first_index": self.first_index,
            "last_index": self.last_index,
            "first_id": self.first_id,
            "last_id": self.last_id,
            "stands_for": self.stands_for,
            "summary_ids": list(self.summary_ids),
        }


@dataclass
class Shape:
    """The parts of a compiled context and their totals.

    Attributes:
        parts: In the order they are sent.
        conversation_messages: Messages in the compiled view.
        covered: Distinct conversation positions that some part stands for.
    """

    parts: list[Part]
    conversation_messages: int
    covered: int

    def tokens_by_part(self) -> dict[str, int]:
        """Tokens of ``system``, ``head``, ``summaries``, ``middle``, ``recent``, ``raw``, ``ledger`` and
        ``recall`` (those present), in the order they first appear."""
        out: dict[str, int] = {}
        for p in self.parts:
            key = "summaries" if p.kind == "summary" else p.kind
            out[key] = out.get(key, 0) + p.tokens
        return out

    def tokens_by_level(self) -> dict[str, int]:
        """Tokens of rendered summaries by level (``{"L1": n, ...}``)."""
        out: dict[str, int] = {}
        for p in sorted((p for p in self.parts if p.kind == "summary"), key=lambda p: p.level or 0):
            out[p.label] = out.get(p.label, 0) + p.tokens
        return out

    def summaries_by_level(self) -> dict[str, int]:
        """Summaries rendered, by level."""
        out: dict[str, int] = {}
        for p in sorted((p for p in self.parts if p.kind == "summary"), key=lambda p: p.level or 0):
            out[p.label] = out.get(p.label, 0) + len(p.summary_ids)
        return out


def _middle_bounds(
    index: Mapping[str, int], chunk_ids: Iterable[str], summaries: Iterable[Summary]
) -> tuple[int, int] | None:
    lo, hi = None, None
    for mid in chunk_ids:
        i = index.get(mid)
        if i is not None:
            lo = i if lo is None else min(lo, i)
            hi = i if hi is None else max(hi, i)
    for s in summaries:
        for mid in (s.first_message_id, s.last_message_id):
            i = index.get(mid)
            if i is not None:
                lo = i if lo is None else min(lo, i)
                hi = i if hi is None else max(hi, i)
    return None if lo is None or hi is None else (lo, hi)


def shape_of(cm: ContextManager, result: CompileResult) -> Shape:
    """The parts of ``result``, compiled by ``cm`` (see the module docstring).

    Reads the ids of the manager's messages (no payloads; those of its auxiliary views' slots too), its
    chunk records and the summaries the result renders.
    """
    cm.messages.refresh()
    if cm.auxiliary_views:  # the merged view the compile read: the other slots' messages are positions too
        view = cm._reader_view(check=False)
        view.refresh()
        ids = [e.id for e in view.entries()]
    else:
        ids = [e.id for e in cm.messages.iter_entries()]
    index = {mid: i for i, mid in enumerate(ids)}
    log = cm.compressor.compression_log()
    with log.lock:
        chunk_ids = [mid for chunk in log.chunks.values() for mid in chunk.ids]
    rendered: dict[str, Summary | None] = {}
    for m in result.messages:
        for s in m.sources:
            if s.kind == "summary" and s.id not in rendered:
                try:
                    rendered[s.id] = cm.get_summary(s.id)
                except SummaryNotFoundError:  # a strategy of another package keeps its summaries itself
                    rendered[s.id] = None
    bounds = _middle_bounds(index, chunk_ids, [s for s in rendered.values() if s is not None])

    def raw_kind(i: int) -> str:
        if bounds is None:
            return "raw"
        return "head" if i < bounds[0] else "recent" if i > bounds[1] else "middle"

    parts: list[Part] = []
    system_ids = [s.id for s in result.system_sources if s.kind == "system"]
    system_tokens = result.estimated_tokens - sum(m.tokens for m in result.messages)
    if result.system or system_tokens > 0:
        part = Part("system", tokens=system_tokens)
        _extend(part, [index[i] for i in system_ids if i in index], ids)
        parts.append(part)
    pending_marker = 0  # a recall pair's marker turn, counted with the summary that follows it
    for m in result.messages:
        summary_refs = [s for s in m.sources if s.kind == "summary"]
        if summary_refs:
            level = summary_refs[0].level
            last = parts[-1] if parts else None
            if last is None or last.kind != "summary" or last.level != level:
                last = Part("summary", level=level)
                parts.append(last)
            last.messages += 1 + (1 if pending_marker else 0)
            last.tokens += m.tokens + pending_marker
            pending_marker = 0
            for ref in summary_refs:
                summary = rendered[ref.id]
                if ref.id not in last.summary_ids:
                    last.summary_ids.append(ref.id)
                if summary is None:
                    continue  # not in the compression log: what it stands for is not known here
                lo, hi = index.get(summary.first_message_id), index.get(summary.last_message_id)
                if lo is not None and hi is not None:
                    _extend(last, range(lo, hi + 1), ids)
            continue
        pair = next((k for k in ("ledger", "recall") if any(s.kind == k for s in m.sources)), None)
        if pair is not None:  # the working-state pair, or a recall pair: its marker turn and itself
            parts.append(Part(pair, messages=1 + (1 if pending_marker else 0), tokens=m.tokens + pending_marker))
            pending_marker = 0
            continue
        raw = [index[s.id] for s in m.sources if s.kind == "message" and s.id in index]
        if not raw:
            if any(s.kind == "synthetic" and s.id == "marker" for s in m.sources):
                pending_marker += m.tokens
            elif parts:
                parts[-1].messages += 1
                parts[-1].tokens += m.tokens
            continue
        kind = raw_kind(raw[0])
        last = parts[-1] if parts else None
        if last is None or last.kind != kind:
            last = Part(kind)
            parts.append(last)
        last.messages += 1
        last.tokens += m.tokens
        _extend(last, raw, ids)
    covered: set[int] = set()
    for p in parts:
        if p.first_index is not None and p.last_index is not None:
            covered.update(range(p.first_index, p.last_index + 1))
    return Shape(parts, len(ids), len(covered))


def _extend(part: Part, positions: Iterable[int], ids: Sequence[str]) -> None:
    for i in positions:
        if part.first_index is None or i < part.first_index:
            part.first_index, part.first_id = i, ids[i]
        if part.last_index is None or i > part.last_index:
            part.last_index, part.last_id = i, ids[i]
    if part.first_index is not None and part.last_index is not None:
        part.stands_for = part.last_index - part.first_index + 1
