"""A review of provider blocks: where the assistant-only blocks (``thinking``, OpenAI ``reasoning``, server and MCP
tool pairs, ``compaction``) may go is decided per compile, not at write. A participant is a free name
and the compile maps it to a role (``compile(assistant=...)``, the namespace's roles): the same stored
message is the assistant's turn for one reader and another speaker's for the next. So a write keeps
such a block in any participant's message, and every compile treats them alike: sent as stored in the
compile's assistant turn; outside it, thinking and reasoning are left out (they are the model's own
and cannot be shown to another), and the provider blocks are shown as text. Every export stays valid."""

from __future__ import annotations

from typing import Any

import pytest

from context_journal import ContextManager
from tests.compile.compile_helpers import assert_valid
from tests.provider_shapes import compaction_block, mcp_pair, web_search_pair

Block = dict[str, Any]

REASONING: Block = {"type": "reasoning", "id": "rs_01", "summary": [], "encrypted_content": "gAAAAB" + "x" * 40}
THINKING: Block = {"type": "thinking", "thinking": "Check the docs first.", "signature": "sig_01"}

CASES: dict[str, tuple[list[Block], str]] = {
    # blocks of the message, what a compile for another assistant makes of them
    "reasoning": ([REASONING], "reasoning_dropped_outside_assistant"),
    "thinking": ([THINKING], "thinking_dropped_outside_assistant"),
    "server-pair": (web_search_pair()[:2], "provider_block_transcribed"),
    "mcp-pair": (mcp_pair(size=2), "provider_block_transcribed"),
    "compaction": ([compaction_block()], "provider_block_transcribed"),
}


def _compile(blocks: list[Block], assistant: str | None) -> Any:
    with ContextManager.open("memory:") as cm:
        cm.add_message("user", "What changed in the release?")
        cm.add_message("gpt", [*blocks, {"type": "text", "text": "Here is what changed."}])
        cm.add_message("user", "Thanks.")
        result = cm.compile(max_tokens=100_000, assistant=assistant)
        assert_valid(result)
        return result, result.to_anthropic(cache=False)


@pytest.mark.parametrize("case", CASES)
def test_sent_as_stored_in_the_compiles_assistant_turn(case: str) -> None:
    blocks, _ = CASES[case]
    result, params = _compile(blocks, assistant="gpt")
    turn = result.messages[1]
    assert turn.role == "assistant"
    assert list(turn.content[: len(blocks)]) == blocks
    assert not result.repairs
    if case != "reasoning":  # reasoning goes to the Responses API only
        assert params["messages"][1]["content"][: len(blocks)] == blocks


@pytest.mark.parametrize("case", CASES)
def test_another_speakers_turn_drops_or_transcribes_them(case: str) -> None:
    blocks, repair = CASES[case]
    result, params = _compile(blocks, assistant=None)  # "gpt" is another speaker here
    turn = result.messages[1]
    assert turn.role == "user"
    kinds = [b["type"] for b in turn.content]
    assert set(kinds) == {"text"}
    assert repair in {r.kind for r in result.repairs}
    texts = " ".join(b["text"] for b in turn.content)
    if case in ("reasoning", "thinking"):
        assert "Check the docs" not in texts and "gAAAAB" not in texts
        assert len(kinds) == 1
    else:
        assert len(kinds) == len(blocks) + 1  # each block a line of text, then the answer
    assert "Here is what changed." in texts
    assert all(m["role"] in ("user", "assistant") for m in params["messages"])
