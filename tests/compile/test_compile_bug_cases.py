"""The bug cases of ``shared/bug-cases`` about tool pairs, budgets, thinking, images, empty messages and
role alternation: each literal input, then its whole kind of fault (random inputs of that shape)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.compile import CompileOptions, Injection, OverBudgetError
from context_journal.content import ToolResultBlock
from context_journal.manager import ContextManager
from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy
from context_journal.tokens import EstimatingCounter
from context_journal.validate import validate_openai_messages
from tests.compile.compile_helpers import (
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
from tests.hypothesis_budget import examples

STRATEGIES = ["passthrough", "windowed"]
FAST = settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])


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
            # Provenance points at the journal entry; the marker never names it (its size must not
            # depend on an id's length: bug case B61).
            assert "m3" not in text and answer.sources[0].id == "m3"
            assert any(r.kind == "excerpted" and r.message_id == "m3" for r in result.repairs)
            assert not next(s for s in answer.sources if s.id == "m3").complete
    stored = cm.get_message("m3").content[0]
    assert isinstance(stored, ToolResultBlock) and stored.content == words(size)  # the journal keeps it whole


@pytest.mark.parametrize("budget", [60, 170])
def test_B06_orphaned_result_is_cut_from_a_mixed_message_and_the_text_kept(budget: int) -> None:
    """At 60 words the call (m2) cannot fit even with its 150-word result excerpted: the orphaned result
    is cut from m3 and its text kept. At 170 the whole group fits once the result is excerpted (reductions
    priced before selection: what fits after reductions is kept): the pair travels whole, never half of it."""
    case = load_case("B06")
    cm = manager_for(case["messages"], counter=WordCounter())
    result = cm.compile(budget)
    assert_valid(result, WordCounter())
    first = result.messages[0]
    assert first.role == "user"
    assert first.content[0]["type"] != "tool_result"
    texts = [b["text"] for m in result.messages for b in m.content if b["type"] == "text"]
    assert "Now open the README." in texts
    shown = {s.id for m in result.messages for s in m.sources}
    if budget == 60:
        assert "m2" not in shown
        assert any(r.kind == "orphan_result_dropped" and r.tool_use_id == "ls1" for r in result.repairs)
    else:
        assert {"m1", "m2", "m3", "m4"} <= shown
        assert any(r.kind == "excerpted" and r.message_id == "m3" for r in result.repairs)
        assert not any(r.kind == "orphan_result_dropped" for r in result.repairs)
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
    # The newest unit, excerpted, and the instruction before it: the result's excerpt is priced before
    # the selection, so what fits once it is cut is kept (reductions priced before selection).
    assert [i for i in ids(result) if i] == ["m1", "m2", "m3"]
    body = result.messages[ids(result).index("m3")].content[0]["content"]
    stored = msgs[3]["content"][0]["content"]
    assert body.startswith(stored[:200]) and body.endswith(stored[-50:])
    assert "tokens cut here" in body and "m3" not in body  # provenance names it; the marker does not (B61)
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
        result = cm.compile(max_tokens, min(reserve, max_tokens - 1), words(system) if system else None, injections)
    except OverBudgetError as err:
        assert err.actual > err.budget
        assert err.parts["message sys (system)"] == max(1, pinned)
        if inject:
            assert err.parts["injection 0 (memory)"] == inject
        return
    assert need <= max_tokens - min(reserve, max_tokens - 1)
    assert_valid(result)


# --- B24, B25, B27: thinking ----------------------------------------------------------------------

SIGNED = {
    "type": "thinking",
    "thinking": "Let me read the file.\n\n  Then compare keys.",
    "signature": "EuYBCkQYAiJA...==",
}


@given(text=st.text(min_size=1), signature=st.text(min_size=1).filter(str.strip))
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_B24_thinking_comes_back_byte_identical_after_a_sqlite_roundtrip(
    tmp_path_factory: pytest.TempPathFactory, text: str, signature: str
) -> None:
    path = tmp_path_factory.mktemp("b24") / "j.db"
    thinking = {"type": "thinking", "thinking": text, "signature": signature}
    redacted = {"type": "redacted_thinking", "data": signature + "=="}
    msgs: list[dict[str, Any]] = [
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
    from context_journal.errors import MalformedContentError

    case = load_case("B42")
    blank = [m for m in case["messages"] if m["id"] == "m4"]  # whitespace text only: nothing to send
    with pytest.raises(MalformedContentError, match="non-empty text"):  # refused at write
        manager_for(blank)
    cm = manager_for([m for m in case["messages"] if m["id"] != "m4"])
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
    if all(b["type"] == "text" for b in empty) and any(blank for _, blank in pattern):
        from context_journal.errors import MalformedContentError

        with pytest.raises(MalformedContentError, match="non-empty text"):  # refused at write
            manager_for(msgs)
        return
    if all(blank for _, blank in pattern):  # nothing left to send: an error, never an empty list
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


# --- B48: cache markers counted in one place ---------------------------------------------------------


def _marker_paths(params: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Every block path of an Anthropic request in prompt order (tools, system, messages; a block nested
    in a tool_result before the tool_result), and the paths of those carrying ``cache_control``."""
    order: list[tuple[str, dict[str, Any]]] = [(f"tools[{j}]", t) for j, t in enumerate(params.get("tools", []))]

    def walk(blocks: list[dict[str, Any]], path: str) -> None:
        for j, b in enumerate(blocks):
            if isinstance(b.get("content"), list):
                walk(b["content"], f"{path}[{j}].content")
            order.append((f"{path}[{j}]", b))

    walk(params.get("system", []), "system")
    for i, m in enumerate(params["messages"]):
        walk(m["content"], f"messages[{i}].content")
    return [p for p, _ in order], [p for p, b in order if "cache_control" in b]


