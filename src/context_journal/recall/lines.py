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

from collections import OrderedDict
from collections.abc import Iterable

from .._render import message_line_text
from ..views import MessageView, ViewEntry

__all__ = ["LineCache", "LineSource", "message_line_text"]

Line = tuple[str, float | None]
"""(line text, timestamp in epoch seconds) of one message."""


class LineCache:
    """Recently rendered lines, keyed by (reader, version sequence); least recently used dropped first.

    Args:
        size: The most lines kept (a line is one message's text: about 1 KB on conversation data).
    """

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._lines: OrderedDict[tuple[str | None, int], Line] = OrderedDict()

    def get(self, reader: str | None, sequence: int) -> Line | None:
        found = self._lines.get((reader, sequence))
        if found is not None:
            self._lines.move_to_end((reader, sequence))
        return found

    def put(self, reader: str | None, sequence: int, line: Line) -> None:
        self._lines[(reader, sequence)] = line
        self._lines.move_to_end((reader, sequence))
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
    """

    def __init__(self, view: MessageView, reader: str | None, cache: LineCache | None = None) -> None:
        self._view = view
        self._reader = reader
        self._cache = cache
        self._loaded: dict[int, Line] = {}
        self._wanted: set[int] = set()
        self.reads = 0
        """Messages read from the view (for tests and benchmarks)."""

    def prefetch(self, positions: Iterable[int]) -> None:
        """Read these positions with the next read (nothing is read now)."""
        n = len(self._view)
        self._wanted.update(p for p in positions if 0 <= p < n and p not in self._loaded)

    def __call__(self, entry: ViewEntry) -> Line:
        found = self._loaded.get(entry.position)
        if found is None:
            self._wanted.add(entry.position)
            self._fetch()
            found = self._loaded[entry.position]
        return found

    def _fetch(self) -> None:
        wanted, self._wanted = sorted(self._wanted - set(self._loaded)), set()
        missing: list[ViewEntry] = []
        for entry in (self._view.entry(p) for p in wanted):
            line = self._cache.get(self._reader, entry.sequence) if self._cache is not None else None
            if line is None:
                missing.append(entry)
            else:
                self._loaded[entry.position] = line
        if not missing:
            return
        self.reads += len(missing)
        for entry, message in zip(missing, self._view.messages_for(missing), strict=True):
            line = (message_line_text(message.content_dicts()), message.timestamp.timestamp())
            self._loaded[entry.position] = line
            if self._cache is not None:
                self._cache.put(self._reader, entry.sequence, line)
