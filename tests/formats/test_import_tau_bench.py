"""The tau-bench importer on ``../shared/data/tau-bench-airline/gpt-4o-airline-dev150.json``.

Trajectory and role counts are recomputed from the raw file.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from context_journal.errors import ImportFormatError
from context_journal.formats import ImportResult, read_tau_bench, read_transcript
from context_journal.formats.base import pairing_problems
from tests.imported import content_of, metadata_of

DATA = (
    Path(__file__).resolve().parents[2].parent / "shared" / "data" / "tau-bench-airline" / "gpt-4o-airline-dev150.json"
)
pytestmark = pytest.mark.skipif(not DATA.is_file(), reason=f"data set not found at {DATA}")


@pytest.fixture(scope="module")
def raw() -> list[dict[str, Any]]:
    trajectories: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))
    return trajectories


@pytest.fixture(scope="module")
def result() -> ImportResult:
    return read_transcript(DATA)


def test_one_conversation_per_trajectory(raw: list[dict[str, Any]], result: ImportResult) -> None:
    assert result.format == "tau-bench" and len(raw) == 150
    assert [c.id for c in result.conversations] == [f"tau-airline:{t['task_id']}:{t['trial']}" for t in raw]
    roles = Counter(m["role"] for t in raw for m in t["traj"])
    assert Counter(metadata_of(m)["role"] for c in result.conversations for m in c.messages) == roles
    assert result.message_count == sum(len(t["traj"]) for t in raw)
    assert result.skipped == []
    calls = [c for t in raw for m in t["traj"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    uses = [b for c in result.conversations for m in c.messages for b in content_of(m) if b["type"] == "tool_use"]
    assert [u["id"] for u in uses] == [c["id"] for c in calls]
    assert [u["input"] for u in uses] == [json.loads(c["function"]["arguments"]) for c in calls]


def test_participants_ids_and_metadata(raw: list[dict[str, Any]], result: ImportResult) -> None:
    for traj, conv in zip(raw, result.conversations, strict=True):
        customer = f"customer:{traj['info']['task']['user_id']}"
        names = {"system": "policy", "user": customer, "assistant": "agent:gpt-4o", "tool": "tools:airline"}
        assert [m.participant for m in conv.messages] == [names[m["role"]] for m in traj["traj"]]
        assert [m.id for m in conv.messages] == [f"{conv.id}:{i}" for i in range(len(traj["traj"]))]
        assert conv.metadata["assistant"] == "agent:gpt-4o" and conv.metadata["user"] == customer
        assert conv.metadata["system_participants"] == ["policy"]
        assert conv.metadata["reward"] == traj["reward"]
        assert conv.metadata["instruction"] == traj["info"]["task"]["instruction"]
        assert conv.metadata["reward_info"] == traj["info"]["reward_info"]
        assert metadata_of(conv.messages[0])["pinned"] is True
        assert pairing_problems(conv.messages) == {}
        for m, src in zip(conv.messages, traj["traj"], strict=True):
            if src["role"] == "tool":
                assert m.content == [
                    {"type": "tool_result", "tool_use_id": src["tool_call_id"], "content": src["content"]}
                ]
                assert metadata_of(m)["tool_names"] == [src["name"]]
            if src["role"] == "assistant" and src.get("content"):
                assert m.content[0] == {"type": "text", "text": src["content"]}
    rewarded = sum(1 for c in result.conversations if c.metadata["reward"] == 1.0)
    assert rewarded == sum(1 for t in raw if t["reward"] == 1.0)


def test_unparsable_arguments_are_kept_raw(tmp_path: Path) -> None:
    traj = [
        {"role": "system", "content": "policy"},
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "think", "arguments": "{not json"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "name": "think", "content": ""},
    ]
    path = tmp_path / "gpt-4o-retail.json"
    path.write_text(json.dumps([{"task_id": 7, "trial": 2, "reward": 0.0, "info": {}, "traj": traj}]), encoding="utf-8")
    (conv,) = read_tau_bench(path).conversations
    assert conv.id == "tau-retail:7:2" and conv.messages[1].participant == "customer:unknown"
    use = conv.messages[2].content[0]
    assert use == {"type": "tool_use", "id": "call_1", "name": "think", "input": {"_raw_arguments": "{not json"}}
    assert metadata_of(conv.messages[2])["unparsed_arguments"] == ["call_1"]


def test_malformed_input(tmp_path: Path) -> None:
    path = tmp_path / "tau.json"
    path.write_text(json.dumps([{"task_id": 0, "trial": 0, "traj": "oops"}]), encoding="utf-8")
    with pytest.raises(ImportFormatError, match="traj") as info:
        read_tau_bench(path)
    assert info.value.location == "[0]" and info.value.source == str(path)
    path.write_text(json.dumps([{"task_id": 0, "traj": [{"role": "tool", "content": "x"}]}]), encoding="utf-8")
    with pytest.raises(ImportFormatError, match="tool_call_id") as info:
        read_tau_bench(path)
    assert info.value.location == "[0].traj[0]"
