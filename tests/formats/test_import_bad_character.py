"""Damaged input (bug case B51): a transcript with one bad character (a lone surrogate, which JSON can
carry as ``\\ud83d`` but no store can keep) imports every message, the bad character read as U+FFFD,
and reports the message, in every format that can carry it (the JSON ones; IRC logs are UTF-8 text,
which cannot hold a lone surrogate). Leaving the message out would lose all of it, and a tool result
left out leaves its call unanswered."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from context_journal import ContextManager
from context_journal.formats import import_into, read_transcript
from context_journal.stores import open_store

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
BAD = "\ud83d"


def _inject(value: Any, state: dict[str, int]) -> Any:
    """``value`` with a lone surrogate appended to the ``state["at"]``-th message text (a ``text`` or
    ``content`` string of more than ten characters)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ("text", "content", "clean_text") and isinstance(v, str) and len(v) > 10:
                state["seen"] += 1
                if state["seen"] == state["at"]:
                    v = v + BAD
            out[k] = _inject(v, state)
        return out
    if isinstance(value, list):
        return [_inject(v, state) for v in value]
    return value


def _anthropic() -> Any:
    return {
        "messages": [
            {"role": "user", "content": "Build the project please."},
            {"role": "assistant", "content": "Building it now, one moment."},
            {"role": "user", "content": "And run the tests afterwards."},
            {"role": "assistant", "content": "All tests pass on the branch."},
        ]
    }


def _openai() -> Any:
    return {
        "messages": [
            {"role": "user", "content": "What is the weather in Paris?"},
            {"role": "assistant", "content": "It is sunny in Paris today."},
            {"role": "user", "content": "And what about Rome then?"},
            {"role": "assistant", "content": "Rome is rainy this afternoon."},
        ]
    }


def _first(path: Path, count: int = 1) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))[:count]


def _write(tmp_path: Path, fmt: str) -> tuple[Path, int]:
    """A transcript of ``fmt`` with one bad character, and how many messages it holds when clean."""
    if fmt == "claude-code":
        lines = (DATA / "claude-code-sessions" / "short.jsonl").read_text(encoding="utf-8").splitlines()
        state = {"seen": 0, "at": 1}
        bad = [json.dumps(_inject(json.loads(line), state)) if line.strip() else line for line in lines]
        clean, path = tmp_path / "clean.jsonl", tmp_path / "bad.jsonl"
        clean.write_text("\n".join(lines) + "\n", encoding="utf-8")
        path.write_text("\n".join(bad) + "\n", encoding="utf-8")
    else:
        sources: dict[str, Callable[[], Any]] = {
            "anthropic": _anthropic,
            "openai": _openai,
            "locomo": lambda: _first(DATA / "locomo" / "locomo-dev7.json"),
            "tau-bench": lambda: _first(DATA / "tau-bench-airline" / "gpt-4o-airline-dev150.json"),
        }
        data = sources[fmt]()
        clean, path = tmp_path / "clean.json", tmp_path / "bad.json"
        clean.write_text(json.dumps(data), encoding="utf-8")
        path.write_text(json.dumps(_inject(data, {"seen": 0, "at": 2})), encoding="utf-8")
    assert "\\ud83d" in path.read_text(encoding="utf-8")
    return path, read_transcript(clean, format=fmt).message_count


@pytest.mark.parametrize("fmt", ["anthropic", "openai", "locomo", "tau-bench", "claude-code"])
def test_one_bad_character_imports_every_message_and_reports_the_repair(tmp_path: Path, fmt: str) -> None:
    path, clean = _write(tmp_path, fmt)
    result = read_transcript(path, format=fmt)
    store = open_store(str(tmp_path / "store.db"))
    try:
        report = import_into(store, result)
        texts = [json.dumps(m.model_dump(mode="json"), ensure_ascii=False) for m in _entries(store, report.namespaces)]
    finally:
        store.close()
    assert report.messages == clean  # every message, the bad one too
    reasons = [s.reason for s in report.skip_details]
    assert any("surrogate" in r and "U+FFFD" in r for r in reasons), reasons
    assert sum("\ufffd" in t for t in texts) == 1, [t for t in texts if "\ufffd" in t]


