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
``view.tokens(start, end)``            O(1)      (block prefix sums, messages.py)
``view.suffix_start(budget, end)``     O(log N)  (binary search over the block sums)
``view.entry(i)``                      O(log N)
``view.entries(start, end)``           O(log N + k)
``view.index_of(id)``                  O(log N)
``view.index_at_sequence(seq)``        O(log N)
``view.messages(start, end)``          O(log N + k) plus k body reads (cached)
=====================================  =========================================

A view does not refresh itself: the manager calls :meth:`StoreView.refresh` once before a compile, so
the positions a strategy sees cannot shift under it mid-compile.

:class:`SliceView` narrows any view to a span (the compiler hands strategies the conversation without
its leading system messages). Filter, reader and merged views implement the same protocol.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from ._block_types import continues_server_turn
from .errors import ViewFilterError
from .sharding import SHARD_KEY, group_of, is_shard_form

if TYPE_CHECKING:
    from .messages import Message, MessageStore, _Entry

__all__ = [
    "MergedView",
    "MessageView",
    "ReaderView",
    "SliceView",
    "StoreView",
    "ViewEntry",
    "ViewFilter",
    "checked_index",
    "continues_message",
    "filter_for_reader",
    "may_hold",
    "newest_unit_start",
    "running_turn_start",
    "unit_bounds",
    "unit_start_at_or_after",
    "window_cut",
    "window_cut_within",
    "window_start",
]


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


def checked_index(index: int, n: int) -> int:
    """``index`` of a view of ``n`` messages, counted from the end when negative.

    Raises:
        IndexError: ``index`` is outside the view.
    """
    if index < 0:
        index += n
    if not 0 <= index < n:
        raise IndexError(f"view index {index} out of range (0..{n - 1})")
    return index


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

    def tokens_of(self, message_id: str) -> int | None:
        """Estimated tokens of the message with this id as the view shows it (its entry's ``tokens``), or
        None when the view does not hold it; without finding its position where the view can."""
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
        return self._ms.live_sums.total()

    def _pos(self, index: int) -> int:
        return self._ms.live_sums.find(index)

    def _end_pos(self, end: int, total: int) -> int:
        return self._pos(end) if end < total else len(self._ms.rows)

    def _entry_at(self, index: int, pos: int) -> ViewEntry:
        e = self._ms.rows[pos]
        return ViewEntry(index, e.id, e.participant, e.kinds, e.seq, e.created_seq, self._ms.token_sums.get(pos))

    def tokens(self, start: int = 0, end: int | None = None) -> int:
        return self._ms.tokens(max(0, start), end)

    def suffix_start(self, budget: int, end: int | None = None) -> int:
        total = len(self)
        end = total if end is None else min(max(end, 0), total)
        if end == 0:
            return 0
        tok = self._ms.token_sums
        end_pos = self._end_pos(end, total)
        threshold = tok.prefix(end_pos) - max(0, budget)
        if threshold <= 0:
            return 0
        pos = tok.find(threshold - 1) + 1  # smallest position p with prefix(p) >= threshold
        return min(end, self._ms.live_sums.prefix(pos))

    def entry(self, index: int) -> ViewEntry:
        index = checked_index(index, len(self))
        return self._entry_at(index, self._pos(index))

    def entries(self, start: int = 0, end: int | None = None) -> list[ViewEntry]:
        total = len(self)
        start = max(0, start)
        end = total if end is None else min(end, total)
        out: list[ViewEntry] = []
        if start >= end:
            return out
        ms = self._ms
        rows = ms.rows
        values = ms.token_sums.values
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
        rows = ms.rows
        values = ms.token_sums.values
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
        return self._ms.load_version(e.id, e.sequence, e.created_sequence)

    def messages(self, start: int = 0, end: int | None = None) -> list[Message]:
        return self._ms.load_versions([(e.id, e.sequence, e.created_sequence) for e in self.entries(start, end)])

    def load(self, entry: ViewEntry) -> Message:
        """The body of an entry read from this view."""
        return self._ms.load_version(entry.id, entry.sequence, entry.created_sequence)

    def messages_for(self, entries: Sequence[ViewEntry]) -> list[Message]:
        """Bodies of several entries of this view, read in one store round trip."""
        return self._ms.load_versions([(e.id, e.sequence, e.created_sequence) for e in entries])

    def index_of(self, message_id: str) -> int | None:
        pos = self._ms.positions.get(message_id)
        if pos is None or not self._ms.rows[pos].live:
            return None
        return self._ms.live_sums.prefix(pos)

    def tokens_of(self, message_id: str) -> int | None:
        pos = self._ms.positions.get(message_id)
        if pos is None or not self._ms.rows[pos].live:
            return None
        return self._ms.token_sums.get(pos)

    def index_at_sequence(self, created_sequence: int) -> int:
        rows = self._ms.rows
        pos = bisect.bisect_left(rows, created_sequence, key=lambda e: e.created_seq)
        return self._ms.live_sums.prefix(pos)


def _readable_by(audience: Sequence[Any], reader: str | None) -> bool:
    """Whether a message whose blocks have these audiences (None: everyone) has a block for ``reader``."""
    return any(a is None or (reader is not None and reader in a) for a in audience)


def _whole_group(ms: MessageStore, group: str, count: int, fallback: Message) -> Message:
    """The current versions of a body group's shards joined into its message (``fallback`` when a shard
    cannot be read: the group is being rewritten)."""
    from .sharding import join_group, shard_id

    shards: list[Message] = []
    for k in range(1, count + 1):
        e = ms.entry_for(shard_id(group, k))
        if e is None or not e.live:
            return fallback
        shards.append(ms.load_version(e.id, e.seq, e.created_seq))
    return join_group(shards)


