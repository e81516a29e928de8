"""A review found (cache markers): a ``cache_control`` inside a ``tool_result``'s content and one on the
``tool_result`` itself are one breakpoint location. ``to_anthropic`` spent two of the four markers on them
(and dropped the system prompt's); now only the outer one is kept and the freed slot goes to the next
newest marker, as the exporter keeps markers anyway."""

from __future__ import annotations

import json
import warnings
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.rendering.cache_markers import CacheMarkersDroppedWarning, cap_cache_markers
from tests.hypothesis_budget import examples

E = {"type": "ephemeral"}


def test_to_anthropic_keeps_one_marker_per_tool_result_and_the_system_prompt_s() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", [{"type": "text", "text": "start", "cache_control": E}])
    cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}])
    nested = {"type": "text", "text": "a.txt", "cache_control": E}
    cm.add_message("tool", [{"type": "tool_result", "tool_use_id": "t1", "cache_control": E, "content": [nested]}])
    cm.add_message("assistant", "done")
    cm.add_message("user", "next")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        params = cm.compile(10_000, system="Be brief.").to_anthropic()
    assert "cache_control" in params["system"][0]  # was dropped for the second marker of the tool_result
    result = params["messages"][2]["content"][0]
    assert result["type"] == "tool_result" and "cache_control" in result
    assert "cache_control" not in result["content"][0]
    assert json.dumps(params).count('"cache_control"') == 4
    (warning,) = [w.message for w in caught if isinstance(w.message, CacheMarkersDroppedWarning)]
    assert warning.dropped == ("messages[2].content[0].content[0]",)
    assert warning.kept == ("system[0]", "messages[0].content[0]", "messages[2].content[0]", "messages[4].content[0]")
    # the request says so too, outside its keys (the API rejects a parameter it does not know)
    assert params.cache_markers_dropped == warning.dropped
    assert set(params) == {"system", "messages"}
    assert json.loads(json.dumps(params)) == dict(params)


def test_a_request_within_the_limit_says_no_marker_was_dropped() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", [{"type": "text", "text": "start", "cache_control": E}])
    cm.add_message("assistant", "done")
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheMarkersDroppedWarning)
        params = cm.compile(10_000, system="Be brief.").to_anthropic(model="m")
    assert params.cache_markers_dropped == ()
    assert set(params) == {"system", "messages", "model"}


block_shape = st.sampled_from(["text", "text_marked", "result", "result_outer", "result_nested", "result_both"])


def _block(shape: str, k: int) -> dict[str, Any]:
    if shape.startswith("text"):
        b: dict[str, Any] = {"type": "text", "text": f"t{k}"}
        if shape == "text_marked":
            b["cache_control"] = E
        return b
    inner: dict[str, Any] = {"type": "text", "text": f"r{k}"}
    if shape in ("result_nested", "result_both"):
        inner["cache_control"] = E
    b = {"type": "tool_result", "tool_use_id": f"u{k}", "content": [{"type": "text", "text": "x"}, inner]}
    if shape in ("result_outer", "result_both"):
        b["cache_control"] = E
    return b


@settings(max_examples=examples(300), deadline=None)
@given(
    shapes=st.lists(st.lists(block_shape, min_size=1, max_size=3), min_size=1, max_size=6),
    system_marked=st.booleans(),
    limit=st.integers(0, 5),
    prefer=st.lists(st.integers(0, 6), max_size=4, unique=True),
)
def test_kept_markers_are_the_system_s_then_the_newest_locations(
    shapes: list[list[str]], system_marked: bool, limit: int, prefer: list[int]
) -> None:
    """With ``prefer`` (a compile's ``cache_priority``), the messages it names come right after the system
    prompt's, in its order (those without a marker, or out of range, skipped), before the newest others."""
    system = [{"type": "text", "text": "s", **({"cache_control": E} if system_marked else {})}]
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [_block(s, 10 * i + j) for j, s in enumerate(row)]} for i, row in enumerate(shapes)
    ]
    # The model (review finding F11): one marker per location, the last of each message in prompt order
    # (a nested block before its tool_result, so a marked tool_result wins over its nested marker); then
    # the system prompt's and the newest messages', ``limit`` at most.
    last: dict[int, str] = {}
    for i, row in enumerate(shapes):
        for j, s in enumerate(row):
            if s in ("result_nested", "result_both"):
                last[i] = f"messages[{i}].content[{j}].content[1]"
            if s in ("text_marked", "result_outer", "result_both"):
                last[i] = f"messages[{i}].content[{j}]"
    ranked = [*(i for i in prefer if i in last), *sorted(last, reverse=True)]
    preferred = (["system[0]"] if system_marked else []) + [last[i] for i in dict.fromkeys(ranked)]
    chosen = set(preferred[:limit])
    expected = [p for p in ["system[0]", *(last[i] for i in sorted(last))] if p in chosen]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cap_cache_markers(system=system, messages=messages, limit=limit, prefer=prefer)
    kept = ["system[0]"] if "cache_control" in system[0] else []
    for i, m in enumerate(messages):
        for j, b in enumerate(m["content"]):
            for k, inner in enumerate(b.get("content", []) if isinstance(b.get("content"), list) else []):
                if "cache_control" in inner:
                    kept.append(f"messages[{i}].content[{j}].content[{k}]")
                    assert "cache_control" not in b  # never both: one location
            if "cache_control" in b:
                kept.append(f"messages[{i}].content[{j}]")
    assert kept == expected


def test_a_stored_marker_on_thinking_is_removed_and_reported() -> None:
    """A review stored ``cache_control`` on a thinking and a redacted thinking block: both were left out of the
    request (the API refuses them) but ``cache_markers_dropped`` stayed empty, where the README says every
    removed marker is reported."""
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hi " * 20)
    thinking = {"type": "thinking", "thinking": "hmm " * 20, "signature": "c2ln", "cache_control": E}
    redacted = {"type": "redacted_thinking", "data": "RU5D", "cache_control": E}
    cm.add_message("assistant", [thinking, redacted, {"type": "tool_use", "id": "t1", "name": "ls", "input": {}}])
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        request = cm.compile(10_000).to_anthropic()
    sent = request["messages"][1]["content"]
    assert [b["type"] for b in sent] == ["thinking", "redacted_thinking", "tool_use"]
    assert not any("cache_control" in b for b in sent[:2])
    assert request.cache_markers_dropped == ("messages[1].content[0]", "messages[1].content[1]")
    (warning,) = [w.message for w in caught if isinstance(w.message, CacheMarkersDroppedWarning)]
    assert warning.dropped == request.cache_markers_dropped
