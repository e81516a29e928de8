"""Appending to a project's journal: idempotency, ``expected_seq`` and the journal's rules.

One append is one store transaction holding the project's journal lock (SQLite ``BEGIN IMMEDIATE``;
PostgreSQL the head row lock), in this order:

1. **Idempotency.** A row with the same key exists: the same kind, author and body make the call a
   ``duplicate`` that returns the original entry (checked before ``expected_seq``, so a retry after a
   crash or a lost answer is recognised even though the head moved); anything else differing raises
   :class:`~context_journal.journal.errors.IdempotencyKeyReuseError`.
2. **Concurrency.** ``expected_seq`` (the head seq the writer last saw; 0 for an empty project) differs
   from the head: the outcome is ``conflict`` with the current head, and nothing is written.
3. **Rules** (against the fold at the head): one ``plan``; a ``plan_revision`` names the current plan; a
   ``reverse_ruleout`` names an active rule-out; a ``verification`` names a task of the current plan and
   gives one result for each of its conditions, and comes from a harness author.
   ``state_at`` runs the journal's incremental integrity check first (:mod:`.integrity`): an append never
   extends a journal that does not verify.
4. **Write**: seq = head + 1, ``prev_hash`` = the head's hash, the hash (:func:`.chain.entry_hash`, hash
   version 2: RFC 8785, the body stored with ``"[hash_version]": 2``), and the marker record (with the
   head's signature when the journal has a key).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ..stores import JournalRow, Store
from .chain import GENESIS_HASH, HASH_VERSIONS, entry_hash, jcs_problem, stored_body_text
from .entries import (
    HASH_VERSION,
    MAX_BODY_BYTES,
    Entry,
    PlanBody,
    PlanRevisionBody,
    ReverseRuleOutBody,
    VerificationBody,
    canonical_json,
    parse_body,
)
from .errors import AuthorNotAllowedError, EntryValidationError, IdempotencyKeyReuseError
from .folds import ProjectState
from .storage import check_author, check_key, check_slug, redacted_body_sha256, split_stored_body, to_entry

__all__ = ["AppendOutcome", "AppendStatus", "append_entry", "check_rules", "prepare_body"]

MAX_SEQ = 2**62
"""The largest journal seq an argument may name (what every backend's integer column holds)."""

AppendStatus = Literal["appended", "duplicate", "conflict"]


class AppendOutcome(BaseModel):
    """What an append did.

    Attributes:
        status: ``appended`` (written now), ``duplicate`` (the key was written before with the same entry:
            ``entry`` is the original) or ``conflict`` (``expected_seq`` was stale: nothing written).
        entry: The entry written or found; None for a conflict.
        head_seq: The project's head seq after the call.
        head_hash: The head entry's hash (``""`` for an empty project).
        expected_seq: The ``expected_seq`` given, or None.
    """

    model_config = ConfigDict(frozen=True)

    status: AppendStatus
    entry: Entry | None
    head_seq: int
    head_hash: str
    expected_seq: int | None = None

    @property
    def ok(self) -> bool:
        """True unless the outcome is a conflict."""
        return self.status != "conflict"


def prepare_body(
    project: str, kind: str, body: object, hash_version: int = HASH_VERSION
) -> tuple[dict[str, object], str]:
    """Validate a body and return it as JSON data and the text it is stored as under ``hash_version``
    (:func:`.chain.stored_body_text`: for version 2, RFC 8785 with ``"[hash_version]": 2``).

    What RFC 8785 cannot hash is refused here rather than stored (no kind's body has a float; an integer
    field beyond ±(2**53 - 1), e.g. ``replaces``, or a string with a lone surrogate is refused, under every
    version, naming the field).

    Raises:
        EntryValidationError: an unknown kind, a body that does not validate, one over
            :data:`~context_journal.journal.entries.MAX_BODY_BYTES` (its canonical JSON without the version
            key), or one holding a value RFC 8785 cannot hash.
    """
    try:
        model = parse_body(kind, body)
    except ValueError as exc:
        raise EntryValidationError(str(exc), project=project, kind=kind) from None
    data = model.model_dump(mode="json")
    problem = jcs_problem(data)
    if problem is not None:
        raise EntryValidationError(problem, project=project, kind=kind)
    size = len(canonical_json(data).encode("utf-8"))
    if size > MAX_BODY_BYTES:
        raise EntryValidationError(
            f"the body is {size:,} bytes of JSON, over the {MAX_BODY_BYTES:,} byte limit", project=project, kind=kind
        )
    return data, stored_body_text(data, hash_version)


def check_rules(state: ProjectState, kind: str, body: object, author: str, harness_authors: Collection[str]) -> None:
    """Check an entry against the journal's rules at ``state`` (the fold at the head it will extend).

    Raises:
        EntryValidationError: a rule is broken (the message says which and what to do).
        AuthorNotAllowedError: a verification from an author not in ``harness_authors``.
    """
    project = state.project
    model = parse_body(kind, body)

    def refuse(reason: str) -> EntryValidationError:
        return EntryValidationError(reason, project=project, kind=kind)

    if isinstance(model, PlanBody) and state.plan is not None:
        raise refuse(f"the project already has a plan (#{state.plan.seq}); write a plan_revision that replaces it")
    if isinstance(model, PlanRevisionBody):
        if state.plan is None:
            raise refuse("the project has no plan yet; write a plan first")
        if model.replaces != state.plan.seq:
            raise refuse(f"replaces #{model.replaces}, but the current plan is #{state.plan.seq}; name that one")
    if isinstance(model, ReverseRuleOutBody) and state.rule_out(model.id) is None:
        active = ", ".join(sorted(state.active_ids())) or "none"
        raise refuse(f"rule-out {model.id!r} is not active (active: {active})")
    if isinstance(model, VerificationBody):
        if author not in harness_authors:
            raise AuthorNotAllowedError(project=project, author=author, allowed=frozenset(harness_authors))
        task = state.plan.task(model.task_id) if state.plan else None
        if task is None:
            raise refuse(f"task {model.task_id!r} is not in the current plan")
        wanted = [c.id for c in task.conditions]
        given = [r.condition_id for r in model.results]
        if sorted(given) != sorted(wanted):
            raise refuse(f"give exactly one result for each condition of {task.id}: {', '.join(wanted)} (got {given})")


def _duplicate_or_raise(project: str, existing: JournalRow, kind: str, author: str, data: dict[str, object]) -> Entry:
    """The entry ``existing`` when it holds the same kind, author and body as the retry (whatever hash version
    it was written with), else :class:`IdempotencyKeyReuseError` naming what differs."""
    differs = [
        name for name, old, new in (("kind", existing.kind, kind), ("author", existing.author, author)) if old != new
    ]
    kept = redacted_body_sha256(existing.body)  # a redacted entry keeps only its body's hash
    if kept is not None:
        same = kept in {hashlib.sha256(stored_body_text(data, v).encode("utf-8")).hexdigest() for v in HASH_VERSIONS}
    else:
        try:
            same = canonical_json(split_stored_body(existing.body)[0]) == canonical_json(data)
        except ValueError:
            same = False
    if not same:
        differs.append("body")
    if differs:
        raise IdempotencyKeyReuseError(
            project=project, idempotency_key=existing.idempotency_key, seq=existing.seq, differs=differs
        )
    return to_entry(existing)


def append_entry(
    store: Store,
    branch_id: int,
    project: str,
    kind: str,
    body: object,
    author: str,
    idempotency_key: str,
    *,
    expected_seq: int | None,
    state_at: Callable[[int], ProjectState],
    harness_authors: Collection[str],
    on_appended: Callable[[JournalRow], None] | None = None,
    sign: Callable[[str, int, str], str | None] | None = None,
    check_existing: Callable[[JournalRow], object] | None = None,
    hash_version: int = HASH_VERSION,
) -> AppendOutcome:
    """Append one entry (the steps are in the module docstring).

    Args:
        store: The store.
        branch_id: The root branch (where the marker record goes).
        project: The slug.
        kind: The entry kind.
        body: The body (JSON data or the kind's model).
        author: Who writes it.
        idempotency_key: Unique per project; a retry sends the same key.
        expected_seq: The head seq the writer last saw, or None to append wherever the head is.
        state_at: Returns the fold at a head seq (called under the lock).
        harness_authors: Authors allowed to write verifications.
        on_appended: Called with the row once the transaction has committed.
        sign: Returns the signature of a new head ``(project, seq, hash)`` for its marker record, or None.
        check_existing: Called with the row a retried key found, before it is returned (raises when it does
            not verify).
        hash_version: The hash rule to write with (:mod:`.chain`); only tests write anything but the current
            :data:`~context_journal.journal.entries.HASH_VERSION`.

    Returns:
        The outcome.

    Raises:
        ValueError: an invalid slug, author, key or ``expected_seq``.
        EntryValidationError: the body or a rule (nothing written).
        AuthorNotAllowedError: a verification from a non-harness author.
        IdempotencyKeyReuseError: the key names another entry.
        JournalIntegrityError: the journal does not verify (raised by ``state_at`` or ``check_existing``).
        StoreError: the store failed (nothing written).
    """
    check_slug(project)
    check_author(author)
    check_key(idempotency_key)
    if expected_seq is not None and (
        isinstance(expected_seq, bool) or not isinstance(expected_seq, int) or not 0 <= expected_seq <= MAX_SEQ
    ):
        raise ValueError(f"expected_seq must be a seq in 0..{MAX_SEQ} (0 for an empty project), got {expected_seq!r}")
    if hash_version not in HASH_VERSIONS:
        raise ValueError(f"unknown hash version {hash_version!r}")
    data, text = prepare_body(project, kind, body, hash_version)
    with store.transaction() as txn:
        txn.lock_journal(project)
        head = store.journal_head(project)
        head_seq, head_hash = (head.seq, head.hash) if head else (0, GENESIS_HASH)
        existing = store.journal_row_by_key(project, idempotency_key)
        if existing is not None:
            if check_existing is not None:
                check_existing(existing)
            entry = _duplicate_or_raise(project, existing, kind, author, data)
            return AppendOutcome(
                status="duplicate", entry=entry, head_seq=head_seq, head_hash=head_hash, expected_seq=expected_seq
            )
        if expected_seq is not None and expected_seq != head_seq:
            return AppendOutcome(
                status="conflict", entry=None, head_seq=head_seq, head_hash=head_hash, expected_seq=expected_seq
            )
        check_rules(state_at(head_seq), kind, data, author, harness_authors)
        seq = head_seq + 1
        digest = entry_hash(head_hash, project, seq, kind, author, text)
        mac = sign(project, seq, digest) if sign is not None else None
        row = txn.append_journal(
            branch_id, project, seq, kind, author, idempotency_key, text, head_hash, digest, mac=mac
        )
        if on_appended is not None:
            txn.on_commit(lambda: on_appended(row))
    return AppendOutcome(
        status="appended", entry=to_entry(row), head_seq=seq, head_hash=digest, expected_seq=expected_seq
    )
