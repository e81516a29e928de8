"""``worker``: a compression worker over a store's work queue (see :mod:`context_journal.workers`)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..llm.by_name import PROVIDER_NAMES
from ..workers import MAX_CONCURRENCY, MAX_SECONDS, MIN_POLL_SECONDS, CompressionWorker
from ._app import app, console, existing_store, fail_on_library_errors, print_json
from .demo_cmd import make_provider

PROVIDERS = PROVIDER_NAMES
MAX_POLL_SECONDS = 3600
"""Longest ``--poll-seconds`` (``CompressionWorker`` refuses more)."""


def _check_poll_seconds(value: float) -> float:
    """``--poll-seconds`` as :class:`CompressionWorker` takes it: 0.01 to 3600 (nan refused)."""
    if not MIN_POLL_SECONDS <= value <= MAX_POLL_SECONDS:
        raise typer.BadParameter(
            f"must be at least {MIN_POLL_SECONDS} and at most {MAX_POLL_SECONDS:,} seconds, got {value!r}"
        )
    return value


@app.command("worker")
def worker_cmd(
    store: Annotated[str, typer.Option("--store", "-s", help="Store location: a SQLite file path or a URL.")],
    provider: Annotated[str, typer.Option("--provider", help="offline, anthropic or openai.")] = "offline",
    model: Annotated[str | None, typer.Option("--model", help="Model name (provider default if omitted).")] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", help="Items worked on at once.", min=1, max=MAX_CONCURRENCY)
    ] = 1,
    lease_seconds: Annotated[
        float,
        typer.Option(
            "--lease-seconds",
            help="Lease length in seconds; renewed while a model call runs (a heartbeat), so a crashed worker's "
            "item is redone after at most this long.",
            min=0.1,
            max=MAX_SECONDS,
        ),
    ] = 60.0,
    heartbeat_seconds: Annotated[
        float | None,
        typer.Option(
            "--heartbeat-seconds",
            help="Interval of lease renewals in seconds (default a third of --lease-seconds; 0: none, then "
            "--lease-seconds must exceed the longest model call).",
            min=0.0,
        ),
    ] = None,
    until_idle: Annotated[bool, typer.Option("--until-idle", help="Stop once nothing is pending.")] = False,
    max_items: Annotated[
        int | None,
        typer.Option(
            "--max-items",
            help="Stop after this many queue claims (the report's 'claims'). Every claim counts, also one that "
            "stored nothing: the item was done already, its failed work waits for a retry time, its lease was "
            "lost or it failed. Summaries and attempts are the report's 'units'; --until-idle stops when "
            "nothing is pending.",
            min=1,
        ),
    ] = None,
    poll_seconds: Annotated[
        float,
        typer.Option(
            "--poll-seconds",
            help="Wait between claims when nothing is claimable, in seconds (above 0, at most 3600). On "
            "PostgreSQL new work wakes the worker at once, and this is only the fallback for an expired lease, "
            "a retry time or a missed notification: raise it (say to 5) to cut idle queries.",
            callback=_check_poll_seconds,
        ),
    ] = 0.2,
    worker_id: Annotated[str | None, typer.Option("--worker-id", help="Lease owner name.")] = None,
    retention_seconds: Annotated[
        float,
        typer.Option(
            "--retention-seconds",
            help="Apply the store's retention policies at start and every this many seconds (0: never).",
            min=0.0,
        ),
    ] = 3600.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON document.")] = False,
) -> None:
    """Claim pending summarisation work of any namespace and branch, do it, record it (Ctrl-C stops)."""
    if provider not in PROVIDERS:
        raise typer.BadParameter(f"choose one of {', '.join(PROVIDERS)}, not {provider!r}", param_hint="--provider")
    with fail_on_library_errors():
        summarizer = make_provider(provider, model, None)
        worker = CompressionWorker(
            existing_store(store),
            summarizer,
            worker_id=worker_id,
            lease_seconds=lease_seconds,
            heartbeat_seconds=heartbeat_seconds,
            concurrency=concurrency,
            poll_seconds=poll_seconds,
            retention_seconds=retention_seconds or None,
        )
        try:
            report = worker.run(until_idle=until_idle, max_items=max_items)
        except KeyboardInterrupt:
            report = worker.report
        finally:
            worker.store.close()
    data = report.to_dict()
    if as_json:
        print_json(data)
        return
    console.print(
        f"worker: {data['claims']} claims, {data['units']} units, {data['summaries']} summaries, "
        f"{data['failures']} failures, {data['lost']} lost leases, {data['redacted']} erased by retention "
        f"in {data['seconds']:.1f} s",
        highlight=False,
    )
    for key, error in data["errors"].items():
        console.print(f"  error on {escape(key)}: {escape(error)}", highlight=False)
    if data["hint"]:
        console.print(f"  [yellow]warning:[/yellow] {escape(data['hint'])}", highlight=False)
