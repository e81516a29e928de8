"""A value accepted at write must never break a later read. Timestamps outside years
1..9999 and JSON nested deeper than ``MAX_DEPTH`` are refused at write with ``MalformedContentError``
naming the field, and nothing is written; whatever is accepted reads, compiles and exports afterwards
(Python and CLI)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from context_journal.content import MAX_DEPTH, too_deep
from context_journal.errors import MalformedContentError
from context_journal.messages import MAX_TIMESTAMP, MIN_TIMESTAMP
from tests.hypothesis_budget import examples


def nested(depth: int, leaf: Any = 1) -> Any:
    """An object ``depth`` levels deep (``{"a": {"a": ... leaf}}``), built without recursion."""
    value = leaf
    for i in range(depth):
        value = {"a": value} if i % 2 else [value]
    return value


def _reads_everything(cm: ContextManager) -> None:
    messages = cm.get_all_messages()
    for m in messages:
        m.timestamp.isoformat()  # a datetime every process can render
        json.dumps(m.content_dicts())
    result = cm.compile(1_000_000)
    result.to_anthropic()
    result.to_openai()
    json.dumps(result.messages, default=str)


def test_depth_is_measured_without_recursion() -> None:
    assert too_deep(nested(MAX_DEPTH - 1)) is None  # a block holding it is MAX_DEPTH levels deep
    assert too_deep(nested(MAX_DEPTH + 1)) is not None
    assert too_deep(nested(100_000)) is not None  # far past the recursion limit: measured, not recursed
    assert too_deep({"x": [1, 2, {"y": "z"}]}) is None


@pytest.mark.parametrize("depth", [MAX_DEPTH, 300, 100_000])
def test_deep_tool_input_and_metadata_are_refused_and_nothing_is_written(depth: int) -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hello")
    head = cm.store.head_seq()
    with pytest.raises(MalformedContentError, match="nested more than 64 levels") as err:
        cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "f", "input": {"v": nested(depth)}}])
    assert err.value.block_index == 0
    with pytest.raises(MalformedContentError, match="metadata is nested"):
        cm.add_message("user", "x", metadata={"deep": nested(depth)})
    with pytest.raises(MalformedContentError, match="nested more than"):
        cm.edit_message(cm.get_all_messages()[0].id, [{"type": "text", "text": "x", "extra": nested(depth)}])
    assert cm.store.head_seq() == head
    _reads_everything(cm)


def test_just_under_the_limit_is_kept_and_reads() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "call f")
    value = nested(MAX_DEPTH - 3)  # block (1) > input (2) > "v" (3) > ...
    cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "f", "input": {"v": value}}])
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}])
    _reads_everything(cm)
    assert cm.get_all_messages()[1].content_dicts()[0]["input"]["v"] == value


@pytest.mark.parametrize("ts", [1e30, -1e30, float("inf"), float("-inf"), float("nan"), 10**20, "0001-01-01T00:00:00"])
def test_timestamps_outside_years_1_to_9999_are_refused(ts: Any) -> None:
    cm = ContextManager.open("memory:")
    with pytest.raises(MalformedContentError, match="timestamp") as err:
        cm.add_message("user", "hi", timestamp=ts)
    assert err.value.path == "timestamp" and cm.store.head_seq() == 0


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=4), kids, max_size=3),
    max_leaves=30,
)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=_JSON,
    depth=st.integers(0, 90),
    ts=st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-(2**64), 2**64)),
)
def test_generated_writes_are_refused_whole_or_read_back(value: Any, depth: int, ts: Any) -> None:
    """Generated JSON as a tool input and as metadata, wrapped ``depth`` levels deep, with a generated
    timestamp: either a typed refusal with nothing written, or every read, compile and export works."""
    cm = ContextManager.open("memory:")
    cm.add_message("user", "call f")
    head = cm.store.head_seq()
    wrapped = nested(depth, value)
    block = {"type": "tool_use", "id": "t1", "name": "f", "input": {"v": wrapped}}
    metadata = {"m": wrapped}
    in_range = ts is None or (not math.isnan(ts) and MIN_TIMESTAMP <= ts <= MAX_TIMESTAMP)
    fits = too_deep(block) is None and too_deep(metadata) is None
    try:
        cm.add_message("assistant", [block], metadata=metadata, timestamp=ts)
    except MalformedContentError:
        assert cm.store.head_seq() == head
        assert not (fits and in_range)  # refused for a reason the rules name
        return
    assert fits and in_range
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}])
    _reads_everything(cm)


def test_cli_reads_a_store_after_refused_writes(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    cm = ContextManager.open(db)
    cm.add_message("user", "hello")
    for bad in (dict(timestamp=1e30), dict(metadata={"d": nested(300)})):
        with pytest.raises(MalformedContentError):
            cm.add_message("user", "x", **bad)
    cm.close()
    runner = CliRunner()
    for args in (["show", "--json"], ["compile", "--budget", "1000", "--json"], ["stats", "--json"]):
        res = runner.invoke(app, [*args, "--store", db])
        assert res.exit_code == 0, (args, res.output)


@pytest.mark.parametrize("metadata", [{1: 2}, {"a": {3.5: "x"}}, {"a": [{None: 1}]}])
def test_metadata_keys_that_are_not_text_are_refused(metadata: dict[Any, Any]) -> None:
    """A review found: ``metadata={1: 2}`` was stored as ``{"1": 2}`` (JSON's keys are text), so what was
    read back was not what was written. Such a key is refused naming its place, at write and at edit."""
    cm = ContextManager.open("memory:")
    with pytest.raises(MalformedContentError, match="metadata keys must be text"):
        cm.add_message("user", "hi", metadata=metadata)
    assert cm.message_count() == 0
    mid = cm.add_message("user", "hi", metadata={"ok": 1})
    with pytest.raises(MalformedContentError, match="metadata keys must be text"):
        cm.edit_message(mid, metadata=metadata)
    assert cm.get_message(mid).metadata == {"ok": 1}
