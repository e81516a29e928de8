"""The compression read mark of a namespace and branch: the newest store sequence its compression may
have read. A reader's audience may not be narrowed below it (a summary may already hold the
block), so the mark is raised before each summary request is sent. Kept below the strategies (their
:class:`~context_journal.strategies.base.StrategyContext` raises it) and the readers module (which checks
edits against it); re-exported by :mod:`context_journal.readers`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .stores.base import Store

__all__ = ["COMPRESSION_READ_STATE", "compression_read_mark", "raise_compression_read"]

COMPRESSION_READ_STATE = "compression_read"
"""Namespace state: the compression read mark (a store sequence)."""


def compression_read_mark(store: Store, branch_id: int, namespace: str) -> int:
    """The newest store sequence compression may have read on the namespace and branch (0 if none)."""
    value = store.get_state(branch_id, f"{namespace}/{COMPRESSION_READ_STATE}")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def raise_compression_read(store: Store, branch_id: int, namespace: str, sequence: int) -> None:
    """Raise the compression read mark to ``sequence`` (never lowers it). Raises on a failed write."""
    if sequence <= compression_read_mark(store, branch_id, namespace):
        return
    with store.transaction() as tx:
        tx.put_state(branch_id, f"{namespace}/{COMPRESSION_READ_STATE}", sequence)
