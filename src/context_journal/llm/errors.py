"""Errors of the LLM layer: the :class:`ProviderError` family.

A failed model call surfaces as one of these, never as an SDK or ``httpx`` exception::

    ContextJournalError
    └── ProviderError                  a model call failed (provider, model, status_code, attempts)
        ├── ProviderTransientError     429 / 408 / 409 / 5xx / 529, timeouts and connection errors that
        │                              lasted through every attempt; retry later
        ├── ProviderRequestError       the provider rejected the request (other 4xx) or it cannot be
        │   │                          encoded for this provider; fix the request
        │   └── ProviderAuthError      401 / 403 or no credentials; check the API key and its permissions
        └── ProviderResponseError      the response cannot be used (malformed, empty, unexpected stop)
            └── ProviderRefusalError   the model declined (stop_reason ``"refusal"``, OpenAI
                                       ``content_filter``)

Adapters raise the first three from :meth:`Provider.complete`; a refusal or an empty answer is a
normal :class:`~context_journal.llm.types.LLMResponse` there, and becomes a
:class:`ProviderResponseError` / :class:`ProviderRefusalError` only when the caller asks for usable
text with :meth:`~context_journal.llm.types.LLMResponse.require_text`.
"""

from __future__ import annotations

from ..errors import ContextJournalError

__all__ = [
    "ProviderAuthError",
    "ProviderError",
    "ProviderRefusalError",
    "ProviderRequestError",
    "ProviderResponseError",
    "ProviderTransientError",
]


class ProviderError(ContextJournalError):
    """A model call failed.

    Attributes:
        provider: The provider's name (``"anthropic"``, ``"openai"``, ``"offline"``...).
        model: The model asked for, or None when unknown.
        status_code: The HTTP status of the last attempt, or None (connection error, local check).
        attempts: How many HTTP attempts were made (0 when the request never left the process).
        reason: What went wrong, in words (the message without the provider prefix).
    """

    def __init__(
        self,
        reason: str,
        *,
        provider: str = "",
        model: str | None = None,
        status_code: int | None = None,
        attempts: int = 0,
    ) -> None:
        self.reason = reason
        self.provider = provider
        self.model = model
        self.status_code = status_code
        self.attempts = attempts
        super().__init__(self._render())

    def _render(self) -> str:
        who = self.provider or "provider"
        if self.model:
            who += f" ({self.model})"
        parts = [f"{who}: {self.reason}"]
        if self.status_code is not None:
            parts.append(f"HTTP {self.status_code}")
        if self.attempts > 1:
            parts.append(f"after {self.attempts} attempts")
        return "; ".join(parts)


class ProviderTransientError(ProviderError):
    """A transient failure (rate limit, overload, server error, timeout, dropped connection) that
    lasted through every attempt the retry policy allowed; try again later or raise
    ``RetryPolicy.max_attempts``.

    Attributes:
        retry_after: Seconds the provider asked to wait (``retry-after`` header), or None.
    """

    def __init__(
        self,
        reason: str,
        *,
        provider: str = "",
        model: str | None = None,
        status_code: int | None = None,
        attempts: int = 0,
        retry_after: float | None = None,
    ) -> None:
        self.retry_after = retry_after
        super().__init__(reason, provider=provider, model=model, status_code=status_code, attempts=attempts)


class ProviderRequestError(ProviderError):
    """The provider rejected the request (400, 404, 413, 422...) or the adapter cannot encode it
    (e.g. an unresolved blob source); retrying the same request will not help, fix it instead."""


class ProviderAuthError(ProviderRequestError):
    """The credentials are missing, wrong or lack permission (401, 403); set the API key
    (``ANTHROPIC_API_KEY`` / ``OPENAI_API_KEY`` or ``api_key=``)."""


class ProviderResponseError(ProviderError):
    """The response cannot be used: malformed, empty, or stopped for a reason the caller did not
    accept (e.g. ``max_tokens``); raise ``max_tokens`` or retry.

    Attributes:
        stop_reason: The response's stop reason, or None when there was no usable response.
    """

    def __init__(
        self,
        reason: str,
        *,
        provider: str = "",
        model: str | None = None,
        status_code: int | None = None,
        attempts: int = 0,
        stop_reason: str | None = None,
    ) -> None:
        self.stop_reason = stop_reason
        super().__init__(reason, provider=provider, model=model, status_code=status_code, attempts=attempts)


class ProviderRefusalError(ProviderResponseError):
    """The model declined to answer (stop reason ``"refusal"``); rephrase the request or send the
    content to another model."""
