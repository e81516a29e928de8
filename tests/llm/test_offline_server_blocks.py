"""The offline summarizer reads provider-side blocks: server tool calls and MCP calls as
calls, their results as results (a web search's hits as ``title <url>``, code output with its return
code, errors as errors), a compaction summary as the assistant's words; encrypted content never."""

from __future__ import annotations

from typing import Any

from context_journal.llm._extract import server_result_text
from context_journal.llm.offline import OfflineSummarizer
from context_journal.llm.types import LLMMessage, LLMRequest
from tests.provider_shapes import (
    ENCRYPTED,
    bash_pair,
    compaction_block,
    encrypted_code_pair,
    mcp_pair,
    web_fetch_pair,
    web_search_error,
    web_search_pair,
)


def _digest(*assistant: list[dict[str, object]], tokens: int = 400) -> str:
    messages = [LLMMessage(role="user", content="When was Claude Shannon born? Also run the numbers.")]
    messages += [LLMMessage(role="assistant", content=blocks) for blocks in assistant]
    messages.append(LLMMessage(role="user", content=f"Summarise the conversation above in {tokens} tokens."))
    return OfflineSummarizer().summarize(LLMRequest(messages=messages, max_tokens=tokens)).text


def test_search_fetch_code_and_mcp_read_as_calls_and_results() -> None:
    text = _digest(web_search_pair(0) + bash_pair(0, size=2) + mcp_pair(0, size=1) + web_fetch_pair(0, size=3))
    lines = text.splitlines()
    assert "I called: server:web_search(query: claude shannon 0)" in lines
    assert (
        "Results: Claude Shannon - Wikipedia 0 <https://en.wikipedia.org/wiki/Claude_Shannon_0> "
        "Claude Shannon - Wikipedia 1 <https://en.wikipedia.org/wiki/Claude_Shannon_1>"
    ) in lines
    assert "I called: server:bash_code_execution(command: ls -la | head -5)" in lines
    assert (
        "I called: example-mcp/echo(param1: value1, param2: value2); server:web_fetch(url: https://example.com/article)"
        in lines
    )
    assert "Results: https://example.com/article Full text of the article." in lines
    assert ENCRYPTED[:20] not in text


def test_failed_code_and_tool_errors_are_errors() -> None:
    cid = "srvtoolu_01BF0001"
    failing: list[dict[str, Any]] = [
        {"type": "server_tool_use", "id": cid, "name": "bash_code_execution", "input": {"command": "python run.py"}},
        {
            "type": "bash_code_execution_tool_result",
            "tool_use_id": cid,
            "content": {
                "type": "bash_code_execution_result",
                "stdout": "",
                "stderr": "ValueError: bad header row in data/input.csv",
                "return_code": 1,
                "content": [],
            },
        },
    ]
    text = _digest(failing + web_search_error(0))
    assert "I called: server:bash_code_execution(command: python run.py)" in text
    errors = [line for line in text.splitlines() if line.startswith("Errors:")]
    assert errors and "return_code: 1" in errors[0] and "ValueError: bad header row in data/input.csv" in text
    assert "max_uses_exceeded" in text


def test_encrypted_output_is_never_read() -> None:
    call, result = encrypted_code_pair(0)
    assert server_result_text(result) == ("", False)
    assert "RW5jcnlwdGVk" not in _digest([call, result])


def test_a_compaction_summary_is_read_as_said() -> None:
    text = _digest([compaction_block(), {"type": "text", "text": "Let me rerun tests/core/test_flaky.py now."}])
    assert "I said: Summary of the conversation so far: the user is debugging a flaky test in tests/core." in text
