"""Integrity checks of a store's own rows: what can be verified of the records, blobs and guards.

The checks (:func:`check_store`, run by ``context-journal verify``):

* **guards** — the database's append-only triggers on ``records`` and ``journal_entries`` are present (and
  enabled, on PostgreSQL): a store whose guard was dropped could have been edited in place;
* **sequence** — records hold every sequence from 1 to the store's head, with no hole: a deleted record
  leaves one (on PostgreSQL the ``head`` row also remembers the newest sequence, so deleting the newest
  records is caught too; on SQLite the newest record is the head, and the execution journal's markers catch
  the deletion of a journal entry's record — :mod:`context_journal.journal.integrity`);
* **records** — each has a known operation, a branch and a slot that exist, and a body that is JSON (only a
  removal has none);
* **blobs** — each blob's bytes hash to its sha256 name and its size is theirs.

What it cannot see: a message record whose body was rewritten in place, with the triggers dropped and put
back, into other valid JSON (records carry no hash of their own). The triggers are what refuses that edit;
the execution journal is hash-chained and also signed (see :mod:`context_journal.journal.integrity`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from .base import Op, Store
from .redaction import is_redacted, redacted_sequences, stub_for

__all__ = ["IntegrityProblem", "StoreCheck", "check_store"]

_PAGE = 2000
_OPS = frozenset(int(op) for op in Op)


@dataclass(frozen=True)
class IntegrityProblem:
    """One thing that does not verify.

    Attributes:
        scope: Where: ``guards``, ``records``, ``blobs``, or ``journal <project>``.
        at: The record sequence, blob digest or journal seq concerned (None for the scope as a whole).
        reason: What is wrong, in words.
    """

    scope: str
    at: int | str | None
    reason: str

    def line(self) -> str:
        """The problem on one line (what ``context-journal verify`` prints)."""
        where = self.scope if self.at is None else f"{self.scope} #{self.at}"
        return f"{where}: {self.reason}"


@dataclass(frozen=True)
class StoreCheck:
    """The result of :func:`check_store`.

    Attributes:
        problems: Every problem found, in scan order (records are reported up to a limit, then counted).
        records: Records scanned.
        blobs: Blobs scanned.
        redacted: Records whose body a redaction erased (named by a redaction record; not a problem).
    """

    problems: tuple[IntegrityProblem, ...]
    records: int
    blobs: int
    redacted: int = 0

    @property
    def ok(self) -> bool:
        """True when nothing is wrong."""
        return not self.problems


def check_store(store: Store, *, max_problems: int = 100, page: int = _PAGE) -> StoreCheck:
    """Scan every record and blob of a store (in pages) and its append-only guards.

    Args:
        store: The store.
        max_problems: Stop listing record and blob problems after this many (a summary line counts the rest).
        page: Rows read per query.

    Returns:
        The problems found (empty when the store verifies).
    """
    problems: list[IntegrityProblem] = []
    extra = 0

    def add(problem: IntegrityProblem) -> None:
        nonlocal extra
        if len(problems) < max_problems:
            problems.append(problem)
        else:
            extra += 1

    with store._lock:
        store._check_open()
        for reason in store._guard_problems():
            add(IntegrityProblem("guards", None, reason))
        branches = {b.id for b in store.list_branches(include_deleted=True)}
        # The newest sequence the store has held: its head, or a newer one its other tables still name
        # (deleting the newest message records once passed verify).
        head = max(store.head_seq(), store._highest_sequence_seen())
        expected, records = 1, 0
        refs: dict[str, int] = {}  # blob digest -> the first record that refers to it
        erased = redacted_sequences(store)  # bodies a redaction record says were erased
        redacted = 0
        while True:
            rows = store._scan_records(expected - 1, page)
            for seq, branch_id, slot, item, op, body, *more in rows:
                if seq != expected:
                    span = f"{expected}" if seq == expected + 1 else f"{expected}..{seq - 1}"
                    add(IntegrityProblem("records", expected, f"records {span} are missing (deleted)"))
                reason, value = _record_problem(branch_id in branches, slot, op, body, item)
                if seq in erased and op in (Op.APPEND, Op.EDIT, Op.STATE):
                    redacted += 1
                    if body is None:
                        reason = ""
                    elif isinstance(value, dict) and is_redacted(value) and body != stub_for(value):
                        reason = "a redaction stub that is not the exact stub (text written where a body was erased)"
                elif not reason and is_redacted(value):
                    reason = "a redaction stub that no redaction record names (a body replaced outside a redaction)"
                elif not reason and more and more[0] is not None and op in (Op.APPEND, Op.EDIT):
                    reason = _index_problem(str(more[0]), value)
                if reason:
                    add(IntegrityProblem("records", seq, f"{reason} (slot {slot!r}, item {item!r})"))
                elif isinstance(value, dict) and isinstance(value.get("content"), list):
                    for digest in _blob_refs(value["content"]):
                        refs.setdefault(digest, seq)
                expected = seq + 1
                records += 1
            if len(rows) < page:
                break
        if expected - 1 < head:
            span = f"{expected}" if head == expected else f"{expected}..{head}"
            add(IntegrityProblem("records", expected, f"records {span} are missing: the newest were deleted"))
        after, blobs = "", 0
        while True:
            found = store._scan_blobs(after, page)
            for digest, size, data in found:
                refs.pop(digest, None)
                if hashlib.sha256(data).hexdigest() != digest:
                    add(IntegrityProblem("blobs", digest, "the bytes do not hash to the blob's name (changed)"))
                elif size != len(data):
                    add(IntegrityProblem("blobs", digest, f"size {size} recorded for {len(data)} bytes"))
                blobs += 1
            if len(found) < page:
                break
            after = found[-1][0]
        for digest, seq in sorted(refs.items(), key=lambda kv: kv[1]):
            add(IntegrityProblem("blobs", digest, f"missing (deleted): record {seq} and maybe others refer to it"))
    if extra:
        problems.append(IntegrityProblem("records", None, f"{extra} more problems not listed"))
    return StoreCheck(tuple(problems), records, blobs, redacted)


def _record_problem(
    branch_known: bool, slot: str | None, op: int, body: str | None, item: str = "x"
) -> tuple[str, object]:
    """What makes a record unreadable ("" when nothing does), and its decoded body (None when unread)."""
    if op not in _OPS:
        return f"unknown operation {op}", None
    if not branch_known:
        return "its branch does not exist", None
    if slot is None:
        return "its slot does not exist", None
    if body is None:
        return ("" if op == Op.REMOVE else "no body (only a removal, or a version a redaction erased, has none)"), None
    try:
        value = json.loads(body)
    except ValueError:
        return "the body is not JSON", None
    except RecursionError:
        return "the body is nested too deeply to read", None
    if slot.startswith("messages"):
        from .._names import name_problem

        problem = name_problem(item)
        if problem is not None:
            return f"a message id that {problem}", value
        return _message_problem(value), value
    return "", None


def _index_problem(ix: str, value: object) -> str:
    """What is wrong with the index fields stored with a message version (``Record.ix``), which an open
    trusts instead of its body ("" when nothing is): fields that are not the ones its body gives, or, under
    the default estimate's key, a token count that is not the estimate's."""
    from ..messages import index_fields, stored_count
    from ..tokens import EstimatingCounter, counter_key

    key = ix.partition(" ")[0]
    count = stored_count(ix)
    if not isinstance(value, dict) or count is None:
        return f"stored index fields that cannot be read ({ix[:60]!r})"
    if index_fields(key, count, value) != ix:
        return "stored index fields (block kinds, participant, time) that are not its body's"
    default = EstimatingCounter()
    if key == counter_key(default) and count != default.count_message(value["participant"], value["content"]):
        return f"a stored token count ({count}) that is not the estimate of its body"
    return ""


def _blob_refs(content: list[object]) -> list[str]:
    """The blob digests a message's blocks refer to (their own sources, and those in a tool result)."""
    out: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        nested = block.get("content") if block.get("type") == "tool_result" else None
        for b in [block, *(nested if isinstance(nested, list) else [])]:
            source = b.get("source") if isinstance(b, dict) else None
            if isinstance(source, dict) and source.get("type") == "blob" and isinstance(source.get("sha256"), str):
                out.append(source["sha256"])
    return out


