"""MCP: memory over MCP — compress a long imported conversation through the ``compress`` tool,
compile a summarised context within the budget (strategy default: the namespace's recorded one), recall,
compact JSON, reader binding (bug case B64), not-found namespaces, plain argument errors, and the
server's background compression; over the in-process client, stdio and streamable HTTP."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")

from mcp import Client, StdioServerParameters
from typer.testing import CliRunner

from context_journal.cli import app
from context_journal.manager import ContextManager
from context_journal.mcp import build_server
from context_journal.stores import MemoryStore
from context_journal.tokens import MAX_TOKEN_COUNT
from tests.mcp.mcp_helpers import call, env, fail, free_port, wait_until_listening
from tests.real_stores import copy_store

CLI = [sys.executable, "-c", "from context_journal.cli import main; main()"]


@pytest.fixture
def imported(tmp_path: Path, cli_imported_session: Path) -> Path:
    """The real Claude Code session imported with ``import``: this test's own copy of the run's one import."""
    return copy_store(cli_imported_session, tmp_path / "cc.db")


async def _summarised_context(client: Client) -> None:
    """The job of an MCP-only agent: compress, then compile a summarised context within 4,000 tokens."""
    # Not summarised yet: the middle gives way (closed tool units whole, one note for each run), and the
    # result says so, with the call that summarises it.
    lagging = await call(client, "compile_context", max_tokens=4000, strategy="autobiographical")
    assert lagging["tokens"] <= 4000 and any(r["kind"] == "cut_to_fit" for r in lagging["repairs"])
    notice = lagging["compression_lags"]
    assert re.match(r"\d+ messages were not summarised yet and cut to fit", notice), notice
    assert "call the compress tool" in notice
    assert "What do you remember" not in json.dumps(lagging["messages"])  # no summary yet
    too_small = await fail(client, "compile_context", max_tokens=100, strategy="autobiographical")
    assert "compression lags" in too_small and "call the compress tool" in too_small
    for _ in range(20):
        report = await call(client, "compress", max_calls=50)
        if report["done"]:
            break
    assert report["done"] and report["pending"]["ready"] == 0
    result = await client.call_tool("compile_context", {"max_tokens": 4000})  # the recorded strategy
    assert not result.is_error, result.content
    out = result.structured_content
    assert out is not None and out["strategy"] == "autobiographical" and 0 < out["tokens"] <= 4000
    text = result.content[0].text  # type: ignore[union-attr]
    assert "\n" not in text and json.loads(text) == out  # compact JSON
    assert "What do you remember" in text  # recall pairs of summaries, not "[earlier turns omitted]"
    assert out["compression_lags"] is None or "none is due to summarise yet" in out["compression_lags"]
    hits = await call(client, "search_messages", query="git push upstream", limit=3)
    assert hits["hits"]
    recalled = await call(client, "compile_context", max_tokens=4000, query="git push upstream")
    assert recalled["tokens"] <= 4000 and recalled["parts"].get("recall", 0) > 0


def test_in_process_client_gets_a_summarised_context(imported: Path) -> None:
    server, backend = build_server(str(imported))

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            await _summarised_context(client)

    anyio.run(main)
    backend.close()


def test_stdio_client_gets_a_summarised_context(imported: Path) -> None:
    params = StdioServerParameters(command=CLI[0], args=[*CLI[1:], "mcp", "serve", "--store", str(imported)], env=env())

    async def main() -> None:
        async with Client(params, mode="legacy") as client:
            await _summarised_context(client)

    anyio.run(main)


def test_http_client_with_background_compression(imported: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    proc = subprocess.Popen(
        [
            *CLI,
            "mcp",
            "serve",
            "--store",
            str(imported),
            "--http",
            f"127.0.0.1:{port}",
            "--compress",
            "inline",
            "--calls-per-second",
            "200",
        ],
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_until_listening(proc, port)
        # a second server on the busy port fails before announcing itself
        busy = subprocess.run(
            [*CLI, "mcp", "serve", "--store", str(imported), "--http", f"127.0.0.1:{port}"],
            env=env(),
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert busy.returncode == 1 and "serving MCP" not in busy.stderr and "cannot serve" in busy.stderr

        async def main() -> None:
            async with Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp"), mode="legacy") as client:
                # No request names a strategy: the background compresses the imported conversation on its
                # own, records the strategy, and compile_context defaults to it (a review found nothing
                # was compressed until a request named one, and the client got "[earlier turns omitted]").
                for _ in range(600):
                    result = await client.call_tool("compile_context", {"max_tokens": 4000})
                    out = result.structured_content
                    if not result.is_error and out is not None and out["strategy"] == "autobiographical":
                        break
                    await anyio.sleep(0.05)
                assert not result.is_error, result.content
                assert out is not None and out["strategy"] == "autobiographical" and out["tokens"] <= 4000
                assert "earlier turns omitted" not in result.content[0].text  # type: ignore[union-attr]

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


def test_background_compression_needs_no_request_and_never_claims_a_namespace(imported: Path) -> None:
    """In process: ``background_step`` finds the imported namespace by itself (no request opened it),
    records the autobiographical strategy, and summarises; a server bound to a reader leaves namespaces
    it has not claimed alone."""
    from context_journal.namespaces import recorded_strategy
    from context_journal.readers import recorded_reader

    _, bound = build_server(str(imported), compression="inline", reader="ann")
    assert not bound.background_step()  # nothing of ann's: the host's namespace is not claimed
    assert recorded_reader(bound.store, bound.store.get_branch("main").id, "default") is None
    bound.close()
    _, backend = build_server(str(imported), compression="inline")
    try:
        steps = 0
        while backend.background_step() and steps < 400:
            steps += 1
        assert steps > 0
        recorded = recorded_strategy(backend.store, None)
        assert recorded is not None and recorded["strategy"] == "autobiographical"
        compiled = backend.compile_context(max_tokens=4000)
        assert compiled.strategy == "autobiographical" and compiled.tokens <= 4000
    finally:
        backend.close()


def test_a_store_compressed_from_python_is_compiled_the_same_by_the_cli(tmp_path: Path) -> None:
    """A review found: a host that compressed with ``strategy="autobiographical"`` left no record, so
    ``context-journal compile`` and ``compile_context`` compiled passthrough ("[earlier turns omitted]").
    The compression driver records the strategy it works with."""
    from context_journal import AutobiographicalConfig, AutobiographicalStrategy
    from context_journal.namespaces import recorded_strategy

    db = tmp_path / "py.db"
    cfg = AutobiographicalConfig.for_budget(1500)
    with ContextManager.open(db, strategy=AutobiographicalStrategy(cfg)) as cm:
        for i in range(120):
            cm.add_message(
                "user" if i % 2 == 0 else "assistant", f"Turn {i}: we discussed topic {i} in some detail " * 3
            )
        cm.drain()
        host = cm.compile(1500)
        recorded = recorded_strategy(cm.store, None)
    assert recorded is not None and recorded["strategy"] == "autobiographical" and recorded["config"] == cfg.to_dict()
    res = CliRunner().invoke(app, ["compile", "--store", str(db), "--budget", "1500", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["strategy"] == "autobiographical" and out["tokens"] == host.tokens
    _, backend = build_server(str(db))
    try:
        assert backend.compile_context(max_tokens=1500).strategy == "autobiographical"
    finally:
        backend.close()


B64: list[dict[str, Any]] = [
    {"type": "text", "text": "Planner only: the client may cancel on Friday.", "audience": ["planner"]},
    {"type": "text", "text": "Ship the export feature this week."},
]


def test_reader_binding_B64() -> None:
    store = MemoryStore()
    planner = ContextManager.open(store=store, view_reader="planner")
    planner.add_message("user", B64)
    unbound, _ = build_server(store)
    coder, _ = build_server(store, reader="coder")
    owner, _ = build_server(store, reader="planner")

    async def main() -> None:
        async with Client(unbound, mode="legacy") as client:
            text = await fail(client, "compile_context", max_tokens=1000)
            assert "belongs to reader 'planner'" in text and "--reader" in text and "cancel" not in text
        async with Client(coder, mode="legacy") as client:
            text = await fail(client, "compile_context", max_tokens=1000, namespace="default")  # the planner's
            assert "cancel" not in text
            own = await call(client, "compile_context", max_tokens=1000)  # no namespace: its own, "coder"
            assert "Ship the export" in json.dumps(own) and "cancel" not in json.dumps(own)
            await call(client, "add_message", participant="user", content="hi coder", namespace="coder")
            out = await call(client, "compile_context", max_tokens=1000, namespace="coder")
            assert "Ship the export" in json.dumps(out) and "cancel" not in json.dumps(out)
        async with Client(owner, mode="legacy") as client:
            out = await call(client, "compile_context", max_tokens=1000)
            assert "cancel on Friday" in json.dumps(out)

    anyio.run(main)


def test_a_reader_bound_server_never_claims_the_hosts_namespace() -> None:
    """A review found: ``mcp serve --reader ann`` compiled the host's ``default`` namespace when a call
    named none, which claimed it for ann and locked the host (CLI, Python, an unbound server) out with
    ReaderConflictError. A call with no namespace uses the reader's own namespace over the shared slot."""
    from context_journal.readers import recorded_reader

    store = MemoryStore()
    host = ContextManager.open(store=store)
    host.add_message("host", [{"type": "text", "text": "Deploy at 14:00."}, *B64])
    host.compile(1000)
    server, backend = build_server(store, reader="ann")

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            out = await call(client, "compile_context", max_tokens=1000)
            assert "Deploy at 14:00" in json.dumps(out) and "cancel" not in json.dumps(out)
            await call(client, "add_message", participant="ann", content="noted")
            # Naming the host's namespace does not claim it either (second review): refused, nothing written.
            text = await fail(client, "compile_context", max_tokens=1000, namespace="default")
            assert "records no reader" in text and "namespace 'ann'" in text
            # Reading it claims nothing, so it is allowed, as the CLI's --reader allows it (third review);
            # a compile after the read is still refused (the cached manager is checked again).
            hits = await call(client, "search_messages", query="deploy", namespace="default")
            (hit,) = hits["hits"]
            assert hit["snippet"].startswith("**Deploy** at 14:00.") and "cancel" not in hit["snippet"]
            assert (await call(client, "list_pins", namespace="default"))["pins"] == []
            await call(client, "get_working_state", namespace="default")
            await call(client, "get_hot_context", namespace="default")
            text = await fail(client, "set_hot_context", head_window_tokens=100, namespace="default")
            assert "records no reader" in text
            text = await fail(client, "compile_context", max_tokens=1000, namespace="default")
            assert "records no reader" in text
            text = await fail(client, "add_message", participant="ann", content="x", namespace="default")
            assert "records no reader" in text

    anyio.run(main)
    main_branch = store.get_branch("main").id
    assert (
        recorded_reader(store, main_branch, "default") is None and recorded_reader(store, main_branch, "ann") == "ann"
    )
    again = ContextManager.open(store=store)  # the host still compiles its namespace
    assert "Deploy at 14:00" in str(again.compile(1000).to_anthropic())
    backend.close()


