"""Messages and the :class:`MessageStore`: the messages of one slot on one branch, indexed in memory.

The index is built once when the store is opened and extended on every write, so appending a message
costs the same at 2,000 and at 200,000 messages. Positions are append order (removed messages leave a
hole); per-block prefix sums (blockindex.py) give the k-th visible message in O(log N) and the token
sum of any span in O(1) once its ends are found. The index is copy-on-write: a derived branch's index
shares its parent's blocks and costs O(N / 1,024) to make. Bodies are read from the store on
demand and kept in a bounded cache.

Writes by other handles or processes are noticed through :meth:`Store.change_token` and applied
incrementally (only records newer than the last one seen are read).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ._block_types import SERVER_CALL_TYPES, continues_server_turn
from ._names import name_problem
from .blockindex import BlockIndex, ItemsView, PositionMap, SumsView
from .content import (
    Block,
    ContentInput,
    blocks_to_dicts,
    check_continuation,
    externalize_media,
    metadata_problem,
    parse_content,
    unencodable_block,
    validate_content,
)
from .errors import CorruptRecordError, DuplicateMessageError, MalformedContentError, MessageNotFoundError
from .sharding import is_shard_form, shard_bodies
from .stores.base import Op, Record, Store, Transaction
from .stores.fulltext import index_documents
from .tokens import TokenCounter, counter_key

__all__ = ["Message", "MessageInput", "MessageStore", "WriteHook", "count_visible", "new_message_id", "to_timestamp"]

WriteHook = Callable[[Transaction, int, int], None]
"""Called inside an edit's or a removal's transaction with ``(transaction, new sequence, the message's created
sequence)``: records written there commit with the change or not at all."""


class Message(BaseModel):
    """A stored message (one version of it).

    Attributes:
        id: Stable id, unique in its slot and branch lineage.
        participant: Who wrote it, a free name ("user", "Claude", "ann").
        content: Content blocks; base64 media appears as ``blob`` sources (see ``content.resolve_media``).
        metadata: The host's JSON metadata.
        timestamp: When the message was written (UTC), as given by the host or the write time.
        sequence: Store sequence of this version.
        created_sequence: Store sequence of the first version (the append).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    participant: str
    content: list[Block]
    metadata: dict[str, Any]
    timestamp: datetime
    sequence: int
    created_sequence: int

    def content_dicts(self) -> list[dict[str, Any]]:
        """The content as JSON-ready dicts (exactly the fields given, plus ``type``)."""
        return blocks_to_dicts(self.content)

    def text(self) -> str:
        """The text of its ``text`` blocks joined with newlines (a convenience for display)."""
        return "\n".join(b.text for b in self.content if b.type == "text")


@dataclass
class MessageInput:
    """One message of a batch write (:meth:`ContextManager.add_messages`)."""

    participant: str
    content: ContentInput
    metadata: Mapping[str, Any] | None = None
    id: str | None = None
    timestamp: datetime | float | str | None = None


def new_message_id() -> str:
    """A fresh message id: ``msg_`` + 16 hex digits (8 of time in ms, 8 random)."""
    return f"msg_{int(time.time() * 1000) & 0xFFFFFFFF:08x}{secrets.token_hex(4)}"


def to_timestamp(value: datetime | date | float | int | str | None) -> float:
    """Seconds since the epoch from a datetime (naive = UTC), a date (its midnight, UTC), a number, or an
    ISO-8601 string.

    Raises:
        TypeError: a bool, or another type (a list, a ``time``: named in the message).
        ValueError: a number that is not a time between :data:`MIN_TIMESTAMP` and :data:`MAX_TIMESTAMP`
            (years 1 to 9999; NaN and infinities included), or text that is not ISO-8601.
    """
    if value is None:
        return time.time()
    if isinstance(value, bool):
        raise TypeError("a timestamp cannot be a bool")
    if isinstance(value, (int, float)):
        ts = float(value)
    else:
        if isinstance(value, str):
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        elif isinstance(value, date) and not isinstance(value, datetime):
            value = datetime(value.year, value.month, value.day, tzinfo=UTC)
        elif not isinstance(value, datetime):
            raise TypeError(
                f"a time must be a datetime, a date, epoch seconds or ISO-8601 text, not {type(value).__name__}"
            )
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        ts = value.timestamp()
    if not MIN_TIMESTAMP <= ts <= MAX_TIMESTAMP:  # NaN fails both comparisons
        shown = value.isoformat() if isinstance(value, datetime) else repr(value)
        raise ValueError(
            f"{shown} is not a time from 0001-01-02 to 9999-12-30 UTC (a day inside years 1 and 9999, so "
            "every time zone can render it)"
        )
    return ts


MIN_TIMESTAMP = datetime(1, 1, 2, tzinfo=UTC).timestamp()
"""The earliest timestamp a message may carry (seconds since the epoch; a day inside year 1, so every
time zone can still render it as a datetime)."""
MAX_TIMESTAMP = datetime(9999, 12, 30, tzinfo=UTC).timestamp()
"""The latest timestamp a message may carry (a day inside year 9999, for the same reason)."""


