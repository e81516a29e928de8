"""Adapter for the official ``openai`` SDK (extra ``openai``): ``AsyncOpenAI().chat.completions.create``.

Works with OpenAI and with OpenAI-compatible servers (vLLM, llama.cpp, Ollama, LiteLLM...) through
``base_url``. Mapping (platform.openai.com, "Chat Completions API reference"):

* the system prompt becomes one ``{"role": "system"}`` message (blocks joined by a blank line);
* the messages go through the one Chat Completions wire encoder, the exporter's
  (:mod:`context_journal.wire.chat_completions`, which gives the mapping): ``tool_result`` blocks become
  ``tool`` messages placed first, an error result's text prefixed ``[error]`` (the API has no
  ``is_error``), images inside a tool result and the message's other blocks follow as one user message;
  one text block is sent as a string, several as text parts; ``tool_use`` blocks become ``tool_calls``;
  thinking blocks are dropped and an assistant message left with nothing is skipped; a URL document
  and an image given by Files API id become a line of text naming them; a ``blob`` media source is an
  error (resolve stored media first);
* ``name`` is sent as the message's ``name``; tools become ``{"type": "function", "function":
  {name, description, parameters}}``; ``tool_choice`` ``"any"`` becomes ``"required"``;
* cache flags are ignored (OpenAI caches prompt prefixes automatically);
* back: ``content`` → a text block, ``refusal`` → a text block with stop reason ``"refusal"``,
  ``tool_calls`` → ``tool_use`` blocks, ``reasoning_content`` (some compatible servers) → an
  unsigned thinking block; finish reasons ``stop``→``end_turn``, ``length``→``max_tokens``,
  ``tool_calls``/``function_call``→``tool_use``, ``content_filter``→``refusal``; usage
  ``prompt_tokens - cached_tokens`` → ``input_tokens``, ``cached_tokens`` →
  ``cache_read_input_tokens``, ``completion_tokens`` → ``output_tokens``.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

from ..content import TextBlock, ThinkingBlock, ToolUseBlock, block_to_dict
from ..wire.chat_completions import encode_chat_turn
from ..wire.media import has_blob
from ._sdk import SDKProvider, blob_error, call_params, dump, import_sdk, retry_policy, sdk_client
from .errors import ProviderResponseError
from .retry import RetryPolicy
from .types import LLMRequest, LLMResponse, Usage

__all__ = [
    "DEFAULT_OPENAI_MODEL",
    "FINISH_REASONS",
    "OpenAIProvider",
    "decode_openai_completion",
    "encode_openai_request",
]

DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
"""Model used when none is given."""

FINISH_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}
"""OpenAI ``finish_reason`` → our stop reason; others pass through unchanged."""

_TOOL_CHOICE = {"auto": "auto", "any": "required", "none": "none"}


def _turns(request: LLMRequest, provider: str) -> list[dict[str, Any]]:
    """The request's messages through the Chat Completions wire encoder (the exporter's)."""
    out: list[dict[str, Any]] = []
    for i, msg in enumerate(request.messages):
        blocks = [block_to_dict(b) for b in msg.content]
        for j, block in enumerate(blocks):
            if has_blob(block):
                raise blob_error(provider, f"message {i}, block {j}")
        out.extend(encode_chat_turn(msg.role, blocks, name=msg.name))
    return out


def encode_openai_request(
    request: LLMRequest,
    *,
    model: str,
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_completion_tokens",
    provider: str = "openai",
) -> dict[str, Any]:
    """The keyword arguments of ``chat.completions.create`` for ``request`` (module docstring).

    Args:
        request: The provider-neutral request.
        model: The model to name when the request names none.
        max_tokens_param: Which parameter carries ``max_tokens`` (OpenAI's reasoning models accept
            only ``max_completion_tokens``; many compatible servers only ``max_tokens``).
        provider: Provider name for errors.

    Returns:
        A JSON-ready dict.

    Raises:
        ProviderRequestError: a block still holds a blob reference (resolve stored media first).
    """
    messages: list[dict[str, Any]] = []
    if request.system_text:
        messages.append({"role": "system", "content": request.system_text})
    messages.extend(_turns(request, provider))
    params: dict[str, Any] = {"model": request.model or model, "messages": messages}
    params[max_tokens_param] = request.max_tokens
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
            }
            for t in request.tools
        ]
    if request.tool_choice is not None:
        params["tool_choice"] = _TOOL_CHOICE[request.tool_choice]
    if request.temperature is not None:
        params["temperature"] = request.temperature
    if request.stop_sequences:
        params["stop"] = list(request.stop_sequences)
    return params


def decode_openai_completion(raw: Any, *, model: str, provider: str = "openai") -> LLMResponse:
    """Map a ``ChatCompletion`` (SDK object or dict) to an :class:`LLMResponse`.

    Raises:
        ProviderResponseError: when there is no choice or a tool call's arguments are not a JSON object.
    """
    data = dump(raw)
    choices = data.get("choices") or []
    if not choices:
        raise ProviderResponseError("the completion has no choices", provider=provider, model=model)
    choice = choices[0]
    message = choice.get("message") or {}
    blocks: list[Any] = []
    reasoning = message.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        blocks.append(ThinkingBlock(thinking=reasoning))
    if message.get("content"):
        blocks.append(TextBlock(text=message["content"]))
    finish = choice.get("finish_reason") or "stop"
    stop_reason = FINISH_REASONS.get(finish, finish)
    if message.get("refusal"):
        blocks.append(TextBlock(text=message["refusal"]))
        stop_reason = "refusal"
    for call in message.get("tool_calls") or []:
        fn = call.get("function") or {}
        try:
            args = json.loads(fn.get("arguments") or "{}")
        except json.JSONDecodeError as exc:
            raise ProviderResponseError(
                f"tool call {call.get('id')!r} has arguments that are not JSON: {exc}", provider=provider, model=model
            ) from exc
        if not isinstance(args, dict):
            raise ProviderResponseError(
                f"tool call {call.get('id')!r} has arguments that are not a JSON object", provider=provider, model=model
            )
        blocks.append(ToolUseBlock(id=call["id"], name=fn["name"], input=args))
    usage = data.get("usage") or {}
    prompt = int(usage.get("prompt_tokens") or 0)
    cached = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
    return LLMResponse(
        content=blocks,
        stop_reason=stop_reason,
        usage=Usage(
            input_tokens=max(0, prompt - cached),
            output_tokens=int(usage.get("completion_tokens") or 0),
            cache_read_input_tokens=cached,
        ),
        model=data.get("model") or model,
        id=data.get("id"),
        provider=provider,
    )


class OpenAIProvider(SDKProvider):
    """A :class:`~context_journal.llm.Provider` backed by ``openai.AsyncOpenAI`` (Chat Completions).

    The SDK client is built with ``max_retries=0`` (a client passed in is copied with
    ``with_options(max_retries=0)``): retries happen once, in :mod:`context_journal.llm.retry`.

    Args:
        model: Default model.
        api_key: API key; None reads ``OPENAI_API_KEY``. With ``base_url`` set and no key anywhere,
            the placeholder ``"EMPTY"`` is sent (local servers ignore it; vLLM's docs use it).
        client: A ready ``AsyncOpenAI`` to use instead of building one.
        base_url: Base URL of an OpenAI-compatible server (e.g. ``http://localhost:8000/v1``).
        max_retries: Retries after the first attempt (ignored when ``retry`` is given).
        retry: The full retry policy.
        timeout: Per-attempt timeout in seconds, or None for the SDK default (600 s).
        http_client: An ``httpx`` ``AsyncClient`` for the SDK (proxies, tests with ``MockTransport``).
        max_tokens_param: ``"max_completion_tokens"`` or ``"max_tokens"``; None picks
            ``"max_tokens"`` when ``base_url`` is set (compatible servers), else ``"max_completion_tokens"``.
        extra_params: Extra ``chat.completions.create`` arguments for every call.
        sleep: Awaits seconds between attempts (tests inject a fake).
        clock: Current Unix time in seconds (for ``retry-after`` dates).
        rng: Jitter source.

    Raises:
        MissingExtraError: when the ``openai`` package is not installed.
    """

    name = "openai"

    def __init__(
        self,
        model: str = DEFAULT_OPENAI_MODEL,
        *,
        api_key: str | None = None,
        client: Any = None,
        base_url: str | None = None,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        timeout: float | None = None,
        http_client: Any = None,
        max_tokens_param: Literal["max_tokens", "max_completion_tokens"] | None = None,
        extra_params: Mapping[str, Any] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        sdk = import_sdk("openai", "openai")
        if client is None and api_key is None and base_url is not None and not os.environ.get("OPENAI_API_KEY"):
            api_key = "EMPTY"
        try:
            client = sdk_client(
                sdk.AsyncOpenAI, client, api_key=api_key, base_url=base_url, timeout=timeout, http_client=http_client
            )
        except sdk.OpenAIError as exc:
            from .errors import ProviderAuthError

            raise ProviderAuthError(str(exc), provider=self.name, model=model) from exc
        self.max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = max_tokens_param or (
            "max_tokens" if base_url is not None else "max_completion_tokens"
        )
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
        return encode_openai_request(request, model=model, max_tokens_param=self.max_tokens_param, provider=self.name)

    async def _send(self, params: dict[str, Any]) -> Any:
        create = self.client.chat.completions.create
        return await create(**call_params(create, params))

    def _decode(self, raw: Any, model: str) -> LLMResponse:
        return decode_openai_completion(raw, model=model, provider=self.name)
