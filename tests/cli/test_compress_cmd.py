"""CLI: compress from the command line, compile says when compression lags, worker --json,
import queues work for workers, and errors a person can act on."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any, NoReturn

import pytest
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app

runner = CliRunner()


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "cc.db"
    shutil.copy(src, dst)
    return dst


def test_import_compress_compile_end_to_end(imported: Path, tmp_path: Path) -> None:
    db = _copy(imported, tmp_path)
    # Not summarised yet, the middle gives way (closed tool units whole): it fits, and says what lags.
    lagging = runner.invoke(app, ["compile", "--store", str(db), "--strategy", "autobiographical", "--budget", "4000"])
    assert lagging.exit_code == 0, lagging.output
    text = " ".join(lagging.stderr.split())
    assert re.search(r"compression lags: [\d,]+ messages were not summarised yet and cut to fit the budget", text)
    assert f"context-journal compress --store {db}` summarises them" in text
    # Too small for the rest even once summarised: the error names both remedies.
    lagging = runner.invoke(app, ["compile", "--store", str(db), "--strategy", "autobiographical", "--budget", "100"])
    assert lagging.exit_code == 1
    text = " ".join(lagging.output.split())
    assert "compression lags" in text and "chunks (" in text and "wait to be summarised" in text
    assert f"context-journal compress --store {db}" in text and "--budget of at least" in text

    res = runner.invoke(app, ["compress", "--store", str(db), "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["done"] and report["chunks_summarised"] > 10 and report["merges"] > 0
    assert report["input_tokens"] > 0 and report["output_tokens"] > 0 and report["pending"]["ready"] == 0
    assert report["summaries_in_store"]["L1"] == report["chunks_summarised"]

    res = runner.invoke(
        app, ["compile", "--store", str(db), "--strategy", "autobiographical", "--budget", "4000", "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["strategy"] == "autobiographical" and 0 < data["tokens"] <= 4000
    # the strategy compress recorded is the namespace's default for compile
    res = runner.invoke(app, ["compile", "--store", str(db), "--budget", "4000", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["strategy"] == "autobiographical"
    # compressing again finds nothing to do
    again = json.loads(runner.invoke(app, ["compress", "--store", str(db), "--json"]).stdout)
    assert again["calls"] == 0 and again["done"]


def test_compress_shows_a_report_and_max_calls_stops_early(imported: Path, tmp_path: Path) -> None:
    db = _copy(imported, tmp_path)
    res = runner.invoke(app, ["compress", "--store", str(db), "--max-calls", "3"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())
    assert "3 calls" in out and "pending:" in out and "run the command again" in out
    res = runner.invoke(app, ["compress", "--store", str(db)])
    assert res.exit_code == 0 and "nothing pending" in res.stdout


def test_compress_ctrl_c_keeps_finished_work(imported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _copy(imported, tmp_path)
    from context_journal.cli import compress_cmd

    real = compress_cmd._drain_with_bar

    def interrupted(cm: ContextManager, check: Any, max_calls: int | None) -> NoReturn:
        real(cm, check, 4)
        raise KeyboardInterrupt

    monkeypatch.setattr(compress_cmd, "_drain_with_bar", interrupted)
    res = runner.invoke(app, ["compress", "--store", str(db)])
    assert res.exit_code == 130 and "interrupted" in res.stdout
    with ContextManager.open(db) as cm:
        assert len(cm.search_summaries(limit=None)) == 4


def test_compile_overflow_window_compiles_before_compression(imported: Path) -> None:
    res = runner.invoke(
        app,
        [
            "compile",
            "--store",
            str(imported),
            "--strategy",
            "autobiographical",
            "--budget",
            "4000",
            "--overflow",
            "window",
            "--json",
            "--preview",
        ],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["tokens"] <= 4000


def test_lagging_compile_names_the_pending_work_in_python(imported: Path, tmp_path: Path) -> None:
    from context_journal import AutobiographicalConfig, AutobiographicalStrategy, OverBudgetError

    db = _copy(imported, tmp_path)
    with ContextManager.open(db, strategy=AutobiographicalStrategy(AutobiographicalConfig.for_budget(4000))) as cm:
        fits = cm.compile(4000)  # the middle not summarised yet gave way: a note stands for it
        assert fits.tokens <= 4000 and fits.unsummarised_cut > 200
        with pytest.raises(OverBudgetError) as info:
            cm.compile(100)
        assert info.value.parts["pending chunks"] > 10 and info.value.parts["pending tokens"] > 100_000
        assert "cm.drain()" in str(info.value) and "raise max_tokens to at least" in str(info.value)
        cm.drain()
        assert cm.compile(4000).unsummarised_cut < 10


def test_compress_refuses_unknown_namespace_strategy_and_config(imported: Path) -> None:
    res = runner.invoke(app, ["compress", "--store", str(imported), "-n", "nope"])
    assert res.exit_code == 1 and "no namespace 'nope'" in res.output and "default" in res.output
    res = runner.invoke(app, ["compress", "--store", str(imported), "--config", '{"no_such_field": 1}'])
    assert res.exit_code == 1 and "--config" in res.output
    res = runner.invoke(app, ["compress", "--store", str(imported), "--strategy", "windowed"])
    assert res.exit_code == 2


def test_import_queues_work_for_workers_and_worker_json(tmp_path: Path, data_dir: Path) -> None:
    short = data_dir / "claude-code-sessions" / "tool_heavy.jsonl"
    if not short.exists():
        pytest.skip("shared data not found")
    db = tmp_path / "w.db"
    res = runner.invoke(
        app, ["import", str(short), "--store", str(db), "--compression", "workers", "--budget", "1000", "--json"]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["queued_for_workers"] == ["default"]
    res = runner.invoke(app, ["worker", "--store", str(db), "--until-idle", "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert report["claims"] >= 1 and report["summaries"] >= 1
    human = runner.invoke(app, ["worker", "--store", str(db), "--until-idle"])
    assert human.exit_code == 0 and human.stdout.startswith("worker: ")
    # a namespace queued for workers is queued again by the next import, without the option
    again = runner.invoke(app, ["import", str(short), "--store", str(db), "--json"])
    assert json.loads(again.stdout)["queued_for_workers"] == ["default"]


def test_errors_print_markup_as_typed_and_list_what_exists(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with ContextManager.open(db) as cm:
        cm.add_message("user", "hello")
    res = runner.invoke(app, ["show", "--store", str(db), "--branch", "[bold]x[/y]"])
    assert res.exit_code == 1 and "[bold]x[/y]" in res.output and "branches are: main" in res.output
    assert "MarkupError" not in res.output
    res = runner.invoke(app, ["compile", "--store", str(db), "--budget", "100", "-n", "mistyped"])
    assert res.exit_code == 1 and "no namespace 'mistyped'" in res.output and "default" in res.output
    res = runner.invoke(app, ["summaries", "--store", str(db), "-n", "[red]ns"])
    assert res.exit_code == 1 and "[red]ns" in res.output


def test_missing_extra_hint_keeps_its_brackets() -> None:
    import typer

    from context_journal.cli._app import fail_on_library_errors
    from context_journal.errors import MissingExtraError

    @typer.Typer().command()
    def boom() -> None:
        with fail_on_library_errors():
            raise MissingExtraError("mcp", "mcp")

    local = typer.Typer()
    local.command()(boom)
    res = runner.invoke(local, [])
    assert res.exit_code == 1 and "pip install 'context-journal[mcp]'" in " ".join(res.output.split())


def test_version_completion_and_verbose(tmp_path: Path) -> None:
    from context_journal import __version__

    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and __version__ in res.stdout
    assert "--install-completion" in runner.invoke(app, ["--help"]).stdout
    db = tmp_path / "s.db"
    with ContextManager.open(db) as cm:
        cm.add_message("user", "hello")
    res = runner.invoke(app, ["-v", "compile", "--store", str(db), "--budget", "100", "--json"])
    assert res.exit_code == 0, res.output
    assert "context_journal.compile" in res.stderr and "compiled default/main" in res.stderr


def test_empty_store_compile_is_an_error(tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    ContextManager.open(db).close()
    res = runner.invoke(app, ["compile", "--store", str(db), "--budget", "100"])
    assert res.exit_code == 1 and "holds no message" in " ".join(res.output.split())


def _lagging_namespace(tmp_path: Path, namespace: str = "locomo:conv 26") -> Path:
    """A store whose one isolated namespace (its name needs shell quoting) holds 400 messages, none
    summarised, on ``main`` and on a branch ``my feat`` forked from it."""
    db = tmp_path / "lag.db"
    with ContextManager.open(db, namespace=namespace, isolate=True) as cm:
        for i in range(200):
            cm.add_message("user", f"Step {i}: the build of module_{i}.py failed with exit code {i % 7}. " * 3)
            cm.add_message("Claude", f"I fixed module_{i}.py by pinning dependency v{i}.0 and re-ran the tests.")
        cm.fork("my feat")
    return db


def test_compress_next_hint_keeps_namespace_and_branch_quoted(tmp_path: Path) -> None:
    """A review found (7): the `next:` hint dropped -n (and --branch), so running it compiled `default`."""
    import shlex

    db = _lagging_namespace(tmp_path)
    res = runner.invoke(app, ["compress", "--store", str(db), "-n", "locomo:conv 26", "--max-calls", "1"])
    assert res.exit_code == 0, res.output
    hint = next(line for line in res.stdout.splitlines() if "next:" in line).split("next:", 1)[1].strip()
    assert shlex.split(hint) == [
        "context-journal", "compile", "--store", str(db), "-n", "locomo:conv 26",
        "--strategy", "autobiographical", "--budget", "N",
    ]  # fmt: skip
    res = runner.invoke(
        app, ["compress", "--store", str(db), "-n", "locomo:conv 26", "--branch", "my feat", "--max-calls", "1"]
    )
    assert res.exit_code == 0, res.output
    hint = next(line for line in res.stdout.splitlines() if "next:" in line).split("next:", 1)[1].strip()
    words = shlex.split(hint)
    assert words[words.index("-n") + 1] == "locomo:conv 26" and words[words.index("--branch") + 1] == "my feat"


def test_compile_says_lagging_messages_were_cut_to_fit(tmp_path: Path) -> None:
    """A review found (8): a lagging compile that fits by cutting printed only "1 repairs"; plain output
    says how many messages are not summarised yet and names the command that clears it."""
    import shlex

    db = _lagging_namespace(tmp_path)
    args = ["compile", "--store", str(db), "-n", "locomo:conv 26", "--strategy", "autobiographical"]
    res = runner.invoke(app, [*args, "--budget", "4000", "--preview", "--json"])
    assert res.exit_code == 0, res.output
    cut = [r for r in json.loads(res.stdout)["repairs"] if r["kind"] == "cut_to_fit"]
    assert cut, "the store no longer compiles by cutting"
    count = int(cut[0]["detail"].split()[0])
    res = runner.invoke(app, [*args, "--budget", "4000", "--preview", "--branch", "my feat"])
    assert res.exit_code == 0, res.output
    lines = [line for line in res.stderr.splitlines() if "not summarised yet" in line]
    assert len(lines) == 1, res.stderr
    assert f"{count} messages were not summarised yet" in lines[0] and "cut to fit" in lines[0]
    command = lines[0].split("`")[1]
    assert shlex.split(command) == [
        "context-journal", "compress", "--store", str(db), "-n", "locomo:conv 26", "--branch", "my feat",
    ]  # fmt: skip
    json.loads(res.stdout)  # stdout stays the compiled JSON, the notice goes to stderr


def test_a_real_sigint_stops_compress_after_the_unit_in_progress(tmp_path: Path) -> None:
    """A review found: with the offline summarizer (which never awaits) SIGINT only landed when the
    whole drain had finished (1,651 calls ran on). The drain yields after each unit: the process stops
    at once, says it was interrupted, and leaves the rest pending."""
    import signal
    import subprocess
    import sys
    import time

    db = tmp_path / "sig.db"
    with ContextManager.open(db) as cm:
        roles = ("user", "assistant")
        cm.add_messages(
            [{"participant": roles[i % 2], "content": f"message {i} on topic {i % 37} " * 8} for i in range(6000)]
        )
    cli = [sys.executable, "-c", "from context_journal.cli import main; main()"]
    proc = subprocess.Popen([*cli, "compress", "--store", str(db), "--json"], stdout=subprocess.PIPE, text=True)
    from context_journal.stores import SQLiteStore

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the drain has written its first summaries
        time.sleep(0.05)
        store = SQLiteStore(db)
        try:
            if any(r.item.startswith("summary/") for r in store.read_slot("compression/default", 1)):
                break
        finally:
            store.close()
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130 and time.monotonic() - sent < 5
    report = json.loads(out)
    assert report["interrupted"] and not report["done"] and report["pending"]["ready"] > 0


def test_cli_reader_never_claims_the_hosts_namespace(tmp_path: Path) -> None:
    """A review found: ``compile --reader bob`` with no ``-n`` claimed ``default`` for bob, and the host
    (no reader) could no longer compile it. Compile and compress as a reader refuse the host's namespace
    and name ``-n bob`` (the shared messages as bob sees them), which works although it is new."""
    db = tmp_path / "r.db"
    with ContextManager.open(db) as host:
        host.add_message("user", [{"type": "text", "text": "Deploy at 14:00."}])
        host.add_message("user", [{"type": "text", "text": "Bob only: use the blue door.", "audience": ["bob"]}])
    runner = CliRunner()
    for cmd in (["compile", "--budget", "2000"], ["compress"]):
        res = runner.invoke(app, [*cmd, "--store", str(db), "--reader", "bob"])
        assert res.exit_code == 1 and "records no reader" in res.stderr and "-n bob" in res.stderr, res.stderr
    res = runner.invoke(app, ["compile", "--budget", "2000", "--store", str(db), "--reader", "bob", "-n", "bob"])
    assert res.exit_code == 0 and "blue door" in res.stdout, res.output
    res = runner.invoke(app, ["compile", "--budget", "2000", "--store", str(db)])  # the host still compiles
    assert res.exit_code == 0 and "Deploy at 14:00" in res.stdout and "blue door" not in res.stdout
    page = tmp_path / "m.html"
    res = runner.invoke(app, ["map", "--budget", "2000", "--store", str(db), "--reader", "bob", "--html", str(page)])
    assert res.exit_code == 0 and page.exists(), res.output  # a preview claims nothing: allowed


def test_a_namespace_a_python_host_wrote_through_is_found_by_the_cli(tmp_path: Path) -> None:
    """A review found: after ``ContextManager.open(db, namespace="a").add_message(...)`` the command line
    said "no namespace 'a'" (a namespace over the shared slot left no trace of its own)."""
    db = tmp_path / "py.db"
    with ContextManager.open(db, namespace="a", strategy="autobiographical") as cm:
        for i in range(30):
            cm.add_message("user" if i % 2 == 0 else "assistant", f"turn {i} about the parser " * 5)
    runner = CliRunner()
    assert runner.invoke(app, ["compress", "--store", str(db), "-n", "a"]).exit_code == 0
    res = runner.invoke(app, ["compile", "--store", str(db), "-n", "a", "--budget", "3000", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["tokens"] > 0, res.output
    assert runner.invoke(app, ["compile", "--store", str(db), "-n", "b", "--budget", "3000"]).exit_code == 1


def test_compress_on_an_empty_namespace_names_those_with_messages(tmp_path: Path) -> None:
    """A review found: after an import of several conversations (each in a namespace of its own),
    ``compress`` on ``default`` said "nothing pending" and advised a compile that then failed."""
    db = tmp_path / "multi.db"
    for ns in ("conv-a", "conv-b"):
        with ContextManager.open(db, namespace=ns, isolate=True) as cm:
            cm.add_message("user", f"hello from {ns}")
    res = CliRunner().invoke(app, ["compress", "--store", str(db)])
    assert res.exit_code == 1 and "holds no message" in res.stderr
    assert "conv-a" in res.stderr and "conv-b" in res.stderr and "-n" in res.stderr
    assert CliRunner().invoke(app, ["compress", "--store", str(db), "-n", "conv-a"]).exit_code == 0


def test_map_says_lagging_messages_were_cut_to_fit_as_compile_does(tmp_path: Path) -> None:
    """A second review pass found: ``map`` of a lagging namespace said nothing where ``compile`` of
    the same namespace printed the compression-lag notice with the command that clears it."""
    db = _lagging_namespace(tmp_path)
    page = tmp_path / "lag.html"
    args = ["map", "--store", str(db), "-n", "locomo:conv 26", "--strategy", "autobiographical", "--budget", "4000"]
    res = runner.invoke(app, [*args, "--html", str(page)])
    assert res.exit_code == 0 and page.exists(), res.output
    lines = [line for line in res.stderr.splitlines() if "not summarised yet" in line]
    assert len(lines) == 1 and "context-journal compress" in lines[0], res.stderr


def test_compress_refuses_a_budget_too_small_to_size_summaries(tmp_path: Path) -> None:
    """A review found: ``compress --budget 5`` was accepted silently (the MCP tool's minimum is 100)."""
    db = tmp_path / "b.db"
    with ContextManager.open(db) as cm:
        cm.add_message("user", "hello")
    res = runner.invoke(app, ["compress", "--store", str(db), "--budget", "5"])
    assert res.exit_code == 2 and "100" in res.output


def test_worker_poll_seconds_reaches_the_worker_and_is_validated_like_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--poll-seconds`` (the README advises 5 s with PostgreSQL notifications) is the worker's
    ``poll_seconds``; values ``CompressionWorker`` refuses (0, negative, nan, above 3600) are usage errors."""
    import context_journal.cli.worker_cmd as worker_cmd
    from context_journal.workers import CompressionWorker

    db = tmp_path / "w.db"
    with ContextManager.open(db) as cm:
        cm.add_message("user", "hello")
    seen: list[float] = []

    class Recording(CompressionWorker):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            seen.append(self.poll_seconds)

    monkeypatch.setattr(worker_cmd, "CompressionWorker", Recording)
    res = runner.invoke(app, ["worker", "--store", str(db), "--until-idle", "--poll-seconds", "5", "--json"])
    assert res.exit_code == 0, res.output
    assert seen == [5.0] and json.loads(res.stdout)["claims"] == 0
    res = runner.invoke(app, ["worker", "--store", str(db), "--until-idle", "--json"])
    assert res.exit_code == 0 and seen == [5.0, 0.2]  # the Python default
    for bad in ("0", "-1", "nan", "3600.5", "1e-9", "0.009"):
        res = runner.invoke(app, ["worker", "--store", str(db), "--until-idle", "--poll-seconds", bad])
        assert res.exit_code == 2, (bad, res.output)
        assert "must be at least 0.01 and at most 3,600 seconds" in _plain(res.output), bad
    assert seen == [5.0, 0.2]
    help_text = _plain(runner.invoke(app, ["worker", "--help"]).output)
    assert "--poll-seconds" in help_text and "Stop after this many queue claims" in help_text
    assert "Every claim counts, also one that stored nothing" in help_text


def _plain(output: str) -> str:
    """Rich's boxed help and errors as one line of words."""
    return " ".join(output.replace("│", " ").split())


def test_compile_does_not_advise_compress_when_nothing_is_due(tmp_path: Path) -> None:
    """After a compress, the messages of a chunk still filling below its target can be cut to fit: a
    second compress summarises nothing, so the notice names what does clear it (smaller chunks or a larger
    budget) instead of sending the user round a loop (found by a review on LoCoMo conv-30)."""
    db = tmp_path / "filling.db"
    with ContextManager.open(db) as cm:
        for i in range(60):
            who = "user" if i % 2 == 0 else "assistant"
            cm.add_message(who, f"Turn {i}: we compared invoice batch {i} against ledger row {i * 7} " * 3)
    target = ["--store", str(db)]
    res = runner.invoke(app, ["hot-context", *target, "--head", "100", "--recent", "100", "--chunk", "800"])
    assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["compress", *target]).exit_code == 0
    res = runner.invoke(app, ["compile", *target, "--strategy", "autobiographical", "--budget", "600"])
    assert res.exit_code == 0, res.output
    line = next(x for x in res.stderr.splitlines() if "not summarised yet" in x)
    assert "nothing is due to summarise" in line and "hot-context" in line and "--chunk N" in line, line
    assert "compression lags" not in line
    again = runner.invoke(app, ["compress", *target, "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout)["calls"] == 0, again.output
