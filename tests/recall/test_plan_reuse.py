"""A recall strategy plans once for the compiler's selects from views that price the messages the same."""

from __future__ import annotations

from typing import Any

import context_journal.recall.strategy as recall_strategy
from context_journal import ContextManager, MemoryStore
from context_journal.compile import Roles
from context_journal.recall import RecallConfig, RecallStrategy
from context_journal.recall.query import with_recall
from context_journal.recall.spans import plan_spans
from context_journal.rendering.reduce import PricedView
from context_journal.strategies import PassthroughStrategy
from context_journal.strategies.base import Budget
from context_journal.views import ReaderView


def test_first_plan_is_reused_only_while_the_sizes_it_relied_on_hold(monkeypatch: Any) -> None:
    cm = ContextManager.open(store=MemoryStore(), strategy=PassthroughStrategy())
    for i in range(300):
        topic = "kayak" if i % 10 == 3 else "weather"
        cm.add_message("ann" if i % 2 else "bob", f"turn {i}: we talked about the {topic} again, at length.")
    view = ReaderView(cm._messages, None)
    strategy, _ = with_recall(
        PassthroughStrategy(),
        view,
        cm._messages,
        reader=None,
        query="kayak",
        recall=RecallConfig(share=0.5),
        roles=Roles(),
        counter=cm._counter,
        dates=False,
    )
    assert isinstance(strategy, RecallStrategy)
    plans: list[dict[int, int]] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        out = plan_spans(*args, **kwargs)
        if kwargs.get("sizes") is not None:
            plans.append(kwargs["sizes"])
        return out

    monkeypatch.setattr(recall_strategy, "plan_spans", counted)
    budget = Budget(1200, 1200, 1200)
    first = strategy.select(view, budget)
    assert len(plans) == 1 and plans[0]  # the hits' sizes were relied on
    assert strategy.select(view, budget) == first and len(plans) == 1  # the same view: planned once
    cheaper = {p: -1 for p in range(len(view)) if p not in plans[0]}
    strategy.select(PricedView(view, cheaper), budget)  # other sizes changed: the plan holds
    assert len(plans) == 1
    hit = next(iter(plans[0]))
    strategy.select(PricedView(view, {hit: -1}), budget)  # a size the plan relied on changed
    assert len(plans) == 2
    strategy.select(view, Budget(1000, 1000, 1000))  # another allowance
    assert len(plans) == 3
