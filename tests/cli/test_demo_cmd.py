"""CLI: ``demo``, ``replay`` and ``summaries`` — the main job offline, on the built-in conversation and on real
transcripts, with consistent ``--json`` figures and clean errors."""

from __future__ import annotations

import json
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from context_journal.cli.demo_cmd import run_job
from context_journal.demo_data import demo_conversation
from context_journal.errors import ContextJournalError
from context_journal.formats import read_transcript
from context_journal.llm import LLMRequest, LLMResponse, ProviderAuthError
from context_journal.validate import validate_messages

runner = CliRunner()

REPLAY_KEYS = {"messages", "summaries", "compile_tokens", "budget", "summarizer_input_tokens", "summarizer_calls"}


def _json(args: list[str]) -> dict[str, Any]:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def _check_figures(data: dict[str, Any], budget: int) -> None:
    """The figures agree with each other: within budget, parts add up, every message covered once."""
    assert set(data) >= REPLAY_KEYS
    assert data["budget"] == budget
    assert 0 < data["compile_tokens"] <= budget
    assert sum(p["tokens"] for p in data["parts"]) == data["compile_tokens"]
    assert sum(data["tokens_by_part"].values()) == data["compile_tokens"]
    assert data["coverage"] == {"messages": data["messages"], "covered": data["messages"]}
    # The parts tile the conversation in order: each starts where the previous one ended.
    spans = [(p["first_index"], p["last_index"]) for p in data["parts"] if p["first_index"] is not None]
    assert spans[0][0] == 0 and spans[-1][1] == data["messages"] - 1
    assert all(b[0] == a[1] + 1 for a, b in pairwise(spans)), spans
    assert data["pending"] == {"ready": 0, "waiting": 0, "stuck": 0}


# ---- the built-in conversation ----------------------------------------------------------------------------


def test_demo_conversation_is_long_deterministic_and_valid() -> None:
    messages = demo_conversation()
    assert messages == demo_conversation()
    assert len(messages) >= 300
    blocks = [b for m in messages for b in m["content"]]
    tools = Counter(b["name"] for b in blocks if b["type"] == "tool_use")
    assert {"Read", "Bash", "Edit", "Grep", "Write", "Glob"} <= set(tools)
    assert sum(1 for b in blocks if b.get("is_error")) >= 8
    assert len({m["id"] for m in messages}) == len(messages)
    assert [m["timestamp"] for m in messages] == sorted(m["timestamp"] for m in messages)
    with ContextManager.open("memory:") as cm:
        cm.add_messages(messages)
        result = cm.compile(1_000_000)
    assert len(result.messages) == len(messages)
    assert result.repairs == ()
    assert validate_messages(result.as_messages()) == []


# ---- demo -------------------------------------------------------------------------------------------------


def test_demo_json_figures_are_consistent_and_a_rerun_reuses_the_store(tmp_path: Path) -> None:
    store = str(tmp_path / "demo.db")
    data = _json(["demo", "--store", store, "--budget", "10000", "--json"])
    _check_figures(data, 10_000)
    assert data["messages"] == data["messages_written"] == len(demo_conversation())
    assert data["strategy"] == "autobiographical"
    assert data["summarizer"]["provider"] == "offline"
    assert data["summaries"]["L1"] > 0 and data["summaries"].get("L2", 0) > 0
    assert data["summarizer_calls"] == sum(data["summaries"].values())
    assert data["summarizer_input_tokens"] > data["conversation_tokens"]
    kinds = [p["kind"] for p in data["parts"]]
    assert kinds[0] == "head" and kinds[-1] == "recent" and "summary" in kinds
    levels = [p["level"] for p in data["parts"] if p["kind"] == "summary"]
    assert levels == sorted(levels, reverse=True)  # coarse to fine, going forward in time
    for p in data["parts"]:
        if p["kind"] == "summary":
            assert p["summary_ids"] and all(s.startswith(f"sum{p['level']}_") for s in p["summary_ids"])

    again = _json(["demo", "--store", store, "--budget", "10000", "--json"])
    assert again["messages_written"] == 0 and again["summarizer_calls"] == 0
    assert again["summaries"] == data["summaries"] and again["compile_tokens"] == data["compile_tokens"]


