"""A base64 ``text/*`` document is priced by its text and sent to Anthropic as a text source.

Issue 13, kind 3 ("documents are priced from their content"; a review): a ``document`` with a ``base64``
source of ``text/plain``, ``text/csv`` or ``text/markdown`` was taken and priced at the flat 3,011 tokens
whatever its size (0.01x of the reference for 1.4 million characters, sent whole at a 100,000-token budget),
and ``to_anthropic()`` sent it as a base64 source with a text media type, which the Messages API refuses
(its base64 documents are PDFs). Now it is priced as its UTF-8 text, the same as the same text given as a
``text`` source, in memory and once stored as a blob (SQLite, reopened); it is exported as a ``text``
source; bytes that are not UTF-8 are refused at ``source.data`` with nothing written.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.errors import MalformedContentError
from context_journal.tokens import EstimatingCounter
from tests.hypothesis_budget import examples

FAST = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
MEDIA = ["text/plain", "text/csv", "text/markdown", "TEXT/Plain"]
texts = st.text(st.characters(codec="utf-8"), min_size=1, max_size=400).filter(lambda t: t.strip())


def _b64(text: str, media: str) -> dict[str, Any]:
    return {
        "type": "document",
        "source": {"type": "base64", "media_type": media, "data": base64.b64encode(text.encode()).decode()},
    }


def _text(text: str) -> dict[str, Any]:
    return {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": text}}


@FAST
@given(text=texts, media=st.sampled_from(MEDIA))
def test_priced_and_sent_as_its_text(text: str, media: str) -> None:
    counter = EstimatingCounter()
    assert counter.count_block(_b64(text, media)) == counter.count_block(_text(text))
    cm = ContextManager.open("memory:")
    cm.add_message("user", [_b64(text, media), {"type": "text", "text": "Summarise."}])
    sent = cm.compile(max_tokens=1_000_000).to_anthropic()["messages"][0]["content"][0]
    assert sent["source"] == {"type": "text", "media_type": "text/plain", "data": text}


def test_the_reviews_large_file_is_priced_by_its_size_and_gives_way(tmp_path: Path) -> None:
    big = "The committee reviewed the quarterly figures and approved the budget. " * 20_000  # 1.4M characters
    counter = EstimatingCounter()
    assert counter.count_block(_b64(big, "text/plain")) == counter.count_block(_text(big)) > 220_000
    with ContextManager.open(str(tmp_path / "s.db")) as cm:
        cm.add_message("user", [_b64(big, "text/csv"), {"type": "text", "text": "Summarise."}])
    with ContextManager.open(str(tmp_path / "s.db")) as cm:  # stored as a blob: priced from its stored hint
        whole = cm.compile(max_tokens=1_000_000)
        assert whole.tokens >= counter.count_block(_text(big))
        assert whole.to_anthropic()["messages"][0]["content"][0]["source"]["type"] == "text"
        small = cm.compile(max_tokens=100_000)  # (before: the whole file sent at this budget)
        assert small.tokens <= 100_000
        assert "document omitted" in str(small.to_anthropic()["messages"])


@pytest.mark.parametrize("raw", [b"\xff\xfe\x00bad", b"caf\xe9", b"\xc3("])
def test_bytes_that_are_not_utf8_are_refused_at_the_data(raw: bytes) -> None:
    cm = ContextManager.open("memory:")
    block = {
        "type": "document",
        "source": {"type": "base64", "media_type": "text/plain", "data": base64.b64encode(raw).decode()},
    }
    with pytest.raises(MalformedContentError, match="not UTF-8") as caught:
        cm.add_message("user", [block, {"type": "text", "text": "Read it."}])
    assert "source.data" in str(caught.value)
    assert cm.message_count() == 0
