"""Tool call ids the Messages API refuses are renamed in the compiled context, with their results.

Kind 7 / kind 4 (a review): a lone surrogate in a ``tool_use`` id is imported as U+FFFD (``tu\\ufffd``), and
histories written by other providers or frameworks carry ids such as ``functions.get_weather:0``; the
Messages API takes only ids matching ``^[a-zA-Z0-9_-]+$`` and refused the request. ``to_anthropic`` renames
such an id (its runs of other characters as ``_``, plus 8 hex digits of its sha256, so two ids stay apart),
the same in its result; the compile and the OpenAI exports keep it; the validator flags such an id.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, validate_messages
from context_journal.content import SENDABLE_ID, sendable_id
from context_journal.formats.exporters import to_openai
from tests.hypothesis_budget import examples

FAST = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
ids = st.text(st.characters(codec="utf-8"), min_size=1, max_size=24).filter(lambda t: t.strip() and t.isprintable())


def test_the_reviews_and_kimis_ids_are_renamed_with_their_results() -> None:
    for tid in ("tu\ufffd", "functions.get_weather:0", "call 1"):
        cm = ContextManager.open("memory:")
        cm.add_message("user", "weather?")
        cm.add_message("assistant", [{"type": "tool_use", "id": tid, "name": "get_weather", "input": {}}])
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": tid, "content": "sunny"}])
        cm.add_message("assistant", "It is sunny.")
        result = cm.compile(2000)
        request = result.to_anthropic()
        new = request["messages"][1]["content"][0]["id"]
        assert SENDABLE_ID.fullmatch(new) and new != tid
        assert request["messages"][2]["content"][0]["tool_use_id"] == new
        assert validate_messages(request["messages"]) == []
        assert result.messages[1].content[0]["id"] == tid  # the compile keeps the journal's id (OpenAI takes it)
        assert cm.compile(2000).to_anthropic() == request  # the same name every time


def test_the_validator_flags_an_id_the_api_refuses() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a.b", "name": "x", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a.b", "content": "ok"}]},
    ]
    assert [i.code for i in validate_messages(messages)] == ["bad_tool_use_id"]
    assert validate_messages(messages, sendable_ids=False) == []  # a compiled context before its export


@FAST
@given(first=ids, second=ids)
def test_any_ids_compile_to_sendable_distinct_pairs(first: str, second: str) -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "go")
    calls = [{"type": "tool_use", "id": t, "name": "run", "input": {"n": k}} for k, t in enumerate((first, second))]
    cm.add_message("assistant", calls)
    cm.add_message(
        "user", [{"type": "tool_result", "tool_use_id": t, "content": f"r{k}"} for k, t in enumerate((first, second))]
    )
    result = cm.compile(4000)
    request = result.to_anthropic()
    assert validate_messages(request["messages"]) == []
    sent = [b["id"] for b in request["messages"][1]["content"] if b["type"] == "tool_use"]
    answered = [b["tool_use_id"] for b in request["messages"][2]["content"] if b["type"] == "tool_result"]
    assert all(SENDABLE_ID.fullmatch(t) for t in sent) and len(set(sent)) == len(sent)
    assert answered == sent
    if first != second:  # (a reused id is renamed by the compile, as before)
        assert sent == [t if SENDABLE_ID.fullmatch(t) else sendable_id(t) for t in (first, second)]
    openai = to_openai(result)  # the journal's ids, as they are
    called = [c["id"] for m in openai if m.get("tool_calls") for c in m["tool_calls"]]
    assert [m["tool_call_id"] for m in openai if m["role"] == "tool"] == called
