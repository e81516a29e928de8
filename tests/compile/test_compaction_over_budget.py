"""A review of provider blocks: a ``compaction`` block larger than the compile budget. The block is sent exactly as
received or not at all (README, "Content blocks": ``compaction`` is never excerpted; its signature and
encrypted content must come back unchanged), so when the strategy must keep it (it is in the newest
turn) the compile raises ``OverBudgetError`` naming the block's message and its size, instead of a
bare "smallest valid context"; when it may give way (an older turn) it is left out whole, never cut;
and one that fits beside a long text is sent whole while the text is excerpted."""

from __future__ import annotations

from typing import Any

import pytest

from context_journal import AutobiographicalConfig, AutobiographicalStrategy, ContextManager
from context_journal.compile import OverBudgetError
from context_journal.strategies import PassthroughStrategy, WindowedPassthroughStrategy
from tests.compile.compile_helpers import assert_valid

Block = dict[str, Any]


def _compaction(words: int, **extra: Any) -> Block:
    summary = " ".join(f"step {k}: the user and the assistant fixed module_{k}.py." for k in range(words // 8))
    return {"type": "compaction", "content": summary, **extra}


STRATEGIES = {
    "passthrough": PassthroughStrategy,
    "windowed": WindowedPassthroughStrategy,
    "autobiographical": lambda: AutobiographicalStrategy(AutobiographicalConfig.for_budget(2000)),
}


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(
    "block",
    [
        _compaction(8000),
        _compaction(8000, signature="sig_" + "A" * 40),
        {"type": "compaction", "content": None, "encrypted_content": "RW5j" * 8000},
    ],
    ids=["summary", "signed", "encrypted-only"],
)
def test_a_compaction_in_the_newest_turn_over_the_budget_is_named(strategy: str, block: Block) -> None:
    make: Any = STRATEGIES[strategy]
    with ContextManager.open("memory:", strategy=make()) as cm:
        cm.add_message("user", "Carry on with the refactor.")
        for k in range(6):
            cm.add_message("assistant", f"Step {k} done.")
            cm.add_message("user", f"Next, step {k + 1}.")
        mid = cm.add_message("assistant", [block, {"type": "text", "text": "Continuing from the summary."}])
        cm.drain()
        with pytest.raises(OverBudgetError) as err:
            cm.compile(max_tokens=2000)
    e = err.value
    name = f"compaction block of {mid} (never cut)"
    assert name in e.parts
    assert e.parts[name] > e.budget == 2000
    assert e.actual >= e.parts[name]
    assert "a compaction block is never cut" in str(e) and mid in str(e)


def test_an_error_without_a_compaction_names_none() -> None:
    with ContextManager.open("memory:", strategy=PassthroughStrategy()) as cm:
        cm.add_message("user", "Refactor module_1.py. " * 2000)
        with pytest.raises(OverBudgetError) as err:
            cm.compile(max_tokens=50, reserve_for_response=40)
    assert not any(k.startswith("compaction block") for k in err.value.parts)
    assert "never cut" not in str(err.value)


@pytest.mark.parametrize("strategy", ["passthrough", "windowed"])
def test_an_older_compaction_over_the_budget_gives_way_whole(strategy: str) -> None:
    make: Any = STRATEGIES[strategy]
    block = _compaction(8000)
    with ContextManager.open("memory:", strategy=make()) as cm:
        cm.add_message("user", "Carry on.")
        cm.add_message("assistant", [block, {"type": "text", "text": "Continuing."}])
        for k in range(8):
            cm.add_message("user", f"Question {k} about module_{k}.py?")
            cm.add_message("assistant", f"Answer {k}: module_{k}.py is fine.")
        result = cm.compile(max_tokens=2000)
    assert_valid(result)
    assert result.tokens <= 2000
    sent = [b for m in result.messages for b in m.content]
    assert not any(b["type"] == "compaction" for b in sent)
    assert not any(isinstance(b.get("text"), str) and "step 0: the user" in b["text"] for b in sent)  # not cut


def test_a_compaction_that_fits_is_sent_whole_while_its_text_is_excerpted() -> None:
    block = _compaction(800, signature="sig_compaction_01")
    long_text = " ".join(f"Line {k}: checked module_{k}.py and its tests." for k in range(900))
    with ContextManager.open("memory:", strategy=PassthroughStrategy()) as cm:
        cm.add_message("user", "Carry on.")
        cm.add_message("assistant", [block, {"type": "text", "text": long_text}])
        result = cm.compile(max_tokens=3000)
        assert_valid(result)
        params = result.to_anthropic(cache=False)
    assert result.tokens <= 3000
    content = params["messages"][-1]["content"]
    assert content[0] == block
    assert content[1]["type"] == "text" and len(content[1]["text"]) < len(long_text)
