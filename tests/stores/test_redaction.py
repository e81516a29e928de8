"""Redaction: a message erased everywhere the store holds it, the proof that it happened kept.

Each test writes a unique marker into the message to erase (its text, an edit on a fork, an image's
bytes, and through compression the summaries and the working-state checkpoints that cover it), redacts
it, and then looks for the marker where it could remain: the compile of every branch, both full-text
indexes, raw reads, and, on SQLite, the bytes of the database file and its write-ahead log; on
PostgreSQL, every row of every table of the store's schema as text. Everything else must still read,
compile and verify.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import pickle
import sqlite3
import struct
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import AutobiographicalConfig, AutobiographicalStrategy, ContextManager
from context_journal.compile import EmptyContextError
from context_journal.errors import BlobNotFoundError, MessageNotFoundError, RedactionError, StoreError
from context_journal.stores import MemoryStore, SQLiteStore
from context_journal.stores.base import Op, Store
from context_journal.stores.integrity import check_store
from context_journal.stores.redaction import REDACTION_SLOT, is_redacted
from tests.hypothesis_budget import examples

if TYPE_CHECKING:
    from tests.conftest import Backend

MARK = "ZEBRAQUOKKA7731"


def _png(tag: bytes) -> str:
    """A valid 1x1 PNG whose bytes hold ``tag`` (in a text chunk), base64."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"\x00\x00\x00\x00"
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        + chunk(b"tEXt", b"Comment\x00" + tag)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )
    return base64.b64encode(png).decode()


def _conversation(cm: ContextManager, n: int = 90, secret_at: int = 30) -> list[str]:
    ids = []
    for i in range(n):
        if i == secret_at:
            content: object = [
                {"type": "text", "text": f"my account code is {MARK} keep it safe {MARK}"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _png(MARK.encode())}},
            ]
        else:
            content = f"turn {i}: we talked about the garden, tomatoes and the river walk number {i}. " * 4
        ids.append(cm.add_message("user" if i % 2 == 0 else "assistant", content))  # type: ignore[arg-type]
    return ids


def _autobio(budget: int = 2000) -> AutobiographicalStrategy:
    return AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget))


def _everything_readable(cm: ContextManager) -> str:
    """Every text the manager gives out: the compile, raw messages, searches of both indexes."""
    try:
        parts = [str(cm.compile(4000).to_dict())]
    except EmptyContextError:  # every message removed or erased
        parts = []
    parts.append(str([m.content_dicts() for m in cm.get_all_messages()]))
    parts += [str(h) for h in cm.search_messages(MARK)]
    parts += [str(h) for h in cm.search_summary_text(MARK)]
    return " ".join(parts)


def _file_bytes(path: str) -> bytes:
    out = b""
    for suffix in ("", "-wal", "-journal"):
        p = Path(path + suffix)
        if p.exists():
            out += p.read_bytes()
    return out


def _marker_in(data: bytes) -> bool:
    return MARK.encode() in data or MARK.lower().encode() in data


