"""Provider blocks through the compile and the exporters: a server tool call and its result
are sent together in one assistant message or not at all, encrypted content is never cut, compaction
is sent as stored, and both exports stay valid (the Anthropic one against the SDK's beta request types).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from context_journal.compile import CompileOptions, CompileResult, OverBudgetError
from context_journal.content import SERVER_CALL_TYPES, SERVER_RESULT_TYPES
from context_journal.manager import ContextManager
from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy
from context_journal.tokens import EstimatingCounter
from context_journal.validate import validate_messages
from tests.compile.compile_helpers import assert_valid, words
from tests.hypothesis_budget import examples
from tests.provider_shapes import (
    ASSISTANT_PAIRS,
    assistant_turn,
    bash_pair,
    code_execution_pair,
    compaction_block,
    container_upload_block,
    encrypted_code_pair,
    mcp_pair,
    search_result_block,
    text_editor_pair,
    user_turn,
    web_fetch_pair,
    web_search_pair,
)

anthropic = pytest.importorskip("anthropic")


def _key(b: dict[str, Any]) -> str:
    return json.dumps(b, sort_keys=True, ensure_ascii=False)


def _server_pairs(blocks: Sequence[dict[str, Any]]) -> dict[str, tuple[str, str | None]]:
    """``{call id: (call json, result json or None)}`` of one message's provider-side calls."""
    out: dict[str, tuple[str, str | None]] = {}
    for b in blocks:
        if b.get("type") in SERVER_CALL_TYPES:
            out[b["id"]] = (_key(b), None)
        elif b.get("type") in SERVER_RESULT_TYPES:
            call = out.get(b["tool_use_id"])
            assert call is not None, f"result {b['tool_use_id']} sent without its call before it"
            assert call[1] is None, "a call answered twice"
            out[b["tool_use_id"]] = (call[0], _key(b))
    return out


def _check_pairs(result: CompileResult, stored: dict[str, tuple[str, str | None]]) -> None:
    """Every server pair sent is whole, in one assistant message, and either exactly as stored or (a
    readable result) excerpted; encrypted content is sent byte for byte or not at all."""
    for k, m in enumerate(result.messages):
        pairs = _server_pairs(m.content)
        if pairs:
            assert m.role == "assistant"
        for cid, (call, res) in pairs.items():
            if res is None and k == len(result.messages) - 1:
                continue  # a paused newest turn (pause_turn), sent as is for the model to continue
            assert res is not None, f"server call {cid} sent without its result"
            assert call == stored[cid][0]
            if res != stored[cid][1]:
                assert "encrypted" not in res, "an encrypted result was changed"
                assert "cut here" in res
        for b in m.content:
            if b.get("type") == "compaction":
                assert m.role == "assistant"


def _stored_pairs(cm: ContextManager) -> dict[str, tuple[str, str | None]]:
    out: dict[str, tuple[str, str | None]] = {}
    for msg in cm.get_messages():
        out.update(_server_pairs(msg.content_dicts()))
    return out


# --- fixed cases --------------------------------------------------------------------------------


def _manager() -> ContextManager:
    cm = ContextManager.open("memory:")
    cm.add_messages(
        [
            {"participant": "user", "content": user_turn()},
            {"participant": "Claude", "content": assistant_turn()},
            {"participant": "user", "content": "Thanks. Now run the tests."},
            {
                "participant": "Claude",
                "content": [
                    {"type": "text", "text": "Running them."},
                    {"type": "tool_use", "id": "toolu_01A", "name": "bash", "input": {"cmd": "pytest"}},
                ],
            },
            {
                "participant": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": [search_result_block()]}],
            },
            {"participant": "Claude", "content": [*web_search_pair(7), {"type": "text", "text": "All green."}]},
        ]
    )
    return cm


def test_unbounded_compile_sends_every_provider_block_as_stored() -> None:
    with _manager() as cm:
        result = cm.compile(1_000_000)
        assert_valid(result, EstimatingCounter())
        params = result.to_anthropic(assistant="Claude", cache=False)
        sent = [b for m in params["messages"] for b in m["content"]]
        stored = [b for msg in cm.get_messages() for b in msg.content_dicts()]
        assert [_key(b) for b in sent if b["type"] != "text"] == [_key(b) for b in stored if b["type"] != "text"]
        assert _key(compaction_block()) in {_key(b) for b in sent}
        cited = [b for b in sent if b["type"] == "text" and b.get("citations")]
        assert cited and cited[0]["citations"] == web_search_pair()[2]["citations"]


