"""A render reads each message body of what it renders once, in batches, however long the span.

A profile of a never-summarised history of 200,000 messages failing at 110 tokens found its 50,000 tool
messages read twice: the render prefetched every body of the span at once, the render cache (16,384
versions) evicted the oldest before their turn came, and each was read again in a round trip of its own
(50,000 of them, 10 of the compile's 25 s under the profiler). Bodies are now read and rendered a batch
at a time; and the pricing of the reductions, which read each tool result it priced in a round trip of its
own, reads those of 64 messages together.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from context_journal import ContextManager
from context_journal.rendering.fit import RenderCache
from context_journal.stores.base import Store


def _history(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"participant": "user", "content": "List every directory, one call each."}]
    for k in range(n):
        call = {"type": "tool_use", "id": f"t{k}", "name": "Bash", "input": {"command": f"ls dir{k}"}}
        result = {"type": "tool_result", "tool_use_id": f"t{k}", "content": f"file{k}.txt"}
        out += [{"participant": "assistant", "content": [call]}, {"participant": "user", "content": [result]}]
    return out


@pytest.mark.parametrize("size", [64, 1000])
def test_a_span_longer_than_the_cache_is_read_once(size: int, tmp_path: Any) -> None:
    with ContextManager.open(tmp_path / "s.db") as cm:
        cm.add_messages(_history(300))  # 601 messages, every one read (600 with tool blocks)
    with ContextManager.open(tmp_path / "s.db", strategy="passthrough") as cm:  # nothing read yet
        reads: list[int] = []
        real = Store.read_bodies

        def counted(self: Store, seqs: Sequence[int]) -> dict[int, str | None]:
            reads.append(len(seqs))
            return real(self, seqs)

        cm._render_cache = RenderCache(size=size)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(Store, "read_bodies", counted)
            result = cm.preview_context(1_000_000)
        assert len(result.messages) == 601
        assert sum(reads) == 601, reads  # each body once
        # In batches, not a round trip a message (303 before): the pricing of the reductions reads the results
        # of each 64 messages together, the render the rest 512 at a time.
        assert len(reads) <= 16, reads
