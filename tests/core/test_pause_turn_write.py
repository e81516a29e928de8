"""Anthropic's ``pause_turn`` at write (issue 18 follow-up): a paused message ends with a server call whose
result has not come; the same participant's next message (its continuation) opens with the result. The
store accepts the continuation only right after the paused message, and nothing else after it; an edit or
removal that would break the pair is refused."""

from __future__ import annotations

from typing import Any

import pytest
from provider_shapes import code_execution_pair, mcp_pair, web_fetch_pair, web_search_pair

from context_journal._block_types import continues_server_turn
from context_journal.content import check_continuation, paused_calls, validate_content
from context_journal.errors import MalformedContentError
from context_journal.manager import ContextManager
from context_journal.stores import MemoryStore

Block = dict[str, Any]
SEARCHING: Block = {"type": "text", "text": "Let me look that up."}
THANKS = "Thanks."

PAIRS = {
    "web_search": web_search_pair(1),
    "web_fetch": web_fetch_pair(2, size=3),
    "code_execution": code_execution_pair(3, size=5),
    "mcp": mcp_pair(4, size=3),
}


def _split(pair: list[Block]) -> tuple[list[Block], list[Block]]:
    """``(paused message, continuation)`` of one server pair: the call, then its result and the rest."""
    return [SEARCHING, pair[0]], pair[1:] if len(pair) > 2 else [pair[1], {"type": "text", "text": "Done."}]


def _texts(cm: ContextManager) -> list[list[str]]:
    return [[str(b.type) for b in m.content] for m in cm.get_messages()]


@pytest.mark.parametrize("tool", sorted(PAIRS))
def test_a_continuation_right_after_its_paused_message_is_written(tool: str) -> None:
    paused, cont = _split(PAIRS[tool])
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.")
        p = cm.add_message("Claude", paused)
        c = cm.add_message("Claude", cont)
        cm.add_message("user", THANKS)
        assert [m.id for m in cm.get_messages()][1:3] == [p, c]
        assert cm.get_message(c).content_dicts() == cont


def test_add_messages_takes_the_pair_in_one_batch_and_chains_of_pauses() -> None:
    search, fetch = web_search_pair(1), web_fetch_pair(2, size=3)
    with ContextManager.open("memory:") as cm:
        ids = cm.add_messages(
            [
                {"participant": "user", "content": "Go."},
                {"participant": "Claude", "content": [SEARCHING, search[0]]},
                # the continuation pauses again: its result, a new call left waiting
                {"participant": "Claude", "content": [search[1], fetch[0]]},
                {"participant": "Claude", "content": fetch[1:]},
                {"participant": "user", "content": THANKS},
            ]
        )
        assert len(ids) == 5
        assert _texts(cm)[1:4] == [
            ["text", "server_tool_use"],
            ["web_search_tool_result", "server_tool_use"],
            ["web_fetch_tool_result"],
        ]


def test_two_calls_paused_are_answered_together_or_refused_with_the_missing_id() -> None:
    search, code = web_search_pair(1), code_execution_pair(2, size=5)
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.")
        cm.add_message("Claude", [search[0], code[0]])
        with pytest.raises(MalformedContentError, match=r"but not \['srvtoolu_01CE0002'\]") as err:
            cm.add_message("Claude", [search[1]])
        assert "srvtoolu_01WS0001" in str(err.value)
        cm.add_message("Claude", [search[1], code[1], {"type": "text", "text": "Both done."}])


def test_only_the_continuation_may_follow_a_paused_message() -> None:
    paused, cont = _split(web_search_pair(1))
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.")
        cm.add_message("Claude", paused)
        with pytest.raises(MalformedContentError, match=r"waits for the results of \['srvtoolu_01WS0001'\]"):
            cm.add_message("user", "Hurry up.")
        with pytest.raises(MalformedContentError, match="not by 'ann'"):
            cm.add_message("ann", cont)  # another participant's message is no continuation
        with pytest.raises(MalformedContentError, match="waits for the results"):
            cm.add_message("Claude", "I will wait.")  # the same participant, but no result first
        assert len(cm.get_messages()) == 2  # nothing written by the refused ones


def test_a_result_whose_call_is_not_just_before_is_refused() -> None:
    call, result, _ = web_search_pair(1)
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.")
        with pytest.raises(MalformedContentError, match=r"srvtoolu_01WS0001.*not earlier"):
            cm.add_message("Claude", [result])  # no paused message at all
        cm.add_message("Claude", [call, result])
        cm.add_message("user", "And?")
        with pytest.raises(MalformedContentError, match="srvtoolu_01WS0001"):
            cm.add_message("Claude", [result])  # the call was answered already, two messages back
        fetch = web_fetch_pair(2, size=3)
        cm.add_message("Claude", [fetch[0]])
        wrong = {**web_search_pair(2)[1], "tool_use_id": fetch[0]["id"]}  # a web_fetch answered by search hits
        with pytest.raises(MalformedContentError, match="cannot answer server_tool_use 'srvtoolu_01WF0002'"):
            cm.add_message("Claude", [wrong])
        with pytest.raises(MalformedContentError, match="used twice in the message it continues"):
            cm.add_message("Claude", [fetch[1], fetch[0]])


