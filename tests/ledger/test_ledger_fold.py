"""The ledger's fold on the common tool shapes, with real expected values; facts; configuration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from context_journal import ContextManager
from context_journal.state import Ledger, LedgerConfig, ToolSpec


def call(name: str, data: dict[str, Any], cid: str) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "id": cid, "name": name, "input": data}]


def result(cid: str, content: Any, is_error: bool = False) -> list[dict[str, Any]]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": cid, "content": content}
    if is_error:
        block["is_error"] = True
    return [block]


def fold(*messages: list[dict[str, Any]], config: LedgerConfig | None = None) -> Ledger:
    ledger = Ledger(config)
    for k, content in enumerate(messages):
        ledger.add(f"m{k}", content)
    return ledger


def files(ledger: Ledger) -> list[tuple[str, str, int]]:
    return [(f.path, f.action, f.count) for f in ledger.state().files]


def test_claude_code_file_tools() -> None:
    ledger = fold(
        call("Read", {"file_path": "/p/src/app.py"}, "1"),
        result("1", "def main(): pass"),
        call("Edit", {"file_path": "/p/src/app.py", "old_string": "a", "new_string": "b"}, "2"),
        call("Write", {"file_path": "/p/tests/test_app.py", "content": "def test_main(): ..."}, "3"),
        result("3", "File created successfully at: /p/tests/test_app.py"),
        call("Write", {"file_path": "/p/README.md", "content": "x"}, "4"),
        result("4", "The file /p/README.md has been updated."),
        call("MultiEdit", {"file_path": "/p/src/cli.py", "edits": []}, "5"),
        call("NotebookEdit", {"notebook_path": "/p/nb.ipynb", "new_source": "x"}, "6"),
        call("Grep", {"pattern": "parse_header", "path": "/p/src"}, "7"),
    )
    assert files(ledger) == [
        ("/p/src", "searched", 1),
        ("/p/nb.ipynb", "edited", 1),
        ("/p/src/cli.py", "edited", 1),
        ("/p/README.md", "written", 1),
        ("/p/tests/test_app.py", "created", 1),
        ("/p/src/app.py", "edited", 2),
    ]
    state = ledger.state()
    by_dir = state.files_by_directory()
    assert [f.path for f in by_dir["/p/src/"]] == ["/p/src/cli.py", "/p/src/app.py"]
    assert {"parse_header", "test_main", "main"} <= {i.name for i in state.identifiers}


def test_codex_shell_apply_patch_and_text_editor_and_mcp_filesystem() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** Add File: src/b.py\n+z\n"
        "*** Delete File: old.py\n*** End Patch"
    )
    ledger = fold(
        call("shell", {"command": ["bash", "-lc", "rm build/out.bin && cat setup.cfg"]}, "1"),
        result("1", '{"output": "", "metadata": {"exit_code": 0}}'),
        call("apply_patch", {"input": patch}, "2"),
        call("shell", {"command": ["apply_patch", patch.replace("src/a.py", "src/c.py")]}, "3"),
        call("str_replace_based_edit_tool", {"command": "view", "path": "/r/x.py"}, "4"),
        call("str_replace_based_edit_tool", {"command": "create", "path": "/r/y.py", "file_text": "v"}, "5"),
        call("mcp__filesystem__read_multiple_files", {"paths": ["/d/1.txt", "/d/2.txt"]}, "6"),
        call("mcp__filesystem__move_file", {"source": "/d/1.txt", "destination": "/d/3.txt"}, "7"),
    )
    assert files(ledger) == [
        ("/d/3.txt", "created", 1),
        ("/d/1.txt", "moved away", 2),
        ("/d/2.txt", "read", 1),
        ("/r/y.py", "created", 1),
        ("/r/x.py", "read", 1),
        ("old.py", "deleted", 2),
        ("src/b.py", "created", 2),
        ("src/c.py", "edited", 1),
        ("src/a.py", "edited", 1),
        ("setup.cfg", "read", 1),
        ("build/out.bin", "deleted", 1),
    ]
    assert [(c.command, c.status, c.exit_code) for c in ledger.state().commands] == [
        ("rm build/out.bin && cat setup.cfg", "ok", 0),
        ("apply_patch", "no result", None),
    ]


def test_commands_exit_status_and_deduplicated_error_lines() -> None:
    failing = "collected 3 items\nFAILED tests/test_x.py::test_a - AssertionError: 1 != 2\nExit code 1"
    ledger = fold(
        call("Bash", {"command": "pytest -q"}, "1"),
        result("1", failing, is_error=True),
        call("Bash", {"command": "pytest -q"}, "2"),
        result("2", failing, is_error=True),
        call("Bash", {"command": "ls"}, "3"),
        result("3", "a b c"),
        call("Bash", {"command": "mix compile"}, "4"),
        result("4", "** (CompileError) lib/spotter.ex:3: undefined function foo/0", is_error=True),
        call("Bash", {"command": "make"}, "5"),
        result("5", "make: *** [all] stopped\n", is_error=True),
    )
    state = ledger.state()
    assert [(c.command, c.status, c.exit_code) for c in state.commands] == [
        ("pytest -q", "failed", 1),
        ("pytest -q", "failed", 1),
        ("ls", "ok", None),
        ("mix compile", "failed", None),
        ("make", "failed", None),
    ]
    assert state.errors == (
        "FAILED tests/test_x.py::test_a - AssertionError: 1 != 2",
        "** (CompileError) lib/spotter.ex:3: undefined function foo/0",
        "make: *** [all] stopped",
    )


def test_identifiers_are_ranked_by_frequency_and_recency() -> None:
    config = LedgerConfig(half_life=2)
    old_and_frequent = [[{"type": "text", "text": "`old_helper` again"}] for _ in range(3)]
    filler = [[{"type": "text", "text": "ok"}] for _ in range(6)]
    ledger = fold(*old_and_frequent, *filler, [{"type": "text", "text": "now `new_helper`"}], config=config)
    names = [(i.name, i.count) for i in ledger.state().identifiers]
    assert names == [("new_helper", 1), ("old_helper", 3)]  # 3 mentions 7+ messages ago score < 1 now
    frequent = fold(*old_and_frequent, [{"type": "text", "text": "now `new_helper`"}], config=config)
    assert [i.name for i in frequent.state().identifiers] == ["old_helper", "new_helper"]


def test_extensible_tool_table_and_bounds() -> None:
    config = LedgerConfig(tools={"fetch_doc": ToolSpec("read", ("doc_path",))}, max_commands=2)
    ledger = fold(
        call("fetch_doc", {"doc_path": "/docs/spec.md"}, "1"),
        *[call("Bash", {"command": f"echo {k}"}, f"c{k}") for k in range(4)],
        config=config,
    )
    assert files(ledger) == [("/docs/spec.md", "read", 1)]
    assert [c.command for c in ledger.state().commands] == ["echo 2", "echo 3"]
    with pytest.raises(ValueError, match="share"):
        LedgerConfig(share=1.5)


def test_facts_are_journal_records_per_branch_and_survive_reopen(tmp_path: Path) -> None:
    path = tmp_path / "f.db"
    with ContextManager.open(path) as cm:
        cm.add_message("user", "hi", id="u0")
        seq = cm.set_fact("deploy", "staging only")
        assert seq > 0 and cm.working_state().facts == {"deploy": "staging only"}
        cm.fork("alt")
        cm.set_fact("owner", "ann")
        assert cm.clear_fact("deploy") is not None and cm.clear_fact("deploy") is None
        with pytest.raises(ValueError):
            cm.set_fact("", "x")
    with ContextManager.open(path) as cm:
        assert cm.working_state().facts == {"owner": "ann"}
        cm.switch_branch("alt")
        assert cm.working_state().facts == {"deploy": "staging only"}


def test_block_disabled_with_share_zero_and_absent_when_everything_fits() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "go")
    for k in range(40):
        cm.add_message("assistant", call("Read", {"file_path": f"/p/f{k}.py"}, f"r{k}"))
        cm.add_message("user", result(f"r{k}", "x " * 200))
    fits = cm.compile(100_000)
    assert fits.parts.get("ledger") is None  # all raw: the block would only repeat it
    tight = cm.compile(3000)
    assert tight.parts["ledger"] > 0 and tight.parts["ledger"] <= 0.15 * 3000
    cm.ledger_config = LedgerConfig(share=0)
    assert cm.compile(3000).parts.get("ledger") is None
    assert len(cm.working_state().files) == 40


def test_edit_and_remove_rebuild_the_ledger() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("assistant", call("Read", {"file_path": "/a.py"}, "1"), id="a")
    cm.add_message("user", result("1", "ok"), id="b")
    assert files_of(cm) == ["/a.py"]
    cm.edit_message("a", call("Read", {"file_path": "/b.py"}, "1"))
    assert files_of(cm) == ["/b.py"]
    cm.remove_message("b")
    cm.remove_message("a")
    assert files_of(cm) == [] and cm.working_state().messages == 0


def files_of(cm: ContextManager) -> list[str]:
    return [f.path for f in cm.working_state().files]
