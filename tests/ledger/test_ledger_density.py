"""The fidelity and upkeep work on the ledger: the chunked name finder, commands' file arguments,
the weight of tool results, the dense block (letters for actions, names filling the allowance), the
share that grows with the conversation, and the allowance kept when the compiler selects again."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from context_journal import ContextManager
from context_journal.state import Ledger, LedgerConfig
from context_journal.state.ledger import _IDENT_RE, _keep, _names
from context_journal.state.render import render_state
from context_journal.state.tools import command_files
from context_journal.tokens import estimate_text_tokens
from tests.hypothesis_budget import examples
from tests.ledger.ledger_helpers import ledger_block

# The single-pass pattern the chunked finder replaced (the declaring keywords inside it).
_WHOLE_TEXT_RE = re.compile(
    r"(?<![\w./$-])(?:(--[a-z][\w-]++)"
    r"|(?:def|defp|defmodule|class|fn|func|function|struct|interface|enum|trait|FROM|JOIN|INTO|UPDATE|TABLE)"
    r"\s++([A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)*+)"
    r"|(_*+[A-Za-z][A-Za-z0-9]*+_\w++(?:\.[A-Za-z_]\w*+)*+|[a-z][a-z0-9]*+[A-Z]\w*+"
    r"|[A-Z][a-z0-9]++[A-Z]\w*+(?:\.[A-Za-z_]\w*+)*+|[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)++|[A-Za-z_]\w{2,}+(?=\()))"
    r"(?![\w/-])"
)


def whole_text_names(text: str) -> set[str]:
    return {f for a, b, c in _WHOLE_TEXT_RE.findall(text) if _keep(f := a or b or c)}


PIECES = [
    "def",
    "class",
    "(fn",
    "FROM",
    "x.def",
    "parse_header",
    "fooBar",
    "FooBar",
    "xBx.Y",  # read alone, the name xBx; after a declaring keyword, xBx.Y (the reading lacks xBx)
    "a.b",
    "mod.attr",
    "app.py",
    "--flag",
    "-x",
    "call(",
    "e.g",
    "path/to/file_x",
    "$var_name",
    "__init__",
    "word",
    "Word",
    "snake_",
    ",",
    ".",
    "(",
    ")",
    "/",
    "-",
    "é",
    "x",
]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PIECES), st.sampled_from(["", "", " ", "\n", "  ", "\t"])), max_size=30))
def test_chunked_names_equal_the_whole_text_pattern(parts: list[tuple[str, str]]) -> None:
    text = "".join(p + sep for p, sep in parts)
    found: set[str] = set()
    _names(text, found)
    assert found == whole_text_names(text)
    again: set[str] = set()
    _names(text, again)  # from the chunk caches now
    assert again == found


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("def xBx.Y", {"xBx.Y"}),  # every occurrence read as a declared name: not xBx
        ("def xBx.Y xBx.Y", {"xBx.Y", "xBx"}),  # one read as any chunk: xBx too
        ("class xBx.Y\ndef xBx.Y", {"xBx.Y"}),
        ("def parse_x def parse_x", {"parse_x"}),  # the reading holds the chunk's own name
    ],
)
def test_a_declared_reading_without_the_chunks_own_name(text: str, names: set[str]) -> None:
    """A chunk after a declaring keyword gives only its reading's names when every occurrence is read
    so, which counts only where the reading lacks a name the chunk gives alone (``xBx.Y``: ``xBx``)."""
    for _ in range(2):  # then from the chunk caches
        found: set[str] = set()
        _names(text, found)
        assert found == whole_text_names(text) == names


def test_names_of_a_real_snippet() -> None:
    found: set[str] = set()
    _names(
        "def parse_header(raw):\n    return HeaderParser.parse(raw)  # see e.g. utils.py\n|> Enum.map(fn line ->", found
    )
    assert found == {"parse_header", "HeaderParser.parse", "Enum.map", "line"}
    assert _IDENT_RE.groups == 2  # the declaring keywords are found apart, chunk by chunk


def test_no_name_after_an_escape_and_no_protocol_words() -> None:
    """A review found: the names line of a real session carried ``nFix`` (``...\\nFix`` in a commit
    message), ``tool_use_id`` and ``in_progress``."""
    found: set[str] = set()
    text = 'git commit -m "Add tracing\\nFix spanCtx\\tparse_amount" tool_use_id in_progress is_error make_span('
    _names(text, found)
    assert found == {"make_span", "spanCtx"}  # not nFix, tparse_amount or the protocol words
    assert not _keep("tool_use_id") and _keep("tool_use_ids")


def test_commands_name_files_as_used_and_never_hide_an_edit() -> None:
    assert command_files("git add lib/a.ex 'priv/x/2026.json' && mix test test/a_test.exs 2>&1 | tail -5") == [
        ("lib/a.ex", "used"),
        ("priv/x/2026.json", "used"),
        ("test/a_test.exs", "used"),
    ]
    assert command_files("grep -n foo deps/otel/src/otel_configuration.erl README") == [
        ("deps/otel/src/otel_configuration.erl", "used")
    ]
    assert command_files("cat a/b.py; echo 1 > out/log.txt") == [("a/b.py", "read"), ("out/log.txt", "written")]
    ledger = Ledger()
    ledger.add("m0", [{"type": "tool_use", "id": "1", "name": "Edit", "input": {"file_path": "src/a.py"}}])
    ledger.add("m1", [{"type": "tool_use", "id": "2", "name": "Bash", "input": {"command": "pytest src/a.py"}}])
    ledger.add("m2", [{"type": "tool_use", "id": "3", "name": "WebFetch", "input": {"url": "https://d.io/x/Api.html"}}])
    assert [(f.path, f.action, f.count) for f in ledger.state().files] == [
        ("https://d.io/x/Api.html", "fetched", 1),
        ("src/a.py", "edited", 2),
    ]


def test_a_name_only_in_tool_results_counts_half() -> None:
    ledger = Ledger()
    ledger.add("m0", [{"type": "text", "text": "call written_name now"}])
    ledger.add("m1", [{"type": "tool_result", "tool_use_id": "x", "content": "read_name read_name"}])
    ledger.add(
        "m2",
        [
            {"type": "tool_result", "tool_use_id": "y", "content": "written_name"},
            {"type": "text", "text": "written_name"},
        ],
    )
    scores = {i.name: (i.count, i.score) for i in ledger.state().identifiers}
    decay = 0.5 ** (1 / 200)
    assert scores["read_name"] == (1, round(0.5 * decay, 6))
    assert scores["written_name"] == (2, round(1.0 * decay**2 + 1.0, 6))


def _state(n_files: int, n_names: int) -> Any:
    ledger = Ledger()
    for k in range(n_files):
        ledger.add(
            f"e{k}",
            [{"type": "tool_use", "id": f"e{k}", "name": "Edit", "input": {"file_path": f"/home/u/p/src/m{k}.py"}}],
        )
    ledger.add(
        "t", [{"type": "tool_use", "id": "t", "name": "Read", "input": {"file_path": "/home/u/p/tests/test_m.py"}}]
    )
    ledger.add(
        "r", [{"type": "tool_use", "id": "r", "name": "Bash", "input": {"command": "pytest src/m0.py tests/test_m.py"}}]
    )
    ledger.add("n", [{"type": "text", "text": " ".join(f"name_{k:03d}" for k in range(n_names))}])
    return ledger.state()


def test_the_block_merges_relative_paths_uses_letters_and_fills_names() -> None:
    state = _state(3, 300)
    text = render_state(state, 400, estimate_text_tokens)
    assert text is not None and estimate_text_tokens(text) <= 400
    lines = text.splitlines()
    assert lines[1] == (
        "Files touched (4, newest first; last action: e edited, r read, N: times touched; under /home/u/p/):"
    )
    assert lines[2] == "  tests/: test_m.py r2"  # read, then named by the command (relative)
    assert lines[3] == "  src/: m0.py e2, m2.py e, m1.py e"  # src/m0.py (the command's) is /home/u/p/src/m0.py
    names = lines[-1]
    assert names.startswith("Names in use (most used recently first): name_000 name_001 ")
    shown = len(names.split(": ", 1)[1].split())
    # as many as fit (75 since a one-letter word, the actions "e" and "r", is priced as the token it is)
    assert shown == 75 and estimate_text_tokens(f"{text} name_075") > 400
    more = render_state(state, 401 + 40, estimate_text_tokens)
    assert more is not None and len(more.splitlines()[-1].split()) > len(names.split())
    assert render_state(state, 400, estimate_text_tokens) == text  # byte-stable


def test_share_grows_with_the_conversation_against_the_budget() -> None:
    config = LedgerConfig()
    assert config.share_for(10_000, 10_000) == 0.15
    assert config.share_for(40_000, 10_000) == 0.15
    assert abs(config.share_for(100_000, 10_000) - 0.225) < 1e-9
    assert config.share_for(109_999, 10_000) == config.share_for(100_000, 10_000)  # by whole multiples
    assert config.share_for(160_000, 10_000) == 0.3 == config.share_for(10**7, 10_000)
    assert LedgerConfig(share=0).share_for(10**7, 10_000) == 0
    assert LedgerConfig(share=0.2, share_long=0.1).share_for(10**7, 10_000) == 0.2


def test_the_block_stays_when_the_recent_tool_unit_does_not_fit() -> None:
    """The compiler selects again with less room when the strategy's raw window does not fit (here a
    tool unit larger than the budget, cut to excerpts): the room comes off the strategy, the block
    keeps its allowance (it used to vanish at the last select)."""
    with ContextManager.open("memory:") as cm:
        cm.ledger_config = LedgerConfig(share=0.2, share_long=0.2)
        for k in range(40):
            cm.add_message(
                "assistant",
                [
                    {
                        "type": "tool_use",
                        "id": f"t{k}",
                        "name": "Edit",
                        "input": {
                            "file_path": f"/w/src/mod_{k}.py",
                            "old_string": f"old_fn_{k}",
                            "new_string": f"new_fn_{k}",
                        },
                    }
                ],
            )
            cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"t{k}", "content": "ok " * 300}])
        cm.add_message(
            "assistant",
            [
                {
                    "type": "tool_use",
                    "id": "big",
                    "name": "Write",
                    "input": {"file_path": "/w/src/big.py", "content": "x = 1\n" * 3000},
                }
            ],
        )
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": "big", "content": "y " * 9000}])
        result = cm.compile(2000)
        block = ledger_block(result)
        assert block is not None and "big.py w" in block and "mod_39.py e" in block
        assert result.parts["ledger"] <= 0.2 * 2000
