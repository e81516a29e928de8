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

import json
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..compile import EmptyContextError
from ..errors import DuplicateMessageError, MessageNotFoundError, MissingExtraError
from ..messages import Message
from ..stores import Store
from ..tokens import TokenCounter
from ._binding import SessionBinding, pieces

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
    """LangChain messages for compiled content blocks (summaries, recall, the ledger, reduced results,
    stubbed results), in the blocks' order: an assistant turn is one ``AIMessage`` (texts and tool calls);
    a user turn is a ``ToolMessage`` per ``tool_result`` (``status="error"`` for an error result, such as
    the stub the compile writes for a call with no result) and a ``HumanMessage`` per run of texts."""
    del participant
    if role == "assistant":
        texts = [str(b["text"]) for b in blocks if b.get("type") == "text" and str(b.get("text", "")).strip()]
        calls = [
            {"id": str(b["id"]), "name": str(b["name"]), "args": dict(b.get("input") or {}), "type": "tool_call"}
            for b in blocks
            if b.get("type") == "tool_use"
        ]
        return [AIMessage(content="\n\n".join(texts), tool_calls=calls)] if texts or calls else []
    out: list[BaseMessage] = []
    texts = []
    for b in [*blocks, None]:
        if b is not None and b.get("type") == "text":
            if str(b.get("text", "")).strip():
                texts.append(str(b["text"]))
            continue
        if texts:
            out.append(HumanMessage(content="\n\n".join(texts)))
            texts = []
        if b is not None and b.get("type") == "tool_result":
            content = b.get("content")
            text = content if isinstance(content, str) else _text(content)
            status = "error" if b.get("is_error") else "success"
            out.append(ToolMessage(content=text, tool_call_id=str(b["tool_use_id"]), status=status))
    return out


def _row(message: BaseMessage) -> dict[str, Any]:
    """The journal row of a LangChain message (its ``id``, when set, is the journal id)."""
    participant, blocks = blocks_of_message(message)
    row: dict[str, Any] = {
        "participant": participant,
        "content": blocks,
        "metadata": {MESSAGE_KEY: message_to_dict(message)},
    }
    if message.id:
        row["id"] = message.id
    return row


def _lc_id(message: Message) -> str | None:
    """The LangChain id a journal message keeps (None when it was written without one)."""
    kept = message.metadata.get(MESSAGE_KEY)
    data = kept.get("data") if isinstance(kept, dict) else None
    found = data.get("id") if isinstance(data, dict) else None
    return found if isinstance(found, str) and found else None


