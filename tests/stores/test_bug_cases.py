"""Bug cases on storage and branches (../shared/bug-cases B30, B31, B33, B34, B35, B37, B51, B57).

Each case is tested as the whole kind of fault it stands for, on every backend, with its literal
input from ``../shared/bug-cases`` as one example where it has one:

* B30 — paths follow parent pointers and sequences, never row order or timestamps;
* B31 — a fork at an earlier point never sees the abandoned branch's later records (messages, states,
  summaries);
* B33 — rewind is a fork: the old head stays listed and readable, nothing is overwritten;
* B34 — state written at creation (genesis) is visible from every fork / derive point;
* B35 — concurrent writers lose nothing (the full races are in test_concurrency.py);
* B37 — a fork pinned to a sequence sees exactly the records up to it, whatever commits meanwhile;
* B51 — a lone surrogate is refused at write (naming message and block), nothing written;
* B57 — reads and compiles follow append order whatever the timestamps (equal, skewed, backwards).
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.errors import BranchNotFoundError
from context_journal.manager import ContextManager
from context_journal.stores import ROOT_BRANCH, Op, Store
from tests.hypothesis_budget import examples
from tests.stores._race import Mode, RaceResult, check_final

if TYPE_CHECKING:
    from tests.conftest import Backend

BUG_CASES = Path(__file__).resolve().parents[2].parent / "shared" / "bug-cases"


def bug_case(case: str) -> dict[str, Any]:
    path = BUG_CASES / f"{case}.json"
    if not path.exists():
        pytest.skip(f"bug case input not found at {path}")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def hsettings(backend: Backend, n: int) -> settings:
    """Hypothesis settings scaled to the backend (a PostgreSQL store costs a schema per example) and to the
    profile (``examples``)."""
    return settings(
        max_examples=examples(n) if backend.name != "postgres" else max(5, examples(n) // 4),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


@contextmanager
def fresh(backend: Backend) -> Iterator[Store]:
    with backend.new() as store:
        yield store


class Journal:
    """Managers per branch over one store (what the branch features of the manager will wrap)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._managers: dict[str, ContextManager] = {}

    def on(self, branch: str) -> ContextManager:
        if branch not in self._managers:
            self._managers[branch] = ContextManager.open(store=self.store, branch=branch)
        return self._managers[branch]

    def ids(self, branch: str, as_of: int | None = None) -> list[str]:
        return [m.id for m in self.on(branch).get_all_messages(as_of=as_of)]

    def fork(self, name: str, from_branch: str, at_message: str | None) -> str:
        """Fork ``from_branch`` just after message ``at_message`` (None: before any message)."""
        at = 0 if at_message is None else self.on(from_branch).get_message(at_message).sequence
        self.store.create_branch(name, from_branch, at_sequence=at)
        return name


# ---- B30 -------------------------------------------------------------------------------------------------


def load_tree(store: Store, rows: list[dict[str, Any]]) -> dict[str, tuple[str, int]]:
    """Write parent-pointer rows, given in any order, as branches: a child of its branch's newest message
    is appended there, any other child forks the parent's branch at the parent's sequence. Row order
    and timestamps are never used, only parent pointers (then ids, to order siblings).

    Returns:
        Each id's branch and sequence.
    """
    ids = {r["id"] for r in rows}
    children: dict[str | None, list[dict[str, Any]]] = {}
    for r in rows:
        parent = r.get("parent")
        if parent is not None and parent not in ids:
            raise ValueError(f"{r['id']}: parent {parent} is not in the journal")
        children.setdefault(parent, []).append(r)
    journal = Journal(store)
    placed: dict[str, tuple[str, int]] = {}
    tip: dict[str, str | None] = {ROOT_BRANCH: None}
    stack = sorted(children.get(None, []), key=lambda r: r["id"], reverse=True)
    while stack:
        row = stack.pop()
        parent = row.get("parent")
        if parent is None:
            first = tip[ROOT_BRANCH] is None and not placed
            branch = ROOT_BRANCH if first else journal.fork(f"root-{row['id']}", ROOT_BRANCH, None)
        else:
            branch = placed[parent][0]
            if tip[branch] != parent:
                branch = journal.fork(f"fork-{row['id']}", branch, parent)
        journal.on(branch).add_message(row["role"], row["content"], id=row["id"], timestamp=row.get("ts"))
        placed[row["id"]] = (branch, journal.on(branch).get_message(row["id"]).sequence)
        tip[branch] = row["id"]
        stack.extend(sorted(children.get(row["id"], []), key=lambda r: r["id"], reverse=True))
    assert len(placed) == len(rows), "rows unreachable from a root (a cycle)"
    return placed


