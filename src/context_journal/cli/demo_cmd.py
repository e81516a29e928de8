"""``demo``, ``replay`` and ``summaries``: the main job (import, compress, compile) and its summaries.

``demo`` runs it on the built-in conversation (:mod:`context_journal.demo_data`), ``replay`` on any
importable transcript. Both write into a store (a temporary SQLite file unless ``--store`` is given),
drain compression through the summarizer (the offline one by default: no network, no key) behind a
progress bar, compile within ``--budget`` and show the compiled context's shape: the head, the
summaries by level, the raw middle and recent window, the tokens of each part and where each came from.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..compile import CompileResult
from ..compression import DrainProgress, DrainReport
from ..errors import BranchNotFoundError, ContextJournalError
from ..formats import ImportResult, import_into, read_transcript
from ..formats.base import Conversation
from ..llm import LLMRequest, LLMResponse, OfflineSummarizer, Provider, ProviderAuthError, ProviderRequestError
from ..llm.by_name import PROVIDER_NAMES, provider_by_name
from ..manager import ContextManager
from ..render_stats import Part, Shape, shape_of
from ..stores import ROOT_BRANCH, Store, open_store
from ..strategies import COMPRESSING_STRATEGY_NAMES, STRATEGY_NAMES, AutobiographicalConfig, Strategy, strategy_by_name
from ..tokens import MAX_TOKEN_COUNT
from ._app import (
    CommandError,
    ReaderOpt,
    app,
    cli_branch,
    console,
    drain_bar,
    fail_on_library_errors,
    print_json,
    with_manager,
)

STRATEGIES = STRATEGY_NAMES
PROVIDERS = PROVIDER_NAMES
IMPORT_FORMATS = ("auto", "claude-code", "locomo", "tau-bench", "irc", "anthropic", "openai")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the figures as one JSON document.")]
NamespaceOpt = Annotated[str | None, typer.Option("--namespace", "-n", help="Namespace (default: the shared one).")]


_Abort = CommandError
"""A command-line problem reported as one line (exit code 1; ``--json``: type ``CommandError``)."""


# ---- strategies and providers -----------------------------------------------------------------------


def make_strategy(name: str, budget: int) -> Strategy:
    """The strategy called ``name``, sized for compiles of ``budget`` tokens.

    Raises:
        typer.BadParameter: an unknown name.
    """
    config = AutobiographicalConfig.for_budget(budget) if name in COMPRESSING_STRATEGY_NAMES else None
    try:
        return strategy_by_name(name, config)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--strategy") from None


class _Watched:
    """A provider whose fatal failures (bad credentials, rejected requests) stop the drain at once
    instead of being retried with backoff like transient ones."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.fatal: ContextJournalError | None = None

    async def complete(self, request: LLMRequest) -> LLMResponse:
        try:
            return await self.inner.complete(request)
        except (ProviderAuthError, ProviderRequestError) as exc:
            self.fatal = exc
            raise


def make_provider(name: str, model: str | None, base_url: str | None) -> Provider:
    """The summarizer: ``offline`` (default, no network) or an SDK provider that needs an API key.

    Raises:
        typer.BadParameter: an unknown name.
        _Abort: no API key in the environment.
        MissingExtraError: the provider's SDK is not installed.
        ProviderAuthError: the SDK refused its credentials.
    """
    try:
        return provider_by_name(name, model, base_url)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--provider") from None
    except ProviderAuthError as exc:
        if exc.attempts:  # the SDK refused the credentials: reported as the library error it is
            raise
        raise _Abort(exc.reason.replace("the offline provider", "--provider offline")) from None


# ---- the job ------------------------------------------------------------------------------------------


