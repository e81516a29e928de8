"""A CLI error is one line on stderr however long, when stderr is not a terminal (a review found rich
wrapped it at 80 columns, splitting paths and names across lines)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from context_journal.cli import app


def test_a_long_error_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / ("a-very-long-directory-name-" * 6) / "store.db"
    res = CliRunner().invoke(app, ["show", "--store", str(missing)])
    assert res.exit_code == 1
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and str(missing) in lines[0], res.stderr


def test_provider_formats_export_stored_images(tmp_path: Path) -> None:
    """A review found: ``compile --format anthropic|openai`` on a store holding an image failed with "the
    store is closed" (the export read the image's bytes after the handle was closed)."""
    import base64
    import json

    from context_journal import ContextManager

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(200)).decode()
    db = tmp_path / "m.db"
    with ContextManager.open(db) as cm:
        image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}
        cm.add_message("user", [{"type": "text", "text": "see"}, image])
        cm.add_message("assistant", "a cat")
    for fmt, key in (("anthropic", "source"), ("openai", "image_url")):
        res = CliRunner().invoke(app, ["compile", "--store", str(db), "--budget", "5000", "--format", fmt])
        assert res.exit_code == 0, res.output
        first = json.loads(res.stdout)["messages"][0]["content"][1]
        assert key in first and png[:40] in json.dumps(first)


def test_mcp_serve_in_a_missing_folder_speaks_the_command_line(tmp_path: Path) -> None:
    """A review found (9): `mcp serve --store /no/such/dir/x.db` advised "pass create_dirs=True", an argument
    of ContextManager.open; the command line says to create the folder, and creates nothing."""
    pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2.x (extra 'mcp') is not installed")
    missing = tmp_path / "no such" / "dir" / "x.db"
    res = CliRunner().invoke(app, ["mcp", "serve", "--store", str(missing)])
    assert res.exit_code == 1, res.output
    text = " ".join(res.stderr.split())
    assert "create_dirs" not in text and "does not exist" in text, text
    assert f"mkdir -p '{missing.parent}'" in text
    assert not (tmp_path / "no such").exists()


def test_import_into_a_missing_folder_and_an_unknown_format_speak_the_command_line(tmp_path: Path) -> None:
    """A second review pass found: ``import --store /no/such/dir/x.db`` created the folders without a
    word, unlike every other command, and a transcript whose format cannot be detected advised
    ``format=`` (Python). Both now speak in the command line's terms."""
    transcript = tmp_path / "t.json"
    transcript.write_text('{"not": "a transcript of any known shape"}')
    missing = tmp_path / "no" / "such" / "x.db"
    res = CliRunner().invoke(app, ["import", str(transcript), "--store", str(missing)])
    assert res.exit_code == 1 and "does not exist" in res.stderr and "mkdir -p" in res.stderr
    assert not (tmp_path / "no").exists()
    res = CliRunner().invoke(app, ["import", str(transcript), "--store", str(tmp_path / "ok.db")])
    assert res.exit_code == 1 and "--format" in res.stderr, res.stderr
