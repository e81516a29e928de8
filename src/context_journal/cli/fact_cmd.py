"""``fact set``, ``fact clear``, ``fact list``: host facts carried in the working state
(:meth:`ContextManager.set_fact`, :meth:`~ContextManager.clear_fact`)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from ..manager import ContextManager
from ._app import ReaderOpt, app, console, print_json, with_manager
from .store_cmds import BranchOpt, JsonOpt, NamespaceOpt, StoreOpt

fact_app = typer.Typer(help="Set, clear and list host facts carried in the working state.", no_args_is_help=True)
app.add_typer(fact_app, name="fact")

KeyArg = Annotated[str, typer.Argument(help="The fact's key (a name of at most 200 characters).")]


def _report(sequence: int | None, key: str, facts: dict[str, str], verb: str, as_json: bool) -> None:
    if as_json:
        print_json({"key": key, "changed": bool(sequence), "sequence": sequence or None, "facts": facts})
        return
    state = f"{verb} (sequence {sequence})" if sequence else ("unchanged" if verb == "set" else "no such fact")
    console.print(Text(f"{key}: {state}; {len(facts)} facts"))


def _change(
    key: str, text: str | None, store: str, namespace: str | None, branch: str | None, reader: str | None, as_json: bool
) -> None:
    """Set the fact ``key`` to ``text`` (clear it when None) and report what changed."""

    def act(cm: ContextManager) -> tuple[int | None, dict[str, str]]:
        sequence = cm.set_fact(key, text) if text is not None else cm.clear_fact(key)
        return sequence, dict(cm.working_state().facts)

    sequence, facts = with_manager(store, namespace, branch, act, reader, claims=True)
    _report(sequence, key, facts, "set" if text is not None else "cleared", as_json)


@fact_app.command("set")
def set_cmd(
    key: KeyArg,
    text: Annotated[str, typer.Argument(help="What the working state carries (at most 4,000 characters).")],
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Carry TEXT under KEY in the working state of the namespace and branch (replacing what KEY held): every
    compile's working-state block shows it. A journal record (a fork inherits it); setting a key to the text
    it holds writes nothing. --json prints {"key", "changed", "sequence", "facts"}."""

    _change(key, text, store, namespace, branch, reader, as_json)


@fact_app.command("clear")
def clear_cmd(
    key: KeyArg,
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove the fact KEY (a key that holds nothing is left as it is). --json as for ``fact set``."""

    _change(key, None, store, namespace, branch, reader, as_json)


@fact_app.command("list")
def list_cmd(
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The host facts of the namespace and branch, by key. --json prints {"facts": {key: text}}."""
    facts = with_manager(store, namespace, branch, lambda cm: dict(cm.working_state().facts), reader)
    if as_json:
        print_json({"facts": facts})
        return
    if not facts:
        console.print(Text("no facts"))
        return
    table = Table("key", "text")
    for key, text in facts.items():
        table.add_row(Text(key), Text(text))
    console.print(table)
