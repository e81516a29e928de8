"""The context map as one self-contained HTML page (inline CSS and a little JS; nothing fetched).

The page has three parts:

1. **The budget bar**: ``max_tokens`` split into the system prompt, the head window, pins, the
   working-state block, summaries by level, recall, raw messages between summaries, the raw recent window,
   injections and notes, then what is left free and what is reserved for the reply; a table below gives
   each part's tokens, share and message count.
2. **The timeline**: the whole conversation from its first message (left) to its newest (right), one lane
   per part. Each compiled message is one SVG ``path``: a summary spans the messages it stands for, a raw
   message is a tick, recall marks the spans it brings back; the top lane shows what the context leaves
   out. Paths draw ranges, so the page's size follows the compiled context, not the conversation (a
   200,000-message store draws as fast as a 300-message one at the same budget).
3. **Details**: hover shows a tooltip; a click shows the part, tokens, the messages it covers, its ids
   and an excerpt of its text (``page.html#part-K`` opens with compiled message K shown).

Colours are the Okabe-Ito palette (distinguishable with the common colour-vision deficiencies), and
every colour is also named in the table. All user text is HTML-escaped and only ever set through
``textContent`` by the script: a message cannot inject markup or script into the page.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._graphemes import clip_end
from .trace import MapTrace, Placement

if TYPE_CHECKING:
    from ..compile import CompileResult

__all__ = ["EXCERPT_CHARS", "PALETTE", "lane_counts", "page_height", "render_html"]

EXCERPT_CHARS = 480
"""Characters of a part's text kept for its details (the rest is cut with an ellipsis)."""

PALETTE: Mapping[str, str] = {
    "system": "#000000",
    "head": "#0072B2",
    "pin": "#CC79A7",
    "state": "#F0E442",
    "summary": "#009E73",
    "recall": "#E69F00",
    "raw": "#9AD0F0",
    "recent": "#56B4E9",
    "injection": "#D55E00",
    "note": "#999999",
}
"""Okabe-Ito colours per part (summaries of higher levels are darker shades of their green)."""

_SUMMARY_SHADES = ("#009E73", "#007A59", "#005A41", "#003D2C")
_NAMES = {
    "system": "system prompt",
    "head": "head window (raw)",
    "pin": "pinned (raw)",
    "state": "working state",
    "recall": "recall",
    "raw": "raw, between summaries",
    "recent": "recent window (raw)",
    "injection": "injections",
    "note": "notes and stubs",
}


def _e(value: Any) -> str:
    """``value`` as text safe in HTML text and quoted attributes (lone surrogates replaced)."""
    text = str(value).encode("utf-8", "replace").decode("utf-8")
    return html.escape(text, quote=True)


def lane_of(p: Placement) -> str:
    """The lane (and legend row) of a placement: its part, or ``summary-<level>``."""
    return f"summary-{p.level or 1}" if p.part == "summary" else p.part


def _lane_name(lane: str) -> str:
    if lane.startswith("summary-"):
        return f"summaries L{lane.removeprefix('summary-')}"
    return _NAMES.get(lane, lane)


def _colour(lane: str) -> str:
    if lane.startswith("summary-"):
        level = int(lane.removeprefix("summary-"))
        return _SUMMARY_SHADES[min(level, len(_SUMMARY_SHADES)) - 1]
    return PALETTE.get(lane, "#999999")


def _order(lanes: Iterable[str]) -> list[str]:
    """Lanes in map order: system, head, pins, working state, summaries (highest level first), recall,
    raw, recent window, injections, notes."""
    rank = {k: i for i, k in enumerate(("system", "head", "pin", "state", "summary", "recall", "raw", "recent"))}

    def key(lane: str) -> tuple[int, int]:
        if lane.startswith("summary-"):
            return rank["summary"], -int(lane.removeprefix("summary-"))
        return rank.get(lane, 99), 0

    return sorted(set(lanes), key=key)


