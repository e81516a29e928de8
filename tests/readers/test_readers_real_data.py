"""Reader-scoped views on real data: IRC lines addressed by their gold reply links, and the byte check (no reader,
no audience: compiles and summarizer requests identical to a build without reader views)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from context_journal.compile import RenderCache
from context_journal.formats import read_transcript
from context_journal.manager import ContextManager
from context_journal.messages import MessageInput
from context_journal.strategies import AutobiographicalStrategy
from context_journal.testing import ScriptedProvider
from context_journal.views import StoreView
from tests.imported import content_of

CFG: dict[str, Any] = {
    "head_window_tokens": 400,
    "recent_window_tokens": 800,
    "target_chunk_tokens": 600,
    "merge_threshold": 3,
}


def _irc(data_dir: Path, start: int = 0, stop: int | None = 400) -> list[MessageInput]:
    path = sorted((data_dir / "ubuntu-irc-disentanglement" / "dev").glob("*.raw.txt"))[0]
    return read_transcript(path, format="irc").conversations[0].messages[start:stop]


def test_irc_each_participant_compiles_only_their_lines(data_dir: Path) -> None:
    speaker = {m.id: m.participant for m in _irc(data_dir, 0, None)}
    lines = _irc(data_dir, 900, None)  # the gold links annotate the log's end
    addressed: list[MessageInput] = []
    audience_of: dict[str, set[str] | None] = {}
    for m in lines:
        meta = dict(m.metadata or {})
        names = {speaker[p] for p in meta.get("reply_to", []) if p in speaker}
        content = [dict(b) for b in content_of(m)]
        if names:
            names.add(m.participant)
            content[0]["audience"] = sorted(names)
            audience_of[str(m.id)] = names
        else:
            audience_of[str(m.id)] = None
        addressed.append(MessageInput(m.participant, content, meta, m.id, m.timestamp))
    host = ContextManager.open("memory:")
    host.add_messages(addressed)
    assert host.messages.audience_count() > 20
    counts: dict[str, int] = {}
    for m in lines:
        counts[m.participant] = counts.get(m.participant, 0) + 1
    people = sorted((p for p in counts if p != "irc-server"), key=lambda p: -counts[p])[:5]
    for person in people:
        cm = ContextManager.open(store=host.store, namespace=f"irc-{person}", view_reader=person)
        result = cm.compile(1_000_000)
        got = {s.id for srcs in result.provenance for s in srcs if getattr(s, "kind", "") == "message"}
        want = {i for i, aud in audience_of.items() if aud is None or person in aud}
        assert got == want, (person, len(got), len(want))
        assert '"audience"' not in json.dumps(result.messages, default=str)
    nobody = ContextManager.open(store=host.store, namespace="irc-nobody").compile(1_000_000)
    got = {s.id for srcs in nobody.provenance for s in srcs if getattr(s, "kind", "") == "message"}
    assert got == {i for i, aud in audience_of.items() if aud is None}


def _run(lines: list[MessageInput], monkeypatch: pytest.MonkeyPatch | None) -> tuple[list[str], list[str]]:
    if monkeypatch is not None:  # the feature switched off: strategies and compression read the plain store

        def plain(self: ContextManager, check: bool = True) -> Any:
            if self._render_cache is None:
                self._render_cache = RenderCache()
            return StoreView(self._messages)

        monkeypatch.setattr(ContextManager, "_reader_view", plain)
    provider = ScriptedProvider(default=lambda r: f"summary of {r.metadata.get('work')}")
    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(**CFG), summarizer=provider)
    compiles: list[str] = []
    for k in range(0, len(lines), 50):
        cm.add_messages(lines[k : k + 50])
        cm.drain(wait=False, max_units=20)
        r = cm.compile(3_000)
        compiles.append(json.dumps([r.messages, r.system, r.estimated_tokens], default=str, sort_keys=True))
    if monkeypatch is not None:
        monkeypatch.undo()
    return compiles, [r.model_dump_json() for r in provider.requests]


def test_byte_identical_without_readers(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _irc(data_dir, 0, 600)
    on_compiles, on_requests = _run(lines, None)
    off_compiles, off_requests = _run(lines, monkeypatch)
    assert on_requests, "the run should have asked the summarizer"
    assert on_compiles == off_compiles
    assert on_requests == off_requests
