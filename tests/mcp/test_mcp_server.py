"""The MCP server through the official SDK's clients.

* Every tool through the in-process client, in both protocol modes the SDK offers (``legacy``: the
  initialize handshake over in-memory streams; ``2026-07-28``: the modern per-request path), with
  structured results and tool errors for expected failures.
* ``search_messages`` and ``compile_context`` with a query, on a hand-made store and on a real LoCoMo
  import (an isolated namespace per conversation).
* ``tools/list`` against the checked-in snapshot ``tools_list.json`` (regenerate with
  ``UPDATE_MCP_SNAPSHOT=1``).
* One stdio subprocess (``context-journal mcp serve --store DB``) and one streamable HTTP server on
  127.0.0.1 with a bearer token (refused without it, served with it); a non-loopback bind without a token
  is refused before anything listens.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")

from mcp import Client, StdioServerParameters

from context_journal.manager import ContextManager
from context_journal.mcp import build_server
from context_journal.stores import MemoryStore, SQLiteStore
from tests.journal._journal_helpers import handoff, plan
from tests.mcp.mcp_helpers import call, env, fail, free_port, wait_until_listening

SNAPSHOT = Path(__file__).with_name("tools_list.json")
MODES = ["legacy", "2026-07-28"]
CLI = [sys.executable, "-c", "from context_journal.cli import main; main()"]


def run(fn: Callable[[Client], Awaitable[None]], server: Any, mode: str) -> None:
    async def main() -> None:
        async with Client(server, mode=mode) as client:
            await fn(client)

    anyio.run(main)


@pytest.mark.parametrize("mode", MODES)
def test_journal_tools(mode: str) -> None:
    server, backend = build_server(MemoryStore())

    async def body(client: Client) -> None:
        out = await call(
            client, "journal_append", project="p", kind="plan", body=plan(), author="lead", idempotency_key="k0"
        )
        assert out["status"] == "appended" and out["entry"]["seq"] == 1
        h = handoff("parser half done", ruled_out=[("regex", "regex parser", "cannot nest")], claims=["T1"])
        out = await call(
            client,
            "journal_append",
            project="p",
            kind="handoff",
            body=h,
            author="ann",
            idempotency_key="k1",
            expected_seq=1,
        )
        assert (out["status"], out["head_seq"]) == ("appended", 2)
        again = await call(
            client, "journal_append", project="p", kind="handoff", body=h, author="ann", idempotency_key="k1"
        )
        assert again["status"] == "duplicate" and again["entry"]["seq"] == 2
        stale = await call(
            client,
            "journal_append",
            project="p",
            kind="step",
            body={"report": "r"},
            author="ann",
            idempotency_key="k2",
            expected_seq=1,
        )
        assert stale["status"] == "conflict" and stale["entry"] is None and stale["head_seq"] == 2
        # expected failures are tool errors with a clear message
        assert "mood" in await fail(
            client,
            "journal_append",
            project="p",
            kind="handoff",
            body={**h, "mood": 1},
            author="a",
            idempotency_key="x",
        )
        assert "already names entry #2" in await fail(
            client,
            "journal_append",
            project="p",
            kind="handoff",
            body=handoff("other"),
            author="ann",
            idempotency_key="k1",
        )
        text = await fail(
            client,
            "journal_append",
            project="p",
            kind="verification",
            body={"task_id": "T1", "results": [{"condition_id": "c1", "passed": True}]},
            author="harness",
            idempotency_key="v",
        )
        assert "--allow-verification" in text

        page = await call(client, "get_project_summaries", project="p", limit=5, order="asc")
        assert [s["seq"] for s in page["summaries"]] == [2]
        assert [r["id"] for r in page["active_rule_outs"]] == ["regex"] and page["next_before_seq"] is None
        assert "limit" in await fail(client, "get_project_summaries", project="p", limit=0)

        entry = await call(client, "get_entry", project="p", seq=2)
        assert entry["kind"] == "handoff" and entry["body"]["state"] == "parser half done"
        assert "no entry #7" in await fail(client, "get_entry", project="p", seq=7)

        never = await call(client, "get_brief", project="p", build="never")
        assert never["brief"] is None and never["built"] is False and never["trigger"]["brief_version"] is None
        built = await call(client, "get_brief", project="p")
        assert built["built"] is True and built["brief"]["version"] == 1 and built["brief"]["status"] == "accepted"
        assert [r["id"] for r in built["brief"]["rule_outs"]] == ["regex"]
        cached = await call(client, "get_brief", project="p")
        assert cached["built"] is False and cached["brief"]["version"] == 1
        assert "no brief v5" in await fail(client, "get_brief", project="p", version=5)

        drift = await call(client, "check_drift", project="p")
        assert drift["ok"] is True and drift["brief_version"] == 1
        assert [f["code"] for f in drift["findings"]] == ["claim_unverified"]

    run(body, server, mode)
    backend.close()


@pytest.mark.parametrize("mode", MODES)
def test_context_manager_tools(mode: str) -> None:
    store = MemoryStore()
    server, backend = build_server(store)
    backend.journal.append("p", "handoff", handoff(ruled_out=[("regex", "regex parser", "cannot nest")]), "ann", "k")

    async def body(client: Client) -> None:
        a = await call(client, "add_message", participant="user", content="Where are we on the parser?")
        assert a["message_count"] == 1 and a["namespace"] == "default" and a["branch"] == "main"
        blocks = [{"type": "text", "text": "Checking the journal."}]
        b = await call(client, "add_message", participant="Claude", content=blocks, metadata={"turn": 2}, id="m2")
        assert b["id"] == "m2" and b["message_count"] == 2
        assert "m2" in await fail(client, "add_message", participant="Claude", content="again", id="m2")
        assert "malformed" in await fail(client, "add_message", participant="user", content=[{"type": "text"}])

        ctx = await call(client, "compile_context", max_tokens=4000, system="You orchestrate.", journal_project="p")
        assert ctx["format"] == "anthropic" and ctx["tokens"] <= ctx["budget"] == 4000
        assert [m["role"] for m in ctx["messages"]] == ["user", "assistant"]
        system_text = " ".join(b["text"] for b in ctx["system"])
        assert "You orchestrate." in system_text and "regex" in system_text and ctx["journal_tokens"] > 0
        oa = await call(client, "compile_context", max_tokens=4000, format="openai")
        assert oa["messages"][0]["role"] == "user" and oa["journal_tokens"] is None
        assert "budget" in await fail(client, "compile_context", max_tokens=5, system="x " * 200)

    run(body, server, mode)
    assert ContextManager.open(store=store).message_count() == 2
    backend.close()


def _summarised_store() -> MemoryStore:
    """A store whose default namespace has summaries (autobiographical strategy, offline summarizer)."""
    from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy

    store = MemoryStore()
    config = AutobiographicalConfig(head_window_tokens=0, recent_window_tokens=50, target_chunk_tokens=60)
    with ContextManager.open(store=store, strategy=AutobiographicalStrategy(config)) as cm:
        for i in range(30):
            who = "user" if i % 2 == 0 else "Claude"
            cm.add_message(who, f"Message {i} about the PEG grammar in src/parser_{i}.py")
        cm.drain()
    return store


@pytest.mark.parametrize("mode", MODES)
def test_search_summary_text_tool(mode: str) -> None:
    server, backend = build_server(_summarised_store())

    async def body(client: Client) -> None:
        out = await call(client, "search_summary_text", query="PEG grammar", limit=3)
        assert out["namespace"] == "default" and out["branch"] == "main"
        hits = out["hits"]
        assert 1 <= len(hits) <= 3
        scores = [h["score"] for h in hits]
        assert scores == sorted(scores, reverse=True)
        for h in hits:
            assert h["level"] >= 1 and h["first_sequence"] <= h["last_sequence"] and h["start"] is not None
            assert "**" in h["snippet"] and len(h["snippet"]) <= 400
            whole = (await call(client, "get_summary", summary_id=h["summary_id"]))["summary"]
            assert whole["first_message_id"] == h["first_message_id"] and whole["level"] == h["level"]
        assert (await call(client, "search_summary_text", query="zebracode"))["hits"] == []
        early = await call(client, "search_summary_text", query="PEG grammar", as_of=1)
        assert early["hits"] == []  # nothing was summarised at sequence 1
        assert "non-empty" in await fail(client, "search_summary_text", query="   ")
        assert "limit" in await fail(client, "search_summary_text", query="grammar", limit=51)
        assert "no namespace 'nobody'" in await fail(client, "search_summary_text", query="x", namespace="nobody")

    run(body, server, mode)
    backend.close()


@pytest.mark.parametrize("mode", MODES)
def test_summary_tools(mode: str) -> None:
    missing = [m for m in ("search_summaries", "get_summary") if not hasattr(ContextManager, m)]
    server, backend = build_server(MemoryStore() if missing else _summarised_store())

    async def body(client: Client) -> None:
        if missing:
            for tool in missing:
                args = {"query": "parser"} if tool == "search_summaries" else {"summary_id": "s1"}
                assert f"needs ContextManager.{tool}" in await fail(client, tool, **args)
            return
        found = await call(client, "search_summaries", query="peg grammar", limit=3)
        assert 1 <= len(found["results"]) <= 3 and all("PEG" in r["text"] for r in found["results"])
        first = found["results"][0]
        got = await call(client, "get_summary", summary_id=first["id"])
        assert got["summary"] == first
        by_regex = await call(client, "search_summaries", regex=r"parser_\d+", limit=100)
        assert len(by_regex["results"]) >= len(found["results"])
        assert "s-unknown" in await fail(client, "get_summary", summary_id="s-unknown")
        assert "error" in (await fail(client, "search_summaries", regex="(")).lower()
        # a namespace that does not exist is not found (never an empty success)
        assert "no namespace 'nobody'" in await fail(client, "search_summaries", query="parser", namespace="nobody")

    run(body, server, mode)
    backend.close()
    if missing:
        pytest.skip(
            f"ContextManager.{' and ContextManager.'.join(missing)} not implemented yet (the autobiographical "
            "strategy brings them); the tools answer a clear tool error until then"
        )


def _search_store() -> MemoryStore:
    """A store with dated messages: two about the grammar, a long one, one whose match is for ann only."""
    store = MemoryStore()
    with ContextManager.open(store=store) as cm:
        cm.add_message(
            "user", "The PEG grammar fails on nested parentheses.", id="u1", timestamp="2024-03-01T10:00:00Z"
        )
        cm.add_message("Claude", "I will read the lexer first.", id="c1", timestamp="2024-03-02T10:00:00Z")
        cm.add_message(
            "Claude",
            "Fixed the grammar: " + "x" * 3000 + " " + "filler words " * 400,
            id="c2",
            timestamp="2024-03-03T10:00:00Z",
        )
        cm.add_message(
            "host",
            [{"type": "text", "text": "Deploy at noon."}, {"type": "text", "text": "zebracode 7", "audience": ["ann"]}],
            id="h1",
            timestamp="2024-03-04T10:00:00Z",
        )
        for i in range(60):
            cm.add_message("user", f"note {i} about the tokenizer", id=f"n{i}", timestamp="2024-03-05T10:00:00Z")
    return store


@pytest.mark.parametrize("mode", MODES)
def test_pin_tools_keep_a_message_raw_in_compiles(mode: str) -> None:
    store = _search_store()
    server, backend = build_server(store)

    async def body(client: Client) -> None:
        before = await call(client, "compile_context", max_tokens=400)
        assert "u1" not in json.dumps(before)
        out = await call(client, "pin_message", message_id="u1")
        assert out["changed"] and out["sequence"] > 0 and out["pins"] == ["u1"]
        assert (await call(client, "pin_message", message_id="u1"))["changed"] is False
        assert (await call(client, "list_pins"))["pins"] == ["u1"]
        after = await call(client, "compile_context", max_tokens=400)
        assert "grammar" in json.dumps(after["messages"])  # u1's text, raw
        assert "no namespace 'other'" in await fail(client, "list_pins", namespace="other")  # not found
        assert "no-such" in await fail(client, "pin_message", message_id="no-such")
        assert "no-such" in await fail(client, "unpin_message", message_id="no-such")
        gone = await call(client, "unpin_message", message_id="u1")
        assert gone["changed"] and gone["pins"] == []

    run(body, server, mode)
    backend.close()


@pytest.mark.parametrize("mode", MODES)
def test_pin_range_and_document_tools(mode: str) -> None:
    store = _search_store()
    server, backend = build_server(store)

    async def body(client: Client) -> None:
        before = await call(client, "compile_context", max_tokens=400)
        assert "lexer" not in json.dumps(before)
        out = await call(client, "pin_range", first_id="u1", last_id="c1", name="the bug")
        assert out["changed"] and out["pin_id"] == "range-1" and out["pins"] == []
        assert out["ranges"] == [
            {
                "pin_id": "range-1",
                "first_id": "u1",
                "last_id": "c1",
                "name": "the bug",
                "level": None,
                "max_level": None,
            }
        ]
        again = await call(client, "pin_range", first_id="u1", last_id="c1", name="the bug")
        assert again["changed"] is False and again["pin_id"] == "range-1"
        after = json.dumps((await call(client, "compile_context", max_tokens=400))["messages"])
        assert "grammar" in after and "lexer" in after  # both messages of the range, raw
        assert (await call(client, "list_pins"))["ranges"][0]["pin_id"] == "range-1"
        assert "comes before" in await fail(client, "pin_range", first_id="c1", last_id="u1")
        assert "no-such" in await fail(client, "pin_range", first_id="u1", last_id="no-such")
        assert "not both" in await fail(client, "pin_range", first_id="u1", last_id="c1", level=1, max_level=2)
        assert "level" in await fail(client, "pin_range", first_id="u1", last_id="c1", level=-1)
        gone = await call(client, "unpin_message", message_id="range-1")
        assert gone["changed"] and gone["ranges"] == []
        marked = await call(client, "mark_document", message_id="c2")
        assert marked["changed"] and marked["documents"] == ["c2"]
        assert (await call(client, "mark_document", message_id="c2"))["changed"] is False
        assert "no-such" in await fail(client, "mark_document", message_id="no-such")
        assert (await call(client, "mark_document", message_id="c2", unmark=True))["documents"] == []

    run(body, server, mode)
    backend.close()


@pytest.mark.parametrize("mode", MODES)
def test_hot_context_tools_change_the_windows_of_the_branch(mode: str) -> None:
    store = _search_store()
    server, backend = build_server(store)

    async def body(client: Client) -> None:
        first = await call(client, "get_hot_context")
        assert first == {
            "changed": False,
            "sequence": None,
            "hot_context": {"head_window_tokens": 600, "recent_window_tokens": 1200, "target_chunk_tokens": 480},
        }  # the autobiographical strategy sized for 4,000 tokens, as compress gives a namespace without one
        out = await call(client, "set_hot_context", recent_window_tokens=300, target_chunk_tokens=200)
        assert out["changed"] and out["sequence"] > 0
        assert out["hot_context"] == {
            "head_window_tokens": 600,
            "recent_window_tokens": 300,
            "target_chunk_tokens": 200,
        }
        assert (await call(client, "set_hot_context", recent_window_tokens=300))["changed"] is False
        assert (await call(client, "get_hot_context"))["hot_context"]["recent_window_tokens"] == 300
        assert "give at least one" in await fail(client, "set_hot_context")
        assert "greater than or equal to 1" in await fail(client, "set_hot_context", target_chunk_tokens=0)
        assert "no namespace 'other'" in await fail(client, "get_hot_context", namespace="other")

    run(body, server, mode)
    backend.close()
    reopened = ContextManager.open(store=store, strategy="autobiographical")  # a host's handle applies it too
    assert reopened.hot_context()["recent_window_tokens"] == 300


@pytest.mark.parametrize("mode", MODES)
def test_hold_tools_and_add_message_hold(mode: str) -> None:
    store = _search_store()
    server, backend = build_server(store)

    async def body(client: Client) -> None:
        out = await call(client, "hold_compression", message_id="u1")
        assert out["held"] == ["u1"]
        timed = await call(client, "add_message", participant="user", content="still writing", id="w1", hold=600)
        assert timed["id"] == "w1"
        forever = await call(client, "add_message", participant="user", content="a document", id="d1", hold=True)
        assert forever["id"] == "d1"
        assert (await call(client, "release_compression", message_id="u1"))["held"] == ["d1", "w1"]
        assert "timeout_seconds" in await fail(client, "hold_compression", message_id="n3", timeout_seconds=-5)
        assert "hold" in await fail(client, "add_message", participant="user", content="x", id="bad", hold=-1)
        for loose in ("60", "true"):  # a string is not coerced into a hold (the library refuses it too)
            assert "hold" in await fail(client, "add_message", participant="user", content="x", id="bad", hold=loose)
        for loose_timeout in ("30", True):
            assert "timeout_seconds" in await fail(
                client, "hold_compression", message_id="n3", timeout_seconds=loose_timeout
            )
        assert "no-such" in await fail(client, "hold_compression", message_id="no-such")
        assert (await call(client, "release_compression", message_id="no-such"))["held"] == ["d1", "w1"]

    run(body, server, mode)
    backend.close()
    cm = ContextManager.open(store=store)
    assert "bad" not in [m.id for m in cm.get_all_messages()]  # a refused hold wrote nothing
    store.close()


@pytest.mark.parametrize("mode", MODES)
def test_search_messages_tool(mode: str) -> None:
    store = _search_store()
    server, backend = build_server(store)

    async def body(client: Client) -> None:
        out = await call(client, "search_messages", query="grammar")
        assert (out["query"], out["namespace"], out["branch"]) == ("grammar", "default", "main")
        assert {h["message_id"] for h in out["hits"]} == {"u1", "c2"}
        first = out["hits"][0]
        assert set(first) == {"message_id", "sequence", "participant", "timestamp", "score", "snippet"}
        assert all(h["score"] > 0 for h in out["hits"])
        by_id = {h["message_id"]: h for h in out["hits"]}
        assert "**grammar**" in by_id["u1"]["snippet"] and by_id["u1"]["participant"] == "user"
        assert by_id["u1"]["timestamp"].startswith("2024-03-01T10:00:00")
        # bounded: a snippet, never the 8,000-character body
        assert len(by_id["c2"]["snippet"]) <= 400 and by_id["c2"]["snippet"].endswith("…")

        only_claude = await call(client, "search_messages", query="grammar", participants=["Claude"])
        assert [h["message_id"] for h in only_claude["hits"]] == ["c2"]
        window = await call(
            client, "search_messages", query="grammar", since="2024-03-02", until="2024-03-04T00:00:00Z"
        )
        assert [h["message_id"] for h in window["hits"]] == ["c2"]
        as_of = await call(client, "search_messages", query="grammar", as_of=by_id["u1"]["sequence"])
        assert [h["message_id"] for h in as_of["hits"]] == ["u1"]
        # a block meant for one reader is never matched for others
        assert (await call(client, "search_messages", query="zebracode"))["hits"] == []
        many = await call(client, "search_messages", query="tokenizer", limit=50)
        assert len(many["hits"]) == 50
        # a namespace that does not exist is an error listing those that do, not the shared slot
        assert "the namespaces are: default" in await fail(
            client, "search_messages", query="grammar", namespace="other"
        )
        # query syntax is plain text
        syntax = await call(client, "search_messages", query='"grammar* NEAR( -lexer')
        assert {h["message_id"] for h in syntax["hits"]} == {"u1", "c1", "c2"}

        assert "limit" in await fail(client, "search_messages", query="grammar", limit=51)
        assert "limit" in await fail(client, "search_messages", query="grammar", limit=0)
        assert "non-empty" in await fail(client, "search_messages", query="   ")
        assert "ValueError" in await fail(client, "search_messages", query="grammar", since="last tuesday")
        assert "no live branch" in await fail(client, "search_messages", query="grammar", branch="nope")
        # an as_of past the newest sequence is refused, as the CLI refuses it (it would read the present)
        for tool in ("search_messages", "search_summary_text"):
            refused = await fail(client, tool, query="grammar", as_of=10**9)
            assert "past the newest sequence of this store" in refused, (tool, refused)

    run(body, server, mode)
    backend.close()


@pytest.mark.parametrize("mode", MODES)
def test_compile_context_with_a_query(mode: str) -> None:
    store = MemoryStore()
    with ContextManager.open(store=store) as cm:
        cm.add_message("user", "My locker code is 4471, remember it.")
        cm.add_message("Claude", "Noted.")
        for i in range(40):
            cm.add_message("user", f"Step {i}: the build of module_{i}.py failed again with a long log line.")
            cm.add_message("Claude", f"I pinned dependency v{i}.0 for module_{i}.py and re-ran the tests.")
        cm.add_message("user", "What was my locker code?")
    server, backend = build_server(store)

    def text_of(ctx: dict[str, Any]) -> str:
        return json.dumps(ctx["messages"])

    async def body(client: Client) -> None:
        plain = await call(client, "compile_context", max_tokens=400)
        assert "4471" not in text_of(plain)
        asked = await call(client, "compile_context", max_tokens=400, query="locker code")
        assert "4471" in text_of(asked) and asked["tokens"] <= asked["budget"] == 400
        auto = await call(client, "compile_context", max_tokens=400, recall_auto=True)
        assert "4471" in text_of(auto)
        oa = await call(client, "compile_context", max_tokens=400, query="locker code", format="openai")
        assert "4471" in text_of(oa)
        assert "non-empty" in await fail(client, "compile_context", max_tokens=400, query=" ")

    run(body, server, mode)
    backend.close()


def test_search_and_recall_on_an_imported_locomo_conversation(tmp_path: Path, data_dir: Path) -> None:
    from context_journal.formats import import_into, read_transcript

    store = SQLiteStore(tmp_path / "l.db")
    import_into(store, read_transcript(data_dir / "locomo" / "locomo-dev7.json"))
    server, backend = build_server(store)

    async def body(client: Client) -> None:
        out = await call(client, "search_messages", query="pottery class", namespace="locomo:conv-26", limit=3)
        assert out["namespace"] == "locomo:conv-26"
        top = out["hits"][0]
        assert (top["message_id"], top["participant"]) == ("D14:4", "Melanie")
        assert top["timestamp"].startswith("2023-08-25") and "**pottery**" in top["snippet"]
        ctx = await call(client, "compile_context", max_tokens=2000, namespace="locomo:conv-26", query="pottery class")
        assert "signed up for a pottery class" in json.dumps(ctx["messages"]) and ctx["tokens"] <= 2000
        # the shared slot of this store is empty: the namespace's own slot is what is read
        assert (await call(client, "search_messages", query="pottery"))["hits"] == []

    run(body, server, "legacy")
    backend.close()
    store.close()


def _tool_list(server: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    async def body(client: Client) -> None:
        listed = await client.list_tools()
        out.extend(t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools)

    run(body, server, "legacy")
    return out


def test_tools_list_matches_the_snapshot() -> None:
    server, backend = build_server(MemoryStore())
    tools = _tool_list(server)
    backend.close()
    names = [t["name"] for t in tools]
    assert names == [
        "journal_append",
        "get_project_summaries",
        "get_entry",
        "get_brief",
        "check_drift",
        "add_message",
        "compile_context",
        "compress",
        "search_messages",
        "search_summary_text",
        "pin_message",
        "pin_range",
        "mark_document",
        "unpin_message",
        "set_hot_context",
        "get_hot_context",
        "hold_compression",
        "release_compression",
        "list_pins",
        "set_fact",
        "clear_fact",
        "get_working_state",
        "search_summaries",
        "get_summary",
    ]
    assert all("outputSchema" in t for t in tools), "every tool has a typed, structured result"
    if os.environ.get("UPDATE_MCP_SNAPSHOT") or not SNAPSHOT.exists():
        SNAPSHOT.write_text(json.dumps(tools, indent=2, sort_keys=True) + "\n")
    assert tools == json.loads(SNAPSHOT.read_text()), "tools/list changed: review, then UPDATE_MCP_SNAPSHOT=1"


def test_stdio_subprocess(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    SQLiteStore(db).close()
    params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "mcp", "serve", "--store", str(db)], env=env())

    async def main() -> None:
        async with Client(params, mode="legacy") as client:
            out = await call(
                client,
                "journal_append",
                project="p",
                kind="handoff",
                body=handoff("over stdio"),
                author="a",
                idempotency_key="k",
            )
            assert out["status"] == "appended"
            page = await call(client, "get_project_summaries", project="p")
            assert page["summaries"][0]["state"] == "over stdio"

    anyio.run(main)
    store = SQLiteStore(db)
    assert store.journal_head("p") is not None
    store.close()


@pytest.mark.parametrize("given", ["--token", "--token-file"])
def test_http_on_loopback_with_and_without_the_token(tmp_path: Path, given: str) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    db, port, token = tmp_path / "h.db", free_port(), "s3cret-token-of-24-chars"
    secret = tmp_path / "token.txt"
    secret.write_text(token + "\n")
    proc = subprocess.Popen(
        [
            *CLI,
            "mcp",
            "serve",
            "--store",
            str(db),
            "--http",
            f"127.0.0.1:{port}",
            given,
            token if given == "--token" else str(secret),
        ],
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_until_listening(proc, port)
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        }
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        for bad in (
            {},
            {"authorization": "Bearer wrong"},
            {"authorization": token},
            {"authorization": f"Basic {token}"},
        ):
            refused = httpx2.post(url, json=init, headers={**headers, **bad}, timeout=10)
            assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer")
        # the scheme is case-insensitive (RFC 7235 section 2.1)
        for scheme in ("bearer", "BEARER"):
            ok = httpx2.post(url, json=init, headers={**headers, "authorization": f"{scheme} {token}"}, timeout=10)
            assert ok.status_code == 200, (scheme, ok.status_code)
        # a request that names another host is refused even with the token (DNS rebinding; the SDK's check)
        rebound = httpx2.post(
            url,
            json=init,
            headers={**headers, "authorization": f"Bearer {token}", "host": "evil.example.com"},
            timeout=10,
        )
        assert rebound.status_code in (400, 421), rebound.status_code

        async def main() -> None:
            # a client passed in is not closed by streamable_http_client: this block closes it (and its sockets)
            async with (
                create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
                Client(streamable_http_client(url, http_client=http), mode="legacy") as client,
            ):
                out = await call(
                    client,
                    "journal_append",
                    project="p",
                    kind="handoff",
                    body=handoff("over http"),
                    author="a",
                    idempotency_key="k",
                )
                assert out["status"] == "appended"
                assert (await call(client, "get_entry", project="p", seq=1))["body"]["state"] == "over http"

        anyio.run(main)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        for pipe in (proc.stdout, proc.stderr):  # closed here, not left to the garbage collector
            if pipe is not None:
                pipe.close()


def test_non_loopback_bind_needs_a_token(tmp_path: Path) -> None:
    res = subprocess.run(
        [*CLI, "mcp", "serve", "--store", str(tmp_path / "x.db"), "--http", "0.0.0.0:1"],
        env=env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 1 and "--token" in res.stderr
    from context_journal.mcp import is_loopback, run_http

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("[::1]") and is_loopback("localhost")
    # the SDK guards only those three against DNS rebinding; other loopback aliases need a token
    assert not is_loopback("127.0.0.2") and not is_loopback("127.1")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.com")
    res = subprocess.run(
        [*CLI, "mcp", "serve", "--store", str(tmp_path / "x.db"), "--http", "127.0.0.2:1"],
        env=env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 1 and "--token-file" in res.stderr and "rebinding" in " ".join(res.stderr.split())
    server, backend = build_server(MemoryStore())
    with pytest.raises(ValueError, match="bearer token"):
        run_http(server, "0.0.0.0", 1)
    backend.close()


@pytest.mark.parametrize(
    ("token", "why"),
    [
        ("x", "1 character;"),
        ("s" * 15, "15 characters"),
        ("a" * 20 + " b", "whitespace"),
        ("a" * 20 + "\x01", "control"),
    ],
)
def test_a_guessable_or_unsendable_token_is_refused(tmp_path: Path, token: str, why: str) -> None:
    """A review found: a 1-character bearer token was accepted (guessed in a few requests); one with a
    space can never be sent in an Authorization header. Both are refused by the CLI (one line, nothing
    listens) and by run_http."""
    secret = tmp_path / "token.txt"
    secret.write_text(token + "\n")
    for given in (["--token", token], ["--token-file", str(secret)]):
        if given[0] == "--token" and "\x01" in token:
            continue  # an argv cannot carry every control character portably; the file can
        res = subprocess.run(
            [*CLI, "mcp", "serve", "--store", str(tmp_path / "x.db"), "--http", "127.0.0.1:1", *given],
            env=env(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert res.returncode == 2 and why in " ".join(res.stderr.split()) and "Traceback" not in res.stderr
    from context_journal.mcp import http_url, run_http, token_problem

    assert token_problem(token) is not None and token_problem("t" * 16) is None
    server, backend = build_server(MemoryStore())
    with pytest.raises(ValueError, match=why):
        run_http(server, "127.0.0.1", 1, token=token)
    backend.close()
    # the address a server prints: an IPv6 host in brackets (RFC 3986), so it can be pasted into a client
    assert http_url("::1", 8765, "/mcp") == "http://[::1]:8765/mcp"
    assert http_url("127.0.0.1", 8765, "/mcp") == "http://127.0.0.1:8765/mcp"


@pytest.mark.parametrize("strategy", ["passthrough", "windowed", "autobiographical"])
def test_B55_user_text_typed_while_a_tool_runs_follows_the_results_over_mcp(strategy: str) -> None:
    """B55 over MCP: add_message call (t1, t2) → result t1 → user text → result t2, then compile_context
    in both formats: both results follow the call, the user's text comes after them and is kept, the
    move is listed in the repairs, and the journal keeps the original order."""
    case = json.loads((Path(__file__).resolve().parents[3] / "shared" / "bug-cases" / "B55.json").read_text())
    store = MemoryStore()
    server, backend = build_server(store)

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            for m in case["messages"]:
                await call(client, "add_message", participant=m["role"], content=m["content"], id=m["id"])
            budget = case["call"]["budget"]
            out = await call(client, "compile_context", max_tokens=budget, strategy=strategy, format="anthropic")
            turn = out["messages"][2]
            assert turn["role"] == "user"
            assert [b.get("tool_use_id") or b.get("text") for b in turn["content"]] == [
                "t1",
                "t2",
                "also check the staging box",
            ]
            assert any(r["kind"] == "result_relocated" and r.get("tool_use_id") == "t2" for r in out["repairs"])
            out = await call(client, "compile_context", max_tokens=budget, strategy=strategy, format="openai")
            sent = [(m["role"], m.get("tool_call_id") or m.get("content")) for m in out["messages"]]
            assert sent[2:5] == [("tool", "t1"), ("tool", "t2"), ("user", "also check the staging box")]

    anyio.run(main)
    assert [m.id for m in ContextManager.open(store=store).get_all_messages()] == [m["id"] for m in case["messages"]]
    backend.close()


def test_serve_refuses_a_store_in_a_missing_folder(tmp_path: Path) -> None:
    """A review found: `mcp serve --store /no/such/dir/x.db` created the folders and an empty store; it is
    refused as every other command refuses a missing folder, and nothing is created."""
    missing = tmp_path / "no" / "such" / "x.db"
    res = subprocess.run(
        [*CLI, "mcp", "serve", "--store", str(missing)], env=env(), capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 1 and "does not exist" in " ".join(res.stderr.split()), res.stderr
    assert not (tmp_path / "no").exists()
