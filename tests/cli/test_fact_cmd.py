"""CLI: ``fact set``, ``fact clear`` and ``fact list`` on a real Claude Code import (a review found no door to
host facts but Python), the fact in ``compile``'s working-state block, and keys refused as the API refuses
them."""

from __future__ import annotations

from pathlib import Path

from context_journal.cli import app
from tests.cli.cli_helpers import cli_json, runner
from tests.real_stores import copy_store


def test_set_clear_and_list_facts_on_a_claude_code_session(tmp_path: Path, cli_imported_session: Path) -> None:
    db = str(tmp_path / "cc.db")
    copy_store(cli_imported_session, Path(db))  # what `import --json` of SESSION writes
    out = cli_json("fact", "set", "branch", "work on spotter-dov only", "--store", db)
    assert out == {
        "key": "branch",
        "changed": True,
        "sequence": out["sequence"],
        "facts": {"branch": "work on spotter-dov only"},
    }
    assert out["sequence"] > 0
    again = cli_json("fact", "set", "branch", "work on spotter-dov only", "--store", db)
    assert again["changed"] is False and again["sequence"] is None
    cli_json("fact", "set", "deadline", "Friday 17:00 UTC", "--store", db)
    assert cli_json("fact", "list", "--store", db) == {
        "facts": {"branch": "work on spotter-dov only", "deadline": "Friday 17:00 UTC"}
    }
    compiled = runner.invoke(app, ["compile", "--store", db, "--budget", "4000", "--format", "anthropic"])
    assert compiled.exit_code == 0 and "deadline: Friday 17:00 UTC" in compiled.stdout
    state = cli_json("state", "--store", db)["state"]
    assert state["facts"] == {"branch": "work on spotter-dov only", "deadline": "Friday 17:00 UTC"}
    cleared = cli_json("fact", "clear", "deadline", "--store", db)
    assert cleared["changed"] is True and cleared["facts"] == {"branch": "work on spotter-dov only"}
    assert cli_json("fact", "clear", "deadline", "--store", db)["changed"] is False
    table = runner.invoke(app, ["fact", "list", "--store", db])
    assert table.exit_code == 0 and "spotter-dov" in table.stdout


def test_bad_keys_and_texts_are_refused_and_nothing_is_written(tmp_path: Path, cli_imported_session: Path) -> None:
    db = str(tmp_path / "cc.db")
    copy_store(cli_imported_session, Path(db))  # what `import --json` of SESSION writes
    for key, text, said in [
        ("\u200b", "x", "blank"),
        ("\u3164", "x", "blank"),  # a Hangul filler (default-ignorable, not category Cf)
        ("\ufe0f", "x", "blank"),
        ("\u2800", "x", "blank"),
        ("ok", "\u200b", "non-empty"),
        ("  ", "x", "blank"),
        ("k" * 201, "x", "200 characters"),
        ("ok", "   ", "non-empty"),
        ("ok", "bell\x07", "control"),
    ]:
        res = runner.invoke(app, ["fact", "set", key, text, "--store", db])
        assert res.exit_code == 1 and said in res.output, (key, text, res.output)
    assert cli_json("fact", "list", "--store", db) == {"facts": {}}
    missing = runner.invoke(app, ["fact", "list", "--store", str(tmp_path / "none.db")])
    assert missing.exit_code == 1
