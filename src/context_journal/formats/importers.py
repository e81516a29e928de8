"""Entry points: detect a transcript's format, read it, and write it into a store.

:func:`read_transcript` returns an :class:`~context_journal.formats.base.ImportResult` without
touching a store; :func:`import_into` writes one into a store:

- the primary conversation (or the only one) goes into ``namespace``'s view of the store's shared
  message slot; every other conversation into an isolated namespace named by its id;
- messages are written in batches of :data:`BATCH_SIZE` per transaction;
- a message whose id is already in its slot is not written again but counted as skipped
  (``"already imported"``), so importing the same file twice changes nothing;
- each conversation's metadata (markers, links, participants' roles) is written as the state
  ``imports/<conversation id>`` on the branch, next to its messages, and the participants' roles as
  ``<namespace>/roles`` (read by compile to tell the assistant from the other speakers).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._block_types import SERVER_TYPES
from .._names import replace_lone_surrogates
from ..errors import DuplicateMessageError, ImportFormatError, MalformedContentError
from ..messages import MessageInput
from ..namespaces import IMPORT_STATE_PREFIX
from ..stores import ROOT_BRANCH, Store, open_store
from .base import FORMATS, Conversation, ImportResult, SkipLog, Skipped, has_lone_surrogate, load_json, open_lines
from .chat_json import read_anthropic, read_openai
from .claude_code import read_claude_code
from .irc import log_files, read_irc
from .locomo import read_locomo
from .messages_jsonl import read_messages_jsonl
from .openai_responses import looks_like_responses, read_openai_responses
from .tau_bench import read_tau_bench

if TYPE_CHECKING:
    from ..manager import ContextManager

__all__ = ["BATCH_SIZE", "ConversationReport", "ImportReport", "detect_format", "import_into", "read_transcript"]

BATCH_SIZE = 250
"""Messages per ``add_messages`` transaction in :func:`import_into`."""

ROLE_KEYS = ("assistant", "user", "system_participants", "tool_participants")
"""Conversation metadata keys copied into the namespace state ``<namespace>/roles`` (see ``compile.Roles``)."""

STATE_PREFIX = IMPORT_STATE_PREFIX
"""Key prefix of the states that hold imported conversations' metadata."""

_OPENAI_ROLES = {"system", "developer", "tool", "function"}
_ANTHROPIC_BLOCKS = {
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "image",
    "document",
    "search_result",
    "container_upload",
    "compaction",
    *SERVER_TYPES,
}


# --- detection -----------------------------------------------------------------------------------


def _chat_flavour(data: Any) -> str | None:
    """``"anthropic"`` or ``"openai"`` for a chat transcript, None when it is not one."""
    if isinstance(data, dict):
        if not isinstance(data.get("messages"), list):
            return None
        if "system" in data:
            return "anthropic"
        msgs: list[Any] = data["messages"]
    elif isinstance(data, list):
        msgs = data
    else:
        return None
    if not msgs or not all(isinstance(m, dict) and "role" in m for m in msgs):
        return None
    for m in msgs:
        if m.get("role") in _OPENAI_ROLES or "tool_calls" in m or "function_call" in m:
            return "openai"
        content = m.get("content")
        if isinstance(content, list):
            for b in content:
                kind = b.get("type") if isinstance(b, dict) else None
                if kind in _ANTHROPIC_BLOCKS:
                    return "anthropic"
                if kind in ("image_url", "input_audio", "refusal", "file"):
                    return "openai"
    return "anthropic"


def _detect_data(data: Any) -> str | None:
    if isinstance(data, list) and data and isinstance(data[0], dict):
        first = data[0]
        if "sample_id" in first and "conversation" in first:
            return "locomo"
        if "traj" in first and "task_id" in first:
            return "tau-bench"
    if looks_like_responses(data):
        return "openai-responses"
    return _chat_flavour(data)


def _holds_a_record(path: Path) -> bool:
    """Whether a JSON Lines file has a line that is not blank (unreadable ones are left to the reader)."""
    try:
        with open_lines(path) as f:
            return any(raw.strip() for raw in f)
    except (OSError, EOFError):
        return True


def _messages_jsonl(path: Path) -> bool:
    """Whether a JSON Lines file holds messages as ``add_messages`` takes them (format ``messages``): its
    first record has a ``participant`` and a ``content``, or is a ``{"conversation": ...}`` header."""
    try:
        with open_lines(path) as f:
            for raw in f:
                if raw.strip():
                    record = json.loads(raw)
                    return isinstance(record, dict) and (
                        set(record) == {"conversation"} or {"participant", "content"} <= set(record)
                    )
    except (OSError, ValueError, RecursionError, EOFError):
        return False
    return False


