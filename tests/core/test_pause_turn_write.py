"""Anthropic's ``pause_turn`` at write: a paused message ends with a server call whose
result has not come; the same participant's next message (its continuation) opens with the result. The
store accepts the continuation only right after the paused message; any other message after it is
accepted too and abandons the paused call (shown as text at compile). A continuation by another
participant, one that does not open with the result, and an edit or removal that leaves a continuation
answering nothing are refused."""

from __future__ import annotations

import json
from typing import Any

import pytest

from context_journal._block_types import continues_server_turn
from context_journal.content import check_continuation, paused_calls, validate_content
from context_journal.errors import MalformedContentError
from context_journal.manager import ContextManager
from context_journal.stores import MemoryStore
from tests.provider_shapes import code_execution_pair, mcp_pair, web_fetch_pair, web_search_pair

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


ABANDONED_LINE = {"type": "text", "text": '[called web_search {"query":"claude shannon 1"}]'}


@pytest.mark.parametrize(
    ("participant", "content"),
    [("user", "Hurry up."), ("ann", "Not a continuation."), ("Claude", "I will wait.")],
)
def test_any_other_message_after_a_paused_one_is_accepted_and_the_call_abandoned(
    participant: str, content: str
) -> None:
    # Formerly refused ("waits for the results"): a pause_turn that was never continued loses nothing now.
    paused, _ = _split(web_search_pair(1))
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.")
        p = cm.add_message("Claude", paused)
        cm.add_message(participant, content)
        cm.add_message("Claude" if participant != "Claude" else "user", "ok")
        assert len(cm.get_messages()) == 4
        assert cm.get_message(p).content_dicts() == paused  # stored as written
        result = cm.compile(100_000, assistant="Claude")
        # the abandoned call is shown as text; nothing else changes
        assert [b for m in result.messages for b in m.content][:3] == [
            {"type": "text", "text": "Go."},
            SEARCHING,
            ABANDONED_LINE,
        ]
        assert "provider_block_transcribed" in {r.kind for r in result.repairs}
        sent = result.to_anthropic()["messages"]
        assert "server_tool_use" not in json.dumps(sent)


def test_a_continuation_by_another_participant_is_still_refused() -> None:
    paused, cont = _split(web_search_pair(1))
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.")
        cm.add_message("Claude", paused)
        with pytest.raises(MalformedContentError, match="not by 'ann'"):
            cm.add_message("ann", cont)  # another participant's message is no continuation
        assert len(cm.get_messages()) == 2  # nothing written by the refused one


def test_a_continuation_must_open_with_the_result() -> None:
    # The API's continuation starts with the result block; a result after text is refused.
    call = web_search_pair(1)[0]
    result = web_search_pair(1)[1]
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.")
        cm.add_message("Claude", [{"type": "text", "text": "x"}, call])
        late = [{"type": "text", "text": "hm"}, result, {"type": "text", "text": "done"}]
        with pytest.raises(MalformedContentError, match="which opens with the result") as err:
            cm.add_message("Claude", late)
        assert err.value.block_index == 1
        with pytest.raises(MalformedContentError, match=r"do not open this message"):
            check_continuation(("Claude", [call]), "Claude", late)
        assert len(cm.get_messages()) == 2
        cm.add_message("Claude", [result, {"type": "text", "text": "done"}])
        assert len(cm.get_messages()) == 3


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
        # the interruption abandons the paused call; the continuation after it then answers nothing
        assert err.value.message_index == 2
        assert "not earlier" in str(err.value)
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
    cm.add_message("Claude", [cont[0], {"type": "text", "text": "Another answer."}], id="c2")
    # a branch that never continues the paused message: another message abandons it
    cm.fork("gave_up", at="p")
    cm.switch_branch("gave_up")
    cm.add_message("user", "Stop.", id="s")
    with pytest.raises(MalformedContentError, match="srvtoolu_01WS0001"):
        cm.add_message("Claude", cont)  # too late: the result no longer follows its call
    assert [m.id for m in cm.get_messages()] == ["q", "p", "s"]
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
        cm.remove_message("c")  # formerly refused: 'p' followed by 't' is a paused call abandoned
        assert [m.id for m in cm.get_messages()] == ["q", "p", "t"]
        cm.remove_message("p")
        assert [m.id for m in cm.get_messages()] == ["q", "t"]


def test_edits_that_break_the_pair_are_refused_and_others_pass() -> None:
    paused, cont = _split(web_search_pair(1))
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "Go.", id="q")
        cm.add_message("Claude", paused, id="p")
        cm.add_message("Claude", cont, id="c")
        with pytest.raises(MalformedContentError, match="edit of 'p'"):
            cm.edit_message("p", "Never searched.")  # the continuation would answer nothing
        with pytest.raises(MalformedContentError, match="which opens with the result"):
            cm.edit_message("c", [{"type": "text", "text": "First."}, cont[0]])  # the result no longer opens it
        cm.edit_message("c", [cont[0], {"type": "text", "text": "Shorter answer."}])
        cm.edit_message("p", [{"type": "text", "text": "Searching now."}, paused[1]])
        assert cm.get_message("c").content_dicts()[1]["text"] == "Shorter answer."
        cm.edit_message("q", "Go, please.")  # a message away from the pair: untouched by the rule
        cm.edit_message("c", "No result after all.")  # formerly refused: the paused call is abandoned
        assert cm.get_message("c").content_dicts() == [{"type": "text", "text": "No result after all."}]


def test_the_helpers_state_the_rule() -> None:
    call, result, answer = web_search_pair(1)
    assert list(paused_calls([SEARCHING, call])) == [call["id"]]
    assert paused_calls([call, result]) == {}
    client = {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}
    assert paused_calls([call, client]) == {}  # deferred beside a client call: no continuation brings it
    assert continues_server_turn(["web_search_tool_result", "text"])
    assert continues_server_turn(["web_search_tool_result", "server_tool_use"])
    assert not continues_server_turn(["text", "web_search_tool_result", "server_tool_use"])  # must open with it
    assert not continues_server_turn(["server_tool_use", "web_search_tool_result"])
    assert not continues_server_turn(["text", "tool_result"])
    # without the message before, a result with no call is refused as before; ``continuation`` defers it
    with pytest.raises(MalformedContentError, match="not earlier in the same message"):
        validate_content([result])
    assert validate_content([result], continuation=True) == [result]
    check_continuation(("Claude", [call]), "Claude", [result, answer])
    check_continuation(None, "user", [{"type": "text", "text": "hi"}])
    check_continuation(("Claude", [call]), "user", [{"type": "text", "text": "hm"}])  # abandoned: accepted
    check_continuation(("Claude", [call]), "Claude", [{"type": "text", "text": "hm"}])
    with pytest.raises(MalformedContentError, match="srvtoolu_01WS0001"):
        check_continuation(None, "Claude", [result])
