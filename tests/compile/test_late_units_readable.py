"""A closed tool unit of the recent window whose result the cut leaves saying nothing gives way whole by
itself, and the rest is cut again with the room it leaves.

A review saw a real Claude Code session (compression lagging, the default autobiographical strategy) send
tool results of its recent window as their bare cut markers inside contexts that fit: at 2,000 tokens
"mix test" answered by "[… about 388 of 388 tokens cut here …]", a commit's output and "git log"'s the same,
beside older units kept; one such result at every budget of 222-1,000 tokens. A first fix judged such units
as hollow plain turns are, so the oldest turns gave way until none was left: for one result near the end of
the window, the whole recent window went (a second review: 20 messages sent at 1,165 tokens, 8 at 1,178).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from context_journal import CompileResult, ContextManager, OverBudgetError, read_transcript
from context_journal.formats.importers import import_into
from context_journal.rendering.repairs import text_tokens_kept
from context_journal.stores import MemoryStore
from context_journal.tokens import EstimatingCounter
from tests.compile.compile_helpers import assert_valid

COUNTER = EstimatingCounter()


def _results(compiled: CompileResult) -> list[Mapping[str, Any]]:
    return [b for m in compiled.messages for b in m.content if b.get("type") == "tool_result"]


def _says_something(result: Mapping[str, Any]) -> bool:
    """A hundredth of its text or 16 tokens of it kept, by its cut markers' figures (a few lines of a long
    output say something: "Compiling 7 files" of 7,461 tokens is under a hundredth)."""
    kept, whole = text_tokens_kept([result], COUNTER)
    return not whole or kept / whole >= 0.01 or kept >= 16


@pytest.fixture(scope="module")
def session(data_dir: Path) -> MemoryStore:
    transcript = read_transcript(next((data_dir / "claude-code-sessions").glob("ae4a77f8*.jsonl")))
    store = MemoryStore()
    import_into(store, dataclasses.replace(transcript, conversations=transcript.conversations[:1]), namespace="s")
    return store


@pytest.mark.parametrize("budget", [222, 300, 500, 1000, 2000, 3000, 3650])
def test_no_recent_result_is_sent_as_its_marker_on_a_real_session(session: MemoryStore, budget: int) -> None:
    cm = ContextManager.open(store=session, namespace="s", strategy="autobiographical")
    try:
        compiled = cm.compile(budget)
    except OverBudgetError:
        pytest.fail(f"{budget} fitted before")
    assert compiled.tokens <= budget
    assert_valid(compiled)
    for result in _results(compiled):
        assert _says_something(result), (budget, str(result)[:200])


def test_the_oldest_units_give_way_for_a_newer_result() -> None:
    """Rules, ten units with results of 300 words, a question and an answer, nothing summarised: every
    result sent keeps something of itself, at every budget that fits from 300 to 1,500 tokens."""
    cm = ContextManager.open("memory:", strategy="autobiographical")
    cm.add_message("user", "Rules: answer briefly and cite the file.")
    for k in range(10):
        call = {"type": "tool_use", "id": f"c{k}", "name": "Bash", "input": {"command": f"cat notes/{k}.txt"}}
        text = " ".join(f"line{k}-{j} of the build notes" for j in range(60))
        cm.add_message("assistant", [{"type": "text", "text": f"Reading note {k}."}, call])
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"c{k}", "content": text}])
    cm.add_message("user", "Which note mentions the cache?")
    cm.add_message("assistant", "Note 3 does, in its second paragraph.")
    fitted = 0
    for budget in range(300, 1501, 50):
        try:
            compiled = cm.compile(budget)
        except OverBudgetError:
            continue
        fitted += 1
        assert_valid(compiled)
        for result in _results(compiled):
            assert _says_something(result), (budget, str(result)[:200])
    assert fitted >= 20


def test_one_silent_result_does_not_empty_the_recent_window(session: MemoryStore) -> None:
    """The second review's budgets: the recent window is not given way for one result (1,178 sent 8 messages,
    157 recent ones in a note; 1,594 the same), and a larger budget does not send far fewer messages."""
    cm = ContextManager.open(store=session, namespace="s", strategy="autobiographical")
    sent = {budget: len(cm.compile(budget).messages) for budget in (1165, 1178, 1581, 1594)}
    assert min(sent.values()) >= 15, sent
    assert sent[1178] >= sent[1165] - 2 and sent[1594] >= sent[1581] - 2, sent


def _units(results: list[str], plans: list[str] | None = None) -> ContextManager:
    cm = ContextManager.open("memory:", strategy="autobiographical")
    cm.add_message("user", "Rules: answer briefly and cite the file.")
    for k, result in enumerate(results):
        text = plans[k] if plans else f"Reading {k}."
        call = {"type": "tool_use", "id": f"c{k}", "name": "Bash", "input": {"command": f"cat f{k}"}}
        cm.add_message("assistant", [{"type": "text", "text": text}, call])
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"c{k}", "content": result}])
    cm.add_message("user", "Summarise?")
    cm.add_message("assistant", "Done.")
    return cm


def test_silent_units_give_way_one_at_a_time() -> None:
    """A third review: twelve results of 25,000 tokens each; at 600 tokens all five kept units kept about 9
    tokens, so all went in one round and 225 tokens were sent. The oldest goes first and the rest are cut
    again with its room: every budget uses most of itself and keeps some results readable."""
    cm = _units([" ".join(f"f{k}-{j} alpha beta" for j in range(3000)) for k in range(12)])
    for budget in (300, 400, 600, 700):
        compiled = cm.compile(budget)
        assert compiled.tokens >= 0.8 * budget, (budget, compiled.tokens)
        results = _results(compiled)
        assert results and all(_says_something(r) for r in results), budget


def test_a_unit_is_judged_by_its_result_not_its_call() -> None:
    """A third review: calls with long plans cut to nothing and short results kept whole gave way, their
    results whole ("113 tests, 0 failures in module 11"); at 200-400 tokens the results stand as before."""
    plans = [f"Plan {k}: " + " ".join(f"p{k}-{j} alpha beta" for j in range(3000)) for k in range(12)]
    cm = _units([f"{k * 10 + 3} tests, 0 failures in module {k}" for k in range(12)], plans)
    for budget, kept in ((200, 1), (300, 2), (400, 3)):
        assert len(_results(cm.compile(budget))) == kept, budget
