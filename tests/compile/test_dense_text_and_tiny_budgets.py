"""Dense short text can be excerpted, and from the smallest budget that fits, every larger one fits, with no
message sent as its bare cut marker (issue 13, kind 2: "no message is dropped that would fit after
reductions").

Reviews found four holes of the kind:

* an excerpt left every text under 200 characters whole, judging by characters alone, while dense text
  costs far more per character: 30 identifiers on their lines (170 characters) cost 204 tokens and failed
  every budget under that; a tool result listing ten files (89 characters, 56 tokens) fitted at 105 tokens
  (excerpted by the overflow reductions, which cut it anyway) and failed at 106;
* the search for a message's smallest readable excerpt stepped by a fiftieth and more, so a newest message cut
  again from its overflow excerpt took 47 tokens where 38 kept a hundredth: 97 tokens fitted, 98-101 failed;
* a cited answer of many short fragments could not be cut (each fragment too short, and the runs of short
  blocks an excerpt joins took plain blocks only);
* the opening message went as its bare marker ("[… about 67 of 67 tokens cut here …]") at small budgets;
  once it was kept readable, it was set so after the others were cut, and a history that fitted at 117
  tokens failed at 118-119.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import CompileResult, ContextManager, OverBudgetError
from context_journal.rendering.repairs import SHORT_TEXT, SHORT_TOKENS, cuttable, excerpt_blocks, text_tokens_kept
from context_journal.tokens import EstimatingCounter
from tests.compile.compile_helpers import bare_blocks, cited_answer, smallest_budget, varied_history
from tests.hypothesis_budget import examples

COUNTER = EstimatingCounter()
STRATEGIES = ("windowed", "autobiographical", "passthrough")


def _compile(cm: ContextManager, budget: int) -> CompileResult | None:
    try:
        return cm.compile(budget)
    except OverBudgetError:
        return None


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from(STRATEGIES))
def test_every_budget_above_the_smallest_fits_and_sends_no_bare_marker(seed: int, strategy: str) -> None:
    """From the smallest budget that fits, the next 40 fit too, and no stored message sent in any of them
    (nor any block of one) keeps nothing of its text."""
    cm = ContextManager.open("memory:", strategy=strategy)
    varied_history(cm, random.Random(seed))
    smallest = smallest_budget(cm, 4000)
    for budget in range(smallest, smallest + 40):
        result = _compile(cm, budget)
        assert result is not None, (budget, smallest)
        assert result.tokens <= budget
        assert not bare_blocks(result), (budget, bare_blocks(result))


def test_dense_short_text_is_cuttable() -> None:
    """Under 200 characters, a text is cut when it costs more than SHORT_TOKENS; prose of that length is not."""
    identifiers = "\n".join(f"w{j}x0" for j in range(30))
    chinese = "这是一个关于部署的问题" * 17
    files = "\n".join(f"file{j}.py" for j in range(10))
    prose = "The deployment failed last night because the migration timed out, and the engineer rolled it back."
    for text in (identifiers, chinese, files):
        assert len(text) <= SHORT_TEXT and COUNTER.count_block({"type": "text", "text": text}) > SHORT_TOKENS
        assert not cuttable(text) and cuttable(text, COUNTER)
        cut = excerpt_blocks([{"type": "text", "text": text}], 0.2, COUNTER, None)
        assert "tokens cut here" in cut[0]["text"]
        assert COUNTER.count_message("user", cut) < COUNTER.count_message("user", [{"type": "text", "text": text}])
    assert not cuttable(prose, COUNTER)
    assert excerpt_blocks([{"type": "text", "text": prose}], 0.0, COUNTER, None)[0]["text"] == prose


def _newest(content: Any, strategy: str = "windowed") -> ContextManager:
    cm = ContextManager.open("memory:", strategy=strategy)
    for i in range(3):
        cm.add_message("user", f"earlier question {i} about the deployment of service {i}")
        cm.add_message("assistant", f"earlier answer {i}: the service {i} was deployed on host h{i}")
    cm.add_message("user", content)
    return cm


def test_a_message_of_dense_blocks_fits_well_under_its_size() -> None:
    """30 identifiers, one block each (214 tokens whole, 170 characters joined): failed every budget under
    204 before; now the smallest context (the earlier turns as a note, and them cut) is under half of that
    (90 tokens, keeping "w0" and "x0", until its smallest readable excerpt was cut from the message as written
    rather than from the overflow excerpt drawn for the budget: a hundredth of it is its first character)."""
    cm = _newest([{"type": "text", "text": f"w{j}x0"} for j in range(30)], "autobiographical")
    smallest = smallest_budget(cm, 4000)
    assert smallest == 84, smallest
    text = cm.compile(smallest).messages[-1].content[0]["text"]
    assert text.startswith("w\n[… about 198 of 200 tokens cut here"), text


def test_a_file_list_result_fits_at_every_budget_from_its_smallest() -> None:
    """A Bash result of ten file names (89 characters, 56 tokens) after its call: 105 fitted and 106
    failed (the overflow excerpt cut it, the excerpt after the selection did not)."""
    cm = ContextManager.open("memory:", strategy="autobiographical")
    cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls -la"}}])
    files = "\n".join(f"file{j}.py" for j in range(10))
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": files}])
    cm.add_message("assistant", "done listing")
    whole = cm.compile(10_000).tokens
    smallest = smallest_budget(cm, 4000)
    assert smallest < whole
    assert all(_compile(cm, b) is not None for b in range(smallest, whole + 5))


def test_the_smallest_readable_excerpt_is_found_between_coarse_shares() -> None:
    """The review's history (60 one-word blocks, autobiographical): 97 fitted, 98-101 failed naming 104."""
    cm = _newest([{"type": "text", "text": f"w{j}x0"} for j in range(60)], "autobiographical")
    smallest = smallest_budget(cm, 4000)
    assert smallest <= 97
    for budget in range(smallest, 130):
        result = _compile(cm, budget)
        assert result is not None, budget
        assert not bare_blocks(result)


