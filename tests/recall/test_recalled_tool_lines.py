"""Recalled tool units read as tool units once cut: a cut result keeps its ``[result: `` marker (it read
as the user's words: 1,070 of 2,592 results recalled from a Claude Code session), a result cut away shows
as ``[result: …]``, and a cut call message keeps ``[called NAME`` for each call (470 results were shown
without their call). Found by the review of issue 11."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, RecallConfig, validate_messages
from context_journal.recall.spans import cut_line
from context_journal.rendering.repairs import message_line_text
from context_journal.stores.fulltext import stem
from context_journal.tokens import EstimatingCounter
from tests.hypothesis_budget import examples

SETTINGS = settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
COUNTER = EstimatingCounter()
SENTENCES = ["The build failed again.", "Config line here.", "porcupine overflow in worker.", "All good now."]


@SETTINGS
@given(
    prose=st.lists(st.sampled_from(SENTENCES), max_size=30),
    calls=st.lists(st.sampled_from(["Read", "Grep", "Bash", "Edit"]), min_size=1, max_size=3),
    outputs=st.lists(st.lists(st.sampled_from(SENTENCES), max_size=60), min_size=1, max_size=3),
    limit=st.integers(3, 60),
    matching=st.booleans(),
)
def test_cut_tool_lines_keep_their_markers(
    prose: list[str], calls: list[str], outputs: list[list[str]], limit: int, matching: bool
) -> None:
    stems = frozenset({stem("porcupine")}) if matching else frozenset()
    uses: list[dict[str, Any]] = [{"type": "text", "text": " ".join(prose)}] if prose else []
    uses += [{"type": "tool_use", "id": f"t{k}", "name": n, "input": {"path": "a.py"}} for k, n in enumerate(calls)]
    call_line = message_line_text(uses)
    out, _ = cut_line(call_line, stems, limit, COUNTER, ("text", "tool_use"))
    for name in calls:
        assert f"[called {name}" in out, (call_line, out)
    results = [
        {"type": "tool_result", "tool_use_id": f"t{k}", "content": " ".join(o) or "ok"} for k, o in enumerate(outputs)
    ]
    result_line = message_line_text(results)
    out, cut = cut_line(result_line, stems, limit, COUNTER, ("tool_result",))
    assert out.startswith("[result: ") and out.endswith("]"), (result_line, out)
    assert out.count("[result: ") == len(results)
    if not cut:
        assert out == result_line


def test_a_recalled_unit_of_a_real_shape_reads_as_calls_and_results() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "Please inspect the config.")
    cm.add_message(
        "Claude",
        [
            {"type": "text", "text": "Let me read it. " + "I will be careful. " * 40},
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "config.exs"}},
            {"type": "tool_use", "id": "toolu_2", "name": "Grep", "input": {"pattern": "porcupine"}},
        ],
    )
    cm.add_message(
        "user",
        [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "key missing; " + "line of config\n" * 300},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "FATAL porcupine overflow in worker."},
        ],
    )
    for i in range(80):
        cm.add_message("user" if i % 2 == 0 else "Claude", f"later chatter {i} about weather")
    for query in ("careful", "porcupine", "config"):
        result = cm.compile(max_tokens=700, query=query, recall=RecallConfig(before=0, after=0, share=0.9))
        messages = result.to_anthropic()["messages"]
        assert not validate_messages(messages)
        text = json.dumps(messages, ensure_ascii=False)
        if "[result:" in text or "porcupine overflow" in text:
            assert "[called Read" in text and "[called Grep" in text, query
            assert "user: … FATAL" not in text and "user: FATAL" not in text  # the result keeps its marker
    cm.close()