def _responses_jsonl(path: Path, lines: int = 50) -> bool:
    """Whether a ``.jsonl`` file holds Responses API records: one of its first ``lines`` records is a
    Response dict (``"object": "response"``), a saved request body (``{"input": ...}``) or an item only the
    Responses API writes (a file of ``response.model_dump()`` lines, request bodies or items; a plain
    ``{"role": "user", ...}`` message may open it), not a Claude Code session. A line that is not JSON is
    passed over (the reader skips and reports it)."""
    try:
        with path.open("rb") as f:
            for raw in f:
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw)
                except (ValueError, RecursionError):
                    record = None
                if isinstance(record, dict) and (looks_like_responses(record) or looks_like_responses([record])):
                    return True
                lines -= 1
                if lines <= 0:
                    return False
    except (OSError, ValueError, RecursionError):
        return False
    return False


def _detect(path: Path, skips: SkipLog | None = None) -> tuple[str, Any]:
    """``(format, parsed JSON or None)``; what reading the JSON reported goes to ``skips``."""
    source = str(path)
    if path.is_dir():
        if log_files(path):
            return "irc", None
        raise ImportFormatError("cannot detect the format of this directory (no '*.raw.txt' IRC logs)", source=source)
    if not path.exists():
        raise ImportFormatError("no such file or directory", source=source)
    name = path.name
    if name.endswith((".raw.txt", ".annotation.txt")):
        return "irc", None
    if name.endswith((".jsonl", ".jsonl.gz")):
        if not _holds_a_record(path):
            # (Read as Claude Code, an empty file "imported 0 messages from 1 conversation(s)": a review.)
            raise ImportFormatError(
                "cannot detect the format: the file holds no records (nothing to import)", source=source
            )
        if _messages_jsonl(path):
            return "messages", None
        return ("openai-responses" if _responses_jsonl(path) else "claude-code"), None
    data = load_json(source, skips if skips is not None else SkipLog())
    found = _detect_data(data)
    if found is None:
        raise ImportFormatError(
            "cannot detect the format; name it (Python: format=, command line: --format) as one of "
            + ", ".join(FORMATS),
            source=source,
        )
    return found, data


def detect_format(path: str | os.PathLike[str]) -> str:
    """The format of a transcript, from its name and (for ``.json``) its shape.

    Args:
        path: A file or a directory (a directory of IRC logs).

    Returns:
        One of ``claude-code``, ``locomo``, ``tau-bench``, ``irc``, ``anthropic``, ``openai``,
        ``openai-responses``, ``messages``.

    Raises:
        ImportFormatError: the path does not exist, is not valid JSON, or matches no format.
    """
    return _detect(Path(os.fspath(path)))[0]


def read_transcript(path: str | os.PathLike[str], format: str = "auto") -> ImportResult:
    """Read a transcript into conversations (no store involved).

    Args:
        path: The file (or, for IRC, a directory).
        format: ``"auto"`` or one of :data:`~context_journal.formats.base.FORMATS`.

    Damaged input is read as far as it goes, and the damage reported in the result's skip report under
    reasons naming the file, line and byte: in a line-oriented file (Claude Code JSONL, IRC logs and
    annotations) a line that cannot be read (not JSON, as the last line of a file cut off mid-write is;
    the wrong shape) is left out, and bytes that are not valid UTF-8 are read as U+FFFD (the line kept);
    in a JSON file, invalid bytes are read as U+FFFD. A file that cannot be read at all (no line usable;
    a JSON document that does not parse) raises.

    Returns:
        The conversations and the skip report.

    Raises:
        ImportFormatError: the format is unknown or cannot be detected, or the input is malformed
            (the error names the file and the line or index, and the byte where it helps).
    """
    p = Path(os.fspath(path))
    data: Any = None
    read = SkipLog()  # what reading the JSON while detecting the format reported (invalid bytes)
    if format == "auto":
        format, data = _detect(p, read)
    elif format not in FORMATS:
        raise ImportFormatError(f"unknown format {format!r}; use auto or one of {', '.join(FORMATS)}", source=str(p))
    if format == "claude-code":
        return read_claude_code(p)
    if format == "irc":
        return read_irc(p)
    readers: dict[str, Callable[..., ImportResult]] = {
        "locomo": read_locomo,
        "tau-bench": read_tau_bench,
        "anthropic": read_anthropic,
        "openai": read_openai,
        "openai-responses": read_openai_responses,
        "messages": read_messages_jsonl,
    }
    result = readers[format](p, data=data)
    read.extend(result.skipped)
    result.skipped = read.report()
    return result


