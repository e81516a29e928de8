"""Erasure in an append-only journal: redact a message everywhere, keep the proof that it happened.

:func:`redact_messages` erases messages of a slot, in one transaction:

* the body of **every version** of the message, on every branch (its append and its edits), is replaced
  by a stub (:func:`~context_journal.stores.redaction.redacted_body`: participant, time, the readers it
  was for, and the text ``[redacted]``), with its full-text documents and the blobs no other record names
  (:func:`~context_journal.stores.redaction.redact_records`). The message keeps its place: a compile shows
  ``[redacted]`` where it was (a tool call or result it held is gone, and the compile's repairs drop its
  partner), and time travel reads the stub;
* what the library **derived** from it goes too, with no body left: every summary and summary part
  (``compression/*`` slots, any namespace: a derived context's summaries may cover its parent's messages)
  that may have read it (each ending at or after the message's created sequence: a summary request reads its
  own range, the opening messages and earlier summaries as context), and every working-state ledger
  checkpoint of the slot that covers it, and the import metadata that names it (a transcript's markers,
  a subagent's task). A summary is never rewritten: it is gone, so the chunk it stood
  for counts as unsummarised, a compile shows that chunk's own messages (the erased one as
  ``[redacted]``, never the old summary text) and the next compression work writes its summary, and the
  merges above it, again. A ledger starts from an older checkpoint and folds again;
* every live branch on which the message is visible gets a new version, the stub, so every open handle,
  in any process, moves to it through the ordinary refresh;
* a **redaction record** (slot :data:`REDACTION_SLOT`, item = the message id, on the root branch) keeps
  who, when and why, the message's slot, participant, created sequence, the sequences erased and the
  sha256 of each removed body: the fact of the message and its place stay provable, its content does not.

After the commit the store scrubs its files (:meth:`~context_journal.stores.base.Store.scrub`). Crash
safety is the transaction's: a kill before the commit leaves the payload and no redaction record, a kill
after it leaves the redaction complete (the scrub runs again with the next redaction).

What it cannot reach: other handles' memory (another process that already read the message or a summary
holds it until it refreshes or reopens), the execution journal (its entries are separate, hash-chained
rows), copies outside the store (backups, exports, provider logs), and PostgreSQL's dead row versions until
``VACUUM`` (see the README).
"""

from __future__ import annotations

import bisect
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .errors import MessageNotFoundError, RedactionError
from .namespaces import IMPORT_STATE_PREFIX, namespace_is_isolated
from .state.checkpoint import LEDGER_SLOT
from .stores.base import ROOT_BRANCH, BranchInfo, Op, Record, Store
from .stores.fulltext import SUMMARY_SLOT_PREFIX
from .stores.redaction import REDACTION_SLOT, check_reason, is_redacted, redact_records, redacted_body, stub_for
from .strategies.autobiographical.records import StaleMark

__all__ = [
    "REDACTION_SLOT",
    "Purge",
    "Redaction",
    "list_redactions",
    "purge_branch",
    "purge_namespace",
    "redact_message",
    "redact_messages",
]


