"""Entry kinds of the execution journal: pydantic schemas (unknown fields refused) and the stored entry.

A project's journal holds six kinds of entries:

* ``plan`` — written once: the goal and the tasks, each with testable conditions.
* ``plan_revision`` — a later change of plan: the whole new task list, naming the seq of the plan (or
  revision) it replaces.
* ``step`` — a worker's raw report, bounded in size. The harness never reads it; it is evidence.
* ``handoff`` — the structured per-step summary: ``goal``, ``state``, ``next_step``, ``ruled_out`` (items
  with stable ids and reasons), ``done_claims`` (task ids the worker claims done) and ``refs``.
* ``reverse_ruleout`` — ``id`` and ``reason``: the only way a rule-out stops being active.
* ``verification`` — the results of running one task's conditions; written only by the harness.

Sizes are bounded at write time (characters; see the ``Field`` limits) and again, tighter, when entries
are read back for a harness (:mod:`.summaries`).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

__all__ = [
    "ENTRY_KINDS",
    "HASH_VERSION",
    "HASH_VERSION_KEY",
    "MAX_BODY_BYTES",
    "MAX_SAFE_INTEGER",
    "Condition",
    "ConditionResult",
    "Entry",
    "EntryKind",
    "HandoffBody",
    "PlanBody",
    "PlanRevisionBody",
    "ReverseRuleOutBody",
    "RuleOutItem",
    "StepBody",
    "Task",
    "VerificationBody",
    "body_model",
    "canonical_json",
    "parse_body",
]

EntryKind = Literal["plan", "plan_revision", "step", "handoff", "reverse_ruleout", "verification"]
"""The entry kinds, as stored."""

ENTRY_KINDS: tuple[str, ...] = ("plan", "plan_revision", "step", "handoff", "reverse_ruleout", "verification")

MAX_BODY_BYTES = 65_536
"""Largest accepted body, in bytes of its canonical JSON (without the hash version key)."""

HASH_VERSION = 2
"""The hash rule new entries are written with (:mod:`.chain`): 2 hashes RFC 8785 canonical JSON; 1 (the rule of
entries written before it) hashes :func:`canonical_json`."""

HASH_VERSION_KEY = "[hash_version]"
"""The key a stored body keeps its hash version under (absent: version 1). No kind's body has that key;
:class:`Entry` reads it into :attr:`Entry.hash_version`, not into :attr:`Entry.body`."""

MAX_SAFE_INTEGER = 2**53 - 1
"""The largest integer RFC 8785 (hash version 2) hashes: JSON numbers are IEEE-754 doubles there."""

Id = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,63}$")]
"""A stable id (rule-outs, tasks, conditions): 1..64 characters, letters, digits and ``_.:/-``."""


Text500 = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
Text1000 = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1000)]
Text2000 = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
Text4000 = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=4000)]
Report = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=32_000)]
Detail = Annotated[str, StringConstraints(strip_whitespace=True, max_length=4000)]


_Strict = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class Condition(BaseModel):
    """A testable condition of a task.

    Attributes:
        id: Stable id, unique within the task.
        description: What must hold (at most 1,000 characters).
        check: How the harness tests it, e.g. a command (at most 2,000 characters), or None.
    """

    model_config = _Strict

    id: Id
    description: Text1000
    check: Text2000 | None = None


class Task(BaseModel):
    """A task of the plan.

    Attributes:
        id: Stable id, unique within the plan.
        title: What to do (at most 500 characters).
        conditions: One to 50 conditions; the task is verified when all of them pass.
    """

    model_config = _Strict

    id: Id
    title: Text500
    conditions: list[Condition] = Field(min_length=1, max_length=50)

    @model_validator(mode="after")
    def _unique_conditions(self) -> Task:
        ids = [c.id for c in self.conditions]
        if len(ids) != len(set(ids)):
            raise ValueError(f"task {self.id}: condition ids must be unique")
        return self


def _unique_tasks(tasks: list[Task]) -> None:
    ids = [t.id for t in tasks]
    if len(ids) != len(set(ids)):
        raise ValueError("task ids must be unique")


class PlanBody(BaseModel):
    """``plan``: written once per project.

    Attributes:
        goal: The project's goal (at most 2,000 characters).
        tasks: One to 500 tasks.
    """

    model_config = _Strict

    goal: Text2000
    tasks: list[Task] = Field(min_length=1, max_length=500)

    @model_validator(mode="after")
    def _check(self) -> PlanBody:
        _unique_tasks(self.tasks)
        return self


class PlanRevisionBody(BaseModel):
    """``plan_revision``: the whole new plan, replacing the current one.

    Attributes:
        replaces: Seq of the plan or revision it replaces (must be the current one).
        reason: Why the plan changes (at most 2,000 characters).
        goal: The new goal, or None to keep the current one.
        tasks: The new task list (one to 500). A task keeps its status when its id is kept.
    """

    model_config = _Strict

    replaces: int = Field(ge=1)
    reason: Text2000
    goal: Text2000 | None = None
    tasks: list[Task] = Field(min_length=1, max_length=500)

    @model_validator(mode="after")
    def _check(self) -> PlanRevisionBody:
        _unique_tasks(self.tasks)
        return self


class StepBody(BaseModel):
    """``step``: a worker's raw report.

    Attributes:
        report: What the worker did and saw (at most 32,000 characters).
        task_id: The task worked on, or None.
    """

    model_config = _Strict

    report: Report
    task_id: Id | None = None


class RuleOutItem(BaseModel):
    """Something tried and ruled out.

    Attributes:
        id: Stable id; the same id in a later handoff is the same rule-out.
        item: What was ruled out (at most 1,000 characters).
        reason: Why (at most 2,000 characters).
    """

    model_config = _Strict

    id: Id
    item: Text1000
    reason: Text2000


class HandoffBody(BaseModel):
    """``handoff``: the structured summary of one step.

    Attributes:
        goal: The goal as the worker understands it now (at most 2,000 characters).
        state: Where things stand (at most 4,000 characters).
        next_step: What should happen next (at most 2,000 characters).
        ruled_out: Up to 100 rule-outs (new ones, or ones already active, repeated).
        done_claims: Up to 200 task ids the worker claims are done (the harness verifies them).
        refs: Up to 100 references (paths, URLs, commit ids; at most 1,000 characters each).
    """

    model_config = _Strict

    goal: Text2000
    state: Text4000
    next_step: Text2000
    ruled_out: list[RuleOutItem] = Field(default_factory=list, max_length=100)
    done_claims: list[Id] = Field(default_factory=list, max_length=200)
    refs: list[Text1000] = Field(default_factory=list, max_length=100)

    @model_validator(mode="after")
    def _check(self) -> HandoffBody:
        ids = [r.id for r in self.ruled_out]
        if len(ids) != len(set(ids)):
            raise ValueError("ruled_out ids must be unique within a handoff")
        return self


class ReverseRuleOutBody(BaseModel):
    """``reverse_ruleout``: an active rule-out stops being active.

    Attributes:
        id: The rule-out's id (must be active).
        reason: Why it is back on the table (at most 2,000 characters).
    """

    model_config = _Strict

    id: Id
    reason: Text2000


class ConditionResult(BaseModel):
    """The result of running one condition.

    Attributes:
        condition_id: The condition's id in the task.
        passed: Whether it held.
        detail: Output or explanation (at most 4,000 characters).
    """

    model_config = _Strict

    condition_id: Id
    passed: bool
    detail: Detail = ""


class VerificationBody(BaseModel):
    """``verification``: the harness ran every condition of one task.

    Attributes:
        task_id: The task (must be in the current plan).
        results: One result per condition of the task, each exactly once.
    """

    model_config = _Strict

    task_id: Id
    results: list[ConditionResult] = Field(min_length=1, max_length=50)

    @property
    def passed(self) -> bool:
        """True when every condition passed."""
        return all(r.passed for r in self.results)


_MODELS: dict[str, type[BaseModel]] = {
    "plan": PlanBody,
    "plan_revision": PlanRevisionBody,
    "step": StepBody,
    "handoff": HandoffBody,
    "reverse_ruleout": ReverseRuleOutBody,
    "verification": VerificationBody,
}


def body_model(kind: str) -> type[BaseModel]:
    """The pydantic model of a kind's body.

    Raises:
        KeyError: an unknown kind.
    """
    return _MODELS[kind]


def canonical_json(value: Any) -> str:
    """Compact JSON with keys sorted by code point, non-ASCII kept (Python's own form): what hash version 1
    hashed and stored bodies in; still what bodies are compared and sized in. Hash version 2 hashes RFC 8785
    instead (:func:`.chain.canonical_bytes`)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def parse_body(kind: str, body: Any) -> BaseModel:
    """Validate ``body`` against ``kind``'s schema.

    Returns:
        The validated model (strings stripped, defaults filled).

    Raises:
        ValueError: an unknown kind, or a body that does not validate (the message lists each fault).
    """
    model = _MODELS.get(kind)
    if model is None:
        raise ValueError(f"unknown kind {kind!r}; one of {', '.join(ENTRY_KINDS)}")
    if isinstance(body, BaseModel):
        body = body.model_dump(mode="json")
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        faults = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors(include_url=False)
        )
        raise ValueError(faults) from None


