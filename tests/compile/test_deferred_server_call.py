"""Review fixes for the Anthropic export of provider blocks:

- a ``server_tool_use`` with no result yet, in an assistant turn that also calls a client ``tool_use``,
  is sent as the block (Anthropic "Server tools" guide: the API runs it once the client's
  ``tool_result`` comes back), and the validator accepts it there and only there;
- ``caller`` is kept on ``tool_use`` and server blocks, and a null ``caller`` (a model dump's) is left out;
- when web search hits are shown as text, the ``web_search_result_location`` citations that point at
  them are left out of the message's text.
"""

from __future__ import annotations

from typing import Any

import pytest

from context_journal.manager import ContextManager
from context_journal.validate import validate_messages
from tests.compile.compile_helpers import assert_valid
from tests.provider_shapes import CHAR_LOCATION, web_search_pair

anthropic = pytest.importorskip("anthropic")
import pydantic  # noqa: E402
from anthropic.types.beta import BetaMessageParam  # noqa: E402

SERVER_CALL = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "Paris news"}}
CLIENT_CALL = {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "18C"}
DIRECT = {"type": "direct"}


def _export(*turns: tuple[str, Any]) -> dict[str, Any]:
    with ContextManager.open("memory:") as cm:
        for who, content in turns:
            cm.add_message(who, content)
        result = cm.compile(max_tokens=100_000)
        assert_valid(result)
        return result.to_anthropic(cache=False)


def test_a_server_call_beside_a_client_call_is_sent_as_the_block() -> None:
    params = _export(
        ("user", "Search for Paris news and get the weather there"),
        ("assistant", [SERVER_CALL, CLIENT_CALL]),
        ("user", [RESULT]),
    )
    assert params["messages"][1] == {"role": "assistant", "content": [SERVER_CALL, CLIENT_CALL]}
    assert params["messages"][2]["content"] == [RESULT]
    pydantic.TypeAdapter(list[BetaMessageParam]).validate_python(params["messages"])


def test_a_server_call_alone_without_its_result_is_still_text() -> None:
    # A paused call followed by another turn (never continued) is accepted and abandoned: shown as text.
    params = _export(("user", "Search."), ("assistant", [SERVER_CALL]), ("user", "Go on."))
    assert params["messages"][1]["content"] == [{"type": "text", "text": '[called web_search {"query":"Paris news"}]'}]


def test_the_validator_accepts_an_unanswered_server_call_only_beside_a_client_call() -> None:
    question: dict[str, Any] = {"role": "user", "content": "q"}
    answer: dict[str, Any] = {"role": "user", "content": [RESULT]}
    mixed = [question, {"role": "assistant", "content": [SERVER_CALL, CLIENT_CALL]}, answer]
    assert validate_messages(mixed) == []
    alone: list[dict[str, Any]] = [
        question,
        {"role": "assistant", "content": [SERVER_CALL]},
        {"role": "user", "content": "go on"},
    ]
    assert [i.code for i in validate_messages(alone)] == ["unanswered_server_call"]
    mcp = {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "echo", "server_name": "s", "input": {}}
    mcp_mixed: list[dict[str, Any]] = [question, {"role": "assistant", "content": [mcp, CLIENT_CALL]}, answer]
    assert [i.code for i in validate_messages(mcp_mixed)] == ["unanswered_server_call"]
    in_user = [{"role": "user", "content": [SERVER_CALL, CLIENT_CALL]}]
    assert "unanswered_server_call" in {i.code for i in validate_messages(in_user)}


def test_caller_is_kept_and_a_null_caller_left_out() -> None:
    call, result = web_search_pair()[:2]
    params = _export(
        ("user", "Weather?"),
        ("assistant", [{**call, "caller": None}, {**result, "caller": None}, {**CLIENT_CALL, "caller": DIRECT}]),
        ("user", [RESULT]),
    )
    sent = params["messages"][1]["content"]
    assert sent == [call, result, {**CLIENT_CALL, "caller": DIRECT}]
    pydantic.TypeAdapter(list[BetaMessageParam]).validate_python(params["messages"])
    kept = _export(("user", "Weather?"), ("assistant", [{**call, "caller": DIRECT}, result]), ("user", "ok"))
    assert kept["messages"][1]["content"][0] == {**call, "caller": DIRECT}


def _cite(url: str) -> dict[str, Any]:
    return {
        "type": "web_search_result_location",
        "url": url,
        "title": "T",
        "encrypted_index": "Eo8BCioIAhgBIiQ",
        "cited_text": "Shannon was born in 1916.",
    }


def test_citations_to_hits_shown_as_text_are_left_out() -> None:
    call, result = web_search_pair()[:2]
    hit = result["content"][0]["url"]
    keep = CHAR_LOCATION
    said = {"type": "text", "text": "Born in 1916.", "citations": [_cite(hit), keep]}
    only = {"type": "text", "text": "Yes.", "citations": [_cite(hit)]}
    other = {"type": "text", "text": "Elsewhere.", "citations": [_cite("https://elsewhere.example/")]}
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "When was Shannon born?")
        # Another participant's turn: the pair is rendered as the user's and shown as text.
        cm.add_message("Gemini", [call, result, said, only, other])
        cm.add_message("assistant", "Noted.")
        res = cm.compile(max_tokens=100_000)
        assert_valid(res)
    blocks = [b for m in res.messages for b in m.content]
    texts = {b["text"].split(": ", 1)[-1]: b for b in blocks if b["type"] == "text"}
    assert texts["Born in 1916."].get("citations") == [keep]
    assert "citations" not in texts["Yes."]
    assert texts["Elsewhere."]["citations"] == [_cite("https://elsewhere.example/")]
    assert "citation_dropped" in {r.kind for r in res.repairs}


def test_citations_stay_when_the_pair_is_sent() -> None:
    call, result = web_search_pair()[:2]
    said = {"type": "text", "text": "Born in 1916.", "citations": [_cite(result["content"][0]["url"])]}
    params = _export(("user", "When?"), ("assistant", [call, result, said]), ("user", "ok"))
    assert params["messages"][1]["content"][2] == said
