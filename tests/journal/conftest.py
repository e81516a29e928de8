"""Fixtures of the journal tests: an :class:`ExecutionJournal` over each store backend."""

from __future__ import annotations

import pytest

from context_journal.journal import ExecutionJournal
from context_journal.stores import Store


@pytest.fixture
def journal(store: Store) -> ExecutionJournal:
    """A journal over a fresh store of each backend (memory, SQLite, PostgreSQL when reachable)."""
    return ExecutionJournal(store)