def _export_recording(result: Any, **params: Any) -> tuple[dict[str, Any], list[str]]:
    """``to_anthropic`` and the marker paths its CacheMarkersDroppedWarning reported (none: [])."""
    import warnings

    from context_journal.formats.exporters import CacheMarkersDroppedWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = result.to_anthropic(**params)
    reports = [w.message for w in caught if isinstance(w.message, CacheMarkersDroppedWarning)]
    assert len(reports) <= 1
    return out, list(reports[0].dropped) if reports else []


def _assert_markers_sendable(params: dict[str, Any]) -> None:
    """At most 4 markers, none on thinking or on empty text."""
    _, marked = _marker_paths(params)
    assert len(marked) <= 4, marked
    text = json.dumps(params)
    assert text.count('"cache_control"') == len(marked)
    for m in params["messages"]:
        for b in m["content"]:
            if b["type"] in ("thinking", "redacted_thinking") or (b["type"] == "text" and not b["text"].strip()):
                assert "cache_control" not in b


def _b48_round(cm: ContextManager, k: int) -> None:
    eph = {"type": "ephemeral"}
    cm.add_message("user", [{"type": "text", "text": f"Question {k}", "cache_control": eph}])
    cm.add_message(
        "assistant",
        [
            {"type": "tool_use", "id": f"{c}{k}", "name": "read", "input": {"p": 100 * n + k}}
            for n, c in enumerate("abc")
        ],
    )
    cm.add_message(
        "user",
        [{"type": "tool_result", "tool_use_id": f"{c}{k}", "content": f"r{c}{k}", "cache_control": eph} for c in "abc"],
    )
    cm.add_message("assistant", [{"type": "text", "text": f"Answer {k}"}])


