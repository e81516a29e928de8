"""A review of provider blocks: a server tool's result must be of the type its tool returns. A ``web_search``
call is answered by a ``web_search_tool_result``, never by a ``web_fetch_tool_result`` or a code
execution result (Anthropic's server tool guides; the names of the ``anthropic`` SDK's
``BetaServerToolUseBlockParam``). A write refuses a mismatched pair naming the ids, the validator flags
one, and a compile of a journal written before the check shows such a pair as text; a tool name the
library does not know stays permissive."""

from __future__ import annotations

from typing import Any

import pytest

from context_journal import ContextManager, MalformedContentError
from context_journal import content as content_module
from context_journal.content import SERVER_TOOL_RESULTS, server_result_mismatch, validate_content
from context_journal.validate import validate_messages
from tests.provider_shapes import (
    bash_pair,
    code_execution_pair,
    text_editor_pair,
    web_fetch_pair,
    web_search_error,
    web_search_pair,
)

Block = dict[str, Any]


def _call(name: str, cid: str = "srvtoolu_01X") -> Block:
    return {"type": "server_tool_use", "id": cid, "name": name, "input": {"query": "q"}}


def _result_of(pair: list[Block], cid: str = "srvtoolu_01X") -> Block:
    return {**pair[1], "tool_use_id": cid}


# (call's tool name, a result block of another tool's type)
MISMATCHED = [
    ("web_search", _result_of(web_fetch_pair())),
    ("web_search", _result_of(code_execution_pair())),
    ("web_fetch", _result_of(web_search_pair())),
    ("web_fetch", _result_of(web_search_error())),
    ("code_execution", _result_of(bash_pair())),
    ("bash_code_execution", _result_of(code_execution_pair())),
    ("bash_code_execution", _result_of(text_editor_pair())),
    ("text_editor_code_execution", _result_of(bash_pair())),
    ("tool_search_tool_regex", _result_of(web_search_pair())),
    (
        "tool_search_tool_bm25",
        {
            "type": "code_execution_tool_result",
            "tool_use_id": "srvtoolu_01X",
            **{"content": code_execution_pair()[1]["content"]},
        },
    ),
]


@pytest.mark.parametrize(("name", "result"), MISMATCHED, ids=lambda v: v if isinstance(v, str) else v["type"])
def test_a_result_of_another_tool_is_refused_naming_the_ids(name: str, result: Block) -> None:
    blocks = [{"type": "text", "text": "Looking."}, _call(name), result]
    with ContextManager.open("memory:") as cm:
        with pytest.raises(MalformedContentError) as err:
            cm.add_message("assistant", blocks)
        assert cm.message_count() == 0
    e = err.value
    assert (e.block_index, e.path) == (2, "tool_use_id")
    text = str(e)
    assert "'srvtoolu_01X'" in text and "(block 1)" in text
    assert f"a {name} call is answered by a {SERVER_TOOL_RESULTS[name]}, not a {result['type']}" in text


@pytest.mark.parametrize(
    "pair",
    [web_search_pair(), web_search_error(), web_fetch_pair(), code_execution_pair(), bash_pair(), text_editor_pair()],
    ids=lambda p: p[0]["name"] + ":" + p[1]["type"],
)
def test_each_tool_with_its_own_result_type_is_accepted(pair: list[Block]) -> None:
    assert validate_content(pair) == pair
    assert server_result_mismatch(pair[0], pair[1]["type"]) is None


@pytest.mark.parametrize("name", ["advisor", "some_future_tool"])
@pytest.mark.parametrize("make", [web_search_pair, web_fetch_pair, code_execution_pair, bash_pair])
def test_an_unknown_tool_name_may_take_any_server_result(name: str, make: Any) -> None:
    pair = make()
    blocks = [{**pair[0], "name": name}, pair[1]]
    assert validate_content(blocks) == blocks
    assert validate_messages([{"role": "user", "content": "q"}, {"role": "assistant", "content": blocks}]) == []


def test_the_pairing_checks_the_type_after_the_id() -> None:
    # An mcp result for a server_tool_use is still "no such call" (the block type is checked first).
    assert server_result_mismatch(_call("web_search"), "mcp_tool_result") == (
        "a mcp_tool_result answers a mcp_tool_use, not a server_tool_use"
    )
    # Only the first of two results is checked against the call: the second is "answered twice".
    blocks = [*web_search_pair()[:2], web_search_pair()[1]]
    with pytest.raises(MalformedContentError, match="answered twice"):
        validate_content(blocks)


@pytest.mark.parametrize(("name", "result"), MISMATCHED[:4], ids=lambda v: v if isinstance(v, str) else v["type"])
def test_the_validator_flags_a_mismatched_pair(name: str, result: Block) -> None:
    issues = validate_messages(
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": [_call(name), result]}]
    )
    assert [(i.index, i.block, i.code) for i in issues] == [
        (1, 1, "mismatched_server_result"),
        (1, 0, "unanswered_server_call"),
    ]