def test_not_found_namespaces_and_plain_argument_errors() -> None:
    store = MemoryStore()
    ContextManager.open(store=store).add_message("user", "hello")
    server, backend = build_server(store)

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            misspelt: list[tuple[str, dict[str, Any]]] = [
                ("compile_context", {"max_tokens": 100}),
                ("search_messages", {"query": "hello"}),
                ("list_pins", {}),
                ("search_summaries", {}),
                ("search_summary_text", {"query": "hello"}),
                ("compress", {}),
            ]
            for tool, args in misspelt:
                text = await fail(client, tool, namespace="defualt", **args)
                assert "no namespace 'defualt'" in text and "default" in text, (tool, text)
            text = await fail(client, "compile_context", max_tokens=100, branch="nope")
            assert "no live branch named 'nope'" in text and "main" in text
            text = await fail(client, "compile_context", max_tokens=0)
            assert "invalid arguments" in text and "max_tokens" in text
            assert "pydantic" not in text and "http" not in text and text.count("\n") == 0
            # an argument no tool takes is refused, not ignored (a misspelt max_tokens read as no budget)
            unknown: list[tuple[str, dict[str, Any]]] = [
                ("compile_context", {"max_tokens": 100, "max_token": 5}),
                ("search_messages", {"query": "hello", "reader": "ann"}),
                ("add_message", {"participant": "user", "content": "x", "audience": ["ann"]}),
            ]
            for tool, args in unknown:
                text = await fail(client, tool, **args)
                extra = next(k for k in args if k not in ("max_tokens", "query", "participant", "content"))
                assert f"unknown argument {extra!r}" in text and text.count("\n") == 0, (tool, text)
            # a write creates the namespace; reads of it work afterwards, across servers
            await call(client, "add_message", participant="user", content="hi", namespace="fresh")
        again, other = build_server(store)
        async with Client(again, mode="legacy") as client:
            assert (await call(client, "list_pins", namespace="fresh"))["pins"] == []
        other.close()

    anyio.run(main)
    backend.close()


