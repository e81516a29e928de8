"""Review finding F11: cache markers are spent one per location (the tools, the system prompt, each message:
the last marker there covers the prefix of the others), then the tools', the system prompt's and the newest
messages', four at most. Generated requests with many marked blocks in few messages, through
:func:`cap_cache_markers` directly and through ``to_anthropic``."""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.rendering.cache_markers import (
    CacheMarkersDroppedWarning,
    CacheMarkersRaisedWarning,
    cap_cache_markers,
    marker_locations,
)
from tests.hypothesis_budget import examples

E = {"type": "ephemeral"}

_KINDS = ["text", "empty", "thinking", "redacted", "tool_use", "result", "result_nested", "image"]


def _block(kind: str, k: int, marked: bool) -> dict[str, Any]:
    block: dict[str, Any]
    if kind == "text":
        block = {"type": "text", "text": f"t{k}"}
    elif kind == "empty":
        block = {"type": "text", "text": " \n"}
    elif kind == "thinking":
        block = {"type": "thinking", "thinking": f"hm {k}", "signature": f"s{k}"}
    elif kind == "redacted":
        block = {"type": "redacted_thinking", "data": f"d{k}"}
    elif kind == "tool_use":
        block = {"type": "tool_use", "id": f"u{k}", "name": "read", "input": {"k": k}}
    elif kind == "image":
        block = {"type": "image", "source": {"type": "url", "url": f"https://x/{k}.png"}}
    else:
        inner = [{"type": "text", "text": f"r{k}", **({"cache_control": E} if kind == "result_nested" else {})}]
        block = {"type": "tool_result", "tool_use_id": f"u{k}", "content": inner}
    return {**block, "cache_control": E} if marked else block


_row = st.lists(st.tuples(st.sampled_from(_KINDS), st.booleans()), min_size=1, max_size=12)