def test_sqlite_redaction_leaves_no_byte_of_the_message(tmp_path: Path) -> None:
    path = str(tmp_path / "s.db")
    cm = ContextManager.open(path, strategy=_autobio())
    ids = _conversation(cm)
    cm.drain()  # summaries (extractive: they quote the marker) and ledger checkpoints cover it
    cm.fork("side")
    cm.edit_message(ids[30], f"edited, the code {MARK} is still here")
    side = ContextManager.open(store=cm.store, branch="side", strategy=_autobio())
    # the edit on main retired main's summaries that quoted the marker (a stale mark); the fork keeps its own
    assert not any(MARK in (s.text or "") for s in cm.get_summaries_in_range(ids[0], ids[-1]))
    assert any(MARK in (s.text or "") for s in side.get_summaries_in_range(ids[0], ids[-1]))
    assert cm.search_messages(MARK) and side.search_messages(MARK)
    cm.store.checkpoint()  # type: ignore[attr-defined]
    assert _marker_in(_file_bytes(path))  # the scan below can fail

    before = {r.seq: r.body for r in cm.store.records_of(cm.slot, ids[30])}
    red = cm.redact(ids[30], reason="user asked for erasure", by="support")

    assert red.notes == ()
    assert set(red.versions) == set(before)
    assert red.payload_sha256 == {
        **{s: hashlib.sha256(b.encode()).hexdigest() for s, b in before.items() if b is not None},
        **{s: red.payload_sha256[s] for s in red.derived},
    }
    assert red.derived  # the summaries that quoted it
    assert set(red.branches) == {"main", "side"}
    assert MARK not in _everything_readable(cm)
    assert MARK not in _everything_readable(side)
    cm.drain()  # compression writes the erased summaries again, from what is left
    assert MARK not in _everything_readable(cm)
    assert cm.message_count() == 90 and side.message_count() == 90  # it keeps its place...
    assert [m.id for m in cm.get_all_messages()] == ids
    for handle in (cm, side):  # ...and reads as redacted, participant kept
        stub = handle.get_message(ids[30])
        assert stub.text() == "[redacted]" and stub.participant == "user"
    assert "[redacted]" in str(cm.compile(100_000).to_dict())
    check = check_store(cm.store)
    assert check.ok, [p.line() for p in check.problems]
    assert check.redacted == len(red.versions) + len(red.derived) + len(red.placeholders)
    assert len(red.placeholders) == 2  # a stub version on main and on side
    conn = cm.store._conn  # type: ignore[attr-defined]
    for table in ("text_index", "summary_index"):  # the FTS5 b-trees are whole after the deletes
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
    side.close()
    cm.close()
    assert not _marker_in(_file_bytes(path))

    again = ContextManager.open(path, strategy=_autobio())
    assert MARK not in _everything_readable(again)
    assert [r.message_id for r in again.redactions()] == [ids[30]]
    assert again.redactions()[0].reason == "user asked for erasure"
    assert again.redact(ids[30], reason="twice").sequence == red.sequence  # idempotent, nothing written
    again.close()


