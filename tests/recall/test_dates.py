"""Dates in compiled contexts: imports with real dates render them by default, summaries show their range."""

from __future__ import annotations

from pathlib import Path

from context_journal import AutobiographicalConfig, AutobiographicalStrategy, ContextManager, MemoryStore
from context_journal.formats import import_into, read_transcript


def _text(result: object) -> str:
    return str(result.to_anthropic())  # type: ignore[attr-defined]


def test_a_dated_import_renders_dates_unless_told_not_to(data_dir: Path) -> None:
    store = MemoryStore()
    import_into(store, read_transcript(data_dir / "locomo" / "locomo-dev7.json", format="locomo"))
    cm = ContextManager.open(store=store, namespace="locomo:conv-26", isolate=True)
    newest = _text(cm.compile(600))
    assert "[22 October 2023]" in newest  # the last session's date (session_19_date_time)
    assert "[22 October 2023]" not in _text(cm.compile(600, render_dates=False))
    recalled = _text(cm.compile(1500, query="What did Caroline research?"))
    assert "[25 May 2023]" in recalled and "adoption agencies" in recalled


def test_an_undated_conversation_renders_no_dates_by_default() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "hello", timestamp="2023-05-08T10:00:00")
    assert "May 2023" not in _text(cm.compile(200))
    assert "[8 May 2023]" in _text(cm.compile(200, render_dates=True))


def test_a_summary_marker_shows_the_dates_it_covers() -> None:
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(AutobiographicalConfig.for_budget(2000)))
    for i in range(200):
        ts = 1_680_000_000 + i * 40_000  # 28 March 2023 onward, about two messages a day
        cm.add_message("user", f"Step {i}: the build of module_{i}.py failed with exit code {i % 7}.", timestamp=ts)
        cm.add_message("Claude", f"I fixed module_{i}.py by pinning dependency v{i}.0.", timestamp=ts + 60)
    cm.drain()
    result = cm.compile(2000, render_dates=True)
    markers = [m.content[0]["text"] for m in result.messages if "What do you remember" in str(m.content)]
    assert markers and all(" to " in t and t.endswith("2023)") for t in markers)
    assert "2023)" not in _text(cm.compile(2000, render_dates=False))
