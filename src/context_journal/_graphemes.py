"""Cutting text on grapheme-cluster boundaries: the one helper every place that shortens text uses
(excerpts, summary caps, recall snippets and cut lines, clipped fields of the execution journal).

A *grapheme cluster* is what a reader sees as one character (Unicode UAX #29, extended clusters): a
letter with its combining marks (``e`` + U+0301, a Devanagari conjunct), an emoji with its
zero-width joiners and modifiers (a family, a skin tone), a flag (two regional indicators), ``\\r\\n``.
A cut inside one leaves a broken character on screen (a lone joiner, half a flag, a mark on the wrong
letter) and, on the next cut, a different one. Segmentation is the ``regex`` package's ``\\X``
(extended grapheme clusters, kept current with Unicode); nothing here re-implements the rules.

Finding the boundary next to an index does not segment the whole string: it restarts from the nearest
earlier position that is a boundary for sure (between two ASCII characters other than CR LF: no UAX #29
rule joins those) and segments from there, so a cut costs about the distance to that point.
"""

from __future__ import annotations

import unicodedata

import regex  # type: ignore[import-untyped]  # no stubs shipped

__all__ = [
    "ceil_boundary",
    "clip_end",
    "clip_start",
    "floor_boundary",
    "graphemes",
    "is_boundary",
    "split_words",
    "strip_clusters",
]

_CLUSTER = regex.compile(r"\X")
_LOOKBACK = 512  # characters searched backwards for a sure boundary before segmenting from the start


def graphemes(text: str) -> list[str]:
    """The grapheme clusters of ``text``, in order."""
    return list(_CLUSTER.findall(text))


def _sure_start(text: str, i: int) -> int:
    """A boundary at or before ``i``: a position between two ASCII characters (not CR LF), or 0."""
    stop = max(0, i - _LOOKBACK)
    k = i
    while k > stop:
        a, b = text[k - 1], text[k]
        if a < "\x80" and b < "\x80" and not (a == "\r" and b == "\n"):
            return k
        k -= 1
    return 0


def _bounds(text: str, i: int) -> tuple[int, int]:
    """The boundaries at or before and at or after ``i`` (equal when ``i`` is one)."""
    n = len(text)
    if i <= 0:
        return 0, 0
    if i >= n:
        return n, n
    a, b = text[i - 1], text[i]
    if a < "\x80" and b < "\x80" and not (a == "\r" and b == "\n"):
        return i, i  # the common case: no scan
    pos = _sure_start(text, i)
    for m in _CLUSTER.finditer(text, pos):
        end = m.end()
        if end == i:
            return i, i
        if end > i:
            return m.start(), end
    return n, n  # pragma: no cover - the clusters cover the text


def floor_boundary(text: str, i: int) -> int:
    """The largest grapheme boundary ``<= i`` (0 and ``len(text)`` are boundaries)."""
    return _bounds(text, i)[0]


def ceil_boundary(text: str, i: int) -> int:
    """The smallest grapheme boundary ``>= i``."""
    return _bounds(text, i)[1]


def is_boundary(text: str, i: int) -> bool:
    """Whether cutting ``text`` at index ``i`` keeps every grapheme cluster whole."""
    return _bounds(text, i)[0] == i


def clip_end(text: str, n: int) -> str:
    """The longest prefix of ``text`` of at most ``n`` characters that ends on a cluster boundary."""
    return text[: floor_boundary(text, max(0, n))]


def clip_start(text: str, n: int) -> str:
    """The longest suffix of ``text`` of at most ``n`` characters that starts on a cluster boundary."""
    if n <= 0:
        return ""
    return text[ceil_boundary(text, max(0, len(text) - n)) :]


def split_words(text: str) -> list[str]:
    """``text.split()`` that never separates a cluster: words are runs of clusters that are not all
    whitespace, so a space carrying a combining mark or joiner stays inside its word."""
    if text.isascii():
        return text.split()  # ASCII clusters are single characters, bar CR LF (whitespace either way)
    out: list[str] = []
    word: list[str] = []
    for g in _CLUSTER.findall(text):
        if g.isspace():
            if word:
                out.append("".join(word))
                word = []
        else:
            word.append(g)
    if word:
        out.append("".join(word))
    return out


def strip_clusters(text: str) -> str:
    """``text.strip()``, less any combining mark the strip left at the start without its base (the
    cluster ``" \u0301"``: a space carrying a mark; stripping the space must not leave the mark)."""
    out = text.strip()
    while out and unicodedata.category(out[0]).startswith("M"):
        out = out[1:].lstrip()
    return out
