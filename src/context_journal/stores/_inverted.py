"""The memory backend's full-text index: a plain inverted index with SQLite FTS5's results contract.

Words and stems as :mod:`context_journal.stores.fulltext` defines them; ranking is FTS5's ``bm25()``
on a ``columnsize=0`` table (k1 = 1.2, b = 0.75, idf = ln((N - n + 0.5) / (n + 0.5)), floored at 1e-6;
N, n and the mean document length taken over the whole index; every document's own length read as -1,
as FTS5 does when it keeps no sizes), so the memory and SQLite backends agree on hits and, up to
stemmer details, on order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from .fulltext import stem, words

__all__ = ["InvertedIndex"]

_K1 = 1.2
_B = 0.75


class InvertedIndex:
    """Documents (an integer id each) → stems, with the postings and lengths bm25 needs."""

    def __init__(self) -> None:
        self._postings: dict[str, dict[int, int]] = {}
        self._length: dict[int, int] = {}
        self._total = 0

    def add(self, doc: int, text: str) -> None:
        """Index ``text`` as document ``doc`` (a new id)."""
        tokens = words(text)
        self._length[doc] = len(tokens)
        self._total += len(tokens)
        for term, tf in Counter(map(stem, tokens)).items():  # each stem once, in first-occurrence order
            postings = self._postings.setdefault(term, {})
            postings[doc] = postings.get(doc, 0) + tf

    def remove(self, doc: int, text: str) -> None:
        """Take document ``doc`` out again (``text`` as it was added); used to roll a transaction back."""
        self._total -= self._length.pop(doc, 0)
        for token in set(words(text)):
            postings = self._postings.get(stem(token))
            if postings is not None:
                postings.pop(doc, None)
                if not postings:
                    del self._postings[stem(token)]

    def documents(self) -> list[int]:
        """The ids of every indexed document."""
        return list(self._length)

    def discard(self, docs: set[int]) -> list[tuple[int, int, list[tuple[str, int]]]]:
        """Take documents ``docs`` out without their text (a scan of every posting list: for redaction, a
        rare operation). Returns what was removed, ``(doc, length, [(stem, tf)])``, for :meth:`restore`."""
        removed: dict[int, list[tuple[str, int]]] = {doc: [] for doc in docs if doc in self._length}
        if not removed:
            return []
        for term in list(self._postings):
            postings = self._postings[term]
            for doc in removed.keys() & postings.keys():
                removed[doc].append((term, postings.pop(doc)))
            if not postings:
                del self._postings[term]
        out = []
        for doc, terms in removed.items():
            length = self._length.pop(doc)
            self._total -= length
            out.append((doc, length, terms))
        return out

    def restore(self, removed: Sequence[tuple[int, int, list[tuple[str, int]]]]) -> None:
        """Put back what :meth:`discard` took out (a rolled-back redaction)."""
        for doc, length, terms in removed:
            self._length[doc] = length
            self._total += length
            for term, tf in terms:
                self._postings.setdefault(term, {})[doc] = tf

    def scores(self, terms: Sequence[str]) -> dict[int, float]:
        """bm25 of every document matching any of ``terms`` (higher is better)."""
        n_docs = len(self._length)
        if not n_docs:
            return {}
        mean = self._total / n_docs
        out: dict[int, float] = {}
        for term in dict.fromkeys(stem(t) for t in terms):
            postings = self._postings.get(term)
            if not postings:
                continue
            idf = math.log((n_docs - len(postings) + 0.5) / (len(postings) + 0.5))
            idf = idf if idf > 0 else 1e-6
            for doc, tf in postings.items():
                norm = tf + _K1 * (1 - _B - _B / mean)  # the document's length reads as -1 (see above)
                out[doc] = out.get(doc, 0.0) + idf * tf * (_K1 + 1) / norm
        return out
