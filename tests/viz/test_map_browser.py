"""The context map in a real browser: a headless chromium loads the page, its script runs, the
timeline holds one element per compiled part, a screenshot is not blank, and user text stays text.

Skipped when no headless browser is installed (``.ci/run`` installs Debian's ``chromium``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from context_journal.viz.browser import dump_dom, find_browser, screenshot
from context_journal.viz.html import lane_counts, page_height
from tests.map_helpers import XSS, busy_manager, expected_lanes, parse, parts_per_lane, pixel_stats, raw_like

pytestmark = pytest.mark.skipif(
    find_browser() is None, reason="no headless browser (chromium) installed; .ci/run installs Debian's chromium"
)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int], dict[str, int], int]:
    with busy_manager() as cm:
        result = cm.preview_context(3000, query="zebra password kumquat")
    assert result.trace is not None
    path = tmp_path_factory.mktemp("map") / "map.html"
    path.write_text(result.to_html(), encoding="utf-8")
    return path, lane_counts(result.trace), expected_lanes(result), page_height(result)


def test_browser_runs_the_page_and_draws_one_element_per_part(
    page: tuple[Path, dict[str, int], dict[str, int], int],
) -> None:
    path, lanes, expected, _ = page
    dom = dump_dom(path)
    root = re.search(r"<html[^>]*>", dom)
    assert root and "data-layout-ms=" in root.group(0), "the page's script did not run"
    drawn = parts_per_lane(dom)
    assert drawn == lanes and raw_like(drawn) == expected
    assert sum(drawn.values()) > 20 and len(drawn) >= 7


def test_screenshot_is_not_blank(page: tuple[Path, dict[str, int], dict[str, int], int], tmp_path: Path) -> None:
    path, _, _, height = page
    png = screenshot(path, tmp_path / "map.png", 1000, height)
    stats = pixel_stats(png)
    assert (stats["width"], stats["height"]) == (1000, height)
    assert stats["variance"] > 300 and stats["colours"] > 12, stats


def test_details_show_user_text_as_text_in_the_browser(tmp_path: Path) -> None:
    with busy_manager(xss=True) as cm:
        result = cm.preview_context(3000, query="zebra password kumquat")
    path = tmp_path / "xss.html"
    path.write_text(result.to_html(title=XSS), encoding="utf-8")
    k = next(i for i, m in enumerate(result.messages) if "final answer" in str(m.content))
    dom = dump_dom(path, f"part-{k}")
    doc = parse(dom)
    assert not any(t == "img" for t, _ in doc.tags)
    assert [t for t, _ in doc.tags].count("script") == 2
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert title and title.group(1).startswith("&lt;/script&gt;&lt;img")  # not set to "pwned" by a handler
    details = dom[dom.index('id="details"') :]
    assert "final answer &lt;/script&gt;&lt;img src=x onerror=" in details  # shown by the script, as text