@dataclass(frozen=True)
class Redaction:
    """What a redaction erased, and the record that proves it happened.

    Attributes:
        message_id: The erased message's id.
        slot: Its message slot.
        sequence: Store sequence of the redaction record (0 when nothing was left to erase).
        created_sequence: Store sequence of the message's first version.
        participant: Who wrote the message (kept), or None if unknown.
        versions: Sequences of the message versions whose bodies were erased.
        derived: Sequences of the summaries, summary parts and ledger checkpoints erased with it.
        payload_sha256: ``{sequence: hex sha256}`` of each removed body (message versions and derived).
        reason: Why (as given).
        by: Who asked (as given), or None.
        at: Wall-clock time of the redaction, seconds since the epoch.
        branches: Names of the branches on which a redacted version was written (those that showed the
            message): it stays in its place there and reads as "[redacted]".
        placeholders: Sequences of those new versions (stubs, named here so ``verify`` can tell them from a
            body replaced outside a redaction).
        notes: What the scrub after the commit could not do (empty when the bytes left the files).
    """

    message_id: str
    slot: str
    sequence: int
    created_sequence: int
    participant: str | None
    versions: tuple[int, ...]
    derived: tuple[int, ...]
    payload_sha256: dict[int, str]
    reason: str
    by: str | None
    at: float
    branches: tuple[str, ...] = ()
    placeholders: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()

    def to_body(self) -> dict[str, Any]:
        """The redaction record's JSON body."""
        return {
            "type": "redaction",
            "message_id": self.message_id,
            "slot": self.slot,
            "created_sequence": self.created_sequence,
            "participant": self.participant,
            "versions": list(self.versions),
            "derived": list(self.derived),
            "payload_sha256": {str(k): v for k, v in sorted(self.payload_sha256.items())},
            "reason": self.reason,
            "by": self.by,
            "at": self.at,
            "branches": list(self.branches),
            "placeholders": list(self.placeholders),
        }

    @classmethod
    def from_record(cls, rec: Record) -> Redaction:
        """A redaction read back from its record.

        Raises:
            CorruptRecordError: the body is not JSON.
            KeyError, TypeError, ValueError: the body is not a redaction record.
        """
        body = rec.value()
        return cls(
            message_id=str(body["message_id"]),
            slot=str(body["slot"]),
            sequence=rec.seq,
            created_sequence=int(body["created_sequence"]),
            participant=None if body.get("participant") is None else str(body["participant"]),
            versions=tuple(int(s) for s in body["versions"]),
            derived=tuple(int(s) for s in body["derived"]),
            payload_sha256={int(k): str(v) for k, v in body["payload_sha256"].items()},
            reason=str(body["reason"]),
            by=None if body.get("by") is None else str(body["by"]),
            at=float(body["at"]),
            branches=tuple(str(b) for b in body.get("branches", ())),
            placeholders=tuple(int(q) for q in body.get("placeholders", ())),
        )


def _derived_records(
    store: Store, slot: str, created: Sequence[int], ids: Mapping[str, int] | None = None
) -> list[tuple[Record, list[int]]]:
    """The summaries, summary parts and ledger checkpoints that may hold text of messages of ``slot``
    created at the sequences ``created`` (sorted), each with the ones of those sequences it covers; and the
    import metadata (state ``imports/...``: a transcript's markers and links, a subagent's task) naming one
    of ``ids`` (message id -> created sequence)."""
    out: list[tuple[Record, list[int]]] = []
    if not created:
        return out
    if ids:
        for rec in store.records_of("state"):
            if rec.body is None or not rec.item.startswith(IMPORT_STATE_PREFIX):
                continue
            named = [seq for mid, seq in ids.items() if mid in rec.body]
            if named:
                out.append((rec, sorted(named)))
    for name in store.list_slots():
        if not name.startswith(SUMMARY_SLOT_PREFIX):
            continue
        for rec in store.records_of(name):
            if rec.body is None or not rec.item.startswith(("summary/", "part/")):
                continue
            try:
                body = rec.value()
            except ValueError:
                continue
            # Every summary or part ending at or after the message may have read it: a request reads its
            # own range, the opening messages and earlier summaries as context (see StaleMark).
            last = body.get("last_sequence", body.get("last_seq")) if isinstance(body, dict) else None
            if isinstance(last, int):
                hi = bisect.bisect_right(created, last)
                if hi:
                    out.append((rec, list(created[:hi])))
    for rec in store.records_of(LEDGER_SLOT):
        if rec.body is None:
            continue
        try:
            key = json.loads(rec.item)
            body = rec.value()
        except ValueError:
            continue
        if isinstance(key, list) and key and key[0] == slot and isinstance(body, dict):
            covered = body.get("seq")
            hit = (
                list(created)
                if not isinstance(covered, int)
                else list(created[: bisect.bisect_right(created, covered)])
            )
            if hit:
                out.append((rec, hit))
    return out


def _branches_seeing(store: Store, origin: int, created: int) -> list[BranchInfo]:
    """The live branches whose lineage holds the record written on branch ``origin`` at ``created``: the
    origin and every branch forked from it (or from such a branch) at or after that sequence."""
    table = {b.id: b for b in store.list_branches(include_deleted=True)}
    out = []
    for branch in table.values():
        if branch.deleted:
            continue
        node: BranchInfo | None = branch
        upto: int | None = None  # the newest sequence of ``node`` that ``branch`` sees
        while node is not None:
            if node.id == origin:
                if upto is None or upto >= created:
                    out.append(branch)
                break
            seen = node.fork_seq
            upto = seen if upto is None or seen is None else min(upto, seen)
            node = table.get(node.parent_id) if node.parent_id is not None else None
    return out


