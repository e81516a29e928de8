"""The LoCoMo importer and QA fixtures on ``../shared/data/locomo/locomo-dev7.json``.

Turn and QA counts are recomputed from the raw JSON; conv-26's 419 turns come from the data README.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from context_journal.errors import ImportFormatError
from context_journal.formats import ImportResult, load_locomo_qa, read_locomo, read_transcript
from tests.imported import content_of, metadata_of, timestamp_of

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "locomo" / "locomo-dev7.json"
pytestmark = pytest.mark.skipif(not DATA.is_file(), reason=f"data set not found at {DATA}")


@pytest.fixture(scope="module")
def raw() -> list[dict[str, Any]]:
    samples: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))
    return samples


@pytest.fixture(scope="module")
def result() -> ImportResult:
    return read_transcript(DATA)


def _sessions(conv: dict[str, Any]) -> list[list[dict[str, Any]]]:
    keys = sorted((int(k.split("_")[1]), k) for k in conv if re.fullmatch(r"session_\d+", k))
    return [conv[k] for _, k in keys]


def test_one_conversation_per_sample_with_every_turn(raw: list[dict[str, Any]], result: ImportResult) -> None:
    assert result.format == "locomo"
    assert [c.id for c in result.conversations] == [f"locomo:{s['sample_id']}" for s in raw]
    assert not any(c.primary for c in result.conversations)
    for sample, conv in zip(raw, result.conversations, strict=True):
        turns = [t for session in _sessions(sample["conversation"]) for t in session]
        assert len(conv.messages) == len(turns)
        assert [m.id for m in conv.messages] == [t["dia_id"] for t in turns]
        assert [m.participant for m in conv.messages] == [t["speaker"] for t in turns]
        speakers = {sample["conversation"]["speaker_a"], sample["conversation"]["speaker_b"]}
        assert set(conv.metadata["speakers"]) == speakers and conv.metadata["assistant"] is None
    assert len(result.conversation("locomo:conv-26").messages) == 419
    assert result.skipped == []


def test_session_markers_and_timestamps(raw: list[dict[str, Any]], result: ImportResult) -> None:
    conv = result.conversation("locomo:conv-26")
    sample = raw[0]["conversation"]
    markers = conv.metadata["markers"]
    assert len(markers) == len(_sessions(sample)) == 19
    assert markers[0] == {
        "kind": "session",
        "session": 1,
        "date_time": "1:56 pm on 8 May, 2023",
        "start": "2023-05-08T13:56:00",
        "first_message_id": "D1:1",
        "message_count": len(sample["session_1"]),
        "summary": raw[0]["session_summary"]["session_1_summary"],
    }
    assert sum(m["message_count"] for m in markers) == len(conv.messages)
    first = conv.messages[0]
    assert first.timestamp == datetime(2023, 5, 8, 13, 56)
    assert first.metadata == {
        "session": 1,
        "turn": 0,
        "session_date_time": "1:56 pm on 8 May, 2023",
        "session_start": True,
    }
    # Sessions are in numeric order (session_10 after session_9) and turns keep their order.
    assert [m["session"] for m in markers] == sorted(m["session"] for m in markers)
    for c in result.conversations:
        stamps = [timestamp_of(m) for m in c.messages]  # each a datetime
        assert stamps == sorted(stamps)


def test_images_become_a_second_text_block(raw: list[dict[str, Any]], result: ImportResult) -> None:
    for sample, conv in zip(raw, result.conversations, strict=True):
        turns = [t for s in _sessions(sample["conversation"]) for t in s]
        for turn, m in zip(turns, conv.messages, strict=True):
            assert isinstance(m.content, list)
            assert m.content[0] == {"type": "text", "text": turn["text"]}
            if "blip_caption" in turn:
                assert m.content[1] == {"type": "text", "text": f"[shares an image: {turn['blip_caption']}]"}
                assert metadata_of(m).get("img_url") == turn.get("img_url")  # some captions come without a URL
            else:
                assert len(content_of(m)) == 1 and "img_url" not in metadata_of(m)


def test_qa_fixtures(raw: list[dict[str, Any]], result: ImportResult) -> None:
    qa = load_locomo_qa(DATA)
    assert len(qa) == sum(len(s["qa"]) for s in raw)
    assert Counter(q.category for q in qa) == Counter(item["category"] for s in raw for item in s["qa"])
    assert qa[0].question_id == "locomo_0_qa0" and qa[0].conversation_id == "locomo:conv-26"
    ids = {c.id: {m.id for m in c.messages} for c in result.conversations}
    for q in qa:
        assert set(q.evidence) <= ids[q.conversation_id]  # every normalised id resolves to a message
        assert isinstance(q.answer, str)
        assert q.should_abstain == (q.category == 5)
    # The README's malformed references are split or dropped, never guessed.
    dropped = Counter(tok for q in qa for tok in q.dropped_evidence)
    assert dropped["D"] == 1 and dropped["D:11:26"] == 1
    by_id = {q.question_id: q for q in qa}
    assert by_id["locomo_3_qa88"].evidence == ("D1:18", "D1:20")
    adversarial = [q for q in qa if q.category == 5]
    raw_items = {f"locomo_{i}_qa{j}": item for i, s in enumerate(raw) for j, item in enumerate(s["qa"])}
    assert all(q.answer == str(raw_items[q.question_id]["adversarial_answer"]) for q in adversarial)
    assert sum(1 for q in qa if not q.evidence) == sum(1 for s in raw for item in s["qa"] if not item["evidence"])


def test_malformed_input(tmp_path: Path) -> None:
    bad = tmp_path / "locomo.json"
    bad.write_text('[{"sample_id": "conv-1", "conversation": {"speaker_a": "A", "speaker_b": "B",', encoding="utf-8")
    with pytest.raises(ImportFormatError) as info:
        read_locomo(bad)
    assert info.value.source == str(bad) and str(info.value.location).startswith("line ")
    sample = {"sample_id": "conv-1", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [{"x": 1}]}}
    bad.write_text(json.dumps([sample]), encoding="utf-8")
    with pytest.raises(ImportFormatError, match="dia_id") as info:
        read_locomo(bad)
    assert info.value.location == "[0].conversation.session_1[0]"
    bad.write_text(json.dumps([{"sample_id": "conv-1"}]), encoding="utf-8")
    with pytest.raises(ImportFormatError, match="conversation"):
        read_locomo(bad)
