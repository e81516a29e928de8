"""Strategy-facing read views (DESIGN.md 2.3): an ordered, read-only sequence of messages with token sums.

Strategies never see the store. They read a :class:`MessageView`: positions ``0 .. len(view) - 1`` in
conversation order, light :class:`ViewEntry` records (id, participant, block kinds, sequences,
estimated tokens) that cost no body read, token sums over any span, and message bodies loaded only for
what a strategy renders. On a :class:`StoreView` every operation is O(log N) or O(log N + what it
returns), so a compile's cost follows what it renders, not the history's length:

=====================================  =========================================
operation                              cost (N = messages in the slot)
=====================================  =========================================
``len(view)``                          O(log N)
``view.tokens(start, end)``            O(log N)  (Fenwick prefix sums)
``view.suffix_start(budget, end)``     O(log N)  (Fenwick descent)
``view.entry(i)``                      O(log N)
``view.entries(start, end)``           O(log N + k)
``view.index_of(id)``                  O(log N)
``view.index_at_sequence(seq)``        O(log N)
``view.messages(start, end)``          O(log N + k) plus k body reads (cached)
=====================================  =========================================

A view does not refresh itself: the manager calls :meth:`StoreView.refresh` once before a compile, so
the positions a strategy sees cannot shift under it mid-compile.

:class:`SliceView` narrows any view to a span (the compiler hands strategies the conversation without
its leading system messages). Filter, reader and merged views (issue 7) implement the same protocol.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .messages import Message, MessageStore

__all__ = ["MessageView", "SliceView", "StoreView", "ViewEntry", "newest_unit_start", "unit_start_at_or_after"]


class ViewEntry(NamedTuple):
    """What a view knows about one message without reading its body (a named tuple: cheap to make).

    Attributes:
        position: Position in the view (0 = oldest).
        id: The message id.
        participant: Who wrote it.
        kinds: The type of each content block, in order (``("text", "tool_use")``).
        sequence: Store sequence of the version shown.
        created_sequence: Store sequence of the message's first version (its append).
        tokens: Estimated tokens of the message (the index's count, before calibration).
    """

    position: int
    id: str
    participant: str
    kinds: tuple[str, ...]
    sequence: int
    created_sequence: int
    tokens: int


@runtime_checkable
class MessageView(Protocol):
    """An ordered, read-only sequence of messages with token sums (see the module docstring)."""

    def __len__(self) -> int:
        """Messages in the view."""
        ...

    def tokens(self, start: int = 0, end: int | None = None) -> int:
        """Estimated tokens of positions ``[start, end)``."""
        ...

    def suffix_start(self, budget: int, end: int | None = None) -> int:
        """The smallest ``s`` with ``tokens(s, end) <= budget`` (``end`` when even the last message is
        over ``budget``)."""
        ...

    def entry(self, index: int) -> ViewEntry:
        """The entry at ``index`` (raises IndexError outside the view)."""
        ...

    def entries(self, start: int = 0, end: int | None = None) -> list[ViewEntry]:
        """Entries of positions ``[start, end)``, in order."""
        ...

    def message(self, index: int) -> Message:
        """The message body at ``index``."""
        ...

    def messages(self, start: int = 0, end: int | None = None) -> list[Message]:
        """Message bodies of positions ``[start, end)``, in order."""
        ...

    def messages_for(self, entries: Sequence[ViewEntry]) -> list[Message]:
        """Bodies of the given entries of this view, in order (one store round trip for the uncached)."""
        ...

    def index_of(self, message_id: str) -> int | None:
        """Position of the message with this id, or None when the view does not hold it."""
        ...

    def index_at_sequence(self, created_sequence: int) -> int:
        """Position of the first message appended at or after ``created_sequence`` (``len`` if none)."""
        ...


class StoreView:
    """The :class:`MessageView` of a :class:`~context_journal.messages.MessageStore` (one slot on one
    branch), read through its in-memory index.

    Args:
        store: The message index to read.
    """

    def __init__(self, store: MessageStore) -> None:
        self._ms = store

    # The index internals are read here, in one place, until MessageStore grows public equivalents
    # (entry_at(k), entries(start, end), index_of(id), suffix_start(budget, end), index_at_sequence).
    @property
    def message_store(self) -> MessageStore:
        """The message index this view reads."""
        return self._ms

    def refresh(self) -> bool:
        """Apply writes made by other handles (call once before a compile, not during it)."""
        return self._ms.refresh()

    @property
    def last_sequence(self) -> int:
        """Newest store sequence applied to the index (a cache key for what the view shows)."""
        return self._ms.last_seq

    def __len__(self) -> int:
        return self._ms._live.total()

    def _pos(self, index: int) -> int:
        return self._ms._live.find(index)

    def _end_pos(self, end: int, total: int) -> int:
        return self._pos(end) if end < total else len(self._ms._entries)

    def _entry_at(self, index: int, pos: int) -> ViewEntry:
        e = self._ms._entries[pos]
        return ViewEntry(index, e.id, e.participant, e.kinds, e.seq, e.created_seq, self._ms._tokens.get(pos))

    def tokens(self, start: int = 0, end: int | None = None) -> int:
        return self._ms.tokens(max(0, start), end)

    def suffix_start(self, budget: int, end: int | None = None) -> int:
        total = len(self)
        end = total if end is None else min(max(end, 0), total)
        if end == 0:
            return 0
        tok = self._ms._tokens
        end_pos = self._end_pos(end, total)
        threshold = tok.prefix(end_pos) - max(0, budget)
        if threshold <= 0:
            return 0
        pos = tok.find(threshold - 1) + 1  # smallest position p with prefix(p) >= threshold
        return min(end, self._ms._live.prefix(pos))

    def entry(self, index: int) -> ViewEntry:
        total = len(self)
        if index < 0:
            index += total
        if not 0 <= index < total:
            raise IndexError(f"view index {index} out of range (0..{total - 1})")
        return self._entry_at(index, self._pos(index))

    def entries(self, start: int = 0, end: int | None = None) -> list[ViewEntry]:
        total = len(self)
        start = max(0, start)
        end = total if end is None else min(end, total)
        out: list[ViewEntry] = []
        if start >= end:
            return out
        ms = self._ms
        rows = ms._entries
        values = ms._tokens._values
        pos = self._pos(start)
        i = start
        while i < end:
            e = rows[pos]
            if e.live:
                out.append(ViewEntry(i, e.id, e.participant, e.kinds, e.seq, e.created_seq, values[pos]))
                i += 1
            pos += 1
        return out

    def iter_reverse(self, end: int | None = None) -> Iterator[ViewEntry]:
        """Entries from ``end - 1`` down to 0, lazily (stop early to pay only for what is read)."""
        total = len(self)
        end = total if end is None else min(end, total)
        if end <= 0:
            return
        ms = self._ms
        rows = ms._entries
        values = ms._tokens._values
        pos = self._end_pos(end, total) - 1
        i = end - 1
        while i >= 0 and pos >= 0:
            e = rows[pos]
            if e.live:
                yield ViewEntry(i, e.id, e.participant, e.kinds, e.seq, e.created_seq, values[pos])
                i -= 1
            pos -= 1

    def message(self, index: int) -> Message:
        e = self.entry(index)
        return self._ms._load(e.id, e.sequence, e.created_sequence)

    def messages(self, start: int = 0, end: int | None = None) -> list[Message]:
        return self._ms.load_versions([(e.id, e.sequence, e.created_sequence) for e in self.entries(start, end)])

    def load(self, entry: ViewEntry) -> Message:
        """The body of an entry read from this view."""
        return self._ms._load(entry.id, entry.sequence, entry.created_sequence)

    def messages_for(self, entries: Sequence[ViewEntry]) -> list[Message]:
        """Bodies of several entries of this view, read in one store round trip."""
        return self._ms.load_versions([(e.id, e.sequence, e.created_sequence) for e in entries])

    def index_of(self, message_id: str) -> int | None:
        pos = self._ms._pos.get(message_id)
        if pos is None or not self._ms._entries[pos].live:
            return None
        return self._ms._live.prefix(pos)

    def index_at_sequence(self, created_sequence: int) -> int:
        rows = self._ms._entries
        pos = bisect.bisect_left(rows, created_sequence, key=lambda e: e.created_seq)
        return self._ms._live.prefix(pos)


class SliceView:
    """The positions ``[start, end)`` of another view, renumbered from 0.

    Args:
        base: The view narrowed.
        start: First position of ``base`` kept.
        end: One past the last position kept (None = to the end of ``base``, growing with it).
    """

    def __init__(self, base: MessageView, start: int = 0, end: int | None = None) -> None:
        self.base = base
        self.start = max(0, start)
        self._end = end

    def _stop(self) -> int:
        n = len(self.base)
        return n if self._end is None else min(self._end, n)

    def __len__(self) -> int:
        return max(0, self._stop() - self.start)

    def _clip(self, start: int, end: int | None) -> tuple[int, int]:
        n = len(self)
        end = n if end is None else min(max(end, 0), n)
        start = min(max(start, 0), end)
        return self.start + start, self.start + end

    def _shift(self, e: ViewEntry) -> ViewEntry:
        return ViewEntry(
            e.position - self.start, e.id, e.participant, e.kinds, e.sequence, e.created_sequence, e.tokens
        )

    def tokens(self, start: int = 0, end: int | None = None) -> int:
        a, b = self._clip(start, end)
        return self.base.tokens(a, b)

    def suffix_start(self, budget: int, end: int | None = None) -> int:
        _, b = self._clip(0, end)
        return max(self.start, self.base.suffix_start(budget, b)) - self.start

    def entry(self, index: int) -> ViewEntry:
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"view index {index} out of range (0..{n - 1})")
        return self._shift(self.base.entry(self.start + index))

    def entries(self, start: int = 0, end: int | None = None) -> list[ViewEntry]:
        a, b = self._clip(start, end)
        return [self._shift(e) for e in self.base.entries(a, b)]

    def message(self, index: int) -> Message:
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"view index {index} out of range (0..{n - 1})")
        return self.base.message(self.start + index)

    def messages(self, start: int = 0, end: int | None = None) -> list[Message]:
        a, b = self._clip(start, end)
        return self.base.messages(a, b)

    def messages_for(self, entries: Sequence[ViewEntry]) -> list[Message]:
        return self.base.messages_for(entries)

    def index_of(self, message_id: str) -> int | None:
        i = self.base.index_of(message_id)
        if i is None or not self.start <= i < self._stop():
            return None
        return i - self.start

    def index_at_sequence(self, created_sequence: int) -> int:
        i = self.base.index_at_sequence(created_sequence)
        return min(max(i, self.start), self._stop()) - self.start


# --- tool units ----------------------------------------------------------------------------------


def _answers_only(kinds: Sequence[str]) -> bool:
    return bool(kinds) and all(k == "tool_result" for k in kinds)


def unit_start_at_or_after(view: MessageView, index: int, end: int | None = None) -> int:
    """The first position ``>= index`` where a tool unit may start: a message that is not made only of
    ``tool_result`` blocks (those answer a call before them). A message that mixes results and other
    blocks may start a window: the compiler drops its orphaned results and keeps the rest.

    Returns ``end`` (or ``len(view)``) when no such position exists. Reads entries only (no bodies).
    """
    stop = len(view) if end is None else min(end, len(view))
    i = max(0, index)
    while i < stop:
        # Read in small batches so a long run of results costs one index walk.
        batch = view.entries(i, min(stop, i + 16))
        for e in batch:
            if not _answers_only(e.kinds):
                return e.position
        i += len(batch)
    return stop


def newest_unit_start(view: MessageView, end: int | None = None) -> int:
    """Where the newest tool unit before ``end`` starts: the last message, extended back over the
    messages that only carry results to the call that precedes them. Returns 0 for an empty view."""
    stop = len(view) if end is None else min(end, len(view))
    i = stop - 1
    while i > 0 and _answers_only(view.entry(i).kinds):
        i -= 1
    return max(0, i)
