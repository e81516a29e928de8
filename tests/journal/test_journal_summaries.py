"""get_project_summaries and render_for_harness: bounded whatever workers wrote, paged with a cursor, and
constant in size from step 3 to step 200 of a simulated project."""

from __future__ import annotations

import pytest

from context_journal.journal import ExecutionJournal
from context_journal.journal.summaries import MIN_PAGE_TOKENS, json_tokens
from context_journal.stores import MemoryStore
from context_journal.tokens import EstimatingCounter, estimate_text_tokens
from tests.journal._journal_helpers import handoff, plan, verification

HUGE = "🚀" * 3000  # the worst text for the estimate: about 2.6 tokens a character


def _monster_handoff(i: int) -> dict[str, object]:
    """As large as the schema and the 64 KiB body limit let a worker write, in the costliest characters."""
    return handoff(
        f"{HUGE[:1500]} state {i}",
        goal=HUGE[:1500],
        next_step=HUGE[:1500],
        ruled_out=[(f"r{i}-{k}", HUGE[:200], HUGE[:300]) for k in range(12)],
        claims=[f"T{k}" for k in range(40)],
        refs=[f"{HUGE[:100]}{k}" for k in range(20)],
    )


def test_every_field_and_the_page_are_bounded(journal: ExecutionJournal) -> None:
    for i in range(6):
        journal.append("p", "handoff", _monster_handoff(i), "a" * 200, f"h{i}")
    page = journal.get_project_summaries("p", limit=50, max_tokens=MIN_PAGE_TOKENS)
    assert page.tokens <= MIN_PAGE_TOKENS and json_tokens(page) <= MIN_PAGE_TOKENS
    assert page.summaries, "at least one summary always fits"
    s = page.summaries[0]
    assert s.clipped and s.omitted == {"ruled_out": 7, "done_claims": 30, "refs": 17}
    assert estimate_text_tokens(s.state) <= 200 and estimate_text_tokens(s.goal) <= 80
    assert len(s.ruled_out) == 5 and len(s.done_claims) == 10 and len(s.refs) == 3
    assert page.active_rule_outs_total == 72 and len(page.active_rule_outs) < 72
    assert page.next_before_seq == page.summaries[-1].seq  # the rest of the window comes on the next page
    default = journal.get_project_summaries("p")
    assert default.tokens <= 8000


def test_paging_order_and_cursor(journal: ExecutionJournal) -> None:
    journal.append("p", "plan", plan(), "lead", "plan")
    for i in range(1, 24):
        if i % 3 == 0:
            journal.append("p", "step", {"report": f"raw {i}"}, "ann", f"s{i}")
        else:
            journal.append("p", "handoff", handoff(f"state {i}", ruled_out=[(f"r{i}", "x", "y")]), "ann", f"h{i}")
    handoff_seqs = [e.seq for e in journal.entries("p", kinds=["handoff"])]
    first = journal.get_project_summaries("p", limit=5)
    assert [s.seq for s in first.summaries] == handoff_seqs[::-1][:5]
    asc = journal.get_project_summaries("p", limit=5, order="asc")
    assert [s.seq for s in asc.summaries] == handoff_seqs[-5:]  # order sorts the same (newest) window
    seen: list[int] = []
    cursor: int | None = None
    while True:
        page = journal.get_project_summaries("p", limit=4, before_seq=cursor)
        seen += [s.seq for s in page.summaries]
        cursor = page.next_before_seq
        if cursor is None:
            break
    assert seen == handoff_seqs[::-1]
    assert first.active_rule_outs[0].id == f"r{handoff_seqs[-1] - 1}"  # most recently listed first
    assert first.goal == "Ship the parser" and first.tasks_total == 3 and first.head_seq == 24
    with pytest.raises(ValueError, match="limit"):
        journal.get_project_summaries("p", limit=0)
    with pytest.raises(ValueError, match="order"):
        journal.get_project_summaries("p", order="newest")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_tokens"):
        journal.get_project_summaries("p", max_tokens=100)
    empty = journal.get_project_summaries("nothing")
    assert empty.summaries == [] and empty.next_before_seq is None and empty.head_seq == 0


