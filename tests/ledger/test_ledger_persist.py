"""Persisted ledger checkpoints: open and fork do not refold the branch, a persisted ledger
equals one folded from scratch after any appends, edits, removals, forks, readers and crashes, and no
checkpoint a reader may load holds another reader's blocks. Every backend."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, MemoryStore
from context_journal.messages import MessageStore
from context_journal.readers import AudienceNarrowingError
from context_journal.state import Ledger, LedgerConfig, WorkingState
from context_journal.state import checkpoint as ckpt
from context_journal.stores import SQLiteStore, Store
from context_journal.tokens import EstimatingCounter
from tests.hypothesis_budget import examples

if TYPE_CHECKING:
    from tests.conftest import Backend

SMALL = LedgerConfig(checkpoint_every=3)


def content(k: int, kind: str) -> list[dict[str, Any]]:
    if kind == "secret":  # a public block beside one for ann only
        return [
            {"type": "text", "text": f"public note {k}"},
            {"type": "text", "text": f"ann_secret_{k} in /ann/secret_{k}.py", "audience": ["ann"]},
        ]
    if kind == "text":  # names load_rows
        return [{"type": "text", "text": f"look at `load_rows` now ({k})"}]
    if kind == "reword":  # the same names as "text": an edit between them leaves the ledger as it is
        return [{"type": "text", "text": "please, look at `load_rows` again"}, {"type": "thinking", "thinking": "x"}]
    if kind == "rename":  # another name
        return [{"type": "text", "text": "look at `parse_header` instead"}]
    if kind == "public":  # "text" with a block for ann: the same names for everyone else
        return [
            {"type": "text", "text": "look at `load_rows` now"},
            {"type": "text", "text": "and ann_secret_x", "audience": ["ann"]},
        ]
    if kind == "whisper":  # "text" with a block for ann that names nothing: the same names for every reader
        return [
            {"type": "text", "text": "look at `load_rows` now"},
            {"type": "text", "text": "ok", "audience": ["ann"]},
        ]
    if kind == "bash":
        return [{"type": "tool_use", "id": f"b{k}", "name": "Bash", "input": {"command": f"pytest -k case_{k % 4}"}}]
    if kind == "result":
        return [{"type": "tool_result", "tool_use_id": f"b{k - 1}", "content": "Error: boom\nExit code 2"}]
    if kind == "todo":
        return [
            {
                "type": "tool_use",
                "id": f"t{k}",
                "name": "TodoWrite",
                "input": {"todos": [{"content": f"step_{k}", "status": "in_progress"}]},
            }
        ]
    return [{"type": "tool_use", "id": f"e{k}", "name": "Edit", "input": {"file_path": f"/src/m{k % 5}.py"}}]


def open_cm(store: Store, reader: str | None, branch: str = "main", config: LedgerConfig = SMALL) -> ContextManager:
    cm = ContextManager.open(store=store, branch=branch, namespace=reader, view_reader=reader)
    cm.ledger_config = config
    return cm


def rebuilt(store: Store, cm: ContextManager, reader: str | None, config: LedgerConfig = SMALL) -> WorkingState:
    """The ledger folded from scratch from a fresh index of the manager's slot and branch."""
    fresh = MessageStore(store, cm.messages.slot, cm.messages.branch_id, EstimatingCounter())
    ledger = Ledger(config, reader)
    for m in fresh.slice():
        ledger.add(m.id, m.content_dicts())
    return ledger.state()


def folded(cm: ContextManager) -> int:
    return cm._ledger_keeper().folded


def checkpoints(store: Store) -> list[tuple[list[Any], dict[str, Any]]]:
    """Every checkpoint record of every branch: (key, body)."""
    out = []
    for b in store.list_branches(include_deleted=True):
        for rec in store.read_slot(ckpt.LEDGER_SLOT, b.id):
            if rec.branch_id == b.id:
                out.append((json.loads(rec.item), rec.value()))
    return out


# ---- the property: persisted == rebuilt, whatever happens ---------------------------------------

OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("add"),
            st.sampled_from(["secret", "bash", "result", "todo", "edit", "text", "text"]),
            st.sampled_from([None, "ann"]),
        ),
        st.tuples(st.just("edit"), st.integers(0, 50), st.sampled_from(["todo", "reword", "rename", "public", "text"])),
        st.tuples(st.just("remove"), st.integers(0, 50), st.just(None)),
        st.tuples(st.just("fork"), st.just(""), st.just(None)),
        st.tuples(st.just("reopen"), st.just(""), st.just(None)),
        st.tuples(st.just("crash"), st.just(""), st.just(None)),
        st.tuples(st.just("look"), st.just(""), st.sampled_from([None, "ann", "bob"])),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_a_persisted_ledger_equals_one_folded_from_scratch(backend: Backend, ops: list[tuple[str, Any, Any]]) -> None:
    store = backend.new()
    branch = "main"
    handles: dict[str | None, ContextManager] = {}

    def cm(reader: str | None) -> ContextManager:
        if reader not in handles:
            handles[reader] = open_cm(store, reader, branch)
        return handles[reader]

    ids: list[str] = []
    for k, (op, arg, reader) in enumerate(ops):
        if op == "add":
            ids.append(cm(reader).add_message("user", content(k, arg), id=f"m{k}"))
        elif op == "edit" and ids:
            mid = ids[arg % len(ids)]
            if cm(None).messages.entry_for(mid) is not None:
                with contextlib.suppress(AudienceNarrowingError):  # refused, nothing written
                    cm(None).edit_message(mid, content(k, reader))
        elif op == "remove" and ids:
            mid = ids[arg % len(ids)]
            if cm(None).messages.entry_for(mid) is not None:
                cm(None).remove_message(mid)
        elif op == "fork":
            name = f"b{k}"
            cm(None).working_state()
            cm(None).fork(name)
            cm(None).switch_branch(name)  # in process: starts from a copy of the parent's ledger
            branch = name
            handles = {None: handles[None]}
        elif op == "reopen":  # a new process: only what the store holds
            handles = {}
        elif op == "crash":  # a checkpoint write that dies inside its transaction leaves nothing
            real = ckpt.dump_ledger

            def dying(ledger: Ledger) -> dict[str, Any]:
                raise KeyboardInterrupt

            ckpt.dump_ledger = dying
            try:
                before = len(checkpoints(store))
                keeper = cm(None)._ledger_keeper()
                keeper.sync()
                with pytest.raises(KeyboardInterrupt):
                    ckpt.save_checkpoint(keeper.messages, SMALL, None, keeper._point_now())
                assert len(checkpoints(store)) == before
            finally:
                ckpt.dump_ledger = real
        else:  # look
            h = cm(reader)
            assert h.working_state().to_dict() | {"facts": {}} == rebuilt(store, h, reader).to_dict() | {"facts": {}}
    for reader, h in handles.items():  # the handles that wrote and read (edits seen in this process)
        assert h.working_state().to_dict() | {"facts": {}} == rebuilt(store, h, reader).to_dict() | {"facts": {}}
    for reader in (None, "ann", "bob"):
        h = open_cm(store, reader, branch)
        assert h.working_state() == rebuilt(store, h, reader)
    for (_slot, _fp, group), body in checkpoints(store):  # reader isolation of what is stored
        if group != "ann":
            assert "ann_secret" not in json.dumps(body) and "/ann/" not in json.dumps(body)


# ---- open and fork do not refold ----------------------------------------------------------------


def fill(cm: ContextManager, n: int, start: int = 0) -> None:
    kinds = ("bash", "result", "edit", "todo")
    for k in range(start, start + n):
        cm.add_message("user", content(k, kinds[k % 4]), id=f"m{k}")


def test_open_starts_from_the_checkpoint_and_folds_only_the_tail(backend: Backend) -> None:
    store = backend.new()
    writer = open_cm(store, None, config=LedgerConfig(checkpoint_every=64))
    fill(writer, 1000)  # never compiled: the appends alone keep checkpoints
    assert len(checkpoints(store)) == 1000 // 64
    reader = open_cm(store, None, config=LedgerConfig(checkpoint_every=64))
    assert reader.working_state() == rebuilt(store, reader, None)
    assert folded(reader) == 1000 % 64  # the messages after the newest checkpoint, nothing more
    off = open_cm(store, None, config=LedgerConfig(checkpoint_every=0))  # persistence off: a full fold
    assert off.working_state() == reader.working_state()
    assert folded(off) == 1000


def test_an_edit_after_a_checkpoint_falls_back_to_an_older_one(backend: Backend) -> None:
    store = backend.new()
    cm = open_cm(store, None, config=LedgerConfig(checkpoint_every=10))
    fill(cm, 100)
    cm.edit_message("m95", content(95, "todo"))
    cm.remove_message("m97")
    again = open_cm(store, None, config=LedgerConfig(checkpoint_every=10))
    assert again.working_state() == rebuilt(store, again, None)
    assert folded(again) <= 10  # the checkpoint before m95, not a refold from the start
    cm.edit_message("m3", content(3, "todo"))  # older than every checkpoint but one: refold (almost) all
    third = open_cm(store, None, config=LedgerConfig(checkpoint_every=10))
    assert third.working_state() == rebuilt(store, third, None)


