"""Property: a read scope (Store.read_scope, what every compile runs in) never leaves a reader's cache
missing what was committed. Two handles on one SQLite file; ours reads (compiles with and without a query,
counts, token reads, working state) inside scopes, writes and rolls back, while theirs adds messages, pins
and facts at any point in between. After the scopes end, everything our long-lived managers show equals what
a fresh handle reads from the file; inside a scope, what they show after a change-token read holds every
commit made before it."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, EmptyContextError
from context_journal.stores import SQLiteStore
from tests.hypothesis_budget import examples

NAMESPACES = ("default", "iso")  # the shared slot, and an isolated one whose slot may not exist yet

_OPS = st.one_of(
    st.tuples(st.just("their_add"), st.sampled_from(NAMESPACES)),
    st.tuples(st.just("their_pin"), st.sampled_from(NAMESPACES)),
    st.tuples(st.just("their_fact"), st.sampled_from(NAMESPACES)),
    st.tuples(st.just("our_add"), st.sampled_from(NAMESPACES)),
    st.tuples(st.just("our_compile"), st.sampled_from(NAMESPACES)),
    st.tuples(st.just("our_recall"), st.sampled_from(NAMESPACES)),
    st.tuples(st.just("our_count"), st.sampled_from(NAMESPACES)),
    st.tuples(st.just("our_state"), st.sampled_from(NAMESPACES)),
    st.tuples(st.just("our_token"), st.just("")),
    st.tuples(st.just("our_check"), st.sampled_from(NAMESPACES)),
    st.tuples(st.just("our_rollback"), st.just("")),
)


def _manager(store: SQLiteStore, ns: str) -> ContextManager:
    return ContextManager(store, namespace=ns, isolate=ns != "default")


def _ids(path: Path, ns: str) -> list[str]:
    """The message ids of ``ns`` as a new handle reads them."""
    store = SQLiteStore(path)
    try:
        return [m.id for m in _manager(store, ns).get_all_messages()]
    finally:
        store.close()


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scopes=st.lists(st.lists(_OPS, min_size=1, max_size=8), min_size=1, max_size=4))
def test_what_a_read_scope_keeps_never_hides_a_commit(scopes: list[list[tuple[str, str]]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.db"
        ours, theirs = SQLiteStore(path), SQLiteStore(path)
        try:
            mine = {ns: _manager(ours, ns) for ns in NAMESPACES}
            other = {ns: _manager(theirs, ns) for ns in NAMESPACES}
            written = 0
            for scope in scopes:
                with ours.read_scope():
                    for op, ns in scope:
                        if op == "their_add" or op == "our_add":
                            written += 1
                            (other if op == "their_add" else mine)[ns].add_message("user", f"word{written} said")
                        elif op == "their_pin":
                            ids = [m.id for m in other[ns].get_all_messages()]
                            if ids:
                                other[ns].pin(ids[-1])
                        elif op == "their_fact":
                            other[ns].set_fact("k", f"fact {written}")
                        elif op == "our_compile":
                            with contextlib.suppress(EmptyContextError):  # nothing in the namespace yet
                                mine[ns].compile(4000)
                        elif op == "our_recall":
                            with contextlib.suppress(EmptyContextError):
                                mine[ns].compile(4000, query=f"word{written}")
                        elif op == "our_count":
                            mine[ns].message_count()
                        elif op == "our_state":
                            mine[ns].working_state()
                        elif op == "our_token":
                            ours.change_token()
                        elif op == "our_check":  # after a token read, inside the scope: all committed before it
                            ours.change_token()
                            assert [m.id for m in mine[ns].get_all_messages()] == _ids(path, ns)
                        else:
                            with pytest.raises(RuntimeError), ours.transaction():
                                raise RuntimeError("rolled back")
            fresh = SQLiteStore(path)
            try:
                for ns in NAMESPACES:
                    truth = _manager(fresh, ns)
                    want = [m.id for m in truth.get_all_messages()]
                    cm = mine[ns]
                    assert [m.id for m in cm.get_all_messages()] == want
                    assert cm.message_count() == len(want)
                    assert cm.pins() == truth.pins()
                    assert cm.working_state().facts == truth.working_state().facts
                    if want:
                        newest = truth.get_all_messages()[-1].text()
                        assert newest in str(cm.compile(4000).to_anthropic())
                        found = cm.search_messages(newest.split()[0])
                        assert [h.message_id for h in found] == [want[-1]]
            finally:
                fresh.close()
        finally:
            ours.close()
            theirs.close()
