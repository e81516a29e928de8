"""Folds: what a project's journal says now, as pure functions of its entries.

:func:`fold` reads entries in seq order and returns a :class:`ProjectState`:

* **Active rule-outs.** A handoff's ``ruled_out`` item introduces its id when the id is not active (never
  seen, or reversed since); while it is active, later handoffs repeating the id change nothing (the
  introduction's ``item`` and ``reason`` stand, and the introduction's seq is the evidence). Only a
  ``reverse_ruleout`` ends it. A handoff that leaves an active id out does not end it.
* **Task status** of the current plan's tasks, from the newest event of each task: ``open`` (no event),
  ``claimed`` (a handoff listed it in ``done_claims``), ``verified`` or ``failed`` (a verification whose
  conditions all passed, or not). A revision keeps the status of tasks whose ids it keeps.
* **Latest goal and next step**: the newest handoff's ``next_step``; the newest goal of a handoff, plan or
  revision.

:class:`Fold` is the same computation, incremental: the journal keeps one per project and applies only
the entries written since (``fold(entries) == Fold(...).apply(each).snapshot()``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from .entries import (
    Entry,
    HandoffBody,
    PlanBody,
    PlanRevisionBody,
    ReverseRuleOutBody,
    Task,
    VerificationBody,
)

__all__ = ["ActiveRuleOut", "Fold", "PlanState", "ProjectState", "ReversedRuleOut", "TaskState", "TaskStatus", "fold"]

TaskStatus = Literal["open", "claimed", "verified", "failed"]


class ActiveRuleOut(BaseModel):
    """An active rule-out.

    Attributes:
        id: Its stable id.
        item: What was ruled out.
        reason: Why.
        seq: The entry that introduced it (evidence).
        last_seq: The newest handoff that listed it.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    item: str
    reason: str
    seq: int
    last_seq: int


