"""``verify``: check a store's tamper evidence — its guards, every record and blob, every journal.

One line per problem (``scope #at: reason``), then a summary line; exit code 1 when anything is wrong. The
checks are :func:`~context_journal.stores.integrity.check_store` (append-only triggers, the record sequence
without holes, each record and blob readable and matching its digest) and
:meth:`~context_journal.journal.ExecutionJournal.verify_chain` of each project (hash chain, marker records,
no entry deleted from the end, and the signed head when a key is given). Redacted journal entries (their
bodies erased, their hashes kept) are checked by their links, markers and redaction records, and listed:
per project in ``--json`` (``projects.<p>.redacted``: their seqs, present when there are any;
``journal_redacted``: how many in all), and on the summary line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from ..journal import ExecutionJournal
from ..journal.integrity import HEAD_KEY_ENV
from ..stores.integrity import IntegrityProblem, check_store
from ._app import app, console, existing_store, fail_on_library_errors, print_json

StoreOpt = Annotated[str, typer.Option("--store", "-s", help="Store location: a SQLite file path or a URL.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def _read_key(key_file: str | None) -> bytes | None:
    if key_file is not None:
        try:
            key = Path(key_file).read_bytes().strip()
        except OSError as exc:
            reason = exc.strerror or exc
            raise typer.BadParameter(f"cannot read {key_file}: {reason}", param_hint="--key-file") from None
        if not key:
            raise typer.BadParameter(f"{key_file} is empty", param_hint="--key-file")
        return key
    env = os.environ.get(HEAD_KEY_ENV)
    return env.encode("utf-8") if env else None


@app.command("verify")
def verify_cmd(
    store: StoreOpt,
    project: Annotated[
        list[str] | None, typer.Option("--project", "-p", help="Only these journal projects (default: all).")
    ] = None,
    key_file: Annotated[
        str | None,
        typer.Option(
            "--key-file",
            help=f"File holding the journal's head key: heads must then be signed with it (or set {HEAD_KEY_ENV}).",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Verify a store: append-only guards, records, blobs and each journal's chain (exit 1 on any problem)."""
    key = _read_key(key_file)
    with fail_on_library_errors():
        st = existing_store(store)
        try:
            check = check_store(st)
            journal = ExecutionJournal(st, head_key=key)
            reports = journal.verify_projects(project)
            unchecked = {} if key is not None else _signed_heads(st, list(reports))
        finally:
            st.close()
    problems = list(check.problems)
    for name, report in reports.items():
        if not report.ok:
            problems.append(IntegrityProblem(f"journal {name}", report.first_bad_seq, report.reason))
        elif name in unchecked:  # a signed journal verified without its key once said "ok"
            problems.append(
                IntegrityProblem(
                    f"journal {name}",
                    unchecked[name],
                    f"its heads are signed and no head key was given: the signatures were not checked (give "
                    f"--key-file or set {HEAD_KEY_ENV})",
                )
            )
    entries = sum(r.checked for r in reports.values())
    if as_json:
        payload: dict[str, Any] = {
            "ok": not problems,
            "problems": [{"scope": p.scope, "at": p.at, "reason": p.reason} for p in problems],
            "records": check.records,
            "blobs": check.blobs,
            "redacted": check.redacted,
            "projects": {
                name: {"ok": r.ok, "checked": r.checked, **({"redacted": list(r.redacted)} if r.redacted else {})}
                for name, r in reports.items()
            },
            "journal_redacted": sum(len(r.redacted) for r in reports.values()),
            "signed": key is not None,
        }
        print_json(payload)
    else:
        for problem in problems:
            console.print(escape(problem.line()), highlight=False, soft_wrap=True)
        erased = f" ({check.redacted:,} redacted)" if check.redacted else ""
        summary = (
            f"{check.records:,} records{erased}, {check.blobs:,} blobs, {len(reports)} journal projects "
            f"({entries:,} entries{', signed heads' if key is not None else ''})" + _journal_redacted(reports)
        )
        console.print(f"{len(problems)} problems in {summary}" if problems else f"ok: {summary} verified")
    if problems:
        raise typer.Exit(1)


def _journal_redacted(reports: dict[str, Any]) -> str:
    """``, N journal entries redacted (p #2, #5; q #1)`` for the summary line (empty when none were)."""
    found = {name: r.redacted for name, r in reports.items() if r.redacted}
    if not found:
        return ""
    total = sum(len(seqs) for seqs in found.values())
    where = "; ".join(f"{name} " + ", ".join(f"#{s}" for s in seqs) for name, seqs in found.items())
    return f", {total:,} journal {'entry' if total == 1 else 'entries'} redacted ({where})"


def _signed_heads(store: Any, projects: list[str]) -> dict[str, int]:
    """``{project: head seq}`` of the projects whose head carries a signature (one marker read each)."""
    from ..journal.integrity import head_marker

    out: dict[str, int] = {}
    for name in projects:
        head = store.journal_head(name)
        if head is not None and head_marker(store, head).get("mac") is not None:
            out[name] = head.seq
    return out
