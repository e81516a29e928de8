"""B47 as a test of its kind: for every plan-tool shape, a long tool session compiled at 4,000 tokens
(autobiographical, offline compression drained) shows the latest plan with its statuses, and the
ledger never shows a stale version."""

from __future__ import annotations

import json

import pytest

from context_journal import ContextManager
from context_journal.compile import CompiledMessage, CompileResult
from context_journal.state import LedgerConfig, PlanShape
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy
from tests.ledger.ledger_helpers import ITEMS, PLAN_SHAPES, STATUSES_V2, b47, bash_pair, ledger_block, text_of


def text_of_message(m: CompiledMessage) -> str:
    return json.dumps(list(m.content))


SUPERSEDED_NOTE = "an older version of this plan; the working state shows the latest (version 2)"
CUSTOM = LedgerConfig(plan_tools={"set_tasks": PlanShape(items="tasks", text=("title",), status="state")})


def _compiled(shape: str) -> tuple[ContextManager, str, CompileResult]:
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(AutobiographicalConfig.for_budget(4000)))
    if shape == "custom":
        cm.ledger_config = CUSTOM
    b47(cm, PLAN_SHAPES[shape])
    cm.drain()
    result = cm.compile(4000)
    assert result.tokens <= 4000
    block = ledger_block(result)
    assert block is not None
    return cm, block, result


@pytest.mark.parametrize("shape", sorted(PLAN_SHAPES))
def test_B47_the_latest_plan_with_statuses_is_in_the_compiled_context(shape: str) -> None:
    cm, block, result = _compiled(shape)
    tool = PLAN_SHAPES[shape](STATUSES_V2)[0]
    # The latest version, every item with its status, and nothing of the first version.
    assert f"Plan ({tool}, version 2, latest):" in block
    assert "version 1" not in block
    assert f"  [x] {ITEMS[0]} (completed)" in block
    assert f"  [>] {ITEMS[1]} (in_progress)" in block
    assert f"  [ ] {ITEMS[2]} (pending)" in block
    assert block.count(ITEMS[0]) == 1
    # No raw message states the first version: the raw head's call (c1) shows a note in its place,
    # keeping its id, name and result; the block comes after every summary that states the plan.
    stating = [k for k, m in enumerate(result.messages) if ITEMS[0] in text_of_message(m)]
    assert any(s.kind == "ledger" for s in result.messages[stating[-1]].sources)
    for k in stating:
        assert {s.kind for s in result.messages[k].sources} & {"ledger", "summary"}, result.messages[k]
    head = next(m for m in result.messages if any(s.id == "c1" for s in m.sources))
    assert list(head.content) == [
        {"type": "tool_use", "id": "t1", "name": tool, "input": {"superseded": SUPERSEDED_NOTE}}
    ]
    assert any(r.kind == "call_superseded" and r.message_id == "c1" for r in result.repairs)
    assert "t1" in text_of(result).split('"tool_use_id": ')[1]  # its result still follows it
    state = cm.working_state()
    assert [(p.tool, p.version, [(i.text, i.status) for i in p.items]) for p in state.plans] == [
        (tool, 2, list(zip(ITEMS, STATUSES_V2, strict=True)))
    ]
    assert state.plans[0].message_id == "c7"


def test_B47_literal_input_commands_and_placement() -> None:
    cm, _, _ = _compiled("TodoWrite")
    state = cm.working_state()
    assert len(state.commands) == 64 and state.commands[-1].command == "psql -c 'EXPLAIN ANALYZE q68'"
    assert {c.status for c in state.commands} == {"ok"}
    result = cm.compile(4000)
    kinds = [next(iter(s.kind for s in m.sources)) for m in result.messages]
    at = kinds.index("ledger")
    assert "summary" not in kinds[at:]  # after every summary, before the newest raw messages
    assert kinds[at + 1 :] and set(kinds[at + 1 :]) == {"message"}


def test_update_plan_note_and_a_plan_per_tool() -> None:
    cm = ContextManager.open("memory:")
    for k, (name, data) in enumerate([PLAN_SHAPES["update_plan"](STATUSES_V2), PLAN_SHAPES["TodoWrite"](STATUSES_V2)]):
        cm.add_message("assistant", [{"type": "tool_use", "id": f"p{k}", "name": name, "input": data}])
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"p{k}", "content": "ok"}])
    plans = cm.working_state().plans
    assert [(p.tool, p.note, p.version) for p in plans] == [
        ("update_plan", "speed up the report", 1),
        ("TodoWrite", None, 1),
    ]


@pytest.mark.parametrize("shape", sorted(PLAN_SHAPES))
def test_two_raw_versions_show_only_the_latest(shape: str) -> None:
    """Both versions in the raw recent window (windowed, a budget that holds them but not the whole
    session): the older call shows the note, the newer one its plan; without the block (everything
    fits raw) both are shown as written."""
    cm = ContextManager.open("memory:")
    if shape == "custom":
        cm.ledger_config = CUSTOM
    for k in range(60):  # older chat, cut first
        cm.add_message("user" if k % 2 else "assistant", f"turn {k}: " + "earlier talk about the schema " * 12)
    b47(cm, PLAN_SHAPES[shape])
    tool = PLAN_SHAPES[shape](STATUSES_V2)[0]
    whole = cm.compile(10**6).tokens
    result = cm.compile(whole - 10)
    assert ledger_block(result) is not None
    by_id = {s.id: m for m in result.messages for s in m.sources if s.kind == "message"}
    assert "c1" in by_id and "c7" in by_id
    assert [b["input"] for b in by_id["c1"].content if b.get("type") == "tool_use"] == [{"superseded": SUPERSEDED_NOTE}]
    assert [b["input"] for b in by_id["c7"].content if b.get("type") == "tool_use"] == [
        PLAN_SHAPES[shape](STATUSES_V2)[1]
    ]
    assert [b.get("name") for b in by_id["c1"].content] == [tool]
    everything = cm.compile(whole + 1000)
    assert ledger_block(everything) is None
    assert not any(r.kind == "call_superseded" for r in everything.repairs)
    assert "superseded" not in text_of(everything)


def test_two_calls_of_a_plan_tool_in_one_message_show_the_last() -> None:
    cm = ContextManager.open("memory:")
    for k in range(60):  # older chat, cut first
        cm.add_message("user" if k % 2 else "assistant", f"turn {k}: " + "earlier talk about the schema " * 12)
    cm.add_message("user", "Plan it.", id="u0")
    first, second = PLAN_SHAPES["TodoWrite"](("pending",) * 3), PLAN_SHAPES["TodoWrite"](STATUSES_V2)
    cm.add_message(
        "assistant",
        [
            {"type": "tool_use", "id": "p0", "name": first[0], "input": first[1]},
            {"type": "tool_use", "id": "p1", "name": second[0], "input": second[1]},
        ],
        id="c1",
    )
    cm.add_message(
        "user",
        [{"type": "tool_result", "tool_use_id": t, "content": "ok"} for t in ("p0", "p1")],
        id="r1",
    )
    for k in range(1, 40):
        bash_pair(cm, k)
    whole = cm.compile(10**6).tokens
    result = cm.compile(whole - 10)
    assert ledger_block(result) is not None
    c1 = next(m for m in result.messages if any(s.id == "c1" for s in m.sources))
    inputs = {b["id"]: b["input"] for b in c1.content if b.get("type") == "tool_use"}
    assert inputs == {"p0": {"superseded": SUPERSEDED_NOTE}, "p1": second[1]}
