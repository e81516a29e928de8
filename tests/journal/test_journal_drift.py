"""Drift checks: a brief built from the fold always passes; removing (or inventing, or changing) any
mechanical fact always fails, with evidence seqs; staleness; citations; the journal's warnings."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from context_journal.journal import (
    Brief,
    BriefRuleOut,
    BriefTask,
    NarrativeClaim,
    brief_from_state,
    check_brief,
    check_drift,
    fold,
    reconcile,
)
from tests.hypothesis_budget import examples
from tests.journal._journal_helpers import handoff, plan, verification
from tests.journal.test_journal_folds import IDS, make_entries

TASKS = ["T1", "T2", "T3"]

op = st.one_of(
    st.tuples(st.just("intro"), st.lists(st.sampled_from(IDS), min_size=1, max_size=3, unique=True)),
    st.tuples(st.just("reverse"), st.sampled_from(IDS)),
    st.tuples(st.just("claim"), st.lists(st.sampled_from([*TASKS, "T9"]), min_size=1, max_size=2, unique=True)),
    st.tuples(st.just("verify"), st.tuples(st.sampled_from(TASKS), st.booleans())),
    st.tuples(st.just("step"), st.just(None)),
)


def journal_items(ops: list[tuple[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """A valid journal: a plan, then the ops (reversals of inactive ids skipped, as the journal refuses them)."""
    items: list[tuple[str, dict[str, Any]]] = [("plan", plan(tasks=3))]
    active: set[str] = set()
    for i, (name, arg) in enumerate(ops):
        if name == "intro":
            items.append(
                ("handoff", handoff(f"s{i}", next_step=f"n{i}", ruled_out=[(r, f"it {r}", "why") for r in arg]))
            )
            active |= set(arg)
        elif name == "reverse" and arg in active:
            items.append(("reverse_ruleout", {"id": arg, "reason": "back"}))
            active.discard(arg)
        elif name == "claim":
            items.append(("handoff", handoff(f"s{i}", claims=arg)))
        elif name == "verify":
            items.append(("verification", verification(arg[0], arg[1])))
        elif name == "step":
            items.append(("step", {"report": f"raw {i}"}))
    return items


@given(st.lists(op, max_size=30))
@settings(max_examples=examples(150), deadline=None)
def test_a_brief_from_the_fold_passes_and_removing_any_rule_out_fails(ops: list[tuple[str, Any]]) -> None:
    entries = make_entries("p", journal_items(ops))
    state = fold(entries)
    brief = brief_from_state(state, narrative=[NarrativeClaim(text="the plan exists", cites=[1])])
    assert check_brief(brief, state) == []
    assert check_drift(entries, brief).ok
    for i, r in enumerate(brief.rule_outs):
        dropped = brief.model_copy(update={"rule_outs": brief.rule_outs[:i] + brief.rule_outs[i + 1 :]})
        findings = check_brief(dropped, state)
        assert [(f.code, f.subject, f.evidence) for f in findings] == [("ruleout_dropped", r.id, [r.seq])]
        assert not check_drift(entries, dropped).ok
    # inventing one fails too: a reversed id names its reversal, an unknown one nothing
    for rid in IDS:
        if rid in state.active_ids():
            continue
        invented = brief.model_copy(
            update={"rule_outs": [*brief.rule_outs, BriefRuleOut(id=rid, item="x", reason="y", seq=0)]}
        )
        findings = check_brief(invented, state)
        assert [f.code for f in findings] == ["ruleout_invented"]
        gone = {r.id: r for r in state.reversed}.get(rid)
        assert findings[0].evidence == ([gone.introduced_seq, gone.seq] if gone else [])
    # so does a wrong task status
    for i, t in enumerate(brief.tasks):
        other = "verified" if t.status != "verified" else "claimed"
        changed = list(brief.tasks)
        changed[i] = BriefTask(id=t.id, status=other, seq=t.seq)
        assert [f.code for f in check_brief(brief.model_copy(update={"tasks": changed}), state)] == [
            "task_status_mismatch"
        ]


def _state_and_entries() -> tuple[Any, Any]:
    items = [
        ("plan", plan(tasks=2)),  # 1
        ("handoff", handoff("s2", ruled_out=[("regex", "regex parser", "cannot nest")], claims=["T1"])),  # 2
        ("handoff", handoff("s3", next_step="n3", ruled_out=[("lalr", "LALR tables", "too slow")])),  # 3
        ("reverse_ruleout", {"id": "lalr", "reason": "new generator"}),  # 4
    ]
    entries = make_entries("p", items)
    return fold(entries), entries


def test_reconciliation_diffs_ids_and_fields_not_prose() -> None:
    state, _ = _state_and_entries()
    good = brief_from_state(state)
    assert reconcile(good, state) == []
    # same ids, a changed reason: a field mismatch, whatever the wording
    changed = good.model_copy(
        update={"rule_outs": [r.model_copy(update={"reason": "cannot nest."}) for r in good.rule_outs]}
    )
    assert [(f.code, f.subject, f.evidence) for f in reconcile(changed, state)] == [("ruleout_mismatch", "regex", [2])]
    lied = good.model_copy(update={"next_step": "rewrite in Rust", "goal_seq": 1, "plan_seq": None})
    found = {(f.code, f.subject): f.evidence for f in reconcile(lied, state)}
    assert found == {
        ("field_mismatch", "next_step"): [3],
        ("field_mismatch", "goal_seq"): [3],
        ("field_mismatch", "plan_seq"): [1],
    }
    extra_task = good.model_copy(update={"tasks": [*good.tasks, BriefTask(id="T5", status="open")]})
    assert [f.code for f in reconcile(extra_task, state)] == ["task_invented"]
    missing_task = good.model_copy(update={"tasks": good.tasks[1:]})
    assert [(f.code, f.evidence) for f in reconcile(missing_task, state)] == [("task_missing", [1])]
    reversed_kept = good.model_copy(
        update={"rule_outs": [*good.rule_outs, BriefRuleOut(id="lalr", item="LALR tables", reason="too slow", seq=3)]}
    )
    f = reconcile(reversed_kept, state)
    assert [(x.code, x.evidence) for x in f] == [("ruleout_invented", [3, 4])]
    assert "reversed at #4" in f[0].message


def test_staleness_and_citations() -> None:
    state, _ = _state_and_entries()
    brief = brief_from_state(state, narrative=[NarrativeClaim(text="regex ruled out", cites=[2])])
    assert check_brief(brief, state, head_seq=4 + 20) == []
    stale = check_brief(brief, state, head_seq=4 + 21, stale_after=20)
    assert [(f.code, f.evidence) for f in stale] == [("brief_stale", [5, 25])]
    assert [f.code for f in check_brief(brief, state, head_seq=10, stale_after=5)] == ["brief_stale"]
    claims = [
        NarrativeClaim(text="fine", cites=[2, 3]),
        NarrativeClaim(text="no source", cites=[]),
        NarrativeClaim(text="from the future", cites=[9]),
        NarrativeClaim(text="outside the window", cites=[1, 3]),
    ]
    windowed = brief_from_state(state, narrative=claims, mode="windowed", cite_from=2)
    found = [(f.code, f.subject, f.evidence) for f in check_brief(windowed, state)]
    assert found == [
        ("uncited_claim", "narrative[1]", []),
        ("bad_citation", "narrative[2]", []),
        ("bad_citation", "narrative[3]", [1]),
    ]


def test_check_drift_reconciles_at_the_briefs_seq_and_warns_about_the_journal() -> None:
    _, entries = _state_and_entries()
    old = brief_from_state(fold(entries[:2]))  # as of #2: "lalr" not introduced yet, nothing reversed
    report = check_drift(entries, old)
    assert report.ok and report.head_seq == 4
    assert [(f.code, f.level, f.evidence) for f in report.findings] == [("claim_unverified", "warning", [2])]
    items = [
        ("plan", plan(tasks=2)),
        ("handoff", handoff("s", claims=["T1", "T7"])),
        ("verification", verification("T1")),
    ]
    clean = check_drift(make_entries("p", items))
    assert [(f.code, f.subject) for f in clean.findings] == [("claim_unknown_task", "T7")] and clean.ok
    future = Brief(project="p", as_of_seq=99, cite_to=99)
    bad = check_drift(entries, future)
    assert not bad.ok and bad.findings[0].level == "error"
