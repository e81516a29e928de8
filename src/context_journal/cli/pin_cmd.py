"""``pin``, ``unpin``, ``pins``: messages kept raw in every compile (:meth:`ContextManager.pin`)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from ..errors import MessageNotFoundError
from ..manager import ContextManager
from ..rendering.repairs import message_line_text
from ._app import ReaderOpt, app, console, print_json, with_manager
from .store_cmds import BranchOpt, JsonOpt, NamespaceOpt, StoreOpt

MessageArg = Annotated[str, typer.Argument(help="The message id (see `context-journal show`).")]


def _report(changed: int, message_id: str, pins: list[str], verb: str, as_json: bool) -> None:
    if as_json:
        print_json({"message_id": message_id, "changed": changed > 0, "sequence": changed or None, "pins": pins})
        return
    state = f"{verb} (sequence {changed})" if changed else f"already {'un' if verb == 'unpinned' else ''}pinned"
    console.print(Text(f"{message_id}: {state}; {len(pins)} pinned"))


def _change(
    message_id: str,
    store: str,
    namespace: str | None,
    branch: str | None,
    pin: bool,
    as_json: bool,
    reader: str | None,
) -> None:
    def act(cm: ContextManager) -> tuple[int, list[str]]:
        return (cm.pin(message_id) if pin else cm.unpin(message_id)), cm.pins()

    changed, pins = with_manager(store, namespace, branch, act, reader, claims=True)
    _report(changed, message_id, pins, "pinned" if pin else "unpinned", as_json)


@app.command("pin")
def pin_cmd(
    message_id: MessageArg,
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Pin a message: it stays raw in every compile of the namespace and branch, with every strategy.

    Pins are records of the branch (a fork inherits them). --json prints {"message_id", "changed",
    "sequence", "pins"}.
    """
    _change(message_id, store, namespace, branch, True, as_json, reader)


@app.command("unpin")
def unpin_cmd(
    message_id: MessageArg,
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Unpin a message (a message that is not pinned is left as it is). --json as for ``pin``."""
    _change(message_id, store, namespace, branch, False, as_json, reader)


@app.command("pins")
def pins_cmd(
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The pinned messages of a namespace on a branch, in the order they were pinned.

    --json prints [{"message_id", "participant", "tokens", "visible", "text"}] (text: the first 200
    characters of what a model reads of it, tool calls and results written out).
    """

    def act(cm: ContextManager) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = []
        for message_id in cm.pins():
            try:
                m = cm.get_message(message_id)
            except MessageNotFoundError:
                rows.append({"message_id": message_id, "participant": None, "tokens": 0, "visible": False, "text": ""})
                continue
            text = message_line_text(m.content_dicts())  # tool calls and results written out too
            tokens = cm.token_counter.count_message(m.participant, m.content_dicts())
            rows.append(
                {
                    "message_id": message_id,
                    "participant": m.participant,
                    "tokens": tokens,
                    "visible": True,
                    "text": text[:200],
                }
            )
        return rows

    rows = with_manager(store, namespace, branch, act, reader)
    if as_json:
        print_json(rows)
        return
    if not rows:
        console.print("no pinned messages")
        return
    table = Table()
    for col in ("message", "participant", "tokens", "text"):
        table.add_column(col)
    for r in rows:
        shown = r["text"] if r["visible"] else "(removed: renders nothing)"
        table.add_row(Text(r["message_id"]), Text(r["participant"] or ""), str(r["tokens"]), Text(shown))
    console.print(table)