def test_a_store_written_before_secure_deletion_is_rewritten_once(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    store = SQLiteStore(path)
    store._conn.execute("PRAGMA secure_delete = OFF")  # what a library of the previous version did
    cm = ContextManager.open(store=store)
    ids = _conversation(cm, n=200)  # full-text pending rows are deleted as they are folded: free pages
    cm.search_messages("garden")
    store._conn.execute("UPDATE redaction_scrub SET legacy = 1")
    red = cm.redact(ids[30], reason="erase")
    assert red.notes == ()
    assert store._conn.execute("SELECT legacy FROM redaction_scrub").fetchone()[0] == 0
    cm.close()
    assert not _marker_in(_file_bytes(path))


def test_guards_still_refuse_every_other_change(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "g.db")
    cm = ContextManager.open(store=store)
    mid = cm.add_message("user", "hello")
    conn = sqlite3.connect(store.path)
    try:
        for statement in (
            "UPDATE records SET body = NULL",
            "DELETE FROM records",
        ):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                conn.execute(statement)
        conn.execute("INSERT INTO redaction_permit(id) VALUES (1)")  # even with a permit...
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("UPDATE records SET body = '{}'")  # ...only NULL bodies pass
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("UPDATE records SET body = NULL, item = 'x'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("DELETE FROM records")
        conn.rollback()
        conn.execute("INSERT INTO redaction_permit(id) VALUES (1)")
        conn.commit()  # a committed permit is what verify reports
    finally:
        conn.close()
    problems = [p.line() for p in check_store(store).problems]
    assert any("redaction permit" in p for p in problems)
    assert cm.get_message(mid).text() == "hello"
    cm.close()


def test_postgres_redaction_leaves_no_row_with_the_message(backend: Backend) -> None:
    if backend.name != "postgres":
        pytest.skip("PostgreSQL table dump")
    store: Store = backend.new()
    cm = ContextManager.open(store=store, strategy=_autobio())
    ids = _conversation(cm)
    cm.drain()

    def dump() -> str:
        tables = [
            r[0]
            for r in store._execute(  # type: ignore[attr-defined]
                "SELECT tablename FROM pg_tables WHERE schemaname = %s",
                (store.schema,),  # type: ignore[attr-defined]
            ).fetchall()
        ]
        out: list[str] = []
        for table in tables:
            rows = store._execute(f'SELECT t::text FROM "{table}" t').fetchall()  # type: ignore[attr-defined]
            out.extend(r[0] for r in rows)
        return "\n".join(out).lower()

    assert MARK.lower() in dump()
    cm.redact(ids[30], reason="erase")
    text = dump()
    assert MARK.lower() not in text
    assert MARK not in _everything_readable(cm)
    with pytest.raises(StoreError, match="append-only"), store.transaction():
        store._execute("UPDATE records SET body = NULL")  # type: ignore[attr-defined]
    assert check_store(store).ok
    cm.close()


def test_redaction_contract_on_every_backend(backend: Backend) -> None:
    store: Store = backend.new()
    cm = ContextManager.open(store=store, strategy=_autobio())
    ids = _conversation(cm, n=40, secret_at=10)
    other = ContextManager.open(store=backend.handle(store))
    assert other.message_count() == 40
    with pytest.raises(RedactionError, match="reason"):
        cm.redact(ids[10], reason="  ")
    with pytest.raises(MessageNotFoundError):
        cm.redact("msg_never_written", reason="x")
    reader = ContextManager.open(store=backend.handle(store), namespace="room", view_reader="ann")
    with pytest.raises(RedactionError, match="reader"):
        reader.redact(ids[10], reason="x")
    red = cm.redact(ids[10], reason="erase", by="ops")
    assert red.sequence > 0 and red.created_sequence > 0 and red.participant == "user"
    assert MARK not in _everything_readable(cm)
    other.messages.refresh()
    other.messages.refresh()
    assert other.get_message(ids[10]).text() == "[redacted]"  # another handle moves to the stub version
    assert other.message_count() == 40 and MARK not in _everything_readable(other)
    rec = store.get_state_record(store.get_branch("main").id, ids[10], slot=REDACTION_SLOT)
    assert rec is not None and rec.op == Op.STATE and rec.value()["reason"] == "erase"
    assert all(is_redacted(r.value()) for r in store.records_of(cm.slot, ids[10]))
    assert check_store(store).ok
    for handle in (other, reader, cm):
        handle.close()


def test_a_context_compiled_before_a_redaction_names_the_erased_blob_in_a_typed_error(backend: Backend) -> None:
    # A fresh review found a bare KeyError ("no blob with sha256 ...") from to_anthropic() and pickle of a
    # context compiled before the redaction that erased its image. Every read of a missing blob raises
    # BlobNotFoundError (still a KeyError), naming the digest and what to do; a new compile has no image.
    store: Store = backend.new()
    cm = ContextManager.open(store=store)
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
    image = {"type": "base64", "media_type": "image/png", "data": base64.b64encode(png).decode()}
    cm.add_message("user", [{"type": "text", "text": "see the chart"}, {"type": "image", "source": image}], id="img")
    cm.add_message("assistant", "I see it.")
    before = cm.compile(4000)
    digest = hashlib.sha256(png).hexdigest()
    assert store.get_blob(digest) == png
    cm.redact("img", reason="erase")
    for read in (before.to_anthropic, before.to_openai, lambda: pickle.dumps(before), lambda: store.get_blob(digest)):
        with pytest.raises(BlobNotFoundError, match=f"no blob with sha256 '{digest}'.*compile again") as caught:
            read()
        assert isinstance(caught.value, KeyError) and caught.value.sha256 == digest
        assert pickle.loads(pickle.dumps(caught.value)).sha256 == digest
    after = cm.compile(4000).to_anthropic()
    assert "image" not in json.dumps(after) and "[redacted]" in json.dumps(after)
    cm.close()


def test_memory_redaction_rolls_back_whole() -> None:
    store = MemoryStore()
    cm = ContextManager.open(store=store)
    ids = _conversation(cm, n=12, secret_at=4)
    blobs = dict(store._blobs)
    with pytest.raises(RuntimeError), store.transaction() as tx:
        from context_journal.stores.redaction import redact_records

        redact_records(tx, store.records_of(cm.slot, ids[4]))
        raise RuntimeError("killed")
    assert store._blobs == blobs
    assert MARK in cm.get_message(ids[4]).text()
    assert [h.message_id for h in cm.search_messages(MARK)] == [ids[4]]


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(["add", "edit", "remove", "fork", "redact", "drain", "search"]), min_size=4, max_size=24),
    st.integers(0, 2**16),
    st.sampled_from(["memory", "sqlite"]),
)
@example(ops=["add", "redact", "again", "search"], seed=0, backend_name="sqlite")  # review finding 1
def test_a_redacted_message_never_comes_back(ops: list[str], seed: int, backend_name: str) -> None:
    """Random writes, edits (of redacted messages too), forks, removals, compression, searches (which fold
    SQLite's pending full-text rows) and redactions (again of redacted messages), on the memory and SQLite
    backends: no compile, read or search of any branch shows a marker of an erased version, every marker
    written since is readable, the full-text index stays whole, and verify passes."""
    import random
    import tempfile

    rng = random.Random(seed)
    folder = tempfile.TemporaryDirectory()
    store: Store = MemoryStore() if backend_name == "memory" else SQLiteStore(Path(folder.name) / "p.db")
    cm = ContextManager.open(store=store, strategy=_autobio(1500))
    markers: dict[str, list[str]] = {}  # id -> markers of its versions not erased yet
    erased: set[str] = set()
    redacted: set[str] = set()
    branches = ["main"]
    n = 0

    def fresh() -> str:
        nonlocal n
        n += 1
        return f"mark{n}x{seed}"

    for op in ops:
        if op == "add" or not markers:
            for _ in range(rng.randint(1, 8)):
                marker = fresh()
                mid = cm.add_message("user" if n % 2 else "assistant", f"message {marker} about item {n} " * 6)
                markers[mid] = [marker]
        elif op == "edit":
            mid = rng.choice(sorted(markers))
            marker = fresh()
            with contextlib.suppress(MessageNotFoundError):
                cm.edit_message(mid, f"edited {marker} once more")
                markers[mid].append(marker)
        elif op == "remove":
            with contextlib.suppress(MessageNotFoundError):
                cm.remove_message(rng.choice(sorted(markers)))
        elif op == "fork":
            name = f"b{len(branches)}"
            cm.fork(name)
            branches.append(name)
        elif op == "drain":
            cm.drain()
        elif op == "search":
            cm.search_messages("message")
        elif op == "again" and redacted:  # a redacted message written again, then erased again
            mid = rng.choice(sorted(redacted))
            marker = fresh()
            with contextlib.suppress(MessageNotFoundError):
                cm.edit_message(mid, f"written again {marker}")
                cm.redact(mid, reason="again")
                erased.add(marker)
        else:
            mid = rng.choice(sorted(markers))
            cm.redact(mid, reason="property test")
            erased.update(markers[mid])
            markers[mid] = []
            redacted.add(mid)
    for name in branches:
        handle = ContextManager.open(store=store, branch=name, strategy=_autobio(1500))
        seen = _everything_readable(handle)
        for marker in erased:
            assert marker not in seen and marker not in str(handle.search_messages(marker))
        handle.close()
    bodies = " ".join(r.body or "" for slot in store.list_slots() for r in store.records_of(slot))
    for marker in erased:
        assert marker not in bodies
    for marker in {m for ms in markers.values() for m in ms}:
        assert marker in bodies
    assert check_store(store).ok, [p.line() for p in check_store(store).problems]
    if isinstance(store, SQLiteStore):
        cm.search_messages("message")
        for table in ("text_index", "summary_index"):
            store._conn.execute(f"INSERT INTO {table}({table}) VALUES ('integrity-check')")
    cm.close()
    store.close()
    folder.cleanup()


