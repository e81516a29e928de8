"""The working-state methods of :class:`~context_journal.ContextManager` (a mixin, like branching).

``working_state()`` returns the ledger of the manager's namespace, branch and reader as data;
``set_fact``/``clear_fact`` write host facts as journal records (the state ``<namespace>/facts``:
branch-aware, visible in history, kept across reopen); ``ledger_config`` sets the share, placement
and tool tables. Every compile renders the block (``LedgerConfig.share`` of the budget; 0 disables).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._names import LONE_SURROGATE, name_problem, shows_nothing
from .keeper import LedgerKeeper, LedgerStrategy, facts_from_state
from .ledger import LedgerConfig, WorkingState

if TYPE_CHECKING:
    from ..messages import MessageStore, _Entry
    from ..stores.base import BranchInfo, Store
    from ..strategies.base import Strategy

__all__ = ["FACTS_STATE", "WorkingStateMixin"]

logger = logging.getLogger("context_journal.state")

FACTS_STATE = "facts"
MAX_FACT_KEY = 200
MAX_FACT_TEXT = 4000
_FACT_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # control characters but tab and line breaks


def _check_fact_key(key: object) -> None:
    """Raise TypeError or ValueError (naming the problem) unless ``key`` is a fact key."""
    if not isinstance(key, str):
        raise TypeError(f"a fact key must be a string, not {type(key).__name__}")
    problem = name_problem(key)
    if problem is None and len(key) > MAX_FACT_KEY:
        problem = f"is longer than {MAX_FACT_KEY} characters"
    if problem is not None:
        raise ValueError(f"a fact key {problem} (a key is a name of at most {MAX_FACT_KEY} characters)")


class WorkingStateMixin:
    """Working-state ledger and host facts (see the module docstring)."""

    _store: Store
    _namespace: str
    _branch: BranchInfo
    _messages: MessageStore
    _view_reader: str | None

    def _claim_if_pending(self) -> None:  # implemented by the manager
        raise NotImplementedError

    def _check_reader(self, action: str = "read") -> None:  # implemented by the manager
        raise NotImplementedError

    _ledger_config: LedgerConfig | None = None
    _ledger_keepers: dict[int, LedgerKeeper] | None = None

    @property
    def ledger_config(self) -> LedgerConfig:
        """The working-state ledger's knobs (settable; ``LedgerConfig(share=0)`` disables the block)."""
        if self._ledger_config is None:
            self._ledger_config = LedgerConfig()
        return self._ledger_config

    @ledger_config.setter
    def ledger_config(self, config: LedgerConfig) -> None:
        if not isinstance(config, LedgerConfig):
            raise TypeError(f"ledger_config must be a LedgerConfig, got {type(config).__name__}")
        old = self.ledger_config
        self._ledger_config = config
        if config.fingerprint() != old.fingerprint():
            for keeper in (self._ledger_keepers or {}).values():
                keeper.detach()
            self._ledger_keepers = {}

    _ledger_inherited: tuple[LedgerKeeper, ...] = ()

    def _ledger_keeper(self) -> LedgerKeeper:
        """The keeper of this manager's message index (made on first use, then kept per index). A new
        keeper starts from the newest persisted checkpoint, or from a copy of the ledger of an ancestor
        branch's keeper in this process (a fork or derive), whichever covers more; see
        :mod:`context_journal.state.checkpoint`."""
        if self._ledger_keepers is None:
            self._ledger_keepers = {}
        ms = self._messages
        keeper = self._ledger_keepers.get(id(ms))
        if keeper is None or keeper.messages is not ms:
            seeds = (*self._ledger_keepers.values(), *self._ledger_inherited)
            keeper = LedgerKeeper(ms, self._view_reader, self.ledger_config, seeds)
            self._ledger_keepers[id(ms)] = keeper
            self._ledger_inherited = ()
        return keeper

    def _ledger_appended(self) -> None:
        """After this handle's appends: fold and persist a checkpoint once ``checkpoint_every`` appends
        are past the newest one. A checkpoint is a cache: a failure to write one never fails the append
        (it is logged; the next open folds a little more)."""
        config = self.ledger_config
        if config.share == 0 or not config.checkpoint_every:
            return
        try:
            self._ledger_keeper().appended()
        except Exception:  # the messages are committed; the checkpoint can wait
            logger.warning("working-state checkpoint not written", exc_info=True)

    def _ledger_at_fork(self, child: WorkingStateMixin | None = None) -> None:
        """Before a fork: bring this index's ledger up to the fork point, so the branch (switched to in
        this process, or ``child``, a derived manager) starts from a copy of it instead of refolding."""
        keeper = (self._ledger_keepers or {}).get(id(self._messages))
        if keeper is None or keeper.messages is not self._messages:
            return
        try:
            keeper.sync()
        except Exception:  # the fork does not depend on the ledger
            logger.warning("working-state ledger not synced at the fork", exc_info=True)
            return
        if child is not None:
            child._ledger_inherited = (keeper,)

    def _facts(self) -> dict[str, str]:
        return facts_from_state(self._store.get_state(self._branch.id, f"{self._namespace}/{FACTS_STATE}"))

    def working_state(self) -> WorkingState:
        """The working-state ledger of this namespace, branch and reader, current with the journal:
        plans (latest version of each), facts, files, commands, error lines and identifiers.

        Raises:
            StaleReaderError: another handle claimed this namespace for another reader.
        """
        self._check_reader("read the working state")
        self._messages.refresh()
        return self._ledger_keeper().sync().state(self._facts())

    def set_fact(self, key: str, text: str) -> int:
        """Carry ``text`` under ``key`` in the working state of this namespace and branch (replacing the
        key's previous text). Written as a journal record; returns its sequence, or 0 when the key
        already holds exactly ``text`` (nothing is written). Facts are shown in every compile's
        working-state block, also when the whole conversation fits raw; a long one is clipped there
        (marked ``…``) when the block's share is small, never left out while other lines are shown.

        Raises:
            TypeError: ``key`` or ``text`` is not a string.
            ValueError: an empty or too long key (200 characters) or text (4,000 characters), a key
                that is not a name, or text holding a control character other than a line break or tab
                (NUL cannot be stored by PostgreSQL) or a lone surrogate.
            StaleReaderError: another handle claimed this namespace for another reader.
        """
        _check_fact_key(key)
        if not isinstance(text, str):
            raise TypeError(f"a fact must be a string, not {type(text).__name__}")
        bad = _FACT_CONTROL.search(text) or LONE_SURROGATE.search(text)
        if bad is not None:  # (before the blank check, which reads a text of controls alone as blank)
            raise ValueError(
                f"a fact holds {bad[0]!r} at character {bad.start()}: control characters other than line "
                "breaks and tab, and lone surrogates, cannot be stored on every backend"
            )
        if shows_nothing(text) or len(text) > MAX_FACT_TEXT:
            raise ValueError(f"a fact must be a non-empty string of at most {MAX_FACT_TEXT} characters")
        seq = self._write_facts(lambda facts: {**facts, key: text}, skip_same=True)
        return 0 if seq is None else seq

    def clear_fact(self, key: str) -> int | None:
        """Remove the fact ``key``; returns the sequence written, or None when there was no such fact.

        Raises:
            TypeError: ``key`` is not a string.
            ValueError: ``key`` is not a fact key (empty, not a name, or over 200 characters).
            StaleReaderError: another handle claimed this namespace for another reader.
        """
        _check_fact_key(key)
        return self._write_facts(lambda facts: {k: v for k, v in facts.items() if k != key}, skip_same=True)

    def _write_facts(self, change: Callable[[dict[str, str]], dict[str, str]], skip_same: bool = False) -> int | None:
        self._check_reader("set a fact")
        self._claim_if_pending()
        key = f"{self._namespace}/{FACTS_STATE}"
        with self._store.transaction() as tx:
            current = facts_from_state(self._store.get_state(self._branch.id, key))
            new = change(current)
            if skip_same and new == current:
                return None
            seq: int = tx.put_state(self._branch.id, key, dict(sorted(new.items())))
            return seq

    def _with_ledger(self, strategy: Strategy, user_role: Callable[[str], bool], counter: Any) -> Strategy:
        """``strategy`` wrapped to render the working-state block (itself when the share is 0)."""
        config = self.ledger_config
        if config.share == 0:
            return strategy
        keeper = self._ledger_keeper()
        facts = self._facts()
        state = keeper.sync().state(facts, scores=False)  # the render reads the names' order only
        if state.empty:
            return strategy

        def opens_turn(entry: _Entry) -> bool:  # as the "turn" placement finds the newest user turn
            return "text" in entry.kinds and "tool_result" not in entry.kinds and user_role(entry.participant)

        def before(message_id: str) -> WorkingState | None:
            return keeper.state_before(message_id, facts, opens_turn)

        return LedgerStrategy(strategy, state, config, counter, user_role, keeper.renders, before)