def encode_body(
    participant: str,
    content: ContentInput,
    metadata: Mapping[str, Any] | None,
    timestamp: datetime | float | str | None,
    *,
    message_index: int | None,
    strict: bool = True,
    continuation: bool = False,
) -> dict[str, Any]:
    """Validate a message and return its stored body (media not yet moved to blobs). ``strict=False``
    leaves out the content rules added since for what may be written (see :func:`validate_content`);
    ``continuation=True`` lets through results whose calls the message before holds (a paused
    message's continuation), for the caller to check with :func:`~context_journal.content.check_continuation`.

    Raises:
        MalformedContentError: naming the message (and block) at fault.
    """
    problem = name_problem(participant)
    if problem is not None:
        raise MalformedContentError(f"participant {problem}", message_index=message_index, path="participant")
    blocks = validate_content(content, message_index=message_index, strict=strict, continuation=continuation)
    if metadata is not None and not isinstance(metadata, Mapping):
        raise MalformedContentError("metadata must be an object", message_index=message_index, path="metadata")
    if metadata is not None and (why := metadata_problem(metadata)) is not None:
        raise MalformedContentError(why, message_index=message_index, path="metadata")
    try:
        ts = to_timestamp(timestamp)
    except (TypeError, ValueError, OverflowError) as exc:  # 10**400 overflows the float conversion
        raise MalformedContentError(
            f"timestamp must be a datetime, a number or ISO-8601 text ({exc})",
            message_index=message_index,
            path="timestamp",
        ) from None
    return {"participant": participant, "content": blocks, "metadata": dict(metadata or {}), "timestamp": ts}


def dump_body(body: dict[str, Any], message_index: int | None) -> str:
    """Compact JSON text of a body.

    Raises:
        MalformedContentError: naming the block or ``metadata`` that JSON cannot encode.
    """
    try:
        text = json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")  # a lone surrogate ("\ud800") passes json.dumps but no database stores it
        return text
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        bad = unencodable_block(body["content"])
        if bad is not None:
            raise MalformedContentError(
                f"block holds a value JSON cannot encode ({bad[1]})", message_index=message_index, block_index=bad[0]
            ) from None
        raise MalformedContentError(
            f"metadata must be JSON-serialisable ({exc})", message_index=message_index, path="metadata"
        ) from None


_MEDIA_KINDS = frozenset({"image", "document", "tool_result"})


def count_visible(store: Store, slot: str, branch_id: int, as_of: int | None = None) -> int:
    """Visible messages of a slot on a branch, folded from its records (O(records); for reports)."""
    live: set[str] = set()
    for rec in store.read_slot(slot, branch_id, as_of=as_of):
        if rec.op == Op.APPEND:
            live.add(rec.item)
        elif rec.op == Op.REMOVE:
            live.discard(rec.item)
    return len(live)


@dataclass(frozen=True)
class _Entry:
    id: str
    participant: str
    timestamp: float
    created_seq: int
    seq: int  # seq of the latest version
    live: bool = True
    kinds: tuple[str, ...] = field(default_factory=tuple)
    # Per block: its audience (reader names) or None; None for the whole message when no block has one.
    audience: tuple[frozenset[str] | None, ...] | None = None
    # Whether its body may render other than its participant and block kinds say (see _odd): counted.
    odd: bool = False


def _odd(body: Mapping[str, Any]) -> bool:
    """Whether a body carries a metadata ``role`` (which changes its rendered role) or a blank text block
    (which the compile's repairs drop): the compile then reads it instead of pricing it from the index."""
    meta = body.get("metadata") or {}
    if "role" in meta:
        return True
    return any(b.get("type") == "text" and not str(b.get("text") or "").strip() for b in body["content"])


def _audiences(content: Sequence[Mapping[str, Any]]) -> tuple[frozenset[str] | None, ...] | None:
    """Per-block audiences of stored content, or None (the common case) when no block has one."""
    for b in content:
        if "audience" in b:
            return tuple(frozenset(b["audience"]) if "audience" in b else None for b in content)
    return None


_Fields = tuple[int, bool, float, tuple[str, ...], str]
"""What :func:`_stored_fields` reads from a record's ``ix``: tokens, odd, timestamp, block kinds, participant."""

_KINDS: dict[str, tuple[str, ...]] = {}
"""Block-kind tuples by their stored text, shared by every entry that has them (bounded: emptied at 4,096)."""

_PARTICIPANTS: dict[str, str] = {}
"""One string per participant name read from stored fields, shared by their entries (bounded like ``_KINDS``)."""


def index_fields(key: str, tokens: int, body: Mapping[str, Any]) -> str:
    """The ``ix`` of a message version: ``"<key> <tokens>"``, then, when its body allows, the other fields
    the message index keeps, so an open reads no body: ``" <o|-> <timestamp> <kind,kind,...> <participant>"``
    (``o``: :func:`_odd`; the participant last, as it may hold spaces). Left out when a block has an
    audience, a block kind is empty or holds a space or comma, or the timestamp is not a number."""
    content = body["content"]
    kinds = [b.get("type") for b in content]
    timestamp = body.get("timestamp")
    participant = body["participant"]
    if (
        not kinds
        or not all(isinstance(k, str) and k and " " not in k and "," not in k for k in kinds)
        or any("audience" in b for b in content)
        or not isinstance(timestamp, float | int)
        or isinstance(timestamp, bool)
        or not isinstance(participant, str)
    ):
        return f"{key} {tokens}"
    return f"{key} {tokens} {'o' if _odd(body) else '-'} {float(timestamp)!r} {','.join(kinds)} {participant}"


