"""The summarizers by name: the one factory the command line and the MCP server use."""

from __future__ import annotations

import os
from typing import Any

from .errors import ProviderAuthError
from .provider import Provider

__all__ = ["API_KEY_VARIABLES", "PROVIDER_NAMES", "provider_by_name"]

PROVIDER_NAMES = ("offline", "anthropic", "openai")
"""The names :func:`provider_by_name` knows: the embedded offline summarizer, and the official SDKs."""

API_KEY_VARIABLES = {"anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"), "openai": ("OPENAI_API_KEY",)}
"""The environment variables each SDK reads its credentials from (either one will do)."""


def provider_by_name(name: str, model: str | None = None, base_url: str | None = None) -> Provider:
    """A new summarizer called ``name`` (one of :data:`PROVIDER_NAMES`): ``offline`` (no network, no key)
    or an SDK provider with ``model`` (None: the provider's default) and ``base_url`` (None: the provider's
    API; an OpenAI-compatible server's URL for ``openai``).

    Raises:
        ValueError: an unknown name (the message lists the names).
        ProviderAuthError: an SDK provider and none of its :data:`API_KEY_VARIABLES` set (checked before
            the SDK is imported, so the error is the same with or without the extra installed).
        MissingExtraError: the provider's SDK is not installed.
    """
    if name not in PROVIDER_NAMES:
        raise ValueError(f"unknown provider {name!r}; choose one of {', '.join(PROVIDER_NAMES)}")
    if name == "offline":
        from .offline import OfflineSummarizer

        return OfflineSummarizer(model) if model else OfflineSummarizer()
    variables = API_KEY_VARIABLES[name]
    if not any(os.environ.get(v) for v in variables):
        hint = " (a local OpenAI-compatible server accepts any value)" if base_url and name == "openai" else ""
        raise ProviderAuthError(
            f"the {name} provider needs an API key: set {' or '.join(variables)}{hint}, "
            "or use the offline provider (no network, no key)",
            provider=name,
            model=model,
        )
    kwargs: dict[str, Any] = {"base_url": base_url}
    if model:
        kwargs["model"] = model
    if name == "anthropic":
        from .anthropic import AnthropicProvider

        return AnthropicProvider(**kwargs)
    from .openai import OpenAIProvider

    return OpenAIProvider(**kwargs)
