"""An OpenAI Agents SDK ``Session`` over a context journal (extra ``openai-agents``).

:class:`JournalSession` implements the SDK's ``Session`` protocol (``session_id``, ``get_items``,
``add_items``, ``pop_item``, ``clear_session``) on any store: SQLite, PostgreSQL or memory. Each session has a
namespace (``"openai-agents:{session_id}"``) with a message slot of its own, on a branch of its own, so many
sessions share one store. Every item is one journal message: the item itself is kept verbatim in the
message's metadata (an item read back equals the one written, as the SDK's rewind fingerprints need), and
its content is written as content blocks (text, ``tool_use`` for a call, ``tool_result`` for its output) so
the journal can search, summarise and compile it. ``pop_item`` writes a tombstone and ``clear_session``
moves the session to a new empty branch: the history stays readable.

Two ways to give the model a compiled, budgeted history instead of every item:

* :meth:`JournalSession.input_callback` — a ``RunConfig(session_input_callback=...)``: compiled once per
  ``Runner.run`` (history plus the new input);
* :meth:`JournalSession.model_input_filter` — a ``RunConfig(call_model_input_filter=...)``: compiled
  before every model call, so a long tool loop inside one run stays within the budget too.

Raw items come back exactly as stored; what the strategy summarised (or the working-state ledger, or
recall) comes back as plain ``message`` items.

The module never imports the SDK (the protocol is structural), so it imports without the extra.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import dataclasses
import functools
import json
import os
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

from .._store_thread import StoreThread, acquire_thread, open_on_thread, release_thread
from ..compile import CompileResult, EmptyContextError
from ..errors import MalformedContentError, MessageNotFoundError, StoreClosedError
from ..llm.provider import run_sync
from ..messages import Message
from ..stores import Store
from ..tokens import TokenCounter
from ._binding import SessionBinding, pieces

__all__ = ["ITEM_KEY", "JournalSession", "blocks_of_item"]

ITEM_KEY = "openai_agents_item"
"""The metadata key under which a journal message keeps its SDK item verbatim."""

Item = dict[str, Any]
T = TypeVar("T")

# Call item types and the type of the item that answers them: these become tool_use/tool_result pairs.
_CALLS = {
    "function_call": "function_call_output",
    "computer_call": "computer_call_output",
    "local_shell_call": "local_shell_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "custom_tool_call": "custom_tool_call_output",
}
_OUTPUTS = {v: k for k, v in _CALLS.items()}


def _key(item: Any) -> str:
    return json.dumps(item, sort_keys=True, default=str)


def _text_of(content: Any) -> str:
    """The text of a message item's content (a string or a list of parts)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for part in content:
            if not isinstance(part, Mapping):
                continue
            if isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part.get("refusal"), str):
                parts.append(part["refusal"])
            else:
                label = part.get("filename") or part.get("type") or "part"
                parts.append(f"[{label}]")
    return "\n".join(parts)


def _participant(role: Any) -> str:
    if role in ("system", "developer"):
        return "system"
    if role == "assistant":
        return "assistant"
    return "user"


