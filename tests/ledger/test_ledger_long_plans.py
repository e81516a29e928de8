"""A long plan shows its item in progress and the pending ones when it must be cut: a review of issue 12
found a 12-item plan shown as its first 10 items, all done, the item in progress among the 2 left out."""

from __future__ import annotations

import json

import pytest

from context_journal import ContextManager
from context_journal.state.ledger import shown_items as _shown_items


@pytest.mark.parametrize("items", [12, 40, 150])
def test_the_item_in_progress_and_the_next_ones_are_shown(items: int) -> None:
    cm = ContextManager.open("memory:", strategy="windowed")
    cm.add_message("user", "do it")
    current = items - 2
    todos = [
        {
            "content": f"task number {i} of the migration",
            "status": "completed" if i < current else ("in_progress" if i == current else "pending"),
        }
        for i in range(items)
    ]
    cm.add_message("assistant", [{"type": "tool_use", "id": "p", "name": "TodoWrite", "input": {"todos": todos}}])
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "p", "content": "ok"}])
    for i in range(60):
        cm.add_message("assistant" if i % 2 else "user", f"work {i} " + "blah " * 40)
    result = cm.compile(max_tokens=1500)
    text = json.dumps(result.to_anthropic(), ensure_ascii=False)
    assert result.parts.get("ledger")
    assert f"task number {current} of the migration (in_progress)" in text
    assert f"task number {items - 1} of the migration (pending)" in text
    assert "more items" in text and "done" in text
    cm.close()


def test_shown_items_keep_plan_order_and_priority() -> None:
    marks = ["x", "x", "x", ">", " ", " ", "-", "?", "x"]
    assert _shown_items(marks, 20) == list(range(9))
    assert _shown_items(marks, 3) == [3, 4, 5]  # in progress, then pending in order
    assert _shown_items(marks, 6) == [3, 4, 5, 6, 7, 8]  # then unknown, cancelled, the latest done
    assert _shown_items(marks, 0) == []
