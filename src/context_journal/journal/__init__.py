"""The execution journal and its synthesis layer (DESIGN.md 2.7).

An orchestration harness runs worker agents step by step on a project (a slug). Workers append entries
to the project's append-only, hash-chained journal (:class:`ExecutionJournal.append`: idempotency keys,
``expected_seq`` concurrency control); the harness decides its next move from a small, current view:

* :meth:`ExecutionJournal.get_project_summaries` — bounded per-step summaries, active rule-outs, a cursor;
* a rolling :class:`Brief` — mechanical fields folded from the journal, a cited narrative written by a
  stateless synthesizer through the LLM layer (:meth:`ExecutionJournal.build_brief`);
* drift checks (:mod:`.drift`) — pure functions returning findings with evidence seqs;
* :meth:`ExecutionJournal.render_for_harness` — content blocks of constant size for the harness's own
  ``ContextManager.compile``.

Modules: :mod:`.entries` (schemas), :mod:`.chain` (hashes), :mod:`.integrity` (tamper evidence: markers,
signed heads, the incremental check), :mod:`.storage` (tables and records),
:mod:`.append` (the write path), :mod:`.folds`, :mod:`.summaries`, :mod:`.brief`, :mod:`.synthesis`,
:mod:`.drift`, :mod:`.render`, :mod:`.execution` (:class:`ExecutionJournal`), :mod:`.errors`.
"""

from __future__ import annotations

from .append import AppendOutcome, AppendStatus
from .brief import Brief, BriefRuleOut, BriefTask, Finding, NarrativeClaim, brief_from_state, parse_narrative
from .chain import HASH_VERSION, ChainReport, entry_hash, verify_chain
from .drift import DriftReport, check_brief, check_drift, check_journal, reconcile
from .entries import (
    ENTRY_KINDS,
    Condition,
    ConditionResult,
    Entry,
    EntryKind,
    HandoffBody,
    PlanBody,
    PlanRevisionBody,
    ReverseRuleOutBody,
    RuleOutItem,
    StepBody,
    Task,
    VerificationBody,
)
from .errors import (
    AuthorNotAllowedError,
    EntryNotFoundError,
    EntryValidationError,
    HeadKeyRequiredError,
    IdempotencyKeyReuseError,
    JournalError,
    JournalIntegrityError,
)
from .execution import DEFAULT_HARNESS_AUTHORS, BriefTrigger, ExecutionJournal
from .folds import ActiveRuleOut, Fold, PlanState, ProjectState, ReversedRuleOut, TaskState, TaskStatus, fold
from .integrity import SignedHead, head_mac
from .redaction import JournalRedaction
from .render import HarnessView, render_view
from .summaries import RuleOutSummary, StepSummary, SummaryPage
from .synthesis import BriefDraft, SynthesisConfig

__all__ = [
    "DEFAULT_HARNESS_AUTHORS",
    "ENTRY_KINDS",
    "HASH_VERSION",
    "ActiveRuleOut",
    "AppendOutcome",
    "AppendStatus",
    "AuthorNotAllowedError",
    "Brief",
    "BriefDraft",
    "BriefRuleOut",
    "BriefTask",
    "BriefTrigger",
    "ChainReport",
    "Condition",
    "ConditionResult",
    "DriftReport",
    "Entry",
    "EntryKind",
    "EntryNotFoundError",
    "EntryValidationError",
    "ExecutionJournal",
    "Finding",
    "Fold",
    "HandoffBody",
    "HarnessView",
    "HeadKeyRequiredError",
    "IdempotencyKeyReuseError",
    "JournalError",
    "JournalIntegrityError",
    "JournalRedaction",
    "NarrativeClaim",
    "PlanBody",
    "PlanRevisionBody",
    "PlanState",
    "ProjectState",
    "ReverseRuleOutBody",
    "ReversedRuleOut",
    "RuleOutItem",
    "RuleOutSummary",
    "SignedHead",
    "StepBody",
    "StepSummary",
    "SummaryPage",
    "SynthesisConfig",
    "Task",
    "TaskState",
    "TaskStatus",
    "VerificationBody",
    "brief_from_state",
    "check_brief",
    "check_drift",
    "check_journal",
    "entry_hash",
    "fold",
    "head_mac",
    "parse_narrative",
    "reconcile",
    "render_view",
    "verify_chain",
]