def filter_for_reader(message: Message, reader: str | None) -> Message | None:
    """The message as ``reader`` sees it: blocks with no audience, and blocks whose audience names the
    reader exactly (the ``audience`` field removed); None when every block is someone else's. With
    ``reader`` None only the blocks with no audience are kept."""
    from .content import block_to_dict, parse_block
    from .sharding import SHARD_KEY

    kept = []
    shown: list[int] = []  # indices of the blocks kept (for a shard's layout)
    changed = False
    for i, b in enumerate(message.content):
        extra = b.model_extra
        if extra and "audience" in extra:
            changed = True
            if reader is None or reader not in extra["audience"]:
                continue
            d = block_to_dict(b)
            d.pop("audience", None)
            b = parse_block(d)
        kept.append(b)
        shown.append(i)
    if not kept:
        return None
    if not changed:
        return message
    update: dict[str, Any] = {"content": kept}
    layout = message.metadata.get(SHARD_KEY)
    if isinstance(layout, dict) and isinstance(layout.get("blocks"), list):  # a shard: its layout in step
        blocks = layout["blocks"]
        update["metadata"] = {
            **message.metadata,
            SHARD_KEY: {**layout, "blocks": [blocks[i] for i in shown if i < len(blocks)]},
        }
    return message.model_copy(update=update)


class _Row(NamedTuple):
    id: str
    participant: str
    kinds: tuple[str, ...]
    sequence: int
    created_sequence: int
    tokens: int
    filtered: bool  # the body differs from the stored one (blocks dropped or audience fields removed)


ViewFilter = Callable[["Message"], bool]
"""A filter view's predicate: ``keep(message) -> bool``, given each message as the reader sees it."""

_FILTER_BATCH = 512  # message bodies a filter view reads in one store round trip


class _RowList:
    """What a view that keeps its own list of rows and their token prefix sums shares (the reader and
    merged views): clipping, sums over a span, the suffix that fits a budget, and bodies read by entry."""

    _rows: Sequence[Any]
    _prefix: list[int]

    def messages_for(self, entries: Sequence[ViewEntry]) -> list[Message]:
        raise NotImplementedError

    def entry(self, index: int) -> ViewEntry:
        raise NotImplementedError

    def entries(self, start: int = 0, end: int | None = None) -> list[ViewEntry]:
        raise NotImplementedError

    def _clip(self, start: int, end: int | None) -> tuple[int, int]:
        n = len(self._rows)
        end = n if end is None else min(max(end, 0), n)
        return min(max(start, 0), end), end

    def _checked(self, index: int) -> int:
        """``index`` counted from the end when negative. Raises IndexError outside the rows."""
        return checked_index(index, len(self._rows))

    def _span_tokens(self, start: int, end: int | None) -> int:
        a, b = self._clip(start, end)
        return self._prefix[b] - self._prefix[a]

    def _suffix(self, budget: int, end: int | None) -> int:
        _, b = self._clip(0, end)
        if b == 0:
            return 0
        threshold = self._prefix[b] - max(0, budget)
        return min(b, bisect.bisect_left(self._prefix, threshold, 0, b + 1))

    def message(self, index: int) -> Message:
        return self.messages_for([self.entry(index)])[0]

    def messages(self, start: int = 0, end: int | None = None) -> list[Message]:
        return self.messages_for(self.entries(start, end))

    def load(self, entry: ViewEntry) -> Message:
        """The body of an entry read from this view."""
        return self.messages_for([entry])[0]


