"""Bad input on the command line ends in one clear line (or a usage error), never a
traceback, and writes nothing: a missing or binary ``--body-file``, a ``--body`` nested past what JSON
parsing can follow, an import of JSON nested that deep, and a project slug with a trailing newline."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from context_journal.cli import app

runner = CliRunner()


def _append(db: Path, *extra: str, project: str = "p") -> tuple[int, str]:
    args = ["journal", "append", "--store", str(db), "--project", project, "--kind", "step", "--author", "w"]
    res = runner.invoke(app, [*args, "--key", "k", *extra])
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit), res.exception
    return res.exit_code, _plain(res.output)


def _plain(output: str) -> str:
    """The output's words, without the usage box's borders (the console wraps and frames long lines)."""
    return " ".join(output.translate({ord(c): " " for c in "│╭╮╰╯─"}).split())


def test_journal_body_faults_are_one_message(tmp_path: Path) -> None:
    db = tmp_path / "j.db"
    binary = tmp_path / "bin.dat"
    binary.write_bytes(b"\x00\xff\xfe\x80")
    code, said = _append(db, "--body-file", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in said and "No such file" in said
    code, said = _append(db, "--body-file", str(binary))
    assert code == 2 and "is not UTF-8 text" in said
    code, said = _append(db, "--body", "[" * 100_000 + "]" * 100_000)
    assert code == 2 and "nested too deeply" in said
    code, said = _append(db, "--body", "{}", project="p\n")
    assert code != 0 and "Traceback" not in said


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_import_of_json_nested_too_deep_is_one_message(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"deep{suffix}"
    path.write_text('{"messages": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    res = runner.invoke(app, ["import", str(path), "--store", str(tmp_path / "i.db")])
    said = _plain(res.output)
    assert res.exit_code == 1 and "nested too deeply" in said, said
    assert not isinstance(res.exception, RecursionError)


def test_unknown_branch_names_list_the_live_ones(tmp_path: Path) -> None:
    """A review found: `branch switch nosuch` and `branch delete nosuch` pointed at a Python method; they
    list the branches that exist, in one line, exit 1."""
    from context_journal import ContextManager

    db = tmp_path / "b.db"
    cm = ContextManager.open(db)
    cm.add_message("user", "hi")
    cm.fork("side")
    cm.close()
    for verb in ("switch", "delete"):
        res = runner.invoke(app, ["branch", verb, "nosuch", "--store", str(db)])
        said = _plain(res.output)
        assert res.exit_code == 1 and "no live branch named 'nosuch'" in said and "main, side" in said, said
