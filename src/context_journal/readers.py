"""Reader-scoped views: a namespace's reader record, the compression read mark, and the
narrowing check for audience edits.

A namespace's summaries and strategy state are written from its reader's view, so a namespace belongs
to one reader: the first ``view_reader`` it is opened with is recorded per branch in the state
``<namespace>/reader``. The state ``<namespace>/compression_read`` holds the newest store sequence that
compression may have read on the branch (raised before each read, never lowered).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._names import clip_repr, name_problem
from ._read_mark import COMPRESSION_READ_STATE, compression_read_mark, raise_compression_read
from .errors import ContextJournalError

if TYPE_CHECKING:
    from .stores.base import Store

__all__ = [
    "COMPRESSION_READ_STATE",
    "READER_STATE",
    "AudienceNarrowingError",
    "ReaderConflictError",
    "ReaderError",
    "StaleReaderError",
    "check_narrowing",
    "compression_read_mark",
    "host_claim_problem",
    "keep_hidden",
    "narrows",
    "raise_compression_read",
    "recorded_reader",
    "require_recorded_reads",
    "sees",
    "validate_reader",
]

READER_STATE = "reader"


class ReaderError(ContextJournalError, ValueError):
    """A reader name or a namespace's reader record refuses the operation; nothing was written."""


class ReaderConflictError(ReaderError):
    """The namespace records another reader on the branch.

    Attributes:
        namespace: The namespace.
        recorded: The reader the namespace records (or the bad record, as text).
        requested: The reader asked for (None: a manager that compiles for no reader).
    """

    def __init__(self, namespace: str, recorded: str, requested: str | None, action: str) -> None:
        self.namespace = namespace
        self.recorded = recorded
        self.requested = requested
        if requested is None:
            super().__init__(
                f"cannot {action} for no reader: namespace {namespace!r} belongs to reader {recorded!r} on this "
                f"branch; name the reader (view_reader={recorded!r}, --reader {recorded}) to read as it, or use "
                "another namespace"
            )
            return
        super().__init__(
            f"cannot {action} for reader {requested!r}: namespace {namespace!r} records reader {recorded!r} on "
            "this branch (give each reader a namespace of its own)"
        )


class StaleReaderError(ReaderError):
    """Another handle claimed the namespace for a reader this manager does not compile for (or switched
    the branch under it); reopen the manager."""


class AudienceNarrowingError(ContextJournalError, ValueError):
    """An edit would hide a block from a reader who may already have seen it; nothing was written.

    Attributes:
        message_id: The message edited.
        block_index: The block whose audience narrows.
        hidden_from: Who would lose the block (a reader name, or ``"everyone without a name"``).
        reason: Why the edit is refused.
    """

    def __init__(self, message_id: str, block_index: int, hidden_from: str, reason: str) -> None:
        self.message_id = message_id
        self.block_index = block_index
        self.hidden_from = hidden_from
        self.reason = reason
        super().__init__(f"edit of {message_id!r} block {block_index} would hide it from {hidden_from}: {reason}")


def validate_reader(reader: Any) -> str | None:
    """``reader`` when it is None or a non-empty string.

    Raises:
        ReaderError: an empty or non-string reader.
    """
    if reader is None:
        return None
    problem = name_problem(reader)
    if problem is not None:
        raise ReaderError(f"view_reader {problem}: {clip_repr(reader)}")
    return str(reader)


def recorded_reader(store: Store, branch_id: int, namespace: str) -> str | None:
    """The reader the namespace records on the branch, or None.

    Raises:
        ReaderError: the record is not a reader's name.
    """
    value = store.get_state(branch_id, f"{namespace}/{READER_STATE}")
    if value is None or (isinstance(value, str) and value):
        return value
    raise ReaderError(f"namespace {namespace!r} holds a reader record that is not a reader's name: {value!r}")


