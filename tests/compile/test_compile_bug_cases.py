"""The bug cases of ``shared/bug-cases`` about tool pairs, budgets, thinking, images, empty messages and
role alternation: each literal input, then its whole kind of fault (random inputs of that shape)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from compile_helpers import (
    WordCounter,
    assert_valid,
    ids,
    journal_state,
    load_case,
    manager_for,
    stored_blocks,
    strategy_named,
    words,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.compile import CompileOptions, Injection, OverBudgetError
from context_journal.manager import ContextManager
from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy
from context_journal.tokens import EstimatingCounter
from context_journal.validate import validate_openai_messages

STRATEGIES = ["passthrough", "windowed"]
FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _tool_pair_ok(result: Any) -> None:
    """Every call in the result is answered in the next message and every result has its call."""
    uses: list[str] = []
    results: list[str] = []
    for m in result.messages:
        uses += [b["id"] for b in m.content if b["type"] == "tool_use"]
        results += [b["tool_use_id"] for b in m.content if b["type"] == "tool_result"]
    assert sorted(uses) == sorted(results)
    assert len(set(uses)) == len(uses)


# --- B01, B02, B04, B05, B06: tool pairs under a cut ---------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_B01_window_never_keeps_a_result_without_its_call(strategy: str) -> None:
    case = load_case("B01")
    cm = manager_for(case["messages"], counter=WordCounter(), strategy=strategy_named(strategy))
    result = cm.compile(case["call"]["budget"])
    assert_valid(result, WordCounter())
    kept = [i for i in ids(result) if i]
    assert kept in (["m4", "m5"], ["m5"])  # m2+m3 (67 tokens) does not fit with m0, m4, m5
    assert result.system[0]["text"] == "You are a weather bot."
    assert result.tokens <= 60


@st.composite
def tool_conversations(draw: st.DrawFn, parallel: bool = True) -> list[dict[str, Any]]:
    """Exchanges with tool calls: parallel calls, results spread over several messages, results mixed
    with user text, sizes from tiny to over any budget."""
    msgs: list[dict[str, Any]] = [
        {"role": "system", "content": [{"type": "text", "text": words(draw(st.integers(1, 30)))}]}
    ]
    n = draw(st.integers(1, 6))
    call = 0
    for k in range(n):
        msgs.append({"role": "user", "content": [{"type": "text", "text": words(draw(st.integers(1, 60)), k)}]})
        if draw(st.booleans()):
            width = draw(st.integers(1, 4)) if parallel else 1
            uses = []
            for _ in range(width):
                call += 1
                uses.append({"type": "tool_use", "id": f"t{call}", "name": "read", "input": {"path": f"f{call}"}})
            pre = [{"type": "text", "text": words(draw(st.integers(1, 40)))}] if draw(st.booleans()) else []
            msgs.append({"role": "assistant", "content": pre + uses})
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": u["id"],
                    "content": words(draw(st.sampled_from([1, 30, 300, 3000]))),
                }
                for u in uses
            ]
            if draw(st.booleans()):
                tail = [{"type": "text", "text": words(draw(st.integers(1, 20)))}] if draw(st.booleans()) else []
                msgs.append({"role": "user", "content": results + tail})
            else:
                msgs.extend({"role": "user", "content": [r]} for r in results)
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": words(draw(st.integers(1, 80)))}]})
    return msgs


@pytest.mark.parametrize("strategy", STRATEGIES)
@FAST
@given(msgs=tool_conversations(), budget=st.integers(40, 4000))
def test_B01_B02_B04_any_cut_keeps_tool_units_whole(strategy: str, msgs: list[dict[str, Any]], budget: int) -> None:
    cm = manager_for(msgs, counter=WordCounter(), strategy=strategy_named(strategy))
    try:
        result = cm.compile(budget)
    except OverBudgetError as exc:
        assert exc.actual > exc.budget
        return
    assert_valid(result, WordCounter())
    _tool_pair_ok(result)
    # B04: a stored message is rendered at most once per part (no duplicated tail).
    own = [i for i in ids(result) if i]
    assert len(own) == len(set(own)) or any(r.kind == "results_split_from_assistant" for r in result.repairs)


def test_B02_parallel_results_spread_over_messages_travel_together() -> None:
    case = load_case("B02")
    cm = manager_for(case["messages"], counter=WordCounter())
    result = cm.compile(10_000)
    assert_valid(result)
    roles = [m.role for m in result.messages]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    answer = result.messages[2]
    assert [b["tool_use_id"] for b in answer.content] == ["r1", "r2", "r3"]
    assert {s.id for s in answer.sources} == {"m3", "m4", "m5"}
    assert all(s.complete for s in answer.sources)  # moved, not cut
    # Under a budget that cannot hold the unit, the unit leaves whole: raw tail [m6, m7].
    small = cm.compile(250)
    assert [i for i in ids(small) if i][-2:] == ["m6", "m7"]
    _tool_pair_ok(small)


def test_B04_results_right_after_the_call_are_never_duplicated() -> None:
    case = load_case("B04")
    cm = manager_for(case["messages"], counter=WordCounter())
    for budget in (30, 200, 500, 5000):
        first = cm.compile(budget)
        second = cm.compile(budget)
        assert first.to_dict() == second.to_dict()  # no accumulation between compiles
        assert_valid(first)
        _tool_pair_ok(first)
        assert len([i for i in ids(first) if i]) == len({i for i in ids(first) if i})


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_B05_emergency_paths_never_emit_a_call_without_its_result(strategy: str) -> None:
    case = load_case("B05")
    cm = manager_for(case["messages"], counter=WordCounter(), strategy=strategy_named(strategy))
    result = cm.compile(500)
    assert_valid(result, WordCounter())
    _tool_pair_ok(result)
    kept = [i for i in ids(result) if i]
    assert ("m2" in kept) == ("m3" in kept)


@pytest.mark.parametrize("strategy", STRATEGIES)
@FAST
@given(size=st.integers(600, 20_000), budget=st.integers(60, 2_000), follow=st.booleans())
def test_B05_B11_oversized_result_is_excerpted_with_its_pair(
    strategy: str, size: int, budget: int, follow: bool
) -> None:
    msgs = [
        {"id": "m1", "role": "user", "content": [{"type": "text", "text": "Fix the failing test."}]},
        {
            "id": "m2",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "b1", "name": "bash", "input": {"cmd": "pytest -x"}}],
        },
        {"id": "m3", "role": "user", "content": [{"type": "tool_result", "tool_use_id": "b1", "content": words(size)}]},
    ]
    if follow:
        msgs.append({"id": "m4", "role": "user", "content": [{"type": "text", "text": "and?"}]})
    cm = manager_for(msgs, counter=WordCounter(), strategy=strategy_named(strategy))
    result = cm.compile(budget)
    assert_valid(result, WordCounter())
    _tool_pair_ok(result)
    assert result.tokens <= budget
    if "m3" in ids(result):
        answer = result.messages[ids(result).index("m3")]
        text = answer.content[0]["content"]
        if "tokens cut here" in text:
            assert "m3" in text  # points at the journal entry
            assert any(r.kind == "excerpted" and r.message_id == "m3" for r in result.repairs)
            assert not next(s for s in answer.sources if s.id == "m3").complete
    assert cm.get_message("m3").content[0].content == words(size)  # the journal keeps it whole


def test_B06_orphaned_result_is_cut_from_a_mixed_message_and_the_text_kept() -> None:
    case = load_case("B06")
    cm = manager_for(case["messages"], counter=WordCounter())
    result = cm.compile(170)
    assert_valid(result, WordCounter())
    first = result.messages[0]
    assert first.role == "user"
    assert first.content[0]["type"] != "tool_result"
    texts = [b["text"] for m in result.messages for b in m.content if b["type"] == "text"]
    assert "Now open the README." in texts
    assert any(r.kind == "orphan_result_dropped" and r.tool_use_id == "ls1" for r in result.repairs)
    assert cm.get_message("m3").content[0].type == "tool_result"  # journal untouched


# --- B08: parallel calls replayed in one turn ------------------------------------------------------


@FAST
@given(width=st.integers(1, 5), errors=st.lists(st.booleans(), min_size=5, max_size=5))
def test_B08_parallel_calls_stay_in_one_turn_for_both_providers(width: int, errors: list[bool]) -> None:
    uses = [{"type": "tool_use", "id": f"p{i}", "name": "price", "input": {"sym": f"S{i}"}} for i in range(width)]
    results = [
        {
            "type": "tool_result",
            "tool_use_id": f"p{i}",
            "content": "error: unknown" if errors[i] else f"{i}0",
            "is_error": errors[i],
        }
        for i in range(width)
    ]
    msgs = [
        {"id": "m1", "role": "user", "content": [{"type": "text", "text": "Fetch prices."}]},
        {"id": "m2", "role": "assistant", "content": uses},
        {"id": "m3", "role": "user", "content": results},
        {"id": "m4", "role": "assistant", "content": [{"type": "text", "text": "Done."}]},
    ]
    result = manager_for(msgs).compile(10_000)
    assert_valid(result)
    oa = result.to_openai()
    assert [m["role"] for m in oa] == ["user", "assistant"] + ["tool"] * width + ["assistant"]
    assert [c["id"] for c in oa[1]["tool_calls"]] == [u["id"] for u in uses]
    for i in range(width):
        assert oa[2 + i]["content"].startswith("[error]") == errors[i]
    an = result.to_anthropic()["messages"]
    assert [b.get("is_error", False) for b in an[2]["content"]] == errors[:width]


# --- B09: a call still waiting for its result ---------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_B09_pending_call_is_stubbed_then_paired_when_answered(strategy: str) -> None:
    case = load_case("B09")
    msgs = case["messages"]
    cm = manager_for(msgs[:-1], counter=WordCounter(), strategy=strategy_named(strategy))
    before = cm.compile(2_000)
    assert_valid(before)
    stub = before.messages[ids(before).index("m2") + 1]
    assert stub.content[0]["type"] == "tool_result" and stub.content[0]["is_error"]
    assert any(r.kind == "result_stubbed" and r.tool_use_id == "conf1" for r in before.repairs)
    cm.add_message("user", msgs[-1]["content"], id="m7")
    after = cm.compile(2_000)
    assert_valid(after)
    answer = after.messages[ids(after).index("m2") + 1]
    assert answer.content[0] == {"type": "tool_result", "tool_use_id": "conf1", "content": "approved"}
    assert any(r.kind == "result_relocated" for r in after.repairs)
    # At the case's own small budget the result is still valid and within budget.
    assert_valid(cm.compile(150))


@FAST
@given(gap=st.integers(0, 5), answered=st.booleans(), budget=st.integers(30, 3000))
def test_B09_any_unanswered_or_late_result_is_made_adjacent(gap: int, answered: bool, budget: int) -> None:
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "Delete the temp files."}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "confirm", "input": {"a": 1}}]},
    ]
    for k in range(gap):
        msgs.append(
            {"role": "user" if k % 2 == 0 else "assistant", "content": [{"type": "text", "text": words(20, k)}]}
        )
    if answered:
        msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": "approved"}]})
    result = manager_for(msgs, counter=WordCounter()).compile(budget)
    assert_valid(result, WordCounter())
    _tool_pair_ok(result)


# --- B11, B12, B14: budgets -----------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_B11_a_result_larger_than_the_whole_budget_never_overflows(strategy: str) -> None:
    case = load_case("B11")
    msgs = case["messages"][:4]  # the giant result is the newest unit
    cm = manager_for(msgs, counter=WordCounter(), strategy=strategy_named(strategy))
    result = cm.compile(2000)
    assert_valid(result, WordCounter())
    assert result.tokens <= 2000
    assert [i for i in ids(result) if i] == ["m2", "m3"]  # the newest unit, excerpted
    body = result.messages[ids(result).index("m3")].content[0]["content"]
    stored = msgs[3]["content"][0]["content"]
    assert body.startswith(stored[:200]) and body.endswith(stored[-50:])
    assert "tokens cut here" in body and "m3" in body
    assert [r.message_id for r in result.repairs if r.kind == "excerpted"] == ["m3"]
    full = cm.compile(2000 + 0)  # the whole case compiles too
    assert_valid(full)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_B12_history_ten_times_the_window_compiles_within_budget(strategy: str) -> None:
    case = load_case("B12")
    cm = manager_for(case["messages"], counter=WordCounter(), strategy=strategy_named(strategy))
    result = cm.compile(8000)
    assert_valid(result, WordCounter())
    assert result.tokens <= 8000
    assert result.dropped > 250
    assert result.system and result.system_sources[0].id == "m0"


def test_B14_pinned_content_larger_than_the_budget_raises_naming_it() -> None:
    case = load_case("B14")
    cm = manager_for(case["messages"], counter=WordCounter())
    before = journal_state(cm)
    with pytest.raises(OverBudgetError) as info:
        cm.compile(2000)
    err = info.value
    assert err.budget == 2000 and err.actual >= 2500
    assert err.parts["message m0 (system)"] == 2500
    assert "2500" in str(err) and "m0" in str(err)
    assert journal_state(cm) == before


@FAST
@given(
    system=st.integers(0, 300),
    pinned=st.integers(0, 300),
    inject=st.integers(0, 300),
    reserve=st.integers(0, 300),
    max_tokens=st.integers(1, 900),
)
def test_B14_every_must_keep_part_is_named_when_it_cannot_fit(
    system: int, pinned: int, inject: int, reserve: int, max_tokens: int
) -> None:
    msgs = [
        {"id": "sys", "role": "system", "content": [{"type": "text", "text": words(max(1, pinned))}]},
        {"id": "u", "role": "user", "content": [{"type": "text", "text": "hi"}]},
    ]
    cm = manager_for(msgs, counter=WordCounter())
    injections = [Injection(words(inject), position="system", label="memory")] if inject else None
    need = max(1, pinned) + system + inject + 1
    try:
        result = cm.compile(max_tokens, min(reserve, max_tokens), words(system) if system else None, injections)
    except OverBudgetError as err:
        assert err.actual > err.budget
        assert err.parts["message sys (system)"] == max(1, pinned)
        if inject:
            assert err.parts["injection 0 (memory)"] == inject
        return
    assert need <= max_tokens - min(reserve, max_tokens)
    assert_valid(result)


# --- B24, B25, B27: thinking ----------------------------------------------------------------------

SIGNED = {
    "type": "thinking",
    "thinking": "Let me read the file.\n\n  Then compare keys.",
    "signature": "EuYBCkQYAiJA...==",
}


@given(text=st.text(min_size=1), signature=st.text(min_size=1).filter(str.strip))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_B24_thinking_comes_back_byte_identical_after_a_sqlite_roundtrip(
    tmp_path_factory: pytest.TempPathFactory, text: str, signature: str
) -> None:
    path = tmp_path_factory.mktemp("b24") / "j.db"
    thinking = {"type": "thinking", "thinking": text, "signature": signature}
    redacted = {"type": "redacted_thinking", "data": signature + "=="}
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": "Check config.yaml."}]},
        {
            "role": "assistant",
            "content": [thinking, redacted, {"type": "tool_use", "id": "r1", "name": "read", "input": {"p": "c"}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "r1", "content": "key: 1"}]},
    ]
    manager_for(msgs, path=str(path)).close()
    with ContextManager.open(path) as cm:
        result = cm.compile(100_000)
        assistant = result.to_anthropic()["messages"][1]["content"]
        assert json.dumps(assistant[0]) == json.dumps(thinking)
        assert json.dumps(assistant[1]) == json.dumps(redacted)
        assert [b["type"] for b in assistant] == ["thinking", "redacted_thinking", "tool_use"]


def test_B24_literal_case() -> None:
    case = load_case("B24")
    cm = manager_for(case["messages"])
    result = cm.compile(10_000)
    assert result.messages[1].content[0] == SIGNED


@FAST
@given(turns=st.integers(1, 6), keep=st.integers(0, 4))
def test_B25_old_thinking_is_dropped_whole_never_emptied(turns: int, keep: int) -> None:
    msgs: list[dict[str, Any]] = []
    for k in range(turns):
        msgs.append({"role": "user", "content": [{"type": "text", "text": f"step {k}"}]})
        msgs.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": words(30, k), "signature": f"sig{k}"},
                    {"type": "text", "text": f"done {k}"},
                ],
            }
        )
    cm = manager_for(msgs)
    result = cm.compile(100_000, options=CompileOptions(keep_thinking_turns=keep))
    assert_valid(result)
    shown = [b for m in result.messages for b in m.content if b["type"] == "thinking"]
    stored = stored_blocks(cm, "thinking")
    assert (
        [json.dumps(b, sort_keys=True) for b in shown] == stored[len(stored) - min(keep, turns) :]
        if keep
        else not shown
    )


def test_B25_literal_case_keeps_the_active_tool_loop_thinking() -> None:
    case = load_case("B25")
    cm = manager_for(case["messages"], counter=WordCounter())
    result = cm.compile(1000, options=CompileOptions(keep_thinking_turns=1))
    assert_valid(result)
    m2 = result.messages[ids(result).index("m2")]
    m4 = result.messages[ids(result).index("m4")]
    assert [b["type"] for b in m2.content] == ["text"]
    assert m4.content[0] == case["messages"][3]["content"][0]


def test_B27_branch_return_keeps_ancestor_thinking_byte_identical() -> None:
    case = load_case("B27")
    msgs = case["messages"]
    cm = manager_for(msgs[:3])  # m1, m2, m3 on main
    fork = cm.get_message("m2").sequence
    cm.store.create_branch("approach-b", at_sequence=fork)
    with ContextManager.open(store=cm.store, branch="approach-b") as other:
        other.add_message("user", msgs[3]["content"], id="m4")
        result = other.compile(10_000)
    assert ids(result) == ["m1", "m2", "m4"]
    assert result.messages[1].content[0] == msgs[1]["content"][0]
    assert [i for i in ids(cm.compile(10_000))] == ["m1", "m2", "m3"]  # main unchanged


# --- B28: images --------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_B28_an_image_costs_its_flat_price_and_trimming_proceeds(strategy: str) -> None:
    case = load_case("B28")
    counter = WordCounter(image_cost=1100)
    cm = manager_for(case["messages"], counter=counter, strategy=strategy_named(strategy))
    result = cm.compile(3000)
    assert_valid(result, counter)
    kept = [i for i in ids(result) if i]
    assert kept[-1] == "m21" and len(kept) >= (6 if strategy == "passthrough" else 2)
    image = next(b for b in result.messages[-1].content if b["type"] == "image")
    assert image["source"]["type"] == "blob"
    sent = next(b for b in result.to_anthropic()["messages"][-1]["content"] if b["type"] == "image")
    assert sent["source"]["data"] == case["messages"][-1]["content"][1]["source"]["data"]
    assert EstimatingCounter().count_block(case["messages"][-1]["content"][1]) == 1601


@FAST
@given(n_images=st.integers(1, 8), max_images=st.integers(0, 4), depth=st.sampled_from([None, 50, 5000]))
def test_B28_images_beyond_the_limit_become_placeholders(n_images: int, max_images: int, depth: int | None) -> None:
    png = base64.b64encode(b"\x89PNG" + bytes(64)).decode()
    msgs = []
    for k in range(n_images):
        msgs.append(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"shot {k}"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
                ],
            }
        )
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": words(40, k)}]})
    result = manager_for(msgs).compile(200_000, options=CompileOptions(max_images=max_images, image_depth_tokens=depth))
    assert_valid(result)
    images = sum(1 for m in result.messages for b in m.content if b["type"] == "image")
    assert images <= max_images
    holders = sum(
        1 for m in result.messages for b in m.content if b["type"] == "text" and "[image omitted" in b["text"]
    )
    assert images + holders == n_images


# --- B42, B43, B44, B45: empty messages and role alternation ------------------------------------


def test_B42_reasoning_only_turns_and_silent_tools_leave_no_empty_block() -> None:
    case = load_case("B42")
    cm = manager_for(case["messages"])
    before = journal_state(cm)
    result = cm.compile(10_000)
    assert_valid(result)
    assert ids(result) == ["m1", "m2", "m3", "m5"]
    assert result.messages[1].content == (
        {"type": "tool_use", "id": "k1", "name": "bash", "input": {"cmd": "mkdir -p build"}},
    )
    assert result.messages[2].content[0]["content"] == "(no output)"
    merged = result.to_anthropic()["messages"]
    assert [m["role"] for m in merged] == ["user", "assistant", "user"]
    assert [b["type"] for b in merged[2]["content"]] == ["tool_result", "text"]
    assert journal_state(cm) == before


@st.composite
def filterable_blocks(draw: st.DrawFn) -> list[dict[str, Any]]:
    choices = st.sampled_from(
        [
            {"type": "text", "text": ""},
            {"type": "text", "text": " \n\t"},
            {"type": "thinking", "thinking": "unsigned reasoning"},
            {"type": "thinking", "thinking": "other provider", "signature": ""},
        ]
    )
    return draw(st.lists(choices, min_size=1, max_size=4))


@FAST
@given(
    pattern=st.lists(st.tuples(st.sampled_from(["user", "assistant", "ann"]), st.booleans()), min_size=1, max_size=10),
    empty=filterable_blocks(),
)
def test_B43_filtered_messages_are_dropped_never_sent_empty(
    pattern: list[tuple[str, bool]], empty: list[dict[str, Any]]
) -> None:
    msgs = [
        {"role": who, "content": empty if blank else [{"type": "text", "text": f"{who} {k}"}]}
        for k, (who, blank) in enumerate(pattern)
    ]
    if all(blank for _, blank in pattern):  # nothing left to send: an error, never an empty list (issue 14)
        from context_journal.compile import EmptyContextError

        with pytest.raises(EmptyContextError):
            manager_for(msgs).compile(10_000)
        return
    result = manager_for(msgs).compile(10_000)
    assert_valid(result)
    assert all(m.content for m in result.messages)
    assert sum(1 for _, blank in pattern if not blank) == len([i for i in ids(result) if i])


def test_B44_every_block_kind_has_a_rendering_in_every_role() -> None:
    png = base64.b64encode(b"img").decode()
    blocks = [
        {"type": "text", "text": "look"},
        {"type": "tool_use", "id": "w1", "name": "wiki", "input": {"q": "IBM 1401"}},
        {
            "type": "tool_result",
            "tool_use_id": "w0",
            "content": [
                {"type": "text", "text": "r"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
            ],
        },
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "doc"}},
        {"type": "thinking", "thinking": "hmm", "signature": "s"},
        {"type": "redacted_thinking", "data": "xx"},
    ]
    msgs = [{"role": who, "content": blocks} for who in ("user", "assistant", "bob", "assistant", "user")]
    result = manager_for(msgs).compile(100_000)
    assert_valid(result)
    text = json.dumps([m.content for m in result.messages])
    assert '[bob called wiki (call w1) with {\\"q\\":\\"IBM 1401\\"}]' in text or "bob called wiki" in text


def test_B45_consecutive_user_turns_merge_and_a_cancelled_call_gets_a_synthetic_result() -> None:
    case = load_case("B45")
    cm = manager_for(case["messages"])
    result = cm.compile(10_000)
    assert_valid(result)
    openai = result.to_openai()
    assert [m["role"] for m in openai] == ["system", "user", "assistant", "tool", "user"]
    assert openai[1]["content"] == [
        {"type": "text", "text": "<reminder>cwd is /repo</reminder>"},
        {"type": "text", "text": "hello"},
    ]
    assert openai[3]["tool_call_id"] == "c1" and openai[3]["content"].startswith("[error]")
    assert openai[4]["content"] == "never mind, stop"
    anthropic = result.to_anthropic()["messages"]
    assert [m["role"] for m in anthropic] == ["user", "assistant", "user"]
    assert anthropic[2]["content"][0]["is_error"] is True
    assert [r.kind for r in result.repairs] == ["result_stubbed"]


@FAST
@given(roles=st.lists(st.sampled_from(["user", "assistant", "ann", "bob", "tool"]), min_size=1, max_size=12))
def test_B45_any_role_sequence_exports_alternating(roles: list[str]) -> None:
    msgs = [{"role": r, "content": [{"type": "text", "text": f"{r} says {k}"}]} for k, r in enumerate(roles)]
    result = manager_for(msgs).compile(10_000)
    assert_valid(result)
    assert validate_openai_messages(result.to_openai()) == []


def test_strategies_agree_when_everything_fits() -> None:
    case = load_case("B02")
    a = manager_for(case["messages"], strategy=PassthroughStrategy()).compile(50_000)
    b = manager_for(case["messages"], strategy=WindowedPassthroughStrategy()).compile(50_000)
    assert a.to_anthropic() == b.to_anthropic()
