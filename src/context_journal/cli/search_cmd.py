"""``search``: full-text search of a namespace's messages (:meth:`ContextManager.search_messages`), or with
``--summaries`` of its summaries (:meth:`ContextManager.search_summary_text`)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from ..manager import ContextManager
from ..recall import SearchHit, SummaryHit
from ..recall.search import check_as_of_written
from ._app import CommandError, ReaderOpt, app, build_text_index, console, print_json, with_manager
from .store_cmds import BranchOpt, JsonOpt, NamespaceOpt, StoreOpt

_MARK = re.compile(r"\*\*(\w(?:\S*?\w)?)\*\*")
"""A word the snippet marks as matched (``**word**``, the punctuation around it outside the marks)."""


def _iso(value: str | None, option: str) -> str | None:
    """``value`` unchanged when it is an ISO-8601 date or time (the library parses it), else a usage error."""
    if value is None:
        return None
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(
            f"{value!r} is not an ISO-8601 date or time (e.g. 2023-05-08 or 2023-05-08T13:56:00Z)", param_hint=option
        ) from None
    return value


def _check_as_of(cm: ContextManager, as_of: int | None) -> None:
    """Refuse an ``--as-of`` past the store's newest sequence (see :func:`check_as_of_written`).

    Raises:
        CommandError: ``as_of`` is greater than the newest committed sequence.
    """
    try:
        check_as_of_written(cm.store.head_seq(), as_of, "--as-of")
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def snippet_text(snippet: str) -> Text:
    """A snippet for the terminal: the words marked ``**like this**`` in bold, everything else as is
    (no console markup is interpreted)."""
    out = Text()
    at = 0
    for m in _MARK.finditer(snippet):
        out.append(snippet[at : m.start()])
        out.append(m.group(1), style="bold")
        at = m.end()
    out.append(snippet[at:])
    return out


def _table(hits: list[SearchHit]) -> Table:
    table = Table(show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("message")
    table.add_column("participant")
    table.add_column("time (UTC)", no_wrap=True)
    table.add_column("snippet", ratio=1)
    for rank, hit in enumerate(hits, 1):
        table.add_row(
            str(rank),
            f"{hit.score:.2f}",
            Text(hit.message_id),
            Text(hit.participant),
            hit.timestamp.strftime("%Y-%m-%d %H:%M"),
            snippet_text(hit.snippet),
        )
    return table


def _summary_table(hits: list[SummaryHit]) -> Table:
    table = Table(show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("summary", no_wrap=True)
    table.add_column("covers", no_wrap=True)
    table.add_column("snippet", ratio=1)
    for rank, hit in enumerate(hits, 1):
        start = hit.start.strftime("%Y-%m-%d") if hit.start is not None else "?"
        end = hit.end.strftime("%Y-%m-%d") if hit.end is not None else "?"
        table.add_row(
            str(rank),
            f"{hit.score:.2f}",
            Text(f"{hit.summary_id}\nL{hit.level}, {hit.message_count} messages"),
            Text(f"{hit.first_message_id} ..\n{hit.last_message_id}\n{start}\n{end}"),
            snippet_text(hit.snippet),
        )
    return table


@app.command("search")
def search_cmd(
    query: Annotated[str, typer.Argument(help="Plain words to look for (no query syntax).")],
    store: StoreOpt,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-l", help="At most this many hits (1..1000).")] = 10,
    as_of: Annotated[
        int | None, typer.Option("--as-of", help="Search the branch as it stood at this store sequence.")
    ] = None,
    participant: Annotated[
        list[str] | None, typer.Option("--participant", "-p", help="Only messages by this participant (repeatable).")
    ] = None,
    since: Annotated[
        str | None, typer.Option("--since", help="Only messages written at or after this ISO-8601 date or time.")
    ] = None,
    until: Annotated[
        str | None, typer.Option("--until", help="Only messages written before this ISO-8601 date or time.")
    ] = None,
    summaries: Annotated[
        bool,
        typer.Option("--summaries", help="Search the namespace's summaries (every level) instead of its messages."),
    ] = False,
    reader: ReaderOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Full-text search of a namespace's messages on a branch, best first (bm25: higher is better).

    A store written before the search index existed is indexed first, behind a progress bar (an
    interrupted run resumes). --json prints {"query", "namespace", "branch", "hits": [{"message_id",
    "sequence", "participant", "timestamp", "score", "snippet"}]}; snippets mark matched words **like this**.
    With --summaries the namespace's summaries are searched (for its reader, on the branch) and each hit
    is {"summary_id", "level", "first_message_id", "last_message_id", "first_sequence", "last_sequence",
    "message_count", "start", "end", "score", "snippet", "sequence", "parent_id"}; --participant, --since
    and --until do not apply to summaries.
    """
    if summaries:
        for given, option in ((participant, "--participant"), (since, "--since"), (until, "--until")):
            if given:
                raise typer.BadParameter("filters messages only; leave it out with --summaries", param_hint=option)
        _search_summaries(query, store, namespace, branch, limit, as_of, as_json, reader)
        return
    since = _iso(since, "--since")
    until = _iso(until, "--until")

    def act(cm: ContextManager) -> tuple[list[SearchHit], str, str]:
        _check_as_of(cm, as_of)
        if query.strip():  # an empty query is refused by search_messages, before any indexing
            build_text_index(cm.store)
        found = cm.search_messages(
            query, limit=limit, as_of=as_of, participants=participant or None, since=since, until=until
        )
        return found, cm.namespace, cm.current_branch()

    hits, ns, branch = with_manager(store, namespace, branch, act, reader)
    if as_json:
        print_json({"query": query, "namespace": ns, "branch": branch, "hits": [h.to_dict() for h in hits]})
        return
    if not hits:
        console.print(Text(f"no message matches {query!r} in namespace {ns} on branch {branch}"))
        return
    console.print(_table(hits))
    console.print(Text(f"{len(hits)} hit(s) for {query!r} in namespace {ns} on branch {branch}", style="dim"))


def _search_summaries(
    query: str,
    store: str,
    namespace: str | None,
    branch: str | None,
    limit: int,
    as_of: int | None,
    as_json: bool,
    reader: str | None,
) -> None:
    def act(cm: ContextManager) -> tuple[list[SummaryHit], str, str]:
        _check_as_of(cm, as_of)
        if query.strip():  # an empty query is refused by search_summary_text, before any indexing
            build_text_index(cm.store)
        return cm.search_summary_text(query, limit=limit, as_of=as_of), cm.namespace, cm.current_branch()

    hits, ns, branch_name = with_manager(store, namespace, branch, act, reader)
    if as_json:
        print_json(
            {
                "query": query,
                "namespace": ns,
                "branch": branch_name,
                "summaries": True,
                "hits": [h.to_dict() for h in hits],
            }
        )
        return
    if not hits:
        console.print(Text(f"no summary matches {query!r} in namespace {ns} on branch {branch_name}"))
        return
    console.print(_summary_table(hits))
    console.print(
        Text(f"{len(hits)} summary hit(s) for {query!r} in namespace {ns} on branch {branch_name}", style="dim")
    )
