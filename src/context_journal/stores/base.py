"""The store contract: branches, sequences, item logs, states and blobs (DESIGN.md 2.1).

A store is a durable list of **records**. Each record gets the next **sequence** (one store-wide,
increasing integer; rolled-back writes consume none) and belongs to one **branch** and one **slot**
(a named log, e.g. ``messages`` or ``summaries/ann``). A record is an operation on an **item** of its
slot: ``append`` creates the item, ``edit`` writes a new version, ``remove`` writes a tombstone; the
``state`` operation writes a version of a small JSON value under a key. Nothing is updated in place.

A **branch** is one row ``(id, name, parent_id, fork_seq)``. A branch sees its own records plus its
ancestors' records up to each fork sequence: its **lineage**. Creating one is O(1).

Backends implement a handful of primitives (``_insert``, ``_rows``, ``_latest``, branches, blobs,
transactions); everything else — lineage, visibility, reads "as of" a sequence — is written once here,
so the memory reference backend, SQLite and PostgreSQL share the semantics. No method of the contract
assumes SQLite: sequences come from the backend's own allocator, inside the write's transaction.
"""

from __future__ import annotations

import inspect
import json
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import Any, Protocol, Self, cast, runtime_checkable

from .. import telemetry
from .._names import clip_repr, name_problem
from ..content import sha256_hex
from ..errors import (
    BlobNotFoundError,
    BranchExistsError,
    BranchInUseError,
    BranchNotFoundError,
    CorruptRecordError,
    StoreClosedError,
    StoreError,
)
from .fulltext import TextHit, is_summary_record, summary_documents

__all__ = [
    "JOURNAL_SLOT",
    "ROOT_BRANCH",
    "BranchInfo",
    "JournalRow",
    "JournalTable",
    "Lineage",
    "Op",
    "Record",
    "Store",
    "StoreStats",
    "Transaction",
]

ROOT_BRANCH = "main"
"""Name of the branch every store starts with."""

_INF = 2**62

JOURNAL_SLOT = "journal"
"""Slot of the marker record each execution-journal entry writes on the root branch (it gives the entry its
store-wide sequence, so journal writes share the store's sequence, change tokens and transactions)."""


class Op(IntEnum):
    """What a record does to its item."""

    APPEND = 1
    EDIT = 2
    REMOVE = 3
    STATE = 4


@dataclass(frozen=True, slots=True)
class Record:
    """One stored record.

    Attributes:
        seq: Store-wide sequence number.
        branch_id: Branch the record was written on.
        slot: Name of the log (``messages``, ``state``...).
        item: Stable id of the item (message id, state key...).
        op: The operation.
        body: Compact JSON text, or None for a tombstone.
        ts: Wall-clock time of the write, seconds since the epoch (informational; order is by ``seq``).
        ix: What the message index keeps of a message version, written with it so that opening a store
            neither prices nor parses every message: ``"<counter key> <tokens>"`` (see
            :func:`~context_journal.tokens.counter_key`), then, when the body allows, its odd flag, time,
            block kinds and participant (``context_journal.messages.index_fields``); or None (other
            records, records written before this field existed or by a counter with no key, and redacted
            versions). Opaque to the store.
    """

    seq: int
    branch_id: int
    slot: str
    item: str
    op: Op
    body: str | None
    ts: float
    ix: str | None = None

    def value(self) -> Any:
        """The decoded JSON body (None for a tombstone).

        Raises:
            CorruptRecordError: the body is not JSON (or nested too deeply to decode).
        """
        if self.body is None:
            return None
        try:
            return json.loads(self.body)
        except (ValueError, RecursionError) as exc:
            raise CorruptRecordError(self.seq, self.slot, self.item, f"its body is not JSON ({exc})") from None


@dataclass(frozen=True, slots=True)
class JournalRow:
    """One row of the execution journal's table (``journal_entries``); see :mod:`context_journal.journal`.

    Rows are append-only: backends refuse UPDATE and DELETE (triggers on SQLite and PostgreSQL, no such
    operation in memory) and an insert whose ``seq`` is not the project's head + 1 or whose ``prev_hash``
    is not the head's ``hash``.

    Attributes:
        project: The project's slug.
        seq: Position in the project's journal, from 1, gap-free.
        store_seq: The store-wide sequence of the entry's marker record.
        kind: Entry kind (``plan``, ``handoff``...).
        author: Who wrote it.
        idempotency_key: Unique per project; a retry with the same key finds this row.
        body: Canonical JSON text of the validated body (sorted keys, compact).
        prev_hash: ``hash`` of the previous entry (``""`` for the first).
        hash: Hex sha256 chaining this entry to the previous one.
        ts: Wall-clock time of the write, seconds since the epoch (informational).
    """

    project: str
    seq: int
    store_seq: int
    kind: str
    author: str
    idempotency_key: str
    body: str
    prev_hash: str
    hash: str
    ts: float


@runtime_checkable
class JournalTable(Protocol):
    """The execution-journal table, a part of the store contract a backend opts into by implementing these
    primitives (the three shipped backends do). A store without them refuses journal reads and writes with
    :class:`~context_journal.errors.StoreError`. Rows are written only through
    :meth:`Transaction.append_journal`, inside the transaction that writes their marker record.
    """

    def _journal_insert(self, row: JournalRow) -> None:
        """Inside the write transaction: insert ``row``; raise :class:`~context_journal.errors.StoreError`
        when ``row.seq`` is not the project's head + 1, ``row.prev_hash`` is not the head's hash, or the
        idempotency key is taken."""
        ...

    def _journal_select(
        self, project: str, after: int, upto: int, limit: int | None, descending: bool, kinds: tuple[str, ...] | None
    ) -> list[JournalRow]:
        """Rows of ``project`` with ``after < seq <= upto`` (of ``kinds`` when given), in seq order or
        newest first, at most ``limit``."""
        ...

    def _journal_by_key(self, project: str, key: str) -> JournalRow | None:
        """The row of ``project`` written with idempotency key ``key``, or None."""
        ...

    def _journal_projects(self) -> list[str]:
        """Every project with at least one row."""
        ...