def redact_messages(
    store: Store,
    slot: str,
    message_ids: Sequence[str],
    *,
    reason: str,
    by: str | None = None,
    index_thinking: bool = False,
) -> list[Redaction]:
    """Erase messages of ``slot`` everywhere they are stored, in one transaction (see the module docstring).

    Args:
        store: The store.
        slot: The message slot (a manager's :attr:`~context_journal.manager.ContextManager.slot`).
        message_ids: The messages to erase (visible or already removed, on any branch); duplicates once.
        reason: Why; kept in each redaction record (non-empty, at most 2,000 characters).
        by: Who asked; kept in each redaction record.
        index_thinking: Whether the slot's full-text index includes thinking text (the manager's setting).

    Returns:
        One redaction per message, in the order given. A message whose versions are all erased already
        gets nothing new written: its earlier redaction is returned (``sequence`` of its record).

    Raises:
        RedactionError: the reason is empty or too long, or the backend cannot redact; nothing is erased.
        MessageNotFoundError: the slot never held one of the messages; nothing is erased.
    """
    check_reason(reason, by)
    if not store.can_redact:
        raise RedactionError(f"the {store.backend} backend cannot redact")
    ids = list(dict.fromkeys(message_ids))
    results: dict[str, Redaction] = {}
    with store.transaction() as tx:
        if len(ids) > 4:  # one scan of the slot instead of one per message
            wanted = set(ids)
            found: dict[str, list[Record]] = {}
            for rec in store.records_of(slot):
                if rec.item in wanted and rec.op in (Op.APPEND, Op.EDIT):
                    found.setdefault(rec.item, []).append(rec)
        else:
            found = {m: [r for r in store.records_of(slot, m) if r.op in (Op.APPEND, Op.EDIT)] for m in ids}
        for mid in ids:
            if not found.get(mid):
                raise MessageNotFoundError(mid, f"slot {slot!r} never held it")
        todo: list[str] = []
        for mid in ids:
            if all(_erased(r) for r in found[mid]):
                done = [r for r in store.records_of(REDACTION_SLOT, mid) if r.body is not None]
                if done:
                    results[mid] = Redaction.from_record(done[-1])
                    continue
            todo.append(mid)
        created = {mid: found[mid][0].seq for mid in todo}
        derived = _derived_records(store, slot, sorted(created.values()), created)
        digests = redact_records(
            tx, [r for mid in todo for r in found[mid]] + [rec for rec, _ in derived], index_thinking=index_thinking
        )
        covering: dict[int, list[int]] = {}
        for rec, seqs in derived:
            for seq in seqs:
                covering.setdefault(seq, []).append(rec.seq)
        root = store.get_branch(ROOT_BRANCH).id
        at = time.time()
        pending: list[Redaction] = []
        for mid in todo:
            versions = found[mid]
            stub = _stub_of(versions)
            written: list[str] = []
            placeholders: list[int] = []
            for branch in _branches_seeing(store, versions[0].branch_id, created[mid]):
                seen = store.read_slot(slot, branch.id, item=mid)
                if seen and seen[-1].op != Op.REMOVE:
                    # A new version on each branch that shows it: every open handle moves to the stub at its
                    # next refresh (the erased versions' text may sit in its cache).
                    placeholders.append(tx.append_text(branch.id, slot, mid, stub, Op.EDIT))
                    written.append(branch.name)
            erased = tuple(r.seq for r in versions if r.seq in digests)
            also = tuple(q for q in covering.get(created[mid], ()) if q in digests)
            redaction = Redaction(
                message_id=mid,
                slot=slot,
                sequence=0,
                created_sequence=created[mid],
                participant=_participant(versions[0]),
                versions=erased,
                derived=also,
                payload_sha256={q: digests[q] for q in (*erased, *also)},
                reason=reason,
                by=by,
                at=at,
                branches=tuple(written),
                placeholders=tuple(placeholders),
            )
            sequence = tx.append(root, REDACTION_SLOT, mid, redaction.to_body(), Op.STATE)
            # A stale mark on each branch that sees an erased summary: a handle that folded it before (another
            # process, a manager on a fork) retires it at its next refresh instead of compiling its text.
            targets = {
                (rec.slot, branch.id)
                for rec, seqs in derived
                if rec.slot.startswith(SUMMARY_SLOT_PREFIX) and created[mid] in seqs
                for branch in _branches_seeing(store, rec.branch_id, rec.seq)
            }
            for name, branch_id in sorted(targets):
                # Changed as of the message's newest record on that branch (the stub just written, or its
                # tombstone): the sequence a view of the branch reaches, so what is summarised again is kept.
                seen = store.read_slot(slot, branch_id, item=mid)
                if seen:
                    mark = StaleMark(mid, created[mid], seen[-1].seq, "redact")
                    tx.append(branch_id, name, f"{mark.item}/{mid}", mark.to_body())
            pending.append(replace(redaction, sequence=sequence))
    notes = tuple(store.scrub()) if pending else ()
    for redaction in pending:
        results[redaction.message_id] = replace(redaction, notes=notes)
    return [results[mid] for mid in ids]


