"""Images are priced by their pixel size, read from their header (issue 13, kind 3: "documents are priced from
their content"; a 400x300 screenshot was priced 1,605 tokens, where Anthropic's formula gives 160 and
OpenAI's 255). The expected figures are the providers' published ones: Anthropic's vision guide ("Calculate
image costs": ``width * height / 750`` after the long edge is scaled to 1,568 pixels; its table: 200x200
about 54 tokens, 1,000x1,000 about 1,334, 1,092x1,092 about 1,590) and OpenAI's ("Calculating costs",
detail high: 1,024x1,024 is 765 tokens, 2,048x4,096 is 1,105)."""

from __future__ import annotations

import base64
import struct
from typing import Any

import pytest

from context_journal import ContextManager
from context_journal._images import image_tokens
from context_journal.tokens import EstimatingCounter
from tests.compile.compile_helpers import manager_for, png_image

COUNTER = EstimatingCounter()


def _block(raw: bytes, media_type: str = "image/png") -> dict[str, Any]:
    data = base64.b64encode(raw).decode()
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def _jpeg(width: int, height: int, exif: int) -> bytes:
    """A JPEG's markers: an EXIF block of ``exif`` bytes before the frame header that holds the size."""
    app1 = b"Exif\0\0" + bytes(exif)
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + bytes(9)
    return b"\xff\xd8\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + sof + b"\xff\xd9"


def _gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + bytes(30)


def _webp(width: int, height: int) -> bytes:
    size = (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 30) + b"WEBPVP8X" + struct.pack("<I", 10) + bytes(4) + size + bytes(8)


@pytest.mark.parametrize(
    ("width", "height", "anthropic", "openai", "expected"),
    [
        (200, 200, 54, 255, 255),
        (400, 300, 160, 255, 255),
        (1000, 1000, 1334, 765, 1334),
        (1092, 1092, 1590, 765, 1590),
        (1024, 1024, 1399, 765, 1399),
        (2048, 4096, 1600, 1105, 1600),  # Anthropic scales it to about 1,600 tokens
        (1920, 1080, 1600, 1105, 1600),
        (10_000, 100, 33, 765, 765),  # a long strip: one row of four tiles
    ],
)
def test_an_image_costs_the_larger_provider_price(
    width: int, height: int, anthropic: int, openai: int, expected: int
) -> None:
    """The estimate is the larger of the two providers' published prices (so it is never under either),
    at most the flat image price, which is also Anthropic's ceiling."""
    assert image_tokens(width, height, 1600) == expected == min(1600, max(anthropic, openai))
    assert COUNTER.count_block(_block(base64.b64decode(png_image(width, height)))) == expected + 1  # + the block


@pytest.mark.parametrize(
    ("raw", "media_type", "expected"),
    [
        (_jpeg(640, 480, 20_000), "image/jpeg", 425),  # after a 20 KB EXIF block; OpenAI: 2 tiles
        (_jpeg(300, 200, 100), "image/jpeg", 255),
        (_gif(320, 200), "image/gif", 255),
        (_webp(1280, 720), "image/webp", 1229),  # Anthropic: 1280 * 720 / 750
    ],
)
def test_the_size_is_read_from_each_common_format(raw: bytes, media_type: str, expected: int) -> None:
    assert COUNTER.count_block(_block(raw, media_type)) == expected + 1


@pytest.mark.parametrize(
    "source",
    [
        {"type": "url", "url": "https://example.com/a.png"},
        {
            "type": "base64",
            "media_type": "image/png",
            "data": base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(16)).decode(),
        },
        {"type": "base64", "media_type": "image/png", "data": base64.b64encode(bytes(range(256)) * 40).decode()},
        {"type": "base64", "media_type": "image/png", "data": "not base64 at all!"},
        {"type": "base64", "media_type": "image/jpeg", "data": base64.b64encode(_jpeg(640, 480, 1_000)[:400]).decode()},
        {"type": "blob", "media_type": "image/png", "sha256": "0" * 64, "size": 10},  # stored before sizes were
        {"type": "blob", "media_type": "image/png", "sha256": "0" * 64, "size": 10, "width": 0, "height": 5},
        {"type": "file", "file_id": "file_123"},
    ],
)
def test_an_image_whose_size_cannot_be_read_keeps_the_flat_price(source: dict[str, Any]) -> None:
    """A URL, a file id, damaged or truncated bytes, a size of 0, a blob stored without its size: the
    flat price (1,600 by default, which the configured price replaces)."""
    block = {"type": "image", "source": source}
    assert COUNTER.count_block(block) == 1601
    assert EstimatingCounter(image_tokens=900).count_block(block) == 901


