"""Terminal escape sequences never reach the ledger: a coloured ``error:`` line is read as an error line,
and a command typed with colours is stored plain (a review of issue 12 found the error lost and
``$ [1mls[0m`` among the commands; the shared Claude Code sessions hold 48 escapes)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.state import Ledger
from context_journal.state.ledger import _plain
from tests.hypothesis_budget import examples

SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])

ESCAPES = [
    "\x1b[31m",
    "\x1b[0m",
    "\x1b[1;32m",
    "\x1b[2K",
    "\x1b]0;title\x07",
    "\x1b(B",
    "\x1b7",
    "\x1b]8;;http://x\x1b\\",
]


def test_a_coloured_error_and_command_are_read_plain() -> None:
    ledger = Ledger()
    ledger.add("a", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "\x1b[1mls\x1b[0m -la"}}])
    result = "\x1b[31merror: RED ANSI failure\x1b[0m\nExit code 2"
    ledger.add("b", [{"type": "tool_result", "tool_use_id": "t1", "content": result}])
    state = ledger.state()
    assert [c.command for c in state.commands] == ["ls -la"] and state.commands[0].exit_code == 2
    assert state.errors == ("error: RED ANSI failure",)


@SETTINGS
@given(parts=st.lists(st.one_of(st.sampled_from(ESCAPES), st.text(alphabet="abc :\n", max_size=8)), max_size=12))
def test_escapes_are_removed_and_nothing_else(parts: list[str]) -> None:
    text = "".join(parts)
    plain = "".join(p for p in parts if p not in ESCAPES)
    assert _plain(text) == plain
