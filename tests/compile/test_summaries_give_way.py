"""Summaries cut to nothing give way whole: when the budget leaves a rendered summary under a tenth of its
text, the fewest oldest summaries are left out, each run of them (with their question turns) as one note
that names them, so the rest keep more of themselves.

A review found a real Claude Code session (ae4a77f8, summarised with ``for_budget(800)``) compiled at 700 to
1,200 tokens with five summaries each sent as "[… about 87 of 87 tokens cut here …]" after its question
turn: about 300 tokens that said nothing, while the newest answer and the working-state block were cut.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import AutobiographicalConfig, CompileResult, ContextManager, read_transcript
from context_journal.formats.importers import import_into
from context_journal.llm import OfflineSummarizer
from context_journal.rendering.repairs import share_kept
from context_journal.stores import MemoryStore
from context_journal.strategies import AutobiographicalStrategy
from tests.autobiographical.autobio_helpers import check, compile_checked, hollow_summaries, manager, tool_chat
from tests.hypothesis_budget import examples

_NOTE = re.compile(r"\[… (\d+) earlier summar(?:y|ies) \(about (\d+) tokens\) cut here to fit the budget")


def _notes(result: CompileResult) -> list[tuple[int, list[str]]]:
    """``(count the note states, the summaries its provenance names)`` for each note standing for summaries."""
    out = []
    for m in result.messages:
        found = _NOTE.match(str(m.content[0].get("text", ""))) if len(m.content) == 1 else None
        if found:
            named = [s.id for s in m.sources if s.kind == "summary"]
            assert all(not s.complete for s in m.sources if s.kind == "summary")
            out.append((int(found.group(1)), named))
    return out


def _sent_summaries(result: CompileResult) -> set[str]:
    """The summaries ``result`` sends as text (not inside a note)."""
    return {
        s.id
        for m in result.messages
        if not any(s.kind == "synthetic" for s in m.sources)
        for s in m.sources
        if s.kind == "summary"
    }


@pytest.fixture(scope="module")
def session(data_dir: Path) -> ContextManager:
    path = next((data_dir / "claude-code-sessions").glob("ae4a77f8*.jsonl"))
    store = MemoryStore()
    import_into(store, read_transcript(path), namespace="s")
    config = AutobiographicalConfig.for_budget(800)
    cm = ContextManager.open(store=store, namespace="s", strategy=AutobiographicalStrategy(config))
    cm.drain()
    return cm


@pytest.mark.parametrize("budget", [700, 800, 900, 1_000, 1_200])
def test_a_real_session_sends_no_summary_cut_to_nothing(session: ContextManager, budget: int) -> None:
    result = session.compile(budget)
    check(session, result)  # valid, within budget, every message covered (the notes name their summaries)
    assert not hollow_summaries(result)
    notes = _notes(result)
    assert notes  # five summaries gave way at 800 (each was "about 87 of 87 tokens cut here" before)
    for count, named in notes:
        assert count == len(named) > 0
    left_out = {i for _, named in notes for i in named}
    assert not left_out & _sent_summaries(result)
    # The oldest give way: every summary sent is newer than every summary left out.
    order = [s.id for m in result.messages for s in m.sources if s.kind == "summary"]
    assert max(order.index(i) for i in left_out) < min((order.index(i) for i in _sent_summaries(result)), default=999)
    assert any(r.kind == "summaries_cut" for r in result.repairs)


def test_the_room_goes_to_what_is_sent(session: ContextManager) -> None:
    # At 800 tokens the five empty pairs cost about 300 tokens; the note that stands for them costs about 30,
    # so the newest answer keeps more of itself than it did (0.69 of its text now, 0.58 before).
    result = session.compile(800)
    newest = result.messages[-1]
    assert newest.role == "assistant" and share_kept(newest.content, session.token_counter) > 0.6
    named = [m for m in result.messages if any(s.kind == "summary" for s in m.sources)]
    assert len(named) == 4  # the note and three summaries sent whole (eight summaries, five empty, before)


@settings(
    max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(
    units=st.integers(8, 40),
    size=st.integers(10, 60),
    chunk=st.sampled_from([80, 120, 200]),
    merge=st.integers(2, 4),
    budgets=st.lists(st.integers(150, 3_000), min_size=1, max_size=4),
)
def test_no_summary_is_sent_cut_to_nothing(units: int, size: int, chunk: int, merge: int, budgets: list[int]) -> None:
    """Over generated tool sessions summarised at several levels: every compile that fits is valid, covers
    every message, sends no summary under a tenth of itself (:func:`check`), and each note names the
    summaries it stands for, none of which is also sent."""
    cm = manager(
        tool_chat(units, size),
        summarizer=OfflineSummarizer(),
        merge_threshold=merge,
        head_window_tokens=80,
        recent_window_tokens=150,
        target_chunk_tokens=chunk,
    )
    cm.drain()
    for budget in budgets:
        result = compile_checked(cm, budget)
        if result is None:
            continue
        for count, named in _notes(result):
            assert count == len(named) > 0
            assert not set(named) & _sent_summaries(result)