def test_B48_markers_on_tools_and_stored_blocks_count_toward_the_limit_of_four() -> None:
    """B48: host markers on tool results (three per round, six rounds), on the question, on the tool
    definition, plus the exporter's own on the system prompt and the newest messages: the request carries
    exactly 4, one per location (review finding F11: it kept the three tool results of one message and
    dropped the tools' and the system prompt's): the tools', the system prompt's, then the two newest
    messages' (the last tool result of the last round, the last answer), and the warning lists every other."""
    case = load_case("B48")
    call = case["call"]
    cm = ContextManager.open("memory:")
    first = case["messages"][:4]
    for m in first:
        cm.add_message(m["role"], m["content"], id=m["id"])
    for k in range(1, 6):  # "m5..m24: five more rounds of the same shape"
        _b48_round(cm, k)
    result = cm.compile(call["budget"], system=call["system"])
    from context_journal.formats.exporters import CacheMarkersDroppedWarning

    # assert_valid's own export (no tools) drops the markers over the limit too, and says so
    with pytest.warns(CacheMarkersDroppedWarning) as warned:
        assert_valid(result)
    reports = [w.message for w in warned if isinstance(w.message, CacheMarkersDroppedWarning)]
    assert len(reports) == 1
    # No tools: the fourth slot goes to the next newest message with a marker (the last round's question).
    assert reports[0].kept == (
        "system[0]",
        "messages[20].content[0]",
        "messages[22].content[2]",
        "messages[23].content[0]",
    )
    assert len(reports[0].dropped) == 6 * 4 - 2  # 4 host markers a round, less the 2 kept
    tools = call["tools"]
    params, dropped = _export_recording(result, tools=tools)
    _assert_markers_sendable(params)
    order, kept = _marker_paths(params)
    assert kept == ["tools[0]", "system[0]", "messages[22].content[2]", "messages[23].content[0]"]
    assert len(params["messages"]) == 24
    # Every host marker but the last tool result's is removed (24 - 1), and reported in prompt order.
    host = [f"messages[{4 * k}].content[0]" for k in range(6)]
    host += [f"messages[{4 * k + 2}].content[{j}]" for k in range(6) for j in range(3)]
    assert dropped == sorted(set(host) - set(kept), key=order.index)
    assert len(dropped) == 23
    assert tools[0]["cache_control"] == {"type": "ephemeral"}  # the caller's tool definition is unchanged
    assert params["tools"][0]["cache_control"] == {"type": "ephemeral"}
    assert cm.get_message("m3").content_dicts()[0]["cache_control"] == {"type": "ephemeral"}  # journal unchanged


@st.composite
def _marked_conversations(draw: st.DrawFn) -> tuple[list[tuple[str, list[dict[str, Any]]]], int]:
    """Rounds of question / (thinking +) parallel calls / results (string or nested blocks) / answer with
    ``cache_control`` on any block; returns the messages and how many sendable host markers they hold."""
    eph = {"type": "ephemeral"}
    host = 0

    def mark(block: dict[str, Any], sendable: bool = True) -> dict[str, Any]:
        nonlocal host
        if draw(st.booleans()):
            host += sendable
            return {**block, "cache_control": eph}
        return block

    msgs: list[tuple[str, list[dict[str, Any]]]] = []
    for k in range(draw(st.integers(1, 6))):
        msgs.append(("user", [mark({"type": "text", "text": f"q{k} {w}"}) for w in range(draw(st.integers(1, 3)))]))
        width = draw(st.integers(0, 3))
        if width:
            pre = []
            if draw(st.booleans()):
                pre.append(mark({"type": "thinking", "thinking": f"think {k}", "signature": f"sig{k}"}, False))
            calls = [
                mark({"type": "tool_use", "id": f"t{k}_{n}", "name": "read", "input": {"n": n}}) for n in range(width)
            ]
            msgs.append(("assistant", pre + calls))
            results = []
            for n in range(width):
                if draw(st.booleans()):
                    content: Any = f"result {k} {n}"
                else:
                    content = [
                        mark({"type": "text", "text": f"part {k} {n} {p}"}) for p in range(draw(st.integers(1, 2)))
                    ]
                results.append(mark({"type": "tool_result", "tool_use_id": f"t{k}_{n}", "content": content}))
            msgs.append(("user", results))
        msgs.append(("assistant", [mark({"type": "text", "text": f"answer {k}"})]))
    return msgs, host


