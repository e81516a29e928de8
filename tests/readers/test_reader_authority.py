"""Bug case B64 (reader isolation): a reader's view is an authority the caller names, never a
fallback. A handle that names no reader is refused on a namespace that records one — in Python (open,
derive's reopen), on the CLI (every command that reads a namespace) — and nothing is written; naming
the recorded reader opens its view; naming another reader is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from context_journal.errors import MessageNotFoundError
from context_journal.readers import ReaderConflictError
from context_journal.stores import MemoryStore
from tests.bug_cases import load_case
from tests.hypothesis_budget import examples

runner = CliRunner()


def _b64_messages() -> list[dict[str, Any]]:
    return list(load_case("B64")["messages"])


def _write_b64(cm: ContextManager) -> None:
    for m in _b64_messages():
        cm.add_message(m["role"], m["content"], id=m["id"])


def _text(result: Any) -> str:
    return json.dumps([m.content_dicts() if hasattr(m, "content_dicts") else m for m in result.messages])


def test_B64_python_handles() -> None:
    store = MemoryStore()
    planner = ContextManager.open(store=store, view_reader="planner")
    _write_b64(planner)
    head = store.head_seq()
    # a handle naming no reader: refused with the remedy, nothing written
    with pytest.raises(ReaderConflictError, match="belongs to reader 'planner'") as err:
        ContextManager.open(store=store)
    assert "view_reader='planner'" in str(err.value)
    # another reader on the planner's namespace: refused too
    with pytest.raises(ReaderConflictError):
        ContextManager.open(store=store, view_reader="coder")
    assert store.head_seq() == head
    # the coder in a namespace of its own (same message slot): its block and the public one, never the planner's
    coder = ContextManager.open(store=store, namespace="coder", view_reader="coder")
    text = _text(coder.compile(1000))
    assert "Ship the export feature this week." in text and "implement CSV export" in text
    assert "cancel on Friday" not in text
    # a reader-less handle in an unclaimed namespace: the plain view (no block with an audience)
    plain = _text(ContextManager.open(store=store, namespace="plain").compile(1000))
    assert "Ship the export" in plain and "cancel" not in plain and "CSV export" not in plain
    # the planner, named, reads its own view
    again = _text(ContextManager.open(store=store, view_reader="planner").compile(1000))
    assert "cancel on Friday" in again and "CSV export" not in again


def test_B64_derived_child_reopens_only_for_its_reader() -> None:
    store = MemoryStore()
    planner = ContextManager.open(store=store, view_reader="planner")
    _write_b64(planner)
    planner.derive("kid")
    with pytest.raises(ReaderConflictError, match="belongs to reader 'planner'"):
        ContextManager.reopen_derived(store, "kid")
    with pytest.raises(ReaderConflictError):
        ContextManager.open(store=store, branch="kid")
    child = ContextManager.reopen_derived(store, "kid", view_reader="planner")
    assert "cancel on Friday" in _text(child.compile(1000))


_NAMES = st.text(alphabet="abcdefgh", min_size=1, max_size=4)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    claims=st.dictionaries(_NAMES, _NAMES, min_size=1, max_size=4),  # namespace -> reader
    probe=_NAMES,
    asked=st.one_of(st.none(), _NAMES),
)
def test_no_handle_reads_a_reader_view_it_did_not_name(claims: dict[str, str], probe: str, asked: str | None) -> None:
    """Generated claims: each reader writes a private block in its namespace; any handle on any namespace
    either opens for exactly the reader the namespace records (or none when it records none) or is
    refused without a write — and what it compiles holds no block of a reader it did not name."""
    store = MemoryStore()
    for ns, reader in claims.items():
        cm = ContextManager.open(store=store, namespace=ns, view_reader=reader)
        cm.add_message("user", [{"type": "text", "text": f"<secret-of-{reader}>", "audience": [reader]}])
        cm.add_message("user", "public line")
    head = store.head_seq()
    recorded = claims.get(probe)
    if recorded is not None and recorded != asked:
        with pytest.raises(ReaderConflictError):
            ContextManager.open(store=store, namespace=probe, view_reader=asked)
        assert store.head_seq() == head
        return
    text = _text(ContextManager.open(store=store, namespace=probe, view_reader=asked).compile(100_000))
    for reader in set(claims.values()):
        assert (f"<secret-of-{reader}>" in text) == (reader == asked)


@pytest.fixture
def b64_store(tmp_path: Path) -> str:
    db = str(tmp_path / "b64.db")
    planner = ContextManager.open(db, view_reader="planner")
    _write_b64(planner)
    planner.close()
    return db


_CLI_READS = [
    ["compile", "--budget", "1000"],
    ["show"],
    ["search", "cancel"],
    ["search", "cancel", "--summaries"],
    ["state"],
    ["pins"],
    ["summaries"],
    ["branch", "fork", "side"],
    ["compress"],
]


@pytest.mark.parametrize("command", _CLI_READS, ids=lambda c: " ".join(c[:2]))
def test_B64_cli_commands_take_the_reader_explicitly(b64_store: str, command: list[str]) -> None:
    """Every CLI command that reads a namespace refuses without --reader on the planner's namespace (one
    line naming the reader and the option, exit 1, the private text never printed), refuses another
    reader, and runs with --reader planner."""
    args = [*command, "--store", b64_store]
    res = runner.invoke(app, args)
    assert res.exit_code == 1, res.output
    said = " ".join(res.output.split())  # the console wraps long lines
    assert "belongs to reader 'planner'" in said and "--reader planner" in said
    assert "cancel on Friday" not in said and "Traceback" not in said
    other = runner.invoke(app, [*args, "--reader", "coder"])
    assert other.exit_code == 1 and "cancel on Friday" not in other.output
    ok = runner.invoke(app, [*args, "--reader", "planner"])
    assert ok.exit_code == 0, ok.output
    if command[0] == "compile":
        assert "cancel on Friday" in ok.output
    if command == ["search", "cancel"]:
        assert "1 hit(s) for 'cancel'" in ok.output  # the planner's block is found by the planner


def test_B64_cli_branch_list_needs_no_reader(b64_store: str) -> None:
    res = runner.invoke(app, ["branch", "list", "--store", b64_store, "--json"])
    assert res.exit_code == 0, res.output
    assert [b["name"] for b in json.loads(res.stdout)] == ["main"]


def test_a_reader_edit_keeps_the_blocks_it_cannot_see() -> None:
    """Reader isolation: the coder rewrites the message it shares with the planner; the planner's private
    block stays, in its place, and the planner still compiles it."""
    store = MemoryStore()
    planner = ContextManager.open(store=store, view_reader="planner")
    _write_b64(planner)
    coder = ContextManager.open(store=store, namespace="coder", view_reader="coder")
    coder.edit_message("m1", [{"type": "text", "text": "Ship the export feature next week."}])
    stored = [b["text"] for b in planner.get_message("m1").content_dicts()]
    assert stored == ["Planner only: the client may cancel on Friday.", "Ship the export feature next week."]
    assert "cancel on Friday" in _text(planner.compile(1000))
    assert "cancel" not in _text(coder.compile(1000)) and "next week" in _text(coder.compile(1000))


_AUDIENCES = st.one_of(st.none(), st.lists(st.sampled_from(["ann", "bob", "cy"]), min_size=1, max_size=2, unique=True))


def _shared_message(
    old: list[list[str] | None],
) -> tuple[MemoryStore, ContextManager, list[dict[str, Any]], str]:
    """A store whose host wrote one message of text blocks ``<b0>``, ``<b1>``... with the audiences ``old``."""
    store = MemoryStore()
    host = ContextManager.open(store=store, namespace="host")
    blocks = [
        {"type": "text", "text": f"<b{i}>", **({"audience": aud} if aud is not None else {})}
        for i, aud in enumerate(old)
    ]
    return store, host, blocks, host.add_message("user", blocks)


@settings(max_examples=examples(60), deadline=None)
@given(
    old=st.lists(_AUDIENCES, min_size=1, max_size=5),
    new_count=st.integers(1, 3),
    editor=st.sampled_from(["ann", "bob", "cy"]),
)
def test_generated_reader_edits_keep_every_hidden_block(
    old: list[list[str] | None], new_count: int, editor: str
) -> None:
    """Generated messages of blocks with random audiences, edited by a random reader with public blocks:
    the stored version holds every block the editor could not see, unchanged and in order, followed or
    preceded by exactly the editor's blocks, and every other reader's compile still reads its blocks."""
    store, host, blocks, mid = _shared_message(old)
    me = ContextManager.open(store=store, namespace=editor, view_reader=editor)
    if not any(aud is None or editor in aud for aud in old):
        with pytest.raises(MessageNotFoundError, match="sees no block"):  # nothing of it is the editor's to edit
            me.edit_message(mid, [{"type": "text", "text": "<new0>"}])
        return
    me.edit_message(mid, [{"type": "text", "text": f"<new{k}>"} for k in range(new_count)])
    stored = host.get_message(mid).content_dicts()
    hidden = [b for b, aud in zip(blocks, old, strict=True) if aud is not None and editor not in aud]
    assert [b for b in stored if not b["text"].startswith("<new")] == hidden
    assert [b["text"] for b in stored if b["text"].startswith("<new")] == [f"<new{k}>" for k in range(new_count)]
    for other in {"ann", "bob", "cy"} - {editor}:
        view = _text(ContextManager.open(store=store, namespace=f"r-{other}", view_reader=other).compile(10_000))
        for b, aud in zip(blocks, old, strict=True):
            if aud is not None and other in aud and editor not in aud:
                assert b["text"] in view


@settings(max_examples=examples(60), deadline=None)
@given(old=st.lists(_AUDIENCES, min_size=1, max_size=5), remover=st.sampled_from(["ann", "bob", "cy"]))
def test_generated_reader_removals_keep_every_hidden_block(old: list[list[str] | None], remover: str) -> None:
    """A review found: a reader removed a message it could not see at all, and a message holding another
    reader's private block, taking that block from the other reader's compiles. A reader's removal
    takes what it sees: the blocks it cannot see stay (a new version of only them), a message with none
    for it is not found, and a message all of which it sees is removed."""
    store, host, blocks, mid = _shared_message(old)
    me = ContextManager.open(store=store, namespace=remover, view_reader=remover)
    hidden = [b for b, aud in zip(blocks, old, strict=True) if aud is not None and remover not in aud]
    if len(hidden) == len(blocks):
        with pytest.raises(MessageNotFoundError, match="no block of it is for reader"):
            me.remove_message(mid)
        assert host.get_message(mid).content_dicts() == blocks
        return
    me.remove_message(mid)
    with pytest.raises(MessageNotFoundError):
        me.get_message(mid)
    if not hidden:
        assert host.message_count() == 0
        return
    assert host.get_message(mid).content_dicts() == hidden
    for other in {"ann", "bob", "cy"} - {remover}:
        theirs = [b["text"] for b in hidden if other in b["audience"]]
        if theirs:
            view = _text(ContextManager.open(store=store, namespace=f"r-{other}", view_reader=other).compile(10_000))
            assert all(text in view for text in theirs)


def test_a_read_with_a_reader_claims_nothing(tmp_path: Path) -> None:
    """A review found: `show --reader bob` on the host's namespace recorded it as bob's and locked the host
    out of its own conversation. Opening and reading claim nothing (Python, CLI); the first write does."""
    db = str(tmp_path / "h.db")
    host = ContextManager.open(db)
    host.add_message("host", [{"type": "text", "text": "public"}, {"type": "text", "text": "ANN", "audience": ["ann"]}])
    host.close()
    for args in (["show"], ["search", "public"], ["state"], ["pins"], ["compile", "--budget", "500", "--preview"]):
        res = runner.invoke(app, [*args, "--store", db, "--reader", "bob"])
        assert res.exit_code == 0 and "ANN" not in res.output, (args, res.output)
    bob = ContextManager.open(db, view_reader="bob")
    assert [b["text"] for b in bob.get_all_messages()[0].content_dicts()] == ["public"]
    bob.close()
    with ContextManager.open(db) as again:  # the host still opens its namespace
        assert again.message_count() == 1
        again.add_message("host", "still mine")
    writer = ContextManager.open(db, view_reader="bob")
    writer.set_fact("owner", "bob")  # a write claims
    writer.close()
    with pytest.raises(ReaderConflictError, match="belongs to reader 'bob'"):
        ContextManager.open(db)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_reader_edit_of_a_message_it_has_not_read_yet_keeps_the_hidden_blocks(kind: str, tmp_path: Path) -> None:
    """A review found: a reader's handle that had not yet read a message another handle wrote (after
    its last read) took it for unknown, skipped the visibility check, and its edit replaced the whole
    message: another reader's private block was gone, and a message only for ann was rewritten by bob."""
    from context_journal.stores import SQLiteStore

    store: Any = MemoryStore() if kind == "memory" else SQLiteStore(tmp_path / "e.db")
    host = ContextManager.open(store=store)
    host.add_message("host", "hello")
    bob = ContextManager.open(store=store, namespace="bob", view_reader="bob")
    bob.compile(max_tokens=1000)  # bob's handle has read the store as it was
    mixed = host.add_message(
        "host", [{"type": "text", "text": "pub"}, {"type": "text", "text": "ANN", "audience": ["ann"]}]
    )
    only_ann = host.add_message("host", [{"type": "text", "text": "ANN only", "audience": ["ann"]}])
    bob.edit_message(mixed, "bob rewrote")
    assert host.get_message(mixed).content_dicts() == [
        {"type": "text", "text": "bob rewrote"},
        {"type": "text", "text": "ANN", "audience": ["ann"]},
    ]
    with pytest.raises(MessageNotFoundError):
        bob.edit_message(only_ann, "bob rewrote")
    assert host.get_message(only_ann).content_dicts() == [{"type": "text", "text": "ANN only", "audience": ["ann"]}]
