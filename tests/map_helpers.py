"""Helpers of the context-map tests: read a page's DOM, decode a screenshot, build a store worth drawing."""

from __future__ import annotations

import struct
import zlib
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from context_journal import ContextManager
from context_journal.compile import CompileResult
from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy


class Elements(HTMLParser):
    """Every start tag of a page with its attributes, in order (the text between tags in ``text``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self._in_script = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        if tag == "script":
            self._in_script += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script -= 1

    def handle_data(self, data: str) -> None:
        if not self._in_script:
            self.text.append(data)


def parse(page: str) -> Elements:
    parser = Elements()
    parser.feed(page)
    parser.close()
    return parser


def parts_per_lane(page: str) -> dict[str, int]:
    """Timeline elements (class ``part``) per ``data-lane`` of a page."""
    return dict(Counter(a["data-lane"] for tag, a in parse(page).tags if "part" in a.get("class", "").split()))


def expected_lanes(result: CompileResult) -> dict[str, int]:
    """What the timeline must hold for ``result``, derived from its messages' sources alone: one element
    per compiled message that is not the marker turn of a pair, by part (summaries by level)."""
    counts: Counter[str] = Counter()
    for m in result.messages:
        kinds = {s.kind for s in m.sources}
        if "ledger" in kinds:
            counts["state"] += 1
        elif "summary" in kinds:
            counts[f"summary-{max(s.level or 1 for s in m.sources if s.kind == 'summary')}"] += 1
        elif "recall" in kinds:
            counts["recall"] += 1
        elif "message" in kinds:
            counts["raw-like"] += 1
    return dict(counts)


def raw_like(lanes: dict[str, int]) -> dict[str, int]:
    """``lanes`` with the raw parts (head, pins, between summaries, recent window) added up as ``raw-like``."""
    out: Counter[str] = Counter()
    for lane, n in lanes.items():
        out["raw-like" if lane in ("head", "pin", "raw", "recent") else lane] += n
    return dict(out)


def read_png(path: Path) -> tuple[int, int, list[bytes]]:
    """``(width, height, rows)`` of an 8-bit RGB or RGBA PNG (rows as RGB bytes), decoded with zlib only."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at = 8
    idat = b""
    width = height = 0
    color = depth = 0
    interlace = 0
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        body = data[at + 8 : at + 8 + length]
        at += 12 + length
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    pos = 0
    for _ in range(height):
        ftype = raw[pos]
        line = bytearray(raw[pos + 1 : pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xFF
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xFF
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        prev = line
        rows.append(bytes(line) if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
    return width, height, rows


def pixel_stats(path: Path) -> dict[str, Any]:
    """Variance of the grey level and the number of distinct colours of a screenshot (sampled)."""
    width, height, rows = read_png(path)
    greys: list[float] = []
    colours: set[bytes] = set()
    for y in range(0, height, 3):
        row = rows[y]
        for x in range(0, width, 3):
            px = row[3 * x : 3 * x + 3]
            colours.add(px)
            greys.append(0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2])
    mean = sum(greys) / len(greys)
    variance = sum((g - mean) ** 2 for g in greys) / len(greys)
    return {"width": width, "height": height, "variance": variance, "colours": len(colours)}


XSS = '</script><img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>'


def tool_chat(n_units: int) -> list[dict[str, Any]]:
    """``n_units`` exchanges: a request, a tool call, its result, an answer (ids u/c/r/a + k)."""
    out: list[dict[str, Any]] = []
    for k in range(n_units):
        filler = " ".join(f"word{(k * 7 + i) % 97}" for i in range(30))
        out += [
            {"id": f"u{k}", "participant": "user", "content": f"Step {k}: check src/mod{k}.py. {filler}"},
            {
                "id": f"c{k}",
                "participant": "assistant",
                "content": [{"type": "tool_use", "id": f"t{k}", "name": "Read", "input": {"path": f"src/mod{k}.py"}}],
            },
            {
                "id": f"r{k}",
                "participant": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": f"line {k}: {filler}"}],
            },
            {"id": f"a{k}", "participant": "assistant", "content": f"Done with step {k}. {filler}"},
        ]
    return out


def busy_manager(units: int = 40, budget: int = 3000, xss: bool = False) -> ContextManager:
    """A compressed conversation with a system message, a pin, a host fact and a findable message."""
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(AutobiographicalConfig.for_budget(budget)))
    cm.add_message("system", "You are a careful assistant.")
    msgs = tool_chat(units)
    msgs[48]["content"] = "The zebra password is kumquat-42. " + msgs[48]["content"]
    if xss:
        msgs[49]["content"] = [{"type": "tool_result", "tool_use_id": "t12", "content": XSS}]
        msgs[-1]["content"] = "final answer " + XSS
        msgs[3]["content"] = "early answer " + XSS  # in the head window
    cm.add_messages(msgs)
    cm.drain()
    cm.pin("u20")
    cm.set_fact("goal", "finish the map " + (XSS if xss else ""))
    return cm
