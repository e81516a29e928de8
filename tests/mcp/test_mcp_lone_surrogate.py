"""A request holding half of a UTF-16 surrogate pair is answered over stdio (bug case B51's kind, through the
MCP server). A review sent ``add_message`` with ``"a \\ud83d b"`` as raw JSON-RPC to ``context-journal mcp
serve``: the SDK's parser refused the line and, unable to read its id, answered nothing, so the client waited
for ever; the requests after it were answered. The server now reads such a line with U+FFFD in the
character's place, says so on standard error, and answers it; over streamable HTTP, where the SDK answered
400 (a parse error), it reads the request's body the same way."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import pytest

from context_journal import ContextManager
from context_journal.mcp.stdin_lines import mend_line

CLI = [sys.executable, "-m", "context_journal"]


def _request(id_: int, method: str, params: dict[str, object]) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})


def test_a_request_with_a_lone_surrogate_is_answered(tmp_path: Path) -> None:
    # The server needs the SDK (extra 'mcp'); ``mend_line`` below does not, so only this test is skipped
    # without it (CI's lowest-core environment).
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")
    from tests.mcp.mcp_helpers import env

    db = tmp_path / "s.db"
    lines = [
        _request(
            1,
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        # json.dumps writes the lone surrogate as the escape "\ud83d", as a client's JSON encoder does
        _request(
            2, "tools/call", {"name": "add_message", "arguments": {"participant": "user", "content": "a \ud83d b"}}
        ),
        _request(
            3,
            "tools/call",
            {
                "name": "add_message",
                "arguments": {"participant": "user", "content": [{"type": "text", "text": "x\udc00"}]},
            },
        ),
        _request(
            4,
            "tools/call",
            {"name": "add_message", "arguments": {"participant": "user", "content": "a pair \ud83d\ude00 stays"}},
        ),
    ]
    assert "\\ud83d" in lines[2]
    answers: dict[int, dict[str, object]] = {}
    with subprocess.Popen(
        [*CLI, "mcp", "serve", "--store", str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
        text=True,
    ) as proc:
        timer = threading.Timer(60, proc.kill)  # a request left unanswered would block the read below
        timer.start()
        try:
            assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
            proc.stdin.write("\n".join(lines) + "\n")
            proc.stdin.flush()
            while len(answers) < 4 and (line := proc.stdout.readline()):
                message = json.loads(line)
                answers[message["id"]] = message
            proc.stdin.close()
            stderr = proc.stderr.read()
            proc.wait(timeout=30)
        finally:
            timer.cancel()
    assert sorted(answers) == [1, 2, 3, 4], (answers, stderr)
    results = [answers[k]["result"] for k in (2, 3, 4)]
    assert all(isinstance(r, dict) and not r["isError"] for r in results), results
    assert stderr.count("lone surrogate") == 2, stderr
    with ContextManager.open(db) as cm:
        texts = [m.content[0].text for m in cm.get_all_messages()]  # type: ignore[union-attr]
    assert sorted(texts) == sorted(["a \ufffd b", "x\ufffd", "a pair \U0001f600 stays"])  # (answered concurrently)


def test_mend_line_touches_only_lines_the_sdk_cannot_read() -> None:
    pair = b'{"a": "\\ud83d\\ude00"}\n'
    assert mend_line(pair) == (pair, False)  # an escaped pair is one character: left as it came
    assert mend_line(b'{"a": "plain"}\n') == (b'{"a": "plain"}\n', False)
    assert mend_line(b"not json \\ud83d\n") == (b"not json \\ud83d\n", False)  # the SDK reports it
    mended, changed = mend_line(b'{"a": ["x\\udc00", {"k\\ud800": 1}]}\n')
    assert changed and json.loads(mended) == {"a": ["x\ufffd", {"k\ufffd": 1}]} and mended.endswith(b"\n")


def test_a_request_with_a_lone_surrogate_is_answered_over_http(tmp_path: Path) -> None:
    """Over streamable HTTP the SDK answered such a request 400 "Parse error: unexpected end of hex escape"
    where stdio wrote the message: the server now reads its body as stdio reads a line."""
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")
    import httpx2

    from tests.mcp.mcp_helpers import env, free_port, wait_until_listening

    db = tmp_path / "h.db"
    port = free_port()
    proc = subprocess.Popen(
        [*CLI, "mcp", "serve", "--store", str(db), "--http", f"127.0.0.1:{port}"],
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    try:
        wait_until_listening(proc, port)
        init = _request(
            1,
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        )
        opened = httpx2.post(url, content=init.encode(), headers=headers, timeout=10)
        assert opened.status_code == 200, opened.text
        session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"]}
        done = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
        assert httpx2.post(url, content=done, headers=session, timeout=10).status_code == 202
        # json.dumps writes the lone surrogate as the escape "\ud83d", as a client's JSON encoder does
        call = _request(
            2, "tools/call", {"name": "add_message", "arguments": {"participant": "user", "content": "a \ud83d b"}}
        )
        assert "\\ud83d" in call
        answered = httpx2.post(url, content=call.encode(), headers=session, timeout=10)
        assert answered.status_code == 200, answered.text
        [data] = [line[len("data: ") :] for line in answered.text.splitlines() if line.startswith("data: ")]
        reply = json.loads(data)
        assert reply["id"] == 2 and not reply["result"].get("isError"), reply
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "lone surrogate" in err.decode()
    with ContextManager.open(db) as cm:
        [message] = cm.get_all_messages()
    assert message.content[0].text == "a \ufffd b"  # type: ignore[union-attr]


Message = MutableMapping[str, Any]


def _asgi(body_chunks: list[bytes], headers: list[tuple[bytes, bytes]], max_body: int) -> tuple[list[Message], str]:
    """What the app behind :class:`MendedBodies` receives for a POST of ``body_chunks``, and the log."""
    import anyio

    from context_journal.mcp.server import MendedBodies

    got: list[Message] = []
    last = len(body_chunks) - 1
    incoming: list[Message] = [
        {"type": "http.request", "body": c, "more_body": k < last} for k, c in enumerate(body_chunks)
    ]
    log = io.StringIO()

    async def receive() -> Message:
        return incoming.pop(0)

    async def app(scope: Message, receive: Callable[[], Awaitable[Message]], send: object) -> None:
        got.append({"headers": scope["headers"]})
        while True:
            message = await receive()
            got.append(message)
            if not message.get("more_body"):
                return

    async def send(message: Message) -> None:  # pragma: no cover - the app sends nothing
        raise AssertionError(message)

    middleware = MendedBodies(app, log, max_body=max_body)
    scope: Message = {"type": "http", "method": "POST", "headers": headers}
    anyio.run(middleware, scope, receive, send)
    return got, log.getvalue()


def test_a_body_over_the_limit_passes_on_unread() -> None:
    """A review sent 300 MiB: read whole before the SDK's 413, it took 3.1 GB. Over ``max_body`` the body
    goes on as it came (the SDK refuses it), declared or not; under it, a lone surrogate is read as U+FFFD."""
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")
    from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

    from context_journal.mcp.server import MAX_REQUEST_BODY

    assert MAX_REQUEST_BODY == DEFAULT_MAX_REQUEST_BODY_SIZE
    bad = b'{"a": "x \\ud83d"}'
    got, log = _asgi([bad[:8], bad[8:]], [(b"content-type", b"application/json")], max_body=100)
    assert json.loads(got[1]["body"]) == {"a": "x \ufffd"} and "lone surrogate" in log
    assert (b"content-length", str(len(got[1]["body"])).encode()) in got[0]["headers"]
    # streamed past the limit: the chunks read so far, then the rest, unchanged and unlogged
    got, log = _asgi([bad, bad, bad], [], max_body=20)
    assert b"".join(m["body"] for m in got[1:]) == bad * 3 and log == ""
    assert len(got) == 3  # what was read (two chunks, over the limit) in one message, then the third
    # declared too large: not read at all here
    got, log = _asgi([bad], [(b"content-length", b"999")], max_body=20)
    assert got[1]["body"] == bad and log == ""
