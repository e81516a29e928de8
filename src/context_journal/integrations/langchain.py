"""LangChain over a context journal (extra ``langchain``): a chat message history and an agent middleware.

* :class:`JournalChatMessageHistory` — a ``BaseChatMessageHistory`` on any store (SQLite, PostgreSQL,
  memory), one namespace (with its own message slot) and one branch per session. Messages go in and come
  out as LangChain message objects, ids preserved: each is kept verbatim in its journal message's metadata
  (``message_to_dict``) and written as content blocks — an ``AIMessage``'s tool calls as ``tool_use``
  blocks, a ``ToolMessage`` as the ``tool_result`` that answers one — so the journal can compile it.
  ``clear()`` moves the session to a new empty branch; nothing is deleted.
  :meth:`JournalChatMessageHistory.compiled_messages` gives the history compiled to a token budget,
  every tool call still followed by its result.
* :class:`JournalMiddleware` — a LangChain 1.x ``AgentMiddleware``: it journals every message of the agent's
  state and replaces the model's input (``wrap_model_call``) with the compiled context; a drop-in for the
  summarization middleware that never leaves a tool call without its result.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..compile import EmptyContextError
from ..errors import DuplicateMessageError, MessageNotFoundError, MissingExtraError
from ..messages import Message
from ..stores import Store
from ..tokens import TokenCounter
from ._binding import SessionBinding, segments

try:
    from langchain_core.chat_history import BaseChatMessageHistory  # type: ignore[import-not-found,unused-ignore]
    from langchain_core.messages import (  # type: ignore[import-not-found,unused-ignore]
        AIMessage,
        BaseMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
        message_to_dict,
        messages_from_dict,
    )
except ImportError as exc:  # pragma: no cover - depends on the extra
    raise MissingExtraError("langchain-core", "langchain") from exc

try:
    from langchain.agents.middleware import AgentMiddleware  # type: ignore[import-not-found,unused-ignore]

    _HAS_AGENTS = True
except ImportError:  # pragma: no cover - langchain-core without langchain: the history only
    AgentMiddleware = object  # type: ignore[misc,assignment,unused-ignore]
    _HAS_AGENTS = False

__all__ = ["MESSAGE_KEY", "JournalChatMessageHistory", "JournalMiddleware", "blocks_of_message"]

MESSAGE_KEY = "langchain_message"
"""The metadata key under which a journal message keeps its LangChain message (``message_to_dict``)."""


def _text(content: Any) -> str:
    """The text of a LangChain message's content (a string or a list of content blocks)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict):
            if isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif part.get("type") not in ("tool_use", "tool_call", "function_call"):
                parts.append(f"[{part.get('type', 'part')}]")
    return "\n".join(parts)


def blocks_of_message(message: BaseMessage) -> tuple[str, list[dict[str, Any]]]:
    """The participant and content blocks that stand for a LangChain message in the journal."""
    text = _text(message.content)
    if isinstance(message, ToolMessage):
        return "tool", [{"type": "tool_result", "tool_use_id": message.tool_call_id, "content": text or "(empty)"}]
    if isinstance(message, AIMessage):
        blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text.strip() else []
        for call in message.tool_calls:
            blocks.append({"type": "tool_use", "id": call["id"], "name": call["name"], "input": dict(call["args"])})
        return "assistant", blocks or [{"type": "text", "text": "(empty)"}]
    participant = "system" if isinstance(message, SystemMessage) else "user"
    return participant, [{"type": "text", "text": text if text.strip() else "(empty)"}]


def _stored(message: Message) -> BaseMessage:
    """The LangChain message a journal message keeps (or one made from its blocks)."""
    kept = message.metadata.get(MESSAGE_KEY)
    if isinstance(kept, dict):
        return messages_from_dict([kept])[0]
    made = _of_blocks(
        message.participant, "assistant" if message.participant == "assistant" else "user", message.content_dicts()
    )
    return made[0] if made else HumanMessage(content="")