def test_demo_prints_the_shape(tmp_path: Path) -> None:
    res = runner.invoke(app, ["demo", "--budget", "6000"])
    assert res.exit_code == 0, res.output
    for text in ("head (raw)", "recent (raw)", "summar", "6,000 tokens", "sum", "demo-0001", "343 of 343"):
        assert text in res.stdout, text
    # Each row of the parts table names its part once (the newest turn, sent after the working-state
    # pair, was a second "recent (raw)" row).
    labels = [line.split("│")[1].strip() for line in res.stdout.splitlines() if line.startswith("│")]
    named = [label for label in labels if label]
    assert len(named) == len(set(named)), named
    assert named[-1] == "total" and "newest (raw)" in named


# ---- replay on real data ----------------------------------------------------------------------------------

SESSION = "claude-code-sessions/258c7280-ae70-4798-800f-63464d01a85d.jsonl"
TAU = "tau-bench-airline/gpt-4o-airline-dev150.json"
LOCOMO = "locomo/locomo-dev7.json"


@pytest.mark.parametrize("budget", [4_000, 16_000])
@pytest.mark.parametrize(
    "relpath,extra,long",
    [(SESSION, [], True), (TAU, ["--conversation", "tau-airline:7:0"], False), (LOCOMO, ["-c", "conv-26"], True)],
    ids=["claude-code", "tau-bench", "locomo"],
)
def test_replay_real_data(data_dir: Path, relpath: str, extra: list[str], long: bool, budget: int) -> None:
    data = _json(["replay", str(data_dir / relpath), "--budget", str(budget), "--json", *extra])
    _check_figures(data, budget)
    assert data["conversations_in_file"] >= 1
    if long:
        assert data["summaries"]["L1"] > 0 and data["summarizer_calls"] > 0
        assert data["tokens_by_part"].get("summaries", 0) > 0
        assert data["compile_tokens"] < data["conversation_tokens"]


def test_replay_says_which_conversation_and_the_strategies(data_dir: Path) -> None:
    locomo = str(data_dir / LOCOMO)
    data = _json(["replay", locomo, "--budget", "4000", "--json"])
    assert data["conversation"] == "locomo:conv-26" and data["conversations_in_file"] == 7
    assert any("7 conversations" in n and "--conversation" in n for n in data["notes"])
    for strategy in ("windowed", "passthrough", "knowledge"):
        other = _json(["replay", locomo, "--budget", "4000", "--json", "--strategy", strategy])
        assert other["strategy"] == strategy and other["compile_tokens"] <= 4000
        if strategy != "knowledge":
            assert other["summarizer_calls"] == 0 and other["summaries"] == {}
            assert [p["kind"] for p in other["parts"]] == ["raw"]


def test_replay_on_a_branch(tmp_path: Path, data_dir: Path) -> None:
    store = str(tmp_path / "tau.db")
    tau = str(data_dir / TAU)
    main = _json(["replay", tau, "--budget", "4000", "--store", store, "--json", "-c", "tau-airline:3:0"])
    assert main["branch"] == "main"
    child = _json(
        ["replay", tau, "--budget", "4000", "--store", store, "--json", "-c", "tau-airline:3:0", "--branch", "b2"]
    )
    assert child["branch"] == "b2" and any("created branch 'b2'" in n for n in child["notes"])
    assert child["messages_written"] == 0  # inherited from main at the fork
    assert child["summarizer_calls"] == 0 and child["summaries"] == main["summaries"]
    assert child["compile_tokens"] == main["compile_tokens"] and not child["notes"][1:]
    listed = _json(["summaries", "--store", store, "--branch", "b2", "--json"])
    assert listed["branch"] == "b2" and listed["count"] == sum(main["summaries"].values())
    refused = runner.invoke(app, ["replay", tau, "--budget", "4000", "--store", store, "-c", "tau-airline:4:0"])
    assert refused.exit_code == 1 and "would merge two conversations" in refused.output
    other = _json(
        ["replay", tau, "--budget", "4000", "--store", store, "--json", "-c", "tau-airline:4:0", "-n", "second"]
    )
    assert other["messages"] == other["messages_written"]  # its own slot: nothing of the first conversation
    listed = _json(["summaries", "--store", store, "-n", "second", "--json"])
    assert listed["count"] == sum(other["summaries"].values())