class ReversedRuleOut(BaseModel):
    """A rule-out that was reversed (and not introduced again since).

    Attributes:
        id: Its id.
        reason: Why it was reversed.
        seq: The ``reverse_ruleout`` entry.
        introduced_seq: The entry that had introduced it.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    reason: str
    seq: int
    introduced_seq: int


class TaskState(BaseModel):
    """A task of the current plan and its status.

    Attributes:
        id: The task id.
        title: Its title.
        status: ``open``, ``claimed``, ``verified`` or ``failed``.
        seq: The entry that set the status (a handoff's claim or a verification), or None when open.
        claim_seq: The newest claim, or None.
        verification_seq: The newest verification, or None.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    title: str
    status: TaskStatus
    seq: int | None = None
    claim_seq: int | None = None
    verification_seq: int | None = None


class PlanState(BaseModel):
    """The current plan.

    Attributes:
        seq: The ``plan`` or newest ``plan_revision`` entry.
        goal: Its goal (a revision without a goal keeps the previous one).
        tasks: Its tasks with their conditions.
    """

    model_config = ConfigDict(frozen=True)

    seq: int
    goal: str
    tasks: tuple[Task, ...]

    def task(self, task_id: str) -> Task | None:
        """The task with this id, or None."""
        return next((t for t in self.tasks if t.id == task_id), None)


class ProjectState(BaseModel):
    """What the journal says as of ``head_seq`` (the result of :func:`fold`).

    Attributes:
        project: The slug.
        head_seq: The newest entry folded (0 for none).
        plan: The current plan, or None.
        goal: The newest goal (handoff, plan or revision), or None.
        goal_seq: Its entry.
        next_step: The newest handoff's next step, or None.
        next_step_seq: Its entry.
        rule_outs: Active rule-outs, oldest introduction first.
        reversed: Rule-outs reversed and not introduced again, oldest reversal first.
        tasks: The current plan's tasks, in plan order.
        unknown_claims: ``(task_id, seq)`` of done claims naming no task of the plan at the time.
        handoffs: How many handoffs.
        last_handoff_seq: The newest handoff, or None.
    """

    model_config = ConfigDict(frozen=True)

    project: str
    head_seq: int = 0
    plan: PlanState | None = None
    goal: str | None = None
    goal_seq: int | None = None
    next_step: str | None = None
    next_step_seq: int | None = None
    rule_outs: tuple[ActiveRuleOut, ...] = ()
    reversed: tuple[ReversedRuleOut, ...] = ()
    tasks: tuple[TaskState, ...] = ()
    unknown_claims: tuple[tuple[str, int], ...] = ()
    handoffs: int = 0
    last_handoff_seq: int | None = None

    def active_ids(self) -> set[str]:
        """Ids of the active rule-outs."""
        return {r.id for r in self.rule_outs}

    def rule_out(self, rule_out_id: str) -> ActiveRuleOut | None:
        """The active rule-out with this id, or None."""
        return next((r for r in self.rule_outs if r.id == rule_out_id), None)

    def task(self, task_id: str) -> TaskState | None:
        """The task of the current plan with this id, or None."""
        return next((t for t in self.tasks if t.id == task_id), None)


class Fold:
    """The incremental fold of one project (mutable; :meth:`snapshot` gives the immutable state).

    Args:
        project: The slug.
    """

    def __init__(self, project: str) -> None:
        self.project = project
        self.head_seq = 0
        self.plan: PlanState | None = None
        self.goal: tuple[str, int] | None = None
        self.next_step: tuple[str, int] | None = None
        self.active: dict[str, ActiveRuleOut] = {}
        self.reversed: dict[str, ReversedRuleOut] = {}
        # task id -> (status, seq) of its newest event; claim and verification seqs
        self.events: dict[str, tuple[TaskStatus, int]] = {}
        self.claims: dict[str, int] = {}
        self.verifications: dict[str, int] = {}
        self.unknown_claims: list[tuple[str, int]] = []
        self.handoffs = 0
        self.last_handoff_seq: int | None = None

    def copy(self) -> Fold:
        """An independent copy (to try an entry without changing this fold)."""
        other = Fold(self.project)
        other.__dict__.update({k: (v.copy() if isinstance(v, dict | list) else v) for k, v in self.__dict__.items()})
        return other

    def apply(self, entry: Entry) -> None:
        """Fold one entry in; entries must come in seq order. A redacted entry (its body erased) moves the
        head and says nothing: what it said is gone from the fold too.

        Raises:
            ValueError: the entry is not the next one (``head_seq + 1``) or belongs to another project.
        """
        if entry.project != self.project or entry.seq != self.head_seq + 1:
            raise ValueError(f"fold of {self.project} at #{self.head_seq} cannot apply {entry.project} #{entry.seq}")
        self.head_seq = entry.seq
        if entry.redacted:
            return
        body = entry.parsed()
        if isinstance(body, PlanBody):
            self.plan = PlanState(seq=entry.seq, goal=body.goal, tasks=tuple(body.tasks))
            self.goal = (body.goal, entry.seq)
        elif isinstance(body, PlanRevisionBody):
            goal = body.goal or (self.plan.goal if self.plan else "")
            self.plan = PlanState(seq=entry.seq, goal=goal, tasks=tuple(body.tasks))
            if body.goal:
                self.goal = (body.goal, entry.seq)
        elif isinstance(body, HandoffBody):
            self._handoff(body, entry.seq)
        elif isinstance(body, ReverseRuleOutBody):
            active = self.active.pop(body.id, None)
            if active is not None:
                self.reversed[body.id] = ReversedRuleOut(
                    id=body.id, reason=body.reason, seq=entry.seq, introduced_seq=active.seq
                )
        elif isinstance(body, VerificationBody):
            self.events[body.task_id] = ("verified" if body.passed else "failed", entry.seq)
            self.verifications[body.task_id] = entry.seq

    def _handoff(self, body: HandoffBody, seq: int) -> None:
        self.handoffs += 1
        self.last_handoff_seq = seq
        self.goal = (body.goal, seq)
        self.next_step = (body.next_step, seq)
        for r in body.ruled_out:
            current = self.active.get(r.id)
            if current is None:
                self.active[r.id] = ActiveRuleOut(id=r.id, item=r.item, reason=r.reason, seq=seq, last_seq=seq)
                self.reversed.pop(r.id, None)
            else:
                self.active[r.id] = current.model_copy(update={"last_seq": seq})
        known = {t.id for t in self.plan.tasks} if self.plan else set()
        for task_id in dict.fromkeys(body.done_claims):
            if task_id in known:
                self.events[task_id] = ("claimed", seq)
                self.claims[task_id] = seq
            else:
                self.unknown_claims.append((task_id, seq))

    def snapshot(self) -> ProjectState:
        """The state as of the newest entry applied."""
        tasks: list[TaskState] = []
        for t in self.plan.tasks if self.plan else ():
            status, seq = self.events.get(t.id, ("open", None))
            tasks.append(
                TaskState(
                    id=t.id,
                    title=t.title,
                    status=status,
                    seq=seq,
                    claim_seq=self.claims.get(t.id),
                    verification_seq=self.verifications.get(t.id),
                )
            )
        return ProjectState(
            project=self.project,
            head_seq=self.head_seq,
            plan=self.plan,
            goal=self.goal[0] if self.goal else None,
            goal_seq=self.goal[1] if self.goal else None,
            next_step=self.next_step[0] if self.next_step else None,
            next_step_seq=self.next_step[1] if self.next_step else None,
            rule_outs=tuple(sorted(self.active.values(), key=lambda r: (r.seq, r.id))),
            reversed=tuple(sorted(self.reversed.values(), key=lambda r: (r.seq, r.id))),
            tasks=tuple(tasks),
            unknown_claims=tuple(self.unknown_claims),
            handoffs=self.handoffs,
            last_handoff_seq=self.last_handoff_seq,
        )


def fold(entries: Iterable[Entry], project: str | None = None) -> ProjectState:
    """The state of a project after ``entries`` (in seq order from seq 1).

    Args:
        entries: The project's entries from #1, in order.
        project: The slug (default: the first entry's; required for an empty list).

    Raises:
        ValueError: the entries are not ``1, 2, 3...`` of one project, or the list is empty and no project is
            named.
    """
    items = iter(entries)
    first = next(items, None)
    if first is None:
        if project is None:
            raise ValueError("fold() of no entries needs the project's slug")
        return ProjectState(project=project)
    f = Fold(project or first.project)
    f.apply(first)
    for e in items:
        f.apply(e)
    return f.snapshot()
