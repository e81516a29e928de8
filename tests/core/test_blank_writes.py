"""A message with nothing to send is refused at write, whichever way it is written.

``add_message("user", "")`` and ``[]`` are refused; so is a block list made only of empty or
whitespace-only text blocks and unsigned thinking blocks with blank thinking (the compiler leaves blank text
out and never sends unsigned thinking, so such a message could never be sent and a compile holding only it
would raise ``EmptyContextError``). The same rule holds for ``add_messages`` (at the message's index) and
``edit_message``; nothing is written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.content import TextBlock
from context_journal.errors import MalformedContentError
from tests.hypothesis_budget import examples

FAST = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])

blank_text = st.text(alphabet=" \t\n\r\u00a0\u2003\u3000", max_size=6)
blank_block = st.one_of(
    blank_text.map(lambda t: {"type": "text", "text": t}),
    blank_text.map(lambda t: TextBlock(text=t)),
    # Unsigned thinking is never sent (it cannot be replayed): blank, it says nothing either.
    blank_text.map(lambda t: {"type": "thinking", "thinking": t}),
)
blank_blocks = st.lists(blank_block, min_size=1, max_size=4)


def _ids(result: Any) -> list[str]:
    return [s.id for m in result.messages for s in m.sources if s.kind == "message"]


def test_only_empty_text_blocks_are_refused_like_an_empty_string() -> None:
    cm = ContextManager.open("memory:")
    with pytest.raises(MalformedContentError, match="non-empty text") as caught:
        cm.add_message("user", [{"type": "text", "text": ""}])
    assert (caught.value.message_index, caught.value.block_index, caught.value.path) == (0, 0, "text")
    assert "message 0, block 0 (text)" in str(caught.value)
    assert cm.message_count() == 0


def test_blank_unsigned_thinking_is_refused_and_signed_thinking_kept() -> None:
    """A review stored an assistant message of one empty thinking block and compiled it to a lone "[start of
    the conversation]". A signed one with empty thinking (what a provider returns when thinking is not
    displayed) carries its signature and is kept, as is a blank thinking block beside text."""
    cm = ContextManager.open("memory:")
    with pytest.raises(MalformedContentError, match="non-empty text") as caught:
        cm.add_message("assistant", [{"type": "thinking", "thinking": " "}, {"type": "text", "text": ""}])
    assert (caught.value.message_index, caught.value.block_index, caught.value.path) == (0, 0, "thinking")
    assert cm.message_count() == 0
    cm.add_message("user", "why?")
    signed = {"type": "thinking", "thinking": "", "signature": "c2ln"}
    cm.add_message("assistant", [signed, {"type": "text", "text": "because"}])
    cm.add_message("assistant", [{"type": "thinking", "thinking": ""}, {"type": "text", "text": "and so"}])
    cm.add_message("assistant", [signed])
    assert cm.message_count() == 4
    assert cm.get_all_messages()[1].content_dicts()[0] == signed


@FAST
@given(blocks=blank_blocks, before=st.integers(0, 3))
def test_blank_block_lists_are_refused_by_every_write(blocks: list[Any], before: int) -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "keep me", id="m0")
    with pytest.raises(MalformedContentError, match="non-empty text") as one:
        cm.add_message("user", blocks)
    assert one.value.message_index == 0
    batch: list[dict[str, Any]] = [{"participant": "user", "content": f"fine {i}"} for i in range(before)]
    batch.append({"participant": "Claude", "content": blocks})
    with pytest.raises(MalformedContentError, match="non-empty text") as many:
        cm.add_messages(batch)
    assert many.value.message_index == before
    with pytest.raises(MalformedContentError, match="non-empty text"):
        cm.edit_message("m0", blocks)
    assert [m.id for m in cm.get_all_messages()] == ["m0"]
    assert cm.get_message("m0").content_dicts() == [{"type": "text", "text": "keep me"}]
    assert _ids(cm.compile(1_000)) == ["m0"]


@pytest.mark.parametrize("content", ["", "  \n"])
def test_edit_to_a_blank_string_is_refused(content: str) -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hello", id="m0")
    with pytest.raises(MalformedContentError, match="non-empty text"):
        cm.edit_message("m0", content)
    assert cm.get_message("m0").content_dicts() == [{"type": "text", "text": "hello"}]


@FAST
@given(blanks=blank_blocks, keep=st.sampled_from(["text", "tool_use"]), at=st.integers(0, 4))
def test_a_blank_block_beside_real_content_is_accepted_and_compiles(blanks: list[Any], keep: str, at: int) -> None:
    real: dict[str, Any] = (
        {"type": "text", "text": "real words"}
        if keep == "text"
        else {"type": "tool_use", "id": "t1", "name": "ls", "input": {}}
    )
    blocks = list(blanks)
    blocks.insert(min(at, len(blocks)), real)
    cm = ContextManager.open("memory:")
    cm.add_message("user", "start")
    cm.add_message("Claude", blocks, id="mixed")
    if keep == "tool_use":
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}])
    result = cm.compile(1_000)
    assert "mixed" in _ids(result)


def test_import_leaves_a_blank_message_out_and_reports_it_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from context_journal.cli import app

    source = tmp_path / "chat.json"
    source.write_text(
        json.dumps(
            [
                {"role": "user", "content": [{"type": "text", "text": "hello"}]},
                {"role": "assistant", "content": [{"type": "text", "text": " "}, {"type": "text", "text": ""}]},
                {"role": "user", "content": "and again"},
            ]
        )
    )
    db = str(tmp_path / "s.db")
    out = CliRunner().invoke(app, ["import", str(source), "--store", db, "--format", "anthropic"])
    assert out.exit_code == 0, out.output
    assert "imported 2 messages" in out.output
    assert "empty message" in out.output


@pytest.mark.parametrize(
    "text", ["\u200b", "\u200d\u200c", "\ufeff", " \u180e \n", "\u2060\u200b ", "\x00", "\x00\x07\x1b", " \x7f\u200b"]
)
def test_invisible_only_text_is_refused_like_blank(text: str) -> None:
    """A review found: text made only of zero-width and other format characters (Unicode Cf) shows
    nothing, like whitespace; it is refused as a string and as the only text block, nothing written; so is
    text of control characters only (a second review: ``add_message("user", "\x00")`` was stored). Text
    that also holds a visible character (an emoji joined with ZWJ, a word after a BOM) is kept."""
    cm = ContextManager.open("memory:")
    for content in (text, [{"type": "text", "text": text}]):
        with pytest.raises(MalformedContentError):
            cm.add_message("user", content)
    assert cm.store.head_seq() == 0
    for kept in ("\ufeffhello", "👨\u200d👩\u200d👧", "a\u200bb"):
        cm.add_message("user", kept)
    assert [m.content_dicts()[0]["text"] for m in cm.get_all_messages()] == [
        "\ufeffhello",
        "👨\u200d👩\u200d👧",
        "a\u200bb",
    ]
