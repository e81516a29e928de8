"""PDF pricing reads every content stream and every page once (token estimates, review finding F9).

(a) Text in uncompressed content streams was not counted: only streams that inflated were read, so a
1-page PDF with plain streams was priced 1,601 tokens (the page image and nothing for its text) while
the same file with Flate streams was priced by its text too. (b) An incremental update that redefines
each page object (annotations, a form fill, a signature) counted every page twice: a 10-page PDF went
from 18,898 to 34,898 tokens. Pages are counted once per object number, the latest revision winning.

The PDFs are built by hand here (no PDF package).
"""

from __future__ import annotations

import base64
import random
import re
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_journal._documents import _text_blocks, pdf_stats
from context_journal.tokens import EstimatingCounter, document_hints
from tests.hypothesis_budget import examples

_VOCAB = "region margin revenue quarter growth cost north south east west total percent units".split()  # noqa: SIM905


def _content(page: int, rows: int = 20) -> bytes:
    """A page's content stream: lines shown with Tj, TJ, ' and " (the four text-showing operators)."""
    rng = random.Random(page)
    out = [b"BT /F1 10 Tf 50 780 Td 12 TL"]
    for row in range(rows):
        line = " ".join(rng.choice(_VOCAB) for _ in range(10)).encode()
        op = row % 4
        if op == 0:
            out.append(b"(" + line + b") Tj")
        elif op == 1:
            left, right = line.split(b" ", 1)
            out.append(b"[(" + left + b" ) -120 (" + right + b")] TJ")
        elif op == 2:
            out.append(b"(" + line + b") '")
        else:
            out.append(b"0 0 (" + line + b') "')
    out.append(b"ET")
    return b"\n".join(out)


