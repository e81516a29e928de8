"""CLI: ``search`` and ``compile --query/--recall-auto/--dates`` on a real LoCoMo import, clean errors at the
edge, and the index build (with its progress bar) of a store written before the full-text index existed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from context_journal.cli.search_cmd import snippet_text
from context_journal.stores import SQLiteStore

runner = CliRunner()

CONV = "locomo:conv-26"


@pytest.fixture(scope="module")
def locomo_db(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """The shared LoCoMo file imported through the CLI: one isolated namespace per conversation."""
    db = tmp_path_factory.mktemp("locomo") / "l.db"
    res = runner.invoke(app, ["import", str(data_dir / "locomo" / "locomo-dev7.json"), "--store", str(db), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["namespaces"][CONV] == CONV
    return db


def search_json(db: Path, *args: str) -> dict[str, Any]:
    res = runner.invoke(app, ["search", "--store", str(db), *args, "--json"])
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def test_search_table_on_real_data(locomo_db: Path) -> None:
    res = runner.invoke(app, ["search", "--store", str(locomo_db), "-n", CONV, "pottery class", "--limit", "3"])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "D14:4" in out and "Melanie" in out and "2023-08-25 13:33" in out
    assert "3 hit(s) for 'pottery class' in namespace locomo:conv-26 on branch main" in out
    assert "**" not in out  # the marks are rendered (bold on a terminal), not printed


def test_search_json_on_real_data(locomo_db: Path) -> None:
    data = search_json(locomo_db, "-n", CONV, "pottery class", "--limit", "5")
    assert (data["query"], data["namespace"], data["branch"]) == ("pottery class", CONV, "main")
    assert len(data["hits"]) == 5
    top = data["hits"][0]
    assert set(top) == {"message_id", "sequence", "participant", "timestamp", "score", "snippet"}
    assert (top["message_id"], top["participant"]) == ("D14:4", "Melanie")
    assert top["timestamp"] == "2023-08-25T13:33:00+00:00"
    assert "**pottery** **class**" in top["snippet"]
    scores = [h["score"] for h in data["hits"]]
    assert scores == sorted(scores, reverse=True) and scores[-1] > 0

    caroline = search_json(locomo_db, "-n", CONV, "adoption agency", "-p", "Caroline", "--limit", "3")
    assert caroline["hits"][0]["message_id"] == "D13:1"  # "I applied to adoption agencies!"
    assert all("**adoption**" in h["snippet"] for h in caroline["hits"])
    assert {h["participant"] for h in caroline["hits"]} == {"Caroline"}

    early = search_json(locomo_db, "-n", CONV, "pottery", "--as-of", "100", "--limit", "50")
    assert early["hits"] and all(h["sequence"] <= 100 for h in early["hits"])
    assert "D14:4" not in {h["message_id"] for h in early["hits"]}

    july = search_json(locomo_db, "-n", CONV, "pottery", "--since", "2023-07-01", "--until", "2023-07-04", "-l", "50")
    assert july["hits"] and all(h["timestamp"].startswith("2023-07-03") for h in july["hits"])

    # without -n the shared slot is read: this store has none
    shared = runner.invoke(app, ["search", "--store", str(locomo_db), "pottery"])
    assert shared.exit_code == 0 and "no message matches 'pottery'" in shared.stdout


def test_bad_input_is_a_clean_error(locomo_db: Path, tmp_path: Path) -> None:
    base = ["search", "--store", str(locomo_db), "-n", CONV]
    for args, code, text in [
        (["   "], 1, "non-empty"),
        (["\u200b"], 1, "non-empty"),
        (["pottery", "--limit", "0"], 1, "limit must be an integer in 1..1000"),
        (["pottery", "--limit", "1001"], 1, "limit must be an integer in 1..1000"),
        (["pottery", "--since", "last week"], 2, "ISO-8601"),
        (["pottery", "--branch", "nope"], 1, "no live branch named 'nope'"),
    ]:
        res = runner.invoke(app, [*base, *args])
        assert res.exit_code == code, (args, res.output)
        assert text in res.output and "Traceback" not in res.output, (args, res.output)
        assert res.exception is None or isinstance(res.exception, SystemExit)
    res = runner.invoke(app, ["search", "--store", str(tmp_path / "none.db"), "pottery"])
    assert res.exit_code == 1 and "no store at" in res.output and not (tmp_path / "none.db").exists()
    # query syntax is plain text, never an FTS error
    data = search_json(locomo_db, "-n", CONV, '"pottery* NEAR( -class:')
    assert data["hits"][0]["message_id"] == "D14:4"


def test_snippet_marks_render_bold_and_markup_stays_text() -> None:
    text = snippet_text("I made it in **pottery** class [bold]x[/bold] **pottery's**")
    assert text.plain == "I made it in pottery class [bold]x[/bold] pottery's"
    bold = [text.plain[s.start : s.end] for s in text.spans if s.style == "bold"]
    assert bold == ["pottery", "pottery's"]


def test_compile_with_query_recall_and_dates(locomo_db: Path) -> None:
    base = ["compile", "--store", str(locomo_db), "-n", CONV, "--budget", "2000", "--preview", "--format", "anthropic"]
    plain = runner.invoke(app, base)
    assert plain.exit_code == 0, plain.output
    assert "signed up for a pottery class" not in plain.stdout
    asked = runner.invoke(app, [*base, "--query", "pottery class", "--no-dates"])
    assert asked.exit_code == 0, asked.output
    assert "signed up for a pottery class" in asked.stdout and "[3 July 2023]" not in asked.stdout
    assert "recalled" in asked.stderr
    dated = runner.invoke(app, [*base, "-q", "pottery class", "--dates"])
    assert dated.exit_code == 0, dated.output
    assert "[3 July 2023]" in dated.stdout
    summary = runner.invoke(app, [*base, "--query", "pottery class", "--json"])
    assert summary.exit_code == 0 and json.loads(summary.stdout)["tokens"] <= 2000
    empty = runner.invoke(app, [*base, "--query", " "])
    assert empty.exit_code == 1 and "non-empty" in empty.output and "Traceback" not in empty.output


def test_compile_recall_auto(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    with ContextManager.open(db) as cm:
        cm.add_message("user", "My locker code is 4471, remember it.")
        cm.add_message("Claude", "Noted.")
        for i in range(40):
            cm.add_message("user", f"Step {i}: the build of module_{i}.py failed again with a long log line.")
            cm.add_message("Claude", f"I pinned dependency v{i}.0 for module_{i}.py and re-ran the tests.")
        cm.add_message("user", "What was my locker code?")
    base = ["compile", "--store", str(db), "--budget", "400", "--preview"]
    said = "locker code is 4471"  # the words, not "4471" alone: a random message id may hold those digits
    assert said not in runner.invoke(app, base).stdout
    res = runner.invoke(app, [*base, "--recall-auto"])
    assert res.exit_code == 0, res.output
    assert said in res.stdout


def _store_without_index(path: Path, messages: int) -> None:
    """A SQLite store whose messages were written before the full-text index existed: written normally,
    then the index emptied and its backfill mark reset (as migrations 5 and 6 leave an older store)."""
    with ContextManager.open(path) as cm:
        for i in range(messages):
            who = "user" if i % 2 == 0 else "Claude"
            cm.add_message(who, f"turn {i}: the walrus count is {i}" if i % 10 == 3 else f"turn {i}: nothing new")
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DROP TABLE text_index")
        conn.execute(
            "CREATE VIRTUAL TABLE text_index USING fts5(body, content='', "
            "tokenize='porter unicode61 remove_diacritics 2')"
        )
        conn.execute("UPDATE text_index_backfill SET done = 0, upto = (SELECT MAX(seq) FROM records)")
        conn.execute("DELETE FROM text_index_pending")  # (queued by the writes above; the backfill indexes them)
    conn.close()


def _pending(path: Path) -> int:
    store = SQLiteStore(path)
    try:
        return store.text_index_pending()
    finally:
        store.close()


def test_search_indexes_an_older_store_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.progress import Progress

    from context_journal.cli import _app

    db = tmp_path / "old.db"
    _store_without_index(db, 60)
    assert _pending(db) == 60
    monkeypatch.setattr(_app, "INDEX_BATCH", 10)

    # killed after the second batch: what was indexed is kept
    calls = {"n": 0}
    real_update = Progress.update

    def interrupt(self: Progress, *args: Any, **kwargs: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        real_update(self, *args, **kwargs)

    monkeypatch.setattr(Progress, "update", interrupt)
    res = runner.invoke(app, ["search", "--store", str(db), "walrus"])
    assert res.exit_code == 130, res.output
    assert "interrupted" in res.stderr and "run the command again to resume" in res.stderr
    assert _pending(db) == 40
    monkeypatch.setattr(Progress, "update", real_update)

    # the next search finishes the build, then finds messages written before the index existed
    res = runner.invoke(app, ["search", "--store", str(db), "walrus", "--limit", "20", "--json"])
    assert res.exit_code == 0, res.output
    assert "indexed 40 messages written before the full-text index existed" in res.stderr
    hits = json.loads(res.stdout)["hits"]
    assert sorted(int(h["snippet"].split()[1].rstrip(":")) for h in hits) == [3, 13, 23, 33, 43, 53]
    assert _pending(db) == 0
    again = runner.invoke(app, ["search", "--store", str(db), "walrus"])
    assert again.exit_code == 0 and "indexed" not in again.stderr and "6 hit(s)" in again.stdout


# ---- search --summaries ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def summarised_db(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    """One LoCoMo conversation imported and compressed (offline summarizer) in a SQLite file."""
    from context_journal.formats import import_into, read_transcript
    from context_journal.strategies import AutobiographicalConfig, AutobiographicalStrategy

    db = tmp_path_factory.mktemp("summaries") / "s.db"
    store = SQLiteStore(db)
    import_into(store, read_transcript(data_dir / "locomo" / "locomo-dev7.json", format="locomo"))
    strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(2000))
    with ContextManager.open(store=store, namespace=CONV, isolate=True, strategy=strategy) as cm:
        assert cm.drain().summaries > 0
    store.close()
    return db


def test_search_summaries_json_and_table(summarised_db: Path) -> None:
    data = search_json(summarised_db, "-n", CONV, "pottery class", "--summaries", "--limit", "3")
    assert (data["query"], data["namespace"], data["branch"], data["summaries"]) == (
        "pottery class",
        CONV,
        "main",
        True,
    )
    assert 1 <= len(data["hits"]) <= 3
    top = data["hits"][0]
    assert set(top) == {
        "summary_id",
        "level",
        "first_message_id",
        "last_message_id",
        "first_sequence",
        "last_sequence",
        "message_count",
        "start",
        "end",
        "score",
        "snippet",
        "sequence",
        "parent_id",
    }
    assert top["summary_id"].startswith(f"sum{top['level']}_") and "**pottery**" in top["snippet"]
    assert top["start"].startswith("2023-") and top["start"] <= top["end"]
    scores = [h["score"] for h in data["hits"]]
    assert scores == sorted(scores, reverse=True)

    res = runner.invoke(app, ["search", "--store", str(summarised_db), "-n", CONV, "pottery", "--summaries"])
    assert res.exit_code == 0, res.output
    assert top["summary_id"] in res.stdout and "summary hit(s) for 'pottery'" in res.stdout
    none = runner.invoke(app, ["search", "--store", str(summarised_db), "-n", CONV, "zebracode", "--summaries"])
    assert none.exit_code == 0 and "no summary matches 'zebracode'" in none.stdout
    # a namespace with no summaries finds none (the shared default namespace has no messages of its own)
    assert search_json(summarised_db, "-n", "locomo:conv-30", "pottery", "--summaries")["hits"] == []


def test_search_summaries_refuses_message_filters(summarised_db: Path) -> None:
    for extra in (["-p", "Caroline"], ["--since", "2023-01-01"], ["--until", "2024-01-01"]):
        res = runner.invoke(app, ["search", "--store", str(summarised_db), "-n", CONV, "x", "--summaries", *extra])
        assert res.exit_code != 0 and "--summaries" in res.output, (extra, res.output)
    res = runner.invoke(app, ["search", "--store", str(summarised_db), "-n", CONV, "  ", "--summaries"])
    assert res.exit_code != 0 and "non-empty" in res.output


def test_search_as_of_past_the_newest_sequence_is_refused(tmp_path: Path) -> None:
    """A review found (10a): `search --as-of 999999` searched the branch as it stands now, silently; an
    --as-of past the newest sequence is one line naming it (exit 1), for messages and summaries alike."""
    db = tmp_path / "s.db"
    with ContextManager.open(db) as cm:
        cm.add_message("user", "the pottery class starts on Monday")
        cm.add_message("assistant", "noted: pottery on Monday")
        head = cm.store.head_seq()
    for extra in ([], ["--summaries"]):
        res = runner.invoke(app, ["search", "--store", str(db), "pottery", "--as-of", "999999", *extra])
        assert res.exit_code == 1, res.output
        lines = [line for line in res.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "999999" in lines[0] and f"newest sequence of this store ({head})" in lines[0]
        res = runner.invoke(app, ["search", "--store", str(db), "pottery", "--as-of", "999999", "--json", *extra])
        assert res.exit_code == 1 and json.loads(res.stdout)["ok"] is False
    # the newest sequence itself is a valid --as-of
    assert len(search_json(db, "pottery", "--as-of", str(head))["hits"]) == 2