@dataclass
class JobReport:
    """What a demo or replay did, as printed."""

    title: str
    source: str
    store: str | None
    branch: str
    namespace: str | None
    conversation: str
    conversations_in_file: int
    written: int
    drain: DrainReport
    result: CompileResult
    shape: Shape
    summaries: dict[str, int]
    conversation_tokens: int
    provider: str
    model: str
    seconds: dict[str, float]
    notes: list[str]

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document."""
        stats = self.drain.stats
        pending = self.drain.pending
        return {
            "title": self.title,
            "source": self.source,
            "conversation": self.conversation,
            "conversations_in_file": self.conversations_in_file,
            "store": self.store,
            "branch": self.branch,
            "namespace": self.namespace or "default",
            "messages": self.shape.conversation_messages,
            "messages_written": self.written,
            "conversation_tokens": self.conversation_tokens,
            "summaries": self.summaries,
            "strategy": self.result.strategy,
            "budget": self.result.budget,
            "compile_tokens": self.result.tokens,
            "compile_messages": len(self.result.messages),
            "summarizer": {"provider": self.provider, "model": self.model},
            "summarizer_calls": stats.calls,
            "summarizer_failures": stats.failures,
            "summarizer_input_tokens": stats.input_tokens,
            "summarizer_output_tokens": stats.output_tokens,
            "pending": {"ready": len(pending.ready), "waiting": len(pending.waiting), "stuck": len(pending.stuck)},
            "tokens_by_part": self.shape.tokens_by_part(),
            "summaries_in_compile": self.shape.summaries_by_level(),
            "tokens_by_level": self.shape.tokens_by_level(),
            "coverage": {"messages": self.shape.conversation_messages, "covered": self.shape.covered},
            "repairs": len(self.result.repairs),
            "dropped": self.result.dropped,
            "parts": [p.to_dict() for p in self.shape.parts],
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "notes": self.notes,
        }


@contextmanager
def _store_at(location: str | None) -> Iterator[tuple[Store, str | None]]:
    """The store at ``location``, or a temporary SQLite store deleted afterwards."""
    if location is not None:
        store = open_store(location)
        try:
            yield store, location
        finally:
            store.close()
        return
    with tempfile.TemporaryDirectory(prefix="context-journal-") as tmp:
        store = open_store(str(Path(tmp) / "journal.db"))
        try:
            yield store, None
        finally:
            store.close()


def _ensure_branch(store: Store, branch: str | None, notes: list[str]) -> str:
    name = cli_branch(store, branch)
    try:
        store.get_branch(name)
    except BranchNotFoundError:
        store.create_branch(name, ROOT_BRANCH)
        notes.append(f"created branch {name!r} from {ROOT_BRANCH!r}")
    return name


def _drain(cm: ContextManager, quiet: bool) -> DrainReport:
    watched = cm.summarizer

    def check(_: DrainProgress) -> None:
        if isinstance(watched, _Watched) and watched.fatal is not None:
            raise watched.fatal

    if quiet:
        return cm.drain(progress=check)
    with drain_bar() as bar:
        task = bar.add_task("drain", total=None, what="")

        def advance(p: DrainProgress) -> None:
            check(p)
            made = ", ".join(f"{k} {v}" for k, v in p.stats.to_dict()["summaries"].items())
            bar.update(task, completed=p.done, total=p.done + p.remaining, what=made)

        return cm.drain(progress=advance)


def run_job(
    result: ImportResult,
    conversation: Conversation,
    *,
    title: str,
    budget: int,
    strategy: str,
    provider: Provider,
    store: str | None,
    branch: str | None,
    namespace: str | None,
    quiet: bool,
    notes: list[str],
) -> JobReport:
    """Import ``conversation`` of ``result``, drain compression, compile within ``budget``, and report.

    Raises:
        ContextJournalError: a library error (the caller turns it into a message).
    """
    seconds: dict[str, float] = {}
    watched = _Watched(provider)
    with _store_at(store) as (st, location):
        name = _ensure_branch(st, branch, notes)
        started = time.perf_counter()
        single = ImportResult(result.format, result.source, [conversation], result.skipped)
        report = import_into(st, single, namespace=namespace, branch=name)
        seconds["import"] = time.perf_counter() - started
        ns = report.conversations[0].namespace if report.conversations else namespace
        isolated = report.conversations[0].isolated if report.conversations else False
        with ContextManager.open(
            store=st,
            namespace=ns,
            isolate=isolated,
            branch=name,
            strategy=make_strategy(strategy, budget),
            summarizer=watched,
        ) as cm:
            extra = cm.message_count() - len(conversation.messages)
            if extra > 0:
                notes.append(
                    f"the store already held {extra:,} other messages on this branch; they are compiled too "
                    "(use another --store to replay the conversation alone)"
                )
            started = time.perf_counter()
            drained = _drain(cm, quiet)
            seconds["drain"] = time.perf_counter() - started
            started = time.perf_counter()
            compiled = cm.compile(budget)
            seconds["compile"] = time.perf_counter() - started
            shape = shape_of(cm, compiled)
            counts: dict[int, int] = {}
            for s in cm.search_summaries(limit=None):
                counts[s.level] = counts.get(s.level, 0) + 1
            return JobReport(
                title=title,
                source=result.source,
                store=location,
                branch=name,
                namespace=namespace,
                conversation=conversation.id,
                conversations_in_file=len(result.conversations),
                written=report.messages,
                drain=drained,
                result=compiled,
                shape=shape,
                summaries={f"L{k}": v for k, v in sorted(counts.items())},
                conversation_tokens=cm.messages.tokens(),
                provider=provider.name,
                model=provider.model,
                seconds=seconds,
                notes=notes,
            )


# ---- printing ---------------------------------------------------------------------------------------


def _span(first: str | None, last: str | None, count: int) -> str:
    if first is None:
        return ""
    ids = escape(first) if first == last else f"{escape(first)} … {escape(last or '')}"
    return f"{ids} ({count:,} message{'s' if count != 1 else ''})"


def _short(summary_ids: list[str], keep: int = 2) -> str:
    shown = ", ".join(escape(s) for s in summary_ids[:keep])
    return shown + (f" +{len(summary_ids) - keep}" if len(summary_ids) > keep else "")


_LABELS = {"head": "head (raw)", "middle": "middle (raw)", "recent": "recent (raw)", "ledger": "working state"}


def _label(part: Part) -> str:
    if part.kind == "summary":
        return f"{part.label} summar{'ies' if len(part.summary_ids) > 1 else 'y'}"
    return _LABELS.get(part.kind, part.label)


def print_report(job: JobReport) -> None:
    """The human-readable report: what was compressed, then the compiled context part by part."""
    stats, result, shape = job.drain.stats, job.result, job.shape
    console.print(f"[bold]{escape(job.title)}[/]")
    console.print(
        f"  {shape.conversation_messages:,} messages, {job.conversation_tokens:,} tokens "
        f"(conversation {escape(job.conversation)}; {job.written:,} written now)",
        highlight=False,
    )
    console.print(
        f"  store: {escape(job.store) if job.store else 'temporary (pass --store PATH to keep it)'}"
        f", branch {escape(job.branch)}",
        highlight=False,
    )
    for note in job.notes:
        console.print(f"  note: {escape(note)}", highlight=False)
    made = ", ".join(f"{k} {v}" for k, v in job.summaries.items()) or "none"
    ratio = stats.input_tokens / job.conversation_tokens if job.conversation_tokens else 0.0
    console.print(
        f"  compressed with {escape(job.provider)} ({escape(job.model)}): {stats.calls:,} calls in "
        f"{job.seconds['drain']:.1f} s, {stats.input_tokens:,} input tokens ({ratio:.1f} per conversation token)",
        highlight=False,
    )
    console.print(f"  {stats.failures} failed; summaries in store: {made}", highlight=False)
    pending = job.drain.pending
    if pending.stuck or pending.waiting:
        console.print(
            f"  [yellow]pending:[/] {len(pending.waiting)} waiting, {len(pending.stuck)} stuck (covered raw or by "
            "older summaries)",
            highlight=False,
        )
    table = Table(
        title=f"compiled with {result.strategy}: {result.tokens:,} of {result.budget:,} tokens, "
        f"{len(result.messages)} messages, {len(result.repairs)} repairs",
        title_justify="left",
    )
    table.add_column("part")
    table.add_column("msgs", justify="right")
    table.add_column("tokens", justify="right")
    table.add_column("from")
    seen: set[str] = set()
    for p in shape.parts:
        origin = _span(p.first_id, p.last_id, p.stands_for)
        label = _label(p)
        if p.kind == "recent" and "recent" in seen:  # the newest turn, sent after the working-state pair
            label = "newest (raw)"
        seen.add(p.kind)
        if p.kind == "summary":
            origin = f"{_short(p.summary_ids)} ← {origin}"
        elif p.kind == "system" and not p.first_id:
            origin = "system prompt"
        table.add_row(
            label,
            f"{p.messages:,}",
            f"{p.tokens:,}",
            origin,
        )
    table.add_row("[bold]total[/]", f"{len(result.messages):,}", f"[bold]{result.tokens:,}[/]", "")
    console.print(table)
    by_part = shape.tokens_by_part()
    levels = ", ".join(f"{k} {v:,}" for k, v in reversed(shape.tokens_by_level().items()))
    pieces = [f"{k} {v:,}" + (f" ({levels})" if k == "summaries" and levels else "") for k, v in by_part.items()]
    console.print("  tokens by part: " + " · ".join(pieces), highlight=False)
    share = f" in {result.tokens / job.conversation_tokens:.1%} of its tokens" if job.conversation_tokens else ""
    console.print(
        f"  messages covered: {shape.covered:,} of {shape.conversation_messages:,}{share}; "
        f"done in {sum(job.seconds.values()):.1f} s",
        highlight=False,
    )


def _finish(job: JobReport, as_json: bool) -> None:
    if as_json:
        print_json(job.to_dict())
    else:
        print_report(job)


# ---- commands -----------------------------------------------------------------------------------------


def _demo_result() -> tuple[ImportResult, Conversation]:
    from ..demo_data import demo_transcript

    conversation = demo_transcript()
    return ImportResult("demo", "built-in", [conversation]), conversation


@app.command("demo")
def demo_cmd(
    store: Annotated[
        str | None, typer.Option("--store", "-s", help="Keep the store here (default: a temporary one).")
    ] = None,
    budget: Annotated[
        int, typer.Option("--budget", help="Compile budget, in tokens.", min=1, max=MAX_TOKEN_COUNT)
    ] = 10_000,
    as_json: JsonOpt = False,
) -> None:
    """The main job on a built-in conversation, offline: store, compress, compile, and show the shape.

    About 340 messages of a developer and Claude adding multi-currency invoices to a small service
    (tool calls, failing tests and fixes, decisions) are stored, compressed into summaries by the
    offline summarizer (no network, no key) and compiled within --budget tokens.
    """
    from ..demo_data import DEMO_TITLE

    with fail_on_library_errors():
        result, conversation = _demo_result()
        job = run_job(
            result,
            conversation,
            title=f"context-journal demo: {DEMO_TITLE}",
            budget=budget,
            strategy="autobiographical",
            provider=OfflineSummarizer(),
            store=store,
            branch=None,
            namespace=None,
            quiet=as_json,
            notes=[],
        )
    _finish(job, as_json)


def _pick(result: ImportResult, wanted: str | None, notes: list[str]) -> Conversation:
    convs = result.conversations
    if not convs:
        raise _Abort(f"{result.source}: no conversation to replay")
    if wanted is not None:
        for conv in convs:
            if conv.id == wanted or conv.id.endswith(":" + wanted):
                return conv
        listed = ", ".join(c.id for c in convs[:8]) + (" ..." if len(convs) > 8 else "")
        raise _Abort(f"no conversation {wanted!r} in {result.source}; it holds {len(convs)}: {listed}")
    chosen = result.primary or convs[0]
    if len(convs) > 1:
        why = "the primary one" if result.primary is chosen else "the first"
        notes.append(
            f"the file holds {len(convs)} conversations; replaying {why}, {chosen.id} "
            f"({len(chosen.messages)} messages); choose another with --conversation ID"
        )
    return chosen


@app.command("replay")
def replay_cmd(
    path: Annotated[Path, typer.Argument(help="A transcript file (or a directory of IRC logs).")],
    budget: Annotated[int, typer.Option("--budget", help="Compile budget, in tokens.", min=1, max=MAX_TOKEN_COUNT)],
    strategy: Annotated[str, typer.Option("--strategy", help=f"One of: {', '.join(STRATEGIES)}.")] = "autobiographical",
    provider: Annotated[str, typer.Option("--provider", help=f"Summarizer: {', '.join(PROVIDERS)}.")] = "offline",
    model: Annotated[str | None, typer.Option("--model", help="The summarizer's model.")] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="An OpenAI- or Anthropic-compatible endpoint.")
    ] = None,
    store: Annotated[
        str | None, typer.Option("--store", "-s", help="Keep the store here (default: a temporary one).")
    ] = None,
    branch: Annotated[
        str | None, typer.Option("--branch", "-b", help="Branch to replay on (created from main if missing).")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help=f"Input format: {', '.join(IMPORT_FORMATS)}.")] = "auto",
    conversation: Annotated[
        str | None, typer.Option("--conversation", "-c", help="Which conversation of a multi-conversation file.")
    ] = None,
    namespace: NamespaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Replay a transcript: import it, compress it, compile it within --budget tokens, and show the shape.

    --json prints {"messages", "summaries": {"L1": n, ...}, "compile_tokens", "budget",
    "summarizer_input_tokens", "summarizer_calls", ...}.
    """
    if strategy not in STRATEGIES:
        raise typer.BadParameter(
            f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}", param_hint="--strategy"
        )
    if fmt not in IMPORT_FORMATS:
        raise typer.BadParameter(
            f"unknown format {fmt!r}; choose one of {', '.join(IMPORT_FORMATS)}", param_hint="--format"
        )
    with fail_on_library_errors():
        if not path.exists():
            raise _Abort(f"no such file or directory: {path}")
        summarizer = make_provider(provider, model, base_url)
        result = read_transcript(path, format=fmt)
        notes: list[str] = []
        chosen = _pick(result, conversation, notes)
        job = run_job(
            result,
            chosen,
            title=f"replay of {path.name} ({result.format})",
            budget=budget,
            strategy=strategy,
            provider=summarizer,
            store=store,
            branch=branch,
            namespace=namespace,
            quiet=as_json,
            notes=notes,
        )
    _finish(job, as_json)


