"""The built-in conversation of ``context-journal demo``: a long, realistic coding session, shipped as data.

A developer and Claude add multi-currency invoices to ``tally``, a small invoicing service, over four
working days (4-7 March 2024): a request with constraints, exploration with ``Glob``/``Grep``/``Read``,
edits, test runs that fail (``is_error: true``) and the fixes that follow, a change of requirements,
a support ticket, a performance fix, a code review, a CI failure, decisions with their reasons, and the
open items at the end. What ``Read`` shows agrees with what ``Edit`` changed and what ``Grep`` finds.

The conversation is the package resource ``data/demo.jsonl.gz``: a gzip-compressed file of the
``messages`` import format (one message per line, as :meth:`ContextManager.add_messages` takes them,
after a ``{"conversation": ...}`` header), read with :func:`~context_journal.formats.read_transcript`,
the importer users call on their own files. Nothing is read from the network.
"""

from __future__ import annotations

from importlib.resources import as_file, files
from typing import Any

from .formats import Conversation, read_transcript

__all__ = ["DEMO_RESOURCE", "DEMO_TITLE", "demo_conversation", "demo_transcript"]

DEMO_TITLE = "tally: multi-currency invoices (TALLY-312), 4-7 March 2024"
"""What the built-in conversation is about."""

DEMO_RESOURCE = "data/demo.jsonl.gz"
"""The built-in conversation's file, relative to the ``context_journal`` package."""


def demo_transcript() -> Conversation:
    """The built-in conversation as the importer reads it: id ``demo:tally``, metadata naming ``Claude`` the
    assistant and ``user`` the user, about 340 messages (42k tokens).

    Raises:
        ImportFormatError: the packaged file is damaged (a broken install).
    """
    with as_file(files("context_journal") / DEMO_RESOURCE) as path:
        result = read_transcript(path, format="messages")
    return result.conversations[0]


def demo_conversation() -> list[dict[str, Any]]:
    """The built-in conversation: a user and Claude working on ``tally`` (about 340 messages, 42k tokens).

    Deterministic (the same ids, text and timestamps on every call) and provider-valid: every
    ``tool_use`` is answered by its ``tool_result`` in the next message.

    Returns:
        Message dicts ready for :meth:`ContextManager.add_messages` (``id``, ``participant``,
        ``content``, ``timestamp``, ``metadata``), oldest first; a new list on every call.
    """
    return [
        {
            "id": m.id,
            "participant": m.participant,
            "content": m.content,
            "timestamp": m.timestamp,
            "metadata": m.metadata,
        }
        for m in demo_transcript().messages
    ]