def test_anthropic_export_conforms_to_the_sdk_beta_request_types() -> None:
    from anthropic.types.beta import BetaMessageParam

    from tests.compile.test_compile_exporters import conforms

    with _manager() as cm:
        params = cm.compile(1_000_000).to_anthropic(assistant="Claude")
        for i, message in enumerate(params["messages"]):
            assert conforms(message, BetaMessageParam, f"messages[{i}]") == []
        # The stable (non-beta) types hold every provider block but the MCP connector's and compaction.
        from anthropic.types import MessageParam

        for i, message in enumerate(params["messages"]):
            kinds = {b["type"] for b in message["content"]}
            if not kinds & {"mcp_tool_use", "mcp_tool_result", "compaction"}:
                assert conforms(message, MessageParam, f"messages[{i}]") == []


def test_the_sdk_types_check_is_strict_about_provider_blocks() -> None:
    from anthropic.types.beta import BetaMessageParam

    from tests.compile.test_compile_exporters import conforms

    bad = {**web_search_pair()[1], "content": [{"type": "web_search_result", "url": "u"}]}
    assert conforms({"role": "assistant", "content": [web_search_pair()[0], bad]}, BetaMessageParam)
    assert conforms({"role": "user", "content": [{"type": "container_upload"}]}, BetaMessageParam)


def test_openai_export_reads_provider_blocks_as_text_and_keeps_tool_pairing() -> None:
    with _manager() as cm:
        messages = cm.compile(1_000_000).to_openai(assistant="Claude")
    text = json.dumps(messages, ensure_ascii=False)
    assert "server_tool_use" not in text and "encrypted_content" not in text
    assert "[called web_search" in text and "Claude Shannon - Wikipedia 0" in text
    assert "Mean: 3.0" in text  # code output readable
    assert "example-mcp/echo" in text and "Hello from the MCP server" in text
    assert "Summary of the conversation so far" in text  # compaction summary
    assert "uploaded to the code container" in text and "Product Configuration Guide" in text
    tool = [m for m in messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool] == ["toolu_01A"]
    assert "Product Configuration Guide" in tool[0]["content"]  # a search result inside a tool result


def test_openai_export_conforms_to_the_sdk_request_types() -> None:
    openai = pytest.importorskip("openai")
    from openai.types.chat import ChatCompletionMessageParam

    from tests.compile.test_compile_exporters import conforms

    assert openai
    with _manager() as cm:
        for i, message in enumerate(cm.compile(1_000_000).to_openai()):
            assert conforms(message, ChatCompletionMessageParam, f"messages[{i}]") == []


def test_server_blocks_in_another_participants_turn_are_transcribed_as_a_whole() -> None:
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Search for me.")
        cm.add_message("ann", [{"type": "text", "text": "ann searched:"}, *web_search_pair(), compaction_block()])
        cm.add_message("Claude", [{"type": "text", "text": "Noted."}, container_upload_block()])
        result = cm.compile(100_000)
        assert_valid(result)
        kinds = [b["type"] for m in result.messages for b in m.content]
        assert "server_tool_use" not in kinds and "web_search_tool_result" not in kinds
        assert "compaction" not in kinds and "container_upload" not in kinds
        assert {r.kind for r in result.repairs} >= {"provider_block_transcribed"}
        text = json.dumps(result.to_anthropic())
        assert "claude shannon 0" in text and "Claude Shannon - Wikipedia 1" in text


def test_a_paused_call_is_sent_as_is_while_newest_and_as_text_once_abandoned() -> None:
    paused = [{"type": "text", "text": "Searching."}, web_search_pair()[0]]
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Search.")
        cm.add_message("Claude", paused)
        result = cm.compile(100_000)
        assert_valid(result)
        assert result.messages[-1].content == tuple(paused)  # the model continues it (pause_turn)
        cm.add_message("user", "Go on.")  # not its continuation: the paused call is abandoned
        result = cm.compile(100_000)
        assert_valid(result)
        line = {"type": "text", "text": '[called web_search {"query":"claude shannon 0"}]'}
        assert result.messages[1].content == (paused[0], line)


