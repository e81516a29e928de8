"""Counts and durations a caller gives are typed and bounded everywhere (a review found:
``report_usage`` took nan/inf/1e30/True into the calibration, ``get_messages(True)`` read offset 1,
``drain(max_units=inf)`` was accepted, a worker took ``concurrency=10**9`` and spun, and a timestamp of
``10**400`` raised an untyped ``OverflowError``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from context_journal.errors import MalformedContentError
from context_journal.workers import CompressionWorker

BAD_NUMBERS: list[Any] = [float("nan"), float("inf"), 1e30, True, 1.5, "3"]


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_report_usage_refuses_what_is_not_a_token_count(bad: Any) -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hello there")
    result = cm.compile(1000)
    with pytest.raises((TypeError, ValueError)):
        cm.report_usage(result, bad)
    assert cm.compile(1000).calibration == result.calibration == 1.0  # nothing moved


@pytest.mark.parametrize(("kwargs"), [{"offset": True}, {"offset": 1.5}, {"limit": True}, {"limit": -1}])
def test_get_messages_refuses_bools_floats_and_negatives(kwargs: dict[str, Any]) -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "a")
    with pytest.raises((TypeError, ValueError)):
        cm.get_messages(**kwargs)


@pytest.mark.parametrize(
    "kwargs", [{"max_units": float("inf")}, {"max_units": True}, {"max_units": -1}, {"max_wait": float("nan")}]
)
def test_drain_refuses_bad_bounds(kwargs: dict[str, Any]) -> None:
    with pytest.raises((TypeError, ValueError)):
        ContextManager.open("memory:").drain(**kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"concurrency": 10**9},
        {"concurrency": True},
        {"concurrency": 0},
        {"lease_seconds": True},
        {"lease_seconds": 1e30},
        {"lease_seconds": float("nan")},
        {"poll_seconds": float("inf")},
    ],
)
def test_worker_bounds(kwargs: dict[str, Any]) -> None:
    with pytest.raises((TypeError, ValueError)):
        CompressionWorker("memory:", **kwargs)


def test_worker_cli_concurrency_has_an_upper_bound(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    ContextManager.open(db).close()
    res = CliRunner().invoke(app, ["worker", "--store", str(db), "--concurrency", "1000000000", "--until-idle"])
    assert res.exit_code == 2 and "--concurrency" in res.output


def test_a_huge_integer_timestamp_is_a_typed_refusal() -> None:
    cm = ContextManager.open("memory:")
    with pytest.raises(MalformedContentError, match="timestamp"):
        cm.add_message("user", "x", timestamp=10**400)
    assert cm.message_count() == 0