def excerpt(content: Sequence[Mapping[str, Any]], limit: int = EXCERPT_CHARS) -> str:
    """A short plain-text rendering of content blocks (tool calls and results named)."""
    out: list[str] = []
    size = 0
    for b in content:
        kind = b.get("type")
        if kind == "text":
            piece = str(b.get("text", ""))
        elif kind == "tool_use":
            call = json.dumps(b.get("input", {}), ensure_ascii=False)
            piece = f"[tool call {b.get('name', '?')}] {clip_end(call, limit)}"
        elif kind == "tool_result":
            inner = b.get("content", "")
            if not isinstance(inner, str):
                inner = " ".join(str(x.get("text", f"[{x.get('type')}]")) for x in inner if isinstance(x, Mapping))
            piece = f"[tool result{' (error)' if b.get('is_error') else ''}] {inner}"
        elif kind == "thinking":
            piece = f"[thinking] {b.get('thinking', '')}"
        else:
            piece = f"[{kind}]"
        out.append(piece)
        size += len(piece)
        if size > limit:
            break
    text = "\n".join(out)
    return text if len(text) <= limit else clip_end(text, limit - 1) + "…"


def lane_counts(trace: MapTrace) -> dict[str, int]:
    """Timeline elements per lane that a page drawn from ``trace`` holds (one per compiled message that is
    not a marker turn and stands for known positions)."""
    counts: dict[str, int] = {}
    for p in trace.placements:
        if not p.marker and p.ranges:
            counts[lane_of(p)] = counts.get(lane_of(p), 0) + 1
    return counts


def _split_tokens(result: CompileResult, trace: MapTrace | None) -> dict[str, tuple[int, int]]:
    """Provider tokens and message counts per lane (markers counted with their pair); ``system`` takes
    what the messages leave of ``result.tokens`` (system prompt, stored system messages, overhead)."""
    est: dict[str, int] = {}
    msgs: dict[str, int] = {}
    for k, m in enumerate(result.messages):
        p = trace.placements[k] if trace else Placement("note")
        lane = lane_of(p)
        est[lane] = est.get(lane, 0) + m.tokens
        if not p.marker:
            msgs[lane] = msgs.get(lane, 0) + 1
    factor = result.calibration or 1.0
    out = {lane: (round(t * factor), msgs.get(lane, 0)) for lane, t in est.items()}
    system = result.tokens - sum(t for t, _ in out.values())
    if system > 0 or result.system:
        out["system"] = (max(0, system), len(result.system_sources))
    return out


def _path(ranges: Iterable[tuple[int, int]]) -> str:
    return "".join(f"M{a} .15H{b}V.85H{a}Z" for a, b in ranges)


def _fmt_ranges(ranges: Sequence[tuple[int, int]]) -> str:
    shown = [f"#{a}" if b - a == 1 else f"#{a}–#{b - 1}" for a, b in ranges[:6]]
    more = f" and {len(ranges) - 6} more spans" if len(ranges) > 6 else ""
    count = sum(b - a for a, b in ranges)
    return f"{', '.join(shown)}{more} ({count:,} message{'s' if count != 1 else ''})"


def _sources(m: Any) -> str:
    parts: list[str] = []
    recalled = 0
    for s in m.sources:
        if s.kind == "summary":
            parts.append(f"summary {s.id} (L{s.level})")
        elif s.kind == "recall":
            recalled += 1
        elif s.kind == "synthetic":
            continue
        else:
            parts.append(f"{s.kind} {s.id}")
    if recalled:
        parts.append(f"{recalled} recalled messages")
    return "; ".join(parts[:12]) + (f"; and {len(parts) - 12} more" if len(parts) > 12 else "")


def page_height(result: CompileResult) -> int:
    """Pixels the page needs at a 1400-pixel width (for screenshots)."""
    trace = result.trace
    lanes = len(lane_counts(trace)) + 1 if trace else 0
    rows = len(_split_tokens(result, trace)) + 2
    return 330 + 30 * rows + 34 * lanes + 260


_CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:20px 28px;color:#1b1b1b;
background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:15px;margin:22px 0 8px}
.meta{color:#444;margin:0 0 2px}.meta code{background:#f2f2f2;padding:0 3px;border-radius:3px}
.bar{display:flex;height:40px;border:1px solid #333;border-radius:4px;overflow:hidden;background:#fff}
.seg{height:100%;display:flex;align-items:center;justify-content:center;overflow:hidden;white-space:nowrap;
font-size:12px;cursor:pointer;border-right:1px solid #fff;min-width:0}
.seg.free{background:repeating-linear-gradient(45deg,#fff,#fff 6px,#eee 6px,#eee 12px);color:#333}
.seg.reserve{background:repeating-linear-gradient(-45deg,#ddd,#ddd 4px,#bbb 4px,#bbb 8px);color:#222}
table.legend{border-collapse:collapse;margin-top:10px;font-variant-numeric:tabular-nums}
.legend td,.legend th{padding:3px 10px;text-align:right;border-bottom:1px solid #eee}
.legend td:nth-child(2),.legend th:nth-child(2){text-align:left}
.legend tr[data-lane]{cursor:pointer}.legend tr[data-lane]:hover{background:#f5f5f5}
.sw{display:inline-block;width:14px;height:14px;border:1px solid #333;vertical-align:middle}
.timeline{display:grid;grid-template-columns:190px 1fr;row-gap:4px;align-items:center}
.lname{font-size:12px;text-align:right;padding-right:10px;cursor:pointer}
svg.lane{width:100%;height:26px;display:block;background:#f7f7f7;border-radius:2px}
svg.lane path,svg.lane rect{vector-effect:non-scaling-stroke;stroke-width:1px}
.part{cursor:pointer}.part[data-lane="state"]{fill-opacity:.5}.part:hover,.part.sel{stroke:#000!important;stroke-width:2px!important}
.gap{fill:url(#hatch);stroke:#777}.sysr{fill:#000;stroke:#000}.all{fill:#e4e4e4;stroke:none}
.axis{position:relative;height:18px;font-size:11px;color:#555}
.axis span{position:absolute;transform:translateX(-50%);white-space:nowrap}
.axis span:first-child{transform:none}.axis span:last-child{transform:translateX(-100%)}
#details{margin-top:16px;border:1px solid #ccc;border-radius:4px;padding:10px 14px;min-height:90px;background:#fafafa}
#details dl{display:grid;grid-template-columns:130px 1fr;gap:2px 10px;margin:0}
#details dt{color:#555}#details dd{margin:0;word-break:break-word}
#details pre{white-space:pre-wrap;word-break:break-word;margin:0;font:12px/1.4 ui-monospace,Menlo,monospace;
max-height:260px;overflow:auto}
.hint{color:#666}
"""

_JS = r"""
(function(){
var root=document.documentElement,nav=performance.getEntriesByType?performance.getEntriesByType('navigation')[0]:null;
var t0=window.__cjT0||0,t1=nav?nav.responseEnd:0,box=document.getElementById('details'),sel=null;
function row(dl,k,v,pre){if(v===undefined||v===null||v==='')return;var dt=document.createElement('dt');
dt.textContent=k;var dd=document.createElement('dd');if(pre){var p=document.createElement('pre');p.textContent=v;
dd.appendChild(p)}else{dd.textContent=v}dl.appendChild(dt);dl.appendChild(dd)}
function show(el){var d=el.dataset;while(box.firstChild)box.removeChild(box.firstChild);
var dl=document.createElement('dl');row(dl,'part',d.name);row(dl,'tokens',d.tokens);row(dl,'turn',d.who);
row(dl,'covers',d.range);row(dl,'first id',d.first);row(dl,'last id',d.last);row(dl,'sources',d.src);
row(dl,'compiled message',d.k);row(dl,'text',d.text,true);box.appendChild(dl);
if(sel)sel.classList.remove('sel');sel=el;if(el.classList.contains('part'))el.classList.add('sel')}
function focus(lane){if(!lane)return;var b=document.body;if(b.getAttribute('data-focus')===lane){
b.removeAttribute('data-focus')}else{b.setAttribute('data-focus',lane)}}
document.addEventListener('click',function(ev){var t=ev.target;if(!(t instanceof Element))return;
var el=t.closest('[data-name]');if(el)show(el);var f=t.closest('[data-focus-lane]');
if(f)focus(f.getAttribute('data-focus-lane'))});
document.addEventListener('keydown',function(ev){if(ev.key!=='Enter'&&ev.key!==' ')return;var t=ev.target;
if(t instanceof Element&&t.hasAttribute('data-focus-lane')){ev.preventDefault();
focus(t.getAttribute('data-focus-lane'));if(t.hasAttribute('data-name'))show(t)}});
var h=/^#part-([0-9]+)$/.exec(location.hash);if(h){var el=document.querySelector('.part[data-k="'+h[1]+'"]');
if(el)show(el)}
document.body.getBoundingClientRect();
var now=performance.now();root.setAttribute('data-layout-ms',(now-t0).toFixed(1));
root.setAttribute('data-since-response-ms',(now-t1).toFixed(1));
requestAnimationFrame(function(){requestAnimationFrame(function(){
root.setAttribute('data-paint-ms',(performance.now()-t0).toFixed(1))})});
})();
"""


_HEAD_JS = "window.__cjT0=performance.now();"
"""Notes when the page starts to be parsed: the page's own timings (``data-layout-ms``: parsed, styled and
laid out; ``data-paint-ms``: two frames later, painted) count from here."""


def _hash(script: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"


_CSP = f"default-src 'none'; style-src 'unsafe-inline'; script-src {_hash(_HEAD_JS)} {_hash(_JS)}"
"""The page's content security policy: nothing fetched, and only its own two scripts run (by hash: no
other script, nor an inline event handler, may run)."""


def _seg(lane: str, name: str, tokens: int, total: int, colour: str | None, extra: str = "") -> str:
    pct = 100.0 * tokens / total if total else 0.0
    label = f"{name} {tokens:,}" if pct >= 9 else (f"{tokens:,}" if pct >= 3.5 else "")
    style = f"width:{pct:.4f}%" + (f";background:{colour};color:{_ink(colour)}" if colour else "")
    tip = f"{name}: {tokens:,} tokens ({pct:.1f}% of max_tokens)"
    return (
        f'<div class="seg{extra}" style="{style}" data-name="{_e(name)}" data-tokens="{tokens:,}" '
        f'data-focus-lane="{_e(lane)}" title="{_e(tip)}">{_e(label)}</div>'
    )


def _ink(colour: str) -> str:
    """Black or white text, whichever reads better on ``colour``."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#fff"


def render_html(result: CompileResult, title: str | None = None) -> str:
    """The context map of ``result`` (see the module docstring).

    Args:
        result: A compiled context (its ``trace`` says where each message comes from; without one the
            page shows the budget and leaves the timeline out).
        title: The page title (default: the namespace and branch).

    Returns:
        One HTML document, UTF-8 text, with no external reference.
    """
    trace = result.trace
    title = title or f"Context map: {result.namespace} / {result.branch}"
    split = _split_tokens(result, trace)
    lanes = _order(split)
    total = max(result.max_tokens, 1)
    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        f"<script>{_HEAD_JS}</script>",
        f"<title>{_e(title)}</title><style>{_CSS}",
        *(
            f'body[data-focus] [data-lane="{_e(lane)}"].part{{opacity:.2}}'
            f'body[data-focus="{_e(lane)}"] [data-lane="{_e(lane)}"].part{{opacity:1}}'
            for lane in lanes
        ),
        "</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="meta">strategy <code>{_e(result.strategy)}</code> · namespace <code>{_e(result.namespace)}'
        f"</code> · branch <code>{_e(result.branch)}</code> · compile <code>{_e(result.compile_id)}</code></p>",
    ]
    n_msgs = len(result.messages)
    head = f"{result.tokens:,} of {result.budget:,} tokens in {n_msgs:,} compiled message{'s' if n_msgs != 1 else ''}"
    if trace is not None:
        left = sum(b - a for a, b in trace.uncovered)
        head += (
            f" · the conversation: {trace.length:,} messages, ~{trace.tokens:,} tokens · "
            f"{left:,} message{'s' if left != 1 else ''} left out"
        )
    head += (
        f" · {len(result.repairs)} repairs · max_tokens {result.max_tokens:,}, reserve {result.reserve_for_response:,}"
    )
    out.append(f'<p class="meta">{_e(head)}</p>')
    if trace is not None and trace.stale:
        out.append('<p class="meta"><b>A message was removed since this compile: positions are those of now.</b></p>')

    # --- the budget bar ---------------------------------------------------------------------------------
    out.append('<h2>Budget</h2><div class="bar" role="img" aria-label="how the budget is spent">')
    for lane in lanes:
        out.append(_seg(lane, _lane_name(lane), split[lane][0], total, _colour(lane)))
    free = max(0, result.budget - result.tokens)
    if free:
        out.append(_seg("free", "free", free, total, None, " free"))
    if result.reserve_for_response:
        out.append(_seg("reserve", "reserved for the reply", result.reserve_for_response, total, None, " reserve"))
    out.append("</div>")
    out.append(
        '<table class="legend"><thead><tr><th></th><th>part</th><th>tokens</th><th>% of budget</th>'
        "<th>compiled messages</th><th>conversation messages it stands for</th></tr></thead><tbody>"
    )
    covered = _covered_per_lane(trace) if trace else {}
    for lane in lanes:
        tokens, count = split[lane]
        share = 100.0 * tokens / result.budget if result.budget else 0.0
        out.append(
            f'<tr data-lane="{_e(lane)}" data-focus-lane="{_e(lane)}" tabindex="0">'
            f'<td><span class="sw" style="background:{_colour(lane)}"></span></td><td>{_e(_lane_name(lane))}</td>'
            f"<td>{tokens:,}</td><td>{share:.1f}%</td><td>{count:,}</td><td>{covered.get(lane, 0):,}</td></tr>"
        )
    out.append(
        f'<tr><td><span class="sw" style="background:#fff"></span></td><td>free</td><td>{free:,}</td>'
        f"<td>{100.0 * free / result.budget if result.budget else 0:.1f}%</td><td></td><td></td></tr></tbody></table>"
    )

    # --- the timeline -----------------------------------------------------------------------------------
    if trace is not None and trace.length:
        out.extend(_timeline(result, trace))
    else:
        out.append('<p class="hint">This result carries no provenance trace: no timeline to draw.</p>')
    out.append(
        '<h2>Details</h2><section id="details" aria-live="polite"><p class="hint">Click a part of the timeline, '
        "the budget bar or the table for its details; click a lane's name or a table row to highlight it.</p>"
        "</section>"
    )
    out.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(out)


def _covered_per_lane(trace: MapTrace) -> dict[str, int]:
    per: dict[str, list[tuple[int, int]]] = {}
    for p in trace.placements:
        if not p.marker:
            per.setdefault(lane_of(p), []).extend(p.ranges)
    from .trace import merge_ranges

    out = {lane: sum(b - a for a, b in merge_ranges(r)) for lane, r in per.items()}
    if trace.offset:
        out["system"] = trace.offset
    return out


def _timeline(result: CompileResult, trace: MapTrace) -> list[str]:
    n = trace.length
    vb = f'viewBox="0 0 {n} 1" preserveAspectRatio="none"'
    out = [
        f"<h2>The conversation: {n:,} messages, oldest on the left</h2>",
        '<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>'
        '<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<rect width="6" height="6" fill="#fff"/><rect width="3" height="6" fill="#888"/></pattern></defs></svg>',
        '<div class="timeline">',
        '<div class="lname">left out (hatched) · system</div>',
        f'<svg class="lane overview" {vb} role="img" aria-label="what the context leaves out">',
        f'<rect class="all" x="0" y="0.15" width="{n}" height="0.7"/>',
    ]
    if trace.offset:
        out.append(
            f'<rect class="sysr" x="0" y="0.15" width="{trace.offset}" height="0.7" data-name="system prompt" '
            f'data-range="{_e(_fmt_ranges([(0, trace.offset)]))}"><title>system prompt: messages 0–'
            f"{trace.offset - 1}</title></rect>"
        )
    for a, b in trace.uncovered:
        what = f"left out: {_fmt_ranges([(a, b)])}"
        out.append(
            f'<rect class="gap" x="{a}" y="0.15" width="{b - a}" height="0.7" data-name="left out" '
            f'data-range="{_e(_fmt_ranges([(a, b)]))}"><title>{_e(what)}</title></rect>'
        )
    out.append("</svg>")
    by_lane: dict[str, list[int]] = {}
    for k, p in enumerate(trace.placements):
        if not p.marker and p.ranges:
            by_lane.setdefault(lane_of(p), []).append(k)
    marker_tokens = _marker_tokens(result, trace)
    factor = result.calibration or 1.0
    for lane in _order(by_lane):
        colour = _colour(lane)
        name = _lane_name(lane)
        out.append(f'<div class="lname" data-focus-lane="{_e(lane)}">{_e(name)}</div>')
        out.append(f'<svg class="lane" data-lane-row="{_e(lane)}" {vb} role="img" aria-label="{_e(name)}">')
        for j, k in enumerate(by_lane[lane]):
            p = trace.placements[k]
            m = result.messages[k]
            tokens = round((m.tokens + marker_tokens.get(k, 0)) * factor)
            label = name if p.level is None else f"summary L{p.level}"
            rng = _fmt_ranges(p.ranges)
            fill = colour if j % 2 == 0 else _lighter(colour)
            out.append(
                f'<path class="part" d="{_path(p.ranges)}" fill="{fill}" stroke="{colour}" data-lane="{_e(lane)}" '
                f'data-k="{k}" data-name="{_e(label)}" data-tokens="{tokens:,}" data-range="{_e(rng)}" '
                f'data-who="{_e(m.role)} turn by {_e(m.participant)}" '
                f'data-first="{_e(p.first_id or "")}" data-last="{_e(p.last_id or "")}" '
                f'data-src="{_e(_sources(m))}" data-text="{_e(excerpt(m.content))}">'
                f"<title>{_e(f'{label}: {tokens:,} tokens, covers {rng}')}</title></path>"
            )
        out.append("</svg>")
    out.append("<div></div>" + _axis(n))
    out.append("</div>")
    return out


def _marker_tokens(result: CompileResult, trace: MapTrace) -> dict[int, int]:
    """Tokens of each marker turn, credited to the message after it (its pair)."""
    out: dict[int, int] = {}
    for k, p in enumerate(trace.placements):
        if p.marker and k + 1 < len(result.messages):
            out[k + 1] = out.get(k + 1, 0) + result.messages[k].tokens
    return out


def _lighter(colour: str) -> str:
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return "#{:02X}{:02X}{:02X}".format(*(c + (255 - c) * 35 // 100 for c in (r, g, b)))


def _axis(n: int) -> str:
    marks = sorted({0, n // 4, n // 2, 3 * n // 4, max(0, n - 1)})
    spans = "".join(f'<span style="left:{100.0 * m / max(n - 1, 1):.3f}%">#{m:,}</span>' for m in marks)
    return f'<div class="axis">{spans}</div>'
