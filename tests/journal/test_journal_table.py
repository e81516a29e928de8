"""The execution-journal table is a part of the store contract a backend opts into (``stores.JournalTable``):
the backends that ship implement it; a store without it refuses journal use with a ``StoreError`` that
names the protocol, and writes nothing."""

from __future__ import annotations

import pytest

from context_journal.errors import StoreError
from context_journal.journal import ExecutionJournal
from context_journal.stores import JournalTable, MemoryStore, Store
from tests.journal._journal_helpers import plan


class RecordsOnly(MemoryStore):
    """A record store that did not opt into the journal table (one primitive missing is enough)."""

    backend = "records-only"
    _journal_select = None  # type: ignore[assignment]


def test_the_backends_that_ship_implement_the_journal_table(store: Store) -> None:
    assert isinstance(store, JournalTable)
    ExecutionJournal(store).append("p", "plan", plan(), "lead", "k")
    assert store.journal_projects() == ["p"]


@pytest.mark.parametrize(
    "call",
    [
        lambda j, s: j.append("p", "plan", plan(), "lead", "k"),
        lambda j, s: s.journal_rows("p"),
        lambda j, s: s.journal_head("p"),
        lambda j, s: s.journal_row_by_key("p", "k"),
        lambda j, s: s.journal_projects(),
    ],
    ids=["append", "journal_rows", "journal_head", "journal_row_by_key", "journal_projects"],
)
def test_a_store_without_the_table_refuses_journal_use_and_writes_nothing(call: object) -> None:
    store = RecordsOnly()
    assert not isinstance(store, JournalTable)
    with pytest.raises(StoreError, match=r"records-only backend has no execution journal .*JournalTable"):
        call(ExecutionJournal(store), store)  # type: ignore[operator]
    assert store.head_seq() == 0  # no marker record either