def _of_blocks(participant: str, role: str, blocks: Sequence[Any]) -> list[BaseMessage]:
    """LangChain messages for compiled content blocks (summaries, recall, the ledger, reduced results)."""
    out: list[BaseMessage] = []
    texts = [str(b["text"]) for b in blocks if b.get("type") == "text" and str(b.get("text", "")).strip()]
    calls = [
        {"id": str(b["id"]), "name": str(b["name"]), "args": dict(b.get("input") or {}), "type": "tool_call"}
        for b in blocks
        if b.get("type") == "tool_use"
    ]
    if role == "assistant":
        if texts or calls:
            out.append(AIMessage(content="\n\n".join(texts), tool_calls=calls))
        return out
    if texts:
        out.append(HumanMessage(content="\n\n".join(texts)))
    for b in blocks:
        if b.get("type") == "tool_result":
            content = b.get("content")
            text = content if isinstance(content, str) else _text(content)
            out.append(ToolMessage(content=text, tool_call_id=str(b["tool_use_id"])))
    return out


class JournalChatMessageHistory(BaseChatMessageHistory):  # type: ignore[misc,unused-ignore]
    """A LangChain chat message history kept in a context journal.

    Args:
        session_id: The conversation's id (its namespace is ``"langchain:{session_id}"``).
        store: An open :class:`~context_journal.stores.Store` shared by many histories (not closed by the
            history), or a location: ``"memory:"`` (the default), a SQLite path, a PostgreSQL URL.
        strategy: The compile strategy of :meth:`compiled_messages` (a strategy or a name; None:
            passthrough, the newest suffix that fits).
        token_counter: Token counter (default: the estimating counter).
    """

    def __init__(
        self,
        session_id: str,
        store: Store | str | os.PathLike[str] = "memory:",
        *,
        strategy: Any = None,
        token_counter: TokenCounter | None = None,
    ) -> None:
        self.session_id = session_id
        self._binding = SessionBinding("langchain", session_id, store, strategy=strategy, token_counter=token_counter)
        self._known: set[str] | None = None
        self._known_branch = ""

    @property
    def manager(self) -> Any:
        """The :class:`~context_journal.ContextManager` of this history (its namespace and branch)."""
        return self._binding.manager

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override,unused-ignore]
        """Every message, oldest first, as written (ids, tool calls and metadata included)."""
        self._binding.refresh()
        return [_stored(m) for m in self._binding.manager.get_all_messages()]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append messages in one transaction (a message's ``id``, when set, is its journal id)."""
        rows: list[dict[str, Any]] = []
        for message in messages:
            participant, blocks = blocks_of_message(message)
            row: dict[str, Any] = {
                "participant": participant,
                "content": blocks,
                "metadata": {MESSAGE_KEY: message_to_dict(message)},
            }
            if message.id:
                row["id"] = message.id
            rows.append(row)
        if rows:
            self._binding.refresh()
            self._binding.manager.add_messages(rows)
            if self._known is not None:
                self._known.update(str(r["id"]) for r in rows if "id" in r)

    def add_new(self, messages: Sequence[BaseMessage]) -> int:
        """Append the messages whose ids the history does not hold yet (messages without an id are
        appended always); returns how many were appended."""
        for attempt in (1, 2):
            self._binding.refresh()
            cm = self._binding.manager
            if self._known is None or self._known_branch != cm.current_branch():
                self._known = {m.id for m in cm.get_all_messages()}
                self._known_branch = cm.current_branch()
            fresh = [m for m in messages if not m.id or m.id not in self._known]
            try:
                self.add_messages(fresh)
            except DuplicateMessageError:
                if attempt == 2:
                    raise
                self._known = None  # another handle wrote some of them: read the ids again
                continue
            return len(fresh)
        raise AssertionError("unreachable")  # pragma: no cover

    def clear(self) -> None:
        """Start the session again on a new empty branch (the old branch keeps every message)."""
        self._binding.clear()
        self._known = None

    def close(self) -> None:
        """Close the history's manager (and its store when the history opened it)."""
        self._binding.close()

    def compiled_messages(self, max_tokens: int, reserve_for_response: int = 0, **compile_kwargs: Any) -> list[Any]:
        """The history compiled to ``max_tokens - reserve_for_response`` tokens as LangChain messages.

        Messages rendered raw come back as stored; summaries, recall and the working-state ledger come
        back as ``HumanMessage``/``AIMessage`` turns. Every ``AIMessage`` tool call is followed by its
        ``ToolMessage``. Empty when the history holds nothing.

        Raises:
            OverBudgetError: the smallest valid context does not fit (see ``ContextManager.compile``).
        """
        self._binding.refresh()
        cm = self._binding.manager
        try:
            result = cm.compile(max_tokens, reserve_for_response, **compile_kwargs)
        except EmptyContextError:
            return []
        out: list[BaseMessage] = []
        emitted: set[str] = set()

        def emit(mid: str) -> None:
            if mid in emitted:
                return
            emitted.add(mid)
            with contextlib.suppress(MessageNotFoundError):
                out.append(_stored(cm.get_message(mid)))

        for source in result.system_sources:
            if source.kind in ("message", "system"):
                emit(source.id)
        for segment in segments(result):
            if isinstance(segment, list):
                for mid in segment:
                    emit(mid)
            else:
                out.extend(_of_blocks(segment.participant, segment.role, segment.content))
        return out


class JournalMiddleware(AgentMiddleware):  # type: ignore[misc,unused-ignore]
    """A LangChain 1.x agent middleware: journal every message, send the model the compiled context.

    Before each model call it appends the agent state's messages that the history does not hold yet (by
    message id) and replaces ``request.messages`` with :meth:`JournalChatMessageHistory.compiled_messages`
    (the system message stays the request's; its tokens are reserved). After the agent finishes, the
    final messages are journaled too. The agent's own state keeps every message; only the model's input
    is compiled.

    Args:
        history: The history to journal into and compile from.
        max_tokens: The budget of the model's input, in tokens (the system message included).
        reserve_for_response: Tokens kept free for the reply.
        **compile_kwargs: Passed to ``ContextManager.compile`` (``query``, ``recall``, ``options``...).
    """

    def __init__(
        self,
        history: JournalChatMessageHistory,
        max_tokens: int,
        reserve_for_response: int = 0,
        **compile_kwargs: Any,
    ) -> None:
        if not _HAS_AGENTS:  # pragma: no cover - depends on the extra
            raise MissingExtraError("langchain", "langchain")
        super().__init__()
        self.history = history
        self.max_tokens = max_tokens
        self.reserve_for_response = reserve_for_response
        self.compile_kwargs = compile_kwargs

    def _compiled_request(self, request: Any) -> Any:
        self.history.add_new(list(request.messages))
        reserve = self.reserve_for_response
        system = getattr(request, "system_message", None)
        if system is not None:
            counter = self.history.manager.token_counter
            reserve += counter.count_message("system", [{"type": "text", "text": _text(system.content) or " "}])
        compiled = self.history.compiled_messages(
            self.max_tokens, min(reserve, self.max_tokens - 1), **self.compile_kwargs
        )
        return request.override(messages=compiled) if compiled else request

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        """Journal the request's messages and call the model with the compiled context."""
        return handler(self._compiled_request(request))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        """Async :meth:`wrap_model_call`."""
        return await handler(self._compiled_request(request))

    def after_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Journal the messages the run ended with (the final answer, last tool results)."""
        self.history.add_new(list(state.get("messages", [])))
        return None

    async def aafter_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Async :meth:`after_agent`."""
        return self.after_agent(state, runtime)
