"""A conversation of a framework bound to a namespace and a branch of a store (shared by the adapters).

A binding owns one :class:`~context_journal.ContextManager` on namespace ``"{kind}:{conversation id}"`` with
a message slot of its own (``isolate=True``). The conversation lives on a branch named after the namespace;
:meth:`SessionBinding.clear` forks an empty successor (``"...#1"``, ``"...#2"``: a fork at sequence 0, O(1))
and records it, so a cleared conversation keeps its whole history readable on the old branch and a handle
reopened later finds the current branch. The record is a state on the store's root branch under
``"{namespace}/current-branch"``.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._names import clip_repr, name_problem
from ..compile import CompileResult
from ..errors import BranchExistsError, BranchNotFoundError
from ..manager import ContextManager
from ..messages import Message
from ..stores import ROOT_BRANCH, Store, check_location, open_store
from ..tokens import TokenCounter

__all__ = ["Piece", "SessionBinding", "journal_order", "pairing_problems", "pieces"]


class SessionBinding:
    """One framework conversation on its own namespace, slot and branch.

    Args:
        kind: The framework (``"openai-agents"``, ``"langchain"``): the namespace's prefix.
        conversation_id: The framework's session or thread id.
        store: An open :class:`Store` (shared, not closed by the binding) or a location (``"memory:"``, a
            SQLite path, a PostgreSQL URL; opened and closed by the binding).
        strategy: The compile strategy (a strategy object or name; None: passthrough).
        token_counter: Token counter for the manager (default: the estimating counter).
    """

    def __init__(
        self,
        kind: str,
        conversation_id: str,
        store: Store | str | os.PathLike[str],
        *,
        strategy: Any = None,
        token_counter: TokenCounter | None = None,
    ) -> None:
        self.namespace = self.namespace_of(kind, conversation_id)
        self._owns = not isinstance(store, Store)
        if not isinstance(store, Store):
            check_location(store)  # a mistyped path is an error, never a new empty store
        self.store = open_store(store)
        try:
            self._root = self.store.get_branch(ROOT_BRANCH).id
            branch = self._current_branch()
            self.manager = ContextManager.open(
                store=self.store,
                namespace=self.namespace,
                isolate=True,
                strategy=strategy,
                token_counter=token_counter,
                branch=branch,
            )
        except BaseException:
            if self._owns:
                self.store.close()
            raise

    @staticmethod
    def namespace_of(kind: str, conversation_id: str) -> str:
        """The namespace of conversation ``conversation_id`` of framework ``kind``.

        Raises:
            ValueError: ``conversation_id`` is not a string that is a name (blank, only invisible
                characters, a control character...), or the namespace would be longer than a name may be.
        """
        if not isinstance(conversation_id, str) or not conversation_id:
            raise ValueError("the session id must be a non-empty string")
        namespace = f"{kind}:{conversation_id}"
        problem = name_problem(conversation_id) or name_problem(namespace)
        if problem is not None:
            raise ValueError(f"the session id {clip_repr(conversation_id)} {problem}")
        return namespace

    @property
    def _pointer(self) -> str:
        return f"{self.namespace}/current-branch"

    def _current_branch(self) -> str:
        """The conversation's branch, created (empty) on first use."""
        recorded = self.store.get_state(self._root, self._pointer)
        if isinstance(recorded, dict) and isinstance(recorded.get("branch"), str):
            return str(recorded["branch"])
        return self._start_branch(self.namespace, 0)

    def _start_branch(self, name: str, generation: int) -> str:
        """Create the empty branch ``name`` (a fork of the root at sequence 0) and record it as current."""
        with contextlib.suppress(BranchExistsError):  # another handle created it first: use it
            self.store.create_branch(name, ROOT_BRANCH, 0)
        with self.store.transaction() as tx:
            tx.put_state(self._root, self._pointer, {"branch": name, "generation": generation})
        return name

    def generation(self) -> int:
        """How many times the conversation was cleared."""
        recorded = self.store.get_state(self._root, self._pointer)
        return int(recorded.get("generation", 0)) if isinstance(recorded, dict) else 0

    def refresh(self) -> None:
        """Follow a clear made by another handle (switch to the recorded branch)."""
        branch = self._current_branch()
        if branch != self.manager.current_branch():
            self.manager.switch_branch(branch)

    def clear(self) -> str:
        """Start the conversation again on a new empty branch; the old branch keeps its history.

        Returns:
            The new branch's name.
        """
        generation = self.generation() + 1
        while True:
            name = f"{self.namespace}#{generation}"
            try:
                self.store.get_branch(name)
            except BranchNotFoundError:
                break
            generation += 1  # a concurrent clear took this name: go past it
        self._start_branch(name, generation)
        self.manager.switch_branch(name)
        return name

    def close(self) -> None:
        """Close the manager (and the store when the binding opened it)."""
        self.manager.close()
        if self._owns:
            self.store.close()


@dataclass
class Piece:
    """One message of a compile as the framework gets it: a stored message whole (``mid`` set; its
    framework object is the one written), or blocks the compile wrote or changed (``mid`` None: a
    summary, recall, the ledger, a note, an excerpt, or a repair such as a stubbed tool result)."""

    participant: str
    role: str
    blocks: list[dict[str, Any]]
    mid: str | None = None
    sequence: int = 0

    @property
    def calls(self) -> list[str]:
        """The ids of the tool calls it makes (an assistant piece)."""
        if self.role != "assistant":
            return []
        return [str(b.get("id")) for b in self.blocks if b.get("type") == "tool_use"]


