"""Drift checks: pure, deterministic functions of (journal, brief, plan) returning findings with evidence.

* **Reconciliation** (:func:`reconcile`): the brief is rebuilt from the fold of the journal at its
  ``as_of_seq`` (:func:`~.brief.brief_from_state`) and the two are diffed by ids and fields — never by
  prose similarity. A rule-out the fold has and the brief lacks is ``ruleout_dropped``; one the brief has
  and the fold does not (never introduced, or reversed) is ``ruleout_invented``; the same id with another
  item, reason or seq is ``ruleout_mismatch``; tasks likewise (``task_missing``, ``task_invented``,
  ``task_status_mismatch``); goal, next step, plan and ``as_of_seq`` are ``field_mismatch``.
* **Staleness**: a brief more than ``stale_after`` entries behind the head is ``brief_stale``.
* **Citations**: a claim citing nothing is ``uncited_claim``; one citing a seq outside the entries the
  synthesizer was given (``cite_from..cite_to``, never past ``as_of_seq``) is ``bad_citation``.
* **Journal** (:func:`check_journal`, warnings): a task claimed done with no later passing verification
  (``claim_unverified``), a done claim naming no task of the plan (``claim_unknown_task``).

Every check above except the journal ones is an error: a brief with one is rejected or rebuilt.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from .._graphemes import clip_end
from .brief import Brief, Finding, brief_from_state
from .entries import Entry
from .folds import Fold, ProjectState

__all__ = [
    "DEFAULT_STALE_AFTER",
    "DriftReport",
    "check_brief",
    "check_citations",
    "check_drift",
    "check_journal",
    "check_stale",
    "reconcile",
]

DEFAULT_STALE_AFTER = 20
"""A brief more than this many entries behind the head is stale (entries)."""

MAX_UNKNOWN_CLAIM_FINDINGS = 20
"""At most this many ``claim_unknown_task`` findings (the newest); the journal keeps them all."""


def _error(code: str, message: str, evidence: Sequence[int] = (), subject: str | None = None) -> Finding:
    return Finding(code=code, level="error", message=message, evidence=sorted(set(evidence)), subject=subject)


def reconcile(brief: Brief, state: ProjectState) -> list[Finding]:
    """Diff the brief's mechanical fields with the brief rebuilt from ``state`` (the fold at the seq the brief
    should describe), by ids and fields.

    Returns:
        Error findings, one per difference.
    """
    expected = brief_from_state(state)
    out: list[Finding] = []
    evidence_of = {
        "as_of_seq": state.head_seq,
        "goal": expected.goal_seq,
        "goal_seq": expected.goal_seq,
        "next_step": expected.next_step_seq,
        "next_step_seq": expected.next_step_seq,
        "plan_seq": expected.plan_seq,
    }
    for name, seq in evidence_of.items():
        got, want = getattr(brief, name), getattr(expected, name)
        if got != want:
            message = f"{name} is {got!r}; the journal says {want!r}"
            out.append(_error("field_mismatch", message, [seq] if seq else [], name))
    want_rules = {r.id: r for r in expected.rule_outs}
    got_rules = {r.id: r for r in brief.rule_outs}
    reversed_by_id = {r.id: r for r in state.reversed}
    for rid, r in want_rules.items():
        if rid not in got_rules:
            out.append(
                _error("ruleout_dropped", f"active rule-out {rid!r} ({r.item}) is missing from the brief", [r.seq], rid)
            )
        elif got_rules[rid] != r:
            g = got_rules[rid]
            fields = [f for f in ("item", "reason", "seq") if getattr(g, f) != getattr(r, f)]
            out.append(_error("ruleout_mismatch", f"rule-out {rid!r} differs in {', '.join(fields)}", [r.seq], rid))
    for rid, g in got_rules.items():
        if rid in want_rules:
            continue
        gone = reversed_by_id.get(rid)
        if gone is not None:
            message = f"rule-out {rid!r} was reversed at #{gone.seq}; it is not active"
            evidence = [gone.introduced_seq, gone.seq]
        else:
            message = f"rule-out {rid!r} was never introduced by the journal"
            evidence = [g.seq] if 1 <= g.seq <= state.head_seq else []
        out.append(_error("ruleout_invented", message, evidence, rid))
    want_tasks = {t.id: t for t in expected.tasks}
    got_tasks = {t.id: t for t in brief.tasks}
    plan_evidence = [state.plan.seq] if state.plan else []
    for tid, t in want_tasks.items():
        g_task = got_tasks.get(tid)
        if g_task is None:
            out.append(_error("task_missing", f"task {tid!r} of the plan is missing", plan_evidence, tid))
        elif g_task != t:
            message = f"task {tid!r} is {g_task.status} (#{g_task.seq}); the journal says {t.status} (#{t.seq})"
            out.append(_error("task_status_mismatch", message, [t.seq] if t.seq else plan_evidence, tid))
    for tid in got_tasks.keys() - want_tasks.keys():
        out.append(_error("task_invented", f"task {tid!r} is not in the current plan", [], tid))
    return out


def check_stale(brief: Brief, head_seq: int, stale_after: int = DEFAULT_STALE_AFTER) -> list[Finding]:
    """``brief_stale`` when the brief is more than ``stale_after`` entries behind ``head_seq``; the evidence is
    the first and last entries it does not cover."""
    behind = head_seq - brief.as_of_seq
    if behind <= stale_after:
        return []
    return [
        _error(
            "brief_stale",
            f"the brief describes #{brief.as_of_seq}, {behind} entries behind the head #{head_seq} "
            f"(more than {stale_after})",
            [brief.as_of_seq + 1, head_seq],
        )
    ]


def check_citations(brief: Brief) -> list[Finding]:
    """``uncited_claim`` and ``bad_citation`` findings of the narrative (a claim may cite
    ``cite_from..min(cite_to, as_of_seq)``)."""
    lo, hi = max(1, brief.cite_from), min(brief.cite_to, brief.as_of_seq)
    out: list[Finding] = []
    for i, claim in enumerate(brief.narrative):
        subject = f"narrative[{i}]"
        if not claim.cites:
            out.append(_error("uncited_claim", f"claim {i} cites no entry: {clip_end(claim.text, 120)!r}", [], subject))
            continue
        bad = [c for c in claim.cites if not lo <= c <= hi]
        if bad:
            out.append(
                _error(
                    "bad_citation",
                    f"claim {i} cites {', '.join(f'#{c}' for c in bad)}, outside the entries it was written from "
                    f"(#{lo}..#{hi})",
                    [c for c in bad if 1 <= c <= brief.as_of_seq],
                    subject,
                )
            )
    return out


def check_journal(state: ProjectState) -> list[Finding]:
    """Warnings about the journal itself: ``claim_unverified`` (a task whose newest event is a done claim, with
    no later passing verification) and ``claim_unknown_task`` (the newest
    :data:`MAX_UNKNOWN_CLAIM_FINDINGS` done claims naming no task of the plan)."""
    out: list[Finding] = []
    for t in state.tasks:
        if t.status == "claimed" and t.claim_seq is not None:
            evidence = [t.claim_seq] + ([t.verification_seq] if t.verification_seq else [])
            out.append(
                Finding(
                    code="claim_unverified",
                    level="warning",
                    message=f"task {t.id!r} was claimed done at #{t.claim_seq} with no later passing verification",
                    evidence=sorted(evidence),
                    subject=t.id,
                )
            )
    for task_id, seq in state.unknown_claims[-MAX_UNKNOWN_CLAIM_FINDINGS:]:
        out.append(
            Finding(
                code="claim_unknown_task",
                level="warning",
                message=f"#{seq} claims task {task_id!r} done, but the plan has no such task",
                evidence=[seq],
                subject=task_id,
            )
        )
    return out


def check_brief(
    brief: Brief, state: ProjectState, *, head_seq: int | None = None, stale_after: int = DEFAULT_STALE_AFTER
) -> list[Finding]:
    """Every brief check: reconciliation against ``state`` (the fold at the seq the brief should describe),
    staleness against ``head_seq`` (default ``state.head_seq``) and citations.

    Returns:
        Error findings (empty: the brief passes).
    """
    head = state.head_seq if head_seq is None else head_seq
    return [*reconcile(brief, state), *check_stale(brief, head, stale_after), *check_citations(brief)]


class DriftReport(BaseModel):
    """The result of :func:`check_drift`.

    Attributes:
        project: The slug.
        head_seq: The journal head checked against.
        brief_version: The brief checked, or None (journal checks only).
        findings: Errors first, then warnings.
        ok: True when there is no error-level finding.
    """

    model_config = ConfigDict(frozen=True)

    project: str
    head_seq: int
    brief_version: int | None = None
    findings: list[Finding] = Field(default_factory=list)
    ok: bool = True


def make_report(project: str, head_seq: int, brief: Brief | None, findings: list[Finding]) -> DriftReport:
    """A report with findings sorted errors first (stable otherwise)."""
    ordered = sorted(findings, key=lambda f: f.level != "error")
    return DriftReport(
        project=project,
        head_seq=head_seq,
        brief_version=brief.version if brief is not None else None,
        findings=ordered,
        ok=not any(f.level == "error" for f in ordered),
    )


def check_drift(
    entries: Sequence[Entry],
    brief: Brief | None = None,
    *,
    project: str | None = None,
    stale_after: int = DEFAULT_STALE_AFTER,
) -> DriftReport:
    """All checks from the entries themselves (pure): the journal's warnings and, with a brief, the brief's
    errors (reconciled against the fold at ``brief.as_of_seq``).

    Args:
        entries: The project's entries from #1, in order.
        brief: The brief to check, or None.
        project: The slug (needed when ``entries`` is empty).
        stale_after: Entries a brief may lag behind the head.
    """
    slug = project or (entries[0].project if entries else brief.project if brief else None)
    if slug is None:
        raise ValueError("check_drift() of no entries and no brief needs the project's slug")
    f = Fold(slug)
    at_brief: ProjectState | None = None
    if brief is not None and brief.as_of_seq == 0:
        at_brief = f.snapshot()
    for e in entries:
        f.apply(e)
        if brief is not None and e.seq == brief.as_of_seq:
            at_brief = f.snapshot()
    head = f.snapshot()
    findings = check_journal(head)
    if brief is not None:
        if at_brief is None:  # the brief claims a head the journal never had
            at_brief = head
        findings = [*check_brief(brief, at_brief, head_seq=head.head_seq, stale_after=stale_after), *findings]
    return make_report(slug, head.head_seq, brief, findings)
