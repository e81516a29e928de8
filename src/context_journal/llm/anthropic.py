"""Adapter for the official ``anthropic`` SDK (extra ``anthropic``): ``AsyncAnthropic().messages.create``.

Mapping (docs.anthropic.com, "Messages" and "Prompt caching"):

* ``system`` is sent as a string, or as text blocks when it is a block list or carries a cache marker;
* messages keep their role; each block goes through the one Messages wire encoder, the exporter's
  (:func:`context_journal.wire.messages.anthropic_block`: the API's fields of each block type, a host's
  own ``cache_control`` included, fields the API refuses such as ``audience`` left out). Thinking blocks
  without a ``signature`` cannot be replayed and are dropped; a message
  left empty by that is an error. ``name`` has no Anthropic field and is not sent;
* tools become ``{name, description, input_schema}``; ``tool_choice`` becomes ``{"type": ...}``;
* cache flags become ``cache_control: {"type": "ephemeral"}`` markers on the last tool, the last
  system block and the last cacheable block of each flagged message (thinking blocks cannot carry
  one). The API allows 4 markers per request, and several in one message add nothing over its last:
  the tools and system markers come first (the most stable prefix), then the latest flagged messages,
  in the slots the content's own markers (one per message) leave free; when there are still more than 4,
  one per message is kept and, of those, the tools', the system's and the newest (the one count over
  the whole request is :func:`context_journal.rendering.cache_markers.cap_cache_markers`, which warns with what it
  removed);
* the response's blocks, ``stop_reason``, usage (including cache reads and writes) and id come back
  unchanged; block types this library does not model (server tool blocks) are dropped.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..content import block_to_dict, parse_block
from ..rendering.cache_markers import MAX_CACHE_BREAKPOINTS, cap_cache_markers, marker_locations
from ..wire.media import has_blob
from ..wire.messages import CACHEABLE_TYPES, NOT_SENT_TYPES, anthropic_block
from ._sdk import SDKProvider, blob_error, call_params, dump, import_sdk, retry_policy, sdk_client
from .errors import ProviderRequestError
from .retry import RetryPolicy
from .types import LLMRequest, LLMResponse, Usage

__all__ = [
    "DEFAULT_ANTHROPIC_MODEL",
    "MAX_CACHE_BREAKPOINTS",
    "AnthropicProvider",
    "decode_anthropic_message",
    "encode_anthropic_request",
]

logger = logging.getLogger("context_journal.llm")

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"
"""Model used when none is given (an alias from Anthropic's models overview)."""

_KNOWN_BLOCKS = frozenset({"text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document"})


def encode_anthropic_request(
    request: LLMRequest, *, model: str, cache_ttl: str | None = None, provider: str = "anthropic"
) -> dict[str, Any]:
    """The keyword arguments of ``messages.create`` for ``request`` (rules in the module docstring).

    Args:
        request: The provider-neutral request.
        model: The model to name when the request names none.
        cache_ttl: ``"5m"`` or ``"1h"`` to set the markers' ``ttl``; None for the API default (5 minutes).
        provider: Provider name for errors.

    Returns:
        A JSON-ready dict.

    Raises:
        ProviderRequestError: when a block still holds a blob reference, or a message is left empty.
    """
    marker: dict[str, Any] = {"type": "ephemeral"}
    if cache_ttl is not None:
        marker["ttl"] = cache_ttl

    messages: list[dict[str, Any]] = []
    for i, msg in enumerate(request.messages):
        blocks: list[dict[str, Any]] = []
        for j, block in enumerate(msg.content):
            data = block_to_dict(block)
            if (data["type"] == "thinking" and not data.get("signature")) or data["type"] in NOT_SENT_TYPES:
                continue  # unsigned thinking cannot be replayed to the API; OpenAI reasoning is not sent
            if has_blob(data):
                raise blob_error(provider, f"message {i}, block {j}")
            blocks.append(anthropic_block(data))
        if not blocks:
            raise ProviderRequestError(
                f"message {i} has only unsigned thinking or OpenAI reasoning blocks, which Anthropic does not accept",
                provider=provider,
            )
        messages.append({"role": msg.role, "content": blocks})

    params: dict[str, Any] = {"model": request.model or model, "max_tokens": request.max_tokens}
    system: str | list[dict[str, Any]] = (
        request.system
        if isinstance(request.system, str)
        else [anthropic_block(block_to_dict(b)) for b in request.system]
    )
    tools = [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools]

    # Prompt-cache markers: tools and system first (the cap prefers them too), then the latest flagged
    # messages in the locations the content's own markers leave free (one marker per message).
    if request.cache_tools and tools:
        tools[-1]["cache_control"] = dict(marker)
    if request.cache_system and system:
        if isinstance(system, str):
            system = [{"type": "text", "text": system}]
        if "cache_control" not in system[-1]:
            system[-1]["cache_control"] = dict(marker)
    free = MAX_CACHE_BREAKPOINTS - marker_locations(
        tools=tools, system=system if isinstance(system, list) else None, messages=messages
    )
    flagged: list[dict[str, Any]] = []
    for msg, encoded in zip(request.messages, messages, strict=True):
        if not msg.cache or marker_locations(messages=[encoded]):
            continue  # not flagged, or already a breakpoint location (the host's marker)
        target = next((b for b in reversed(encoded["content"]) if b["type"] in CACHEABLE_TYPES), None)
        if target is not None:
            flagged.append(target)
    for target in flagged[len(flagged) - free :] if free > 0 else []:
        target["cache_control"] = dict(marker)
    cap_cache_markers(tools=tools, system=system if isinstance(system, list) else None, messages=messages)

    if system:
        params["system"] = system
    params["messages"] = messages
    if tools:
        params["tools"] = tools
    if request.tool_choice is not None:
        params["tool_choice"] = {"type": request.tool_choice}
    if request.temperature is not None:
        params["temperature"] = request.temperature
    if request.stop_sequences:
        params["stop_sequences"] = list(request.stop_sequences)
    return params


def decode_anthropic_message(raw: Any, *, model: str, provider: str = "anthropic") -> LLMResponse:
    """Map a ``Message`` (SDK object or dict) to an :class:`LLMResponse`.

    Raises:
        MalformedContentError: when a known block type is malformed.
        KeyError: when required fields are missing.
    """
    data = dump(raw)
    blocks = []
    for i, block in enumerate(data.get("content") or []):
        if block.get("type") not in _KNOWN_BLOCKS:
            logger.debug("%s: dropping response block %d of type %r", provider, i, block.get("type"))
            continue
        blocks.append(parse_block(block, block_index=i))
    usage = data.get("usage") or {}
    return LLMResponse(
        content=blocks,
        stop_reason=data.get("stop_reason") or "end_turn",
        stop_sequence=data.get("stop_sequence"),
        usage=Usage(
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_read_input_tokens=int(usage.get("cache_read_input_tokens") or 0),
            cache_creation_input_tokens=int(usage.get("cache_creation_input_tokens") or 0),
        ),
        model=data.get("model") or model,
        id=data.get("id"),
        provider=provider,
    )


class AnthropicProvider(SDKProvider):
    """A :class:`~context_journal.llm.Provider` backed by ``anthropic.AsyncAnthropic``.

    The SDK client is built with ``max_retries=0`` (a client passed in is copied with
    ``with_options(max_retries=0)``): retries happen once, in :mod:`context_journal.llm.retry`.

    Args:
        model: Default model.
        api_key: API key; None reads ``ANTHROPIC_API_KEY`` (the SDK's rule).
        client: A ready ``AsyncAnthropic`` to use instead of building one.
        base_url: API base URL (a proxy or gateway), or None for the SDK default.
        max_retries: Retries after the first attempt (ignored when ``retry`` is given).
        retry: The full retry policy.
        timeout: Per-attempt timeout in seconds, or None for the SDK default (600 s).
        http_client: An ``httpx`` ``AsyncClient`` for the SDK (proxies, tests with ``MockTransport``).
        cache_ttl: ``"5m"`` or ``"1h"`` for the cache markers' ``ttl``, or None for the API default.
        extra_params: Extra ``messages.create`` arguments for every call (e.g. ``{"thinking": {...}}``).
        sleep: Awaits seconds between attempts (tests inject a fake).
        clock: Current Unix time in seconds (for ``retry-after`` dates).
        rng: Jitter source.

    Raises:
        MissingExtraError: when the ``anthropic`` package is not installed.
    """

    name = "anthropic"

    def __init__(
        self,
        model: str = DEFAULT_ANTHROPIC_MODEL,
        *,
        api_key: str | None = None,
        client: Any = None,
        base_url: str | None = None,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        timeout: float | None = None,
        http_client: Any = None,
        cache_ttl: str | None = None,
        extra_params: Mapping[str, Any] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        sdk = import_sdk("anthropic", "anthropic")
        client = sdk_client(
            sdk.AsyncAnthropic, client, api_key=api_key, base_url=base_url, timeout=timeout, http_client=http_client
        )
        self.cache_ttl = cache_ttl
        super().__init__(
            model=model,
            sdk=sdk,
            client=client,
            retry=retry_policy(retry, max_retries),
            extra_params=extra_params,
            sleep=sleep,
            clock=clock,
            rng=rng,
        )

    def _encode(self, request: LLMRequest, model: str) -> dict[str, Any]:
        return encode_anthropic_request(request, model=model, cache_ttl=self.cache_ttl, provider=self.name)

    async def _send(self, params: dict[str, Any]) -> Any:
        create = self.client.messages.create
        return await create(**call_params(create, params))

    def _decode(self, raw: Any, model: str) -> LLMResponse:
        return decode_anthropic_message(raw, model=model, provider=self.name)
