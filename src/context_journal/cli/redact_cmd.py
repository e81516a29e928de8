"""``redact``, ``redactions`` and ``retention set|show|apply``: erasure from the command line.

``redact`` erases a message (or, with ``--to``, a range) everywhere the store holds it and keeps a
redaction record (:meth:`ContextManager.redact`); ``retention`` sets a namespace's policy and applies every
policy of the store (:mod:`context_journal.retention`). There is no reader option: erasure belongs to the
host.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer
from rich.table import Table
from rich.text import Text

from ..manager import ContextManager
from ..redaction import Purge, Redaction, list_redactions, purge_branch, purge_namespace
from ..retention import apply_retention, retention_policies
from ..stores.base import Store
from ._app import app, console, err_console, existing_store, fail_on_library_errors, print_json, with_manager
from .store_cmds import BranchOpt, JsonOpt, NamespaceOpt, StoreOpt

T = TypeVar("T")

ReasonOpt = Annotated[str, typer.Option("--reason", help="Why (kept in the redaction record; required).")]
ByOpt = Annotated[str | None, typer.Option("--by", help="Who asked (kept in the redaction record).")]

retention_app = typer.Typer(help="Set, show and apply retention policies (erase what is older).", no_args_is_help=True)
app.add_typer(retention_app, name="retention")
purge_app = typer.Typer(
    help="Erase a whole branch or namespace (a purge record keeps the proof).", no_args_is_help=True
)
app.add_typer(purge_app, name="purge")


def _on_store(location: str, act: Callable[[Store], T]) -> T:
    """``act(store)`` on an existing store, closed after; library errors become messages."""
    with fail_on_library_errors():
        st = existing_store(location)
        try:
            return act(st)
        finally:
            st.close()


def _row(r: Redaction) -> dict[str, Any]:
    return {
        "message_id": r.message_id,
        "slot": r.slot,
        "sequence": r.sequence,
        "created_sequence": r.created_sequence,
        "participant": r.participant,
        "versions": list(r.versions),
        "derived": list(r.derived),
        "payload_sha256": {str(k): v for k, v in r.payload_sha256.items()},
        "reason": r.reason,
        "by": r.by,
        "at": r.at,
        "branches": list(r.branches),
        "placeholders": list(r.placeholders),
        "notes": list(r.notes),
    }


def _print(done: list[Redaction], as_json: bool) -> None:
    if as_json:
        print_json([_row(r) for r in done])
        return
    for r in done:
        console.print(
            Text(
                f"{r.message_id}: erased {len(r.versions)} version(s) and {len(r.derived)} derived record(s); "
                f"redaction record {r.sequence}"
            )
        )
    for note in dict.fromkeys(n for r in done for n in r.notes):
        console.print(Text(f"note: {note}"), style="yellow")


@app.command("redact")
def redact_cmd(
    message_id: Annotated[str, typer.Argument(help="The message to erase (see `context-journal show`).")],
    store: StoreOpt,
    reason: ReasonOpt,
    by: ByOpt = None,
    to: Annotated[
        str | None, typer.Option("--to", help="Erase every visible message from MESSAGE_ID to this one.")
    ] = None,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Erase a message everywhere the store holds it: every version on every branch, its full-text
    entries, blobs only it used, and the summaries and working-state checkpoints that cover it. A
    redaction record keeps its id, participant, place, the sha256 of what was removed, --reason and --by.
    --json prints [{"message_id", "sequence", "versions", "derived", "payload_sha256", "notes", ...}].
    """

    def act(cm: ContextManager) -> list[Redaction]:
        if to is None:
            return [cm.redact(message_id, reason=reason, by=by)]
        return cm.redact_range(message_id, to, reason=reason, by=by)

    _print(with_manager(store, namespace, branch, act), as_json)


