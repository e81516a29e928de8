"""Exact input-token counts from Anthropic's token-counting endpoint, for calibration (extra ``anthropic``).

The library prices content with a local estimate (:class:`~context_journal.tokens.EstimatingCounter`),
which a namespace calibrates from the input tokens a provider reports
(:meth:`~context_journal.ContextManager.report_usage`). :class:`AnthropicTokenCounter` gets that figure
without sending the request to a model: ``POST /v1/messages/count_tokens`` (the SDK's
``messages.count_tokens``) answers how many input tokens a Messages request would take — system prompt,
messages, tools, images and documents included — for a given model. Anthropic documents the endpoint as
free of charge, rate-limited on its own, and its count as an estimate that may differ from the billed
count by a small amount (docs.anthropic.com, "Token counting").

It is online only: it is never called by a compile (which never leaves the process) nor by the index
(which prices every block locally); a host calls it now and then, for instance on every hundredth
compile, to keep the calibration honest::

    counter = AnthropicTokenCounter(model="claude-sonnet-4-5")
    result = cm.compile(max_tokens=8000)
    factor = counter.calibrate(cm, result)   # counts result.to_anthropic(), reports it

Failures raise the :class:`~context_journal.llm.errors.ProviderError` family, after the same retries as
a summary call (:mod:`~context_journal.llm.retry`).
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..tokens import MAX_TOKEN_COUNT
from ._sdk import call_params, import_sdk, retry_policy, sdk_client
from .anthropic import DEFAULT_ANTHROPIC_MODEL
from .errors import ProviderResponseError
from .provider import run_sync
from .retry import RetryPolicy, call_with_retries, classify_sdk_error

if TYPE_CHECKING:
    from ..aio import AsyncContextManager
    from ..compile import CompileResult
    from ..manager import ContextManager

__all__ = ["AnthropicTokenCounter"]

_REQUEST_KEYS = ("system", "messages", "tools", "tool_choice", "thinking")
"""The fields of a Messages request that take tokens (what ``count_tokens`` accepts and counts)."""


class AnthropicTokenCounter:
    """Input tokens of Anthropic Messages requests, counted by the provider (``messages.count_tokens``).

    Args:
        model: The model whose tokenizer counts (counts differ between model families).
        api_key: API key; None reads ``ANTHROPIC_API_KEY`` (the SDK's rule).
        client: A ready ``anthropic.AsyncAnthropic`` to use instead of building one.
        base_url: API base URL (a proxy or gateway), or None for the SDK default.
        http_client: An ``AsyncClient`` of the HTTP library the installed SDK is built on (``httpx2`` for
            the 2026 SDKs, ``httpx`` before; proxies, tests with ``MockTransport``).
        timeout: Per-attempt timeout in seconds, or None for the SDK default.
        max_retries: Retries after the first attempt of a transient failure (ignored when ``retry`` is given).
        retry: The full retry policy.
        sleep: Awaits seconds between attempts (tests inject a fake).
        rng: Jitter source.

    Raises:
        MissingExtraError: the ``anthropic`` package is not installed.
        ValueError: ``model`` is empty.
    """

    name = "anthropic"

    def __init__(
        self,
        model: str = DEFAULT_ANTHROPIC_MODEL,
        *,
        api_key: str | None = None,
        client: Any = None,
        base_url: str | None = None,
        http_client: Any = None,
        timeout: float | None = None,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"model must name a model, got {model!r}")
        self._sdk = import_sdk("anthropic", "anthropic")
        client = sdk_client(
            self._sdk.AsyncAnthropic,
            client,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            http_client=http_client,
        )
        self.model = model
        self.client = client
        self.retry = retry_policy(retry, max_retries)
        self._sleep = sleep
        self._rng = rng

    async def acount(self, request: Mapping[str, Any], *, tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        """Input tokens of a Messages request.

        Args:
            request: ``{"messages": [...], "system"?: ..., "tools"?: [...], ...}`` — what
                :meth:`CompileResult.to_anthropic` returns, or a request of your own (fields other than
                system, messages, tools, tool_choice and thinking are ignored: they take no tokens). Its
                ``model``, when it names one, is the model counted for; else ``self.model``.
            tools: Tool definitions the request will carry (Anthropic form), when ``request`` has none.

        Returns:
            The provider's ``input_tokens`` (> 0, at most :data:`~context_journal.tokens.MAX_TOKEN_COUNT`).

        Raises:
            TypeError: ``request`` is not a mapping.
            ValueError: ``request`` has no messages.
            ProviderError: the call failed (a subclass says how; transient failures were retried).
        """
        if not isinstance(request, Mapping):
            raise TypeError(
                f"a token count takes a Messages request (a mapping with 'messages'), got {type(request).__name__}"
            )
        messages = request.get("messages")
        if messages is not None and not isinstance(messages, list | tuple):
            raise TypeError(f"a request's messages are a list of messages, got {type(messages).__name__}")
        if not messages:
            raise ValueError("a token count needs a request with at least one message")
        params: dict[str, Any] = {k: request[k] for k in _REQUEST_KEYS if request.get(k)}
        if tools and "tools" not in params:
            params["tools"] = list(tools)
        model = request.get("model")
        params["model"] = model if isinstance(model, str) and model else self.model
        method = self.client.messages.count_tokens

        async def attempt() -> Any:
            return await method(**call_params(method, params))

        kwargs: dict[str, Any] = {"rng": self._rng}
        if self._sleep is not None:
            kwargs["sleep"] = self._sleep
        answer = await call_with_retries(
            attempt,
            classify=lambda exc: classify_sdk_error(exc, self._sdk),
            policy=self.retry,
            provider=self.name,
            model=self.model,
            **kwargs,
        )
        tokens = getattr(answer, "input_tokens", None)
        if isinstance(tokens, bool) or not isinstance(tokens, int) or not 0 < tokens <= MAX_TOKEN_COUNT:
            raise ProviderResponseError(
                f"the token count answered {tokens!r}, not a positive input_tokens (at most {MAX_TOKEN_COUNT:,})",
                provider=self.name,
                model=params["model"],
            )
        return tokens

    def count(self, request: Mapping[str, Any], *, tools: Sequence[Mapping[str, Any]] | None = None) -> int:
        """:meth:`acount` from synchronous code (see :func:`~context_journal.llm.run_sync`)."""
        return run_sync(self.acount(request, tools=tools))

    async def acalibrate(self, manager: ContextManager | AsyncContextManager, result: CompileResult) -> float:
        """Count ``result`` as Anthropic would take it (``result.to_anthropic()``, no tools) and report the
        count to ``manager`` (:meth:`ContextManager.report_usage`, awaited on an async manager), which moves
        the namespace's calibration.

        Returns:
            The namespace's new calibration factor.

        Raises:
            ProviderError: the count failed (the calibration is left as it was).
        """
        tokens = await self.acount(result.to_anthropic())
        factor = manager.report_usage(result, tokens)
        return await factor if inspect.isawaitable(factor) else factor

    def calibrate(self, manager: ContextManager, result: CompileResult) -> float:
        """:meth:`acalibrate` from synchronous code."""
        return run_sync(self.acalibrate(manager, result))