def test_render_is_bounded_and_never_hides_rule_outs_silently(journal: ExecutionJournal) -> None:
    journal.append("p", "plan", plan(tasks=30), "lead", "plan")
    for i in range(40):
        journal.append("p", "handoff", _monster_handoff(i), "ann", f"h{i}")
    view = journal.render_for_harness("p", max_tokens=600)
    assert view.tokens <= 600
    assert EstimatingCounter().count_message("user", view.blocks) == view.tokens
    text = view.text()
    assert "do not propose these again (480 active)" in text
    assert view.omitted["rule_outs"] > 0 and f"+ {view.omitted['rule_outs']} more active rule-outs" in text
    with pytest.raises(ValueError, match="max_tokens"):
        journal.render_for_harness("p", max_tokens=100)


def test_render_plugs_into_compile() -> None:
    from context_journal.manager import ContextManager

    store = MemoryStore()
    journal = ExecutionJournal(store)
    journal.append("p", "handoff", handoff(ruled_out=[("regex", "regex parser", "cannot nest")]), "ann", "h1")
    view = journal.render_for_harness("p", max_tokens=400)
    with ContextManager.open(store=store, namespace="orchestrator") as cm:
        cm.add_message("user", "What next?")
        result = cm.compile(2000, injections=[view.to_injection()])
    system_text = " ".join(b["text"] for b in result.system)
    assert "regex" in system_text and "do not propose" in system_text
    assert result.tokens <= 2000


def _simulate(journal: ExecutionJournal, start: int, stop: int) -> None:
    for step in range(start, stop):
        if step == 0:
            journal.append("sim", "plan", plan(tasks=12), "lead", "plan")
            continue
        journal.append("sim", "step", {"report": f"step {step}: " + "log line " * 300}, f"w{step % 3}", f"s{step}")
        rules = [(f"idea-{step}", f"approach {step}", "benchmarks were worse " * 3)] if step % 4 == 0 else []
        claims = [f"T{(step // 10) % 12 + 1}"] if step % 10 == 9 else []
        journal.append(
            "sim",
            "handoff",
            handoff(
                f"step {step} state " + "detail " * 120, next_step=f"do {step + 1}", ruled_out=rules, claims=claims
            ),
            f"w{step % 3}",
            f"h{step}",
        )
        if step % 10 == 9:
            journal.append("sim", "verification", verification(claims[0], passed=step % 20 == 9), "harness", f"v{step}")
        if step % 25 == 0 and journal.brief_needed("sim", threshold_tokens=3000).needed:
            journal.build_brief("sim")
        if step % 40 == 0:
            journal.append(
                "sim", "reverse_ruleout", {"id": f"idea-{step - 4}", "reason": "new data"}, "lead", f"x{step}"
            )


def test_a_200_step_project_stays_within_bounds_at_step_3_and_200() -> None:
    journal = ExecutionJournal(MemoryStore())
    _simulate(journal, 0, 4)
    early_page = journal.get_project_summaries("sim")
    early_view = journal.render_for_harness("sim", max_tokens=1500)
    _simulate(journal, 4, 201)
    late_page = journal.get_project_summaries("sim")
    late_view = journal.render_for_harness("sim", max_tokens=1500)
    assert journal.head_seq("sim") > 400
    for page in (early_page, late_page):
        assert page.tokens <= 8000 and json_tokens(page) <= 8000
    for view in (early_view, late_view):
        assert view.tokens <= 1500
    assert len(late_page.summaries) == 10 and late_page.active_rule_outs_total == 50 - 5
    assert late_view.tokens <= 1500 and "Brief v" in late_view.text()
    assert journal.verify_chain("sim").ok
    drift = journal.check_drift("sim")
    assert drift.ok, drift.findings
    print(
        f"\nsummaries {early_page.tokens} -> {late_page.tokens} tokens; view {early_view.tokens} -> "
        f"{late_view.tokens} tokens; head #{journal.head_seq('sim')}, {len(journal.list_briefs('sim'))} briefs"
    )