@app.command("summaries")
def summaries_cmd(
    store: Annotated[str, typer.Option("--store", "-s", help="Store location: a SQLite file path or a URL.")],
    namespace: NamespaceOpt = None,
    branch: Annotated[
        str | None, typer.Option("--branch", "-b", help="Branch to read (default: the one `branch switch` chose).")
    ] = None,
    search: Annotated[
        str | None, typer.Option("--search", help="Only summaries whose text holds this (case-insensitive).")
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="At most this many.", min=1)] = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the summaries of a store (conversation order), or those matching --search (newest first)."""

    def act(cm: ContextManager) -> tuple[list[Any], str]:
        found = cm.search_summaries(search, limit=None)
        if search is None:
            found.sort(key=lambda s: (s.first_sequence, -s.level))
        return (found[:limit] if limit is not None else found), cm.current_branch()

    rows, name = with_manager(store, namespace, branch, act, reader)
    if as_json:
        print_json(
            {
                "branch": name,
                "namespace": namespace or "default",
                "search": search,
                "count": len(rows),
                "summaries": [s.to_dict() for s in rows],
            }
        )
        return
    heading = f"{len(rows)} summaries on branch {name}" + (f" matching {search!r}" if search else "")
    console.print(f"[bold]{escape(heading)}[/]", highlight=False)
    for s in rows:
        first_line = next((line for line in s.text.splitlines() if line.strip()), "")
        console.print(
            f"{escape(s.id)}  [bold]L{s.level}[/]  {_span(s.first_message_id, s.last_message_id, s.message_count)}"
            f"  {s.tokens:,} tokens",
            highlight=False,
        )
        console.print(f"    {escape(first_line)}", overflow="ellipsis", no_wrap=True, highlight=False)
