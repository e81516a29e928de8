"""Names are checked where they are written, by one rule on every backend (a review finding): a
message id, branch, namespace, participant, reader, audience entry, fact key or tool-call id/name that is
blank, holds a control character (NUL) or a lone surrogate is refused with a typed error, and nothing is
written; media types must match the block (an image is an image type, a document a PDF or text)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.errors import ContextJournalError, MalformedContentError
from tests.hypothesis_budget import examples

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
PDF = base64.b64encode(b"%PDF-1.4\n%%EOF\n").decode()


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
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
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
    media, data = ("image/webp", PNG) if block == "image" else ("application/pdf", PDF)
    ok = {"type": "base64", "media_type": media, "data": data}
    cm.add_message("user", [{"type": "text", "text": "see"}, {"type": block, "source": ok}])


_RESTRICTED = "abcXYZ019!#$&^_.+-"
MEDIA_TYPES = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda a, b: f"image/{a}{b}", st.sampled_from(["png", "jpeg", "x", "PNG", "svg+xml"]), st.text(max_size=6)
    ),
    st.builds(lambda a, b: f"{a}/{b}", st.text(_RESTRICTED, min_size=1, max_size=9), st.text(_RESTRICTED, max_size=9)),
)


@settings(max_examples=examples(80), deadline=None)
@given(media=MEDIA_TYPES)
def test_an_image_media_type_is_a_plain_type_or_refused_with_nothing_written(media: str) -> None:
    """A review found: ``image/png\\x00``, ``image/../../etc``, ``image/svg+xml`` and other
    media types no provider takes were written and later sent. Any text is either an image type both
    providers take (jpeg, png, gif, webp, any case) and kept, or refused naming the field, nothing
    written; the same inside a tool_result."""
    cm = ContextManager.open("memory:")
    plain = media.lower() in ("image/jpeg", "image/png", "image/gif", "image/webp")
    source = {"type": "base64", "media_type": media, "data": PNG}
    for content in (
        [{"type": "image", "source": source}],
        [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "image", "source": source}]}],
    ):
        if plain:
            cm.add_message("user", content)
            continue
        with pytest.raises(MalformedContentError, match=r"source\.media_type|image media type"):
            cm.add_message("user", content)
    assert cm.message_count() == (2 if plain else 0)
    if plain:
        cm.compile(100_000)  # what was kept compiles


@pytest.mark.parametrize(
    "url",
    [
        "\x00",
        "",
        "x",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "https://",
        "https:///path",
        "https://a b/c.png",
        "https://x/\ny.png",
        "ftp://x/y.png",
        "https://x/" + "a" * 70_000,
    ],
)
def test_a_url_source_needs_an_http_url_with_a_host(url: str) -> None:
    """A review found: an image URL of ``"\\x00"`` was written. A url source holds an http(s)
    URL with a host, no whitespace or control character, at most 65,536 characters."""
    cm = ContextManager.open("memory:")
    with pytest.raises(MalformedContentError, match=r"source\.url"):
        cm.add_message("user", [{"type": "image", "source": {"type": "url", "url": url}}])
    assert cm.message_count() == 0
    for good in ("https://example.com/a.png", "HTTP://10.0.0.1:8080/x.png?s=1#f"):
        cm.add_message("user", [{"type": "image", "source": {"type": "url", "url": good}}])
    assert cm.message_count() == 2


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
@settings(max_examples=examples(60), deadline=None)
@given(
    before=st.binary(max_size=1_100).filter(lambda b: b"%PDF-" not in b),
    header=st.booleans(),
    after=st.binary(max_size=200),
)
@example(before=b"", header=False, after=b"hello")  # the review's case: priced as a one-page PDF
@example(before=b"x" * 1023, header=True, after=b"")  # the header's last place
@example(before=b"x" * 1024, header=True, after=b"")  # one byte too late
def test_a_pdf_is_a_pdf_or_refused_with_nothing_written(
    backend: str, before: bytes, header: bool, after: bytes
) -> None:
    """A review found a ``document`` whose bytes were ``hello`` taken as a PDF and priced as one page
    (the providers refuse it). Base64 bytes sent as ``application/pdf`` hold a ``%PDF-`` header starting in
    their first 1,024 bytes (as PDF readers require) or are refused naming ``source.data``, nothing
    written, in a tool_result too; a header there is taken (a damaged body is priced by its size)."""
    cm = ContextManager.open(":memory:" if backend == "sqlite" else "memory:")
    raw = before + (b"%PDF-1.7\n" if header else b"") + after
    pdf = {"type": "base64", "media_type": "application/pdf", "data": base64.b64encode(raw).decode()}
    taken = header and len(before) <= 1_023
    contents: list[list[dict[str, Any]]] = [
        [{"type": "text", "text": "the report"}, {"type": "document", "source": pdf}],
        [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "document", "source": pdf}]}],
    ]
    for content in contents:
        if taken:
            cm.add_message("user", content)
            continue
        with pytest.raises(MalformedContentError, match=r"source\.data.*not a PDF"):
            cm.add_message("user", content)
    assert cm.message_count() == (2 if taken else 0)
    if taken:
        assert cm.compile(100_000).messages  # what was kept compiles
    cm.close()


def test_an_error_naming_a_huge_name_stays_short() -> None:
    """A review found: a 100 KB branch name, message id or namespace came back whole in the error (100 KB
    of output per failed call, over MCP and the CLI too). The name is clipped, its length given."""
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hi")
    big = "x" * 100_000
    for attempt in (
        lambda: cm.switch_branch(big),
        lambda: cm.get_message(big),
        lambda: cm.remove_message(big),
        lambda: cm.fork(big),
        lambda: ContextManager.open("memory:", namespace=big),
    ):
        with pytest.raises((ContextJournalError, ValueError)) as info:
            attempt()
        text = str(info.value)
        assert len(text) < 400 and "100,000 characters" in text, text[:300]


def test_a_refused_fact_key_names_why() -> None:
    """A review found: ``set_fact("k\\x00", ...)`` was refused as "must be a non-empty string of at most 200
    characters", which named neither the NUL nor any other real cause."""
    cm = ContextManager.open("memory:")
    for key, why in (("k\x00", "control character"), ("  ", "blank"), ("x" * 201, "longer than 200")):
        with pytest.raises(ValueError, match=why):
            cm.set_fact(key, "v")
    cm.set_fact("x" * 200, "v")
