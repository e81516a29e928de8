"""Views against brute force: positions, token sums, suffix search and id/sequence lookups, with removals
and edits leaving holes in the index."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from context_journal.manager import ContextManager
from context_journal.views import MessageView, SliceView, StoreView, newest_unit_start, unit_start_at_or_after
from tests.compile.compile_helpers import words
from tests.hypothesis_budget import examples


def _build(ops: list[tuple[str, int]]) -> ContextManager:
    cm = ContextManager.open("memory:")
    for op, size in ops:
        live = cm.get_all_messages()
        if op == "add" or not live:
            kind = size % 3
            if kind == 0:
                cm.add_message("user", words(size + 1))
            elif kind == 1:
                cm.add_message("assistant", [{"type": "tool_use", "id": f"t{len(live)}", "name": "x", "input": {}}])
            else:
                cm.add_message("tool", [{"type": "tool_result", "tool_use_id": "t", "content": words(size)}])
        elif op == "remove":
            cm.remove_message(live[size % len(live)].id)
        else:
            cm.edit_message(live[size % len(live)].id, words(size * 2 + 1))
    return cm


@settings(max_examples=examples(60), deadline=None)
@given(
    ops=st.lists(st.tuples(st.sampled_from(["add", "add", "add", "remove", "edit"]), st.integers(0, 60)), max_size=40),
    budget=st.integers(0, 400),
    a=st.integers(0, 50),
    b=st.integers(0, 50),
)
def test_store_view_matches_brute_force(ops: list[tuple[str, int]], budget: int, a: int, b: int) -> None:
    cm = _build(ops)
    view = StoreView(cm.messages)
    msgs = cm.get_all_messages()
    counter = cm.token_counter
    toks = [counter.count_message(m.participant, m.content_dicts()) for m in msgs]
    n = len(msgs)
    assert len(view) == n
    assert [e.id for e in view.entries()] == [m.id for m in msgs]
    assert [e.tokens for e in view.entries()] == toks
    assert [e.id for e in view.iter_reverse()] == [m.id for m in reversed(msgs)]
    lo, hi = min(a, b), max(a, b)
    assert view.tokens(lo, hi) == sum(toks[lo:hi])
    expect = next((s for s in range(n + 1) if sum(toks[s:]) <= budget), n)
    assert view.suffix_start(budget) == expect
    for i, m in enumerate(msgs):
        assert view.index_of(m.id) == i
        assert view.index_at_sequence(m.created_sequence) == i
        assert view.entry(i).kinds == tuple(block.type for block in m.content)
        assert view.message(i).id == m.id
    assert view.index_at_sequence(10**9) == n
    # A slice renumbers from 0 and answers the same questions about its span.
    sl = SliceView(view, lo)
    assert isinstance(sl, MessageView)
    assert [e.id for e in sl.entries()] == [m.id for m in msgs[lo:]]
    assert sl.tokens() == sum(toks[lo:])
    assert sl.suffix_start(budget) == max(expect, lo) - lo if lo <= n else True
    for i, m in enumerate(msgs[lo:]):
        assert sl.index_of(m.id) == i
        assert sl.message(i).id == m.id
    # Unit boundaries never land on a message made only of tool results.
    for start in range(n + 1):
        s = unit_start_at_or_after(view, start)
        assert s == n or not all(k == "tool_result" for k in view.entry(s).kinds)
        assert all(all(k == "tool_result" for k in view.entry(j).kinds) for j in range(start, s))
    if n:
        u = newest_unit_start(view)
        assert all(all(k == "tool_result" for k in view.entry(j).kinds) for j in range(u + 1, n))