def _message_problem(value: object) -> str:
    """What makes a message record unreadable (the shape every read needs: a record
    inserted by SQL with ``"content": null``, a timestamp of 1e30 or a lone surrogate once passed verify and
    then failed every read)."""
    from ..errors import MalformedContentError
    from ..messages import MAX_TIMESTAMP, MIN_TIMESTAMP, encode_body

    if not isinstance(value, dict):
        return "a message body that is not an object"
    if not isinstance(value.get("participant"), str) or not value["participant"]:
        return "a message without a participant"
    if not isinstance(value.get("content"), list):
        return "a message whose content is not a list of blocks"
    ts = value.get("timestamp")
    if ts is not None and (
        isinstance(ts, bool) or not isinstance(ts, int | float) or not MIN_TIMESTAMP <= ts <= MAX_TIMESTAMP
    ):
        return f"a message timestamp out of range ({ts!r})"
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return "a message holding a lone surrogate (no UTF-8 text can carry it)"
    # What the writer checks and every read needs (an unknown block type, a text that
    # is not text, an audience that is not a list of names, empty content or deep nesting once passed verify
    # and then failed every read): the writer's own checks, less the rules added since for what may be
    # written (``strict=False``: what an older version wrote stays valid).
    try:
        encode_body(
            value["participant"], value["content"], value.get("metadata"), None, message_index=None, strict=False
        )
    except MalformedContentError as exc:
        return f"a message the writer would refuse ({exc.reason})"
    return ""
