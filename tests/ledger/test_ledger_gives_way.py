"""The working-state block gives way before a compile fails (a review finding): a budget at which the
context fits without the block (``LedgerConfig(share=0)``) compiles with the block on too, with the block
shortened or left out, never an ``OverBudgetError`` because of it. Checked on a real Claude Code session
(both compressing strategies, drained) and on the synthetic session of the small-budget tests, at the
smallest budget that fits without the block and at budgets just above it; and the block is still shown,
shortened, at most of those budgets, and at full size where it fits."""

from __future__ import annotations

from pathlib import Path

import pytest

from context_journal import ContextManager, read_transcript
from context_journal.compile import OverBudgetError, compile_context
from context_journal.formats.importers import import_into
from context_journal.state import LedgerConfig
from context_journal.stores import MemoryStore
from tests.compile.compile_helpers import smallest_budget
from tests.ledger.ledger_helpers import ledger_block
from tests.ledger.test_ledger_small_budgets import _session

SESSION = "claude-code-sessions/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


def _both(cm: ContextManager, step: int = 25, span: int = 300) -> tuple[int, list[tuple[int, int]]]:
    """The smallest budget without the block; then, with the default block, ``(budget, block tokens)`` at
    it and at budgets ``step`` apart up to ``span`` above it (every one must compile)."""
    cm.ledger_config = LedgerConfig(share=0)
    floor = smallest_budget(cm)
    cm.ledger_config = LedgerConfig()
    out = []
    for budget in range(floor, floor + span, step):
        result = cm.compile(budget)  # raises OverBudgetError if the block did not give way
        assert result.tokens <= budget
        out.append((budget, result.parts.get("ledger", 0)))
    return floor, out


@pytest.mark.parametrize("strategy", ["autobiographical", "knowledge"])
def test_the_block_gives_way_on_a_real_session(data_dir: Path, strategy: str) -> None:
    store = MemoryStore()
    import_into(store, read_transcript(data_dir / SESSION), namespace="s")
    cm = ContextManager.open(store=store, namespace="s", strategy=strategy)
    cm.drain()
    full = cm.compile(8000)
    assert full.parts["ledger"] > 1000  # the block is there at full size where it fits
    floor, runs = _both(cm, span=700)
    # (Over 1,000 until closed tool units not summarised yet gave way whole; 647 until summaries cut to
    # nothing gave way whole, as one note; 303 until the head window's tool unit cut to a hundredth did: 200.)
    assert floor > 150
    shown = [tokens for _, tokens in runs if tokens]
    # Shortened rather than dropped: shown at every budget from 200 tokens over the floor on, once its share
    # (15%) reaches the smallest block worth showing, about 120 tokens (the floor itself moves with what the
    # rest can give up: the block showed from 847 over a floor of 647, and from 800 over 200 now).
    assert all(tokens for budget, tokens in runs if budget >= max(floor + 200, 850)), runs
    assert max(shown) < full.parts["ledger"]


def test_the_block_gives_way_on_a_synthetic_session() -> None:
    cm = ContextManager.open("memory:", strategy="autobiographical")
    _session(cm, "TodoWrite")
    cm.drain()
    # Every 5 tokens: at 711 (floor 571) the block's first try failed reporting a smallest context of 931,
    # which is no lower bound, and the block, taken to be futile to shrink, refused a budget that fit
    # without it.
    floor, runs = _both(cm, step=5)
    # (571 before summaries cut to nothing gave way whole, 297 before the head window's turns did, 164 now.)
    assert floor > 120
    assert any(tokens for _, tokens in runs), runs
    block = ledger_block(cm.compile(runs[-1][0]))
    assert block is None or block.startswith("Working state")


def test_a_context_that_cannot_fit_fails_without_futile_tries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Far over the budget even without the block: one compile with the block and one without it (the
    smallest context a failed compile reports is no lower bound), never a series of halvings; a little
    over: retries with a smaller block, then the error of the last try (no block in it)."""
    import context_journal.manager as manager_module

    calls = []
    real = compile_context  # what manager_module calls by this name

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(manager_module, "compile_context", counted)
    cm = ContextManager.open("memory:", strategy="autobiographical")
    _session(cm, "TodoWrite")
    cm.drain()
    calls.clear()
    with pytest.raises(OverBudgetError) as caught:
        cm.compile(50)
    assert len(calls) == 1 and "ledger" not in caught.value.parts  # too small for any block
    # The rules pinned, so the smallest context is large enough for a block to be worth showing, and for a
    # halved one (a block is at most half the budget: under the 164 tokens this session needs without pins,
    # no block is; it once failed at 300 with one try with a block of 150 tokens and one without).
    cm.pin("u0")
    cm.ledger_config = LedgerConfig(share=0)
    floor = smallest_budget(cm)
    cm.ledger_config = LedgerConfig(share=0.5)  # a block large enough to halve
    tries = []
    for budget in range(floor - 60, floor):
        calls.clear()
        with pytest.raises(OverBudgetError) as caught:
            cm.compile(budget)
        assert "ledger" not in caught.value.parts
        tries.append(len(calls))
    assert max(tries) <= 8 and min(tries) >= 2
    assert max(tries) > 2, tries  # halvings where the block was close to fitting


def test_a_cut_block_keeps_its_facts_or_goes(data_dir: Path) -> None:
    """A review found blocks cut to their header, or to a "Facts:" heading with no fact under it, at
    budgets just above the smallest that fits: the block loses whole lines from its end, so facts now come
    first, a heading left with nothing under it goes, and a block left with only its header goes whole
    (with its marker turn)."""
    store = MemoryStore()
    import_into(store, read_transcript(data_dir / SESSION), namespace="s")
    cm = ContextManager.open(store=store, namespace="s", strategy="autobiographical")
    cm.drain()
    rule = "never push to main; always run mix test before commit. " * 3
    cm.set_fact("rule", rule)
    floor = smallest_budget(cm)
    shown = 0
    for budget in range(floor, floor + 400, 5):
        result = cm.compile(budget)
        block = ledger_block(result)
        if block is None:
            assert "ledger" not in result.parts
            continue
        shown += 1
        lines = block.split("\n")
        assert len(lines) > 1, budget
        assert lines[1] == "Facts:" and lines[2].startswith("  rule: never push to main"), (budget, lines[:3])
        assert not (lines[-1].endswith(":") and not lines[-1].startswith(" ")), (budget, lines[-1])
    assert shown > 40
