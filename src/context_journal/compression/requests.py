"""Turning a strategy's summary request into a provider request (the LLM layer's :class:`LLMRequest`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..content import resolve_media
from ..llm.types import LLMMessage, LLMRequest, ToolDefinition
from ..strategies.base import SummaryRequest
from ..wire.media import has_blob

__all__ = ["provider_request"]


def provider_request(request: SummaryRequest, get_blob: Callable[[str], bytes]) -> LLMRequest:
    """The provider request for a strategy's :class:`SummaryRequest`: tools from its metadata (a
    definition that does not validate is left out), ``tool_choice="none"`` when there are tools, stored
    media resolved through ``get_blob`` (sha256 -> bytes), cache markers on the system prompt, the tools
    and the messages the strategy marked (the end of the head window).

    Raises:
        BlobNotFoundError: a message refers to a blob the store does not hold (from ``get_blob``; a ``KeyError``).
    """
    meta = request.metadata
    tools: list[ToolDefinition] = []
    for t in meta.get("tools") or ():
        if isinstance(t, Mapping):
            try:
                tools.append(ToolDefinition.model_validate(dict(t)))
            except ValueError:
                continue
    messages = []
    for m in request.messages:
        content = list(m["content"])
        if any(has_blob(b) for b in content):
            content = resolve_media(content, get_blob)
        messages.append(LLMMessage(role=m["role"], content=content, cache=bool(m.get("cache", False))))
    keep = ("summarize_range", "target_tokens", "instruction_last", "work", "kind", "level")
    return LLMRequest(
        messages=messages,
        system=request.system or "",
        tools=tools,
        tool_choice="none" if tools else None,
        max_tokens=request.max_tokens,
        metadata={k: meta[k] for k in keep if k in meta},
        cache_system=bool(request.system),
        cache_tools=bool(tools),
    )
