"""Room freed by a cut is given back (issue 13, kind 2: "no message is dropped that would fit after
reductions").

A review compiled the shared Claude Code session ``tool_heavy.jsonl`` (15 messages, a 2,400-token web search
result in its middle) as a new user does, through ``context-journal compile``:

* the autobiographical compile, nothing summarised yet, sent 56-83% of the budget at 400-1,500 tokens (519
  of 800): the middle gives way oldest first, and the last to go was a closed tool unit of about 450 tokens,
  so the user's question before it ("scrolling back in xterm.js still does not work ...") went into the note
  with everything older while the room it freed stood unused;
* (left open) the windowed compile sent one message of 20 tokens ("[Request interrupted by user]") at every
  budget from 300 to 600, where passthrough sent the tool unit before it too: the window jumps to fill half
  the budget, and the unit did not fit in half.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from context_journal import AutobiographicalConfig, AutobiographicalStrategy, ContextManager
from context_journal.formats import import_into, read_transcript
from context_journal.strategies import Strategy, WindowedPassthroughStrategy
from tests.compile.compile_helpers import assert_valid

QUESTION = "scrolling back in xterm.js still does not work"


@pytest.fixture(scope="module")
def session(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[], Path]:
    """A fresh store of the session for each compile (the strategies keep state in the store: the windowed
    anchor, the autobiographical layout of the last compile)."""
    read = read_transcript(data_dir / "claude-code-sessions" / "tool_heavy.jsonl", format="claude-code")

    def fresh() -> Path:
        db = tmp_path_factory.mktemp("room") / "s.db"
        import_into(db, read)
        return db

    return fresh


def _strategy(name: str, budget: int) -> Strategy:
    if name == "autobiographical":  # sized for the budget, as the CLI and MCP do
        return AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget))
    return WindowedPassthroughStrategy()


@pytest.mark.parametrize("name", ["autobiographical"])
def test_a_compile_that_cuts_fills_the_budget(session: Callable[[], Path], name: str) -> None:
    """At every budget from 300 to 1,500 tokens where the compile leaves something out (a note of messages
    cut to fit, or messages dropped), it sends at least 80% of the budget (before: 56-83% from 400 on); a
    fresh store for each, as a new user's first compile. (The windowed strategy's 20 tokens at 300-600 are
    not fixed: see the issue's closing note.)"""
    shares = {}
    for budget in range(300, 1_600, 100):
        with ContextManager.open(session(), strategy=_strategy(name, budget)) as cm:
            result = cm.compile(budget)
        assert_valid(result)
        if result.dropped or any(r.kind == "cut_to_fit" for r in result.repairs):
            shares[budget] = result.tokens / budget
    assert shares and min(shares.values()) >= 0.8, shares


def test_the_question_comes_back_when_the_unit_after_it_goes(session: Callable[[], Path]) -> None:
    """At 800 tokens the question before the large tool unit is sent (it went into the note with the unit),
    with the unit in a note of its own, and the compile uses at least 90% of the budget (519 tokens before)."""
    with ContextManager.open(session(), strategy=_strategy("autobiographical", 800)) as cm:
        result = cm.compile(800)
    assert_valid(result)
    texts = [b.get("text", "") for m in result.messages for b in m.content if b.get("type") == "text"]
    assert any(t.startswith(QUESTION) for t in texts), texts
    notes = [r for r in result.repairs if r.kind == "cut_to_fit"]
    assert len(notes) == 2, notes
    assert result.tokens >= 0.9 * 800, result.tokens