_HAS_JOURNAL: dict[type, bool] = {}
"""Whether a store class implements :class:`JournalTable` (checked once per class)."""


@dataclass(frozen=True, slots=True)
class BranchInfo:
    """A branch row.

    Attributes:
        id: Backend id.
        name: Unique among live branches.
        parent_id: Id of the branch it was forked from (None for the root).
        fork_seq: Last sequence of the parent that this branch sees (None for the root).
        created_at: Wall-clock creation time, seconds since the epoch.
        deleted: True once deleted (its records stay readable through children, which keep it).
    """

    id: int
    name: str
    parent_id: int | None
    fork_seq: int | None
    created_at: float
    deleted: bool = False


@dataclass(frozen=True, slots=True)
class Lineage:
    """What one branch sees: ``segments`` are ``(branch_id, upto_seq)`` from the root to the branch,
    in increasing sequence order (a branch's rows all come after its fork)."""

    segments: tuple[tuple[int, int], ...]

    @property
    def branch_id(self) -> int:
        return self.segments[-1][0]


@dataclass(frozen=True, slots=True)
class StoreStats:
    """Sizes of a store.

    Attributes:
        records: Number of records.
        payload_bytes: Bytes of record bodies plus blob bytes (what the host wrote).
        bytes_on_disk: Bytes the backend uses (database files; 0 for memory).
        head_seq: Newest sequence.
    """

    records: int
    payload_bytes: int
    bytes_on_disk: int
    head_seq: int