def redact_message(
    store: Store, slot: str, message_id: str, *, reason: str, by: str | None = None, index_thinking: bool = False
) -> Redaction:
    """Erase one message (:func:`redact_messages` of one id)."""
    return redact_messages(store, slot, [message_id], reason=reason, by=by, index_thinking=index_thinking)[0]


def _erased(rec: Record) -> bool:
    """True for a message version whose body a redaction removed (NULL, or a stub)."""
    if rec.body is None:
        return True
    try:
        return is_redacted(rec.value())
    except ValueError:
        return False


def _stub_of(versions: Sequence[Record]) -> str:
    """The stub body of a message's new redacted version: participant, time and readers of its newest
    version (read before the erasure)."""
    for rec in reversed(versions):
        try:
            value = rec.value()
        except ValueError:
            continue
        if isinstance(value, dict) and not is_redacted(value):
            return stub_for(value)
    return redacted_body("", None)


def _participant(rec: Record) -> str | None:
    try:
        body = rec.value()
    except ValueError:
        return None
    return str(body.get("participant")) if isinstance(body, dict) and body.get("participant") is not None else None


def list_redactions(store: Store) -> list[Redaction]:
    """Every redaction record of the store, oldest first (unreadable records are skipped).

    Raises:
        StoreError: the backend cannot redact (it keeps no redaction records).
    """
    out: list[Redaction] = []
    for rec in store.records_of(REDACTION_SLOT):
        if rec.body is None:
            continue
        try:
            if rec.value().get("type") != "redaction":
                continue  # an execution-journal entry's redaction (context_journal.journal.redaction)
            out.append(Redaction.from_record(rec))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
    return out


@dataclass(frozen=True)
class Purge:
    """What :func:`purge_branch` or :func:`purge_namespace` erased.

    Attributes:
        kind: ``"branch"`` or ``"namespace"``.
        target: The branch's or namespace's name.
        sequence: Store sequence of the purge record (in :data:`REDACTION_SLOT`).
        erased: Sequences of the records whose bodies were erased.
        payload_sha256: ``{sequence: hex sha256}`` of each removed body.
        reason: Why (as given).
        by: Who asked (as given), or None.
        at: Wall-clock time, seconds since the epoch.
        notes: What the scrub after the commit could not do, and what was left on purpose.
    """

    kind: str
    target: str
    sequence: int
    erased: tuple[int, ...]
    payload_sha256: dict[int, str]
    reason: str
    by: str | None
    at: float
    notes: tuple[str, ...] = ()

    def to_body(self) -> dict[str, Any]:
        """The purge record's JSON body."""
        return {
            "type": "purge",
            "kind": self.kind,
            "target": self.target,
            "erased": list(self.erased),
            "derived": list(self.erased),  # what verify reads as erased bodies
            "payload_sha256": {str(k): v for k, v in sorted(self.payload_sha256.items())},
            "reason": self.reason,
            "by": self.by,
            "at": self.at,
        }