# ---- summaries --------------------------------------------------------------------------------------------


def test_summaries_listing_and_search(tmp_path: Path) -> None:
    store = str(tmp_path / "demo.db")
    data = _json(["demo", "--store", store, "--json"])
    listed = _json(["summaries", "--store", store, "--json"])
    rows = listed["summaries"]
    assert listed["count"] == len(rows) == sum(data["summaries"].values())
    assert Counter(f"L{r['level']}" for r in rows) == Counter(data["summaries"])
    assert [r["first_sequence"] for r in rows] == sorted(r["first_sequence"] for r in rows)
    assert all(r["text"].strip() and r["first_message_id"].startswith("demo-") for r in rows)

    found = _json(["summaries", "--store", store, "--search", "sup-4471", "--json"])
    assert 0 < found["count"] < listed["count"]
    assert all("sup-4471" in r["text"].lower() for r in found["summaries"])
    assert _json(["summaries", "--store", store, "--search", "no such text anywhere", "--json"])["count"] == 0
    assert _json(["summaries", "--store", store, "--limit", "3", "--json"])["count"] == 3

    res = runner.invoke(app, ["summaries", "--store", store, "--search", "SUP-4471"])
    assert res.exit_code == 0 and "matching 'SUP-4471'" in res.stdout and " L1 " in res.stdout


# ---- errors -----------------------------------------------------------------------------------------------


def test_clean_errors(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tau = str(data_dir / TAU)
    res = runner.invoke(app, ["replay", str(tmp_path / "missing.json"), "--budget", "4000"])
    assert res.exit_code == 1 and "no such file or directory" in res.output
    res = runner.invoke(app, ["replay", tau, "--budget", "4000", "--strategy", "magic"])
    assert res.exit_code == 2 and "unknown strategy 'magic'" in res.output
    res = runner.invoke(app, ["replay", tau, "--budget", "4000", "--provider", "psychic"])
    assert res.exit_code == 2 and "unknown provider 'psychic'" in res.output
    res = runner.invoke(app, ["replay", tau, "--budget", "4000", "-c", "nope"])
    assert res.exit_code == 1 and "no conversation 'nope'" in res.output and "tau-airline:0:0" in res.output
    for var in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    for provider, var in (("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")):
        res = runner.invoke(app, ["replay", tau, "--budget", "4000", "--provider", provider, "--model", "m"])
        assert res.exit_code == 1, res.output
        assert f"the {provider} provider needs an API key" in res.output and var in res.output
        assert "Traceback" not in res.output and isinstance(res.exception, SystemExit)
    res = runner.invoke(app, ["summaries", "--store", str(tmp_path / "none.db")])
    assert res.exit_code == 1 and "no store at" in res.output


class _Refusing:
    """A provider whose key is refused: the drain stops at once instead of retrying with backoff."""

    name = "refusing"
    model = "m"
    calls = 0

    async def complete(self, request: LLMRequest) -> LLMResponse:
        self.calls += 1
        raise ProviderAuthError("401 invalid x-api-key", provider="refusing", model="m", status_code=401)


def test_a_refused_key_stops_the_job_at_once(data_dir: Path) -> None:
    result = read_transcript(data_dir / SESSION)
    provider = _Refusing()
    with pytest.raises(ContextJournalError, match="invalid x-api-key"):
        run_job(
            result,
            result.conversations[0],
            title="t",
            budget=4000,
            strategy="autobiographical",
            provider=provider,
            store=None,
            branch=None,
            namespace=None,
            quiet=True,
            notes=[],
        )
    assert provider.calls == 1
