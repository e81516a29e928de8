"""Physical erasure of record bodies: the one change a store makes to a record after writing it.

A redaction sets the bodies of chosen records to NULL in one transaction and takes everything derived from
them out of the store with them: their documents in the full-text indexes (message and summary), and the
blobs (media bytes) that no remaining record names. The rows themselves stay (sequence, branch, slot, item,
operation, time), so the journal's shape, its sequence numbers and every other record are untouched; the
caller writes, in the same transaction, the record that says what was redacted, when, by whom and why
(:mod:`context_journal.redaction`). After the commit :meth:`Store._scrub` makes the bytes leave the files
(SQLite: folds the WAL; a store that was written before secure deletion was on is rewritten once).

Backends lift their append-only guard only for the statements of this path (SQLite: a permit row that the
redaction transaction inserts and deletes again before it commits, read by the guard triggers' ``WHEN``
clause; PostgreSQL: a transaction-local setting the guard functions accept only for an UPDATE that sets
the body to NULL and changes nothing else), so a committed store never holds a permit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import RedactionError, StoreError
from .base import Op, Record, Store, Transaction
from .fulltext import index_documents, is_summary_record, summary_documents

__all__ = [
    "MAX_REASON",
    "REDACTED_TEXT",
    "REDACTION_SLOT",
    "blob_digests",
    "check_reason",
    "is_message_slot",
    "is_redacted",
    "payload_digest",
    "redact_records",
    "redacted_body",
    "redacted_sequences",
    "redactions_since",
    "stub_for",
]

REDACTION_SLOT = "redactions"
"""Slot of the redaction records (state records on the root branch, item = the redacted message's id; see
:mod:`context_journal.redaction`)."""


def payload_digest(body: str) -> str:
    """Hex sha256 of a record body's UTF-8 bytes (what a redaction record keeps of the removed payload)."""
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


def blob_digests(value: Any) -> set[str]:
    """The sha256 names of the blobs a decoded record body refers to (``{"type": "blob", "sha256": ...}``
    sources, at any depth)."""
    found: set[str] = set()
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            digest = node.get("sha256")
            if node.get("type") == "blob" and isinstance(digest, str):
                found.add(digest)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


MAX_REASON = 2000
"""Characters of the longest reason (and ``by``) a redaction record keeps: a note, not a document."""


def check_reason(reason: object, by: object) -> None:
    """Refuse a redaction's ``reason`` that is empty or longer than :data:`MAX_REASON`, and a ``by`` that is not
    None or a string of at most that length.

    Raises:
        RedactionError: naming which.
    """
    if not isinstance(reason, str) or not reason.strip():
        raise RedactionError("a redaction needs a reason (a non-empty string): it is kept as the proof's why")
    if len(reason) > MAX_REASON:
        raise RedactionError(f"the reason is {len(reason)} characters; at most {MAX_REASON:,} are kept")
    if by is not None and (not isinstance(by, str) or len(by) > MAX_REASON):
        raise RedactionError(f"by must be a string of at most {MAX_REASON:,} characters, or None")


REDACTED_TEXT = "[redacted]"
"""The text a redacted message version reads as."""


def redacted_body(participant: str, timestamp: float | None, audience: Sequence[str] | None = None) -> str:
    """The body a redacted message version keeps (compact JSON): its participant and time, one text block
    :data:`REDACTED_TEXT` (for ``audience`` only, when every block of the original named readers: the
    readers who saw some of it), and the top-level mark ``"redacted": true``, which no write of the library
    can set (a caller's ``metadata`` lives under its own key), so only a redaction makes a stub; the
    guards accept nothing else in its place."""
    block: dict[str, Any] = {"type": "text", "text": REDACTED_TEXT}
    if audience:
        block["audience"] = sorted(audience)
    body: dict[str, Any] = {"participant": participant, "content": [block]}
    if timestamp is not None:
        body["timestamp"] = timestamp
    body["redacted"] = True
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def is_redacted(value: Any) -> bool:
    """True for a decoded message body that is a redaction stub (:func:`redacted_body`)."""
    return isinstance(value, Mapping) and value.get("redacted") is True


def _audience(value: Mapping[str, Any]) -> list[str] | None:
    """The readers of a message body's blocks when every block names its audience, else None (some block
    is for everyone)."""
    readers: set[str] = set()
    for block in value.get("content") or ():
        names = block.get("audience") if isinstance(block, Mapping) else None
        if not isinstance(names, list):
            return None
        readers.update(str(n) for n in names)
    return sorted(readers) or None


