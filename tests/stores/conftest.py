"""Fixtures of the store tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.stores._race import Mode, RaceResult, run_race


@pytest.fixture
def race(tmp_path: Path) -> Callable[[list[str], int, Mode], RaceResult]:
    """``race(writers, count, mode)``: see :func:`_race.run_race`."""
    return lambda writers, count, mode: run_race(tmp_path, writers, count, mode)
