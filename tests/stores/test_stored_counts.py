"""Token counts stored with the records (``Record.ix``): a message version is written with its count
under the counter's key, and an index opened over the store reads those counts instead of pricing every
message again (what made opening a 200,000-message store take seconds). A count is trusted only under
the same key (same counter class, prices, estimate version and Unicode version); a redaction clears it
with the body; records without one (older stores, counters with no key) are priced as before. Whatever
is stored, the index an open builds equals the one pricing every message would build."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.messages import MessageStore
from context_journal.stores import MemoryStore, Op, Record, Store
from context_journal.stores.integrity import check_store
from context_journal.tokens import EstimatingCounter, counter_key
from tests.hypothesis_budget import examples

if TYPE_CHECKING:
    from tests.conftest import Backend


class Recounting(EstimatingCounter):
    """The default prices under a class of its own: no counter key, so every message is priced."""


def _counts(index: MessageStore) -> list[int]:
    return [index.token_sums.get(p) for p in range(len(index.token_sums))]


def _index(store: Store, counter: Any) -> MessageStore:
    return MessageStore(store, "messages", store.get_branch("main").id, counter)


def _ids(index: MessageStore) -> list[str]:
    return [e.id for e in index.iter_entries()]


def _ix(store: Store) -> list[str | None]:
    return [r.ix for r in store.read_slot("messages", store.get_branch("main").id)]


CALL = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest -q tests/"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "3 passed in 0.41s"}


def _write(store: Store) -> ContextManager:
    cm = ContextManager.open(store=store)
    cm.add_message("user", "Run the tests in tests/, please. Мы проверим потом. 検索してください")
    cm.add_message("assistant", [{"type": "text", "text": "Running them."}, CALL])
    cm.add_message("user", [RESULT])
    cm.add_message("assistant", "All three pass.")
    return cm


def test_each_message_version_is_written_with_its_count_under_the_counter_key(store: Store) -> None:
    cm = _write(store)
    first = _ids(cm.messages)[0]
    cm.edit_message(first, "Run the tests in tests/ and then the linter.")
    last = _ids(cm.messages)[-1]
    cm.remove_message(last)
    key = counter_key(EstimatingCounter())
    counter = EstimatingCounter()
    records = store.read_slot("messages", store.get_branch("main").id)
    assert [r.op.name for r in records] == ["APPEND"] * 4 + ["EDIT", "REMOVE"]
    for rec in records[:5]:  # the count, then what the index keeps: odd flag, time, block kinds, participant
        body = rec.value()
        n = counter.count_message(body["participant"], body["content"])
        kinds = ",".join(b["type"] for b in body["content"])
        assert rec.ix == f"{key} {n} - {float(body['timestamp'])!r} {kinds} {body['participant']}"
    assert records[5].ix is None  # a removal has no count
    assert _counts(_index(store, EstimatingCounter())) == _counts(_index(store, Recounting()))


def test_an_open_reads_the_stored_fields_and_neither_prices_nor_parses_a_message(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(store)
    expected = _index(store, Recounting())

    def refuse(*args: Any) -> Any:
        raise AssertionError("a message priced or parsed at open")

    monkeypatch.setattr(EstimatingCounter, "count_message", refuse)
    monkeypatch.setattr(Record, "value", refuse)
    opened = _index(store, EstimatingCounter())
    assert _counts(opened) == _counts(expected)
    assert list(opened.rows) == list(expected.rows)  # participant, time, block kinds, flags: all the same


def test_fields_that_cannot_be_stored_leave_the_count_alone_and_the_body_is_read(store: Store) -> None:
    cm = ContextManager.open(store=store)
    cm.add_message("ann", [{"type": "text", "text": "for bo only", "audience": ["bo"]}])
    cm.add_message("assistant", [{"type": "text", "text": "as the system says"}], {"role": "system"})
    cm.add_message("Dr. Ann Lee", "a participant with spaces")
    cm.add_message("user", [{"type": "text", "text": "  "}, {"type": "text", "text": "a blank block first"}])
    key = counter_key(EstimatingCounter())
    ix = _ix(store)
    assert ix[0] is not None and ix[0].count(" ") == 1  # an audience: the count alone
    assert ix[1] is not None and ix[1].split(" ")[2] == "o"  # a metadata role: odd
    assert ix[2] is not None and ix[2].endswith(" text Dr. Ann Lee")
    assert ix[3] is not None and ix[3].startswith(f"{key} ") and ix[3].split(" ")[2] == "o"  # a blank block
    opened, expected = _index(store, EstimatingCounter()), _index(store, Recounting())
    assert list(opened.rows) == list(expected.rows) and _counts(opened) == _counts(expected)
    assert opened.audience_blocks == expected.audience_blocks == 1


def test_another_counter_prices_every_message_again(store: Store) -> None:
    _write(store)
    default = _counts(_index(store, EstimatingCounter()))
    heavier = _counts(_index(store, EstimatingCounter(message_overhead=10, tool_use_overhead=20)))
    assert [h - d for h, d in zip(heavier, default, strict=True)] == [6, 18, 6, 6]


def test_a_counter_with_no_key_stores_nothing_and_its_records_are_priced_at_open(store: Store) -> None:
    cm = ContextManager.open(store=store, token_counter=Recounting())
    cm.add_message("user", "Where did we leave the invoices?")
    cm.add_message("assistant", "In billing/invoices.py, with the currency fix pending.")
    assert _ix(store) == [None, None]  # what a store written before counts were stored holds too
    assert _counts(_index(store, EstimatingCounter())) == _counts(_index(store, Recounting()))


def test_a_redaction_clears_the_stored_count_with_the_body(store: Store) -> None:
    cm = _write(store)
    secret = _ids(cm.messages)[0]
    cm.redact(secret, reason="a customer's request")
    records = [r for r in store.read_slot("messages", store.get_branch("main").id) if r.item == secret]
    assert records and all(r.ix is None for r in records)  # the stub or erased versions, the removal
    assert all(r.body is None or r.value().get("redacted") for r in records)
    reopened = _index(store, EstimatingCounter())
    assert _counts(reopened) == _counts(_index(store, Recounting()))
    assert _ids(reopened) == _ids(cm.messages)
    assert _counts(reopened)[0] < _counts(_index(store, Recounting()))[1]  # the stub's count, not the secret's


def test_a_count_written_around_the_library_that_cannot_be_read_is_priced_again(backend: Backend) -> None:
    if backend.name != "memory":
        pytest.skip("the SQL stores refuse the UPDATE that would write it (the records' guard)")
    store = backend.new()
    _write(store)
    key = counter_key(EstimatingCounter())
    for i, bad in enumerate([f"{key}", f"{key} -4", f"{key} lots", f"{key} 9999999999999"]):
        seq = store.read_slot("messages", store.get_branch("main").id)[i].seq
        rec = store._records[seq - 1]  # type: ignore[attr-defined]
        store._records[seq - 1] = type(rec)(**{**{f: getattr(rec, f) for f in rec.__slots__}, "ix": bad})  # type: ignore[attr-defined]
    assert _counts(_index(store, EstimatingCounter())) == _counts(_index(store, Recounting()))


OPS = st.lists(
    st.tuples(
        st.sampled_from(["add", "add", "edit", "remove", "redact", "recount", "odd", "audience"]),
        st.integers(0, 50),
        st.text(max_size=40).map("note {}".format),  # visible text: a soft hyphen alone is blank,
    ),
    min_size=1,
    max_size=14,
)


def test_the_index_an_open_builds_equals_one_that_prices_every_message(backend: Backend) -> None:
    """Random appends, edits, removals and redactions, by a handle that stores counts and by one that
    does not (its counter has no key)."""

    @settings(
        max_examples=examples(25) if backend.name != "postgres" else max(5, examples(25) // 4),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(ops=OPS)
    def run(ops: list[tuple[str, int, str]]) -> None:
        with backend.new() as store:
            cm = ContextManager.open(store=store)
            other = ContextManager.open(store=store, token_counter=Recounting())
            for op, at, text in ops:
                ids = _ids(cm.messages)
                if op == "add":
                    cm.add_message("user", [{"type": "text", "text": text}])
                elif op == "recount":
                    other.add_message("assistant", text)
                elif op == "odd":
                    cm.add_message("assistant", text, {"role": "system"})
                elif op == "audience":
                    cm.add_message("ann lee", [{"type": "text", "text": text, "audience": ["ann lee"]}])
                elif ids and op == "edit":
                    cm.edit_message(ids[at % len(ids)], text + " (edited)")
                elif ids and op == "remove":
                    cm.remove_message(ids[-1])
                elif ids and op == "redact":
                    cm.redact(ids[at % len(ids)], reason="test")
            cm.messages.refresh()
            opened = _index(store, EstimatingCounter())
            expected = _index(store, Recounting())
            assert _counts(opened) == _counts(expected)
            assert list(opened.rows) == list(expected.rows)
            assert _ids(opened) == _ids(cm.messages)
            assert opened.token_sums.total() == cm.messages.token_sums.total()

    run()


def test_verify_checks_the_stored_fields_against_each_body(backend: Backend) -> None:
    store = backend.new()
    cm = _write(store)
    cm.edit_message(_ids(cm.messages)[0], "Run the linter too.")
    cm.add_message("ann", [{"type": "text", "text": "for bo only", "audience": ["bo"]}])
    assert check_store(store).problems == ()
    if backend.name != "memory":
        return  # the SQL stores' guard refuses the UPDATE that would tamper with them
    records = store.read_slot("messages", store.get_branch("main").id)
    key = counter_key(EstimatingCounter())
    tampered = {
        records[0].seq: records[0].ix.replace(" user", " admin"),  # type: ignore[union-attr]
        records[1].seq: f"{key} 1 {records[1].ix.split(' ', 2)[2]}",  # type: ignore[union-attr]  # a wrong count
        records[2].seq: f"{key} 12 x",  # fields that cannot be read
    }
    for seq, ix in tampered.items():
        rec = store._records[seq - 1]  # type: ignore[attr-defined]
        store._records[seq - 1] = replace(rec, ix=ix)  # type: ignore[attr-defined]
    found = {p.at: p.reason for p in check_store(store).problems}
    assert set(found) == set(tampered), found
    assert "not its body's" in found[records[0].seq]
    assert "not the estimate of its body" in found[records[1].seq]
    assert "not its body's" in found[records[2].seq]


def test_a_backend_whose_insert_predates_ix_still_writes_and_its_messages_are_priced_at_open() -> None:
    class OlderBackend(MemoryStore):
        """A third-party backend written against the contract before ``ix``: ``_insert`` has six arguments."""

        def _insert(self, branch_id: int, slot: str, item: str, op: Op, body: str | None, ts: float) -> int:  # type: ignore[override]
            return super()._insert(branch_id, slot, item, op, body, ts)

    store = OlderBackend()
    cm = ContextManager.open(store=store)
    cm.add_message("user", "Where did we leave the invoices?")
    cm.add_message("assistant", [{"type": "text", "text": "In billing/."}, CALL])
    assert _ix(store) == [None, None]
    assert _counts(_index(store, EstimatingCounter())) == _counts(cm.messages)


def test_the_writer_prices_what_is_stored_so_every_open_agrees_with_it(store: Store) -> None:
    """A provider block's extra field holding a tuple is a list once stored (of another price), and of two
    keys JSON writes alike a read keeps the last: the writer prices the body as it reads back."""
    cm = ContextManager.open(store=store)
    cm.add_message("user", "hi")
    cm.add_message("assistant", [{"type": "reasoning", "id": "rs_1", "summary": [], "notes": ("word " * 200,)}])
    cm.add_message(
        "assistant", [{"type": "tool_use", "id": "toolu_9", "name": "f", "input": {"a": {1: "x " * 400, "1": "y"}}}]
    )
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "ok"}])
    written = _counts(cm.messages)
    assert written == _counts(_index(store, EstimatingCounter())) == _counts(_index(store, Recounting()))
    assert written[1] > 200 and written[2] < 100  # the list's words are priced; only the last "1" is kept


def test_a_refresh_reads_what_others_wrote_from_the_stored_fields(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader = _index(store, EstimatingCounter())
    _write(store)  # another handle writes

    def refuse(*args: Any) -> Any:
        raise AssertionError("a body parsed by a refresh")

    with monkeypatch.context() as m:
        m.setattr(Record, "value", refuse)
        assert reader.refresh()
    assert list(reader.rows) == list(_index(store, Recounting()).rows)
    told: list[str] = []
    reader.observers.append(lambda pos, mid, body: told.append(body["participant"]))  # an observer gets bodies
    ContextManager.open(store=store).add_message("ann", "one more")
    assert reader.refresh() and told == ["ann"]
