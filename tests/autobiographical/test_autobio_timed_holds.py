"""Compression holds with a timeout: a timed hold holds until its time is up, then no longer holds (the
next tick, or any read of pending work, writes its release record and logs a warning); holds without a
timeout never end by themselves; a new hold replaces the old one and its timeout. The clock is the
compression driver's (``cm.compressor.clock``), so nothing sleeps."""

from __future__ import annotations

import logging
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.stores.base import Op
from tests.autobiographical.autobio_helpers import chat, chunks, echo_summarizer, manager
from tests.hypothesis_budget import examples


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _manager(clock: Clock) -> ContextManager:
    cm = manager(
        chat(40, 40),
        summarizer=echo_summarizer(),
        head_window_tokens=50,
        recent_window_tokens=100,
        target_chunk_tokens=150,
    )
    cm.compressor.clock = clock
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
    log = cm.compressor.compression_log()
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


def test_a_compile_releases_an_expired_hold_too(caplog: pytest.LogCaptureFixture) -> None:
    """Expiry is checked on compile as on tick: the release record is written and the warning logged
    once, by the first compile after the time is up."""
    clock = Clock()
    cm = _manager(clock)
    cm.hold_compression("m10", timeout_seconds=60)
    cm.compile(2000)
    clock.now += 61
    with caplog.at_level(logging.WARNING, logger="context_journal.compression"):
        cm.compile(2000)
    assert [r.getMessage() for r in caplog.records if "expired" in r.getMessage()] == [
        "compression hold at message m10 expired: compression may now close chunks there"
    ]
    log = cm.compressor.compression_log()
    records = [r for r in cm.store.read_slot(log.slot, log.branch_id) if r.item == "hold/m10"]
    assert [r.value().get("expired", False) for r in records] == [False, True]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="context_journal.compression"):
        cm.compile(2000)
        cm.tick()
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


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
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


# --- add_message(hold=...): the message and its hold in one transaction --------------------------------


def test_add_message_with_hold_true_holds_until_released() -> None:
    cm = _manager(Clock())
    head = cm.store.head_seq()
    mid = cm.add_message("user", "a long paste the host wants kept raw for now", id="pasted", hold=True)
    assert mid == "pasted"
    assert cm.store.head_seq() == head + 2  # the message and its hold record
    assert cm.pending_work().held == ("pasted",)
    log = cm.compressor.compression_log()
    [record] = [r for r in cm.store.read_slot(log.slot, log.branch_id) if r.item == "hold/pasted"]
    assert record.value()["active"] is True and "expires" not in record.value()
    cm.drain()
    assert all(c.last_id != "pasted" for c in chunks(cm))
    cm.release_compression("pasted")
    assert cm.pending_work().held == ()


def test_add_message_with_hold_seconds_ends_by_itself() -> None:
    clock = Clock()
    cm = _manager(clock)
    cm.add_message("user", "held for a minute", id="m40", hold=60)
    log = cm.compressor.compression_log()
    [record] = [r for r in cm.store.read_slot(log.slot, log.branch_id) if r.item == "hold/m40"]
    assert record.value()["expires"] == clock.now + 60
    clock.now += 59
    assert cm.pending_work().held == ("m40",)
    clock.now += 2
    assert cm.pending_work().held == ()


@pytest.mark.parametrize("off", [None, False])
def test_add_message_without_hold_writes_no_hold(off: bool | None) -> None:
    cm = _manager(Clock())
    head = cm.store.head_seq()
    cm.add_message("user", "plain", id="m40", hold=off)
    assert cm.store.head_seq() == head + 1
    assert cm.pending_work().held == ()


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, "5", 366 * 24 * 3600, [1]])
def test_add_message_with_a_bad_hold_writes_nothing(bad: object) -> None:
    cm = _manager(Clock())
    head, count = cm.store.head_seq(), cm.message_count()
    with pytest.raises(ValueError, match="hold"):
        cm.add_message("user", "text", id="m40", hold=bad)  # type: ignore[arg-type]
    assert (cm.store.head_seq(), cm.message_count()) == (head, count)


def test_a_refused_message_writes_no_hold() -> None:
    cm = _manager(Clock())
    head = cm.store.head_seq()
    with pytest.raises(Exception, match="m3"):
        cm.add_message("user", "duplicate id", id="m3", hold=True)
    assert cm.store.head_seq() == head
    assert cm.pending_work().held == ()


def test_message_and_hold_commit_together_on_sqlite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure while writing the hold rolls the message back too (one transaction): a reopened store
    holds neither; a successful write is seen, held, by a second handle."""
    from context_journal import ContextManager
    from context_journal.stores import SQLiteStore

    path = tmp_path / "held.db"
    cm = ContextManager.open(store=SQLiteStore(path))
    cm.add_message("user", "first")

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("disk full while writing the hold")

    monkeypatch.setattr(type(cm.compressor), "set_hold", broken)
    with pytest.raises(OSError, match="disk full"):
        cm.add_message("user", "second", id="second", hold=True)
    monkeypatch.undo()
    assert [m.id for m in cm.get_all_messages()][1:] == []
    cm.add_message("user", "third", id="third", hold=30)
    cm.close()
    again = ContextManager.open(store=SQLiteStore(path))
    assert [m.id for m in again.get_all_messages()][1:] == ["third"]
    assert again.compressor.compression_log().active_holds() == ["third"]
    again.close()
