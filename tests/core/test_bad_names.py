"""Names are checked where they are written, by one rule on every backend (issue 15 kind 1 review): a
message id, branch, namespace, participant, reader, audience entry, fact key or tool-call id/name that is
blank, holds a control character (NUL) or a lone surrogate is refused with a typed error, and nothing is
written; media types must match the block (an image is an image type, a document a PDF or text)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.errors import ContextJournalError, MalformedContentError

BAD_NAMES = st.one_of(
    st.text(alphabet=" \t\n\u3000", min_size=1, max_size=4),
    st.builds(
        lambda a, c, b: a + c + b,
        st.text(max_size=3),
        st.sampled_from(["\x00", "\x07", "\x1b", "\x7f"]),
        st.text(max_size=3),
    ),
    st.builds(lambda a, c: a + c, st.text(max_size=3), st.sampled_from(["\ud800", "\udfff"])),
)
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(16)).decode()


def _attempts(cm: ContextManager, name: str) -> list[tuple[str, Any]]:
    return [
        ("id", lambda: cm.add_message("user", "x", id=name)),
        ("participant", lambda: cm.add_message(name, "x")),
        ("audience", lambda: cm.add_message("user", [{"type": "text", "text": "x", "audience": [name]}])),
        (
            "tool id",
            lambda: cm.add_message("assistant", [{"type": "tool_use", "id": name, "name": "run", "input": {}}]),
        ),
        (
            "tool name",
            lambda: cm.add_message("assistant", [{"type": "tool_use", "id": "t", "name": name, "input": {}}]),
        ),
        ("branch", lambda: cm.fork(name)),
        ("fact", lambda: cm.set_fact(name, "text")),
    ]


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=BAD_NAMES)
def test_a_bad_name_is_refused_and_nothing_is_written(backend: str, name: str, tmp_path: Path) -> None:
    url = "memory:" if backend == "memory" else str(tmp_path / f"s{abs(hash(name))}.db")
    cm = ContextManager.open(url)
    cm.add_message("user", "first")
    before = (cm.message_count(), [b.name for b in cm.list_branches()])
    for what, attempt in _attempts(cm, name):
        with pytest.raises((ContextJournalError, ValueError, TypeError)):
            attempt()
        assert (cm.message_count(), [b.name for b in cm.list_branches()]) == before, what
    with pytest.raises(ValueError, match="namespace"):
        ContextManager.open(url, namespace=name)
    with pytest.raises(ContextJournalError):
        ContextManager.open(url, namespace="agent", view_reader=name)
    assert [m.content_dicts()[0]["text"] for m in cm.get_all_messages()] == ["first"]  # every read still works
    cm.close()


@pytest.mark.parametrize(
    ("block", "media"),
    [("image", "text/plain"), ("image", "text/html"), ("image", "application/pdf"), ("document", "image/png")],
)
def test_media_types_match_the_block(block: str, media: str) -> None:
    cm = ContextManager.open("memory:")
    source = {"type": "base64", "media_type": media, "data": PNG}
    with pytest.raises(MalformedContentError, match=r"media type|PDF"):
        cm.add_message("user", [{"type": "text", "text": "see"}, {"type": block, "source": source}])
    assert cm.message_count() == 0
    ok = {"type": "base64", "media_type": "image/webp" if block == "image" else "application/pdf", "data": PNG}
    cm.add_message("user", [{"type": "text", "text": "see"}, {"type": block, "source": ok}])