class ReaderView(_RowList):
    """The :class:`MessageView` of one reader over a :class:`~context_journal.messages.MessageStore`:
    blocks with no audience and blocks whose audience names ``reader`` (field removed);
    messages whose every block is someone else's are left out. ``reader`` None keeps no block that
    has an audience. With ``keep`` (a filter view), a message ``keep`` returns False for is left out
    too; ``keep`` sees each message version once (its verdict is kept by version sequence: a version
    never changes), as the reader sees it, read from the store in batches of 512.

    While the slot holds no block with an audience (an O(1) counter of the index) and there is no
    ``keep``, every call goes to a plain :class:`StoreView`, so compiles are byte-identical to a build
    without readers. Otherwise the view keeps a list of the reader's rows, extended on appends and
    rebuilt after an edit or removal from the first position changed (O(N - position); bodies are read
    only for messages that carry an audience, or that ``keep`` has not judged yet).

    Raises (from any read):
        ViewFilterError: ``keep`` raised for a message (named; chained). The view stays consistent:
            the next read asks ``keep`` about that message again.
    """

    def __init__(self, store: MessageStore, reader: str | None, keep: ViewFilter | None = None) -> None:
        self._ms = store
        self.reader = reader
        self.keep = keep
        self._verdicts: dict[int, bool] = {}  # version sequence -> keep's verdict
        self._plain = StoreView(store)
        self._rows: list[_Row] = []
        self._prefix: list[int] = [0]
        self._index: dict[str, int] = {}
        self._filtered: dict[int, Message] = {}
        self._row_pos: list[int] = []  # store position of each row
        self._done = 0
        self._mutations = 0

    @property
    def message_store(self) -> MessageStore:
        """The message index this view reads."""
        return self._ms

    def refresh(self) -> bool:
        """Apply writes made by other handles (call once before a compile, not during it)."""
        return self._ms.refresh()

    @property
    def last_sequence(self) -> int:
        """Newest store sequence applied to the index."""
        return self._ms.last_seq

    @property
    def plain(self) -> bool:
        """True while the slot holds no block with an audience and there is no filter (the view is the
        store's)."""
        return self.keep is None and self._ms.audience_blocks == 0

    def _judge(self, start: int) -> None:
        """``keep``'s verdicts on the live messages of index positions ``start``..``start + 512`` that it
        has not judged (their bodies read in one batch; a message with an audience is judged as the
        reader sees it, and one with nothing for the reader is not judged)."""
        keep, verdicts, ms, reader = self.keep, self._verdicts, self._ms, self.reader
        assert keep is not None
        wanted = [
            e
            for e in ms.rows[start : start + _FILTER_BATCH]
            if e.live and e.seq not in verdicts and (e.audience is None or _readable_by(e.audience, reader))
        ]
        if not wanted:
            return
        groups: dict[str, bool] = {}  # a sharded message's verdict, given once for all its shards
        for e, msg in zip(wanted, ms.load_versions([(e.id, e.seq, e.created_seq) for e in wanted]), strict=True):
            layout = msg.metadata.get(SHARD_KEY)
            count = int(layout.get("count", 1)) if isinstance(layout, dict) else 1
            group = str(layout.get("group")) if isinstance(layout, dict) and count > 1 else None
            if group is not None and group in groups:
                verdicts[e.seq] = groups[group]
                continue
            if group is not None:  # ``keep`` judges the message, not one shard of it (sharding.py)
                msg = _whole_group(ms, group, count, msg)
            seen = msg if e.audience is None and group is None else filter_for_reader(msg, reader)
            if seen is None:
                continue
            try:
                verdict = keep(seen)
            except Exception as exc:
                raise ViewFilterError(e.id, exc) from exc
            verdicts[e.seq] = bool(verdict)
            if group is not None:
                groups[group] = bool(verdict)

    def _sync(self) -> None:
        ms = self._ms
        changed = ms.mutations_since(self._mutations)
        if changed != []:
            since = 0 if changed is None else min(changed)
            if since < self._done and not self._patch(changed):
                # drop the rows from the first position edited or removed, and rescan
                keep = bisect.bisect_left(self._row_pos, since)
                for r in self._rows[keep:]:
                    del self._index[r.id]
                    self._filtered.pop(r.sequence, None)
                del self._rows[keep:], self._row_pos[keep:], self._prefix[keep + 1 :]
                self._done = since
            self._mutations = ms.mutation_count  # after the patch: one that raised is made again next time
        entries = ms.rows
        if self._done >= len(entries):
            return
        rows, prefix, index, row_pos = self._rows, self._prefix, self._index, self._row_pos
        judged, verdicts = self.keep is not None, self._verdicts
        for pos in range(self._done, len(entries)):
            e = entries[pos]
            if not e.live:
                continue
            if judged:
                if e.seq not in verdicts and (e.audience is None or _readable_by(e.audience, self.reader)):
                    self._done = pos  # the rows so far stand if keep raises
                    self._judge(pos)
                if not verdicts.get(e.seq, True):
                    continue
            row = self._row(pos, e)
            if row is None:
                continue
            index[e.id] = len(rows)
            rows.append(row)
            row_pos.append(pos)
            prefix.append(prefix[-1] + row.tokens)
        self._done = len(entries)

    def _row(self, pos: int, e: _Entry) -> _Row | None:
        """The row of the live message at index position ``pos`` (None: nothing in it is for the reader);
        a message with an audience is read and kept as the reader sees it."""
        ms = self._ms
        if e.audience is None:
            return _Row(e.id, e.participant, e.kinds, e.seq, e.created_seq, ms.token_sums.values[pos], False)
        reader = self.reader
        kept = [i for i, a in enumerate(e.audience) if a is None or (reader is not None and reader in a)]
        if not kept:
            return None
        msg = filter_for_reader(ms.load_version(e.id, e.seq, e.created_seq), reader)
        assert msg is not None
        self._filtered[e.seq] = msg
        tokens = ms.counter.count_message(e.participant, msg.content_dicts())
        return _Row(e.id, e.participant, tuple(e.kinds[i] for i in kept), e.seq, e.created_seq, tokens, True)

    def _patch(self, changed: Sequence[int] | None) -> bool:
        """After edits that leave every message they touched a row of this view (the common case: a
        message edited stays the reader's), replace those rows in place and shift the token sums after
        them (O(changed) reads and one pass over the sums at C speed, where a rescan is O(N - position)
        in Python). False, with nothing changed, for a removal or an edit that may add or drop a row, and
        for a filter view (its verdict on the new version is not known yet)."""
        if changed is None or self.keep is not None:
            return False
        entries, row_pos = self._ms.rows, self._row_pos
        found: dict[int, tuple[int, _Entry]] = {}
        for pos in changed:
            if pos >= self._done:
                continue  # not scanned yet: the scan reads its latest version
            k = bisect.bisect_left(row_pos, pos)
            e = entries[pos]
            if k == len(row_pos) or row_pos[k] != pos or not e.live:
                return False  # a removal, or a message that was not a row (it may be one now)
            if e.audience is not None and not _readable_by(e.audience, self.reader):
                return False  # nothing left for the reader: the row goes
            found[k] = (pos, e)
        new: list[tuple[int, _Row]] = []
        for k, (pos, e) in sorted(found.items()):  # every row read first: a read that raises changes nothing
            row = self._row(pos, e)
            assert row is not None  # readable, checked above
            new.append((k, row))
        rows, prefix = self._rows, self._prefix
        for k, row in new:
            old = rows[k]
            if old.sequence != row.sequence:
                self._filtered.pop(old.sequence, None)
            rows[k] = row
            if row.tokens != old.tokens:
                delta = row.tokens - old.tokens
                prefix[k + 1 :] = [t + delta for t in prefix[k + 1 :]]
        return True

    @staticmethod
    def _entry(i: int, r: _Row) -> ViewEntry:
        return ViewEntry(i, r.id, r.participant, r.kinds, r.sequence, r.created_sequence, r.tokens)

    def __len__(self) -> int:
        if self.plain:
            return len(self._plain)
        self._sync()
        return len(self._rows)

    def tokens(self, start: int = 0, end: int | None = None) -> int:
        if self.plain:
            return self._plain.tokens(start, end)
        self._sync()
        return self._span_tokens(start, end)

    def suffix_start(self, budget: int, end: int | None = None) -> int:
        if self.plain:
            return self._plain.suffix_start(budget, end)
        self._sync()
        return self._suffix(budget, end)

    def entry(self, index: int) -> ViewEntry:
        if self.plain:
            return self._plain.entry(index)
        self._sync()
        index = self._checked(index)
        return self._entry(index, self._rows[index])

    def entries(self, start: int = 0, end: int | None = None) -> list[ViewEntry]:
        if self.plain:
            return self._plain.entries(start, end)
        self._sync()
        a, b = self._clip(start, end)
        rows = self._rows
        return [self._entry(i, rows[i]) for i in range(a, b)]

    def iter_reverse(self, end: int | None = None) -> Iterator[ViewEntry]:
        """Entries from ``end - 1`` down to 0, lazily."""
        if self.plain:
            yield from self._plain.iter_reverse(end)
            return
        self._sync()
        _, b = self._clip(0, end)
        rows = self._rows
        for i in range(b - 1, -1, -1):
            yield self._entry(i, rows[i])

    def messages_for(self, entries: Sequence[ViewEntry]) -> list[Message]:
        if self.plain:
            return self._plain.messages_for(entries)
        self._sync()
        filtered = self._filtered
        wanted = [(e.id, e.sequence, e.created_sequence) for e in entries if e.sequence not in filtered]
        loaded = iter(self._ms.load_versions(wanted)) if wanted else iter(())
        return [filtered[e.sequence] if e.sequence in filtered else next(loaded) for e in entries]

    def index_of(self, message_id: str) -> int | None:
        if self.plain:
            return self._plain.index_of(message_id)
        self._sync()
        return self._index.get(message_id)

    def tokens_of(self, message_id: str) -> int | None:
        if self.plain:
            return self._plain.tokens_of(message_id)
        self._sync()
        i = self._index.get(message_id)
        return None if i is None else self._rows[i].tokens

    def index_at_sequence(self, created_sequence: int) -> int:
        if self.plain:
            return self._plain.index_at_sequence(created_sequence)
        self._sync()
        return bisect.bisect_left(self._rows, created_sequence, key=lambda r: r.created_sequence)


