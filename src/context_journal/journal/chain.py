"""The hash chain over a project's entries (pure functions).

Each entry's ``hash`` is the hex sha256 of the canonical JSON of ``[prev_hash, project, seq, kind, author,
body]``, where ``prev_hash`` is the previous entry's hash (``""`` for the first). Changing, removing or
reordering any entry breaks every hash from there on, so :func:`verify_chain` finds the first entry that was
tampered with. The wall-clock ``ts`` and the idempotency key are not covered (they are informational and
routing data).

**Hash versions.** The canonical form is versioned, per entry, by the stored body itself:

* version **2** (every entry written now): the body holds ``"[hash_version]": 2`` (:data:`HASH_VERSION_KEY`)
  beside its fields, and the hash is over the UTF-8 bytes of the array's RFC 8785 (JSON Canonicalization
  Scheme) form, that key included: keys sorted by UTF-16 code units, numbers in ECMAScript form (``1.0`` is
  ``1``, ``1e21`` is ``1e+21``), strings with only the mandatory escapes. A verifier in any language with an
  RFC 8785 library recomputes it from the row alone.
* version **1** (entries written before, whose body has no such key): Python's ``json.dumps`` with
  ``sort_keys=True``, ``separators=(",", ":")``, ``ensure_ascii=False`` (:func:`~.entries.canonical_json`),
  UTF-8. These entries keep verifying with that rule, and a chain of version-1 entries followed by version-2
  ones verifies (the link is the hash text, whatever rule made it).

The version key is covered by the hash, so it cannot be changed (or added, or removed) without the hash
failing; an unknown version does not verify. RFC 8785 has no form for NaN or infinite floats, integers beyond
±(2**53 - 1) or non-text keys; no entry body holds a float, and an append whose body would hold one of those
(or a lone surrogate, which no UTF-8 store keeps) is refused with
:class:`~context_journal.journal.errors.EntryValidationError` naming the field (:func:`jcs_problem`). A
journal seq beyond 2**53 - 1 cannot be hashed under version 2 (:func:`entry_hash` raises ValueError).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import rfc8785

from ..stores import JournalRow
from .entries import HASH_VERSION, HASH_VERSION_KEY, MAX_SAFE_INTEGER, canonical_json

__all__ = [
    "GENESIS_HASH",
    "HASH_VERSION",
    "HASH_VERSIONS",
    "HASH_VERSION_KEY",
    "ChainReport",
    "body_hash_version",
    "canonical_bytes",
    "entry_hash",
    "jcs_problem",
    "stored_body_text",
    "verify_chain",
]

GENESIS_HASH = ""
"""``prev_hash`` of a project's first entry."""

HASH_VERSIONS: tuple[int, ...] = (1, 2)
"""The hash versions a journal verifies."""


def canonical_bytes(value: Any, version: int) -> bytes:
    """The bytes hash ``version`` hashes ``value`` as: version 1 :func:`~.entries.canonical_json` in UTF-8,
    version 2 RFC 8785.

    Raises:
        ValueError: an unknown version, or a value the version's form refuses (RFC 8785: NaN or infinite
            floats, integers beyond ±(2**53 - 1), non-text keys, lone surrogates;
            ``rfc8785.CanonicalizationError``, a ValueError).
    """
    if version == 2:
        return rfc8785.dumps(value)
    if version == 1:
        return canonical_json(value).encode("utf-8")
    raise ValueError(f"unknown hash version {version!r} (known: {', '.join(map(str, HASH_VERSIONS))})")


def body_hash_version(body: Any) -> int:
    """The hash version a stored body names: its ``"[hash_version]"`` value, 1 when it has none.

    Raises:
        ValueError: the key holds anything but a known version above 1 (version 1 is never written as a key).
    """
    if not isinstance(body, Mapping) or HASH_VERSION_KEY not in body:
        return 1
    version = body[HASH_VERSION_KEY]
    if type(version) is not int or version == 1 or version not in HASH_VERSIONS:
        raise ValueError(f"unknown hash version {version!r} in the body")
    return version