def _block_key(block: Mapping[str, Any]) -> str:
    return json.dumps(block, sort_keys=True, default=str)


def pieces(
    result: CompileResult,
    fetch: Callable[[str], Message | None],
    *,
    emitted: set[str] | None = None,
    merged_turns: bool = False,
) -> list[Piece]:
    """A compile's messages, in the compile's order, as stored messages and written blocks.

    Each block of a compiled message is traced back to a stored message of its sources (a block equal to
    that message's next block); a stored message all of whose blocks are there, in order, within one
    compiled message comes back whole, at the place of its first block. Every other block (what the
    compile wrote or changed: a stub result for an unanswered call, an excerpt, a renamed call, a
    summary) comes back as blocks at its place. So what the compile repaired reaches the framework as
    it repaired it: every call followed by its result before the next turn, no result without its call.

    A run of stored tool calls and results that the compile reordered (parallel calls the framework
    wrote as separate messages, results moved up to their call) is put back in journal order when that
    order is valid too (:func:`journal_order`).

    Args:
        result: The compile.
        fetch: A stored message by id (None when gone).
        emitted: Stored ids already given (the system part): not given again.
        merged_turns: Consecutive assistant messages are one model turn (the Agents SDK writes each call
            of a turn as an item of its own); else each assistant message is a turn (LangChain).
    """
    done: set[str] = set(emitted or ())
    out: list[Piece] = []
    for compiled in result.messages:
        candidates: dict[str, tuple[Message, list[dict[str, Any]]]] = {}
        for source in compiled.sources:
            if source.kind != "message" or source.id in done or source.id in candidates:
                continue
            found = fetch(source.id)
            if found is not None:
                candidates[source.id] = (found, found.content_dicts())
        cursor: dict[str, int] = dict.fromkeys(candidates, 0)
        owner: list[str | None] = []
        for block in compiled.content:
            key = _block_key(block)
            hit = None
            for mid, (_, blocks) in candidates.items():
                at = cursor[mid]
                started = at == 0 or (bool(owner) and owner[-1] == mid)  # a message's blocks run together
                if at < len(blocks) and started and _block_key(blocks[at]) == key:
                    hit = mid
                    break
            if hit is not None:
                cursor[hit] += 1
            owner.append(hit)
        whole = {mid for mid, (_, blocks) in candidates.items() if blocks and cursor[mid] == len(blocks)}
        loose: list[dict[str, Any]] = []
        tail: list[tuple[dict[str, Any] | None, str | None]] = [(None, None)]
        for given, by in [*zip(compiled.content, owner, strict=True), *tail]:
            if given is not None and by not in whole:
                loose.append(dict(given))
                continue
            if loose:  # the written blocks before this stored message (or at the end)
                out.append(Piece(compiled.participant, compiled.role, loose))
                loose = []
            if by is not None and by not in done:
                done.add(by)
                message, blocks = candidates[by]
                out.append(Piece(message.participant, compiled.role, blocks, by, message.created_sequence))
    return journal_order(out, merged_turns=merged_turns)


def pairing_problems(items: Sequence[Piece], *, merged_turns: bool = False) -> list[str]:
    """What breaks tool pairing in pieces: a call not answered before the next turn (a user text, or
    another assistant turn; with ``merged_turns``, consecutive assistant pieces are one turn), a result
    that answers no open call."""
    problems: list[str] = []
    open_calls: list[str] = []
    previous = ""
    for piece in items:
        if piece.role == "assistant":
            if open_calls and not (merged_turns and previous == "assistant"):
                problems += [f"unanswered {c}" for c in open_calls]
                open_calls = []
            open_calls += piece.calls
            previous = "assistant"
            continue
        for block in piece.blocks:
            if block.get("type") == "tool_result":
                tid = str(block.get("tool_use_id"))
                if tid in open_calls:
                    open_calls.remove(tid)
                else:
                    problems.append(f"orphan result {tid}")
            elif open_calls:
                problems += [f"unanswered {c}" for c in open_calls]
                open_calls = []
        previous = "user"
    return problems + [f"unanswered {c}" for c in open_calls]


def _tool_only(piece: Piece) -> bool:
    if piece.mid is None:
        return False
    if piece.role == "assistant":
        return bool(piece.calls)
    return bool(piece.blocks) and all(b.get("type") == "tool_result" for b in piece.blocks)


def journal_order(items: list[Piece], *, merged_turns: bool = False) -> list[Piece]:
    """Runs of stored tool calls and results put back in the order they were written, where that order
    pairs every call too (each run checked on its own, closed: all its calls answered within it)."""
    out: list[Piece] = []
    i = 0
    while i < len(items):
        if not _tool_only(items[i]):
            out.append(items[i])
            i += 1
            continue
        j = i
        while j < len(items) and _tool_only(items[j]):
            j += 1
        run = items[i:j]
        ordered = sorted(run, key=lambda p: p.sequence)
        valid = ordered[0].role == "assistant" and not pairing_problems(ordered, merged_turns=merged_turns)
        if ordered != run and valid:
            run = ordered
        out.extend(run)
        i = j
    return out
