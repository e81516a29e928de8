"""The opening message (the rules) is not cut while the turns after it, too short each for an excerpt to cut,
stand raw: those turns give way first, the recent window's oldest and then the head window's newest, when
that leaves the rules whole (issue 13, kind 2: "the opening instructions are never excerpted while older
middle content is kept raw").

A review compiled rules of 374 tokens and 69 short turns, nothing summarised, under the default
configuration (a head window of 2,000 tokens and a recent window of 4,000, sized for larger budgets): at
1,500-2,500 tokens the rules went as "Project rules: rule 0: never edit file_0.p [… about 354 of 374 tokens
cut here …]" beside 39-67 turns sent raw, and the same under ``AutobiographicalConfig.for_budget(4000)`` and
``for_budget(8000)`` compiled below their budgets.
"""

from __future__ import annotations

import pytest

from context_journal import AutobiographicalConfig, AutobiographicalStrategy, ContextManager
from tests.compile.compile_helpers import assert_valid

RULES = "Project rules: " + " ".join(
    f"rule {i}: never edit file_{i}.py without running pytest -k test_{i}." for i in range(18)
)


def _history(strategy: object) -> tuple[ContextManager, str]:
    cm = ContextManager.open("memory:", strategy=strategy)
    first = cm.add_message("user", RULES)
    for i in range(69):
        cm.add_message(
            "assistant" if i % 2 else "user", f"step {i}: " + "we changed the parser and the lexer again " * 3
        )
    return cm, first


@pytest.mark.parametrize(
    ("config", "budgets"),
    [(None, (1500, 2000, 2500)), (4000, (800, 1500)), (8000, (800, 1500, 2500))],
)
def test_the_rules_stay_whole_while_short_turns_give_way(config: int | None, budgets: tuple[int, ...]) -> None:
    strategy = AutobiographicalStrategy(
        AutobiographicalConfig() if config is None else AutobiographicalConfig.for_budget(config)
    )
    cm, first = _history(strategy)
    newest = cm.get_all_messages()[-1].id
    for budget in budgets:
        result = cm.compile(budget)
        assert result.tokens <= budget
        assert_valid(result)
        opening = next(m for m in result.messages if [s.id for s in m.sources] == [first])
        assert opening.content[0]["text"] == RULES, (budget, opening.content)
        assert result.unsummarised_cut > 0  # turns gave way (into a note) instead
        assert result.messages[-1].sources[-1].id == newest
        assert not any(r.kind == "excerpted" and r.message_id == first for r in result.repairs)


def test_the_rules_are_cut_only_when_no_number_of_turns_giving_way_would_keep_them() -> None:
    """Rules larger than the whole budget: every turn giving way would not keep them whole, so they are cut
    (readable) and the turns the room holds stay."""
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(AutobiographicalConfig()))
    first = cm.add_message("user", RULES * 6)
    for i in range(20):
        cm.add_message("assistant" if i % 2 else "user", f"step {i}: " + "we changed the parser again " * 3)
    result = cm.compile(1200)
    opening = next(m for m in result.messages if [s.id for s in m.sources] == [first])
    assert "tokens cut here" in opening.content[0]["text"]
    assert result.tokens <= 1200