@FAST
@given(
    conversation=_marked_conversations(),
    system=st.lists(st.booleans(), max_size=3),
    tools=st.lists(st.booleans(), max_size=3),
    cache=st.booleans(),
    breakpoints=st.integers(0, 5),
)
def test_B48_any_placement_of_markers_exports_at_most_four_keeping_the_newest(
    conversation: tuple[list[tuple[str, list[dict[str, Any]]]], int],
    system: list[bool],
    tools: list[bool],
    cache: bool,
    breakpoints: int,
) -> None:
    """B48 (kind 4): markers anywhere (stored blocks, nested tool-result blocks, thinking, the system
    prompt, tool definitions) plus the compile's own: every request carries at most 4, at most one per
    location (the tools, the system prompt, each message: the last of it), none on thinking; the kept
    ones are the tools', the system prompt's, then those the compile ranks first, then the newest
    messages'; every removed one is reported (those stored on thinking too),
    and with ``cache=False`` exactly the host's sendable markers are counted."""
    from context_journal.rendering.cache_markers import can_carry_marker

    msgs, host = conversation
    eph = {"type": "ephemeral"}
    cm = ContextManager.open("memory:")
    for role, content in msgs:
        cm.add_message(role, content)
    system_blocks = [
        {"type": "text", "text": f"rule {k}", **({"cache_control": eph} if m else {})} for k, m in enumerate(system)
    ]
    tool_defs = [
        {
            "name": f"tool{k}",
            "description": "d",
            "input_schema": {"type": "object"},
            **({"cache_control": eph} if m else {}),
        }
        for k, m in enumerate(tools)
    ]
    host += sum(system) + sum(tools)
    result = cm.compile(100_000, system=system_blocks or None, options=CompileOptions(cache_breakpoints=breakpoints))
    assert len(result.messages) == len(msgs)
    params, dropped = _export_recording(result, tools=tool_defs, cache=cache)
    _assert_markers_sendable(params)
    order, kept = _marker_paths(params)
    assert len(set(dropped)) == len(dropped) and not set(dropped) & set(kept)
    assert dropped == sorted(dropped, key=order.index)  # reported in prompt order

    def location(path: str) -> str:
        return path.split("[", 1)[0] if path.startswith(("tools", "system")) else path.split(".", 1)[0]

    def block(path: str) -> Any:
        node: Any = params
        for part in path.replace("].", "]|").split("|"):
            name, index = part[:-1].split("[")
            node = node[name][int(index)]
        return node

    assert len({location(p) for p in kept}) == len(kept)  # never two in one location
    # The model: every marker there was (kept and removed), the last sendable one of each location,
    # then the tools', the system prompt's and the newest messages', four at most.
    last: dict[str, str] = {}
    for path in sorted([*kept, *dropped], key=order.index):
        if path.startswith("tools") or can_carry_marker(block(path)):
            last[location(path)] = path
    # (between them, the messages the compile ranks first: CompileResult.cache_priority, one message each here)
    ranked = [f"messages[{k}]" for k in result.cache_priority] if cache else []
    preferred = [last[loc] for loc in ("tools", "system") if loc in last]
    preferred += [last[loc] for loc in ranked if loc in last]
    preferred += [p for loc, p in reversed(last.items()) if loc not in ("tools", "system")]
    assert kept == sorted(list(dict.fromkeys(preferred))[:4], key=order.index)
    # Markers stored on thinking reach the count (and are removed and reported: the API refuses them).
    on_thinking = [p for p in dropped if block(p).get("type") in ("thinking", "redacted_thinking")]
    total = len(kept) + len(dropped) - len(on_thinking)
    if cache:
        assert total >= host
        if breakpoints:  # the compile marks the newest message: always among the kept
            assert kept and kept[-1].startswith(f"messages[{len(params['messages']) - 1}]")
    else:
        assert total == host
    assert [t.get("cache_control") for t in tool_defs] == [
        eph if m else None for m in tools
    ]  # caller's dicts unchanged


# --- B54, B55, B59: tool error signal, a user turn inside a tool pair, oversized payloads ------------


def test_B54_a_failed_tool_result_stays_an_error_in_both_exports() -> None:
    """B54: ``is_error`` on t1 survives the Anthropic export (t2 plain), the stub for the unanswered t3 is
    an error, and the OpenAI tool messages of t1 and t3 say so in their content (t2's does not), with
    only the standard keys."""
    case = load_case("B54")
    result = manager_for(case["messages"]).compile(case["call"]["budget"])
    assert_valid(result)
    results = {
        b["tool_use_id"]: b
        for m in result.to_anthropic()["messages"]
        for b in m["content"]
        if b["type"] == "tool_result"
    }
    assert set(results) == {"t1", "t2", "t3"}
    assert results["t1"]["is_error"] is True and results["t3"]["is_error"] is True
    assert not results["t2"].get("is_error")
    tools = {m["tool_call_id"]: m for m in result.to_openai() if m["role"] == "tool"}
    assert set(tools) == {"t1", "t2", "t3"}
    assert all(set(m) == {"role", "tool_call_id", "content"} for m in tools.values())
    assert tools["t1"]["content"].startswith("[error]") and "permission denied" in tools["t1"]["content"]
    assert tools["t3"]["content"].startswith("[error]")
    assert tools["t2"]["content"] == "buy milk"


