"""The working-state block stays byte for byte the same while a user turn's tool loop runs (issue 13, kind 5:
a fresh review found the block wiping the prompt cache of real Claude Code sessions: placed before the newest
user turn, it showed every step's files and commands, so the whole running loop after it was sent anew at
every step).

The block placed before the newest user turn shows the working state of the messages before that turn, with
the current plans and facts, while the turn takes at most half the budget (the loop's steps are raw after it);
the message before the block carries a prompt-cache breakpoint, so the next user turn, which moves the
block, reads the prompt up to there back."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.compile import CompileResult
from context_journal.state import LedgerConfig
from tests.hypothesis_budget import examples
from tests.ledger.ledger_helpers import todo_write

BUDGET = 4_000


def _step(cm: ContextManager, turn: int, k: int, tool: str) -> None:
    """One step of a loop: a call touching a file of its own and its result."""
    call = f"c{turn}_{k}"
    inputs = {
        "Read": {"file_path": f"/repo/src/pkg{turn}/module_{k}.py"},
        "Edit": {"file_path": f"/repo/src/pkg{turn}/edit_{k}.py", "old_string": "a = 1", "new_string": "a = 2"},
        "Bash": {"command": f"pytest tests/test_part_{turn}_{k}.py -q"},
    }[tool]
    cm.add_message("assistant", [{"type": "tool_use", "id": call, "name": tool, "input": inputs}])
    result = "\n".join(f"line {i} of the output of step {k} in turn {turn}" for i in range(12))
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": call, "content": result}])


def _ledger_text(result: CompileResult) -> str | None:
    for m in result.messages:
        if any(s.kind == "ledger" for s in m.sources):
            return str(m.content[0]["text"])
    return None


def _before_block_marked(result: CompileResult) -> bool:
    at = next(k for k, m in enumerate(result.messages) if any(s.kind == "ledger" for s in m.sources))
    return result.messages[at - 2].cache_breakpoint


def _history(cm: ContextManager, turns: int, steps: int, tools: list[str]) -> None:
    for t in range(turns):
        cm.add_message("user", f"Turn {t}: please look at package pkg{t} and fix what fails there.")
        for k in range(steps):
            _step(cm, t, k, tools[k % len(tools)])
        cm.add_message("assistant", f"Done with pkg{t}: the tests pass now.")


def test_the_block_stays_the_same_while_the_turn_s_loop_runs() -> None:
    """Six earlier turns, then a new turn whose loop reads, edits and runs 8 steps, compiled after each
    step: one block text all along, naming the earlier turns' files and not the loop's (raw after it), the
    message before it marked; the next user turn moves it and shows the loop's files."""
    cm = ContextManager.open("memory:")
    _history(cm, 6, 4, ["Read", "Edit", "Bash"])
    cm.add_message("user", "Turn 6: now the same for pkg6, please.")
    texts = []
    for k in range(8):
        _step(cm, 6, k, ["Read", "Edit", "Bash"][k % 3])
        result = cm.compile(BUDGET)
        text = _ledger_text(result)
        assert text is not None
        assert _before_block_marked(result)
        texts.append(text)
    assert len(set(texts)) == 1, "the block changed inside the turn"
    assert "pkg5" in texts[0] and "pkg6" not in texts[0]
    cm.add_message("assistant", "Done with pkg6.")
    cm.add_message("user", "Turn 7: and pkg7.")
    moved = _ledger_text(cm.compile(BUDGET))
    assert moved is not None and moved != texts[0] and "pkg6" in moved


def test_a_turn_longer_than_half_the_room_shows_the_current_state() -> None:
    """A turn whose loop takes more than half the budget is cut, and the files of its cut steps would then
    be in the block only: the block shows the state as it stands (``eval_compaction.py``'s sessions a whole
    session behind on compression kept 1.18x the compaction's file names with the state before the turn,
    1.45x so)."""
    cm = ContextManager.open("memory:")
    _history(cm, 6, 4, ["Read", "Edit", "Bash"])
    cm.add_message("user", "Turn 6: now the same for pkg6, please.")
    for k in range(30):
        _step(cm, 6, k, ["Read", "Edit", "Bash"][k % 3])
    result = cm.compile(BUDGET)
    text = _ledger_text(result)
    assert text is not None and "pkg6" in text and "edit_28.py" in text


def test_a_plan_written_inside_the_loop_shows_at_once() -> None:
    """B47's rule holds inside the turn: the block shows the latest plan, never a stale one beside it, so
    it changes at the step that writes a plan (and only there)."""
    cm = ContextManager.open("memory:")
    _history(cm, 8, 4, ["Read", "Bash"])  # (more than fits whole, cut or not)
    cm.add_message("user", "Turn 8: plan the report work and do it.")
    texts = []
    for k in range(6):
        if k == 3:
            name, data = todo_write(("completed", "in_progress", "pending"))
            cm.add_message("assistant", [{"type": "tool_use", "id": "plan", "name": name, "input": data}])
            cm.add_message("user", [{"type": "tool_result", "tool_use_id": "plan", "content": "Todos updated."}])
        else:
            _step(cm, 8, k, "Read")
        text = _ledger_text(cm.compile(BUDGET))
        assert text is not None
        texts.append(text)
    assert texts[0] == texts[1] == texts[2] and texts[3] == texts[4] == texts[5] and texts[2] != texts[3]
    assert "Plan (TodoWrite, version 1, latest)" in texts[3] and "in_progress" in texts[3]


@settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=st.integers(2, 7),
    steps=st.integers(1, 6),
    loop=st.integers(1, 9),
    tools=st.lists(st.sampled_from(["Read", "Edit", "Bash"]), min_size=1, max_size=3),
    every=st.sampled_from([0, 4, 16]),
)
@example(turns=6, steps=4, loop=8, tools=["Read", "Edit", "Bash"], every=4)
def test_a_new_handle_sends_the_same_context(turns: int, steps: int, loop: int, tools: list[str], every: int) -> None:
    """The block is a function of the journal: a handle opened on the store in the middle of the loop
    (from a checkpoint written after the turn began, or with none) compiles what the running handle does,
    at every step, and the running handle's block, once the history no longer fits whole, stays the same
    through the loop."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "s.db")
        config = LedgerConfig(checkpoint_every=every)
        cm = ContextManager.open(path)
        cm.ledger_config = config
        _history(cm, turns, steps, tools)
        cm.add_message("user", f"Turn {turns}: one more package.")
        seen: set[str | None] = set()
        for k in range(loop):
            _step(cm, turns, k, tools[k % len(tools)])
            result = cm.compile(BUDGET)
            seen.add(_ledger_text(result))
            other = ContextManager.open(path)
            other.ledger_config = config
            again = other.compile(BUDGET)
            assert [(m.role, m.content) for m in again.messages] == [(m.role, m.content) for m in result.messages]
            other.close()
        assert len(seen - {None}) <= 1  # (no block while the whole history fits)
        cm.close()
