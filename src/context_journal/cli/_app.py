"""The typer application and the helpers every command shares."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console

from ..errors import ContextJournalError
from ..stores import ROOT_BRANCH, Store, open_store

if TYPE_CHECKING:
    from ..manager import ContextManager

__all__ = [
    "CLI_BRANCH_KEY",
    "app",
    "build_text_index",
    "cli_branch",
    "console",
    "err_console",
    "existing_store",
    "fail_on_library_errors",
    "main",
    "namespace_is_isolated",
    "print_json",
    "with_manager",
]

app = typer.Typer(
    name="context-journal",
    help="A durable, branching journal and a bounded context compiler for LLM agents.",
    no_args_is_help=True,
    add_completion=False,
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
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(1) from None


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


def with_manager(store: str, namespace: str | None, branch: str | None, act: Callable[[ContextManager], T]) -> T:
    """``act(manager)`` on the namespace and branch of an existing store (the current CLI branch when
    ``branch`` is None; an isolated namespace reads its own slot), library errors turned into messages."""
    from ..manager import ContextManager

    with fail_on_library_errors():
        st = existing_store(store)
        try:
            branch = cli_branch(st, branch)
            isolate = namespace_is_isolated(st, namespace)
            with ContextManager.open(store=st, namespace=namespace, isolate=isolate, branch=branch) as cm:
                return act(cm)
        finally:
            st.close()


def main() -> None:
    """Console-script entry point."""
    app()
