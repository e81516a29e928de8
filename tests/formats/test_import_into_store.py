"""``import_into``: real transcripts written into SQLite and memory stores, idempotent re-imports."""

from __future__ import annotations

from pathlib import Path

import pytest

from context_journal.errors import ImportFormatError
from context_journal.formats import Conversation, ImportResult, detect_format, import_into, read_transcript
from context_journal.formats.importers import BATCH_SIZE, STATE_PREFIX
from context_journal.manager import ContextManager
from context_journal.messages import MessageInput
from context_journal.stores import MemoryStore, SQLiteStore

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"data sets not found at {DATA}")
SESSION = DATA / "claude-code-sessions" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        (SESSION, "claude-code"),
        (DATA / "claude-code-sessions" / "short.jsonl", "claude-code"),
        (DATA / "locomo" / "locomo-dev7.json", "locomo"),
        (DATA / "tau-bench-airline" / "gpt-4o-airline-dev150.json", "tau-bench"),
        (DATA / "ubuntu-irc-disentanglement", "irc"),
        (DATA / "ubuntu-irc-disentanglement" / "dev" / "2009-02-23_10.annotation.txt", "irc"),
    ],
)
def test_detect_format(path: Path, fmt: str) -> None:
    assert detect_format(path) == fmt


def test_claude_code_round_trip_through_sqlite(tmp_path: Path) -> None:
    result = read_transcript(SESSION)
    main, *children = result.conversations
    db = tmp_path / "journal.db"
    calls: list[tuple[int, int]] = []
    report = import_into(db, result, progress=lambda done, total: calls.append((done, total)))
    assert report.messages == result.message_count and report.skipped == 0
    assert calls[-1] == (result.message_count, result.message_count)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert report.namespaces[main.id] == "default" and all(report.namespaces[c.id] == c.id for c in children)

    with ContextManager.open(db) as cm:  # the primary conversation is in the shared slot
        assert cm.message_count() == len(main.messages)
        stored = cm.get_all_messages()
        assert [m.id for m in stored] == [m.id for m in main.messages]
        assert [m.participant for m in stored] == [m.participant for m in main.messages]
        first_use = next(m for m in stored if any(b.type == "tool_use" for b in m.content))
        assert first_use.metadata["usage"]["output_tokens"] >= 1
        assert stored[0].timestamp.isoformat().startswith(str(main.messages[0].timestamp)[:19])
        state = cm.store.get_state(cm.store.get_branch("main").id, STATE_PREFIX + main.id)
        assert state["metadata"]["markers"][0]["kind"] == "compaction" and state["namespace"] == "default"
    store = SQLiteStore(db)
    try:
        for child in children:
            cm = ContextManager.open(store=store, namespace=child.id, isolate=True)
            assert cm.message_count() == len(child.messages)
    finally:
        store.close()

    again = import_into(db, read_transcript(SESSION))  # a re-import writes nothing
    assert again.messages == 0 and again.skipped == result.message_count
    assert again.skipped_by_reason == {"already imported": result.message_count}
    with ContextManager.open(db) as cm:
        assert cm.message_count() == len(main.messages)


def test_many_conversations_into_isolated_namespaces(tmp_path: Path) -> None:
    result = read_transcript(DATA / "tau-bench-airline" / "gpt-4o-airline-dev150.json")
    result.conversations = result.conversations[:12]
    store = MemoryStore()
    report = import_into(store, result, namespace="ignored-for-isolated")
    assert report.messages == result.message_count
    assert all(c.isolated for c in report.conversations)
    for conv in result.conversations:
        cm = ContextManager.open(store=store, namespace=conv.id, isolate=True)
        assert [m.id for m in cm.get_all_messages()] == [m.id for m in conv.messages]
    assert ContextManager.open(store=store).message_count() == 0  # nothing in the shared slot
    assert not store.closed  # a store passed in is left open


def test_batches_and_partial_reimport(tmp_path: Path) -> None:
    raw = DATA / "ubuntu-irc-disentanglement" / "test" / "2016-06-08_07.raw.txt"
    result = read_transcript(raw)
    (conv,) = result.conversations
    assert len(conv.messages) > 2 * BATCH_SIZE
    db = tmp_path / "irc.db"
    head = read_transcript(raw)
    head.conversations[0].messages = head.conversations[0].messages[:700]
    assert import_into(db, head).messages == 700
    report = import_into(db, result)  # the same conversation again: completes it
    assert (report.messages, report.skipped) == (len(conv.messages) - 700, 700)
    with ContextManager.open(db) as cm:
        assert cm.message_count() == len(conv.messages) == 1500
        m = cm.get_message(f"{conv.id.rsplit(':', 1)[1]}:1005")
        assert m.metadata["reply_to"] and m.timestamp.year == 2016


