"""Persisted compression records: chunks, summaries, summary parts, attempts, holds, head marks.

All records of one namespace live in the store slot ``compression/<namespace>`` (one item log), so a
branch sees its own records plus its ancestors' records up to each fork, exactly like its messages:
compression state is per namespace **and** per branch, a fork inherits what existed at its fork
point, and nothing written on one branch is seen by another. Items are never changed in place:

==========================  ==================================================================
item                        what it holds
==========================  ==================================================================
``chunk/<id>``              a closed chunk: the messages it owns (ids, created-sequence range)
``summary/<id>``            a summary row (level, sources, source range, text, model, hash...)
``part/<chunk>/<a>-<b>``    the summary of one part of a chunk too large for one request
``attempt/<work key>``      failures of a work item (count, last error, when to retry)
``hold/<message id>``       a compression hold (``active`` true or false; newest version wins)
``head/<message id>``       a head reset: the head window starts at that (transition) message
``stale/<sequence>``        a message edited or removed at that sequence (:class:`StaleMark`)
==========================  ==================================================================

Ids are deterministic (a hash of what the record stands for), so two workers closing the same chunk
or writing the same summary write the same item, and the first one wins when the log is folded.
Sequences here are *created* sequences of messages (the store sequence of their first version), which
do not move when messages are edited or removed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Attempt",
    "ChunkRecord",
    "HeadMark",
    "PartRecord",
    "StaleMark",
    "Summary",
    "chunk_id",
    "merge_id",
    "slot_for",
    "summary_id_for_chunk",
]

SLOT_PREFIX = "compression/"


def slot_for(namespace: str) -> str:
    """The store slot holding a namespace's compression records."""
    return SLOT_PREFIX + namespace


def _digest(*parts: str) -> str:
    return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).hexdigest()


def chunk_id(first_id: str, last_id: str, count: int) -> str:
    """Deterministic id of the chunk owning ``count`` messages from ``first_id`` to ``last_id``."""
    return "chk_" + _digest(first_id, last_id, str(count))


def summary_id_for_chunk(chunk: str) -> str:
    """Deterministic id of a chunk's L1 summary."""
    return "sum1_" + _digest(chunk)


def merge_id(level: int, sources: Sequence[str]) -> str:
    """Deterministic id of the level-``level`` summary merging ``sources``."""
    return f"sum{level}_" + _digest(str(level), *sources)


@dataclass(frozen=True)
class ChunkRecord:
    """A closed chunk: a run of consecutive messages that one L1 summary will stand for.

    Attributes:
        id: Deterministic id (see :func:`chunk_id`).
        ids: The message ids it owns, in order.
        first_seq: Created sequence of its first message.
        last_seq: Created sequence of its last message.
        tokens: Estimated tokens of its messages when it closed.
        target_tokens: Size asked of its summary.
        phase: Its phase (knowledge strategy), or None.
        created: Wall-clock time it closed (seconds since the epoch).
        follows: The chunk that ends exactly where this one starts (no message between), or None.
        precedes: The chunk that starts exactly where this one ends, when it existed already (a chunk
            closed in a gap before it), or None.
    """

    id: str
    ids: tuple[str, ...]
    first_seq: int
    last_seq: int
    tokens: int
    target_tokens: int
    phase: str | None = None
    created: float = 0.0
    follows: str | None = None
    precedes: str | None = None

    @property
    def first_id(self) -> str:
        return self.ids[0]

    @property
    def last_id(self) -> str:
        return self.ids[-1]

    def to_body(self) -> dict[str, Any]:
        return {
            "type": "chunk",
            "id": self.id,
            "ids": list(self.ids),
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "tokens": self.tokens,
            "target_tokens": self.target_tokens,
            "phase": self.phase,
            "created": self.created,
            "follows": self.follows,
            "precedes": self.precedes,
        }

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> ChunkRecord:
        return cls(
            id=str(body["id"]),
            ids=tuple(str(i) for i in body["ids"]),
            first_seq=int(body["first_seq"]),
            last_seq=int(body["last_seq"]),
            tokens=int(body.get("tokens", 0)),
            target_tokens=int(body.get("target_tokens", 0)),
            phase=body.get("phase"),
            created=float(body.get("created", 0.0)),
            follows=body.get("follows"),
            precedes=body.get("precedes"),
        )


