"""Provider blocks: Anthropic server tools, the MCP connector, compaction, search results,
container uploads and citations are accepted, stored byte for byte, refused with their place when
malformed, and priced by their content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_journal import ContextManager, MalformedContentError, MemoryStore
from context_journal.content import parse_content, validate_content
from context_journal.tokens import EstimatingCounter
from tests.provider_shapes import (
    ASSISTANT_PAIRS,
    assistant_turn,
    code_execution_pair,
    compaction_block,
    container_upload_block,
    encrypted_code_pair,
    mcp_pair,
    search_result_block,
    user_turn,
    web_fetch_pair,
    web_search_pair,
)


def _dump(value: Any) -> str:
    """Canonical JSON (the store keeps every field and value; key order is the model's)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_every_provider_block_round_trips_byte_for_byte(kind: str, tmp_path: Path) -> None:
    def opened() -> ContextManager:
        return ContextManager.open(str(tmp_path / "j.db")) if kind == "sqlite" else ContextManager.open(store=memory)

    memory = MemoryStore()
    assistant = [*assistant_turn(), {"type": "compaction", "content": None, "encrypted_content": "ZW5j", "x_new": [1]}]
    nested = [{"type": "tool_result", "tool_use_id": "t", "content": [search_result_block()]}]
    with opened() as cm:
        u = cm.add_message("user", user_turn())
        a = cm.add_message("Claude", assistant)
        r = cm.add_message("user", nested)
    with opened() as cm:  # reopened: read back from the store, not a cache
        assert _dump(cm.get_message(u).content_dicts()) == _dump(user_turn())
        assert _dump(cm.get_message(a).content_dicts()) == _dump(assistant)
        assert _dump(cm.get_message(r).content_dicts()) == _dump(nested)


def test_unknown_provider_fields_are_kept() -> None:
    blocks = web_search_pair()
    blocks[0] = {**blocks[0], "caller": {"type": "direct"}, "cache_control": {"type": "ephemeral"}}
    blocks[1]["content"][0]["x_future"] = {"a": 1}
    assert validate_content(blocks) == blocks
    assert [b.model_dump(mode="json", exclude_unset=True) for b in parse_content(blocks)] == blocks


@pytest.mark.parametrize("make", ASSISTANT_PAIRS, ids=lambda f: f.__name__)
def test_each_pair_is_accepted_and_parsed_as_its_model(make: Any) -> None:
    pair = make()
    parsed = parse_content(pair)
    assert type(parsed[0]).__name__ in ("ServerToolUseBlock", "MCPToolUseBlock")
    assert validate_content(pair) == pair


BAD: list[tuple[list[dict[str, Any]], int, str, str]] = [
    (web_search_pair()[1:], 0, "tool_use_id", "not earlier in the same message"),
    ([*mcp_pair()[1:], *mcp_pair()[:1]], 0, "tool_use_id", "not earlier"),
    ([web_search_pair()[0], {**mcp_pair()[1], "tool_use_id": web_search_pair()[0]["id"]}], 1, "tool_use_id", ""),
    ([*code_execution_pair(), code_execution_pair()[1]], 2, "tool_use_id", "answered twice"),
    ([web_search_pair()[0], web_search_pair()[0]], 1, "id", "used twice"),
    ([{**web_search_pair()[0], "input": "q"}], 0, "input", "server_tool_use"),
    ([{**web_search_pair()[0], "id": ""}], 0, "id", ""),
    ([{"type": "mcp_tool_use", "id": "m", "name": "echo", "input": {}}], 0, "server_name", "mcp_tool_use"),
    (
        [web_search_pair()[0], {**web_search_pair()[1], "content": [{"type": "web_search_result", "url": "u"}]}],
        1,
        "content.0.title",
        "web_search_tool_result",
    ),
    (
        [
            code_execution_pair()[0],
            {**code_execution_pair()[1], "content": {"type": "code_execution_result", "stdout": "x"}},
        ],
        1,
        "content.stderr",
        "code_execution_tool_result",
    ),
    ([{"type": "compaction", "content": ""}], 0, "content", "compaction"),
    ([{"type": "compaction", "content": 5}], 0, "content", "compaction"),
    ([{"type": "container_upload"}], 0, "file_id", "container_upload"),
    ([{**search_result_block(), "content": "text"}], 0, "content", "search_result"),
    ([{**container_upload_block(), "audience": ["ann"]}], 0, "audience", "container_upload"),
    ([{**compaction_block(), "audience": ["ann"]}], 0, "audience", "compaction"),
    ([{**web_search_pair()[0], "audience": ["ann"]}], 0, "audience", "server_tool_use"),
    (
        [{**search_result_block(), "content": [{"type": "text", "text": "x", "audience": ["ann"]}]}],
        0,
        "content.0.audience",
        "search_result",
    ),
    (
        [mcp_pair()[0], {**mcp_pair()[1], "content": [{"type": "text", "text": "x", "audience": ["a"]}]}],
        1,
        "content.0.audience",
        "mcp_tool_result",
    ),
    (
        [{"type": "tool_result", "tool_use_id": "t", "content": [{**search_result_block(), "audience": ["a"]}]}],
        0,
        "content.0.audience",
        "tool_result",
    ),
]


@pytest.mark.parametrize(("blocks", "index", "path", "words"), BAD)
def test_malformed_provider_blocks_name_their_block_and_write_nothing(
    blocks: list[dict[str, Any]], index: int, path: str, words: str
) -> None:
    with ContextManager.open("memory:") as cm:
        with pytest.raises(MalformedContentError) as err:
            cm.add_message("Claude", blocks)
        assert err.value.block_index == index
        assert err.value.path == path
        assert words in str(err.value)
        assert cm.message_count() == 0


def test_audience_still_allowed_on_cited_text() -> None:
    text = {**web_search_pair()[2], "audience": ["ann"]}
    assert validate_content([text]) == [text]


def test_a_paused_call_without_its_result_is_accepted() -> None:
    # A ``pause_turn`` response ends with a server call whose result comes in the continuation.
    assert validate_content(web_search_pair()[:1]) == web_search_pair()[:1]


def test_results_are_priced_by_their_content_not_a_flat_guess() -> None:
    c = EstimatingCounter()
    small, big = code_execution_pair(size=10)[1], code_execution_pair(size=1000)[1]
    assert c.count_block(big) > 50 * c.count_block(small) / 2
    assert c.count_block(big) >= c.count_block({"type": "text", "text": big["content"]["stdout"]})
    fetch = web_fetch_pair(size=2000)[1]
    page = fetch["content"]["content"]["source"]["data"]
    assert c.count_block(fetch) >= c.count_block({"type": "text", "text": page})
    hits = web_search_pair(hits=5, size=4000)[1]
    encrypted = sum(len(h["encrypted_content"]) for h in hits["content"])
    assert c.count_block(hits) >= encrypted // 4
    enc = encrypted_code_pair()[1]
    assert c.count_block(enc) >= len(enc["content"]["encrypted_stdout"]) // 4
    mcp = mcp_pair(size=500)[1]
    assert c.count_block(mcp) >= c.count_block(mcp["content"][0])
    sr = search_result_block(size=300)
    assert c.count_block(sr) >= c.count_block(sr["content"][0])
    comp = {**compaction_block(), "signature": "c2ln" * 100}
    assert c.count_block(comp) >= c.count_block({"type": "text", "text": comp["content"]}) + 100
    call = web_search_pair()[0]
    assert c.count_block(call) >= c.count_block(
        {"type": "tool_use", "id": call["id"], "name": "web_search", "input": call["input"]}
    )
    cited, plain = web_search_pair()[2], {"type": "text", "text": web_search_pair()[2]["text"]}
    assert c.count_block(cited) > c.count_block(plain)  # the location fields are sent back too
    assert c.count_block({"type": "text", "text": "x", "citations": [5, "odd"]}) >= 1  # old journals: any JSON