def test_reimport_writes_nothing_at_all() -> None:
    store = MemoryStore()
    result = read_transcript(DATA / "claude-code-sessions" / "short.jsonl")
    import_into(store, result)
    head = store.head_seq()
    again = import_into(store, read_transcript(DATA / "claude-code-sessions" / "short.jsonl"))
    assert again.messages == 0 and store.head_seq() == head  # no message, no state version


def test_a_message_the_store_refuses_names_its_place() -> None:
    """A message the store refuses for a field outside its blocks (here its timestamp) is left out and
    reported with its id and the field; the rest of the conversation is written."""
    messages = [
        MessageInput("user", "hi", id="m0", timestamp="not a time"),
        MessageInput("assistant", "hello", id="m1"),
    ]
    bad = ImportResult("anthropic", "chat.json", [Conversation("anthropic:chat", messages, {}, None, True)])
    store = MemoryStore()
    report = import_into(store, bad)
    assert report.messages == 1
    (skip,) = [s for s in report.skip_details if "malformed" in s.reason]
    assert "message m0, timestamp" in skip.reason and skip.reason.count("timestamp") >= 1
    assert [m.id for m in ContextManager.open(store=store).get_all_messages()] == ["m1"]


def test_import_writes_the_namespace_roles_that_compile_reads(data_dir: Path, tmp_path: Path) -> None:
    from context_journal import ContextManager, import_into, read_transcript

    result = read_transcript(data_dir / "claude-code-sessions" / "short.jsonl")
    import_into(tmp_path / "r.db", result)
    with ContextManager.open(tmp_path / "r.db") as cm:
        roles = cm.store.get_state(cm.store.get_branch("main").id, "default/roles")
        assert roles["assistant"] == result.conversations[0].metadata["assistant"]
        compiled = cm.compile(max_tokens=8000)
        assert any(m.role == "assistant" for m in compiled.messages)
        assert all(m.role != "assistant" or m.participant == roles["assistant"] for m in compiled.messages)


def test_a_slot_never_mixes_two_conversations(tmp_path: Path) -> None:
    """Importing another conversation where one already lives is refused (nothing written); a named
    namespace gets a slot of its own; the roles are written before the messages, so a fork anywhere in
    the conversation keeps them."""
    db = tmp_path / "two.db"
    first = read_transcript(DATA / "claude-code-sessions" / "short.jsonl")
    import_into(db, first)
    other = read_transcript(DATA / "tau-bench-airline" / "gpt-4o-airline-dev150.json")
    single = ImportResult(other.format, other.source, [other.conversations[0]], other.skipped)
    with SQLiteStore(db) as store:
        head = store.head_seq()
        with pytest.raises(ImportFormatError, match="would merge two conversations"):
            import_into(store, single)
        assert store.head_seq() == head
        report = import_into(store, single, namespace="tau")
        assert report.conversations[0].isolated and report.messages == len(other.conversations[0].messages)
        with ContextManager.open(store=store) as cm:
            assert cm.message_count() == len(first.conversations[0].messages)
            first_id = cm.get_messages(0, 1)[0].id
            cm.fork("early", at=first_id)
        with ContextManager.open(store=store, branch="early") as early:
            roles = store.get_state(store.get_branch("early").id, "default/roles")
            assert roles and roles["assistant"] == first.conversations[0].metadata["assistant"]
            assert early.message_count() == 1


def test_an_imported_conversation_opens_by_its_namespace_alone(tmp_path: Path) -> None:
    """A reviewer's finding: ``open(namespace=<an imported conversation>)`` without
    ``isolate=True`` read the empty shared slot. The default (``isolate=None``) reads the namespace's own
    slot when the store has one, as the CLI and MCP always did; ``isolate=False`` still reads the shared one."""
    result = read_transcript(DATA / "locomo" / "locomo-dev7.json")
    db = tmp_path / "locomo.db"
    report = import_into(db, result)
    conv = result.conversations[1]
    ns = report.namespaces[conv.id]
    with ContextManager.open(db, namespace=ns) as cm:
        assert cm.slot == f"messages/{ns}"
        assert [m.id for m in cm.get_all_messages()] == [m.id for m in conv.messages]
    with ContextManager.open(db, namespace=ns, isolate=False) as shared:
        assert shared.slot == "messages" and shared.message_count() == 0
    with ContextManager.open(db, namespace="fresh") as fresh:  # no slot of its own yet: the shared one
        assert fresh.slot == "messages"
