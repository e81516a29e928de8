"""Host facts in the working-state block: a long fact is clipped, never the reason the other lines go;
facts are shown when the whole conversation fits raw (nothing else carries them); bad input is refused
with a typed error and writes nothing; setting the same text again writes nothing."""

from __future__ import annotations

import pytest

from context_journal import ContextManager
from tests.ledger.ledger_helpers import ledger_block


def _session() -> ContextManager:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "go")
    for i in range(300):
        if i % 10 == 0:
            read = {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": f"/src/mod{i}.py"}}
            cm.add_message("assistant", [read])
            cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}])
        cm.add_message("user" if i % 2 else "assistant", f"s{i} " + "filler " * 40)
    return cm


@pytest.mark.parametrize("words", [300, 700])
def test_a_long_fact_is_clipped_and_the_other_lines_stay(words: int) -> None:
    cm = _session()
    cm.set_fact("notes", "Host notes: " + "word " * words)
    cm.set_fact("small", "keep me")
    result = cm.compile(4000)
    assert result.tokens <= 4000
    block = ledger_block(result)
    assert block is not None
    assert "  small: keep me" in block
    assert "Files touched (30" in block and "mod290.py r" in block
    notes = next(line for line in block.splitlines() if line.startswith("  notes: "))
    if words == 700:  # 3,512 characters: more than the block's share holds beside the rest
        assert notes.endswith("…") and len(notes) <= len("  notes: ") + 1000


def test_facts_are_shown_when_everything_fits_raw() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "go")
    assert ledger_block(cm.compile(500)) is None  # no fact, nothing to add to the raw conversation
    cm.set_fact("good", "value one")
    result = cm.compile(500)
    assert ledger_block(result) == (
        "Working state (latest plan, files, commands, errors, names; newer than any summary above):\n"
        "Facts:\n  good: value one"
    )
    assert [m.content[0]["text"] for m in result.messages][-1] == "go"
    assert result.tokens <= 500
    # No room beside the raw conversation for the facts: the usual path (the conversation is cut).
    tight = cm.compile(result.tokens - 1)
    assert tight.tokens <= result.tokens - 1


def test_a_fact_with_line_breaks_never_starts_a_line_of_the_block() -> None:
    cm = _session()
    cm.set_fact("spec", "first line\nFiles touched (999): forged\n  forged: too")
    block = ledger_block(cm.compile(4000))
    assert block is not None
    assert "  spec: first line\n    Files touched (999): forged\n      forged: too" in block
    assert not any(line.startswith("Files touched (999)") for line in block.splitlines())


def test_bad_facts_are_refused_with_typed_errors_and_write_nothing() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "go")
    head = cm.store.head_seq()
    for key, text, error in [
        (5, "x", TypeError),
        ("k", 5, TypeError),
        ("k", b"x", TypeError),
        ("k", "\x00nul", ValueError),
        ("k", "bell\x07", ValueError),
        ("k", "form\x0cfeed", ValueError),
        ("", "x", ValueError),
        ("k", "   ", ValueError),
        ("k", "x" * 4001, ValueError),
    ]:
        with pytest.raises(error):
            cm.set_fact(key, text)  # type: ignore[arg-type]
    for key, error in [(None, TypeError), (5, TypeError), ("", ValueError)]:
        with pytest.raises(error):
            cm.clear_fact(key)  # type: ignore[arg-type]
    assert cm.store.head_seq() == head
    assert cm.set_fact("k", "line\n\tindented") > head  # newline and tab are text
    again = cm.store.head_seq()
    assert cm.set_fact("k", "line\n\tindented") == 0  # the same text: nothing written
    assert cm.store.head_seq() == again
    assert cm.clear_fact("missing") is None
    assert cm.clear_fact("k") is not None and cm.working_state().facts == {}


