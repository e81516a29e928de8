"""Tamper evidence of the execution journal: the chain, its marker records, and the signed head.

Three things hold an entry's hash, written in one transaction, and verification checks them against each
other:

1. the entry's row in ``journal_entries``: its content recomputes to its ``hash`` (under the hash version its
   body names: RFC 8785 for version 2, :func:`~.entries.canonical_json` for version 1), and its
   ``prev_hash`` is the previous entry's hash (:mod:`.chain`);
2. its **marker record** in the append-only ``records`` table (slot ``journal``, item ``<project>#<seq>``,
   body ``{"project", "seq", "hash"}``), at the store sequence the row names (``store_seq``): the hash there
   must be the row's. An entry rewritten with every later hash recomputed still differs from its marker;
   an entry deleted from the end leaves its marker behind, with nothing in the table for it;
3. with a **head key** (a secret the host holds; the store never sees it), the marker's ``mac``: an
   HMAC-SHA256 of ``(project, seq, hash)`` (:func:`head_mac`). The hash chains every earlier entry, so a
   valid signature on the head vouches for the whole journal up to it; someone who can rewrite both tables
   (the triggers dropped, every hash and marker recomputed) still cannot sign the forged head.

Where it runs:

* :meth:`ExecutionJournal.verify_chain <context_journal.journal.ExecutionJournal.verify_chain>` and
  ``context-journal verify``: everything, in pages;
* incrementally, whenever a journal object folds a project (its first read or write of the project checks
  every entry, as it reads them all to fold anyway; later, before each append and each folded read, only the
  entries written since the last verified head, that head itself, and the markers written after it);
* on every entry served (``get_entry``, ``entries``, summaries, briefs): its own hash and its marker.

A **redacted** entry (:mod:`.redaction`: its body erased, its hash kept) cannot recompute its hash; it is
checked by everything else that holds the hash: its link (its ``prev_hash`` is the previous entry's hash and
the next entry's ``prev_hash`` is its hash), its marker record, the signed head, and its redaction record
(which must exist, name the same hash, kind and author, and keep the same body hash as the row). A body
erased outside the redaction path has no redaction record and is reported; so is a redaction record whose
entry still holds its body. :class:`~.chain.ChainReport` lists the redacted seqs.

A failed check raises :class:`~context_journal.journal.errors.JournalIntegrityError` (never a ValueError),
and nothing is written on a journal that does not verify.

Limits (documented, not hidden): without a key, someone able to rewrite both the journal's table and the
``records`` markers consistently (dropping the triggers of both) is not detected; a journal cut back to an
older head whose markers were also deleted looks like a shorter journal (keep the last head you saw —
:class:`SignedHead` — to compare). Entries written before a key was set carry no signature: open the journal
with ``require_signed_head=False`` until each such project has a signed head (its next append signs it).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..stores import JOURNAL_SLOT, JournalRow, Store
from .chain import GENESIS_HASH, ChainReport, entry_hash, unhashable_reason
from .entries import canonical_json
from .redaction import JournalRedaction, journal_redactions
from .storage import redacted_body_sha256

__all__ = [
    "HEAD_KEY_ENV",
    "ChainCheck",
    "SignedHead",
    "head_mac",
    "marker_projects",
    "normalise_key",
    "row_problem",
    "verify_journal",
]

HEAD_KEY_ENV = "CONTEXT_JOURNAL_HEAD_KEY"
"""Environment variable the command line reads the head key from (the library takes it as an argument)."""

_MAC_CONTEXT = "context-journal/signed-head/v1"

Problem = tuple[int, str]
"""``(seq, reason)``: the first entry that does not verify and why."""


def normalise_key(key: bytes | str | None) -> bytes | None:
    """A head key as bytes (text is UTF-8 encoded); None stays None.

    Raises:
        ValueError: an empty key, or one that is neither bytes nor text.
    """
    if key is None:
        return None
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, bytes | bytearray) or not key:
        raise ValueError("head_key must be non-empty bytes or text (a secret the host keeps outside the store)")
    return bytes(key)


def head_mac(key: bytes, project: str, seq: int, hash: str) -> str:
    """The signature of a head: hex HMAC-SHA256 under ``key`` of ``(project, seq, hash)``."""
    message = canonical_json([_MAC_CONTEXT, project, seq, hash]).encode("utf-8")
    return hmac.new(key, message, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class SignedHead:
    """A project's head as a host can keep it outside the store, to detect a journal cut back later.

    Attributes:
        project: The slug.
        seq: The head's seq (0 for an empty project).
        hash: The head's hash (``""`` for an empty project).
        mac: Its signature under the journal's head key, or None without a key.
    """

    project: str
    seq: int
    hash: str
    mac: str | None = None


def row_problem(row: JournalRow) -> str | None:
    """What is wrong with a row on its own (its content does not recompute to its hash), or None. A
    redacted row cannot recompute its hash: it is reported here, :class:`ChainCheck` checks it against
    its redaction record."""
    if redacted_body_sha256(row.body) is not None:
        return "its body was redacted: its hash cannot be recomputed (check it with its redaction record)"
    try:  # the body's "[hash_version]" picks the rule (RFC 8785 for 2, absent: version 1; see .chain)
        recomputed = entry_hash(row.prev_hash, row.project, row.seq, row.kind, row.author, row.body)
    except (ValueError, RecursionError) as exc:
        return unhashable_reason(exc)
    if recomputed != row.hash:
        return "the content does not match its hash (the entry was changed)"
    return None


def _marker(body: str | None) -> dict[str, Any] | None:
    if body is None:
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def head_marker(store: Store, row: JournalRow) -> dict[str, Any]:
    """The marker record of entry ``row`` as a dict (empty when missing or unreadable)."""
    return _marker(store.read_bodies([row.store_seq]).get(row.store_seq)) or {}


def marker_projects(store: Store, root: int) -> set[str]:
    """Projects named by any marker record (a project whose every entry was deleted is still named here)."""
    out: set[str] = set()
    for rec in store.read_slot(JOURNAL_SLOT, root):
        project, _, _ = rec.item.rpartition("#")
        if project:
            out.add(project)
    return out


class ChainCheck:
    """The checks of one project's journal against its markers and its key (see the module docstring).

    Args:
        store: The store.
        root: The root branch id (where the markers are).
        project: The slug.
        key: The head key, or None.
        require_signed: With a key, refuse a head whose marker carries no signature.
    """

    def __init__(self, store: Store, root: int, project: str, key: bytes | None, require_signed: bool) -> None:
        self.store = store
        self.root = root
        self.project = project
        self.key = key
        self.require_signed = require_signed and key is not None
        self.redacted: set[int] = set()
        """Seqs of the redacted entries this check accepted."""
        self._redactions: dict[int, JournalRedaction] | None = None

    def _redaction_of(self, seq: int) -> JournalRedaction | None:
        """The redaction record of entry ``seq`` (read again once when not found: one may have committed
        since the records were read)."""
        if self._redactions is None or seq not in self._redactions:
            self._redactions = journal_redactions(self.store, self.root, self.project)
        return self._redactions.get(seq)

    def _redaction_problem(self, row: JournalRow, digest: str) -> str | None:
        red = self._redaction_of(row.seq)
        if red is None:
            return "its body was removed without a redaction record (erased outside the redaction path)"
        if red.hash != row.hash:
            return "its hash differs from the one its redaction record holds (the entry was rewritten)"
        if red.body_sha256 != digest:
            return "the hash of its removed body differs from the one its redaction record holds"
        if red.kind != row.kind or red.author != row.author:
            return "its kind or author differs from its redaction record's (the entry was rewritten)"
        self.redacted.add(row.seq)
        return None

    def row_check(self, row: JournalRow) -> str | None:
        """What is wrong with ``row`` as stored, or None: an ordinary row recomputes to its hash, a
        redacted one agrees with its redaction record; either way it matches its marker record."""
        digest = redacted_body_sha256(row.body)
        reason = row_problem(row) if digest is None else self._redaction_problem(row, digest)
        return reason or self._marker_problem(row, self.store.read_bodies([row.store_seq]).get(row.store_seq))

    def _row_problem(self, row: JournalRow, marker: str | None, full: bool) -> tuple[JournalRow, str | None]:
        """``(row, reason)``: the row's problem (its content or redaction, then its marker); with ``full``,
        an intact row that a redaction record names is read again (it may have been redacted since it was
        read) and reported when it still holds its body."""
        digest = redacted_body_sha256(row.body)
        if digest is None and full and self._redactions is not None and row.seq in self._redactions:
            again = self.store.journal_rows(row.project, after=row.seq - 1, upto=row.seq)
            if again and again[0].hash == row.hash:
                row = again[0]
                digest = redacted_body_sha256(row.body)
            if digest is None:
                return row, "a redaction record names it, yet its body is still stored (put back, or not erased)"
        reason = row_problem(row) if digest is None else self._redaction_problem(row, digest)
        return row, reason or self._marker_problem(row, marker)

    def _marker_problem(self, row: JournalRow, body: str | None) -> str | None:
        marker = _marker(body)
        if marker is None:
            return (
                f"its marker record (store sequence {row.store_seq}) is missing or unreadable: the entry was not "
                "written by the journal, or the record was changed"
            )
        if marker.get("project") != row.project or marker.get("seq") != row.seq:
            return f"store sequence {row.store_seq} is not this entry's marker record"
        if marker.get("hash") != row.hash:
            return "its hash differs from the one its marker record holds (the entry was rewritten)"
        mac = marker.get("mac")
        if self.key is None or mac is None:
            return None
        if not isinstance(mac, str) or not hmac.compare_digest(mac, head_mac(self.key, row.project, row.seq, row.hash)):
            return "its signature does not verify with the head key (forged, or signed with another key)"
        return None

    def served(self, rows: Sequence[JournalRow]) -> Problem | None:
        """Check rows about to be served: each one's own hash and its marker (one read of the markers)."""
        if not rows:
            return None
        markers = self.store.read_bodies([r.store_seq for r in rows])
        for row in sorted(rows, key=lambda r: r.seq):
            _, reason = self._row_problem(row, markers.get(row.store_seq), full=False)
            if reason:
                return row.seq, reason
        return None

    def chain(
        self,
        rows: Sequence[JournalRow],
        *,
        prev_hash: str = GENESIS_HASH,
        start_seq: int = 1,
        head: bool = False,
        audit: bool = False,
    ) -> Problem | None:
        """Check consecutive rows: seqs from ``start_seq``, each chained to the one before, each matching
        its own hash (or, redacted, its redaction record) and its marker; with ``head`` the last row is the
        project's head, whose signature a keyed check requires; with ``audit`` (the full verification) an
        intact row that a redaction record names is reported too (one more read of the redaction records)."""
        markers = self.store.read_bodies([r.store_seq for r in rows]) if rows else {}
        if audit and rows and self._redactions is None:
            self._redactions = journal_redactions(self.store, self.root, self.project)
        expected = start_seq
        for row in rows:
            if row.seq != expected:
                return expected, f"entry #{expected} is missing (found #{row.seq}): it was deleted"
            if row.prev_hash != prev_hash:
                return row.seq, "prev_hash does not match the previous entry's hash"
            _, reason = self._row_problem(row, markers.get(row.store_seq), full=audit)
            if reason:
                return row.seq, reason
            prev_hash, expected = row.hash, row.seq + 1
        if head and rows and self.require_signed:
            last = rows[-1]
            marker = _marker(markers.get(last.store_seq)) or {}
            if marker.get("mac") is None:
                return last.seq, (
                    "the head is not signed, and this journal requires a signed head (written without the key, "
                    "or its signature was stripped)"
                )
        return None

    def after_head(self, head: JournalRow | None, scanned: int = 0) -> tuple[Problem | None, int]:
        """Markers of this project written after ``head``'s marker: each names an entry the journal's table
        should hold and does not (the newest entries were deleted). Markers up to store sequence
        ``scanned`` were looked at before and are skipped.

        Returns:
            The first such entry (or None), and the newest store sequence looked at.
        """
        after = max(scanned, head.store_seq if head is not None else 0)
        for rec in self.store.read_slot(JOURNAL_SLOT, self.root, after=after):
            after = rec.seq
            project, _, seq_text = rec.item.rpartition("#")
            if project != self.project:
                continue
            seq = int(seq_text) if seq_text.isdigit() else (head.seq + 1 if head else 1)
            return (
                seq,
                (
                    f"entry #{seq} is missing: its marker record (store sequence {rec.seq}) is there, the entry is "
                    "not (the newest entries were deleted)"
                ),
            ), after
        return None, after


