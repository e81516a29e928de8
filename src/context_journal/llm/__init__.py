"""The LLM layer: a provider protocol, SDK adapters, the offline summarizer.

* :class:`Provider` — ``async complete(LLMRequest) -> LLMResponse`` with ``name`` and ``model``;
  :func:`run_sync` / :func:`complete_sync` call it from synchronous code.
* :class:`AnthropicProvider` and :class:`OpenAIProvider` — the official SDKs (extras ``anthropic``
  and ``openai``, imported only when a provider is built), with one retry loop of ours
  (:class:`RetryPolicy`) and prompt-cache markers where the provider has them.
* :class:`OfflineSummarizer` — the embedded default: an extractive, deterministic digest.
* :func:`provider_by_name` — one of these by name (``"offline"``, ``"anthropic"``, ``"openai"``), as the
  command line and the MCP server pick them.
* The scripted fake for tests is :class:`context_journal.testing.ScriptedProvider`.

Failures are :class:`ProviderError` subclasses (see :mod:`context_journal.llm.errors`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _lazy

if TYPE_CHECKING:  # for type checkers; at run time each name is imported on first use (_lazy.py)
    from .anthropic import AnthropicProvider
    from .by_name import PROVIDER_NAMES, provider_by_name
    from .errors import (
        ProviderAuthError,
        ProviderError,
        ProviderRefusalError,
        ProviderRequestError,
        ProviderResponseError,
        ProviderTransientError,
    )
    from .offline import Digest, DigestLine, OfflineSummarizer, summarize_request
    from .openai import OpenAIProvider
    from .provider import Provider, complete_sync, run_sync
    from .retry import RetryPolicy
    from .token_count import AnthropicTokenCounter
    from .types import LLMMessage, LLMRequest, LLMResponse, ToolDefinition, Usage
else:
    __getattr__, __dir__ = _lazy.exports(
        __name__,
        globals(),
        {
            "AnthropicProvider": "anthropic",
            "AnthropicTokenCounter": "token_count",
            "Digest": "offline",
            "DigestLine": "offline",
            "LLMMessage": "types",
            "LLMRequest": "types",
            "LLMResponse": "types",
            "OfflineSummarizer": "offline",
            "OpenAIProvider": "openai",
            "PROVIDER_NAMES": "by_name",
            "Provider": "provider",
            "ProviderAuthError": "errors",
            "ProviderError": "errors",
            "ProviderRefusalError": "errors",
            "ProviderRequestError": "errors",
            "ProviderResponseError": "errors",
            "ProviderTransientError": "errors",
            "RetryPolicy": "retry",
            "ToolDefinition": "types",
            "Usage": "types",
            "complete_sync": "provider",
            "provider_by_name": "by_name",
            "run_sync": "provider",
            "summarize_request": "offline",
        },
    )

__all__ = [
    "PROVIDER_NAMES",
    "AnthropicProvider",
    "AnthropicTokenCounter",
    "Digest",
    "DigestLine",
    "LLMMessage",
    "LLMRequest",
    "LLMResponse",
    "OfflineSummarizer",
    "OpenAIProvider",
    "Provider",
    "ProviderAuthError",
    "ProviderError",
    "ProviderRefusalError",
    "ProviderRequestError",
    "ProviderResponseError",
    "ProviderTransientError",
    "RetryPolicy",
    "ToolDefinition",
    "Usage",
    "complete_sync",
    "provider_by_name",
    "run_sync",
    "summarize_request",
]
