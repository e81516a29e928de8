"""Plans written as markdown (Claude Code's ``ExitPlanMode``, a review finding: the ledger read only structured
todo lists): the title, the headings and the checkbox items of the latest version (plain list items are prose,
never shown as pending steps), nothing from code fences or tables; a rejected plan (an error result) is undone;
and the plan of a real Claude Code session in the working state and in the compiled block."""

from __future__ import annotations

from pathlib import Path

from context_journal import ContextManager, read_transcript
from context_journal.formats.importers import import_into
from context_journal.state import Ledger
from context_journal.state.ledger import PlanItem, markdown_plan
from context_journal.stores import MemoryStore
from tests.ledger.ledger_helpers import ledger_block

PLAN = """# Plan: move billing to the new queue

Some context that is not a step.

## Steps
1. Add the `billing_jobs` table
2. [x] Write the migration
- [ ] Switch `BillingWorker` to the queue
* [~] Backfill the old jobs
+ [-] Drop the cron entry

```sql
- not an item: inside a fence
```

| step | owner |
|------|-------|
| - not an item | me |

### Verification
- run `mix test`
"""


def test_markdown_plan_items_and_statuses() -> None:
    title, items = markdown_plan(PLAN)
    assert title == "Plan: move billing to the new queue"
    assert items == [  # plain list items are prose: only checkboxes are tracked steps
        PlanItem("Steps", "section"),
        PlanItem("Write the migration", "completed"),
        PlanItem("Switch `BillingWorker` to the queue", "pending"),
        PlanItem("Backfill the old jobs", "in_progress"),
        PlanItem("Drop the cron entry", "cancelled"),
        PlanItem("Verification", "section"),
    ]
    assert markdown_plan("Just do it quickly.\n") == ("Just do it quickly.", [])
    assert markdown_plan("") == (None, [])
    # A review's cases: setext headings, a leading HTML comment, a list item before a thematic break.
    setext = "<!-- draft -->\nPlan Title\n==========\n\nSub\n---\n- [ ] do it\n---\n- [x] done\n"
    assert markdown_plan(setext) == (
        "Plan Title",
        [PlanItem("Sub", "section"), PlanItem("do it", "pending"), PlanItem("done", "completed")],
    )


def _call(k: int, plan: str) -> list[dict[str, object]]:
    return [{"type": "tool_use", "id": f"p{k}", "name": "ExitPlanMode", "input": {"plan": plan}}]


def _result(k: int, error: bool = False) -> list[dict[str, object]]:
    text = "User rejected the plan" if error else "User has approved your plan."
    return [{"type": "tool_result", "tool_use_id": f"p{k}", "content": text, "is_error": error}]


def test_the_latest_markdown_plan_is_shown_and_a_rejected_one_is_undone() -> None:
    ledger = Ledger()
    ledger.add("c1", _call(1, PLAN))
    ledger.add("r1", _result(1))
    ledger.add("c2", _call(2, "# Plan v2\n- [x] everything\n"))
    ledger.add("r2", _result(2, error=True))
    (plan,) = ledger.state().plans
    assert (plan.tool, plan.version, plan.note, plan.message_id) == (
        "ExitPlanMode",
        1,
        "Plan: move billing to the new queue",
        "c1",
    )
    ledger.add("c2b", _call(4, "\u200b\n"))  # shows nothing: no plan, no version
    ledger.add("c3", _call(3, "# Plan v3\n- [x] everything\n"))
    (plan,) = ledger.state().plans
    assert (plan.version, plan.note, plan.items) == (2, "Plan v3", (PlanItem("everything", "completed"),))


def test_the_plan_of_a_real_session(data_dir: Path) -> None:
    store = MemoryStore()
    import_into(store, read_transcript(data_dir / "claude-code-sessions/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"))
    cm = ContextManager.open(store=store)
    plans = {p.tool: p for p in cm.working_state().plans}
    plan = plans["ExitPlanMode"]
    assert plan.note == "Plan: Enrich TranscriptRenderer with metadata (spotter-fum.1)"
    assert [(i.text, i.status) for i in plan.items] == [
        ("Context", "section"),
        ("Approach", "section"),
        ("Strategy: Parallel enriched path", "section"),
        ("Line map shape (new fields)", "section"),
        ("Changes by feature", "section"),
        ("Files to modify", "section"),
        ("Verification", "section"),
    ]
    block = ledger_block(cm.compile(16_000))
    assert block is not None
    assert "Plan (ExitPlanMode, version 1, latest):" in block
    assert "  note: Plan: Enrich TranscriptRenderer with metadata (spotter-fum.1)" in block
    assert "  [#] Files to modify (section)" in block
