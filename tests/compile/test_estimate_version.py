"""The default estimate's counts are stored with the records under a key naming ``ESTIMATE_VERSION``
(``tokens.counter_key``): a store opened by another version prices its messages again. This pins a
fingerprint of the counts over a fixed corpus to that version, so a change of the estimate that leaves
the version alone fails here instead of leaving stores with counts the estimate no longer gives.

When it fails after a deliberate change of the estimate: raise ``ESTIMATE_VERSION`` and put the printed
fingerprint below.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from typing import Any

import pytest

from context_journal.tokens import ESTIMATE_VERSION, EstimatingCounter, counter_key
from tests.compile.compile_helpers import png_image
from tests.compile.token_corpus import CORPUS

FINGERPRINTS = {
    2: "87329bb5174e81a7",
    3: "7de9ae4ec2b5eedd",
    4: "c09d4df938c90951",
    5: "3f5964efe667b77f",
    6: "728ff79e8ea594ae",
    7: "0f5be37f1832a36c",
    8: "8c11b3ff82f41e5a",
}
"""ESTIMATE_VERSION -> the fingerprint of its counts over :func:`_blocks`, under :data:`UNICODE`."""
UNICODE = "14.0.0"
"""The Unicode version the fingerprints were taken under (Python 3.11): the estimate reads character
properties, so another Unicode may give other counts (the counter key names the Unicode version too)."""


def _blocks() -> list[dict[str, Any]]:
    """Every corpus text as a text block, a tool input and a tool result, plus the non-text blocks."""
    out: list[dict[str, Any]] = []
    for cls, texts in sorted(CORPUS.items()):
        for text in texts:
            out.append({"type": "text", "text": text})
            out.append({"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {"path": cls, "body": text}})
            out.append({"type": "tool_result", "tool_use_id": "toolu_1", "content": text})
    out.append({"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}})
    out.append({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png_image(400, 300)}})
    blob = {"type": "blob", "media_type": "image/jpeg", "sha256": "0" * 64, "size": 9, "width": 1024, "height": 768}
    out.append({"type": "image", "source": blob})
    out.append({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "a plain text"}})
    plain = {"type": "text", "media_type": "text/plain", "data": "cents"}
    out.append({"type": "document", "source": plain, "title": "Billing spec", "context": "The API's unit of money."})
    out.append({"type": "thinking", "thinking": "Let me think about the invoices.", "signature": "c2lnbmF0dXJl"})
    text_file = {"type": "base64", "media_type": "text/csv", "data": "aWQsYW1vdW50CjEsMTAKMiwyMAo="}
    out.append({"type": "document", "source": text_file})  # (priced by its text from version 8)
    return out


def _fingerprint() -> str:
    counter = EstimatingCounter()
    counts = [counter.count_block(b) for b in _blocks()]
    return hashlib.sha256(json.dumps(counts).encode()).hexdigest()[:16]


def test_the_estimate_version_names_the_counts_it_gives() -> None:
    if unicodedata.unidata_version != UNICODE:
        pytest.skip(f"fingerprints taken under Unicode {UNICODE}, this Python has {unicodedata.unidata_version}")
    got = _fingerprint()
    assert FINGERPRINTS.get(ESTIMATE_VERSION) == got, (
        f"the estimate's counts changed (fingerprint {got}): raise ESTIMATE_VERSION in tokens.py "
        f"and pin its fingerprint here: {got!r}"
    )


def test_the_counter_key_changes_with_every_price_and_only_known_counters_have_one() -> None:
    base = counter_key(EstimatingCounter())
    assert base is not None and len(base) == 8
    assert counter_key(EstimatingCounter()) == base  # stable across instances
    for field in ("image_tokens", "message_overhead", "block_overhead", "tool_use_overhead", "pdf_page_tokens"):
        assert counter_key(EstimatingCounter(**{field: 77})) != base, field

    class Mine(EstimatingCounter):  # may count differently with the same prices
        pass

    assert counter_key(Mine()) is None
    assert counter_key(object()) is None
