"""CLI: ``hot-context`` shows and changes the windows of a compressed Claude Code import; ``compress``
and ``compile`` follow the change."""

from __future__ import annotations

from pathlib import Path

from context_journal import ContextManager
from context_journal.cli import app
from context_journal.namespaces import recorded_compressing_strategy, recorded_strategy
from context_journal.stores import SQLiteStore
from tests.cli.cli_helpers import SESSION, cli_json, runner
from tests.real_stores import copy_store


def _pending(db: str) -> tuple[int, int]:
    """(chunks and merges ready to summarise, tokens left unchunked) as a host's handle sees them."""
    store = SQLiteStore(db)
    try:
        strategy = recorded_compressing_strategy(recorded_strategy(store, None, "main"))
        with ContextManager.open(store=store, strategy=strategy) as cm:
            work = cm.pending_work()
            return len(work.ready), work.unchunked_tokens
    finally:
        store.close()


def test_hot_context_on_a_compressed_claude_code_session(tmp_path: Path, cli_imported_session: Path) -> None:
    db = str(tmp_path / "cc.db")
    copy_store(cli_imported_session, Path(db))  # what `import --json` of SESSION writes
    assert cli_json("compress", "--store", db, "--budget", "4000")["done"]
    shown = cli_json("hot-context", "--store", db)
    assert shown == {
        "namespace": "default",
        "branch": "main",
        "changed": False,
        "sequence": None,
        "hot_context": {"head_window_tokens": 600, "recent_window_tokens": 1200, "target_chunk_tokens": 480},
    }  # AutobiographicalConfig.for_budget(4000), as compress recorded it
    before = cli_json("compile", "--store", db, "--budget", "4000")
    out = cli_json("hot-context", "--store", db, "--recent", "250")
    assert out["changed"] and out["sequence"] > 0 and out["hot_context"]["recent_window_tokens"] == 250
    assert cli_json("hot-context", "--store", db, "--recent", "250")["changed"] is False
    assert _pending(db)[0] >= 1  # the tail beyond 250 tokens holds a chunk or more, due now
    assert cli_json("compress", "--store", db)["chunks_summarised"] >= 1
    ready, unchunked = _pending(db)
    assert ready == 0 and unchunked < 480  # what is left is less than a chunk
    after = cli_json("compile", "--store", db, "--budget", "4000")
    assert after["messages"] != before["messages"] or after["tokens"] != before["tokens"]
    text = runner.invoke(app, ["hot-context", "--store", db])
    assert text.exit_code == 0 and "recent_window_tokens: 250" in text.stdout


def test_hot_context_refuses_bad_values_and_writes_nothing(tmp_path: Path, cli_imported_session: Path) -> None:
    db = str(tmp_path / "cc.db")
    copy_store(cli_imported_session, Path(db))  # what `import --json` of SESSION writes
    head = cli_json("stats", "--store", db)["head_sequence"]
    negative = runner.invoke(app, ["hot-context", "--store", db, "--recent", "-5"])
    assert negative.exit_code == 2 and "--recent" in negative.output
    zero = runner.invoke(app, ["hot-context", "--store", db, "--chunk", "0"])
    assert zero.exit_code == 1 and "target_chunk_tokens" in zero.output
    missing = runner.invoke(app, ["hot-context", "--store", str(tmp_path / "none.db")])
    assert missing.exit_code == 1
    # A reader may not claim the host's namespace by changing it (nor by pinning in it), as compile refuses.
    for args in (["hot-context", "--recent", "300"], ["pin", cli_json("show", "--store", db)["messages"][0]["id"]]):
        claimed = runner.invoke(app, [*args, "--store", db, "--reader", "ann"])
        assert claimed.exit_code == 1 and "lock the host out" in claimed.output, claimed.output
    assert cli_json("stats", "--store", db)["head_sequence"] == head
    # Nothing recorded: the windows shown are those compress (CLI or MCP) would give the namespace.
    shown = cli_json("hot-context", "--store", db)["hot_context"]
    assert shown == {"head_window_tokens": 600, "recent_window_tokens": 1200, "target_chunk_tokens": 480}
    reading = runner.invoke(app, ["hot-context", "--store", db, "--reader", "ann"])  # a reading claims nothing
    assert reading.exit_code == 0, reading.output
    assert cli_json("stats", "--store", db)["head_sequence"] == head


def test_a_change_from_the_command_line_queues_work_for_the_workers(tmp_path: Path, data_dir: Path) -> None:
    """A namespace imported for workers: a smaller window set from the command line (a handle that does
    not compress for workers itself) queues the work it makes due (a worker found nothing before)."""
    db = str(tmp_path / "cc.db")
    cli_json("import", str(data_dir / SESSION), "--store", db, "--compression", "workers")
    assert cli_json("worker", "--store", db, "--until-idle")["units"] > 0
    assert cli_json("worker", "--store", db, "--until-idle")["units"] == 0  # nothing left
    assert cli_json("hot-context", "--store", db, "--recent", "300", "--chunk", "200")["changed"]
    assert cli_json("worker", "--store", db, "--until-idle")["units"] > 0
