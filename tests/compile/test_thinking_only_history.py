"""A history of assistant thinking alone gives the model nothing to answer: the compile raises.

Issue 13, kind 7 ("a compile that would send no message raises"). A review stored assistant messages made only
of signed thinking with empty text (what a provider returns when thinking is not displayed) and compiled them:
the context was the compiler's own "[start of the conversation]" turn followed by the thinking, where a history
of nothing raises :class:`EmptyContextError`. Such a write is accepted (a signature is real content to keep),
but a context made only of it raises the same error, whatever the strategy and store, and through the CLI. One
message that says something (a user question, an assistant text, a tool call) makes it compile.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from context_journal import ContextManager, EmptyContextError
from context_journal.cli import app
from context_journal.rendering.repairs import says_nothing
from context_journal.validate import validate_messages
from tests.hypothesis_budget import examples

FAST = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
STRATEGIES = ("passthrough", "windowed", "autobiographical")

signed = st.builds(
    lambda text, sig: {"type": "thinking", "thinking": text, "signature": sig},
    st.sampled_from(["", " ", "Let me think about the request."]),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789+/=", min_size=4, max_size=24),
)
redacted = st.text(alphabet="ABCDEFGHIJ0123456789+/=", min_size=0, max_size=24).map(
    lambda data: {"type": "redacted_thinking", "data": data}
)
thinking_only = st.lists(st.lists(st.one_of(signed, redacted), min_size=1, max_size=3), min_size=1, max_size=4)
saying = st.sampled_from(
    [
        ("user", "What is the capital of Peru?"),
        ("assistant", [{"type": "text", "text": "Lima."}]),
        ("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "Peru"}}]),
    ]
)


def _write(cm: ContextManager, history: list[list[dict[str, Any]]]) -> None:
    for blocks in history:
        cm.add_message("assistant", blocks)


def test_the_reviews_history_raises() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("assistant", [{"type": "thinking", "thinking": "", "signature": "c2ln"}])
    with pytest.raises(EmptyContextError, match="no message to send"):
        cm.compile(max_tokens=1000)
    assert cm.message_count() == 1  # the write itself is kept


@FAST
@given(history=thinking_only, strategy=st.sampled_from(STRATEGIES), budget=st.integers(200, 4000))
def test_thinking_alone_raises_with_every_strategy(
    history: list[list[dict[str, Any]]], strategy: str, budget: int
) -> None:
    cm = ContextManager.open("memory:", strategy=strategy)
    _write(cm, history)
    with pytest.raises(EmptyContextError):
        cm.compile(max_tokens=budget)


@FAST
@given(history=thinking_only, say=saying, at=st.integers(0, 4), strategy=st.sampled_from(STRATEGIES))
def test_one_message_that_says_something_compiles(
    history: list[list[dict[str, Any]]], say: tuple[str, Any], at: int, strategy: str
) -> None:
    cm = ContextManager.open("memory:", strategy=strategy)
    role, content = say
    at = min(at, len(history))
    _write(cm, history[:at])
    said = cm.add_message(role, content)
    _write(cm, history[at:])
    result = cm.compile(max_tokens=4000)
    assert not says_nothing(result.messages)
    assert said in [s.id for m in result.messages for s in m.sources if s.kind == "message"]
    assert validate_messages(result.to_anthropic()["messages"]) == []


def test_sqlite_store_and_cli_say_so(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with ContextManager.open(str(db)) as cm:
        cm.add_message("assistant", [{"type": "thinking", "thinking": "", "signature": "c2ln"}])
        cm.add_message("assistant", [{"type": "redacted_thinking", "data": "RU5DUllQVEVE"}])
        with pytest.raises(EmptyContextError):
            cm.compile(max_tokens=1000)
    res = CliRunner().invoke(app, ["compile", "--store", str(db), "--budget", "1000", "--json"])
    assert res.exit_code == 1
    error = json.loads(res.stdout)
    assert error["ok"] is False and error["error"]["type"] == "EmptyContextError"