def test_a_mismatched_pair_written_before_the_check_compiles_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    anthropic = pytest.importorskip("anthropic")
    del anthropic
    import pydantic
    from anthropic.types.beta import BetaMessageParam

    call, result = _call("web_search"), _result_of(web_fetch_pair(size=3))
    good = web_search_pair(1)[:2]
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Find it.")
        monkeypatch.setattr(content_module, "check_server_pairs", lambda *a, **k: None)  # an older version's write
        cm.add_message("assistant", [call, result, *good, {"type": "text", "text": "Found."}])
        monkeypatch.undo()
        cm.add_message("user", "Thanks.")
        res = cm.compile(max_tokens=100_000)
        params = res.to_anthropic(cache=False)
    assert validate_messages(params["messages"]) == []
    sent = params["messages"][1]["content"]
    assert [b["type"] for b in sent] == ["text", "text", "server_tool_use", "web_search_tool_result", "text"]
    assert sent[0]["text"].startswith("[called web_search")
    assert "https://example.com/article" in sent[1]["text"]
    assert sent[2:4] == good  # the matching pair is still sent as blocks
    assert "provider_block_transcribed" in {r.kind for r in res.repairs}
    pydantic.TypeAdapter(list[BetaMessageParam]).validate_python(params["messages"])


# ---- the content of each result: its own tool's variants (the SDK's Beta*ToolResultBlockParam unions) ----


def _with_content(pair: list[Block], content: Any) -> list[Block]:
    return [pair[0], {**pair[1], "content": content}]


BASH_RESULT = {"type": "bash_code_execution_result", "stdout": "ok", "stderr": "", "return_code": 0, "content": []}
WRONG_CONTENT = [
    # (pair, content, path, words)
    (code_execution_pair, BASH_RESULT, "content.type", "code_execution_tool_result holds one of"),
    (bash_pair, {**BASH_RESULT, "type": "code_execution_result"}, "content.type", "holds one of"),
    (
        code_execution_pair,
        {"type": "web_search_tool_result_error", "error_code": "unavailable"},
        "content.type",
        "holds one of",
    ),
    (web_search_pair, {"type": "web_fetch_tool_result_error", "error_code": "unavailable"}, "content.type", "holds"),
    # refused by the block models already (their own words)
    (web_search_pair, [{"type": "web_fetch_result", "url": "u"}], "content.0.type", ""),
    (bash_pair, {"type": "bash_code_execution_tool_result_error"}, "content.error_code", "Field required"),
    (
        bash_pair,
        {**BASH_RESULT, "content": [{"type": "code_execution_output", "file_id": "f"}]},
        "content.content.0",
        "bash_code_execution_output",
    ),
    (
        text_editor_pair,
        {"type": "text_editor_code_execution_view_result", "content": 5, "file_type": "text"},
        "content.content",
        "needs 'content'",
    ),
    (
        text_editor_pair,
        {"type": "text_editor_code_execution_view_result", "content": "x", "file_type": "text", "num_lines": "3"},
        "content.num_lines",
        "must be int or null",
    ),
    (
        text_editor_pair,
        {"type": "text_editor_code_execution_create_result", "is_file_update": "no"},
        "content.is_file_update",
        "needs 'is_file_update'",
    ),
    (
        text_editor_pair,
        {"type": "text_editor_code_execution_str_replace_result", "lines": ["a", 2]},
        "content.lines",
        "lines are text",
    ),
]


@pytest.mark.parametrize(("pair", "content", "path", "words"), WRONG_CONTENT)
def test_a_result_holding_another_variant_is_refused_naming_the_field(
    pair: Any, content: Any, path: str, words: str
) -> None:
    with pytest.raises(MalformedContentError) as exc:
        validate_content(_with_content(pair(), content))
    assert (exc.value.block_index, exc.value.path) == (1, path)
    assert words in str(exc.value)


def test_open_sets_stay_open_and_other_fields_are_checked() -> None:
    # error codes and tool names grow with the provider's releases: any text is kept
    validate_content(_with_content(web_search_pair(), {"type": "web_search_tool_result_error", "error_code": "new"}))
    call, result = web_search_pair()[:2]
    validate_content([{**call, "caller": {"type": "direct"}}, {**result, "caller": None}])
    validate_content([{**call, "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_9"}}, result])
    search = {"type": "search_result", "source": "s", "title": "t", "content": [{"type": "text", "text": "x"}]}
    for block, path in (
        ({**call, "caller": "x"}, "caller"),
        ({**call, "caller": {"type": "code_execution_20250825"}}, "caller.tool_id"),
        ({"type": "text", "text": "t", "cache_control": {"type": "ephemeral", "ttl": 5}}, "cache_control.ttl"),
        ({"type": "text", "text": "t", "cache_control": {"type": "ephemeral", "ttl": "2h"}}, "cache_control.ttl"),
        ({"type": "text", "text": "t", "cache_control": {"type": "persistent"}}, "cache_control"),
        ({"type": "text", "text": "t", "cache_control": "yes"}, "cache_control"),
        (
            {**search, "content": [{"type": "text", "text": "a", "cache_control": "ephemeral"}]},
            "content.0.cache_control",
        ),
    ):
        with pytest.raises(MalformedContentError) as exc:
            validate_content([block, result] if block.get("type") == "server_tool_use" else [block])
        assert exc.value.path == path
    validate_content([{**search, "citations": {"enabled": True}}])
    for config in ("yes", None, {"enabled": "yes"}):  # the SDK's field is not nullable
        with pytest.raises(MalformedContentError) as exc:
            validate_content([{**search, "citations": config}])
        assert exc.value.path == "citations"
