"""``compile``: the context a store would send next, within a token budget."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Annotated, Any

import typer
from rich.markup import escape

from ..compile import CompileResult, OverBudgetError
from ..fitting import fitting_budget
from ..manager import ONCE_SUMMARISED_PART, ContextManager, why_unsummarised
from ..namespaces import recorded_config, recorded_strategy
from ..rendering.cache_markers import CacheMarkersDroppedWarning
from ..rendering.reduce import cut_phrase
from ..strategies import (
    COMPRESSING_STRATEGY_NAMES,
    STRATEGY_NAMES,
    AutobiographicalConfig,
    Strategy,
    strategy_by_name,
)
from ..tokens import MAX_TOKEN_COUNT
from ._app import (
    CommandError,
    ReaderOpt,
    app,
    build_text_index,
    cli_branch,
    err_console,
    existing_store,
    fail_on_library_errors,
    namespace_is_isolated,
    print_json,
    require_target,
    target_options,
)

STRATEGIES = STRATEGY_NAMES
OUTPUT_FORMATS = ("json", "anthropic", "openai", "openai-responses")
OVERFLOWS = ("excerpt", "window")


def _strategy(name: str, budget: int, overflow: str = "excerpt", recorded: dict[str, Any] | None = None) -> Strategy:
    """The strategy called ``name``; the compressing ones render the summaries already in the store
    (compile never calls a model: ``compress``, ``replay`` or a worker writes them) with the settings
    ``compress`` recorded for the namespace when it recorded this strategy (so both agree on what is
    pending), else settings sized for ``budget``; ``overflow="window"`` leaves the oldest unsummarised
    messages out instead of failing."""
    config = None
    if name in COMPRESSING_STRATEGY_NAMES:
        config = recorded_config(recorded, name, overflow) or AutobiographicalConfig.for_budget(
            budget, overflow=overflow
        )
    return strategy_by_name(name, config)


def _lag_error(
    exc: OverBudgetError, store: str, namespace: str | None, branch: str, strategy: str, reserve: int = 0
) -> CommandError:
    """The over-budget error of a store whose compression lags, with the commands that clear it (and the
    budget it needs once they have, when the budget is too small even then)."""
    chunks, tokens = exc.parts.get("pending chunks", 0), exc.parts.get("pending tokens", 0)
    target = target_options(store, namespace, branch)
    lag = (
        f"{exc.needs(grouped=True)} but the budget is {_budget_text(exc.budget, reserve)}: "
        "compression lags, "
        f"{chunks:,} chunk{'s' if chunks != 1 else ''} ({tokens:,} tokens) wait to be summarised. "
        f"Run `context-journal compress {target}` first"
    )
    rest = exc.parts.get(ONCE_SUMMARISED_PART)
    if rest is not None:  # too small even once compression has caught up: both remedies are needed
        lag += (
            f"; even then the head, the newest turn and the system part need {'at least ' if exc.lower_bound else ''}"
            f"{rest:,} tokens: " + _raise_budget(rest + reserve, reserve, "compile with --budget of at least {:,}")
        )
    else:
        lag += (
            f", or compile with --overflow window to leave the oldest unsummarised messages out (--strategy {strategy})"
        )
    return CommandError(
        lag,
        kind="OverBudgetError",
        details={
            "budget": exc.budget,
            "reserve": reserve,
            "needed": exc.actual,
            "parts": exc.parts,
            "compression_lags": True,
        },
    )


def _raise_budget(budget: int, reserve: int, advice: str) -> str:
    """``advice`` (a format string) for a ``--budget`` of ``budget`` tokens, or, past the largest ``--budget``
    the command takes, lowering ``--reserve`` (a review was advised a --budget of 100,000,123 after
    ``--budget 100000000 --reserve 99999999``)."""
    if budget <= MAX_TOKEN_COUNT:
        return advice.format(budget)
    return f"lower --reserve ({reserve:,}): --budget is at most {MAX_TOKEN_COUNT:,}"


def _budget_text(budget: int, reserve: int) -> str:
    """The context's budget as an error states it: with a reserve, what ``--budget`` and ``--reserve`` made of
    it (a review read "the budget is 800" after ``--budget 1000 --reserve 200`` as a wrong figure)."""
    if not reserve:
        return f"{budget:,}"
    return f"{budget:,} (--budget {budget + reserve:,} less --reserve {reserve:,})"


def _cut_notice(
    result: CompileResult,
    store: str,
    namespace: str | None,
    branch: str,
    cause: tuple[str, tuple[str, ...]] = ("pending", ()),
) -> str | None:
    """One line saying that raw messages no summary covers yet were cut to fit (``cut_to_fit`` repairs),
    with what clears it, by ``cause`` (see :func:`~context_journal.manager.why_unsummarised`):
    ``compress`` while compression lags; a hold's release; smaller chunks or a larger budget while their
    chunk is still filling. None when nothing was cut."""
    if not any(r.kind == "cut_to_fit" for r in result.repairs):
        return None
    what = cut_phrase(result.unsummarised_cut)
    target = target_options(store, namespace, branch)
    why, held = cause
    if why == "held":
        return (
            f"{what}; compression is held at {', '.join(held)} (hold_compression): no chunk closes there or "
            "after until the hold is released (release_compression) or times out"
        )
    if why == "stuck":
        return (
            f"{what}; their summary calls failed too often and are stuck: `context-journal compress {target}` "
            "shows them"
        )
    if why == "filling":
        return (
            f"{what}; nothing is due to summarise (their chunk is still filling): "
            f"`context-journal hot-context {target} --chunk N` with a smaller N closes smaller chunks, "
            "or raise --budget"
        )
    return f"compression lags: {what}; `context-journal compress {target}` summarises them"


def _over_budget(
    exc: OverBudgetError,
    reserve: int,
    preview: Callable[[int], object],
    *,
    command: str = "compile",
    system: bool = True,
) -> CommandError:
    """A compile over budget whatever compression does, with the smallest ``--budget`` known to fit: the
    tokens the smallest valid context needs (plus ``--reserve``), when a preview at that budget fits, else
    at what that preview needed (at most three more compiles, writing nothing).

    The advice is in the command line's terms (``--budget``, ``--reserve``, ``--system`` when ``system``:
    the command has that option), never the Python arguments :class:`OverBudgetError` names; ``command``
    is the command advised to run again (``compile``, ``map``)."""
    fits = fitting_budget(exc, reserve, preview, stop=(CommandError,))  # --budget is max_tokens
    if fits is None:
        advice = _raise_budget(exc.actual + reserve, reserve, "raise --budget above {:,}")
    elif fits == exc.actual + reserve:
        advice = f"{command} with --budget {fits:,} or more (the smallest valid context fits there)"
    else:  # a larger budget leaves larger excerpts: the smallest context there needs more than here
        advice = (
            f"{command} with --budget {fits:,} or more (the smallest valid context fits there: its excerpts grow "
            f"with the budget, to {fits - reserve:,} tokens)"
        )
    resize = getattr(exc, "resize", None)
    if resize is not None:  # the summaries were made for a larger budget than this one
        resize_with, sized = resize
        advice += f", size the summaries for this budget with `{resize_with}` (they are sized for {sized:,})"
    rest = ", lower --reserve, or shorten --system" if system else ", or lower --reserve"
    return CommandError(
        f"{exc.needs(grouped=True)} but the budget is {_budget_text(exc.budget, reserve)}; {advice}{rest}",
        kind="OverBudgetError",
        details={
            "budget": exc.budget,
            "reserve": reserve,
            "needed": exc.actual,
            "parts": exc.parts,
            "smallest_budget": fits,
        },
    )


def _check_compile_options(strategy: str | None, overflow: str) -> None:
    """Refuse an unknown --strategy or --overflow (of ``compile`` and the commands that preview it)."""
    if strategy is not None and strategy not in STRATEGIES:
        raise typer.BadParameter(
            f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}", param_hint="--strategy"
        )
    if overflow not in OVERFLOWS:
        raise typer.BadParameter(
            f"unknown overflow {overflow!r}; choose one of {', '.join(OVERFLOWS)}", param_hint="--overflow"
        )


@contextmanager
def _compile_manager(
    store: str,
    namespace: str | None,
    branch: str | None,
    strategy: str | None,
    budget: int,
    reserve: int,
    overflow: str,
    *,
    index: bool,
    diagnose: bool,
    reader: str | None = None,
    claims: bool = False,
    auxiliary: list[str] | None = None,
) -> Iterator[ContextManager]:
    """A manager on the namespace and branch of an existing store (the current CLI branch when ``branch``
    is None), with the strategy called ``strategy`` (None: the one ``compress`` recorded, else passthrough)
    sized for ``budget - reserve``; the store is closed after the block.

    ``index`` builds the full-text index first (a recall query needs it). An :class:`OverBudgetError`
    raised in the block because compression lags becomes the :class:`CommandError` naming the commands
    that clear it; ``diagnose`` asks the manager about the lag first (``preview_context`` does not
    diagnose by itself, ``compile`` does)."""
    st = existing_store(store)
    try:
        branch = cli_branch(st, branch)
        require_target(st, namespace, branch, reader, claims=claims)
        recorded = recorded_strategy(st, namespace, branch)
        if strategy is None:
            strategy = recorded["strategy"] if recorded and recorded["strategy"] in STRATEGIES else "passthrough"
        with ContextManager.open(
            store=st,
            namespace=namespace,
            isolate=namespace_is_isolated(st, namespace),
            branch=branch,
            strategy=_strategy(strategy, max(1, budget - reserve), overflow, recorded),
            view_reader=reader,
            auxiliary_views=[{"namespace": name} for name in auxiliary] if auxiliary else None,
        ) as cm:
            if index:
                build_text_index(st)
            try:
                yield cm
            except OverBudgetError as exc:
                if diagnose and strategy in ("autobiographical", "knowledge"):
                    exc = cm._lagging(exc)
                if exc.parts.get("pending chunks"):
                    raise _lag_error(exc, store, namespace, branch, strategy, reserve) from None
                # Summaries sized for a larger budget than this one: compressing for this budget helps
                # (smaller windows and summaries) unless it is too small for any (below 1,000 tokens the
                # sizes stop shrinking: AutobiographicalConfig.for_budget).
                sized = recorded.get("budget") if recorded and recorded.get("strategy") == strategy else None
                window = max(1, budget - reserve)
                if (
                    isinstance(sized, int)
                    and sized > window >= 1_000
                    and recorded_config(recorded, strategy) is not None
                ):
                    command = f"context-journal compress {target_options(store, namespace, branch)} --budget {window}"
                    exc.resize = (command, sized)  # type: ignore[attr-defined]
                raise
    finally:
        st.close()


@app.command("compile")
def compile_cmd(
    store: Annotated[str, typer.Option("--store", "-s", help="Store location: a SQLite file path or a URL.")],
    budget: Annotated[
        int, typer.Option("--budget", help="Context window (max_tokens), in tokens.", min=1, max=MAX_TOKEN_COUNT)
    ],
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
        str,
        typer.Option(
            "--overflow",
            help="autobiographical/knowledge when summaries are missing: excerpt (fail if it cannot fit) or "
            "window (leave the oldest unsummarised messages out).",
        ),
    ] = "excerpt",
    fmt: Annotated[str, typer.Option("--format", "-f", help="json, anthropic, openai or openai-responses.")] = "json",
    as_json: Annotated[bool, typer.Option("--json", help="Print only the summary as JSON.")] = False,
    namespace: Annotated[str | None, typer.Option("--namespace", "-n", help="Namespace (default: shared).")] = None,
    branch: Annotated[
        str | None, typer.Option("--branch", "-b", help="Branch to compile (default: the one `branch switch` chose).")
    ] = None,
    assistant: Annotated[
        list[str] | None, typer.Option("--assistant", "-a", help="Participant rendered as the assistant (repeatable).")
    ] = None,
    system: Annotated[str | None, typer.Option("--system", help="System prompt text placed first.")] = None,
    preview: Annotated[bool, typer.Option("--preview", help="Write nothing (not even the windowed anchor).")] = False,
    query: Annotated[
        str | None,
        typer.Option("--query", "-q", help="Add a recall section: the spans of the journal that best match this text."),
    ] = None,
    recall_auto: Annotated[
        bool, typer.Option("--recall-auto", help="Recall what the newest user turn asks about (without --query).")
    ] = False,
    dates: Annotated[
        bool | None,
        typer.Option(
            "--dates/--no-dates",
            help="Show a date line where the date changes between turns (default: when the import carries dates).",
        ),
    ] = None,
    reader: ReaderOpt = None,
    auxiliary: Annotated[
        list[str] | None,
        typer.Option(
            "--auxiliary",
            help="Merge another namespace's messages read-only into the namespace's compiles, in append order "
            "(repeatable; the namespace compiled needs a slot of its own). Recorded for the namespace: later "
            "commands (compile, compress) use them without this option.",
        ),
    ] = None,
    ledger_share: Annotated[
        float | None,
        typer.Option(
            "--ledger-share",
            help="Share of the budget for the working-state block, 0..0.9 (0: none; default: 15%, growing to "
            "30% as the conversation grows).",
            min=0.0,
            max=0.9,
        ),
    ] = None,
) -> None:
    """Compile the next context of a store within --budget tokens and print it (or its summary with --json).

    --json prints {"tokens", "budget", "messages", "repairs", "dropped", ...}. Without it the compiled
    context is printed as JSON in the chosen --format: the whole result (json), the parameters for
    anthropic.Anthropic().messages.create (anthropic), or Chat Completions messages (openai).

    --query TEXT (or --recall-auto: the newest user turn's text) adds a recall section: the messages
    that best match it, with their neighbours, within a share of the budget. A store written before the
    search index existed is indexed first, behind a progress bar.
    """
    _check_compile_options(strategy, overflow)
    if fmt not in OUTPUT_FORMATS:
        raise typer.BadParameter(
            f"unknown format {fmt!r}; choose one of {', '.join(OUTPUT_FORMATS)}", param_hint="--format"
        )
    if query is not None and recall_auto:
        raise typer.BadParameter("give --query TEXT or --recall-auto, not both", param_hint="--recall-auto")

    exported: dict[str, Any] = {}

    def attempt(window: int, write: bool) -> CompileResult:
        with _compile_manager(
            store,
            namespace,
            branch,
            strategy,
            window,
            reserve,
            overflow,
            index=bool(query is not None and query.strip()) or recall_auto,
            diagnose=not write,
            claims=write,
            reader=reader,
            auxiliary=auxiliary,
        ) as cm:
            if ledger_share is not None:  # a fixed share: no growth with the conversation
                cm.ledger_config = replace(cm.ledger_config, share=ledger_share, share_long=ledger_share)
            run = cm.compile if write else cm.preview_context
            compiled = run(
                window,
                reserve,
                system,
                assistant=assistant or None,
                query=query,
                recall="auto" if recall_auto else None,
                render_dates=dates,
            )
            # The provider formats read stored images and documents: exported while the store is open
            # (--format anthropic on a store with an image once said "the store is closed").
            if fmt == "anthropic":
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", CacheMarkersDroppedWarning)
                    exported["payload"] = compiled.to_anthropic()
                exported["dropped"] = [w.message for w in caught if isinstance(w.message, CacheMarkersDroppedWarning)]
            elif fmt == "openai":
                exported["payload"] = {"messages": compiled.to_openai()}
            elif fmt == "openai-responses":
                exported["payload"] = {"input": compiled.to_openai_responses()}
            exported["branch"] = cm.current_branch()
            if write and any(r.kind == "cut_to_fit" for r in compiled.repairs):  # a preview writes nothing
                exported["cause"] = why_unsummarised(cm)
            return compiled

    with fail_on_library_errors():
        try:
            result = attempt(budget, not preview)
        except OverBudgetError as exc:  # not compression lagging (that is a CommandError naming the remedy)
            raise _over_budget(exc, reserve, lambda window: attempt(window, False)) from None
    lag = _cut_notice(result, store, namespace, exported["branch"], exported.get("cause", ("pending", ())))
    if as_json:
        print_json(result.summary())
        if lag:  # on stderr: stdout stays valid JSON
            err_console.print(lag, style="yellow", highlight=False, markup=False)
        return
    if fmt in ("anthropic", "openai", "openai-responses"):
        print_json(exported["payload"])
        for message in exported.get("dropped", ()):  # on stderr, where the counts go (stdout stays valid JSON)
            err_console.print(escape(str(message)), style="yellow", soft_wrap=True)
    else:
        print_json(result.to_dict())
    recalled = {s.id for m in result.messages for s in m.sources if s.kind == "recall"}
    err_console.print(
        f"[dim]{len(result.messages)} messages, {result.tokens:,} of {result.budget:,} tokens, "
        f"{len(result.repairs)} repairs, {result.dropped} dropped"
        f"{f', {len(recalled)} recalled' if recalled else ''}[/]",
        highlight=False,
    )
    if lag:
        err_console.print(lag, style="yellow", highlight=False, markup=False)
    note = (result.recall or {}).get("note")
    if note:
        err_console.print(f"[yellow]no recall: {escape(note)}[/]", highlight=False)
