"""``ContextManager.render_stats()``: the parts of the last compile (system, head, summaries by level,
middle, recall pairs, the working-state pair, the recent window) with their messages and tokens, summing
to the compile's own figures."""

from __future__ import annotations

import pytest

from context_journal import CompileResult, ContextManager
from context_journal.render_stats import Shape
from context_journal.strategies import WindowedPassthroughStrategy
from tests.autobiographical.autobio_helpers import chat, echo_summarizer, manager, tool_chat


def _sums_match(stats: Shape | None, result: CompileResult) -> None:
    assert stats is not None
    assert sum(p.tokens for p in stats.parts) == result.estimated_tokens
    assert sum(p.messages for p in stats.parts if p.kind != "system") == len(result.messages)


def test_none_before_the_first_compile_and_a_preview_leaves_the_last_compile() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hello there")
    assert cm.render_stats() is None
    result = cm.compile(1000)
    stats = cm.render_stats()
    assert stats is not None and [p.kind for p in stats.parts] == ["raw"]
    _sums_match(stats, result)
    cm.add_message("assistant", "hi")
    cm.preview_context(1000)
    again = cm.render_stats()
    assert again is not None and again.parts[0].messages == 1  # still the last compile's
    preview = cm.render_stats(cm.preview_context(1000))
    assert preview is not None and preview.parts[0].messages == 2


def test_anything_but_a_compile_result_is_refused_by_type() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hi")
    for wrong in ("x", 3, cm.compile(100).messages):
        with pytest.raises(TypeError, match="render_stats takes a CompileResult"):
            cm.render_stats(wrong)  # type: ignore[arg-type]


def test_autobiographical_parts_follow_the_compile() -> None:
    cm = manager(
        chat(60, 40),
        summarizer=echo_summarizer(),
        head_window_tokens=120,
        recent_window_tokens=300,
        target_chunk_tokens=200,
        merge_threshold=2,
    )
    cm.drain()
    result = cm.compile(1500, system="Be brief.")
    stats = cm.render_stats()
    assert stats is not None
    kinds = [p.kind for p in stats.parts]
    assert kinds[0] == "system" and kinds[1] == "head" and kinds[-1] == "recent"
    assert "summary" in kinds
    levels = stats.tokens_by_level()
    assert levels and all(k.startswith("L") for k in levels)
    assert sum(levels.values()) == stats.tokens_by_part()["summaries"]
    _sums_match(stats, result)
    assert stats.conversation_messages == 60 and stats.covered == 60
    recent = stats.parts[-1]
    assert recent.last_id == "m59" and recent.tokens > 0


def test_recall_and_ledger_pairs_are_parts_of_their_own() -> None:
    cm = ContextManager.open("memory:", strategy=WindowedPassthroughStrategy())
    for m in tool_chat(30):
        content = m["content"]
        if isinstance(content, list) and content[0]["type"] == "tool_use":  # Claude Code's Read names file_path
            content = [{**content[0], "input": {"file_path": content[0]["input"]["path"]}}]
        cm.add_message(m["role"], content, id=m["id"])
    cm.add_message("user", "What did step 3 find in src/mod3.py?", id="q")
    result = cm.compile(1200, query="src/mod3.py step 3")
    stats = cm.render_stats()
    assert stats is not None
    by_part = stats.tokens_by_part()
    assert by_part.get("recall", 0) == result.parts.get("recall", 0) > 0
    assert by_part.get("ledger", 0) > 0
    _sums_match(stats, result)