def _same(a: Any, b: Any) -> bool:
    """Whether two ``message_to_dict`` forms hold the same message (compared as JSON)."""
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


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
        rows = [_row(message) for message in messages]
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

    def mirror(self, messages: Sequence[BaseMessage]) -> dict[str, int]:
        """Make the history hold what ``messages`` (an agent's state) holds, keyed by message id.

        A journaled message whose id is not among ``messages`` any more (trimmed, ``RemoveMessage``,
        replaced by a summary) is removed: a tombstone, its versions stay readable as of earlier sequences.
        A message with a journaled id and other content (a redacted copy under the same id) is edited: a new
        version. Messages the history does not hold are appended. When ``messages`` puts a new message
        before journaled ones (the summarization middleware's summary first, then the messages it keeps),
        the journaled ones after it are removed and written again after it, under new journal ids (their
        LangChain ids stay), so the journal keeps the state's order. Journaled messages written without a
        LangChain id, and messages without an id, are not matched: the latter are appended.

        Returns:
            How many messages were ``added``, ``edited``, ``removed`` and ``moved``.
        """
        for attempt in (1, 2):
            try:
                return self._mirror(messages)
            except (DuplicateMessageError, MessageNotFoundError):
                if attempt == 2:
                    raise
                self._known = None  # another handle changed the history meanwhile: read it again
        raise AssertionError("unreachable")  # pragma: no cover

    def _mirror(self, messages: Sequence[BaseMessage]) -> dict[str, int]:
        self._binding.refresh()
        cm = self._binding.manager
        self._known = None
        journal: dict[str, Message] = {}
        for stored in cm.get_all_messages():
            lc_id = _lc_id(stored)
            if lc_id is not None:
                journal[lc_id] = stored
        state = [m for m in messages if m.id]
        wanted = {str(m.id) for m in state}
        counts = {"added": 0, "edited": 0, "removed": 0, "moved": 0}
        for lc_id, stored in list(journal.items()):
            if lc_id not in wanted:
                cm.remove_message(stored.id)
                del journal[lc_id]
                counts["removed"] += 1
        kept = list(journal)  # journal order
        same = 0
        while same < min(len(kept), len(state)) and state[same].id == kept[same]:
            same += 1
        for message in state[:same]:
            stored = journal[str(message.id)]
            participant, blocks = blocks_of_message(message)
            kept_dict = stored.metadata.get(MESSAGE_KEY)
            if _same(message_to_dict(message), kept_dict):
                continue
            cm.edit_message(
                stored.id,
                blocks,
                metadata={**stored.metadata, MESSAGE_KEY: message_to_dict(message)},
                participant=participant,
            )
            counts["edited"] += 1
        rows: list[dict[str, Any]] = []
        for message in state[same:]:
            row = _row(message)
            earlier = journal.get(str(message.id))
            if earlier is not None:  # journaled before a message now put ahead of it: written again after it
                cm.remove_message(earlier.id)
                del row["id"]
                counts["moved"] += 1
            else:
                counts["added"] += 1
            rows.append(row)
        rows += [_row(m) for m in messages if not m.id]
        counts["added"] += len(messages) - len(state)
        self._append(rows)
        return counts

    def _append(self, rows: list[dict[str, Any]]) -> None:
        """Append rows; a row whose id the journal used before (a removed message) gets a fresh one."""
        if not rows:
            return
        cm = self._binding.manager
        try:
            cm.add_messages(rows)
            return
        except DuplicateMessageError:
            pass
        for row in rows:
            try:
                cm.add_messages([row])
            except DuplicateMessageError:
                try:
                    cm.get_message(str(row["id"]))
                except MessageNotFoundError:  # removed earlier: the id stays used, write under a fresh one
                    cm.add_messages([{k: v for k, v in row.items() if k != "id"}])
                else:
                    raise

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
        back as ``HumanMessage``/``AIMessage`` turns. What the compile repaired comes back repaired, where
        the compile put it: a tool call with no result in the context is followed by a ``ToolMessage``
        with its ``tool_call_id``, the compile's stub text and ``status="error"``; a result written
        after a later message is moved up to its call. Every ``AIMessage`` tool call is followed by its
        ``ToolMessage`` before the next turn, and every ``ToolMessage`` answers a call. Empty when the
        history holds nothing.

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

        def fetch(mid: str) -> Message | None:
            try:
                return cm.get_message(mid)
            except MessageNotFoundError:
                return None

        for source in result.system_sources:
            if source.kind in ("message", "system") and source.id not in emitted:
                emitted.add(source.id)
                found = fetch(source.id)
                if found is not None:
                    out.append(_stored(found))
        for piece in pieces(result, fetch, emitted=emitted):
            if piece.mid is not None:
                found = fetch(piece.mid)
                if found is not None:
                    out.append(_stored(found))
                    continue
            out.extend(_of_blocks(piece.participant, piece.role, piece.blocks))
        return out


class JournalMiddleware(AgentMiddleware):  # type: ignore[misc,unused-ignore]
    """A LangChain 1.x agent middleware: journal every message, send the model the compiled context.

    Before each model call it makes the history mirror the agent state's messages
    (:meth:`JournalChatMessageHistory.mirror`, by message id) and replaces ``request.messages`` with
    :meth:`JournalChatMessageHistory.compiled_messages` (the system message stays the request's; its
    tokens are reserved). After the agent finishes, the final messages are mirrored too. The agent's own
    state keeps every message; only the model's input is compiled.

    The state is the truth: a message the app removed from the state (trimming, ``RemoveMessage``, the
    summarization middleware replacing old messages by a summary) is removed from the journal (a
    tombstone: the history keeps it readable as of earlier sequences) and never reaches the model again;
    a message replaced under the same id (a redacted copy) is edited in the journal, and the model sees
    the new content. With a summarising strategy the summaries that read the old text are retired by the
    change and written again (:class:`~context_journal.strategies.autobiographical.records.StaleMark`). A
    tombstone or an edit is not an erasure: ``manager.redact(message_id, ...)`` erases the old text from
    the journal too. So the state handed to each
    ``invoke`` must hold the whole conversation (the previous state's messages plus the new ones, or a
    checkpointer's thread): a state holding only the new message removes the rest from the model's view.
    Messages are matched by id, so hand back the state's own messages (LangGraph gives an id-less message a
    new id on every ``invoke``: one sent again without an id is journaled anew each turn, its old copy a
    tombstone, and a summarising strategy summarises it again).

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
        state = getattr(request, "state", None)
        given = state.get("messages") if isinstance(state, dict) else None
        self.history.mirror(list(given if isinstance(given, list) else request.messages))
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
        self.history.mirror(list(state.get("messages", [])))
        return None

    async def aafter_agent(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Async :meth:`after_agent`."""
        return self.after_agent(state, runtime)
