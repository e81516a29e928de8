"""The hash chain over a project's entries (pure functions).

Each entry's ``hash`` is the hex sha256 of the canonical JSON (sorted keys, compact, UTF-8) of
``[prev_hash, project, seq, kind, author, body]``, where ``prev_hash`` is the previous entry's hash (``""``
for the first). Changing, removing or reordering any entry breaks every hash from there on, so
:func:`verify_chain` finds the first entry that was tampered with. The wall-clock ``ts`` and the
idempotency key are not covered (they are informational and routing data).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..stores import JournalRow
from .entries import canonical_json

__all__ = ["GENESIS_HASH", "ChainReport", "entry_hash", "verify_chain"]

GENESIS_HASH = ""
"""``prev_hash`` of a project's first entry."""


def entry_hash(prev_hash: str, project: str, seq: int, kind: str, author: str, body: Any) -> str:
    """The hash of one entry.

    Args:
        prev_hash: The previous entry's hash (:data:`GENESIS_HASH` for seq 1).
        project: The project's slug.
        seq: The entry's seq.
        kind: Its kind.
        author: Its author.
        body: Its body as JSON data (or canonical JSON text).

    Returns:
        64 hex characters.
    """
    if isinstance(body, str):
        body = json.loads(body)
    payload = canonical_json([prev_hash, project, seq, kind, author, body])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ChainReport:
    """The result of :func:`verify_chain`.

    Attributes:
        ok: True when every entry verifies.
        checked: How many entries were checked.
        first_bad_seq: The first entry that does not verify, or None.
        reason: What does not match at ``first_bad_seq`` (empty when ok).
        redacted: Seqs of the redacted entries among those checked, ascending (their bodies are gone; each
            was checked by its link, its marker record and its redaction record).
    """

    ok: bool
    checked: int
    first_bad_seq: int | None = None
    reason: str = ""
    redacted: tuple[int, ...] = ()


def verify_chain(rows: Iterable[JournalRow], *, prev_hash: str = GENESIS_HASH, start_seq: int = 1) -> ChainReport:
    """Check that rows form an unbroken chain: seqs ``start_seq, start_seq + 1...``, each ``prev_hash`` the
    previous ``hash``, and each ``hash`` recomputed from the row's content.

    Args:
        rows: The rows in seq order (one project).
        prev_hash: The hash before the first row (to check a suffix).
        start_seq: The seq the first row must have.

    Returns:
        A report naming the first row that fails, if any.
    """
    expected_seq = start_seq
    checked = 0
    for row in rows:
        if row.seq != expected_seq:
            return ChainReport(False, checked, expected_seq, f"entry #{expected_seq} is missing (found #{row.seq})")
        if row.prev_hash != prev_hash:
            return ChainReport(False, checked, row.seq, "prev_hash does not match the previous entry's hash")
        try:
            recomputed = entry_hash(row.prev_hash, row.project, row.seq, row.kind, row.author, row.body)
        except ValueError:
            if row.body.startswith("redacted:sha256:"):
                reason = "the body was redacted: verify it with the store (ExecutionJournal.verify_chain)"
                return ChainReport(False, checked, row.seq, reason)
            return ChainReport(False, checked, row.seq, "the body is not valid JSON")
        if recomputed != row.hash:
            return ChainReport(False, checked, row.seq, "the content does not match its hash")
        prev_hash = row.hash
        expected_seq += 1
        checked += 1
    return ChainReport(True, checked)