def _stored_fields(ix: str) -> _Fields | None:
    """The fields of an ``ix`` written by :func:`index_fields` (its key already checked), or None when it
    holds the count alone or cannot be read (then the body is read)."""
    parts = ix.split(" ", 5)
    if len(parts) != 6:
        return None
    _, n, flag, stamp, kinds, participant = parts
    tokens = _count_of(n)
    if tokens is None or flag not in ("o", "-") or not kinds:
        return None
    try:
        timestamp = float(stamp)
    except ValueError:
        return None
    shared = _KINDS.get(kinds)
    if shared is None:
        if len(_KINDS) >= 4096:
            _KINDS.clear()
        shared = _KINDS[kinds] = tuple(kinds.split(","))
    name = _PARTICIPANTS.get(participant)
    if name is None:
        if len(_PARTICIPANTS) >= 4096:
            _PARTICIPANTS.clear()
        name = _PARTICIPANTS[participant] = participant
    return tokens, flag == "o", timestamp, shared, name


def _entry_fields(
    fields: tuple[bool, float, tuple[str, ...], str] | None, body: Mapping[str, Any] | None, timestamp: float
) -> tuple[bool, float, tuple[str, ...], str, tuple[frozenset[str] | None, ...] | None]:
    """``(odd, timestamp, kinds, participant, audience)`` of an index entry: from stored ``fields`` (no block
    of theirs has an audience), else from the ``body`` (``timestamp`` when it has none)."""
    if fields is not None:
        return (*fields, None)
    assert body is not None
    content = body["content"]
    kinds = tuple(b.get("type", "") for b in content)
    return _odd(body), float(body.get("timestamp", timestamp)), kinds, body["participant"], _audiences(content)


def stored_count(ix: str) -> int | None:
    """The token count of a :attr:`~context_journal.stores.Record.ix` (``"<key> <tokens>"``, more fields
    may follow), or None when it cannot be read (a row written around the library): then the message is
    priced again."""
    parts = ix.split(" ", 2)
    return _count_of(parts[1]) if len(parts) > 1 else None


