"""Compression holds with a timeout: a timed hold holds until its time is up, then no longer holds (the
next tick, or any read of pending work, writes its release record and logs a warning); holds without a
timeout never end by themselves; a new hold replaces the old one and its timeout. The clock is the
compression driver's (``cm.compression.clock``), so nothing sleeps."""

from __future__ import annotations

import logging
import math

import pytest
from autobio_helpers import chat, chunks, echo_summarizer, manager
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.stores.base import Op


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _manager(clock: Clock):  # type: ignore[no-untyped-def]
    cm = manager(
        chat(40, 40),
        summarizer=echo_summarizer(),
        head_window_tokens=50,
        recent_window_tokens=100,
        target_chunk_tokens=150,
    )
    cm.compression.clock = clock
    return cm


def test_a_timed_hold_holds_until_its_time_is_up(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    cm = _manager(clock)
    order = [f"m{k}" for k in range(40)]
    cm.hold_compression("m10", timeout_seconds=60)
    assert cm.pending_work().held == ("m10",)
    cm.drain()
    assert all(order.index(c.last_id) < 10 for c in chunks(cm))
    clock.now += 59.5
    assert cm.pending_work().held == ("m10",)  # not yet
    clock.now += 1
    with caplog.at_level(logging.WARNING, logger="context_journal.compression"):
        assert cm.pending_work().held == ()
    assert any("m10" in r.getMessage() and "expired" in r.getMessage() for r in caplog.records)
    log = cm.compression.compression_log()
    records = [r for r in cm.store.read_slot(log.slot, log.branch_id) if r.item == "hold/m10"]
    assert [(r.op, r.value()["active"], r.value().get("expired", False)) for r in records] == [
        (Op.APPEND, True, False),
        (Op.EDIT, False, True),
    ]
    cm.drain()
    assert any(order.index(c.last_id) > 10 for c in chunks(cm))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="context_journal.compression"):
        cm.pending_work()
    assert not caplog.records  # released once


def test_a_hold_without_timeout_never_ends_and_a_new_hold_replaces_the_old() -> None:
    clock = Clock()
    cm = _manager(clock)
    cm.hold_compression("m10", timeout_seconds=5)
    cm.hold_compression("m10")  # replaces the timed hold
    clock.now += 10**7
    assert cm.pending_work().held == ("m10",)
    cm.hold_compression("m12", timeout_seconds=30)
    clock.now += 31
    assert cm.pending_work().held == ("m10",)


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, True, "5", 366 * 24 * 3600])
def test_bad_timeouts_are_refused_and_write_nothing(bad: object) -> None:
    cm = _manager(Clock())
    head = cm.store.head_seq()
    with pytest.raises(ValueError, match="timeout_seconds"):
        cm.hold_compression("m10", timeout_seconds=bad)  # type: ignore[arg-type]
    assert cm.store.head_seq() == head


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("hold"), st.sampled_from(["m5", "m9", "m20"]), st.none() | st.integers(1, 100)),
        st.tuples(st.just("release"), st.sampled_from(["m5", "m9", "m20"]), st.none()),
        st.tuples(st.just("wait"), st.just(""), st.integers(0, 120)),
    ),
    max_size=12,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
def test_held_messages_follow_a_model_of_holds_and_time(ops: list[tuple[str, str, int | None]]) -> None:
    clock = Clock()
    cm = _manager(clock)
    model: dict[str, float | None] = {}  # message id -> when its hold ends (None: never)
    for op, message_id, value in ops:
        if op == "hold":
            cm.hold_compression(message_id, timeout_seconds=value)
            model[message_id] = None if value is None else clock.now + value
        elif op == "release":
            cm.release_compression(message_id)
            model.pop(message_id, None)
        else:
            clock.now += value or 0
        model = {m: end for m, end in model.items() if end is None or end > clock.now}
        assert set(cm.pending_work().held) == set(model)