class MergedView(_RowList):
    """The :class:`MessageView` of an auxiliary view: a manager's own view with other message slots merged
    into it, read-only, interleaved by created store sequence (the order the messages were appended in,
    across slots: sequences are unique store-wide).

    Args:
        own: The manager's own view (its slot, as its reader sees it, through its filter view).
        auxiliary: ``(namespace, view)`` of each other slot, in the order listed, each a view of the same
            reader and filter over that slot on the same branch.

    A message id held by more than one of the views is shown once, from the first that holds it (the
    manager's own slot, then the auxiliary ones in order). Appends in any slot extend the merged rows
    (O(new rows)); an edit or removal in any slot, or an append older than the newest merged row (another
    handle's write applied late), rebuilds them (O(N)), and counts as a mutation (:attr:`mutation_count`)
    so strategies that keep positions across appends drop them.
    """

    def __init__(self, own: ReaderView, auxiliary: Sequence[tuple[str, ReaderView]]) -> None:
        self._own = own
        self._views: list[ReaderView] = [own, *(v for _, v in auxiliary)]
        self._names: list[str | None] = [None, *(name for name, _ in auxiliary)]
        self._rows: list[ViewEntry] = []
        self._src: list[int] = []  # which view each row comes from (0: the manager's own)
        self._prefix: list[int] = [0]
        self._cseqs: list[int] = []
        self._index: dict[str, int] = {}
        self._seen: list[int] = [0] * len(self._views)  # rows of each view merged so far
        self._muts: list[int] = [-1] * len(self._views)  # each view's mutation count at the last merge
        self._key: list[tuple[int, int]] = []  # (newest sequence, mutation count) of each index at the last merge
        self._last: list[int] = [0] * len(self._views)  # created sequence of each view's last row then
        self._rebuilds = 0
        self._duplicates = False  # a message id met in two views: merges check each row (see _extend)

    @property
    def message_store(self) -> MessageStore:
        """The message index of the manager's own slot."""
        return self._own.message_store

    @property
    def keep(self) -> ViewFilter | None:
        """The filter view's predicate the views apply (None: none)."""
        return self._own.keep

    @property
    def reader(self) -> str | None:
        """The reader the views are scoped to."""
        return self._own.reader

    @property
    def auxiliary(self) -> list[tuple[str, MessageStore]]:
        """``(namespace, message index)`` of each auxiliary slot, in the order listed."""
        return [(name, v.message_store) for name, v in zip(self._names[1:], self._views[1:], strict=True) if name]

    def namespace_of(self, message_id: str) -> str | None:
        """The auxiliary namespace a message of this view comes from; None for the manager's own (or a
        message the view does not hold)."""
        self._sync()
        i = self._index.get(message_id)
        return None if i is None else self._names[self._src[i]]

    def namespaces_of(self, message_ids: Iterable[str]) -> dict[str, str]:
        """``{id: auxiliary namespace}`` of those of ``message_ids`` that come from an auxiliary slot."""
        self._sync()
        index, src, names = self._index, self._src, self._names
        out: dict[str, str] = {}
        for message_id in message_ids:
            i = index.get(message_id)
            name = None if i is None else names[src[i]]
            if name is not None:
                out[message_id] = name
        return out

    def refresh(self) -> bool:
        """Apply writes made by other handles to every slot (call once before a compile)."""
        changed = False
        for v in self._views:
            changed = v.refresh() or changed
        return changed

    @property
    def last_sequence(self) -> int:
        """Newest store sequence applied to any of the slots' indexes."""
        return max(v.last_sequence for v in self._views)

    @property
    def mutation_count(self) -> int:
        """Edits and removals applied to any slot, plus merges that moved rows: positions stay put while
        this does not change."""
        self._sync()
        return sum(v.message_store.mutation_count for v in self._views) + self._rebuilds

    def _sync(self) -> None:
        views = self._views
        # What each view shows follows from its index's newest sequence and mutation count (and the
        # reader and filter, which do not change): while neither moves, the merged rows stand.
        key = [(v.message_store.last_seq, v.message_store.mutation_count) for v in views]
        if key == self._key:
            return
        lengths = [len(v) for v in views]  # each view applies its slot's changes first
        muts = [m for _, m in key]
        if muts != self._muts and self._patch(muts):
            self._muts = muts
            self._merge(lengths, muts)
        elif muts != self._muts:
            since = self._first_changed(muts)
            if since:  # and every row a view appended since the last merge (newer than its last row then)
                changed = [k for k, (old, new) in enumerate(zip(self._key, key, strict=True)) if old != new]
                since = min([since, *(self._last[k] + 1 for k in changed)])
            self._rebuild(lengths, muts, since)
        else:
            self._merge(lengths, muts)
        self._key = key

    def _patch(self, muts: list[int]) -> bool:
        """After edits that leave every message they touched a row of its view (and of this one), replace
        those rows in place and shift the token sums after them, as :meth:`ReaderView._patch` does. False,
        with nothing changed, for a removal, an edit that may add or drop a row, or once a message id was
        met in two views."""
        if self._duplicates:
            return False
        found: dict[int, ViewEntry] = {}
        for k, (v, old, new) in enumerate(zip(self._views, self._muts, muts, strict=True)):
            if old == new:
                continue
            ms = v.message_store
            changed = ms.mutations_since(old) if old >= 0 else None
            if changed is None:
                return False
            for pos in changed:
                touched = ms.rows[pos]
                i = self._index.get(touched.id)
                if i is None or self._src[i] != k:
                    if touched.created_seq > self._last[k]:
                        continue  # appended since the last merge: merged with its latest version
                    return False
                j = v.index_of(touched.id)
                if j is None:
                    return False  # removed, or nothing left for the reader
                found[i] = v.entry(j)
        rows, prefix = self._rows, self._prefix
        for i, e in sorted(found.items()):
            old_row = rows[i]
            rows[i] = ViewEntry(i, e.id, e.participant, e.kinds, e.sequence, old_row.created_sequence, e.tokens)
            if e.tokens != old_row.tokens:
                delta = e.tokens - old_row.tokens
                prefix[i + 1 :] = [t + delta for t in prefix[i + 1 :]]
        return True

    def _merge(self, lengths: list[int], muts: list[int]) -> None:
        """Merge the rows the views appended since the last merge."""
        views = self._views
        new: list[tuple[ViewEntry, int]] = []
        for k, v in enumerate(views):
            if lengths[k] > self._seen[k]:
                new.extend((e, k) for e in v.entries(self._seen[k], lengths[k]))
        if not new:
            return
        new.sort(key=lambda row: row[0].created_sequence)
        if self._cseqs and new[0][0].created_sequence < self._cseqs[-1]:
            self._rebuild(lengths, muts, new[0][0].created_sequence)  # a write applied late lands among the rows
            return
        if self._extend((e.created_sequence, k, e) for e, k in new):
            self._rebuild(lengths, muts)
            return
        self._done(lengths, muts)

    def _done(self, lengths: list[int], muts: list[int]) -> None:
        self._seen, self._muts = lengths, muts
        self._last = [v.entry(n - 1).created_sequence if n else 0 for v, n in zip(self._views, lengths, strict=True)]

    def _first_changed(self, muts: list[int]) -> int:
        """The lowest created sequence an edit or removal since the last merge touched (0: unknown)."""
        lowest: int | None = None
        for v, old, new in zip(self._views, self._muts, muts, strict=True):
            if old == new:
                continue
            ms = v.message_store
            pos = ms.mutated_since(old) if old >= 0 else 0
            if not pos or pos >= len(ms.rows):
                return 0
            created = ms.rows[pos].created_seq
            lowest = created if lowest is None else min(lowest, created)
        return lowest or 0

    def _rebuild(self, lengths: list[int], muts: list[int], since: int = 0) -> None:
        """Merge the rows again from the first appended at or after created sequence ``since`` (all of
        them once a message id held by two views was met)."""
        if self._rows:
            self._rebuilds += 1
        if self._duplicates:
            since = 0
        keep = bisect.bisect_left(self._cseqs, since) if since else 0
        for e in self._rows[keep:]:
            del self._index[e.id]
        del self._rows[keep:], self._src[keep:], self._prefix[keep + 1 :], self._cseqs[keep:]
        runs = [
            [(e.created_sequence, k, e) for e in v.entries(v.index_at_sequence(since) if since else 0, lengths[k])]
            for k, v in enumerate(self._views)
        ]
        careful = self._duplicates
        if self._extend(heapq.merge(*runs)) and not (careful and not since):
            self._rebuild(lengths, muts)  # now careful and whole (see _extend)
            return
        self._done(lengths, muts)

    def _extend(self, merged: Iterable[tuple[int, int, ViewEntry]]) -> bool:
        """Append ``(created sequence, view, entry)`` rows in order, each message id once. Returns True
        when a row's id is held by an earlier-merged row of a later view: the first view's copy must be
        shown, so the caller merges everything again, and from then on each row is checked against the
        earlier views (rare: a host that gives two slots the same message id)."""
        rows, src, prefix, cseqs, index = self._rows, self._src, self._prefix, self._cseqs, self._index
        careful = self._duplicates
        redo = False
        total = prefix[-1]
        for cseq, k, e in merged:
            mid = e.id
            if mid in index:
                redo = redo or src[index[mid]] > k
                continue
            if careful and k and self._held_before(mid, k):
                continue  # held by an earlier view: shown once, from that view
            i = len(rows)
            index[mid] = i
            rows.append(ViewEntry(i, mid, e.participant, e.kinds, e.sequence, cseq, e.tokens))
            src.append(k)
            total += e.tokens
            prefix.append(total)
            cseqs.append(cseq)
        if redo:
            self._duplicates = True
        return redo

    def _held_before(self, message_id: str, k: int) -> bool:
        """True when a view listed before view ``k`` shows this message id."""
        return any(
            v.message_store.entry_for(message_id) is not None and v.index_of(message_id) is not None
            for v in self._views[:k]
        )

    def __len__(self) -> int:
        self._sync()
        return len(self._rows)

    def tokens(self, start: int = 0, end: int | None = None) -> int:
        self._sync()
        return self._span_tokens(start, end)

    def suffix_start(self, budget: int, end: int | None = None) -> int:
        self._sync()
        return self._suffix(budget, end)

    def entry(self, index: int) -> ViewEntry:
        self._sync()
        return self._rows[self._checked(index)]

    def entries(self, start: int = 0, end: int | None = None) -> list[ViewEntry]:
        self._sync()
        a, b = self._clip(start, end)
        return self._rows[a:b]

    def iter_reverse(self, end: int | None = None) -> Iterator[ViewEntry]:
        """Entries from ``end - 1`` down to 0, lazily."""
        self._sync()
        _, b = self._clip(0, end)
        rows = self._rows
        for i in range(b - 1, -1, -1):
            yield rows[i]

    def messages_for(self, entries: Sequence[ViewEntry]) -> list[Message]:
        self._sync()
        groups: dict[int, list[int]] = {}
        for k, e in enumerate(entries):
            i = self._index.get(e.id)
            groups.setdefault(0 if i is None else self._src[i], []).append(k)
        out: list[Message | None] = [None] * len(entries)
        for src, ks in groups.items():
            for k, message in zip(ks, self._views[src].messages_for([entries[k] for k in ks]), strict=True):
                out[k] = message
        return [m for m in out if m is not None]

    def index_of(self, message_id: str) -> int | None:
        self._sync()
        return self._index.get(message_id)

    def tokens_of(self, message_id: str) -> int | None:
        self._sync()
        i = self._index.get(message_id)
        return None if i is None else self._rows[i].tokens

    def index_at_sequence(self, created_sequence: int) -> int:
        self._sync()
        return bisect.bisect_left(self._cseqs, created_sequence)


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
        return self._shift(self.base.entry(self.start + checked_index(index, len(self))))

    def entries(self, start: int = 0, end: int | None = None) -> list[ViewEntry]:
        a, b = self._clip(start, end)
        return [self._shift(e) for e in self.base.entries(a, b)]

    def message(self, index: int) -> Message:
        return self.base.message(self.start + checked_index(index, len(self)))

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

    def tokens_of(self, message_id: str) -> int | None:
        return None if self.index_of(message_id) is None else self.base.tokens_of(message_id)

    def index_at_sequence(self, created_sequence: int) -> int:
        i = self.base.index_at_sequence(created_sequence)
        return min(max(i, self.start), self._stop()) - self.start


