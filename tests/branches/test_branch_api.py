"""Branches through the manager: fork, switch, derive, delete, reopen — each branch reads exactly its lineage."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, initialize, invariant, precondition, rule

from context_journal import (
    AutobiographicalConfig,
    AutobiographicalStrategy,
    BranchExistsError,
    BranchInUseError,
    BranchNotFoundError,
    ContextManager,
    MemoryStore,
    MessageNotFoundError,
    WindowedPassthroughStrategy,
)
from context_journal.branching import StrategyInitError
from context_journal.testing import ScriptedProvider
from tests.hypothesis_budget import examples


def texts(cm: ContextManager) -> list[str]:
    return [m.text() for m in cm.get_all_messages()]


def compiled(cm: ContextManager, budget: int = 400) -> str:
    from context_journal.compile import EmptyContextError

    try:
        return json.dumps(cm.preview_context(budget).to_anthropic(), sort_keys=True)
    except EmptyContextError:  # an empty branch: nothing to send
        return "empty"


# ---- the model: each branch is (parent, fork sequence, its own events) -----------------------------


class Model:
    def __init__(self) -> None:
        self.seq = 0
        self.branches: dict[str, tuple[str | None, int, list[tuple[int, str, str, str]]]] = {"main": (None, 0, [])}

    def write(self, branch: str, op: str, mid: str, text: str, seq: int) -> None:
        self.seq = seq  # the store's sequence of the write (state writes consume sequences too)
        self.branches[branch][2].append((seq, op, mid, text))

    def events(self, branch: str, upto: int | None = None) -> list[tuple[int, str, str, str]]:
        parent, fork, own = self.branches[branch]
        limit = upto if upto is not None else 10**18
        inherited = self.events(parent, min(fork, limit)) if parent is not None else []
        return inherited + [e for e in own if e[0] <= limit]

    def read(self, branch: str, upto: int | None = None) -> list[tuple[str, str]]:
        live: dict[str, str] = {}
        for _, op, mid, text in self.events(branch, upto):
            if op == "remove":
                live.pop(mid, None)
            else:
                live[mid] = text
        return list(live.items())  # dicts keep first-insertion order = append order

    def created_seq(self, branch: str, mid: str) -> int:
        return next(s for s, op, m, _ in self.events(branch) if m == mid and op == "add")


class BranchMachine(RuleBasedStateMachine):
    """Random adds, edits, removals, forks (at the head or at a message), switches, derives, compression
    ticks and compiles, with one autobiographical manager per branch plus one manager that switches around:
    every branch reads exactly its model's lineage, and a branch's compile changes only with work done on
    that branch."""

    names = Bundle("names")

    @initialize()
    def setup(self) -> None:
        self.store = MemoryStore()
        self.model = Model()
        self.summarizer = ScriptedProvider(default=lambda request: f"memory of {request.metadata.get('work')}")
        self.managers: dict[str, ContextManager] = {"main": self._open("main")}
        self.roamer = self._open("main")  # switches between branches
        self.counter = 0
        self.frozen: dict[str, str] = {}
        self.touched: set[str] = set()

    def _strategy(self) -> AutobiographicalStrategy:
        return AutobiographicalStrategy(
            AutobiographicalConfig(
                head_window_tokens=30,
                recent_window_tokens=60,
                target_chunk_tokens=40,
                summary_target_tokens=20,
                overflow="window",
            )
        )

    def _open(self, branch: str) -> ContextManager:
        return ContextManager.open(
            store=self.store, branch=branch, strategy=self._strategy(), summarizer=self.summarizer
        )

    def _id(self) -> str:
        self.counter += 1
        return f"m{self.counter}"

    @rule(data=st.data(), text=st.text("xyz ", max_size=8))
    def add(self, data: st.DataObject, text: str) -> None:
        branch = data.draw(st.sampled_from(sorted(self.managers)))
        cm = self.managers[branch]
        mid = self._id()
        body = f"{text or '-'} " + " ".join(f"w{k}" for k in range(12))  # long enough for chunks to close
        cm.add_message("user", body, id=mid)
        self.model.write(branch, "add", mid, body, self.store.head_seq())
        self.touched.add(branch)

    @rule(data=st.data())
    def edit_or_remove(self, data: st.DataObject) -> None:
        branch = data.draw(st.sampled_from(sorted(self.managers)))
        live = self.model.read(branch)
        if not live:
            return
        mid, _ = data.draw(st.sampled_from(live))
        cm = self.managers[branch]
        self.touched.add(branch)
        if data.draw(st.booleans()):
            seq = cm.edit_message(mid, f"edited {mid}")
            self.model.write(branch, "edit", mid, f"edited {mid}", seq)
        else:
            seq = cm.remove_message(mid)
            self.model.write(branch, "remove", mid, "", seq)

    @rule(target=names, data=st.data(), derive=st.booleans())
    def fork(self, data: st.DataObject, derive: bool) -> str:
        source = data.draw(st.sampled_from(sorted(self.managers)))
        self.counter += 1
        name = "abc"[self.counter % 3] + str(self.counter)
        cm = self.managers[source]
        live = self.model.read(source)
        at = data.draw(st.none() | st.sampled_from([mid for mid, _ in live])) if live else None
        fork_seq = self.store.head_seq() if at is None else self.model.created_seq(source, at)
        if derive:
            child = cm.derive(name, strategy=self._strategy(), at=at)
            derivation = child.get_derivation()
            assert derivation is not None and derivation.parent_branch == source
            assert derivation.fork_sequence == fork_seq
        else:
            cm.fork(name, at=at)
            child = self._open(name)
        self.model.branches[name] = (source, fork_seq, [])
        self.managers[name] = child
        return name

    @rule(name=names)
    def switch_roamer(self, name: str) -> None:
        self.roamer.switch_branch(name)
        assert texts(self.roamer) == [t for _, t in self.model.read(name)]

    @rule(data=st.data())
    def tick(self, data: st.DataObject) -> None:
        """One unit of compression work on one branch (a chunk summary or a merge)."""
        branch = data.draw(st.sampled_from(sorted(self.managers)))
        if self.managers[branch].tick().progressed:
            self.touched.add(branch)

    @rule(name=names)
    def freeze_compile(self, name: str) -> None:
        """Remember a compile; it must not change while only other branches are written or compressed."""
        self.frozen = {name: compiled(self.managers[name])}
        self.touched = set()

    @precondition(lambda self: bool(self.frozen))
    @invariant()
    def frozen_compile_unchanged_unless_written(self) -> None:
        for name, before in list(self.frozen.items()):
            now = compiled(self.managers[name])
            if now != before:
                # only work on this branch itself (messages or compression) may change its compile
                assert name in self.touched, f"compile of {name} changed with work done elsewhere"
                self.frozen[name] = now
                self.touched.discard(name)

    @invariant()
    def every_branch_reads_its_lineage(self) -> None:
        if not hasattr(self, "managers"):
            return
        for name, cm in self.managers.items():
            assert texts(cm) == [t for _, t in self.model.read(name)], name

    @rule(name=consumes(names))
    def delete_leaf(self, name: str) -> None:
        children = [b for b, (p, _, _) in self.model.branches.items() if p == name]
        if children:
            with pytest.raises(BranchInUseError):
                self.managers["main"].delete_branch(name)
            return
        if self.roamer.current_branch() == name:
            with pytest.raises(BranchInUseError, match="current branch"):
                self.roamer.delete_branch(name)
            self.roamer.switch_branch("main")
        self.managers["main"].delete_branch(name)
        del self.managers[name]
        del self.model.branches[name]
        self.frozen.pop(name, None)


BranchMachine.TestCase.settings = settings(max_examples=examples(120), stateful_step_count=30, deadline=None)
TestBranchMachine = BranchMachine.TestCase


# ---- targeted cases ------------------------------------------------------------------------------


def _report(cm: ContextManager) -> list[str]:
    return [
        cm.add_message(p, t, id=f"m{i + 1}")
        for i, (p, t) in enumerate(
            [("user", "Write the report."), ("Claude", "Draft v1."), ("user", "Shorter."), ("Claude", "Draft v2.")]
        )
    ]


def test_rewind_is_a_fork_and_the_old_end_stays_compilable() -> None:
    """B33 at the manager: rewinding to m2 forks; the abandoned head m4 stays listed and compilable."""
    cm = ContextManager.open(store=MemoryStore())
    _report(cm)
    before = compiled(cm)
    cm.fork("longer", at="m2")
    cm.switch_branch("longer")
    cm.add_message("user", "Make it longer.")
    assert texts(cm) == ["Write the report.", "Draft v1.", "Make it longer."]
    cm.switch_branch("main")
    assert texts(cm) == ["Write the report.", "Draft v1.", "Shorter.", "Draft v2."]
    assert compiled(cm) == before
    assert {b.name for b in cm.list_branches()} == {"main", "longer"}


def test_fork_refusals_leave_no_branch() -> None:
    cm = ContextManager.open(store=MemoryStore())
    _report(cm)
    cm.fork("alt")
    with pytest.raises(BranchExistsError):
        cm.fork("alt")
    with pytest.raises(BranchExistsError):
        cm.derive("alt")
    with pytest.raises(MessageNotFoundError):
        cm.fork("ghost", at="no-such-message")
    with pytest.raises(ValueError, match="outside"):
        cm.fork("future", at=10_000)
    assert [b.name for b in cm.list_branches()] == ["main", "alt"]
    with pytest.raises(BranchNotFoundError):
        cm.switch_branch("ghost")
    assert cm.current_branch() == "main"


def test_delete_branch_refusals_name_the_reason() -> None:
    cm = ContextManager.open(store=MemoryStore())
    _report(cm)
    cm.fork("a")
    child = cm.derive("b")
    child.fork("b1")
    with pytest.raises(BranchInUseError, match="current branch"):
        cm.delete_branch("main")
    with pytest.raises(BranchInUseError, match="b1"):
        cm.delete_branch("b")
    cm.delete_branch("a")
    assert [b.name for b in cm.list_branches()] == ["main", "b", "b1"]
    cm.fork("a")  # the name is free again, and the new branch starts from now
    assert [b.fork_sequence for b in cm.list_branches() if b.name == "a"] == [cm.store.head_seq()]


def test_derive_inherits_state_up_to_the_fork_and_reopens(tmp_path: Path) -> None:
    """B34 at the manager: state written at creation (genesis) is seen by a child derived at any point;
    state written on the parent after the fork is not."""
    path = tmp_path / "d.db"
    with ContextManager.open(path) as cm:
        main = cm.store.get_branch("main").id
        with cm.store.transaction() as tx:
            tx.put_state(main, "default/meta", {"tenant": "t-1", "colour": None})
        cm.add_message("user", "Set colour to red.", id="m1")
        with cm.store.transaction() as tx:
            tx.put_state(main, "default/meta", {"tenant": "t-1", "colour": "red"})
        cm.add_message("Claude", "Colour is red.", id="m2")
        cm.add_message("user", "Set colour to blue.", id="m3")
        with cm.store.transaction() as tx:
            tx.put_state(main, "default/meta", {"tenant": "t-1", "colour": "blue"})
        child = cm.derive("kid", strategy=WindowedPassthroughStrategy(), at="m2")
        kid = child.store.get_branch("kid").id
        assert child.store.get_state(kid, "default/meta") == {"tenant": "t-1", "colour": "red"}
        child.add_message("user", "Keep red.")
        assert texts(child) == ["Set colour to red.", "Colour is red.", "Keep red."]
        before = compiled(child)
    with ContextManager.open(path) as again:
        reopened = ContextManager.reopen_derived(again.store, "kid", strategy=WindowedPassthroughStrategy())
        assert texts(reopened) == ["Set colour to red.", "Colour is red.", "Keep red."]
        assert compiled(reopened) == before
        derivation = reopened.get_derivation()
        assert derivation is not None
        assert (derivation.parent_branch, derivation.strategy) == ("main", "WindowedPassthroughStrategy")
        assert again.get_derivation() is None
        with pytest.raises(ValueError, match="not made by derive"):
            ContextManager.reopen_derived(again.store, "main")


def test_isolated_namespace_child_keeps_the_parents_slot() -> None:
    store = MemoryStore()
    parent = ContextManager.open(store=store, namespace="agent", isolate=True)
    parent.add_message("user", "private to agent")
    ContextManager.open(store=store).add_message("user", "shared slot")
    child = parent.derive("sub", namespace="subagent")
    assert texts(child) == ["private to agent"]
    assert child.namespace == "subagent"


def test_set_strategy_failure_keeps_the_old_strategy() -> None:
    class Broken(WindowedPassthroughStrategy):
        def load(self, ctx: Any) -> None:
            raise RuntimeError("state unreadable")

    cm = ContextManager.open(store=MemoryStore())
    _report(cm)
    old = WindowedPassthroughStrategy()
    cm.set_strategy(old)
    with pytest.raises(StrategyInitError, match="state unreadable"):
        cm.set_strategy(Broken())
    assert cm.strategy is old


def test_two_managers_on_two_branches_do_not_move_each_other() -> None:
    store = MemoryStore()
    a = ContextManager.open(store=store)
    _report(a)
    a.fork("b")
    b = ContextManager.open(store=store, branch="b")
    a.add_message("user", "on main")
    b.add_message("user", "on b")
    assert texts(a)[-1] == "on main" and texts(b)[-1] == "on b"
    assert a.current_branch() == "main" and b.current_branch() == "b"


def test_fork_is_pinned_while_another_handle_appends(tmp_path: Path) -> None:
    """B37 at the manager: a fork at m5 holds m1..m5 whether or not m6 committed first."""
    path = tmp_path / "f.db"
    with ContextManager.open(path) as one, ContextManager.open(path) as two:
        for i in range(5):
            one.add_message("user" if i % 2 == 0 else "Claude", f"msg {i + 1}", id=f"m{i + 1}")
        two.add_message("Claude", "msg 6", id="m6")  # commits before the fork, on another handle
        one.fork("pinned", at="m5")
        pinned = ContextManager.open(path, branch="pinned")
        assert texts(pinned) == [f"msg {i}" for i in range(1, 6)]
        pinned.close()


WORKER = textwrap.dedent(
    """
    import json, sys
    from context_journal import ContextManager
    path, branch, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with ContextManager.open(path, branch=branch) as cm:
        for i in range(n):
            cm.add_message("user", f"{branch} {i}")
            if i % 10 == 0:
                result = cm.compile(max_tokens=50_000)
                assert all(m.participant == "user" for m in result.messages)
        print(json.dumps([m.text() for m in cm.get_all_messages()]))
    """
)


def test_two_processes_on_two_branches_of_one_sqlite_store(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    with ContextManager.open(path) as cm:
        cm.add_message("user", "common")
        cm.fork("left")
        cm.fork("right")
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(path), b, "60"], stdout=subprocess.PIPE, text=True)
        for b in ("left", "right")
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    for branch, out in zip(("left", "right"), outs, strict=True):
        assert json.loads(out) == ["common"] + [f"{branch} {i}" for i in range(60)]
    with ContextManager.open(path) as cm:
        assert texts(cm) == ["common"]


@pytest.mark.parametrize("kind", ["windowed", "autobiographical"])
def test_B60_resuming_after_time_travel_reads_the_fork_not_the_latest(kind: str) -> None:
    """B60: main compiles at m20, forks 'alt' at m20, goes on to m80 compiling (and draining summaries)
    every 10; the same manager switches to alt, appends alt1 and compiles: alt's context ends m20, alt1,
    holds nothing written on main after the fork (no later message, no summary), and equals a compile of
    the same messages in a fresh namespace with no state; back on main, main's context is unchanged."""
    from context_journal.llm import LLMRequest
    from tests.bug_cases import load_case

    def answer(request: LLMRequest) -> str:
        return f"summary of {request.metadata.get('work')}"

    def make() -> ContextManager:
        strategy: Any = (
            WindowedPassthroughStrategy()
            if kind == "windowed"
            else AutobiographicalStrategy(AutobiographicalConfig.for_budget(2000))
        )
        return ContextManager.open("memory:", strategy=strategy, summarizer=ScriptedProvider(default=answer))

    def add(cm: ContextManager, rows: list[dict[str, Any]]) -> None:
        cm.add_messages([{"participant": m["role"], "content": m["content"], "id": m["id"]} for m in rows])

    def raw(result: Any) -> list[str]:
        return [s.id for m in result.messages for s in m.sources if s.kind == "message"]

    case = load_case("B60")
    main_rows = [m for m in case["messages"] if m["id"] != "alt1"]
    alt1 = [m for m in case["messages"] if m["id"] == "alt1"]
    assert alt1[0]["parent"] == "m20" and [m["id"] for m in main_rows] == [f"m{k}" for k in range(1, 81)]
    budget = case["call"]["budget"]
    cm = make()
    add(cm, main_rows[:20])
    cm.compile(budget)
    cm.fork("alt", at="m20")
    for k in range(20, 80, 10):
        add(cm, main_rows[k : k + 10])
        if kind == "autobiographical":
            cm.drain()
        cm.compile(budget)
    on_main = cm.compile(budget)
    if kind == "autobiographical":
        assert any(s.kind == "summary" for m in on_main.messages for s in m.sources)  # main did compress
    cm.switch_branch("alt")
    add(cm, alt1)
    on_alt = cm.compile(budget)
    assert raw(on_alt)[-2:] == ["m20", "alt1"]
    assert not {f"m{k}" for k in range(21, 81)} & set(raw(on_alt))
    assert not any(s.kind == "summary" for m in on_alt.messages for s in m.sources)
    assert "summary of" not in json.dumps(on_alt.to_anthropic())
    fresh = make()
    add(fresh, main_rows[:20] + alt1)
    assert on_alt.as_messages() == fresh.compile(budget).as_messages()
    cm.switch_branch("main")
    assert cm.compile(budget).as_messages() == on_main.as_messages()
