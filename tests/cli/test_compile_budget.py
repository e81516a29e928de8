"""CLI (a review finding): ``compile --overflow window`` fills the budget on a store whose compression lags,
and a budget too small for anything is over budget (with the smallest ``--budget`` that fits), never
"compression lags" after ``compress`` reported nothing pending: compile uses the settings compress
recorded, so the two agree on what is pending."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from context_journal.cli import app

runner = CliRunner()


def _json(args: list[str]) -> tuple[int, dict]:  # type: ignore[type-arg]
    res = runner.invoke(app, [*args, "--json"])
    return res.exit_code, json.loads(res.stdout)


def test_overflow_window_fills_the_budget_before_compression(imported: Path) -> None:
    db = str(imported)
    common = ["compile", "--store", db, "--budget", "4000", "--preview"]
    code, window = _json([*common, "--strategy", "autobiographical", "--overflow", "window"])
    assert code == 0, window
    code, windowed = _json([*common, "--strategy", "windowed"])
    assert code == 0, windowed
    # Was 626 of 4,000 (the head and the newest message: a 7,216-token tool result blocked the rest).
    assert 3_000 <= window["tokens"] <= 4_000
    assert window["tokens"] >= windowed["tokens"]
    cut = [r for r in window["repairs"] if r["kind"] == "excerpted"]
    assert any("too large for the budget" in r["detail"] for r in cut)


def test_a_budget_too_small_after_compress_is_over_budget_not_lagging(imported: Path, tmp_path: Path) -> None:
    db = tmp_path / "cc.db"
    shutil.copy(imported, db)
    code, report = _json(["compress", "--store", str(db)])
    assert code == 0 and report["done"] and report["pending"] == {"ready": 0, "waiting": 0, "stuck": 0}
    for budget in ("10", "100"):
        res = runner.invoke(app, ["compile", "--store", str(db), "--budget", budget, "--json"])
        assert res.exit_code == 1
        error = json.loads(res.stdout)["error"]
        assert error["type"] == "OverBudgetError"
        assert "compression lags" not in error["message"] and "compress" not in error["message"]
        assert "pending chunks" not in error["parts"] and not error.get("compression_lags")
        smallest = error["smallest_budget"]
        assert isinstance(smallest, int) and smallest >= error["needed"] > int(budget)
        assert f"--budget {smallest:,}" in error["message"]
        code, fits = _json(["compile", "--store", str(db), "--budget", str(smallest), "--preview"])
        assert code == 0 and fits["tokens"] <= smallest
        plain = runner.invoke(app, ["compile", "--store", str(db), "--budget", budget])
        assert plain.exit_code == 1 and "compression lags" not in plain.stderr
    # Still lagging where it matters: the uncompressed store at 4,000 fits by cutting the middle not
    # summarised yet (closed tool units whole), and names the pending work.
    res = runner.invoke(
        app, ["compile", "--store", str(imported), "--budget", "4000", "--strategy", "autobiographical"]
    )
    assert res.exit_code == 0 and "compression lags" in " ".join(res.stderr.split())


def test_compress_and_compile_agree_on_what_is_pending(tmp_path: Path, data_dir: Path) -> None:
    """The reviewer's case: after ``compress`` (nothing pending), ``compile --budget 10`` said compression
    lags, because compile sized its settings for 10 tokens (smaller chunks and recent window: chunks due
    that compress, sized for 4,000, never had). Over every budget, it is over budget or it fits."""
    session = data_dir / "claude-code-sessions" / "tool_heavy.jsonl"
    db = str(tmp_path / "th.db")
    assert runner.invoke(app, ["import", str(session), "--store", db, "--json"]).exit_code == 0
    code, report = _json(["compress", "--store", db])
    assert code == 0 and report["pending"]["ready"] == 0 and report["pending"]["waiting"] == 0
    for budget in (10, 100, 300, 400, 500, 700, 4000):
        res = runner.invoke(app, ["compile", "--store", db, "--budget", str(budget), "--json", "--preview"])
        data = json.loads(res.stdout)
        if res.exit_code == 0:
            assert data["tokens"] <= budget
            continue
        assert data["error"]["type"] == "OverBudgetError", data
        assert "compression lags" not in data["error"]["message"], (budget, data)
        assert data["error"]["smallest_budget"] is not None


def test_a_reserve_equal_to_the_budget_is_refused_as_a_larger_one_is(tmp_path: Path) -> None:
    # A review saw --reserve 100 --budget 100 fail as over budget ("the budget is 0") where --reserve 200
    # was refused as bad input: both leave nothing for the context, both are the same error.
    from context_journal import ContextManager

    db = str(tmp_path / "r.db")
    with ContextManager.open(db) as cm:
        cm.add_message("user", "hi")
    for reserve in ("100", "200"):
        code, out = _json(["compile", "--store", db, "--budget", "100", "--reserve", reserve])
        assert code == 1 and out["error"]["type"] == "ValueError", out
        assert "is not less than max_tokens (100)" in out["error"]["message"]
    code, out = _json(["compile", "--store", db, "--budget", "100", "--reserve", "90"])
    assert code == 0 and out["tokens"] <= 10, out


def test_the_command_line_runs_as_a_module(tmp_path: Path) -> None:
    # `python -m context_journal` and `python -m context_journal.cli` are the console script (a review
    # found neither), named as it is in usage lines.
    import subprocess
    import sys

    for module in ("context_journal", "context_journal.cli"):
        done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "Usage: context-journal" in done.stdout, done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "context_journal", "stats", "--store", str(tmp_path / "none.db"), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and json.loads(done.stdout)["ok"] is False


def test_an_error_over_budget_names_the_reserve_it_took(tmp_path: Path) -> None:
    # A review read "the budget is 800" after `--budget 1000 --reserve 200` as a wrong figure, and the JSON
    # error's "budget" (the context's, 800) beside "smallest_budget" (a --budget, reserve included) gave no
    # way to tell the units apart: the message says what --budget and --reserve made of it, the JSON names
    # the reserve.
    from context_journal import ContextManager

    db = str(tmp_path / "r.db")
    with ContextManager.open(db) as cm:
        cm.add_message("user", "Rules: " + "always cite the file and the line. " * 200)
        cm.add_message("user", "and now the question, " * 200)
    code, out = _json(["compile", "--store", db, "--budget", "220", "--reserve", "200", "--strategy", "windowed"])
    error = out["error"]
    assert code == 1 and error["type"] == "OverBudgetError", out
    assert error["budget"] == 20 and error["reserve"] == 200
    assert "the budget is 20 (--budget 220 less --reserve 200)" in error["message"]
    if error["smallest_budget"] is not None:
        assert error["smallest_budget"] >= error["needed"] + error["reserve"]
    code, out = _json(["compile", "--store", db, "--budget", "20", "--strategy", "windowed"])
    assert code == 1 and out["error"]["reserve"] == 0 and "the budget is 20;" in out["error"]["message"], out


def test_advice_never_names_a_budget_the_command_refuses(tmp_path: Path) -> None:
    # A review was advised "compile with --budget of at least 100,000,123" after --budget 100000000
    # --reserve 99999999, which the command refuses (at most 100,000,000): lowering --reserve is the remedy.
    from context_journal import ContextManager
    from context_journal.tokens import MAX_TOKEN_COUNT

    db = str(tmp_path / "r.db")
    with ContextManager.open(db) as cm:
        cm.add_message("user", "Rules: " + "always cite the file and the line. " * 200)
        cm.add_message("user", "and now the question, " * 200)
    for strategy in ("windowed", "autobiographical"):
        args = ["compile", "--store", db, "--budget", str(MAX_TOKEN_COUNT), "--reserve", str(MAX_TOKEN_COUNT - 5)]
        code, out = _json([*args, "--strategy", strategy])
        error = out["error"]
        assert code == 1 and error["type"] == "OverBudgetError", out
        assert "lower --reserve (99,999,995): --budget is at most 100,000,000" in error["message"], error["message"]
        assert "--budget of at least" not in error["message"] and "raise --budget" not in error["message"]
