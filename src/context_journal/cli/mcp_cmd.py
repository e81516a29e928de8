"""``mcp serve``: the MCP server over a store, on stdio or streamable HTTP (extra ``mcp``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ._app import CommandError, app, err_console, fail_on_library_errors, require_folder

mcp_app = typer.Typer(name="mcp", help="The MCP server (extra 'mcp').", no_args_is_help=True)
app.add_typer(mcp_app, name="mcp")


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[IPv6]:PORT`` or ``PORT`` (host 127.0.0.1) as ``(host, port)``.

    Raises:
        typer.BadParameter: not one of those.
    """
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise typer.BadParameter(f"{text!r} is not HOST:PORT", param_hint="--http")
    return host, int(port)


def _check_port(host: str, port: int) -> None:
    """Fail before announcing the server when the address cannot be bound (a busy port).

    Raises:
        CommandError: the port is in use or the address is not available.
    """
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CommandError(f"cannot serve on {host}:{port}: {exc.strerror or exc}; choose another port") from None


@mcp_app.command("serve")
def serve_cmd(
    store: Annotated[str, typer.Option("--store", "-s", help="Store location: a SQLite file path or a URL.")],
    http: Annotated[
        str | None, typer.Option("--http", help="Serve streamable HTTP on HOST:PORT (default: stdio).")
    ] = None,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="CONTEXT_JOURNAL_MCP_TOKEN",
            help="Bearer token HTTP clients must send; required unless HOST is 127.0.0.1, localhost or ::1. "
            "Prefer --token-file or the CONTEXT_JOURNAL_MCP_TOKEN environment variable: a token on the command "
            "line is visible to every user of the machine in `ps`.",
        ),
    ] = None,
    token_file: Annotated[
        Path | None,
        typer.Option("--token-file", help="Read the bearer token from this file (its first line).", dir_okay=False),
    ] = None,
    path: Annotated[str, typer.Option("--path", help="The HTTP endpoint's path.")] = "/mcp",
    allow_verification: Annotated[
        bool, typer.Option("--allow-verification", help="Accept verification entries through journal_append.")
    ] = False,
    allow_redact: Annotated[
        bool,
        typer.Option("--allow-redact", help="Offer the redact_message tool (erasure; off: a model cannot erase)."),
    ] = False,
    reader: Annotated[
        str | None,
        typer.Option(
            "--reader",
            help="Read every call as this reader (blocks meant for it are visible). Without it, a namespace that "
            "belongs to a reader is refused.",
        ),
    ] = None,
    compress: Annotated[
        str,
        typer.Option(
            "--compress",
            help="off; inline: summarise in a background task between requests (and with the compress tool); "
            "workers: only queue the work for `context-journal worker`.",
        ),
    ] = "off",
    calls_per_second: Annotated[
        float,
        typer.Option(
            "--calls-per-second",
            help="With --compress inline: at most this many summarizer calls per second.",
            min=0.01,
        ),
    ] = 2.0,
) -> None:
    """Serve the journal and context-manager tools over MCP (stdio unless --http)."""
    if compress not in ("off", "inline", "workers"):
        raise typer.BadParameter("choose off, inline or workers", param_hint="--compress")
    address = parse_address(http) if http is not None else None
    if token_file is not None:
        if token:
            raise typer.BadParameter(
                "give --token (or its variable) or --token-file, not both", param_hint="--token-file"
            )
        try:
            token = token_file.read_text(encoding="utf-8").splitlines()[0].strip() if token_file.stat().st_size else ""
        except (OSError, UnicodeDecodeError) as exc:
            raise typer.BadParameter(f"cannot read {token_file}: {exc}", param_hint="--token-file") from None
        if not token:
            raise typer.BadParameter(f"{token_file} holds no token", param_hint="--token-file")
    with fail_on_library_errors():
        from ..mcp import build_server, http_url, is_loopback, run_http, run_stdio, token_problem

        problem = token_problem(token) if token else None
        if problem is not None:
            raise typer.BadParameter(problem, param_hint="--token / --token-file / CONTEXT_JOURNAL_MCP_TOKEN")

        require_folder(store)  # a mistyped path never leaves a new folder tree behind

        if address is not None and not is_loopback(address[0]) and not token:
            err_console.print(
                f"[bold red]error:[/] binding to {escape(address[0])} exposes the store to the network (only "
                "127.0.0.1, localhost and ::1 are guarded against DNS rebinding); pass --token-file (or set "
                "CONTEXT_JOURNAL_MCP_TOKEN), or bind to 127.0.0.1",
                highlight=False,
            )
            raise typer.Exit(1)
        if address is not None:
            _check_port(*address)
        server, backend = build_server(
            store,
            allow_verification=allow_verification,
            reader=reader,
            compression=compress,  # type: ignore[arg-type]
            allow_redact=allow_redact,
        )
        if compress == "inline":
            backend.start_background(calls_per_second)
        try:
            if address is None:
                run_stdio(server)
            else:
                host, port = address
                err_console.print(f"serving MCP on {escape(http_url(host, port, path))}", highlight=False)
                run_http(server, host, port, token=token, path=path)
        except KeyboardInterrupt:
            pass
        finally:
            backend.close()
