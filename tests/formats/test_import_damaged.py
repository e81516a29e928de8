"""Damaged input (a review finding): a transcript with damaged bytes or a cut-off last line imports the rest.

- line-oriented files (Claude Code JSONL, IRC logs): bytes that are not valid UTF-8 are read as U+FFFD and
  the line kept, a line that is not JSON (the last line of a session file cut off mid-write, a very common
  crash) is left out; each is reported under a reason naming the file and the line;
- whole-file JSON (Anthropic, OpenAI, LoCoMo, tau-bench): invalid bytes are read as U+FFFD and reported
  with their line and byte; a document that does not parse raises ``ImportFormatError`` naming the file,
  line, column and byte (and saying so when the file was cut off);
- a file of which nothing can be read raises ``ImportFormatError`` naming it and its first bad line;
- the CLI prints the report and exits 0 when something was imported, 1 with one line otherwise.

Generated inputs (hypothesis) put a bad byte at random places of real session files and cut their last
line at random offsets; the real files are read in place from ``../shared/data``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from context_journal.cli import app
from context_journal.errors import ImportFormatError
from context_journal.formats import ImportResult, import_into, read_claude_code, read_transcript
from context_journal.stores import open_store
from tests.hypothesis_budget import examples
from tests.imported import content_of, metadata_of

runner = CliRunner()
SESSIONS = ("short.jsonl", "tool_heavy.jsonl")
BIG = (
    "258c7280-ae70-4798-800f-63464d01a85d.jsonl",
    "4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
    "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
    "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
)
# Bytes that can never start or continue valid UTF-8 here: a lone continuation byte, overlong leads, 0xF5+.
BAD_BYTES = st.sampled_from([0x80, 0x9F, 0xBF, 0xC0, 0xC1, 0xE0, 0xED, 0xF0, 0xF5, 0xFE, 0xFF])
PROFILE = settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("damaged")


def _blocks(result: ImportResult) -> list[str]:
    """Every content block of the primary conversation, as JSON text."""
    conv = result.conversations[0]
    return [json.dumps(b, sort_keys=True) for m in conv.messages for b in content_of(m)]


def _line_blocks(line: bytes) -> int:
    """How many content blocks a (clean) session line holds."""
    try:
        rec = json.loads(line)
    except ValueError:
        return 0
    content = (rec.get("message") or {}).get("content") if isinstance(rec, dict) else None
    return len(content) if isinstance(content, list) else 1


def _is_damaged(data: bytes) -> bool:
    """Whether ``data`` holds a byte that is not valid UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _first_bad(data: bytes) -> int:
    """Offset of the first byte of ``data`` that is not valid UTF-8 (a bad byte put after a lead byte can
    complete it, moving the fault to the byte after)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    raise AssertionError("no invalid byte")


def _named(result: ImportResult, name: str, line: int) -> list[str]:
    return [s.reason for s in result.skipped if s.reason.startswith(f"{name} line {line}:")]


def _missing(clean: list[str], damaged: list[str]) -> int:
    left = list(damaged)
    gone = 0
    for b in clean:
        if b in left:
            left.remove(b)
        else:
            gone += 1
    return gone


# --- Claude Code JSONL ---------------------------------------------------------------------------------


@PROFILE
@given(name=st.sampled_from(SESSIONS), where=st.floats(0, 1), byte=BAD_BYTES, replace=st.booleans())
def test_a_bad_byte_anywhere_loses_at_most_its_line(
    data_dir: Path, work: Path, name: str, where: float, byte: int, replace: bool
) -> None:
    raw = (data_dir / "claude-code-sessions" / name).read_bytes()
    clean = read_claude_code(data_dir / "claude-code-sessions" / name, include_subagents=False)
    pos = min(int(where * len(raw)), len(raw) - 1)
    if replace and raw[pos : pos + 1] == b"\n":
        replace = False  # keep the line structure: the damage is inside one line
    damaged = raw[:pos] + bytes([byte]) + raw[pos + (1 if replace else 0) :]
    # A continuation byte put in place of another one can leave a valid character ("é" made "À"): no damage.
    assume(_is_damaged(damaged))
    path = work / f"bad-{name}"
    path.write_bytes(damaged)
    result = read_transcript(path, format="claude-code")  # never raises: the other lines are fine
    line = damaged[: _first_bad(damaged)].count(b"\n") + 1
    reasons = _named(result, path.name, line)
    assert reasons, result.skipped  # the damaged line is named...
    assert all("read as U+FFFD" in r or r.endswith("the line was skipped") for r in reasons), reasons
    # A line read with U+FFFD was kept: counted as repaired, never as skipped.
    assert all(s.repaired == ("read as U+FFFD" in s.reason) for s in result.skipped if s.reason in reasons)
    lines = raw.split(b"\n")
    hit = _line_blocks(lines[line - 1]) if line <= len(lines) else 0
    # ...and at most its own blocks are lost (a block read with U+FFFD counts as lost here).
    assert _missing(_blocks(clean), _blocks(result)) <= hit


@PROFILE
@given(name=st.sampled_from(SESSIONS + BIG[:1]), where=st.floats(0, 1))
def test_a_last_line_cut_anywhere_loses_only_that_line(data_dir: Path, work: Path, name: str, where: float) -> None:
    """A crash mid-write leaves the last line of a session file cut off; the rest is imported."""
    raw = (data_dir / "claude-code-sessions" / name).read_bytes()
    body = raw.rstrip(b"\n")
    start = body.rfind(b"\n") + 1
    cut = start + 1 + int(where * (len(body) - start - 2))  # at least one byte of the line, not all of it
    path = work / f"cut-{name}"
    path.write_bytes(body[:cut])
    clean = read_claude_code(data_dir / "claude-code-sessions" / name, include_subagents=False)
    result = read_transcript(path, format="claude-code")
    last = body.count(b"\n") + 1
    reasons = _named(result, path.name, last)
    assert len(reasons) == 1 and "the last line is cut off" in reasons[0], result.skipped
    assert reasons[0].endswith("the line was skipped")
    assert _missing(_blocks(clean), _blocks(result)) <= _line_blocks(body[start:])
    kept = {m.id: m for m in result.conversations[0].messages}
    for m in clean.conversations[0].messages:  # every message without the last line is unchanged
        if last not in metadata_of(m)["source_lines"]:
            assert m.id in kept and kept[m.id].content == m.content


@pytest.mark.parametrize("name", BIG)
def test_real_sessions_cut_mid_write_import_the_rest(data_dir: Path, tmp_path: Path, name: str) -> None:
    """The four long real sessions, their last line cut in the middle and a bad byte in the middle of the
    file: written into a store, everything else imported."""
    raw = (data_dir / "claude-code-sessions" / name).read_bytes().rstrip(b"\n")
    start = raw.rfind(b"\n") + 1
    middle = raw.find(b'"text":"', len(raw) // 2) + 12
    damaged = raw[:middle] + b"\xff" + raw[middle : (start + len(raw)) // 2]
    path = tmp_path / name
    path.write_bytes(damaged)
    clean = read_claude_code(data_dir / "claude-code-sessions" / name, include_subagents=False)
    result = read_transcript(path, format="claude-code")
    store = open_store(str(tmp_path / "s.db"))
    try:
        report = import_into(store, result)
    finally:
        store.close()
    n = clean.conversations[0].messages
    assert len(n) - 1 <= report.messages <= len(n)
    line = raw[:middle].count(b"\n") + 1
    assert any("read as U+FFFD" in r for r in _named(result, name, line)), result.skipped
    assert any("cut off" in r for r in _named(result, name, raw.count(b"\n") + 1)), result.skipped


def test_a_file_with_no_readable_line_raises_naming_it(tmp_path: Path) -> None:
    cases = {
        "binary.jsonl": bytes(range(256)) * 4,
        "latin1.jsonl": '{"type": "user", "message": {"content": "caf\xe9"'.encode("latin-1"),  # one cut line
        "array.jsonl": b"[1, 2]\n[3]\n",
        "no-type.jsonl": b'{"a": 1}\n{"b": 2}\n',
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ImportFormatError) as info:
            read_transcript(path)
        assert info.value.source == str(path) and str(info.value.location).startswith("line 1"), name
        assert "no line of the file could be read" in str(info.value), name
        assert "byte" in str(info.value) or "JSON object" in str(info.value) or "'type'" in str(info.value)


def test_an_unreadable_sub_agent_file_does_not_cost_the_session(data_dir: Path, tmp_path: Path) -> None:
    sessions = data_dir / "claude-code-sessions"
    main = tmp_path / "session.jsonl"
    main.write_bytes((sessions / "short.jsonl").read_bytes())
    sub = tmp_path / "session" / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-garbage.jsonl").write_bytes(b"\x00\xff\n\x01\x02\n")
    damaged = (sessions / "tool_heavy.jsonl").read_bytes().rstrip(b"\n")
    (sub / "agent-cut.jsonl").write_bytes(damaged[: len(damaged) - 20])
    result = read_transcript(main)
    assert [c.id.rsplit(":", 1)[-1] for c in result.conversations[1:]] == ["agent-cut"]
    reasons = [s.reason for s in result.skipped]
    assert any(r.startswith("agent-garbage.jsonl: no line of the file could be read") for r in reasons), reasons
    assert any(r.startswith("agent-cut.jsonl line ") and "cut off" in r for r in reasons), reasons
    assert result.conversations[0].messages == read_claude_code(sessions / "short.jsonl").conversations[0].messages


def test_many_damaged_lines_are_named_up_to_a_cap(data_dir: Path, tmp_path: Path) -> None:
    lines = (data_dir / "claude-code-sessions" / "tool_heavy.jsonl").read_bytes().split(b"\n")
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b"\n".join(line.replace(b"e", b"\xe9", 1) for line in lines))
    result = read_transcript(path)
    named = [s for s in result.skipped if s.reason.startswith("latin.jsonl line ")]
    more = [s for s in result.skipped if s.reason.startswith("more ")]
    assert len(named) == 10 and sum(s.count for s in named + more) >= len([x for x in lines if b"e" in x])
    assert result.message_count > 0


def test_a_bom_and_crlf_line_ends_are_read(data_dir: Path, tmp_path: Path) -> None:
    raw = (data_dir / "claude-code-sessions" / "short.jsonl").read_bytes()
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + raw.replace(b"\n", b"\r\n"))
    clean = read_claude_code(data_dir / "claude-code-sessions" / "short.jsonl", include_subagents=False)
    result = read_transcript(path)
    assert _blocks(result) == _blocks(clean)
    assert not any(s.reason.startswith("crlf.jsonl") for s in result.skipped), result.skipped


# --- whole-file JSON -------------------------------------------------------------------------------------


def _anthropic() -> Any:
    return {
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Build the project, café ☕ please."},
            {"role": "assistant", "content": "Building it now, one moment."},
            {"role": "user", "content": "And run the tests afterwards."},
            {"role": "assistant", "content": "All tests pass on the branch."},
        ],
    }


def _openai() -> Any:
    return {
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "What is the weather in Paris?"},
            {"role": "assistant", "content": "It is sunny in Paris today."},
        ]
    }


def _json_source(data_dir: Path, fmt: str) -> bytes:
    if fmt == "anthropic":
        data = _anthropic()
    elif fmt == "openai":
        data = _openai()
    elif fmt == "locomo":
        data = json.loads((data_dir / "locomo" / "locomo-dev7.json").read_text(encoding="utf-8"))[:1]
    else:
        data = json.loads((data_dir / "tau-bench-airline" / "gpt-4o-airline-dev150.json").read_text())[:2]
    return json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8")


JSON_FORMATS = ("anthropic", "openai", "locomo", "tau-bench")


@PROFILE
@given(fmt=st.sampled_from(JSON_FORMATS), where=st.floats(0, 1), byte=BAD_BYTES)
def test_json_with_a_bad_byte_reads_it_as_replacement_or_names_the_place(
    data_dir: Path, work: Path, fmt: str, where: float, byte: int
) -> None:
    """Inside a string the byte is read as U+FFFD and reported (line and byte); where it breaks the JSON
    itself the file raises, naming the line. The oracle: does the text, bad bytes replaced, parse?"""
    raw = _json_source(data_dir, fmt)
    pos = int(where * (len(raw) - 1))
    damaged = raw[:pos] + bytes([byte]) + raw[pos:]
    path = work / f"bad-{fmt}.json"
    path.write_bytes(damaged)
    try:
        json.loads(damaged.decode("utf-8", errors="replace"))
        parses = True
    except ValueError:
        parses = False
    clean = work / f"clean-{fmt}.json"
    clean.write_bytes(raw)
    if not parses:
        with pytest.raises(ImportFormatError) as info:
            read_transcript(path, format=fmt)
        assert info.value.source == str(path) and str(info.value.location).startswith("line ")
        return
    try:
        result = read_transcript(path)  # auto: the detection reads the file, its report must survive
    except ImportFormatError as exc:  # the byte landed in a key or role the format needs: typed, file named
        assert exc.source == str(path)
        return
    pos = _first_bad(damaged)
    line = damaged[:pos].count(b"\n") + 1
    reasons = [s.reason for s in result.skipped if "read as U+FFFD" in s.reason]
    # One byte put inside a character's own bytes breaks that character too: count what the decoder
    # replaces (each invalid sequence is one U+FFFD), not one.
    bad = damaged.decode("utf-8", errors="replace").count("\ufffd") - raw.decode("utf-8").count("\ufffd")
    said = "1 byte sequence" if bad == 1 else f"{bad} byte sequences"
    assert reasons == [
        f"{path.name} line {line}, byte {pos}: {said} not valid UTF-8 (the first here), "
        "read as U+FFFD; the rest of the file was read as written"
    ], result.skipped
    assert result.message_count <= read_transcript(clean).message_count


@PROFILE
@given(fmt=st.sampled_from(JSON_FORMATS), where=st.floats(0, 1))
def test_json_cut_off_raises_naming_the_place(data_dir: Path, work: Path, fmt: str, where: float) -> None:
    raw = _json_source(data_dir, fmt).rstrip()
    cut = int(where * (len(raw) - 1))
    path = work / f"cut-{fmt}.json"
    path.write_bytes(raw[:cut])
    with pytest.raises(ImportFormatError) as info:
        read_transcript(path, format=fmt)
    assert info.value.source == str(path)
    if cut and raw[:cut].strip():
        assert str(info.value.location).startswith("line ") and "byte" in str(info.value)
        assert "cut off" in str(info.value), str(info.value)


def test_json_in_latin1_or_utf16(tmp_path: Path) -> None:
    """A file saved as Latin-1 is read, each accented letter as U+FFFD, the count reported; a UTF-16 file
    with a byte order mark is read as UTF-16 (as ``json.loads`` reads bytes)."""
    text = json.dumps(_anthropic(), ensure_ascii=False).replace("☕", "")
    latin = tmp_path / "latin.json"
    latin.write_bytes(text.encode("latin-1"))
    result = read_transcript(latin)
    assert result.message_count == 5
    assert "caf\ufffd" in json.dumps(result.conversations[0].messages[1].content, ensure_ascii=False)
    assert [s.count for s in result.skipped if "U+FFFD" in s.reason] == [1]
    # Every message was read: the letter is counted as repaired, not skipped.
    assert (result.skipped_count, result.repaired_count) == (0, 1)
    assert [s.repaired for s in result.skipped] == [True]
    wide = tmp_path / "wide.json"
    wide.write_bytes(text.encode("utf-16"))
    result = read_transcript(wide)
    assert result.message_count == 5 and not result.skipped
    assert "café" in json.dumps(result.conversations[0].messages[1].content, ensure_ascii=False)


# --- IRC ----------------------------------------------------------------------------------------------


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.floats(0, 1), byte=BAD_BYTES)
def test_irc_log_with_a_bad_byte_keeps_every_line(data_dir: Path, work: Path, where: float, byte: int) -> None:
    raw_path = next(iter(sorted((data_dir / "ubuntu-irc-disentanglement").rglob("*.raw.txt"))))
    raw = raw_path.read_bytes()
    pos = int(where * (len(raw) - 1))
    path = work / raw_path.name
    path.write_bytes(raw[:pos] + bytes([byte]) + raw[pos:])
    result = read_transcript(path)
    clean = read_transcript(raw_path)
    assert result.message_count == clean.message_count  # one message per line: ids stay line indices
    line = raw[:pos].count(b"\n") + 1
    assert line == raw[: _first_bad(raw[:pos] + bytes([byte]) + raw[pos:])].count(b"\n") + 1
    assert any("read as U+FFFD" in r for r in _named(result, path.name, line)), result.skipped
    message = result.conversations[0].messages[line - 1]
    assert "\ufffd" in message.content[0]["text"] + message.participant  # type: ignore[index]


# --- the command line -------------------------------------------------------------------------------------


def test_cli_imports_a_damaged_session_and_prints_the_report(data_dir: Path, tmp_path: Path) -> None:
    raw = (data_dir / "claude-code-sessions" / "short.jsonl").read_bytes().rstrip(b"\n")
    start = raw.rfind(b"\n") + 1
    middle = raw.find(b'"content":"', len(raw) // 3) + 14
    path = tmp_path / "crashed.jsonl"
    path.write_bytes(raw[:middle] + b"\xc0" + raw[middle : start + 30])
    res = runner.invoke(app, ["import", str(path), "--store", str(tmp_path / "c.db")])
    said = " ".join(res.output.split())
    assert res.exit_code == 0, said
    assert "Traceback" not in said and said.startswith("imported ")
    assert "crashed.jsonl line 15: the last line is cut off" in said
    line = raw[:middle].count(b"\n") + 1
    assert f"crashed.jsonl line {line}: 1 byte sequence not valid UTF-8" in said
    res = runner.invoke(app, ["import", str(path), "--store", str(tmp_path / "j.db"), "--json"])
    payload = json.loads(res.output)
    assert res.exit_code == 0 and payload["messages"] > 0
    assert any("cut off" in r for r in payload["skipped_by_reason"]), payload


def test_cli_refuses_an_unreadable_file_in_one_line(tmp_path: Path) -> None:
    for name, data in {"garbage.jsonl": b"\x00\xff\xfe\n\x81\x82\n", "cut.json": b'{"messages": [{"role": "us'}.items():
        path = tmp_path / name
        path.write_bytes(data)
        res = runner.invoke(app, ["import", str(path), "--store", str(tmp_path / "g.db")])
        said = " ".join(res.output.split())
        assert res.exit_code == 1 and said.startswith("error:") and name in said, said
        assert "Traceback" not in said and "line 1" in said, said
        assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit)
