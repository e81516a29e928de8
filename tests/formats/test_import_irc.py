"""The IRC importer on ``../shared/data/ubuntu-irc-disentanglement``.

Lines per file (1,250 dev / 1,500 test), links (7,794, 1,384 self-links) and system lines in the
annotated parts (575) are the data README's figures; per-file link counts are recomputed from the
annotation files.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from context_journal.errors import ImportFormatError
from context_journal.formats import ImportResult, read_irc, read_transcript
from tests.imported import content_of, metadata_of, timestamp_of

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "ubuntu-irc-disentanglement"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"data set not found at {DATA}")
MESSAGE = re.compile(r"^\[(\d\d:\d\d)\] <([^>]+)> (.*)$")  # the SPEC's regular expression


@pytest.fixture(scope="module")
def result() -> ImportResult:
    return read_transcript(DATA)


def test_one_message_per_line(result: ImportResult) -> None:
    files = sorted(DATA.rglob("*.raw.txt"))
    assert result.format == "irc" and len(result.conversations) == len(files) == 20
    for file, conv in zip(files, result.conversations, strict=True):
        stem = file.name.removesuffix(".raw.txt")
        lines = file.read_text(encoding="utf-8").split("\n")[:-1]  # not splitlines(): logs hold \x1c etc.
        assert len(conv.messages) == len(lines) == (1250 if file.parent.name == "dev" else 1500)
        assert conv.id == f"irc:#ubuntu:{stem}" and not conv.primary
        assert [m.id for m in conv.messages] == [f"{stem}:{i}" for i in range(len(lines))]
        for line, m in zip(lines, conv.messages, strict=True):
            match = MESSAGE.match(line)
            if match:
                assert m.participant == match.group(2) and m.content == [{"type": "text", "text": match.group(3)}]
            else:
                assert m.participant == "irc-server" and m.content == [{"type": "text", "text": line}]
                assert metadata_of(m)["irc_event"]
    system = sum(1 for c in result.conversations for m in c.messages[1000:] if m.participant == "irc-server")
    assert system == 575


def test_annotation_links(result: ImportResult) -> None:
    total = self_links = 0
    for conv in result.conversations:
        stem = conv.id.rsplit(":", 1)[1]
        file = next(DATA.rglob(f"{stem}.annotation.txt"))
        links = [tuple(map(int, line.split()[:2])) for line in file.read_text().splitlines() if line.strip()]
        dev = file.parent.name == "dev"
        assert (254 if dev else 506) <= len(links) <= (268 if dev else 532)
        assert conv.metadata["links"] == len(links)
        by_id = {m.id: m for m in conv.messages}
        kept = 0
        for parent, child in links:
            meta = metadata_of(conv.messages[child])
            if parent == child:
                assert meta["starts_thread"] is True
            else:
                assert f"{stem}:{parent}" in meta["reply_to"] and f"{stem}:{parent}" in by_id
            kept += 1
        metas = [metadata_of(m) for m in conv.messages]
        assert kept == sum(len(md.get("reply_to", [])) + md.get("starts_thread", 0) for md in metas)
        assert all("thread" in md for md in metas[1000:] if "reply_to" in md or md.get("starts_thread"))
        total += len(links)
        self_links += sum(1 for p, c in links if p == c)
    assert (total, self_links) == (7794, 1384)


def test_timestamps_addressing_and_aliases(result: ImportResult) -> None:
    conv = result.conversation("irc:#ubuntu:2016-06-08_07")
    msgs = conv.messages
    assert msgs[1000].timestamp == datetime(2016, 6, 8, 7, 0, tzinfo=UTC)
    assert msgs[0].timestamp == datetime(2016, 6, 7, 21, 16, tzinfo=UTC)  # the context runs back over midnight
    for c in result.conversations:
        stamps = [timestamp_of(m) for m in c.messages]
        assert stamps == sorted(stamps), c.id
        day = datetime.strptime(c.id.rsplit(":", 1)[1][:10], "%Y-%m-%d").date()
        assert stamps[1000].date() == day
    # The README's example lines.
    ben = next(m for m in msgs if m.participant == "Ben64" and content_of(m)[0]["text"].startswith("epifanio__: ok"))
    assert metadata_of(ben)["addressed_to"] == ["epifanio__"] and metadata_of(ben)["irc_time"] == "07:01"
    reply = next(m for m in msgs if m.participant == "epifanio__" and content_of(m)[0]["text"].startswith("Ben64 OK"))
    assert metadata_of(reply)["addressed_to"] == ["Ben64"]
    assert any(metadata_of(m).get("bot") for m in msgs if m.participant == "ubottu")
    renames = [m for c in result.conversations for m in c.messages if metadata_of(m).get("irc_event") == "nick_change"]
    assert renames
    first = metadata_of(renames[0])
    aliases = next(c for c in result.conversations if renames[0] in c.messages).metadata["aliases"]
    assert aliases[first["new_nick"]] in (first["old_nick"], aliases.get(first["old_nick"]))


def test_single_file_and_malformed_annotation(tmp_path: Path) -> None:
    raw = DATA / "dev" / "2004-11-15_03.raw.txt"
    one = read_irc(raw)
    assert len(one.conversations) == 1 and one.conversations[0].primary
    shutil.copy(raw, tmp_path / raw.name)
    annotation = tmp_path / "2004-11-15_03.annotation.txt"
    annotation.write_text("1000 1000 -\n1000 1001 -\nnot a link\n1000 99999 -\n", encoding="utf-8")
    # A review found (damaged input): a malformed annotation line is left out and named, the rest is read.
    result = read_transcript(tmp_path / raw.name)
    assert result.conversations[0].metadata["links"] == 2
    reasons = [s.reason for s in result.skipped]
    assert any(r.startswith(f"{annotation.name} line 3: expected") for r in reasons), reasons
    assert any(r.startswith(f"{annotation.name} line 4: line index out of range") for r in reasons), reasons
    annotation.write_text("not a link\n", encoding="utf-8")  # no line is a link: not an annotation file
    with pytest.raises(ImportFormatError) as info:
        read_transcript(tmp_path / raw.name)
    assert info.value.source == str(annotation) and info.value.location == "line 1"
    annotation.write_text("1000 99999 -\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match="out of range"):
        read_irc(tmp_path)


def test_a_folder_that_vanishes_while_a_directory_is_walked_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review found: ``context-journal import --store DB /tmp`` ended in a traceback when a folder
    under it vanished during the walk (another process cleaning its temporary files): pathlib's rglob
    lets FileNotFoundError through. The walk passes such folders over and imports what is left."""
    import os

    from typer.testing import CliRunner

    from context_journal.cli import app

    (tmp_path / "logs" / "a").mkdir(parents=True)
    (tmp_path / "logs" / "a" / "2024-01-01.raw.txt").write_text("[10:00] <ann> hello there\n[10:01] <bob> hi ann\n")
    gone = tmp_path / "logs" / "gone"
    gone.mkdir()
    real = os.scandir

    def scandir(path: str | os.PathLike[str] = ".") -> Iterator[os.DirEntry[str]]:
        if Path(os.fspath(path)) == gone:
            raise FileNotFoundError(2, "No such file or directory", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = read_transcript(tmp_path / "logs")
    assert result.format == "irc" and [len(c.messages) for c in result.conversations] == [2]
    res = CliRunner().invoke(app, ["import", "--store", str(tmp_path / "x.db"), str(tmp_path / "logs")])
    assert res.exit_code == 0 and res.exception is None, res.output
