"""Review findings of the working-state ledger, each as a test of its kind: a plan call whose result is
an error is undone (for every plan-tool shape, and across a checkpoint taken while the call is open),
plan items sent as JSON text are read, and a name split by a scan limit is never taken for a name
(texts, tool-input strings, and both ends of a long tool result)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from context_journal import ContextManager
from context_journal.state import LedgerConfig
from context_journal.state.checkpoint import dump_ledger, load_ledger
from context_journal.state.ledger import Ledger, _plain
from tests.ledger.ledger_helpers import PLAN_SHAPES, STATUSES_V2

V1 = ("pending", "pending", "pending")


def _call(cm: ContextManager, k: int, name: str, data: object, *, error: bool = False) -> None:
    cm.add_message("assistant", [{"type": "tool_use", "id": f"p{k}", "name": name, "input": data}])
    result = {"type": "tool_result", "tool_use_id": f"p{k}", "content": "Error: invalid todos" if error else "ok"}
    cm.add_message("user", [{**result, "is_error": True} if error else result])


def _plans(cm: ContextManager) -> list[tuple[str, int, list[str]]]:
    return [(p.tool, p.version, [i.status for i in p.items]) for p in cm.working_state().plans]


@pytest.mark.parametrize("shape", sorted(PLAN_SHAPES))
def test_a_plan_call_with_an_error_result_is_undone(shape: str) -> None:
    cm = ContextManager.open("memory:")
    if shape == "custom":
        from tests.ledger.test_ledger_b47 import CUSTOM

        cm.ledger_config = CUSTOM
    name, first = PLAN_SHAPES[shape](V1)
    _call(cm, 1, name, first)
    _call(cm, 2, *PLAN_SHAPES[shape](STATUSES_V2), error=True)
    assert _plans(cm) == [(name, 1, list(V1))]
    _call(cm, 3, *PLAN_SHAPES[shape](STATUSES_V2))
    assert _plans(cm) == [(name, 2, list(STATUSES_V2))]
    # The very first call refused: no plan at all.
    cm2 = ContextManager.open("memory:")
    if shape == "custom":
        cm2.ledger_config = cm.ledger_config
    _call(cm2, 1, name, first, error=True)
    assert _plans(cm2) == []


def test_an_error_after_a_checkpoint_taken_while_the_call_was_open() -> None:
    config = LedgerConfig()
    ledger = Ledger(config, None)
    name, first = PLAN_SHAPES["TodoWrite"](V1)
    ledger.add("m1", [{"type": "tool_use", "id": "p1", "name": name, "input": first}])
    ledger.add("m2", [{"type": "tool_result", "tool_use_id": "p1", "content": "ok"}])
    ledger.add(
        "m3",
        [{"type": "tool_use", "id": "p2", "name": name, "input": PLAN_SHAPES["TodoWrite"](STATUSES_V2)[1]}],
    )
    loaded = load_ledger(json.loads(json.dumps(dump_ledger(ledger))), config, None)
    for led in (ledger, loaded):
        assert [i.status for i in led.state().plans[0].items] == list(STATUSES_V2)
        led.add("m4", [{"type": "tool_result", "tool_use_id": "p2", "content": "bad", "is_error": True}])
        plan = led.state().plans[0]
        assert (plan.message_id, plan.version, [i.status for i in plan.items]) == ("m1", 1, list(V1))


def test_plan_items_sent_as_json_text() -> None:
    cm = ContextManager.open("memory:")
    name, data = PLAN_SHAPES["TodoWrite"](STATUSES_V2)
    _call(cm, 1, name, {**data, "todos": json.dumps(data["todos"])})
    assert _plans(cm) == [(name, 1, list(STATUSES_V2))]
    _call(cm, 2, name, {"todos": "[not json"})  # unreadable text: the plan stays as it was
    assert _plans(cm) == [(name, 1, list(STATUSES_V2))]


_BEFORE = re.compile(r"[\w.$-]")  # a character that may not come just before a whole word
_AFTER = re.compile(r"[\w$-]")  # nor just after one


def _whole_word(name: str, text: str) -> bool:
    """Whether ``name`` is in ``text`` as ``(?<![\\w.$-])name(?![\\w$-])`` would find it: each place it
    occurs is tried (overlapping ones too) and its neighbours matched with the same character classes.
    One regex search with a leading lookbehind has no literal prefix to skip to and stepped through a
    session's megabytes once per name."""
    at = text.find(name)
    while at != -1:
        end = at + len(name)
        if (at == 0 or not _BEFORE.match(text, at - 1)) and (end == len(text) or not _AFTER.match(text, end)):
            return True
        at = text.find(name, at + 1)
    return False


@pytest.mark.parametrize("shift", range(0, 24, 3))
def test_a_name_cut_by_a_scan_limit_is_not_a_name(shift: int) -> None:
    """Every scan limit falls inside a long name at some shift: the names found are whole words of
    what was written (never ``oad_fixture`` of ``load_fixture``)."""
    config = LedgerConfig(scan_chars=200, result_scan_chars=120)
    cm = ContextManager.open("memory:")
    cm.ledger_config = config
    filler = "x " * shift
    body = filler + " ".join(f"AshComputer.Executor.commit_frame load_fixture_{k} borderLeftWidth" for k in range(12))
    cm.add_message("user", body)
    cm.add_message(
        "assistant",
        [{"type": "tool_use", "id": "e1", "name": "Edit", "input": {"file_path": "/src/a.ex", "new_string": body}}],
    )
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "e1", "content": body + " tail_" + body}])
    cm.add_message(
        "user", [{"type": "tool_result", "tool_use_id": "zz", "content": [{"type": "text", "text": body}] * 3}]
    )
    text = body + " tail_" + body + " /src/a.ex"
    names = [i.name for i in cm.working_state().identifiers]
    assert names
    assert [n for n in names if not _whole_word(n, text)] == []


def test_no_fragment_names_on_the_real_sessions(data_dir: Path) -> None:
    """The shared Claude Code sessions: every identifier the ledger shows is a whole word of the session."""
    from context_journal.formats import read_transcript

    for path in sorted((data_dir / "claude-code-sessions").glob("*-*.jsonl")):
        cm = ContextManager.open("memory:")
        transcript = read_transcript(path, format="claude-code")
        conv = transcript.conversations[0]
        for m in conv.messages:
            cm.add_message(m.participant, m.content)
        raw = "\n".join(json.dumps(m.content, ensure_ascii=False) for m in conv.messages)
        raw = raw.replace("\\n", "\n").replace('\\"', '"').replace("\\t", "\t").replace("\\u001b", "\x1b")
        raw = _plain(raw)  # the ledger reads tool output without its terminal colours
        names = [i.name for i in cm.working_state().identifiers]
        assert len(names) > 100, path.name
        assert [n for n in names if not _whole_word(n, raw)] == [], path.name
