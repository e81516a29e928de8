"""``KnowledgeStrategy``: phases told apart by tool-name prefixes, chunks cut at phase changes with
each phase's size, summaries asked at each phase's share, phase hints in the instruction."""

from __future__ import annotations

from typing import Any

import pytest

from context_journal.strategies import KnowledgeStrategy, Phase
from tests.autobiographical.autobio_helpers import check, chunks, echo_summarizer, manager, words


def _unit(k: int, tool: str, size: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"c{k}",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": f"t{k}", "name": tool, "input": {"q": f"q{k}"}}],
        },
        {
            "id": f"r{k}",
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": words(size, k)}],
        },
        {"id": f"a{k}", "role": "assistant", "content": f"noted {k}: " + words(10, k)},
    ]


def _session() -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"id": "u0", "role": "user", "content": "Research and write a report on tides."}]
    k = 0
    for tool, n, size in (
        ("WebSearch", 6, 120),
        ("Write", 3, 60),
        ("lesson_record", 2, 20),
        ("Task", 3, 60),
        ("WebFetch", 6, 120),
        ("Edit", 3, 60),
    ):
        for _ in range(n):
            msgs += _unit(k, tool, size)
            k += 1
    msgs.append({"id": "end", "role": "user", "content": words(400)})
    return msgs


PHASES = (
    Phase("research", ("web", "search", "fetch"), 800, 0.5, "keep the sources"),
    Phase("synthesis", ("write", "edit"), 400, 1.0, "keep what was written where"),
    Phase("lesson", ("lesson",), 100, 2.0, "keep each lesson whole"),
    Phase("subagent", ("task",), 400, 0.75, "keep what each sub-agent returned"),
)


def test_phases_cut_chunks_and_set_their_summary_share() -> None:
    provider = echo_summarizer()
    strategy = KnowledgeStrategy(
        phases=PHASES,
        head_window_tokens=20,
        recent_window_tokens=300,
        target_chunk_tokens=500,
        summary_target_tokens=100,
    )
    cm = manager(_session(), summarizer=provider, strategy=strategy)
    cm.drain()
    found = chunks(cm)
    assert {c.phase for c in found} >= {"research", "synthesis", "lesson", "subagent"}
    for c in found:
        tools = {b.name for m in c.ids for b in cm.get_message(m).content if b.type == "tool_use"}
        phases = {strategy.phase_of_tool(t) for t in tools}
        assert len(phases - {None}) <= 2  # a chunk ends where a phase changes (unless it is tiny)
        assert (
            strategy.chunk_target(c) == {"research": 50, "synthesis": 100, "lesson": 200, "subagent": 75}[c.phase or ""]
        )
    research = [c for c in found if c.phase == "research"]
    lesson = [c for c in found if c.phase == "lesson"]
    assert max(c.tokens for c in research) > max(c.tokens for c in lesson)  # sizes follow the phase
    by_work = {r.metadata["work"]: r for r in provider.requests}
    for c in found:
        request = by_work[f"chunk:{c.id}"]
        assert request.metadata["target_tokens"] == strategy.chunk_target(c)
        instruction = request.messages[-1].content[0].text  # type: ignore[union-attr]
        hint = {p.name: p.hint for p in PHASES}[c.phase or ""]
        assert hint in instruction
    rows = {r.source_ids[0]: r for r in cm.search_summaries(limit=None) if r.level == 1}
    assert all(rows[c.id].phase == c.phase for c in found)
    check(cm, cm.compile(2_000))


def test_tool_names_map_to_phases() -> None:
    strategy = KnowledgeStrategy()
    assert strategy.phase_of_tool("WebSearch") == "research"
    assert strategy.phase_of_tool("mcp__notes__lesson_add") == "lesson"
    assert strategy.phase_of_tool("Task") == "subagent"
    assert strategy.phase_of_tool("MultiEdit") == "synthesis"
    assert strategy.phase_of_tool("Bash") is None
    with pytest.raises(ValueError):
        KnowledgeStrategy(phase_break_fraction=2)
    with pytest.raises(ValueError):
        KnowledgeStrategy(phases=(PHASES[0], PHASES[0]))
    with pytest.raises(ValueError):
        Phase("x", ("a",), 0)
