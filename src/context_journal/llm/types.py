"""Provider-neutral request and response models of the LLM layer.

Content is made of the library's own blocks (:mod:`context_journal.content`, Anthropic shape).
At this layer a message has a ``role`` (``"user"`` or ``"assistant"``, what every provider
understands) and an optional ``name``; mapping free participant names to roles is the caller's
job (exporters and strategies).

Prompt-cache markers are flags: ``cache_tools``, ``cache_system`` and a per-message ``cache``
flag each ask for a cache breakpoint at the end of that part. The Anthropic adapter turns them
into ``cache_control`` markers (at most 4 per request, the API's limit); OpenAI caches prompt
prefixes automatically and the flags are ignored there.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..content import Block, ContentBlock, TextBlock, block_to_dict
from .errors import ProviderRefusalError, ProviderResponseError

__all__ = [
    "KNOWN_STOP_REASONS",
    "LLMMessage",
    "LLMRequest",
    "LLMResponse",
    "ToolDefinition",
    "Usage",
]

KNOWN_STOP_REASONS = frozenset(
    {
        "end_turn",
        "max_tokens",
        "stop_sequence",
        "tool_use",
        "refusal",
        "pause_turn",
        "model_context_window_exceeded",
    }
)
"""Stop reasons the adapters produce (Anthropic's list, docs.anthropic.com "Handling stop reasons");
OpenAI finish reasons are mapped onto it. Other strings pass through unchanged."""


def _as_blocks(value: Any) -> Any:
    """Let a plain string stand for one text block."""
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    return value


class LLMMessage(BaseModel):
    """One turn of a request.

    Attributes:
        role: ``"user"`` or ``"assistant"``.
        content: The blocks (a string is accepted as one text block).
        name: The speaker's name where the provider supports it (OpenAI ``name``), else None.
        cache: Ask for a prompt-cache breakpoint after this message (Anthropic ``cache_control``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["user", "assistant"]
    content: list[ContentBlock] = Field(min_length=1)
    name: str | None = None
    cache: bool = False

    @field_validator("content", mode="before")
    @classmethod
    def _coerce_content(cls, value: Any) -> Any:
        return _as_blocks(value)


class ToolDefinition(BaseModel):
    """A tool the model may call.

    Attributes:
        name: The tool's name (what ``tool_use.name`` will be).
        description: What the tool does, for the model.
        input_schema: JSON Schema of the tool's input object.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class LLMRequest(BaseModel):
    """A provider-neutral model call.

    Attributes:
        messages: The turns, oldest first (at least one).
        system: The system prompt as a string or a list of text blocks; empty for none.
        tools: Tool definitions sent with the request (required by the APIs whenever the messages
            hold ``tool_use`` / ``tool_result`` blocks).
        tool_choice: ``"auto"``, ``"any"`` (must call a tool) or ``"none"`` (must not), or None for
            the provider's default. Summary requests send ``"none"``.
        model: The model to use, or None for the provider's default.
        max_tokens: Upper bound of the response, in tokens.
        temperature: Sampling temperature, or None for the provider's default.
        stop_sequences: Strings that end the response.
        metadata: Free data for this library's layers; never sent to a provider. Keys read by the
            offline summarizer: ``target_tokens`` (int), ``summarize_range`` ([start, end) message
            indices), ``instruction_last`` (bool).
        cache_system: Ask for a prompt-cache breakpoint after the system prompt.
        cache_tools: Ask for a prompt-cache breakpoint after the tool definitions.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: list[LLMMessage] = Field(min_length=1)
    system: str | list[TextBlock] = ""
    tools: list[ToolDefinition] = Field(default_factory=list)
    tool_choice: Literal["auto", "any", "none"] | None = None
    model: str | None = None
    max_tokens: int = Field(default=1024, ge=1)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    stop_sequences: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    cache_system: bool = False
    cache_tools: bool = False

    @property
    def system_text(self) -> str:
        """The system prompt as one string (blocks joined by a blank line)."""
        if isinstance(self.system, str):
            return self.system
        return "\n\n".join(b.text for b in self.system)

    def to_dict(self) -> dict[str, Any]:
        """The request as JSON-ready data (blocks as :func:`~context_journal.content.block_to_dict`)."""
        return {
            "system": self.system if isinstance(self.system, str) else [block_to_dict(b) for b in self.system],
            "messages": [
                {
                    "role": m.role,
                    "content": [block_to_dict(b) for b in m.content],
                    **({"name": m.name} if m.name is not None else {}),
                    **({"cache": True} if m.cache else {}),
                }
                for m in self.messages
            ],
            "tools": [t.model_dump() for t in self.tools],
            "tool_choice": self.tool_choice,
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "stop_sequences": list(self.stop_sequences),
            "metadata": self.metadata,
            "cache_system": self.cache_system,
            "cache_tools": self.cache_tools,
        }

    def fingerprint(self) -> str:
        """Hex sha256 of the request's canonical JSON (sorted keys, compact): equal requests, equal
        fingerprints. Summaries record it as their request hash."""
        data = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
        return hashlib.sha256(data.encode()).hexdigest()


class Usage(BaseModel):
    """Token usage reported for one call (all in tokens).

    Attributes:
        input_tokens: Input tokens billed at the normal rate (excludes cache reads and writes, as
            Anthropic reports it; the OpenAI adapter subtracts ``cached_tokens`` to match).
        output_tokens: Tokens generated.
        cache_read_input_tokens: Input tokens read from the prompt cache.
        cache_creation_input_tokens: Input tokens written to the prompt cache.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    @property
    def total_input_tokens(self) -> int:
        """Every input token of the call, cached or not."""
        return self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens


class LLMResponse(BaseModel):
    """What a provider answered.

    Attributes:
        content: The blocks of the answer (may be empty).
        stop_reason: Why generation stopped; one of :data:`KNOWN_STOP_REASONS` for the built-in
            adapters (``"end_turn"``, ``"max_tokens"``, ``"stop_sequence"``, ``"tool_use"``,
            ``"refusal"``...).
        usage: Token usage.
        model: The model that answered.
        id: The provider's response id (``msg_...``, ``chatcmpl-...``), or None.
        stop_sequence: The stop sequence that ended the answer, when ``stop_reason`` says so.
        provider: The name of the provider that answered.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: list[ContentBlock] = Field(default_factory=list)
    stop_reason: str = "end_turn"
    usage: Usage = Field(default_factory=Usage)
    model: str = ""
    id: str | None = None
    stop_sequence: str | None = None
    provider: str = ""

    @field_validator("content", mode="before")
    @classmethod
    def _coerce_content(cls, value: Any) -> Any:
        return _as_blocks(value)

    @property
    def text(self) -> str:
        """The text blocks concatenated (thinking and tool calls excluded)."""
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_uses(self) -> list[Block]:
        """The ``tool_use`` blocks, in order."""
        return [b for b in self.content if b.type == "tool_use"]

    def require_text(self, *, allowed_stops: tuple[str, ...] = ("end_turn", "stop_sequence")) -> str:
        """The answer's text, checked to be usable.

        Args:
            allowed_stops: Stop reasons accepted as a complete answer.

        Returns:
            :attr:`text`, stripped of surrounding whitespace.

        Raises:
            ProviderRefusalError: when ``stop_reason`` is ``"refusal"``.
            ProviderResponseError: when the stop reason is not in ``allowed_stops`` (e.g.
                ``"max_tokens"``: the answer was cut off) or the text is empty.
        """
        if self.stop_reason == "refusal":
            raise ProviderRefusalError(
                "the model refused to answer", provider=self.provider, model=self.model, stop_reason=self.stop_reason
            )
        if self.stop_reason not in allowed_stops:
            raise ProviderResponseError(
                f"the answer stopped with {self.stop_reason!r}, not one of {list(allowed_stops)}",
                provider=self.provider,
                model=self.model,
                stop_reason=self.stop_reason,
            )
        text = self.text.strip()
        if not text:
            raise ProviderResponseError(
                "the answer has no text", provider=self.provider, model=self.model, stop_reason=self.stop_reason
            )
        return text
