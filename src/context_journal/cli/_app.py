"""The typer application and the helpers every command shares."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from typer.core import TyperGroup

from .._names import replace_lone_surrogates
from ..errors import ContextJournalError
from ..namespaces import namespace_is_isolated
from ..stores import ROOT_BRANCH, Store, open_store

if TYPE_CHECKING:
    from ..manager import ContextManager

__all__ = [
    "CLI_BRANCH_KEY",
    "CommandError",
    "JsonOpt",
    "ReaderOpt",
    "app",
    "build_text_index",
    "cli_branch",
    "console",
    "drain_bar",
    "err_console",
    "existing_store",
    "fail_on_library_errors",
    "json_output",
    "main",
    "namespace_is_isolated",
    "print_json",
    "report_error",
    "require_target",
    "target_options",
    "with_manager",
]

_JSON_ARGS: ContextVar[bool] = ContextVar("context_journal_cli_json", default=False)
"""Whether the command line being run asked for ``--json`` (set for the whole run by :class:`_Group`)."""


_CLICK_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
"""Click's error base (vendored by newer typer releases, click's own with older ones)."""


def json_output() -> bool:
    """Whether the running command line asked for ``--json`` (before any ``--``): its errors, usage errors
    included, are then printed as JSON."""
    return _JSON_ARGS.get()


def report_error(exc: BaseException, kind: str | None = None) -> None:
    """Report a failed command, the one way every command does: with ``--json`` one JSON object on stdout,
    ``{"ok": false, "error": {"type", "message", ...typed attributes}}``; otherwise one line on stderr
    (printed as written: no rich markup is interpreted)."""
    message = exc.format_message() if isinstance(exc, _CLICK_ERROR) else str(exc)  # type: ignore[attr-defined]
    if json_output():
        if isinstance(exc, CommandError):
            kind, details = kind or exc.kind, exc.details
        else:
            details = _error_details(exc)
        print_json({"ok": False, "error": {"type": kind or type(exc).__name__, "message": message, **details}})
    else:
        err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False)


def _error_details(exc: BaseException) -> dict[str, Any]:
    """The typed attributes of a library error worth a field of its own in a ``--json`` error."""
    from ..compile import OverBudgetError
    from ..errors import MalformedContentError

    if isinstance(exc, OverBudgetError):
        return {"budget": exc.budget, "needed": exc.actual, "parts": exc.parts}
    if isinstance(exc, MalformedContentError):
        return {"message_index": exc.message_index, "block_index": exc.block_index, "path": exc.path}
    return {}


class _Group(TyperGroup):
    """The root command group: every error a command lets out is reported by :func:`report_error` (as
    JSON under ``--json``), usage errors included."""

    def main(self, args: Sequence[str] | None = None, *pos: Any, **kw: Any) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        token = _JSON_ARGS.set("--json" in argv[: argv.index("--") if "--" in argv else len(argv)])
        try:
            return super().main(argv, *pos, **kw)
        finally:
            _JSON_ARGS.reset(token)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _CLICK_ERROR as exc:
            if not json_output():
                raise
            report_error(exc)
            raise typer.Exit(getattr(exc, "exit_code", 2)) from None
        except ContextJournalError as exc:  # a library error no command turned into a message
            report_error(exc)
            raise typer.Exit(1) from None


app = typer.Typer(
    name="context-journal",
    help="A durable, branching journal and a bounded context compiler for LLM agents.",
    no_args_is_help=True,
    add_completion=True,
    cls=_Group,
)


class _Printable:
    """The ``sys.stdout`` (or ``sys.stderr``) of the moment, with lone surrogates written as U+FFFD: no
    UTF-8 stream takes them, and a message holding one (from a damaged store) must print, not end the
    command in a ``UnicodeEncodeError``."""

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def _stream(self) -> Any:
        return getattr(sys, self._name)

    def write(self, text: str) -> int:
        return int(self._stream.write(replace_lone_surrogates(text)))

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return bool(getattr(self._stream, "isatty", lambda: False)())

    def fileno(self) -> int:
        return int(self._stream.fileno())

    @property
    def encoding(self) -> str:
        return str(getattr(self._stream, "encoding", None) or "utf-8")


console = Console(file=_Printable("stdout"))  # type: ignore[arg-type]
err_console = Console(file=_Printable("stderr"), soft_wrap=True)  # type: ignore[arg-type]

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON (errors too).")]
"""The ``--json`` flag every command that has one shares (name the parameter ``as_json``)."""


ReaderOpt = Annotated[
    str | None,
    typer.Option(
        "--reader",
        help="Read as this reader: blocks whose audience names it are visible. A namespace that belongs to a "
        "reader opens only with its name.",
    ),
]
"""The ``--reader`` option of every command that reads a namespace (name the parameter ``reader``)."""


def print_json(value: Any) -> None:
    """Print one JSON document on stdout (machine-readable output of ``--json``)."""
    _Printable("stdout").write(json.dumps(value, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


@contextmanager
def fail_on_library_errors() -> Iterator[None]:
    """Turn a library error (or an argument the library refused with ``ValueError``) into a one-line message
    on stderr, or a JSON error object on stdout under ``--json`` (:func:`report_error`), and exit code 1."""
    try:
        yield
    except (ContextJournalError, ValueError) as exc:  # ValueError: an argument the library refused
        report_error(exc)
        raise typer.Exit(1) from None
    except (OverflowError, TypeError, KeyError) as exc:
        # A record the library cannot read (written by SQL, or by an older version without today's
        # checks): one line that names the remedy, not a traceback.
        report_error(
            CommandError(
                f"{type(exc).__name__}: {exc}; the store may hold a record this version cannot read "
                "(run `context-journal verify --store STORE` to find it)",
                kind=type(exc).__name__,
            )
        )
        raise typer.Exit(1) from None


class CommandError(ContextJournalError):
    """A command-line problem reported as one line (exit code 1).

    Args:
        message: The line.
        kind: The ``type`` a ``--json`` error object reports (default ``"CommandError"``), e.g. the library
            error the message rewords for the command line.
        details: Typed fields the ``--json`` error object carries beside ``type`` and ``message``.
    """

    def __init__(self, message: str, *, kind: str | None = None, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.kind = kind or type(self).__name__
        self.details = dict(details or {})


def require_target(
    store: Store, namespace: str | None, branch: str, reader: str | None = None, claims: bool = False
) -> None:
    """Refuse a branch or namespace that does not exist, listing those that do (a ``--reader``'s own
    namespace, named after it, may be new); with ``claims`` (the command compiles or writes), refuse a
    host's namespace to a reader, which would claim it (:func:`~context_journal.readers.host_claim_problem`).

    Raises:
        CommandError: no live branch of that name, or a claim of the host's namespace.
        NamespaceNotFoundError: no namespace of that name.
    """
    from ..namespaces import require_namespace
    from ..readers import host_claim_problem

    names = [b.name for b in store.list_branches()]
    if branch not in names:
        raise CommandError(f"no live branch named {branch!r} in this store; the branches are: {', '.join(names)}")
    if reader is None or namespace != reader:
        require_namespace(store, namespace, branch)
    if claims and reader is not None:
        problem = host_claim_problem(store, store.get_branch(branch).id, namespace, reader)
        if problem is not None:
            raise CommandError(problem.replace(f"use namespace {reader!r}", f"use -n {shlex.quote(reader)}"))


def target_options(store: str, namespace: str | None, branch: str | None, reader: str | None = None) -> str:
    """The ``--store``/``-n``/``--branch``/``--reader`` options of a command a message advises, quoted for
    the shell: ``-n`` when a namespace was named, ``--branch`` unless it is ``main`` (the default with no
    branch recorded by ``branch switch``), ``--reader`` when this command ran as one, so the advised
    command works on what this one did."""
    return (
        f"--store {shlex.quote(store)}"
        + (f" -n {shlex.quote(namespace)}" if namespace else "")
        + (f" --branch {shlex.quote(branch)}" if branch and branch != ROOT_BRANCH else "")
        + (f" --reader {shlex.quote(reader)}" if reader else "")
    )


def require_folder(location: str) -> None:
    """Refuse a ``--store`` file path whose folder does not exist (a mistyped path never leaves a new
    folder tree behind), in the command line's terms (the library's :class:`StoreError` advises
    ``create_dirs=True``, an argument of ``ContextManager.open``).

    Raises:
        CommandError: the folder does not exist.
    """
    if location.startswith(("postgres", "memory:", ":memory:")):
        return
    from pathlib import Path

    path = Path(location[len("sqlite:///") :] if location.startswith("sqlite:///") else location).expanduser()
    if not path.parent.is_dir():
        raise CommandError(
            f"cannot open {location}: the folder {path.parent} does not exist; create it first "
            f"(mkdir -p {shlex.quote(str(path.parent))}) or give --store a path in an existing folder"
        )


def new_store(location: str) -> Store:
    """Open a store that a writing command may create (its folder must exist: :func:`require_folder`)."""
    require_folder(location)
    return open_store(location)


def existing_store(location: str) -> Store:
    """Open a store that must already exist (read commands never create an empty file by mistake)."""
    if location.startswith(("memory:", ":memory:")):
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


def with_manager(
    store: str,
    namespace: str | None,
    branch: str | None,
    act: Callable[[ContextManager], T],
    reader: str | None = None,
    *,
    compressing: bool = False,
    claims: bool = False,
) -> T:
    """``act(manager)`` on the namespace and branch of an existing store (the current CLI branch when
    ``branch`` is None; an isolated namespace reads its own slot) as ``reader`` (None: no reader; refused
    on a namespace that belongs to one), library errors turned into messages. With ``compressing`` the
    manager has the compressing strategy ``compress`` recorded (else the autobiographical one sized as
    ``compress`` sizes it); with ``claims`` (``act`` writes) a reader may not claim a host's namespace."""
    from ..manager import ContextManager
    from ..namespaces import recorded_compressing_strategy, recorded_strategy

    with fail_on_library_errors():
        st = existing_store(store)
        try:
            branch = cli_branch(st, branch)
            require_target(st, namespace, branch, reader, claims=claims)
            isolate = namespace_is_isolated(st, namespace)
            strategy = recorded_compressing_strategy(recorded_strategy(st, namespace, branch)) if compressing else None
            with ContextManager.open(
                store=st, namespace=namespace, isolate=isolate, branch=branch, view_reader=reader, strategy=strategy
            ) as cm:
                return act(cm)
        finally:
            st.close()


def _show_version(value: bool) -> None:
    if value:
        from .._version import __version__

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

        class _Stderr(logging.StreamHandler):  # type: ignore[type-arg]
            """Writes to the ``sys.stderr`` of the moment: a command run in a process that outlives it
            (tests, an embedding host) never leaves a handler on a closed stream (CI saw "Logging
            error" in a later command's output)."""

            def emit(self, record: logging.LogRecord) -> None:
                self.stream = sys.stderr
                super().emit(record)

        root = logging.getLogger("context_journal")
        for old in [h for h in root.handlers if type(h).__name__ == "_Stderr"]:
            root.removeHandler(old)  # one per process, however many commands ran
        handler = _Stderr(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.INFO)


def main() -> None:
    """Console-script entry point (also ``python -m context_journal`` and ``python -m context_journal.cli``,
    shown under the script's name in help and errors)."""
    app(prog_name="context-journal")
