"""The summary query API over a namespace's compression log: list, search (text or pattern, with a time
limit), get by id, and the summaries standing for a range of messages. Read-only: the records are the
compressing strategy's (see :class:`~context_journal.strategies.autobiographical.CompressionLog`)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import regex as regex_engine  # type: ignore[import-untyped]  # no stubs shipped

from .._names import clip_repr
from ..errors import ContextJournalError, MessageNotFoundError
from ..strategies.autobiographical import CompressionLog, Summary
from ..views import MergedView, ReaderView, StoreView

__all__ = ["REGEX_SECONDS", "SummaryNotFoundError", "SummaryQueries"]

REGEX_SECONDS = 2.0
"""The longest a summary search by pattern may run, in seconds (then ``ValueError``)."""


class SummaryNotFoundError(ContextJournalError, KeyError):
    """No summary with that id on this namespace and branch (summaries made on other branches after
    the fork point are not visible here).

    Attributes:
        summary_id: The id asked for.
    """

    def __init__(self, summary_id: str) -> None:
        self.summary_id = summary_id
        super().__init__(f"no summary {summary_id!r} on this namespace and branch; list them with search_summaries()")

    def __str__(self) -> str:
        return str(self.args[0])


MAX_REPEAT_PRODUCT = 1_000_000
"""The most a text pattern's counted repeats (``{n}``, ``{n,m}``) may multiply to: compiling
``(?:a{1000}){1000}`` takes about half a second, ``(?:a{3000}){3000}`` ten, ``a{1000000000}`` all the
memory there is (the time limit covers matching, not compiling)."""

_COUNTED = re.compile(r"\{\s*(\d*)\s*(?:,\s*(\d*)\s*)?\}")  # {n}, {n,}, {n,m} and {,m}


def _check_repeats(pattern: str) -> None:
    """Refuse a pattern whose counted repeats multiply past :data:`MAX_REPEAT_PRODUCT` (an escaped brace
    counts too: the bound errs on the safe side).

    Raises:
        ValueError: the pattern's repeats are too large (named in the message).
    """
    product = 1
    for m in _COUNTED.finditer(pattern):
        counts = [g for g in m.groups() if g]
        if not counts:
            continue  # "{}" or "{,}": a literal
        if any(len(g) > 7 for g in counts):
            product = MAX_REPEAT_PRODUCT + 1
        else:
            product *= max(1, *(int(g) for g in counts))
        if product > MAX_REPEAT_PRODUCT:
            raise ValueError(
                f"the regex {clip_repr(pattern)} repeats too much to compile safely (its counted repeats "
                f"multiply past {MAX_REPEAT_PRODUCT:,}); use smaller counts or search for text"
            )


class SummaryQueries:
    """Summaries of one namespace and branch, as a handle's reader sees them.

    Args:
        log: Returns the folded compression log, brought up to date.
        view: Returns the handle's view of the messages (refreshed here before a range is resolved).
    """

    def __init__(
        self, log: Callable[[], CompressionLog], view: Callable[[], ReaderView | MergedView | StoreView]
    ) -> None:
        self._log = log
        self._view = view

    def summaries(self) -> list[Summary]:
        """Every summary visible on the namespace and branch, in conversation order (finest first)."""
        log = self._log()
        with log.lock:
            rows = [log.with_parent(s) for s in log.summaries.values()]
        rows.sort(key=lambda s: (s.first_sequence, s.level))
        return rows

    def search(
        self, text: str | None = None, regex: str | re.Pattern[str] | None = None, limit: int | None = 10
    ) -> list[Summary]:
        """Summaries whose text holds ``text`` (case-insensitive) and matches ``regex``, newest first.

        A pattern given as text runs on the ``regex`` engine with a time limit of
        :data:`REGEX_SECONDS` for the whole search, so a pattern that backtracks without end
        (``(\\w+\\s?)*\\d{9}``) from an MCP client or the command line cannot hold the handle; a compiled
        ``re.Pattern`` runs as given.

        Raises:
            TypeError: ``text`` is not a string or None, or ``regex`` not a string, pattern or None.
            ValueError: ``limit`` is not None or an integer >= 1, the pattern's counted repeats multiply
                past :data:`MAX_REPEAT_PRODUCT`, or it ran longer than :data:`REGEX_SECONDS`.
            re.error: ``regex`` is not a valid pattern.
        """
        if text is not None and not isinstance(text, str):
            raise TypeError(f"text must be a string or None, got {type(text).__name__}")
        if regex is not None and not isinstance(regex, str | re.Pattern):
            raise TypeError(f"regex must be a string, a compiled pattern or None, got {type(regex).__name__}")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise ValueError(f"limit must be None (every summary) or an integer >= 1, got {limit!r}")
        matches: Callable[[str], bool] | None = None
        if isinstance(regex, str):
            _check_repeats(regex)  # first: Python's own parser chokes on a count of 5,000 digits
            re.compile(regex)  # the documented error for an invalid pattern
            compiled = regex_engine.compile(regex)
            deadline = time.monotonic() + REGEX_SECONDS
            shown = clip_repr(regex)

            def matches(body: str) -> bool:
                try:
                    return compiled.search(body, timeout=max(0.001, deadline - time.monotonic())) is not None
                except TimeoutError:
                    raise ValueError(
                        f"the regex {shown} ran longer than {REGEX_SECONDS:g} s over the summaries (nested "
                        "repeats such as (a+)+ backtrack without end); simplify it or search for text"
                    ) from None

        elif regex is not None:
            given = regex
            matches = lambda body: given.search(body) is not None  # noqa: E731
        needle = text.casefold() if text else None
        rows = sorted(self.summaries(), key=lambda s: (-s.last_sequence, s.level))
        out = [
            s for s in rows if (needle is None or needle in s.text.casefold()) and (matches is None or matches(s.text))
        ]
        return out if limit is None else out[:limit]

    def get(self, summary_id: str) -> Summary:
        """One summary by id.

        Raises:
            SummaryNotFoundError: no such summary on this namespace and branch.
        """
        log = self._log()
        found = log.summaries.get(summary_id)
        if found is None:
            raise SummaryNotFoundError(summary_id)
        return log.with_parent(found)

    def in_range(self, start: int | str, end: int | str) -> list[Summary]:
        """Summaries standing for any message of a range: view positions ``[start, end)`` (ints) or
        message ids ``start..end`` inclusive (strings); coarse to fine within conversation order.

        Raises:
            MessageNotFoundError: a message id is not visible.
            ValueError: the range is empty or reversed.
        """
        full = self._view()
        full.refresh()

        def seq_of(ref: int | str, is_end: bool) -> int:
            if isinstance(ref, str):
                found = full.index_of(ref)  # the reader's view: another reader's message is not found
                if found is None:
                    raise MessageNotFoundError(ref)
                return full.entry(found).created_sequence
            index = min(max(ref - 1 if is_end else ref, 0), len(full) - 1)
            return full.entry(index).created_sequence

        if len(full) == 0:
            return []
        lo, hi = seq_of(start, False), seq_of(end, True)
        if hi < lo:
            raise ValueError(f"empty or reversed range {start!r}..{end!r}")
        rows = [s for s in self.summaries() if s.first_sequence <= hi and s.last_sequence >= lo]
        rows.sort(key=lambda s: (s.first_sequence, -s.level))
        return rows