def _objects(pages: int, compress: bool) -> list[bytes]:
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(pages))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", f"<< /Type /Pages /Kids [{kids}] /Count {pages} >>".encode()]
    font = 3 + 2 * pages
    for i in range(pages):
        body = _content(i)
        head = f"/Length {len(body)}"
        if compress:
            body = zlib.compress(body)
            head = f"/Length {len(body)} /Filter /FlateDecode"
        resources = f"/Resources << /Font << /F1 {font} 0 R >> >>"
        objects.append(f"<< /Type /Page /Parent 2 0 R /Contents {4 + 2 * i} 0 R {resources} >>".encode())
        objects.append(f"<< {head} >>\nstream\n".encode() + body + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    return objects


def _write(out: bytearray, numbered: list[tuple[int, bytes]], size: int, prev: int | None) -> None:
    """Append objects, their cross-reference section and a trailer (``/Prev`` for an update)."""
    offsets = []
    for num, obj in numbered:
        offsets.append((num, len(out)))
        out += f"{num} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n" if prev is not None else b"xref\n0 1\n0000000000 65535 f \n"
    for num, off in offsets:
        out += f"{num} 1\n{off:010d} 00000 n \n".encode()
    extra = f" /Prev {prev}" if prev is not None else ""
    out += f"trailer\n<< /Size {size} /Root 1 0 R{extra} >>\nstartxref\n{xref}\n%%EOF\n".encode()


def make_pdf(pages: int, *, compress: bool = True, updates: int = 0) -> bytes:
    """A text PDF of ``pages`` pages; ``updates`` incremental updates each redefine every page object
    (adding an annotation, as a form fill or a signature does)."""
    objects = _objects(pages, compress)
    out = bytearray(b"%PDF-1.4\n")
    _write(out, list(enumerate(objects, start=1)), len(objects) + 1, None)
    for k in range(updates):
        prev = int(out.rsplit(b"startxref\n", 1)[1].split(b"\n", 1)[0])
        annot = len(objects) + 1 + k
        revised = [(annot, b"<< /Type /Annot /Subtype /Text /Rect [10 10 30 30] /Contents (ok) >>")]
        for i in range(pages):
            page = objects[2 + 2 * i].replace(b" >> >> >>", f" >> >> /Annots [{annot} 0 R] >>".encode())
            revised.append((3 + 2 * i, page))
        _write(out, revised, annot + 1, prev)
    return bytes(out)


def _block(data: bytes) -> dict[str, Any]:
    source = {"type": "base64", "media_type": "application/pdf", "data": base64.b64encode(data).decode()}
    return {"type": "document", "source": source}


def _price(data: bytes) -> int:
    return EstimatingCounter().count_block(_block(data))


@pytest.mark.parametrize(("pages", "expected"), [(1, 1_851), (10, 18_498), (60, 111_021)])
def test_uncompressed_content_streams_are_priced_by_their_text_like_flate_ones(pages: int, expected: int) -> None:
    plain, flate = make_pdf(pages, compress=False), make_pdf(pages, compress=True)
    assert pdf_stats(plain).text == pdf_stats(flate).text != ""
    assert pdf_stats(plain).pages == pdf_stats(flate).pages == pages
    assert _price(plain) == _price(flate) == expected
    assert expected - pages * EstimatingCounter().pdf_page_tokens >= 150 * pages  # the text is counted


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize(("pages", "expected"), [(1, 1_851), (10, 18_498)])
def test_an_incremental_update_redefining_every_page_does_not_count_them_again(
    pages: int, expected: int, compress: bool
) -> None:
    once, twice = make_pdf(pages, compress=compress, updates=1), make_pdf(pages, compress=compress, updates=2)
    assert once.count(b"/Type /Page ") == 2 * pages and twice.count(b"/Type /Page ") == 3 * pages
    for data in (make_pdf(pages, compress=compress), once, twice):
        assert pdf_stats(data).pages == pages
        assert _price(data) == expected
        assert document_hints("application/pdf", data)["pages"] == pages


def test_the_latest_revision_of_an_object_wins() -> None:
    """A page object redefined as something else in an update is no longer a page (and a content
    stream redefined is read in its new revision only)."""
    base = make_pdf(3, compress=False)
    prev = int(base.rsplit(b"startxref\n", 1)[1].split(b"\n", 1)[0])
    out = bytearray(base)
    shown = b"BT (only this) Tj ET"
    _write(
        out,
        [
            (5, b"<< /Type /Annot /Subtype /Text >>"),
            (4, f"<< /Length {len(shown)} >>\nstream\n".encode() + shown + b"\nendstream"),
        ],
        10,
        prev,
    )
    stats = pdf_stats(bytes(out))
    assert stats.pages == 2
    assert "only this" in stats.text and pdf_stats(base).text.count(" ") > stats.text.count(" ") > 0


_CHAINS: dict[str, Any] = {
    "/FlateDecode": zlib.compress,
    "/Fl": zlib.compress,
    "[/ASCII85Decode /FlateDecode]": lambda b: base64.a85encode(zlib.compress(b), adobe=True)[2:],
    "[/A85 /Fl]": lambda b: base64.a85encode(zlib.compress(b), wrapcol=72, adobe=True),
    "/ASCII85Decode": lambda b: base64.a85encode(b) + b"~>",
    "/ASCIIHexDecode": lambda b: base64.b16encode(b) + b">",
    "[/AHx /FlateDecode]": lambda b: base64.b16encode(zlib.compress(b)).lower() + b">",
}


@pytest.mark.parametrize("chain", sorted(_CHAINS))
@pytest.mark.parametrize("pages", [1, 7, 60])
def test_every_filter_chain_readers_use_for_text_prices_as_the_plain_file(chain: str, pages: int) -> None:
    """Kind 3 (a review): a 60-page PDF whose object stream was ``[/ASCII85Decode /FlateDecode]`` was
    priced at 7,159 tokens from its size (96,759 plain). Flate, ASCII85 and ASCII hex, alone or chained, in
    the object stream holding the page tree and in every content stream: the same pages and text as plain."""
    encode = _CHAINS[chain]
    objects = _objects(pages, compress=False)
    out = bytearray(b"%PDF-1.5\n")
    numbered: list[tuple[int, bytes]] = []
    hidden: list[tuple[int, bytes]] = []
    for num, obj in enumerate(objects, start=1):
        if b"stream\n" in obj:  # a content stream: encoded
            body = obj.split(b"stream\n", 1)[1].rsplit(b"\nendstream", 1)[0]
            data = encode(body)
            numbered.append(
                (num, f"<< /Length {len(data)} /Filter {chain} >>\nstream\n".encode() + data + b"\nendstream")
            )
        elif num > 1:  # the page tree and the pages: in one object stream
            hidden.append((num, obj))
        else:
            numbered.append((num, obj))
    offsets, inner = [], b""
    for num, obj in hidden:
        offsets.append(f"{num} {len(inner)}")
        inner += obj + b"\n"
    header = " ".join(offsets).encode() + b"\n"
    data = encode(header + inner)
    head = f"<< /Type /ObjStm /N {len(hidden)} /First {len(header)} /Length {len(data)} /Filter {chain} >>"
    numbered.append((len(objects) + 1, head.encode() + b"\nstream\n" + data + b"\nendstream"))
    _write(out, numbered, len(objects) + 2, None)
    stats, plain = pdf_stats(bytes(out)), pdf_stats(make_pdf(pages, compress=False))
    assert (stats.pages, stats.text, stats.parsed) == (pages, plain.text, True)
    assert _price(bytes(out)) == _price(make_pdf(pages, compress=False))


def test_an_unknown_filter_or_undecodable_bytes_show_nothing_and_count_no_page() -> None:
    """A filter the estimate does not read (an image's ``/DCTDecode``) or ASCII85 that does not decode:
    the stream shows no text; the file is still a PDF, priced by its page objects."""
    for head, data in ((b"/Filter /DCTDecode", b"\xff\xd8\xff"), (b"/Filter /ASCII85Decode", b"\x7f\x7f~>")):
        out = make_pdf(2, compress=False)
        extra = b"90 0 obj\n<< /Length 3 " + head + b" >>\nstream\n" + data + b"\nendstream\nendobj\n"
        stats = pdf_stats(out + extra)
        assert (stats.pages, stats.text) == (2, pdf_stats(out).text)


def test_pages_hidden_in_an_object_stream_are_counted_once_per_number() -> None:
    """Page objects compressed into an object stream (``/Type /ObjStm``), then redefined in another one
    by an update: three pages, not six."""

    def objstm(objs: list[tuple[int, bytes]]) -> bytes:
        offsets, body = [], b""
        for num, obj in objs:
            offsets.append(f"{num} {len(body)}")
            body += obj + b"\n"
        header = " ".join(offsets).encode() + b"\n"
        data = zlib.compress(header + body)
        head = f"<< /Type /ObjStm /N {len(objs)} /First {len(header)} /Length {len(data)} /Filter /FlateDecode >>"
        return head.encode() + b"\nstream\n" + data + b"\nendstream"

    pages = [(3 + i, f"<< /Type /Page /Parent 2 0 R /Rotate {i} >>".encode()) for i in range(3)]
    tree = (2, b"<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>")
    out = bytearray(b"%PDF-1.5\n")
    out += b"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
    out += b"10 0 obj\n" + objstm([tree, *pages]) + b"\nendobj\n"
    assert pdf_stats(bytes(out)).pages == 3
    out += b"11 0 obj\n" + objstm([(n, o.replace(b">>", b"/Annots [] >>")) for n, o in pages]) + b"\nendobj\n"
    assert pdf_stats(bytes(out)).pages == 3


_PIECES = [b"BT", b"ET", b" ", b"\n", b"(shown text)", b"<48656C6C6F>", b"BTX", b"xET", b"Tj", b"q", b"BT ET"]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_text_blocks_are_those_a_lazy_bt_et_pattern_finds(pieces: list[bytes]) -> None:
    """The text blocks are found in one pass over the operators (a review priced a 552-byte PDF whose one
    stream inflates to "BT BT BT ..." with no ``ET`` in 21 s: the lazy pattern searched to the end of the
    stream again from every ``BT``); they are exactly the blocks that pattern finds."""
    body = b"".join(pieces)
    assert _text_blocks(body) == re.findall(rb"\bBT\b(.*?)\bET\b", body, re.S)


def test_a_stream_of_text_openings_with_no_close_shows_no_text() -> None:
    """The review's PDF: one Flate stream of 30,000 "BT " and no ``ET``: one page, no text shown."""
    stream = zlib.compress(b"BT " * 30_000)
    pdf = (
        b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
        b"2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"
        b"3 0 obj\n<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>\nendobj\n"
        b"4 0 obj\n<< /Length "
        + str(len(stream)).encode()
        + b" /Filter /FlateDecode >>\nstream\n"
        + stream
        + b"\nendstream\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
    )
    stats = pdf_stats(pdf)
    assert (stats.pages, stats.text, stats.glyphs) == (1, "", 0)
    assert _price(pdf) == EstimatingCounter().pdf_page_tokens + 1
