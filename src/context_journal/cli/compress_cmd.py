"""``compress``: run the compression driver over a store until nothing is pending.

After ``context-journal import`` a long conversation has no summary yet; ``compile --strategy
autobiographical`` then fails (or leaves messages out with ``--overflow window``). ``compress`` summarises
the closed chunks and merges the summaries level by level (the offline summarizer by default: no network,
no key), behind a progress bar, and records the strategy it used for the namespace, so later compiles and
the MCP server use it too. Every unit commits on its own: Ctrl-C keeps what is finished.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from ..compression import DrainProgress, DrainReport
from ..errors import ContextJournalError
from ..manager import ContextManager
from ..namespaces import COMPRESS_BUDGET, record_strategy, strategy_record
from ..stores import Store
from ..strategies import COMPRESSING_STRATEGY_NAMES, AutobiographicalConfig, strategy_by_name
from ._app import (
    CommandError,
    ReaderOpt,
    app,
    cli_branch,
    console,
    drain_bar,
    existing_store,
    fail_on_library_errors,
    namespace_is_isolated,
    print_json,
    require_target,
    target_options,
)
from .demo_cmd import PROVIDERS, _Watched, make_provider

COMPRESSING = COMPRESSING_STRATEGY_NAMES
DEFAULT_BUDGET = COMPRESS_BUDGET


def load_config(text: str | None, budget: int) -> AutobiographicalConfig:
    """The strategy settings: sized for ``budget``, with the fields of ``text`` (a JSON object, or the
    path of a file holding one) set on top.

    Raises:
        CommandError: not JSON, not an object, or an unknown or invalid field.
    """
    overrides: dict[str, Any] = {}
    if text:
        path = Path(text)
        raw = path.read_text() if not text.lstrip().startswith("{") and path.is_file() else text
        try:
            overrides = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise CommandError(f"--config is neither a JSON object nor a file holding one: {exc}") from None
        if not isinstance(overrides, dict):
            raise CommandError("--config must be a JSON object of AutobiographicalConfig fields")
    try:
        return AutobiographicalConfig.for_budget(budget, **overrides)
    except (TypeError, ValueError) as exc:
        raise CommandError(f"--config: {exc}") from None


def _empty_namespace(store: Store, namespace: str | None, branch: str) -> str:
    """The error for a namespace that holds no message, naming those that do (after a
    LoCoMo import, whose conversations each have a namespace, ``compress`` on ``default`` once said "nothing
    pending" and advised a compile that then failed)."""
    from ..namespaces import list_namespaces

    with_messages = []
    for ns in list_namespaces(store, branch):
        isolate = namespace_is_isolated(store, ns)
        try:
            with ContextManager.open(store=store, namespace=ns, isolate=isolate, branch=branch) as cm:
                if cm.message_count():
                    with_messages.append(ns)
        except ContextJournalError:  # a reader's namespace: not listed for a command with no reader
            continue
    where = (
        "the namespaces with messages are: " + ", ".join(with_messages[:20]) + " (give one with -n)"
        if with_messages
        else "the store holds none yet"
    )
    return f"namespace {namespace or 'default'!r} holds no message on branch {branch!r}; nothing to compress; {where}"


def _summary(report: DrainReport | None, cm: ContextManager, interrupted: bool, seconds: float) -> dict[str, Any]:
    stats = cm.compression_stats
    pending = cm.pending_work()
    levels: dict[str, int] = {}
    for s in cm.search_summaries(limit=None):
        levels[f"L{s.level}"] = levels.get(f"L{s.level}", 0) + 1
    made = stats.to_dict()["summaries"]
    return {
        "namespace": cm.namespace,
        "branch": cm.current_branch(),
        "units": report.units if report is not None else stats.calls,
        "chunks_summarised": made.get("L1", 0) + stats.parts,
        "merges": sum(v for k, v in made.items() if k != "L1"),
        "calls": stats.calls,
        "failures": stats.failures,
        "input_tokens": stats.input_tokens,
        "output_tokens": stats.output_tokens,
        "seconds": round(seconds, 3),
        "interrupted": interrupted,
        "summaries_in_store": dict(sorted(levels.items())),
        "pending": {"ready": len(pending.ready), "waiting": len(pending.waiting), "stuck": len(pending.stuck)},
        "done": not pending.ready and not pending.waiting,
    }


@app.command("compress")
def compress_cmd(
    store: Annotated[str, typer.Option("--store", "-s", help="Store location: a SQLite file path or a URL.")],
    namespace: Annotated[str | None, typer.Option("--namespace", "-n", help="Namespace (default: shared).")] = None,
    branch: Annotated[
        str | None, typer.Option("--branch", "-b", help="Branch (default: the one `branch switch` chose).")
    ] = None,
    strategy: Annotated[str, typer.Option("--strategy", help="autobiographical or knowledge.")] = "autobiographical",
    budget: Annotated[
        int,
        typer.Option(
            "--budget",
            help="The smallest compile budget the summaries are sized for, in tokens (100 or more).",
            min=100,
        ),
    ] = DEFAULT_BUDGET,
    config: Annotated[
        str | None,
        typer.Option("--config", help="AutobiographicalConfig fields as a JSON object (or a file holding one)."),
    ] = None,
    provider: Annotated[str, typer.Option("--provider", help=f"Summarizer: {', '.join(PROVIDERS)}.")] = "offline",
    model: Annotated[str | None, typer.Option("--model", help="The summarizer's model.")] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="An OpenAI- or Anthropic-compatible endpoint.")
    ] = None,
    max_calls: Annotated[
        int | None, typer.Option("--max-calls", help="Stop after this many summarizer calls.", min=1)
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON document.")] = False,
    reader: ReaderOpt = None,
) -> None:
    """Summarise what an imported conversation still holds raw, until nothing is pending (or --max-calls).

    Closed chunks become L1 summaries, and summaries merge level by level; each unit is committed as it
    finishes, so Ctrl-C keeps the work done. Afterwards `compile --strategy autobiographical --budget N`
    renders the head, the summaries and the recent window within N tokens. --json prints {"chunks_summarised",
    "merges", "calls", "input_tokens", "output_tokens", "pending": {...}, "done", ...}.
    """
    if strategy not in COMPRESSING:
        raise typer.BadParameter(
            f"unknown strategy {strategy!r}; choose one of {', '.join(COMPRESSING)}", param_hint="--strategy"
        )
    interrupted = False
    with fail_on_library_errors():
        cfg = load_config(config, budget)
        summarizer = _Watched(make_provider(provider, model, base_url))
        st = existing_store(store)
        try:
            name = cli_branch(st, branch)
            require_target(st, namespace, name, reader, claims=True)
            made = strategy_by_name(strategy, cfg)
            with ContextManager.open(
                store=st,
                namespace=namespace,
                isolate=namespace_is_isolated(st, namespace),
                branch=name,
                strategy=made,
                summarizer=summarizer,
                view_reader=reader,
            ) as cm:
                if cm.message_count() == 0:  # say where the messages are (a multi-conversation import)
                    raise CommandError(_empty_namespace(st, namespace, name))
                record = strategy_record(made, budget)
                if record is not None:
                    record_strategy(st, namespace, name, record)
                started = time.perf_counter()
                report: DrainReport | None = None

                def check(_: DrainProgress) -> None:
                    if summarizer.fatal is not None:
                        raise summarizer.fatal

                try:
                    if as_json:
                        report = cm.drain(progress=check, max_units=max_calls)
                    else:
                        report = _drain_with_bar(cm, check, max_calls)
                except KeyboardInterrupt:
                    interrupted = True
                payload = _summary(report, cm, interrupted, time.perf_counter() - started)
        finally:
            st.close()
    payload["store"] = store
    if as_json:
        print_json(payload)
    else:
        _print(payload, store, strategy, namespace, reader)
    if interrupted:
        raise typer.Exit(130)


