"""Persisted ledger checkpoints: open and fork start from one instead of refolding the branch.

A **checkpoint** is the ledger of one message slot, branch lineage and *reader group*, as it stood at
store sequence ``seq``: the fold of every message appended at or before ``seq``, in its version as of
``seq``. It is a state record (``Op.STATE``) in the slot :data:`LEDGER_SLOT` on the branch that wrote
it, keyed by ``[message slot, config fingerprint, group]``, so it follows branch lineage like any state:
a fork sees its parent's checkpoints up to the fork point and none written on the parent afterwards.

Crash safety: a checkpoint is one record written in its own transaction, carrying the sequence it
covers and the number of index positions (appends) at or before it. A reader of the checkpoint
(:func:`load_checkpoint`) accepts it only when the journal agrees: the message index holds exactly that
many appends at or before ``seq`` and none of them was edited or removed after ``seq``. Otherwise it
looks for an older checkpoint (as of just before the earliest such message) and, failing that, the
caller refolds from the start. A checkpoint can be missing or old, never wrong: the keeper folds the
messages after it.

Reader groups (reader isolation): the fold of reader ``R`` differs from the reader-less fold only
through blocks whose ``audience`` names ``R``. The reader-less fold (group ``""``) holds no audience
block at all and is shared by every reader whose covered messages hold no block naming them; a
reader whose messages do is persisted under its own group (its name) and only a handle opened as that
reader (``_view_reader``, the manager's authority) loads it.

Checkpoints are not pruned. The journal is append-only and its record store contract has no way to
remove a record (only a branch can be deleted), and older checkpoints are still read: a fork made at
an earlier sequence starts from the newest checkpoint at or before its fork point, and after an edit
or removal :func:`load_checkpoint` steps back to the checkpoint before the changed message. What they
cost is bounded by the fold's bounds: one record of at most a few tens of kilobytes (about 33 kB on
the real sessions, ``benchmarks/bench_ledger.py``) per ``checkpoint_every`` appends, well under the
appended messages' own size. Removing superseded ones (keeping, per branch, reader group and
configuration, the newest and those at fork points) needs a record-removal operation in the stores.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..stores.base import Op
from .ledger import Ledger, LedgerConfig, plan_from_row, plan_row

if TYPE_CHECKING:
    from ..messages import MessageStore, _Entry

__all__ = [
    "FORMAT",
    "LEDGER_SLOT",
    "Checkpoint",
    "checkpoint_key",
    "load_checkpoint",
    "names_reader",
    "save_checkpoint",
]

LEDGER_SLOT = "ledger"
"""Slot of the ledger's checkpoint records (state records; not a message slot)."""

FORMAT = 4
"""Version of the checkpoint body and of the fold that wrote it; a body of another version is ignored
(refolded). 2: commands' file arguments, ``WebFetch`` URLs, names from tool results weighted half.
3: no name right after a backslash (``\nFix``), the tool protocol's words are not names. 4: provider-side
tool blocks (web searches, ``web_fetch``, code execution, ``mcp_*``) are read."""


@dataclass
class Checkpoint:
    """A ledger and what it covers.

    Attributes:
        ledger: The fold.
        seq: Store sequence covered (every append at or before it, as of it).
        done: Index positions covered (appends at or before ``seq``, removed ones included).
        private: True when a covered message holds a block naming the ledger's reader (then it is not
            the reader-less fold and is persisted under the reader's own group).
    """

    ledger: Ledger
    seq: int
    done: int
    private: bool = False


def checkpoint_key(slot: str, config: LedgerConfig, group: str) -> str:
    """The item key of a checkpoint: message slot, fold configuration and reader group."""
    fp = hashlib.sha256(config.fingerprint().encode()).hexdigest()[:16]
    return json.dumps([slot, fp, group], separators=(",", ":"), ensure_ascii=False)


def names_reader(entry: _Entry, reader: str | None) -> bool:
    """True when a block of the index entry names ``reader`` in its audience."""
    aud = entry.audience
    return reader is not None and aud is not None and any(a is not None and reader in a for a in aud)


# ---- the ledger as JSON ----------------------------------------------------------------------------


def dump_ledger(ledger: Ledger) -> dict[str, Any]:
    """The ledger's tables as JSON-ready data (exact: floats round-trip through JSON). Identifiers are
    listed by name (their table's order follows set iteration, which string hashing varies from process
    to process), so the same journal gives the same checkpoint bytes in every process."""
    rows = {id(c): k for k, c in enumerate(ledger._commands)}
    rows.update({id(c): k for k, c in enumerate(ledger._searches)})
    calls: list[list[Any]] = []
    for call_id, (kind, data) in ledger._calls.items():
        if kind in ("command", "search"):
            k = rows.get(id(data))
            own = [data[0], [list(h) for h in data[1]], *data[2:]] if kind == "search" else list(data)
            calls.append([call_id, kind, ["row", k] if k is not None else ["own", own]])
        else:
            calls.append([call_id, kind, data])
    return {
        "messages": ledger.messages,
        "last": ledger.last_message_id,
        "idents": [[k, *v] for k, v in sorted(ledger._idents.items())],
        "files": [[k, *v] for k, v in ledger._files.items()],
        "commands": [list(c) for c in ledger._commands],
        "errors": list(ledger._errors),
        "plans": [[k, *plan_row(p)] for k, p in ledger._plans.items()],
        "searches": [[q, [list(h) for h in hits], st, mid] for q, hits, st, mid in ledger._searches],
        "calls": calls,
    }


