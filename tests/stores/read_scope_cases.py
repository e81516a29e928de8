"""What a read scope (Store.read_scope) may keep and must forget, on two handles of one store: shared by
the SQLite tests (test_sqlite.py) and the PostgreSQL ones (tests/postgres/test_pg_concurrency.py)."""

from __future__ import annotations

import pytest

from context_journal import ContextManager
from context_journal.stores import Store


def a_message_written_after_a_token_is_found_after_it(ours: Store, theirs: Store) -> None:
    """A cache reads the change token, then its data, and keeps both. Inside a scope, a slot found
    missing before another handle wrote to it must be looked up again once the token shows that write:
    the message store refreshed twice in one compile (recall refreshes again) and stored the new token
    with nothing read, so the message stayed unseen afterwards. Whichever read came first in the scope
    (the token, or the lookup of the missing slot), the same."""
    for token_first in (True, False):
        ns = f"fresh-{token_first}"
        cm = ContextManager(ours, namespace=ns, isolate=True)
        other = ContextManager(theirs, namespace=ns, isolate=True)
        ContextManager(theirs, namespace="elsewhere").add_message("user", "makes the next count read the slot")
        with ours.read_scope():
            if token_first:
                ours.change_token()
            assert cm.message_count() == 0  # the namespace's message slot does not exist yet
            other.add_message("user", f"written meanwhile ({token_first})")
            ours.change_token()
            assert cm.message_count() == 1
        assert [m.text() for m in cm.get_all_messages()] == [f"written meanwhile ({token_first})"]


def a_write_transaction_reads_slots_afresh(ours: Store, theirs: Store) -> None:
    """A slot found missing in a scope is looked up again by a write transaction, which must see all that
    was committed before it took the write lock."""
    cm, other = ContextManager(ours), ContextManager(theirs)
    first = cm.add_message("user", "pin me")
    with ours.read_scope():
        assert cm.pins() == []  # the state slot does not exist yet: kept missing
        other.pin(first)
        with ours.transaction():
            assert cm.pins() == [first]  # under the write lock: what was committed before it


def a_rollback_hides_no_slot(ours: Store, theirs: Store) -> None:
    """A rolled-back transaction forgets the ids of the slots this handle knew: one created in the scope
    (after it was found missing there) by a committed write is then looked up again, not taken as missing."""
    cm = ContextManager(ours)
    cm.add_message("user", "hello")
    with ours.read_scope():
        assert cm.working_state().facts == {}  # the state slot does not exist yet: kept missing
        cm.set_fact("k", "v")
        assert cm.working_state().facts == {"k": "v"}
        with pytest.raises(RuntimeError), ours.transaction():
            raise RuntimeError("rolled back")
        assert cm.working_state().facts == {"k": "v"}


def usage_reports_keep_each_others_samples(ours: Store, theirs: Store) -> None:
    """``report_usage`` reads and writes the calibration under the write lock: inside a scope that kept the
    calibration a compile read, another handle's report in between is built on, not overwritten."""
    cm, other = ContextManager(ours), ContextManager(theirs)
    for i in range(6):
        cm.add_message("user" if i % 2 == 0 else "assistant", f"message number {i} " * 20)
    with ours.read_scope():
        mine, theirs_result = cm.compile(100_000), other.compile(100_000)
        other.report_usage(theirs_result, theirs_result.estimated_tokens * 3)
        cm.report_usage(mine, mine.estimated_tokens)
    calibration = theirs.get_state(theirs.get_branch("main").id, "default/calibration")
    assert calibration["samples"] == 2


CASES = (
    a_message_written_after_a_token_is_found_after_it,
    a_write_transaction_reads_slots_afresh,
    a_rollback_hides_no_slot,
    usage_reports_keep_each_others_samples,
)
"""Every case, for ``pytest.mark.parametrize`` (each takes two handles on one store)."""
