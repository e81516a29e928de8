"""``mcp serve``: the MCP server over a store, on stdio or streamable HTTP (extra ``mcp``)."""

from __future__ import annotations

from typing import Annotated

import typer

from ._app import app, err_console, fail_on_library_errors

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
            help="Bearer token HTTP clients must send; required when HOST is not a loopback address.",
        ),
    ] = None,
    path: Annotated[str, typer.Option("--path", help="The HTTP endpoint's path.")] = "/mcp",
    allow_verification: Annotated[
        bool, typer.Option("--allow-verification", help="Accept verification entries through journal_append.")
    ] = False,
) -> None:
    """Serve the journal and context-manager tools over MCP (stdio unless --http)."""
    address = parse_address(http) if http is not None else None
    with fail_on_library_errors():
        from ..mcp import build_server, is_loopback, run_http, run_stdio

        if address is not None and not is_loopback(address[0]) and not token:
            err_console.print(
                f"[bold red]error:[/] binding to {address[0]} exposes the store to the network; pass --token "
                "(or set CONTEXT_JOURNAL_MCP_TOKEN), or bind to 127.0.0.1",
                highlight=False,
            )
            raise typer.Exit(1)
        server, backend = build_server(store, allow_verification=allow_verification)
        try:
            if address is None:
                run_stdio(server)
            else:
                host, port = address
                err_console.print(f"serving MCP on http://{host}:{port}{path}", highlight=False)
                run_http(server, host, port, token=token, path=path)
        except KeyboardInterrupt:
            pass
        finally:
            backend.close()
