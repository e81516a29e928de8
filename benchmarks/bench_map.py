"""Browser time of the context map (``CompileResult.to_html()``, ``context-journal map``), printed, never asserted.

    python benchmarks/bench_map.py [--sizes 300,200000] [--budgets 4000,100000] [--runs 5]
        [--strategy autobiographical,passthrough] [--summarizer stub|offline] [--keep DIR]

Builds one SQLite store per size with ``bench_compile``'s synthetic agent conversation, drains it (every
chunk summarised, every merge done), compiles at each budget with each strategy, writes the map and opens
it ``--runs`` times in a headless chromium (``--dump-dom``, a fresh browser each run). The page times
itself and leaves the figures on its root element:

- ``layout``: from the first script in ``<head>`` (the page starts to be parsed) to the end of its last
  script after a forced layout: parse, style and layout of the whole page, and its script;
- ``paint``: the same, two animation frames later (the page painted);
- ``from response``: from the end of the file's load to the same point as ``layout`` (adds a fresh headless
  browser's start-up of its first page; a 300-message map pays it too).

- ``warm``: parse, script and layout of the page written into a fresh frame of a browser that is already
  running (median of ``--runs`` loads after one warm-up): the page's own cost, without browser start-up.

The median over the runs is printed with the page's size and its element counts: timeline elements
(one per compiled part) and all elements. The map draws ranges, so its size follows the compiled
context, not the conversation.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compile import StubSummarizer, build, strategy_for

from context_journal.llm import OfflineSummarizer, Provider
from context_journal.manager import ContextManager
from context_journal.viz.browser import dump_dom, find_browser


def _drain(path: Path, budget: int, summarizer: Provider) -> str:
    with ContextManager.open(path, strategy=strategy_for("autobiographical", budget), summarizer=summarizer) as cm:
        t0 = time.perf_counter()
        report = cm.drain()
        return f"drained {report.units:,} units in {time.perf_counter() - t0:.1f} s"


def _times(page: Path, runs: int) -> dict[str, float]:
    found: dict[str, list[float]] = {"layout": [], "paint": [], "from response": []}
    attrs = {"layout": "data-layout-ms", "paint": "data-paint-ms", "from response": "data-since-response-ms"}
    for _ in range(runs):
        dom = dump_dom(page)
        root = re.search(r"<html[^>]*>", dom)
        assert root is not None, "no root element in the dumped DOM"
        for key, attr in attrs.items():
            m = re.search(rf'{attr}="([0-9.]+)"', root.group(0))
            if m:
                found[key].append(float(m.group(1)))
    return {k: statistics.median(v) if v else float("nan") for k, v in found.items()}


_HARNESS = """<!DOCTYPE html><html><body><script>
var src=%s,out=[],parts=0;
for(var i=0;i<%d;i++){var f=document.createElement('iframe');f.style.width='1400px';f.style.height='1400px';
document.body.appendChild(f);var t=performance.now(),d=f.contentDocument;d.open();d.write(src);d.close();
d.body.getBoundingClientRect();out.push((performance.now()-t).toFixed(1));parts=d.querySelectorAll('.part').length;
document.body.removeChild(f)}
var root=document.documentElement;root.setAttribute('data-times',out.join(' '));root.setAttribute('data-parts',parts);
</script></body></html>"""


def _warm(page: Path, runs: int) -> tuple[float, int]:
    """Median ms to parse, run and lay out the map in an already running browser (one browser, ``runs``
    loads into fresh frames), and the timeline elements the last load held."""
    import json

    text = page.read_text(encoding="utf-8")
    harness = page.with_suffix(".harness.html")
    harness.write_text(_HARNESS % (json.dumps(text).replace("</", "<\\/"), runs + 1), encoding="utf-8")
    root = re.search(r"<html[^>]*>", dump_dom(harness))
    assert root is not None
    times = [float(x) for x in re.search(r'data-times="([^"]*)"', root.group(0)).group(1).split()]  # type: ignore[union-attr]
    parts = int(re.search(r'data-parts="([0-9]+)"', root.group(0)).group(1))  # type: ignore[union-attr]
    return statistics.median(times[1:]), parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="300,200000")
    parser.add_argument("--budgets", default="4000,100000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--strategy", default="autobiographical,passthrough")
    parser.add_argument("--summarizer", choices=("offline", "stub"), default="stub")
    parser.add_argument("--keep", type=Path, default=None, help="Write the maps here (default: a temporary folder).")
    args = parser.parse_args()
    if find_browser() is None:
        sys.exit("no headless browser installed (Debian: apt-get install chromium)")
    summarizer: Provider = StubSummarizer() if args.summarizer == "stub" else OfflineSummarizer()
    budgets = [int(b) for b in args.budgets.split(",")]
    names = [n for n in args.strategy.split(",") if n]
    print(f"context map in headless chromium, median of {args.runs} runs (ms; see the docstring)")
    head = f"{'strategy':<16} {'messages':>9} {'budget':>8} {'parts':>6} {'elements':>8} {'page KB':>8}"
    print(head + f" {'to_html ms':>10} {'warm':>6} {'layout':>7} {'paint':>7} {'from response':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.keep or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        for n in (int(s) for s in args.sizes.split(",")):
            path = Path(tmp) / f"map-{n}.db"
            t0 = time.perf_counter()
            build(path, n)
            print(f"# built {n:,} messages in {time.perf_counter() - t0:.1f} s")
            if "autobiographical" in names:
                for budget in budgets:
                    print(f"# budget {budget:,}, {args.summarizer} summarizer: {_drain(path, budget, summarizer)}")
            for name in names:
                for budget in budgets:
                    with ContextManager.open(path, strategy=strategy_for(name, budget)) as cm:
                        result = cm.preview_context(budget)
                        t0 = time.perf_counter()
                        page = result.to_html()
                        render_ms = 1000 * (time.perf_counter() - t0)
                    file = out_dir / f"map-{name}-{n}-{budget}.html"
                    file.write_text(page, encoding="utf-8")
                    parts = page.count('class="part"')
                    elements = page.count("<") - page.count("</")
                    t = _times(file, args.runs)
                    warm, drawn = _warm(file, args.runs)
                    assert drawn == parts, (drawn, parts)
                    print(
                        f"{name:<16} {n:>9,} {budget:>8,} {parts:>6,} {elements:>8,} {len(page) / 1024:>8.0f}"
                        f" {render_ms:>10.1f} {warm:>6.1f} {t['layout']:>7.1f} {t['paint']:>7.1f}"
                        f" {t['from response']:>13.1f}"
                    )


if __name__ == "__main__":
    main()
