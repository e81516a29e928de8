from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.workers._work import PG_URL, pg_unavailable


@pytest.fixture(params=["sqlite", "postgres"])
def spec(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A store spec for child processes: ``sqlite:<path>``, or ``pg:<fresh schema>`` when a server answers
    (skipped otherwise; with ``CI`` set an unreachable server fails)."""
    if request.param == "sqlite":
        yield f"sqlite:{tmp_path / 'w.db'}"
        return
    reason = pg_unavailable()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set and the PostgreSQL suite cannot run: {reason}")
        pytest.skip(reason)
    name = f"cj_wk_{uuid.uuid4().hex[:12]}"
    yield f"pg:{name}"
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
