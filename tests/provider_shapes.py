"""Provider blocks in the shapes the Anthropic API sends and takes back, as in Anthropic's
tool guides (web search, web fetch, code execution, MCP connector, search results, compaction) and the
``anthropic`` SDK's ``Beta*BlockParam`` types. Shared by the core and compile tests."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

Block = dict[str, Any]
ENCRYPTED = "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y"


def web_search_pair(n: int = 0, hits: int = 2, size: int = 64) -> list[Block]:
    """A ``web_search`` call and its results (encrypted page content), plus the cited answer."""
    cid = f"srvtoolu_01WS{n:04d}"
    return [
        {"type": "server_tool_use", "id": cid, "name": "web_search", "input": {"query": f"claude shannon {n}"}},
        {
            "type": "web_search_tool_result",
            "tool_use_id": cid,
            "content": [
                {
                    "type": "web_search_result",
                    "url": f"https://en.wikipedia.org/wiki/Claude_Shannon_{k}",
                    "title": f"Claude Shannon - Wikipedia {k}",
                    "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y"
                    * (size // 64 + 1),
                    "page_age": "April 30, 2025",
                }
                for k in range(hits)
            ],
        },
        {
            "type": "text",
            "text": "Claude Shannon was born on April 30, 1916, in Petoskey, Michigan.",
            "citations": [
                {
                    "type": "web_search_result_location",
                    "url": "https://en.wikipedia.org/wiki/Claude_Shannon_0",
                    "title": "Claude Shannon - Wikipedia 0",
                    "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
                    "cited_text": "Claude Elwood Shannon (April 30, 1916 – February 24, 2001) was an American",
                }
            ],
        },
    ]


def web_search_error(n: int = 0) -> list[Block]:
    cid = f"srvtoolu_01WE{n:04d}"
    return [
        {"type": "server_tool_use", "id": cid, "name": "web_search", "input": {"query": "x"}},
        {
            "type": "web_search_tool_result",
            "tool_use_id": cid,
            "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
        },
    ]


def web_fetch_pair(n: int = 0, size: int = 400) -> list[Block]:
    cid = f"srvtoolu_01WF{n:04d}"
    return [
        {"type": "server_tool_use", "id": cid, "name": "web_fetch", "input": {"url": "https://example.com/article"}},
        {
            "type": "web_fetch_tool_result",
            "tool_use_id": cid,
            "content": {
                "type": "web_fetch_result",
                "url": "https://example.com/article",
                "content": {
                    "type": "document",
                    "source": {
                        "type": "text",
                        "media_type": "text/plain",
                        "data": ("Full text of the article. " * size),
                    },
                    "title": "Article Title",
                    "citations": {"enabled": True},
                },
                "retrieved_at": "2025-08-25T10:30:00Z",
            },
        },
    ]


def code_execution_pair(n: int = 0, size: int = 200) -> list[Block]:
    cid = f"srvtoolu_01CE{n:04d}"
    return [
        {
            "type": "server_tool_use",
            "id": cid,
            "name": "code_execution",
            "input": {"code": "import numpy as np\nprint(np.mean([1, 2, 3, 4, 5]))"},
        },
        {
            "type": "code_execution_tool_result",
            "tool_use_id": cid,
            "content": {
                "type": "code_execution_result",
                "stdout": "Mean: 3.0\n" * size,
                "stderr": "",
                "return_code": 0,
                "content": [{"type": "code_execution_output", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}],
            },
        },
    ]


def encrypted_code_pair(n: int = 0) -> list[Block]:
    cid = f"srvtoolu_01EC{n:04d}"
    return [
        {"type": "server_tool_use", "id": cid, "name": "code_execution", "input": {"code": "print(1)"}},
        {
            "type": "code_execution_tool_result",
            "tool_use_id": cid,
            "content": {
                "type": "encrypted_code_execution_result",
                "encrypted_stdout": "RW5jcnlwdGVkU3Rkb3V0" * 20,
                "stderr": "",
                "return_code": 0,
                "content": [],
            },
        },
    ]


def bash_pair(n: int = 0, size: int = 100) -> list[Block]:
    cid = f"srvtoolu_01BA{n:04d}"
    return [
        {"type": "server_tool_use", "id": cid, "name": "bash_code_execution", "input": {"command": "ls -la | head -5"}},
        {
            "type": "bash_code_execution_tool_result",
            "tool_use_id": cid,
            "content": {
                "type": "bash_code_execution_result",
                "stdout": "total 24\ndrwxr-xr-x 2 user user 4096 Jan 1 00:00 .\n" * size,
                "stderr": "",
                "return_code": 0,
                "content": [],
            },
        },
    ]


def text_editor_pair(n: int = 0, size: int = 50) -> list[Block]:
    cid = f"srvtoolu_01TE{n:04d}"
    return [
        {
            "type": "server_tool_use",
            "id": cid,
            "name": "text_editor_code_execution",
            "input": {"command": "view", "path": "/tmp/config.json"},
        },
        {
            "type": "text_editor_code_execution_tool_result",
            "tool_use_id": cid,
            "content": {
                "type": "text_editor_code_execution_view_result",
                "file_type": "text",
                "content": '{\n  "setting": "value",\n  "debug": true\n}\n' * size,
                "num_lines": 4 * size,
                "start_line": 1,
                "total_lines": 4 * size,
            },
        },
    ]


def text_editor_create_pair(n: int = 0) -> list[Block]:
    cid = f"srvtoolu_01TC{n:04d}"
    return [
        {
            "type": "server_tool_use",
            "id": cid,
            "name": "text_editor_code_execution",
            "input": {"command": "create", "path": "/tmp/new.py", "file_text": "print('hi')\n"},
        },
        {
            "type": "text_editor_code_execution_tool_result",
            "tool_use_id": cid,
            "content": {"type": "text_editor_code_execution_create_result", "is_file_update": False},
        },
    ]


def mcp_pair(n: int = 0, size: int = 30) -> list[Block]:
    cid = f"mcptoolu_014Q35RayjACSWkSj4X2yov1{n:04d}"
    return [
        {
            "type": "mcp_tool_use",
            "id": cid,
            "name": "echo",
            "server_name": "example-mcp",
            "input": {"param1": "value1", "param2": "value2"},
        },
        {
            "type": "mcp_tool_result",
            "tool_use_id": cid,
            "is_error": False,
            "content": [{"type": "text", "text": "Hello from the MCP server. " * size}],
        },
    ]


def compaction_block() -> Block:
    return {
        "type": "compaction",
        "content": "Summary of the conversation so far: the user is debugging a flaky test in tests/core.",
    }


def search_result_block(size: int = 40) -> Block:
    return {
        "type": "search_result",
        "source": "https://docs.company.com/product-guide",
        "title": "Product Configuration Guide",
        "content": [
            {"type": "text", "text": "To configure the product, navigate to Settings > Configuration. " * size}
        ],
        "citations": {"enabled": True},
    }


def container_upload_block() -> Block:
    return {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}


ASSISTANT_PAIRS = [
    web_search_pair,
    web_search_error,
    web_fetch_pair,
    code_execution_pair,
    encrypted_code_pair,
    bash_pair,
    text_editor_pair,
    text_editor_create_pair,
    mcp_pair,
]


def assistant_turn(n: int = 0) -> list[Block]:
    """One assistant message holding every server pair, a cited answer and a compaction block."""
    blocks: list[Block] = [compaction_block(), {"type": "text", "text": "Let me look that up."}]
    for make in ASSISTANT_PAIRS:
        blocks += make(n)
    return blocks


def user_turn() -> list[Block]:
    """A user message with a container upload and a search result."""
    return [
        {"type": "text", "text": "Analyse this file and use this search result."},
        container_upload_block(),
        search_result_block(),
    ]


def require_openai_responses() -> ModuleType:
    """The ``openai`` module, for a test module of the Responses API checks (they follow the types of
    openai 3 and later, the dev extra's floor; the ``openai`` extra allows older): the module is skipped
    when openai is missing or older."""
    openai: ModuleType = pytest.importorskip("openai")
    if int(openai.__version__.split(".")[0]) < 3:
        pytest.skip(
            f"the Responses API checks follow the types of openai 3 and later; this is openai {openai.__version__}",
            allow_module_level=True,
        )
    return openai


CHAR_LOCATION: dict[str, Any] = {
    "type": "char_location",
    "cited_text": "x",
    "document_index": 0,
    "document_title": None,
    "start_char_index": 0,
    "end_char_index": 1,
}
"""A well-formed Anthropic ``char_location`` citation (``document_title`` is required and may be null)."""