def stored_body_text(data: Mapping[str, Any], version: int = HASH_VERSION) -> str:
    """The text a body is stored as under hash ``version``: version 1 :func:`~.entries.canonical_json` of
    ``data``; version 2 RFC 8785 of ``data`` with ``"[hash_version]": 2`` added.

    Raises:
        ValueError: an unknown version, or a value RFC 8785 refuses (see :func:`canonical_bytes`).
    """
    if version == 1:
        return canonical_json(data)
    return canonical_bytes({**data, HASH_VERSION_KEY: version}, version).decode("utf-8")


def jcs_problem(value: Any, path: str = "") -> str | None:
    """What in ``value`` (JSON data) RFC 8785 cannot hash, naming where as the schema's faults do
    (``tasks.0.id: ...``, ``body`` for the value itself), or None."""
    where = path or "body"
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{where}: key {key!r} is not text"
            inner = f"{path}.{key}" if path else key
            problem = jcs_problem(key, f"{inner} (key)") or jcs_problem(item, inner)
            if problem:
                return problem
        return None
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            problem = jcs_problem(item, f"{path}.{i}" if path else str(i))
            if problem:
                return problem
        return None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
        return f"{where}: the integer {value} is beyond ±(2**53 - 1), which RFC 8785 cannot hash exactly"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{where}: {value} is not a JSON number (RFC 8785 has no NaN or Infinity)"
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"{where}: the text holds a lone surrogate (not valid UTF-8)"
    return None


def entry_hash(
    prev_hash: str,
    project: str,
    seq: int,
    kind: str,
    author: str,
    body: Any,
    *,
    hash_version: int | None = None,
) -> str:
    """The hash of one entry.

    Args:
        prev_hash: The previous entry's hash (:data:`GENESIS_HASH` for seq 1).
        project: The project's slug.
        seq: The entry's seq.
        kind: Its kind.
        author: Its author.
        body: Its body as JSON data or stored JSON text; its ``"[hash_version]"`` key, when present, names
            the hash version (absent: version 1).
        hash_version: The version to hash with when the body has no version key (``Entry.body`` has none:
            pass ``Entry.hash_version``); the key is then added for version 2. When the body has the key,
            the two must agree.

    Returns:
        64 hex characters.

    Raises:
        ValueError: invalid JSON text, an unknown or contradicting version, or a value the version's
            canonical form refuses (see :func:`canonical_bytes`).
    """
    text = body if isinstance(body, str) else None
    if text is not None:
        body = json.loads(text)
    if hash_version is not None and hash_version != 1 and isinstance(body, Mapping) and HASH_VERSION_KEY not in body:
        body = {**body, HASH_VERSION_KEY: hash_version}
    version = body_hash_version(body)
    if hash_version is not None and version != hash_version:
        raise ValueError(f"the body names hash version {version}, not {hash_version}")
    try:
        payload = canonical_bytes([prev_hash, project, seq, kind, author, body], version)
    except rfc8785.IntegerDomainError:
        if text is None or version == 1:
            raise
        # RFC 8785 numbers are doubles: an integral float from 2**53 up is written without a fraction,
        # and is read back as one here (as any RFC 8785 verifier reads it)
        body = json.loads(text, parse_int=_jcs_int)
        payload = canonical_bytes([prev_hash, project, seq, kind, author, body], version)
    return hashlib.sha256(payload).hexdigest()


def _jcs_int(digits: str) -> int | float:
    value = int(digits)
    return value if abs(value) <= MAX_SAFE_INTEGER else float(value)


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
        except (ValueError, RecursionError) as exc:
            if row.body.startswith("redacted:sha256:"):
                reason = "the body was redacted: verify it with the store (ExecutionJournal.verify_chain)"
                return ChainReport(False, checked, row.seq, reason)
            return ChainReport(False, checked, row.seq, unhashable_reason(exc))
        if recomputed != row.hash:
            return ChainReport(False, checked, row.seq, "the content does not match its hash")
        prev_hash = row.hash
        expected_seq += 1
        checked += 1
    return ChainReport(True, checked)


def unhashable_reason(exc: BaseException) -> str:
    """Why a stored row's hash could not be recomputed, in words."""
    if isinstance(exc, json.JSONDecodeError | RecursionError):
        return "the body is not valid JSON"
    return f"its hash cannot be recomputed: {exc}"
