"""Retention policies: erase what is older than a namespace keeps, by redaction.

A policy is a number of days per namespace, kept as a state record (slot :data:`RETENTION_SLOT`, item =
the namespace, on the root branch; the newest version wins, ``retain_days`` null clears it). Applying
the policies (:func:`apply_retention`: ``context-journal retention apply``, and every
``retention_seconds`` by a :class:`~context_journal.workers.CompressionWorker`) redacts every message of
the namespace's slot, on every branch, whose time is older than ``now - retain_days``, with
:func:`~context_journal.redaction.redact_messages` (so summaries and checkpoints covering it go too, and a
redaction record with reason ``retention: older than N days`` proves each erasure).

A message's time is its ``timestamp`` (the time the conversation gives it: an imported transcript keeps
its own dates), else the time its first version was written. The store's common ``messages`` slot is
shared by the default namespace and every namespace that was never imported or isolated: only the
default namespace sets its policy (a policy on a sharing namespace is refused).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from .errors import RedactionError
from .namespaces import namespace_is_isolated
from .redaction import Redaction, redact_messages
from .stores.base import ROOT_BRANCH, Op, Store
from .stores.redaction import is_redacted

__all__ = ["RETENTION_SLOT", "RetentionPolicy", "apply_retention", "retention_policies", "set_retention"]

RETENTION_SLOT = "retention"
"""Slot of the retention policies (state records on the root branch, item = the namespace)."""

_DAY = 86_400.0
_MAX_DAYS = 1_000_000


@dataclass(frozen=True)
class RetentionPolicy:
    """One namespace's policy.

    Attributes:
        namespace: The namespace.
        retain_days: Days a message is kept (its age measured from its timestamp).
        slot: The message slot the policy erases from.
        sequence: Store sequence of the policy record.
    """

    namespace: str
    retain_days: float
    slot: str
    sequence: int


def _slot_of(store: Store, namespace: str) -> str:
    return f"messages/{namespace}" if namespace_is_isolated(store, namespace) else "messages"


def set_retention(store: Store, namespace: str, retain_days: float | None) -> int:
    """Set (or with None clear) a namespace's policy. Returns the policy record's sequence.

    Raises:
        TypeError: ``retain_days`` is not a number (or None).
        RedactionError: ``retain_days`` is not a positive finite number of days (at most 1,000,000), the
            namespace shares the common message slot (only ``default`` sets its policy), or the backend
            cannot redact.
    """
    if retain_days is not None:
        if isinstance(retain_days, bool) or not isinstance(retain_days, int | float):
            raise TypeError(f"retain_days must be a number of days or None, got {retain_days!r}")
        if not (math.isfinite(retain_days) and 0 < retain_days <= _MAX_DAYS):
            raise RedactionError(f"retain_days must be above 0 and at most {_MAX_DAYS:,}, got {retain_days!r}")
    if not store.can_redact:
        raise RedactionError(f"the {store.backend} backend cannot redact")
    if namespace != "default" and not namespace_is_isolated(store, namespace):
        # The common slot's messages are every sharing namespace's (purge_namespace keeps them too): only the
        # host's default namespace sets how long they are kept.
        raise RedactionError(
            f"namespace {namespace!r} shares the common message slot with the default namespace: set the "
            "retention policy on 'default' (it applies to that slot)"
        )
    body = {"retain_days": None if retain_days is None else float(retain_days), "set_at": time.time()}
    with store.transaction() as tx:
        return tx.append(store.get_branch(ROOT_BRANCH).id, RETENTION_SLOT, namespace, body, Op.STATE)


def retention_policies(store: Store) -> list[RetentionPolicy]:
    """The policies in force (newest version per namespace; cleared ones left out), by namespace."""
    latest: dict[str, tuple[int, object]] = {}
    for rec in store.records_of(RETENTION_SLOT):
        try:
            value = rec.value()
        except ValueError:
            continue
        if isinstance(value, dict):
            latest[rec.item] = (rec.seq, value.get("retain_days"))
    out = []
    for namespace, (seq, days) in sorted(latest.items()):
        if isinstance(days, int | float) and not isinstance(days, bool) and days > 0:
            out.append(RetentionPolicy(namespace, float(days), _slot_of(store, namespace), seq))
    return out


def expired(store: Store, slot: str, cutoff: float) -> list[str]:
    """Ids of the messages of ``slot`` (any branch, not yet erased) whose time is before ``cutoff``
    (seconds since the epoch), oldest first."""
    out: list[str] = []
    seen: set[str] = set()
    for rec in store.records_of(slot):
        if rec.op != Op.APPEND or rec.body is None or rec.item in seen:
            continue
        seen.add(rec.item)
        try:
            value = rec.value()
        except ValueError:
            continue
        if is_redacted(value):
            continue
        ts = value.get("timestamp") if isinstance(value, dict) else None
        when = float(ts) if isinstance(ts, int | float) and not isinstance(ts, bool) else rec.ts
        if when < cutoff:
            out.append(rec.item)
    return out


def apply_retention(store: Store, *, now: float | None = None, by: str = "retention") -> list[Redaction]:
    """Erase, in every namespace with a policy, what is older than the policy keeps.

    Args:
        store: The store.
        now: The present, seconds since the epoch (default: the clock).
        by: Who applies it (kept in each redaction record).

    Returns:
        The redactions made (one per erased message), by slot then age.

    Raises:
        RedactionError: the backend cannot redact.
    """
    if not store.can_redact:
        raise RedactionError(f"the {store.backend} backend cannot redact")
    now = time.time() if now is None else now
    days_by_slot: dict[str, float] = {}
    for policy in retention_policies(store):
        days_by_slot[policy.slot] = min(policy.retain_days, days_by_slot.get(policy.slot, math.inf))
    out: list[Redaction] = []
    for slot, days in sorted(days_by_slot.items()):
        ids = expired(store, slot, now - days * _DAY)
        if ids:
            out.extend(redact_messages(store, slot, ids, reason=f"retention: older than {days:g} days", by=by))
    return out
