"""What the importers write, narrowed for the tests that look inside it.

A :class:`~context_journal.messages.MessageInput` holds what a write accepts (content a string or blocks,
metadata optional, a timestamp of several types); every importer writes a list of block dicts, a metadata
dict and a datetime, and these helpers assert that while they hand the parts over typed as such.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, cast

from context_journal.messages import MessageInput


def content_of(m: MessageInput) -> list[dict[str, Any]]:
    """The message's content: a list of block dicts."""
    assert isinstance(m.content, list) and all(isinstance(b, dict) for b in m.content), m.content
    return cast("list[dict[str, Any]]", m.content)


def metadata_of(m: MessageInput) -> Mapping[str, Any]:
    """The message's metadata (an importer always writes some)."""
    assert m.metadata is not None, m.id
    return m.metadata


def timestamp_of(m: MessageInput) -> datetime:
    """The message's timestamp: a datetime."""
    assert isinstance(m.timestamp, datetime), m.timestamp
    return m.timestamp
