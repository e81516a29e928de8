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

import copy
import dataclasses
import json
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..compile import CompileResult, EmptyContextError
from ..errors import MessageNotFoundError
from ..messages import Message
from ..stores import Store
from ..tokens import TokenCounter
from ._binding import SessionBinding, segments

__all__ = ["ITEM_KEY", "JournalSession", "blocks_of_item"]

ITEM_KEY = "openai_agents_item"
"""The metadata key under which a journal message keeps its SDK item verbatim."""

Item = dict[str, Any]

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
            output = calls.get(f"output:{block.get('tool_use_id')}")
            if output is not None and output.get("type") != "function_call_output":
                out.append(copy.deepcopy(output))  # another output type: sent as stored
            else:
                out.append({"type": "function_call_output", "call_id": block.get("tool_use_id"), "output": text})
    flush()
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

    The session's methods call the store directly (a few milliseconds on SQLite); they are ``async`` as the
    protocol asks, but do not hand the work to a thread.
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
        self._binding = SessionBinding(
            "openai-agents", session_id, store, strategy=strategy, token_counter=token_counter
        )
        self._synthesized: Counter[str] = Counter()

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
        None uses ``session_settings.limit``, 0 gives none, a negative limit gives all)."""
        if limit is None and self.session_settings is not None:
            limit = getattr(self.session_settings, "limit", None)
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
        """Append items (one journal message each, all in one transaction)."""
        rows: list[dict[str, Any]] = []
        for raw in items:
            item = _as_dict(raw)
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
        self._binding.clear()
        self._synthesized.clear()

    def close(self) -> None:
        """Close the session's manager (and its store when the session opened it)."""
        self._binding.close()

    # ---- compiled input ----------------------------------------------------------------------------

    def compiled_items(self, max_tokens: int, reserve_for_response: int = 0, **compile_kwargs: Any) -> list[Item]:
        """The session's history compiled to ``max_tokens - reserve_for_response`` tokens, as SDK items.

        Messages rendered raw come back as their stored items; summaries, recall and the working-state
        ledger come back as ``message`` items. Empty when the session holds nothing.

        Raises:
            OverBudgetError: the smallest valid context does not fit (see ``ContextManager.compile``).
        """
        return self._compile(max_tokens, reserve_for_response, **compile_kwargs)[0]

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
        for segment in segments(result):
            if isinstance(segment, list):
                for mid in segment:
                    found = message(mid)
                    if found is not None and mid not in emitted:
                        emitted.add(mid)
                        out.append(_item_of(found))
                        if isinstance(found.metadata.get(ITEM_KEY), dict):
                            call_id = found.metadata[ITEM_KEY].get("call_id")
                            if found.metadata[ITEM_KEY].get("type") in _CALLS and isinstance(call_id, str):
                                emitted.add(call_id)
                continue
            compiled = segment
            for item in _items_of_blocks(compiled.participant, compiled.role, compiled.content, calls):
                if item.get("type") in _CALLS and item.get("call_id") in emitted:
                    continue
                if item.get("type") in _CALLS:
                    emitted.add(str(item.get("call_id")))
                out.append(item)
                if not any(item == c for c in calls.values()):
                    written.append(item)
        return out, written

    def input_callback(
        self, max_tokens: int, reserve_for_response: int = 0, **compile_kwargs: Any
    ) -> Callable[[list[Any], list[Any]], list[Any]]:
        """A ``session_input_callback`` for ``RunConfig``: the compiled history, then the new input.

        The budget is ``max_tokens - reserve_for_response`` minus the new input's estimated tokens. Items the
        compile wrote (summaries, recall, the ledger) are sent to the model but not stored again when the
        SDK hands them back to :meth:`add_items` (the session recognises them by content until the next
        compile). Compiled once per ``Runner.run``: the tool loop inside one run grows the input as usual
        (:meth:`model_input_filter` compiles before every call). Raises what the compile raises.
        """

        def callback(history: list[Any], new_items: list[Any]) -> list[Any]:
            del history  # the journal is the history
            counter = self._binding.manager.token_counter
            extra = 0
            for raw in new_items:
                participant, blocks = blocks_of_item(_as_dict(raw))
                extra += counter.count_message(participant, blocks)
            reserve = min(max_tokens - 1, reserve_for_response + extra)
            compiled, written = self._compile(max_tokens, reserve, **compile_kwargs)
            self._synthesized = Counter(_key(item) for item in written)
            return [*compiled, *new_items]

        return callback

    def model_input_filter(self, max_tokens: int, reserve_for_response: int = 0, **compile_kwargs: Any) -> Any:
        """A ``call_model_input_filter`` for ``RunConfig``: before every model call, the model's input is
        replaced by the compiled session (the SDK stores each turn's items before it calls the model), and
        any input item the session does not hold yet is kept after it. The instructions are the agent's;
        reserve their tokens in ``reserve_for_response`` if they are long.

        The filter raises what the compile raises: ``OverBudgetError`` when the smallest valid context does
        not fit (an autobiographical strategy whose compression lags: call ``session.manager.drain()``
        between runs, or use ``AutobiographicalConfig(overflow="window")``).
        """

        def model_filter(data: Any) -> Any:
            given = list(data.model_data.input)
            compiled = self.compiled_items(max_tokens, reserve_for_response, **compile_kwargs)
            if not compiled:
                return data.model_data
            held = Counter(_identity(i) for i in self._tail(len(given)))
            missing = []
            for raw in given:
                key = _identity(_as_dict(raw))
                if held[key] > 0:
                    held[key] -= 1
                else:
                    missing.append(raw)
            return dataclasses.replace(data.model_data, input=[*compiled, *missing])

        return model_filter

    def _tail(self, n: int) -> list[Item]:
        """The newest ``n`` items (what the model's input can hold of the session)."""
        cm = self._binding.manager
        count = cm.message_count()
        return [_item_of(m) for m in cm.get_messages(max(0, count - n), n)]


def _identity(item: Item) -> str:
    """What names an item across the SDK's normalisations: its type and call id or item id, else its JSON."""
    for field in ("call_id", "id"):
        if isinstance(item.get(field), str):
            return f"{item.get('type')}:{field}:{item[field]}"
    return _key(item)


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
