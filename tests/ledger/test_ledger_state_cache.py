"""The ledger's state is kept between reads: the files shown and the names' ranking are reused until the
fold changes them, and the ranking moves only the names mentioned since. Whatever the reads in between,
a state equals the state of a ledger that folded the same messages and was read once, and its names are
ranked by score (a review measured 3-7 ms per compile building the state afresh with 1,800 files)."""

from __future__ import annotations

import itertools
import pickle
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from context_journal.state.checkpoint import dump_ledger, load_ledger
from context_journal.state.ledger import Ledger, LedgerConfig
from context_journal.state.render import render_state
from tests.hypothesis_budget import examples

_NAMES = [f"handle_{k}" for k in range(12)] + ["OrderTable", "parse_args", "MAX_RETRIES", "user_id"]
_PATHS = [f"src/app/mod_{k}.py" for k in range(6)] + ["README.md", "/repo/tests/test_api.py"]

_MESSAGE = st.one_of(
    st.tuples(st.just("text"), st.lists(st.sampled_from(_NAMES), min_size=1, max_size=4)),
    st.tuples(st.just("edit"), st.sampled_from(_PATHS), st.sampled_from(_NAMES)),
    st.tuples(st.just("write"), st.sampled_from(_PATHS)),
    st.tuples(st.just("read"), st.sampled_from(_PATHS), st.lists(st.sampled_from(_NAMES), max_size=3)),
)
_STEP = st.one_of(_MESSAGE, st.just(("created",)), st.just(("state",)), st.just(("copy",)), st.just(("checkpoint",)))


def _content(message: tuple[Any, ...], k: int) -> list[dict[str, Any]]:
    kind = message[0]
    if kind == "text":
        return [{"type": "text", "text": "look at " + ", ".join(f"`{n}`" for n in message[1])}]
    if kind == "edit":
        call = {"file_path": message[1], "old_string": f"def {message[2]}():", "new_string": f"def {message[2]}(x):"}
        return [{"type": "tool_use", "id": f"t{k}", "name": "Edit", "input": call}]
    if kind == "write":  # its result comes in the next message, when that is a state read or another write
        return [{"type": "tool_use", "id": "w", "name": "Write", "input": {"file_path": message[1], "content": "x"}}]
    if kind == "created":
        return [{"type": "tool_result", "tool_use_id": "w", "content": "File created successfully at: x"}]
    text = "uses " + " ".join(message[2]) if message[2] else "(empty)"
    return [
        {"type": "tool_use", "id": f"r{k}", "name": "Read", "input": {"file_path": message[1]}},
        {"type": "tool_result", "tool_use_id": f"r{k}", "content": text},
    ]


@settings(max_examples=examples(150), deadline=None)
@given(steps=st.lists(_STEP, max_size=60), max_identifiers=st.sampled_from([6, 10, 2048]))
def test_a_state_read_at_any_time_equals_the_state_read_once(
    steps: list[tuple[Any, ...]], max_identifiers: int
) -> None:
    config = LedgerConfig(max_identifiers=max_identifiers, max_files=6, half_life=4)
    ledger = Ledger(config)
    folded: list[tuple[str, list[dict[str, Any]]]] = []
    twins: list[tuple[Ledger, int]] = []  # copies taken on the way, and how many messages they hold
    for k, step in enumerate(steps):
        if step[0] == "state":
            ledger.state(scores=k % 2 == 0)
        elif step[0] == "copy":
            twins.append((ledger.copy(), len(folded)))
        elif step[0] == "checkpoint":
            ledger.state()
            ledger = load_ledger(dump_ledger(ledger), config, None)
        else:
            folded.append((f"m{k}", _content(step, k)))
            ledger.add(*folded[-1])
    for twin, held in [(ledger, len(folded)), *twins]:
        fresh = Ledger(config)
        for message in folded[:held]:
            fresh.add(*message)
        rendered = twin.state(scores=False)  # what a compile renders: the names' order of now
        state = twin.state()
        assert state == fresh.state()
        assert [i.name for i in rendered.identifiers] == [i.name for i in state.identifiers]
        assert [i.count for i in rendered.identifiers] == [i.count for i in state.identifiers]
        assert rendered.files == state.files and render_state(rendered, 300, len) == render_state(state, 300, len)
        scores = [i.score for i in state.identifiers]
        assert all(a >= b - 1e-9 * max(1.0, a) for a, b in itertools.pairwise(scores))
        assert render_state(state, 300, len) == render_state(fresh.state(), 300, len)
        assert pickle.loads(pickle.dumps(state)) == state
    for twin, held in twins:  # a copy read later is not moved by what its source folded after it
        twin.add("later", [{"type": "text", "text": "and `handle_0`"}])
        fresh = Ledger(config)
        for message in [*folded[:held], ("later", [{"type": "text", "text": "and `handle_0`"}])]:
            fresh.add(*message)
        assert twin.state() == fresh.state()


def test_a_state_read_twice_shares_its_files_and_names_until_the_fold_changes_them() -> None:
    ledger = Ledger(LedgerConfig())
    ledger.add("m1", _content(("edit", "src/app/mod_1.py", "handle_1"), 1))
    first = ledger.state()
    again = ledger.state()
    assert again.files is first.files and again.identifiers is first.identifiers
    ledger.add("m2", [{"type": "text", "text": "nothing named here"}])
    later = ledger.state()
    assert later.files is first.files  # no file touched: the same tuple (the render's table is kept for it)
    assert [i.name for i in later.identifiers] == [i.name for i in first.identifiers]
    assert later.identifiers[0].score < first.identifiers[0].score  # a tick later: every score decays
    ledger.add("m3", _content(("write", "README.md"), 3))
    assert ledger.state().files is not first.files and ledger.state().files[0].path == "README.md"