def test_journal_append_documents_every_kind() -> None:
    server, backend = build_server(MemoryStore())

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            text = tools["journal_append"].description or ""
            for kind in ("plan:", "plan_revision:", "step:", "handoff:", "reverse_ruleout:", "verification:"):
                assert kind in text, kind
            assert "conditions" in text and "replaces" in text and "results" in text

    anyio.run(main)
    backend.close()


def test_workers_mode_only_queues(imported: Path) -> None:
    server, backend = build_server(str(imported), compression="workers")

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            out = await call(client, "compress")
            assert out["mode"] == "workers" and out["calls"] == 0 and not out["done"]

    anyio.run(main)
    rows = backend.store.queue_rows()  # type: ignore[attr-defined]
    assert [r["status"] for r in rows] == ["pending"]
    backend.close()


def test_compress_and_compile_agree_on_what_is_pending(imported: Path) -> None:
    """A review found: after the ``compress`` tool reports nothing pending, a ``compile_context`` too small
    for anything is over budget, never "compression lags" (the compile uses the settings compress recorded,
    whatever its budget), and a workable budget compiles the summarised context."""
    server, backend = build_server(str(imported))

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            for _ in range(50):
                report = await call(client, "compress", max_calls=50)
                if report["done"]:
                    break
            assert report["done"] and report["pending"] == {"ready": 0, "waiting": 0, "stuck": 0}
            for budget in (10, 100):
                text = await fail(client, "compile_context", max_tokens=budget)
                assert "OverBudgetError" in text and "compression lags" not in text, text
            out = await call(client, "compile_context", max_tokens=4000)
            assert out["tokens"] <= 4000 and out["strategy"] == "autobiographical"
            assert "compression lags" not in json.dumps(out)

    anyio.run(main)
    backend.close()