def test_a_cited_answer_of_many_fragments_is_excerpted() -> None:
    """An answer of 60 cited fragments and the joins between them (about 800 tokens): before, nothing under
    675 tokens fitted; its fragments are now cut as one text."""
    cm = _newest("What does the spec say?")
    cm.add_message("assistant", cited_answer(120))
    whole = cm.compile(100_000).tokens
    smallest = smallest_budget(cm, 4000)
    assert smallest == 43 < whole // 4, (smallest, whole)
    text = cm.compile(smallest).messages[-1].content[0]["text"]
    assert text.startswith("rule 0 app\n[… about 335 of 339 tokens cut here"), text


def test_the_opening_message_is_never_its_bare_marker() -> None:
    """Rules (176 tokens), 20 plain turns, a question and an answer, nothing summarised: at 94 tokens the
    rules went as their bare marker ("[… about 176 of 176 tokens cut here …]"); now the compile
    fails below the smallest context that keeps a little of them, and fits from there."""
    cm = ContextManager.open("memory:", strategy="autobiographical")
    cm.add_message("user", "Project rules: " + " ".join(f"always check module{j} before release" for j in range(20)))
    for k in range(20):
        cm.add_message("assistant" if k % 2 else "user", f"turn {k}: " + "the build is green again " * 8)
    cm.add_message("user", "Which module failed?")
    cm.add_message("assistant", "Module 7 failed its checks " * 12)
    smallest = smallest_budget(cm, 4000)
    for budget in range(smallest, smallest + 60):
        result = _compile(cm, budget)
        assert result is not None, budget
        assert not bare_blocks(result), (budget, bare_blocks(result))
    opening = cm.compile(smallest).messages[0].content
    kept, whole = text_tokens_kept(opening, COUNTER)
    assert kept / whole >= 0.01 and opening[0]["text"].startswith("Pro"), opening