def test_validator_names_split_and_misplaced_provider_blocks() -> None:
    pair = web_search_pair()
    cases: list[tuple[list[dict[str, Any]], str]] = [
        (
            [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": pair[:1]},
                {"role": "user", "content": "go on"},
            ],
            "unanswered_server_call",
        ),
        (
            [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": pair[:1]},
                {"role": "user", "content": "go on"},
                {"role": "assistant", "content": pair[1:2]},
            ],
            "orphan_server_result",
        ),
        ([{"role": "user", "content": pair[:2]}], "provider_block_not_assistant"),
        ([{"role": "user", "content": [compaction_block()]}], "provider_block_not_assistant"),
        ([{"role": "user", "content": "q"}, {"role": "assistant", "content": [search_result_block()]}], "not_user"),
        (
            [{"role": "user", "content": "q"}, {"role": "assistant", "content": [*pair[:2], pair[0]]}],
            "duplicate_tool_use",
        ),
    ]
    for messages, code in cases:
        issues = validate_messages(messages)
        assert any(code in i.code for i in issues), (code, issues)
    ok = [{"role": "user", "content": user_turn()}, {"role": "assistant", "content": assistant_turn()}]
    assert validate_messages(ok) == []


def test_excerpts_cut_readable_results_and_never_encrypted_ones() -> None:
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Do it all.")
        big = [
            *code_execution_pair(size=3000),
            *web_search_pair(hits=6, size=3000),
            *encrypted_code_pair(),
            *mcp_pair(size=2000),
            *web_fetch_pair(size=3000),
            *bash_pair(size=400),
            *text_editor_pair(size=500),
            compaction_block(),
        ]
        cm.add_message("Claude", big)
        stored = _stored_pairs(cm)
        result = cm.compile(4000)
        assert_valid(result, EstimatingCounter())
        _check_pairs(result, stored)
        sent = [b for m in result.messages for b in m.content]
        assert _key(compaction_block()) in {_key(b) for b in sent}  # never cut
        kinds = [b["type"] for b in sent]
        assert "web_search_tool_result" not in kinds  # too large whole: replaced by its transcript
        assert any("claude shannon" in str(b.get("text", "")) for b in sent)  # the query, read as text
        assert any(r.kind == "excerpted" for r in result.repairs)


# --- property: random histories mixing provider blocks and tool loops ---------------------------


@st.composite
def histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    n_turns = draw(st.integers(1, 7))
    call = 0
    for t in range(n_turns):
        if draw(st.booleans()):
            msgs.append({"participant": "user", "content": user_turn()})
        else:
            msgs.append({"participant": "user", "content": f"question {t}: " + words(draw(st.integers(3, 80)))})
        kind = draw(st.sampled_from(["server", "loop", "both", "text", "foreign", "paused", "interleaved"]))
        if kind in ("server", "both"):
            blocks: list[dict[str, Any]] = []
            if draw(st.booleans()):
                blocks.append(compaction_block())
            for make in draw(st.lists(st.sampled_from(ASSISTANT_PAIRS), min_size=1, max_size=4)):
                call += 1
                pair = make(call)
                if make in (code_execution_pair, bash_pair, text_editor_pair, mcp_pair, web_fetch_pair):
                    pair = make(call, size=draw(st.sampled_from([5, 50, 800])))
                blocks += pair
            blocks.append({"type": "text", "text": "Here is what I found. " + words(draw(st.integers(1, 30)))})
            msgs.append({"participant": "Claude", "content": blocks})
        if kind in ("loop", "both"):
            for _ in range(draw(st.integers(1, 3))):
                call += 1
                tid = f"toolu_{call:04d}"
                msgs.append(
                    {
                        "participant": "Claude",
                        "content": [{"type": "tool_use", "id": tid, "name": "bash", "input": {"cmd": "ls"}}],
                    }
                )
                content: Any = words(draw(st.integers(1, 400)))
                if draw(st.booleans()):
                    content = [search_result_block(size=draw(st.integers(1, 60)))]
                msgs.append(
                    {
                        "participant": "tool",
                        "content": [{"type": "tool_result", "tool_use_id": tid, "content": content}],
                    }
                )
            msgs.append({"participant": "Claude", "content": "Done: " + words(draw(st.integers(1, 20)))})
        if kind == "text":
            msgs.append({"participant": "Claude", "content": words(draw(st.integers(1, 60)))})
        if kind == "foreign":
            call += 1
            msgs.append({"participant": "ann", "content": [*web_search_pair(call), compaction_block()]})
        if kind == "interleaved":  # a tool result written between a server call and its result
            call += 1
            tid = f"toolu_{call:04d}"
            use = {"type": "tool_use", "id": tid, "name": "ls", "input": {}}
            msgs.append({"participant": "Claude", "content": [use]})
            pair = web_search_pair(call)
            res = {"type": "tool_result", "tool_use_id": tid, "content": "a.txt"}
            msgs.append({"participant": "Claude", "content": [pair[0], res, *pair[1:]]})
        if kind == "paused":  # a pause_turn response: only its continuation may follow it, so newest here
            call += 1
            if t == n_turns - 1:
                msgs.append({"participant": "Claude", "content": [*web_fetch_pair(call)[:1]]})
            else:
                msgs.append({"participant": "Claude", "content": web_fetch_pair(call)})
    return msgs


