"""Test helpers that ship with the library, so no test needs a network or an API key.

:class:`ScriptedProvider` is a fake :class:`~context_journal.llm.Provider`: tests enqueue what it
answers, in order, and read back every request it received::

    provider = ScriptedProvider()
    provider.enqueue("first summary", ScriptedProvider.refusal(), TimeoutError("boom"))
    provider.enqueue(lambda request: ScriptedProvider.text(request.messages[-1].content[0].text))
    ...
    assert len(provider.requests) == 4
    provider.assert_exhausted()

A call with nothing queued (and no ``default``) raises :class:`UnexpectedRequestError`, an
``AssertionError`` that names the request, so a test fails loudly on a model call it did not expect.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeAlias

from ..content import ToolUseBlock, block_to_dict
from ..errors import PicklableError
from ..llm.types import LLMRequest, LLMResponse, Usage
from ..tokens import EstimatingCounter, estimate_text_tokens

__all__ = ["Script", "ScriptedProvider", "UnexpectedRequestError"]

Script: TypeAlias = (
    LLMResponse
    | str
    | BaseException
    | type[BaseException]
    | Callable[[LLMRequest], "LLMResponse | str | Awaitable[LLMResponse | str]"]
)
"""What can be enqueued: a response, a text (one text block, ``end_turn``), an exception (instance
or class) to raise, or a callable (sync or async) from the request to a response or text."""

_COUNTER = EstimatingCounter()


class UnexpectedRequestError(PicklableError, AssertionError):
    """The scripted provider got a request with nothing queued for it.

    Attributes:
        request: The request.
        index: Its 0-based position among the requests the provider received.
    """

    def __init__(self, request: LLMRequest, index: int) -> None:
        self.request = request
        self.index = index
        last = request.messages[-1]
        preview = " ".join(getattr(b, "text", None) or f"[{b.type}]" for b in last.content).replace("\n", " ")
        if len(preview) > 120:
            preview = preview[:117] + "..."
        super().__init__(
            f"unexpected model call #{index} (model={request.model!r}, {len(request.messages)} messages, "
            f"last {last.role}: {preview!r}); enqueue a response for it or pass default="
        )


def _input_tokens(request: LLMRequest) -> int:
    return sum(_COUNTER.count_message(m.role, [block_to_dict(b) for b in m.content]) for m in request.messages)


class ScriptedProvider:
    """A fake provider that answers from a queue.

    Args:
        responses: Initial queue (same as :meth:`enqueue`).
        model: The model name it reports.
        default: What to answer when the queue is empty (any :data:`Script`); None raises
            :class:`UnexpectedRequestError` instead.
        latency: Seconds each call awaits before answering (``asyncio.sleep``), for benchmarks and
            concurrency tests.
        name: The provider name it reports.

    Attributes:
        requests: Every request received, in order (including those that raised).
        responses: Every response returned, in order.
    """

    def __init__(
        self,
        responses: Iterable[Script] = (),
        *,
        model: str = "scripted",
        default: Script | None = None,
        latency: float = 0.0,
        name: str = "scripted",
    ) -> None:
        self.name = name
        self.model = model
        self.default = default
        self.latency = latency
        self.requests: list[LLMRequest] = []
        self.responses: list[LLMResponse] = []
        self._queue: deque[Script] = deque()
        self.enqueue(*responses)

    # --- the queue ----------------------------------------------------------------------------

    def enqueue(self, *items: Script) -> ScriptedProvider:
        """Append answers to the queue; returns the provider, for chaining."""
        self._queue.extend(items)
        return self

    @property
    def pending(self) -> int:
        """How many queued answers are left."""
        return len(self._queue)

    @property
    def calls(self) -> int:
        """How many requests were received."""
        return len(self.requests)

    def assert_exhausted(self) -> None:
        """Check every queued answer was used.

        Raises:
            AssertionError: when answers are left in the queue.
        """
        if self._queue:
            raise AssertionError(f"{len(self._queue)} scripted answers were never requested")

    # --- the provider --------------------------------------------------------------------------

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Record ``request`` and answer with the next queued item.

        Raises:
            UnexpectedRequestError: when the queue is empty and there is no default.
            BaseException: an enqueued exception.
        """
        index = len(self.requests)
        self.requests.append(request)
        if self.latency > 0:
            await asyncio.sleep(self.latency)
        if self._queue:
            item: Any = self._queue.popleft()
        elif self.default is not None:
            item = self.default
        else:
            raise UnexpectedRequestError(request, index)
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, type) and issubclass(item, BaseException):
            raise item(f"scripted failure for call #{index}")
        if callable(item) and not isinstance(item, LLMResponse):
            result = item(request)
            if inspect.isawaitable(result):
                result = await result
            item = result
        response = self._finish(item, request)
        self.responses.append(response)
        return response

    def _finish(self, item: Any, request: LLMRequest) -> LLMResponse:
        if isinstance(item, str):
            item = self.text(item)
        if not isinstance(item, LLMResponse):
            raise TypeError(f"a scripted answer must be a response or a string, got {type(item).__name__}")
        usage = item.usage
        if usage == Usage():
            usage = Usage(input_tokens=_input_tokens(request), output_tokens=estimate_text_tokens(item.text))
        return item.model_copy(
            update={"usage": usage, "model": item.model or request.model or self.model, "provider": self.name}
        )

    # --- response constructors ----------------------------------------------------------------

    @staticmethod
    def text(text: str, *, stop_reason: str = "end_turn", usage: Usage | None = None) -> LLMResponse:
        """A response of one text block (usage estimated when the provider returns it, unless given)."""
        return LLMResponse(content=[{"type": "text", "text": text}], stop_reason=stop_reason, usage=usage or Usage())

    @staticmethod
    def refusal(text: str = "I can't help with that.") -> LLMResponse:
        """A refusal (stop reason ``"refusal"``)."""
        return ScriptedProvider.text(text, stop_reason="refusal")

    @staticmethod
    def empty(stop_reason: str = "end_turn") -> LLMResponse:
        """A response with no content at all."""
        return LLMResponse(content=[], stop_reason=stop_reason)

    @staticmethod
    def truncated(text: str = "This answer was cut") -> LLMResponse:
        """A response cut off by the token limit (stop reason ``"max_tokens"``)."""
        return ScriptedProvider.text(text, stop_reason="max_tokens")

    max_tokens = truncated

    @staticmethod
    def tool_use(name: str, input: dict[str, Any], *, id: str = "toolu_scripted_1", text: str = "") -> LLMResponse:
        """A tool call (stop reason ``"tool_use"``), optionally preceded by text."""
        blocks: list[Any] = [{"type": "text", "text": text}] if text else []
        blocks.append(ToolUseBlock(id=id, name=name, input=input))
        return LLMResponse(content=blocks, stop_reason="tool_use")
