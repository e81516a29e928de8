"""Retention: a namespace's policy erases exactly the messages older than it keeps, on every
backend, by redaction (summaries covering them go too), applied by :func:`apply_retention` and by a
compression worker."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from context_journal import ContextManager
from context_journal.errors import RedactionError
from context_journal.retention import apply_retention, retention_policies, set_retention
from context_journal.stores.base import Store
from context_journal.workers import CompressionWorker

if TYPE_CHECKING:
    from tests.conftest import Backend

DAY = 86_400.0
NOW = 1_800_000_000.0  # a fixed present: 2027-01-15


def _fill(cm: ContextManager, ages: list[float], tag: str) -> dict[str, float]:
    """Messages whose timestamps are ``NOW - age days``, the boundary cases included; id -> age."""
    out = {}
    for i, age in enumerate(ages):
        mid = cm.add_message("user", f"{tag} message {i} word{tag}{i}z", timestamp=NOW - age * DAY)
        out[mid] = age
    return out


AGES = [400, 91, 90.001, 90, 89.999, 30, 1, 0, -1]


def test_retention_erases_exactly_what_is_older(backend: Backend) -> None:
    store: Store = backend.new()
    default = ContextManager.open(store=store)
    kept_ns = ContextManager.open(store=store, namespace="notes", isolate=True)
    ages = _fill(default, AGES, "d")
    other = _fill(kept_ns, AGES, "n")  # no policy: untouched
    assert apply_retention(store, now=NOW) == []  # no policy yet
    default.set_retention(90)
    assert [(p.namespace, p.retain_days, p.slot) for p in retention_policies(store)] == [("default", 90.0, "messages")]
    done = apply_retention(store, now=NOW, by="nightly")
    expected = {mid for mid, age in ages.items() if age > 90}
    assert {r.message_id for r in done} == expected
    assert all(r.reason == "retention: older than 90 days" and r.by == "nightly" for r in done)
    default.messages.refresh()
    stubs = {m.id for m in default.get_all_messages() if m.text() == "[redacted]"}
    assert stubs == expected and {m.id for m in default.get_all_messages()} == set(ages)
    assert {m.id for m in kept_ns.get_all_messages()} == set(other)
    for mid in expected:
        i = list(ages).index(mid)
        assert default.search_messages(f"wordd{i}z") == []
    assert apply_retention(store, now=NOW) == []  # nothing new is old enough
    assert len(apply_retention(store, now=NOW + 2 * DAY)) == 2  # 89.999 and 90 days have passed 90
    default.set_retention(None)
    assert retention_policies(store) == []
    for cm in (default, kept_ns):
        cm.close()


def test_retention_arguments_are_checked(backend: Backend) -> None:
    store: Store = backend.new()
    for bad in (0, -1, float("nan"), float("inf"), 10**7):
        with pytest.raises(RedactionError, match="retain_days"):
            set_retention(store, "default", bad)
    for wrong in (True, "30"):
        with pytest.raises(TypeError, match="retain_days"):
            set_retention(store, "default", wrong)  # type: ignore[arg-type]
    shared = ContextManager.open(store=store, namespace="team")  # over the common slot: the host's policy rules
    with pytest.raises(RedactionError, match="shares the common message slot"):
        shared.set_retention(30)
    shared.close()
    reader = ContextManager.open(store=store, namespace="ann", view_reader="ann")
    with pytest.raises(RedactionError, match="reader"):
        reader.set_retention(30)
    reader.close()


def test_a_worker_applies_retention_on_its_interval() -> None:
    from context_journal.stores import MemoryStore

    store = MemoryStore()
    cm = ContextManager.open(store=store)
    ages = _fill(cm, [100, 5], "w")
    cm.set_retention(30)
    clock = [NOW]
    worker = CompressionWorker(store, retention_seconds=3600, clock=lambda: clock[0])
    report = worker.run(until_idle=True)
    assert report.redacted == 1 and report.to_dict()["redacted"] == 1
    clock[0] += 26 * DAY  # the 5-day-old message is now 31 days old
    assert worker.apply_retention() == 1
    assert worker.apply_retention() == 0  # not due again for an hour
    assert {r.message_id for r in cm.redactions()} == set(ages)
    with pytest.raises(ValueError, match="retention_seconds"):
        CompressionWorker(store, retention_seconds=0)
    worker.close()
    cm.close()


def test_retention_erases_a_message_whose_metadata_claims_it_was_redacted(backend: Backend) -> None:
    """Review finding: a caller's ``metadata={"redacted": True}`` made retention skip the message forever."""
    store: Store = backend.new()
    cm = ContextManager.open(store=store)
    planted = cm.add_message("user", "PLANTED old text", metadata={"redacted": True}, timestamp=NOW - 400 * DAY)
    cm.set_retention(30)
    assert [r.message_id for r in apply_retention(store, now=NOW)] == [planted]
    assert cm.get_message(planted).text() == "[redacted]"
    cm.close()