def path_to(rows: list[dict[str, Any]], node: str) -> list[str]:
    parent = {r["id"]: r.get("parent") for r in rows}
    out: list[str | None] = [node]
    while parent[out[-1]] is not None:
        out.append(parent[out[-1]])
    return [n for n in reversed(out) if n is not None]


def check_paths(store: Store, rows: list[dict[str, Any]], placed: dict[str, tuple[str, int]]) -> dict[str, list[str]]:
    """Every node's path (read on its branch as of its sequence) and every head's path (read now)."""
    journal = Journal(store)
    heads = {r["id"] for r in rows} - {r.get("parent") for r in rows}
    paths: dict[str, list[str]] = {}
    for node, (branch, seq) in placed.items():
        assert journal.ids(branch, as_of=seq) == path_to(rows, node)
        if node in heads:
            paths[node] = journal.ids(branch)
            assert paths[node] == path_to(rows, node)
    return paths


@st.composite
def trees(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Random forests of parent-pointer rows, shuffled, all with one timestamp, ids unrelated to order."""
    n = draw(st.integers(1, 12))
    names = draw(st.lists(st.text("abcdefghjk", min_size=1, max_size=3), min_size=n, max_size=n, unique=True))
    rows = []
    for k in range(n):
        second_root = k > 0 and draw(st.integers(0, 9)) == 0  # mostly one tree, sometimes a forest
        parent = None if k == 0 or second_root else draw(st.integers(0, k - 1))
        rows.append(
            {
                "id": names[k],
                "role": "user" if k % 2 == 0 else "assistant",
                "content": [{"type": "text", "text": f"node {names[k]}"}],
                "parent": None if parent is None else names[parent],
                "ts": "2025-01-01T10:00:00Z",
            }
        )
    return draw(st.permutations(rows))


def test_b30_literal_heads(backend: Backend) -> None:
    """B30: head m3 -> [m1, m2, m3], head m4 -> [m1, m2, m4], for the rows as given and shuffled."""
    rows = bug_case("B30")["messages"]
    expected = {"m3": ["m1", "m2", "m3"], "m4": ["m1", "m2", "m4"]}
    for order in (rows, list(reversed(rows)), random.Random(30).sample(rows, len(rows))):
        with fresh(backend) as store:
            assert check_paths(store, rows, load_tree(store, order)) == expected


def test_b30_paths_never_depend_on_row_order_or_timestamps(backend: Backend) -> None:
    """B30 (whole kind): any forest, rows in any order, one timestamp for all: every node's path and
    every head's path follow the parent pointers, and two loads in different orders agree."""

    @hsettings(backend, 60)
    @given(rows=trees(), data=st.data())
    def check(rows: list[dict[str, Any]], data: st.DataObject) -> None:
        with fresh(backend) as store:
            first = check_paths(store, rows, load_tree(store, rows))
        with fresh(backend) as store:
            again = check_paths(store, rows, load_tree(store, data.draw(st.permutations(rows))))
        assert first == again

    check()


def test_b30_read_order_is_sequence_not_wall_clock(backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    """B30: records and messages come back in sequence order even when the wall clock runs backwards
    or stands still, and host timestamps in any order do not reorder a conversation."""
    rng = random.Random(3030)
    clock = iter([1e9 - i * rng.choice([0, 1, 3600]) for i in range(1000)])
    monkeypatch.setattr("context_journal.stores.base.time.time", lambda: next(clock))
    with fresh(backend) as store:
        cm = ContextManager.open(store=store)
        stamps = ["2025-01-01T10:00:00Z", "2024-01-01T00:00:00Z", "2025-01-01T10:00:00Z", "2023-06-01T00:00:00Z"]
        ids = [cm.add_message("user", f"n{i}", id=f"n{i}", timestamp=ts) for i, ts in enumerate(stamps)]
        fork = store.create_branch("f", at_sequence=cm.get_message("n2").sequence)
        ContextManager.open(store=store, branch="f").add_message("user", "f0", id="f0", timestamp=stamps[3])
        assert [m.id for m in cm.get_all_messages()] == ids
        on_fork = ContextManager.open(store=store, branch="f").get_all_messages()
        assert [m.id for m in on_fork] == ["n0", "n1", "n2", "f0"]
        seqs = [r.seq for r in store.read_slot("messages", fork.id)]
        assert seqs == sorted(seqs)


# ---- B31 -------------------------------------------------------------------------------------------------


def test_b31_literal_fork_never_sees_abandoned_branch(backend: Backend) -> None:
    """B31: m5 forks after m2; the fork reads [m1, m2, m5]; m3/m4 and the main branch's m1..m4 summary
    are not on its path (the summary record is invisible on the fork; it stays on main)."""
    rows = bug_case("B31")["messages"]
    with fresh(backend) as store:
        placed = load_tree(store, rows)
        main = store.get_branch(ROOT_BRANCH).id
        with store.transaction() as tx:  # summary of m1..m4 made on the main branch, after the fork point
            tx.append(main, "summaries", "s-m1-m4", {"source": ["m1", "m2", "m3", "m4"], "text": "Postgres chosen"})
            tx.put_state(main, "decision", "postgres")
        fork_branch = placed["m5"][0]
        journal = Journal(store)
        assert journal.ids(fork_branch) == ["m1", "m2", "m5"]
        assert journal.ids(ROOT_BRANCH) == ["m1", "m2", "m3", "m4"]
        fork = store.get_branch(fork_branch)
        assert store.read_slot("summaries", fork.id) == []
        assert store.get_state(fork.id, "decision") is None
        texts = json.dumps([m.content_dicts() for m in journal.on(fork_branch).get_all_messages()])
        assert "Postgres." not in texts and "schema drafted" not in texts
        assert [r.item for r in store.read_slot("summaries", main)] == ["s-m1-m4"]


op_kinds = st.sampled_from(["message", "state", "summary", "edit", "remove"])


def apply_ops(journal: Journal, branch: str, ops: list[tuple[str, int]], tag: str) -> None:
    """Write ``ops`` on a branch: messages, state versions, summary records, edits and tombstones."""
    cm = journal.on(branch)
    bid = journal.store.get_branch(branch).id
    for n, (kind, x) in enumerate(ops):
        live = [m.id for m in cm.get_all_messages()]
        if kind == "message" or (kind in ("edit", "remove") and not live):
            cm.add_message("user", f"{tag} message {n}", id=f"{tag}-{n}")
        elif kind == "edit":
            cm.edit_message(live[x % len(live)], f"{tag} edit {n}")
        elif kind == "remove":
            cm.remove_message(live[x % len(live)])
        else:
            with journal.store.transaction() as tx:
                if kind == "state":
                    tx.put_state(bid, f"key{x % 3}", {"by": tag, "n": n})
                else:
                    tx.append(bid, "summaries", f"{tag}-sum{x % 3}", {"by": tag, "n": n}, Op.APPEND)


def snapshot(store: Store, branch: str, as_of: int | None = None) -> dict[str, Any]:
    """Everything a branch reads: message views, summary records, state values."""
    bid = store.get_branch(branch).id
    cm = ContextManager.open(store=store, branch=branch)
    return {
        "messages": [(m.id, m.text(), m.sequence) for m in cm.get_all_messages(as_of=as_of)],
        "summaries": [(r.item, r.value()) for r in store.read_slot("summaries", bid, as_of=as_of)],
        "state": {k: store.get_state(bid, f"key{k}", as_of=as_of) for k in range(3)},
    }


def test_b31_forks_at_earlier_points_see_nothing_later(backend: Backend) -> None:
    """B31 (whole kind): fork a branch (main, or a fork of it) at any earlier sequence, before or after
    more writes land on it: the fork reads exactly what its source read at that sequence, plus its own
    writes — messages, edits, tombstones, states and summaries alike — and its writes never reach the
    source (invariant 8)."""
    ops = st.lists(st.tuples(op_kinds, st.integers(0, 10)), max_size=8)

    @hsettings(backend, 60)
    @given(base=ops, later=ops, own=ops, nested=st.booleans(), late_fork=st.booleans(), data=st.data())
    def check(
        base: list[tuple[str, int]],
        later: list[tuple[str, int]],
        own: list[tuple[str, int]],
        nested: bool,
        late_fork: bool,
        data: st.DataObject,
    ) -> None:
        with fresh(backend) as store:
            journal = Journal(store)
            source = ROOT_BRANCH
            apply_ops(journal, source, base, "main")
            if nested:  # the source is itself a fork, taken at any point of main
                store.create_branch("mid", ROOT_BRANCH, at_sequence=data.draw(st.integers(0, store.head_seq())))
                source = "mid"
                apply_ops(journal, source, base, "mid")
            point = data.draw(st.integers(0, store.head_seq()), label="fork point")
            expected = snapshot(store, source, as_of=point)
            if late_fork:
                apply_ops(journal, source, later, "later")
            store.create_branch("fork", source, at_sequence=point)
            if not late_fork:
                apply_ops(journal, source, later, "later")
            source_now = snapshot(store, source)
            assert snapshot(store, "fork") == expected
            apply_ops(journal, "fork", own, "own")
            assert snapshot(store, source) == source_now  # the fork's writes stay on the fork
            after = snapshot(store, "fork")
            fork_msgs = [m for m in after["messages"] if not m[0].startswith("own-")]
            assert {m[0] for m in fork_msgs} <= {m[0] for m in expected["messages"]}
            assert not any(m[0].startswith("later-") for m in after["messages"])
            assert not any(s[1]["by"] == "later" for s in after["summaries"])
            assert all(v is None or v["by"] != "later" for v in after["state"].values())

    check()


# ---- B33 -------------------------------------------------------------------------------------------------


def test_b33_literal_rewind_is_a_fork(backend: Backend) -> None:
    """B33: rewind to m2 then append: the old head m4 stays listed and reads [m1..m4]; the new head reads
    [m1, m2, 'Make it longer.']; nothing is overwritten or hidden."""
    rows = bug_case("B33")["messages"]
    with fresh(backend) as store:
        journal = Journal(store)
        for r in rows:
            journal.on(ROOT_BRANCH).add_message(r["role"], r["content"], id=r["id"])
        before = store.stats().records
        history = snapshot(store, ROOT_BRANCH)
        journal.fork("rewind-1", ROOT_BRANCH, "m2")
        new = journal.on("rewind-1").add_message("user", "Make it longer.")
        assert [b.name for b in store.list_branches()] == [ROOT_BRANCH, "rewind-1"]
        assert journal.ids(ROOT_BRANCH) == ["m1", "m2", "m3", "m4"]
        assert snapshot(store, ROOT_BRANCH) == history
        assert journal.ids("rewind-1") == ["m1", "m2", new]
        assert journal.on("rewind-1").get_message(new).text() == "Make it longer."
        assert store.stats().records == before + 1  # one new record; nothing rewritten


def test_b33_rewinds_of_rewinds_keep_every_head(backend: Backend) -> None:
    """B33 (whole kind): any sequence of rewinds (to any earlier message of the current head, including
    before the first) each followed by appends: every head ever made stays listed and reads exactly
    its own path; the record count equals the writes made."""

    @hsettings(backend, 40)
    @given(first=st.integers(1, 6), rewinds=st.lists(st.tuples(st.integers(0, 50), st.integers(0, 3)), max_size=5))
    def check(first: int, rewinds: list[tuple[int, int]]) -> None:
        with fresh(backend) as store:
            journal = Journal(store)
            expected: dict[str, list[str]] = {ROOT_BRANCH: []}
            writes = 0

            def append(branch: str, count: int) -> None:
                nonlocal writes
                for _ in range(count):
                    mid = f"w{writes}"
                    journal.on(branch).add_message("user", f"text of {mid}", id=mid)
                    expected[branch].append(mid)
                    writes += 1

            append(ROOT_BRANCH, first)
            current = ROOT_BRANCH
            for n, (target, more) in enumerate(rewinds):
                path = expected[current]
                keep = target % (len(path) + 1)  # 0 = before the first message
                name = journal.fork(f"rewind-{n}", current, path[keep - 1] if keep else None)
                expected[name] = path[:keep]
                append(name, more)
                current = name
            assert {b.name for b in store.list_branches()} == set(expected)
            for branch, ids in expected.items():
                assert journal.ids(branch) == ids
            assert store.stats().records == writes

    check()


# ---- B34 -------------------------------------------------------------------------------------------------


def create_conversation(store: Store, name: str, from_branch: str, genesis: dict[str, Any]) -> int:
    """A new branch and its creation-time state in one transaction (the genesis entry)."""
    with store.transaction() as tx:
        bid = store.create_branch(name, from_branch).id
        for key, value in genesis.items():
            tx.put_state(bid, f"meta/{key}", value)
    return bid


def meta(store: Store, branch: str, keys: list[str]) -> dict[str, Any]:
    bid = store.get_branch(branch).id
    return {k: store.get_state(bid, f"meta/{k}", default="<unset>") for k in keys}


def test_b34_literal_derive_keeps_genesis_state(backend: Backend) -> None:
    """B34: created with {tenant: t-1, colour: null}; colour set to red at m2 and blue at m4; a derive
    from m2 has {tenant: t-1, colour: red} (and from every other message, the state as of it)."""
    rows = bug_case("B34")["messages"]
    with fresh(backend) as store:
        create_conversation(store, "conversation", ROOT_BRANCH, {"tenant": "t-1", "colour": None})
        journal = Journal(store)
        cm = journal.on("conversation")
        bid = store.get_branch("conversation").id
        colours = {"m2": "red", "m4": "blue"}
        turn_end: dict[str, int] = {}
        for r in rows:
            with store.transaction() as tx:  # the message and its handoff state update: one turn
                cm.add_message(r["role"], r["content"], id=r["id"])
                if r["id"] in colours:
                    tx.put_state(bid, "meta/colour", colours[r["id"]])
            turn_end[r["id"]] = store.head_seq()
        expected = {"m1": None, "m2": "red", "m3": "red", "m4": "blue"}
        for mid, colour in expected.items():
            # derive from a message = fork at the end of its turn (the transaction that wrote it): the
            # message's own sequence would cut the turn before its state update
            store.create_branch(f"derived-{mid}", "conversation", at_sequence=turn_end[mid])
            assert meta(store, f"derived-{mid}", ["tenant", "colour"]) == {"tenant": "t-1", "colour": colour}
            assert journal.ids(f"derived-{mid}") == [r["id"] for r in rows][: int(mid[1:])]
        assert meta(store, "conversation", ["tenant", "colour"]) == {"tenant": "t-1", "colour": "blue"}


def test_b34_genesis_state_survives_every_fork_point(backend: Backend) -> None:
    """B34 (whole kind): a conversation created (possibly itself a derive) with genesis keys, then
    updates to some keys at random points; a derive at any point from genesis on — and a derive of that
    derive — sees every genesis key, with each key's value as of the fork point. Branch creation and its
    genesis commit together or not at all."""
    keys = ["tenant", "colour", "model", "owner"]

    @hsettings(backend, 50)
    @given(
        genesis=st.dictionaries(st.sampled_from(keys), st.none() | st.text(max_size=4) | st.integers(), min_size=1),
        updates=st.lists(st.tuples(st.sampled_from(keys), st.text(max_size=4)), max_size=8),
        from_fork=st.booleans(),
        data=st.data(),
    )
    def check(genesis: dict[str, Any], updates: list[tuple[str, str]], from_fork: bool, data: st.DataObject) -> None:
        with fresh(backend) as store:
            if from_fork:
                store.create_branch("parent")
            bid = create_conversation(store, "conv", "parent" if from_fork else ROOT_BRANCH, genesis)
            genesis_seq = store.head_seq()
            values = dict(genesis)
            states = {genesis_seq: dict(values)}
            cm = ContextManager.open(store=store, branch="conv")
            for n, (key, value) in enumerate(updates):
                cm.add_message("user", f"turn {n}")
                with store.transaction() as tx:
                    tx.put_state(bid, f"meta/{key}", value)
                values[key] = value
                states[store.head_seq()] = dict(values)
            point = data.draw(st.integers(genesis_seq, store.head_seq()), label="derive point")
            as_of = states[max(s for s in states if s <= point)]
            store.create_branch("derived", "conv", at_sequence=point)
            store.create_branch("derived2", "derived")
            expect = {k: as_of.get(k, "<unset>") for k in keys}
            assert set(genesis) <= {k for k, v in meta(store, "derived", keys).items() if v != "<unset>"}
            assert meta(store, "derived", keys) == expect
            assert meta(store, "derived2", keys) == expect
            # atomic creation: a failed create leaves neither branch nor genesis
            head = store.head_seq()
            with pytest.raises(RuntimeError), store.transaction() as tx:
                ghost = store.create_branch("ghost", "conv").id
                tx.put_state(ghost, "meta/tenant", "ghost")
                raise RuntimeError("creation failed")
            with pytest.raises(BranchNotFoundError):
                store.get_branch("ghost")
            assert store.head_seq() == head

    check()


# ---- B35 -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_b35_two_writers_fifty_appends_each(race: Callable[[list[str], int, Mode], RaceResult], mode: Mode) -> None:
    """B35: 2 threads (and separately 2 processes) x 50 appends to the same head of a file-backed SQLite
    store: 100 entries, sequences contiguous, no 'database is locked', a concurrent reader never sees a
    half-written entry. The larger races (and a shared handle) are in test_concurrency.py."""
    result = race(["ann", "bob"], 50, mode)
    check_final(result.db, ["ann", "bob"], 50)


# ---- B37 -------------------------------------------------------------------------------------------------


def seed_b37(store: Store) -> Journal:
    journal = Journal(store)
    for r in bug_case("B37")["messages"]:
        journal.on(ROOT_BRANCH).add_message(r["role"], r["content"], id=r["id"])
    return journal


@pytest.mark.parametrize("append_first", [True, False])
def test_b37_literal_fork_pinned_whatever_commits_first(backend: Backend, append_first: bool) -> None:
    """B37: fork(from m5) and append(m6) in either order: the fork reads m1..m5, main m1..m6, and the fork
    is a pointer (no record is copied)."""
    with fresh(backend) as store:
        journal = seed_b37(store)
        m5 = journal.on(ROOT_BRANCH).get_message("m5").sequence
        records = store.stats().records
        if append_first:
            journal.on(ROOT_BRANCH).add_message("assistant", "msg 6", id="m6")
        store.create_branch("fork", ROOT_BRANCH, at_sequence=m5)
        if not append_first:
            journal.on(ROOT_BRANCH).add_message("assistant", "msg 6", id="m6")
        assert journal.ids("fork") == ["m1", "m2", "m3", "m4", "m5"]
        assert journal.ids(ROOT_BRANCH) == ["m1", "m2", "m3", "m4", "m5", "m6"]
        assert store.stats().records == records + 1


def test_b37_fork_races_appends(backend: Backend) -> None:
    """B37 (whole kind): a fork pinned at m5 made on one handle while another handle appends to the
    source, 20 times with random timing: the pinned fork always reads exactly m1..m5; a fork at "the
    head" reads exactly the source's records up to its fork sequence, a whole prefix."""
    rng = random.Random(37)
    with fresh(backend) as store:
        journal = seed_b37(store)
        m5 = journal.on(ROOT_BRANCH).get_message("m5").sequence
        other = backend.handle(store)
        appender = ContextManager.open(store=other)
        errors: list[BaseException] = []
        for n in range(20):
            barrier = threading.Barrier(2)
            delays = (rng.uniform(0, 0.002), rng.uniform(0, 0.002))

            def append(n: int = n, delay: float = delays[0], barrier: threading.Barrier = barrier) -> None:
                try:
                    barrier.wait()
                    threading.Event().wait(delay)
                    for k in range(3):
                        appender.add_message("assistant", f"late {n}.{k}", id=f"late-{n}-{k}")
                except BaseException as exc:
                    errors.append(exc)

            t = threading.Thread(target=append)
            t.start()
            barrier.wait()
            threading.Event().wait(delays[1])
            store.create_branch(f"pinned-{n}", ROOT_BRANCH, at_sequence=m5)
            head_fork = store.create_branch(f"head-{n}", ROOT_BRANCH)
            t.join(30)
            assert not errors, errors
            assert journal.ids(f"pinned-{n}") == ["m1", "m2", "m3", "m4", "m5"]
            main = store.read_slot("messages", store.get_branch(ROOT_BRANCH).id)
            assert head_fork.fork_seq is not None
            assert journal.ids(f"head-{n}") == [r.item for r in main if r.seq <= head_fork.fork_seq]
        assert len(journal.ids(ROOT_BRANCH)) == 5 + 20 * 3


# ---- B51 -------------------------------------------------------------------------------------------------


def test_b51_lone_surrogate_is_refused_at_write_naming_the_place(backend: Backend) -> None:
    """B51: a tool result holding half a surrogate pair is refused by ``add_messages`` on every backend,
    naming the message and block, with nothing written; the history stays exportable afterwards."""
    from context_journal.errors import MalformedContentError

    case = bug_case("B51")
    with fresh(backend) as store:
        cm = ContextManager.open(store=store)
        batch = [{"participant": m["role"], "content": m["content"], "id": m["id"]} for m in case["messages"]]
        assert "\ud83d" in batch[2]["content"][0]["content"]
        with pytest.raises(MalformedContentError) as err:
            cm.add_messages(batch)
        assert err.value.message_index == 2 and err.value.block_index == 0
        assert "surrogate" in str(err.value)
        assert cm.get_all_messages() == []  # all or nothing
        with pytest.raises(MalformedContentError):
            cm.add_message("user", batch[2]["content"], id="m3")
        cm.add_messages(batch[:2])
        result = cm.compile(10_000)
        json.dumps(result.to_anthropic(), ensure_ascii=False).encode("utf-8")  # no lone surrogate anywhere
        json.dumps(result.to_openai(), ensure_ascii=False).encode("utf-8")


# ---- B57 -------------------------------------------------------------------------------------------------


def test_b57_reads_and_compiles_follow_append_order_whatever_the_timestamps(backend: Backend) -> None:
    """B57: equal timestamps, a second writer whose clock is 10 minutes behind, and timestamps going
    backwards: every read (all, a page, newest-first, a time filter) and every compile returns append
    order, for both writers and after a reopen; ``since`` selects by timestamp without reordering."""
    from datetime import UTC, datetime, timedelta

    bug_case("B57")
    base = datetime(2026, 1, 1, 12, tzinfo=UTC)
    role = ["user", "assistant"]
    store = backend.new()
    second = backend.handle(store) if backend.durable else store
    a = ContextManager.open(store=store)
    b = ContextManager.open(store=second)
    for k in range(6):
        a.add_message(role[k % 2], f"same-ts {k}", id=f"s{k}", timestamp=base)
    for k in range(6):  # writers alternate; b's clock runs 10 minutes behind a's
        writer, skew = (a, timedelta(0)) if k % 2 == 0 else (b, timedelta(minutes=-10))
        writer.add_message(role[k % 2], f"skew {k}", id=f"k{k}", timestamp=base + timedelta(hours=1, minutes=k) + skew)
    for k in range(4):
        a.add_message(role[k % 2], f"back {k}", id=f"b{k}", timestamp=base - timedelta(hours=k + 1))
    order = [f"s{k}" for k in range(6)] + [f"k{k}" for k in range(6)] + [f"b{k}" for k in range(4)]

    def check(cm: ContextManager) -> None:
        assert [m.id for m in cm.get_all_messages()] == order
        assert [m.id for m in cm.get_messages(3, 5)] == order[3:8]
        assert [m.id for m in cm.query_messages(reverse=True, limit=4)] == ["b3", "b2", "b1", "b0"]
        # a's k0, k2, k4 are at or after base + 1h; b's skewed ones are before it: filtered, not reordered.
        assert [m.id for m in cm.query_messages(since=base + timedelta(hours=1))] == ["k0", "k2", "k4"]
        assert [m.id for m in cm.query_messages(until=base)] == ["b0", "b1", "b2", "b3"]
        result = cm.compile(100_000)
        assert [s.id for m in result.messages for s in m.sources if s.kind == "message"] == order

    check(a)
    check(b)
    if backend.durable:
        check(ContextManager.open(store=backend.reopen(store)))