def _purge(
    store: Store,
    kind: str,
    target: str,
    pick: Any,
    reason: str,
    by: str | None,
    prepare: Any = None,
    left: tuple[str, ...] = (),
) -> Purge:
    """Erase, in one transaction, every record ``pick(record)`` selects (after ``prepare(tx)``), and write
    the purge record."""
    check_reason(reason, by)
    if not store.can_redact:
        raise RedactionError(f"the {store.backend} backend cannot redact")
    with store.transaction() as tx:
        if prepare is not None:
            prepare(tx)
        chosen = [r for slot in store.list_slots() for r in store.records_of(slot) if r.body is not None and pick(r)]
        chosen = [r for r in chosen if r.slot != REDACTION_SLOT]
        digests = redact_records(tx, chosen, stub=False)
        purge = Purge(kind, target, 0, tuple(sorted(digests)), digests, reason, by, time.time())
        root = store.get_branch(ROOT_BRANCH).id
        sequence = tx.append(root, REDACTION_SLOT, f"{kind}:{target}", purge.to_body(), Op.STATE)
    return replace(purge, sequence=sequence, notes=(*left, *store.scrub()))


def purge_branch(store: Store, name: str, *, reason: str, by: str | None = None) -> Purge:
    """Delete branch ``name`` and erase every record written on it (messages appended or edited there,
    their summaries, checkpoints and states), and on the deleted branches forked from it. What the branch
    inherited from its ancestors is theirs and stays.

    Raises:
        BranchNotFoundError: no live branch has that name.
        BranchInUseError: the root branch, or a branch with live children (purge those first).
        RedactionError: the reason is empty or the backend cannot redact.
    """
    info = store.get_branch(name)
    table = {b.id: b for b in store.list_branches(include_deleted=True)}

    def under(branch_id: int) -> bool:
        node = table.get(branch_id)
        while node is not None:
            if node.id == info.id:
                return True
            node = table.get(node.parent_id) if node.parent_id is not None else None
        return False

    return _purge(
        store,
        "branch",
        name,
        lambda r: under(r.branch_id),
        reason,
        by,
        prepare=lambda tx: store.delete_branch(name),
    )


def purge_namespace(store: Store, namespace: str, *, reason: str, by: str | None = None) -> Purge:
    """Erase a namespace on every branch: its own message slot (a namespace that was imported or
    isolated), its compression records, its working-state checkpoints and its state (pins, roles,
    settings). A namespace that shares the store's common ``messages`` slot keeps those messages (they
    are every sharing namespace's; redact them one by one): the purge says so in its ``notes``.

    Raises:
        RedactionError: the reason is empty, the namespace does not exist or is ``default`` (the common
            one: its messages are erased with redact or retention), or the backend cannot redact.
    """
    if namespace == "default":
        raise RedactionError(
            "namespace 'default' is the store's common one (its messages are the common message slot's, its "
            "state the host's): erase its messages with redact, redact_range or a retention policy"
        )
    own = f"messages/{namespace}"
    slots = set(store.list_slots())
    isolated = namespace_is_isolated(store, namespace) and own in slots
    compression = SUMMARY_SLOT_PREFIX + namespace
    prefix = f"{namespace}/"
    if (
        not isolated
        and compression not in slots
        and not any(r.item.startswith(prefix) for r in store.records_of("state"))
    ):
        raise RedactionError(f"no namespace {namespace!r} in this store")

    def pick(rec: Record) -> bool:
        if rec.slot == own and isolated:
            return True
        if rec.slot == compression:
            return True
        if rec.slot == "state" and rec.item.startswith(prefix):
            return True
        if rec.slot == LEDGER_SLOT and isolated:
            try:
                key = json.loads(rec.item)
            except ValueError:
                return False
            return isinstance(key, list) and bool(key) and key[0] == own
        return False

    def prepare(tx: Any) -> None:
        if not isolated:
            return
        for branch in store.list_branches():  # every handle drops the messages at its next refresh
            live: dict[str, bool] = {}
            for rec in store.read_slot(own, branch.id):
                live[rec.item] = rec.op != Op.REMOVE
            for item, visible in live.items():
                if visible:
                    tx.append_text(branch.id, own, item, None, Op.REMOVE)

    left = () if isolated else (f"namespace {namespace!r} shares the common messages slot: its messages were kept",)
    return _purge(store, "namespace", namespace, pick, reason, by, prepare=prepare, left=left)