def load_ledger(data: dict[str, Any], config: LedgerConfig, reader: str | None) -> Ledger:
    """The ledger :func:`dump_ledger` described.

    Raises:
        KeyError, TypeError, ValueError: the data is malformed.
    """
    ledger = Ledger(config, reader)
    ledger.messages = int(data["messages"])
    last = data["last"]
    ledger.last_message_id = last if isinstance(last, str) else None
    ledger._idents = {str(r[0]): [r[1], r[2], r[3]] for r in data["idents"]}
    ledger._files = {str(r[0]): [r[1], r[2], r[3], r[4]] for r in data["files"]}
    ledger._commands = [list(c) for c in data["commands"]]
    ledger._errors = OrderedDict((str(e), str(e)) for e in data["errors"])
    ledger._plans = {str(row[0]): plan_from_row(row[1:]) for row in data["plans"]}
    ledger._searches = [
        [str(q), [[str(t), str(u)] for t, u in hits], str(st), str(mid)] for q, hits, st, mid in data["searches"]
    ]
    calls: OrderedDict[str, tuple[str, Any]] = OrderedDict()
    for call_id, kind, value in data["calls"]:
        if kind in ("command", "search"):
            how, ref = value
            table = ledger._commands if kind == "command" else ledger._searches
            calls[str(call_id)] = (kind, table[int(ref)] if how == "row" else list(ref))
        else:
            calls[str(call_id)] = (str(kind), value)
    ledger._calls = calls
    return ledger


# ---- reading and writing ---------------------------------------------------------------------------


def _covered(entries: Sequence[_Entry], seq: int, done: int) -> int | None:
    """None when the index agrees with a checkpoint covering ``seq`` and ``done`` positions, else the
    lowest created sequence among the covered messages changed since (0: the positions disagree)."""
    if done > len(entries) or (done and entries[done - 1].created_seq > seq):
        return 0
    if done < len(entries) and entries[done].created_seq <= seq:
        return 0
    worst: int | None = None
    for e in entries[:done]:
        if e.seq > seq and (worst is None or e.created_seq < worst):
            worst = e.created_seq
    return worst


def load_checkpoint(
    ms: MessageStore, config: LedgerConfig, reader: str | None, tries: int = 3, upto: int | None = None
) -> Checkpoint | None:
    """The newest checkpoint of the index's slot and branch (lineage) that the journal agrees with, for
    ``reader``: its own group's or the reader-less one (when no covered block names the reader),
    whichever covers more, and covering no more than ``upto`` positions when given (older records are
    tried, ``tries`` in all per group). None when there is none (the caller folds from the start)."""
    groups = [""] if reader is None else [reader, ""]
    best: Checkpoint | None = None
    entries = ms.rows
    for group in groups:
        key = checkpoint_key(ms.slot, config, group)
        as_of: int | None = None
        for _ in range(tries):
            rec = ms.store.get_state_record(ms.branch_id, key, as_of, slot=LEDGER_SLOT)
            if rec is None:
                break
            value = rec.value()
            if not isinstance(value, dict) or value.get("v") != FORMAT:
                break
            seq, done = int(value["seq"]), int(value["done"])
            if upto is not None and done > upto:
                as_of = rec.seq - 1  # covers messages after the point asked for: an older one
                if as_of <= 0:
                    break
                continue
            stale = _covered(entries, seq, done)
            if stale is None:
                if group == "" and reader is not None and any(names_reader(e, reader) for e in entries[:done]):
                    break  # the reader sees blocks this fold left out
                if best is None or seq > best.seq:
                    try:
                        ledger = load_ledger(value["ledger"], config, reader)
                    except (KeyError, TypeError, ValueError, IndexError):
                        break
                    best = Checkpoint(ledger, seq, done, private=group != "")
                break
            as_of = min(rec.seq, stale) - 1 if stale else rec.seq - 1
            if as_of <= 0:
                break
    return best


def save_checkpoint(ms: MessageStore, config: LedgerConfig, reader: str | None, point: Checkpoint) -> int:
    """Write ``point`` as a checkpoint record on the index's branch (one transaction); returns its sequence."""
    group = reader if point.private and reader is not None else ""
    body = {"v": FORMAT, "seq": point.seq, "done": point.done, "ledger": dump_ledger(point.ledger)}
    with ms.store.transaction() as tx:
        seq: int = tx.append(ms.branch_id, LEDGER_SLOT, checkpoint_key(ms.slot, config, group), body, Op.STATE)
        return seq