def test_a_huge_budget_is_refused_over_mcp() -> None:
    """Budgets are bounded: ``max_tokens`` has an upper bound, so no client can pin a server thread counting
    toward 10**30."""
    store = MemoryStore()
    ContextManager.open(store=store).add_message("user", "hi")
    server, backend = build_server(store)

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            for args in (
                {"max_tokens": 10**30},
                {"max_tokens": 1000, "reserve_for_response": 10**12},
                {"max_tokens": 1000, "journal_project": "p", "journal_tokens": 10**30},  # a review finding
            ):
                text = await fail(client, "compile_context", **args)
                assert "invalid arguments" in text and "less than or equal to 100000000" in text, text

    anyio.run(main)
    backend.close()


def test_project_tools_refuse_a_project_that_does_not_exist() -> None:
    """A review found: get_project_summaries, get_brief and check_drift answered `ok` with empty results for
    a mistyped project; they return a not-found error naming the projects there are."""
    store = MemoryStore()
    server, backend = build_server(store)
    backend.journal.append("demo", "handoff", _HANDOFF, "w", "k1")

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            for tool in ("get_project_summaries", "get_brief", "check_drift"):
                text = await fail(client, tool, project="dmeo")
                assert "no project 'dmeo'" in text and "demo" in text, (tool, text)
            assert (await call(client, "get_project_summaries", project="demo"))["summaries"]
            await call(client, "add_message", participant="user", content="hello")
            text = await fail(client, "compile_context", max_tokens=2000, journal_project="dmeo")
            assert "no project 'dmeo'" in text and "demo" in text  # not a view of an empty project
            assert (await call(client, "compile_context", max_tokens=2000, journal_project="demo"))["tokens"] > 0

    anyio.run(main)
    backend.close()


_HANDOFF = {"goal": "ship", "state": "tests pass", "next_step": "tag", "ruled_out": [], "done_claims": [], "refs": []}