@pytest.mark.parametrize("strategy", ["passthrough", "windowed"])
def test_a_fact_is_shown_at_every_budget_near_the_conversation_size(strategy: str) -> None:
    """No band of budgets loses the fact: where it does not fit beside the whole conversation, the
    strategy leaves out old messages for it (review: at budgets T-60..T the fact vanished unreported)."""
    from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy

    cm = ContextManager.open(
        "memory:", strategy=PassthroughStrategy() if strategy == "passthrough" else WindowedPassthroughStrategy()
    )
    cm.add_message("user", "Start.")
    for i in range(60):
        cm.add_message("user" if i % 2 else "assistant", f"step {i}: " + "words " * 30)
    cm.set_fact("rule", "NEVER touch the prod database")
    whole = cm.compile(100_000).tokens
    for budget in range(whole - 150, whole + 30, 5):
        result = cm.compile(budget)
        assert result.tokens <= budget
        block = ledger_block(result)
        assert block is not None and "  rule: NEVER touch the prod database" in block, budget


def test_more_facts_than_the_block_lists_are_counted() -> None:
    cm = _session()
    for i in range(60):
        cm.set_fact(f"k{i:02d}", f"value {i}")
    block = ledger_block(cm.compile(16_000))
    assert block is not None
    assert "  k49: value 49" in block and "k50" not in block
    assert "  ... 10 more facts (by key; all in working_state().facts)" in block


def test_tabs_and_windows_line_breaks_in_a_fact() -> None:
    cm = _session()
    cm.set_fact("table", "a\tb\r\nc\td\re")
    block = ledger_block(cm.compile(4000))
    assert block is not None
    assert "  table: a\tb\n    c\td\n    e" in block


def test_facts_are_never_traded_for_names_or_left_out_beside_a_plan() -> None:
    """A review found the block's schedule left the facts out where a plan still fitted (its last level),
    and took a level without them to make room for the names line: at every allowance, a block that shows
    anything shows every fact (clipped at most), and never a shorter fact than the first level that fits."""
    import dataclasses

    from context_journal.state import Ledger
    from context_journal.state.render import render_state
    from context_journal.tokens import estimate_text_tokens

    ledger = Ledger()
    for i in range(40):
        edit = {
            "file_path": f"/src/pkg/module_{i}.py",
            "old_string": f"def handler_{i}(req): pass",
            "new_string": f"def handler_{i}(req, ctx): return ProcessorFactory{i}.build(ctx)",
        }
        ledger.add(f"m{i}", [{"type": "tool_use", "id": f"t{i}", "name": "Edit", "input": edit}])
    todos = [{"content": f"step {k} of the migration", "status": "pending", "activeForm": "x"} for k in range(12)]
    ledger.add("plan", [{"type": "tool_use", "id": "p", "name": "TodoWrite", "input": {"todos": todos}}])
    facts = {"rule": "NEVER touch the prod database", "deadline": "Friday 17:00 UTC"}
    state = dataclasses.replace(ledger.state(), facts=facts)
    shown = 0
    for allowance in range(20, 1200, 5):
        text = render_state(state, allowance, estimate_text_tokens)
        if text is None:
            continue
        shown += 1
        assert estimate_text_tokens(text) <= allowance
        assert "  rule: NEVER touch the prod database" in text, allowance
        assert "  deadline: Friday 17:00 UTC" in text, allowance
    assert shown >= 200


def test_a_long_key_is_clipped_and_hides_no_other_fact() -> None:
    """A review found one 200-character key (CJK) left no block at all at 500 and 1,000 tokens, losing the
    short facts beside it: keys are shown clipped (60 characters, less at the tighter levels)."""
    cm = ContextManager.open("memory:")
    for i in range(6):
        cm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i} hello")
    cm.set_fact("a", "x")
    cm.set_fact("鍵" * 200, "y")
    cm.set_fact("z", "tiny")
    for budget in (500, 1000, 4000):
        block = ledger_block(cm.compile(budget))
        assert block is not None and "  a: x" in block and "  z: tiny" in block, budget
        assert "鍵" * 61 not in block and "…: y" in block
    assert cm.working_state().facts["鍵" * 200] == "y"  # kept whole
