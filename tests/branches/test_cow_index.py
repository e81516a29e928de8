"""The copy-on-write message index (derive and fork in O(1)): an index and its clones share
blocks, and nothing written on one side after the fork ever shows on the other.

Blocks are made 4 positions long here (the library uses 1,024), so a few dozen messages cross many block
boundaries and every write lands in a shared block sooner or later.
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from context_journal import ContextManager, MemoryStore
from context_journal import blockindex as bi
from context_journal.blockindex import BlockIndex, ItemsView, PositionMap, SumsView
from context_journal.messages import MessageStore
from tests.hypothesis_budget import examples


@contextmanager
def small_blocks(bits: int = 2) -> Iterator[None]:
    """Blocks of ``2**bits`` positions while the block is open (module globals read at call time), and
    id maps that layer any own map over 2 ids and flatten past 3 layers (the library: 4,096 and 8)."""
    saved = bi.BLOCK_BITS, bi.BLOCK, bi._MASK, PositionMap._COPY_BELOW, PositionMap._MAX_LAYERS
    bi.BLOCK_BITS, bi.BLOCK, bi._MASK = bits, 1 << bits, (1 << bits) - 1
    PositionMap._COPY_BELOW, PositionMap._MAX_LAYERS = 2, 3
    try:
        yield
    finally:
        bi.BLOCK_BITS, bi.BLOCK, bi._MASK, PositionMap._COPY_BELOW, PositionMap._MAX_LAYERS = saved


# ---- the block index alone, against lists ------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    id: str
    version: int


class Model:
    """What one index must hold: (item, tokens, live) per position."""

    def __init__(self, rows: list[tuple[Item, int, bool]] | None = None) -> None:
        self.rows = list(rows or [])


def flat_find(prefix: list[int], k: int) -> int:
    """The flat Fenwick tree's ``find`` on inclusive prefix sums: the smallest p with
    ``prefix[p] > k``, else len; 0 for a negative k."""
    return 0 if k < 0 else bisect.bisect_right(prefix, k)


def check_index(ix: BlockIndex[Item], pm: PositionMap, model: Model, foreign: set[str]) -> None:
    n = len(model.rows)
    assert len(ix) == n
    items = [r[0] for r in model.rows]
    tokens = [r[1] for r in model.rows]
    live = [int(r[2]) for r in model.rows]
    tpre, lpre = list(itertools.accumulate(tokens)), list(itertools.accumulate(live))
    assert list(ix.iter_items()) == items
    assert list(ix.iter_items_reversed()) == items[::-1]
    assert ix.token_total() == sum(tokens) and ix.live_total() == sum(live)
    view, tsums, lsums = ItemsView(ix), SumsView(ix, tokens=True), SumsView(ix, tokens=False)
    assert len(view) == n and bool(view) == bool(n) and list(reversed(view)) == items[::-1]
    assert list(view) == items and len(tsums) == n
    for p in range(n):
        assert ix.item(p) == items[p] and view[p] == items[p] and view[p - n] == items[p]
        assert ix.tokens_at(p) == tokens[p] == tsums.values[p] == tsums.get(p)
        assert ix.live_at(p) == live[p] == lsums.values[p] == lsums.get(p)
    for end in range(-1, n + 2):
        want_t = tpre[min(end, n) - 1] if end > 0 and n else 0
        want_l = lpre[min(end, n) - 1] if end > 0 and n else 0
        assert ix.token_prefix(end) == want_t == tsums.prefix(end)
        assert ix.live_prefix(end) == want_l == lsums.prefix(end)
    rng = random.Random(n)
    for _ in range(12):
        start, end = sorted((rng.randint(0, n + 1), rng.randint(0, n + 1)))
        assert ix.items(start, end) == items[start:end] == view[start:end]
        assert ix.token_values(start, end) == tokens[start:end]
        assert ix.token_range(start, end) == sum(tokens[start:end]) == tsums.range(start, end)
        assert ix.live_range(start, end) == sum(live[start:end]) == lsums.range(start, end)
        assert list(ix.iter_items(start)) == items[start:]
        assert list(ix.iter_items_reversed(end)) == items[:end][::-1]
    assert view[::2] == items[::2] and view[-3:] == items[-3:] and view[5:2] == []
    for k in range(-1, sum(tokens) + 2):
        assert ix.find_tokens(k) == flat_find(tpre, k) == tsums.find(k)
    for k in range(-1, sum(live) + 2):
        assert ix.find_live(k) == flat_find(lpre, k) == lsums.find(k)
    with pytest.raises(IndexError):
        view[n]
    with pytest.raises(IndexError):
        view[-n - 1]
    for p, item in enumerate(items):
        assert pm.get(item.id) == p and item.id in pm
    for other in foreign - {i.id for i in items}:
        assert pm.get(other) is None and other not in pm
    assert len(pm) == n


class ForestMachine(RuleBasedStateMachine):
    """Indexes forked from each other in any order, each written after the forks."""

    def __init__(self) -> None:
        super().__init__()
        self._blocks = small_blocks()
        self._blocks.__enter__()
        self.indexes: list[tuple[BlockIndex[Item], PositionMap, Model]] = [(BlockIndex(), PositionMap(), Model())]
        self.ids = itertools.count()
        self.every: set[str] = set()

    def teardown(self) -> None:
        self._blocks.__exit__(None, None, None)

    @rule(which=st.integers(0, 30), tokens=st.integers(0, 9), live=st.booleans(), times=st.integers(1, 6))
    def append(self, which: int, tokens: int, live: bool, times: int) -> None:
        ix, pm, model = self.indexes[which % len(self.indexes)]
        for _ in range(times):
            item = Item(f"i{next(self.ids)}", 0)
            pm[item.id] = ix.append(item, tokens, live)
            model.rows.append((item, tokens, live))
            self.every.add(item.id)

    @rule(which=st.integers(0, 30), where=st.integers(0, 10**6), tokens=st.integers(0, 9), live=st.booleans())
    def replace(self, which: int, where: int, tokens: int, live: bool) -> None:
        ix, _, model = self.indexes[which % len(self.indexes)]
        if not model.rows:
            with pytest.raises(IndexError):
                ix.replace(0, Item("x", 0), tokens, live)
            return
        pos = where % len(model.rows)
        old = model.rows[pos][0]
        item = Item(old.id, old.version + 1)
        ix.replace(pos, item, tokens, live)
        model.rows[pos] = (item, tokens, live)

    @rule(
        which=st.integers(0, 30),
        ops=st.lists(st.tuples(st.booleans(), st.integers(0, 10**6), st.integers(0, 9), st.booleans()), max_size=8),
        then_fork=st.booleans(),
    )
    def burst(self, which: int, ops: list[tuple[bool, int, int, bool]], then_fork: bool) -> None:
        """Appends and replacements with no read between them (the sums stay stale until a read or a
        fork settles them), maybe followed by a fork of the unsettled index."""
        ix, pm, model = self.indexes[which % len(self.indexes)]
        for is_append, where, tokens, live in ops:
            if is_append or not model.rows:
                item = Item(f"i{next(self.ids)}", 0)
                pm[item.id] = ix.append(item, tokens, live)
                model.rows.append((item, tokens, live))
                self.every.add(item.id)
            else:
                pos = where % len(model.rows)
                item = Item(model.rows[pos][0].id, model.rows[pos][0].version + 1)
                ix.replace(pos, item, tokens, live)
                model.rows[pos] = (item, tokens, live)
        if then_fork and len(self.indexes) < 12:
            self.indexes.append((ix.fork(), pm.fork(len(ix)), Model(model.rows)))

    @precondition(lambda self: len(self.indexes) < 12)
    @rule(which=st.integers(0, 30))
    def fork(self, which: int) -> None:
        ix, pm, model = self.indexes[which % len(self.indexes)]
        self.indexes.append((ix.fork(), pm.fork(len(ix)), Model(model.rows)))

    @invariant()
    def every_index_matches_its_model(self) -> None:
        for ix, pm, model in self.indexes:
            check_index(ix, pm, model, self.every)


ForestMachine.TestCase.settings = settings(max_examples=examples(100), stateful_step_count=30, deadline=None)
TestForestMachine = ForestMachine.TestCase


def test_position_map_layers_flatten_and_small_maps_are_copied() -> None:
    """A chain of forks stays a few dict reads deep: an own map of up to 4,096 ids is copied into the
    fork, a larger one becomes a layer, and past 8 layers the map is flattened, with every bound kept."""
    pm = PositionMap()
    pos = 0
    chain = [pm]
    depths = []
    for depth in range(12):
        for _ in range(5000):  # over the copy threshold: each generation adds a layer
            pm[f"g{depth}_{pos}"] = pos
            pos += 1
        pm = pm.fork(pos)
        chain.append(pm)
        depths.append(len(pm._layers))
    assert depths == [1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3]  # the ninth fork flattened the chain
    assert all(pm.get(f"g{p // 5000}_{p}") == p for p in range(0, 60000, 7)) and len(pm) == 60000
    assert pm.get("g0_0") == 0 and pm.get("g11_59999") == 59999
    # The parent of the last fork keeps writing; the fork does not see it, the parent does.
    parent = chain[-2]
    parent["late"] = pos
    assert parent.get("late") == pos and pm.get("late") is None
    small = PositionMap()
    small["a"] = 0
    twin = small.fork(1)
    assert twin._layers == () and twin.get("a") == 0
    small["b"] = 1
    assert twin.get("b") is None


def test_fork_copies_only_the_block_table() -> None:
    """A fork shares every block; the first write to a shared block copies that block alone."""
    ix: BlockIndex[Item] = BlockIndex()
    for p in range(10 * bi.BLOCK + 5):
        ix.append(Item(f"m{p}", 0), p % 7, True)
    twin = ix.fork()
    assert all(a is b for a, b in zip(ix._blocks, twin._blocks, strict=True))
    twin.append(Item("own", 0), 3, True)  # the shared last block is copied by the writer
    ix.replace(3, Item("m3", 1), 100, True)  # block 0 is copied by the parent
    shared = [a is b for a, b in zip(ix._blocks, twin._blocks, strict=False)]
    assert shared == [False] + [True] * 9 + [False]
    assert twin.item(3) == Item("m3", 0) and twin.tokens_at(3) == 3
    assert ix.item(3) == Item("m3", 1) and ix.token_total() == twin.token_total() - 3 + 100 - 3
    assert len(ix) == 10 * bi.BLOCK + 5 and len(twin) == len(ix) + 1


# ---- MessageStore clones through the manager, against an index rebuilt from the store ----------------


def rebuilt(ms: MessageStore) -> MessageStore:
    return MessageStore(ms.store, ms.slot, ms.branch_id, ms.counter)


def check_against_rebuild(ms: MessageStore, foreign: set[str]) -> None:
    """``ms`` (a live, incrementally written and maybe cloned index) equals a fresh index of its branch."""
    fresh = rebuilt(ms)
    n = ms.count()
    assert n == fresh.count()
    mine = [(e.id, e.seq, e.created_seq, e.live, e.participant, e.kinds) for e in ms._index.iter_items()]
    theirs = [(e.id, e.seq, e.created_seq, e.live, e.participant, e.kinds) for e in fresh._index.iter_items()]
    assert mine == theirs
    assert [ms._index.tokens_at(p) for p in range(len(mine))] == [fresh._index.tokens_at(p) for p in range(len(theirs))]
    assert [e.id for e in ms.iter_entries()] == [e.id for e in fresh.iter_entries()]
    assert [e.id for e in ms.iter_entries(reverse=True)] == [e.id for e in fresh.iter_entries(reverse=True)]
    for k in range(n):
        assert ms.position_of(k) == fresh.position_of(k)
    rng = random.Random(n)
    for start, end in [(0, None), (0, n), (n, None), *((rng.randint(0, n), rng.randint(0, n + 2)) for _ in range(20))]:
        assert ms.tokens(start, end) == fresh.tokens(start, end)
    for e in fresh.iter_entries():
        assert ms.entry_for(e.id) == e
    for other in foreign - {e.id for e in fresh.iter_entries()}:
        assert ms.entry_for(other) is None
    for kind in ("text", "tool_use", "tool_result", "image", "thinking"):
        assert ms.kind_count(kind) == fresh.kind_count(kind)
    assert ms.audience_count() == fresh.audience_count()
    assert [m.text() for m in ms.slice(0)] == [m.text() for m in fresh.slice(0)]
    assert [m.id for m in ms.slice(1, 2)] == [m.id for m in fresh.slice(1, 2)]


def content(kind: int, text: str) -> list[dict[str, object]]:
    if kind == 0:
        return [{"type": "text", "text": text}]
    if kind == 1:
        return [{"type": "text", "text": text}, {"type": "tool_use", "id": f"t_{text}", "name": "f", "input": {}}]
    return [{"type": "text", "text": text * 3}, {"type": "text", "text": "for ann", "audience": ["ann"]}]


class ManagerMachine(RuleBasedStateMachine):
    """Managers on a tree of branches made by derive and by fork + switch (both clone the index), with
    appends, edits and removals interleaved on every side."""

    def __init__(self) -> None:
        super().__init__()
        self._blocks = small_blocks()
        self._blocks.__enter__()
        self.store = MemoryStore()
        self.managers = [ContextManager.open(store=self.store)]
        self.names = itertools.count()
        self.ids: set[str] = set()

    def teardown(self) -> None:
        for cm in self.managers:
            cm.close()
        self.store.close()
        self._blocks.__exit__(None, None, None)

    def _cm(self, which: int) -> ContextManager:
        return self.managers[which % len(self.managers)]

    @rule(which=st.integers(0, 30), kind=st.integers(0, 2), times=st.integers(1, 5))
    def add(self, which: int, kind: int, times: int) -> None:
        cm = self._cm(which)
        for _ in range(times):
            k = next(self.names)
            self.ids.add(cm.add_message("user" if k % 2 else "assistant", content(kind, f"m{k} " * (k % 9 + 1))))

    @rule(which=st.integers(0, 30), where=st.integers(0, 10**6), kind=st.integers(0, 1))
    def edit(self, which: int, where: int, kind: int) -> None:
        cm = self._cm(which)
        entries = list(cm.messages.iter_entries())
        if entries:
            cm.edit_message(
                entries[where % len(entries)].id, content=content(kind, f"edited {where} " * (where % 5 + 1))
            )

    @rule(which=st.integers(0, 30), where=st.integers(0, 10**6))
    def remove(self, which: int, where: int) -> None:
        cm = self._cm(which)
        entries = list(cm.messages.iter_entries())
        if entries:
            cm.remove_message(entries[where % len(entries)].id)

    @precondition(lambda self: len(self.managers) < 8)
    @rule(which=st.integers(0, 30))
    def derive(self, which: int) -> None:
        parent = self._cm(which)
        child = parent.derive(f"d{next(self.names)}")
        assert child.messages._index._blocks == parent.messages._index._blocks  # shared, not rebuilt
        self.managers.append(child)

    @precondition(lambda self: len(self.managers) < 8)
    @rule(which=st.integers(0, 30), back=st.booleans())
    def fork_and_switch(self, which: int, back: bool) -> None:
        """A manager forks, switches to the fork (its index cloned from the one it leaves) and maybe
        back (to the index it left, which now shares blocks with the fork's)."""
        cm = self._cm(which)
        before = cm.messages
        name = f"f{next(self.names)}"
        old = cm.current_branch()
        cm.fork(name)
        cm.switch_branch(name)
        assert cm.messages is not before and cm.messages._index._blocks == before._index._blocks
        if back:
            cm.switch_branch(old)
            assert cm.messages is before

    @invariant()
    def every_index_matches_a_rebuild(self) -> None:
        for cm in self.managers:
            check_against_rebuild(cm.messages, self.ids)
            for index in cm._branch_indexes.values():
                check_against_rebuild(index, self.ids)


ManagerMachine.TestCase.settings = settings(max_examples=examples(60), stateful_step_count=25, deadline=None)
TestManagerMachine = ManagerMachine.TestCase


def test_derived_child_and_parent_never_see_each_others_writes() -> None:
    """Library-size blocks: a parent of 2,500 messages (three blocks) and its derived child, each then
    appending, editing and removing, in both the shared blocks and the shared last block."""
    cm = ContextManager.open(store=MemoryStore())
    ids = cm.add_messages([{"participant": "user", "content": f"message {i}"} for i in range(2500)])
    child = cm.derive("child")
    assert child.messages._index._blocks == cm.messages._index._blocks
    cm.add_message("user", "parent only")
    child.add_message("user", "child only")
    cm.edit_message(ids[10], content="parent edit")
    child.remove_message(ids[2000])
    cm.remove_message(ids[2499])
    child.edit_message(ids[1500], content="child edit")
    assert cm.message_count() == 2500 and child.message_count() == 2500
    assert cm.get_message(ids[10]).text() == "parent edit"
    assert child.get_message(ids[10]).text() == "message 10"
    assert child.get_message(ids[1500]).text() == "child edit"
    assert cm.get_message(ids[1500]).text() == "message 1500"
    assert child.get_message(ids[2499]).text() == "message 2499"
    assert [m.text() for m in cm.get_messages(2498)] == ["message 2498", "parent only"]
    assert [m.text() for m in child.get_messages(2498)] == ["message 2499", "child only"]
    for m in (cm, child):
        check_against_rebuild(m.messages, set(ids))
    # The shared blocks the writes did not touch are still shared: one block copied per side per write.
    shared = [a is b for a, b in zip(cm.messages._index._blocks, child.messages._index._blocks, strict=True)]
    assert shared == [False, False, False]  # 0: parent edit, 1: child edit, 2: both appended
    cm.close()
