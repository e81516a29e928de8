"""The bug cases on summaries (B15, B16, B18, B19, B20, B22) and the summary-reuse half of B31, each as
its literal input and then generalised to its kind of fault."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.compression import SummaryNotFoundError
from context_journal.llm import LLMRequest, OfflineSummarizer, ProviderTransientError
from context_journal.manager import ContextManager
from context_journal.strategies import AutobiographicalStrategy
from context_journal.strategies.autobiographical import INHERIT_STATE
from context_journal.testing import Script, ScriptedProvider
from tests.autobiographical.autobio_helpers import (
    WordCounter,
    add,
    check,
    chunks,
    compile_checked,
    echo_summarizer,
    load_case,
    manager,
    words,
)
from tests.hypothesis_budget import examples

FAST = settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _raw_ids(result: Any) -> list[str]:
    return [s.id for m in result.messages for s in m.sources if s.kind == "message"]


def _summary_positions(result: Any) -> list[int]:
    return [i for i, m in enumerate(result.messages) if any(s.kind == "summary" for s in m.sources)]


def _blocks(cm: ContextManager, message_id: str) -> str:
    return json.dumps(cm.get_message(message_id).content_dicts(), sort_keys=True)


# --- B15: the head (project rules) survives any number of compactions byte-identical -------------


def _assert_head_first(cm: ContextManager, result: Any, head: list[str]) -> None:
    assert _raw_ids(result)[: len(head)] == head
    for compiled, mid in zip(result.messages, head, strict=False):
        assert json.dumps(list(compiled.content), sort_keys=True) == _blocks(cm, mid)  # byte-identical
    positions = _summary_positions(result)
    assert not positions or positions[0] >= len(head)  # summaries come after the head, never instead


def test_B15_project_rules_in_the_head_survive_three_compactions() -> None:
    case = load_case("B15")
    msgs, call = case["messages"], case["call"]
    counter = WordCounter()
    head_tokens = sum(counter.count_message("", [{"type": "text", "text": m["content"][0]["text"]}]) for m in msgs[1:3])
    cm = manager(
        msgs[:3],
        counter=counter,
        summarizer=OfflineSummarizer(),
        head_window_tokens=head_tokens,
        recent_window_tokens=call["recent_messages"] * 150,
        target_chunk_tokens=600,
        summary_target_tokens=60,
    )
    rest = msgs[3:]
    batch = len(rest) // call["compactions"] + 1
    for cycle in range(call["compactions"]):
        add(cm, rest[cycle * batch : (cycle + 1) * batch])
        cm.drain()
        result = cm.compile(call["budget"])
        check(cm, result)
        assert result.system[0]["text"] == "You are a coding agent."
        _assert_head_first(cm, result, ["m1", "m2"])
        assert result.messages[0].content[0]["text"] == "Project rules: use tabs, never push to main, reply in French."
        assert _summary_positions(result)  # compaction happened
        assert _raw_ids(result)[-call["recent_messages"] :] == [m["id"] for m in msgs[: 3 + (cycle + 1) * batch]][-6:]


@FAST
@given(
    n_head=st.integers(1, 4),
    with_tool=st.booleans(),
    cycles=st.integers(1, 4),
    budget=st.integers(1_200, 4_000),
)
def test_B15_any_head_stays_raw_and_first_through_compactions(
    n_head: int, with_tool: bool, cycles: int, budget: int
) -> None:
    head: list[dict[str, Any]] = [
        {"id": f"h{k}", "role": "user" if k % 2 == 0 else "assistant", "content": f"Rule {k}: " + words(8 + 3 * k, k)}
        for k in range(n_head)
    ]
    if with_tool:
        head += [
            {
                "id": "hc",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "th", "name": "Read", "input": {"path": "RULES.md"}}],
            },
            {
                "id": "hr",
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "th", "content": "tabs only"}],
            },
        ]
    counter = WordCounter()
    head_tokens = sum(counter.count_message("", _content(m)) for m in head)
    cm = manager(
        head,
        counter=counter,
        summarizer=OfflineSummarizer(),
        head_window_tokens=head_tokens,
        recent_window_tokens=300,
        target_chunk_tokens=300,
        summary_target_tokens=40,
        merge_threshold=2,
    )
    for cycle in range(cycles):
        add(
            cm,
            [
                {"id": f"x{cycle}_{k}", "role": "user" if k % 2 == 0 else "assistant", "content": words(100, k)}
                for k in range(12)
            ],
        )
        cm.drain()
        result = compile_checked(cm, budget)
        assert result is not None
        _assert_head_first(cm, result, [m["id"] for m in head])


def _content(m: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"]


# --- B16: compaction never replaces the system prompt -------------------------------------------


def test_B16_the_system_prompt_stays_and_the_summary_is_a_separate_entry() -> None:
    case = load_case("B16")
    msgs, call = case["messages"], case["call"]
    cm = manager(
        msgs,
        counter=WordCounter(),
        summarizer=echo_summarizer(),
        head_window_tokens=0,
        recent_window_tokens=call["recent_messages"] * 200,
        target_chunk_tokens=600,
    )
    cm.drain()
    result = cm.compile(call["budget"])
    check(cm, result)
    assert result.system_sources[0].kind == "system" and result.system_sources[0].id == "m0"
    assert result.system[0]["text"] == "You are a browser agent. Never submit a form without asking."
    assert result.messages[0].participant == "Context Manager"  # a recall pair, after the system part
    assert any(s.kind == "summary" for s in result.messages[1].sources)
    assert _raw_ids(result)[-4:] == ["m27", "m28", "m29", "m30"]
    for m in result.messages:  # no summary stands for the system message
        for s in m.sources:
            if s.kind == "summary":
                assert cm.get_summary(s.id).first_sequence > cm.get_message("m0").created_sequence


@FAST
@given(n_system=st.integers(1, 3), n=st.integers(6, 40), budget=st.integers(900, 5_000))
def test_B16_leading_system_messages_are_never_summarised(n_system: int, n: int, budget: int) -> None:
    system = [
        {"id": f"s{k}", "role": "system", "content": f"Instruction {k}: " + words(10, k)} for k in range(n_system)
    ]
    body = [{"id": f"m{k}", "role": "user" if k % 2 == 0 else "assistant", "content": words(150, k)} for k in range(n)]
    cm = manager(
        system + body,
        counter=WordCounter(),
        summarizer=echo_summarizer(),
        head_window_tokens=0,
        recent_window_tokens=300,
        target_chunk_tokens=300,
    )
    cm.drain()
    result = compile_checked(cm, budget)
    if result is None:
        return
    assert [s.id for s in result.system_sources] == [m["id"] for m in system]
    assert [b["text"] for b in result.system] == [m["content"] for m in system]
    first_body = cm.get_message("m0").created_sequence
    for row in cm.search_summaries(limit=None):
        assert row.first_sequence >= first_body


# --- B18: operational details and ruled-out options survive into the summary, linked back --------


def test_B18_the_summary_keeps_the_setup_and_the_ruled_out_tool_and_links_back() -> None:
    case = load_case("B18")
    msgs, call = case["messages"], case["call"]
    cm = manager(
        msgs,
        counter=WordCounter(),
        summarizer=OfflineSummarizer(),
        head_window_tokens=0,
        recent_window_tokens=call["recent_messages"] * 150,
        target_chunk_tokens=600,
        summary_target_tokens=120,
    )
    cm.drain()
    result = cm.compile(call["budget"])
    check(cm, result)
    l1 = [r for r in cm.get_summaries_in_range("m1", "m3") if r.level == 1]
    assert len(l1) == 1 and l1[0].first_message_id == "m1"
    for needle in ("httpie session 'dev'", "curl", "don't use it", "http --session=dev GET :8000/api/feed"):
        assert needle in l1[0].text
    # The compiled context stands for m1..m3 through a summary whose rows lead back to them.
    rendered = [cm.get_summary(s.id) for m in result.messages for s in m.sources if s.kind == "summary"]
    covering = [r for r in rendered if r.first_message_id == "m1"]
    assert covering
    chain = covering[0]
    while chain.level > 1:
        chain = cm.get_summary(chain.source_ids[0])
    assert chain.id == l1[0].id


@FAST
@given(where=st.integers(0, 30), seed=st.integers(0, 5))
def test_B18_an_operational_fact_anywhere_in_a_chunk_survives_its_summary(where: int, seed: int) -> None:
    msgs: list[dict[str, Any]] = [
        {"id": f"m{k}", "role": "user" if k % 2 == 0 else "assistant", "content": words(60, k + seed)}
        for k in range(36)
    ]
    msgs[where] = {
        **msgs[where],
        "role": "user",
        "content": f"Deploy with ./scripts/deploy-{seed}.sh --region eu-west-{seed}; never use the old "
        f"deploy.py (it drops the cache).",
    }
    cm = manager(
        msgs,
        counter=WordCounter(),
        summarizer=OfflineSummarizer(),
        head_window_tokens=0,
        recent_window_tokens=120,
        target_chunk_tokens=400,
        summary_target_tokens=120,
    )
    cm.drain()
    rows = [r for r in cm.get_summaries_in_range(f"m{where}", f"m{where}") if r.level == 1]
    if not rows:  # the message is in the raw recent window
        assert f"m{where}" in _raw_ids(cm.compile(10_000))
        return
    assert f"./scripts/deploy-{seed}.sh" in rows[0].text and "deploy.py" in rows[0].text


# --- B19: a summarizer error loses nothing; the next tick retries --------------------------------


@pytest.mark.parametrize("overflow", ["excerpt", "window"])
def test_B19_a_summarizer_error_leaves_the_journal_unchanged_and_is_retried(overflow: str) -> None:
    case = load_case("B19")
    msgs, call = case["messages"], case["call"]
    provider = ScriptedProvider([TimeoutError("summarizer timed out")], default=lambda r: "short memory")
    cm = manager(
        msgs,
        counter=WordCounter(),
        summarizer=provider,
        head_window_tokens=0,
        recent_window_tokens=call["recent_messages"] * 100,
        target_chunk_tokens=200,
        retry_base_seconds=0,
        overflow=overflow,
    )
    journal = [(r.seq, r.body) for r in cm.store.read_slot(cm.slot, cm.messages.branch_id)]
    result = cm.tick()
    assert result.status == "failed" and "TimeoutError" in (result.error or "")
    assert [(r.seq, r.body) for r in cm.store.read_slot(cm.slot, cm.messages.branch_id)] == journal
    assert cm.search_summaries(limit=None) == []
    fallback = cm.compile(call["budget"])
    check(cm, fallback, allow_omitted=overflow == "window")
    if overflow == "window":
        assert fallback.omitted and "not summarised yet" in fallback.omitted[0][3]
        assert _raw_ids(fallback)[-4:] == ["m7", "m8", "m9", "m10"]
    assert cm.pending_work().ready[0].attempts == 1  # the failure is reported
    cm.drain()
    after = cm.compile(call["budget"])
    check(cm, after)
    assert _summary_positions(after)


@FAST
@given(
    plan=st.lists(
        st.sampled_from(["ok", "ok", "timeout", "transient", "refusal", "empty", "cut", "compile"]),
        min_size=1,
        max_size=25,
    )
)
def test_B19_any_failure_sequence_keeps_state_consistent(plan: list[str]) -> None:
    failures: dict[str, Script] = {
        "timeout": TimeoutError("t"),
        "transient": ProviderTransientError("busy", provider="p", status_code=503),
        "refusal": ScriptedProvider.refusal(),
        "empty": ScriptedProvider.empty(),
        "cut": ScriptedProvider.truncated(),
    }
    provider = ScriptedProvider(default=lambda r: f"memory {r.metadata.get('work')}")
    msgs = [{"id": f"m{k}", "role": "user" if k % 2 == 0 else "assistant", "content": words(100, k)} for k in range(24)]
    cm = manager(
        msgs,
        counter=WordCounter(),
        summarizer=provider,
        head_window_tokens=0,
        recent_window_tokens=300,
        target_chunk_tokens=200,
        retry_base_seconds=0,
        max_attempts=3,
        merge_threshold=2,
    )
    journal = [(r.seq, r.body) for r in cm.store.read_slot(cm.slot, cm.messages.branch_id)]
    failed: dict[str, int] = {}
    successes = 0
    for step in plan:
        if step == "compile":
            compile_checked(cm, 1_500)
            continue
        if step != "ok":
            provider.enqueue(failures[step])
        result = cm.tick()
        if result.status == "failed":
            failed[result.work or ""] = failed.get(result.work or "", 0) + 1
        elif result.status == "done":
            successes += 1
        provider._queue.clear()
    assert [(r.seq, r.body) for r in cm.store.read_slot(cm.slot, cm.messages.branch_id)] == journal
    assert len(cm.search_summaries(limit=None)) == successes
    pending = cm.pending_work()
    for item in (*pending.ready, *pending.waiting, *pending.stuck):
        assert item.attempts == failed.get(item.key, 0)
    compile_checked(cm, 1_500)
    check(cm, cm.compile(50_000))


# --- B20: summarising a prefix keeps the tail raw and byte-identical ------------------------------


def test_B20_the_kept_tail_is_byte_identical_after_the_prefix_is_summarised() -> None:
    case = load_case("B20")
    msgs, call = case["messages"], case["call"]
    counter = WordCounter()
    recent = sum(counter.count_message("", m["content"]) for m in msgs[-call["recent_messages"] :])
    cm = manager(
        msgs,
        counter=counter,
        summarizer=ScriptedProvider(default="I did steps one."),
        head_window_tokens=0,
        recent_window_tokens=recent,
        target_chunk_tokens=200,
    )
    cm.drain()
    result = cm.compile(call["budget"])
    check(cm, result)
    assert result.system_sources[0].id == "m0"
    kinds = [(m.participant, [s.kind for s in m.sources]) for m in result.messages]
    assert kinds[0][0] == "Context Manager" and "summary" in kinds[1][1]
    assert _raw_ids(result) == ["m3", "m4"]
    summary = cm.get_summary(next(s.id for s in result.messages[1].sources if s.kind == "summary"))
    assert summary.source_range == ("m1", "m2")
    for compiled, mid in zip(result.messages[2:], ["m3", "m4"], strict=True):
        assert json.dumps(list(compiled.content), sort_keys=True) == _blocks(cm, mid)


@FAST
@given(steps=st.integers(3, 12), recent_steps=st.integers(1, 3), tools=st.booleans())
def test_B20_everything_after_the_summarised_prefix_stays_raw(steps: int, recent_steps: int, tools: bool) -> None:
    msgs: list[dict[str, Any]] = [{"id": "m0", "role": "system", "content": "You are an agent."}]
    for k in range(steps):
        msgs.append({"id": f"u{k}", "role": "user", "content": f"Step {k} " + words(100, k)})
        if tools:
            msgs.append(
                {
                    "id": f"c{k}",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": f"t{k}", "name": "run", "input": {"step": k}}],
                }
            )
            msgs.append(
                {
                    "id": f"r{k}",
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{k}", "content": words(20, k)}],
                }
            )
        msgs.append({"id": f"a{k}", "role": "assistant", "content": f"Done {k} " + words(100, k + 1)})
    counter = WordCounter()
    per_step = sum(counter.count_message("", _content(m)) for m in msgs[1:] if m["id"].endswith("0"))
    cm = manager(
        msgs,
        counter=counter,
        summarizer=ScriptedProvider(default="I did earlier steps."),
        head_window_tokens=0,
        recent_window_tokens=per_step * recent_steps,
        target_chunk_tokens=150,
    )
    cm.drain()
    result = compile_checked(cm, per_step * (recent_steps + 1) + 120)
    assert result is not None
    raw = _raw_ids(result)
    last_summary = max(_summary_positions(result), default=-1)
    after = [s.id for m in result.messages[last_summary + 1 :] for s in m.sources if s.kind == "message"]
    order = [m["id"] for m in msgs]
    assert after == order[order.index(after[0]) :]  # a raw, unbroken tail to the newest message
    for mid in after:
        assert next(
            json.dumps(list(m.content), sort_keys=True) for m in result.messages if any(s.id == mid for s in m.sources)
        ) == _blocks(cm, mid)
    assert len(raw) >= 2 * recent_steps


# --- B22: summaries are made once over fixed ranges, merged upward, and stay bounded --------------


def _sized(request: LLMRequest) -> str:
    target = int(request.metadata.get("target_tokens", 50))
    return f"[{request.metadata.get('work')}] " + words(max(1, target - 2), hash(str(request.metadata.get("work"))) % 7)


def test_B22_summaries_cover_fixed_ranges_once_merge_upward_and_stay_bounded() -> None:
    case = load_case("B22")
    msgs, call = case["messages"], case["call"]
    provider = ScriptedProvider(default=_sized)
    caps = {int(k): v for k, v in call["level_caps"].items()}
    cm = manager(
        counter=WordCounter(),
        summarizer=provider,
        head_window_tokens=0,
        recent_window_tokens=call["recent_messages"] * 200,
        target_chunk_tokens=call["chunk_tokens"],
        summary_target_tokens=150,
        merge_growth=1.5,
    )
    seen: dict[str, Any] = {}
    for batch in range(5):
        add(cm, msgs[batch * 40 : (batch + 1) * 40])
        cm.drain()
        result = cm.compile(call["budget"])
        check(cm, result)
        rows = {r.id: r for r in cm.search_summaries(limit=None)}
        for rid, row in seen.items():
            assert rows[rid].text == row.text and rows[rid].source_ids == row.source_ids  # made once, never redone
        seen = {rid: r for rid, r in rows.items() if r.level == 1} | seen
        l1 = sorted((r for r in rows.values() if r.level == 1), key=lambda r: r.first_sequence)
        for left, right in itertools.pairwise(l1):
            assert left.last_sequence < right.first_sequence  # disjoint ranges
        for row in rows.values():
            assert row.tokens <= caps.get(row.level, caps[max(caps)] * 2)
            for other in rows.values():
                assert other.id == row.id or other.text not in row.text  # no summary inside another
        rendered = sum(m.tokens for m in result.messages if any(s.kind == "summary" for s in m.sources))
        assert rendered <= call["budget"]
    assert max(r.level for r in seen.values()) == 1 and any(r.level >= 2 for r in cm.search_summaries(limit=None))
    works = [str(r.metadata.get("work")) for r in provider.requests if r.metadata.get("kind") == "chunk"]
    assert len(works) == len(set(works)) == len(chunks(cm))
    for request in provider.requests:
        if request.metadata.get("kind") != "chunk":
            continue
        a, b = request.metadata["summarize_range"]
        inside = " ".join(getattr(block, "text", "") for m in request.messages[a:b] for block in m.content)
        assert "[chunk:" not in inside and "[merge:" not in inside  # only the chunk, never older summaries


@FAST
@given(batches=st.integers(2, 5), target=st.integers(20, 120))
def test_B22_an_exhaustive_summarizer_cannot_grow_summaries(batches: int, target: int) -> None:
    def everything(request: LLMRequest) -> str:  # the fault: reproduce all it was shown
        return " ".join(getattr(b, "text", "") or "" for m in request.messages for b in m.content)

    cm = manager(
        counter=WordCounter(),
        summarizer=ScriptedProvider(default=everything),
        head_window_tokens=50,
        recent_window_tokens=400,
        target_chunk_tokens=500,
        summary_target_tokens=target,
        merge_threshold=2,
    )
    strategy = cm.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    for batch in range(batches):
        add(
            cm,
            [
                {"id": f"b{batch}_{k}", "role": "user" if k % 2 == 0 else "assistant", "content": words(100, k)}
                for k in range(20)
            ],
        )
        cm.drain()
        for row in cm.search_summaries(limit=None):
            assert row.tokens <= strategy.config.level_cap(row.level)
        assert compile_checked(cm, 4_000) is not None


# --- B31 (summary reuse): a summary made on main after the fork point is never used on the fork ---


def test_B31_a_summary_made_on_main_after_the_fork_is_never_used_on_the_fork() -> None:
    case = load_case("B31")
    by_id = {m["id"]: m for m in case["messages"]}
    cfg: dict[str, Any] = {"head_window_tokens": 0, "recent_window_tokens": 2, "target_chunk_tokens": 3}
    main = manager([by_id[k] for k in ("m1", "m2")], summarizer=echo_summarizer("main"), **cfg)
    fork_seq = main.store.head_seq()
    add(main, [by_id["m3"], by_id["m4"]])
    add(main, [{"id": "m4b", "role": "user", "content": "Thanks."}])
    main.drain()  # summaries of m1..m4 made on main, after the fork point
    made = main.search_summaries(limit=None)
    assert any(r.last_message_id in ("m3", "m4") for r in made)
    main.store.create_branch("alt", "main", fork_seq)
    alt = ContextManager.open(
        store=main.store,
        branch="alt",
        strategy=AutobiographicalStrategy(**cfg),
        summarizer=ScriptedProvider(default="alt memory"),
    )
    add(alt, [by_id["m5"]])
    result = alt.compile(case["call"]["budget"])
    check(alt, result)
    text = json.dumps([list(m.content) for m in result.messages])
    assert "Postgres." not in text and "schema drafted" not in text
    assert alt.search_summaries(limit=None) == []
    for row in made:
        with pytest.raises(SummaryNotFoundError):
            alt.get_summary(row.id)


@FAST
@given(n=st.integers(4, 30), fork_at=st.integers(1, 29), more=st.integers(1, 20), offer=st.booleans())
def test_B31_summaries_off_the_compiled_path_are_never_used(n: int, fork_at: int, more: int, offer: bool) -> None:
    fork_at = min(fork_at, n - 1)
    cfg: dict[str, Any] = {
        "head_window_tokens": 30,
        "recent_window_tokens": 100,
        "target_chunk_tokens": 120,
        "merge_threshold": 2,
    }
    main = manager(
        [{"id": f"m{k}", "role": "user" if k % 2 == 0 else "assistant", "content": words(40, k)} for k in range(n)],
        summarizer=echo_summarizer("main"),
        **cfg,
    )
    main.drain()
    main.fork("alt", at=f"m{fork_at}")  # possibly inside a chunk main already closed
    add(
        main,
        [
            {"id": f"p{k}", "role": "user" if k % 2 == 0 else "assistant", "content": "MAINONLY " + words(40, k)}
            for k in range(more)
        ],
    )
    main.drain()
    after_fork = {
        r.id for r in main.search_summaries(limit=None) if "MAINONLY" in r.text or r.last_message_id[0] == "p"
    }
    namespace = None
    if offer:
        # Offer the fork records made over another path: an isolated namespace's own conversation.
        other = ContextManager.open(
            store=main.store,
            namespace="other",
            isolate=True,
            branch="alt",
            strategy=AutobiographicalStrategy(**cfg),
            summarizer=echo_summarizer("OTHERONLY"),
        )
        add(
            other,
            [
                {"id": f"m{k}", "role": "user" if k % 2 == 0 else "assistant", "content": "OTHERONLY " + words(40, k)}
                for k in range(n + more)
            ],
        )
        other.drain()
        namespace = "mine"
        alt_id = main.store.get_branch("alt").id
        with main.store.transaction() as tx:
            tx.put_state(alt_id, f"mine/{INHERIT_STATE}", {"namespace": "other", "as_of": main.store.head_seq()})
    alt = ContextManager.open(
        store=main.store,
        branch="alt",
        namespace=namespace,
        strategy=AutobiographicalStrategy(**cfg),
        summarizer=echo_summarizer("alt"),
    )
    add(
        alt,
        [
            {"id": f"f{k}", "role": "user" if k % 2 == 0 else "assistant", "content": "FORKONLY " + words(40, k)}
            for k in range(more)
        ],
    )
    alt.drain()
    path = {m.id for m in alt.get_all_messages()}
    for budget in (600, 2_000, 20_000):
        result = compile_checked(alt, budget)
        if result is None:
            continue
        text = json.dumps([list(m.content) for m in result.messages])
        assert "MAINONLY" not in text and "OTHERONLY" not in text
        for m in result.messages:
            for s in m.sources:
                if s.kind == "summary":
                    row = alt.get_summary(s.id)
                    assert row.first_message_id in path and row.last_message_id in path
    for rid in after_fork:
        with pytest.raises(SummaryNotFoundError):
            alt.get_summary(rid)


# --- B61: with compression lagging, the overflow fallback cuts the middle, never the opening rules -------


def _b61_rows(prefix: str = "") -> list[dict[str, Any]]:
    case = load_case("B61")
    rows = [dict(m, id=prefix + m["id"]) for m in case["messages"][:2]]  # rules, ack
    for k in range(40):  # "u0/a0..u39/a39": Turn k: {{40 words}} / Reply k: {{40 words}}
        rows.append(
            {"id": f"{prefix}u{k}", "role": "user", "content": [{"type": "text", "text": f"Turn {k}: {words(40, k)}"}]}
        )
        rows.append(
            {
                "id": f"{prefix}a{k}",
                "role": "assistant",
                "content": [{"type": "text", "text": f"Reply {k}: {words(40, k + 1)}"}],
            }
        )
    return rows


def _b61_compile(budget: int, overflow: str, compression: str, prefix: str = "") -> tuple[ContextManager, Any]:
    from context_journal.strategies.autobiographical import AutobiographicalConfig

    rows = _b61_rows(prefix)
    strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(3000, overflow=overflow))
    if compression == "workers":  # no worker has run yet: nothing is summarised
        cm = ContextManager(ContextManager.open("memory:").store, strategy=strategy, compression="workers")
        add(cm, rows)
    else:  # lagging: drained once after turn 10, then 30 more turns
        cm = manager(rows[:22], summarizer=echo_summarizer(), strategy=strategy)
        cm.drain()
        add(cm, rows[22:])
    return cm, cm.compile(budget)


def _b61_layout(result: Any, prefix: str) -> list[tuple[str, str, str]]:
    """Each compiled message as (source kind, message id without the prefix, text unless a summary)."""
    out = []
    for m in result.messages:
        source = m.sources[0]
        text = "" if source.kind == "summary" else json.dumps(list(m.content)).replace(prefix, "")
        out.append((source.kind, source.id.replace(prefix, "") if source.kind == "message" else "", text))
    return out


@pytest.mark.parametrize("compression", ["lagging", "workers"])
@pytest.mark.parametrize("overflow", ["excerpt", "window"])
@pytest.mark.parametrize("budget", [3000, 6000])
def test_B61_overflow_with_lagging_compression_keeps_the_rules_whole(
    budget: int, overflow: str, compression: str
) -> None:
    """B61: rules + ack + 40 turns, autobiographical ``for_budget(3000)``, compression lagging (drained once
    after turn 10, or workers that have not run): at 3,000 and 6,000 tokens, with either overflow mode, the
    rules message is sent raw and complete first, the newest turns stay raw, what gives way is the middle
    (dropped with a note or excerpted, never the head), and the outcome does not depend on message ids."""
    cm, result = _b61_compile(budget, overflow, compression)
    check(cm, result, allow_omitted=True)
    assert result.tokens <= budget
    first = result.messages[0]
    assert first.sources[0].kind == "message" and first.sources[0].id == "rules"
    assert list(first.content) == cm.get_message("rules").content_dicts()  # raw and complete
    raw = {s.id: m for m in result.messages for s in m.sources if s.kind == "message"}
    assert "ack" in raw and "cut here" not in json.dumps(list(raw["ack"].content))
    assert result.messages[-1].sources[0].id == "a39"
    for k in range(35, 40):  # the newest turns are raw and whole
        for mid in (f"u{k}", f"a{k}"):
            assert list(raw[mid].content) == cm.get_message(mid).content_dicts()
    prefix = "a-much-longer-generated-message-id-"
    _, again = _b61_compile(budget, overflow, compression, prefix=prefix)
    assert _b61_layout(again, prefix) == _b61_layout(result, "")


# --- B49: the prompt cache across turns (the prefix-stable layout) -------------------------------------------------


def _b49_blocks(params: dict[str, Any]) -> tuple[list[str], list[int]]:
    """An Anthropic request's blocks in prompt order (tools, system, messages; markers left out of the
    comparison keys) and the positions of its cache markers."""
    blocks = [*params.get("tools", []), *params.get("system", [])]
    blocks += [{"role": m["role"], **b} for m in params["messages"] for b in m["content"]]
    keys = [json.dumps({k: v for k, v in b.items() if k != "cache_control"}, sort_keys=True) for b in blocks]
    return keys, [i for i, b in enumerate(blocks) if "cache_control" in b]


def _b49_cached_share(previous: dict[str, Any], new: dict[str, Any]) -> float:
    """B49's measure: the share of the new request's blocks read from the cache the previous request wrote
    (the prefix up to one of its markers, identical in the new request, with a new marker at most 20 blocks
    after it: the API's lookback)."""
    old_keys, old_marks = _b49_blocks(previous)
    keys, marks = _b49_blocks(new)
    best = 0
    for q in marks:
        for p in old_marks:
            if q - 20 <= p <= q and keys[: p + 1] == old_keys[: p + 1]:
                best = max(best, p + 1)
    return best / len(keys)


def _b49_run(
    kind: str, drain_every: int, size: int = 40, tools: list[dict[str, Any]] | None = None, turns: int = 80
) -> list[float]:
    import warnings

    from context_journal.strategies import WindowedPassthroughStrategy
    from context_journal.strategies.autobiographical import AutobiographicalConfig

    strategy: Any = (
        WindowedPassthroughStrategy()
        if kind == "windowed"
        else AutobiographicalStrategy()
        if kind == "autobiographical (default config)"
        else AutobiographicalStrategy(AutobiographicalConfig.for_budget(3000))
    )
    cm = ContextManager.open("memory:", strategy=strategy, summarizer=echo_summarizer())
    previous: dict[str, Any] | None = None
    shares = []
    for turn in range(turns):
        cm.add_message("user", f"Question {turn}: {words(size, turn)}")
        cm.add_message("assistant", f"Answer {turn}: {words(size, turn + 7)}")
        if kind != "windowed" and (turn + 1) % drain_every == 0:
            cm.drain()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a dropped-marker report is not what this measures
            compiled = cm.compile(3000, system="You are a helpful assistant.")
            params = compiled.to_anthropic(tools=tools) if tools else compiled.to_anthropic()
        if previous is not None:
            shares.append(_b49_cached_share(previous, params))
        previous = params
    return shares


@pytest.mark.parametrize(
    ("kind", "drain_every", "share_of_turns", "size"),
    [
        ("windowed", 0, 0.8, 40),
        ("autobiographical", 1, 0.7, 40),
        ("autobiographical", 10, 0.7, 40),
        ("autobiographical", 1, 0.7, 120),
        ("autobiographical", 10, 0.7, 120),
    ],
)
def test_B49_most_turns_read_most_of_the_prompt_from_the_cache(
    kind: str, drain_every: int, share_of_turns: float, size: int
) -> None:
    """B49: 80 turns of a 40-word question and a 40-word answer, compiled at 3,000 tokens after each turn
    and exported for Anthropic: the prefix up to a breakpoint stays byte-identical from turn to turn, so
    windowed reads half the prompt or more from the cache on at least 80% of turns, and autobiographical
    (``for_budget(3000)``, drained every turn or every 10) on at least 70% (the goal). With
    120-word turns (a review found 56% of turns, every other compaction replacing the newest summary,
    after the one breakpoint there was) as well."""
    shares = _b49_run(kind, drain_every, size)
    good = sum(s >= 0.5 for s in shares) / len(shares)
    print(f"B49 {kind} (drain every {drain_every or '-'}): {good:.0%} of turns with half or more cached")
    assert good >= share_of_turns, [round(s, 2) for s in shares]


_TOOLS = [
    {"name": f"tool{i}", "description": "does a thing " * 20, "input_schema": {"type": "object"}} for i in range(3)
]


@pytest.mark.parametrize("kind", ["windowed", "autobiographical", "autobiographical (default config)"])
def test_B49_a_hosts_marker_on_its_tools_leaves_the_cache_share_as_it_was(kind: str) -> None:
    """Kinds 4 and 5 together (a review): a host marks its last tool definition, as Anthropic's docs suggest,
    so five markers reach the request and one must go. The exporter kept the newest messages' markers and
    dropped the one at the end of the prefix the previous compile sent the same (the one this request reads
    back): with the default autobiographical strategy, turns with half the prompt cached fell from 97% to 46%
    in ``bench_prompt_cache.py``'s run. It now keeps the markers in the compile's order
    (``CompileResult.cache_priority``): no turn reads less than without the host's marker."""
    tools = [*_TOOLS[:-1], {**_TOOLS[-1], "cache_control": {"type": "ephemeral"}}]
    plain = _b49_run(kind, 1, turns=40)
    marked = _b49_run(kind, 1, tools=tools, turns=40)
    # The tools are a prefix of every request read back with the rest: each share is lifted a little, none
    # lowered (before: 0.41-0.46 became 0.06-0.1 on most turns of the default config).
    assert all(m >= p for m, p in zip(marked, plain, strict=True)), (
        [round(s, 2) for s in plain],
        [round(s, 2) for s in marked],
    )
