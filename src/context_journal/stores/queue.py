"""The compression work queue's shared types (the table lives in each backend's last migration).

One row per conversation whose compression a ``compression="workers"`` manager wants done: key
``<namespace>/<branch id>/<slot>``, the strategy configuration as JSON, a ``status`` (``pending``,
``done``, ``failed``), a lease (``lease_owner``, ``lease_expires`` in seconds since the epoch), the
number of ``attempts`` (claims) and a ``generation`` bumped by every enqueue, so a worker finishing
an item enqueued again after its claim leaves it pending. Unlike the record log the queue is updated
in place: it is coordination state, not history.

Backends implement ``queue_enqueue``, ``queue_claim``, ``queue_renew``, ``queue_check``,
``queue_finish`` and ``queue_rows`` (:class:`QueueStore`). A worker renews its lease while it works on
an item (a heartbeat, :meth:`QueueStore.queue_renew`): a compare-and-set on the owner and the expiry, so
a lease that expired or that another worker took is never extended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["QUEUE_COLUMNS", "QueueStore", "WorkClaim", "queue_key"]

QUEUE_COLUMNS = (
    "key",
    "namespace",
    "branch_id",
    "slot",
    "status",
    "lease_owner",
    "lease_expires",
    "attempts",
    "generation",
    "error",
    "updated",
)
"""Columns of :meth:`QueueStore.queue_rows` dictionaries."""


def queue_key(namespace: str, branch_id: int, slot: str) -> str:
    """The queue key of a conversation: ``<namespace>/<branch id>/<slot>``."""
    return f"{namespace}/{branch_id}/{slot}"


@dataclass(frozen=True)
class WorkClaim:
    """A leased queue item.

    Attributes:
        key: The item's key.
        namespace: Namespace whose compression records the work writes.
        branch_id: Branch of the conversation.
        slot: Message slot of the conversation.
        config: The strategy as JSON (``{"strategy": name, "config": {...}}``).
        generation: The item's generation when claimed.
        attempts: Claims so far, this one included.
    """

    key: str
    namespace: str
    branch_id: int
    slot: str
    config: str
    generation: int
    attempts: int


@runtime_checkable
class QueueStore(Protocol):
    """A store with the work queue primitives (every backend of this package)."""

    def queue_enqueue(self, key: str, namespace: str, branch_id: int, slot: str, config: str, now: float) -> None:
        """Insert the item, or set it pending again and bump its generation."""
        ...

    def queue_claim(self, owner: str, lease_seconds: float, now: float) -> WorkClaim | None:
        """Lease one claimable item (pending, lease free or expired) for ``lease_seconds`` seconds."""
        ...

    def queue_renew(self, key: str, owner: str, lease_seconds: float, now: float) -> bool:
        """Extend ``owner``'s lease on ``key`` to ``now + lease_seconds`` seconds, in one short transaction,
        only while ``owner`` holds it unexpired (``lease_expires >= now``); False otherwise (released,
        expired, or taken over by another worker), and nothing changes."""
        ...

    def queue_check(self, key: str, owner: str, now: float) -> bool:
        """Inside a transaction: True when ``owner`` still holds an unexpired lease (locks the row)."""
        ...

    def queue_finish(
        self, key: str, owner: str, generation: int, status: str, retry_at: float, now: float, error: str | None
    ) -> bool:
        """Release a lease with a new status; False when the lease was lost."""
        ...

    def queue_rows(self) -> list[dict[str, Any]]:
        """Every row as a dictionary keyed by :data:`QUEUE_COLUMNS`."""
        ...
