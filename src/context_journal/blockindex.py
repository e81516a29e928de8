"""A copy-on-write index of message entries in append order, with prefix sums, for :class:`MessageStore`.

Entries are kept in blocks of :data:`BLOCK` (1,024) positions. A block holds its entries, their token
estimates, and two running sums inside the block (tokens, and live entries: a removed entry stays in its
position with 0 tokens and is not live). The index keeps, per block, the sums of every block before it.
So, for N entries:

- a prefix sum (tokens or live entries before a position) is O(1): a block start plus a running sum;
- the position of the k-th live entry, or where the tokens pass a threshold, is two binary searches at
  C speed (over the block starts, then inside one block);
- an append is O(1); replacing an entry (an edit or a removal) is O(1) and leaves the running sums of
  its block and the starts of the later blocks stale until the next settle (after the writer's batch,
  or at the first read that needs them): O(BLOCK) per block touched plus O(N / BLOCK), at C speed;
- :meth:`BlockIndex.fork` copies the block table only, O(N / BLOCK): 196 pointers at 200,000 entries.
  Afterwards both indexes share every block, and whichever side writes to a shared block first (an
  append to the last block, an edit or a removal anywhere) copies that one block and writes the copy, so
  nothing one side writes after the fork is ever seen by the other.

:class:`PositionMap` does the same for the id -> position map: a fork shares the parent's dict, read
through a bound (the parent's length at the fork), instead of copying it.

A fork derives in O(1): the flat index this replaces copied every list and dict of the parent (19 ms
at 200,000 messages).
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate, chain, islice
from typing import Generic, TypeVar, overload

__all__ = ["BLOCK", "BlockIndex", "ItemsView", "PositionMap", "SumsView"]

T = TypeVar("T")

BLOCK_BITS = 10
BLOCK = 1 << BLOCK_BITS
"""Positions per block (a fork's cost is the number of blocks; a first write to a shared block copies
one block)."""
_MASK = BLOCK - 1
_NO_BOUND = sys.maxsize


def _ints(first: int) -> array[int]:
    """A block's column of 64-bit integers, holding ``first``: 8 bytes a position, where a list holds a
    pointer and, for most counts and sums, an int object of its own (about 70 bytes a message in all)."""
    return array("q", (first,))


class _Block(Generic[T]):
    """Up to BLOCK consecutive positions: ``items[i]``, ``tokens[i]``, ``live[i]`` (1 or 0), and the
    inclusive running sums ``tsum[i] = sum(tokens[: i + 1])``, ``lsum[i] = sum(live[: i + 1])`` (stale
    while the block is in its index's ``_dirty`` set)."""

    __slots__ = ("items", "live", "lsum", "tokens", "tsum")

    def __init__(
        self, items: list[T], tokens: array[int], live: array[int], tsum: array[int], lsum: array[int]
    ) -> None:
        self.items = items
        self.tokens = tokens
        self.live = live
        self.tsum = tsum
        self.lsum = lsum

    def copy(self) -> _Block[T]:
        return _Block(self.items.copy(), self.tokens[:], self.live[:], self.tsum[:], self.lsum[:])


class BlockIndex(Generic[T]):
    """Items in append order (positions 0..N-1), each with a token estimate (>= 0) and a live flag.

    Positions are never reused; an item is replaced, never changed in place by this class (an item
    object may be shared by a fork, so it must be immutable). The owner serialises writes; a block
    shared with a fork is never written. A replacement leaves its block's running sums and the later
    block starts stale until :meth:`settle` (called by the owner after a batch of writes, and by any
    read that needs them), so a batch of edits and removals costs one O(BLOCK) pass per block touched.
    """

    __slots__ = (
        "_blive",
        "_blocks",
        "_btok",
        "_clean",
        "_dirty",
        "_lstart",
        "_ltotal",
        "_n",
        "_own",
        "_stale",
        "_tstart",
        "_ttotal",
    )

    def __init__(self) -> None:
        self._blocks: list[_Block[T]] = []
        self._own: list[bool] = []  # _own[b]: block b is this index's alone (writable in place)
        self._tstart: list[int] = []  # tokens of the blocks before block b (stale from _stale on)
        self._lstart: list[int] = []  # live items of the blocks before block b (stale from _stale on)
        self._btok: list[int] = []  # tokens of block b (always current)
        self._blive: list[int] = []  # live items of block b (always current)
        self._dirty: set[int] = set()  # blocks whose running sums are stale
        self._stale = _NO_BOUND  # first block whose start is stale
        self._clean = True  # no block dirty and no start stale
        self._n = 0
        self._ttotal = 0
        self._ltotal = 0

    def __len__(self) -> int:
        return self._n

    # ---- writes -------------------------------------------------------------------------------------

    def _writable(self, b: int) -> _Block[T]:
        """Block ``b``, copied first if it is shared with a fork."""
        if self._own[b]:
            return self._blocks[b]
        blk = self._blocks[b] = self._blocks[b].copy()
        self._own[b] = True
        return blk

    def append(self, item: T, tokens: int, live: bool = True) -> int:
        """Add ``item`` at the next position (returned). O(1), plus one block copy when the last block is
        shared with a fork."""
        n = self._n
        lv = 1 if live else 0
        if n & _MASK == 0:
            self._blocks.append(_Block([item], _ints(tokens), _ints(lv), _ints(tokens), _ints(lv)))
            self._own.append(True)
            self._tstart.append(self._ttotal)  # current whatever is stale before it
            self._lstart.append(self._ltotal)
            self._btok.append(tokens)
            self._blive.append(lv)
        else:
            b = n >> BLOCK_BITS
            blk = self._blocks[b] if self._own[b] else self._writable(b)
            blk.items.append(item)
            blk.tokens.append(tokens)
            blk.live.append(lv)
            if self._clean or b not in self._dirty:
                blk.tsum.append(blk.tsum[-1] + tokens)
                blk.lsum.append(blk.lsum[-1] + lv)
            self._btok[b] += tokens
            self._blive[b] += lv
        self._n = n + 1
        self._ttotal += tokens
        self._ltotal += lv
        return n

    def replace(self, pos: int, item: T, tokens: int, live: bool) -> None:
        """Put ``item`` at ``pos`` with a new token estimate and live flag. O(1), plus one block copy
        when its block is shared with a fork; the sums are brought up to date by :meth:`settle`.

        Raises:
            IndexError: ``pos`` is not in ``0..len - 1``.
        """
        if not 0 <= pos < self._n:
            raise IndexError(f"position {pos} out of range (0..{self._n - 1})")
        b, o = pos >> BLOCK_BITS, pos & _MASK
        blk = self._writable(b)
        lv = 1 if live else 0
        dt = tokens - blk.tokens[o]
        dl = lv - blk.live[o]
        blk.items[o] = item
        if dt or dl:
            blk.tokens[o] = tokens
            blk.live[o] = lv
            self._btok[b] += dt
            self._blive[b] += dl
            self._ttotal += dt
            self._ltotal += dl
            self._dirty.add(b)
            self._stale = min(self._stale, b + 1)
            self._clean = False

    def settle(self) -> None:
        """Bring the running sums of the blocks written by :meth:`replace`, and the block starts after
        them, up to date: O(BLOCK) per such block plus O(N / BLOCK), at C speed. Reads call it when
        needed; the owner calls it after a batch of writes so readers find the index settled."""
        if self._clean:
            return
        dirty, self._dirty = self._dirty, set()
        for b in dirty:
            blk = self._writable(b)
            blk.tsum = array("q", accumulate(blk.tokens))
            blk.lsum = array("q", accumulate(blk.live))
        s, self._stale = self._stale, _NO_BOUND
        nb = len(self._blocks)
        if s < nb:
            self._tstart[s:] = accumulate(self._btok[s : nb - 1], initial=self._tstart[s - 1] + self._btok[s - 1])
            self._lstart[s:] = accumulate(self._blive[s : nb - 1], initial=self._lstart[s - 1] + self._blive[s - 1])
        self._clean = True

    def fork(self) -> BlockIndex[T]:
        """An independent index holding the same items, sharing every block with this one until either
        side writes to it. O(N / BLOCK) (after a :meth:`settle`)."""
        self.settle()
        twin: BlockIndex[T] = BlockIndex.__new__(BlockIndex)
        twin._blocks = self._blocks.copy()
        twin._tstart = self._tstart.copy()
        twin._lstart = self._lstart.copy()
        twin._btok = self._btok.copy()
        twin._blive = self._blive.copy()
        twin._dirty, twin._stale, twin._clean = set(), _NO_BOUND, True
        twin._n, twin._ttotal, twin._ltotal = self._n, self._ttotal, self._ltotal
        self._own = [False] * len(self._blocks)
        twin._own = self._own.copy()
        return twin

    # ---- reads --------------------------------------------------------------------------------------

    def item(self, pos: int) -> T:
        """The item at ``pos`` (0-based, ``0 <= pos < len``).

        Raises:
            IndexError: out of range.
        """
        if pos < 0:
            raise IndexError(f"position {pos} out of range")
        return self._blocks[pos >> BLOCK_BITS].items[pos & _MASK]

    def tokens_at(self, pos: int) -> int:
        """The token estimate at ``pos`` (0 for a removed item).

        Raises:
            IndexError: out of range.
        """
        if pos < 0:
            raise IndexError(f"position {pos} out of range")
        return self._blocks[pos >> BLOCK_BITS].tokens[pos & _MASK]

    def live_at(self, pos: int) -> int:
        """1 if the item at ``pos`` is live, else 0.

        Raises:
            IndexError: out of range.
        """
        if pos < 0:
            raise IndexError(f"position {pos} out of range")
        return self._blocks[pos >> BLOCK_BITS].live[pos & _MASK]

    def token_total(self) -> int:
        return self._ttotal

    def live_total(self) -> int:
        return self._ltotal

    def token_prefix(self, end: int) -> int:
        """Tokens of positions ``[0, end)`` (``end`` clamped to ``0..len``). O(1)."""
        if end >= self._n:
            return self._ttotal
        if end <= 0:
            return 0
        if not self._clean:
            self.settle()
        b, o = end >> BLOCK_BITS, end & _MASK
        return self._tstart[b] + self._blocks[b].tsum[o - 1] if o else self._tstart[b]

    def live_prefix(self, end: int) -> int:
        """Live items among positions ``[0, end)`` (``end`` clamped to ``0..len``). O(1)."""
        if end >= self._n:
            return self._ltotal
        if end <= 0:
            return 0
        if not self._clean:
            self.settle()
        b, o = end >> BLOCK_BITS, end & _MASK
        return self._lstart[b] + self._blocks[b].lsum[o - 1] if o else self._lstart[b]

    def token_range(self, start: int, end: int) -> int:
        """Tokens of positions ``[start, end)`` (0 when ``end <= start``)."""
        return self.token_prefix(end) - self.token_prefix(start) if end > start else 0

    def live_range(self, start: int, end: int) -> int:
        """Live items among positions ``[start, end)`` (0 when ``end <= start``)."""
        return self.live_prefix(end) - self.live_prefix(start) if end > start else 0

    def find_live(self, k: int) -> int:
        """The position of the k-th (0-based) live item; ``len`` when there are k or fewer; 0 for a
        negative ``k``. O(log N)."""
        if k >= self._ltotal:
            return self._n
        if k < 0:
            return 0
        if not self._clean:
            self.settle()
        b = bisect_right(self._lstart, k) - 1
        return (b << BLOCK_BITS) + bisect_right(self._blocks[b].lsum, k - self._lstart[b])

    def find_tokens(self, k: int) -> int:
        """The smallest position ``p`` with ``token_prefix(p + 1) > k``; ``len`` if there is none; 0 for
        a negative ``k``. O(log N)."""
        if k >= self._ttotal:
            return self._n
        if k < 0:
            return 0
        if not self._clean:
            self.settle()
        b = bisect_right(self._tstart, k) - 1
        return (b << BLOCK_BITS) + bisect_right(self._blocks[b].tsum, k - self._tstart[b])

    def iter_items(self, start: int = 0) -> Iterator[T]:
        """Items from position ``start`` (>= 0) to the end, in order (a write to the index while the
        iterator is open may or may not be seen by it)."""
        b, o = start >> BLOCK_BITS, start & _MASK
        blocks = self._blocks
        if b >= len(blocks):
            return iter(())
        head = islice(blocks[b].items, o, None) if o else iter(blocks[b].items)
        return chain(head, chain.from_iterable(blk.items for blk in islice(blocks, b + 1, None)))

    def iter_items_reversed(self, end: int | None = None) -> Iterator[T]:
        """Items from position ``end - 1`` (default: the last) down to 0."""
        n = self._n if end is None else min(end, self._n)
        if n <= 0:
            return iter(())
        b, o = (n - 1) >> BLOCK_BITS, (n - 1) & _MASK
        blocks = self._blocks
        last = blocks[b].items
        head = reversed(last) if o == len(last) - 1 else reversed(last[: o + 1])
        return chain(head, chain.from_iterable(reversed(blocks[j].items) for j in range(b - 1, -1, -1)))

    def items(self, start: int, end: int) -> list[T]:
        """Items of positions ``[start, end)`` (both clamped to ``0..len``), as a new list."""
        start, end = max(0, start), min(end, self._n)
        if end <= start:
            return []
        b0, b1 = start >> BLOCK_BITS, (end - 1) >> BLOCK_BITS
        blocks = self._blocks
        if b0 == b1:
            return blocks[b0].items[start & _MASK : ((end - 1) & _MASK) + 1]
        out = blocks[b0].items[start & _MASK :]
        for j in range(b0 + 1, b1):
            out += blocks[j].items
        out += blocks[b1].items[: ((end - 1) & _MASK) + 1]
        return out

    def token_values(self, start: int, end: int) -> list[int]:
        """Token estimates of positions ``[start, end)`` (clamped), as a new list."""
        start, end = max(0, start), min(end, self._n)
        out: list[int] = []
        while start < end:
            b, o = start >> BLOCK_BITS, start & _MASK
            take = min(BLOCK - o, end - start)
            out += self._blocks[b].tokens[o : o + take]
            start += take
        return out


class ItemsView(Sequence[T]):
    """A read-only list-like view of a :class:`BlockIndex`'s items (``len``, ``[i]`` with negative
    indexes, ``[a:b]`` slices as new lists, iteration, ``reversed``), for code written against a list.
    It reads the index live: later appends and replacements show.

    Raises (``[i]``):
        IndexError: out of range.
    """

    __slots__ = ("_ix",)

    def __init__(self, index: BlockIndex[T]) -> None:
        self._ix = index

    def __len__(self) -> int:
        return self._ix._n

    def __bool__(self) -> bool:
        return self._ix._n > 0

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> list[T]: ...

    def __getitem__(self, i: int | slice) -> T | list[T]:
        ix = self._ix
        try:
            if i >= 0:  # type: ignore[operator]
                return ix._blocks[i >> BLOCK_BITS].items[i & _MASK]  # type: ignore[operator]
        except TypeError:
            if not isinstance(i, slice):
                raise
            start, stop, step = i.indices(ix._n)
            if step == 1:
                return ix.items(start, stop)
            return [ix.item(p) for p in range(start, stop, step)]
        j = int(i) + ix._n  # type: ignore[arg-type]
        if j < 0:
            raise IndexError(f"index {i} out of range")
        return ix._blocks[j >> BLOCK_BITS].items[j & _MASK]

    def __iter__(self) -> Iterator[T]:
        return self._ix.iter_items()

    def __reversed__(self) -> Iterator[T]:
        return self._ix.iter_items_reversed()


class _TokenValues:
    """``values[pos]``: the token estimate at a position (the flat Fenwick tree's ``_values`` list)."""

    __slots__ = ("_ix",)

    def __init__(self, index: BlockIndex[object]) -> None:
        self._ix = index

    def __len__(self) -> int:
        return self._ix._n

    def __getitem__(self, pos: int) -> int:
        if pos < 0:
            pos += self._ix._n
            if pos < 0:
                raise IndexError("token value index out of range")
        return self._ix._blocks[pos >> BLOCK_BITS].tokens[pos & _MASK]


class SumsView:
    """The tokens or the live counts of a :class:`BlockIndex` with the read methods of the flat Fenwick
    tree it replaces (``get``, ``prefix``, ``range``, ``total``, ``find``, ``len``, ``values[pos]``),
    for code written against that tree. Bound to one index; it reads it live.
    """

    __slots__ = ("_ix", "find", "get", "prefix", "range", "total", "values")

    def __init__(self, index: BlockIndex[T], tokens: bool) -> None:
        self._ix: BlockIndex[T] = index
        self.get: Callable[[int], int] = index.tokens_at if tokens else index.live_at
        self.prefix: Callable[[int], int] = index.token_prefix if tokens else index.live_prefix
        self.range: Callable[[int, int], int] = index.token_range if tokens else index.live_range
        self.total: Callable[[], int] = index.token_total if tokens else index.live_total
        self.find: Callable[[int], int] = index.find_tokens if tokens else index.find_live
        self.values = _TokenValues(index) if tokens else _LiveValues(index)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self._ix)