def stub_for(value: Mapping[str, Any]) -> str:
    """The stub (:func:`redacted_body`) of a decoded message body: its participant, time and readers."""
    ts = value.get("timestamp")
    when = ts if isinstance(ts, int | float) and not isinstance(ts, bool) else None  # as stored (the guard compares)
    return redacted_body(str(value.get("participant", "")), when, _audience(value))


def is_message_slot(slot: str) -> bool:
    """True for a message slot (``messages`` or ``messages/<namespace>``): the records the message index holds."""
    return slot == "messages" or slot.startswith("messages/")


def redact_records(
    tx: Transaction, records: Sequence[Record], *, index_thinking: bool = False, stub: bool = True
) -> dict[int, str]:
    """Inside ``tx``: remove the bodies of ``records`` and what the store derived from them.

    Args:
        tx: The write transaction (the caller writes its redaction record in it too).
        records: The records to erase, as read (their bodies are needed to find their index documents
            and blobs); records without a body, and message versions that are stubs already, are skipped.
        index_thinking: Whether the message slot indexes thinking text (the manager's setting), so the
            exact documents can be taken out of an index that cannot read them back (SQLite's contentless
            FTS5). A message whose documents depend on it and were written by a handle with the other
            setting would not be found; for those the SQLite message index is rebuilt instead.
        stub: Message versions keep a stub body (:func:`redacted_body`: participant, time, the text
            "[redacted]") so the message keeps its place and reads as redacted; other records, and every
            record with False, get no body at all.

    Returns:
        ``{sequence: hex sha256 of the removed body}`` for each record whose body was removed.

    Raises:
        StoreError: the backend cannot redact.
    """
    store = tx._store
    if not store.can_redact:
        raise StoreError(f"the {store.backend} backend cannot redact")
    removed: dict[int, str] = {}
    stubs: dict[int, str] = {}
    message_docs: list[tuple[int, Sequence[tuple[int, str]] | None]] = []
    summaries: list[tuple[int, Sequence[tuple[int, str]]]] = []
    digests: set[str] = set()
    for rec in records:
        if rec.body is None or rec.seq in removed:
            continue
        try:
            value = rec.value()
        except StoreError:
            value = None  # not JSON: never indexed, names no blob; its bytes go all the same
        if is_redacted(value) and is_message_slot(rec.slot):
            continue  # a stub already (never indexed by a write: taking its documents out would corrupt FTS5)
        removed[rec.seq] = payload_digest(rec.body)
        if store.has_text_index and value is not None:
            if is_summary_record(rec.slot, rec.item):
                summaries.append((rec.seq, summary_documents(value)))
            elif is_message_slot(rec.slot) and rec.op in (Op.APPEND, Op.EDIT) and isinstance(value, dict):
                docs = index_documents(value, index_thinking)
                exact = docs == index_documents(value, not index_thinking)
                message_docs.append((rec.seq, docs if exact else None))
        if stub and is_message_slot(rec.slot) and rec.op in (Op.APPEND, Op.EDIT) and isinstance(value, dict):
            stubs[rec.seq] = stub_for(value)
        digests |= blob_digests(value)
    if not removed:
        return removed
    # Bodies first: the PostgreSQL guard lets an index row go only once its record is erased.
    store._null_bodies(tx, sorted(q for q in removed if q not in stubs))
    if stubs:
        store._stub_bodies(tx, stubs)
    if message_docs:
        store._text_unindex(tx, message_docs)
    if summaries:
        store._summary_unindex(tx, summaries)
    for digest in sorted(digests):
        if not store._blob_referenced(digest):
            store._delete_blob(tx, digest)
    return removed


def redactions_since(store: Store, sequence: int) -> bool:
    """True when a redaction record newer than ``sequence`` is stored (on any branch). Redactions are rare,
    so this reads the redaction log only when the store has moved past ``sequence``; False for a backend
    that cannot redact."""
    if not store.can_redact or store.head_seq() <= sequence:
        return False
    return any(rec.seq > sequence for rec in store.records_of(REDACTION_SLOT))


def redacted_sequences(store: Store) -> set[int]:
    """The sequences whose bodies the store's redaction records say were erased or written as stubs (their
    ``versions``, ``derived`` and ``placeholders``); empty for a backend that cannot redact. Called under the
    store's lock or not at all concurrently with a redaction (``context-journal verify``)."""
    if not store.can_redact:
        return set()
    out: set[int] = set()
    for rec in store._slot_records(REDACTION_SLOT):
        try:
            body = rec.value()
            out.update(
                int(s) for s in (*body.get("versions", ()), *body.get("derived", ()), *body.get("placeholders", ()))
            )
        except (StoreError, AttributeError, TypeError, ValueError):
            continue
    return out