def host_claim_problem(store: Store, branch_id: int, namespace: str | None, reader: str | None) -> str | None:
    """Why a handle bound to ``reader`` must not compile or write ``namespace`` (None: it may).

    A namespace belongs to the first reader that compiles or writes through it. One that already
    exists and records no reader is the host's (``default``, an imported conversation): a remote
    door bound to a reader (``mcp serve --reader``, the command line's ``--reader``) that compiled
    it would claim it, and the host could no longer compile it without naming that reader. The
    reader's own namespace (named after it, over the shared messages) and a new one are
    fine; so is a namespace that records this reader.
    """
    from .namespaces import namespace_exists

    ns = namespace or "default"
    if reader is None or ns == reader or recorded_reader(store, branch_id, ns) is not None:
        return None
    branch = next((b.name for b in store.list_branches() if b.id == branch_id), None)
    if ns != "default" and (branch is None or not namespace_exists(store, ns, branch)):
        return None  # a new namespace: this reader's once it writes
    return (
        f"namespace {ns!r} records no reader (it is the host's); compiling or writing it as reader {reader!r} "
        f"would claim it for {reader!r} and lock the host out; use namespace {reader!r} (the shared messages "
        f"as {reader!r} sees them) or a namespace of its own"
    )


_Audience = frozenset[str] | None


def _audience_of(block: Mapping[str, Any]) -> _Audience:
    aud = block.get("audience")
    return frozenset(aud) if isinstance(aud, list) else None


def narrows(old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]) -> list[tuple[int, str | None]]:
    """Who loses a block when ``old`` content becomes ``new`` (blocks compared by position): pairs of
    block index and the reader hidden from it (None: readers not named, i.e. a block with no audience
    gains one). A block removed outright is not a narrowing of its audience."""
    out: list[tuple[int, str | None]] = []
    for i, (a, b) in enumerate(zip(old, new, strict=False)):
        before, after = _audience_of(a), _audience_of(b)
        if after is None:
            continue  # widened to everyone (or unchanged)
        if before is None:
            out.append((i, None))
            continue
        out.extend((i, name) for name in sorted(before - after))
    return out


def sees(block: Mapping[str, Any], reader: str | None) -> bool:
    """True when ``reader`` reads ``block``: it has no audience, or its audience names the reader."""
    aud = _audience_of(block)
    return aud is None or (reader is not None and reader in aud)


def keep_hidden(
    old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]], reader: str
) -> list[dict[str, Any]]:
    """The content a reader's edit writes: ``new`` replaces the blocks ``reader`` sees
    in ``old``, and every block it cannot see is kept, in its place. The new blocks go where the first
    block the reader saw was (after the hidden blocks when it saw none), so an edit never removes
    another reader's block it could not read.

    Returns:
        ``old``'s hidden blocks and ``new``'s blocks, as block dicts.
    """
    out: list[dict[str, Any]] = []
    placed = False
    for block in old:
        if not sees(block, reader):
            out.append(dict(block))
        elif not placed:
            out.extend(dict(b) for b in new)
            placed = True
    if not placed:
        out.extend(dict(b) for b in new)
    return out


def check_narrowing(
    message_id: str,
    created_sequence: int,
    old: Sequence[Mapping[str, Any]],
    new: Sequence[Mapping[str, Any]],
    reader: str | None,
    read_mark: int,
) -> None:
    """Refuse an edit that hides a block from a reader who may have seen it.

    Narrowing is refused by a manager with no reader always, away from any reader other than the
    manager's own always, and away from the manager's own reader once compression may have read the
    message (``created_sequence <= read_mark``).

    Raises:
        AudienceNarrowingError: saying who would lose which block, and why.
    """
    for index, hidden in narrows(old, new):
        if reader is None:
            raise AudienceNarrowingError(
                message_id, index, _who(hidden), "a manager with no reader may not narrow an audience"
            )
        if hidden is None or hidden != reader:
            raise AudienceNarrowingError(
                message_id,
                index,
                _who(hidden),
                f"only the manager's own reader {reader!r} may be removed from an audience",
            )
        if created_sequence <= read_mark:
            raise AudienceNarrowingError(
                message_id,
                index,
                _who(hidden),
                f"compression may already have read it (read mark {read_mark}); a summary may hold it",
            )


def _who(hidden: str | None) -> str:
    return "readers it did not name" if hidden is None else f"reader {hidden!r}"


def require_recorded_reads(strategy: Any) -> None:
    """A manager with a reader runs only strategies that record their compression reads.

    Raises:
        ReaderError: the strategy does not declare ``records_compression_reads = True``.
    """
    if strategy is not None and getattr(strategy, "records_compression_reads", False) is not True:
        raise ReaderError(
            f"strategy {type(strategy).__name__} does not declare records_compression_reads = True; "
            "a manager with a view_reader cannot run it"
        )
