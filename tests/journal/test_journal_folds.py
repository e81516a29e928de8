"""Folds: active rule-outs against a simple model (hypothesis), task status, goal and next step, and the
incremental fold agreeing with the full one."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.journal import (
    Entry,
    EntryValidationError,
    ExecutionJournal,
    Fold,
    entry_hash,
    fold,
)
from context_journal.journal.entries import canonical_json, parse_body
from context_journal.stores import MemoryStore
from tests.hypothesis_budget import examples
from tests.journal._journal_helpers import handoff, plan, verification

IDS = ["a", "b", "c", "d", "e"]


def make_entries(project: str, items: list[tuple[str, dict[str, Any]]], author: str = "w") -> list[Entry]:
    """Entries (with a valid chain) from ``(kind, body)`` pairs, without a store."""
    out: list[Entry] = []
    prev = ""
    for seq, (kind, body) in enumerate(items, 1):
        data = parse_body(kind, body).model_dump(mode="json")
        digest = entry_hash(prev, project, seq, kind, author, data)
        out.append(
            Entry(
                project=project,
                seq=seq,
                store_seq=seq,
                kind=kind,
                author=author,
                idempotency_key=f"k{seq}",
                body=data,
                prev_hash=prev,
                hash=digest,
                ts=0.0,
            )
        )
        prev = digest
    return out


ops_strategy = st.lists(
    st.one_of(
        st.tuples(st.just("intro"), st.lists(st.sampled_from(IDS), min_size=1, max_size=3, unique=True)),
        st.tuples(st.just("reverse"), st.sampled_from(IDS)),
    ),
    max_size=40,
)


def model_of(ops: list[tuple[str, Any]]) -> dict[str, int]:
    """The simple model: id -> seq of its introduction, for the active ids. A reverse of an inactive id does
    nothing (the journal refuses to write one; the fold ignores one)."""
    active: dict[str, int] = {}
    for seq, (op, arg) in enumerate(ops, 1):
        if op == "intro":
            for rid in arg:
                active.setdefault(rid, seq)
        else:
            active.pop(arg, None)
    return active


def ops_to_items(ops: list[tuple[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    items: list[tuple[str, dict[str, Any]]] = []
    for i, (op, arg) in enumerate(ops):
        if op == "intro":
            items.append(("handoff", handoff(f"step {i}", ruled_out=[(r, f"item {r}", f"why {r} {i}") for r in arg])))
        else:
            items.append(("reverse_ruleout", {"id": arg, "reason": f"back at {i}"}))
    return items


@given(ops_strategy)
@settings(max_examples=examples(150), deadline=None)
def test_active_rule_outs_match_a_simple_model(ops: list[tuple[str, Any]]) -> None:
    state = fold(make_entries("p", ops_to_items(ops)), "p")
    assert {r.id: r.seq for r in state.rule_outs} == model_of(ops)
    assert state.active_ids().isdisjoint({r.id for r in state.reversed})
    for r in state.rule_outs:  # the introduction's item stands while active
        assert r.item == f"item {r.id}"


@given(ops_strategy)
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_journal_refuses_inactive_reversals_and_agrees_with_the_model(ops: list[tuple[str, Any]]) -> None:
    journal = ExecutionJournal(MemoryStore())
    applied: list[tuple[str, Any]] = []
    active: set[str] = set()
    for i, (op, arg) in enumerate(ops):
        kind, body = ops_to_items([(op, arg)])[0]
        if op == "reverse" and arg not in active:
            with pytest.raises(EntryValidationError, match="not active"):
                journal.append("p", kind, body, "w", f"k{i}")
            continue
        journal.append("p", kind, body, "w", f"k{i}")
        applied.append((op, arg))
        active = set(model_of(applied))
    state = journal.state("p")
    assert {r.id: r.seq for r in state.rule_outs} == model_of(applied)
    assert state == fold(journal.entries("p"), "p")


def test_task_status_goal_and_next_step() -> None:
    items: list[tuple[str, dict[str, Any]]] = [
        ("plan", plan(tasks=3)),  # 1
        ("handoff", handoff("s2", next_step="n2", claims=["T1", "T9"])),  # 2: T9 is not in the plan
        ("verification", verification("T1", passed=False)),  # 3
        ("handoff", handoff("s4", goal="Ship v2", next_step="n4", claims=["T1", "T2"])),  # 4
        ("verification", verification("T1", passed=True)),  # 5
        ("step", {"report": "raw"}),  # 6
    ]
    state = fold(make_entries("p", items), "p")
    by_id = {t.id: t for t in state.tasks}
    assert (by_id["T1"].status, by_id["T1"].seq, by_id["T1"].claim_seq, by_id["T1"].verification_seq) == (
        "verified",
        5,
        4,
        5,
    )
    assert (by_id["T2"].status, by_id["T2"].seq) == ("claimed", 4)
    assert (by_id["T3"].status, by_id["T3"].seq) == ("open", None)
    assert state.unknown_claims == (("T9", 2),)
    assert (state.goal, state.goal_seq, state.next_step, state.next_step_seq) == ("Ship v2", 4, "n4", 4)
    assert state.handoffs == 2 and state.last_handoff_seq == 4 and state.head_seq == 6
    # a revision keeps the status of the tasks it keeps, drops the others, adds new ones as open
    revised = plan(tasks=2)["tasks"] + [{"id": "T7", "title": "new", "conditions": [{"id": "c1", "description": "d"}]}]
    items.append(("plan_revision", {"replaces": 1, "reason": "scope", "goal": "Ship v3", "tasks": revised}))  # 7
    items.append(("handoff", handoff("s8", goal="Ship v3", claims=["T3"])))  # 8: T3 is gone now
    state = fold(make_entries("p", items), "p")
    assert [(t.id, t.status) for t in state.tasks] == [("T1", "verified"), ("T2", "claimed"), ("T7", "open")]
    assert state.plan is not None and state.plan.seq == 7 and state.goal == "Ship v3"
    assert state.unknown_claims[-1] == ("T3", 8)


def test_the_incremental_fold_equals_the_full_fold() -> None:
    items = ops_to_items([("intro", ["a", "b"]), ("reverse", "a"), ("intro", ["a", "c"]), ("reverse", "c")])
    entries = make_entries("p", [("plan", plan()), *items])
    f = Fold("p")
    for e in entries:
        before = f.copy()
        f.apply(e)
        assert before.head_seq == e.seq - 1  # the copy did not move
        assert f.snapshot() == fold(entries[: e.seq], "p")
    with pytest.raises(ValueError, match="cannot apply"):
        f.apply(entries[0])
    with pytest.raises(ValueError, match="slug"):
        fold([])
    assert fold([], "empty").head_seq == 0


def test_entries_chain_and_canonical_bodies() -> None:
    entries = make_entries("p", [("step", {"report": "  padded  "})])
    assert entries[0].body == {"report": "padded", "task_id": None}
    assert canonical_json(entries[0].body) == '{"report":"padded","task_id":null}'