@dataclass(frozen=True)
class Summary:
    """A summary row.

    Attributes:
        id: Deterministic id.
        level: 1 for a chunk's summary, ``L + 1`` for a merge of level-``L`` summaries.
        text: The summary, first person.
        source_ids: What it summarises: the chunk id (level 1) or the merged summaries' ids, in order.
        first_message_id: First message of its source range.
        last_message_id: Last message of its source range.
        first_sequence: Created sequence of its first message.
        last_sequence: Created sequence of its last message.
        message_count: Messages in its source range (when it was made).
        tokens: Estimated tokens of ``text``.
        created: Wall-clock time it was written (seconds since the epoch).
        model: The model that wrote it.
        request_hash: Hex sha256 of the request that produced it (system, messages, tools, sizes).
        parent_id: The summary that merged it, or None while it is unmerged.
        input_tokens: Input tokens the provider counted for it (all parts), or None.
        output_tokens: Output tokens the provider counted, or None.
        read_sequence: Newest message-version sequence its request read.
        as_of: Newest store sequence the message index showed when its request was read (None for a
            summary written before this was recorded: :attr:`read_bound` falls back to ``read_sequence``).
            A :class:`StaleMark` newer than this, for a message created at or before its end, retires it.
        phase: The chunk's phase (knowledge strategy), or None.
        truncated: True when the answer was longer than the level's cap and was cut.
        kind: ``"chunk"`` (level 1) or ``"merge"``.
    """

    id: str
    level: int
    text: str
    source_ids: tuple[str, ...]
    first_message_id: str
    last_message_id: str
    first_sequence: int
    last_sequence: int
    message_count: int
    tokens: int
    created: float
    model: str | None = None
    request_hash: str | None = None
    parent_id: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    read_sequence: int = 0
    phase: str | None = None
    truncated: bool = False
    kind: Literal["chunk", "merge"] = "chunk"
    as_of: int | None = None

    @property
    def read_bound(self) -> int:
        """The store sequence its text is known to reflect: ``as_of``, else ``read_sequence``."""
        return self.read_sequence if self.as_of is None else self.as_of

    @property
    def source_range(self) -> tuple[str, str]:
        """``(first message id, last message id)`` of what it stands for."""
        return self.first_message_id, self.last_message_id

    def to_body(self) -> dict[str, Any]:
        body = self.to_dict()
        body.pop("parent_id", None)  # derived from the merging summary when the log is folded
        body["type"] = "summary"
        return body

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "id": self.id,
            "level": self.level,
            "kind": self.kind,
            "text": self.text,
            "source_ids": list(self.source_ids),
            "first_message_id": self.first_message_id,
            "last_message_id": self.last_message_id,
            "first_sequence": self.first_sequence,
            "last_sequence": self.last_sequence,
            "message_count": self.message_count,
            "tokens": self.tokens,
            "created": self.created,
            "model": self.model,
            "request_hash": self.request_hash,
            "parent_id": self.parent_id,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "read_sequence": self.read_sequence,
            "as_of": self.as_of,
            "phase": self.phase,
            "truncated": self.truncated,
        }

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> Summary:
        def opt_int(key: str) -> int | None:
            value = body.get(key)
            return None if value is None else int(value)

        kind: Literal["chunk", "merge"] = "merge" if body.get("kind") == "merge" else "chunk"
        return cls(
            id=str(body["id"]),
            level=int(body["level"]),
            text=str(body["text"]),
            source_ids=tuple(str(s) for s in body["source_ids"]),
            first_message_id=str(body["first_message_id"]),
            last_message_id=str(body["last_message_id"]),
            first_sequence=int(body["first_sequence"]),
            last_sequence=int(body["last_sequence"]),
            message_count=int(body.get("message_count", 0)),
            tokens=int(body.get("tokens", 0)),
            created=float(body.get("created", 0.0)),
            model=body.get("model"),
            request_hash=body.get("request_hash"),
            input_tokens=opt_int("input_tokens"),
            output_tokens=opt_int("output_tokens"),
            read_sequence=int(body.get("read_sequence", 0)),
            phase=body.get("phase"),
            truncated=bool(body.get("truncated", False)),
            kind=kind,
            as_of=opt_int("as_of"),
        )