def test_the_flat_price_is_also_the_most_an_image_costs() -> None:
    """A host that prices images lower (a model that scales them smaller) caps every image at that."""
    counter = EstimatingCounter(image_tokens=500)
    assert counter.count_block(_block(base64.b64decode(png_image(1024, 1024)))) == 501
    assert counter.count_block(_block(base64.b64decode(png_image(400, 300)))) == 256


def test_a_stored_image_keeps_its_price_and_its_size_is_not_sent(tmp_path: Any) -> None:
    """The bytes become a blob at write time; the size read then is kept beside the blob reference (as a
    PDF's pages are), so the stored message costs what it cost in flight, after a reopen too, and the
    request carries only the provider's fields."""
    image = _block(base64.b64decode(png_image(400, 300)))
    nested = {"type": "tool_result", "tool_use_id": "s1", "content": [_block(_jpeg(1024, 768, 5_000), "image/jpeg")]}
    direct = [COUNTER.count_block(image), COUNTER.count_block(nested)]
    assert direct == [256, 1049 + 1 + 6 + 1]  # 1024 * 768 / 750 = 1,048.6, the blocks and the result's framing
    call = {"type": "tool_use", "id": "s1", "name": "screenshot", "input": {}}
    path = tmp_path / "j.db"
    cm = manager_for(
        [
            {"id": "q", "role": "user", "content": [{"type": "text", "text": "What is on it?"}, image]},
            {"id": "c", "role": "assistant", "content": [call]},
            {"id": "r", "role": "user", "content": [nested]},
        ],
        path=str(path),
    )
    stored = cm.get_message("q").content_dicts()[1]["source"]
    assert stored["type"] == "blob" and (stored["width"], stored["height"]) == (400, 300)
    inner = cm.get_message("r").content_dicts()[0]["content"][0]["source"]
    assert (inner["width"], inner["height"]) == (1024, 768)
    stored_counts = [
        COUNTER.count_block(cm.get_message("q").content_dicts()[1]),
        COUNTER.count_block(cm.get_message("r").content_dicts()[0]),
    ]
    assert stored_counts == direct
    sent = cm.compile(100_000).to_anthropic()["messages"]
    assert set(sent[0]["content"][1]["source"]) == {"type", "media_type", "data"}
    assert set(sent[2]["content"][0]["content"][0]["source"]) == {"type", "media_type", "data"}
    whole = cm.compile(100_000).tokens
    cm.close()
    with ContextManager.open(path) as again:
        assert again.compile(100_000).tokens == whole


def _screenshot_history(image: dict[str, Any]) -> ContextManager:
    cm = ContextManager.open("memory:", strategy="windowed")
    for k in range(12):
        cm.add_message("user" if k % 2 == 0 else "assistant", "word " * 200, id=f"m{k}")
    cm.add_message("user", [{"type": "text", "text": "What is in this screenshot?"}, image], id="ask")
    return cm


def test_a_screenshot_asked_about_no_longer_crowds_out_the_conversation() -> None:
    """The point of pricing by size: a 400x300 screenshot and the twelve turns before it fit 3,300 tokens
    whole; beside an image of unreadable bytes, priced flat (1,601), every turn is cut."""
    sized = _screenshot_history(_block(base64.b64decode(png_image(400, 300)))).compile(3_300)
    assert [s.id for m in sized.messages for s in m.sources] == [f"m{k}" for k in range(12)] + ["ask"]
    assert sized.messages[-1].content[1]["type"] == "image"
    assert not sized.repairs
    flat = _screenshot_history(_block(bytes(range(256)) * 40)).compile(3_300)
    assert flat.messages[-1].content[1]["type"] == "image"
    assert sum(r.kind == "excerpted" for r in flat.repairs) == 12


@pytest.mark.parametrize("path", ["memory:", "sqlite"])
def test_a_callers_size_fields_do_not_price_a_stored_image(path: str, tmp_path: Any) -> None:
    """The size kept beside a blob is read from the bytes, never taken from the caller's source: a review
    sent damaged bytes with ``"width": 10, "height": 10`` and the stored image was priced 263 tokens."""
    junk = base64.b64encode(bytes(range(256)) * 40).decode()
    source = {"type": "base64", "media_type": "image/png", "data": junk, "width": 10, "height": 10, "pages": 1}
    where = str(tmp_path / "j.db") if path == "sqlite" else path
    cm = manager_for([{"id": "q", "role": "user", "content": [{"type": "image", "source": source}]}], path=where)
    stored = cm.get_message("q").content_dicts()[0]
    assert not {"width", "height", "pages"} & set(stored["source"])
    assert COUNTER.count_block(stored) == 1601
    real = dict(source, data=png_image(400, 300))
    cm.add_message("user", [{"type": "image", "source": real}], id="r")
    assert cm.get_message("r").content_dicts()[0]["source"]["width"] == 400
    cm.close()
