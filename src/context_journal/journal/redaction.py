"""Redaction of execution-journal entries: the body goes, the chain and the proof stay.

:func:`redact_entry` erases the body of one entry, in one store transaction:

* the entry's row keeps every column but its body: ``project``, ``seq``, ``kind``, ``author``, the
  idempotency key, ``prev_hash`` and **its hash** (so the next entry still links to it, its marker record
  still matches it and a signed head that covers it still verifies). The body column is ``NOT NULL`` on every
  backend, so it becomes the fixed marker ``redacted:sha256:<64 hex>`` (:data:`REDACTED_BODY_PREFIX`), the
  sha256 of the removed canonical body: no entry body can look like it (bodies are canonical JSON objects,
  ``{...}``). The database guards (SQLite migration 11, PostgreSQL migration 7) let exactly this UPDATE
  through, and only inside this transaction (SQLite: the redaction permit row of migration 10;
  PostgreSQL: the transaction-local ``context_journal.redaction`` setting): every other UPDATE, every
  DELETE and TRUNCATE is refused as before.
* a **redaction record** in the store's redaction slot (:data:`~context_journal.stores.redaction
  .REDACTION_SLOT`, on the root branch, item ``journal:<project>#<seq>``, body ``type:
  "journal-redaction"``) keeps who, when and why, the entry's kind, author, hash and the sha256 of the
  removed body, and the store sequences of the derived records erased with it (``derived``: the store's
  integrity check then accepts their NULL bodies). The slot is the store's one place of erasure proofs
  (message redactions are there too, keyed by message id; ``journal:`` items cannot be confused with them
  as their ``type`` differs), and its records are append-only like every record.
* **derived text**: every stored brief (slot ``journal-briefs/<project>``) whose ``as_of_seq`` is at or
  after the entry may quote it (a cumulative brief carries its predecessor's claims forward), so its record
  body is erased too and the brief pointer's ``current`` moves to the newest brief left (or goes: the next
  ``build_brief`` writes a new one from the entries that remain). Per-step summaries, folds, the harness
  view and synthesis input are computed from the entries at each read, so they no longer see the body: a
  redacted entry folds as an entry that says nothing, summarises as ``[redacted]`` and gives the
  synthesizer no line.

An entry is redacted only once its own content still recomputes to its hash and matches its marker record
(a tampered entry is reported, not laundered into one whose content can no longer be checked).

After the commit :meth:`~context_journal.stores.base.Store.scrub` makes the bytes leave the files (SQLite:
secure deletion zeroes the old cell, the write-ahead log is folded). What it cannot reach: other journal
objects' in-memory folds (they hold what they folded until they are reopened), copies outside the store,
and PostgreSQL's dead row versions until ``VACUUM``.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, replace
from typing import Any

from ..errors import RedactionError, StoreError
from ..stores import Store
from ..stores.redaction import REDACTION_SLOT, check_reason
from .errors import EntryNotFoundError, JournalIntegrityError
from .storage import (
    BRIEF_SLOT_PREFIX,
    BRIEF_STATE_PREFIX,
    REDACTED_BODY_PREFIX,
    REDACTED_KEY,
    brief_pointer,
    check_slug,
    redacted_body_sha256,
)

__all__ = [
    "JOURNAL_REDACTION_TYPE",
    "REDACTED_BODY_PREFIX",
    "REDACTED_KEY",
    "JournalRedaction",
    "journal_redactions",
    "redact_entry",
    "redacted_body_sha256",
    "redaction_item",
]

JOURNAL_REDACTION_TYPE = "journal-redaction"
"""``type`` of a journal redaction record's body (message redaction records have ``"redaction"``)."""


def redaction_item(project: str, seq: int) -> str:
    """The item of entry ``seq`` of ``project``'s redaction record: ``journal:<project>#<seq>``."""
    return f"journal:{project}#{seq}"


@dataclass(frozen=True)
class JournalRedaction:
    """The proof that a journal entry's body was erased.

    Attributes:
        project: The project's slug.
        seq: The redacted entry's seq.
        kind: Its kind (kept).
        author: Its author (kept).
        hash: Its hash (kept in the row too; the chain links through it).
        body_sha256: Hex sha256 of the removed canonical body (UTF-8).
        reason: Why (as given).
        by: Who asked (as given), or None.
        at: Wall-clock time of the redaction, seconds since the epoch.
        briefs: Versions of the stored briefs erased with it (they covered the entry).
        derived: Store sequences of the records erased with it (the briefs' records).
        sequence: Store sequence of the redaction record.
        notes: What the scrub after the commit could not do (empty when the bytes left the files; not stored).
    """

    project: str
    seq: int
    kind: str
    author: str
    hash: str
    body_sha256: str
    reason: str
    by: str | None
    at: float
    briefs: tuple[int, ...] = ()
    derived: tuple[int, ...] = ()
    sequence: int = 0
    notes: tuple[str, ...] = ()

    def to_body(self) -> dict[str, Any]:
        """The redaction record's JSON body."""
        return {
            "type": JOURNAL_REDACTION_TYPE,
            "project": self.project,
            "seq": self.seq,
            "kind": self.kind,
            "author": self.author,
            "hash": self.hash,
            "body_sha256": self.body_sha256,
            "reason": self.reason,
            "by": self.by,
            "at": self.at,
            "briefs": list(self.briefs),
            "derived": list(self.derived),
        }

    @classmethod
    def from_body(cls, body: Any, sequence: int) -> JournalRedaction | None:
        """The redaction a record body describes, or None when it is not a journal redaction record."""
        if not isinstance(body, dict) or body.get("type") != JOURNAL_REDACTION_TYPE:
            return None
        try:
            return cls(
                project=str(body["project"]),
                seq=int(body["seq"]),
                kind=str(body["kind"]),
                author=str(body["author"]),
                hash=str(body["hash"]),
                body_sha256=str(body["body_sha256"]),
                reason=str(body["reason"]),
                by=None if body.get("by") is None else str(body["by"]),
                at=float(body["at"]),
                briefs=tuple(int(v) for v in body.get("briefs", ())),
                derived=tuple(int(s) for s in body.get("derived", ())),
                sequence=sequence,
            )
        except (KeyError, TypeError, ValueError):
            return None