@pytest.mark.parametrize("strategy", ["passthrough", "windowed", "autobiographical"])
def test_B55_a_user_turn_typed_while_a_tool_runs_follows_the_results(strategy: str) -> None:
    """B55: call (t1, t2) → result t1 → user text → result t2: the compile puts both results right after
    the call, then the user's text (kept, in the same user turn after the tool_result blocks), lists the
    move in its repairs, and leaves the journal in its original order."""
    from context_journal.strategies import AutobiographicalStrategy

    case = load_case("B55")
    chosen = AutobiographicalStrategy() if strategy == "autobiographical" else strategy_named(strategy)
    cm = manager_for(case["messages"], strategy=chosen)
    before = journal_state(cm)
    result = cm.compile(case["call"]["budget"])
    assert_valid(result)
    user_turn = result.to_anthropic()["messages"][2]
    assert user_turn["role"] == "user"
    assert [b.get("tool_use_id") or b.get("text") for b in user_turn["content"]] == [
        "t1",
        "t2",
        "also check the staging box",
    ]
    openai = [(m["role"], m.get("tool_call_id") or m.get("content")) for m in result.to_openai()]
    assert openai[2:5] == [("tool", "t1"), ("tool", "t2"), ("user", "also check the staging box")]
    assert any(r.kind == "result_relocated" and r.tool_use_id == "t2" for r in result.repairs)
    assert journal_state(cm) == before
    assert [m.id for m in cm.get_all_messages()] == ["m1", "m2", "m3", "m4", "m5", "m6"]


def _b59_variants() -> dict[str, list[dict[str, Any]]]:
    case = load_case("B59")
    # Few distinct words (ids cycle): the payloads are huge, but writing them into the store's search index
    # stays quick (the index stems every distinct word).
    fixture = json.dumps({"rows": [{"id": i % 500, "name": "row", "vals": list(range(8))} for i in range(30_000)]})
    literal = json.loads(json.dumps(case["messages"]))
    literal[1]["content"][0]["input"]["content"] = fixture  # "<2 MB of JSON text>"
    ask = literal[0]
    rows = json.dumps({"rows": [{"i": i % 500, "v": "x" * 20} for i in range(140_000)]})  # ~5 MB
    newest = [
        ask,
        {
            "id": "c",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "q1", "name": "query", "input": {"sql": "select *"}}],
        },
        {"id": "r", "role": "user", "content": [{"type": "tool_result", "tool_use_id": "q1", "content": rows}]},
    ]
    calls = [{"type": "tool_use", "id": f"p{i}", "name": "read", "input": {"path": f"f{i}.txt"}} for i in range(40)]
    answers = [{"type": "tool_result", "tool_use_id": f"p{i}", "content": f"line {i} " * 12_500} for i in range(40)]
    parallel = [
        ask,
        {"id": "c", "role": "assistant", "content": calls},
        {"id": "r", "role": "user", "content": answers},
    ]
    return {"literal": literal, "5MB result": newest, "40 x 100KB": parallel}


@pytest.mark.parametrize("variant", ["literal", "5MB result", "40 x 100KB"])
def test_B59_huge_tool_payloads_are_cut_inside_their_structure(variant: str) -> None:
    """B59: a 2 MB ``write_file`` input, a 5 MB JSON tool result as the newest unit, 40 parallel calls
    answered with 100 KB each, at 8,000 tokens with the default estimator: the compile is valid and within
    budget, every tool_use input is still an object with its keys (path unchanged), every OpenAI
    ``arguments`` parses, each call is answered once, the cut says how much was cut, the journal keeps the
    full payloads, and the compile takes well under two seconds."""
    import time

    msgs = _b59_variants()[variant]
    cm = manager_for(msgs)
    before = journal_state(cm)
    started = time.perf_counter()
    result = cm.compile(8000)
    elapsed = time.perf_counter() - started
    assert_valid(result)
    assert result.tokens <= 8000
    assert elapsed < 2.0, elapsed
    _tool_pair_ok(result)
    stored = {b["id"]: b["input"] for m in msgs for b in m["content"] if b["type"] == "tool_use"}
    sent = {b["id"]: b["input"] for m in result.messages for b in m.content if b["type"] == "tool_use"}
    assert set(sent) == set(stored)
    for call_id, given_input in sent.items():
        assert isinstance(given_input, dict) and set(given_input) == set(stored[call_id])
        for key in ("path", "mode", "sql"):
            if key in stored[call_id]:
                assert given_input[key] == stored[call_id][key]
    for m in result.to_openai():
        for c in m.get("tool_calls") or []:
            assert isinstance(json.loads(c["function"]["arguments"]), dict)
    assert "cut here" in json.dumps([dict(b) for m in result.messages for b in m.content])
    assert any(r.kind == "excerpted" for r in result.repairs)
    assert journal_state(cm) == before