def test_a_batch_is_judged_as_a_whole_and_refused_whole() -> None:
    paused, cont = _split(web_search_pair(1))
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.")
        with pytest.raises(MalformedContentError) as err:
            cm.add_messages(
                [
                    {"participant": "Claude", "content": paused},
                    {"participant": "user", "content": "interrupting"},
                    {"participant": "Claude", "content": cont},
                ]
            )
        assert err.value.message_index == 1
        assert len(cm.get_messages()) == 1
        # the newest message of a batch may stay paused; the next write continues it
        cm.add_messages([{"participant": "user", "content": "Again."}, {"participant": "Claude", "content": paused}])
        cm.add_messages([{"participant": "Claude", "content": cont}])


def test_a_fork_at_the_paused_message_continues_on_each_branch() -> None:
    paused, cont = _split(web_search_pair(1))
    cm = ContextManager.open(store=MemoryStore())
    cm.add_message("user", "Go.", id="q")
    cm.add_message("Claude", paused, id="p")
    cm.fork("other", at="p")
    cm.switch_branch("other")
    with pytest.raises(MalformedContentError, match="waits for the results"):
        cm.add_message("user", "Stop.")
    cm.add_message("Claude", [cont[0], {"type": "text", "text": "Another answer."}], id="c2")
    cm.switch_branch("main")
    cm.add_message("Claude", cont, id="c1")
    assert [m.id for m in cm.get_messages()] == ["q", "p", "c1"]
    # a fork at the continuation, then a write after it there
    cm.fork("after", at="c1")
    cm.switch_branch("after")
    cm.add_message("user", THANKS, id="t")
    assert [m.id for m in cm.get_messages()] == ["q", "p", "c1", "t"]
    # a fork before the pair: a continuation without its paused message is refused there
    cm.fork("before", at="q")
    cm.switch_branch("before")
    with pytest.raises(MalformedContentError, match="srvtoolu_01WS0001"):
        cm.add_message("Claude", cont)


def test_removing_either_half_is_refused_while_it_would_break_the_pair() -> None:
    paused, cont = _split(web_search_pair(1))
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.", id="q")
        cm.add_message("Claude", paused, id="p")
        cm.add_message("Claude", cont, id="c")
        with pytest.raises(MalformedContentError, match=r"removal of 'p'.*srvtoolu_01WS0001"):
            cm.remove_message("p")  # its continuation would answer nothing
        cm.add_message("user", THANKS, id="t")
        with pytest.raises(MalformedContentError, match=r"removal of 'c'.*waits for the results"):
            cm.remove_message("c")  # the paused message would be followed by 't'
        cm.remove_message("t")
        cm.remove_message("c")  # newest now: the paused message is newest again, which is allowed
        cm.remove_message("p")
        assert [m.id for m in cm.get_messages()] == ["q"]


def test_edits_that_break_the_pair_are_refused_and_others_pass() -> None:
    paused, cont = _split(web_search_pair(1))
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.", id="q")
        cm.add_message("Claude", paused, id="p")
        cm.add_message("Claude", cont, id="c")
        with pytest.raises(MalformedContentError, match=r"edit of 'c'.*waits for the results"):
            cm.edit_message("c", "No result after all.")
        with pytest.raises(MalformedContentError, match="edit of 'p'"):
            cm.edit_message("p", "Never searched.")  # the continuation would answer nothing
        cm.edit_message("c", [cont[0], {"type": "text", "text": "Shorter answer."}])
        cm.edit_message("p", [{"type": "text", "text": "Searching now."}, paused[1]])
        assert cm.get_message("c").content_dicts()[1]["text"] == "Shorter answer."
        cm.edit_message("q", "Go, please.")  # a message away from the pair: untouched by the rule


def test_the_helpers_state_the_rule() -> None:
    call, result, answer = web_search_pair(1)
    assert list(paused_calls([SEARCHING, call])) == [call["id"]]
    assert paused_calls([call, result]) == {}
    client = {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}
    assert paused_calls([call, client]) == {}  # deferred beside a client call: no continuation brings it
    assert continues_server_turn(["web_search_tool_result", "text"])
    assert continues_server_turn(["text", "web_search_tool_result", "server_tool_use"])
    assert not continues_server_turn(["server_tool_use", "web_search_tool_result"])
    assert not continues_server_turn(["text", "tool_result"])
    # without the message before, a result with no call is refused as before; ``continuation`` defers it
    with pytest.raises(MalformedContentError, match="not earlier in the same message"):
        validate_content([result])
    assert validate_content([result], continuation=True) == [result]
    check_continuation(("Claude", [call]), "Claude", [result, answer])
    check_continuation(None, "user", [{"type": "text", "text": "hi"}])
    with pytest.raises(MalformedContentError, match="srvtoolu_01WS0001"):
        check_continuation(None, "Claude", [result])
