"""Shared helpers of the compile tests: the bug cases' word counter and input format, invariant checks."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from context_journal.compile import CompileResult
from context_journal.manager import ContextManager
from context_journal.strategies import PassthroughStrategy, Strategy, WindowedPassthroughStrategy
from context_journal.validate import validate_messages, validate_openai_messages

BUG_DIR = Path(__file__).resolve().parents[3] / "shared" / "bug-cases"

_FILLER = [
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


def words(n: int, seed: int = 0) -> str:
    """``n`` distinct-looking filler words."""
    return " ".join(f"{_FILLER[(i + seed) % len(_FILLER)]}{i}" for i in range(n))


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


def manager_for(
    messages: Sequence[Mapping[str, Any]],
    *,
    counter: Any = None,
    strategy: Strategy | None = None,
    path: str = "memory:",
) -> ContextManager:
    """A manager holding the messages (``role`` becomes the participant)."""
    cm = ContextManager.open(path, token_counter=counter, strategy=strategy or PassthroughStrategy())
    cm.add_messages(
        [
            {"participant": m.get("role", m.get("participant")), "content": m["content"], "id": m.get("id")}
            for m in messages
        ]
    )
    return cm


def strategy_named(name: str) -> Strategy:
    return WindowedPassthroughStrategy() if name in ("windowed", "sliding_window") else PassthroughStrategy()


def ids(result: CompileResult) -> list[str | None]:
    """The stored message id behind each compiled message (None for notes and stubs)."""
    out: list[str | None] = []
    for m in result.messages:
        own = [s.id for s in m.sources if s.kind == "message"]
        out.append(own[0] if own else None)
    return out


def assert_valid(result: CompileResult, counter: Any = None) -> None:
    """Every provider rule holds, in the result and in both exports, and the result fits its budget."""
    assert validate_messages(result.as_messages()) == []
    params = result.to_anthropic()
    assert validate_messages(params["messages"], alternate=True) == []
    assert len(_cache_marks(params)) <= 4
    assert validate_openai_messages(result.to_openai()) == []
    assert result.tokens <= result.budget
    if counter is not None:
        recount = sum(counter.count_message(m.participant, m.content) for m in result.messages)
        assert recount == sum(m.tokens for m in result.messages)
        system = sum(counter.count_block(b) for b in result.system)
        if result.system:
            system += getattr(counter, "message_overhead", 0)
        assert result.estimated_tokens == recount + system  # the reported total is the real sum


def _cache_marks(params: Mapping[str, Any]) -> list[Any]:
    marks = [b for b in params.get("system", []) if "cache_control" in b]
    for m in params["messages"]:
        marks.extend(b for b in m["content"] if "cache_control" in b)
    return marks


def journal_state(cm: ContextManager) -> list[dict[str, Any]]:
    """Every stored message version of the slot (to check a compile changed nothing)."""
    records = cm.store.read_slot(cm.slot, cm.messages.branch_id)
    return [{"seq": r.seq, "item": r.item, "op": int(r.op), "body": r.body} for r in records]


def stored_blocks(cm: ContextManager, kind: str) -> list[str]:
    """JSON dumps of every stored block of a type (for byte-identity checks)."""
    out = []
    for m in cm.get_all_messages():
        for b in m.content_dicts():
            if b.get("type") == kind:
                out.append(json.dumps(b, sort_keys=True))
    return out
