"""The typer application and the helpers every command shares."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import typer
from rich.console import Console

from ..errors import ContextJournalError
from ..stores import ROOT_BRANCH, Store, open_store

__all__ = [
    "CLI_BRANCH_KEY",
    "app",
    "cli_branch",
    "console",
    "err_console",
    "existing_store",
    "fail_on_library_errors",
    "main",
    "namespace_is_isolated",
    "print_json",
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


def namespace_is_isolated(store: Store, namespace: str | None) -> bool:
    """True when ``namespace`` has a message slot of its own in the store (as imports of several
    conversations, or with ``--namespace``, create), so commands read it without an ``--isolate`` flag."""
    return bool(namespace) and f"messages/{namespace}" in store.list_slots()


def main() -> None:
    """Console-script entry point."""
    app()
