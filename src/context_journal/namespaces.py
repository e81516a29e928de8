"""Which namespaces a store holds, and the strategy a namespace records (for the CLI and MCP edges).

A namespace exists in a store when it is the shared ``"default"`` one, has a message slot of its own
(an imported conversation, ``isolate=True``), has compression records, or has a state of its own on the
branch (its reader, roles, pins, calibration, facts, recorded strategy, windowed anchor...). Read commands
and tools refuse a namespace that does not exist instead of reading the shared slot under a mistyped name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, NoReturn

from .errors import ContextJournalError
from .stores import ROOT_BRANCH, Store

__all__ = [
    "IMPORT_STATE_PREFIX",
    "NAMESPACE_MARK",
    "STRATEGY_STATE",
    "AuxiliaryView",
    "NamespaceNotFoundError",
    "list_namespaces",
    "namespace_exists",
    "namespace_is_isolated",
    "recorded_auxiliary",
    "recorded_config",
    "recorded_strategy",
    "require_namespace",
    "resolve_auxiliary_views",
    "same_strategy",
    "strategy_record",
]

STRATEGY_STATE = "strategy"
"""State name (relative to the namespace) of the strategy its compression runs with:
``{"strategy": "autobiographical", "config": {...}, "budget": N}`` (written by ``context-journal compress``)."""

IMPORT_STATE_PREFIX = "imports/"
"""Key prefix of the (store-level) states that hold imported conversations' metadata."""

NAMESPACE_MARK = "namespace"
"""State name (relative to the namespace) a remote writer records when it creates a namespace in the shared slot."""


def namespace_is_isolated(store: Store, namespace: str | None) -> bool:
    """True when ``namespace`` has a message slot of its own in ``store`` (as an import of several
    conversations, ``--namespace`` or ``isolate=True`` creates), so it is read without an isolate flag."""
    return bool(namespace) and f"messages/{namespace}" in store.list_slots()


AUXILIARY_STATE = "auxiliary"
"""State name (relative to the namespace) of the auxiliary views it records: the namespaces' names, in order."""

_NAMESPACE_STATES = {
    AUXILIARY_STATE,
    "reader",
    "roles",
    "calibration",
    "pins",
    "facts",
    "compression_read",
    STRATEGY_STATE,
    NAMESPACE_MARK,
    "windowed/anchor",
    "summarizer/system",
    "summarizer/tools",
}
_SYSTEM_PREFIXES = ("imports/", "_journal/", "cli/")


class NamespaceNotFoundError(ContextJournalError, KeyError):
    """No namespace of that name in the store (a mistyped name never reads the shared slot).

    Attributes:
        namespace: The name asked for.
        known: The namespaces that exist.
    """

    def __init__(self, namespace: str, known: list[str]) -> None:
        self.namespace = namespace
        self.known = list(known)
        shown = ", ".join(known[:20]) + (f" (+{len(known) - 20} more)" if len(known) > 20 else "")
        super().__init__(f"no namespace {namespace!r} in this store; the namespaces are: {shown}")

    def __str__(self) -> str:
        return str(self.args[0])


def _state_namespaces(store: Store, branch_id: int) -> set[str]:
    found: set[str] = set()
    for rec in store.read_slot("state", branch_id):
        key = rec.item
        if key.startswith(_SYSTEM_PREFIXES):
            continue
        for name in _NAMESPACE_STATES:
            if key.endswith("/" + name) and len(key) > len(name) + 1:
                found.add(key[: -len(name) - 1])
    return found


def list_namespaces(store: Store, branch: str = ROOT_BRANCH) -> list[str]:
    """The namespaces of ``store`` seen from ``branch`` (``"default"`` first, then sorted).

    Raises:
        BranchNotFoundError: the branch does not exist.
    """
    branch_id = store.get_branch(branch).id
    names: set[str] = set()
    for slot in store.list_slots():
        for prefix in ("messages/", "compression/"):
            if slot.startswith(prefix) and len(slot) > len(prefix):
                names.add(slot[len(prefix) :])
    names |= _state_namespaces(store, branch_id)
    names.discard("default")
    return ["default", *sorted(names)]


def namespace_exists(store: Store, namespace: str | None, branch: str = ROOT_BRANCH) -> bool:
    """True for None / ``"default"`` and for every namespace :func:`list_namespaces` lists."""
    if not namespace or namespace == "default":
        return True
    slots = store.list_slots()
    if f"messages/{namespace}" in slots or f"compression/{namespace}" in slots:
        return True
    return namespace in _state_namespaces(store, store.get_branch(branch).id)