def _paths(request: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every block of the request in prompt order (a nested block before its tool_result)."""
    out = [(f"tools[{j}]", t) for j, t in enumerate(request["tools"])]

    def walk(blocks: list[dict[str, Any]], path: str) -> None:
        for j, b in enumerate(blocks):
            if isinstance(b.get("content"), list):
                walk(b["content"], f"{path}[{j}].content")
            out.append((f"{path}[{j}]", b))

    walk(request["system"], "system")
    for i, m in enumerate(request["messages"]):
        walk(m["content"], f"messages[{i}].content")
    return out


def _sendable(path: str, block: dict[str, Any]) -> bool:
    if path.startswith("tools"):
        return True
    kind = block["type"]
    return kind not in ("thinking", "redacted_thinking") and not (kind == "text" and not block["text"].strip())


def _location(path: str) -> str:
    return path.split("[", 1)[0] if path.startswith(("tools", "system")) else path.split(".", 1)[0]


@settings(max_examples=examples(400), deadline=None)
@given(
    rows=st.lists(_row, min_size=1, max_size=3),
    system=st.lists(st.booleans(), max_size=4),
    tools=st.lists(st.booleans(), max_size=4),
)
def test_many_markers_in_few_messages(
    rows: list[list[tuple[str, bool]]], system: list[bool], tools: list[bool]
) -> None:
    request: dict[str, Any] = {
        "tools": [
            {"name": f"t{k}", "input_schema": {}, **({"cache_control": E} if m else {})} for k, m in enumerate(tools)
        ],
        "system": [
            {"type": "text", "text": f"s{k}", **({"cache_control": E} if m else {})} for k, m in enumerate(system)
        ],
        "messages": [
            {
                "role": ("user", "assistant")[i % 2],
                "content": [_block(kind, 100 * i + j, m) for j, (kind, m) in enumerate(row)],
            }
            for i, row in enumerate(rows)
        ],
    }
    before = copy.deepcopy(request)
    originals = [b for _, b in _paths(request)]  # the caller's dicts: never changed
    snapshots = copy.deepcopy(originals)
    marked = [p for p, b in _paths(request) if "cache_control" in b]
    # The model: the last sendable marker of each location; the tools', the system's, then the newest.
    last: dict[str, str] = {}
    for path, block in _paths(request):
        if "cache_control" in block and _sendable(path, block):
            last[_location(path)] = path
    preferred = [last[loc] for loc in ("tools", "system") if loc in last]
    preferred += [p for loc, p in reversed(last.items()) if loc not in ("tools", "system")]
    assert marker_locations(tools=request["tools"], system=request["system"], messages=request["messages"]) == len(last)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dropped = cap_cache_markers(tools=request["tools"], system=request["system"], messages=request["messages"])

    kept = [p for p, b in _paths(request) if "cache_control" in b]
    assert len(kept) <= 4
    assert len({_location(p) for p in kept}) == len(kept)  # never two in one message (nor in tools, system)
    assert all(_sendable(p, b) for p, b in _paths(request) if "cache_control" in b)  # none on thinking, empty text
    order = [p for p, _ in _paths(request)]
    assert kept == sorted(preferred[:4], key=order.index)
    assert list(dropped) == [p for p in marked if p not in kept]  # every removed one, in prompt order
    assert json.dumps(request).count('"cache_control"') == len(kept)
    reports = [w.message for w in caught if isinstance(w.message, CacheMarkersDroppedWarning)]
    if dropped:
        assert len(reports) == 1 and reports[0].dropped == dropped and list(reports[0].kept) == kept
    else:
        assert not reports and request == before
    assert snapshots == originals  # the dicts passed in are untouched (blocks losing a marker are copies)
    # Capping a capped request changes nothing.
    again = copy.deepcopy(request)
    assert cap_cache_markers(tools=again["tools"], system=again["system"], messages=again["messages"], warn=False) == ()


@settings(max_examples=examples(100), deadline=None)
@given(rows=st.lists(st.lists(st.booleans(), min_size=2, max_size=8), min_size=1, max_size=3))
def test_to_anthropic_parallel_results_spend_one_marker_per_message(rows: list[list[bool]]) -> None:
    """B48's shape, generated: rounds of parallel tool calls whose results all carry a marker. The export
    keeps the system prompt's marker and one per message (the last marked result), newest first."""
    cm = ContextManager.open("memory:")
    stored: dict[str, list[dict[str, Any]]] = {}
    for k, row in enumerate(rows):  # four messages a round: question, calls, results, answer
        cm.add_message("user", f"question {k}")
        cm.add_message(
            "assistant", [{"type": "tool_use", "id": f"c{k}_{n}", "name": "read", "input": {}} for n in range(len(row))]
        )
        results = [
            {
                "type": "tool_result",
                "tool_use_id": f"c{k}_{n}",
                "content": f"r{n}",
                **({"cache_control": E} if m else {}),
            }
            for n, m in enumerate(row)
        ]
        stored[cm.add_message("user", results)] = copy.deepcopy(results)
        cm.add_message("assistant", f"answer {k}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CacheMarkersDroppedWarning)
        params = cm.compile(100_000, system="Be brief.").to_anthropic()
    assert len(params["messages"]) == 4 * len(rows)
    kept = [
        (i, j) for i, m in enumerate(params["messages"]) for j, b in enumerate(m["content"]) if "cache_control" in b
    ]
    assert "cache_control" in params["system"][0]
    assert len(kept) + 1 <= 4
    assert len({i for i, _ in kept}) == len(kept)  # never two in one message
    assert kept[-1] == (len(params["messages"]) - 1, 0)  # the compile's own marker on the newest message
    for i, j in kept:
        if i % 4 == 2:  # a results message: the last host-marked result, or the last one (the compile's)
            row = rows[i // 4]
            assert j == max((n for n, m in enumerate(row) if m), default=-1) or j == len(row) - 1
    for message_id, results in stored.items():  # the journal's blocks are unchanged
        assert cm.get_message(message_id).content_dicts() == results
    cm.close()


_TTLS = [None, "5m", "1h"]


def _marker(ttl: str | None) -> dict[str, Any]:
    return {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}


@settings(max_examples=examples(300), deadline=None)
@given(
    marks=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.sampled_from(_TTLS)), max_size=10),
    system_ttl=st.sampled_from([*_TTLS, "none"]),
    tool_ttl=st.sampled_from([*_TTLS, "none"]),
)
def test_longer_ttls_always_come_first(
    marks: list[tuple[int, int, str | None]], system_ttl: str | None, tool_ttl: str | None
) -> None:
    """Fresh review: a stored 1-hour marker on the newest message came after the compile's 5-minute
    markers (system prompt, an earlier message), which the API refuses ("a 1-hour entry must appear before
    any 5-minute entry"). Whatever carries them, the markers sent never put a shorter TTL before a longer
    one; the kept breakpoints are the same as without TTLs, each raised one is named once, and the caller's
    dicts are untouched."""
    messages: list[dict[str, Any]] = [
        {"role": ("user", "assistant")[i % 2], "content": [{"type": "text", "text": f"m{i}b{j}"} for j in range(3)]}
        for i in range(4)
    ]
    for i, j, ttl in marks:
        messages[i]["content"][j] = {**messages[i]["content"][j], "cache_control": _marker(ttl)}
    request: dict[str, Any] = {
        "tools": [
            {"name": "t", "input_schema": {}, **({} if tool_ttl == "none" else {"cache_control": _marker(tool_ttl)})}
        ],
        "system": [
            {"type": "text", "text": "s", **({} if system_ttl == "none" else {"cache_control": _marker(system_ttl)})}
        ],
        "messages": messages,
    }
    untouched = copy.deepcopy(request)
    plain = copy.deepcopy(request)
    for _, block in _paths(plain):
        if "cache_control" in block:
            block["cache_control"] = {"type": "ephemeral"}
    cap_cache_markers(tools=plain["tools"], system=plain["system"], messages=plain["messages"], warn=False)
    originals = [b for _, b in _paths(request)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cap_cache_markers(tools=request["tools"], system=request["system"], messages=request["messages"])

    kept = [(p, b["cache_control"]) for p, b in _paths(request) if "cache_control" in b]
    assert [p for p, _ in kept] == [p for p, b in _paths(plain) if "cache_control" in b]  # the same breakpoints
    ttls = [m.get("ttl") or "5m" for _, m in kept]
    assert ttls == sorted(ttls, key=lambda t: t != "1h"), ttls  # every 1h before every 5m
    raised = [w.message for w in caught if isinstance(w.message, CacheMarkersRaisedWarning)]
    before = {p: (b.get("cache_control") or {}).get("ttl") or "5m" for p, b in _paths(untouched)}
    changed = tuple(p for p, m in kept if (m.get("ttl") or "5m") != before[p])
    if changed:
        assert len(raised) == 1 and raised[0].raised == changed
        assert all(m["ttl"] == "1h" and m["type"] == "ephemeral" for p, m in kept if p in changed)
    else:
        assert not raised
    assert originals == [b for _, b in _paths(untouched)]  # the dicts passed in are untouched
    again = copy.deepcopy(request)
    with warnings.catch_warnings(record=True) as caught_again:
        warnings.simplefilter("always")
        cap_cache_markers(tools=again["tools"], system=again["system"], messages=again["messages"])
    assert again == request and not caught_again  # a capped request is left as it is


def test_to_anthropic_raises_the_markers_before_a_stored_one_hour_marker() -> None:
    """The reviewer's request: five turns, then the newest user text marked for an hour; the system
    prompt's marker and the compile's marker on an earlier message go to one hour too, and it says so."""
    cm = ContextManager.open("memory:")
    for k in range(5):
        cm.add_message("user", f"question {k} about the invoices")
        cm.add_message("assistant", f"answer {k}: the totals are in EUR")
    newest = {
        "type": "text",
        "text": "Newest question, keep it cached",
        "cache_control": {"type": "ephemeral", "ttl": "1h"},
    }
    cm.add_message("user", [newest])
    result = cm.compile(max_tokens=8000, system="You are helpful.")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        request = result.to_anthropic()
    system = request["system"] if isinstance(request["system"], list) else []
    found = [b["cache_control"] for b in system if "cache_control" in b]
    found += [b["cache_control"] for m in request["messages"] for b in m["content"] if "cache_control" in b]
    assert len(found) >= 2 and found[-1] == {"type": "ephemeral", "ttl": "1h"}
    assert all(m.get("ttl") == "1h" for m in found), found
    assert any(isinstance(w.message, CacheMarkersRaisedWarning) for w in caught)
