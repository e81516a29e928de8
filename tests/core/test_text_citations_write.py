"""A text block's ``citations`` are checked when written (a review finding): null, or a list of objects
each with a ``type``; anything else is refused with MalformedContentError naming the place. What was
stored before the check is still read (``strict=False``)."""

from __future__ import annotations

from typing import Any

import pytest

from context_journal.content import validate_content
from context_journal.errors import MalformedContentError
from context_journal.manager import ContextManager
from tests.provider_shapes import CHAR_LOCATION

CITE = CHAR_LOCATION
UNTITLED = {k: v for k, v in CITE.items() if k != "document_title"}
WEB = {"type": "web_search_result_location", "cited_text": "x", "url": "https://a.example", "encrypted_index": "e"}


@pytest.mark.parametrize(
    ("citations", "path", "words"),
    [
        ("nope", "citations", "must be a list"),
        ({"type": "char_location"}, "citations", "must be a list"),
        ([CITE, 7], "citations.1", "must be an object"),
        ([{"cited_text": "x"}], "citations.0.type", "needs its type"),
        ([{"type": ""}], "citations.0.type", "needs its type"),
        # the SDK's Required[Optional[str]] fields: present, text or null
        ([UNTITLED], "citations.0.document_title", "needs 'document_title'"),
        ([{**CITE, "document_title": 3}], "citations.0.document_title", "must be str or null"),
        ([WEB], "citations.0.title", "needs 'title'"),
    ],
)
def test_bad_citations_are_refused_at_write(citations: Any, path: str, words: str) -> None:
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "q")
        with pytest.raises(MalformedContentError) as exc:
            cm.add_message(
                "assistant", [{"type": "text", "text": "ok"}, {"type": "text", "text": "x", "citations": citations}]
            )
        assert (exc.value.block_index, exc.value.path) == (1, path)
        assert words in str(exc.value)
        assert len(cm.get_messages()) == 1


def test_nested_citations_are_checked_too() -> None:
    nested = {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "x", "citations": 3}]}
    with pytest.raises(MalformedContentError) as exc:
        validate_content([nested])
    assert exc.value.path == "content.0.citations"


def test_good_and_null_citations_are_kept_as_given() -> None:
    blocks: list[dict[str, Any]] = [
        {"type": "text", "text": "a", "citations": [CITE]},
        {"type": "text", "text": "b", "citations": None},
        {"type": "text", "text": "c", "citations": []},
        {"type": "text", "text": "d", "citations": [{**CITE, "document_title": "Spec"}, {**WEB, "title": None}]},
    ]
    assert validate_content(blocks) == blocks


def test_a_read_does_not_check_them() -> None:
    old = [{"type": "text", "text": "x", "citations": "nope"}]
    assert validate_content(old, strict=False) == old
