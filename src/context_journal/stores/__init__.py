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
    JournalTable,
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
    "JournalTable",
    "Lineage",
    "MemoryStore",
    "Op",
    "Record",
    "SQLiteStore",
    "Store",
    "StoreStats",
    "Transaction",
    "check_location",
    "open_store",
]


def open_store(location: Store | str | os.PathLike[str], **options: Any) -> Store:
    """Open a store from a location.

    Args:
        location: A store (returned unchanged), ``"memory:"``, ``"sqlite:///path/to/db"``, a plain file
            path, or a ``postgresql://`` URL. A PostgreSQL URL may name the store's schema in a ``schema``
            query parameter (``postgresql://user@host/db?schema=team_a``): it is taken out of the URL
            before the driver sees it and passed as ``schema=``.
        **options: Backend options, e.g. ``durability="full"`` for SQLite, ``schema="team_a"`` for
            PostgreSQL.

    Raises:
        MissingExtraError: a PostgreSQL URL without the ``postgres`` extra installed.
        StoreError: the database cannot be opened, or the URL's schema is not a lower-case identifier.
        ValueError: the URL names more than one schema, or one other than the ``schema`` option.
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
        text, schema = _url_schema(text)
        if schema is not None:
            if options.get("schema", schema) != schema:
                raise ValueError(f"the URL names schema {schema!r} and schema= {options['schema']!r}")
            options = {**options, "schema": schema}
        store: Store = PostgresStore(text, **options)
        return store
    if text.startswith("sqlite:///"):
        text = text[len("sqlite:///") :]
    return SQLiteStore(text, **options)


def check_location(location: str | os.PathLike[str], create_dirs: bool = False) -> None:
    """Refuse a SQLite file location whose directory does not exist (a mistyped path must not leave a new
    tree and an empty store behind), or make the directory with ``create_dirs``. ``memory:`` and
    PostgreSQL URLs pass.

    Raises:
        StoreError: the directory is missing and ``create_dirs`` is False.
    """
    from pathlib import Path

    from ..errors import StoreError

    text = os.fspath(location)
    if text.startswith(("postgresql://", "postgres://")) or text in ("memory:", ":memory:"):
        return
    text = text[len("sqlite:///") :] if text.startswith("sqlite:///") else text
    parent = Path(text).expanduser().parent
    if create_dirs:
        parent.mkdir(parents=True, exist_ok=True)
    elif not parent.is_dir():
        raise StoreError(
            f"cannot open {text}: the directory {parent} does not exist; create it first, or pass create_dirs=True"
        )


def _url_schema(url: str) -> tuple[str, str | None]:
    """``url`` without its ``schema`` query parameter, and that parameter's (percent-decoded) value or
    None. The other parameters are kept byte for byte (libpq reads them)."""
    from urllib.parse import unquote

    base, mark, rest = url.partition("?")
    if not mark:
        return url, None
    query, hash_mark, fragment = rest.partition("#")
    kept: list[str] = []
    schemas: list[str] = []
    for part in query.split("&"):
        key, _eq, value = part.partition("=")
        if unquote(key) == "schema":
            schemas.append(unquote(value))
        else:
            kept.append(part)
    if not schemas:
        return url, None
    if len(schemas) > 1:
        raise ValueError(f"the URL names more than one schema: {', '.join(map(repr, schemas))}")
    query = "&".join(kept)
    return base + ("?" + query if query else "") + hash_mark + fragment, schemas[0]
