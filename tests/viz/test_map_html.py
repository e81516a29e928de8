"""The context map: the trace a compile records, and the HTML page drawn from it."""

from __future__ import annotations

import dataclasses
import re

import pytest

from context_journal import ContextManager
from context_journal.compile import CompileResult
from context_journal.viz.html import lane_counts
from tests.map_helpers import XSS, busy_manager, expected_lanes, parse, parts_per_lane, raw_like, tool_chat


@pytest.fixture(scope="module")
def busy() -> CompileResult:
    with busy_manager() as cm:
        return cm.preview_context(3000, query="zebra password kumquat")


def test_trace_places_every_part(busy: CompileResult) -> None:
    trace = busy.trace
    assert trace is not None and len(trace.placements) == len(busy.messages)
    assert trace.length == 161 and trace.offset == 1  # the system message goes to the system prompt
    lanes = lane_counts(trace)
    for part in ("head", "pin", "state", "recall", "recent", "summary-1", "summary-2"):
        assert lanes.get(part), (part, lanes)
    # every part is seen from the messages' own sources: the same counts
    assert raw_like(lanes) == expected_lanes(busy)
    by_id = {m.sources[0].id: p for m, p in zip(busy.messages, trace.placements, strict=True) if m.sources}
    assert by_id["u20"].part == "pin" and by_id["u20"].ranges == ((81, 82),)
    assert by_id["u0"].part == "head" and by_id["u0"].ranges == ((1, 2),)
    assert by_id["a39"].part == "recent" and by_id["a39"].ranges == ((160, 161),)
    # markers take their pair's part and ranges
    for k, p in enumerate(trace.placements):
        if p.marker:
            assert trace.placements[k + 1].ranges == p.ranges and trace.placements[k + 1].part == p.part


def test_summary_ranges_are_the_messages_the_summary_stands_for() -> None:
    with busy_manager() as cm:
        result = cm.preview_context(3000)
        msgs = cm.get_all_messages()
        assert result.trace is not None
        seen = 0
        for m, p in zip(result.messages, result.trace.placements, strict=True):
            if p.part != "summary" or p.marker:
                continue
            ids = set()
            for s in m.sources:
                row = cm.get_summary(s.id)
                ids |= {x.id for x in msgs if row.first_sequence <= x.created_sequence <= row.last_sequence}
            drawn = {msgs[i].id for a, b in p.ranges for i in range(a, b)}
            assert drawn == ids and p.first_id == msgs[p.ranges[0][0]].id and p.last_id == msgs[p.ranges[-1][1] - 1].id
            seen += 1
        assert seen >= 3


def test_left_out_ranges_match_dropped() -> None:
    with ContextManager.open("memory:") as cm:  # passthrough: the newest suffix that fits
        cm.add_messages(tool_chat(30))
        result = cm.preview_context(800)
        assert result.trace is not None
        (gap,) = result.trace.uncovered
        assert gap[0] == 0 and gap[1] - gap[0] == result.dropped > 0
        assert set(lane_counts(result.trace)) == {"recent"}
        assert lane_counts(result.trace)["recent"] == len(result.messages)


def test_page_is_self_contained_and_matches_the_compile(busy: CompileResult) -> None:
    page = busy.to_html()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    doc = parse(page)
    # nothing fetched: no external reference of any kind
    for tag, attrs in doc.tags:
        assert tag not in ("link", "img", "iframe", "object", "embed"), tag
        assert "src" not in attrs or (tag == "script" and not attrs["src"]), (tag, attrs)
        assert not attrs.get("href", "").startswith(("http", "//")), attrs
    assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", page.replace("http://www.w3.org/2000/svg", ""))
    assert "url(http" not in page and "@import" not in page
    assert parts_per_lane(page) == lane_counts(busy.trace)  # type: ignore[arg-type]
    # the budget bar: one segment per part with tokens, then free space; widths within 100%
    segs = [a for tag, a in doc.tags if "seg" in a.get("class", "").split()]
    widths = [float(re.search(r"width:([0-9.]+)%", a["style"]).group(1)) for a in segs]  # type: ignore[union-attr]
    assert 99.0 <= sum(widths) <= 100.01
    names = [a["data-focus-lane"] for a in segs]
    assert names[:3] == ["system", "head", "pin"] and "state" in names and "recall" in names and names[-1] == "free"
    tokens = sum(int(a["data-tokens"].replace(",", "")) for a in segs if a["data-focus-lane"] != "free")
    assert tokens == busy.tokens
    assert "3,000" in page and busy.compile_id in page


def test_user_text_cannot_inject_markup_or_script() -> None:
    with busy_manager(xss=True) as cm:
        result = cm.preview_context(3000, query="zebra password kumquat")
    page = result.to_html(title=XSS)
    doc = parse(page)
    assert [t for t, _ in doc.tags].count("script") == 2  # the page's own two, and nothing else
    assert not any(t == "img" for t, _ in doc.tags)
    assert not any(k.startswith("on") for _, a in doc.tags for k in a)
    assert "<img" not in page and "</script><" not in page.replace("</script></body>", "")
    assert "&lt;/script&gt;&lt;img" in page  # shown, as text
    # the content security policy lets only the page's own script run (by hash; no inline handler)
    csp = next(a["content"] for t, a in doc.tags if a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp and "'sha256-" in csp and "unsafe-inline" not in csp.split("script-src")[1]


def test_page_without_a_trace_still_shows_the_budget(busy: CompileResult) -> None:
    page = dataclasses.replace(busy, trace=None).to_html()
    assert "no timeline" in page and parts_per_lane(page) == {}
    assert "seg" in page


def test_trace_survives_appends_and_says_when_positions_moved() -> None:
    with ContextManager.open("memory:") as cm:
        cm.add_messages(tool_chat(10))
        result = cm.compile(100_000)
        cm.add_message("user", "one more")  # appends do not move what the compile saw
        assert result.trace is not None and not result.trace.stale
        assert result.trace.length == 40 and result.trace.placements[-1].ranges == ((39, 40),)
        assert "was removed since" not in result.to_html()
        later = cm.compile(100_000)
        cm.remove_message("u0")
        assert later.trace is not None and later.trace.stale
        assert "was removed since" in later.to_html()
