"""The built-in conversation of ``context-journal demo``: a long, realistic coding session, made in code.

A developer and Claude add multi-currency invoices to ``tally``, a small invoicing service, over four
working days (4-7 March 2024): a request with constraints, exploration with ``Glob``/``Grep``/``Read``,
edits, test runs that fail (``is_error: true``) and the fixes that follow, a change of requirements,
a support ticket, a performance fix, a code review, a CI failure, decisions with their reasons, and the
open items at the end. The tools act on a small virtual file system (:mod:`context_journal._demo`),
so what ``Read`` shows agrees with what ``Edit`` changed and what ``Grep`` finds.

Nothing is read from disk or the network: every message comes from templates in the package.
"""

from __future__ import annotations

from typing import Any

from ._demo import day1, day2, day3, day4
from ._demo.session import Session

__all__ = ["DEMO_TITLE", "demo_conversation"]

DEMO_TITLE = "tally: multi-currency invoices (TALLY-312), 4-7 March 2024"
"""What the built-in conversation is about."""


def demo_conversation() -> list[dict[str, Any]]:
    """The built-in conversation: a user and Claude working on ``tally`` (about 340 messages, 42k tokens).

    Deterministic (the same ids, text and timestamps on every call) and provider-valid: every
    ``tool_use`` is answered by its ``tool_result`` in the next message.

    Returns:
        Message dicts ready for :meth:`ContextManager.add_messages` (``id``, ``participant``,
        ``content``, ``timestamp``, ``metadata``), oldest first; a new list on every call.
    """
    s = Session()
    for episode in (day1.opening, day1.money, day1.fx, day1.invoice):
        episode(s)
    for episode in (day2.history, day2.migration, day2.export, day2.customer_currency, day2.reports):
        episode(s)
    for episode in (day3.ticket, day3.performance, day3.reconcile):
        episode(s)
    for episode in (day4.rounding, day4.review, day4.ci, day4.wrap_up):
        episode(s)
    return s.messages