def journal_redactions(store: Store, root: int, project: str) -> dict[int, JournalRedaction]:
    """``{seq: redaction}`` of every readable journal redaction record of ``project`` (the newest per seq),
    read from the root branch ``root``."""
    prefix = redaction_item(project, 0)[:-1]
    out: dict[int, JournalRedaction] = {}
    for rec in store.read_slot(REDACTION_SLOT, root):
        if not rec.item.startswith(prefix) or rec.body is None:
            continue
        try:
            red = JournalRedaction.from_body(rec.value(), rec.seq)
        except StoreError:
            continue
        if red is not None and red.project == project and rec.item == redaction_item(project, red.seq):
            out[red.seq] = red
    return out


def _covering_briefs(store: Store, root: int, project: str, seq: int) -> list[tuple[int, int]]:
    """``(version, store sequence)`` of the stored briefs of ``project`` that may quote entry ``seq``: those
    whose ``as_of_seq`` is at or after it (and those whose body cannot be read: they are erased too)."""
    out: list[tuple[int, int]] = []
    for rec in store.read_slot(BRIEF_SLOT_PREFIX + project, root):
        if rec.body is None or not rec.item.startswith("v") or not rec.item[1:].isdigit():
            continue
        try:
            value = rec.value()
        except StoreError:
            value = None
        as_of = value.get("as_of_seq") if isinstance(value, dict) else None
        if not isinstance(as_of, int) or as_of >= seq:
            out.append((int(rec.item[1:]), rec.seq))
    return out


def redact_entry(
    store: Store,
    root: int,
    project: str,
    seq: int,
    *,
    reason: str,
    by: str | None = None,
    problem: Any = None,
) -> JournalRedaction:
    """Erase the body of entry ``seq`` of ``project`` (see the module docstring), in one transaction.

    Args:
        store: The store.
        root: The root branch id (markers, briefs and redaction records live there).
        project: The slug.
        seq: The entry to redact.
        reason: Why; kept in the redaction record (non-empty, at most 2,000 characters).
        by: Who asked; kept in the redaction record.
        problem: A callable ``(row) -> str | None`` naming what is wrong with the entry as stored (its hash,
            its marker); the entry is redacted only when it returns None.

    Returns:
        The redaction. Redacting an entry redacted before writes nothing and returns the earlier redaction.

    Raises:
        ValueError: an invalid slug.
        RedactionError: the reason is empty or too long, or the backend cannot redact.
        EntryNotFoundError: the project has no entry ``seq``.
        JournalIntegrityError: the entry does not verify as stored (nothing is erased).
        StoreError: the store failed (nothing is erased).
    """
    check_slug(project)
    check_reason(reason, by)
    if not store.can_redact:
        raise RedactionError(f"the {store.backend} backend cannot redact")
    with store.transaction() as tx:
        tx.lock_journal(project)
        rows = store.journal_rows(project, after=seq - 1, upto=seq) if seq >= 1 else []
        if not rows:
            head = store.journal_head(project)
            raise EntryNotFoundError(project=project, seq=seq, head_seq=head.seq if head else 0)
        row = rows[0]
        if redacted_body_sha256(row.body) is not None:
            earlier = journal_redactions(store, root, project).get(seq)
            if earlier is None:
                raise JournalIntegrityError(
                    project=project, seq=seq, reason="its body was removed without a redaction record"
                )
            return earlier
        reason_bad = problem(row) if problem is not None else None
        if reason_bad:
            raise JournalIntegrityError(project=project, seq=seq, reason=reason_bad)
        digest = hashlib.sha256(row.body.encode("utf-8")).hexdigest()
        briefs = _covering_briefs(store, root, project, seq)
        derived = sorted(s for _, s in briefs)
        if derived:
            store._null_bodies(tx, derived)
            pointer = brief_pointer(store, root, project)
            erased = {v for v, _ in briefs}
            if pointer.get("current") in erased:
                left = [
                    v
                    for v in range(int(pointer["current"]) - 1, 0, -1)
                    if v not in erased and _brief_usable(store, root, project, v)
                ]
                pointer.pop("current")
                if left:
                    pointer["current"] = left[0]
                tx.put_state(root, BRIEF_STATE_PREFIX + project, pointer)
        redaction = JournalRedaction(
            project=project,
            seq=seq,
            kind=row.kind,
            author=row.author,
            hash=row.hash,
            body_sha256=digest,
            reason=reason,
            by=by,
            at=time.time(),
            briefs=tuple(sorted(v for v, _ in briefs)),
            derived=tuple(derived),
        )
        sequence = tx.append(root, REDACTION_SLOT, redaction_item(project, seq), redaction.to_body())
        tx.redact_journal_body(row, REDACTED_BODY_PREFIX + digest)
    notes = store.scrub()
    return replace(redaction, sequence=sequence, notes=tuple(notes))


def _brief_usable(store: Store, root: int, project: str, version: int) -> bool:
    """True when brief ``version`` is stored, readable and not rejected (it can become current)."""
    records = store.read_slot(BRIEF_SLOT_PREFIX + project, root, item=f"v{version}")
    if not records or records[-1].body is None:
        return False
    try:
        value = json.loads(records[-1].body)
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("status") != "rejected"
