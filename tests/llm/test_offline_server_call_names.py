"""The offline summarizer names a provider-side tool call as the provider's (``server:name(...)``), not
like a client tool call: ``bash_code_execution`` ran in the provider's container, not where the
client's ``Bash`` runs (a review finding). A merge of digests keeps such calls as separate calls."""

from __future__ import annotations

from typing import Any

from context_journal.llm._extract import extract_units
from context_journal.llm.offline import OfflineSummarizer
from context_journal.llm.types import LLMMessage, LLMRequest

SERVER: list[dict[str, Any]] = [
    {"type": "server_tool_use", "id": "srvtoolu_b1", "name": "bash_code_execution", "input": {"command": "pytest -x"}},
    {
        "type": "bash_code_execution_tool_result",
        "tool_use_id": "srvtoolu_b1",
        "content": {
            "type": "bash_code_execution_result",
            "stdout": "1 passed",
            "stderr": "",
            "return_code": 0,
            "content": [],
        },
    },
    {"type": "server_tool_use", "id": "srvtoolu_c1", "name": "code_execution", "input": {"code": "print(1)"}},
    {
        "type": "code_execution_tool_result",
        "tool_use_id": "srvtoolu_c1",
        "content": {"type": "code_execution_result", "stdout": "1", "stderr": "", "return_code": 0, "content": []},
    },
]
CLIENT: list[dict[str, Any]] = [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -x"}}]


def _digest(blocks: list[dict[str, Any]]) -> str:
    messages = [
        LLMMessage(role="user", content="Run the tests."),
        LLMMessage(role="assistant", content=blocks),
        LLMMessage(role="user", content="Summarise the conversation above in 300 tokens."),
    ]
    return OfflineSummarizer().summarize(LLMRequest(messages=messages, max_tokens=300)).text


def test_server_calls_are_named_as_the_providers() -> None:
    text = _digest(SERVER)
    lines = text.splitlines()
    assert "I called: server:bash_code_execution(command: pytest -x)" in lines
    assert "I called: server:code_execution(code: print(1))" in lines
    assert "I called: bash_code_execution" not in text


def test_a_client_call_keeps_its_plain_name() -> None:
    assert "I called: Bash(command: pytest -x)" in _digest([*CLIENT])


def test_a_merged_digest_keeps_server_calls_apart() -> None:
    digest = "I called: Read(file_path: a.py); server:web_search(query: zebra stripes)"
    units = extract_units([LLMMessage(role="assistant", content=digest)], 0, 1)
    assert [u.rendered for u in units if u.kind == "call"] == [
        "Read(file_path: a.py)",
        "server:web_search(query: zebra stripes)",
    ]