def test_an_edit_that_keeps_what_the_fold_reads_folds_nothing_again(backend: Backend) -> None:
    store = backend.new()
    cm = open_cm(store, None, config=LedgerConfig(checkpoint_every=0))
    fill(cm, 40)
    for k in range(40, 60):
        cm.add_message("user", content(k, "text"), id=f"m{k}")
    ann = open_cm(store, "ann", config=LedgerConfig(checkpoint_every=0))
    for h in (cm, ann):
        h.working_state()
    start = {h: folded(h) for h in (cm, ann)}
    assert not ann._ledger_keeper()._private  # fill's messages hold no block for ann
    cm.edit_message("m45", content(45, "whisper"))  # a block for ann that names nothing: the same names
    assert ann.working_state() == rebuilt(store, ann, "ann")
    assert folded(ann) == start[ann]  # nothing folded again; the fold is ann's own now (its checkpoints too)
    assert ann._ledger_keeper()._private
    cm.edit_message("m40", content(40, "reword"))  # the same name, a thinking block the fold passes over
    cm.edit_message("m41", content(41, "public"))  # a block for ann: the same for everyone else, not for ann
    cm.add_message("user", content(60, "text"), id="m60")
    assert cm.working_state() == rebuilt(store, cm, None)
    assert folded(cm) == start[cm] + 1  # only the new message
    assert ann.working_state() == rebuilt(store, ann, "ann")
    assert folded(ann) == start[ann] + 61  # ann reads a name the old version did not have: from the start
    for edit in (("m42", "rename"), ("m1", "text"), ("m43", "todo")):  # other names, tool blocks: refold
        before = folded(cm)
        cm.edit_message(edit[0], content(1, edit[1]))
        assert cm.working_state() == rebuilt(store, cm, None)
        assert folded(cm) == before + 61
    before = folded(cm)
    cm.remove_message("m44")  # every later mention moves one message closer: refold
    assert cm.working_state() == rebuilt(store, cm, None)
    assert folded(cm) == before + 60


KINDS = ["text", "reword", "rename", "public", "whisper", "secret", "bash", "result", "todo"]


@settings(max_examples=examples(60), deadline=None)
@given(
    kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=10),
    edits=st.lists(st.tuples(st.integers(0, 9), st.sampled_from(KINDS)), min_size=1, max_size=8),
)
def test_after_any_edit_the_ledger_equals_a_fresh_fold(kinds: list[str], edits: list[tuple[int, str]]) -> None:
    store = MemoryStore()
    handles = {reader: open_cm(store, reader) for reader in (None, "ann")}
    for k, kind in enumerate(kinds):
        handles[None].add_message("user", content(k, kind), id=f"m{k}")
    for h in handles.values():
        h.working_state()
    for k, (at, kind) in enumerate(edits):
        try:
            handles[None].edit_message(f"m{at % len(kinds)}", content(100 + k, kind))
        except AudienceNarrowingError:
            continue  # a block for everyone may not become ann's alone here: nothing written
        for reader, h in handles.items():
            assert h.working_state() == rebuilt(store, h, reader)


def test_a_fork_starts_from_the_parents_ledger(backend: Backend) -> None:
    store = backend.new()
    cm = open_cm(store, None, config=LedgerConfig(checkpoint_every=50))
    fill(cm, 120)
    cm.working_state()
    cm.fork("side")
    cm.switch_branch("side")  # same process: a copy of the parent's ledger at the fork
    assert cm.working_state() == rebuilt(store, cm, None, LedgerConfig(checkpoint_every=50))
    assert folded(cm) == 0
    fill(cm, 5, start=500)
    assert cm.working_state() == rebuilt(store, cm, None, LedgerConfig(checkpoint_every=50))
    child = open_cm(store, None, config=LedgerConfig(checkpoint_every=50)).derive("kid")
    child.ledger_config = LedgerConfig(checkpoint_every=50)
    assert child.working_state() == rebuilt(store, child, None, LedgerConfig(checkpoint_every=50))
    assert folded(child) <= 50  # another handle: the parent's checkpoint at or before the fork + tail
    other = open_cm(store, None, "side", LedgerConfig(checkpoint_every=50))  # another process
    assert other.working_state() == rebuilt(store, other, None, LedgerConfig(checkpoint_every=50))
    assert folded(other) <= 50 + 5


def test_derive_hands_the_ledger_over_in_memory(backend: Backend) -> None:
    store = backend.new()
    cm = open_cm(store, None, config=LedgerConfig(checkpoint_every=50))
    fill(cm, 80)
    cm.working_state()
    child = cm.derive("kid")
    child.ledger_config = LedgerConfig(checkpoint_every=50)
    assert child.working_state() == cm.working_state()
    assert folded(child) == 0


