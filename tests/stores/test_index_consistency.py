"""The message index (messages.py, manager.py) against the store contract: what a cache over the store
must get right when transactions roll back and other handles write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from context_journal.errors import MessageNotFoundError
from context_journal.manager import ContextManager
from context_journal.stores import ROOT_BRANCH, Store

if TYPE_CHECKING:
    from tests.conftest import Backend


class Boom(Exception):
    pass


def test_outer_rollback_leaves_no_phantom_message(store: Store) -> None:
    cm = ContextManager.open(store=store)
    cm.add_message("user", "kept", id="a")
    with pytest.raises(Boom), store.transaction():
        cm.add_message("user", "rolled back", id="b")
        raise Boom
    assert cm.message_count() == 1
    assert [m.id for m in cm.get_all_messages()] == ["a"]
    with pytest.raises(MessageNotFoundError):
        cm.get_message("b")


def test_outer_rollback_does_not_hide_the_next_write(store: Store) -> None:
    cm = ContextManager.open(store=store)
    other = ContextManager.open(store=store, namespace="other")
    with pytest.raises(Boom), store.transaction():
        cm.add_message("user", "rolled back", id="b")
        raise Boom
    other.add_message("ann", "takes the freed sequence", id="c")
    assert [m.id for m in cm.get_all_messages()] == ["c"]


def test_outer_rollback_undoes_edit_and_remove_in_the_index(store: Store) -> None:
    cm = ContextManager.open(store=store)
    cm.add_message("user", "original", id="a")
    with pytest.raises(Boom), store.transaction():
        cm.edit_message("a", "edited, then rolled back")
        cm.remove_message("a")
        raise Boom
    assert cm.message_count() == 1
    assert cm.get_message("a").text() == "original"


def test_message_and_state_in_one_transaction(store: Store) -> None:
    """A message and a state update written as one logical operation commit together (B34's turns)."""
    cm = ContextManager.open(store=store)
    main = store.get_branch(ROOT_BRANCH).id
    with store.transaction() as tx:
        mid = cm.add_message("user", "set colour to red")
        tx.put_state(main, "colour", "red")
    assert cm.get_message(mid).text() == "set colour to red"
    assert store.get_state(main, "colour") == "red"
    other = ContextManager.open(store=store, namespace="other")
    assert [m.id for m in other.get_all_messages()] == [mid]


def test_managers_on_one_handle_and_on_two_handles_agree(backend: Backend) -> None:
    """Writes through any manager, on the same handle or another one, are seen by all of them."""
    first = backend.new()
    second = backend.handle(first)
    a = ContextManager.open(store=first, namespace="a")
    b = ContextManager.open(store=first, namespace="b")
    c = ContextManager.open(store=second, namespace="c")
    ids = []
    for n, writer in enumerate([a, b, c, a, c, b]):
        ids.append(writer.add_message("user", f"turn {n}"))
        for reader in (a, b, c):
            assert [m.id for m in reader.get_all_messages()] == ids
    b.edit_message(ids[0], "edited by b")
    c.remove_message(ids[1])
    for reader in (a, b, c):
        assert [m.id for m in reader.get_all_messages()] == [ids[0], *ids[2:]]
        assert reader.get_message(ids[0]).text() == "edited by b"
