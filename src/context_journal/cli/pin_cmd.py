"""``pin``, ``pin-range``, ``unpin``, ``pins``: messages and ranges kept raw (or at a summary level) in every
compile (:meth:`ContextManager.pin`, :meth:`ContextManager.pin_range`); ``document``, ``documents``: long
reference texts kept whole or summarised as one unit (:meth:`ContextManager.mark_document`)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from .._graphemes import clip_end
from ..errors import MessageNotFoundError
from ..manager import ContextManager
from ..namespaces import recorded_compressing_strategy, recorded_strategy
from ..rendering.repairs import message_line_text
from ..strategies import COMPRESSING_STRATEGY_NAMES
from ..strategies.pinned import PinInfo
from ._app import ReaderOpt, app, console, print_json, with_manager
from .store_cmds import BranchOpt, JsonOpt, NamespaceOpt, StoreOpt

MessageArg = Annotated[str, typer.Argument(help="The message id (see `context-journal show`).")]
PinArg = Annotated[str, typer.Argument(help="A pinned message's id, or a pinned range's id (see `pins`).")]


def _report(
    changed: int, message_id: str, pins: list[str], ranges: list[dict[str, Any]], verb: str, as_json: bool
) -> None:
    if as_json:
        row = {"message_id": message_id, "changed": changed > 0, "sequence": changed or None, "pins": pins}
        print_json({**row, "ranges": ranges})
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
    def act(cm: ContextManager) -> tuple[int, list[str], list[dict[str, Any]]]:
        changed = cm.pin(message_id) if pin else cm.unpin(message_id)
        return changed, cm.pins(), [p.row() for p in cm.list_pins() if p.kind == "range"]

    changed, pins, ranges = with_manager(store, namespace, branch, act, reader, claims=True)
    _report(changed, message_id, pins, ranges, "pinned" if pin else "unpinned", as_json)


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
    "sequence", "pins", "ranges"} (ranges: the pinned ranges, as ``pins --json`` lists them).
    """
    _change(message_id, store, namespace, branch, True, as_json, reader)


@app.command("pin-range")
def pin_range_cmd(
    first_id: Annotated[str, typer.Argument(help="The range's first message id.")],
    last_id: Annotated[str, typer.Argument(help="The range's last message id (the first again for one).")],
    store: StoreOpt,
    name: Annotated[str | None, typer.Option("--name", help="A label for the range.")] = None,
    level: Annotated[
        int | None,
        typer.Option("--level", help="Render it at exactly this summary level (0: raw; 1+: autobiographical)."),
    ] = None,
    max_level: Annotated[
        int | None, typer.Option("--max-level", help="Render it at this summary level or finer.")
    ] = None,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Pin the messages from FIRST_ID to LAST_ID as one range: raw in every compile of the namespace and
    branch (or at a summary level with --level / --max-level), until ``unpin`` of the pin id printed.

    --json prints {"pin_id", "first_id", "last_id", "name", "level", "max_level"}.
    """

    def act(cm: ContextManager) -> str:
        if level:  # checked against the strategy `compress` recorded for the namespace (what `compile` uses)
            recorded = recorded_strategy(cm.store, cm.namespace, cm.current_branch())
            if recorded and recorded.get("strategy") in COMPRESSING_STRATEGY_NAMES:
                cm.set_strategy(recorded_compressing_strategy(recorded))
        return cm.pin_range(first_id, last_id, name=name, level=level, max_level=max_level)

    pin_id = with_manager(store, namespace, branch, act, reader, claims=True)
    if as_json:
        print_json(PinInfo(pin_id, "range", first_id, last_id, name, level, max_level).row())
        return
    console.print(Text(f"{pin_id}: {first_id} .. {last_id} pinned"))


@app.command("unpin")
def unpin_cmd(
    pin_id: PinArg,
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove a pin: a pinned message by its id, or a pinned range by its pin id (a message that is not
    pinned is left as it is). --json as for ``pin``."""
    _change(pin_id, store, namespace, branch, False, as_json, reader)


@app.command("pins")
def pins_cmd(
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The pinned messages of a namespace on a branch, in the order they were pinned, then its pinned ranges.

    --json prints [{"message_id", "participant", "tokens", "visible", "text"}] (text: the first 200
    characters of what a model reads of it, tool calls and results written out), then one row per
    range: {"pin_id", "first_id", "last_id", "name", "level", "max_level"}.
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
                    "text": clip_end(text, 200),
                }
            )
        ranges = [p.row() for p in cm.list_pins() if p.kind == "range"]
        return rows + ranges

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
        if "pin_id" in r:  # a range
            table.add_row(Text(r["pin_id"]), Text("(range)"), "", Text(_range_label(r)))
            continue
        shown = r["text"] if r["visible"] else "(removed: renders nothing)"
        table.add_row(Text(r["message_id"]), Text(r["participant"] or ""), str(r["tokens"]), Text(shown))
    console.print(table)


def _range_label(row: dict[str, Any]) -> str:
    """``first .. last, level`` of a pinned range's row, with its name."""
    if row["level"]:
        level = f"summary level {row['level']}"
    elif row["max_level"]:
        level = f"summary level <= {row['max_level']}"
    else:
        level = "raw"
    return f"{row['first_id']} .. {row['last_id']}, {level}" + (f" ({row['name']})" if row["name"] else "")


@app.command("document")
def document_cmd(
    message_id: MessageArg,
    store: StoreOpt,
    unmark: Annotated[bool, typer.Option("--unmark", help="Undo the mark.")] = False,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Mark a message as a document: kept whole or summarised as one unit (never excerpted, never chunked
    with the conversation around it). Marks are records of the branch (a fork inherits them).

    --json prints {"message_id", "changed", "sequence", "documents"}.
    """

    def act(cm: ContextManager) -> tuple[int, list[str]]:
        return (cm.unmark_document(message_id) if unmark else cm.mark_document(message_id)), cm.documents()

    changed, documents = with_manager(store, namespace, branch, act, reader, claims=True)
    if as_json:
        print_json(
            {"message_id": message_id, "changed": changed > 0, "sequence": changed or None, "documents": documents}
        )
        return
    verb = "unmarked" if unmark else "marked as a document"
    state = f"{verb} (sequence {changed})" if changed else f"already {verb}"
    console.print(Text(f"{message_id}: {state}; {len(documents)} document{'s' if len(documents) != 1 else ''}"))


@app.command("documents")
def documents_cmd(
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The messages marked as documents on a namespace and branch, in the order marked (--json: a list of ids)."""
    documents = with_manager(store, namespace, branch, lambda cm: cm.documents(), reader)
    if as_json:
        print_json(documents)
        return
    console.print("\n".join(documents) if documents else "no documents")
