"""Stores: the record-store contract and its backends (memory, SQLite, PostgreSQL).

:func:`open_store` picks a backend from a location: a :class:`Store` is returned as is,
``"memory:"`` gives a :class:`MemoryStore`, ``sqlite:///path`` or a plain path gives a
:class:`SQLiteStore`, and ``postgresql://...`` a PostgreSQL store (extra ``postgres``).
"""

from __future__ import annotations

import os
from typing import Any

from .base import (
    JOURNAL_SLOT,
    ROOT_BRANCH,
    BranchInfo,
    JournalRow,
    Lineage,
    Op,
    Record,
    Store,
    StoreStats,
    Transaction,
)
from .memory import MemoryStore
from .sqlite import SQLiteStore

__all__ = [
    "JOURNAL_SLOT",
    "ROOT_BRANCH",
    "BranchInfo",
    "JournalRow",
    "Lineage",
    "MemoryStore",
    "Op",
    "Record",
    "SQLiteStore",
    "Store",
    "StoreStats",
    "Transaction",
    "open_store",
]


def open_store(location: Store | str | os.PathLike[str], **options: Any) -> Store:
    """Open a store from a location.

    Args:
        location: A store (returned unchanged), ``"memory:"``, ``"sqlite:///path/to/db"``, a plain file
            path, or a ``postgresql://`` URL.
        **options: Backend options, e.g. ``durability="full"`` for SQLite.

    Raises:
        MissingExtraError: a PostgreSQL URL without the ``postgres`` extra installed.
        StoreError: the database cannot be opened.
    """
    if isinstance(location, Store):
        return location
    text = os.fspath(location)
    if text in ("memory:", ":memory:"):
        return MemoryStore()
    if text.startswith(("postgresql://", "postgres://")):
        try:
            from .postgres import PostgresStore  # type: ignore[import-not-found,unused-ignore]
        except ImportError as exc:  # pragma: no cover - depends on the extra
            from ..errors import MissingExtraError

            raise MissingExtraError("psycopg", "postgres") from exc
        store: Store = PostgresStore(text, **options)
        return store
    if text.startswith("sqlite:///"):
        text = text[len("sqlite:///") :]
    return SQLiteStore(text, **options)
