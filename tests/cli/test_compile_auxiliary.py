"""``context-journal compile --auxiliary NS``: another namespace's messages merged read-only into the compile,
with their namespace in the sources; a mistyped or own-slot namespace is a one-line error."""

from __future__ import annotations

import json
from pathlib import Path

from context_journal.cli import app
from context_journal.manager import ContextManager
from tests.cli.cli_helpers import runner


def test_compile_with_an_auxiliary_namespace(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    with ContextManager.open(db) as main:
        main.add_message("user", "Plan the Lisbon trip", id="u1")
        side = ContextManager.open(store=main.store, namespace="critic", isolate=True)
        side.add_message("critic", "There is no budget yet", id="c1")
        main.add_message("assistant", "Day 1: Alfama", id="a1")
    res = runner.invoke(app, ["compile", "-s", db, "--budget", "2000", "-n", "critic", "--auxiliary", "default"])
    assert res.exit_code == 0, res.output
    sources = [s for m in json.loads(res.stdout)["messages"] for s in m["sources"]]
    assert [(s["id"], s.get("namespace")) for s in sources] == [("u1", "default"), ("c1", None), ("a1", "default")]
    res = runner.invoke(app, ["compile", "-s", db, "--budget", "2000", "-n", "critic", "--auxiliary", "defualt"])
    assert res.exit_code == 1 and "no namespace 'defualt'" in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["compile", "-s", db, "--budget", "2000", "--auxiliary", "default"])
    assert res.exit_code == 1 and "own message slot 'messages'" in res.output


def test_compress_uses_the_auxiliary_views_the_namespace_records(tmp_path: Path) -> None:
    """`compile --auxiliary` records the views for the namespace; `compress -n NS` (the command the lag error
    names) then summarises the merged view, and the next compile needs no --auxiliary."""
    db = str(tmp_path / "a.db")
    with ContextManager.open(db) as main:
        side = ContextManager.open(store=main.store, namespace="critic", isolate=True)
        for k in range(120):
            main.add_message("user" if k % 2 else "assistant", f"turn {k} about the venue and the budget " * 4)
            if k % 10 == 0:
                side.add_message("critic", f"note {k}: the venue is too far")
    args = ["compile", "-s", db, "--budget", "1500", "-n", "critic", "--strategy", "autobiographical"]
    res = runner.invoke(app, [*args, "--auxiliary", "default", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["parts"].get("summaries", 0) == 0  # nothing summarised yet
    res = runner.invoke(app, ["compress", "-s", db, "-n", "critic", "--budget", "1500", "--json"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, [*args, "-f", "json"])
    sources = [s for m in json.loads(res.stdout)["messages"] for s in m["sources"]]
    assert any(s.get("namespace") == "default" for s in sources)
    assert any(s["kind"] == "summary" for s in sources)
    res = runner.invoke(app, [*args, "--auxiliary", "critic"])
    assert res.exit_code == 1 and "own message slot" in res.output
