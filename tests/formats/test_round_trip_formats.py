"""Round trip of every import format: import -> compile unbounded (passthrough) -> export
-> import gives the same messages.

Real excerpts are read in place from ``../shared/data`` (never copied); hand-built transcripts add the
provider-side blocks (server tool pairs, ``mcp_*``, ``compaction``, ``search_result``,
``container_upload``) that the staged data does not hold.

**What is compared.** A provider has roles, not participants, so the original conversation is compared
as the provider reads it: each message under its role (the assistant participant -> ``assistant``, a
system participant -> ``system``, everyone else -> ``user``), consecutive turns of one role as one turn
(the exporters merge them: strict providers want alternation), and the re-import's turns under their
roles. Within that, blocks must be equal, except for what the compile or the API itself defines:

- fields a block carries that the API does not take (Claude Code's ``caller`` on ``tool_use``) are the
  host's and are not sent; ``cache_control`` markers the exporter adds are not compared;
- a ``thinking`` block whose signature the publisher redacted cannot be sent (compile repair
  ``unsigned_thinking_dropped``), nor can an empty tool result (``empty_result_filled``: ``(no output)``);
- the results in a user turn come first, in the order of the calls they answer (Anthropic: "tool_result
  blocks must come first"; OpenAI: one ``tool`` message per call, in call order);
- a turn of a named speaker who is not the assistant reads ``Name: text`` (the compile names the
  speaker when a conversation has more than one, so the model can tell them apart);
- a call id the source reuses is renamed (``duplicate_tool_use_renamed``, tau-bench): ids are compared
  through the rename.

Formats that cannot round-trip message for message: LoCoMo (two people, no assistant) is compiled with
its second speaker as the assistant, so turns alternate; its QA annotations and session dates live in the
conversation's metadata, which no chat export carries. IRC has one assistant-less crowd: every line is a
user turn, so the whole log comes back as one user turn whose text blocks are the lines as ``nick: text``
(timestamps, ``reply_to`` links and the channel's metadata are not part of a chat export). What *is*
exact for every format: a second round trip gives back exactly the first one's messages (a fixed point).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from context_journal.compile import CompileResult, Roles
from context_journal.formats import ImportResult, import_into, read_transcript
from context_journal.formats.base import Conversation
from context_journal.formats.chat_json import read_anthropic, read_openai
from context_journal.formats.claude_code import read_claude_code
from context_journal.manager import ContextManager
from context_journal.messages import MessageInput
from context_journal.stores import MemoryStore
from tests.provider_shapes import assistant_turn, mcp_pair, user_turn, web_fetch_pair, web_search_pair

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"data sets not found at {DATA}")
CLAUDE = DATA / "claude-code-sessions"
MODEL = "claude-opus-4-6"

Block = dict[str, Any]
Turn = tuple[str, list[Block]]

# The fields each block type is sent with (``formats.exporters``); provider blocks are sent as stored.
_API_FIELDS = {
    "text": ("type", "text", "citations"),
    "tool_use": ("type", "id", "name", "input"),
    "tool_result": ("type", "tool_use_id", "content", "is_error"),
    "thinking": ("type", "thinking", "signature"),
}


def _compile(result: ImportResult, assistant: str | None = None) -> CompileResult:
    store = MemoryStore()
    import_into(store, result)
    cm = ContextManager.open(store=store, strategy="passthrough")
    return cm.compile(100_000_000, render_dates=False, assistant=assistant)


def _export(compiled: CompileResult, flavour: str, tmp: Path, name: str) -> ImportResult:
    path = tmp / f"{name}.json"
    if flavour == "anthropic":
        path.write_text(json.dumps(compiled.to_anthropic(), ensure_ascii=False), encoding="utf-8")
        return read_anthropic(path)
    path.write_text(json.dumps({"messages": compiled.to_openai()}, ensure_ascii=False), encoding="utf-8")
    return read_openai(path)


def _one(conv: Conversation, messages: list[MessageInput] | None = None) -> ImportResult:
    conv = Conversation(conv.id, list(conv.messages if messages is None else messages), conv.metadata, None, True)
    return ImportResult("test", "test", [conv])


def _clean(b: Block) -> Block:
    fields = _API_FIELDS.get(str(b.get("type")))
    return {k: v for k, v in b.items() if k != "cache_control" and (fields is None or k in fields)}


def _turns(conv: Conversation, assistant: str | None = None, messages: list[MessageInput] | None = None) -> list[Turn]:
    """The conversation as the provider reads it (see the module docstring), before the compile's repairs:
    roles as the import recorded them (``Roles.from_metadata``, plus ``assistant``), a named speaker's
    first text block prefixed ``Name: ``."""
    roles = Roles.from_metadata(conv.metadata)
    if assistant is not None:
        roles = replace(roles, assistant=roles.assistant | {assistant})
    out: list[Turn] = []
    for m in conv.messages if messages is None else messages:
        role = roles.role(m.participant, (m.metadata or {}).get("role"))
        assert isinstance(m.content, list)
        blocks = [_clean(dict(b)) for b in m.content]
        prefix = roles.prefix(m.participant, role) if role == "user" else ""
        for k, b in enumerate(blocks):
            if prefix and b["type"] == "text" and b["text"].strip():
                blocks[k] = {**b, "text": prefix + b["text"]}
                break
        if out and out[-1][0] == role:
            out[-1][1].extend(blocks)
        else:
            out.append((role, blocks))
    return out


def _sent(turns: list[Turn]) -> list[Turn]:
    """``turns`` with the compile's documented changes (see the module docstring)."""
    out: list[Turn] = []
    calls: list[str] = []
    for role, blocks in turns:
        kept = []
        for b in blocks:
            if b["type"] == "thinking" and not b.get("signature"):
                continue  # unsigned_thinking_dropped
            if b["type"] == "tool_result" and b.get("content") in ("", []):
                b = {**b, "content": "(no output)"}  # empty_result_filled
            kept.append(b)
        if role == "user":
            results = sorted(
                (b for b in kept if b["type"] == "tool_result"), key=lambda b: calls.index(b["tool_use_id"])
            )
            kept = results + [b for b in kept if b["type"] != "tool_result"]
        calls = [b["id"] for b in kept if b["type"] == "tool_use"]
        if kept:
            out.append((role, kept))
    return out


