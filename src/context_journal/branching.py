"""Branches seen from a manager: fork, switch, list, delete, derive and reopen (DESIGN.md 2.1, 2.5).

A manager is bound to one branch of its store; nothing store-wide says which branch is "current", so
two managers on two branches of one store (in one process or two) never move each other. A branch is
one row ``(parent, fork sequence)``: forking copies nothing and costs the same at any store size.

Strategy state (summaries, chunk records, anchors, calibration) lives in the store under the
manager's namespace on its branch, so a fork or a derived child sees its parent's state up to the fork
point and nothing written on the parent afterwards, and what it writes stays on its own branch.

Rewinding is forking at an earlier point: the abandoned end stays on its branch, readable.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from .errors import BranchInUseError, ContextJournalError, MessageNotFoundError
from .messages import MessageStore
from .sharding import refuse_shard
from .stores import BranchInfo, Store

if TYPE_CHECKING:
    from .llm import Provider
    from .manager import ContextManager
    from .namespaces import AuxiliaryView
    from .strategies import Strategy
    from .tokens import TokenCounter
    from .views import ViewFilter

__all__ = ["BranchSummary", "Derivation", "StrategyInitError", "list_branch_summaries"]


class StrategyInitError(ContextJournalError):
    """A strategy failed to initialise from the store; the manager kept its previous strategy.

    Attributes:
        strategy: Class name of the refused strategy.
        cause: The exception it raised.
    """

    def __init__(self, strategy: str, cause: BaseException) -> None:
        self.strategy = strategy
        self.cause = cause
        super().__init__(
            f"strategy {strategy} failed to initialise from the store ({type(cause).__name__}: {cause}); "
            "the manager keeps its previous strategy"
        )


@dataclass(frozen=True)
class BranchSummary:
    """A branch as :meth:`BranchingMixin.list_branches` reports it.

    Attributes:
        name: Unique among live branches.
        parent: Name of the branch it was forked from (None for the root).
        fork_sequence: Last parent sequence the branch sees (None for the root).
        head_sequence: Newest sequence written on the branch itself (its fork sequence, or 0, when it
            has written nothing).
        created: Creation time, seconds since the epoch.
    """

    name: str
    parent: str | None
    fork_sequence: int | None
    head_sequence: int
    created: float


@dataclass(frozen=True)
class Derivation:
    """How a derived child relates to its parent (:meth:`BranchingMixin.get_derivation`).

    Attributes:
        branch: The child's branch.
        parent_branch: The branch it was derived from.
        parent_namespace: The parent manager's namespace.
        namespace: The child's namespace.
        fork_sequence: Last parent sequence the child sees.
        isolate: Whether the slot is the namespace's own.
        slot: The message slot the child reads and writes (the parent's).
        strategy: Class name of the child's strategy when it was derived.
        created: Derivation time, seconds since the epoch.
    """

    branch: str
    parent_branch: str
    parent_namespace: str
    namespace: str
    fork_sequence: int
    isolate: bool
    slot: str
    strategy: str | None
    created: float

    def to_state(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def derivation_key(branch_id: int) -> str:
    """State key of a branch's derivation record (keyed by id: a name may be reused after deletion)."""
    return f"derivation/{branch_id}"


def branch_summary(store: Store, info: BranchInfo, heads: dict[int, int]) -> BranchSummary:
    """``info`` with its parent's name and its head sequence (``heads``: :meth:`Store.branch_heads`)."""
    parent = store.branch_by_id(info.parent_id).name if info.parent_id is not None else None
    head = heads.get(info.id, info.fork_seq or 0)
    return BranchSummary(info.name, parent, info.fork_seq, head, info.created_at)


def list_branch_summaries(store: Store) -> list[BranchSummary]:
    """Live branches of ``store``, in creation order, with parent, fork and head sequences (no namespace
    or reader is needed: branches belong to the store)."""
    heads = store.branch_heads()
    return [branch_summary(store, b, heads) for b in store.list_branches()]


class BranchingMixin:
    """Branch operations of :class:`~context_journal.manager.ContextManager`."""

    _store: Store
    _branch: BranchInfo
    _messages: MessageStore
    _namespace: str
    _isolate: bool
    _slot: str
    _counter: TokenCounter
    _shard_tokens: int | None
    _branch_indexes: dict[int, MessageStore]
    _summarizer: Provider | None
    _compression_mode: str
    _view_reader: str | None
    _view_filter: ViewFilter | None
    _auxiliary: tuple[AuxiliaryView, ...]
    strategy: Any
    _ledger_at_fork: Callable[..., None]  # the working-state mixin's

    def _check_reader(self, action: str = "read") -> None:  # implemented by the manager
        raise NotImplementedError

    _claim_pending: bool

    def _claim_if_pending(self) -> None:  # implemented by the manager
        raise NotImplementedError

    def _claim_reader(self, branch_id: int) -> None:  # implemented by the manager
        raise NotImplementedError

    # ---- fork / switch ----------------------------------------------------------------------------

    def _resolve_at(self, at: str | int | None) -> int:
        """A fork point as a store sequence: None is the store's head; an int is a sequence; a string is a
        message id (the branch as it stood right after that message was written)."""
        if at is None:
            return self._store.head_seq()
        if isinstance(at, bool):
            raise TypeError("at must be a message id, a sequence or None")
        if isinstance(at, int):
            return at
        refuse_shard(at, "fork at")
        self._messages.refresh()
        entry = self._messages.entry_for(at)
        if entry is None:
            raise MessageNotFoundError(at, f"cannot fork at it: it is not visible on branch {self._branch.name!r}")
        last = self._messages.entry_for(self._group_ids(at)[-1])  # a sharded message: after its last shard
        return max(entry.created_seq, last.created_seq if last is not None else 0)

    def fork(self, name: str, at: str | int | None = None) -> BranchSummary:
        """Create branch ``name`` from this manager's branch; the manager stays where it is.

        Args:
            name: The new branch's name (unique among live branches).
            at: Where to fork: None for the current head, a message id (the branch as it stood right
                after that message was written), or a store sequence.

        Returns:
            The new branch. O(1): one row, nothing copied.

        Raises:
            BranchExistsError: a live branch already has the name (names are never merged into).
            MessageNotFoundError: ``at`` names a message not visible on this branch.
            ValueError: ``at`` is a sequence outside ``0..head``.
        """
        self._check_reader("fork")  # a fork inherits the namespace's reader record
        self._claim_if_pending()
        self._ledger_at_fork()  # a switch to the branch starts from this ledger, not a refold
        info = self._store.create_branch(name, self._branch.name, self._resolve_at(at))
        return self._summary(info, {})

    def switch_branch(self, name: str) -> None:
        """Read and write branch ``name`` from now on; the strategy reloads its state there.

        Raises:
            BranchNotFoundError: no live branch has that name (the manager stays where it was).
        """
        info = self._store.get_branch(name)
        # Refuse a branch where the namespace records another reader (the manager stays put).
        from .readers import ReaderConflictError, recorded_reader

        recorded = recorded_reader(self._store, info.id, self._namespace)
        if recorded is not None and recorded != self._view_reader:
            raise ReaderConflictError(self._namespace, recorded, self._view_reader, f"switch to branch {name!r}")
        index = self._branch_indexes.get(info.id)
        if index is None and info.parent_id == self._branch.id and info.fork_seq is not None:
            # A branch forked from this one at or after what this index holds shares its
            # blocks copy-on-write (O(N / 1,024)) instead of re-reading and re-pricing the history.
            index = self._messages.clone_for(info.id, info.fork_seq)
        if index is None:
            index = MessageStore(self._store, self._slot, info.id, self._counter)
            index.index_thinking = self._messages.index_thinking
        old_branch, old_index = self._branch, self._messages
        self._branch_indexes[old_branch.id] = old_index
        self._branch, self._messages = info, index
        if self.strategy is not None and hasattr(self.strategy, "load"):
            try:
                self.strategy.load(self._strategy_context())
            except BaseException:
                self._branch, self._messages = old_branch, old_index
                raise
        if recorded is None and self._view_reader is not None:
            self._claim_pending = True  # claimed on this branch by the first write there

    def _summary(self, info: BranchInfo, heads: dict[int, int]) -> BranchSummary:
        return branch_summary(self._store, info, heads)

    def list_branches(self) -> list[BranchSummary]:
        """Live branches of the store, in creation order, with parent, fork and head sequences."""
        return list_branch_summaries(self._store)

    def delete_branch(self, name: str) -> None:
        """Delete a branch (its records stay readable through its children; its name becomes free).

        Raises:
            BranchInUseError: it is this manager's branch, the root, or has live children (named).
            BranchNotFoundError: no live branch has that name.
        """
        if name == self._branch.name:
            raise BranchInUseError(name, "it is this manager's current branch; switch away first")
        self._store.delete_branch(name)

    # ---- derive -----------------------------------------------------------------------------------

    def derive(
        self,
        branch: str,
        strategy: Strategy | None = None,
        namespace: str | None = None,
        at: str | int | None = None,
        view_filter: ViewFilter | Literal["inherit"] | None = "inherit",
        auxiliary_views: Sequence[Mapping[str, Any] | str] | Literal["inherit"] | None = "inherit",
    ) -> ContextManager:
        """A child manager on a new branch forked from this one.

        The child reads and writes this manager's message slot on its own branch. With the default
        ``namespace`` (this manager's), it inherits the parent's summaries and chunk records up to the
        fork, so it never re-summarises the parent's history; another namespace starts its compression
        state empty. What the child writes stays on its branch.

        Args:
            branch: Name of the child's new branch.
            strategy: The child's strategy (default: passthrough).
            namespace: The child's namespace (default: this manager's).
            at: Fork point, as for :meth:`fork`.
            view_filter: The child's filter view (``ContextManager.view_filter``): a predicate, None for
                none, or ``"inherit"`` (the default): this manager's.
            auxiliary_views: The child's auxiliary views (``ContextManager.auxiliary_views``), read on
                the child's branch and recorded there; ``"inherit"`` (the default): this manager's.

        Returns:
            The child manager (it shares this manager's store, token counter, summarizer and compression
            mode, and does not close the store).

        Raises:
            BranchExistsError: the branch name is taken; nothing is created.
            MessageNotFoundError: ``at`` names a message not visible here.
            ValueError: an auxiliary view lists the child's own slot (nothing is created).
            AuxiliaryViewsConflictError: other auxiliary views than the child's namespace records, for a
                namespace with summaries (they come to the child; nothing is created).
            NamespaceNotFoundError: an auxiliary view names a namespace that does not exist here.
        """
        from .namespaces import (
            AUXILIARY_STATE,
            AuxiliaryViewsConflictError,
            recorded_auxiliary,
            resolve_auxiliary_views,
        )
        from .readers import READER_STATE, ReaderConflictError, recorded_reader, require_recorded_reads

        self._check_reader("derive")
        fork_seq = self._resolve_at(at)
        child_ns = namespace or self._namespace
        reader = self._view_reader
        child_recorded = recorded_reader(self._store, self._branch.id, child_ns)
        if child_recorded is not None and child_recorded != reader:
            raise ReaderConflictError(child_ns, child_recorded, reader, f"derive branch {branch!r}")
        if reader is not None:
            require_recorded_reads(strategy)
        if isinstance(auxiliary_views, str) and auxiliary_views == "inherit":
            auxiliary_views = [v.to_dict() for v in self._auxiliary]
        found = resolve_auxiliary_views(self._store, self._branch.name, self._slot, auxiliary_views)  # checked first
        names = [a.namespace for a in found]
        inherited = recorded_auxiliary(self._store, self._branch.id, child_ns)
        if names != (inherited or []) and f"compression/{child_ns}" in self._store.list_slots():
            raise AuxiliaryViewsConflictError(child_ns, inherited or [], names, "its summaries come to the new branch")
        with self._store.transaction() as tx:
            info = self._store.create_branch(branch, self._branch.name, fork_seq)
            if names != (inherited or []):  # the child's own record (read before the one it inherits)
                tx.put_state(info.id, f"{child_ns}/{AUXILIARY_STATE}", names)
            record = Derivation(
                branch=branch,
                parent_branch=self._branch.name,
                parent_namespace=self._namespace,
                namespace=child_ns,
                fork_sequence=fork_seq,
                isolate=self._isolate,
                slot=self._slot,
                strategy=type(strategy).__name__ if strategy is not None else None,
                created=time.time(),
            )
            tx.put_state(info.id, derivation_key(info.id), record.to_state())
            if reader is not None:
                tx.put_state(info.id, f"{child_ns}/{READER_STATE}", reader)
        child = cast("type[ContextManager]", type(self))(
            self._store,
            namespace=child_ns,
            isolate=self._isolate,
            strategy=strategy,
            token_counter=self._counter,
            branch=branch,
            slot=self._slot,
            summarizer=self._summarizer,
            compression=self._compression_mode,
            index=self._messages.clone_for(info.id, fork_seq),
            index_thinking=self._messages.index_thinking,
            shard_tokens=self._shard_tokens,
            view_reader=reader,
            view_filter=self._view_filter if isinstance(view_filter, str) and view_filter == "inherit" else view_filter,
        )
        self._ledger_at_fork(child)  # the child's ledger starts as a copy of this one
        return child

    def get_derivation(self) -> Derivation | None:
        """How this manager's branch was derived (parent, branch, fork point), or None if it was not."""
        value = self._store.get_state(self._branch.id, derivation_key(self._branch.id))
        if not isinstance(value, dict):
            return None
        return Derivation(**value)

    @classmethod
    def reopen_derived(
        cls,
        store: Store,
        branch: str,
        strategy: Strategy | None = None,
        token_counter: TokenCounter | None = None,
        summarizer: Provider | None = None,
        view_reader: str | None = None,
        auxiliary_views: Sequence[Mapping[str, Any] | str] | None = None,
        index_thinking: bool = False,
    ) -> ContextManager:
        """Reopen a derived child after a restart with the same view (namespace, slot, branch).

        Args:
            store: The store the child lives in.
            branch: The child's branch.
            strategy: Its strategy (a strategy object cannot be stored; pass the same one again).
            token_counter: Its token counter (default estimate).
            summarizer: Its summarizer (default offline).
            view_reader: The reader the child was derived for, named again (a reader's view is never
                taken from the record alone; bug case B64).
            auxiliary_views: Its auxiliary views; None (the default): the ones its namespace records.
            index_thinking: As :meth:`ContextManager.open`.

        Raises:
            BranchNotFoundError: no live branch has that name.
            ValueError: the branch was not made by :meth:`derive`.
            ReaderConflictError: the child's namespace records a reader other than ``view_reader``.
        """
        info = store.get_branch(branch)
        value = store.get_state(info.id, derivation_key(info.id))
        if not isinstance(value, dict):
            raise ValueError(f"branch {branch!r} was not made by derive(); open it with ContextManager.open(branch=)")
        record = Derivation(**value)
        return cast("type[ContextManager]", cls)(
            store,
            namespace=record.namespace,
            isolate=record.isolate,
            strategy=strategy,
            token_counter=token_counter,
            branch=branch,
            slot=record.slot,
            summarizer=summarizer,
            view_reader=view_reader,
            auxiliary_views=auxiliary_views,
            index_thinking=index_thinking,
        )

    def _group_ids(self, message_id: str) -> list[str]:  # implemented by the manager
        raise NotImplementedError

    def _strategy_context(self) -> Any:  # implemented by the manager
        raise NotImplementedError