# --- tool units ----------------------------------------------------------------------------------


def _answers_only(kinds: Sequence[str]) -> bool:
    return bool(kinds) and all(k == "tool_result" for k in kinds)


def _no_start(kinds: Sequence[str]) -> bool:
    """A message no unit may start at: one made only of ``tool_result`` blocks (they answer the call
    before them), or the continuation of a paused message (Anthropic's ``pause_turn``: its first
    provider-side tool block is a result, whose call is in the message before it; the write rule,
    ``content.check_continuation``, makes this kind-level test exact)."""
    return _answers_only(kinds) or continues_server_turn(kinds)


_THINKING = ("thinking", "redacted_thinking")


def may_hold(view: MessageView, kinds: Iterable[str]) -> bool:
    """False when no message index the view reads holds a block of any of ``kinds``
    (``MessageStore.kind_count``, O(1) each: the view's own slot and every auxiliary one); True when one
    does or the view cannot tell (a reader's view may show fewer blocks than its slot holds: False is
    exact, True is not)."""
    own = getattr(view, "message_store", None)
    if not callable(getattr(own, "kind_count", None)):
        return True
    stores = [own, *(index for _, index in getattr(view, "auxiliary", ()))]
    return any(index.kind_count(kind) for index in stores for kind in kinds)


