"""``map``: a picture of the compiled context, as one self-contained HTML page (and a PNG of it)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from ..compile import CompileResult, OverBudgetError
from ..tokens import MAX_TOKEN_COUNT
from ..viz.browser import NO_BROWSER, BrowserError, find_browser, screenshot
from ..viz.html import page_height
from ._app import CommandError, ReaderOpt, app, err_console, fail_on_library_errors
from .compile_cmd import _check_compile_options, _compile_manager, _cut_notice, _over_budget
from .store_cmds import BranchOpt, NamespaceOpt, StoreOpt

PNG_WIDTH = 1400
"""Width of a ``--png`` screenshot, in pixels (its height follows the page)."""


@app.command("map")
def map_cmd(
    store: StoreOpt,
    budget: Annotated[
        int, typer.Option("--budget", help="Context window (max_tokens), in tokens.", min=1, max=MAX_TOKEN_COUNT)
    ],
    html_out: Annotated[
        Path | None, typer.Option("--html", help="Write the map here: one HTML file, nothing fetched.")
    ] = None,
    png_out: Annotated[
        Path | None, typer.Option("--png", help="Also write a screenshot of the map (needs a headless chromium).")
    ] = None,
    reserve: Annotated[int, typer.Option("--reserve", help="Tokens kept free for the reply.", min=0)] = 0,
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy",
            help="passthrough, windowed, autobiographical or knowledge (default: the one `compress` recorded for "
            "the namespace, else passthrough).",
        ),
    ] = None,
    overflow: Annotated[
        str, typer.Option("--overflow", help="excerpt or window, as for `compile` (summaries missing).")
    ] = "excerpt",
    query: Annotated[
        str | None, typer.Option("--query", "-q", help="Add a recall section for this text, as `compile --query`.")
    ] = None,
    namespace: NamespaceOpt = None,
    branch: BranchOpt = None,
    title: Annotated[str | None, typer.Option("--title", help="Page title (default: namespace and branch).")] = None,
    reader: ReaderOpt = None,
) -> None:
    """Draw the context `compile` would send within --budget tokens: the budget split into head, pins,
    working state, summaries by level, recall and the raw recent window, and the whole conversation as a
    timeline showing which messages each compiled part stands for. Click a part for its details.

    Writes nothing to the store (it previews the compile). --html writes one self-contained page (no
    network); --png renders it through a headless chromium when one is installed.
    """
    if html_out is None and png_out is None:
        raise typer.BadParameter("give --html FILE, --png FILE or both", param_hint="--html")
    _check_compile_options(strategy, overflow)
    with fail_on_library_errors():
        for flag, out in (("--html", html_out), ("--png", png_out)):
            if out is not None and not out.resolve().parent.is_dir():
                raise CommandError(f"{flag}: the folder {out.resolve().parent} does not exist; create it first")
        if png_out is not None and html_out is None and find_browser() is None:
            raise CommandError(f"--png: {NO_BROWSER}; or write --html FILE and open it in a browser")

        def draw(window: int, page: bool = True) -> tuple[CompileResult, str, int]:
            with _compile_manager(
                store,
                namespace,
                branch,
                strategy,
                window,
                reserve,
                overflow,
                index=bool(query is not None and query.strip()),
                diagnose=True,
                reader=reader,
            ) as cm:
                result = cm.preview_context(window, reserve, query=query)
                if not page:
                    return result, "", 0
                # while the store is open: positions are read from its index
                return result, result.to_html(title=title), page_height(result)

        try:
            result, page, height = draw(budget)
        except OverBudgetError as exc:  # the advice `compile` gives, in the command line's terms
            raise _over_budget(
                exc, reserve, lambda window: draw(window, page=False), command="map", system=False
            ) from None
        written: list[str] = []
        if html_out is not None:
            html_out.write_text(page, encoding="utf-8")
            written.append(str(html_out))
        if png_out is not None:
            with tempfile.TemporaryDirectory(prefix="cj-map-") as tmp:
                source = html_out if html_out is not None else Path(tmp) / "map.html"
                if html_out is None:
                    source.write_text(page, encoding="utf-8")
                try:
                    if find_browser() is None:
                        raise BrowserError(NO_BROWSER)
                    screenshot(source, png_out, PNG_WIDTH, height)
                except BrowserError as exc:
                    # The page is written already: say so, then fail for the screenshot (--html with --png
                    # and no browser once wrote neither).
                    wrote = f"wrote {html_out}; " if html_out is not None else ""
                    raise CommandError(f"--png: {wrote}no screenshot: {exc}") from None
            written.append(str(png_out))
    err_console.print(
        f"{result.tokens:,} of {result.budget:,} tokens in {len(result.messages)} messages "
        f"({result.strategy}); wrote {' and '.join(written)}",
        highlight=False,
        markup=False,
    )
    lag = _cut_notice(result, store, namespace, result.branch)  # as compile says it
    if lag:
        err_console.print(lag, style="yellow", highlight=False, markup=False)
