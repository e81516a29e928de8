"""What an image costs, from its pixel dimensions, which its header holds (read with ``imagesize``: PNG,
JPEG, GIF, WebP, TIFF and others, without decoding the pixels).

Providers price an image by its size, not by a flat figure:

* Anthropic's vision guide ("Calculate image costs"): an image whose long edge is over 1,568 pixels is
  first scaled down to it, keeping its aspect ratio, and then costs about ``width * height / 750`` tokens
  (at most about 1,600: a larger image is scaled down further).
* OpenAI's vision guide ("Calculating costs", ``detail: "high"``, the GPT-4o family): the image is scaled
  down to fit a 2,048-pixel square, then down until its shorter side is at most 768 pixels, and costs
  85 tokens plus 170 per 512-pixel tile that covers it.

The estimate takes the larger of the two, so it holds for either provider, and never more than the
counter's flat image price (``EstimatingCounter.image_tokens``, 1,600 by default: also the price of an
image whose size cannot be read, or which is only a URL). A 400x300 screenshot costs 255 tokens
(Anthropic 160, OpenAI one tile), not 1,600; a 1,920x1,080 one hits the cap.
"""

from __future__ import annotations

import base64
import binascii
import io
import math

__all__ = ["image_size", "image_size_b64", "image_tokens"]

_LONG_EDGE = 1568  # Anthropic: longer edges are scaled down to this
_PIXELS_PER_TOKEN = 750  # Anthropic
_SQUARE = 2048  # OpenAI: fit within this square first
_SHORT_SIDE = 768  # OpenAI: then the shorter side at most this
_TILE = 512  # OpenAI
_BASE, _PER_TILE = 85, 170  # OpenAI, detail "high"
_HEADS = (4096, 98_304)
"""Base64 characters decoded to find the dimensions: first a short head (PNG, GIF and WebP hold them in
their first 30 bytes), then a longer one for a JPEG whose EXIF block (up to 64 KB) comes first."""


def image_size(raw: bytes) -> tuple[int, int] | None:
    """``(width, height)`` in pixels read from an image's header, or None when the bytes are not an image
    ``imagesize`` can read (a damaged or truncated file, an unknown format, a size of 0)."""
    import imagesize  # type: ignore[import-untyped]

    try:
        width, height = imagesize.get(io.BytesIO(raw))
    except Exception:  # imagesize raises ValueError, struct.error and others on damaged bytes
        return None
    if not isinstance(width, int) or not isinstance(height, int) or width <= 0 or height <= 0:
        return None
    return width, height


def image_size_b64(data: str) -> tuple[int, int] | None:
    """:func:`image_size` of base64 ``data``, decoding only its head (see :data:`_HEADS`)."""
    for n in _HEADS:
        head = data[:n]
        try:
            raw = base64.b64decode(head[: len(head) - len(head) % 4])
        except (binascii.Error, ValueError):
            return None
        size = image_size(raw)
        if size is not None or len(data) <= n:
            return size
    return None


def image_tokens(width: int, height: int, cap: int) -> int:
    """Tokens of a ``width`` x ``height`` pixel image: the larger of Anthropic's and OpenAI's prices (see
    the module docstring), at most ``cap``."""
    w, h = float(width), float(height)
    long_edge = max(w, h)
    if long_edge > _LONG_EDGE:
        w, h = w * _LONG_EDGE / long_edge, h * _LONG_EDGE / long_edge
    anthropic = math.ceil(round(w * h, 6) / _PIXELS_PER_TOKEN)
    w, h = float(width), float(height)
    if max(w, h) > _SQUARE:
        scale = _SQUARE / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > _SHORT_SIDE:
        scale = _SHORT_SIDE / min(w, h)
        w, h = w * scale, h * scale
    # (rounded first: a side scaled to 1,024.0000001 pixels is two tiles, not three)
    openai = _BASE + _PER_TILE * math.ceil(round(w, 6) / _TILE) * math.ceil(round(h, 6) / _TILE)
    return min(cap, max(anthropic, openai))
