"""Property tests: reader isolation, incremental == rebuilt from scratch, byte stability of the block."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, MemoryStore
from context_journal.state import Ledger
from tests.hypothesis_budget import examples
from tests.ledger.ledger_helpers import ledger_block

FAST = settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])

TOOLS = ["Read", "Edit", "Write", "Bash", "TodoWrite", "update_plan", "read_file"]


@st.composite
def message(draw: Any, k: int) -> tuple[str, list[dict[str, Any]]]:
    kind = draw(st.sampled_from(["text", "secret", "tool", "plain"]))
    word = draw(st.sampled_from(["parse_header", "TokenCounter", "cm.compile()", "--dry-run", "load_rows"]))
    if kind == "text":
        return "user", [{"type": "text", "text": f"look at `{word}` now"}]
    if kind == "secret":  # a block for ann only, beside a public one
        return "user", [
            {"type": "text", "text": f"public note {k}"},
            {"type": "text", "text": f"ann_secret_{k} in /ann/secret_{k}.py", "audience": ["ann"]},
        ]
    if kind == "plain":
        return "user", [{"type": "text", "text": "ok, go on"}]
    name = draw(st.sampled_from(TOOLS))
    data: dict[str, Any]
    if name == "Bash":
        data = {"command": f"pytest -k {word} tests/t{k % 3}.py"}
    elif name == "TodoWrite":
        data = {
            "todos": [
                {"content": f"step {i}", "status": draw(st.sampled_from(["pending", "completed"]))} for i in range(2)
            ]
        }
    elif name == "update_plan":
        data = {"plan": [{"step": f"s{i}", "status": "in_progress"} for i in range(2)]}
    elif name == "read_file":
        data = {"path": f"/mcp/d{k % 4}.txt"}
    else:
        data = {"file_path": f"/src/m{k % 5}.py", "content": word}
    return "assistant", [{"type": "tool_use", "id": f"t{k}", "name": name, "input": data}]


@st.composite
def conversations(draw: Any) -> list[tuple[str, list[dict[str, Any]]]]:
    n = draw(st.integers(1, 30))
    out = []
    for k in range(n):
        who, content = draw(message(k))
        out.append((who, content))
        if content[0]["type"] == "tool_use":
            failed = draw(st.booleans())
            text = "Error: boom\nExit code 2" if failed else "fine"
            out.append(("user", [{"type": "tool_result", "tool_use_id": f"t{k}", "content": text, "is_error": failed}]))
    return out


def _load(cm: ContextManager, convo: list[tuple[str, list[dict[str, Any]]]], compile_every: int = 0) -> None:
    for k, (who, content) in enumerate(convo):
        cm.add_message(who, content, id=f"m{k}")
        if compile_every and k % compile_every == 0:
            cm.working_state()


@FAST
@given(conversations())
def test_a_block_for_another_reader_never_reaches_the_ledger(convo: list[tuple[str, list[dict[str, Any]]]]) -> None:
    store = MemoryStore()
    host = ContextManager.open(store=store)
    _load(host, convo)
    bob = ContextManager.open(store=store, namespace="bob", view_reader="bob")
    ann = ContextManager.open(store=store, namespace="ann", view_reader="ann")
    seen = json.dumps(bob.working_state().to_dict()) + json.dumps(host.working_state().to_dict())
    assert "ann_secret" not in seen and "/ann/" not in seen
    block = ledger_block(bob.compile(200))
    assert block is None or "ann_secret" not in block
    secrets = [c for _, c in convo if len(c) == 2]
    if secrets:
        assert "ann_secret" in json.dumps(ann.working_state().to_dict())


@FAST
@given(conversations(), st.integers(0, 5))
def test_incremental_equals_rebuilt(convo: list[tuple[str, list[dict[str, Any]]]], every: int) -> None:
    store = MemoryStore()
    cm = ContextManager.open(store=store)
    _load(cm, convo, compile_every=every)
    incremental = cm.working_state()
    fresh = Ledger()
    for m in cm.get_all_messages():
        fresh.add(m.id, m.content_dicts())
    assert incremental == fresh.state()
    reopened = ContextManager.open(store=store)  # a new handle folds from the store
    assert reopened.working_state() == incremental


@FAST
@given(conversations())
def test_the_block_is_byte_stable_until_a_message_changes_it(convo: list[tuple[str, list[dict[str, Any]]]]) -> None:
    cm = ContextManager.open("memory:")
    _load(cm, convo)
    for _ in range(20):  # enough that the conversation does not fit whole
        cm.add_message("user", "x " * 200)
    first = ledger_block(cm.compile(1200))
    state = cm.working_state()
    if state.plans or state.files or state.commands:
        assert first is not None
    assert ledger_block(cm.compile(1200)) == first
    cm.add_message("assistant", "ok, go on")  # no tool call, no name: nothing for the ledger
    assert ledger_block(cm.compile(1200)) == first