@app.command("redactions")
def redactions_cmd(
    store: StoreOpt,
    scrub: Annotated[
        bool,
        typer.Option(
            "--scrub",
            help="First make erased bytes leave the files again (fold the write-ahead log a reader held open).",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Every redaction of the store, oldest first (what was erased, when, by whom, why)."""

    def act(st: Store) -> list[Redaction]:
        if scrub:
            for note in st.scrub():
                err_console.print(Text(f"note: {note}"), style="yellow")
        return list_redactions(st)

    done = _on_store(store, act)
    if as_json:
        print_json([_row(r) for r in done])
        return
    if not done:
        console.print("no redactions")
        return
    table = Table()
    for col in ("record", "message", "slot", "participant", "erased", "when", "by", "reason"):
        table.add_column(col)
    for r in done:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(r.at))
        table.add_row(
            str(r.sequence),
            Text(r.message_id),
            Text(r.slot),
            Text(r.participant or ""),
            f"{len(r.versions)}+{len(r.derived)}",
            when,
            Text(r.by or ""),
            Text(r.reason),
        )
    console.print(table)


@retention_app.command("set")
def retention_set_cmd(
    store: StoreOpt,
    days: Annotated[float | None, typer.Option("--days", help="Keep messages this many days.")] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Remove the namespace's policy.")] = False,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Set (--days N) or clear (--clear) a namespace's retention policy. Nothing is erased until
    ``retention apply`` runs (or a worker applies it)."""
    if (days is None) == (not clear):
        with fail_on_library_errors():
            raise ValueError("give exactly one of --days N and --clear")

    def act(cm: ContextManager) -> int:
        return cm.set_retention(None if clear else days)

    sequence = with_manager(store, namespace, None, act)
    if as_json:
        print_json({"namespace": namespace or "default", "retain_days": None if clear else days, "sequence": sequence})
    else:
        what = "cleared" if clear else f"{days:g} days"
        console.print(Text(f"retention of namespace {namespace or 'default'}: {what} (record {sequence})"))


@retention_app.command("show")
def retention_show_cmd(store: StoreOpt, as_json: JsonOpt = False) -> None:
    """The retention policies in force."""
    policies = _on_store(store, retention_policies)
    if as_json:
        print_json([{"namespace": p.namespace, "retain_days": p.retain_days, "slot": p.slot} for p in policies])
        return
    if not policies:
        console.print("no retention policies")
    for p in policies:
        console.print(Text(f"{p.namespace}: {p.retain_days:g} days (slot {p.slot})"))


@retention_app.command("apply")
def retention_apply_cmd(
    store: StoreOpt,
    by: Annotated[str, typer.Option("--by", help="Who applies it (kept in each redaction record).")] = "retention",
    as_json: JsonOpt = False,
) -> None:
    """Erase, in every namespace with a policy, every message older than the policy keeps (as ``redact``
    erases one). --json prints the redactions made."""
    done = _on_store(store, lambda st: apply_retention(st, by=by))
    if not as_json and not done:
        console.print("nothing to erase")
        return
    _print(done, as_json)


def _purged(done: Purge, as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "kind": done.kind,
                "target": done.target,
                "sequence": done.sequence,
                "erased": list(done.erased),
                "reason": done.reason,
                "by": done.by,
                "notes": list(done.notes),
            }
        )
        return
    console.print(Text(f"{done.kind} {done.target}: erased {len(done.erased)} record(s); purge record {done.sequence}"))
    for note in done.notes:
        console.print(Text(f"note: {note}"), style="yellow")


def _purge(purge: Any, name: str, store: str, reason: str, by: str | None, as_json: bool) -> None:
    _purged(_on_store(store, lambda st: purge(st, name, reason=reason, by=by)), as_json)


@purge_app.command("branch")
def purge_branch_cmd(
    name: Annotated[str, typer.Argument(help="The branch to delete and erase.")],
    store: StoreOpt,
    reason: ReasonOpt,
    by: ByOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Delete a branch and erase every record written on it (what it inherited stays with its ancestors).
    Refused for the root branch and a branch with live children."""
    _purge(purge_branch, name, store, reason, by, as_json)


@purge_app.command("namespace")
def purge_namespace_cmd(
    name: Annotated[str, typer.Argument(help="The namespace to erase.")],
    store: StoreOpt,
    reason: ReasonOpt,
    by: ByOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Erase a namespace on every branch: its own messages, summaries, checkpoints and state. A namespace
    that shares the common message slot keeps those messages (the notes say so)."""
    _purge(purge_namespace, name, store, reason, by, as_json)