def _count_of(text: str) -> int | None:
    """A stored token count's text as a number (None unless it is 1 to 12 ASCII digits)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else None


def _audience_blocks(audience: tuple[frozenset[str] | None, ...] | None) -> int:
    return 0 if audience is None else sum(1 for a in audience if a is not None)


class MessageStore:
    """The messages of one slot on one branch, with an in-memory index.

    Args:
        store: The record store.
        slot: Name of the message log (``messages`` or ``messages/<namespace>``).
        branch_id: The branch read and written.
        counter: Token counter for the index's prefix sums.
        cache_size: How many parsed message versions to keep.
        index_thinking: Put the text of thinking blocks in the full-text index too (this handle's writes).

    The index is read directly by the views and the working-state ledger (read-only; hold ``lock``
    while reading several fields at once):

    Attributes:
        rows: The index rows in append position order (``rows[pos]``, ``rows[a:b]``): id, participant,
            block kinds, version and creation sequences, liveness, audience.
        live_sums: Prefix sums of live rows (``total()``, ``find(k)``: the position of the k-th live
            message, ``prefix(pos)``: live messages before a position).
        token_sums: Prefix sums of the rows' token estimates (``prefix``, ``find``, ``get(pos)``,
            ``values[pos]``).
        positions: Message id -> append position.
        audience_blocks: Visible blocks that carry an audience (0: every reader sees every block).
        mutation_count: Edits and removals applied so far (see :meth:`mutated_since`).
        observers: Called with ``(position, id, stored body)`` for each append applied.
        edit_observers: Called with ``(position, entry before, entry after, stored body or None)`` for
            each edit applied to a live message, after its mutation is counted.
        lock: The index's re-entrant lock.
    """

    index_thinking: bool = False

    def __init__(self, store: Store, slot: str, branch_id: int, counter: TokenCounter, cache_size: int = 4096) -> None:
        self.store = store
        self.slot = slot
        self.branch_id = branch_id
        self.counter = counter
        # The key of the counts stored with the records (Record.ix): a record whose key is this one is
        # not priced again (None: this counter's counts are never stored nor trusted).
        key = counter_key(counter)
        self._counter_key = key
        self._ix_prefix = None if key is None else key + " "
        self.lock = threading.RLock()
        # Entries in append order with their token estimates, copy-on-write (blockindex.py): a derived
        # child's index shares the parent's blocks (so deriving is O(1)).
        self._index: BlockIndex[_Entry] = BlockIndex()
        self.positions = PositionMap()  # id -> append position (shared with a clone the same way)
        self._views()
        self._kind_counts: dict[str, int] = {}
        self.audience_blocks = 0  # visible blocks that carry an audience
        self._odd_count = 0  # live messages whose body renders other than the index says (_odd)
        self.mutation_count = 0  # edits and removals applied (reader views rebuild from where they happened)
        self._mutated: list[int] = []  # positions of the latest mutations: _mutated[k] is mutation _mutation_base + k
        self._mutation_base = 0
        self._last_seq = 0
        self._token = store.change_token()
        self._seen_head = store.head_seq()
        # Our own writes, applied at commit: (sequence, id, operation, stored body, token count).
        self._pending: list[tuple[int, str, Op, dict[str, Any] | None, int | None]] = []
        self._pending_token = self._token
        self._cache: OrderedDict[int, Message] = OrderedDict()
        # A clone's parent's cache, read (never written) on a miss until this cache is full: a version
        # sequence names the same message on every branch.
        self._cache_parent: OrderedDict[int, Message] | None = None
        self._cache_size = cache_size
        # Told ``(position, id, body)`` of each append applied to the index (the working-state ledger).
        self.observers: list[Callable[[int, str, dict[str, Any]], None]] = []
        # Told ``(position, entry before, entry after, body or None)`` of each edit applied to a live message.
        self.edit_observers: list[Callable[[int, _Entry, _Entry, dict[str, Any] | None], None]] = []
        self._apply(store.read_slot(slot, branch_id, as_of=self._seen_head, bodies=False))

    # ---- index maintenance ------------------------------------------------------------------------

    def _views(self) -> None:
        """The list-like read views of the index (see the class docstring), bound to ``_index``."""
        self.rows: ItemsView[_Entry] = ItemsView(self._index)
        self.live_sums = SumsView(self._index, tokens=False)
        self.token_sums = SumsView(self._index, tokens=True)

    def _apply(self, records: Sequence[Record]) -> None:
        # The fields stored with a record (Record.ix) stand for its body when their key is this counter's
        # and no observer wants bodies; a record whose body was left out (read_slot(bodies=False)) and that
        # cannot be applied from them has its body read first, all of them in one batch.
        prefix = self._ix_prefix
        fast = prefix if not self.observers else None
        plan: list[tuple[Record, _Fields | None]] = []
        wanted: list[int] = []
        for rec in records:
            if rec.seq <= self._last_seq:
                continue
            fields = _stored_fields(rec.ix) if fast is not None and rec.ix and rec.ix.startswith(fast) else None
            if fields is None and rec.body is None and rec.ix is not None:
                wanted.append(rec.seq)
            plan.append((rec, fields))
        fetched = self.store.read_bodies(wanted) if wanted else {}
        for rec, fields in plan:
            if fields is not None:
                self._apply_one(rec, None, fields[0], fields[1:])
                continue
            if rec.seq in fetched:
                rec = replace(rec, body=fetched[rec.seq])
            body = rec.value()
            if rec.op in (Op.APPEND, Op.EDIT) and rec.body is None:
                # A redacted version (context_journal.redaction): the message keeps its position, never live.
                if rec.op == Op.APPEND:
                    self._apply_one(rec, {"participant": "", "content": []})
                self._apply_one(replace(rec, op=Op.REMOVE), None)
                continue
            if rec.op in (Op.APPEND, Op.EDIT) and not isinstance(body, dict):
                raise CorruptRecordError(rec.seq, rec.slot, rec.item, "a message record without a message body")
            tokens = None
            if (
                prefix is not None
                and rec.ix is not None
                and rec.ix.startswith(prefix)
                and "redacted" not in (body or ())
            ):
                tokens = stored_count(rec.ix)  # a redaction stub's count is not its erased content's
            try:
                self._apply_one(rec, body, tokens)
            except (
                KeyError,
                TypeError,
                AttributeError,
                ValueError,
                OverflowError,
            ) as exc:  # written around the library
                raise CorruptRecordError(
                    rec.seq, rec.slot, rec.item, f"a message body of the wrong shape ({exc!r})"
                ) from None
        self._index.settle()  # one pass over the sums of the blocks this batch edited (blockindex.py)

    def _apply_one(
        self,
        rec: Record,
        body: dict[str, Any] | None,
        tokens: int | None = None,
        fields: tuple[bool, float, tuple[str, ...], str] | None = None,
    ) -> None:
        """Apply one record to the index. ``tokens``: the message's count when known, else it is priced;
        ``fields``: ``(odd, timestamp, kinds, participant)`` read from the record's stored fields, when
        the body is not at hand (then ``tokens`` is given and no block has an audience)."""
        self._last_seq = max(self._last_seq, rec.seq)
        pos = self.positions.get(rec.item)
        if rec.op == Op.APPEND:
            if pos is not None:
                return  # defensive: ids are unique; a second append never happens through this API
            odd, timestamp, kinds, participant, aud = _entry_fields(fields, body, rec.ts)
            entry = _Entry(rec.item, participant, timestamp, rec.seq, rec.seq, True, kinds, aud, odd)
            self._odd_count += odd
            if aud is not None:
                self.audience_blocks += _audience_blocks(aud)
            if tokens is None:
                assert body is not None
                tokens = self.counter.count_message(participant, body["content"])
            pos = self.positions[rec.item] = self._index.append(entry, tokens)
            self._count_kinds(kinds, +1)
            if body is not None:
                for observe in self.observers:
                    observe(pos, rec.item, body)
        elif pos is not None:
            # Entries are replaced, never changed in place: a cloned index (clone_for) shares them.
            entry = self._index.item(pos)
            if rec.op == Op.EDIT and entry.live:
                before = entry
                self._count_kinds(entry.kinds, -1)
                self.audience_blocks -= _audience_blocks(entry.audience)
                self._odd_count -= entry.odd
                odd, timestamp, kinds, participant, aud = _entry_fields(fields, body, entry.timestamp)
                entry = replace(
                    entry, participant=participant, timestamp=timestamp, seq=rec.seq, kinds=kinds, audience=aud, odd=odd
                )
                self._odd_count += entry.odd
                if tokens is None:
                    assert body is not None
                    tokens = self.counter.count_message(entry.participant, body["content"])
                self._index.replace(pos, entry, tokens, True)
                self._count_kinds(entry.kinds, +1)
                self.audience_blocks += _audience_blocks(entry.audience)
                self._note_mutation(pos)
                for observe_edit in self.edit_observers:
                    observe_edit(pos, before, entry, body)
            elif rec.op == Op.REMOVE and entry.live:
                self._count_kinds(entry.kinds, -1)
                self.audience_blocks -= _audience_blocks(entry.audience)
                self._odd_count -= entry.odd
                self._note_mutation(pos)
                self._index.replace(pos, replace(entry, live=False, seq=rec.seq), 0, False)

    def clone_for(self, branch_id: int, fork_seq: int) -> MessageStore | None:
        """The index of a branch forked from this one at ``fork_seq``, shared instead of rebuilt, or None
        when this index already holds a record newer than the fork (then the branch must be read from the
        store). O(N / 1,024): the twin shares this index's blocks and id map copy-on-write
        (blockindex.py), so what either side applies afterwards never shows in the other; its body cache
        starts empty and reads this one's on a miss.
        """
        with self.lock:
            if self._pending or self._last_seq > fork_seq:
                return None
            twin = MessageStore.__new__(MessageStore)
            twin.__dict__.update(self.__dict__)
            twin.branch_id = branch_id
            twin.lock = threading.RLock()
            twin._index = self._index.fork()
            twin.positions = self.positions.fork(len(self._index))
            twin._views()
            twin._kind_counts = dict(self._kind_counts)
            twin._mutated = list(self._mutated)
            twin._pending = []
            twin.observers = []
            twin.edit_observers = []
            twin._cache = OrderedDict()
            twin._cache_parent = self._cache if len(self._cache) else self._cache_parent
            twin._token = -1  # force a refresh: it reads the parent's records up to the fork, if any are new
            twin._seen_head = min(self._seen_head, fork_seq)
            return twin

    def forget_versions(self, seqs: Sequence[int]) -> None:
        """Drop the cached messages of these version sequences (after a redaction erased their bodies)."""
        with self.lock:
            for seq in seqs:
                self._cache.pop(seq, None)

    def _note_mutation(self, pos: int) -> None:
        self.mutation_count += 1
        self._mutated.append(pos)
        if len(self._mutated) > 1024:  # bounded: a reader view further behind rebuilds from the start
            self._mutation_base += len(self._mutated)
            self._mutated = []

    def mutated_since(self, mutations: int) -> int | None:
        """The lowest position edited or removed after the first ``mutations`` mutations (None: none),
        or 0 when that is no longer known."""
        changed = self.mutations_since(mutations)
        if changed is None:
            return 0
        return min(changed) if changed else None

    def mutations_since(self, mutations: int) -> list[int] | None:
        """The positions edited or removed after the first ``mutations`` mutations, in the order they
        were (empty: none; None: no longer known, the last 1,024 are kept)."""
        if mutations >= self.mutation_count:
            return []
        if mutations < self._mutation_base:
            return None
        return self._mutated[mutations - self._mutation_base :]

    def _count_kinds(self, kinds: tuple[str, ...], sign: int) -> None:
        for k in kinds:
            self._kind_counts[k] = self._kind_counts.get(k, 0) + sign

    def refresh(self) -> bool:
        """Apply records written by other handles since the last look. Returns True if any were read."""
        with self.lock:
            token = self.store.change_token()
            if token == self._token:
                return False
            self._token = token
            head = self.store.head_seq()
            new = self.store.read_slot(
                self.slot, self.branch_id, after=self._last_seq, as_of=head, bodies=bool(self.observers)
            )
            self._apply(new)
            self._seen_head = head
            return bool(new)

    # ---- writes -----------------------------------------------------------------------------------

    def _store_body(
        self, body: dict[str, Any], tx: Transaction, message_index: int | None
    ) -> tuple[str, dict[str, Any]]:
        """The JSON text of a body to write, and the body as a read of that text gives it back: what the
        index prices and keeps, so the writer's count is the one every later open reads (a tuple in a
        provider block's extra field is a list in JSON, of another price; of two keys that JSON writes
        alike, a read keeps the last)."""
        if any(b.get("type") in _MEDIA_KINDS for b in body["content"]):
            body = {**body, "content": externalize_media(body["content"], tx.put_blob)}
        text = dump_body(body, message_index)
        return text, json.loads(text)

    def _count(self, stored: dict[str, Any]) -> tuple[int, str | None]:
        """The token count of a stored body and the :attr:`~context_journal.stores.Record.ix` written with
        it (None when this counter has no key; see :func:`index_fields`)."""
        tokens = self.counter.count_message(stored["participant"], stored["content"])
        return tokens, (None if self._counter_key is None else index_fields(self._counter_key, tokens, stored))

    def _catch_up(self, first_new_seq: int) -> None:
        """Inside a write transaction, after our first insert got ``first_new_seq``: apply the records of
        this slot that other writers committed since we last looked (there are none when the sequence
        follows directly on the newest one we saw, which is the common case and costs no query)."""
        newest_known = self._pending[-1][0] if self._pending else self._seen_head
        if first_new_seq != newest_known + 1:
            rows = self.store.read_slot(self.slot, self.branch_id, after=self._last_seq, as_of=first_new_seq - 1)
            pending_seqs = {p[0] for p in self._pending}
            self._apply([r for r in rows if r.seq not in pending_seqs])

    def _stage(self, tx: Transaction, writes: list[tuple[int, str, Op, dict[str, Any] | None, int | None]]) -> None:
        """Apply our own writes to the index when the outermost transaction commits, never before: a
        write inside a transaction that later rolls back must leave no phantom in the index."""
        if not self._pending:
            tx.on_commit(self._commit_pending)
            tx.on_rollback(self._drop_pending)
        self._pending.extend(writes)
        self._pending_token = self.store.token_after_commit()

    def _commit_pending(self) -> None:
        with self.lock:
            now = time.time()
            for seq, mid, op, stored, tokens in self._pending:
                self._apply_one(Record(seq, self.branch_id, self.slot, mid, op, None, now), stored, tokens)
            self._index.settle()
            if self._pending:
                self._seen_head = max(self._seen_head, self._pending[-1][0])
            self._token = self._pending_token
            self._pending = []

    def _drop_pending(self) -> None:
        with self.lock:
            self._pending = []

    def append(
        self, items: Sequence[MessageInput], shard_tokens: int = 0, exact: Callable[[], int] | None = None
    ) -> list[str]:
        """Append messages in one transaction; returns their ids (one per item).

        Args:
            items: The messages.
            shard_tokens: A message of more estimated tokens than this is stored as a body group of
                shards (:mod:`~context_journal.sharding`); 0: never.
            exact: The threshold itself when it can be higher than ``shard_tokens`` (called at most once,
                and only for a message that could be over ``shard_tokens``).

        Raises:
            MalformedContentError: a message is malformed (names its index), or its id has the form of a
                shard's (``"...#shard-2"``); nothing is written.
            DuplicateMessageError: an id is already used; nothing is written.
        """
        prepared: list[tuple[str, dict[str, Any]]] = []
        ids: list[str] = []
        seen: set[str] = set()
        for i, item in enumerate(items):
            body = encode_body(
                item.participant, item.content, item.metadata, item.timestamp, message_index=i, continuation=True
            )
            mid = item.id if item.id is not None else new_message_id()
            problem = name_problem(mid)
            if problem is not None:
                raise MalformedContentError(f"id {problem}", message_index=i, path="id")
            if is_shard_form(mid):
                raise MalformedContentError(
                    "id has the form of a shard's ('...#shard-<n>'), which only sharding writes",
                    message_index=i,
                    path="id",
                )
            ids.append(mid)
            shards = [(mid, body)]
            # A token is at least a quarter of a character (no estimate counts more): a shorter text is
            # under the threshold without pricing it.
            if shard_tokens > 0 and 4 * sum(len(str(b.get("text") or "")) for b in body["content"]) > shard_tokens:
                if exact is not None:
                    shard_tokens, exact = max(shard_tokens, exact()), None
                # The text's tokens: only text is cut (an image riding on the first shard is no reason to
                # cut a short text into many pieces).
                texts = [b for b in body["content"] if b.get("type") == "text"]
                shards = shard_bodies(body, mid, self.counter.count_message(body["participant"], texts), shard_tokens)
            for sid, _ in shards:
                if sid in seen or sid in self.positions or any(p[1] == sid for p in self._pending):
                    raise DuplicateMessageError(sid)
                seen.add(sid)
            prepared.extend(shards)
        with self.lock, self.store.transaction() as tx:
            written: list[tuple[int, str, Op, dict[str, Any] | None, int | None]] = []
            for i, (mid, body) in enumerate(prepared):
                text, stored = self._store_body(body, tx, i)
                tokens, ix = self._count(stored)
                seq = tx.append_text(self.branch_id, self.slot, mid, text, Op.APPEND, ix)
                tx.index_text(seq, index_documents(stored, self.index_thinking))
                if i == 0:
                    self._catch_up(seq)
                written.append((seq, mid, Op.APPEND, stored, tokens))
            for mid, _ in prepared:
                if mid in self.positions:  # written meanwhile by another handle
                    raise DuplicateMessageError(mid)
            # After the catch-up: the message before the batch is the newest one any writer committed.
            last = self._index.live_total()
            first = prepared[0][1]["content"] if prepared else None
            prev = self._seq_view(self._index.find_live(last - 1) if last else None, first)
            for i, (_, body) in enumerate(prepared):
                check_continuation(prev, body["participant"], body["content"], message_index=i)
                prev = (body["participant"], body["content"])
            self._stage(tx, written)
        return ids

    def edit(
        self,
        message_id: str,
        *,
        content: ContentInput | None = None,
        metadata: Mapping[str, Any] | None = None,
        participant: str | None = None,
        then: WriteHook | None = None,
    ) -> int:
        """Write a new version of a message; fields left as None keep their value. Returns its sequence.

        ``then(tx, sequence, created_sequence)`` runs inside the write's transaction (records that must
        commit with the change, or not at all).

        Raises:
            MessageNotFoundError: no visible message has the id.
            MalformedContentError: the new content is malformed; nothing is written.
        """
        with self.lock:
            current = self.get(message_id)
            body = encode_body(
                participant if participant is not None else current.participant,
                content if content is not None else current.content,
                metadata if metadata is not None else current.metadata,
                current.timestamp,
                message_index=0,
                continuation=True,
            )
            with self.store.transaction() as tx:
                text, stored = self._store_body(body, tx, 0)
                tokens, ix = self._count(stored)
                seq = tx.append_text(self.branch_id, self.slot, message_id, text, Op.EDIT, ix)
                tx.index_text(seq, index_documents(stored, self.index_thinking))
                self._catch_up(seq)
                pos = self.positions.get(message_id)
                if pos is None or not self._index.item(pos).live:
                    raise MessageNotFoundError(message_id)
                self._check_neighbours(pos, (body["participant"], body["content"]))
                if then is not None:
                    then(tx, seq, self._index.item(pos).created_seq)
                self._stage(tx, [(seq, message_id, Op.EDIT, stored, tokens)])
            return seq

    def remove(self, message_id: str, then: WriteHook | None = None) -> int:
        """Write a tombstone; the message leaves the view, its versions stay readable. Returns its sequence.

        ``then`` runs inside the write's transaction, as for :meth:`edit`.

        Raises:
            MessageNotFoundError: no visible message has the id.
        """
        with self.lock:
            with self.store.transaction() as tx:
                seq = tx.append_text(self.branch_id, self.slot, message_id, None, Op.REMOVE)
                self._catch_up(seq)
                pos = self.positions.get(message_id)
                if pos is None or not self._index.item(pos).live:
                    raise MessageNotFoundError(message_id)
                self._check_neighbours(pos, None)
                if then is not None:
                    then(tx, seq, self._index.item(pos).created_seq)
                self._stage(tx, [(seq, message_id, Op.REMOVE, None, None)])
            return seq

    # ---- paused messages and their continuations (pause_turn) -------------------------------------

    def _seq_view(
        self, pos: int | None, following: Sequence[Mapping[str, Any]] | None = None
    ) -> tuple[str, list[dict[str, Any]]] | None:
        """``(participant, blocks)`` of the visible message at append position ``pos`` for
        :func:`~context_journal.content.check_continuation` (None for no message). Its body is read only
        when the rule can need it: it holds a provider-side call, or the message after it (``following``)
        opens with a result; else its blocks are given as empty (it leaves no call waiting)."""
        if pos is None:
            return None
        e = self._index.item(pos)
        need = any(k in SERVER_CALL_TYPES for k in e.kinds) or (
            following is not None and continues_server_turn(b.get("type") for b in following)
        )
        return e.participant, (self.load_version(e.id, e.seq, e.created_seq).content_dicts() if need else [])

    def _neighbours(self, pos: int) -> tuple[int | None, int | None]:
        """Append positions of the visible messages just before and just after the live one at ``pos``."""
        k = self._index.live_prefix(pos)
        total = self._index.live_total()
        before = self._index.find_live(k - 1) if k > 0 else None
        after = self._index.find_live(k + 1) if k + 1 < total else None
        return before, after

    def _check_neighbours(self, pos: int, new: tuple[str, list[dict[str, Any]]] | None) -> None:
        """Refuse an edit (``new``: the new version of the message at ``pos``) or a removal (``new`` None)
        that breaks the pause_turn rule between neighbours that kept it: a continuation that no longer
        answers the paused message before it (or no longer opens with its results). Removing a paused
        message while its continuation is visible is refused (remove the continuation first, or both,
        newest first). Removing or rewriting a continuation so that the paused message is followed by
        another message is accepted: the paused calls are then abandoned (shown as text at compile). A
        pair already broken (written before the rule) does not block the write.

        Raises:
            MalformedContentError: naming the ids concerned.
        """
        before, after = self._neighbours(pos)
        e = self._index.item(pos)
        new_kinds = [b.get("type") for b in new[1]] if new is not None else []
        if not (
            any(k in SERVER_CALL_TYPES for k in (*e.kinds, *new_kinds))
            or continues_server_turn(e.kinds)
            or continues_server_turn(new_kinds)
            or (after is not None and continues_server_turn(self._index.item(after).kinds))
        ):
            return  # no provider-side call or continuation near: nothing the rule reads changes

        def full(at: int | None) -> tuple[str, list[dict[str, Any]]] | None:
            if at is None:
                return None
            x = self._index.item(at)
            return x.participant, self.load_version(x.id, x.seq, x.created_seq).content_dicts()

        prev, old, nxt = full(before), full(pos), full(after)
        assert old is not None

        def fits(
            a: tuple[str, list[dict[str, Any]]] | None, b: tuple[str, list[dict[str, Any]]]
        ) -> MalformedContentError | None:
            try:
                check_continuation(a, b[0], b[1])
            except MalformedContentError as exc:
                return exc
            return None

        pairs: list[tuple[tuple[Any, Any], tuple[Any, Any]]] = []  # (old adjacency, new adjacency)
        if new is not None:
            pairs.append(((prev, old), (prev, new)))
            if nxt is not None:
                pairs.append(((old, nxt), (new, nxt)))
        elif nxt is not None:
            pairs.append(((old, nxt), (prev, nxt)))
        for (a0, b0), (a1, b1) in pairs:
            broken = fits(a1, b1)
            if broken is not None and fits(a0, b0) is None:
                what = "edit" if new is not None else "removal"
                raise MalformedContentError(
                    f"this {what} of {e.id!r} breaks a paused message and its continuation: {broken.reason}"
                )

    # ---- reads ------------------------------------------------------------------------------------

    def load_version(self, message_id: str, seq: int, created_seq: int) -> Message:
        """One message version (see :meth:`load_versions`)."""
        return self.load_versions([(message_id, seq, created_seq)])[0]

    def load_versions(self, versions: Sequence[tuple[str, int, int]]) -> list[Message]:
        """Messages for ``(id, version sequence, created sequence)`` triples, in the order given: cached
        ones from memory, the rest read from the store in one batch.

        Raises:
            MessageNotFoundError: a version has no body in the store (it was never written or is a tombstone).
        """
        # Taken from the cache up front: a batch larger than the cache evicts, while it runs, messages
        # found there at the start.
        cached = {seq: m for _, seq, _ in versions if (m := self._cached(seq)) is not None}
        missing = [seq for _, seq, _ in versions if seq not in cached]
        bodies = self.store.read_bodies(missing) if missing else {}
        out: list[Message] = []
        for message_id, seq, created_seq in versions:
            msg = cached.get(seq)
            if msg is None:
                body = bodies.get(seq)
                if body is None:
                    raise MessageNotFoundError(message_id, f"version at sequence {seq} is not visible")
                msg = self._from_record(
                    Record(seq, self.branch_id, self.slot, message_id, Op.EDIT, body, 0.0), created_seq
                )
                cached[seq] = self._cache[seq] = msg
                if len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
            elif seq in self._cache:
                self._cache.move_to_end(seq)
            out.append(msg)
        return out

    def _cached(self, seq: int) -> Message | None:
        """The cached message of a version sequence: this index's cache, else (a clone's) the parent's,
        copied into this one."""
        msg = self._cache.get(seq)
        parent = self._cache_parent
        if msg is None and parent is not None:
            msg = parent.get(seq)
            if msg is not None:
                self._cache[seq] = msg
                if len(self._cache) >= self._cache_size:
                    self._cache_parent = None  # warm: the parent's is no longer needed
                    if len(self._cache) > self._cache_size:
                        self._cache.popitem(last=False)
        return msg

    @staticmethod
    def _from_record(rec: Record, created_seq: int) -> Message:
        body = rec.value()
        try:
            return Message(
                id=rec.item,
                participant=body["participant"],
                content=parse_content(body["content"]),
                metadata=body.get("metadata") or {},
                timestamp=datetime.fromtimestamp(float(body.get("timestamp", rec.ts)), UTC),
                sequence=rec.seq,
                created_sequence=created_seq,
            )
        except (
            ValidationError,
            MalformedContentError,
            KeyError,
            TypeError,
            AttributeError,
            ValueError,
            OverflowError,
            OSError,
        ) as exc:
            reason = exc.reason if isinstance(exc, MalformedContentError) else str(exc).splitlines()[0]
            raise CorruptRecordError(rec.seq, rec.slot, rec.item, f"a message body no read can use: {reason}") from None

    def get(self, message_id: str) -> Message:
        """The current version of a visible message.

        Raises:
            MessageNotFoundError: no visible message has the id.
        """
        with self.lock:
            self.refresh()
            pos = self.positions.get(message_id)
            if pos is None or not self._index.item(pos).live:
                raise MessageNotFoundError(message_id)
            e = self._index.item(pos)
            return self.load_version(e.id, e.seq, e.created_seq)

    def get_at(self, message_id: str, sequence: int) -> Message:
        """The version of a message visible at store sequence ``sequence``.

        Raises:
            MessageNotFoundError: the message did not exist then, or was removed by then.
        """
        recs = self.store.read_slot(self.slot, self.branch_id, item=message_id, as_of=sequence)
        if not recs:
            raise MessageNotFoundError(message_id, f"not written by sequence {sequence}")
        if recs[-1].op == Op.REMOVE:
            raise MessageNotFoundError(message_id, f"removed at sequence {recs[-1].seq}")
        if recs[-1].body is None:
            raise MessageNotFoundError(message_id, f"the version at sequence {recs[-1].seq} was redacted")
        return self._from_record(recs[-1], recs[0].seq)

    def count(self) -> int:
        """Visible messages."""
        with self.lock:
            self.refresh()
            return self._index.live_total()

    def position_of(self, k: int) -> int:
        """Append position of the k-th (0-based) visible message."""
        return self._index.find_live(k)

    def slice(self, offset: int = 0, limit: int | None = None) -> list[Message]:
        """Visible messages ``[offset, offset + limit)`` in order (O(log N + limit) index work)."""
        with self.lock:
            self.refresh()
            total = self._index.live_total()
            end = total if limit is None else min(total, offset + max(0, limit))
            out: list[Message] = []
            if offset >= end:
                return out
            wanted: list[tuple[str, int, int]] = []
            need = end - offset
            for e in self._index.iter_items(self._index.find_live(offset)):
                if e.live:
                    wanted.append((e.id, e.seq, e.created_seq))
                    if len(wanted) == need:
                        break
            return self.load_versions(wanted)

    def entry_for(self, message_id: str) -> _Entry | None:
        """The index entry of a visible message (id, participant, sequences), or None."""
        pos = self.positions.get(message_id)
        if pos is None:
            return None
        e = self._index.item(pos)
        return e if e.live else None

    def iter_entries(self, reverse: bool = False) -> Iterator[_Entry]:
        """Visible index entries (id, participant, timestamp, sequences) without loading bodies."""
        entries = self._index.iter_items_reversed() if reverse else self._index.iter_items()
        return (e for e in entries if e.live)

    def load_entry(self, entry: _Entry) -> Message:
        return self.load_version(entry.id, entry.seq, entry.created_seq)

    def tokens(self, start: int = 0, end: int | None = None) -> int:
        """Estimated tokens of visible messages ``[start, end)`` (by visible index), O(log N)."""
        with self.lock:
            ix = self._index
            total = ix.live_total()
            end = total if end is None else min(end, total)
            if end <= start:
                return 0
            p1 = ix.find_live(end) if end < total else len(ix)
            return ix.token_prefix(p1) - ix.token_prefix(ix.find_live(start))

    def audience_count(self) -> int:
        """Visible blocks that carry an ``audience`` across the slot (O(1); 0 means no reader filtering)."""
        return self.audience_blocks

    def odd_count(self) -> int:
        """Live messages carrying a metadata ``role`` or a blank text block (O(1)); with none, a message of
        text blocks renders as its participant and the index's token count say, unread."""
        return self._odd_count

    def kind_count(self, kind: str) -> int:
        """Visible blocks of a type (``tool_use``, ``image``...) across the slot."""
        return self._kind_counts.get(kind, 0)

    def snapshot(self, as_of: int) -> list[Message]:
        """The visible messages as they stood at sequence ``as_of`` (reads the store; O(history))."""
        latest: dict[str, Record] = {}
        created: dict[str, int] = {}
        for rec in self.store.read_slot(self.slot, self.branch_id, as_of=as_of):
            latest[rec.item] = rec
            created.setdefault(rec.item, rec.seq)
        out = [self._from_record(r, created[i]) for i, r in latest.items() if r.op != Op.REMOVE and r.body is not None]
        out.sort(key=lambda m: m.created_sequence)
        return out

    @property
    def last_seq(self) -> int:
        """Newest sequence applied to the index."""
        return self._last_seq
