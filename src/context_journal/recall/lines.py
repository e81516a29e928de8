"""The text a recalled message is rendered with, read lazily, in batches, and cached across compiles.

A recall plan looks at a few messages around each hit, but most plans stop long before the last
candidate: reading every candidate's neighbourhood up front costs more than the rest of the compile.
:class:`LineSource` reads a message only when the planner asks for it, together with the positions the
planner said it will want next (:meth:`LineSource.prefetch`), in one store round trip. A
:class:`LineCache` (one per manager) keeps the rendered lines of recent compiles: a message version
never changes (the journal is append-only; an edit is a new version with a new sequence), so a line
is keyed by the reader and the version's sequence, and consecutive turns that ask about the same
things read nothing again.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from ..messages import MessageStore
from ..rendering.repairs import message_line_text
from ..tokens import EstimatingCounter, TokenCounter
from ..views import MessageView, StoreView, ViewEntry

__all__ = ["LineCache", "LineSource", "message_line_text"]

Line = tuple[str, float | None]
"""(line text, timestamp in epoch seconds) of one message."""


class LineCache:
    """Recently rendered lines, keyed by (reader, message id, version sequence); least recently used
    dropped first. The id is part of the key: a sharded newest message read whole carries its last
    shard's sequence, and keyed by the sequence alone one's line stood in for the other's.
    Each line keeps the tokens its source knew for it without counting (see
    :meth:`LineSource.text_tokens`), so a line read from the cache is priced as cheaply as a fresh one.

    Args:
        size: The most lines kept (a line is one message's text: about 1 KB on conversation data).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._lines: OrderedDict[tuple[str | None, str, int], tuple[Line, int | None]] = OrderedDict()

    def get(self, reader: str | None, message_id: str, sequence: int) -> tuple[Line, int | None] | None:
        """The line and its known text tokens (None: not known without counting), or None."""
        key = (reader, message_id, sequence)
        found = self._lines.get(key)
        if found is not None:
            self._lines.move_to_end(key)
        return found

    def put(self, reader: str | None, message_id: str, sequence: int, line: Line, tokens: int | None = None) -> None:
        key = (reader, message_id, sequence)
        self._lines[key] = (line, tokens)
        self._lines.move_to_end(key)
        while len(self._lines) > self.size:
            self._lines.popitem(last=False)

    def __len__(self) -> int:
        return len(self._lines)


class LineSource:
    """``entry -> (line text, timestamp)`` for one view (the reader's view of each message), read on
    demand with the prefetched positions in the same batch.

    Args:
        view: The view compiled (already scoped to ``reader``).
        reader: The reader of ``view`` (part of the cache key).
        cache: Lines kept across compiles (None: only for this source's life).
        messages: The message index ``view`` reads (None: every body is read through ``view``). A
            message of it made of text blocks only, none with an audience, is shown to every reader as
            stored: its line is made from the stored JSON, without building a :class:`Message`.
        counter: The counter the lines are priced with. When it is the one ``messages`` priced its
            index with (and prices a message as its overhead plus its blocks), the tokens of a line
            read from a message of one plain text block are known without counting: the index's
            count less the message overhead (:meth:`text_tokens`).
    """

    def __init__(
        self,
        view: MessageView,
        reader: str | None,
        cache: LineCache | None = None,
        messages: MessageStore | None = None,
        counter: TokenCounter | None = None,
    ) -> None:
        self._view = view
        self._reader = reader
        self._cache = cache
        self._messages = messages
        self._index: StoreView | None = None
        self._overhead = 0
        if messages is not None and counter is not None and _prices_as_blocks(counter, messages):
            self._index = StoreView(messages)
            self._overhead = int(counter.message_overhead)  # type: ignore[attr-defined]  # an EstimatingCounter
        self._sizes: dict[int, int] = {}
        self._loaded: dict[int, Line] = {}
        self._wanted: set[int] = set()
        self.reads = 0
        """Messages read from the view (for tests and benchmarks)."""

    def prefetch(self, positions: Iterable[int]) -> None:
        """Read these positions with the next read (nothing is read now)."""
        n = len(self._view)
        self._wanted.update(p for p in positions if 0 <= p < n and p not in self._loaded)

    def peek(self, position: int) -> Line | None:
        """The line at ``position`` if it was read already (nothing is read)."""
        return self._loaded.get(position)

    def text_tokens(self, position: int) -> int | None:
        """``counter.count_block({"type": "text", "text": line})`` of the line read at ``position``
        when it is known without counting (see ``counter``), else None."""
        return self._sizes.get(position)

    def __call__(self, entry: ViewEntry) -> Line:
        found = self._loaded.get(entry.position)
        if found is None:
            self._wanted.add(entry.position)
            self._fetch()
            found = self._loaded[entry.position]
        return found

    def _fetch(self) -> None:
        loaded = self._loaded
        wanted, self._wanted = sorted(p for p in self._wanted if p not in loaded), set()
        missing: list[ViewEntry] = []
        for entry in (self._view.entry(p) for p in wanted):
            found = self._cache.get(self._reader, entry.id, entry.sequence) if self._cache is not None else None
            if found is None:
                missing.append(entry)
                continue
            self._loaded[entry.position] = found[0]
            if found[1] is not None and self._index is not None:  # priced by this index's counter
                self._sizes[entry.position] = found[1]
        if not missing:
            return
        self.reads += len(missing)
        missing = self._read_plain(missing)
        if missing:
            for entry, message in zip(missing, self._view.messages_for(missing), strict=True):
                self._keep(entry, (message_line_text(message.content_dicts()), message.timestamp.timestamp()))

    def _keep(self, entry: ViewEntry, line: Line, tokens: int | None = None) -> None:
        self._loaded[entry.position] = line
        if tokens is not None:
            self._sizes[entry.position] = tokens
        if self._cache is not None:
            self._cache.put(self._reader, entry.id, entry.sequence, line, tokens)

    def _read_plain(self, entries: Sequence[ViewEntry]) -> list[ViewEntry]:
        """Lines of the text-only messages with no audience among ``entries`` (the version the index
        shows), made from their stored JSON in one store round trip; returns the other entries."""
        ms = self._messages
        if ms is None:
            return list(entries)
        plain: list[ViewEntry] = []
        rest: list[ViewEntry] = []
        for entry in entries:
            found = ms.entry_for(entry.id)
            simple = found is not None and found.seq == entry.sequence and found.audience is None
            text_only = entry.kinds == ("text",) or all(k == "text" for k in entry.kinds)
            (plain if simple and text_only else rest).append(entry)
        if not plain:
            return rest
        bodies = ms.store.read_bodies([e.sequence for e in plain])
        index = self._index
        for entry in plain:
            body = bodies.get(entry.sequence)
            data = json.loads(body) if body is not None else None
            line = _plain_line(data) if data is not None else None
            if line is None:
                rest.append(entry)  # read through the view (which says why it cannot be read)
                continue
            tokens = index.tokens_of(entry.id) if index is not None and _one_block(data, line[0]) else None
            # (the index's count of this version, checked above, less the message's overhead)
            self._keep(entry, line, None if tokens is None else tokens - self._overhead)
        return rest


def _prices_as_blocks(counter: TokenCounter, messages: MessageStore) -> bool:
    """True when ``messages`` counted its index with ``counter`` and ``counter`` prices a message as
    its overhead plus its blocks (an :class:`EstimatingCounter`, or a subclass that prices text
    differently but blocks and messages alike)."""
    kind = type(counter)
    return (
        messages.counter is counter
        and isinstance(counter, EstimatingCounter)
        and kind.count_message is EstimatingCounter.count_message
        and kind.count_block is EstimatingCounter.count_block
    )


def _one_block(body: Any, text: str) -> bool:
    """True when a stored body is one text block holding exactly ``text`` and nothing else priced."""
    content = body.get("content")
    if not isinstance(content, list) or len(content) != 1:
        return False
    block = content[0]
    return isinstance(block, dict) and block.keys() == {"type", "text"} and bool(block["text"] == text)


def _plain_line(body: Any) -> Line | None:
    """The line of a stored text-only message body, as :func:`message_line_text` makes it from the
    :class:`Message` the index would build (and its timestamp the same way); None for anything else."""
    if not isinstance(body, dict):
        return None
    content = body.get("content")
    if isinstance(content, str):
        text = content.strip()
    elif isinstance(content, list) and len(content) == 1:  # most messages: one block
        block = content[0]
        if not isinstance(block, dict) or block.get("type") != "text" or not isinstance(block.get("text"), str):
            return None
        text = block["text"].strip()
    elif isinstance(content, list) and content:
        if not all(isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) for b in content):
            return None
        text = " ".join(b["text"] for b in content if b["text"]).strip()
    else:
        return None
    stamp = body.get("timestamp", 0.0)
    if isinstance(stamp, bool) or not isinstance(stamp, int | float):
        return None
    return text, datetime.fromtimestamp(float(stamp), UTC).timestamp()
