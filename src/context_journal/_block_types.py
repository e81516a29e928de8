"""Names of the provider-side block types, shared by the content model and the token estimate
(which the content model imports, so neither can hold them for the other)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ASSISTANT_ONLY_TYPES",
    "OPENAI_OUTPUT_ITEMS",
    "SERVER_CALL_TYPES",
    "SERVER_RESULT_TYPES",
    "SERVER_TYPES",
    "USER_ONLY_TYPES",
    "continues_server_turn",
    "openai_item_role",
]

SERVER_CALL_TYPES = frozenset({"server_tool_use", "mcp_tool_use"})
"""Block types of a provider-side tool call (answered in the same assistant message)."""
SERVER_RESULT_TYPES = frozenset(
    {
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "mcp_tool_result",
    }
)
"""Block types of a provider-side tool's result (``tool_use_id`` names a call earlier in the message)."""
SERVER_TYPES = SERVER_CALL_TYPES | SERVER_RESULT_TYPES
ASSISTANT_ONLY_TYPES = SERVER_TYPES | {"compaction", "reasoning"}
"""Block types only an assistant turn may carry (besides thinking and ``tool_use``); ``reasoning`` is
OpenAI's (a Responses API reasoning item)."""
USER_ONLY_TYPES = frozenset({"search_result", "container_upload"})
"""Block types only a user turn may carry (besides media and ``tool_result``)."""
OPENAI_OUTPUT_ITEMS = frozenset(
    {
        "computer_call_output",
        "local_shell_call_output",
        "shell_call_output",
        "apply_patch_call_output",
        "mcp_approval_response",
        "tool_search_output",
        "program_output",
    }
)
"""Responses item types an ``openai_item`` block holds on the client's side (what the host sends back to
answer a call the model made); any other item type is the model's (an assistant turn's)."""


def openai_item_role(item_type: object) -> str:
    """The turn an ``openai_item`` block of this item type belongs to: ``"user"`` for an item the host
    sends (``computer_call_output``, ``mcp_approval_response``, any ``*_output``), else ``"assistant"``."""
    if item_type in OPENAI_OUTPUT_ITEMS or (isinstance(item_type, str) and item_type.endswith("_output")):
        return "user"
    return "assistant"


def continues_server_turn(kinds: Iterable[object]) -> bool:
    """Whether a message of these block types continues the message before it: it opens with a
    provider-side tool result (its first block; Anthropic's ``pause_turn``: the model goes on in a new
    assistant message whose content starts with the result of the server call the paused message ended
    with). A result later in a message, after text or a call, is no continuation: it must answer a call
    earlier in its own message. The write rule (``content.check_continuation``) makes this kind-level test
    exact: such a result is accepted only when its call is in the message just before, by the same
    participant, so the two are one unit for every strategy (``views.unit_bounds``)."""
    return next(iter(kinds), None) in SERVER_RESULT_TYPES