REDACT_CHILD = Path(__file__).with_name("_redact_child.py")


def test_a_redaction_killed_at_any_moment_is_whole_or_absent(tmp_path: Path) -> None:
    """SIGKILL a process in the middle of redactions, 8 times: each message is either intact (its text
    readable and searchable, no redaction record) or erased completely (no body, no hit, a record), and
    every redaction the child acknowledged is complete."""
    import os
    import random
    import signal
    import subprocess
    import sys
    import time

    rng = random.Random(19)
    db = tmp_path / "crash.db"
    with ContextManager.open(db) as cm:
        ids = [cm.add_message("user", f"filler {i} about rivers " * 30 + f" SECRET{i}X") for i in range(400)]
        cm.search_messages("rivers")  # fold the pending full-text rows: the index holds every marker
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    acked: set[str] = set()
    order = ids[:]
    rng.shuffle(order)
    for _ in range(8):
        todo = [m for m in order if m not in acked][:60]
        proc = subprocess.Popen(
            [sys.executable, str(REDACT_CHILD), str(db), *todo], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0.0, 0.4))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        acked.update(line.split()[1] for line in out.decode().splitlines() if line.startswith("R ") and " " in line)
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        finally:
            conn.close()
        with ContextManager.open(db) as cm:
            store = cm.store
            recorded = {r.message_id for r in cm.redactions()}
            assert acked <= recorded
            for i, mid in enumerate(ids):
                bodies = [r.body for r in store.records_of(cm.slot, mid) if r.op != Op.REMOVE]
                hits = [h.message_id for h in cm.search_messages(f"SECRET{i}X")]
                if mid in recorded:
                    assert len(bodies) == 2 and all(is_redacted(json.loads(b or "")) for b in bodies), mid
                    assert hits == [], mid
                else:
                    assert len(bodies) == 1 and f"SECRET{i}X" in (bodies[0] or "") and hits == [mid], mid
            assert check_store(store).ok
    assert len(acked) > 0