class _LiveValues(_TokenValues):
    """``values[pos]``: 1 if the item at a position is live, else 0."""

    __slots__ = ()

    def __getitem__(self, pos: int) -> int:
        if pos < 0:
            pos += self._ix._n
        return self._ix.live_at(pos)


class PositionMap:
    """Id -> position for a :class:`BlockIndex`, cheap to fork.

    Every mapping is permanent (a position is never reused or moved), so a fork reads its parent's dict
    through a bound, the parent's length at the fork: an id the parent maps to a position at or past the
    bound was appended after the fork and is not the fork's. Lookups walk the layers (the fork's own
    dict, then its ancestors', each with its bound); a fork of a small own dict copies it instead of
    adding a layer, and past 8 layers the map is flattened (one O(N) copy), so a lookup stays a few dict
    reads.
    """

    __slots__ = ("_layers", "_own")

    _MAX_LAYERS = 8
    _COPY_BELOW = 4096  # an own dict this small is copied into the fork's own dict, not layered

    def __init__(self) -> None:
        self._own: dict[str, int] = {}
        self._layers: tuple[tuple[dict[str, int], int], ...] = ()  # (ancestor's own dict, bound), nearest first

    def get(self, key: str, default: int | None = None) -> int | None:
        p = self._own.get(key)
        if p is not None:
            return p
        for d, bound in self._layers:
            p = d.get(key)
            if p is not None and p < bound:
                return p
        return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __setitem__(self, key: str, pos: int) -> None:
        """Map a new id (its position must be past every position the map already holds)."""
        self._own[key] = pos

    def __len__(self) -> int:
        return len(self._own) + sum(sum(1 for p in d.values() if p < bound) for d, bound in self._layers)

    def fork(self, bound: int) -> PositionMap:
        """The map of a fork made when the index held ``bound`` positions: what this map holds below
        ``bound``, and then the fork's own ids (this map's later ids never show in it)."""
        twin = PositionMap.__new__(PositionMap)
        layers = tuple((d, min(b, bound)) for d, b in self._layers)
        if len(self._own) <= self._COPY_BELOW:
            twin._own = {k: p for k, p in self._own.items() if p < bound}
        else:
            twin._own = {}
            layers = ((self._own, bound), *layers)
        twin._layers = layers
        if len(layers) > self._MAX_LAYERS:
            flat: dict[str, int] = {}
            for d, b in reversed(layers):
                flat.update({k: p for k, p in d.items() if p < b})
            flat.update(twin._own)
            twin._own, twin._layers = flat, ()
        return twin
