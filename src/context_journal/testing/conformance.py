"""The store contract as a test suite that any backend's own tests can run (DESIGN.md 2.1).

A backend (the three that ship, or a third party's) runs the suite by subclassing :class:`StoreConformance`
in a pytest module and giving it a ``backend`` fixture that yields a :class:`StoreBackend`::

    import pytest
    from context_journal.testing.conformance import StoreBackend, StoreConformance

    class MyBackend(StoreBackend):
        name = "mine"
        migrations = my_store.MIGRATIONS      # () when the backend keeps no migration history

        def new(self):                        # a fresh, empty store
            return self.track(MyStore(...))

        def handle(self, store):              # another connection to the same data
            return self.track(MyStore(store.url))

        def reopen(self, store):              # close it and open it again (durable backends)
            store.close()
            return self.track(MyStore(store.url))

        def reopen_factory(self, store):
            return lambda: self.track(MyStore(store.url))

    class TestMyStore(StoreConformance):
        @pytest.fixture
        def backend(self):
            b = MyBackend()
            yield b
            b.close_all()

The suite needs ``pytest`` and ``hypothesis`` (``pip install 'context-journal[testing]'``); importing
:mod:`context_journal.testing` alone does not. Nothing in it assumes SQLite: stores come from
``backend.new()``, a second handle from ``backend.handle()``, a restart from ``backend.reopen()``.

Its centre is a hypothesis state machine checked against a deliberately naive model: a fork *copies* the
visible records of its parent up to the fork sequence, and every branch is a plain list. The store shares
rows through lineage instead; the two must read the same on every branch, at every ``as_of``, through
every handle, and after a reopen. The other tests pin single rules: time travel, the latest state per
branch, blobs stored once by SHA-256, transactions that roll back on any exception (nested ones joining
the outermost), branch names, concurrent creates and deletes through two handles, migrations, closed
stores, and a second handle seeing every commit.

This is the required contract (:class:`~context_journal.stores.Store`). The parts a backend opts into
are tested where they are used: the execution journal (:class:`~context_journal.stores.JournalTable`),
the work queue (:class:`~context_journal.stores.queue.QueueStore`), the full-text index
(``Store.has_text_index``) and redaction (``Store.can_redact``).
"""

from __future__ import annotations

import hashlib
import itertools
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from ..errors import (
    BranchExistsError,
    BranchInUseError,
    BranchNotFoundError,
    MigrationError,
    StoreClosedError,
    StoreError,
)
from ..messages import MessageInput, MessageStore
from ..stores import ROOT_BRANCH, Op, Record, Store
from ..stores.migrations import Migration, MigrationTarget, apply_migrations
from ..tokens import EstimatingCounter

__all__ = ["StoreBackend", "StoreConformance"]


class StoreBackend:
    """How the suite makes stores of one backend; every store made through :meth:`track` is closed by
    :meth:`close_all`.

    Attributes:
        name: The backend's name (shown in test ids by the fixtures that parametrize over backends).
        durable: Whether a store survives :meth:`reopen` (and a second handle is a separate object). A
            backend that is not durable (the memory store) skips the reopen checks.
        migrations: The backend's ordered migration list (:class:`~context_journal.stores.migrations.Migration`);
            empty when it keeps no migration history (the migration tests then skip).
    """

    name: str = "abstract"
    durable: bool = True
    migrations: Sequence[Any] = ()

    def __init__(self) -> None:
        self._opened: list[Store] = []

    def track(self, store: Store) -> Store:
        """``store``, closed by :meth:`close_all`."""
        self._opened.append(store)
        return store

    def new(self) -> Store:
        """A fresh, empty store."""
        raise NotImplementedError

    def handle(self, store: Store) -> Store:
        """Another handle on the same stored data (another connection where the backend has them; the
        same object where sharing the object is how the backend is shared)."""
        raise NotImplementedError

    def reopen(self, store: Store) -> Store:
        """Close ``store`` and open it again (only called when :attr:`durable`)."""
        raise NotImplementedError

    def reopen_factory(self, store: Store) -> Callable[[], Store]:
        """A callable that opens a new handle on the store's data, as at process start (only called when
        :attr:`durable`)."""
        raise NotImplementedError

    def close_all(self) -> None:
        """Close every store made through :meth:`track`."""
        for s in self._opened:
            s.close()
        self._opened.clear()


_run_machine: Callable[..., None] = run_state_machine_as_test
"""hypothesis's runner (typed in some versions, not in others: named once here, called typed)."""


def _needs_migrations(backend: StoreBackend) -> None:
    if not backend.migrations:
        pytest.skip(f"the {backend.name} backend keeps no migration history")


def _migratable(store: Store) -> MigrationTarget:
    """``store`` as the migration runner sees it (a backend with migrations has these primitives)."""
    assert hasattr(store, "_applied_versions") and hasattr(store, "_run_migration"), "no migration primitives"
    return cast(MigrationTarget, store)


SLOTS = ("messages", "summaries/ann", "chunks")
STATE_KEYS = ("agents/ann/reader", "strategy", "genesis")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
bodies = st.dictionaries(st.sampled_from(["text", "n", "ß"]), json_values, min_size=1, max_size=3)


class Boom(Exception):
    """Raised inside transactions that must roll back."""


class HardStop(BaseException):
    """Not an Exception: transactions roll back on these too (KeyboardInterrupt, SystemExit...)."""


# ---- the naive model ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MRec:
    seq: int
    branch_id: int
    slot: str
    item: str
    op: Op
    value: Any


def as_tuple(rec: Record | MRec) -> tuple[int, int, str, str, Op, Any]:
    value = rec.value() if isinstance(rec, Record) else rec.value
    return (rec.seq, rec.branch_id, rec.slot, rec.item, Op(rec.op), value)