def _back(result: ImportResult) -> list[Turn]:
    (conv,) = result.conversations
    out: list[Turn] = []
    for m in conv.messages:
        role = {"tool": "user"}.get(m.participant, m.participant)
        assert isinstance(m.content, list)
        blocks = [_clean(dict(b)) for b in m.content]
        if out and out[-1][0] == role:
            out[-1][1].extend(blocks)
        else:
            out.append((role, blocks))
    return out


def _round_trip(result: ImportResult, flavour: str, tmp: Path, assistant: str | None = None) -> ImportResult:
    first = _export(_compile(result, assistant), flavour, tmp, "first")
    second = _export(_compile(first, None), flavour, tmp, "second")
    assert _back(second) == _back(first), "a second round trip changed the messages"
    return first


# ---- Claude Code ------------------------------------------------------------------------------------


@needs_data
@pytest.mark.parametrize("name", ["short.jsonl", "tool_heavy.jsonl"])
def test_claude_code_round_trip(name: str, tmp_path: Path) -> None:
    main = read_claude_code(CLAUDE / name, include_subagents=False).conversations[0]
    back = _round_trip(_one(main), "anthropic", tmp_path)
    expected = _sent(_turns(main))
    assert _back(back) == expected
    assert len(expected) == {"short.jsonl": 3, "tool_heavy.jsonl": 9}[name]


