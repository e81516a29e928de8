"""CLI: ``pin``, ``unpin`` and ``pins`` on a real Claude Code import, and the pinned message raw in
``compile``."""

from __future__ import annotations

import json
from pathlib import Path

from context_journal.cli import app
from tests.cli.cli_helpers import cli_json, runner
from tests.real_stores import copy_store


def test_pin_unpin_and_compile_on_a_claude_code_session(tmp_path: Path, cli_imported_session: Path) -> None:
    db = str(tmp_path / "cc.db")
    copy_store(cli_imported_session, Path(db))  # what `import --json` of SESSION writes
    messages = cli_json("show", "--store", db)["messages"]
    first = messages[0]["id"]  # the task the developer gave: far outside a 2,000-token window
    plain = cli_json("compile", "--store", db, "--budget", "2000", "--format", "anthropic")
    assert first not in json.dumps(plain)
    out = cli_json("pin", first, "--store", db)
    assert out == {"message_id": first, "changed": True, "sequence": out["sequence"], "pins": [first], "ranges": []}
    assert cli_json("pin", first, "--store", db)["changed"] is False
    listed = cli_json("pins", "--store", db)
    assert [r["message_id"] for r in listed] == [first] and listed[0]["visible"] and listed[0]["tokens"] > 0
    assert "Work on bead" in listed[0]["text"]
    pinned = runner.invoke(app, ["compile", "--store", db, "--budget", "2000", "--format", "anthropic"])
    assert pinned.exit_code == 0 and "Work on bead" in pinned.stdout
    table = runner.invoke(app, ["pins", "--store", db])
    assert table.exit_code == 0 and first[:12] in table.stdout
    bad = runner.invoke(app, ["unpin", "no-such-id", "--store", db])
    assert bad.exit_code == 1 and "no-such-id" in bad.output
    assert cli_json("unpin", first, "--store", db)["pins"] == []
    assert runner.invoke(app, ["pins", "--store", db]).stdout.strip() == "no pinned messages"


def test_pin_range_on_a_locomo_conversation_compiles_it_raw_and_at_a_level(tmp_path: Path, data_dir: Path) -> None:
    db = str(tmp_path / "locomo.db")
    cli_json("import", str(data_dir / "locomo" / "locomo-dev7.json"), "--store", db, "--format", "locomo")
    ns = ["--namespace", "locomo:conv-26"]
    messages = cli_json("show", "--store", db, *ns)["messages"]
    ids = [m["id"] for m in messages]
    texts = [m["content"][0]["text"] for m in messages[40:44]]
    first, last = ids[40], ids[43]  # turns of the third session, far outside a 600-token window
    args = ["compile", "--store", db, *ns, "--budget", "600", "--format", "anthropic"]
    before = runner.invoke(app, args)
    assert before.exit_code == 0 and not any(json.dumps(t)[1:-1] in before.stdout for t in texts)
    out = cli_json("pin-range", first, last, "--store", db, *ns, "--name", "support group")
    assert out == {
        "pin_id": "range-1",
        "first_id": first,
        "last_id": last,
        "name": "support group",
        "level": None,
        "max_level": None,
    }
    after = runner.invoke(app, args)
    assert after.exit_code == 0 and all(json.dumps(t)[1:-1] in after.stdout for t in texts)
    listed = cli_json("pins", "--store", db, *ns)
    assert listed == [{**out}]
    table = runner.invoke(app, ["pins", "--store", db, *ns])
    assert table.exit_code == 0 and "range-1" in table.stdout and "support group" in table.stdout
    # A summary level needs the compressing strategy `compress` records (what `compile` then uses).
    refused = runner.invoke(app, ["pin-range", ids[100], ids[120], "--store", db, *ns, "--level", "1"])
    assert refused.exit_code == 1 and "summary level 1" in refused.output and "passthrough" in refused.output
    assert runner.invoke(app, ["compress", "--store", db, *ns]).exit_code == 0
    leveled = cli_json("pin-range", ids[100], ids[120], "--store", db, *ns, "--level", "1")
    assert leveled["pin_id"] == "range-2" and leveled["level"] == 1
    assert runner.invoke(app, ["compile", "--store", db, *ns, "--budget", "4000"]).exit_code == 0  # as compressed
    raw = runner.invoke(app, ["compile", "--store", db, *ns, "--budget", "4000", "--strategy", "passthrough"])
    assert raw.exit_code == 1 and "range-2" in raw.output and "summary level 1" in raw.output
    bad = runner.invoke(app, ["pin-range", last, first, "--store", db, *ns])
    assert bad.exit_code == 1 and "comes before" in bad.output
    both = runner.invoke(app, ["pin-range", first, last, "--store", db, *ns, "--level", "1", "--max-level", "2"])
    assert both.exit_code == 1 and "not both" in both.output
    assert cli_json("unpin", "range-2", "--store", db, *ns)["pins"] == []
    assert [r["pin_id"] for r in cli_json("pins", "--store", db, *ns)] == ["range-1"]


def test_document_marks_from_the_command_line(tmp_path: Path, cli_imported_session: Path) -> None:
    db = str(tmp_path / "cc.db")
    copy_store(cli_imported_session, Path(db))  # what `import --json` of SESSION writes
    ids = [m["id"] for m in cli_json("show", "--store", db)["messages"]]
    first = ids[0]  # the developer's task statement: text only
    out = cli_json("document", first, "--store", db)
    assert out == {"message_id": first, "changed": True, "sequence": out["sequence"], "documents": [first]}
    assert cli_json("document", first, "--store", db)["changed"] is False
    assert cli_json("documents", "--store", db) == [first]
    bad = runner.invoke(app, ["document", "no-such-id", "--store", db])
    assert bad.exit_code == 1 and "no-such-id" in bad.output
    assert cli_json("document", first, "--unmark", "--store", db)["documents"] == []
    assert runner.invoke(app, ["documents", "--store", db]).stdout.strip() == "no documents"
