"""The typer application and the helpers every command shares."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress

from ..errors import ContextJournalError
from ..stores import ROOT_BRANCH, Store, open_store

if TYPE_CHECKING:
    from ..manager import ContextManager

__all__ = [
    "CLI_BRANCH_KEY",
    "CommandError",
    "app",
    "build_text_index",
    "cli_branch",
    "console",
    "drain_bar",
    "err_console",
    "existing_store",
    "fail_on_library_errors",
    "main",
    "namespace_is_isolated",
    "print_json",
    "require_target",
    "with_manager",
]

app = typer.Typer(
    name="context-journal",
    help="A durable, branching journal and a bounded context compiler for LLM agents.",
    no_args_is_help=True,
    add_completion=True,
)
console = Console()
err_console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


def print_json(value: Any) -> None:
    """Print one JSON document on stdout (machine-readable output of ``--json``)."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


@contextmanager
def fail_on_library_errors() -> Iterator[None]:
    """Turn a library error (or an argument the library refused with ``ValueError``) into a one-line message
    on stderr and exit code 1."""
    try:
        yield
    except (ContextJournalError, ValueError) as exc:  # ValueError: an argument the library refused
        err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)  # printed as written
        raise typer.Exit(1) from None


class CommandError(ContextJournalError):
    """A command-line problem reported as one line (exit code 1)."""


def require_target(store: Store, namespace: str | None, branch: str) -> None:
    """Refuse a branch or namespace that does not exist, listing those that do.

    Raises:
        CommandError: no live branch of that name.
        NamespaceNotFoundError: no namespace of that name.
    """
    from ..namespaces import require_namespace

    names = [b.name for b in store.list_branches()]
    if branch not in names:
        raise CommandError(f"no live branch named {branch!r} in this store; the branches are: {', '.join(names)}")
    require_namespace(store, namespace, branch)


def existing_store(location: str) -> Store:
    """Open a store that must already exist (read commands never create an empty file by mistake)."""
    if location.startswith(("postgres", "memory:", ":memory:")):
        return open_store(location)
    return open_store(location, create=False)


CLI_BRANCH_KEY = "cli/branch"
"""State (on the root branch) naming the branch commands use when ``--branch`` is omitted."""


def cli_branch(store: Store, branch: str | None) -> str:
    """The branch a command works on: ``--branch`` if given, else the one ``branch switch`` recorded,
    else ``main``."""
    if branch:
        return branch
    root = store.get_branch(ROOT_BRANCH)
    recorded = store.get_state(root.id, CLI_BRANCH_KEY)
    if isinstance(recorded, str) and recorded in {b.name for b in store.list_branches()}:
        return recorded
    return ROOT_BRANCH


INDEX_BATCH = 2000
"""Records per transaction when :func:`build_text_index` indexes a store written before the index existed."""


def build_text_index(store: Store) -> int:
    """Index the messages a store holds from before its full-text index existed, behind a progress bar on
    stderr (nothing to do, and nothing shown, for a store written with the index). Each batch commits, so
    an interrupted build resumes where it stopped the next time a command searches.

    Returns:
        The message versions indexed.

    Raises:
        typer.Exit: code 130 when interrupted (Ctrl-C); what was indexed so far is kept.
    """
    pending = store.text_index_pending()
    if pending <= 0:
        return 0
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    done = 0
    try:
        with Progress(
            TextColumn("[bold]indexing for search"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=err_console,
            transient=True,
        ) as progress:
            task = progress.add_task("index", total=pending)

            def advance(finished: int, total: int) -> None:
                nonlocal done
                done = finished
                progress.update(task, completed=finished, total=total)

            indexed = store.build_text_index(batch=INDEX_BATCH, progress=advance)
    except KeyboardInterrupt:
        err_console.print(
            f"[yellow]interrupted:[/] indexed {done:,} of {pending:,} sequences; run the command again to resume",
            highlight=False,
        )
        raise typer.Exit(130) from None
    err_console.print(
        f"[dim]indexed {indexed:,} messages written before the full-text index existed[/]", highlight=False
    )
    return indexed


def namespace_is_isolated(store: Store, namespace: str | None) -> bool:
    """True when ``namespace`` has a message slot of its own in the store (as imports of several
    conversations, or with ``--namespace``, create), so commands read it without an ``--isolate`` flag."""
    return bool(namespace) and f"messages/{namespace}" in store.list_slots()


def drain_bar() -> Progress:
    """The progress bar of a compression run on stderr (summaries made, done of pending, time)."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("[bold]compressing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[what]}"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )


def with_manager(store: str, namespace: str | None, branch: str | None, act: Callable[[ContextManager], T]) -> T:
    """``act(manager)`` on the namespace and branch of an existing store (the current CLI branch when
    ``branch`` is None; an isolated namespace reads its own slot), library errors turned into messages."""
    from ..manager import ContextManager

    with fail_on_library_errors():
        st = existing_store(store)
        try:
            branch = cli_branch(st, branch)
            require_target(st, namespace, branch)
            isolate = namespace_is_isolated(st, namespace)
            with ContextManager.open(store=st, namespace=namespace, isolate=isolate, branch=branch) as cm:
                return act(cm)
        finally:
            st.close()


def _show_version(value: bool) -> None:
    if value:
        from .. import __version__

        console.print(f"context-journal {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose", "-v", help="Log the library's work (compiles, compression calls, retries) on stderr."
        ),
    ] = False,
) -> None:
    """A durable, branching journal and a bounded context compiler for LLM agents."""
    if verbose:
        import logging

        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
        root = logging.getLogger("context_journal")
        root.addHandler(handler)
        root.setLevel(logging.INFO)


def main() -> None:
    """Console-script entry point."""
    app()