@needs_data
def test_claude_code_round_trip_across_the_compaction(tmp_path: Path) -> None:
    """The messages on both sides of the compaction marker of a real session (the summary is a marker,
    not a message, so it is not in the export: the journal's own compile decides what is sent)."""
    main = read_claude_code(CLAUDE / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl", include_subagents=False)
    conv = main.conversations[0]
    (marker,) = conv.metadata["markers"]
    at = int(marker["position"])
    start = max(k for k in range(at) if conv.messages[k].participant == "developer")
    window = conv.messages[start : at + 12]
    while window[-1].participant != "tools:claude-code":  # end on a turn that leaves no call open
        window.pop()
    back = _round_trip(_one(conv, window), "anthropic", tmp_path)
    expected = _sent(_turns(conv, messages=window))
    assert _back(back) == expected
    assert not any(marker["summary"][:100] in json.dumps(b) for _, blocks in _back(back) for b in blocks)


def _claude_line(kind: str, uuid: str, content: Any, mid: str | None = None, **extra: Any) -> str:
    message: dict[str, Any] = {"role": kind, "content": content}
    if mid is not None:
        message.update({"id": mid, "model": MODEL, "type": "message"})
    rec = {"type": kind, "uuid": uuid, "sessionId": "s-1", "timestamp": "2026-02-11T10:00:00.000Z", "message": message}
    return json.dumps({**rec, **extra})


def server_session(tmp: Path) -> Path:
    """A Claude Code session whose responses use provider-side tools: each block on its own line, as
    Claude Code writes a streamed response, with a user turn holding a search result and an upload."""
    turn = assistant_turn(1)
    lines = [_claude_line("user", "u1", "Find out when Claude Shannon was born and run the numbers.")]
    lines += [_claude_line("assistant", f"a1-{k}", [b], "msg_01") for k, b in enumerate(turn)]
    lines.append(_claude_line("user", "u2", user_turn()))
    lines += [_claude_line("assistant", f"a2-{k}", [b], "msg_02") for k, b in enumerate(web_search_pair(2))]
    lines.append(_claude_line("user", "u3", "Thanks. Now fetch the article and ask the MCP server."))
    lines += [
        _claude_line("assistant", f"a3-{k}", [b], "msg_03") for k, b in enumerate(web_fetch_pair(3) + mcp_pair(3))
    ]
    lines.append(_claude_line("assistant", "a3-end", [{"type": "text", "text": "Done."}], "msg_03"))
    path = tmp / "server-tools.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_claude_code_keeps_provider_blocks(tmp_path: Path) -> None:
    result = read_claude_code(server_session(tmp_path))
    (conv,) = result.conversations
    assert result.skipped == []
    assert [m.participant for m in conv.messages] == ["developer", MODEL, "developer", MODEL, "developer", MODEL]
    assert conv.messages[1].content == assistant_turn(1)  # every block, in order, as given
    assert conv.messages[2].content == user_turn()
    assert conv.messages[5].content == [*web_fetch_pair(3), *mcp_pair(3), {"type": "text", "text": "Done."}]


def test_claude_code_provider_blocks_round_trip(tmp_path: Path) -> None:
    conv = read_claude_code(server_session(tmp_path)).conversations[0]
    back = _round_trip(_one(conv), "anthropic", tmp_path)
    assert _back(back) == _sent(_turns(conv))
    kinds = [b["type"] for _, blocks in _back(back) for b in blocks]
    for kind in ("server_tool_use", "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
                 "bash_code_execution_tool_result", "text_editor_code_execution_tool_result", "mcp_tool_use",
                 "mcp_tool_result", "compaction", "search_result", "container_upload"):  # fmt: skip
        assert kind in kinds


# ---- chat JSON --------------------------------------------------------------------------------------


def test_anthropic_chat_round_trip(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "When was Claude Shannon born?"},
        {"role": "assistant", "content": [*web_search_pair(7), *mcp_pair(7)]},
        {"role": "user", "content": user_turn()},
        {"role": "assistant", "content": assistant_turn(0)},
        {"role": "user", "content": "Thanks."},
        {"role": "assistant", "content": "You are welcome."},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"system": "Be brief.", "messages": messages}), encoding="utf-8")
    result = read_transcript(path, "anthropic")
    (conv,) = result.conversations
    back = _round_trip(result, "anthropic", tmp_path)
    assert _back(back) == _sent(_turns(conv))
    assert [role for role, _ in _back(back)] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def test_openai_chat_round_trip(tmp_path: Path) -> None:
    messages = [
        {"role": "system", "content": "You are a weather bot."},
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Paris"}'}},
                {"id": "call_2", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Rome"}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": "24 C, clear"},
        {"role": "assistant", "content": "Paris is 18 C and sunny; Rome 24 C and clear."},
    ]
    path = tmp_path / "openai.json"
    path.write_text(json.dumps({"messages": messages}), encoding="utf-8")
    result = read_transcript(path, "openai")
    (conv,) = result.conversations
    back = _round_trip(result, "openai", tmp_path)
    assert _back(back) == _sent(_turns(conv))
    assert len(_back(back)) == 5