def verify_journal(check: ChainCheck, trusted: SignedHead | None = None, *, page: int = 2000) -> ChainReport:
    """Verify one project's journal in full, in pages of ``page`` entries: the chain, each entry against its
    marker, the head's signature (with a key), no marker after the head, and ``trusted`` (a head kept by the
    host) still in the journal. A journal growing meanwhile is followed to its new head.

    Returns:
        The report, naming the first entry that does not verify.
    """
    store, project = check.store, check.project
    checked, prev, after = 0, GENESIS_HASH, 0
    last: JournalRow | None = None
    while True:  # each pass reads entries after the last one: a journal growing meanwhile is followed
        rows = store.journal_rows(project, after=after, limit=page)
        problem = check.chain(rows, prev_hash=prev, start_seq=after + 1, head=len(rows) < page, audit=True)
        if problem is not None:
            return ChainReport(
                False, checked + problem[0] - after - 1, problem[0], problem[1], tuple(sorted(check.redacted))
            )
        checked += len(rows)
        if rows:
            prev, after, last = rows[-1].hash, rows[-1].seq, rows[-1]
        if len(rows) == page:
            continue
        if not rows and last is not None and check.require_signed:  # the head closed the previous page
            problem = check.chain([last], prev_hash=last.prev_hash, start_seq=last.seq, head=True)
            if problem is not None:
                return ChainReport(False, checked - 1, problem[0], problem[1], tuple(sorted(check.redacted)))
        late, _ = check.after_head(last)
        if late is None:
            break
        if not store.journal_rows(project, after=after, limit=1):  # not an append made meanwhile
            return ChainReport(False, checked, late[0], late[1], tuple(sorted(check.redacted)))
    if trusted is not None and trusted.seq > 0:
        reason = _trusted_problem(check, trusted, last)
        if reason is not None:
            return ChainReport(False, min(checked, trusted.seq - 1), trusted.seq, reason, tuple(sorted(check.redacted)))
    return ChainReport(True, checked, redacted=tuple(sorted(check.redacted)))


def _trusted_problem(check: ChainCheck, trusted: SignedHead, last: JournalRow | None) -> str | None:
    if check.key is not None and trusted.mac is not None:
        expected = head_mac(check.key, check.project, trusted.seq, trusted.hash)
        if not hmac.compare_digest(trusted.mac, expected):
            return "the trusted head's signature does not verify with the head key"
    if last is None or last.seq < trusted.seq:
        return f"the journal ends at #{last.seq if last else 0}, before the trusted head #{trusted.seq}: cut back"
    rows = check.store.journal_rows(check.project, after=trusted.seq - 1, upto=trusted.seq)
    if not rows or rows[0].hash != trusted.hash:
        return "the entry holds another hash than the trusted head: the journal was rewritten"
    return None
