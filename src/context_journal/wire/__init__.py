"""Wire formats: one encoder per provider request format, used by the exporters
(:mod:`context_journal.formats.exporters`) and by the LLM adapters (:mod:`context_journal.llm`) alike, so a
compiled context and a summary request reach a provider in the same shape.

* :mod:`.media`: stored media (``blob`` sources) back into base64, and the check for blob references.
* :mod:`.chat_completions`: OpenAI Chat Completions ``messages`` (tool calls, tool results, media parts),
  and the ``function.arguments`` text of a ``tool_use``.

This layer sits below both users: it imports only :mod:`context_journal.content` and the block
helpers beside it.
"""

from __future__ import annotations

from .chat_completions import (
    call_arguments,
    encode_chat_turn,
    input_json,
    parse_tool_arguments,
    tool_result_text,
)
from .media import has_blob, media_source

__all__ = [
    "call_arguments",
    "encode_chat_turn",
    "has_blob",
    "input_json",
    "media_source",
    "parse_tool_arguments",
    "tool_result_text",
]
