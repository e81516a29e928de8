"""CLI: ``import --shard-tokens`` stores a long pasted document (the shared DESIGN.md, a real one) as
shards that ``show``, ``search`` and ``compile`` give back whole."""

from __future__ import annotations

import json
from pathlib import Path

from context_journal import ContextManager
from context_journal.cli import app
from tests.cli.cli_helpers import cli_json, runner


def test_import_shards_a_long_message_and_reads_it_back_whole(tmp_path: Path, data_dir: Path) -> None:
    design = (data_dir.parent / "DESIGN.md").read_text(encoding="utf-8")
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "Please read our design document:\n\n" + design},
                    {"role": "assistant", "content": "Read it; the layers are clear."},
                ]
            }
        ),
        encoding="utf-8",
    )
    db = str(tmp_path / "s.db")
    out = cli_json("import", str(chat), "--store", db, "--format", "anthropic", "--shard-tokens", "1000")
    assert out["messages"] == 2
    with ContextManager.open(db) as cm:
        stored = [m.id for m in cm.messages.slice(0, None)]
    assert len(stored) > 3 and stored[1].endswith("#shard-2")
    shown = cli_json("show", "--store", db)["messages"]
    assert len(shown) == 2 and design in "".join(b.get("text", "") for b in shown[0]["content"])
    last = cli_json("show", "--store", db, "--last", "1")
    assert last["total"] == 2 and [m["participant"] for m in last["messages"]] == ["assistant"]
    both = cli_json("show", "--store", db, "--last", "2")  # whole messages, not shards, are counted
    assert [m["participant"] for m in both["messages"]] == ["user", "assistant"] and both["total"] == 2
    assert design in both["messages"][0]["content"][0]["text"]
    compiled = runner.invoke(app, ["compile", "--store", db, "--budget", "100000", "--format", "anthropic"])
    assert compiled.exit_code == 0, compiled.output
    messages = json.loads(compiled.stdout)["messages"]
    assert design in messages[0]["content"][0]["text"]
    bad = runner.invoke(app, ["import", str(chat), "--store", str(tmp_path / "t.db"), "--shard-tokens", "-5"])
    assert bad.exit_code != 0


def test_show_last_more_than_there_are_shows_every_message(tmp_path: Path) -> None:
    db = str(tmp_path / "plain.db")
    with ContextManager.open(db) as cm:
        for k in range(5):
            cm.add_message("user" if k % 2 == 0 else "assistant", f"m{k}", id=f"m{k}")
    for last in (3, 5, 6, 9):
        shown = cli_json("show", "--store", db, "--last", str(last))
        assert [m["id"] for m in shown["messages"]] == [f"m{k}" for k in range(5)][-last:]
