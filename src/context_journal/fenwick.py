"""A growable Fenwick (binary indexed) tree: prefix sums and k-th lookups in O(log N), appends O(log N).

The message index keeps two: live-message counts (to map "the k-th visible message" to its append
position when removals leave holes) and token estimates (so the tokens of any span cost O(log N)).
Reference: P. M. Fenwick, "A new data structure for cumulative frequency tables", 1994.
"""

from __future__ import annotations

__all__ = ["Fenwick"]


class Fenwick:
    """Prefix sums over a list of integers that grows at the end."""

    __slots__ = ("_tree", "_values")

    def __init__(self) -> None:
        self._tree: list[int] = [0]  # 1-based
        self._values: list[int] = []

    def __len__(self) -> int:
        return len(self._values)

    def copy(self) -> Fenwick:
        """An independent copy (O(N) at C speed)."""
        twin = Fenwick.__new__(Fenwick)
        twin._tree = list(self._tree)
        twin._values = list(self._values)
        return twin

    def append(self, value: int) -> None:
        """Add ``value`` at the next position."""
        self._values.append(value)
        i = len(self._values)
        # tree[i] covers (i - lowbit(i), i]: its own value plus the covering nodes below it.
        total = value
        j = i - 1
        stop = i - (i & -i)
        while j > stop:
            total += self._tree[j]
            j -= j & -j
        self._tree.append(total)

    def extend(self, values: list[int]) -> None:
        """Append many values (O(M log N))."""
        for v in values:
            self.append(v)

    def get(self, pos: int) -> int:
        """The value at 0-based ``pos``."""
        return self._values[pos]

    def set(self, pos: int, value: int) -> None:
        """Replace the value at 0-based ``pos``."""
        delta = value - self._values[pos]
        if not delta:
            return
        self._values[pos] = value
        i = pos + 1
        n = len(self._values)
        while i <= n:
            self._tree[i] += delta
            i += i & -i

    def prefix(self, end: int) -> int:
        """Sum of positions ``[0, end)``."""
        total = 0
        i = min(end, len(self._values))
        while i > 0:
            total += self._tree[i]
            i -= i & -i
        return total

    def range(self, start: int, end: int) -> int:
        """Sum of positions ``[start, end)``."""
        return self.prefix(end) - self.prefix(start) if end > start else 0

    def total(self) -> int:
        return self.prefix(len(self._values))

    def find(self, k: int) -> int:
        """The smallest position ``p`` with ``prefix(p + 1) > k`` (values must be non-negative): with
        0/1 values, the position of the k-th (0-based) one. Returns ``len(self)`` if there is none."""
        pos = 0
        remaining = k
        n = len(self._values)
        step = 1 << n.bit_length()
        while step:
            nxt = pos + step
            if nxt <= n and self._tree[nxt] <= remaining:
                pos = nxt
                remaining -= self._tree[nxt]
            step >>= 1
        return pos
