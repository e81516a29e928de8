"""``state``: the working-state ledger of a namespace and branch (:meth:`ContextManager.working_state`)."""

from __future__ import annotations

from rich.text import Text

from ..manager import ContextManager
from ..state import WorkingState
from ..state.render import render_state
from ._app import ReaderOpt, app, console, print_json, with_manager
from .store_cmds import BranchOpt, JsonOpt, NamespaceOpt, StoreOpt


@app.command("state")
def state_cmd(
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The working state folded from a namespace's tool calls: the latest plan, facts, files touched,
    commands run, error lines and identifiers.

    --json prints {"namespace", "branch", "state": {"plans", "facts", "files", "commands", "errors",
    "identifiers", "messages", "last_message_id"}}; without it, the block a compile would render.
    """

    def act(cm: ContextManager) -> tuple[WorkingState, str, str]:
        return cm.working_state(), cm.namespace, cm.current_branch()

    state, ns, branch_name = with_manager(store, namespace, branch, act, reader)
    if as_json:
        print_json({"namespace": ns, "branch": branch_name, "state": state.to_dict()})
        return
    text = render_state(state, 1 << 30, lambda t: 0)
    if text is None:
        console.print(Text(f"no working state yet in namespace {ns} on branch {branch_name}"))
        return
    console.print(Text(text))
    console.print(Text(f"{state.messages:,} messages folded in namespace {ns} on branch {branch_name}", style="dim"))