# --- B63: reductions priced before selection ----------------------------------------


def _b63_messages() -> list[dict[str, Any]]:
    """B63's input with its nested placeholders built: two ~300 KB PNGs and a 3,000-word page text."""
    case = load_case("B63")
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 1200).decode()
    msgs: list[dict[str, Any]] = json.loads(json.dumps(case["messages"]))
    for m in msgs:
        for b in m["content"]:
            for inner in b.get("content", []) if isinstance(b.get("content"), list) else []:
                if inner["type"] == "image":
                    inner["source"]["data"] = png
                elif inner["type"] == "text":
                    inner["text"] = words(3000)
    return msgs


@pytest.mark.parametrize("strategy", ["passthrough", "windowed", "autobiographical"])
def test_B63_reductions_are_priced_before_the_selection(strategy: str) -> None:
    """B63: an instruction, three tool calls answered by an image, 3,000 words and an image, at 2,600
    tokens (words counter, images 1,200, one image kept): with m3's image as a placeholder and m5 excerpted
    everything fits, so all of m1..m7 are kept, m1 verbatim, within budget; the journal keeps the image
    and the full text. No ``max_tool_result_tokens`` is given: m5, larger than the whole budget, can never
    be sent raw, so its excerpt is priced before the selection for every strategy."""
    from context_journal.strategies import AutobiographicalStrategy

    msgs = _b63_messages()
    call = load_case("B63")["call"]
    counter = WordCounter(image_cost=call["image_cost"])
    chosen = AutobiographicalStrategy() if strategy == "autobiographical" else strategy_named(strategy)
    cm = manager_for(msgs, counter=counter, strategy=chosen)
    before = journal_state(cm)
    result = cm.compile(call["budget"], options=CompileOptions(max_images=call["keep_last_images"]))
    assert_valid(result, counter)
    assert ids(result) == ["m1", "m2", "m3", "m4", "m5", "m6", "m7"]
    assert list(result.messages[0].content) == msgs[0]["content"]
    assert result.tokens <= call["budget"]
    kinds = {r.kind for r in result.repairs}
    assert "image_placeholder" in kinds and "excerpted" in kinds
    assert journal_state(cm) == before


@pytest.mark.parametrize("key", ["system", "messages"])
def test_B48_a_system_prompt_passed_to_the_export_is_refused_not_sent_past_the_limit(key: str) -> None:
    """A review passed ``to_anthropic(system=[two marked blocks], tools=[a marked tool])``: the system given
    replaced the compiled one after the markers were counted, and the request went out with five markers
    and no warning (six in a richer history). The compile builds the system prompt and the messages within
    its budget: either given to the export is a ``TypeError`` naming ``compile(system=...)``, and the same
    prompt given to the compile is counted and capped."""
    marked = {"type": "text", "text": "Rules.", "cache_control": {"type": "ephemeral"}}
    cm = ContextManager.open("memory:")
    cm.add_message("user", [{"type": "text", "text": "Hello", "cache_control": {"type": "ephemeral"}}])
    cm.add_message("assistant", "Hi.")
    cm.add_message("user", [{"type": "text", "text": "Go on", "cache_control": {"type": "ephemeral"}}])
    tools = [{"name": "t", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}]
    value: Any = [marked, dict(marked, text="More rules.")] if key == "system" else []
    with pytest.raises(TypeError, match=r"compile\(system=\.\.\.\)"):
        cm.compile(1_000).to_anthropic(tools=tools, **{key: value})
    if key == "system":
        params, _dropped = _export_recording(cm.compile(1_000, system=value), tools=tools)
        _assert_markers_sendable(params)
        assert len(_marker_paths(params)[1]) == 4
