"""Fixtures of the CLI tests: a real Claude Code session imported through the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.real_stores import copy_store


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory, cli_imported_session: Path) -> Path:
    """A real Claude Code session (308 messages, ~170k tokens) imported with ``import``, not compressed
    (one store per test module, a copy of the run's one import; copy it before writing to it)."""
    return copy_store(cli_imported_session, tmp_path_factory.mktemp("cc") / "cc.db")
