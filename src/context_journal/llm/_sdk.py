"""What the SDK adapters share: lazy import, client set-up, and the retried call."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from types import ModuleType
from typing import Any

from ..errors import MalformedContentError, MissingExtraError
from .errors import ProviderError, ProviderRequestError, ProviderResponseError
from .retry import RetryPolicy, call_with_retries, classify_sdk_error
from .types import LLMRequest, LLMResponse

__all__ = ["SDKProvider", "import_sdk"]


def import_sdk(package: str, extra: str) -> ModuleType:
    """Import an optional SDK.

    Raises:
        MissingExtraError: when ``package`` is not installed, naming the extra to install.
    """
    try:
        return importlib.import_module(package)
    except ImportError as exc:
        raise MissingExtraError(package, extra) from exc


def blob_error(provider: str, where: str) -> ProviderRequestError:
    """The error for media still stored as a blob reference."""
    return ProviderRequestError(
        f"{where} has a 'blob' media source; resolve stored media with content.resolve_media before sending",
        provider=provider,
    )


class SDKProvider:
    """Base of the SDK adapters: one retried SDK call per :meth:`complete`.

    Subclasses set ``name`` and implement :meth:`_encode`, :meth:`_send` and :meth:`_decode`.

    Args:
        model: Default model.
        sdk: The imported SDK module.
        client: The SDK's async client (its own retries switched off).
        retry: Retry policy of our loop.
        extra_params: Extra keyword arguments merged into every SDK call (e.g. ``{"top_p": 0.9}``);
            they override the encoded request's.
        sleep: Awaits seconds between attempts (default :func:`asyncio.sleep`).
        clock: Current Unix time in seconds, for ``retry-after`` dates (default :func:`time.time`).
        rng: Jitter source (default a fresh :class:`random.Random`).
    """

    name = "sdk"

    def __init__(
        self,
        *,
        model: str,
        sdk: ModuleType,
        client: Any,
        retry: RetryPolicy,
        extra_params: Mapping[str, Any] | None,
        sleep: Callable[[float], Awaitable[None]] | None,
        clock: Callable[[], float] | None,
        rng: random.Random | None,
    ) -> None:
        self.model = model
        self.retry = retry
        self.extra_params: dict[str, Any] = dict(extra_params or {})
        self._sdk = sdk
        self.client = client
        self._sleep = sleep or asyncio.sleep
        self._clock = clock or time.time
        self._rng = rng or random.Random()

    def _encode(self, request: LLMRequest, model: str) -> dict[str, Any]:
        raise NotImplementedError

    async def _send(self, params: dict[str, Any]) -> Any:
        raise NotImplementedError

    def _decode(self, raw: Any, model: str) -> LLMResponse:
        raise NotImplementedError

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Send ``request`` through the SDK, retrying transient failures.

        Args:
            request: The call; ``request.model`` overrides the default model.

        Returns:
            The mapped response.

        Raises:
            ProviderTransientError: transient failures outlasted the retry policy.
            ProviderAuthError: 401/403 or missing credentials.
            ProviderRequestError: the provider rejected the request, or it cannot be encoded.
            ProviderResponseError: the response could not be mapped.
        """
        model = request.model or self.model
        params = {**self._encode(request, model), **self.extra_params}

        async def attempt() -> Any:
            return await self._send(params)

        raw = await call_with_retries(
            attempt,
            classify=lambda exc: classify_sdk_error(exc, self._sdk, now=self._clock()),
            policy=self.retry,
            provider=self.name,
            model=model,
            sleep=self._sleep,
            rng=self._rng,
        )
        try:
            return self._decode(raw, model)
        except ProviderError:
            raise
        except (MalformedContentError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ProviderResponseError(f"could not read the response: {exc}", provider=self.name, model=model) from exc


def sdk_client(factory: Callable[..., Any], client: Any, **options: Any) -> Any:
    """The SDK client an adapter calls through, with the SDK's own retries off (only our retry loop
    retries): the host's ``client`` (``with_options(max_retries=0)`` when it has that method), or a new one
    made by ``factory`` (``AsyncAnthropic``, ``AsyncOpenAI``) from the ``options`` that are not None
    (``api_key``, ``base_url``, ``timeout``, ``http_client``).

    Raises:
        Whatever ``factory`` raises (the OpenAI SDK refuses a missing key at construction).
    """
    if client is not None:
        with_options = getattr(client, "with_options", None)
        return with_options(max_retries=0) if callable(with_options) else client
    return factory(max_retries=0, **{k: v for k, v in options.items() if v is not None})


def call_params(method: Any, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` for an SDK ``create`` method: arguments its signature does not name go in
    ``extra_body``, so a field an SDK version dropped from its signature (the 2026 ``anthropic``
    SDK has no ``temperature``) is still sent as JSON."""
    try:
        sig = inspect.signature(method)
    except (TypeError, ValueError):
        return params
    names = sig.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in names.values()):
        return params
    known = {k: v for k, v in params.items() if k in names}
    extra = {k: v for k, v in params.items() if k not in names}
    if extra:
        known["extra_body"] = {**extra, **known.get("extra_body", {})}
    return known


def dump(obj: Any) -> dict[str, Any]:
    """An SDK response object (pydantic) or a dict as a plain JSON-ready dict without None values."""
    if isinstance(obj, dict):
        return {k: v for k, v in obj.items() if v is not None}
    dumped = obj.model_dump(mode="json", exclude_none=True)
    if not isinstance(dumped, dict):
        raise TypeError(f"expected an object, got {type(dumped).__name__}")
    return dumped


def retry_policy(retry: RetryPolicy | None, max_retries: int) -> RetryPolicy:
    """``retry`` when given, else the default policy with ``max_retries + 1`` attempts."""
    return retry if retry is not None else RetryPolicy(max_attempts=max(0, max_retries) + 1)