def test_redact_a_range_and_a_search_hit(backend: Backend) -> None:
    store: Store = backend.new()
    cm = ContextManager.open(store=store)
    ids = [cm.add_message("user", f"note {i} with word{i}x and garden") for i in range(12)]
    cm.remove_message(ids[5])
    with pytest.raises(ValueError, match="comes before"):
        cm.redact_range(ids[8], ids[3], reason="x")
    with pytest.raises(MessageNotFoundError):
        cm.redact_range(ids[5], ids[8], reason="x")  # removed: not visible on this branch
    done = cm.redact_range(ids[3], ids[7], reason="range")
    assert [r.message_id for r in done] == [ids[3], ids[4], ids[6], ids[7]]  # the removed one is not in view
    assert len({r.sequence for r in done}) == 4
    hit = cm.search_messages("word10x")[0]
    assert cm.redact(hit, reason="hit").message_id == ids[10]
    assert [m.id for m in cm.get_all_messages()] == ids[:5] + ids[6:]
    assert [m.id for m in cm.get_all_messages() if m.text() == "[redacted]"] == [ids[i] for i in (3, 4, 6, 7, 10)]
    for i in (3, 4, 6, 7, 10):
        assert cm.search_messages(f"word{i}x") == []
    assert [r.message_id for r in cm.redactions()] == [ids[i] for i in (3, 4, 6, 7, 10)]
    cm.close()


def test_purge_a_branch_erases_what_was_written_on_it(backend: Backend) -> None:
    from context_journal.errors import BranchInUseError
    from context_journal.redaction import purge_branch

    store: Store = backend.new()
    cm = ContextManager.open(store=store, strategy=_autobio(1500))
    base = [cm.add_message("user", f"main turn {i} about rivers " * 5) for i in range(30)]
    cm.fork("side")
    side = ContextManager.open(store=store, branch="side", strategy=_autobio(1500))
    for i in range(40):
        side.add_message("user", f"side {MARK} turn {i} " * 5)
    side.edit_message(base[3], f"edited on the side {MARK}")
    side.pin(base[3])
    side.drain()
    side.fork("deeper")
    with pytest.raises(BranchInUseError):
        purge_branch(store, "side", reason="x")
    store.delete_branch("deeper")
    done = purge_branch(store, "side", reason="abandoned experiment", by="ops")
    assert done.kind == "branch" and done.erased and done.sequence > 0
    assert [b.name for b in store.list_branches()] == ["main"]
    bodies = " ".join(r.body or "" for slot in store.list_slots() for r in store.records_of(slot))
    assert MARK not in bodies
    main = ContextManager.open(store=store, strategy=_autobio(1500))
    assert [m.id for m in main.get_all_messages()] == base
    assert "main turn 3" in main.get_message(base[3]).text()  # the side's edit was the side's
    assert MARK not in _everything_readable(main)
    assert check_store(store).ok
    for handle in (main, side, cm):
        handle.close()


