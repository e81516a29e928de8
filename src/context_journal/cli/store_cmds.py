"""``import``, ``stats`` and ``show``: put transcripts into a store and look at it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from .._graphemes import clip_end
from ..formats.base import FORMATS as TRANSCRIPT_FORMATS
from ..manager import ContextManager
from ..messages import Message, count_visible
from ..sharding import is_shard_form
from ..stores import ROOT_BRANCH
from ._app import (
    ReaderOpt,
    app,
    cli_branch,
    console,
    existing_store,
    fail_on_library_errors,
    namespace_is_isolated,
    new_store,
    print_json,
    require_folder,
    require_target,
)

StoreOpt = Annotated[str, typer.Option("--store", "-s", help="Store location: a SQLite file path or a URL.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
BranchOpt = Annotated[
    str | None, typer.Option("--branch", "-b", help="Branch to read (default: the one `branch switch` chose).")
]
NamespaceOpt = Annotated[str | None, typer.Option("--namespace", "-n", help="Namespace (default: the shared one).")]

FORMATS = ("auto", *TRANSCRIPT_FORMATS)


@app.command("import")
def import_cmd(
    path: Annotated[Path, typer.Argument(exists=True, help="Transcript file or directory.")],
    store: StoreOpt,
    fmt: Annotated[str, typer.Option("--format", "-f", help=f"One of: {', '.join(FORMATS)}.")] = "auto",
    namespace: NamespaceOpt = None,
    compression: Annotated[
        str | None,
        typer.Option(
            "--compression",
            help="workers: record that the imported namespaces are compressed by `context-journal worker` and queue "
            "their work (namespaces already queued for workers are queued again without it).",
        ),
    ] = None,
    budget: Annotated[
        int, typer.Option("--budget", help="With --compression workers: the compile budget summaries are sized for.")
    ] = 4000,
    shard_tokens: Annotated[
        int,
        typer.Option(
            "--shard-tokens",
            min=0,
            help="Store a message of more estimated tokens than this as shards that compress like messages "
            "(twice the chunk target of the strategy that will compress it); 0: every message as written.",
        ),
    ] = 0,
    as_json: JsonOpt = False,
) -> None:
    """Import a transcript (Claude Code, LoCoMo, tau-bench, IRC, Anthropic, OpenAI Chat Completions or
    Responses JSON) into a store."""
    from ..formats import import_into, read_transcript

    if fmt not in FORMATS:
        raise typer.BadParameter(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}", param_hint="--format")
    if compression not in (None, "inline", "workers"):
        raise typer.BadParameter("choose inline or workers", param_hint="--compression")
    queued: list[str] = []
    with fail_on_library_errors():
        require_folder(store)  # before the file is read: a mistyped --store fails first
        result = read_transcript(path, format=fmt)
        st = new_store(store)
        try:
            if as_json:
                report = import_into(st, result, namespace=namespace, shard_tokens=shard_tokens)
            else:
                with Progress(
                    TextColumn("[bold]importing"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TimeRemainingColumn(),
                    console=console,
                    transient=True,
                ) as progress:
                    task = progress.add_task("import", total=result.message_count)

                    def advance(done: int, total: int) -> None:
                        progress.update(task, completed=done, total=total)

                    report = import_into(st, result, namespace=namespace, progress=advance, shard_tokens=shard_tokens)
            queued = queue_for_workers(st, report, compression == "workers", budget)
        finally:
            st.close()
    skipped = result.skipped_count + report.skipped
    repaired = result.repaired_count + report.repaired
    payload: dict[str, Any] = {
        "format": result.format,
        "conversations": len(result.conversations),
        "messages": report.messages,
        "skipped": skipped,
        "skipped_by_reason": result.skipped_by_reason | report.skipped_by_reason,
        "repaired": repaired,
        "repaired_by_reason": result.repaired_by_reason | report.repaired_by_reason,
        "namespaces": report.namespaces,
        "queued_for_workers": queued,
    }
    if as_json:
        print_json(payload)
        return
    console.print(
        f"imported [bold]{report.messages}[/] messages from {len(result.conversations)} conversation(s) "
        f"({result.format}); skipped {skipped}" + (f", repaired {repaired}" if repaired else "")
    )
    for reason, count in payload["skipped_by_reason"].items():
        console.print(f"  skipped {count}: {escape(reason)}", highlight=False)
    for reason, count in payload["repaired_by_reason"].items():
        console.print(f"  repaired {count}: {escape(reason)}", highlight=False)
    if queued:
        console.print(
            f"  queued {len(queued)} namespace(s) for compression workers: run `context-journal worker --store "
            f"{escape(store)} --until-idle`",
            highlight=False,
        )


def queue_for_workers(st: Any, report: Any, declare: bool, budget: int) -> list[str]:
    """Queue the compression of the imported namespaces that use ``compression="workers"``: those the
    store's work queue already holds, those whose recorded strategy says so, and (``declare``) every one,
    recording it. Returns the namespaces queued.
    """
    from ..namespaces import record_strategy, recorded_strategy
    from ..strategies import AutobiographicalConfig, AutobiographicalStrategy
    from ..workers import enqueue

    rows = st.queue_rows() if hasattr(st, "queue_rows") else []
    root = st.get_branch(ROOT_BRANCH)
    out: list[str] = []
    for conv in report.conversations:
        ns = conv.namespace
        slot = f"messages/{ns}" if conv.isolated else "messages"
        recorded = recorded_strategy(st, ns)
        wanted = (
            declare
            or (recorded is not None and recorded.get("compression") == "workers")
            or any(r["namespace"] == ns and r["branch_id"] == root.id and r["slot"] == slot for r in rows)
        )
        if not wanted:
            continue
        if recorded is not None and recorded.get("strategy") == "autobiographical":
            cfg = AutobiographicalConfig(**recorded.get("config", {}))
        else:
            cfg = AutobiographicalConfig.for_budget(budget)
        with ContextManager.open(
            store=st, namespace=ns, isolate=conv.isolated, strategy=AutobiographicalStrategy(cfg), compression="workers"
        ) as cm:
            record = {"strategy": "autobiographical", "config": cfg.to_dict(), "compression": "workers"}
            if declare:
                record_strategy(st, ns, cm.current_branch(), record)
            if enqueue(cm):
                out.append(ns)
    return out


@app.command("stats")
def stats_cmd(store: StoreOpt, as_json: JsonOpt = False) -> None:
    """Messages, branches, records and sizes of a store."""
    with fail_on_library_errors():
        st = existing_store(store)
        try:
            stats = st.stats()
            branches = st.list_branches()
            root = st.get_branch(ROOT_BRANCH)
            per_slot = {
                slot: count_visible(st, slot, root.id) for slot in st.list_slots() if slot.startswith("messages")
            }
            messages = sum(per_slot.values())
        finally:
            st.close()
    payload = {
        "messages": messages,
        "branches": len(branches),
        "records": stats.records,
        "head_sequence": stats.head_seq,
        "bytes_on_disk": stats.bytes_on_disk,
        "payload_bytes": stats.payload_bytes,
        "slots": per_slot,
        "backend": st.backend,
    }
    if as_json:
        print_json(payload)
        return
    table = Table(title=f"store {store}", show_header=False)
    for key, value in payload.items():
        if key != "slots":
            table.add_row(key, f"{value:,}" if isinstance(value, int) else str(value))
    for slot, count in per_slot.items():
        table.add_row(f"  {slot}", f"{count:,} messages on {ROOT_BRANCH}")
    console.print(table)


def _message_json(m: Message) -> dict[str, Any]:
    return {
        "id": m.id,
        "participant": m.participant,
        "sequence": m.sequence,
        "timestamp": m.timestamp.isoformat(),
        "content": m.content_dicts(),
        "metadata": m.metadata,
    }


def _preview(m: Message, width: int = 160) -> str:
    parts: list[str] = []
    for b in m.content:
        if b.type == "text":
            parts.append(b.text)
        elif b.type == "tool_use":
            parts.append(f"[tool_use {b.name} {b.id}]")
        elif b.type == "tool_result":
            parts.append(f"[tool_result {b.tool_use_id}{' error' if b.is_error else ''}]")
        else:
            parts.append(f"[{b.type}]")
    text = " ".join(" ".join(parts).split())
    return text if len(text) <= width else clip_end(text, width - 1) + "…"


@app.command("show")
def show_cmd(
    store: StoreOpt,
    last: Annotated[int | None, typer.Option("--last", help="Only the newest N messages.", min=0)] = None,
    branch: BranchOpt = None,
    namespace: NamespaceOpt = None,
    isolate: Annotated[bool, typer.Option("--isolate", help="Read the namespace's own slot.")] = False,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print the messages of a branch (oldest first)."""
    with fail_on_library_errors():
        st = existing_store(store)
        try:
            branch = cli_branch(st, branch)
            require_target(st, namespace, branch)
            isolate = isolate or namespace_is_isolated(st, namespace)
            cm = ContextManager.open(store=st, namespace=namespace, isolate=isolate, branch=branch, view_reader=reader)
            if last is None:
                messages = cm.get_messages(0, None)
                total = len(messages)
            else:
                # Positions count each shard of a sharded message: go back until ``last`` whole messages.
                stored = cm.message_count()
                offset = max(0, stored - last)
                messages = cm.get_messages(offset, None)
                while offset > 0 and len(messages) < last:
                    offset = max(0, stored - 2 * (stored - offset))
                    messages = cm.get_messages(offset, None)
                messages = messages[max(0, len(messages) - last) :] if last else []
                if reader is None:
                    total = sum(1 for e in cm.messages.iter_entries() if not is_shard_form(e.id))
                else:
                    total = len(cm.get_all_messages())
        finally:
            st.close()
    if as_json:
        print_json({"total": total, "messages": [_message_json(m) for m in messages]})
        return
    table = Table(show_lines=False)
    table.add_column("seq", justify="right")
    table.add_column("participant")
    table.add_column("content")
    for m in messages:
        table.add_row(str(m.sequence), escape(m.participant), escape(_preview(m)))
    console.print(table)
    console.print(f"{len(messages)} of {total} messages on branch {escape(branch)}", highlight=False)