class Transaction:
    """The writes of one logical operation; obtained from :meth:`Store.transaction`.

    All writes commit together when the ``with`` block ends, or none does if it raises.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self.seqs: list[int] = []
        self._live_checked: set[int] = set()
        self._on_commit: list[Callable[[], None]] = []
        self._on_rollback: list[Callable[[], None]] = []

    def on_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once the outermost transaction has committed (never if it rolls back).

        A cache that applies its own writes does it here: a write made inside a transaction joined by an
        outer one is not durable until the outer one commits.
        """
        self._on_commit.append(callback)

    def on_rollback(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` if the outermost transaction rolls back (for any exception, or a failed commit)."""
        self._on_rollback.append(callback)

    def _finish(self, committed: bool) -> None:
        callbacks = self._on_commit if committed else self._on_rollback
        self._on_commit, self._on_rollback = [], []
        for callback in callbacks:
            callback()

    def append(self, branch_id: int, slot: str, item: str, body: Any, op: Op = Op.APPEND) -> int:
        """Write a record; ``body`` is a JSON value (None only for ``Op.REMOVE``). Returns its sequence.

        A summary record (:func:`~context_journal.stores.fulltext.is_summary_record`) is also added to the
        store's summary index (:meth:`Store.search_summary_index`), in this transaction."""
        text = None if body is None else json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        seq = self._store._insert(branch_id, slot, item, op, text, time.time())
        self.seqs.append(seq)
        if body is not None and self._store.has_text_index and is_summary_record(slot, item):
            documents = summary_documents(body)
            if documents:
                self._store._summary_insert(self, seq, documents)
        return seq

    def append_text(self, branch_id: int, slot: str, item: str, body: str | None, op: Op, ix: str | None = None) -> int:
        """Like :meth:`append` with ``body`` already encoded as compact JSON text, and ``ix`` the
        message index's fields of a message version (:attr:`Record.ix`).

        Raises:
            BranchNotFoundError: the branch was deleted (perhaps by another handle); nothing is written.
        """
        store = self._store
        if ix is not None and store._keeps_ix:
            seq = store._insert(branch_id, slot, item, op, body, time.time(), ix=ix)
        else:
            seq = store._insert(branch_id, slot, item, op, body, time.time())
        if branch_id not in self._live_checked:
            # Checked after the insert, under the write lock, so a concurrent delete cannot slip between.
            self._store._require_live_branch(branch_id)
            self._live_checked.add(branch_id)
        self.seqs.append(seq)
        return seq

    def index_text(self, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        """Add the full-text documents of the record ``seq`` (a message version) to the store's index,
        in this transaction: ``(group, text)`` pairs from :func:`~context_journal.stores.fulltext
        .index_documents`. A backend without a full-text index ignores them."""
        if documents and self._store.has_text_index:
            self._store._text_index(self, seq, documents)

    def put_state(self, branch_id: int, key: str, value: Any) -> int:
        """Write a new version of state ``key`` on the branch. Returns its sequence."""
        return self.append(branch_id, "state", key, value, Op.STATE)

    def put_blob(self, data: bytes) -> str:
        """Store bytes once (content-addressed); returns their hex sha256."""
        digest = sha256_hex(data)
        self._store._put_blob(digest, data)
        return digest

    def lock_journal(self, project: str) -> None:
        """Hold the journal write lock of ``project`` until this transaction ends, so its head can be read
        and extended without a race (SQLite: the ``BEGIN IMMEDIATE`` lock; PostgreSQL: the head row lock).
        Call it before reading the head you are going to extend."""
        self._store._journal_lock(project)

    def append_journal(
        self,
        branch_id: int,
        project: str,
        seq: int,
        kind: str,
        author: str,
        idempotency_key: str,
        body: str,
        prev_hash: str,
        hash: str,
        mac: str | None = None,
    ) -> JournalRow:
        """Write one journal row and its marker record (slot :data:`JOURNAL_SLOT` on ``branch_id``, which
        gives the row its store-wide sequence). Call :meth:`lock_journal` first.

        The marker's body is ``{"project", "seq", "hash"}`` (plus ``"mac"``, the signed head, when given):
        a second copy of the entry's hash in the append-only ``records`` table, which verification checks the
        journal's table against (:mod:`context_journal.journal.integrity`).

        Raises:
            StoreError: the backend refused the row (``seq`` not head + 1, ``prev_hash`` not the head's
                hash, or a duplicate idempotency key).
        """
        table = self._store._journal_table()  # refused before anything is written
        ts = time.time()
        fields: dict[str, Any] = {"project": project, "seq": seq, "hash": hash}
        if mac is not None:
            fields["mac"] = mac
        marker = json.dumps(fields, separators=(",", ":"), ensure_ascii=False)
        store_seq = self._store._insert(branch_id, JOURNAL_SLOT, f"{project}#{seq}", Op.APPEND, marker, ts)
        self.seqs.append(store_seq)
        row = JournalRow(project, seq, store_seq, kind, author, idempotency_key, body, prev_hash, hash, ts)
        table._journal_insert(row)
        return row

    def redact_journal_body(self, row: JournalRow, body: str) -> None:
        """Replace the body of journal row ``row`` with ``body`` (a redaction marker, see
        :mod:`context_journal.journal.redaction`), every other column kept; the guard lets exactly this
        through.

        Raises:
            StoreError: the row changed meanwhile, the guard refused the body, or the backend cannot redact.
        """
        self._store._journal_replace_body(self, row, body)


class Store(ABC):
    """A durable record store. Thread-safe per handle; see the module docstring for the model.

    Subclasses implement the ``_``-prefixed primitives. Public methods raise
    :class:`~context_journal.errors.StoreClosedError` after :meth:`close`.
    """

    backend: str = "abstract"

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._closed = False
        self._txn: Transaction | None = None
        self._branches: dict[int, BranchInfo] = {}
        # Live branches by name, built from _names_table (held, so its id is never reused) at _names_size rows.
        self._names: dict[str, BranchInfo] = {}
        self._names_table: dict[int, BranchInfo] | None = None
        self._names_size = 0
        self._branches_token: int | None = None
        self._branches_loaded_in_txn = False  # the branch table was loaded under the current write lock
        self._scope = threading.local()  # read_scope: .absent (slots found missing), .states, .token

    # ---- primitives ------------------------------------------------------------------------------

    @abstractmethod
    def _begin(self) -> None: ...

    @abstractmethod
    def _commit(self) -> None: ...

    @abstractmethod
    def _rollback(self) -> None: ...

    @abstractmethod
    def _insert(
        self, branch_id: int, slot: str, item: str, op: Op, body: str | None, ts: float, ix: str | None = None
    ) -> int:
        """Insert a record (``ix``: :attr:`Record.ix`); returns its sequence."""

    @abstractmethod
    def _rows(self, slot: str, branch_id: int, after: int, upto: int, item: str | None = None) -> list[Record]: ...

    @cached_property
    def _keeps_ix(self) -> bool:
        """Whether this backend's ``_insert`` takes ``ix``. One written before the field existed does not:
        its records are written without it, and an open prices and parses them as it did before."""
        try:
            params = inspect.signature(self._insert).parameters.values()
        except (TypeError, ValueError):
            return False
        return any(p.name == "ix" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)

    def _index_rows(self, slot: str, branch_id: int, after: int, upto: int) -> list[Record]:
        """Like :meth:`_rows` (every item), where a record that carries ``ix`` may come without its body
        (see :meth:`read_slot`'s ``bodies``). The default reads the bodies too."""
        return self._rows(slot, branch_id, after, upto)

    @abstractmethod
    def _latest(self, slot: str, branch_id: int, upto: int, item: str) -> Record | None:
        """The newest ``Op.STATE`` record of ``item`` on the branch up to ``upto`` (states only)."""

    @abstractmethod
    def _load_branches(self) -> list[BranchInfo]: ...

    @abstractmethod
    def _insert_branch(self, name: str, parent_id: int, fork_seq: int, created_at: float) -> int: ...

    @abstractmethod
    def _mark_branch_deleted(self, branch_id: int) -> None: ...

    @abstractmethod
    def _branch_heads(self) -> dict[int, int]: ...

    def _lock_branches(self) -> None:
        """Inside a write transaction: hold the write lock before the branch table is read for a create
        or delete, so two handles cannot both pass the checks (name free, no live children). A backend
        whose transactions take the write lock at ``BEGIN`` (SQLite, memory) has nothing to do."""
        return None

    @abstractmethod
    def _put_blob(self, digest: str, data: bytes) -> None: ...

    @abstractmethod
    def _get_blob(self, digest: str) -> bytes | None: ...

    @abstractmethod
    def _head_seq(self) -> int: ...

    @abstractmethod
    def _change_token(self) -> int: ...

    @abstractmethod
    def _token_after_commit(self) -> int:
        """Inside a write transaction: the change token this handle will report right after the
        commit, provided no one else commits in between."""

    @abstractmethod
    def _stats(self) -> StoreStats: ...

    @abstractmethod
    def _close(self) -> None: ...

    @abstractmethod
    def _slot_list(self) -> list[str]: ...

    @abstractmethod
    def _bodies(self, seqs: Sequence[int]) -> dict[int, str | None]: ...

    # Execution-journal primitives: the lock and the redaction have defaults; the table itself is the
    # JournalTable protocol, which a backend opts into by implementing it (without it, journal use is refused).

    def _journal_lock(self, project: str) -> None:
        """Inside a write transaction: serialise journal writers of ``project`` (see
        :meth:`Transaction.lock_journal`). Backends whose transactions take the write lock at ``BEGIN``
        have nothing to do."""
        return None

    def _journal_replace_body(self, tx: Transaction, row: JournalRow, body: str) -> None:
        """Inside ``tx``: set ``row``'s body to ``body`` (see :meth:`Transaction.redact_journal_body`)."""
        raise StoreError(f"the {self.backend} backend cannot redact journal entries")

    def _journal_table(self) -> JournalTable:
        """This store as its execution-journal table.

        Raises:
            StoreError: the backend does not implement :class:`JournalTable`.
        """
        has = _HAS_JOURNAL.get(type(self))
        if has is None:  # a runtime protocol check looks at every member: once per class
            has = _HAS_JOURNAL[type(self)] = isinstance(self, JournalTable)
        if not has:
            raise StoreError(
                f"the {self.backend} backend has no execution journal (it does not implement stores.JournalTable)"
            )
        return cast(JournalTable, self)

    # Integrity scans (stores/integrity.py): every stored row, in pages, and the database's own guards.

    def _scan_records(self, after: int, limit: int) -> list[tuple[Any, ...]]:
        """``(seq, branch_id, slot name or None when the slot row is missing, item, op, body, ix)`` of the
        first ``limit`` records with ``seq > after``, in sequence order (a backend that keeps no ``ix`` may
        leave it out: six fields)."""
        raise NotImplementedError(f"the {self.backend} backend cannot be scanned for integrity")

    def _scan_blobs(self, after: str, limit: int) -> list[tuple[str, int, bytes]]:
        """``(sha256, size, data)`` of the first ``limit`` blobs whose digest sorts after ``after``."""
        raise NotImplementedError(f"the {self.backend} backend cannot be scanned for integrity")

    def _guard_problems(self) -> list[str]:
        """What is missing or disabled of the database's append-only guards (triggers); none by default."""
        return []

    def _highest_sequence_seen(self) -> int:
        """The newest record sequence the backend's other tables name (its full-text index), 0 when none
        or unknown: newer than the head, the newest records were deleted."""
        return 0

    # Full-text index primitives (opt-in: ``has_text_index`` False means none; see stores/fulltext.py).

    has_text_index: bool = False
    _text_built: bool = False  # the backfill is finished (it never restarts: its end is fixed at migration)

    def _text_insert(self, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        raise NotImplementedError(f"the {self.backend} backend has no full-text index")

    def _text_index(self, tx: Transaction, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        """Inside ``tx``: index the documents of the record ``seq``. Here at once; a backend may queue them
        in the same transaction instead (SQLite: pending rows that the next search, or a later write of
        the same handle, folds into the index before anything reads it)."""
        self._text_insert(seq, documents)

    def _text_search(self, terms: Sequence[str], slots: Sequence[str], limit: int) -> list[TextHit]:
        """The ``limit`` best documents of ``slots`` matching any of ``terms`` (query words, see
        :func:`~context_journal.stores.fulltext.query_terms`), best first, ties newest first."""
        raise NotImplementedError(f"the {self.backend} backend has no full-text index")

    search_within: bool = False
    """Whether :meth:`_text_search_within` is implemented (``search_text(..., within=...)``): a search whose
    filters hide most candidates then ranks only the records it may show (see
    :func:`~context_journal.recall.search.search_messages`)."""

    def _text_search_within(
        self, terms: Sequence[str], slots: Sequence[str], limit: int, within: frozenset[int]
    ) -> list[TextHit]:
        """As :meth:`_text_search`, ranking only the documents of the records whose sequence is in ``within``
        (not empty)."""
        raise NotImplementedError(f"the {self.backend} backend does not restrict a search to given records")

    def _summary_insert(self, tx: Transaction, seq: int, documents: Sequence[tuple[int, str]]) -> None:
        """Inside ``tx``: index the documents of the summary record ``seq`` in the summary index (kept apart
        from the message index, so summaries never take places from, or change the bm25 statistics of, a
        message search)."""
        raise NotImplementedError(f"the {self.backend} backend has no full-text index")

    def _summary_search(self, terms: Sequence[str], slots: Sequence[str], limit: int) -> list[TextHit]:
        """The ``limit`` best summary documents of ``slots`` matching any of ``terms``, best first, ties
        newest first (as :meth:`_text_search`)."""
        raise NotImplementedError(f"the {self.backend} backend has no full-text index")

    def _text_backfill_state(self) -> tuple[int, int]:
        """``(done, upto)``: records with ``done < seq <= upto`` were written before the index existed
        and are not indexed yet (``done == upto`` when nothing is left)."""
        return (0, 0)

    def _text_backfill_mark(self, done: int) -> None:
        """Inside a write transaction: the records up to ``done`` are indexed."""
        raise NotImplementedError(f"the {self.backend} backend has no full-text index")

    def _message_records(self, after: int, upto: int, limit: int) -> list[Record]:
        """Appends and edits of message slots with ``after < seq <= upto``, oldest first, at most ``limit``."""
        raise NotImplementedError(f"the {self.backend} backend has no full-text index")

    # ---- redaction (stores/redaction.py) ----------------------------------------------------------
    #
    # The only path that changes a record after it was written: its body becomes NULL (the row, its
    # sequence, branch, slot, item and operation stay). Backends lift their append-only guard for exactly
    # these statements, inside the redaction's transaction, and put it back before it commits.

    can_redact = False
    """True when the backend implements the redaction primitives below."""

    def _slot_records(self, slot: str, item: str | None = None) -> list[Record]:
        """Every record of ``slot`` (of one ``item`` when given) on every branch, deleted ones included,
        oldest first."""
        raise NotImplementedError(f"the {self.backend} backend cannot redact")

    def _null_bodies(self, tx: Transaction, seqs: Sequence[int]) -> None:
        """Inside ``tx``: set the bodies of records ``seqs`` to NULL (the guard lifted for this statement)."""
        raise NotImplementedError(f"the {self.backend} backend cannot redact")

    def _stub_bodies(self, tx: Transaction, bodies: Mapping[int, str]) -> None:
        """Inside ``tx``: replace the bodies of message records with redaction stubs (``{sequence: compact
        JSON}`` of :func:`~context_journal.stores.redaction.redacted_body`; the guard lets only those through)."""
        raise NotImplementedError(f"the {self.backend} backend cannot redact")

    def _text_unindex(self, tx: Transaction, docs: Sequence[tuple[int, Sequence[tuple[int, str]] | None]]) -> None:
        """Inside ``tx``: take the message documents of each ``(seq, documents)`` out of the full-text index
        (``documents`` as :meth:`Transaction.index_text` received them, or None when not known exactly)."""
        raise NotImplementedError(f"the {self.backend} backend cannot redact")

    def _summary_unindex(self, tx: Transaction, docs: Sequence[tuple[int, Sequence[tuple[int, str]]]]) -> None:
        """Inside ``tx``: take the summary records of each ``(seq, documents)`` out of the summary index
        (``documents`` as :func:`~context_journal.stores.fulltext.summary_documents` gave them)."""
        raise NotImplementedError(f"the {self.backend} backend cannot redact")

    def _blob_referenced(self, digest: str) -> bool:
        """True when some record body still names blob ``digest``."""
        raise NotImplementedError(f"the {self.backend} backend cannot redact")

    def _delete_blob(self, tx: Transaction, digest: str) -> None:
        """Inside ``tx``: delete blob ``digest``."""
        raise NotImplementedError(f"the {self.backend} backend cannot redact")

    def _scrub(self) -> list[str]:
        """After a redaction committed: make the removed bytes leave the files (SQLite: fold the WAL and
        rewrite free pages). Returns what could not be done, in words (empty when all was)."""
        return []

    # ---- lifecycle -------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError("the store is closed; open a new handle")

    def close(self) -> None:
        """Close the handle; idempotent."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- transactions ----------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One logical operation: commits when the block ends, rolls back on any exception.

        Nested calls join the outer transaction (no savepoint: the outermost block decides, and
        :meth:`Transaction.on_commit` / :meth:`Transaction.on_rollback` callbacks run when it ends). On
        SQLite this is ``BEGIN IMMEDIATE``: the write lock is taken at the start, so sequences are
        allocated under it.
        """
        with self._lock:
            self._check_open()
            if self._txn is not None:
                yield self._txn
                return
            self._begin()
            began = time.perf_counter()
            self._forget_scope()  # this write may change what the scope read: read it again after it
            self._branches_loaded_in_txn = False
            txn = Transaction(self)
            self._txn = txn
            try:
                # The branch table cached before this write stays trusted after it (the write lock is held,
                # so only this transaction commits until it ends; a branch change empties the cache). Read
                # inside the try: on PostgreSQL it takes the write lock, which may time out or be cancelled.
                fresh = bool(self._branches) and self._branches_token == self._change_token()
                yield txn
            except BaseException:
                self._txn = None
                try:
                    self._rollback()
                finally:
                    self._branches_cache_stale()
                    txn._finish(committed=False)
                raise
            self._txn = None
            # A table trusted at the start, or loaded under this transaction's write lock (a foreign
            # commit before it made it stale), holds after this commit: nothing else committed since.
            trusted = fresh or self._branches_loaded_in_txn
            after = self._token_after_commit() if trusted and self._branches else None
            try:
                self._commit()
                if after is not None and self._branches:
                    self._branches_token = after
            except BaseException:
                # The backend rolled back: what this handle cached during the transaction is void.
                self._branches_cache_stale()
                txn._finish(committed=False)
                raise
            seconds = time.perf_counter() - began
            txn._finish(committed=True)
            telemetry.store_commit(self.backend, len(txn.seqs), seconds)

    def _branches_cache_stale(self) -> None:
        self._branches = {}

    # ---- change detection ------------------------------------------------------------------------

    @contextmanager
    def read_scope(self) -> Iterator[None]:
        """Reads made on this thread inside the scope are made once each: a slot found missing stays
        missing, and a state read (or fetched ahead with :meth:`prefetch_states`) keeps the record it
        found (on PostgreSQL each lookup is a round trip; a compile made eight). What the scope keeps is
        forgotten whenever it could be older than what a reader expects: when a write transaction begins
        on this handle (its writes are read after it; inside it nothing kept is used), and when
        :meth:`change_token` returns a token other than the last one it returned in the scope, or the
        first one after something was kept (a cache that reads the token and then its data must find
        everything committed before that token). Nested scopes share the outermost one."""
        outer = getattr(self._scope, "absent", None)
        if outer is None:
            self._scope.absent = set()
            self._scope.states = {}
            self._scope.token = None
        try:
            yield
        finally:
            if outer is None:
                self._scope.absent = None
                self._scope.states = None
                self._scope.token = None

    def _forget_scope(self) -> None:
        """Drop what this thread's :meth:`read_scope` kept (nothing outside one)."""
        absent = getattr(self._scope, "absent", None)
        if absent is not None:
            absent.clear()
            self._scope.states.clear()
            self._scope.token = None

    def _scope_token(self, token: int) -> None:
        """:meth:`change_token` read ``token``: forget what the scope kept if it may predate it."""
        absent = getattr(self._scope, "absent", None)
        if absent is None or self._txn is not None or token == self._scope.token:
            return
        if self._scope.token is not None or absent or self._scope.states:
            self._forget_scope()
        self._scope.token = token

    def _absent_slots(self) -> set[str] | None:
        """The slots found missing in this thread's :meth:`read_scope` (None: not in one)."""
        absent: set[str] | None = getattr(self._scope, "absent", None)
        return absent

    def _state_memo(self) -> dict[tuple[str, int, int | None, str], Record | None] | None:
        """The states read in this thread's :meth:`read_scope` (None: not in one, or inside a write)."""
        states: dict[tuple[str, int, int | None, str], Record | None] | None = getattr(self._scope, "states", None)
        return states if self._txn is None else None

    def change_token(self) -> int:
        """An opaque number that changes whenever anyone commits: another process, another handle, or
        another user of this handle (SQLite ``PRAGMA data_version`` plus this handle's commit count; the
        head sequence elsewhere). Cheap: call it before every read."""
        with self._lock:
            self._check_open()
            token = self._change_token()
            self._scope_token(token)
            return token

    def token_after_commit(self) -> int:
        """Inside a write transaction (the write lock is held, so no other writer can commit): the change
        token right after this transaction commits. A cache that applies its own writes records it, so
        it refreshes on any later foreign write and never on its own."""
        with self._lock:
            self._check_open()
            return self._token_after_commit()

    def head_seq(self) -> int:
        """The newest committed sequence (0 for an empty store)."""
        with self._lock:
            self._check_open()
            return self._head_seq()

    # ---- branches --------------------------------------------------------------------------------

    def _branch_table(self, refresh: bool = False) -> dict[int, BranchInfo]:
        if refresh or not self._branches:
            self._branches_token = self._change_token()  # read first: a commit racing the load shows later
            self._branches = {b.id: b for b in self._load_branches()}
            self._branches_loaded_in_txn = self._txn is not None
        return self._branches

    def _require_live_branch(self, branch_id: int) -> None:
        """Raise :class:`BranchNotFoundError` unless the branch exists and is not deleted (the cached table
        is trusted only while nothing was committed since it was loaded)."""
        fresh = bool(self._branches) and self._branches_token == self._change_token()
        info = self._branch_table(refresh=not fresh).get(branch_id)
        if info is None or info.deleted:
            raise BranchNotFoundError(info.name if info is not None else f"#{branch_id}")

    def _live_by_name(self, name: str, refresh: bool = False) -> BranchInfo | None:
        # O(1) per lookup (3,000 branches once made every fork scan them): the name index is rebuilt
        # when the table is reloaded (a new dict) or grows (a create adds its row in place).
        table = self._branch_table(refresh)
        if self._names_table is not table or self._names_size != len(table):
            self._names = {b.name: b for b in table.values() if not b.deleted}
            self._names_table, self._names_size = table, len(table)
        return self._names.get(name)

    def get_branch(self, name: str) -> BranchInfo:
        """The live branch called ``name``.

        Raises:
            BranchNotFoundError: when no live branch has that name.
        """
        with self._lock:
            self._check_open()
            # Names move (a branch deleted and its name reused, maybe by another handle or process):
            # trust the cached table only while nothing was committed since it was loaded.
            fresh = bool(self._branches) and self._branches_token == self._change_token()
            found = self._live_by_name(name, refresh=not fresh)
            if found is None:
                raise BranchNotFoundError(name)
            return found

    def branch_by_id(self, branch_id: int) -> BranchInfo:
        """The branch row with this id (live or deleted)."""
        with self._lock:
            self._check_open()
            table = self._branch_table()
            if branch_id not in table:
                table = self._branch_table(refresh=True)
            return table[branch_id]

    def list_branches(self, include_deleted: bool = False) -> list[BranchInfo]:
        """Branches in creation order."""
        with self._lock:
            self._check_open()
            rows = sorted(self._branch_table(refresh=True).values(), key=lambda b: b.id)
            return [b for b in rows if include_deleted or not b.deleted]

    def branch_heads(self) -> dict[int, int]:
        """Newest sequence written on each branch (branches with no records are absent)."""
        with self._lock:
            self._check_open()
            return self._branch_heads()

    def create_branch(self, name: str, from_branch: str = ROOT_BRANCH, at_sequence: int | None = None) -> BranchInfo:
        """Create branch ``name`` forked from ``from_branch`` at ``at_sequence`` (default: the store's
        head). O(1): one row, nothing copied.

        Raises:
            BranchExistsError: a live branch already has the name.
            BranchNotFoundError: ``from_branch`` does not exist.
            ValueError: ``at_sequence`` is negative or newer than the head.
        """
        problem = name_problem(name)
        if problem is not None:
            raise ValueError(f"a branch name {problem}: {clip_repr(name)}")
        with self.transaction():
            self._lock_branches()
            # The cached table is trusted while nothing was committed since it was read (the
            # write lock is held now, so nothing can commit until this transaction ends).
            fresh = bool(self._branches) and self._branches_token == self._change_token()
            if self._live_by_name(name, refresh=not fresh) is not None:
                raise BranchExistsError(name)
            parent = self.get_branch(from_branch)
            head = self._head_seq()
            fork = head if at_sequence is None else at_sequence
            if fork < 0 or fork > head:
                raise ValueError(f"at_sequence {fork} is outside 0..{head} (the store's head)")
            created = time.time()
            bid = self._insert_branch(name, parent.id, fork, created)
            info = BranchInfo(bid, name, parent.id, fork, created)
            self._branches[bid] = info
            if self._names_table is self._branches and self._names_size == len(self._branches) - 1:
                self._names[name] = info  # the name index follows without a rebuild
                self._names_size += 1
        return info

    def delete_branch(self, name: str) -> None:
        """Delete a branch: it leaves the list and its name is free again; its records stay.

        Raises:
            BranchNotFoundError: no live branch has that name.
            BranchInUseError: the root branch, or one with live children (named in the error).
        """
        with self.transaction():
            self._lock_branches()
            info = self._live_by_name(name, refresh=True)
            if info is None:
                raise BranchNotFoundError(name)
            if info.parent_id is None:
                raise BranchInUseError(name, "it is the root branch")
            children = [b.name for b in self._branch_table().values() if b.parent_id == info.id and not b.deleted]
            if children:
                raise BranchInUseError(name, f"it has live children: {', '.join(sorted(children))}", children)
            self._mark_branch_deleted(info.id)
        self._branches_cache_stale()

    def lineage(self, branch_id: int, as_of: int | None = None) -> Lineage:
        """The segments a branch sees, optionally as of an earlier sequence."""
        with self._lock:
            self._check_open()
            segments: list[tuple[int, int]] = []
            limit = _INF if as_of is None else min(as_of, _INF)  # past every sequence: the whole branch
            current: int | None = branch_id
            while current is not None:
                info = self.branch_by_id(current)
                segments.append((info.id, limit))
                if info.fork_seq is not None:
                    limit = min(limit, info.fork_seq)
                current = info.parent_id
            segments.reverse()
            return Lineage(tuple(segments))

    # ---- reads -----------------------------------------------------------------------------------

    def read_slot(
        self,
        slot: str,
        branch_id: int,
        *,
        after: int = 0,
        as_of: int | None = None,
        item: str | None = None,
        bodies: bool = True,
    ) -> list[Record]:
        """Every record of ``slot`` visible on the branch with ``seq > after``, in sequence order.

        Args:
            slot: The log's name.
            branch_id: The branch read.
            after: Only records newer than this sequence (for incremental refresh).
            as_of: Read the branch as it stood at this sequence.
            item: Only this item's records.
            bodies: False lets the backend leave out the body of each record that carries
                :attr:`Record.ix` (what a message index needs is there): its ``body`` is then None, which
                for such a record never means a tombstone or a redaction (neither carries ``ix``). Read
                the bodies with :meth:`read_bodies` when needed.
        """
        with self._lock:
            self._check_open()
            out: list[Record] = []
            after = min(after, _INF)  # a caller's sequence past every record (10**20) reads nothing, typed
            for bid, upto in self.lineage(branch_id, as_of).segments:
                if upto > after:
                    if bodies or item is not None:
                        out.extend(self._rows(slot, bid, after, upto, item))
                    else:
                        out.extend(self._index_rows(slot, bid, after, upto))
            return out

    def get_state(self, branch_id: int, key: str, as_of: int | None = None, default: Any = None) -> Any:
        """The latest visible value of state ``key`` on the branch (``default`` if never written)."""
        rec = self.get_state_record(branch_id, key, as_of)
        return default if rec is None else rec.value()

    def records_of(self, slot: str, item: str | None = None) -> list[Record]:
        """Every record of ``slot`` (of one ``item`` when given) on every branch, deleted branches included,
        oldest first: what a redaction must reach (a branch sees only its lineage; this reads them all).

        Raises:
            StoreError: the backend cannot list records across branches (it cannot redact).
        """
        with self._lock:
            self._check_open()
            if not self.can_redact:
                raise StoreError(f"the {self.backend} backend cannot redact")
            return self._slot_records(slot, item)

    def scrub(self) -> list[str]:
        """Make bytes erased by a committed redaction leave the store's files (SQLite: rewrite the file once
        if it predates secure deletion, then fold the write-ahead log). Returns what could not be done,
        in words (empty when everything was); :meth:`ContextManager.redact` calls it."""
        with self._lock:
            self._check_open()
            return self._scrub()

    def get_state_record(
        self, branch_id: int, key: str, as_of: int | None = None, *, slot: str = "state"
    ) -> Record | None:
        """The record holding the latest visible version of state ``key``, or None.

        ``slot`` reads state records kept in a slot of their own (written with ``Transaction.append(...,
        Op.STATE)``; e.g. the working-state ledger's checkpoints, slot ``ledger``) instead of ``state``.
        """
        with self._lock:
            self._check_open()
            memo = self._state_memo()
            if memo is not None and (slot, branch_id, as_of, key) in memo:
                return memo[slot, branch_id, as_of, key]
            found: Record | None = None
            for bid, upto in reversed(self.lineage(branch_id, as_of).segments):
                found = self._latest(slot, bid, upto, key)
                if found is not None:
                    break
            if memo is not None:
                memo[slot, branch_id, as_of, key] = found
            return found

    def prefetch_states(
        self, branch_id: int, keys: Sequence[str], as_of: int | None = None, *, slot: str = "state"
    ) -> None:
        """Inside a :meth:`read_scope`: read the latest records of several states at once (one query per
        branch of the lineage on the SQL backends) for the :meth:`get_state` calls that follow in the
        scope. Outside one, or inside a write transaction, it does nothing."""
        with self._lock:
            self._check_open()
            memo = self._state_memo()
            if memo is None:
                return
            wanted = [k for k in dict.fromkeys(keys) if (slot, branch_id, as_of, k) not in memo]
            found: dict[str, Record] = {}
            for bid, upto in reversed(self.lineage(branch_id, as_of).segments):
                missing = [k for k in wanted if k not in found]
                if not missing:
                    break
                found.update(self._latest_many(slot, bid, upto, missing))
            for k in wanted:
                memo[slot, branch_id, as_of, k] = found.get(k)

    def _latest_many(self, slot: str, branch_id: int, upto: int, items: Sequence[str]) -> dict[str, Record]:
        """:meth:`_latest` of several items: ``{item: record}`` of those that have one."""
        out: dict[str, Record] = {}
        for item in items:
            rec = self._latest(slot, branch_id, upto, item)
            if rec is not None:
                out[item] = rec
        return out

    def get_blob(self, digest: str) -> bytes:
        """The bytes stored under a sha256.

        Raises:
            BlobNotFoundError: no such blob (a ``KeyError``): never written, or erased by a redaction.
        """
        with self._lock:
            self._check_open()
            data = self._get_blob(digest)
            if data is None:
                raise BlobNotFoundError(digest)
            return data

    def stats(self) -> StoreStats:
        """Record count, payload and disk sizes, head sequence."""
        with self._lock:
            self._check_open()
            return self._stats()

    def read_bodies(self, seqs: Sequence[int]) -> dict[int, str | None]:
        """Bodies (compact JSON text, None for tombstones) of the records with these sequences, read in
        batches; sequences with no record are absent from the result. Visibility is the caller's concern:
        a cache that already knows which version it wants reads it here in one round trip."""
        with self._lock:
            self._check_open()
            return self._bodies(seqs) if seqs else {}

    def list_slots(self) -> list[str]:
        """Names of every slot that holds records, sorted."""
        with self._lock:
            self._check_open()
            return sorted(self._slot_list())

    # ---- full-text index --------------------------------------------------------------------------

    def search_text(
        self, terms: Sequence[str], slots: Sequence[str], limit: int, *, within: Collection[int] | None = None
    ) -> list[TextHit]:
        """The best ``limit`` index documents of ``slots`` matching any of ``terms``, best first (ties: newest
        first). Visibility (branch lineage, versions, readers) is the caller's concern: it filters these
        candidates, asking for more when too many are not visible, or naming the visible record sequences
        in ``within`` (only documents of those records are ranked; a backend with
        ``search_within = False`` does not take it). Records written before the index existed are indexed
        first (see :meth:`build_text_index`), and so are documents a backend queued (SQLite's pending rows:
        the search then takes the write lock briefly): every write committed before the call is searched.

        Raises:
            StoreError: the backend has no full-text index, or the query failed.
            NotImplementedError: ``within`` given to a backend with ``search_within = False``.
        """
        if within is None:
            return self._search_index(self._text_search, terms, slots, limit, build=True)
        if not self.search_within:
            raise NotImplementedError(f"the {self.backend} backend does not restrict a search to given records")
        if not within:
            return []
        chosen = frozenset(within)
        return self._search_index(
            lambda t, s, n: self._text_search_within(t, s, n, chosen), terms, slots, limit, build=True
        )

    def search_summary_index(self, terms: Sequence[str], slots: Sequence[str], limit: int) -> list[TextHit]:
        """The best ``limit`` summary documents of the compression ``slots`` matching any of ``terms``, best
        first (ties: newest first); each hit's ``item`` is ``summary/<id>`` and its ``group`` 0. Summaries
        have an index of their own (same words, stems and ranking as messages), written in the transaction
        of each summary record. Visibility (branch lineage, ``as_of``, which copy the namespace's fold
        keeps, readers) is the caller's concern, as for :meth:`search_text`.

        Raises:
            StoreError: the backend has no full-text index, or the query failed.
        """
        return self._search_index(self._summary_search, terms, slots, limit, build=False)

    def _search_index(
        self,
        search: Callable[[list[str], list[str], int], list[TextHit]],
        terms: Sequence[str],
        slots: Sequence[str],
        limit: int,
        *,
        build: bool,
    ) -> list[TextHit]:
        """``search(terms, slots, limit)`` (a backend's ``_text_search`` or ``_summary_search``) under the
        store's lock; ``build`` first indexes what the message index has not indexed yet."""
        if not self.has_text_index:
            raise StoreError(f"the {self.backend} backend has no full-text index")
        if not terms or limit <= 0 or not slots:
            return []
        if build:
            self.build_text_index()
        with self._lock:
            self._check_open()
            return search(list(terms), list(slots), limit)

    def text_index_pending(self) -> int:
        """How many sequences written before the full-text index existed are not indexed yet (0 once built)."""
        if not self.has_text_index:
            return 0
        with self._lock:
            self._check_open()
            done, upto = self._text_backfill_state()
            return max(0, upto - done)

    def build_text_index(
        self, *, batch: int = 2000, progress: Callable[[int, int], None] | None = None, thinking: bool = False
    ) -> int:
        """Index the messages written before the full-text index existed (a store from an earlier
        version). Each batch of ``batch`` records commits with its progress mark, so a killed build resumes
        where it stopped. Returns the number of message versions indexed.

        Args:
            batch: Records per transaction.
            progress: Called with ``(sequences done, sequences in all)`` after each batch.
            thinking: Index thinking text too.
        """
        if not self.has_text_index or self._text_built:
            return 0
        from .fulltext import index_documents

        indexed = 0
        first: int | None = None
        while True:
            with self.transaction():
                done, upto = self._text_backfill_state()
                if first is None:
                    first = done
                if done >= upto:
                    self._text_built = True
                    return indexed
                records = self._message_records(done, upto, batch)
                for rec in records:
                    if rec.body is not None:
                        self._text_insert(rec.seq, index_documents(json.loads(rec.body), thinking))
                        indexed += 1
                mark = records[-1].seq if len(records) == batch else upto
                self._text_backfill_mark(mark)
            if progress is not None:
                progress(mark - first, upto - first)

    # ---- execution journal rows ------------------------------------------------------------------

    def journal_rows(
        self,
        project: str,
        *,
        after: int = 0,
        upto: int | None = None,
        limit: int | None = None,
        descending: bool = False,
        kinds: Sequence[str] | None = None,
    ) -> list[JournalRow]:
        """Journal rows of ``project`` with ``after < seq <= upto``, in seq order (newest first with
        ``descending``), at most ``limit`` of them, only of ``kinds`` when given."""
        with self._lock:
            self._check_open()
            # Sequences and counts past any record (10**20, -10**30) fit the column: they read what the
            # widest range reads (they once raised OverflowError on SQLite).
            top = _INF if upto is None else max(-1, min(upto, _INF))
            if limit is not None and limit <= 0:
                return []
            after = max(-1, min(after, _INF))
            limit = None if limit is None else min(limit, _INF)
            table = self._journal_table()
            return table._journal_select(
                project, after, top, limit, descending, None if kinds is None else tuple(kinds)
            )

    def journal_head(self, project: str) -> JournalRow | None:
        """The newest journal row of ``project`` (None for a project with no entries)."""
        rows = self.journal_rows(project, limit=1, descending=True)
        return rows[0] if rows else None

    def journal_row_by_key(self, project: str, idempotency_key: str) -> JournalRow | None:
        """The journal row of ``project`` written with this idempotency key, or None."""
        with self._lock:
            self._check_open()
            return self._journal_table()._journal_by_key(project, idempotency_key)

    def journal_projects(self) -> list[str]:
        """Slugs of every project with at least one journal entry, sorted."""
        with self._lock:
            self._check_open()
            return sorted(self._journal_table()._journal_projects())

    def branch_names(self, ids: Sequence[int]) -> list[str]:
        """Names of branch ids (helper for reports)."""
        return [self.branch_by_id(i).name for i in ids]
