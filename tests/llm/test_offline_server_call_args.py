"""A review of provider-side blocks: the offline summarizer keeps each provider-side call's salient argument in the
call's head, as it does a client call's (``Bash(command: ...)``): a ``code_execution`` call's ``code``
used to be a separate argument unit, so in a message of several calls, where the budget keeps heads
only, the digest read ``server:code_execution`` with nothing said of what ran. A digest merged again
splits an MCP call (``server/name(...)``) from the call before it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from context_journal.llm._extract import call_parts, extract_units
from context_journal.llm.offline import OfflineSummarizer
from context_journal.llm.types import LLMMessage, LLMRequest
from tests.provider_shapes import bash_pair, code_execution_pair, text_editor_pair, web_fetch_pair, web_search_pair

Block = dict[str, Any]


def _digest(blocks: list[Block], budget: int) -> str:
    messages = [
        LLMMessage(role="user", content="Research it."),
        LLMMessage(role="assistant", content=blocks),
        LLMMessage(role="user", content=f"Summarise the conversation above in {budget} tokens."),
    ]
    return OfflineSummarizer().summarize(LLMRequest(messages=messages, max_tokens=budget)).text


def _calls(digest: str) -> list[str]:
    """The calls of a digest's ``I called:`` lines."""
    out: list[str] = []
    for line in digest.splitlines():
        if line.startswith("I called: "):
            out += re.split(r"; (?=[\w.:/-]{1,64}(?:\(|$))", line[len("I called: ") :])
    return out


SALIENT = {
    "server:web_search": "query: claude shannon",
    "server:web_fetch": "url: https://example.com/article",
    "server:code_execution": "code: ",
    "server:bash_code_execution": "command: ls -la | head -5",
    "server:text_editor_code_execution": "path: /tmp/config.json",
}


def _mixed(n: int) -> list[Block]:
    out: list[Block] = []
    for k in range(n):
        for make in (web_search_pair, web_fetch_pair, code_execution_pair, bash_pair, text_editor_pair):
            out += make(k)[:2]
    return out


@pytest.mark.parametrize("budget", [60, 80, 120, 300])
@pytest.mark.parametrize("results", [True, False], ids=["with-results", "calls-only"])
def test_every_server_call_shown_carries_its_salient_argument(budget: int, results: bool) -> None:
    blocks = _mixed(2) if results else [b for b in _mixed(2) if b["type"] == "server_tool_use"]
    calls = [c for c in _calls(_digest(blocks, budget)) if c.startswith("server:")]
    assert calls, "the digest names no server call"
    for call in calls:
        name = call.split("(", 1)[0]
        assert call.startswith(f"{name}({SALIENT[name]}"), call


def test_several_code_runs_in_one_message_each_show_their_code() -> None:
    codes = ["df = load_sales('q3.csv')", "print(df.revenue.sum())", "plot_trend(df, 'revenue')"]
    blocks = [
        {"type": "server_tool_use", "id": f"srvtoolu_{k}", "name": "code_execution", "input": {"code": code}}
        for k, code in enumerate(codes)
    ]
    for budget in (40, 300):
        calls = _calls(_digest(blocks, budget))
        assert calls
        assert all(c in [f"server:code_execution(code: {code})" for code in codes] for c in calls), calls
    assert _calls(_digest(blocks, 300)) == [f"server:code_execution(code: {code})" for code in codes]


def test_the_code_goes_in_the_head_of_a_server_call_only() -> None:
    head, rest = call_parts("server:code_execution", {"code": "print(1)"}, ("code",))
    assert (head.rendered, rest) == ("server:code_execution(code: print(1))", [])
    head, rest = call_parts("run_python", {"code": "print(1)"})  # a client tool: code stays an argument
    assert head.rendered == "run_python"
    assert [v.rendered for _, v in rest] == ["code: print(1)"]
    # Multi-line code: its first line, the cut marked (as a Bash command's).
    head, _ = call_parts("server:code_execution", {"code": "import numpy as np\nprint(np.mean([1, 2]))"}, ("code",))
    assert head.rendered.startswith("server:code_execution(code: import numpy as np…")


def test_a_client_and_server_call_in_one_message_keep_their_arguments() -> None:
    blocks: list[Block] = [
        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "notes.md"}},
        *web_search_pair(0)[:1],
        *code_execution_pair(0)[:1],
    ]
    calls = _calls(_digest(blocks, 300))
    assert calls == [
        "Read(file_path: notes.md)",
        "server:web_search(query: claude shannon 0)",
        "server:code_execution(code: import numpy as np… [clipped 32 chars])",
    ]


def test_a_merged_digest_splits_an_mcp_call_from_its_neighbours() -> None:
    digest = (
        "I called: server:web_search(query: lima weather); example-mcp/echo(param1: value1); "
        "server:code_execution(code: print(1))"
    )
    units = extract_units([LLMMessage(role="assistant", content=digest)], 0, 1)
    assert [u.rendered for u in units if u.kind == "call"] == [
        "server:web_search(query: lima weather)",
        "example-mcp/echo(param1: value1)",
        "server:code_execution(code: print(1))",
    ]