@pytest.mark.parametrize("strategy", ["passthrough", "windowed"])
@settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(
    msgs=histories(),
    max_tokens=st.one_of(st.integers(40, 1500), st.integers(1500, 60_000)),
    cap=st.sampled_from([None, None, 200]),
)
def test_histories_with_provider_blocks_compile_valid_within_budget(
    strategy: str, msgs: list[dict[str, Any]], max_tokens: int, cap: int | None
) -> None:
    chosen = WindowedPassthroughStrategy(0.5) if strategy == "windowed" else PassthroughStrategy()
    with ContextManager.open("memory:", strategy=chosen) as cm:
        cm.add_messages(msgs)
        stored = _stored_pairs(cm)
        options = CompileOptions(max_tool_result_tokens=cap)
        try:
            result = cm.compile(max_tokens, options=options)
        except OverBudgetError as err:
            event("over budget")
            assert err.actual > err.budget
            return
        assert_valid(result, EstimatingCounter())
        assert result.tokens <= max_tokens
        _check_pairs(result, stored)
        event(f"server pairs sent: {sum(len(_server_pairs(m.content)) for m in result.messages) > 0}")
        again = cm.compile(max_tokens, options=options)
        assert json.dumps(again.to_anthropic()) == json.dumps(cm.compile(max_tokens, options=options).to_anthropic())


def test_a_search_result_in_a_tool_result_is_excerpted_under_the_tool_cap() -> None:
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Look it up.")
        use = {"type": "tool_use", "id": "toolu_S", "name": "kb_search", "input": {"q": "configure"}}
        cm.add_message("Claude", [use])
        big = search_result_block(size=400)
        cm.add_message("tool", [{"type": "tool_result", "tool_use_id": "toolu_S", "content": [big]}])
        result = cm.compile(100_000, options=CompileOptions(max_tool_result_tokens=100))
        assert_valid(result, EstimatingCounter())
        (answer,) = [b for m in result.messages for b in m.content if b["type"] == "tool_result"]
        (nested,) = answer["content"]
        assert nested["type"] == "search_result"
        assert (nested["source"], nested["title"]) == (big["source"], big["title"])
        assert "cut here" in nested["content"][0]["text"]
        assert len(nested["content"][0]["text"]) < len(big["content"][0]["text"]) / 5
        assert any(r.kind == "tool_result_excerpted" for r in result.repairs)


def test_only_the_newest_compaction_is_sent_older_ones_as_text() -> None:
    older = {"type": "compaction", "content": "Older summary: the user set up the repo."}
    failed = {"type": "compaction", "content": None}  # a failed compaction: a no-op the provider accepts
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Start.")
        cm.add_message("Claude", [older, {"type": "text", "text": "Set up."}])
        cm.add_message("user", "Go on.")
        cm.add_message("Claude", [compaction_block(), failed, {"type": "text", "text": "Continuing."}])
        cm.add_message("user", "And now?")
        result = cm.compile(100_000)
        assert_valid(result)
        sent = [b for m in result.to_anthropic()["messages"] for b in m["content"]]
        assert [b for b in sent if b["type"] == "compaction"] == [compaction_block(), failed]
        assert any("Older summary" in str(b.get("text", "")) for b in sent)
        assert "compaction_superseded" in {r.kind for r in result.repairs}
    issues = validate_messages(
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": [older, compaction_block()]}]
    )
    assert [i.code for i in issues] == ["ambiguous_compaction"]


def test_a_tool_result_inside_a_server_pair_never_splits_the_pair() -> None:
    call, answer = web_search_pair()[:2]
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.")
        cm.add_message("Claude", [{"type": "tool_use", "id": "toolu_X", "name": "ls", "input": {}}])
        # A host wrote a tool result between a server call and its result in one assistant message.
        res = {"type": "tool_result", "tool_use_id": "toolu_X", "content": "a.txt"}
        cm.add_message("Claude", [call, res, answer, {"type": "text", "text": "Done."}])
        result = cm.compile(100_000)
        assert_valid(result)
        _check_pairs(result, _stored_pairs(cm))