def test_a_reader_bound_server_keeps_the_roles_the_import_recorded(imported: Path) -> None:
    """A review found: the reader's namespace did not inherit the roles the import recorded for the
    shared messages, so the agent's turns (participant ``claude-opus-4-6``) were compiled, and summarised,
    as the user's ("The user said: … claude-opus-4-6: …")."""
    _, backend = build_server(str(imported), reader="ann", compression="inline")
    try:
        for _ in range(40):
            if backend.compress(max_calls=200).done:
                break
        out = backend.compile_context(max_tokens=4000)
        assert "assistant" in [m["role"] for m in out.messages]
        assert "claude-opus-4-6:" not in json.dumps(out.messages)  # no agent turn as a user's named line
    finally:
        backend.close()


def test_over_budget_advice_over_mcp_gives_a_figure(imported: Path) -> None:
    """A review found: on a namespace compressed for 4,000 tokens, compile_context at 2,000 with a
    500-token reserve said only "raise max_tokens, lower reserve_for_response, ..."; the CLI names the
    budget that fits and the compress call that resizes the summaries. So does the server now."""
    server, backend = build_server(str(imported), compression="inline")

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            for _ in range(20):
                if (await call(client, "compress", max_calls=200))["done"]:
                    break
            text = await fail(client, "compile_context", max_tokens=200, reserve_for_response=100)
            found = re.search(r"max_tokens of at least ([\d,]+)", text)
            assert found and "budget=100" in text, text
            needed = int(found.group(1).replace(",", ""))
            out = await call(client, "compile_context", max_tokens=needed, reserve_for_response=100)
            assert out["tokens"] <= needed - 100

    anyio.run(main)
    backend.close()


@pytest.mark.parametrize("strategy", ["windowed", "autobiographical"])
def test_over_budget_advice_names_a_budget_that_fits(strategy: str) -> None:
    """A review followed the server's advice on a newest message of 60 short blocks: "max_tokens of at least
    37 ... would fit" failed (windowed; 39 fitted), and autobiographical went 30 -> 62 -> 69 -> 71 before a
    compile fit. The figure is the smallest context at the failed budget, and a larger budget leaves larger
    excerpts: the server now previews the figure (and what each preview needs, as the CLI does) and names
    a budget that fits. (Windowed once failed at 40 too, between 39 and 41 that fitted: a compile that
    misses by a little now sends what a smaller budget fits, so 40 fits.)"""
    line = ("the cache keeps the newest entries and drops the oldest ones first " * 4)[:150]
    store = MemoryStore()
    cm = ContextManager.open(store=store)
    cm.add_message("user", "Please review the design notes I will paste next.")
    cm.add_message("assistant", "Sure.")
    cm.add_message("user", [{"type": "text", "text": f"Note {i}: " + line} for i in range(60)])
    server, backend = build_server(store)

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            for budget in (20, 30, 38):
                text = await fail(client, "compile_context", max_tokens=budget, strategy=strategy)
                found = re.search(r"max_tokens of at least ([\d,]+) fits", text)
                assert found, text
                fits = int(found.group(1).replace(",", ""))
                out = await call(client, "compile_context", max_tokens=fits, strategy=strategy)
                assert out["tokens"] <= fits

    anyio.run(main)
    backend.close()


def test_over_budget_advice_never_names_a_max_tokens_over_the_tools_limit() -> None:
    """A review set reserve_for_response to 99,999,990 (the tool's limit for both arguments is 100 million):
    the advice named a max_tokens over that limit, which the tool then refused. It now says to lower the
    reserve, and every figure it names is one the tool takes."""
    store = MemoryStore()
    cm = ContextManager.open(store=store)
    cm.add_message("user", "Please review the design notes I will paste next. " * 20)
    cm.add_message("assistant", "Sure, paste them.")
    server, backend = build_server(store)

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            text = await fail(
                client, "compile_context", max_tokens=MAX_TOKEN_COUNT, reserve_for_response=MAX_TOKEN_COUNT - 10
            )
            assert f"lower reserve_for_response ({MAX_TOKEN_COUNT - 10:,}): max_tokens is at most" in text, text
            assert all(int(n.replace(",", "")) <= MAX_TOKEN_COUNT for n in re.findall(r"\d[\d,]*", text)), text

    anyio.run(main)
    backend.close()