def _entries(store: Any, namespaces: dict[str, str]) -> list[Any]:
    """Every message an import wrote, over its namespaces."""
    out = []
    for ns in set(namespaces.values()):
        out.extend(ContextManager(store, namespace=ns).get_all_messages())
    return out


def _deepen(value: Any, depth: int = 300) -> Any:
    for _ in range(depth):
        value = {"a": value}
    return value


def test_a_message_too_deep_or_out_of_time_imports_the_rest(tmp_path: Path) -> None:
    """Write checks: the importer applies the write checks per message. In a real Claude Code session
    one tool call's input nested 300 levels deep is refused and reported (its block named), as is an
    Anthropic message whose timestamp lies past year 9999 (its field named); every other message imports."""
    lines = (DATA / "claude-code-sessions" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl").read_text().splitlines()
    clean = tmp_path / "clean.jsonl"
    clean.write_text("\n".join(lines) + "\n")
    out, done = [], False
    for line in lines:
        row = json.loads(line) if line.strip() else None
        content = (row or {}).get("message", {}).get("content") if isinstance(row, dict) else None
        if not done and isinstance(content, list) and any(b.get("type") == "tool_use" for b in content):
            block = next(b for b in content if b.get("type") == "tool_use")
            block["input"] = {"deep": _deepen(1)}
            done = True
            line = json.dumps(row)
        out.append(line)
    bad = tmp_path / "deep.jsonl"
    bad.write_text("\n".join(out) + "\n")
    expected = read_transcript(clean, format="claude-code").message_count
    store = open_store(str(tmp_path / "deep.db"))
    try:
        report = import_into(store, read_transcript(bad, format="claude-code"))
    finally:
        store.close()
    assert done and report.messages == expected - 1
    reasons = [s.reason for s in report.skip_details]
    assert any("block" in r and "nested more than 64 levels" in r for r in reasons), reasons

    data = _anthropic()
    data["messages"][1]["timestamp"] = 1e14  # the year 3,170,843
    path = tmp_path / "late.json"
    path.write_text(json.dumps(data))
    store = open_store(str(tmp_path / "late.db"))
    try:
        result = read_transcript(path, format="anthropic")
        report = import_into(store, result)
    finally:
        store.close()
    assert result.message_count == 4  # the reader keeps the timestamp; the store refuses that one message
    assert report.messages == 3
    assert any("timestamp" in s.reason for s in report.skip_details), report.skip_details


@pytest.mark.parametrize("where", ["name", "id", "key", "input value", "input key"])
@pytest.mark.parametrize("fmt", ["anthropic", "claude-code"])
def test_a_bad_character_in_a_tool_call_is_repaired_in_its_message(tmp_path: Path, fmt: str, where: str) -> None:
    """A review found: a lone surrogate in a ``tool_use`` name or id, or in a block's key, failed the
    whole file (the block was checked as malformed at read). Its message is written with U+FFFD for the
    bad character and reported; the rest imports."""
    use: dict[str, Any] = {"type": "tool_use", "id": "toolu_1", "name": "grep", "input": {"q": "parse_amount"}}
    if where == "name":
        use["name"] = "gr" + BAD + "ep"
    elif where == "id":
        use["id"] = "toolu_" + BAD
    elif where == "key":
        use["extra" + BAD] = 1
    elif where == "input value":
        use["input"] = {"q": "parse" + BAD}
    else:
        use["input"] = {"q" + BAD: "x"}
    turns = [
        ("user", [{"type": "text", "text": "Find the parser please."}]),
        ("assistant", [{"type": "text", "text": "Searching now."}, use]),
        ("user", [{"type": "text", "text": "Thanks, and then the tests."}]),
    ]
    if fmt == "anthropic":
        path = tmp_path / "t.json"
        path.write_text(json.dumps({"messages": [{"role": r, "content": c} for r, c in turns]}), encoding="utf-8")
    else:
        path = tmp_path / "t.jsonl"
        lines = [
            {
                "type": r,
                "uuid": f"u{i}",
                "parentUuid": f"u{i - 1}" if i else None,
                "sessionId": "s1",
                "timestamp": f"2025-01-01T00:00:0{i}Z",
                "message": {"role": r, "content": c},
            }
            for i, (r, c) in enumerate(turns)
        ]
        path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    result = read_transcript(path, format=fmt)
    store = open_store(tmp_path / "s.db")
    report = import_into(store, result)
    written = sum(c.written for c in report.conversations)
    assert written == 3 and report.skip_details, (written, report)
    assert any("surrogate" in s.reason and "U+FFFD" in s.reason for s in report.skip_details)
    store.close()


def test_a_signed_thinking_block_with_a_bad_character_loses_its_signature(tmp_path: Path) -> None:
    """A review found a signed thinking block holding a lone surrogate imported as "hmm \\ufffd" with its
    signature kept, and sent so: the signature was made for the text as written, so the provider refuses the
    request. The mended block is stored unsigned, and the compile leaves it out and says so."""
    thinking = {"type": "thinking", "thinking": "hmm " + BAD, "signature": "sigX"}
    use = {"type": "tool_use", "id": "t1", "name": "bash", "input": {"cmd": "make"}}
    messages = [
        {"role": "user", "content": "Build it."},
        {"role": "assistant", "content": [thinking, use]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
    ]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    store = open_store(tmp_path / "s.db")
    try:
        report = import_into(store, read_transcript(path, format="anthropic"))
        cm = ContextManager(store, namespace=report.namespaces["anthropic:t"])
        stored = cm.get_all_messages()[1].content[0]
        result = cm.compile(2_000)
    finally:
        store.close()
    assert report.messages == 3
    assert stored.model_dump() == {"type": "thinking", "thinking": "hmm \ufffd", "signature": ""}
    assert not any(b.get("type") == "thinking" for m in result.messages for b in m.content)
    assert [r.kind for r in result.repairs if r.kind == "unsigned_thinking_dropped"] == ["unsigned_thinking_dropped"]


def _imports(db: Path, path: Path, fmt: str, times: int = 1) -> list[Any]:
    """The reports of importing ``path`` into the store at ``db`` ``times`` times over."""
    store = open_store(str(db))
    try:
        return [import_into(store, read_transcript(path, format=fmt)) for _ in range(times)]
    finally:
        store.close()


def test_a_bad_character_in_a_conversation_id_imports_the_conversation(tmp_path: Path) -> None:
    """A review's LoCoMo ``sample_id`` holding a lone surrogate failed the whole import (the id names the
    namespace and state keys): the id is read as U+FFFD, reported as repaired, and a second import finds
    every message already there."""
    data = _first(DATA / "locomo" / "locomo-dev7.json")
    data[0]["sample_id"] = "conv-" + BAD + "26"
    path = tmp_path / "bad-id.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    first, again = _imports(tmp_path / "store.db", path, "locomo", times=2)
    assert first.messages > 0 and first.skipped == 0 and first.repaired == 1
    [(conversation, namespace)] = first.namespaces.items()
    assert "\ufffd" in conversation and BAD not in conversation + namespace
    assert "conversation" in next(iter(first.repaired_by_reason))
    assert (again.messages, again.skipped) == (0, first.messages)


def test_a_repair_is_reported_only_for_a_message_written(tmp_path: Path) -> None:
    """A review saw one message counted twice, skipped (a NaN the store refuses) and repaired (a lone
    surrogate), and a re-import of a message whose id held one report "repaired 1 ... the message was
    written" though nothing was: a repair is reported once the message is written."""
    messages = [
        {"role": "user", "content": "Run the report please."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "run", "input": {"x": "y"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "done"}]},
        {"role": "assistant", "content": "The report ran" + BAD + " fine."},
    ]
    both = [*messages[:3], {"role": "assistant", "content": [{"type": "text", "text": "x" + BAD, "n": float("nan")}]}]
    path, nan_path = tmp_path / "bad.json", tmp_path / "nan.json"
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    nan_path.write_text(json.dumps({"messages": both}), encoding="utf-8")
    first, again = _imports(tmp_path / "store.db", path, "anthropic", times=2)
    assert (first.messages, first.skipped, first.repaired) == (4, 0, 1)
    assert (again.messages, again.skipped, again.repaired) == (0, 4, 0)
    [report] = _imports(tmp_path / "nan.db", nan_path, "anthropic")
    assert (report.messages, report.skipped, report.repaired) == (3, 1, 0), report.to_dict()
