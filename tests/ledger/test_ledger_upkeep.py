"""The cheaper fold (ledger upkeep) against straightforward references: the names of a message's texts
read in one pass, commands' files, the bounded read of a result's text blocks, the identifiers of a whole
fold, and checkpoint bytes that do not depend on the process's string hashing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.state import Ledger, LedgerConfig, ToolSpec
from context_journal.state.checkpoint import dump_ledger
from context_journal.state.ledger import _APART, _names, _result_text
from context_journal.state.tools import _SEGMENT_RE, _VERBS, _named_file, _pathlike, _segments, command_files
from tests.hypothesis_budget import examples
from tests.ledger.test_ledger_density import PIECES, whole_text_names

TEXT = st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(["", " ", "\n", "  ", "\t"])), max_size=12).map(
    lambda parts: "".join(p + sep for p, sep in parts)
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=4))
def test_texts_read_together_give_each_ones_names(texts: list[str]) -> None:
    """``_names`` of texts joined by ``_APART`` is the union of each text's (a declaring keyword at the
    end of one never declares a name at the next one's start) and of what the whole-text pattern finds
    in each."""
    together: set[str] = set()
    _names(_APART.join(texts), together)
    assert together == set().union(*(whole_text_names(t) for t in texts))


# ---- commands' files: the straightforward version the fold replaced --------------------------------


def reference_command_files(command: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for segment in _SEGMENT_RE.split(command):
        tokens = segment.split()
        if tokens and tokens[0] == "sudo":
            tokens = tokens[1:]
        if not tokens:
            continue
        if ">" in segment:
            for k, tok in enumerate(tokens[:-1]):
                if tok in (">", ">>") and _pathlike(tokens[k + 1]) and not tokens[k + 1].startswith("/dev/"):
                    out.append((tokens[k + 1], "written"))
        args = [t for t in tokens[1:] if t not in (">", ">>", "2>&1")]
        verb = tokens[0].rsplit("/", 1)[-1]
        action = _VERBS.get(verb)
        if action is not None:
            out.extend((t, action) for t in args if _pathlike(t))
        elif verb == "sed" and any(t.startswith("-i") for t in args) and args and _pathlike(args[-1]):
            out.append((args[-1], "edited"))
        elif verb in ("mv", "cp"):
            paths = [t for t in args if _pathlike(t)]
            if len(paths) >= 2:
                if verb == "mv":
                    out.extend((t, "moved away") for t in paths[:-1])
                out.append((paths[-1], "created"))
        else:
            written = {t for t, _ in out}
            for arg in args:
                if "/" in arg and "." in arg:
                    t = arg.strip("'\"")
                    if t not in written and _named_file(t):
                        out.append((t, "used"))
                        written.add(t)
    return out


# The last five: two words a file verb begins that are no verb, a verb after a directory, a redirection to
# /dev/null, a tab before a verb.
WORDS = [
    "sudo", "cat", "sed", "-i", "-n", "mv", "cp", "rm", "git", "add", "src/a.py", "'lib/b.ex'", '"x/y.json"', ">",
    ">>", "2>&1", "/dev/null", "out/log.txt", "a.py", "dir/", "-", ".", "..", "--flag", "s/a/b/", "/usr/bin/cat",
    "x", "t/a_test.exs", "~/f.md", "a/b", "-ibak", "category", "rmx", "x/rm", "2>/dev/null", "\tcat",
]  # fmt: skip


@settings(max_examples=examples(1000), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from([" ", ";", " && ", " | ", "\n", "||"])), max_size=14))
def test_command_files_equal_the_straightforward_version(parts: list[tuple[str, str]]) -> None:
    command = "".join(w + sep for w, sep in parts)
    assert command_files(command) == reference_command_files(command)


@settings(max_examples=examples(1000), deadline=None)
@given(st.text(alphabet="&|;\n a", max_size=16))
def test_segments_are_cut_where_the_pattern_cuts(command: str) -> None:
    assert _segments(command) == _SEGMENT_RE.split(command)


# ---- a result's text blocks --------------------------------------------------------------------------


@settings(max_examples=examples(500), deadline=None)
@given(
    st.lists(st.one_of(st.text(alphabet="ab\n", max_size=30), st.none(), st.integers()), max_size=6),
    st.integers(1, 40),
)
def test_result_blocks_are_read_as_their_whole_text_clipped(texts: list[Any], limit: int) -> None:
    """Only the blocks at either end of a long result are joined: the same text as joining them all."""
    content = [{"type": "text", "text": t} for t in texts] + [{"type": "image"}]
    joined = "\n".join(t for t in texts if isinstance(t, str))
    assert _result_text(content, limit) == _result_text(joined, limit)
    if len(joined) > limit:
        # The first ``limit`` characters and the last half as many, less a name either cut splits.
        head, tail = joined[:limit], joined[-limit // 2 :]
        if joined[limit].isalnum() and head[-1:].isalnum():
            head = re.sub(r"[\w.$-]+\Z", "", head)
        before = joined[-len(tail) - 1]
        if before.isalnum() and tail[:1].isalnum():
            tail = re.sub(r"\A[\w.$-]+", "", tail)
        assert _result_text(joined, limit) == head + "\n" + tail


def test_path_actions_and_path_list_agree() -> None:
    spec = ToolSpec("edited", ("path", "paths"), action_key="command", actions={"view": "read"})
    tool_input = {"command": "view", "path": " a.py ", "paths": ["b.py", " ", 3, "c.py"]}
    assert (
        list(spec.path_actions(tool_input))
        == spec.path_list(tool_input)
        == [
            ("a.py", "read"),
            ("b.py", "read"),
            ("c.py", "read"),
        ]
    )
    moved = ToolSpec("moved", {"source": "moved away", "destination": "created"})
    assert moved.path_list({"source": "x", "destination": "y"}) == [("x", "moved away"), ("y", "created")]


# ---- a whole fold's identifiers against a straightforward fold -------------------------------------


def _cut(text: str, n: int) -> str:
    """``text[:n]`` less a name the cut splits (a name character on both sides of it)."""
    head = text[:n]
    if len(text) > n > 0 and all(c.isalnum() or c in "_.$-" for c in (text[n], text[n - 1])):
        head = re.sub(r"[\w.$-]+\Z", "", head)
    return head


def _strings(value: Any, out: list[str], budget: int) -> int:
    if budget <= 0:
        return budget
    if isinstance(value, str):
        out.append(_cut(value, budget))
        return budget - len(value)
    if isinstance(value, Mapping):
        for v in value.values():
            budget = _strings(v, out, budget)
    elif isinstance(value, list):
        for v in value[:256]:
            budget = _strings(v, out, budget)
    return budget


def reference_identifiers(messages: list[list[dict[str, Any]]], config: LedgerConfig) -> list[tuple[str, int, float]]:
    """Each text, tool input and result read alone with the whole-text pattern; each name's score
    updated as the module docstring says."""
    decay = 0.5 ** (1.0 / config.half_life)
    rows: dict[str, list[float]] = {}
    for tick, content in enumerate(messages, 1):
        written: set[str] = set()
        heard: set[str] = set()
        for block in content:
            if block["type"] == "text":
                written |= whole_text_names(_cut(block["text"], config.scan_chars))
            elif block["type"] == "tool_use":
                strings: list[str] = []
                _strings(block["input"], strings, config.scan_chars)
                written |= whole_text_names("\n".join(strings))
            elif block["type"] == "tool_result":
                heard |= whole_text_names(_result_text(block["content"], config.result_scan_chars))
        for names, weight in ((written, 1.0), (heard - written, 0.5)):
            for name in names:
                old = rows.get(name, [0.0, tick, 0])
                rows[name] = [old[0] * decay ** (tick - old[1]) + weight, tick, old[2] + 1]
    tick = len(messages)
    scored = sorted(
        ((n, int(r[2]), r[0] * decay ** (tick - r[1])) for n, r in rows.items()), key=lambda t: (-t[2], t[0])
    )
    return [(n, count, round(score, 6)) for n, count, score in scored]


@st.composite
def messages(draw: Any) -> list[list[dict[str, Any]]]:
    out = []
    for k in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["text", "tools", "result"]))
        if kind == "text":
            out.append([{"type": "text", "text": t} for t in draw(st.lists(TEXT, min_size=1, max_size=3))])
        elif kind == "tools":
            blocks = [{"type": "text", "text": draw(TEXT)}] if draw(st.booleans()) else []
            for j in range(draw(st.integers(1, 3))):
                tool = draw(st.sampled_from(["Edit", "Bash", "Unknown", "TodoWrite"]))
                data = {"file_path": draw(TEXT), "old_string": draw(TEXT), "new": [draw(TEXT), {"k": draw(TEXT)}]}
                if tool == "Bash":
                    data = {"command": draw(TEXT)}
                elif tool == "TodoWrite":
                    data = {"todos": [{"content": draw(TEXT), "status": "pending"}]}
                blocks.append({"type": "tool_use", "id": f"t{k}_{j}", "name": tool, "input": data})
            out.append(blocks)
        else:
            out.append(
                [
                    {"type": "tool_result", "tool_use_id": f"t{k - 1}_{j}", "content": draw(TEXT)}
                    for j in range(draw(st.integers(1, 3)))
                ]
            )
    return out


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages(), st.sampled_from([LedgerConfig(), LedgerConfig(scan_chars=20, result_scan_chars=9)]))
def test_the_fold_ranks_the_names_a_straightforward_fold_finds(
    msgs: list[list[dict[str, Any]]], config: LedgerConfig
) -> None:
    ledger = Ledger(config)
    for k, content in enumerate(msgs):
        ledger.add(f"m{k}", content)
    assert [(i.name, i.count, i.score) for i in ledger.state().identifiers] == reference_identifiers(msgs, config)


# ---- checkpoint bytes ----------------------------------------------------------------------------------

_DUMP = """
import json, sys
from context_journal.state import Ledger
from context_journal.state.checkpoint import dump_ledger
ledger = Ledger()
for k in range(60):
    ledger.add(f"m{k}", [{"type": "text", "text": " ".join(f"name_{(k * 7 + j) % 90}" for j in range(12))}])
sys.stdout.write(json.dumps(dump_ledger(ledger), separators=(",", ":")))
"""


def test_checkpoint_bytes_do_not_depend_on_string_hashing() -> None:
    """The same journal gives the same checkpoint bytes in every process (identifiers by name)."""
    dumps = [
        subprocess.run(
            [sys.executable, "-c", _DUMP], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, check=True
        ).stdout
        for seed in ("1", "2", "3")
    ]
    assert dumps[0] == dumps[1] == dumps[2]
    idents = json.loads(dumps[0])["idents"]
    assert [row[0] for row in idents] == sorted(row[0] for row in idents)
    ledger = Ledger()
    ledger.add("m", [{"type": "text", "text": "zeta_b alpha_a"}])
    assert [row[0] for row in dump_ledger(ledger)["idents"]] == ["alpha_a", "zeta_b"]
