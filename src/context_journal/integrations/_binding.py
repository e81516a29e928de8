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
import os
from typing import Any

from ..compile import CompiledMessage, CompileResult
from ..errors import BranchExistsError, BranchNotFoundError
from ..manager import ContextManager
from ..stores import ROOT_BRANCH, Store, open_store
from ..tokens import TokenCounter

__all__ = ["SessionBinding", "is_raw", "segments"]


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
        if not isinstance(conversation_id, str) or not conversation_id:
            raise ValueError("the session id must be a non-empty string")
        self.namespace = f"{kind}:{conversation_id}"
        self._owns = not isinstance(store, Store)
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


def is_raw(compiled: CompiledMessage) -> bool:
    """True when a compiled message is stored messages, whole and unaltered."""
    return bool(compiled.sources) and all(s.kind == "message" and s.complete for s in compiled.sources)


def segments(result: CompileResult) -> list[list[str] | CompiledMessage]:
    """A compile in order as runs of stored message ids (each run in journal order, every id once) and the
    compiled messages between them that are not stored messages (summaries, recall, the ledger, notes, a
    reduced tool result).

    The compile may move a tool result right after its call (parallel calls written as separate messages);
    a run put back in journal order keeps every call answered (its results follow it within the run) and
    gives the framework its items in the order it wrote them.
    """
    out: list[list[str] | CompiledMessage] = []
    seen: set[str] = set()
    run: dict[str, int] = {}

    def flush() -> None:
        if run:
            out.append(sorted(run, key=lambda mid: run[mid]))
            run.clear()

    for compiled in result.messages:
        if not is_raw(compiled):
            flush()
            out.append(compiled)
            continue
        for source in compiled.sources:
            if source.id not in seen:
                seen.add(source.id)
                run[source.id] = source.sequence or 0
    flush()
    return out
