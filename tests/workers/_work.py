"""Helpers of the worker tests: stores by spec, synthetic conversations, record counts."""

from __future__ import annotations

import collections
import os
import time
from typing import Any

from context_journal import ContextManager
from context_journal.stores.base import Store
from context_journal.strategies import AutobiographicalStrategy
from context_journal.strategies.autobiographical.records import slot_for, summary_id_for_chunk

_WALL_AT_START = time.time() - time.monotonic()


def steady_clock() -> float:
    """Seconds since the epoch that never step: the wall time at import plus monotonic time since.

    For workers of one process whose tests assert that no lease was lost. The default clock is the wall
    clock (leases compare times across hosts), and a wall clock that steps forward makes every lease
    look expired at once (these machines are virtual: the kernel logs "virtual machine fork", and a VM
    restored or resumed has its wall clock set forward while the monotonic one is not). A CI run lost
    the leases of all three workers 0.8-1.0 s into 1.5 s leases renewed every 0.2 s, two renewals each
    having succeeded, which no stall of the process explains: taking a lease over needs a clock past
    its expiry. What a lost lease does is tested with an injected clock (test_workers.py)."""
    return _WALL_AT_START + time.monotonic()


PG_URL = os.environ.get("CONTEXT_JOURNAL_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")

CONFIG: dict[str, Any] = {
    "head_window_tokens": 40,
    "recent_window_tokens": 80,
    "target_chunk_tokens": 100,
    "merge_threshold": 3,
}


def pg_unavailable() -> str | None:
    try:
        import psycopg

        psycopg.connect(PG_URL, connect_timeout=2).close()
    except Exception as exc:  # ImportError or a connection error
        return f"no PostgreSQL server at {PG_URL}: {exc}"
    return None


def open_spec(spec: str) -> Store:
    """``sqlite:<path>`` or ``pg:<schema>``."""
    kind, _, rest = spec.partition(":")
    if kind == "pg":
        from context_journal.stores.postgres import PostgresStore

        return PostgresStore(PG_URL, schema=rest)
    from context_journal.stores.sqlite import SQLiteStore

    return SQLiteStore(rest)


def strategy() -> AutobiographicalStrategy:
    return AutobiographicalStrategy(**CONFIG)


def seed(store: Store, conversations: int, messages: int) -> list[str]:
    """``conversations`` workers-mode conversations (namespaces ``c00``...), each in its own slot."""
    names = []
    for c in range(conversations):
        ns = f"c{c:02d}"
        cm = ContextManager(store, namespace=ns, isolate=True, strategy=strategy(), compression="workers")
        for i in range(messages):
            who = "user" if i % 2 == 0 else "assistant"
            cm.add_message(who, f"{ns} turn {i}: " + "the quick brown fox jumps over the lazy dog " * 3)
        names.append(ns)
    return names


def record_counts(store: Store, namespace: str) -> tuple[list[str], collections.Counter[str]]:
    """The namespace's chunk ids and the number of records per item of its compression slot."""
    branch = store.get_branch("main").id
    counts: collections.Counter[str] = collections.Counter(r.item for r in store.read_slot(slot_for(namespace), branch))
    chunks = sorted(i.split("/", 1)[1] for i in counts if i.startswith("chunk/"))
    return chunks, counts


def assert_each_once(store: Store, namespace: str) -> int:
    """Every chunk has exactly one L1 summary record; no summary or chunk item was written twice.
    Returns the number of chunks."""
    chunks, counts = record_counts(store, namespace)
    assert chunks, f"{namespace}: no chunk closed"
    for cid in chunks:
        assert counts[f"summary/{summary_id_for_chunk(cid)}"] == 1, (namespace, cid, counts)
    twice = {i: n for i, n in counts.items() if n > 1 and i.startswith(("summary/", "chunk/", "part/"))}
    assert not twice, (namespace, twice)
    return len(chunks)