# --- writing into a store ------------------------------------------------------------------------


@dataclass(frozen=True)
class ConversationReport:
    """Where one conversation went.

    Attributes:
        id: The conversation id.
        namespace: The namespace its messages were written under.
        isolated: True when it has its own message slot.
        written: Messages written now.
        already_imported: Messages skipped because their id was already in the slot.
    """

    id: str
    namespace: str
    isolated: bool
    written: int
    already_imported: int


@dataclass
class ImportReport:
    """The outcome of :func:`import_into`.

    What *reading* skipped is in :attr:`ImportResult.skipped`; this report counts what the *import*
    skipped: messages whose id was already in the store (``"already imported"``).

    Attributes:
        format: The transcript's format.
        source: The file read.
        conversations: One entry per conversation, in order.
        skip_details: The import's skips by reason, with sample locations.
    """

    format: str
    source: str
    conversations: list[ConversationReport] = field(default_factory=list)
    skip_details: list[Skipped] = field(default_factory=list)

    @property
    def messages(self) -> int:
        """Messages written by this import."""
        return sum(c.written for c in self.conversations)

    @property
    def skipped(self) -> int:
        """Messages not written (already in the store, or refused by it)."""
        return sum(s.count for s in self.skip_details if not s.repaired)

    @property
    def skipped_by_reason(self) -> dict[str, int]:
        """The import's skips as ``{reason: count}``."""
        return {s.reason: s.count for s in self.skip_details if not s.repaired}

    @property
    def repaired(self) -> int:
        """Messages written repaired (half a surrogate pair read as U+FFFD, see :attr:`Skipped.repaired`)."""
        return sum(s.count for s in self.skip_details if s.repaired)

    @property
    def repaired_by_reason(self) -> dict[str, int]:
        """The import's repairs as ``{reason: count}``."""
        return {s.reason: s.count for s in self.skip_details if s.repaired}

    @property
    def namespaces(self) -> dict[str, str]:
        """``{conversation id: namespace}`` of every conversation written."""
        return {c.id: c.namespace for c in self.conversations}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary."""
        return {
            "format": self.format,
            "source": self.source,
            "messages": self.messages,
            "skipped": self.skipped,
            "skipped_by_reason": self.skipped_by_reason,
            "repaired": self.repaired,
            "repaired_by_reason": self.repaired_by_reason,
            "conversations": [c.__dict__ for c in self.conversations],
        }


def _state_value(result: ImportResult, conv: Conversation, namespace: str, slot: str) -> dict[str, Any]:
    value = {
        "format": result.format,
        "source": result.source,
        "conversation_id": conv.id,
        "parent_id": conv.parent_id,
        "primary": conv.primary,
        "namespace": namespace,
        "slot": slot,
        "message_count": len(conv.messages),
        "metadata": conv.metadata,
    }
    return _storable(value)  # type: ignore[no-any-return]


def _storable(value: Any) -> Any:
    """``value`` as JSON, every lone surrogate (which no UTF-8 store can keep) read as U+FFFD: the
    metadata of a conversation with a bad character must not fail its import (a tool
    call id with one once failed the Claude Code import outside the per-message guard)."""
    return json.loads(replace_lone_surrogates(json.dumps(value, default=str, ensure_ascii=False)))


def _mended(message: MessageInput) -> MessageInput | None:
    """``message`` with every lone surrogate in its id, participant, content and metadata read as U+FFFD,
    or None when it holds none. Bug case B51 allows refusing or repairing; an importer repairs, since
    leaving the message out loses all of it (a tool result left out leaves its call unanswered)."""
    parts = [message.id, message.participant, message.content, message.metadata]
    if not has_lone_surrogate(parts):
        return None
    content = message.content
    return replace(
        message,
        id=_mend(message.id),
        participant=_mend(message.participant),
        content=[_mend_block(b) for b in content] if isinstance(content, (list, tuple)) else _mend(content),
        metadata=_mend(message.metadata),
    )


def _mended_conversation(conv: Conversation, skips: SkipLog) -> Conversation:
    """``conv`` with every lone surrogate in its id, parent id and metadata read as U+FFFD (reported in
    ``skips`` as repaired): its id names a namespace and state keys, which no store can keep with half a
    character (a review's LoCoMo ``sample_id`` holding ``\\ud83d`` failed the whole import)."""
    if not has_lone_surrogate([conv.id, conv.parent_id, conv.metadata]):
        return conv
    mended = replace(conv, id=_mend(conv.id), parent_id=_mend(conv.parent_id), metadata=_mend(conv.metadata))
    skips.damage(
        f"conversation {mended.id}",
        "a lone surrogate in its id or metadata (half of a UTF-16 pair), read as U+FFFD",
        "more conversations with a lone surrogate in their id or metadata, read as U+FFFD",
        repaired=True,
    )
    return mended


def _mend_block(block: Any) -> Any:
    """``block`` mended (see :func:`_mend`); a thinking block whose text was mended loses its signature,
    which was made for the text as written (sent mended with it, the provider refuses the request; unsigned,
    the compile leaves it out and says so)."""
    out = _mend(block)
    if isinstance(block, Mapping) and block.get("type") == "thinking" and has_lone_surrogate(block.get("thinking")):
        out["signature"] = ""
    return out


def _mend(value: Any) -> Any:
    """``value`` (JSON-shaped: text, lists, dicts, keys included) with lone surrogates read as U+FFFD;
    anything else is returned as it is."""
    if isinstance(value, str):
        return replace_lone_surrogates(value)
    if isinstance(value, (list, tuple)):
        return [_mend(v) for v in value]
    if isinstance(value, Mapping):
        return {_mend(k): _mend(v) for k, v in value.items()}
    return value


def import_into(
    store_or_path: Store | str | os.PathLike[str],
    result: ImportResult,
    namespace: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    *,
    branch: str = ROOT_BRANCH,
    shard_tokens: int = 0,
) -> ImportReport:
    """Write an :class:`ImportResult` into a store.

    Args:
        store_or_path: An open store (left open) or a store location (opened and closed here).
        result: What :func:`read_transcript` returned.
        namespace: Namespace of the primary conversation. Without one it goes to the store's shared
            message slot (namespace ``"default"``); with one, to that namespace's own slot. Other
            conversations get isolated namespaces named by their ids. A slot never mixes two
            conversations: importing into one that holds another raises.
        progress: Called as ``progress(done, total)`` in messages after each batch.
        branch: The branch to write.
        shard_tokens: Store a message of more estimated tokens than this as a body group of shards
            (:mod:`~context_journal.sharding`; for a conversation a chunking strategy will compress: twice
            its ``target_chunk_tokens``); 0 (the default): every message as it was written.

    Returns:
        Per-conversation counts and the import's own skips (``"already imported"``); what reading
        skipped stays in ``result.skipped``.

    Raises:
        ImportFormatError: a message was refused by the store as malformed (names the conversation and
            message; that batch is not written, earlier batches stay), or the target slot already holds
            another conversation (nothing is written).
        StoreError: the store cannot be opened or written.
    """
    from ..manager import ContextManager  # the manager layer sits above formats/; import at call time

    owns = not isinstance(store_or_path, Store)
    store = open_store(store_or_path)
    skips = SkipLog()
    report = ImportReport(result.format, result.source)
    total = result.message_count
    done = 0
    shared_target = result.primary or (result.conversations[0] if len(result.conversations) == 1 else None)
    try:
        branch_id = store.get_branch(branch).id
        for read in result.conversations:
            conv = _mended_conversation(read, skips)
            # The primary conversation goes to the shared slot unless a namespace is named; a named
            # namespace, and every other conversation, gets a slot of its own.
            shared = read is shared_target and not namespace
            ns = (namespace or "default") if read is shared_target else conv.id
            manager = ContextManager.open(
                store=store, namespace=ns, isolate=not shared, branch=branch, shard_tokens=shard_tokens
            )
            try:
                _claim_slot(store, branch_id, manager, conv, result.source)
                # Conversation metadata and roles (who is the assistant, who speaks as system or tool; read
                # by compile) are written before the messages, so a branch forked anywhere inside the
                # conversation has them.
                value = _state_value(result, conv, ns, manager.slot)
                roles = _storable({k: conv.metadata.get(k) for k in ROLE_KEYS if conv.metadata.get(k) is not None})
                if any(m.timestamp is not None for m in conv.messages):
                    roles["dated"] = True  # real dates: compiles render them (compile(render_dates=None))
                roles_key = f"{ns}/roles"
                with store.transaction() as tx:
                    if store.get_state(branch_id, STATE_PREFIX + conv.id) != value:
                        tx.put_state(branch_id, STATE_PREFIX + conv.id, value)
                    if roles and store.get_state(branch_id, roles_key) != roles:
                        tx.put_state(branch_id, roles_key, roles)
                written, already = _write_conversation(manager, conv, skips, done, total, progress, result.source)
                done += len(conv.messages)
            finally:
                manager.close()
            report.conversations.append(ConversationReport(conv.id, ns, not shared, written, already))
    finally:
        if owns:
            store.close()
    report.skip_details = skips.report()
    return report


SLOT_OWNER_PREFIX = "imports/slot/"
"""State naming the conversation an import wrote into a message slot (one conversation per slot)."""


def _claim_slot(store: Store, branch_id: int, manager: ContextManager, conv: Conversation, source: str) -> None:
    """Refuse to mix two conversations in one message slot: a slot holding messages of another
    conversation (or written by a host) is not imported into; the same conversation again is a re-import.

    Raises:
        ImportFormatError: the slot already holds another conversation; import under another namespace.
    """
    key = SLOT_OWNER_PREFIX + manager.slot
    owner = store.get_state(branch_id, key)
    if owner == conv.id:
        return
    if owner is not None or manager.message_count():
        held = f"conversation {owner!r}" if owner is not None else f"{manager.message_count()} messages"
        raise ImportFormatError(
            f"namespace {manager.namespace!r} already holds {held}; importing {conv.id!r} there would merge "
            "two conversations; import it under its own namespace (--namespace NAME)",
            source=source,
        )
    with store.transaction() as tx:
        tx.put_state(branch_id, key, conv.id)


def _write_conversation(
    manager: ContextManager,
    conv: Conversation,
    skips: SkipLog,
    done: int,
    total: int,
    progress: Callable[[int, int], None] | None,
    source: str,
) -> tuple[int, int]:
    """Write the messages not yet in the slot; returns ``(written, already imported)``. A message the
    store refuses (a block holding a NaN, a timestamp outside years 1..9999, content or metadata nested
    too deep) is left out and reported in ``skips`` under a reason naming it and its block or field; the
    rest of the conversation is written. A message refused for a lone surrogate is written with U+FFFD in
    its place and reported the same way (bug case B51: half a character is lost, not the message).

    Raises:
        ImportFormatError: the store refused the write for a fault no message of it names.
    """
    manager.messages.refresh()
    existing = {e.id for e in manager.messages.iter_entries()}
    todo: list[MessageInput] = []
    already = 0
    for m in conv.messages:
        if m.id is not None and (m.id in existing or replace_lone_surrogates(m.id) in existing):
            already += 1
            skips.add("already imported", f"{conv.id}:{m.id}")
        else:
            todo.append(m)
    processed = done + already
    if progress is not None and already:
        progress(processed, total)
    written = 0
    for start in range(0, len(todo), BATCH_SIZE):
        batch = todo[start : start + BATCH_SIZE]
        processed += len(batch)
        repaired: list[tuple[MessageInput, str]] = []  # mended messages, reported once written
        while batch:
            try:
                manager.add_messages(batch)
                for m, place in repaired:
                    if any(m is b for b in batch):
                        skips.damage(
                            place,
                            "a lone surrogate (half of a UTF-16 pair, which no store can keep), read as U+FFFD; "
                            "the message was written",
                            "more messages with a lone surrogate, read as U+FFFD and written",
                            repaired=True,
                        )
                break
            except DuplicateMessageError as exc:  # an id held by a removed message, or another writer
                batch = [m for m in batch if m.id != exc.message_id]
                already += 1
                skips.add("already imported", f"{conv.id}:{exc.message_id}")
            except MalformedContentError as exc:
                index = exc.message_index or 0
                if index >= len(batch):  # not a message of this batch: a fault of the write itself
                    raise ImportFormatError(
                        f"the store refused a message: {exc.reason}", source=source, location=conv.id
                    ) from exc
                bad = batch[index]
                where = f"block {exc.block_index}" if exc.block_index is not None else (exc.path or "message")
                mended = _mended(bad)
                if mended is not None:  # half a surrogate pair: the message is written with U+FFFD for it
                    batch[index] = mended
                    # (reported once written: refused for another fault, or already there, it is no repair)
                    repaired.append((mended, f"{conv.id}: message {mended.id}, {where}"))
                    continue
                batch.pop(index)
                skips.add(
                    f"malformed content, refused by the store: message {_mend(bad.id)}, {where}: {exc.reason}",
                    conv.id,
                )
        written += len(batch)
        if progress is not None:
            progress(processed, total)
    return written, already