class Entry(BaseModel):
    """A stored journal entry.

    Attributes:
        project: The project's slug.
        seq: Position in the project's journal (1, 2, 3...).
        store_seq: The store-wide sequence of the write.
        kind: The entry kind.
        author: Who wrote it.
        idempotency_key: The key it was written with.
        body: The validated body as JSON data.
        prev_hash: Hash of the previous entry (``""`` for the first).
        hash: Hex sha256 over the canonical JSON of ``[prev_hash, project, seq, kind, author, body]``
            (RFC 8785 for hash version 2, the body then including ``"[hash_version]": 2``).
        ts: Wall-clock time of the write, seconds since the epoch.
        redacted: True when the entry's body was erased (redacted): ``body`` is then ``{"[redacted]": true,
            "body_sha256": <hex sha256 of the removed body>}``, and ``hash`` is the one it was written with
            (the chain still links through it).
        hash_version: The rule ``hash`` was computed with: 1 (written before RFC 8785) or 2; None for a
            redacted entry (the version was kept in the erased body).
    """

    model_config = ConfigDict(frozen=True)

    project: str
    seq: int
    store_seq: int
    kind: EntryKind
    author: str
    idempotency_key: str
    body: dict[str, Any]
    prev_hash: str
    hash: str
    ts: float
    redacted: bool = False
    hash_version: int | None = 1

    def parsed(self) -> BaseModel:
        """The body as its kind's model (``HandoffBody``...).

        Raises:
            ValueError: the entry was redacted (its body is gone; check :attr:`redacted` first).
        """
        if self.redacted:
            raise ValueError(f"{self.project} #{self.seq} was redacted: its body is gone")
        return _MODELS[self.kind].model_validate(self.body)