@dataclass
class Model:
    """Each branch is a list of the records it sees; a fork copies its parent's list up to the fork."""

    root_id: int
    head: int = 0
    views: dict[int, list[MRec]] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    parent: dict[int, int | None] = field(default_factory=dict)
    deleted: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.views[self.root_id] = []
        self.names[self.root_id] = ROOT_BRANCH
        self.parent[self.root_id] = None

    def write(self, branch_id: int, slot: str, item: str, op: Op, value: Any) -> MRec:
        self.head += 1
        rec = MRec(self.head, branch_id, slot, item, op, value)
        self.views[branch_id].append(rec)
        return rec

    def fork(self, new_id: int, name: str, from_id: int, at: int) -> None:
        self.views[new_id] = [r for r in self.views[from_id] if r.seq <= at]
        self.names[new_id] = name
        self.parent[new_id] = from_id

    def live(self) -> dict[str, int]:
        return {n: i for i, n in self.names.items() if i not in self.deleted}

    def read(
        self, branch_id: int, slot: str, after: int = 0, as_of: int | None = None, item: str | None = None
    ) -> list[tuple[int, int, str, str, Op, Any]]:
        upto = self.head if as_of is None else as_of
        return [
            as_tuple(r)
            for r in self.views[branch_id]
            if r.slot == slot and after < r.seq <= upto and (item is None or r.item == item)
        ]

    def state(self, branch_id: int, key: str, as_of: int | None = None) -> tuple[bool, Any]:
        found: tuple[bool, Any] = (False, None)
        for t in self.read(branch_id, "state", as_of=as_of, item=key):
            found = (True, t[5])
        return found

    def items(self, branch_id: int, slot: str, live: bool) -> list[str]:
        last: dict[str, Op] = {}
        for r in self.views[branch_id]:
            if r.slot == slot:
                last[r.item] = r.op
        return sorted(i for i, op in last.items() if (op != Op.REMOVE) == live)


_MISSING = object()


def check_against_model(model: Model, store: Store) -> None:
    """Every branch (deleted ones too) reads exactly its model list, for every slot and state key."""
    assert store.head_seq() == model.head
    assert {b.name: b.id for b in store.list_branches()} == model.live()
    for bid in model.views:
        for slot in (*SLOTS, "state"):
            assert [as_tuple(r) for r in store.read_slot(slot, bid)] == model.read(bid, slot)
        for key in STATE_KEYS:
            exists, value = model.state(bid, key)
            assert store.get_state(bid, key, default=_MISSING) == (value if exists else _MISSING)


# ---- the state machine -------------------------------------------------------------------------------


