"""A mistyped ledger configuration is refused when it is made, naming the field (a review found: a
``PlanShape(text="content")`` was accepted and read as the keys c, o, n...; a dict in place of a
``PlanShape`` crashed the first fold; a ``ToolSpec`` with an integer path key was silently ignored)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.state import LedgerConfig, PlanShape, ToolSpec

BAD = st.one_of(
    st.none(),
    st.integers(),
    st.floats(allow_nan=True),
    st.booleans(),
    st.just(""),
    st.text(alphabet=" \t\n", min_size=1, max_size=4),
)
NOT_A_NAME = st.one_of(BAD, st.lists(st.text(min_size=1), max_size=2))
NOT_A_LIST_OF_NAMES = st.one_of(st.text(min_size=1), BAD, st.lists(BAD, min_size=1, max_size=3))


@given(field=st.sampled_from(["items", "status", "note"]), value=NOT_A_NAME)
def test_plan_shape_keys_must_be_names(field: str, value: Any) -> None:
    if field == "note" and value is None:
        return  # no note is allowed
    with pytest.raises(TypeError, match=rf"PlanShape\.{field}"):
        PlanShape(**{field: value})


@given(value=NOT_A_LIST_OF_NAMES)
def test_plan_shape_text_is_a_list_of_names(value: Any) -> None:
    with pytest.raises((TypeError, ValueError), match=r"PlanShape\.text"):
        PlanShape(text=value)


@given(
    field=st.sampled_from(["action", "paths", "command", "patch", "action_key", "actions"]),
    value=st.one_of(NOT_A_NAME, st.dictionaries(st.text(min_size=1), st.integers(), min_size=1, max_size=2)),
)
def test_tool_spec_fields_are_checked(field: str, value: Any) -> None:
    if field == "paths" and isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
        value = [*value, ""]  # a list of names is valid: make one entry blank
    if field in ("command", "patch", "action_key") and value is None:
        return
    if field == "paths" and value == []:
        return  # a spec naming no path (a command tool) is fine
    if field == "actions" and value == {}:
        return
    with pytest.raises(TypeError, match=rf"ToolSpec\.{field}"):
        ToolSpec(**{field: value})


@given(
    field=st.sampled_from(["tools", "plan_tools"]),
    value=st.one_of(
        st.lists(st.integers(), max_size=2),
        st.dictionaries(st.text(min_size=1), st.dictionaries(st.text(), st.text(), max_size=2), min_size=1, max_size=2),
        st.dictionaries(st.integers(), st.just(PlanShape()), min_size=1, max_size=2),
    ),
)
def test_ledger_tables_are_checked(field: str, value: Any) -> None:
    with pytest.raises(TypeError, match=rf"LedgerConfig\.{field}"):
        LedgerConfig(**{field: value})


@pytest.mark.parametrize(
    ("field", "value"),
    [("share", "0.2"), ("share_long", None), ("half_life", float("nan")), ("max_files", 1.5), ("scan_chars", True)],
)
def test_ledger_numbers_are_typed(field: str, value: Any) -> None:
    with pytest.raises(TypeError, match=rf"LedgerConfig\.{field}"):
        LedgerConfig(**{field: value})


def test_a_valid_custom_shape_still_reads_its_plan() -> None:
    config = LedgerConfig(
        plan_tools={"board": PlanShape(items="tasks", text=["title"], status="state")},
        tools={"fetch_doc": ToolSpec("read", ["doc_path"], actions={})},
    )
    cm = ContextManager.open("memory:")
    cm.ledger_config = config
    task = {"tasks": [{"title": "ship it", "state": "in_progress"}]}
    cm.add_message("assistant", [{"type": "tool_use", "id": "p", "name": "board", "input": task}])
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "p", "content": "ok"}])
    plan = cm.working_state().plans[0]
    assert [(i.text, i.status) for i in plan.items] == [("ship it", "in_progress")]
