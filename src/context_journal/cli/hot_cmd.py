"""``hot-context``: the windows of a namespace's compressing strategy, shown or changed at run time
(:meth:`ContextManager.set_hot_context`)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from ..manager import ContextManager
from ..tokens import MAX_TOKEN_COUNT
from ._app import ReaderOpt, app, console, print_json, with_manager
from .store_cmds import BranchOpt, JsonOpt, NamespaceOpt, StoreOpt


def _tokens_opt(flag: str, what: str) -> object:
    return typer.Option(flag, help=f"{what}, in tokens.", min=0, max=MAX_TOKEN_COUNT)


@app.command("hot-context")
def hot_context_cmd(
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    head: Annotated[int | None, _tokens_opt("--head", "The raw head window")] = None,
    recent: Annotated[int | None, _tokens_opt("--recent", "The raw recent window")] = None,
    chunk: Annotated[int | None, _tokens_opt("--chunk", "The size of the chunks prepared for summarising")] = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the windows of the namespace's compressing strategy, or change them (--head, --recent, --chunk).

    A change is a record of the branch (a fork inherits it) that every compile, compress and worker of
    the branch applies over the strategy's settings; chunks closed before it keep their size. --json
    prints {"namespace", "branch", "changed", "sequence", "hot_context": {"head_window_tokens",
    "recent_window_tokens", "target_chunk_tokens"}}.
    """
    changes = {
        name: value
        for name, value in (
            ("head_window_tokens", head),
            ("recent_window_tokens", recent),
            ("target_chunk_tokens", chunk),
        )
        if value is not None
    }

    def act(cm: ContextManager) -> tuple[int, dict[str, int], str, str]:
        seq = cm.set_hot_context(**changes) if changes else 0
        return seq, cm.hot_context(), cm.namespace, cm.current_branch()

    seq, hot, ns, branch_name = with_manager(
        store, namespace, branch, act, reader, compressing=True, claims=bool(changes)
    )
    if as_json:
        print_json(
            {"namespace": ns, "branch": branch_name, "changed": seq > 0, "sequence": seq or None, "hot_context": hot}
        )
        return
    if changes:
        console.print(Text(f"changed (sequence {seq})" if seq else "unchanged: the branch already records these"))
    for name, value in hot.items():
        console.print(Text(f"{name}: {value:,}"))
    console.print(Text(f"namespace {ns} on branch {branch_name}", style="dim"))
