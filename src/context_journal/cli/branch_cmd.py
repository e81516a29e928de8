"""``branch list|fork|switch|delete``: the store's branches from the command line.

A library handle is bound to its own branch; the command line has no handle that lives between
commands, so ``branch switch`` records the branch that later commands use when ``--branch`` is
omitted (the state ``cli/branch`` on the root branch). It moves no library handle.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from ..branching import list_branch_summaries
from ..stores import ROOT_BRANCH
from ._app import (
    CLI_BRANCH_KEY,
    CommandError,
    ReaderOpt,
    app,
    cli_branch,
    console,
    existing_store,
    fail_on_library_errors,
    print_json,
    with_manager,
)
from .store_cmds import JsonOpt, NamespaceOpt, StoreOpt

branch_app = typer.Typer(help="List, fork, switch and delete branches.", no_args_is_help=True)
app.add_typer(branch_app, name="branch")


@branch_app.command("list")
def list_cmd(store: StoreOpt, as_json: JsonOpt = False) -> None:
    """Live branches with parent, fork sequence and head sequence."""
    with fail_on_library_errors():
        st = existing_store(store)
        try:
            current = cli_branch(st, None)
            rows = list_branch_summaries(st)
        finally:
            st.close()
    if as_json:
        print_json(
            [
                {
                    "name": r.name,
                    "parent": r.parent,
                    "fork_sequence": r.fork_sequence,
                    "head_sequence": r.head_sequence,
                    "created": r.created,
                    "current": r.name == current,
                }
                for r in rows
            ]
        )
        return
    table = Table()
    for col in ("", "branch", "parent", "fork seq", "head seq"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            "*" if r.name == current else "",
            escape(r.name),
            escape(r.parent or ""),
            str(r.fork_sequence or ""),
            str(r.head_sequence),
        )
    console.print(table)


@branch_app.command("fork")
def fork_cmd(
    name: Annotated[str, typer.Argument(help="Name of the new branch.")],
    store: StoreOpt,
    source: Annotated[str | None, typer.Option("--from", help="Branch to fork (default: the current one).")] = None,
    at: Annotated[str | None, typer.Option("--at", help="A message id or a store sequence to fork at.")] = None,
    namespace: NamespaceOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Fork a branch (at its head, a message id or a sequence). Rewinding is forking at an earlier point.

    A branch holds every namespace; ``-n`` names the namespace whose message ``--at`` names (an imported
    conversation keeps its messages in a namespace of its own)."""
    point: str | int | None = int(at) if at is not None and at.isdigit() else at
    info = with_manager(store, namespace, source, lambda cm: cm.fork(name, at=point), reader)
    if as_json:
        print_json({"name": info.name, "parent": info.parent, "fork_sequence": info.fork_sequence})
        return
    console.print(
        f"forked [bold]{escape(info.name)}[/] from {escape(info.parent or '')} at sequence {info.fork_sequence}"
    )


def _require_branch(st: Any, name: str) -> None:
    """Refuse a branch name no live branch has, listing the ones that exist (exit code 1)."""
    live = [b.name for b in st.list_branches()]
    if name not in live:
        raise CommandError(f"no live branch named {name!r}; the branches are: {', '.join(live)}")


@branch_app.command("switch")
def switch_cmd(name: Annotated[str, typer.Argument()], store: StoreOpt, as_json: JsonOpt = False) -> None:
    """Make ``name`` the branch later commands use when ``--branch`` is omitted."""
    with fail_on_library_errors():
        st = existing_store(store)
        try:
            _require_branch(st, name)
            root = st.get_branch(ROOT_BRANCH)
            with st.transaction() as tx:
                tx.put_state(root.id, CLI_BRANCH_KEY, name)
        finally:
            st.close()
    if as_json:
        print_json({"branch": name})
        return
    console.print(f"commands now default to branch [bold]{escape(name)}[/]")


@branch_app.command("delete")
def delete_cmd(name: Annotated[str, typer.Argument()], store: StoreOpt, as_json: JsonOpt = False) -> None:
    """Delete a branch (refused for the root and for a branch with live children)."""
    with fail_on_library_errors():
        st = existing_store(store)
        try:
            _require_branch(st, name)
            if cli_branch(st, None) == name:
                root = st.get_branch(ROOT_BRANCH)
                with st.transaction() as tx:
                    st.delete_branch(name)
                    tx.put_state(root.id, CLI_BRANCH_KEY, ROOT_BRANCH)
            else:
                st.delete_branch(name)
        finally:
            st.close()
    if as_json:
        print_json({"deleted": name})
        return
    console.print(f"deleted branch [bold]{escape(name)}[/]")
