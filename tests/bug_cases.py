"""The bug cases of ``../shared/bug-cases`` as test inputs, shared by the compile and autobiographical
tests: the cases' word counter and their JSON with ``{{N words}}`` expanded and ``m1..m20`` runs built."""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["BUG_DIR", "FILLER", "WordCounter", "load_case", "words"]

BUG_DIR = Path(__file__).resolve().parents[2] / "shared" / "bug-cases"

FILLER = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "rho",
    "sigma",
    "tau",
]


@functools.cache
def words(n: int, seed: int = 0) -> str:
    """``n`` distinct-looking filler words (a pure function of its arguments, so each text is built once
    per run: the tests ask for the same few hundred texts, some of 12,000 words, millions of words in all)."""
    k = len(FILLER)
    return " ".join([f"{FILLER[(i + seed) % k]}{i}" for i in range(n)])


class WordCounter:
    """The bug cases' counter: one token per whitespace-separated word; a ``tool_use`` costs 5 plus the
    words of its JSON input; an image costs ``image_cost``; no per-message overhead."""

    message_overhead = 0

    def __init__(self, image_cost: int = 1100) -> None:
        self.image_cost = image_cost

    def count_block(self, block: Mapping[str, Any]) -> int:
        kind = block.get("type")
        if kind == "text":
            return len(str(block.get("text", "")).split())
        if kind == "thinking":
            return len(str(block.get("thinking", "")).split())
        if kind == "tool_use":
            return 5 + len(json.dumps(block.get("input", {})).split())
        if kind == "tool_result":
            content = block.get("content", "")
            if isinstance(content, str):
                return len(content.split())
            return sum(self.count_block(b) for b in content)
        if kind in ("image", "document"):
            return self.image_cost
        return 0

    def count_message(self, participant: str, blocks: Iterable[Mapping[str, Any]]) -> int:
        return sum(self.count_block(b) for b in blocks)


_WORDS_RE = re.compile(r"\{\{(\d+) words\}\}")


def _expand_text(text: str, seed: int) -> str:
    return _WORDS_RE.sub(lambda m: words(int(m.group(1)), seed), text).replace(" each", "")


def _expand_block(block: dict[str, Any], seed: int) -> dict[str, Any]:
    b = dict(block)
    if b.get("type") == "text":
        b["text"] = _expand_text(b["text"], seed)
    elif b.get("type") == "thinking":
        b["thinking"] = _expand_text(b["thinking"], seed)
    elif b.get("type") == "tool_result" and isinstance(b.get("content"), str):
        b["content"] = _expand_text(b["content"], seed)
    elif b.get("type") == "image":
        source = dict(b["source"])
        if source.get("type") == "base64" and not _is_b64(source.get("data", "")):
            source["data"] = base64.b64encode(bytes(range(256)) * 5600).decode()  # ~1.9 MB of base64
        b["source"] = source
    return b


def _is_b64(data: str) -> bool:
    try:
        base64.b64decode(data, validate=True)
        return True
    except ValueError:
        return False


def load_case(case_id: str) -> dict[str, Any]:
    """A bug case's JSON, with ``{{N words}}`` expanded and ``m1..m20`` runs built."""
    raw = json.loads((BUG_DIR / f"{case_id}.json").read_text())
    messages: list[dict[str, Any]] = []
    for i, m in enumerate(raw["messages"]):
        run = re.fullmatch(r"m(\d+)\.\.m(\d+)", m["id"])
        if run:
            roles = m["role"].split("|")
            for k in range(int(run.group(1)), int(run.group(2)) + 1):
                content = [_expand_block(b, k) for b in m["content"]]
                messages.append({"id": f"m{k}", "role": roles[k % len(roles)].split(" ")[0], "content": content})
            continue
        messages.append({**m, "content": [_expand_block(b, i) for b in m["content"]]})
    return {"messages": messages, "call": raw["call"]}
