"""Pinned ranges (``ContextManager.pin_range`` / ``unpin`` / ``list_pins``), raw: the summary levels are
tested in ``tests/autobiographical/test_autobio_level_pins.py``.

Property (hypothesis): a range pinned raw (or with ``max_level=0``) is raw in every compile that fits,
with every strategy, each of its messages once, tool units whole, or the compile raises OverBudgetError
naming the range. Then plain examples with real expected values: ids, idempotence, errors that write
nothing, forks, derive, reopen, readers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, MessageNotFoundError, WindowedPassthroughStrategy
from context_journal.compile import CompileResult, OverBudgetError
from context_journal.strategies import PassthroughStrategy
from context_journal.strategies.pinned import PinInfo, PinUnsupportedError
from context_journal.validate import validate_messages
from tests.compile.test_pins import _build, _strategy, plans, rendered_ids
from tests.hypothesis_budget import examples


def _range_ids(cm: ContextManager, first: str, last: str) -> list[str]:
    ids = [m.id for m in cm.get_all_messages()]
    return ids[ids.index(first) : ids.index(last) + 1]


@settings(max_examples=examples(50), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    plan=plans,
    picks=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 6)), min_size=1, max_size=3),
    budget=st.integers(150, 3000),
    name=st.sampled_from(["passthrough", "windowed", "autobiographical"]),
    max_level=st.sampled_from([None, 0]),
)
def test_raw_ranges_are_raw_in_every_compile_that_fits(
    plan: list[tuple[str, int]], picks: list[tuple[int, int]], budget: int, name: str, max_level: int | None
) -> None:
    cm = ContextManager.open("memory:", strategy=_strategy(name, budget))
    ids = _build(cm, plan)
    pinned: list[str] = []
    for start, length in picks:
        a = start % len(ids)
        b = min(len(ids) - 1, a + length)
        pid = cm.pin_range(ids[a], ids[b], max_level=max_level)
        assert pid.startswith("range-")
        pinned += ids[a : b + 1]
    if name == "autobiographical":
        cm.drain()
    for result in (_compile(cm, budget), _compile(cm, 10 * budget + 20_000)):
        if result is None:
            continue
        shown = rendered_ids(result)
        for message_id in dict.fromkeys(pinned):
            assert shown.count(message_id) == 1, (message_id, shown)
    assert _compile(cm, 10 * budget + 20_000) is not None  # a budget far above the pins always fits


def _compile(cm: ContextManager, budget: int) -> CompileResult | None:
    try:
        result = cm.compile(max_tokens=budget)
    except OverBudgetError as err:
        assert any(key.startswith("pinned range ") for key in err.parts) or "pinned" not in str(err), err.parts
        return None
    validate_messages(result.to_anthropic()["messages"])
    assert result.tokens <= budget
    return result


def test_pin_range_ids_listing_and_unpin() -> None:
    cm = ContextManager.open("memory:", strategy=PassthroughStrategy())
    ids = _build(cm, [("text", 30)] * 20)
    cm.pin(ids[0])
    first = cm.pin_range(ids[2], ids[4], name="spec")
    assert first == "range-1"
    assert cm.pin_range(ids[2], ids[4], name="spec") == "range-1"  # the same pin: nothing written
    assert cm.pin_range(ids[2], ids[4]) == "range-2"  # not named: another pin
    assert cm.pin_range(ids[7], ids[7], max_level=2) == "range-3"
    assert cm.list_pins() == [
        PinInfo(ids[0], "message", ids[0], ids[0]),
        PinInfo("range-1", "range", ids[2], ids[4], "spec"),
        PinInfo("range-2", "range", ids[2], ids[4]),
        PinInfo("range-3", "range", ids[7], ids[7], None, None, 2),
    ]
    assert cm.pins() == [ids[0]]  # message pins only, as before
    assert cm.unpin("range-2") > 0
    assert [p.pin_id for p in cm.list_pins()] == [ids[0], "range-1", "range-3"]
    assert cm.pin_range(ids[9], ids[10]) == "range-4"  # numbers are not reused
    assert cm.unpin(ids[0]) > 0 and cm.unpin("range-1") > 0
    with pytest.raises(MessageNotFoundError):
        cm.unpin("range-99")
    shown = rendered_ids(cm.compile(max_tokens=700))
    assert ids[7] in shown and ids[9] in shown and ids[10] in shown and ids[2] not in shown


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        (("m5", "m2"), {}, ValueError),  # last before first
        (("m2", "nope"), {}, MessageNotFoundError),
        (("nope", "m2"), {}, MessageNotFoundError),
        (("m2", "m5"), {"level": 1, "max_level": 2}, ValueError),
        (("m2", "m5"), {"level": -1}, ValueError),
        (("m2", "m5"), {"max_level": 65}, ValueError),
        (("m2", "m5"), {"level": True}, ValueError),
        (("m2", "m5"), {"level": "1"}, ValueError),
        (("m2", "m5"), {"name": "  "}, ValueError),
        (("m2", "m5"), {"name": "x" * 201}, ValueError),
        (("m2", "m5"), {"level": 1}, PinUnsupportedError),  # windowed renders no summaries
    ],
)
def test_bad_pin_ranges_raise_and_write_nothing(args: tuple[str, str], kwargs: dict[str, Any], error: type) -> None:
    cm = ContextManager.open("memory:", strategy=WindowedPassthroughStrategy())
    for k in range(8):
        cm.add_message("user" if k % 2 == 0 else "assistant", f"message {k}", id=f"m{k}")
    head = cm.store.head_seq()
    with pytest.raises(error):
        cm.pin_range(*args, **kwargs)
    assert cm.store.head_seq() == head and cm.list_pins() == []


def test_range_pins_are_branch_records_forks_inherit_and_reopen_keeps(tmp_path: Path) -> None:
    path = tmp_path / "ranges.db"
    cm = ContextManager.open(str(path), strategy=WindowedPassthroughStrategy())
    ids = _build(cm, [("text", 50)] * 80)
    pid = cm.pin_range(ids[1], ids[3], name="rules")
    cm.fork("experiment")
    cm.switch_branch("experiment")
    assert [p.pin_id for p in cm.list_pins()] == [pid]
    cm.unpin(pid)
    assert cm.list_pins() == [] and not set(ids[1:4]) & set(rendered_ids(cm.compile(max_tokens=1500)))
    cm.switch_branch("main")
    assert set(ids[1:4]) <= set(rendered_ids(cm.compile(max_tokens=1500)))
    child = cm.derive("child", strategy=PassthroughStrategy())
    assert [p.pin_id for p in child.list_pins()] == [pid]
    cm.close()
    again = ContextManager.open(str(path), strategy=PassthroughStrategy())
    assert again.list_pins() == [PinInfo(pid, "range", ids[1], ids[3], "rules")]
    assert set(ids[1:4]) <= set(rendered_ids(again.compile(max_tokens=1500)))
    again.close()


def test_a_range_that_does_not_fit_is_named_and_tool_units_stay_whole() -> None:
    cm = ContextManager.open("memory:", strategy=PassthroughStrategy())
    ids = _build(cm, [("text", 200)] * 8 + [("tool", 30)] + [("text", 40)] * 20)
    pid = cm.pin_range(ids[0], ids[5], name="big")
    with pytest.raises(OverBudgetError) as caught:
        cm.compile(max_tokens=600)
    assert f"pinned range {pid} (big)" in caught.value.parts
    cm.unpin(pid)
    call, result = ids[9], ids[10]  # the tool unit: user turn, call, result, answer from ids[8]
    cm.pin_range(result, ids[11])  # starts on the result: the call comes with it
    out = cm.compile(max_tokens=900)
    shown = rendered_ids(out)
    assert shown.index(call) + 1 == shown.index(result)
    validate_messages(out.to_anthropic()["messages"])


def test_a_range_pinned_by_a_reader_shows_it_only_its_own_blocks() -> None:
    host = ContextManager.open("memory:", strategy=WindowedPassthroughStrategy())
    ids: list[str] = []
    for k in range(40):
        block: dict[str, Any] = {"type": "text", "text": f"turn {k} " + "word " * 40}
        if k % 3:
            block["audience"] = ["alice"] if k % 3 == 1 else ["bob"]
        ids.append(host.add_message("user" if k % 2 == 0 else "assistant", [block]))

    def reader(name: str) -> ContextManager:
        return ContextManager.open(
            store=host.store, namespace=name, view_reader=name, strategy=WindowedPassthroughStrategy()
        )

    alice, bob = reader("alice"), reader("bob")
    with pytest.raises(MessageNotFoundError):
        alice.pin_range(ids[3], ids[5])  # ids[5] is bob's: alice cannot name it
    assert alice.pin_range(ids[3], ids[9]) == "range-1"
    shown = rendered_ids(alice.compile(max_tokens=900))
    assert {ids[k] for k in range(3, 10) if k % 3 != 2} <= set(shown)
    assert not {ids[k] for k in range(40) if k % 3 == 2} & set(shown)
    assert not {ids[k] for k in range(40) if k % 3 == 1} & set(rendered_ids(bob.compile(max_tokens=900)))
    assert bob.list_pins() == []  # pins belong to the namespace that wrote them


def test_the_tool_unit_of_a_pinned_result_is_never_excerpted() -> None:
    # A 10,000-token Write whose result is pinned: just above what the pinned unit needs, the call was
    # cut to an excerpt ("cut from about 2990 to 2079 tokens" in a review's Claude Code session).
    body = "\n".join(f"line {i}: value = compute({i}) + offset" for i in range(700))
    write = {"type": "tool_use", "id": "w1", "name": "Write", "input": {"path": "big.py", "content": body}}
    for pin in ("message", "range"):
        cm = ContextManager.open("memory:", strategy=WindowedPassthroughStrategy())
        for k in range(10):
            cm.add_message("user" if k % 2 == 0 else "assistant", f"turn {k} " + "word " * 60)
        call = cm.add_message("assistant", [write])
        result = cm.add_message("user", [{"type": "tool_result", "tool_use_id": "w1", "content": "written"}])
        for k in range(10, 30):
            cm.add_message("user" if k % 2 == 0 else "assistant", f"turn {k} " + "word " * 60)
        if pin == "message":
            cm.pin(result)
        else:
            cm.pin_range(result, result)
        fitted = 0
        for budget in range(10_300, 11_200, 100):
            try:
                out = cm.compile(max_tokens=budget)
            except OverBudgetError:
                continue
            fitted += 1
            sources = {s.id: s for m in out.messages for s in m.sources if s.kind == "message"}
            assert sources[call].complete and sources[result].complete, (pin, budget)
            assert not [r for r in out.repairs if r.message_id == call], (pin, budget)
        assert fitted >= 6, pin


@pytest.mark.parametrize("name", ["passthrough", "windowed"])
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(10, 40),
    big=st.integers(0, 39),
    first=st.integers(0, 39),
    length=st.integers(0, 6),
    newest=st.booleans(),
    budget=st.integers(3_000, 9_000),
)
def test_pinned_and_marked_messages_are_paid_for_once(
    name: str, n: int, big: int, first: int, length: int, newest: bool, budget: int
) -> None:
    """A pin (or a range pinned and also rendered as newest) is paid for once: when the whole history
    fits, pinning leaves nothing out (a pinned message the strategy kept raw anyway was counted twice: 9-10
    of 42 messages left out at 8,000 tokens with 5,714 in all)."""
    cm = ContextManager.open("memory:", strategy=name, shard_tokens=0)
    ids = []
    for k in range(n):
        text = f"turn {k} " + ("long words " * 600 if k == big % n else "words " * 30)
        ids.append(cm.add_message("user" if k % 2 == 0 else "assistant", text, id=f"m{k}"))
    a = first % n
    b = min(n - 1, a + length)
    if length == 0:
        cm.pin(ids[a])
    else:
        pin = cm.pin_range(ids[a], ids[b])
        if newest:
            cm.render_as_newest(pin)
    plain = ContextManager.open("memory:", strategy=name, shard_tokens=0)
    for k, mid in enumerate(ids):
        plain.add_message("user" if k % 2 == 0 else "assistant", cm.get_message(mid).text(), id=mid)
    unpinned = plain.compile(10**6)
    if unpinned.tokens > 0.9 * budget:
        return
    result = cm.compile(budget)
    shown = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
    assert result.omitted == () and shown == set(ids), (result.omitted, set(ids) - shown, unpinned.tokens, budget)