def running_turn_start(view: MessageView) -> int | None:
    """Where the tool loop the view ends in starts, when its first message opens with a thinking block;
    None otherwise.

    The view ends in a running tool loop when its newest messages are tool calls and the results that
    answer them (the model has not written its final reply of the turn yet). With extended thinking on,
    the provider requires that turn to open with its thinking block, unmodified (Anthropic
    extended-thinking guide, "Preserving thinking blocks": during tool use the thinking block of the
    last assistant turn must be passed back), so no window, chunk or summary may start or end inside
    ``(start, len(view))``: the loop is kept whole from its first message, or not at all. Reads entries
    only, from the newest back over the loop.

    The turn starts at the first message its speaker wrote after the last real user turn: records of the
    speaker of a call that come before it or between its steps (its thinking alone, a text, as Claude
    Code transcripts store each block) are the turn's, since the exporters merge them with the call into
    one assistant message (a loop whose thinking sat in a record of its own was once entered
    half-way). The start is the first of those records that opens with thinking (what its speaker wrote
    before that, with no user turn between, is left out of the turn and the compiler opens the turn with a
    note); when a call comes before any thinking, the loop is not thinking-led.

    Cost: O(1) when nothing the view reads holds a thinking block (:func:`may_hold`); else O(the loop's
    length), read in batches that double (a profile of an agent's loop of 10,000 tool calls with no user
    turn between found every compile walking all of it, 16 entries at a time).
    """
    if not may_hold(view, _THINKING):
        return None  # no loop can open with thinking
    first: int | None = None
    seen = False  # results seen after the message looked at (a text before them may interject)
    glue = False  # the message after the one looked at continues it (pause_turn): the two are one turn
    after: ViewEntry | None = None  # the loop message after the one looked at (a call or a record of its speaker)
    end = len(view)
    size = 16  # the first batches small (most loops are short), then doubling
    while end > 0:
        batch = view.entries(max(0, end - size), end)
        size = min(2 * size, 4096)
        for k in range(len(batch) - 1, -1, -1):
            e = batch[k]
            if "tool_use" in e.kinds:
                first = e.position
            elif _answers_only(e.kinds):
                seen = True
            elif glue and first is not None:
                first = e.position  # the paused half of a pair whose continuation is in the loop
            elif first is not None and after is not None and _record_of(e, after):
                first = e.position  # a record of the speaker of the call or record after it: one turn
            elif not (seen or first is not None) or not _interjection(view, batch, k):
                end = 0
                break
            glue = continues_server_turn(e.kinds)
            after = e if first == e.position else None
        else:
            end -= len(batch)
    if first is None:
        return None
    for e in view.entries(first, len(view)):  # the turn's opening records, then its first call
        if e.kinds and e.kinds[0] in _THINKING:
            # Only thinking the provider takes back opens the turn: an unsigned thinking block is dropped
            # by every compile (it cannot be replayed), so its loop is not thinking-led.
            return e.position if sendable_thinking(view.message(e.position).content_dicts()[0]) else None
        if "tool_use" in e.kinds or "tool_result" in e.kinds or continues_server_turn(e.kinds):
            return None  # a call (or a paused turn) before any thinking: the turn does not open with it
    return None


