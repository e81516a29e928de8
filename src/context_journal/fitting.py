"""The smallest budget known to fit after a compile failed: what the CLI and the MCP server advise.

A failed compile names the tokens its smallest valid context needs (:attr:`OverBudgetError.actual`). That
figure is a lower bound when the compile failed before rendering, and even when measured it is the
smallest context *at that budget*: a larger budget leaves larger excerpts, so the context there may need a
few tokens more (a review followed the MCP server's "max_tokens of at least 62 would fit" to 62, then 69,
then 71 before a compile fit). :func:`fitting_budget` tries the figure and follows what each try needs.
"""

from __future__ import annotations

from collections.abc import Callable

from .errors import OverBudgetError
from .tokens import MAX_TOKEN_COUNT

FITTING_TRIES = 3
"""Compiles :func:`fitting_budget` tries at most (each a preview: it writes nothing)."""


def fitting_budget(
    exc: OverBudgetError,
    reserve: int,
    preview: Callable[[int], object],
    *,
    stop: tuple[type[BaseException], ...] = (),
    tries: int = FITTING_TRIES,
) -> int | None:
    """The smallest ``max_tokens`` known to fit after ``exc``: its figure plus ``reserve`` (the reply's
    reserve comes on top of the context), when ``preview`` at that budget fits, else at what that preview
    needed, and so on, at most ``tries`` previews; None when none fit (or a figure passes
    :data:`~context_journal.tokens.MAX_TOKEN_COUNT`, or stops growing, or ``preview`` raises one of ``stop``).

    Args:
        exc: The failure, its ``actual`` in tokens.
        reserve: ``reserve_for_response`` of the failed compile, in tokens.
        preview: Compiles at a ``max_tokens`` (tokens) writing nothing, raising :class:`OverBudgetError`
            when it does not fit.
        stop: Other exceptions of ``preview`` that end the search (any other propagates).
        tries: The most previews made.
    """
    candidate = exc.actual + reserve
    if exc.actual <= exc.budget or candidate > MAX_TOKEN_COUNT:
        return None
    for _ in range(tries):
        try:
            preview(candidate)
        except OverBudgetError as again:
            if again.actual + reserve <= candidate or again.actual + reserve > MAX_TOKEN_COUNT:
                return None
            candidate = again.actual + reserve
            continue
        except stop:
            return None
        return candidate
    return None