def test_a_readers_checkpoint_is_its_own_and_never_shared(backend: Backend) -> None:
    store = backend.new()
    ann = open_cm(store, "ann", config=LedgerConfig(checkpoint_every=4))
    for k in range(12):
        ann.add_message("user", content(k, "secret" if k % 3 == 0 else "bash"), id=f"m{k}")
    groups = {group for (_s, _f, group), _b in checkpoints(store)}
    assert groups == {"ann"}  # ann's fold holds her blocks: persisted under her group only
    bob = open_cm(store, "bob", config=LedgerConfig(checkpoint_every=4))
    state = bob.working_state()
    assert "ann_secret" not in json.dumps(state.to_dict())
    assert folded(bob) == 12  # no checkpoint serves bob
    assert state == rebuilt(store, bob, "bob", LedgerConfig(checkpoint_every=4))
    again = open_cm(store, "ann", config=LedgerConfig(checkpoint_every=4))
    assert again.working_state() == rebuilt(store, again, "ann", LedgerConfig(checkpoint_every=4))
    assert folded(again) == 0
    assert "ann_secret" in json.dumps(again.working_state().to_dict())


def test_the_reader_less_checkpoint_serves_every_reader_it_holds_nothing_for(backend: Backend) -> None:
    store = backend.new()
    host = open_cm(store, None, config=LedgerConfig(checkpoint_every=8))
    fill(host, 40)
    bob = open_cm(store, "bob", config=LedgerConfig(checkpoint_every=8))
    assert bob.working_state() == rebuilt(store, bob, "bob", LedgerConfig(checkpoint_every=8))
    assert folded(bob) == 0


def test_a_checkpoint_of_another_fold_configuration_is_not_used(backend: Backend) -> None:
    store = backend.new()
    cm = open_cm(store, None, config=LedgerConfig(checkpoint_every=8))
    fill(cm, 40)
    other = LedgerConfig(checkpoint_every=8, max_commands=2)
    again = open_cm(store, None, config=other)
    assert again.working_state() == rebuilt(store, again, None, other)
    assert folded(again) == 40


@pytest.mark.parametrize("cached", [True, False])
def test_a_redaction_leaves_no_erased_name_in_a_following_handles_ledger(tmp_path: Path, cached: bool) -> None:
    """A redaction writes a stub version and erases the old versions' bodies: to a handle that did not
    redact it is an edit whose before and after versions both read as the stub. Its ledger must fold
    again (the erased text's names go), in compiles, in the checkpoints it writes later and in new
    handles, whether or not it still holds the erased body in memory."""
    path = str(tmp_path / "s.db")
    writer = ContextManager.open(path)
    follower = open_cm(SQLiteStore(path), None, config=LedgerConfig(checkpoint_every=64))
    ids = [writer.add_message("user", f"turn {k}: nothing special") for k in range(40)]
    secret = writer.add_message("assistant", "the key is AKIA_SECRET_77f for ProjectFalconX")
    ids += [writer.add_message("user", f"turn {k}: more words") for k in range(40, 80)]
    follower.compile(600)
    assert "AKIA_SECRET_77f" in [i.name for i in follower.working_state().identifiers]
    if not cached:  # a handle that started from a checkpoint or past its cache never read the body
        follower.messages._cache.clear()
    writer.redact(secret, reason="pasted key")
    for k in range(80, 150):  # the follower's own appends write a checkpoint after the redaction
        follower.add_message("user", f"turn {k}: after")
    names = [i.name for i in follower.working_state().identifiers]
    assert "AKIA_SECRET_77f" not in names and "ProjectFalconX" not in names
    assert "AKIA_SECRET_77f" not in json.dumps(follower.compile(600).to_anthropic())
    fresh = open_cm(SQLiteStore(path), None, config=LedgerConfig(checkpoint_every=64))
    assert fresh.working_state() == rebuilt(fresh.store, fresh, None) == follower.working_state()
    assert "AKIA_SECRET_77f" not in json.dumps([body for _, body in checkpoints(fresh.store)])


def test_an_edit_whose_old_version_cannot_be_read_folds_again() -> None:
    """The keeper reads both versions of an edited message; when the older one is gone (erased since), it
    folds again rather than failing the compile."""
    from context_journal.errors import MessageNotFoundError

    store = MemoryStore()
    cm = open_cm(store, None, config=LedgerConfig(checkpoint_every=0))
    for k in range(10):
        cm.add_message("user", content(k, "text"), id=f"m{k}")
    cm.working_state()
    before = folded(cm)
    cm.edit_message("m2", content(2, "reword"))
    real = MessageStore.load_versions
    calls = 0

    def gone_once(self: MessageStore, versions: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise MessageNotFoundError("m2")
        return real(self, versions)

    MessageStore.load_versions = gone_once  # type: ignore[method-assign]
    try:
        assert cm.working_state() == rebuilt(store, cm, None)
    finally:
        MessageStore.load_versions = real  # type: ignore[method-assign]
    assert calls >= 2 and folded(cm) == before + 10  # folded again from the start
    cm.edit_message("m3", content(3, "reword"))
    assert cm.working_state() == rebuilt(store, cm, None)
    assert folded(cm) == before + 10  # the next edit that keeps the fold folds nothing