def sendable_thinking(block: Mapping[str, Any]) -> bool:
    """A thinking block the provider accepts back: signed thinking, or redacted thinking."""
    kind = block.get("type")
    return (kind == "thinking" and bool(str(block.get("signature") or "").strip())) or (
        kind == "redacted_thinking" and bool(block.get("data"))
    )


def _record_of(e: ViewEntry, after: ViewEntry) -> bool:
    """True when ``e`` is a record of the turn of the loop message ``after`` that follows it: written by
    the same speaker, holding only text and thinking (Claude Code stores each block of an assistant
    message as a record of its own; the exporters merge them back into one message)."""
    return (
        e.participant == after.participant
        and bool(e.kinds)
        and all(kind in _RECORD_KINDS for kind in e.kinds)
        and not continues_server_turn(after.kinds)
    )


_RECORD_KINDS = frozenset({"text", "thinking", "redacted_thinking"})


def _interjection(view: MessageView, batch: Sequence[ViewEntry], k: int) -> bool:
    """True when ``batch[k]`` is plain text that came between a tool call and its results (another
    speaker, or the user, writing while the loop runs): it does not end the loop (the loop was once
    taken to start after it, without its thinking, and entered half-way).
    The compiler shows such a message in the loop's transcript, never inside its raw run."""
    e = batch[k]
    if not e.kinds or any(kind != "text" for kind in e.kinds) or e.position == 0:
        return False
    before = batch[k - 1] if k > 0 else view.entry(e.position - 1)
    for _ in range(MAX_INTERJECTIONS - 1):  # a few interjections in a row
        if before.position == 0 or not before.kinds or any(kind != "text" for kind in before.kinds):
            break
        before = view.entry(before.position - 1)
    return "tool_use" in before.kinds


MAX_INTERJECTIONS = 8
"""Text messages in a row that may stand between a tool call and its results and still be read as
written while the loop ran (the walk back over them is bounded by this)."""