def _drain_with_bar(cm: ContextManager, check: Any, max_calls: int | None) -> DrainReport:
    with drain_bar() as bar:
        task = bar.add_task("compress", total=None, what="")

        def advance(p: DrainProgress) -> None:
            check(p)
            made = p.stats.to_dict()["summaries"]
            chunks = made.get("L1", 0) + p.stats.parts
            merges = sum(v for k, v in made.items() if k != "L1")
            what = (
                f"chunks {chunks:,} · merges {merges:,} · tokens in {p.stats.input_tokens:,} "
                f"out {p.stats.output_tokens:,}"
            )
            bar.update(task, completed=p.done, total=p.done + p.remaining, what=what)

        return cm.drain(progress=advance, max_units=max_calls)


def _print(
    payload: dict[str, Any],
    store: str,
    strategy: str = "autobiographical",
    namespace: str | None = None,
    reader: str | None = None,
) -> None:
    levels = ", ".join(f"{k} {v:,}" for k, v in payload["summaries_in_store"].items()) or "none"
    head = "[yellow]interrupted:[/] " if payload["interrupted"] else ""
    console.print(
        f"{head}compressed namespace {escape(payload['namespace'])} on branch {escape(payload['branch'])}: "
        f"{payload['chunks_summarised']:,} chunks summarised, {payload['merges']:,} merges, "
        f"{payload['calls']:,} calls ({payload['failures']} failed), {payload['input_tokens']:,} tokens in, "
        f"{payload['output_tokens']:,} out, {payload['seconds']:.1f} s",
        highlight=False,
    )
    console.print(f"  summaries in store: {levels}", highlight=False)
    pending = payload["pending"]
    if payload["done"]:
        console.print(
            "  nothing pending" + (f" ({pending['stuck']} stuck)" if pending["stuck"] else ""), highlight=False
        )
    else:
        console.print(
            f"  pending: {pending['ready']} ready, {pending['waiting']} waiting, {pending['stuck']} stuck; "
            "run the command again to continue",
            highlight=False,
        )
    # The namespace and branch compressed, quoted for the shell; one unwrapped line, to copy as it is.
    target = target_options(store, namespace, payload["branch"], reader)
    console.print(
        f"  next: context-journal compile {target} --strategy {strategy} --budget N",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