def make_machine(backend: StoreBackend) -> type[RuleBasedStateMachine]:
    class StoreMachine(RuleBasedStateMachine):
        """Random interleavings of writes, edits, tombstones, states, forks (at earlier sequences, of forks),
        deletions and failed transactions, through two handles; reads checked against :class:`Model`."""

        def __init__(self) -> None:
            super().__init__()
            self.store = backend.new()
            self.handles = [self.store, backend.handle(self.store)]
            self.model = Model(self.store.get_branch(ROOT_BRANCH).id)
            self.item_ids = itertools.count()
            self.branch_names = itertools.count()

        # -- helpers
        def pick_handle(self, data: st.DataObject) -> Store:
            return data.draw(st.sampled_from(self.handles), label="handle")

        def pick_branch(self, data: st.DataObject) -> str:
            return data.draw(st.sampled_from(sorted(self.model.live())), label="branch")

        def leaves(self) -> list[str]:
            """Live non-root branches without live children (the deletable ones)."""
            parents = {self.model.parent[i] for i in self.model.live().values()}
            return sorted(n for n, i in self.model.live().items() if n != ROOT_BRANCH and i not in parents)

        def resolve(self, h: Store, name: str) -> int:
            """The branch's id through the handle, which must be the live branch of that name."""
            bid = h.get_branch(name).id
            assert bid == self.model.live()[name]
            return bid

        def draw_write(self, data: st.DataObject, bid: int) -> tuple[str, str, Op, Any]:
            kind = data.draw(st.sampled_from(["append", "append", "edit", "remove", "state"]), label="kind")
            slot = data.draw(st.sampled_from(SLOTS), label="slot")
            live = self.model.items(bid, slot, live=True)
            if kind == "state":
                return "state", data.draw(st.sampled_from(STATE_KEYS)), Op.STATE, data.draw(json_values)
            if kind in ("edit", "remove") and live:
                item = data.draw(st.sampled_from(live), label="item")
                if kind == "edit":
                    return slot, item, Op.EDIT, data.draw(bodies)
                return slot, item, Op.REMOVE, None
            return slot, f"i{next(self.item_ids)}", Op.APPEND, data.draw(bodies)

        # -- writes
        @rule(data=st.data())
        def write(self, data: st.DataObject) -> None:
            h = self.pick_handle(data)
            bid = self.resolve(h, self.pick_branch(data))
            slot, item, op, value = self.draw_write(data, bid)
            with h.transaction() as tx:
                seq = tx.put_state(bid, item, value) if op == Op.STATE else tx.append(bid, slot, item, value, op)
            assert seq == self.model.write(bid, slot, item, op, value).seq
            assert tx.seqs == [seq]

        @rule(data=st.data(), n=st.integers(2, 4))
        def batch(self, data: st.DataObject, n: int) -> None:
            """Several writes (possibly on several branches) in one transaction, with a nested one inside."""
            h = self.pick_handle(data)
            with h.transaction() as tx:
                for _ in range(n):
                    bid = self.resolve(h, self.pick_branch(data))
                    slot, item, op, value = self.draw_write(data, bid)
                    with h.transaction() as inner:  # joins the outer transaction
                        assert inner is tx
                        seq = tx.append(bid, slot, item, value, op)
                    assert seq == self.model.write(bid, slot, item, op, value).seq

        @rule(data=st.data(), error=st.sampled_from([Boom, HardStop, KeyError]), nested=st.booleans())
        def failed_transaction(self, data: st.DataObject, error: type[BaseException], nested: bool) -> None:
            """Writes, a branch creation and a blob, then an exception: nothing stays, no sequence is used."""
            h = self.pick_handle(data)
            bid = self.resolve(h, self.pick_branch(data))
            name = f"ghost{next(self.branch_names)}"
            blob = f"ghost blob {name}".encode()
            with pytest.raises(error), h.transaction() as tx:
                for _ in range(data.draw(st.integers(1, 3))):
                    slot, item, op, value = self.draw_write(data, bid)
                    tx.append(bid, slot, item, value, op)
                h.create_branch(name, ROOT_BRANCH)
                digest = tx.put_blob(blob)
                deletable = self.leaves()
                if deletable and bool(data.draw(st.booleans(), label="delete too")):
                    h.delete_branch(data.draw(st.sampled_from(deletable)))
                if nested:
                    with h.transaction():
                        tx.put_state(bid, "strategy", "doomed")
                        raise error("inner")
                raise error("outer")
            for other in self.handles:
                with pytest.raises(BranchNotFoundError):
                    other.get_branch(name)
                with pytest.raises(KeyError):
                    other.get_blob(digest)
            # no sequence was consumed: the invariant checks the head, the next write checks head + 1

        # -- branches
        @rule(data=st.data(), pinned=st.booleans())
        def fork(self, data: st.DataObject, pinned: bool) -> None:
            h = self.pick_handle(data)
            src = self.pick_branch(data)
            at = data.draw(st.integers(0, self.model.head), label="at") if pinned else None
            name = f"b{next(self.branch_names)}"
            info = h.create_branch(name, src, at_sequence=at)
            assert info.name == name and info.parent_id == self.model.live()[src]
            assert info.fork_seq == (self.model.head if at is None else at)
            self.model.fork(info.id, name, self.model.live()[src], info.fork_seq)

        @rule(data=st.data())
        def fork_existing_name_refused(self, data: st.DataObject) -> None:
            h = self.pick_handle(data)
            name = self.pick_branch(data)
            with pytest.raises(BranchExistsError):
                h.create_branch(name, ROOT_BRANCH)

        @rule(data=st.data())
        def fork_out_of_range_refused(self, data: st.DataObject) -> None:
            h = self.pick_handle(data)
            at = data.draw(st.sampled_from([-1, self.model.head + 1, self.model.head + 100]))
            with pytest.raises(ValueError):
                h.create_branch(f"never{next(self.branch_names)}", ROOT_BRANCH, at_sequence=at)
            with pytest.raises(BranchNotFoundError):
                h.create_branch(f"never{next(self.branch_names)}", "no-such-branch")

        @precondition(lambda self: len(self.model.live()) > 1)
        @rule(data=st.data())
        def delete(self, data: st.DataObject) -> None:
            h = self.pick_handle(data)
            name = data.draw(st.sampled_from(sorted(n for n in self.model.live() if n != ROOT_BRANCH)))
            bid = self.model.live()[name]
            children = sorted(
                n for i, n in self.model.names.items() if self.model.parent[i] == bid and i not in self.model.deleted
            )
            if children:
                with pytest.raises(BranchInUseError) as err:
                    h.delete_branch(name)
                assert sorted(err.value.children) == children
                return
            h.delete_branch(name)
            self.model.deleted.add(bid)
            if data.draw(st.booleans(), label="recreate"):
                # reset: the name at once names a new branch, and every handle must resolve it so
                info = self.pick_handle(data).create_branch(name, ROOT_BRANCH)
                self.model.fork(info.id, name, self.model.root_id, self.model.head)
                for other in self.handles:
                    self.resolve(other, name)

        @rule(data=st.data())
        def delete_root_refused(self, data: st.DataObject) -> None:
            with pytest.raises(BranchInUseError):
                self.pick_handle(data).delete_branch(ROOT_BRANCH)

        @precondition(lambda self: bool(self.model.deleted))
        @rule(data=st.data())
        def reuse_deleted_name(self, data: st.DataObject) -> None:
            """A deleted branch's name is free again; the new branch is a different branch."""
            dead = data.draw(st.sampled_from(sorted(self.model.deleted)))
            name = self.model.names[dead]
            if name in self.model.live():
                return
            info = self.pick_handle(data).create_branch(name, ROOT_BRANCH)
            assert info.id != dead
            self.model.fork(info.id, name, self.model.root_id, self.model.head)

        # -- reads
        @rule(data=st.data())
        def read_as_of(self, data: st.DataObject) -> None:
            """Time travel, incremental reads (``after``) and item reads, on any branch, deleted ones too."""
            h = self.pick_handle(data)
            bid = data.draw(st.sampled_from(sorted(self.model.views)))
            as_of = data.draw(st.none() | st.integers(0, self.model.head + 2))
            after = data.draw(st.integers(0, self.model.head + 1))
            slot = data.draw(st.sampled_from((*SLOTS, "state")))
            assert [as_tuple(r) for r in h.read_slot(slot, bid, as_of=as_of)] == self.model.read(bid, slot, as_of=as_of)
            assert [as_tuple(r) for r in h.read_slot(slot, bid, after=after, as_of=as_of)] == self.model.read(
                bid, slot, after=after, as_of=as_of
            )
            items = sorted({t[3] for t in self.model.read(bid, slot)}) or ["absent"]
            item = data.draw(st.sampled_from(items))
            assert [as_tuple(r) for r in h.read_slot(slot, bid, item=item, as_of=as_of)] == self.model.read(
                bid, slot, item=item, as_of=as_of
            )
            for key in STATE_KEYS:
                exists, value = self.model.state(bid, key, as_of)
                assert h.get_state(bid, key, as_of=as_of, default=_MISSING) == (value if exists else _MISSING)

        @rule(data=st.data())
        def branch_list(self, data: st.DataObject) -> None:
            # A rule, not an invariant: listing reloads a handle's branch table, and the other rules must
            # also meet handles whose table is stale (a name deleted and reused through another handle).
            h = self.pick_handle(data)
            assert {b.name: b.id for b in h.list_branches()} == self.model.live()
            assert {b.id for b in h.list_branches(include_deleted=True)} == set(self.model.views)

        @invariant()
        def head(self) -> None:
            for h in self.handles:
                assert h.head_seq() == self.model.head

        def teardown(self) -> None:
            try:
                for h in self.handles:
                    check_against_model(self.model, h)
                if backend.durable:
                    check_against_model(self.model, backend.reopen(self.store))
            finally:
                for h in self.handles:
                    h.close()

    return StoreMachine