@dataclass(frozen=True)
class PartRecord:
    """The summary of one part of a chunk that was too large for one request.

    Attributes:
        chunk_id: The chunk.
        first_seq: Created sequence of the part's first message.
        last_seq: Created sequence of the part's last message.
        text: The part's summary.
        model: The model that wrote it.
        input_tokens: Input tokens counted by the provider, or None.
        output_tokens: Output tokens counted by the provider, or None.
        request_hash: Hash of its request.
        read_sequence: Newest message-version sequence its request read.
        as_of: Newest store sequence the message index showed when its request was read (None: not
            recorded; :attr:`read_bound` falls back to ``read_sequence``).
    """

    chunk_id: str
    first_seq: int
    last_seq: int
    text: str
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    request_hash: str | None = None
    read_sequence: int = 0
    as_of: int | None = None

    @property
    def item(self) -> str:
        return f"part/{self.chunk_id}/{self.first_seq}-{self.last_seq}"

    @property
    def read_bound(self) -> int:
        """The store sequence its text is known to reflect: ``as_of``, else ``read_sequence``."""
        return self.read_sequence if self.as_of is None else self.as_of

    def to_body(self) -> dict[str, Any]:
        return {
            "type": "part",
            "chunk_id": self.chunk_id,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "text": self.text,
            "model": self.model,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "request_hash": self.request_hash,
            "read_sequence": self.read_sequence,
            "as_of": self.as_of,
        }

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> PartRecord:
        return cls(
            chunk_id=str(body["chunk_id"]),
            first_seq=int(body["first_seq"]),
            last_seq=int(body["last_seq"]),
            text=str(body["text"]),
            model=body.get("model"),
            input_tokens=body.get("input_tokens"),
            output_tokens=body.get("output_tokens"),
            request_hash=body.get("request_hash"),
            read_sequence=int(body.get("read_sequence", 0)),
            as_of=None if body.get("as_of") is None else int(body["as_of"]),
        )


@dataclass(frozen=True)
class StaleMark:
    """A message of the namespace was edited or removed (a tombstone) after summaries may have read it.

    Written by :meth:`~context_journal.manager.ContextManager.edit_message` and
    :meth:`~context_journal.manager.ContextManager.remove_message` in the transaction of the change, on
    the branch of the change. When the log is folded, every summary and summary part that may have read
    the message (each ending at or after ``created_seq``: a request reads its own range, the opening
    messages and earlier summaries as context) and whose :attr:`Summary.read_bound` is older than
    ``changed_seq`` is retired (a merge above a retired summary with it), and one arriving later with
    such a bound is ignored: the chunks count as unsummarised, a compile shows their messages as they
    are now, and compression writes their summaries again. Nothing is erased: the retired records stay
    in the journal (time travel reads them); :func:`~context_journal.redaction.redact_messages` is the
    erasure.

    Attributes:
        message_id: The message changed.
        created_seq: Its created sequence (the store sequence of its first version).
        changed_seq: Store sequence of the new version or the tombstone.
        op: ``"edit"``, ``"remove"``, or ``"redact"`` (written by a redaction beside each summary it
            erased, so a handle that folded the summary before retires it at its next refresh).
    """

    message_id: str
    created_seq: int
    changed_seq: int
    op: Literal["edit", "remove", "redact"] = "edit"

    @property
    def item(self) -> str:
        return f"stale/{self.changed_seq}"

    def to_body(self) -> dict[str, Any]:
        return {
            "type": "stale",
            "message_id": self.message_id,
            "created_seq": self.created_seq,
            "changed_seq": self.changed_seq,
            "op": self.op,
        }

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> StaleMark:
        raw = body.get("op")
        op: Literal["edit", "remove", "redact"] = raw if raw in ("remove", "redact") else "edit"
        return cls(str(body["message_id"]), int(body["created_seq"]), int(body["changed_seq"]), op)


@dataclass(frozen=True)
class Attempt:
    """Failures of one work item so far.

    Attributes:
        key: The work item's key.
        attempts: Consecutive failed attempts.
        error: The last failure, in words.
        next_at: Earliest time of the next attempt (seconds since the epoch).
        last_at: Time of the last failure.
    """

    key: str
    attempts: int
    error: str
    next_at: float
    last_at: float

    def to_body(self) -> dict[str, Any]:
        return {
            "type": "attempt",
            "key": self.key,
            "attempts": self.attempts,
            "error": self.error,
            "next_at": self.next_at,
            "last_at": self.last_at,
        }

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> Attempt:
        return cls(
            key=str(body["key"]),
            attempts=int(body["attempts"]),
            error=str(body.get("error", "")),
            next_at=float(body.get("next_at", 0.0)),
            last_at=float(body.get("last_at", 0.0)),
        )


@dataclass(frozen=True)
class HeadMark:
    """A head reset: the head window starts at ``message_id``.

    Attributes:
        message_id: The transition message that opens the new head.
        created: When the reset was made.
        info: Model, request hash and token counts of the transition summary (empty for host text).
    """

    message_id: str
    created: float
    info: Mapping[str, Any] = field(default_factory=dict)

    def to_body(self) -> dict[str, Any]:
        return {"type": "head", "message_id": self.message_id, "created": self.created, "info": dict(self.info)}

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> HeadMark:
        info = body.get("info")
        return cls(
            str(body["message_id"]), float(body.get("created", 0.0)), dict(info) if isinstance(info, dict) else {}
        )


def request_hash(value: Any) -> str:
    """Hex sha256 of ``value``'s canonical JSON (sorted keys, compact)."""
    data = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(data.encode()).hexdigest()
