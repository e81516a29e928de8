"""``journal append|summaries|brief|check|show|render|redact``: the execution journal from the command line.

Exit codes: 0 on success; 1 for a library error (a refused entry, an unknown seq...), for ``check`` when it
finds an error-level drift and for ``show --verify`` when the hash chain is broken; 3 when ``append`` answers
``conflict`` (a stale ``--expected-seq``: nothing was written).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from .._graphemes import clip_end
from ..errors import ContextJournalError
from ..journal import Brief, ExecutionJournal, SynthesisConfig
from ..journal.integrity import HEAD_KEY_ENV
from ..stores import Store
from ._app import CommandError, app, console, existing_store, fail_on_library_errors, new_store, print_json

journal_app = typer.Typer(
    name="journal",
    help="The execution journal of an orchestration harness: append entries, read summaries, briefs, drift.",
    no_args_is_help=True,
)
app.add_typer(journal_app, name="journal")

StoreOpt = Annotated[str, typer.Option("--store", "-s", help="Store location: a SQLite file path or a URL.")]
ProjectOpt = Annotated[str, typer.Option("--project", "-p", help="The project's slug.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]

EXIT_CONFLICT = 3


def _journal(store: Store) -> ExecutionJournal:
    """The journal over ``store``, signing and checking heads with the key in ``CONTEXT_JOURNAL_HEAD_KEY``
    when it is set (see ``context-journal verify``)."""
    return ExecutionJournal(store, head_key=os.environ.get(HEAD_KEY_ENV) or None)


def _existing(journal: ExecutionJournal, project: str) -> ExecutionJournal:
    """``journal``, once ``project`` is known to have an entry (as the MCP project tools check): a mistyped
    slug must not read as an empty, healthy project.

    Raises:
        CommandError: the project has no entry (it names the projects the store holds).
    """
    if journal.head_seq(project) > 0:
        return journal
    known = journal.projects()
    listed = ", ".join(known[:20]) + (f" (+{len(known) - 20} more)" if len(known) > 20 else "")
    raise CommandError(
        f"no project {project!r} in this store; " + (f"the projects are: {listed}" if known else "it holds none yet"),
        kind="ProjectNotFoundError",
        details={"project": project, "projects": known},
    )


def _bad_parameter(exc: ValueError) -> typer.BadParameter:
    """A plain ValueError (a bad slug, key, limit) is a usage error; a library error stays one (exit 1)."""
    if isinstance(exc, ContextJournalError):
        raise exc
    return typer.BadParameter(str(exc))


def _read_body(body: str | None, body_file: str | None) -> Any:
    if (body is None) == (body_file is None):
        raise typer.BadParameter("give exactly one of --body and --body-file", param_hint="--body")
    if body is not None:
        text = body
    elif body_file == "-":
        text = sys.stdin.read()
    else:
        try:
            text = Path(str(body_file)).read_text(encoding="utf-8")
        except OSError as exc:
            raise typer.BadParameter(
                f"cannot read {body_file}: {exc.strerror or exc}", param_hint="--body-file"
            ) from None
        except UnicodeDecodeError:
            raise typer.BadParameter(f"{body_file} is not UTF-8 text", param_hint="--body-file") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise typer.BadParameter(f"the body is not JSON: {exc}", param_hint="--body") from None
    except RecursionError:
        raise typer.BadParameter("the body is nested too deeply to read", param_hint="--body") from None


@journal_app.command("append")
def append_cmd(
    store: StoreOpt,
    project: ProjectOpt,
    kind: Annotated[str, typer.Option("--kind", "-k", help="plan, plan_revision, step, handoff, reverse_ruleout...")],
    author: Annotated[str, typer.Option("--author", "-a", help="Who writes the entry.")],
    key: Annotated[str, typer.Option("--key", help="Idempotency key: retry with the same key.")],
    body: Annotated[str | None, typer.Option("--body", "-b", help="The body as JSON.")] = None,
    body_file: Annotated[
        str | None, typer.Option("--body-file", help="Read the body from a file ('-': stdin).")
    ] = None,
    expected_seq: Annotated[
        int | None,
        typer.Option("--expected-seq", help="The head seq you last saw (0: empty project).", min=0, max=2**62),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Append an entry; prints the outcome (appended, duplicate, or conflict with exit code 3)."""
    data = _read_body(body, body_file)
    with fail_on_library_errors():
        st = new_store(store)
        try:
            outcome = _journal(st).append(project, kind, data, author, key, expected_seq)
        except ValueError as exc:
            raise _bad_parameter(exc) from None
        finally:
            st.close()
    if as_json:
        print_json(outcome.model_dump(mode="json"))
    elif outcome.entry is not None:
        console.print(
            f"{outcome.status} #{outcome.entry.seq} ({outcome.entry.kind}) in {project}; head #{outcome.head_seq}"
        )
    else:
        console.print(
            f"conflict: expected #{expected_seq} but the head of {project} is #{outcome.head_seq}; nothing written"
        )
    if outcome.status == "conflict":
        raise typer.Exit(EXIT_CONFLICT)


