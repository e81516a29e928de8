"""``ContextManager.open(index_thinking=True)``: the text of thinking blocks a handle writes is searchable
(issue 11: "thinking text only if the store is told to"); by default it is not, and a redacted thinking
block is never indexed. The setting follows the handle to its branches and derived children; messages
written before are indexed as they were."""

from __future__ import annotations

import pytest

from context_journal import ContextManager
from context_journal.stores import Store

THOUGHT = [
    {"type": "thinking", "thinking": "Perhaps the quarantine flag is stale.", "signature": "sig"},
    {"type": "text", "text": "Let me check the worker."},
]


def test_thinking_is_searched_only_when_asked(store: Store) -> None:
    plain = ContextManager.open(store=store, namespace="plain", isolate=True)
    plain.add_message("assistant", THOUGHT)
    assert plain.search_messages("quarantine") == []
    assert [h.message_id for h in plain.search_messages("worker")] != []
    deep = ContextManager.open(store=store, namespace="deep", isolate=True, index_thinking=True)
    first = deep.add_message("assistant", THOUGHT)
    (hit,) = deep.search_messages("quarantine")
    assert hit.message_id == first and "**quarantine**" in hit.snippet
    deep.fork("side")
    deep.switch_branch("side")
    second = deep.add_message(
        "assistant", [{"type": "thinking", "thinking": "Retry the quarantine job.", "signature": "s"}]
    )
    assert {h.message_id for h in deep.search_messages("quarantine")} == {first, second}
    child = deep.derive("child")
    third = child.add_message("assistant", [{"type": "thinking", "thinking": "quarantine again", "signature": "s"}])
    assert third in {h.message_id for h in child.search_messages("quarantine")}


def test_the_setting_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="index_thinking"):
        ContextManager.open("memory:", index_thinking="yes")  # type: ignore[arg-type]