def require_namespace(store: Store, namespace: str | None, branch: str = ROOT_BRANCH) -> None:
    """Raise unless ``namespace`` exists.

    Raises:
        NamespaceNotFoundError: it does not (the error lists those that do).
        BranchNotFoundError: the branch does not exist.
    """
    if not namespace_exists(store, namespace, branch):
        raise NamespaceNotFoundError(str(namespace), list_namespaces(store, branch))


def recorded_strategy(store: Store, namespace: str | None, branch: str = ROOT_BRANCH) -> dict[str, Any] | None:
    """The strategy a namespace records (``{"strategy": name, "config": {...}, ...}``), or None."""
    value = store.get_state(store.get_branch(branch).id, f"{namespace or 'default'}/{STRATEGY_STATE}")
    return value if isinstance(value, dict) and isinstance(value.get("strategy"), str) else None


def record_strategy(store: Store, namespace: str | None, branch: str, record: dict[str, Any]) -> bool:
    """Record ``record`` (:func:`strategy_record`'s value) as the strategy of ``namespace`` on ``branch``,
    unless it records exactly that already; True when it was written.

    Raises:
        BranchNotFoundError: no branch of that name.
        StoreError: the write failed (nothing is written).
    """
    if recorded_strategy(store, namespace, branch) == record:
        return False
    with store.transaction() as tx:
        tx.put_state(store.get_branch(branch).id, f"{namespace or 'default'}/{STRATEGY_STATE}", record)
    return True


def strategy_record(strategy: Any, budget: int | None = None, compression: str | None = None) -> dict[str, Any] | None:
    """What a namespace records for a ``strategy`` the command line and the MCP server can rebuild (a
    :class:`~context_journal.strategies.base.RecordedStrategy`: ``{"strategy": "autobiographical" |
    "knowledge", "config": {...}, "budget": tokens or None}``, plus ``"compression": "workers"`` when
    given), so they compile it as the host does; None for any other strategy."""
    from .strategies.base import RecordedStrategy

    if not isinstance(strategy, RecordedStrategy):
        return None
    record: dict[str, Any] = {**strategy.settings_record(), "budget": budget}
    if compression == "workers":
        record["compression"] = "workers"
    return record


def same_strategy(recorded: dict[str, Any] | None, record: dict[str, Any]) -> bool:
    """True when ``recorded`` names the strategy and settings of ``record`` (its budget aside)."""
    return bool(recorded) and all(recorded.get(k) == record.get(k) for k in ("strategy", "config"))  # type: ignore[union-attr]


def recorded_config(recorded: dict[str, Any] | None, name: str, overflow: str = "excerpt") -> Any:
    """The :class:`~context_journal.strategies.AutobiographicalConfig` that ``compress`` recorded with
    strategy ``name`` (``recorded``: :func:`recorded_strategy`'s value), with ``overflow`` set; None when it
    recorded another strategy or settings this version cannot read. A compile of a compressed namespace
    uses these settings whatever its budget, so it sees the same pending work ``compress`` left."""
    if not recorded or recorded.get("strategy") != name or not isinstance(recorded.get("config"), dict):
        return None
    from .strategies import AutobiographicalConfig

    try:
        return AutobiographicalConfig(**{**recorded["config"], "overflow": overflow})
    except (TypeError, ValueError):
        return None


COMPRESS_BUDGET = 4000
"""The compile budget, in tokens, that ``compress`` (CLI and MCP) sizes a strategy for when neither the
command nor the namespace gives one."""


def recorded_compressing_strategy(recorded: dict[str, Any] | None) -> Any:
    """A new instance of the compressing strategy ``compress`` recorded (``recorded``: :func:`recorded_strategy`'s
    value) with its settings; else (none recorded, or settings this version cannot read) the one
    ``compress`` would make: the autobiographical strategy sized for :data:`COMPRESS_BUDGET` tokens. What
    the command line changes windows on."""
    from .strategies import COMPRESSING_STRATEGY_NAMES, AutobiographicalConfig, strategy_by_name

    name = str(recorded.get("strategy")) if recorded else "autobiographical"
    if name not in COMPRESSING_STRATEGY_NAMES:
        name = "autobiographical"
    config = recorded_config(recorded, name) or AutobiographicalConfig.for_budget(COMPRESS_BUDGET)
    return strategy_by_name(name, config)


