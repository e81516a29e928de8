"""The working-state block is rendered once for each thing it shows (``RenderMemo``): a compile whose
ledger shows what an earlier one's showed takes its text from the memo. A profile found a third of a
compile after an append spent rendering the same block again (5.8 ms at 200,000 messages). Replaying a
real Claude Code session message by message, every compile must be the same with the memo and without."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from context_journal import ContextManager, read_transcript
from context_journal.state.render import RenderMemo
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy
from tests.real_stores import CLAUDE_CODE_SESSION

KEPT = RenderMemo.SIZE


def _replay(data_dir: Path, memo: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list[dict[str, Any]], int]:
    """Every compile's ``to_dict()``, and how many times the block was rendered."""
    import context_journal.state.render as render

    monkeypatch.setattr(RenderMemo, "SIZE", KEPT if memo else 0)
    renders = 0
    original = render.render_state

    def counted(*args: Any) -> str | None:
        nonlocal renders
        renders += 1
        return original(*args)

    monkeypatch.setattr(render, "render_state", counted)
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(AutobiographicalConfig.for_budget(6_000)))
    out: list[dict[str, Any]] = []
    for k, message in enumerate(read_transcript(data_dir / CLAUDE_CODE_SESSION).conversations[0].messages):
        cm.add_messages([message])
        if k == 120:
            cm.set_fact("deadline", "ship the fix before Friday")
        if k == 200:
            cm.clear_fact("deadline")
        if k % 4 == 3:
            for budget in (3_000, 6_000):  # two allowances
                out.append(cm.compile(budget).to_dict())
            # the same block: a message that names nothing and opens no user turn (a new user turn moves
            # the block, which then shows the state before that turn: see test_ledger_turn_state.py)
            cm.add_message("assistant", "Noted, going on.", id=f"go-{k}", timestamp=1_700_000_000 + k)
            out.append(cm.compile(6_000).to_dict())
        if k % 40 == 39:
            cm.drain()
    cm.close()
    return out, renders


def test_every_compile_is_the_same_with_the_memo_and_without(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not (data_dir / CLAUDE_CODE_SESSION).exists():
        pytest.skip("shared data not found")
    without, rendered = _replay(data_dir, False, monkeypatch)
    with_memo, rendered_once = _replay(data_dir, True, monkeypatch)
    assert len(with_memo) == len(without) > 100
    assert with_memo == without
    assert any("ledger" in str(c) for c in with_memo)  # the block is there to be rendered
    assert rendered_once < rendered * 0.8  # and the compile after each plain turn found it rendered


def test_the_memo_renders_once_per_shown_state() -> None:
    from context_journal.state.ledger import Identifier, WorkingState

    calls: list[str] = []

    def count(text: str) -> int:
        calls.append(text)
        return len(text.split())

    state = WorkingState(commands=(), errors=("boom",), identifiers=(Identifier("alpha", 3, 1.0),))
    memo = RenderMemo()
    first = memo.render(state, 200, count, "counter")
    priced = len(calls)
    rescored = WorkingState(errors=("boom",), identifiers=(Identifier("alpha", 3, 0.5),), messages=9)
    assert memo.render(rescored, 200, count, "counter") == first and len(calls) == priced  # scores not shown
    other = WorkingState(errors=("boom", "bang"), identifiers=(Identifier("alpha", 3, 1.0),))
    assert memo.render(other, 200, count, "counter") != first  # what it shows changed
    assert memo.render(state, 200, count, "another counter") == first and len(calls) > priced  # priced again
