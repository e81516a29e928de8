"""Content model: round trips of every block shape (hypothesis) and every refused shape, with its place."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, MalformedContentError, MemoryStore
from context_journal.content import externalize_media, parse_content, resolve_media, validate_content
from tests.hypothesis_budget import examples

text = st.text(max_size=40)
ident = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=12)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(ident, children, max_size=3),
    max_leaves=8,
)
# cache_control is checked at write (null, or {"type": "ephemeral"} with an optional ttl of "5m" or "1h")
cache_control = st.none() | st.builds(
    lambda ttl, rest: {**rest, "type": "ephemeral", **({} if ttl is None else {"ttl": ttl})},
    st.none() | st.sampled_from(["5m", "1h"]),
    st.dictionaries(st.sampled_from(["x_note"]), json_value, max_size=1),
)
extra_fields = st.fixed_dictionaries(
    {}, optional={"cache_control": cache_control, "citations": json_value, "x_host": json_value}
)
citation = st.builds(lambda k, rest: {**rest, "type": k}, ident, st.dictionaries(ident, json_value, max_size=3))
# A text block's citations are checked at write (null, or a list of objects with a type); other fields any JSON.
text_extra = st.fixed_dictionaries(
    {},
    optional={
        "cache_control": cache_control,
        "citations": st.none() | st.lists(citation, max_size=3),
        "x_host": json_value,
    },
)
b64 = st.binary(min_size=1, max_size=64).map(lambda b: base64.b64encode(b).decode())
pdf_b64 = st.binary(max_size=64).map(lambda b: base64.b64encode(b"%PDF-1.4\n" + b).decode())  # a PDF's header


def _with(block: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    return {**block, **extra}


media_source = st.one_of(
    st.builds(lambda d: {"type": "base64", "media_type": "image/png", "data": d}, b64),
    st.builds(lambda u: {"type": "url", "url": "https://example.org/" + u}, ident),
)
document_source = st.one_of(  # a document is a PDF or text (an image media type is refused)
    st.builds(lambda d: {"type": "base64", "media_type": "application/pdf", "data": d}, pdf_b64),
    st.builds(lambda u: {"type": "url", "url": "https://example.org/" + u}, ident),
)
nested = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, text),
    st.builds(lambda s: {"type": "image", "source": s}, media_source),
)
block = st.one_of(
    st.builds(lambda t, e: _with({"type": "text", "text": t}, e), text, text_extra),
    st.builds(lambda t, s: {"type": "thinking", "thinking": t, "signature": s}, text, b64),
    st.builds(lambda d: {"type": "redacted_thinking", "data": d}, b64),
    st.builds(
        lambda i, n, inp: {"type": "tool_use", "id": "toolu_" + i, "name": n, "input": inp},
        ident,
        ident,
        st.dictionaries(ident, json_value, max_size=4),
    ),
    st.builds(
        lambda i, c, err: {"type": "tool_result", "tool_use_id": "toolu_" + i, "content": c, "is_error": err},
        ident,
        st.one_of(text, st.lists(nested, max_size=3)),
        st.booleans(),
    ),
    st.builds(lambda s, e: _with({"type": "image", "source": s}, e), media_source, extra_fields),
    st.builds(lambda s: {"type": "document", "source": s}, document_source),
)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(block, min_size=1, max_size=5))
def test_blocks_round_trip_exactly_through_the_store(blocks: list[dict[str, Any]]) -> None:
    with ContextManager.open(store=MemoryStore()) as cm:
        if all(b["type"] == "text" and not b["text"].strip() for b in blocks):  # nothing to send
            with pytest.raises(MalformedContentError, match="non-empty text"):
                cm.add_message("user", blocks)
            return
        mid = cm.add_message("user", blocks)
        stored = cm.get_message(mid)
        # base64 media comes back as blob references; resolved, it is exactly what was written
        assert cm.resolve_media(stored) == blocks


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(block, min_size=1, max_size=4))
def test_media_blob_round_trip_and_dedup(blocks: list[dict[str, Any]]) -> None:
    stored: dict[str, bytes] = {}

    def put(data: bytes) -> str:
        import hashlib

        key = hashlib.sha256(data).hexdigest()
        stored[key] = data
        return key

    ext = externalize_media(validate_content(blocks), put)
    assert "base64" not in str([b.get("source", {}).get("type") for b in ext if isinstance(b.get("source"), dict)])
    assert resolve_media(ext, stored.__getitem__) == blocks


def test_same_image_twice_is_one_blob() -> None:
    store = MemoryStore()
    img = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "aGVsbG8="}}
    with ContextManager.open(store=store) as cm:
        cm.add_message("user", [img])
        cm.add_message("user", [img, {"type": "text", "text": "again"}])
    assert len(store._blobs) == 1
    assert store.get_blob(next(iter(store._blobs))) == b"hello"


def test_signed_thinking_kept_byte_for_byte() -> None:
    thinking = {"type": "thinking", "thinking": "Let me check  the\u00a0file…", "signature": "EqQBCkYIBxgCKkA+/=="}
    with ContextManager.open(store=MemoryStore()) as cm:
        mid = cm.add_message("Claude", [thinking, {"type": "text", "text": "done"}])
        assert cm.get_message(mid).content_dicts()[0] == thinking
        assert list(cm.get_message(mid).content_dicts()[0]) == list(thinking)  # key order too


REFUSED: list[tuple[Any, int | None, str, str]] = [
    # (content, block index, path fragment, words in the reason)
    ([], None, "", "at least one"),
    ({"type": "text", "text": "x"}, None, "", "string or a list"),
    ([{"type": "text"}], 0, "text", "text block"),
    ([{"type": "text", "text": 3}], 0, "text", "string"),
    ([{"type": "bogus", "text": "x"}], 0, "type", "unknown block type"),
    (["just a string in a list"], 0, "", "must be an object"),
    ([{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "t", "name": "n", "input": [1]}], 1, "input", "dict"),
    ([{"type": "tool_use", "id": "", "name": "n", "input": {}}], 0, "id", "at least 1"),
    ([{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text"}]}], 0, "content.0", "text"),
    ([{"type": "tool_result", "tool_use_id": "t", "content": "x", "is_error": "yes"}], 0, "is_error", "bool"),
    (
        [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "!!"}}],
        0,
        "source.data",
        "base64",
    ),
    ([{"type": "image", "source": {"type": "ftp", "url": "x"}}], 0, "source", "tag"),
    ([{"type": "thinking", "thinking": None}], 0, "thinking", "string"),
    ([{"type": "tool_use", "id": "t", "name": "n", "input": {"when": object()}}], 0, "", "JSON"),
    ([{"type": "tool_use", "id": "t", "name": "n", "input": {"x": float("nan")}}], 0, "", "JSON"),
    ([{"type": "text", "text": "lone \udc00 surrogate"}], 0, "", "surrogates"),
]


@pytest.mark.parametrize(("content", "block_index", "path", "words"), REFUSED)
def test_refused_shapes_name_their_place_and_write_nothing(
    content: Any, block_index: int | None, path: str, words: str
) -> None:
    store = MemoryStore()
    with ContextManager.open(store=store) as cm:
        cm.add_message("user", "before")
        head = store.head_seq()
        with pytest.raises(MalformedContentError) as info:
            cm.add_messages([{"participant": "user", "content": "fine"}, {"participant": "user", "content": content}])
        err = info.value
        assert err.message_index == 1
        assert err.block_index == block_index
        assert path in err.path
        assert words.lower() in str(err).lower()
        assert "message 1" in str(err)
        assert store.head_seq() == head
        assert cm.message_count() == 1


@pytest.mark.parametrize(
    ("kwargs", "path", "words"),
    [
        ({"participant": ""}, "participant", "participant"),
        ({"metadata": {"x": object()}}, "metadata", "JSON"),
        ({"metadata": ["not", "a", "dict"]}, "metadata", "object"),
        ({"timestamp": "not a date"}, "timestamp", "ISO-8601"),
    ],
)
def test_refused_message_fields(kwargs: dict[str, Any], path: str, words: str) -> None:
    store = MemoryStore()
    with ContextManager.open(store=store) as cm:
        args: dict[str, Any] = {"participant": "user", "content": "x"} | kwargs
        with pytest.raises(MalformedContentError) as info:
            cm.add_message(args.pop("participant"), args.pop("content"), **args)
        assert info.value.path == path
        assert words in str(info.value)
        assert store.head_seq() == 0


def test_parse_content_string_is_one_text_block() -> None:
    (only,) = parse_content("hello")
    assert only.type == "text" and only.text == "hello"
