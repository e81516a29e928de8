"""What a PDF holds, for pricing it: its page count and the text its pages show, read with the standard
library (no PDF package): the file's numbered objects (``n g obj ... endobj``) are walked in file
order, with the objects of its compressed object streams (``/Type /ObjStm``: object streams hide
page objects there; Flate, ASCII85 and ASCII hex filters, alone or chained, are decoded). A page is
counted once per object number, and a later definition of a number replaces an earlier one, as readers
take an incremental update's revision (annotating, filling a form or signing appends a new revision of each
page it touches). Text is the string operands of the text
blocks (``BT ... ET``: ``Tj``, ``TJ``, ``'`` and ``"``) of each stream, uncompressed streams read as they
stand and filtered ones decoded, again the latest revision of each stream object. The page objects
found are the pages; a page tree's ``/Count`` counts only when none is found, and then no more than
the file's size can hold.

Providers price a PDF per page: Anthropic's "PDF support" guide ("Estimate your costs") counts each
page's extracted text (typically 1,500-3,000 tokens a page) **plus** the page converted to an image,
priced like any image (its vision guide: ``width * height / 750`` tokens, about 1,600 for a page
scaled to its 1.15-megapixel limit). So the estimate is ``pages * page_image_tokens + text tokens``;
a 60-page report costs about 100,000 tokens, not a flat figure.

Reading is bounded: at most :data:`MAX_INFLATE` bytes are decompressed per file; a PDF that cannot be
read (encrypted, damaged, not a PDF) is priced as one page per 3,000 bytes (at least one).
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["HEADER_WINDOW", "MAX_INFLATE", "PdfStats", "is_pdf", "pdf_stats", "text_document"]

MAX_INFLATE = 64 * 1024 * 1024  # bytes decompressed per file at most
HEADER_WINDOW = 1024
"""Bytes of a file within which its ``%PDF-`` header must start: PDF readers take a header after up to
1,024 bytes of other data (ISO 32000-1, Annex H.3, implementation note 13)."""
_MIN_PAGE_BYTES = 50
"""Fewest bytes of a PDF per page it can claim: a page object (``n 0 obj<</Type/Page/Parent m 0 R>>endobj``) and
its cross-reference entry."""
_BYTES_PER_PAGE_GUESS = 3000  # for a file whose pages cannot be found

_END_STREAM = re.compile(rb"\r?\n?endstream")
_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_PAGES_COUNT = re.compile(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)|/Count\s+(\d+)[^>]*?/Type\s*/Pages\b")
_TEXT_MARK = re.compile(rb"\b[BE]T\b")  # the operators that open (BT) and close (ET) a text block
_LITERAL = re.compile(rb"\(((?:\\.|[^\\()]|\((?:\\.|[^\\()])*\))*)\)", re.S)
_HEX_STRING = re.compile(rb"<([0-9A-Fa-f\s]+)>")
_ESCAPE = re.compile(rb"\\([nrtbf()\\]|[0-7]{1,3}|\r?\n)")
_OBJ = re.compile(rb"(?<![0-9])(\d+)\s+(\d+)\s+obj\b")
_STREAM_OR_END = re.compile(rb"(?<![A-Za-z])stream\r?\n|\bendobj\b")
_FILTER = re.compile(rb"/Filter\b")
_FILTER_CHAIN = re.compile(rb"/Filter\s*(\[[^\]]*\]|/[A-Za-z0-9]+)")
_NAME = re.compile(rb"/([A-Za-z0-9]+)")
_SPACE = re.compile(rb"\s+")
_OBJSTM = re.compile(rb"/Type\s*/ObjStm\b")
_XREF_STREAM = re.compile(rb"/Type\s*/XRef\b")
_N = re.compile(rb"/N\s+(\d+)")
_FIRST = re.compile(rb"/First\s+(\d+)")
_INT = re.compile(rb"\d+")
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


def _inflate(raw: bytes, budget: int) -> bytes | None:
    try:
        return zlib.decompressobj().decompress(raw, budget)
    except zlib.error:
        return None


def _a85(raw: bytes) -> bytes | None:
    """ASCII85 (``/ASCII85Decode``, ``/A85``): whitespace ignored, ``<~`` and ``~>`` framing allowed."""
    data = _SPACE.sub(b"", raw)
    data = data[2:] if data.startswith(b"<~") else data
    end = data.find(b"~>")
    try:
        return base64.a85decode(data if end < 0 else data[:end])
    except ValueError:
        return None


def _ahx(raw: bytes) -> bytes | None:
    """ASCII hex (``/ASCIIHexDecode``, ``/AHx``): whitespace ignored, up to ``>``, an odd last digit
    followed by 0 (ISO 32000-1, 7.4.2)."""
    data = _SPACE.sub(b"", raw)
    end = data.find(b">")
    data = data if end < 0 else data[:end]
    try:
        return binascii.unhexlify(data + b"0" * (len(data) % 2))
    except (binascii.Error, ValueError):
        return None


def _decoded(head: bytes, raw: bytes, budget: int) -> bytes | None:
    """A stream's bytes through its ``/Filter`` chain (a name or an array, applied in order): Flate
    (within ``budget`` bytes), ASCII85 and ASCII hex, the encodings a page tree or content stream is stored
    in; None for any other filter (an image's DCT, LZW: nothing to price in them) or bytes that do not
    decode. A 60-page file whose object stream was ``[/ASCII85Decode /FlateDecode]`` was priced as 7
    pages from its size."""
    chain = _FILTER_CHAIN.search(head)
    if chain is None:
        return raw
    body: bytes | None = raw
    for name in _NAME.findall(chain.group(1)):
        if body is None:
            return None
        if name in (b"FlateDecode", b"Fl"):
            body = _inflate(body, budget) if budget > 0 else None
        elif name in (b"ASCII85Decode", b"A85"):
            body = _a85(body)
        elif name in (b"ASCIIHexDecode", b"AHx"):
            body = _ahx(body)
        else:
            return None
    return body


def _object_stream(head: bytes, body: bytes) -> list[tuple[int, bytes]] | None:
    """The numbered objects of an object stream (``/Type /ObjStm``): its header's ``/N`` pairs of object
    number and offset (from ``/First``), each object up to the next one's offset. None when it is not
    one or its header does not parse."""
    if _OBJSTM.search(head) is None:
        return None
    n, first = _N.search(head), _FIRST.search(head)
    if n is None or first is None:
        return None
    ints = [int(x) for x in _INT.findall(body[: int(first.group(1))])][: 2 * int(n.group(1))]
    starts = [int(first.group(1)) + off for off in ints[1::2]]
    return [(num, body[a:b]) for num, a, b in zip(ints[0::2], starts, [*starts[1:], len(body)], strict=False)]


def _text(body: bytes) -> tuple[list[bytes], int]:
    """The literal strings shown in a content stream's text blocks, and the glyphs of its hex strings."""
    texts: list[bytes] = []
    glyphs = 0
    for block in _text_blocks(body):
        texts.extend(_unescape(s) for s in _LITERAL.findall(block))
        glyphs += sum(len(re.sub(rb"\s", b"", h)) // 4 for h in _HEX_STRING.findall(block))
    return texts, glyphs


def _text_blocks(body: bytes) -> list[bytes]:
    """What lies between each ``BT`` and the first ``ET`` after it, in one pass over the operators (a lazy
    ``BT(.*?)ET`` pattern searched again from every ``BT`` to the end of the stream: a 552-byte PDF
    inflating to "BT BT BT ..." with no ``ET`` took 21 s to price)."""
    blocks: list[bytes] = []
    start = -1
    for mark in _TEXT_MARK.finditer(body):
        if start < 0:
            if mark.group() == b"BT":
                start = mark.end()
        elif mark.group() == b"ET":
            blocks.append(body[start : mark.start()])
            start = -1
    return blocks


def _objects(data: bytes) -> tuple[dict[int, bool], dict[int, tuple[list[bytes], int]], int, list[int]]:
    """Walk the file's numbered objects (``n g obj ... endobj``) in file order: whether each object
    number is a page, the text each stream object shows (uncompressed streams read as they are, Flate
    streams inflated, within the bound), and the pages found in inflated streams that are not object
    streams. A later definition of a number replaces an earlier one (an incremental update's revision
    wins, as readers take it)."""
    is_page: dict[int, bool] = {}
    shown: dict[int, tuple[list[bytes], int]] = {}
    loose = 0
    counts: list[int] = []
    budget = MAX_INFLATE
    pos = 0
    while (m := _OBJ.search(data, pos)) is not None:
        num = int(m.group(1))
        nxt = _STREAM_OR_END.search(data, m.end())
        if nxt is None:
            is_page[num] = _PAGE.search(data, m.end()) is not None
            break
        head = data[m.end() : nxt.start()]
        is_page[num] = _PAGE.search(head) is not None
        shown.pop(num, None)
        if nxt.group(0) == b"endobj":
            pos = nxt.end()
            continue
        end = _END_STREAM.search(data, nxt.end())
        stop = end.start() if end is not None else len(data)
        pos = end.end() if end is not None else len(data)
        raw = data[nxt.end() : stop]
        body = _decoded(head, raw, budget)  # an unfiltered stream's text is read as it stands
        if _FILTER.search(head) is not None:
            budget -= len(body or b"")
        if body is None or _XREF_STREAM.search(head) is not None:
            continue
        inner = _object_stream(head, body)
        if inner is not None:
            counts.extend(int(a or b) for a, b in _PAGES_COUNT.findall(body))
            for k, obj in inner:
                is_page[k] = _PAGE.search(obj) is not None
                shown.pop(k, None)
            continue
        if _FILTER.search(head) is not None:
            loose += len(_PAGE.findall(body))
        texts, glyphs = _text(body)
        if texts or glyphs:
            shown[num] = texts, glyphs
    return is_page, shown, loose, counts


def text_document(data: str) -> str | None:
    """The text of a base64 ``text/*`` document (its bytes read as UTF-8, a byte order mark dropped), or
    None when the base64 or the UTF-8 does not decode. Anthropic takes a text document only as a ``text``
    source (its base64 sources are PDFs alone), so the export sends this text; pricing counts it."""
    try:
        return base64.b64decode(data, validate=True).decode("utf-8-sig")
    except (binascii.Error, ValueError):
        return None


def is_pdf(head: bytes) -> bool:
    """Whether bytes (a file's first :data:`HEADER_WINDOW` + 4 bytes are enough) hold a ``%PDF-`` header
    starting within the first :data:`HEADER_WINDOW` bytes."""
    return head.find(b"%PDF-", 0, HEADER_WINDOW + 4) != -1


@lru_cache(maxsize=64)
def pdf_stats(data: bytes) -> PdfStats:
    """Page count and shown text of a PDF file's bytes (see the module docstring)."""
    if not is_pdf(data[: HEADER_WINDOW + 4]):
        return PdfStats(max(1, -(-len(data) // _BYTES_PER_PAGE_GUESS)), "", 0, False)
    is_page, shown, loose, counts = _objects(data)
    counts += [int(a or b) for a, b in _PAGES_COUNT.findall(data)]
    # A page is a page object, counted once per object number (an incremental update
    # that redefined each page, as annotating, filling a form or signing does, once counted every page twice).
    # A file without numbered objects has its page-object matches counted. Only when no page is found
    # does the page tree's /Count count, and then no more than the file could hold (a page takes a page
    # object). Before this, 43 bytes claiming /Count 9999 were priced at 16 million tokens, and a
    # 60-page file whose /Count said 1 at one page.
    page_objects = (sum(is_page.values()) if is_page else len(_PAGE.findall(data))) + loose
    counted = max(counts) if counts else 0
    pages = page_objects or min(counted, len(data) // _MIN_PAGE_BYTES)
    texts = [t for parts, _ in shown.values() for t in parts]
    glyphs = sum(g for _, g in shown.values())
    text = b" ".join(texts).decode("latin-1")
    if pages <= 0:
        return PdfStats(max(1, -(-len(data) // _BYTES_PER_PAGE_GUESS)), text, glyphs, False)
    return PdfStats(pages, text, glyphs, True)
