"""What a PDF holds, for pricing it: its page count and the text its pages show, read with the standard
library (no PDF package): page objects and page-tree counts are found in the file and in its
Flate-compressed streams (object streams hide them there), text in the string operands of the text
blocks (``BT ... ET``) of content streams. The page objects found are the pages; a page tree's
``/Count`` counts only when none is found, and then no more than the file's size can hold.

Providers price a PDF per page: Anthropic's "PDF support" guide ("Estimate your costs") counts each
page's extracted text (typically 1,500-3,000 tokens a page) **plus** the page converted to an image,
priced like any image (its vision guide: ``width * height / 750`` tokens, about 1,600 for a page
scaled to its 1.15-megapixel limit). So the estimate is ``pages * page_image_tokens + text tokens``;
a 60-page report costs about 100,000 tokens, not a flat figure.

Reading is bounded: at most :data:`MAX_INFLATE` bytes are decompressed per file; a PDF that cannot be
read (encrypted, damaged, not a PDF) is priced as one page per 3,000 bytes (at least one).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["MAX_INFLATE", "PdfStats", "pdf_stats"]

MAX_INFLATE = 64 * 1024 * 1024  # bytes decompressed per file at most
_MIN_PAGE_BYTES = 50
"""Fewest bytes of a PDF per page it can claim: a page object (``n 0 obj<</Type/Page/Parent m 0 R>>endobj``) and
its cross-reference entry."""
_BYTES_PER_PAGE_GUESS = 3000  # for a file whose pages cannot be found

_STREAM = re.compile(rb"stream\r?\n")
_END_STREAM = re.compile(rb"\r?\n?endstream")
_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_PAGES_COUNT = re.compile(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)|/Count\s+(\d+)[^>]*?/Type\s*/Pages\b")
_TEXT_BLOCK = re.compile(rb"\bBT\b(.*?)\bET\b", re.S)
_LITERAL = re.compile(rb"\(((?:\\.|[^\\()]|\((?:\\.|[^\\()])*\))*)\)", re.S)
_HEX_STRING = re.compile(rb"<([0-9A-Fa-f\s]+)>")
_ESCAPE = re.compile(rb"\\([nrtbf()\\]|[0-7]{1,3}|\r?\n)")
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f", b"(": b"(", b")": b")", b"\\": b"\\"}


@dataclass(frozen=True)
class PdfStats:
    """What pricing needs of a PDF.

    Attributes:
        pages: Page count (at least 1).
        text: The text of literal strings the pages show (Latin-1 decoded).
        glyphs: Glyphs shown through hex strings (2-byte glyph ids of embedded fonts), not decodable
            without the font, priced as English text of that many characters.
        parsed: False when no page was found and ``pages`` is a guess from the file size.
    """

    pages: int
    text: str
    glyphs: int
    parsed: bool


def _unescape(raw: bytes) -> bytes:
    def one(m: re.Match[bytes]) -> bytes:
        e = m.group(1)
        if e in _ESCAPES:
            return _ESCAPES[e]
        if e[:1].isdigit():
            return bytes((int(e, 8) & 0xFF,))
        return b""  # a line continuation

    return _ESCAPE.sub(one, raw)


def _streams(data: bytes) -> list[bytes]:
    """The decompressed bodies of the file's Flate streams (those that inflate), within the bound."""
    out: list[bytes] = []
    budget = MAX_INFLATE
    pos = 0
    while budget > 0:
        m = _STREAM.search(data, pos)
        if m is None:
            break
        end = _END_STREAM.search(data, m.end())
        stop = end.start() if end is not None else len(data)
        pos = end.end() if end is not None else len(data)
        try:
            inflater = zlib.decompressobj()
            body = inflater.decompress(data[m.end() : stop], budget)
        except zlib.error:
            continue
        budget -= len(body)
        out.append(body)
    return out


@lru_cache(maxsize=64)
def pdf_stats(data: bytes) -> PdfStats:
    """Page count and shown text of a PDF file's bytes (see the module docstring)."""
    if data.lstrip()[:5] != b"%PDF-":
        return PdfStats(max(1, -(-len(data) // _BYTES_PER_PAGE_GUESS)), "", 0, False)
    streams = _streams(data)
    parts = [data, *streams]
    counts = [int(a or b) for part in parts for a, b in _PAGES_COUNT.findall(part)]
    page_objects = sum(len(_PAGE.findall(part)) for part in parts)
    # The page objects found (in the file and its decoded streams) are the pages; only when none is found
    # does the page tree's /Count count, and then no more than the file could hold (a page takes a page
    # object). Issue 13 review: 43 bytes claiming /Count 9999 were priced at 16 million tokens, and a
    # 60-page file whose /Count said 1 at one page.
    counted = max(counts) if counts else 0
    pages = page_objects or min(counted, len(data) // _MIN_PAGE_BYTES)
    texts: list[bytes] = []
    glyphs = 0
    for body in streams:
        for block in _TEXT_BLOCK.findall(body):
            texts.extend(_unescape(s) for s in _LITERAL.findall(block))
            glyphs += sum(len(re.sub(rb"\s", b"", h)) // 4 for h in _HEX_STRING.findall(block))
    text = b" ".join(texts).decode("latin-1")
    if pages <= 0:
        return PdfStats(max(1, -(-len(data) // _BYTES_PER_PAGE_GUESS)), text, glyphs, False)
    return PdfStats(pages, text, glyphs, True)