def blocks_of_item(item: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The participant and content blocks that stand for an SDK item in the journal.

    A message item is text; a call item (``function_call`` and the other ``*_call`` types that have an
    ``*_output`` answer) is a ``tool_use`` block whose id is the ``call_id``; its output is the matching
    ``tool_result``. Any other item (reasoning, hosted tool calls, references) is an assistant text naming it,
    so it is counted and summarised but never left as an unanswered call.
    """
    kind = item.get("type")
    if kind in _CALLS and isinstance(item.get("call_id"), str):
        raw = item.get("arguments", item.get("input", item.get("action")))
        parsed: Any = raw
        if isinstance(raw, str):
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = raw
        arguments = parsed if isinstance(parsed, dict) else {"arguments": parsed}
        name = str(item.get("name") or kind)
        return "assistant", [{"type": "tool_use", "id": item["call_id"], "name": name, "input": arguments}]
    if kind in _OUTPUTS and isinstance(item.get("call_id"), str):
        output = item.get("output")
        text = output if isinstance(output, str) else _text_of(output) if isinstance(output, list) else _key(output)
        return "tool", [{"type": "tool_result", "tool_use_id": item["call_id"], "content": text or "(empty)"}]
    if kind in (None, "message") and "role" in item:
        text = _text_of(item.get("content"))
        return _participant(item.get("role")), [{"type": "text", "text": text if text.strip() else "(empty)"}]
    if kind == "reasoning":
        summary = _text_of(item.get("summary") or [])
        return "assistant", [{"type": "text", "text": f"[reasoning] {summary}".strip()}]
    return "assistant", [{"type": "text", "text": f"[{kind or 'item'}] {_key(item)[:2000]}"}]


def _item_of(message: Message) -> Item:
    """The SDK item a journal message stands for (the stored item, or one made from its blocks)."""
    stored = message.metadata.get(ITEM_KEY)
    if isinstance(stored, dict):
        return copy.deepcopy(stored)
    items = _items_of_blocks(
        message.participant, "assistant" if message.participant == "assistant" else "user", message.content_dicts(), {}
    )
    return items[0] if items else {"role": "user", "content": ""}


def _items_of_blocks(
    participant: str, role: str, blocks: Sequence[Mapping[str, Any]], calls: Mapping[str, Item]
) -> list[Item]:
    """SDK items for compiled (or foreign) content blocks: texts become a message, tool blocks their items."""
    out: list[Item] = []
    texts: list[str] = []

    def flush() -> None:
        if texts:
            out.append({"role": role, "content": "\n\n".join(texts)})
            texts.clear()

    for block in blocks:
        kind = block.get("type")
        if kind == "text" and str(block.get("text", "")).strip():
            texts.append(str(block["text"]))
        elif kind == "tool_use":
            flush()
            known = calls.get(str(block.get("id")))
            out.append(
                copy.deepcopy(known)
                if known is not None
                else {
                    "type": "function_call",
                    "call_id": block.get("id"),
                    "name": block.get("name"),
                    "arguments": json.dumps(block.get("input", {})),
                }
            )
        elif kind == "tool_result":
            flush()
            content = block.get("content")
            text = content if isinstance(content, str) else _text_of(content)
            call_id = str(block.get("tool_use_id"))
            output = calls.get(f"output:{call_id}")
            if output is not None and output.get("type") != "function_call_output":
                out.append(copy.deepcopy(output))  # another output type: sent as stored
            elif output is None and block.get("is_error"):  # a result the compile wrote (a stub)
                out.append(_error_output(calls.get(call_id), call_id, text))
            else:
                out.append({"type": "function_call_output", "call_id": call_id, "output": text})
    flush()
    return out


# Call types whose output can say "no result" in text; the others (a computer call wants a screenshot, a
# shell call an exit status) are sent as a transcript instead when the compile stubs their result.
_TEXT_OUTPUTS = {"function_call", "custom_tool_call", "apply_patch_call"}
_UNANSWERABLE = "unanswerable"


def _error_output(call: Item | None, call_id: str, text: str) -> Item:
    """The output item for a result the compile wrote (the stub of a call with no result)."""
    kind = str((call or {}).get("type") or "function_call")
    if kind == "apply_patch_call":
        return {"type": "apply_patch_call_output", "call_id": call_id, "status": "failed", "output": text}
    if kind in _TEXT_OUTPUTS:
        return {"type": _CALLS[kind], "call_id": call_id, "output": text}
    return {"type": _UNANSWERABLE, "call_id": call_id, "output": text}


def _transcribe_unanswerable(items: list[Item]) -> list[Item]:
    """A call whose stub no output item can carry becomes an assistant message saying so (in its place)."""
    stubbed = {str(i["call_id"]): str(i["output"]) for i in items if i.get("type") == _UNANSWERABLE}
    if not stubbed:
        return items
    out: list[Item] = []
    for item in items:
        if item.get("type") == _UNANSWERABLE:
            continue
        if item.get("type") in _CALLS and item.get("call_id") in stubbed:
            _, blocks = blocks_of_item(item)
            call = json.dumps(blocks[0].get("input", {}), ensure_ascii=False)
            label = " ".join(str(x) for x in (item.get("type"), item.get("name")) if x)
            text = f"[{label} {call}: {stubbed[str(item['call_id'])]}]"
            out.append({"role": "assistant", "content": text})
            continue
        out.append(item)
    return out


class JournalSession:
    """An Agents SDK session kept in a context journal.

    Args:
        session_id: The conversation's id (its namespace is ``"openai-agents:{session_id}"``).
        store: An open :class:`~context_journal.stores.Store` shared by many sessions (not closed by the
            session), or a location: ``"memory:"`` (the default), a SQLite path, a PostgreSQL URL.
        strategy: The compile strategy used by the compiled-input modes (a strategy or a name such as
            ``"windowed"`` or ``"autobiographical"``; None: passthrough, the newest suffix that fits).
        token_counter: Token counter (default: the estimating counter).
        session_settings: The SDK's ``SessionSettings`` (its ``limit`` is the default of ``get_items``).

    The protocol's methods (and the compiled-input callbacks) run their store work on the store handle's
    thread (one per open store object, shared with the async manager and the workers, in call order), so
    they never block the event loop, whatever the store: the same items in the same order, the same
    errors, as if called in place. Making a session does no I/O: its first async call opens the store
    (when given a location), the conversation's branch and its manager on that thread, and raises what
    opening raises (``StoreError``...). Close the session with ``await session.aclose()`` (or :meth:`close`
    from synchronous code): it closes the manager after the work queued before and releases the thread.
    :meth:`compiled_items` and :meth:`manager` work on the caller's thread; do not use them while the
    session's async methods are running.
    """

    def __init__(
        self,
        session_id: str,
        store: Store | str | os.PathLike[str] = "memory:",
        *,
        strategy: Any = None,
        token_counter: TokenCounter | None = None,
        session_settings: Any = None,
    ) -> None:
        self.session_id = session_id
        self.session_settings = session_settings
        SessionBinding.namespace_of("openai-agents", session_id)  # a bad id fails here, not at the first await
        if not isinstance(store, Store | str | os.PathLike):
            raise TypeError(f"store must be a Store or a location, got {type(store).__name__}")
        self._bind = functools.partial(
            SessionBinding, "openai-agents", session_id, store, strategy=strategy, token_counter=token_counter
        )
        self._given_store = store
        self._bound: SessionBinding | None = None  # made on the store's thread by the first async call
        self._opening: concurrent.futures.Future[StoreThread] | None = None  # the first call's binding, in flight
        self._opening_lock = threading.Lock()  # (not an asyncio lock: the first calls may come from two loops)
        self._synthesized: Counter[str] = Counter()
        self._thread: StoreThread | None = None
        self._closed = False

    @property
    def _binding(self) -> SessionBinding:
        """The session's binding; made on the caller's thread when a synchronous use (:attr:`manager`,
        :meth:`compiled_items`) comes before any async call.

        Raises:
            StoreClosedError: the session was closed.
        """
        if self._closed:
            raise StoreClosedError("the session was closed")
        if self._bound is None:
            self._bound = self._bind()
        return self._bound

    async def _ready(self) -> StoreThread:
        """The store handle's thread, acquired on first use; the binding (which opens the store when given
        a location, creates the conversation's branch and opens its manager) is made there, so even the
        first call does no store work on the caller's loop."""
        if self._closed:
            raise StoreClosedError("the session was closed")
        with self._opening_lock:
            if self._thread is not None:
                return self._thread
            opening, first = self._opening, self._opening is None
            if first:
                opening = self._opening = concurrent.futures.Future()
        assert opening is not None
        if not first:  # another call (of this loop or another) is binding: wait for it
            return await asyncio.wrap_future(opening)
        try:
            if self._bound is not None:  # bound on the caller's thread by a synchronous use
                thread = acquire_thread(self._bound.store)
            else:
                store = self._given_store if isinstance(self._given_store, Store) else None
                bound, thread = await open_on_thread(self._bind, store, _store_of)
                self._bound = bound
        except BaseException as exc:
            with self._opening_lock:
                self._opening = None  # a later call tries again
            opening.set_exception(exc)
            opening.exception()  # retrieved: no "never retrieved" warning when no other call waited
            raise
        with self._opening_lock:
            self._thread, self._opening = thread, None
        opening.set_result(thread)
        return thread

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` run on the store handle's thread."""
        thread = self._thread if self._thread is not None and not self._closed else await self._ready()
        return await thread.call(fn, *args)

    @property
    def manager(self) -> Any:
        """The :class:`~context_journal.ContextManager` of this session (its namespace and branch)."""
        return self._binding.manager

    @property
    def branch(self) -> str:
        """The branch the session reads and writes (a new one after each :meth:`clear_session`)."""
        return str(self._binding.manager.current_branch())

    # ---- the Session protocol ----------------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[Item]:
        """The session's items, oldest first; ``limit``: only the newest ``limit`` (the SDK's semantics:
        None uses ``session_settings.limit``, 0 gives none, a negative limit gives all).

        Raises:
            TypeError: ``limit`` is not an integer or None.
        """
        if limit is None and self.session_settings is not None:
            limit = getattr(self.session_settings, "limit", None)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise TypeError(f"limit must be an integer or None, got {limit!r}")
        return await self._call(self._get_items, limit)

    def _get_items(self, limit: int | None) -> list[Item]:
        self._binding.refresh()
        cm = self._binding.manager
        if limit is not None and limit == 0:
            return []
        if limit is None or limit < 0:
            messages = cm.get_all_messages()
        else:
            count = cm.message_count()
            messages = cm.get_messages(max(0, count - limit), limit)
        return [_item_of(m) for m in messages]

    async def add_items(self, items: list[Any]) -> None:
        """Append items (one journal message each, all in one transaction).

        Raises:
            TypeError: ``items`` is not a list (or another sequence) of items.
            MalformedContentError: an item is neither a message (a ``role`` and its ``content``) nor a typed
                item (a ``type``); its index is named and nothing is written.
        """
        if isinstance(items, str | bytes | Mapping) or not isinstance(items, Sequence):
            raise TypeError(f"add_items takes a list of items, got {type(items).__name__}")
        await self._call(self._add_items, list(items))

    def _add_items(self, items: list[Any]) -> None:
        rows: list[dict[str, Any]] = []
        for index, raw in enumerate(items):
            item = _as_dict(raw)
            problem = _item_problem(item)
            if problem is not None:
                raise MalformedContentError(f"not an Agents SDK input item: {problem}", message_index=index)
            key = _key(item)
            if self._synthesized[key] > 0:  # a compiled summary turn coming back from the input callback
                self._synthesized[key] -= 1
                continue
            participant, blocks = blocks_of_item(item)
            rows.append({"participant": participant, "content": blocks, "metadata": {ITEM_KEY: item}})
        if rows:
            self._binding.refresh()
            self._binding.manager.add_messages(rows)

    async def pop_item(self) -> Item | None:
        """Remove the newest item (a tombstone: it stays readable as of earlier sequences) and return it."""
        return await self._call(self._pop_item)

    def _pop_item(self) -> Item | None:
        self._binding.refresh()
        cm = self._binding.manager
        while True:
            count = cm.message_count()
            if count == 0:
                return None
            newest = cm.get_messages(count - 1, 1)[0]
            try:
                cm.remove_message(newest.id)
            except MessageNotFoundError:
                continue  # another handle removed it first
            return _item_of(newest)

    async def clear_session(self) -> None:
        """Start the session again on a new empty branch (the old branch keeps every item)."""
        await self._call(lambda: self._binding.clear())
        self._synthesized.clear()

    async def aclose(self) -> None:
        """Close the session's manager (and its store when the session opened it) on the store's thread,
        after the work queued before, and release the thread. Idempotent."""
        if self._closed:
            return
        self._closed = True
        thread, self._thread, bound = self._thread, None, self._bound
        if bound is None:  # never used: nothing was opened
            return
        if thread is None:
            bound.close()
            return
        try:
            await thread.call(bound.close)
        finally:
            release_thread(bound.store, thread)

    def close(self) -> None:
        """:meth:`aclose` from synchronous code (inside a running loop it blocks that loop until done)."""
        if self._closed:
            return
        if self._thread is None:
            self._closed = True
            if self._bound is not None:
                self._bound.close()
            return
        run_sync(self.aclose())

    async def __aenter__(self) -> JournalSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # ---- compiled input ----------------------------------------------------------------------------

    def compiled_items(self, max_tokens: int, reserve_for_response: int = 0, **compile_kwargs: Any) -> list[Item]:
        """The session's history compiled to ``max_tokens - reserve_for_response`` tokens, as SDK items.

        Messages rendered raw come back as their stored items; summaries, recall and the working-state
        ledger come back as ``message`` items. Empty when the session holds nothing.

        Raises:
            OverBudgetError: the smallest valid context does not fit (see ``ContextManager.compile``).
        """
        return self._compile(max_tokens, reserve_for_response, **compile_kwargs)[0]

    async def acompiled_items(
        self, max_tokens: int, reserve_for_response: int = 0, **compile_kwargs: Any
    ) -> list[Item]:
        """:meth:`compiled_items` run on the store's thread."""
        compiled, _ = await self._call(self._compile_with, max_tokens, reserve_for_response, compile_kwargs)
        return compiled

    def _compile_with(
        self, max_tokens: int, reserve_for_response: int, compile_kwargs: dict[str, Any]
    ) -> tuple[list[Item], list[Item]]:
        return self._compile(max_tokens, reserve_for_response, **compile_kwargs)

    def _compile(
        self, max_tokens: int, reserve_for_response: int, **compile_kwargs: Any
    ) -> tuple[list[Item], list[Item]]:
        self._binding.refresh()
        try:
            result = self._binding.manager.compile(max_tokens, reserve_for_response, **compile_kwargs)
        except EmptyContextError:
            return [], []
        return self._items_of_result(result)

    def _items_of_result(self, result: CompileResult) -> tuple[list[Item], list[Item]]:
        """The items of a compile, and those of them the compile wrote (not stored items)."""
        cm = self._binding.manager
        stored: dict[str, Message] = {}

        def message(mid: str) -> Message | None:
            if mid not in stored:
                try:
                    stored[mid] = cm.get_message(mid)
                except MessageNotFoundError:
                    return None
            return stored[mid]

        wanted = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
        wanted |= {s.id for s in result.system_sources if s.kind in ("message", "system")}
        calls: dict[str, Item] = {}
        for mid in wanted:
            found = message(mid)
            item = found.metadata.get(ITEM_KEY) if found is not None else None
            if isinstance(item, dict) and isinstance(item.get("call_id"), str):
                prefix = "output:" if item.get("type") in _OUTPUTS else ""
                calls[prefix + item["call_id"]] = item

        out: list[Item] = []
        written: list[Item] = []
        emitted: set[str] = set()
        for source in result.system_sources:
            found = message(source.id) if source.kind in ("message", "system") else None
            if found is not None and source.id not in emitted:
                emitted.add(source.id)
                out.append(_item_of(found))
        if result.system and not out:
            text = "\n\n".join(str(b.get("text", "")) for b in result.system if b.get("type") == "text")
            out.append({"role": "system", "content": text})
            written.append(out[-1])
        for piece in pieces(result, message, emitted=emitted, merged_turns=True):
            found = message(piece.mid) if piece.mid is not None else None
            if found is not None:
                item = _item_of(found)
                if _blank_message(item):  # stored as given; sent as the journal holds it (no empty message)
                    item = {**item, "content": _text_of_blocks(piece.blocks) or "(empty)"}
                    written.append(item)
                out.append(item)
                continue
            for item in _items_of_blocks(piece.participant, piece.role, piece.blocks, calls):
                out.append(item)
                if not any(item == c for c in calls.values()):
                    written.append(item)
        settled = _transcribe_unanswerable(out)
        if settled is not out:
            written = [i for i in written if i.get("type") != _UNANSWERABLE]
            written += [i for i in settled if i not in out]
        return settled, written

    def input_callback(
        self, max_tokens: int, reserve_for_response: int = 0, **compile_kwargs: Any
    ) -> Callable[[list[Any], list[Any]], Awaitable[list[Any]]]:
        """A ``session_input_callback`` for ``RunConfig``: the compiled history, then the new input (an
        async callback: the compile runs on the store's thread).

        The budget is ``max_tokens - reserve_for_response`` minus the new input's estimated tokens. Items the
        compile wrote (summaries, recall, the ledger) are sent to the model but not stored again when the
        SDK hands them back to :meth:`add_items` (the session recognises them by content until the next
        compile). Compiled once per ``Runner.run``: the tool loop inside one run grows the input as usual
        (:meth:`model_input_filter` compiles before every call). Raises what the compile raises.
        """

        async def callback(history: list[Any], new_items: list[Any]) -> list[Any]:
            del history  # the journal is the history
            await self._ready()  # the binding is made on the store's thread
            counter = self._binding.manager.token_counter
            extra = 0
            for raw in new_items:
                participant, blocks = blocks_of_item(_as_dict(raw))
                extra += counter.count_message(participant, blocks)
            reserve = min(max_tokens - 1, reserve_for_response + extra)
            compiled, written = await self._call(self._compile_with, max_tokens, reserve, compile_kwargs)
            self._synthesized = Counter(_key(item) for item in written)
            return [*compiled, *new_items]

        return callback

    def model_input_filter(self, max_tokens: int, reserve_for_response: int = 0, **compile_kwargs: Any) -> Any:
        """A ``call_model_input_filter`` for ``RunConfig`` (async: the compile runs on the store's thread):
        before every model call, the model's input is replaced by the compiled session (the SDK stores
        each turn's items before it calls the model), and any input item the session does not hold yet is
        kept after it. The instructions are the agent's; reserve their tokens in ``reserve_for_response``
        if they are long.

        The filter raises what the compile raises: ``OverBudgetError`` when the smallest valid context does
        not fit (an autobiographical strategy whose compression lags: call ``session.manager.drain()``
        between runs, or use ``AutobiographicalConfig(overflow="window")``).
        """

        def compile_and_read() -> tuple[list[Item], list[Item]]:
            compiled = self.compiled_items(max_tokens, reserve_for_response, **compile_kwargs)
            # every item held, not only the newest: the SDK may leave items out of its input (a call it
            # found unanswered), so its input's length says nothing about which items are the session's
            return compiled, ([_item_of(m) for m in self._binding.manager.get_all_messages()] if compiled else [])

        async def model_filter(data: Any) -> Any:
            given = list(data.model_data.input)
            compiled, tail = await self._call(compile_and_read)
            if not compiled:
                return data.model_data
            held = Counter(_identity(i) for i in tail)
            missing = []
            for raw in given:
                key = _identity(_as_dict(raw))
                if held[key] > 0:
                    held[key] -= 1
                else:
                    missing.append(raw)
            return dataclasses.replace(data.model_data, input=[*compiled, *missing])

        return model_filter


def _store_of(binding: SessionBinding) -> Store:
    return binding.store


def _identity(item: Item) -> str:
    """What names an item across the SDK's normalisations: its type and call id or item id, else its JSON."""
    for field in ("call_id", "id"):
        if isinstance(item.get(field), str):
            return f"{item.get('type')}:{field}:{item[field]}"
    return _key(item)


def _blank_message(item: Item) -> bool:
    """True for a message item whose content holds no text (``""``, ``[]``, only blank parts)."""
    return item.get("type") in (None, "message") and "role" in item and not _text_of(item.get("content")).strip()


def _text_of_blocks(blocks: Sequence[Mapping[str, Any]]) -> str:
    return "\n\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text").strip()


_ROLES = frozenset({"user", "assistant", "system", "developer"})
"""The roles of a Responses API message item (``EasyInputMessageParam``, ``ResponseInputItemParam``)."""


def _item_problem(item: Item) -> str | None:
    """Why ``item`` is not an Agents SDK input item, or None: its keys are text; a message has a ``role``
    (user, assistant, system, developer) and a ``content`` (text or a list of parts; empty is kept, as the
    SDK sends it); a call or a call's output has its ``call_id``; any other item has a ``type`` (an item type
    this module does not know is kept and sent as stored: the SDK adds new ones)."""
    if any(not isinstance(k, str) for k in item):
        return "its keys must be text"
    kind = item.get("type")
    if kind is not None and not isinstance(kind, str):
        return f"its type must be text, got {type(kind).__name__}"
    if (kind in _CALLS or kind in _OUTPUTS) and (not isinstance(item.get("call_id"), str) or not item["call_id"]):
        return f"a {kind} needs its call_id"
    if kind not in (None, "message"):
        return None
    role = item.get("role")
    if not isinstance(role, str) or not role:
        return "an item needs a 'type', or a message a 'role'" if kind is None else "a message needs its 'role'"
    if role not in _ROLES:
        return f"a message's role is one of {', '.join(sorted(_ROLES))}, got {role!r}"
    content = item.get("content")
    if not isinstance(content, str | list):
        return f"a message's content is text or a list of parts, got {type(content).__name__}"
    return None


def _as_dict(item: Any) -> Item:
    """An SDK item as a plain JSON dict (pydantic models are dumped as the SDK dumps them)."""
    if isinstance(item, dict):
        return copy.deepcopy(item)
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        result = dump(exclude_unset=True)
        if isinstance(result, dict):
            return result
    raise TypeError(f"not an Agents SDK input item: {type(item).__name__}")