def _inside_running_turn(view: MessageView, position: int) -> bool:
    """True for a position strictly inside the thinking-led tool loop the view ends in."""
    if position <= 0 or position >= len(view):
        return False
    kinds = view.entry(position).kinds
    if "tool_use" not in kinds and not _no_start(kinds) and not all(kind in _RECORD_KINDS for kind in kinds):
        return False  # not a loop message nor a record of its turn: the loop the view ends in cannot hold it
    start = running_turn_start(view)
    return start is not None and start < position


def unit_start_at_or_after(view: MessageView, index: int, end: int | None = None) -> int:
    """The first position ``>= index`` where a tool unit may start: a message that is not made only of
    ``tool_result`` blocks (those answer a call before them) nor the continuation of a paused message
    (it and the message before it are one unit: :func:`_no_start`). A message that mixes tool results
    and other blocks may start a window: the compiler drops its orphaned results and keeps the rest.

    Returns ``end`` (or ``len(view)``) when no such position exists. Reads entries only (no bodies).
    """
    stop = len(view) if end is None else min(end, len(view))
    i = max(0, index)
    while i < stop:
        # Read in small batches so a long run of results costs one index walk.
        batch = view.entries(i, min(stop, i + 16))
        for e in batch:
            if not _no_start(e.kinds):
                return e.position
        i += len(batch)
    return stop


def continues_message(view: MessageView, position: int) -> bool:
    """Whether view ``position`` holds a later shard of the stored message at ``position - 1`` (see
    :mod:`~context_journal.sharding`): a window starting there would read that message from half-way.
    Judged by neighbours, not by shard numbers: a reader's view may skip shards of blocks addressed to
    others, so a reader's first shard of a message may be numbered 3. Reads two entries."""
    if position <= 0 or position >= len(view):
        return False
    later = view.entry(position).id
    if not is_shard_form(later):
        return False
    return group_of(later)[0] == group_of(view.entry(position - 1).id)[0]


def window_cut(view: MessageView, index: int, end: int | None = None) -> int:
    """Where a window that leaves the messages before ``index`` out may start: the first position
    ``>= index`` that starts a tool unit (:func:`unit_start_at_or_after`) and no later shard of a
    sharded message (a window never reads a message from half-way: the shards before it would be left
    out and its tail sent alone, as a fresh review found with every strategy). Returns ``end`` (or
    ``len(view)``) when no such position exists. Reads entries only (no bodies)."""
    stop = len(view) if end is None else min(end, len(view))
    i = unit_start_at_or_after(view, index, stop)
    while i < stop and continues_message(view, i):
        i = unit_start_at_or_after(view, i + 1, stop)
    return i


def window_cut_within(view: MessageView, index: int, end: int) -> int:
    """:func:`window_cut` for a cut that may not pass ``end`` (the recent window, the newest unit): when
    the first allowed position forward is ``end`` itself and ``end`` lies inside a sharded message, the
    cut moves back to that message's first shard instead, so the message is kept whole rather than read
    from half-way (that first shard may lie before ``index``: a caller leaves nothing out when the cut
    is not after its own start). Returns a position ``<= end``."""
    cut = window_cut(view, index, end)
    if cut >= end and end < len(view):
        while continues_message(view, cut):
            cut -= 1
    return cut


def window_start(view: MessageView, index: int, budget: int | None = None) -> int:
    """Where a window of the newest messages that should start at ``index`` starts: moved forward to a
    unit start and out of any sharded message (:func:`window_cut`; ``len(view)`` when none is left), or
    back to the start of the thinking-led tool loop the view ends in (:func:`running_turn_start`) when ``index`` falls
    inside it and the whole loop costs at most twice ``budget`` tokens (default: what the window from
    ``index`` costs): such a loop is kept whole, its bulky results shortened by the compiler. A longer
    loop is entered where the window starts, and the compiler brings its messages in as a transcript
    (bug case B62)."""
    n = len(view)
    if index >= n:
        return n
    index = max(0, index)
    if _inside_running_turn(view, index):
        start = running_turn_start(view)
        assert start is not None
        if view.tokens(start, n) <= 2 * (view.tokens(index, n) if budget is None else budget):
            return start
    return window_cut(view, index, n)


def unit_bounds(view: MessageView, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened so no tool unit is cut: a message with ``tool_use`` blocks and the
    message after it that carries their results travel together, and so do a paused message and its
    continuation (Anthropic's ``pause_turn``; :func:`_no_start`). Reads entries only (no bodies)."""
    n = len(view)
    for _ in range(64):
        changed = False
        if start > 0:
            kinds = view.entry(start).kinds
            if ("tool_result" in kinds and "tool_use" in view.entry(start - 1).kinds) or continues_server_turn(kinds):
                start -= 1
                changed = True
        if end < n and end > start:
            kinds = view.entry(end).kinds
            if ("tool_use" in view.entry(end - 1).kinds and "tool_result" in kinds) or continues_server_turn(kinds):
                end += 1
                changed = True
        if not changed:
            break
    return start, end


def newest_unit_start(view: MessageView, end: int | None = None) -> int:
    """Where the newest tool unit before ``end`` starts: the last message, extended back over the
    messages that only carry results (and over a paused message's continuation) to the call that
    precedes them. Returns 0 for an empty view."""
    stop = len(view) if end is None else min(end, len(view))
    i = stop - 1
    while i > 0 and _no_start(view.entry(i).kinds):
        i -= 1
    return max(0, i)
