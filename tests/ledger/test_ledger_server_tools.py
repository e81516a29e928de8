"""The ledger reads provider-side tool blocks: a web search's query and top results, a web
fetch's URL, code execution's commands with their exit status and error lines, ``mcp_tool_use`` like a
tool call; and it still reads nothing from a block whose audience leaves the reader out."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.state import Ledger, LedgerConfig
from context_journal.state.checkpoint import dump_ledger, load_ledger
from context_journal.state.ledger import CommandRun, FileTouch, WebSearch
from context_journal.state.render import render_state
from context_journal.tokens import estimate_text_tokens
from tests.hypothesis_budget import examples
from tests.provider_shapes import (
    ASSISTANT_PAIRS,
    bash_pair,
    code_execution_pair,
    encrypted_code_pair,
    mcp_pair,
    text_editor_pair,
    web_fetch_pair,
    web_search_error,
    web_search_pair,
)

Block = dict[str, Any]


def _failing_bash(n: int = 0) -> list[Block]:
    cid = f"srvtoolu_01BF{n:04d}"
    return [
        {"type": "server_tool_use", "id": cid, "name": "bash_code_execution", "input": {"command": "python run.py"}},
        {
            "type": "bash_code_execution_tool_result",
            "tool_use_id": cid,
            "content": {
                "type": "bash_code_execution_result",
                "stdout": "loading data/input.csv\n",
                "stderr": 'Traceback (most recent call last):\n  File "run.py", line 3\nValueError: bad header row\n',
                "return_code": 1,
                "content": [],
            },
        },
    ]


def test_web_search_query_and_top_results() -> None:
    ledger = Ledger()
    ledger.add("m1", web_search_pair(0, hits=7))
    (search,) = ledger.state().searches
    assert search == WebSearch(
        "claude shannon 0",
        tuple(
            (f"Claude Shannon - Wikipedia {k}", f"https://en.wikipedia.org/wiki/Claude_Shannon_{k}") for k in range(5)
        ),
        "ok",
        "m1",
    )
    assert "EqgfCioIARgBIiQ3" not in json.dumps(ledger.state().to_dict())  # encrypted page content is never read


def test_web_search_error_and_a_search_without_result() -> None:
    ledger = Ledger()
    ledger.add("m1", web_search_error(0))
    ledger.add("m2", web_search_pair(1)[:1])  # a pause_turn response: the call, no result yet
    first, second = ledger.state().searches
    assert (first.query, first.results, first.status) == ("x", (), "error max_uses_exceeded")
    assert (second.query, second.status) == ("claude shannon 1", "no result")
    assert ledger.state().errors == ("web_search: max_uses_exceeded",)


def test_fetch_text_editor_and_mcp_touch_files() -> None:
    ledger = Ledger()
    ledger.add("m1", web_fetch_pair(0, size=3))
    ledger.add("m2", text_editor_pair(0, size=1))
    mcp = mcp_pair(0, size=1)
    mcp[0] = {**mcp[0], "name": "read_file", "server_name": "filesystem", "input": {"path": "/srv/app/main.py"}}
    ledger.add("m3", mcp)
    assert ledger.state().files == (
        FileTouch("/srv/app/main.py", "read", 1, "m3"),
        FileTouch("/tmp/config.json", "read", 1, "m2"),
        FileTouch("https://example.com/article", "fetched", 1, "m1"),
    )


def test_code_execution_commands_status_and_error_lines() -> None:
    ledger = Ledger()
    ledger.add("m1", bash_pair(0, size=1))
    ledger.add("m2", code_execution_pair(0, size=1))
    ledger.add("m3", _failing_bash(0))
    ledger.add("m4", encrypted_code_pair(0))
    state = ledger.state()
    assert state.commands == (
        CommandRun("ls -la | head -5", "ok", 0, "m1"),
        CommandRun("import numpy as np\nprint(np.mean([1, 2, 3, 4, 5]))", "ok", 0, "m2"),
        CommandRun("python run.py", "failed", 1, "m3"),
        CommandRun("print(1)", "ok", 0, "m4"),
    )
    assert state.errors == ("Traceback (most recent call last):", "ValueError: bad header row")
    assert "RW5jcnlwdGVk" not in json.dumps(state.to_dict())


def test_a_server_tool_error_is_an_error_line() -> None:
    cid = "srvtoolu_01XX"
    ledger = Ledger()
    ledger.add(
        "m1",
        [
            {"type": "server_tool_use", "id": cid, "name": "bash_code_execution", "input": {"command": "make"}},
            {
                "type": "bash_code_execution_tool_result",
                "tool_use_id": cid,
                "content": {"type": "bash_code_execution_tool_result_error", "error_code": "unavailable"},
            },
        ],
    )
    state = ledger.state()
    assert state.commands == (CommandRun("make", "failed", None, "m1"),)
    assert state.errors == ("bash_code_execution_tool_result: unavailable",)


def test_mcp_call_names_are_read_like_a_tool_call() -> None:
    ledger = Ledger()
    mcp = mcp_pair(0, size=1)
    mcp[0] = {**mcp[0], "input": {"query": "load_user_profile in accounts"}}
    ledger.add("m1", mcp)
    names = {i.name: i.score for i in ledger.state().identifiers}
    assert names["load_user_profile"] == 1.0  # written (a call's input), not heard


def test_the_block_shows_the_searches() -> None:
    ledger = Ledger()
    ledger.add("m1", web_search_pair(0, hits=4))
    ledger.add("m2", bash_pair(0, size=1))
    text = render_state(ledger.state(), 2000, estimate_text_tokens)
    assert text is not None
    lines = text.splitlines()
    at = lines.index("Web searches (last 1):")
    hits = "; ".join(
        f"Claude Shannon - Wikipedia {k} <https://en.wikipedia.org/wiki/Claude_Shannon_{k}>" for k in range(3)
    )
    assert lines[at + 1] == f'  "claude shannon 0" -> {hits}'
    assert "  $ ls -la | head -5  -> exit 0" in lines
    # A search alone makes a block (it is state, as a command is).
    alone = Ledger()
    alone.add("m1", web_search_pair(0))
    assert "Web searches (last 1):" in (render_state(alone.state(), 2000, estimate_text_tokens) or "")


def test_checkpoint_and_copy_keep_open_searches() -> None:
    ledger = Ledger()
    call, result, _ = web_search_pair(0)
    ledger.add("m1", [call])
    config = LedgerConfig()
    loaded = load_ledger(json.loads(json.dumps(dump_ledger(ledger))), config, None)
    twin = ledger.copy()
    for fold in (ledger, loaded, twin):
        assert fold.state().searches[0].status == "no result"
        fold.add("m2", [{"type": "text", "text": "the result came in a later fragment"}])
    # The result answers the call in the copy and the loaded fold alike, and the original is untouched.
    # (A result must sit in its call's message for the store; the ledger only pairs ids.)
    loaded._server_result(result, [])
    twin._server_result(result, [])
    assert loaded.state().searches == twin.state().searches
    assert loaded.state().searches[0].status == "ok" and ledger.state().searches[0].status == "no result"


# ---- reader scoping ----------------------------------------------------------------------------------

SECRET = "zq_hidden_{n}"


@st.composite
def _messages(draw: st.DrawFn) -> list[tuple[str, list[Block]]]:
    out: list[tuple[str, list[Block]]] = []
    for k in range(draw(st.integers(1, 6))):
        blocks: list[Block] = []
        for j in range(draw(st.integers(1, 4))):
            pick = draw(st.integers(0, 3))
            n = k * 10 + j
            if pick == 0:
                blocks += ASSISTANT_PAIRS[draw(st.integers(0, len(ASSISTANT_PAIRS) - 1))](n)
            elif pick == 1:  # private to another reader: its names and paths must never show
                secret = SECRET.format(n=n)
                kind = draw(st.sampled_from(["text", "thinking"]))
                blocks.append(
                    {
                        "type": kind,
                        kind: f"run {secret}() on /srv/{secret}.py",
                        "audience": [draw(st.sampled_from(["bob", "carol"]))],
                    }
                )
            elif pick == 2:
                blocks.append(
                    {"type": "text", "text": f"shared note_{n} about calc_total", "audience": ["alice", "bob"]}
                )
            else:
                blocks.append({"type": "text", "text": f"plain words and parse_row_{n}"})
        out.append((f"m{k}", blocks))
    return out


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_messages(), st.sampled_from(["alice", None]))
def test_no_text_from_a_block_the_reader_cannot_see(
    messages: list[tuple[str, list[Block]]], reader: str | None
) -> None:
    ledger = Ledger(reader=reader)
    for mid, blocks in messages:
        ledger.add(mid, blocks)
    dumped = json.dumps(ledger.state().to_dict()) + json.dumps(dump_ledger(ledger))
    assert "zq_hidden" not in dumped
    text = render_state(ledger.state(), 4000, estimate_text_tokens) or ""
    assert "zq_hidden" not in text
    # The blocks the reader does see still count: the shared note for alice, never for no reader.
    shared = any(b.get("audience") == ["alice", "bob"] for _, blocks in messages for b in blocks)
    seen = {i.name for i in ledger.state().identifiers}
    assert ("calc_total" in seen) == (shared and reader == "alice")