class AuxiliaryView(NamedTuple):
    """One slot merged read-only into a manager's strategy view (``auxiliary_views=``).

    Attributes:
        namespace: The namespace whose messages are read.
        slot: Its message slot (``"messages/<namespace>"`` for a namespace with a slot of its own, else
            the shared ``"messages"``).
    """

    namespace: str
    slot: str

    def to_dict(self) -> dict[str, str]:
        """The spec form (``{"namespace": ...}``)."""
        return {"namespace": self.namespace}


def _own_slot_listed(k: int, name: str, slot: str) -> NoReturn:
    """Raise the error of an auxiliary view ``k`` (namespace ``name``) that lists the manager's own slot."""
    raise ValueError(
        f"auxiliary_views[{k}]: namespace {name!r} reads this manager's own message slot {slot!r}; "
        "an auxiliary view lists another slot (open the side reader with isolate=True to give it one)"
    )


def resolve_auxiliary_views(
    store: Store, branch: str, own_slot: str, specs: Sequence[Mapping[str, Any] | str] | None
) -> tuple[AuxiliaryView, ...]:
    """The slots ``specs`` name, each once, in the order first listed.

    Args:
        store: The store.
        branch: The branch the manager reads (the namespaces must exist on it).
        own_slot: The manager's own message slot.
        specs: ``[{"namespace": name}, ...]`` (a bare name is taken as ``{"namespace": name}``); None or
            empty for none.

    Raises:
        TypeError: ``specs`` is not a list of mappings or names.
        ValueError: a spec has a key other than ``namespace``, or lists the manager's own slot (its
            messages are in the view already; a namespace over the shared slot reads the shared slot).
        NamespaceNotFoundError: a namespace does not exist on the branch.
    """
    if specs is None:
        return ()
    if isinstance(specs, str | Mapping) or not isinstance(specs, Sequence):
        raise TypeError(f'auxiliary_views must be a list like [{{"namespace": "main"}}], got {type(specs).__name__}')
    out: list[AuxiliaryView] = []
    for k, spec in enumerate(specs):
        if isinstance(spec, str):
            spec = {"namespace": spec}
        if not isinstance(spec, Mapping):
            raise TypeError(f'auxiliary_views[{k}] must be {{"namespace": name}}, got {type(spec).__name__}')
        extra = sorted(str(key) for key in spec if key != "namespace")
        if extra:
            raise ValueError(f"auxiliary_views[{k}] has unknown keys {extra}; the one key is 'namespace'")
        name = spec.get("namespace")
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"auxiliary_views[{k}] needs a namespace name, got {name!r}")
        if own_slot == f"messages/{name}":
            _own_slot_listed(k, name, own_slot)  # before the lookup: a handle opening its own namespace may list it
        require_namespace(store, name, branch)
        isolated = namespace_is_isolated(store, name)
        if not isolated and name != "default":
            raise ValueError(
                f"auxiliary_views[{k}]: namespace {name!r} has no message slot of its own (yet): list 'default' to "
                "read the shared messages, or name a namespace once its first message is written (an import, or "
                "isolate=True)"
            )
        slot = f"messages/{name}" if isolated else "messages"
        if slot == own_slot:
            _own_slot_listed(k, name, slot)
        if all(v.slot != slot for v in out):  # the same slot listed twice is merged once
            out.append(AuxiliaryView(name, slot))
    return tuple(out)


class AuxiliaryViewsConflictError(ContextJournalError, ValueError):
    """A handle names other auxiliary views than the ones its namespace records on the branch (its
    summaries were made from the recorded merged view; another view would hide or repeat messages).

    Attributes:
        namespace: The namespace.
        recorded: The auxiliary namespaces it records.
        given: The ones the handle named.
    """

    def __init__(self, namespace: str, recorded: list[str], given: list[str], why: str = "") -> None:
        self.namespace, self.recorded, self.given = namespace, list(recorded), list(given)
        super().__init__(
            f"namespace {namespace!r} records auxiliary views {recorded} on this branch and this handle names {given}"
            + (f" ({why})" if why else "")
            + "; omit auxiliary_views to use the recorded ones, or derive a branch or use another namespace "
            "for another view"
        )

    def __str__(self) -> str:
        return str(self.args[0])


def recorded_auxiliary(store: Store, branch_id: int, namespace: str) -> list[str] | None:
    """The auxiliary namespaces ``namespace`` records on the branch (inherited from the branch it was forked
    from), or None when it records none. A record that is not a list of names reads as None."""
    value = store.get_state(branch_id, f"{namespace}/{AUXILIARY_STATE}")
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None
