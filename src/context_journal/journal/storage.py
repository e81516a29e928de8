"""Where the execution journal lives in a store.

**Entries** are rows of the ``journal_entries`` table (see :class:`~context_journal.stores.JournalRow`):
``UNIQUE(project, seq)`` and ``UNIQUE(project, idempotency_key)``; the backends refuse UPDATE and DELETE
(and TRUNCATE on PostgreSQL) and an insert that is not the project's head + 1 chained to the head's hash.
Each entry also writes a small marker record (slot ``journal`` on the root branch) that gives it its
store-wide sequence, so journal writes share the store's one sequence, change detection and transactions.

**Briefs** are records too: version ``v`` of project ``p`` is an ``append`` record in slot
``journal-briefs/<p>`` with item ``v<v>`` (never edited), and the state ``_journal/briefs/<p>`` points at
the newest version and the current (newest not rejected) one.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .._names import LONE_SURROGATE
from ..stores import JournalRow, Store, Transaction
from .entries import HASH_VERSION_KEY, Entry

__all__ = [
    "BRIEF_SLOT_PREFIX",
    "BRIEF_STATE_PREFIX",
    "REDACTED_BODY_PREFIX",
    "REDACTED_KEY",
    "brief_pointer",
    "check_author",
    "check_key",
    "check_slug",
    "read_brief_record",
    "redacted_body_sha256",
    "split_stored_body",
    "to_entry",
    "write_brief_record",
]

BRIEF_SLOT_PREFIX = "journal-briefs/"
BRIEF_STATE_PREFIX = "_journal/briefs/"

_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def check_slug(project: str) -> str:
    """``project`` if it is a valid slug (1..128 characters: ASCII letters, digits, ``._-``, not starting with
    a punctuation mark).

    Raises:
        ValueError: it is not.
    """
    if not isinstance(project, str) or not _SLUG.fullmatch(project):
        raise ValueError(
            f"project slug {project!r} must be 1..128 ASCII letters (a-z, A-Z), digits, '.', '_' or '-', starting "
            "with a letter or digit"
        )
    return project


def check_author(author: str) -> str:
    """``author`` if it is 1..200 characters without control characters.

    Raises:
        ValueError: it is not.
    """
    if (
        not isinstance(author, str)
        or not 1 <= len(author) <= 200
        or _CONTROL.search(author)
        or not author.strip()
        or LONE_SURROGATE.search(author)  # no UTF-8 store keeps one (SQLite failed, memory took it)
    ):
        raise ValueError(f"author {author!r} must be 1..200 printable characters")
    return author


def check_key(key: str) -> str:
    """``key`` if it is a valid idempotency key (1..200 characters without control characters).

    Raises:
        ValueError: it is not.
    """
    if not isinstance(key, str) or not 1 <= len(key) <= 200 or _CONTROL.search(key) or LONE_SURROGATE.search(key):
        raise ValueError(f"idempotency key {key!r} must be 1..200 printable characters")
    return key


REDACTED_BODY_PREFIX = "redacted:sha256:"
"""What a redacted entry's body column holds, followed by the 64 hex digits of the removed body's sha256
(see :mod:`~context_journal.journal.redaction`; SQLite's migration 11 and PostgreSQL's migration 7 accept
exactly this value in a redaction's UPDATE)."""

REDACTED_KEY = "[redacted]"
"""The key of the marker body a redacted :class:`Entry` is read with: ``{"[redacted]": true,
"body_sha256": <hex>}`` (no kind's body has that key)."""

_REDACTED = re.compile(r"redacted:sha256:([0-9a-f]{64})")


def redacted_body_sha256(body: str) -> str | None:
    """The sha256 a redacted entry's body column keeps (64 hex characters), or None for a body that is not
    the redaction marker (an ordinary entry)."""
    match = _REDACTED.fullmatch(body)
    return match.group(1) if match else None


def split_stored_body(text: str) -> tuple[Any, int]:
    """A stored (not redacted) body's JSON data without its ``"[hash_version]"`` key, and that version (1
    when absent; see :mod:`.chain`).

    Raises:
        ValueError: the text is not JSON.
    """
    data = json.loads(text)
    if isinstance(data, dict) and HASH_VERSION_KEY in data:
        version = data.pop(HASH_VERSION_KEY)
        return data, version if type(version) is int else 0
    return data, 1


def to_entry(row: JournalRow) -> Entry:
    """The :class:`Entry` of a stored row (its body without the hash version key, which becomes
    ``hash_version``); a redacted row's has ``redacted=True``, ``hash_version=None`` and the marker body
    ``{"[redacted]": true, "body_sha256": <hex>}``."""
    digest = redacted_body_sha256(row.body)
    body, version = (
        split_stored_body(row.body) if digest is None else ({REDACTED_KEY: True, "body_sha256": digest}, None)
    )
    return Entry(
        project=row.project,
        seq=row.seq,
        store_seq=row.store_seq,
        kind=row.kind,
        author=row.author,
        idempotency_key=row.idempotency_key,
        body=body,
        prev_hash=row.prev_hash,
        hash=row.hash,
        ts=row.ts,
        redacted=digest is not None,
        hash_version=version,
    )


def brief_pointer(store: Store, branch_id: int, project: str) -> dict[str, int]:
    """``{"latest": v, "current": v}`` of a project's briefs (``{}`` when none was stored); ``current`` is
    absent while every brief was rejected."""
    value = store.get_state(branch_id, BRIEF_STATE_PREFIX + project, default=None)
    return {k: int(v) for k, v in value.items()} if isinstance(value, dict) else {}


def write_brief_record(
    store: Store, txn: Transaction, branch_id: int, project: str, version: int, body: dict[str, Any]
) -> int:
    """Append brief ``version`` of ``project`` and move the pointer (``current`` only when the brief is not
    rejected). Call inside a transaction that holds the project's journal lock.

    Returns:
        The record's store sequence.
    """
    seq = txn.append(branch_id, BRIEF_SLOT_PREFIX + project, f"v{version}", body)
    pointer = brief_pointer(store, branch_id, project)
    pointer["latest"] = version
    if body.get("status") != "rejected":
        pointer["current"] = version
    txn.put_state(branch_id, BRIEF_STATE_PREFIX + project, pointer)
    return seq


def read_brief_record(store: Store, branch_id: int, project: str, version: int) -> dict[str, Any] | None:
    """The stored body of brief ``version`` of ``project``, or None."""
    records = store.read_slot(BRIEF_SLOT_PREFIX + project, branch_id, item=f"v{version}")
    if not records:
        return None
    value = records[-1].value()
    return value if isinstance(value, dict) else None