@journal_app.command("summaries")
def summaries_cmd(
    store: StoreOpt,
    project: ProjectOpt,
    limit: Annotated[int, typer.Option("--limit", "-n", help="Handoffs per page.", min=1, max=50)] = 10,
    order: Annotated[str, typer.Option("--order", help="desc (newest first) or asc: sorts the window.")] = "desc",
    before: Annotated[
        int | None, typer.Option("--before", help="Only handoffs before this seq.", min=1, max=2**62)
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The bounded per-step summaries with the active rule-outs and a cursor (--before)."""
    if order not in ("desc", "asc"):
        raise typer.BadParameter("choose desc or asc", param_hint="--order")
    with fail_on_library_errors():
        st = existing_store(store)
        try:
            page = _existing(_journal(st), project).get_project_summaries(project, limit, order, before)  # type: ignore[arg-type]
        finally:
            st.close()
    if as_json:
        print_json(page.model_dump(mode="json"))
        return
    console.print(f"[bold]{escape(project)}[/] at #{page.head_seq}: goal {escape(page.goal or '-')}", highlight=False)
    console.print(f"next step: {escape(page.next_step or '-')}", highlight=False)
    table = Table(show_lines=False)
    for col in ("seq", "author", "state", "next step", "ruled out"):
        table.add_column(col)
    for s in page.summaries:
        table.add_row(
            str(s.seq), escape(s.author), escape(s.state), escape(s.next_step), ", ".join(r.id for r in s.ruled_out)
        )
    console.print(table)
    console.print(
        f"{page.active_rule_outs_total} active rule-outs: {', '.join(r.id for r in page.active_rule_outs)}",
        highlight=False,
    )
    if page.next_before_seq is not None:
        console.print(f"[dim]older: --before {page.next_before_seq}[/]")


@journal_app.command("brief")
def brief_cmd(
    store: StoreOpt,
    project: ProjectOpt,
    build: Annotated[bool, typer.Option("--build", help="Write a new brief first (offline synthesizer).")] = False,
    mode: Annotated[str, typer.Option("--mode", help="windowed or cumulative (with --build).")] = "windowed",
    window: Annotated[int, typer.Option("--window", help="Entries the synthesizer reads.", min=1)] = 40,
    version: Annotated[int | None, typer.Option("--version", help="Show this stored version.", min=1)] = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the current brief (or --version), or --build a new one and show it with its findings."""
    if mode not in ("windowed", "cumulative"):
        raise typer.BadParameter("choose windowed or cumulative", param_hint="--mode")
    with fail_on_library_errors():
        st = new_store(store) if build else existing_store(store)
        try:
            journal = _existing(_journal(st), project)
            brief: Brief | None
            if build:
                brief = journal.build_brief(project, config=SynthesisConfig(mode=mode, window=window))  # type: ignore[arg-type]
            else:
                brief = journal.get_brief(project, version)
        except ValueError as exc:
            raise _bad_parameter(exc) from None
        finally:
            st.close()
    if as_json:
        print_json(None if brief is None else brief.model_dump(mode="json"))
        return
    if brief is None:
        console.print(f"no brief for {escape(project)} yet; write one with --build", highlight=False)
        return
    console.print(f"[bold]brief v{brief.version}[/] of {escape(project)} ({brief.status}, as of #{brief.as_of_seq})")
    console.print(f"goal: {escape(brief.goal or '-')}\nnext step: {escape(brief.next_step or '-')}", highlight=False)
    for r in brief.rule_outs:
        console.print(f"  ruled out {escape(r.id)}: {escape(r.item)} — {escape(r.reason)} [#{r.seq}]", highlight=False)
    for t in brief.tasks:
        console.print(f"  task {escape(t.id)}: {t.status}", highlight=False)
    console.print(escape(brief.narrative_text()), highlight=False)
    for f in brief.findings:
        console.print(
            f"  [{'red' if f.level == 'error' else 'yellow'}]{f.code}[/] {escape(f.message)}", highlight=False
        )


@journal_app.command("check")
def check_cmd(
    store: StoreOpt,
    project: ProjectOpt,
    brief_version: Annotated[int | None, typer.Option("--brief-version", help="Check this brief.", min=1)] = None,
    stale_after: Annotated[int | None, typer.Option("--stale-after", help="Entries a brief may lag.", min=0)] = None,
    as_json: JsonOpt = False,
) -> None:
    """Run the drift checks; exit code 1 when any finding is an error."""
    with fail_on_library_errors():
        st = existing_store(store)
        try:
            report = _existing(_journal(st), project).check_drift(
                project, brief_version=brief_version, stale_after=stale_after
            )
        except ValueError as exc:
            raise _bad_parameter(exc) from None
        finally:
            st.close()
    if as_json:
        print_json(report.model_dump(mode="json"))
    else:
        for f in report.findings:
            evidence = ", ".join(f"#{s}" for s in f.evidence)
            console.print(f"{f.level} {f.code}: {escape(f.message)} [{evidence}]", highlight=False)
        console.print(f"{'ok' if report.ok else 'drift found'}: {len(report.findings)} findings at #{report.head_seq}")
    if not report.ok:
        raise typer.Exit(1)


@journal_app.command("show")
def show_cmd(
    store: StoreOpt,
    project: ProjectOpt,
    seq: Annotated[int | None, typer.Option("--seq", help="Show this one entry in full.", min=1, max=2**62)] = None,
    last: Annotated[int | None, typer.Option("--last", help="Only the newest N entries.", min=1, max=2**62)] = None,
    verify: Annotated[
        bool, typer.Option("--verify", help="Verify the hash chain and its marker records (exit 1 if broken).")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """List a project's entries (or one with --seq); --verify checks the hash chain."""
    with fail_on_library_errors():
        st = existing_store(store)
        try:
            journal = _existing(_journal(st), project)
            report = journal.verify_chain(project) if verify else None
            if seq is not None:
                entries = [journal.get_entry(project, seq)]
            elif last is not None:
                entries = journal.entries(project, limit=last, descending=True)[::-1]
            else:
                entries = journal.entries(project)
        finally:
            st.close()
    if as_json:
        payload: dict[str, Any] = {"project": project, "entries": [e.model_dump(mode="json") for e in entries]}
        if report is not None:
            payload["chain"] = {
                "ok": report.ok,
                "checked": report.checked,
                "first_bad_seq": report.first_bad_seq,
                "redacted": list(report.redacted),
            }
        print_json(payload)
    elif seq is not None:
        console.print_json(entries[0].model_dump_json())
    else:
        table = Table()
        for col in ("seq", "kind", "author", "key", "body"):
            table.add_column(col)
        for e in entries:
            preview = json.dumps(e.body, ensure_ascii=False)
            table.add_row(
                str(e.seq), e.kind, escape(e.author), escape(e.idempotency_key), escape(clip_end(preview, 100))
            )
        console.print(table)
    if report is not None:
        if not as_json:
            verdict = "chain ok" if report.ok else f"chain broken at #{report.first_bad_seq}: {report.reason}"
            console.print(f"{verdict} ({report.checked} entries verified)")
        if not report.ok:
            raise typer.Exit(1)


@journal_app.command("redact")
def redact_cmd(
    store: StoreOpt,
    project: ProjectOpt,
    seq: Annotated[int, typer.Option("--seq", help="The entry whose body is erased.", min=1, max=2**62)],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept in the redaction record).")],
    by: Annotated[str | None, typer.Option("--by", help="Who asked (kept in the redaction record).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Erase an entry's body; its place and hash stay in the chain, with a record of who, when and why."""
    with fail_on_library_errors():
        st = existing_store(store)
        try:
            red = _existing(_journal(st), project).redact_entry(project, seq, reason=reason, by=by)
        except ValueError as exc:
            raise _bad_parameter(exc) from None
        finally:
            st.close()
    if as_json:
        print_json({**red.to_body(), "sequence": red.sequence, "notes": list(red.notes)})
        return
    erased = f"; briefs erased with it: {', '.join(f'v{v}' for v in red.briefs)}" if red.briefs else ""
    console.print(
        f"redacted #{red.seq} ({red.kind}) of {escape(project)}: body sha256 {red.body_sha256}{erased}",
        highlight=False,
    )
    for note in red.notes:
        console.print(f"[yellow]note[/]: {escape(note)}", highlight=False)


@journal_app.command("render")
def render_cmd(
    store: StoreOpt,
    project: ProjectOpt,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Bound of the view, in tokens.", min=300)] = 2000,
    as_json: JsonOpt = False,
) -> None:
    """The bounded harness view (what render_for_harness injects into a compile)."""
    with fail_on_library_errors():
        st = existing_store(store)
        try:
            view = _existing(_journal(st), project).render_for_harness(project, max_tokens)
        finally:
            st.close()
    if as_json:
        print_json(view.model_dump(mode="json"))
        return
    console.print(escape(view.text()), highlight=False)
    console.print(f"[dim]{view.tokens} of {view.max_tokens} tokens[/]")
