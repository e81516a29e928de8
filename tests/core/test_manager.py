"""ContextManager's message API on every backend: writes, edits, tombstones, time travel, queries."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from context_journal import (
    ContextManager,
    DuplicateMessageError,
    MalformedContentError,
    MemoryStore,
    MessageNotFoundError,
    SQLiteStore,
    Store,
    StoreClosedError,
)


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    st: Store = MemoryStore() if request.param == "memory" else SQLiteStore(tmp_path / "m.db")
    yield st
    st.close()


def test_add_get_edit_remove_and_time_travel(store: Store) -> None:
    cm = ContextManager.open(store=store)
    a = cm.add_message("user", "first", {"topic": "db"})
    b = cm.add_message("Claude", [{"type": "text", "text": "second"}])
    before_edit = store.head_seq()
    seq_edit = cm.edit_message(a, "first, edited")
    assert seq_edit == before_edit + 1
    assert cm.get_message(a).text() == "first, edited"
    assert cm.get_message(a).metadata == {"topic": "db"}  # kept when not given
    assert cm.get_message(a).created_sequence == 1
    assert cm.get_message_at(a, before_edit).text() == "first"
    cm.remove_message(b)
    assert cm.message_count() == 1
    with pytest.raises(MessageNotFoundError):
        cm.get_message(b)
    with pytest.raises(MessageNotFoundError, match="removed"):
        cm.get_message_at(b, store.head_seq())
    assert cm.get_message_at(b, 2).text() == "second"  # history stays readable
    assert [m.text() for m in cm.get_all_messages(as_of=2)] == ["first", "second"]
    assert [m.text() for m in cm.get_all_messages()] == ["first, edited"]
    with pytest.raises(MessageNotFoundError):
        cm.edit_message(b, "resurrect")
    with pytest.raises(MessageNotFoundError):
        cm.remove_message("nope")


def test_get_messages_offset_limit_skips_removed(store: Store) -> None:
    cm = ContextManager.open(store=store)
    ids = [cm.add_message("user", f"m{i}") for i in range(50)]
    for i in range(0, 50, 3):
        cm.remove_message(ids[i])
    live = [f"m{i}" for i in range(50) if i % 3]
    assert cm.message_count() == len(live)
    for offset, limit in [(0, 5), (7, 10), (30, 100), (33, 0), (40, None)]:
        got = [m.text() for m in cm.get_messages(offset, limit)]
        assert got == live[offset : None if limit is None else offset + limit]


def test_token_prefix_sums_follow_edits_and_removals(store: Store) -> None:
    cm = ContextManager.open(store=store)
    ids = [cm.add_message("user", "word " * (i + 1)) for i in range(20)]
    counter = cm.token_counter

    def expected(lo: int, hi: int) -> int:
        return sum(counter.count_message(m.participant, m.content_dicts()) for m in cm.get_all_messages()[lo:hi])

    cm.edit_message(ids[3], "much longer text " * 40)
    cm.remove_message(ids[10])
    n = cm.message_count()
    for lo, hi in [(0, n), (2, 9), (9, 12), (5, 5), (n - 1, n)]:
        assert cm.messages.tokens(lo, hi) == expected(lo, hi)


def test_add_messages_is_all_or_nothing(store: Store) -> None:
    cm = ContextManager.open(store=store)
    cm.add_message("user", "x", id="taken")
    head = store.head_seq()
    with pytest.raises(DuplicateMessageError):
        cm.add_messages(
            [{"participant": "user", "content": "a", "id": "new"}, {"participant": "u", "content": "b", "id": "taken"}]
        )
    with pytest.raises(DuplicateMessageError):
        cm.add_messages(
            [{"participant": "user", "content": "a", "id": "dup"}, {"participant": "u", "content": "b", "id": "dup"}]
        )
    with pytest.raises(MalformedContentError, match="message 1"):
        cm.add_messages([{"participant": "user", "content": "a"}, {"participant": "user"}])
    assert store.head_seq() == head
    assert cm.message_count() == 1


def test_query_messages(store: Store) -> None:
    cm = ContextManager.open(store=store)
    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    for i in range(10):
        cm.add_message("ann" if i % 2 else "bob", f"m{i}", {"k": i % 3}, timestamp=t0 + timedelta(hours=i))
    assert [m.text() for m in cm.query_messages(participant="ann")] == ["m1", "m3", "m5", "m7", "m9"]
    assert [m.text() for m in cm.query_messages(participant=["ann", "bob"], metadata={"k": 0})] == [
        "m0",
        "m3",
        "m6",
        "m9",
    ]
    assert [m.text() for m in cm.query_messages(since=t0 + timedelta(hours=7))] == ["m7", "m8", "m9"]
    assert [m.text() for m in cm.query_messages(until="2025-01-01T02:00:00Z")] == ["m0", "m1"]
    assert [m.text() for m in cm.query_messages(reverse=True, limit=2)] == ["m9", "m8"]
    assert cm.get_message(cm.query_messages(limit=1)[0].id).timestamp == t0


def test_namespaces_share_a_slot_unless_isolated(store: Store) -> None:
    ann = ContextManager.open(store=store, namespace="ann")
    bob = ContextManager.open(store=store, namespace="bob")
    solo = ContextManager.open(store=store, namespace="solo", isolate=True)
    ann.add_message("ann", "hi all")
    bob.add_message("bob", "hi ann")
    solo.add_message("solo", "private")
    assert [m.text() for m in ann.get_all_messages()] == ["hi all", "hi ann"]
    assert [m.text() for m in bob.get_all_messages()] == ["hi all", "hi ann"]
    assert [m.text() for m in solo.get_all_messages()] == ["private"]


def test_two_handles_on_one_file_see_each_other(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    with ContextManager.open(path) as one, ContextManager.open(path) as two:
        one.add_message("user", "from one")
        assert [m.text() for m in two.get_all_messages()] == ["from one"]
        two.add_message("user", "from two")
        edited = one.get_all_messages()[0].id
        two.edit_message(edited, "edited by two")
        assert [m.text() for m in one.get_all_messages()] == ["edited by two", "from two"]
        assert one.message_count() == two.message_count() == 2


def test_reopen_rebuilds_the_same_index(tmp_path: Path) -> None:
    path = tmp_path / "r.db"
    with ContextManager.open(path) as cm:
        ids = [cm.add_message("user", f"m{i}") for i in range(30)]
        cm.remove_message(ids[4])
        cm.edit_message(ids[7], "seven")
        before = [(m.id, m.text(), m.sequence) for m in cm.get_all_messages()]
        tokens = cm.messages.tokens()
    with ContextManager.open(path) as cm:
        assert [(m.id, m.text(), m.sequence) for m in cm.get_all_messages()] == before
        assert cm.messages.tokens() == tokens


def test_closed_manager_and_store(tmp_path: Path) -> None:
    cm = ContextManager.open(tmp_path / "c.db")
    cm.add_message("user", "x")
    cm.close()
    cm.close()  # idempotent
    with pytest.raises(StoreClosedError):
        cm.add_message("user", "y")


def test_open_arguments_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        ContextManager.open()
    with pytest.raises(ValueError, match="exactly one"):
        ContextManager.open(tmp_path / "a.db", store=MemoryStore())


def test_a_handle_on_a_deleted_branch_cannot_write(store: Store) -> None:
    from context_journal import BranchNotFoundError

    a = ContextManager.open(store=store)
    a.add_message("user", "x")
    a.fork("b2")
    b = ContextManager.open(store=store, branch="b2")
    b.add_message("user", "on b2")
    a.delete_branch("b2")
    head = store.head_seq()
    with pytest.raises(BranchNotFoundError):
        b.add_message("user", "after delete")
    assert store.head_seq() == head


# ---- errors a person can act on --------------------------------------------------------


def test_blank_text_is_refused_like_an_empty_block_list() -> None:
    import pytest

    from context_journal.errors import MalformedContentError

    cm = ContextManager.open("memory:")
    for content in ("", "   "):
        with pytest.raises(MalformedContentError, match="non-empty text"):
            cm.add_message("user", content)
        with pytest.raises(MalformedContentError):
            cm.add_messages([{"participant": "user", "content": content}])
    assert cm.message_count() == 0


def test_strategy_names_are_accepted_and_others_refused_at_open() -> None:
    import pytest

    from context_journal.strategies import WindowedPassthroughStrategy

    cm = ContextManager.open("memory:", strategy="windowed")
    assert isinstance(cm.strategy, WindowedPassthroughStrategy)
    cm.add_message("user", "hi")
    assert cm.compile(100).strategy == "windowed"
    for name in ("autobiographical", "knowledge", "passthrough"):
        assert ContextManager.open("memory:", strategy=name).strategy is not None
    with pytest.raises(TypeError, match="unknown strategy 'windowd'"):
        ContextManager.open("memory:", strategy="windowd")
    with pytest.raises(TypeError, match="must be a Strategy"):
        ContextManager.open("memory:", strategy=42)


def test_reserve_larger_than_the_window_and_empty_compiles_raise() -> None:
    import pytest

    from context_journal import EmptyContextError
    from context_journal.validate import validate_messages

    cm = ContextManager.open("memory:")
    with pytest.raises(EmptyContextError, match="holds no message"):
        cm.compile(100)
    cm.add_message("user", "hi")
    with pytest.raises(ValueError, match="reserve_for_response"):
        cm.compile(max_tokens=100, reserve_for_response=200)
    # Equal leaves nothing too: the same error (a review saw OverBudgetError "the budget is 0" here).
    with pytest.raises(ValueError, match=r"reserve_for_response \(100\) is not less than max_tokens \(100\)"):
        cm.compile(max_tokens=100, reserve_for_response=100)
    assert [i.code for i in validate_messages([])] == ["no_messages"]


def test_a_missing_directory_is_an_error_unless_asked_to_create_it(tmp_path: Path) -> None:
    import pytest

    from context_journal.errors import StoreError

    path = tmp_path / "no" / "such" / "x.db"
    with pytest.raises(StoreError, match="does not exist"):
        ContextManager.open(path)
    assert not (tmp_path / "no").exists()
    with ContextManager.open(path, create_dirs=True) as cm:
        cm.add_message("user", "hi")
    assert path.exists()


def test_open_given_a_store_as_its_location_says_to_pass_it_as_store() -> None:
    """``ContextManager.open(store)`` failed inside ``os.fspath`` ("expected str, bytes or os.PathLike
    object, not MemoryStore"); the store is refused by name and left open for the caller."""
    from context_journal.stores import MemoryStore

    store = MemoryStore()
    with pytest.raises(TypeError, match=r"pass an open store as store="):
        ContextManager.open(store)  # type: ignore[arg-type]
    assert not store.closed
    ContextManager.open(store=store).close()