def test_purge_a_namespace(backend: Backend) -> None:
    from context_journal.redaction import purge_namespace

    store: Store = backend.new()
    default = ContextManager.open(store=store)
    keep = [default.add_message("user", f"default turn {i}") for i in range(5)]
    own = ContextManager.open(store=store, namespace="acme", isolate=True, strategy=_autobio(1500))
    ids = [own.add_message("user", f"acme {MARK} turn {i} " * 6) for i in range(40)]
    own.pin(ids[0])
    own.drain()
    own.fork("b2")
    shared = ContextManager.open(store=store, namespace="team")
    shared.pin(keep[0])
    with pytest.raises(RedactionError, match="no namespace"):
        purge_namespace(store, "nope", reason="x")
    done = purge_namespace(store, "acme", reason="customer left")
    assert done.kind == "namespace" and len(done.erased) >= 40
    bodies = " ".join(r.body or "" for slot in store.list_slots() for r in store.records_of(slot))
    assert MARK not in bodies
    for branch in ("main", "b2"):
        again = ContextManager.open(store=store, namespace="acme", isolate=True, branch=branch)
        assert again.message_count() == 0 and again.pins() == []
        again.close()
    assert [m.id for m in default.get_all_messages()] == keep
    kept = purge_namespace(store, "team", reason="x")
    assert "kept" in " ".join(kept.notes) and kept.erased  # its pins state went, the shared messages stayed
    assert [m.id for m in default.get_all_messages()] == keep
    assert check_store(store).ok
    for handle in (default, own, shared):
        handle.close()


def test_review_findings_edits_after_redaction_and_planted_marks(backend: Backend) -> None:
    """Review findings: a message edited after its redaction is erased again by a second redaction; a
    caller's ``metadata={"redacted": True}`` neither looks erased nor breaks verify once redacted; a reader
    cannot list the host's redactions."""
    store: Store = backend.new()
    cm = ContextManager.open(store=store)
    cm.add_message("user", "hello")
    target = cm.add_message("user", "first secret")
    first = cm.redact(target, reason="first")
    cm.edit_message(target, f"second secret {MARK}")
    second = cm.redact(target, reason="second")
    assert second.sequence != first.sequence and second.versions
    assert MARK not in _everything_readable(cm)
    assert all(MARK not in (r.body or "") for r in store.records_of(cm.slot, target))
    planted = cm.add_message("user", f"planted {MARK}", metadata={"redacted": True})
    done = cm.redact(planted, reason="x")
    assert done.versions and cm.get_message(planted).participant == "user"
    assert MARK not in _everything_readable(cm)
    assert check_store(store).ok, [p.line() for p in check_store(store).problems]
    reader = ContextManager.open(store=store, namespace="ann", view_reader="ann")
    with pytest.raises(RedactionError, match="reader"):
        reader.redactions()
    reader.close()
    cm.close()


def test_the_guard_lets_only_the_exact_stub_through(tmp_path: Path) -> None:
    """Review finding: with a permit, any body marked redacted passed the guard; now only NULL or the stub
    of the same participant and time does, and verify names a stub no redaction record accounts for."""
    store = SQLiteStore(tmp_path / "guard.db")
    cm = ContextManager.open(store=store)
    mid = cm.add_message("user", "I do not approve the transfer", timestamp=1_700_000_000)
    seq = store.records_of(cm.slot, mid)[0].seq
    from context_journal.stores.redaction import redacted_body

    forged = json.dumps(
        {
            "participant": "user",
            "content": [{"type": "text", "text": "I approve"}],
            "timestamp": 1_700_000_000,
            "redacted": True,
        }
    )
    conn = sqlite3.connect(store.path)
    try:
        conn.execute("INSERT INTO redaction_permit(id) VALUES (1)")
        for body in (forged, redacted_body("admin", 1_700_000_000), redacted_body("user", 1_700_000_001)):
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                conn.execute("UPDATE records SET body = ? WHERE seq = ?", (body, seq))
        conn.execute("UPDATE records SET body = ? WHERE seq = ?", (redacted_body("user", 1_700_000_000), seq))
        conn.execute("DELETE FROM redaction_permit")
        conn.commit()
    finally:
        conn.close()
    problems = [p.line() for p in check_store(store).problems]
    assert any("no redaction record names" in p for p in problems), problems
    cm.close()


