"""Re-joining a sharded message at render: the consecutive raw shards of one body group become one
provider message again (see :mod:`context_journal.sharding`).

A run joins when its shards follow each other in the rendered list as plain messages no repair pass
changed (an excerpted or otherwise altered shard stays a message of its own, as do shards the strategy
did not keep raw: their summaries stand for them). The joined message is the first shard's
:class:`~.repairs.Work` (its participant name prefix included) with the other shards' pieces put back
in place; its provenance lists every shard it holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..sharding import join_content
from .repairs import Pass, Source, Work

__all__ = ["join_shard_runs"]

Layout = Callable[[str, int], "tuple[list[dict[str, Any]], dict[str, Any]] | None"]
"""``(stored blocks, layout)`` of a message version by id and sequence (None: no shard, or not known)."""


def _joinable(m: Work, p: Pass) -> bool:
    return m.kind == "message" and m.origin is not None and m.sequence is not None and m.origin not in p.altered


def join_shard_runs(work: list[Work], p: Pass, layout: Layout, count: Callable[[Work], int]) -> list[Work]:
    """``work`` with each run of consecutive unaltered raw shards of one group joined into one message
    (``layout``: the stored blocks and shard layout of a message version; ``count``: the tokens of a
    work message). A run whose joined message would count more tokens than its shards (never seen: one
    message has one overhead where the shards have one each) stays as it is, so a join never breaks
    the budget the shards were priced in."""
    out: list[Work] = []
    run: list[tuple[Work, list[dict[str, Any]], list[int]]] = []
    group: str | None = None
    index = -1  # the shard number of the run's last shard

    def flush() -> None:
        if len(run) == 1:
            out.append(run[0][0])
        elif run:
            first = run[0][0]
            # The first shard as rendered (a name prefix stays on it), the others as stored.
            parts = [(first.blocks, run[0][2]), *((blocks, lay) for _, blocks, lay in run[1:])]
            priced = sum(count(m) for m, _, _ in run)
            joined = replace(first, blocks=join_content(parts), tokens=None)
            joined.tokens = count(joined)
            if joined.tokens > priced:
                out.extend(m for m, _, _ in run)
                run.clear()
                return
            first = joined
            first.breakpoint = any(m.breakpoint for m, _, _ in run)
            first.sources = [
                *first.sources,
                *(Source("message", m.origin, m.sequence) for m, _, _ in run[1:] if m.origin is not None),
            ]
            out.append(first)
        run.clear()

    for m in work:
        found = layout(m.origin, m.sequence) if _joinable(m, p) and m.origin and m.sequence else None
        if found is not None and not len(m.blocks) == len(found[0]) == len(found[1].get("blocks") or ()):
            found = None  # a repair changed its blocks (a blank one dropped): sent as it is
        g = None if found is None else str(found[1].get("group"))
        k = None if found is None else found[1].get("index")
        if (
            g is not None
            and found is not None
            and g == group
            and k == index + 1
            and m.participant == run[-1][0].participant
        ):
            run.append((m, found[0], list(found[1].get("blocks") or ())))
            index = k
            continue
        flush()
        group, index = g, k if isinstance(k, int) else -1
        if found is None:
            out.append(m)
        else:
            run.append((m, found[0], list(found[1].get("blocks") or ())))
    flush()
    return out
