"""The rolling brief: a project's state in one bounded, versioned record.

A :class:`Brief` has **mechanical fields** — goal, next step, active rule-outs, task status, the plan's
seq — copied from the fold of the journal at ``as_of_seq`` (:func:`brief_from_state`), and a
**narrative** written by a synthesizer (:mod:`.synthesis`): claims, each citing the entries it rests on
(``[#12]``, ``[#12, #15]``). A synthesizer's draft may propose mechanical fields too; the drift checks
(:mod:`.drift`) compare them with the fold and a brief is only ever stored with the fold's values.

Briefs are stored (see :mod:`.storage`), versioned from 1 per project, never edited; the **current**
brief is the newest one not rejected. Findings of the checks are stored with each brief.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .folds import ProjectState, TaskStatus

__all__ = [
    "Brief",
    "BriefMode",
    "BriefRuleOut",
    "BriefStatus",
    "BriefTask",
    "Finding",
    "FindingLevel",
    "NarrativeClaim",
    "brief_from_state",
    "format_cites",
    "parse_narrative",
]

BriefMode = Literal["windowed", "cumulative", "fold"]
"""How the narrative was written: from the last N entries, from the previous brief plus the new entries,
or not at all (a brief built from the fold alone)."""

BriefStatus = Literal["draft", "accepted", "rebuilt", "rejected"]
"""``draft``: not checked yet; ``accepted``: passed every check as written; ``rebuilt``: the checks found
errors and the brief was rebuilt from the fold (mechanical fields replaced, bad claims dropped);
``rejected``: unusable (stale), kept for the record only."""

FindingLevel = Literal["error", "warning"]


class Finding(BaseModel):
    """One result of a drift check.

    Attributes:
        code: What was found (``ruleout_dropped``, ``ruleout_invented``, ``ruleout_mismatch``,
            ``task_status_mismatch``, ``task_missing``, ``task_invented``, ``field_mismatch``,
            ``brief_stale``, ``uncited_claim``, ``bad_citation``, ``claim_unverified``,
            ``claim_unknown_task``).
        level: ``error`` (the brief must be rejected or rebuilt) or ``warning`` (a fact about the journal).
        message: What is wrong, in words.
        evidence: The entry seqs that show it.
        subject: The id or field concerned (rule-out id, task id, field name, claim index), or None.
    """

    model_config = ConfigDict(frozen=True)

    code: str
    level: FindingLevel
    message: str
    evidence: list[int] = Field(default_factory=list)
    subject: str | None = None


class NarrativeClaim(BaseModel):
    """One claim of the narrative.

    Attributes:
        text: The claim, without its citation.
        cites: The entry seqs it rests on (empty: uncited).
    """

    model_config = ConfigDict(frozen=True)

    text: str
    cites: list[int] = Field(default_factory=list)

    def render(self) -> str:
        """The claim with its citation, e.g. ``"Parser rewritten [#12, #15]"``."""
        return f"{self.text} {format_cites(self.cites)}".rstrip()


class BriefRuleOut(BaseModel):
    """An active rule-out as a brief states it.

    Attributes:
        id: The rule-out id.
        item: What is ruled out.
        reason: Why.
        seq: The entry that introduced it.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    item: str
    reason: str
    seq: int