def test_postgres_guard_lets_only_the_redaction_path_through(backend: Backend) -> None:
    if backend.name != "postgres":
        pytest.skip("PostgreSQL guard functions")
    from context_journal.stores.redaction import redacted_body

    store: Store = backend.new()
    cm = ContextManager.open(store=store)
    mid = cm.add_message("user", "keep this", timestamp=1_700_000_000)
    cm.search_messages("keep")
    seq = store.records_of(cm.slot, mid)[0].seq
    forged = json.dumps({"participant": "user", "content": [{"type": "text", "text": "forged"}], "redacted": True})
    for statement, params in (
        ("UPDATE records SET body = %s WHERE seq = %s", (forged, seq)),
        ("UPDATE records SET body = %s WHERE seq = %s", (redacted_body("eve", 1_700_000_000), seq)),
        ("DELETE FROM text_index WHERE seq = %s", (seq,)),  # the record is not erased: its index rows stay
    ):
        with pytest.raises(StoreError, match="append-only"), store.transaction():
            store._execute("SELECT set_config('context_journal.redaction', 'on', true)")  # type: ignore[attr-defined]
            store._execute(statement, params)  # type: ignore[attr-defined]
    assert cm.get_message(mid).text() == "keep this"
    assert [h.message_id for h in cm.search_messages("keep")] == [mid]
    cm.close()


def test_second_review_findings(tmp_path: Path, data_dir: Path) -> None:
    """Second review: (1) the SQLite guard refuses a stub with a repeated or extra key, and verify flags a
    named stub that is not the exact stub; (2) import metadata naming an erased message goes too (a
    subagent's task text); (3) the scrub never holds the caller for the busy timeout while another
    connection reads; (4) purging 'default' says what to use instead."""
    import time

    from context_journal.formats import import_into, read_transcript
    from context_journal.redaction import purge_namespace

    path = tmp_path / "cc.db"
    store = SQLiteStore(path)
    session = data_dir / "claude-code-sessions" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    import_into(store, read_transcript(session))
    cm = ContextManager.open(store=store)
    task = next(m for m in cm.get_all_messages() if any(b.get("name") == "Task" for b in m.content_dicts()))
    words = "Explore transcript rendering codebase"
    assert any(words in (r.body or "") for r in store.records_of("state"))
    conn = sqlite3.connect(path)
    conn.execute("BEGIN")
    conn.execute("SELECT COUNT(*) FROM records").fetchone()  # a reader holding the log open
    started = time.monotonic()
    red = cm.redact(task.id, reason="review")
    assert time.monotonic() - started < 10 and any("write-ahead log" in n for n in red.notes)
    conn.rollback()
    conn.close()
    assert not any(words in (r.body or "") for slot in store.list_slots() for r in store.records_of(slot))
    assert check_store(store).ok
    seq = red.versions[0]
    stub = store.records_of(cm.slot, task.id)[0].body or ""
    tampered = [
        stub.replace('"text":"[redacted]"', '"text":"[redacted]","text":"INJECTED"'),
        stub.replace('"text":"[redacted]"', '"text":"[redacted]","cache_control":"HIDDEN"'),
        stub.replace('"redacted":true', '"redacted":true,"metadata":{"x":1}'),
    ]
    raw = sqlite3.connect(path)
    try:
        raw.execute("INSERT INTO redaction_permit(id) VALUES (1)")
        for body in tampered:
            assert body != stub
            with pytest.raises(sqlite3.DatabaseError, match="append-only"):
                raw.execute("UPDATE records SET body = ? WHERE seq = ?", (body, seq))
        raw.rollback()
    finally:
        raw.close()
    with pytest.raises(RedactionError, match="redact, redact_range or a retention policy"):
        purge_namespace(store, "default", reason="x")
    cm.close()
    store.close()
