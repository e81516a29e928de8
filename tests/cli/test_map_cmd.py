"""CLI: ``map`` draws the compiled context of a real Claude Code session as one HTML page (and a
PNG through a headless browser), end to end from import as the README shows."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from context_journal.cli import app
from context_journal.viz.browser import BROWSER_ENV, find_browser
from tests.map_helpers import parse, parts_per_lane, pixel_stats, raw_like

runner = CliRunner()


@pytest.fixture(scope="module")
def compressed(imported: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's steps on a real Claude Code session: import (a copy of ``imported``), compress, compile."""
    db = tmp_path_factory.mktemp("ccmap") / "cc.db"
    shutil.copy(imported, db)
    res = runner.invoke(app, ["compress", "--store", str(db), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["done"], res.output
    return db


def test_import_compress_compile_map_end_to_end(compressed: Path, tmp_path: Path) -> None:
    db = str(compressed)
    res = runner.invoke(app, ["compile", "--store", db, "--strategy", "autobiographical", "--budget", "4000"])
    assert res.exit_code == 0, res.output
    compiled = json.loads(res.stdout)
    out = tmp_path / "map.html"
    res = runner.invoke(
        app, ["map", "--store", db, "--strategy", "autobiographical", "--budget", "4000", "--html", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "wrote" in res.output and "map.html" in res.output
    page = out.read_text(encoding="utf-8")
    assert compiled["compile_id"] in page  # the map draws the very context `compile` printed
    lanes = parts_per_lane(page)
    summaries = sum(v for k, v in lanes.items() if k.startswith("summary-"))
    # 3+: the newest question and the 7,216-token result answering it are in the raw recent window (its
    # excerpt takes about 1,200 tokens), so the middle folds coarser than when they were summarised.
    assert summaries >= 3 and lanes.get("head") and lanes.get("recent"), lanes
    # one timeline element per compiled message that is not a pair's marker turn
    expected: dict[str, int] = {}
    for m in compiled["messages"]:
        kinds = {s["kind"] for s in m["sources"]}
        if "ledger" in kinds:
            key = "state"
        elif "summary" in kinds:
            key = f"summary-{max(s.get('level', 1) for s in m['sources'] if s['kind'] == 'summary')}"
        elif "recall" in kinds:
            key = "recall"
        elif "message" in kinds:
            key = "raw-like"
        else:
            continue
        expected[key] = expected.get(key, 0) + 1
    assert raw_like(lanes) == expected
    doc = parse(page)
    segs = [a for _, a in doc.tags if "seg" in a.get("class", "").split()]
    assert (
        sum(int(a["data-tokens"].replace(",", "")) for a in segs if a["data-focus-lane"] != "free")
        == compiled["tokens"]
    )
    assert not any(t in ("link", "img") for t, _ in doc.tags)
    # the map writes nothing: compiling again gives the same context
    again = runner.invoke(app, ["compile", "--store", db, "--strategy", "autobiographical", "--budget", "4000"])
    assert json.loads(again.stdout)["compile_id"] == compiled["compile_id"]


@pytest.mark.skipif(find_browser() is None, reason="no headless browser (chromium) installed")
def test_map_png_renders_through_the_browser(compressed: Path, tmp_path: Path) -> None:
    png = tmp_path / "map.png"
    res = runner.invoke(app, ["map", "--store", str(compressed), "--budget", "4000", "--png", str(png)])
    assert res.exit_code == 0, res.output
    stats = pixel_stats(png)
    assert stats["width"] == 1400 and stats["variance"] > 300 and stats["colours"] > 12, stats


def test_map_png_without_a_browser_is_a_clear_error(
    compressed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(BROWSER_ENV, str(tmp_path / "no-such-browser"))
    html = tmp_path / "map.html"
    res = runner.invoke(
        app,
        ["map", "--store", str(compressed), "--budget", "4000", "--html", str(html), "--png", str(tmp_path / "m.png")],
    )
    assert res.exit_code == 1
    text = " ".join(res.output.split())
    assert "no headless browser found" in text and "apt-get install chromium" in text
    # The page asked for is written all the same, and the error says so (a review found it was lost).
    assert f"wrote {html}" in text and html.read_text().startswith("<!DOCTYPE html")
    assert not (tmp_path / "m.png").exists()
    # --png alone fails before any work.
    res = runner.invoke(app, ["map", "--store", str(compressed), "--budget", "4000", "--png", str(tmp_path / "n.png")])
    assert res.exit_code == 1 and "--html" in " ".join(res.output.split())


def test_map_needs_an_output_and_an_existing_target(compressed: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["map", "--store", str(compressed), "--budget", "4000"])
    assert res.exit_code == 2 and "--html" in res.output
    res = runner.invoke(
        app, ["map", "--store", str(compressed), "--budget", "4000", "-n", "nope", "--html", str(tmp_path / "x.html")]
    )
    assert res.exit_code == 1 and "nope" in res.output
    res = runner.invoke(
        app, ["map", "--store", str(compressed), "--budget", "4000", "--strategy", "x", "--html", str(tmp_path / "x")]
    )
    assert res.exit_code == 2


def test_map_of_a_lagging_store_names_the_remedy(imported: Path, tmp_path: Path) -> None:
    db = imported  # not compressed; the map writes nothing to it
    res = runner.invoke(
        app,
        [
            "map",
            "--store",
            str(db),
            "--strategy",
            "autobiographical",
            "--budget",
            "4000",
            "--html",
            str(tmp_path / "m.html"),
        ],
    )
    assert res.exit_code == 0, res.output  # the middle not summarised yet gave way to fit
    text = " ".join(res.output.split())
    assert "compression lags" in text and "context-journal compress" in text
    assert re.search(r"[\d,]+ messages were not summarised yet and cut to fit the budget", text)


@pytest.mark.parametrize("flag", ["--html", "--png"])
def test_map_into_a_missing_folder_is_refused_and_creates_nothing(compressed: Path, tmp_path: Path, flag: str) -> None:
    """Like ``ContextManager.open`` on a missing folder: an error naming it, never a folder made silently."""
    out = tmp_path / "no" / "such" / "[red]dir[" / "map.out"
    res = runner.invoke(app, ["map", "--store", str(compressed), "--budget", "4000", flag, str(out)])
    assert res.exit_code == 1
    text = " ".join(res.output.split())
    assert flag in text and "does not exist" in text and "[red]dir[" in text
    assert not (tmp_path / "no").exists()


def test_map_over_budget_gives_the_command_line_advice_compile_gives(tmp_path: Path) -> None:
    """A review found (9): `map --budget 10` advised the Python arguments ("raise max_tokens, lower
    reserve_for_response") where `compile` advises --budget and --reserve; both share one advice."""
    from context_journal import ContextManager

    db = tmp_path / "s.db"
    with ContextManager.open(db) as cm:
        for i in range(20):
            cm.add_message("user", f"hello there number {i} " * 20)
    res = runner.invoke(app, ["map", "--store", str(db), "--budget", "10", "--html", str(tmp_path / "m.html")])
    assert res.exit_code == 1
    text = " ".join(res.output.split())
    assert "max_tokens" not in text and "reserve_for_response" not in text, text
    compiled = " ".join(runner.invoke(app, ["compile", "--store", str(db), "--budget", "10"]).output.split())
    smallest = re.search(r"--budget ([\d,]+) or more", compiled)
    assert smallest is not None, compiled
    assert f"map with --budget {smallest.group(1)} or more" in text and "--reserve" in text
    assert "--system" not in text  # map has no --system
    assert not (tmp_path / "m.html").exists()