# ---- LoCoMo, tau-bench, IRC -------------------------------------------------------------------------


@needs_data
def test_locomo_round_trip(tmp_path: Path) -> None:
    result = read_transcript(DATA / "locomo" / "locomo-dev7.json")
    conv = result.conversations[0]
    window = conv.messages[:60]
    speakers = list(dict.fromkeys(m.participant for m in window))
    assert len(speakers) == 2
    back = _round_trip(_one(conv, window), "anthropic", tmp_path, assistant=speakers[1])
    expected = _sent(_turns(conv, speakers[1], window))
    assert _back(back) == expected
    assert [role for role, _ in expected[:4]] == ["user", "assistant", "user", "assistant"]


@needs_data
def test_tau_bench_round_trip(tmp_path: Path) -> None:
    result = read_transcript(DATA / "tau-bench-airline" / "gpt-4o-airline-dev150.json")
    conv = result.conversations[0]
    back = _round_trip(_one(conv), "openai", tmp_path, assistant=conv.metadata["assistant"])
    expected = _sent(_turns(conv))
    got = _back(back)
    renamed = _renames(expected, got)
    assert renamed == {"call_HGn16KZh9oNCruxsMJ4gYXan": "call_HGn16KZh9oNCruxsMJ4gYXan_2",
                       "call_oIHazX6yQrB8hUwl4cRilFKj": "call_oIHazX6yQrB8hUwl4cRilFKj_2"}  # fmt: skip
    assert got == _renamed(expected, renamed)


def _renames(expected: list[Turn], got: list[Turn]) -> dict[str, str]:
    """``{original id: id sent}`` of the calls whose second use the compile renamed."""
    seen: set[str] = set()
    out: dict[str, str] = {}
    for (_, a), (_, b) in zip(expected, got, strict=True):
        for x, y in zip(a, b, strict=True):
            if x["type"] == "tool_use":
                if x["id"] in seen:
                    out[x["id"]] = y["id"]
                seen.add(x["id"])
    return out


def _renamed(turns: list[Turn], renames: dict[str, str]) -> list[Turn]:
    """``turns`` with each renamed id's second use (call, then its result) under the new name."""
    seen: set[str] = set()
    out: list[Turn] = []
    pending: dict[str, str] = {}
    for role, blocks in turns:
        new = []
        for b in blocks:
            if b["type"] == "tool_use" and b["id"] in renames:
                if b["id"] in seen:
                    pending[b["id"]] = renames[b["id"]]
                    b = {**b, "id": renames[b["id"]]}
                seen.add(b["id"])
            elif b["type"] == "tool_result" and b["tool_use_id"] in pending:
                b = {**b, "tool_use_id": pending.pop(b["tool_use_id"])}
            new.append(b)
        out.append((role, new))
    return out


@needs_data
def test_irc_round_trip(tmp_path: Path) -> None:
    result = read_transcript(DATA / "ubuntu-irc-disentanglement" / "dev" / "2009-02-23_10.annotation.txt")
    conv = result.conversations[0]
    window = conv.messages[:80]
    back = _round_trip(_one(conv, window), "anthropic", tmp_path)
    ((role, blocks),) = _back(back)  # one crowd, no assistant: one user turn
    assert role == "user" and len(blocks) == 80
    assert [b["text"] for b in blocks] == [f"{m.participant}: {m.content[0]['text']}" for m in window]  # type: ignore[index]