class BriefTask(BaseModel):
    """A task's status as a brief states it.

    Attributes:
        id: The task id.
        status: ``open``, ``claimed``, ``verified`` or ``failed``.
        seq: The entry that set the status, or None when open.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    status: TaskStatus
    seq: int | None = None


class Brief(BaseModel):
    """A rolling brief.

    Attributes:
        project: The slug.
        version: 1, 2, 3... per project once stored (0 for a draft).
        status: See :data:`BriefStatus`.
        mode: See :data:`BriefMode`.
        as_of_seq: The journal head the brief describes.
        cite_from: Lowest entry seq a claim may cite (the synthesizer's window).
        cite_to: Highest entry seq a claim may cite.
        goal: The goal (mechanical).
        goal_seq: Its entry.
        next_step: The next step (mechanical).
        next_step_seq: Its entry.
        plan_seq: The current plan's entry, or None.
        rule_outs: Every active rule-out (mechanical).
        tasks: Every task of the plan with its status (mechanical).
        narrative: Cited claims.
        previous_version: The brief a cumulative narrative continued, or None.
        provider: The provider that wrote the narrative (``""`` for none).
        model: Its model.
        created_at: Wall-clock time it was built, seconds since the epoch.
        findings: What the drift checks found when it was built.
    """

    model_config = ConfigDict(frozen=True)

    project: str
    version: int = 0
    status: BriefStatus = "draft"
    mode: BriefMode = "fold"
    as_of_seq: int
    cite_from: int = 1
    cite_to: int = 0
    goal: str | None = None
    goal_seq: int | None = None
    next_step: str | None = None
    next_step_seq: int | None = None
    plan_seq: int | None = None
    rule_outs: list[BriefRuleOut] = Field(default_factory=list)
    tasks: list[BriefTask] = Field(default_factory=list)
    narrative: list[NarrativeClaim] = Field(default_factory=list)
    previous_version: int | None = None
    provider: str = ""
    model: str = ""
    created_at: float = 0.0
    findings: list[Finding] = Field(default_factory=list)

    def narrative_text(self) -> str:
        """The narrative, one cited claim per line."""
        return "\n".join(c.render() for c in self.narrative)

    @property
    def errors(self) -> list[Finding]:
        """The error-level findings."""
        return [f for f in self.findings if f.level == "error"]


def brief_from_state(
    state: ProjectState,
    *,
    narrative: list[NarrativeClaim] | None = None,
    mode: BriefMode = "fold",
    cite_from: int = 1,
) -> Brief:
    """A brief whose mechanical fields are the fold's, as of ``state.head_seq`` (status ``draft``).

    Args:
        state: The fold.
        narrative: The claims (default none).
        mode: How the narrative was written.
        cite_from: Lowest seq a claim may cite.
    """
    return Brief(
        project=state.project,
        mode=mode,
        as_of_seq=state.head_seq,
        cite_from=cite_from,
        cite_to=state.head_seq,
        goal=state.goal,
        goal_seq=state.goal_seq,
        next_step=state.next_step,
        next_step_seq=state.next_step_seq,
        plan_seq=state.plan.seq if state.plan else None,
        rule_outs=[BriefRuleOut(id=r.id, item=r.item, reason=r.reason, seq=r.seq) for r in state.rule_outs],
        tasks=[BriefTask(id=t.id, status=t.status, seq=t.seq) for t in state.tasks],
        narrative=list(narrative or []),
    )


_CITE_GROUP = re.compile(r"\[\s*#\s*\d+(?:\s*,\s*#?\s*\d+)*\s*\]")
_NUMBER = re.compile(r"\d+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,3}[.)])\s+")


def format_cites(cites: list[int]) -> str:
    """``[#3, #5]`` for ``[3, 5]`` (``""`` for none)."""
    return "[" + ", ".join(f"#{c}" for c in cites) + "]" if cites else ""


def parse_narrative(text: str) -> list[NarrativeClaim]:
    """Split narrative text into claims at its citation groups.

    Each line is read on its own (a leading bullet is dropped). A claim is the text before a citation group
    (``[#12]`` or ``[#12, #15]``); consecutive groups add to the same claim; text after the last group of a
    line, if it holds a letter or digit, is an uncited claim. Punctuation left between claims is dropped.

    Returns:
        The claims in order.
    """
    claims: list[NarrativeClaim] = []
    for raw in text.splitlines():
        line = _BULLET.sub("", raw).strip()
        if not line:
            continue
        pos = 0
        pending: NarrativeClaim | None = None
        for m in _CITE_GROUP.finditer(line):
            piece = line[pos : m.start()].strip(" \t.;,:")
            cites = [int(n) for n in _NUMBER.findall(m.group())]
            if not any(ch.isalnum() for ch in piece) and pending is not None:
                pending = NarrativeClaim(text=pending.text, cites=sorted(set(pending.cites) | set(cites)))
                claims[-1] = pending
            elif any(ch.isalnum() for ch in piece):
                pending = NarrativeClaim(text=piece, cites=sorted(set(cites)))
                claims.append(pending)
            pos = m.end()
        rest = line[pos:].strip(" \t.;,:")
        if any(ch.isalnum() for ch in rest):
            claims.append(NarrativeClaim(text=rest, cites=[]))
    return claims