# ---- lifecycle -------------------------------------------------------------------------------------------

CLOSED_CALLS: list[tuple[str, Callable[[Store], Any]]] = [
    ("transaction", lambda s: s.transaction().__enter__()),
    ("read_slot", lambda s: s.read_slot("messages", 1)),
    ("get_state", lambda s: s.get_state(1, "k")),
    ("get_blob", lambda s: s.get_blob("0" * 64)),
    ("get_branch", lambda s: s.get_branch(ROOT_BRANCH)),
    ("list_branches", lambda s: s.list_branches()),
    ("create_branch", lambda s: s.create_branch("x")),
    ("delete_branch", lambda s: s.delete_branch("x")),
    ("change_token", lambda s: s.change_token()),
    ("head_seq", lambda s: s.head_seq()),
    ("stats", lambda s: s.stats()),
    ("branch_heads", lambda s: s.branch_heads()),
]


class StoreConformance:
    """The store contract's tests; subclass it as ``Test...`` with a ``backend`` fixture (see the module
    docstring). Override :meth:`machine_examples` or :meth:`machine_settings` to run the state machine
    longer or shorter."""

    def machine_examples(self, backend: StoreBackend) -> int:
        """Examples of the state machine (30 steps each) for ``backend``: 20 by default."""
        return 20

    def machine_settings(self, backend: StoreBackend) -> settings:
        """The state machine's hypothesis settings: :meth:`machine_examples` examples of 30 steps, no
        deadline (a store on a network is slow). Override to change more (``phases`` without shrinking
        when only pass or fail matters)."""
        return settings(
            max_examples=self.machine_examples(backend),
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        )

    @pytest.fixture
    def store(self, backend: StoreBackend) -> Store:
        """A fresh, empty store of the backend."""
        return backend.new()

    def test_branching_visibility_matches_naive_model(self, backend: StoreBackend) -> None:
        """Every branch reads exactly its lineage (invariant 8), at every sequence, through two handles."""
        _run_machine(make_machine(backend), settings=self.machine_settings(backend))

    def test_time_travel_reads_each_version(self, store: Store) -> None:
        main = store.get_branch(ROOT_BRANCH).id
        with store.transaction() as tx:
            s1 = tx.append(main, "messages", "m1", {"text": "v1"})
        with store.transaction() as tx:
            s2 = tx.append(main, "messages", "m1", {"text": "v2"}, Op.EDIT)
        with store.transaction() as tx:
            s3 = tx.append(main, "messages", "m1", None, Op.REMOVE)
        assert (s1, s2, s3) == (1, 2, 3)

        def latest(as_of: int | None) -> Record | None:
            recs = store.read_slot("messages", main, item="m1", as_of=as_of)
            return recs[-1] if recs else None

        assert latest(0) is None
        assert latest(1) is not None and latest(1).value() == {"text": "v1"}  # type: ignore[union-attr]
        assert latest(2) is not None and latest(2).value() == {"text": "v2"}  # type: ignore[union-attr]
        tomb = latest(None)
        assert tomb is not None and tomb.op == Op.REMOVE and tomb.body is None and tomb.value() is None
        # the tombstone hides nothing: every version stays readable
        assert [r.op for r in store.read_slot("messages", main)] == [Op.APPEND, Op.EDIT, Op.REMOVE]

    def test_states_latest_visible_wins_per_branch(self, store: Store) -> None:
        main = store.get_branch(ROOT_BRANCH).id
        with store.transaction() as tx:
            tx.put_state(main, "k", {"v": 1})
        with store.transaction() as tx:
            s2 = tx.put_state(main, "k", {"v": 2})
        fork = store.create_branch("fork")
        with store.transaction() as tx:
            tx.put_state(main, "k", {"v": 3})
            tx.put_state(fork.id, "other", "fork only")
        assert store.get_state(main, "k") == {"v": 3}
        assert store.get_state(fork.id, "k") == {"v": 2}  # inherited up to the fork
        assert store.get_state(main, "other", default="unset") == "unset"
        assert store.get_state(fork.id, "other") == "fork only"
        assert store.get_state(main, "k", as_of=s2) == {"v": 2}
        assert store.get_state(main, "k", as_of=0, default=None) is None
        rec = store.get_state_record(fork.id, "k")
        assert rec is not None and rec.seq == s2 and rec.branch_id == main and rec.op == Op.STATE
        # a state holding JSON null is a value, not an absence
        with store.transaction() as tx:
            tx.put_state(main, "nullable", None)
        assert store.get_state(main, "nullable", default="unset") is None

    def test_states_fetched_ahead_in_a_read_scope_are_the_ones_read_one_by_one(self, store: Store) -> None:
        """``prefetch_states`` inside ``read_scope`` (what a compile does): the records it keeps are those
        ``get_state_record`` finds outside a scope, across the lineage and with ``as_of``; a write inside
        the scope is read after it."""
        main = store.get_branch(ROOT_BRANCH).id
        with store.transaction() as tx:
            tx.put_state(main, "ns/a", 1)
            tx.put_state(main, "ns/b", 1)
        with store.transaction() as tx:
            s2 = tx.put_state(main, "ns/b", 2)
            tx.put_state(main, "ns/c", None)
        fork = store.create_branch("fork")
        with store.transaction() as tx:
            tx.put_state(fork.id, "ns/b", 3)
            tx.put_state(main, "ns/a", 4)
        keys = ["ns/a", "ns/b", "ns/c", "ns/missing", "ns/a"]
        for branch, as_of in ((main, None), (fork.id, None), (main, s2), (fork.id, 0)):
            alone = {k: store.get_state_record(branch, k, as_of) for k in keys}
            with store.read_scope():
                store.prefetch_states(branch, keys, as_of)
                assert {k: store.get_state_record(branch, k, as_of) for k in keys} == alone
        with store.read_scope():
            store.prefetch_states(fork.id, keys)
            assert store.get_state(fork.id, "ns/b") == 3
            with store.transaction() as tx:
                tx.put_state(fork.id, "ns/b", 5)
            assert store.get_state(fork.id, "ns/b") == 5
        store.prefetch_states(main, keys)  # outside a scope: nothing kept, nothing wrong
        assert store.get_state(main, "ns/a") == 4
        many = [f"ns/k{i}" for i in range(700)] + ["ns/a"]  # more than a statement may hold
        with store.read_scope():
            store.prefetch_states(main, many)
            assert store.get_state(main, "ns/a") == 4 and store.get_state(main, "ns/k699", default="unset") == "unset"

    def test_blobs_are_stored_once_by_sha256(self, store: Store) -> None:
        data = bytes(range(256)) * 40
        before = store.stats().payload_bytes
        with store.transaction() as tx:
            d1 = tx.put_blob(data)
        with store.transaction() as tx:
            d2 = tx.put_blob(data)
            d3 = tx.put_blob(b"")
        assert d1 == d2 == hashlib.sha256(data).hexdigest()
        assert d3 == hashlib.sha256(b"").hexdigest()
        assert store.get_blob(d1) == data and store.get_blob(d3) == b""
        assert store.stats().payload_bytes - before == len(data)  # stored once
        assert store.head_seq() == 0  # blobs take no sequence
        with pytest.raises(KeyError):
            store.get_blob("0" * 64)

    @pytest.mark.parametrize("error", [Boom, HardStop, KeyboardInterrupt, StoreError])
    def test_transaction_rolls_back_on_any_exception(self, store: Store, error: type[BaseException]) -> None:
        main = store.get_branch(ROOT_BRANCH).id
        with store.transaction() as tx:
            tx.append(main, "messages", "kept", {"text": "kept"})
        before = store.stats()
        with pytest.raises(error), store.transaction() as tx:
            tx.append(main, "messages", "lost", {"text": "lost"})
            tx.put_state(main, "k", 1)
            tx.put_blob(b"lost blob")
            store.create_branch("lost-branch")
            raise error("boom")
        after = store.stats()
        assert (after.records, after.payload_bytes, after.head_seq) == (before.records, before.payload_bytes, 1)
        assert [r.item for r in store.read_slot("messages", main)] == ["kept"]
        assert store.list_slots() == ["messages"]  # no trace of the rolled-back "state" slot
        assert store.get_state(main, "k") is None
        assert [b.name for b in store.list_branches(include_deleted=True)] == [ROOT_BRANCH]
        with pytest.raises(KeyError):
            store.get_blob(hashlib.sha256(b"lost blob").hexdigest())
        # the sequence was not consumed
        with store.transaction() as tx:
            assert tx.append(main, "messages", "next", {"text": "next"}) == before.head_seq + 1

    def test_rollback_undoes_a_branch_deletion(self, store: Store) -> None:
        store.create_branch("child")
        with pytest.raises(Boom), store.transaction():
            store.delete_branch("child")
            raise Boom
        assert [b.name for b in store.list_branches()] == [ROOT_BRANCH, "child"]
        assert not store.get_branch("child").deleted

    def test_nested_transactions_join(self, store: Store) -> None:
        main = store.get_branch(ROOT_BRANCH).id
        with store.transaction() as outer:
            outer.append(main, "messages", "a", {"n": 1})
            with store.transaction() as inner:
                assert inner is outer
                inner.append(main, "messages", "b", {"n": 2})
        assert [r.item for r in store.read_slot("messages", main)] == ["a", "b"]
        # an exception escaping the inner block rolls back the outer writes too
        with pytest.raises(Boom), store.transaction() as outer:
            outer.append(main, "messages", "c", {"n": 3})
            with store.transaction() as inner:
                inner.append(main, "messages", "d", {"n": 4})
                raise Boom
        # the outer block failing after the inner one ended rolls back the inner writes
        with pytest.raises(Boom), store.transaction() as outer:
            with store.transaction() as inner:
                inner.append(main, "messages", "e", {"n": 5})
            raise Boom
        assert [r.item for r in store.read_slot("messages", main)] == ["a", "b"]
        assert store.head_seq() == 2

    def test_commit_and_rollback_callbacks_follow_the_outermost_transaction(self, store: Store) -> None:
        main = store.get_branch(ROOT_BRANCH).id
        events: list[str] = []
        with store.transaction() as outer:
            outer.append(main, "messages", "a", {"n": 1})
            with store.transaction() as inner:
                inner.on_commit(lambda: events.append(f"commit, head {store.head_seq()}"))
                inner.on_rollback(lambda: events.append("rollback"))
            assert events == []  # the inner block ending commits nothing
        assert events == ["commit, head 1"]
        events.clear()
        with pytest.raises(Boom), store.transaction() as outer:
            with store.transaction() as inner:
                inner.append(main, "messages", "b", {"n": 2})
                inner.on_commit(lambda: events.append("commit"))
                inner.on_rollback(lambda: events.append(f"rollback, head {store.head_seq()}"))
            raise Boom
        assert events == ["rollback, head 1"]
        events.clear()
        with store.transaction():
            pass
        assert events == []  # callbacks run once, for their own transaction only

    def test_branch_names_unique_among_live_branches(self, store: Store) -> None:
        a = store.create_branch("a")
        with pytest.raises(BranchExistsError) as err:
            store.create_branch("a")
        assert err.value.branch == "a"
        with pytest.raises(BranchExistsError):
            store.create_branch(ROOT_BRANCH)
        with pytest.raises(ValueError):
            store.create_branch("")
        store.delete_branch("a")
        a2 = store.create_branch("a")
        assert a2.id != a.id
        assert [b.name for b in store.list_branches()] == [ROOT_BRANCH, "a"]
        deleted = [b for b in store.list_branches(include_deleted=True) if b.deleted]
        assert [(b.id, b.name) for b in deleted] == [(a.id, "a")]
        assert store.branch_by_id(a.id).deleted

    def test_concurrent_creates_of_one_name_one_wins(self, backend: StoreBackend) -> None:
        """Two handles creating the same branch name at once: exactly one succeeds, the other is refused."""
        first = backend.new()
        handles = [first, backend.handle(first)]
        for round_ in range(10):
            barrier = threading.Barrier(2)
            outcomes: list[str] = []

            def create(
                h: Store,
                barrier: threading.Barrier = barrier,
                name: str = f"race{round_}",
                outcomes: list[str] = outcomes,
            ) -> None:
                barrier.wait()
                try:
                    h.create_branch(name)
                    outcomes.append("created")
                except BranchExistsError:
                    outcomes.append("refused")
                except BaseException as exc:
                    outcomes.append(repr(exc))

            threads = [threading.Thread(target=create, args=(h,)) for h in handles]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert sorted(outcomes) == ["created", "refused"]
            assert [b.name for b in first.list_branches()].count(f"race{round_}") == 1

    def test_concurrent_delete_and_fork_of_one_branch(self, backend: StoreBackend) -> None:
        """Deleting a branch while another handle forks it: one of the two is refused; never a deleted
        branch with a live child."""
        first = backend.new()
        handles = [first, backend.handle(first)]
        for round_ in range(10):
            parent = f"p{round_}"
            first.create_branch(parent)
            barrier = threading.Barrier(2)
            outcomes: dict[str, str] = {}

            def run(
                op: str, h: Store, b: threading.Barrier = barrier, parent: str = parent, out: dict[str, str] = outcomes
            ) -> None:
                b.wait()
                try:
                    if op == "delete":
                        h.delete_branch(parent)
                    else:
                        h.create_branch(f"{parent}-child", parent)
                    out[op] = "done"
                except (BranchInUseError, BranchNotFoundError) as exc:
                    out[op] = type(exc).__name__
                except BaseException as exc:
                    out[op] = repr(exc)

            ops = zip(["delete", "fork"], handles, strict=True)
            threads = [threading.Thread(target=run, args=(op, h)) for op, h in ops]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert outcomes in (
                {"delete": "done", "fork": "BranchNotFoundError"},
                {"delete": "BranchInUseError", "fork": "done"},
            ), outcomes
            live = {b.name: b for b in first.list_branches()}
            if f"{parent}-child" in live:
                assert parent in live

    def test_delete_branch_refusals(self, store: Store) -> None:
        with pytest.raises(BranchInUseError) as err:
            store.delete_branch(ROOT_BRANCH)
        assert err.value.branch == ROOT_BRANCH
        store.create_branch("parent")
        store.create_branch("kid1", "parent")
        store.create_branch("kid2", "parent")
        with pytest.raises(BranchInUseError) as err:
            store.delete_branch("parent")
        assert sorted(err.value.children) == ["kid1", "kid2"]
        assert "kid1" in str(err.value)
        with pytest.raises(BranchNotFoundError):
            store.delete_branch("nope")
        store.delete_branch("kid1")
        store.delete_branch("kid2")
        store.delete_branch("parent")
        with pytest.raises(BranchNotFoundError):
            store.delete_branch("parent")
        assert [b.name for b in store.list_branches()] == [ROOT_BRANCH]

    def test_deleted_branch_records_stay_readable_through_children(self, store: Store) -> None:
        """A branch whose children were deleted first can go; records its grandchildren saw are kept."""
        main = store.get_branch(ROOT_BRANCH).id
        mid = store.create_branch("mid")
        with store.transaction() as tx:
            tx.append(mid.id, "messages", "on-mid", {"t": 1})
        leaf = store.create_branch("leaf", "mid")
        store.delete_branch("leaf")
        store.delete_branch("mid")
        assert [r.item for r in store.read_slot("messages", leaf.id)] == ["on-mid"]
        assert store.read_slot("messages", main) == []

    def test_branch_creation_is_one_row(self, store: Store) -> None:
        """Forking copies nothing: no record and no sequence is written."""
        main = store.get_branch(ROOT_BRANCH).id
        with store.transaction() as tx:
            for i in range(50):
                tx.append(main, "messages", f"m{i}", {"i": i})
        before = store.stats()
        info = store.create_branch("f", at_sequence=10)
        after = store.stats()
        assert (after.records, after.payload_bytes, after.head_seq) == (before.records, before.payload_bytes, 50)
        assert (info.parent_id, info.fork_seq) == (main, 10)
        assert [r.item for r in store.read_slot("messages", info.id)] == [f"m{i}" for i in range(10)]
        assert store.branch_heads() == {main: 50}

    def test_migrations_are_recorded(self, backend: StoreBackend) -> None:
        _needs_migrations(backend)
        store = backend.new()
        versions = [m.version for m in backend.migrations]
        assert versions == sorted(set(versions)) and versions[0] == 1
        assert _migratable(store)._applied_versions() == set(versions)
        assert apply_migrations(store, backend.migrations) == []  # idempotent
        if backend.durable:
            store = backend.reopen(store)
            assert _migratable(store)._applied_versions() == set(versions)

    def test_unknown_newer_schema_version_refused(self, backend: StoreBackend) -> None:
        _needs_migrations(backend)
        store = backend.new()
        future = max(m.version for m in backend.migrations) + 1
        _migratable(store)._run_migration(future, "from a newer library", lambda: None)
        with pytest.raises(MigrationError) as err:
            apply_migrations(store, backend.migrations)
        assert err.value.version == future
        assert "upgrade" in str(err.value)
        if backend.durable:
            with pytest.raises(MigrationError):
                backend.reopen(store)

    def test_failed_migration_rolls_back(self, backend: StoreBackend) -> None:
        _needs_migrations(backend)
        store = backend.new()
        main = store.get_branch(ROOT_BRANCH).id
        nxt = max(m.version for m in backend.migrations) + 1

        def bad(target: Store) -> None:
            with target.transaction() as tx:
                tx.append(main, "messages", "half", {"t": "migrated"})
            raise RuntimeError("step failed")

        with pytest.raises(MigrationError) as err:
            apply_migrations(store, [*backend.migrations, Migration(nxt, "bad", bad)])
        assert err.value.version == nxt
        assert nxt not in _migratable(store)._applied_versions()
        assert store.read_slot("messages", main) == [] and store.head_seq() == 0

    @pytest.mark.parametrize("call", [c for _, c in CLOSED_CALLS], ids=[n for n, _ in CLOSED_CALLS])
    def test_closed_store_raises(self, store: Store, call: Callable[[Store], Any]) -> None:
        store.close()
        store.close()  # idempotent
        assert store.closed
        with pytest.raises(StoreClosedError):
            call(store)

    def test_store_is_a_context_manager(self, backend: StoreBackend) -> None:
        with backend.new() as store:
            assert not store.closed
        assert store.closed

    def test_second_handle_sees_writes(self, backend: StoreBackend) -> None:
        first = backend.new()
        second = backend.handle(first)
        main = first.get_branch(ROOT_BRANCH).id
        token = second.change_token()
        with first.transaction() as tx:
            tx.append(main, "messages", "m1", {"t": 1})
        assert second.change_token() != token
        assert [r.item for r in second.read_slot("messages", main)] == ["m1"]
        assert second.head_seq() == 1
        # branches made on one handle are found on the other, and deletions are seen
        first.create_branch("side")
        assert second.get_branch("side").fork_seq == 1
        token = second.change_token()
        first.delete_branch("side")
        assert second.change_token() != token
        with pytest.raises(BranchNotFoundError):
            second.get_branch("side")
        # a name deleted and reused elsewhere resolves to the new branch
        second.create_branch("side2")
        first_side2 = first.get_branch("side2")
        second.delete_branch("side2")
        again = second.create_branch("side2")
        assert again.id != first_side2.id
        assert first.get_branch("side2").id == again.id

    def test_change_token_changes_on_every_commit(self, backend: StoreBackend) -> None:
        """Also on this handle's own commits: several caches may share one handle."""
        store = backend.new()
        main = store.get_branch(ROOT_BRANCH).id
        seen = {store.change_token()}
        for step in range(3):
            with store.transaction() as tx:
                tx.append(main, "messages", f"m{step}", {"step": step})
            seen.add(store.change_token())
        store.create_branch("b")
        seen.add(store.change_token())
        store.delete_branch("b")
        seen.add(store.change_token())
        assert len(seen) == 6

    def test_token_after_commit_is_the_token_the_commit_leaves(self, backend: StoreBackend) -> None:
        """Inside a write transaction, ``token_after_commit()`` is the change token the commit leaves: a
        cache that records it refreshes on the next foreign write and never on its own (a wrong value only
        shows as needless refreshes or, worse, a missed one)."""
        store = backend.new()
        main = store.get_branch(ROOT_BRANCH).id
        other = backend.handle(store)
        for step in range(3):
            with store.transaction() as tx:
                tx.append(main, "messages", f"m{step}", {"step": step})
                expected = store.token_after_commit()
            assert store.change_token() == expected
            with other.transaction() as tx:  # a foreign write moves the token on
                tx.append(main, "messages", f"o{step}", {"step": step})
            assert store.change_token() != expected

    def test_records_keep_the_time_they_were_written(self, backend: StoreBackend) -> None:
        """Every record carries the wall-clock time of its write (seconds since the epoch; message times
        and retention fall back to it), the same through every handle and after a reopen."""
        store = backend.new()
        main = store.get_branch(ROOT_BRANCH).id
        stamps: dict[int, tuple[float, float]] = {}
        for step in range(3):
            before = time.time()
            with store.transaction() as tx:
                seq = tx.append(main, "messages", f"m{step}", {"step": step})
            stamps[seq] = (before, time.time())
            time.sleep(0.01)
        handles = [store, backend.handle(store)]
        if backend.durable:
            handles.append(backend.reopen_factory(store)())
        for h in handles:
            records = h.read_slot("messages", main)
            assert [r.seq for r in records] == sorted(stamps)
            for r in records:
                lo, hi = stamps[r.seq]
                assert lo - 1.0 <= r.ts <= hi + 1.0, (r.seq, r.ts, lo, hi)  # a second of clock slack
            assert [r.ts for r in records] == sorted(r.ts for r in records)

    def test_records_keep_the_index_fields_they_were_written_with(self, backend: StoreBackend) -> None:
        """``Record.ix`` (a message version's count under its counter's key) is read back as written,
        through every handle and after a reopen; a record written without one reads None."""
        store = backend.new()
        main = store.get_branch(ROOT_BRANCH).id
        with store.transaction() as tx:
            tx.append_text(main, "messages", "counted", '{"participant":"user","content":[]}', Op.APPEND, "k1 7")
            tx.append_text(main, "messages", "plain", '{"participant":"user","content":[]}', Op.APPEND)
            tx.append_text(main, "messages", "counted", None, Op.REMOVE)
        handles = [store, backend.handle(store)]
        if backend.durable:
            handles.append(backend.reopen_factory(store)())
        for h in handles:
            assert [(r.item, r.ix) for r in h.read_slot("messages", main)] == [
                ("counted", "k1 7"),
                ("plain", None),
                ("counted", None),
            ]

    def test_a_new_process_reads_what_was_committed(self, backend: StoreBackend) -> None:
        """A handle opened as at process start (``reopen_factory``) reads every committed record, state,
        blob and branch, and none of a transaction that rolled back."""
        if not backend.durable:
            pytest.skip(f"the {backend.name} backend is not durable")
        store = backend.new()
        main = store.get_branch(ROOT_BRANCH).id
        with store.transaction() as tx:
            tx.append(main, "messages", "kept", {"text": "kept"})
            tx.put_state(main, "strategy", {"name": "windowed"})
            digest = tx.put_blob(b"blob bytes")
        fork = store.create_branch("side")
        with pytest.raises(Boom), store.transaction() as tx:
            tx.append(main, "messages", "lost", {"text": "lost"})
            raise Boom
        fresh = backend.reopen_factory(store)()
        assert fresh.head_seq() == store.head_seq()
        assert [r.item for r in fresh.read_slot("messages", main)] == ["kept"]
        assert fresh.get_state(main, "strategy") == {"name": "windowed"}
        assert fresh.get_blob(digest) == b"blob bytes"
        assert fresh.get_branch("side").id == fork.id

    def test_message_store_refresh_reads_only_new_records(self, backend: StoreBackend) -> None:
        """A MessageStore on a second handle picks up another handle's writes, and reads only those."""
        first = backend.new()
        second = backend.handle(first)
        main = first.get_branch(ROOT_BRANCH).id
        writer = MessageStore(first, "messages", main, EstimatingCounter())
        writer.append([MessageInput("user", f"hello {i}", id=f"m{i}") for i in range(3)])
        reader = MessageStore(second, "messages", main, EstimatingCounter())
        assert reader.count() == 3
        assert reader.refresh() is False  # nothing new

        calls: list[tuple[int, list[str]]] = []
        original = second.read_slot

        def spy(slot: str, branch_id: int, **kw: Any) -> list[Record]:
            out = original(slot, branch_id, **kw)
            calls.append((kw.get("after", 0), [r.item for r in out]))
            return out

        second.read_slot = spy  # type: ignore[method-assign]
        last = reader.last_seq
        writer.append([MessageInput("user", "four", id="m3"), MessageInput("ann", "five", id="m4")])
        writer.remove("m0")
        assert reader.refresh() is True
        assert calls == [(last, ["m3", "m4", "m0"])]
        assert [m.id for m in reader.slice()] == ["m1", "m2", "m3", "m4"]
        assert reader.refresh() is False

    def test_two_message_stores_on_one_handle_see_each_other(self, store: Store) -> None:
        """Several managers (namespaces) may share one handle: each sees the other's writes."""
        main = store.get_branch(ROOT_BRANCH).id
        a = MessageStore(store, "messages", main, EstimatingCounter())
        b = MessageStore(store, "messages", main, EstimatingCounter())
        a.append([MessageInput("ann", "from a", id="a1")])
        assert b.count() == 1
        b.append([MessageInput("bob", "from b", id="b1")])
        assert [m.id for m in a.slice()] == ["a1", "b1"]
        assert a.get("b1").text() == "from b"

    def test_state_records_in_a_slot_of_their_own_follow_lineage(self, store: Store) -> None:
        """``get_state_record(slot=...)``: state records kept outside ``state`` (the ledger's checkpoints)
        are read like states: latest visible wins, a fork sees its parent's up to the fork point only."""
        root = store.get_branch(ROOT_BRANCH).id
        with store.transaction() as tx:
            tx.append(root, "ledger", "k", {"v": 1}, Op.STATE)
        fork = store.create_branch("f", ROOT_BRANCH)
        with store.transaction() as tx:
            tx.append(root, "ledger", "k", {"v": 2}, Op.STATE)
        main = store.get_state_record(root, "k", slot="ledger")
        seen = store.get_state_record(fork.id, "k", slot="ledger")
        assert main is not None and main.value() == {"v": 2}
        assert seen is not None and seen.value() == {"v": 1}
        assert store.get_state_record(root, "k") is None  # not in the ``state`` slot
        assert store.get_state_record(root, "k", as_of=main.seq - 1, slot="ledger").value() == {"v": 1}  # type: ignore[union-attr]
