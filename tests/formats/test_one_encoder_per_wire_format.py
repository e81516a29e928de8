"""One encoder per wire format: the exporters (``to_openai``, ``to_anthropic``) and the LLM adapters
(``encode_openai_request``, ``encode_anthropic_request``) send the same messages for the same blocks, on a
real Claude Code session and on generated turns (they once disagreed: an error result was "[error] ..." in
one Chat Completions encoder and "Error: ..." in the other; the Anthropic adapter sent a block's
``audience`` and host fields, which the API refuses)."""

from __future__ import annotations

import base64
from itertools import groupby
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from context_journal import ContextManager, read_transcript
from context_journal.formats import import_into
from context_journal.formats.exporters import to_anthropic, to_openai
from context_journal.llm import LLMRequest, ProviderRequestError
from context_journal.llm.anthropic import encode_anthropic_request
from context_journal.llm.openai import encode_openai_request
from context_journal.stores import MemoryStore
from context_journal.strategies import WindowedPassthroughStrategy

SESSIONS = Path(__file__).resolve().parents[3] / "shared" / "data" / "claude-code-sessions"
PNG = base64.b64encode(b"\x89PNG fake").decode()
PDF = base64.b64encode(b"%PDF-1.4").decode()


def compiled(system: str, turns: list[tuple[str, list[dict[str, Any]]]]) -> Any:
    """A stand-in for a compiled context holding ``turns``, with the fields the exporters read."""
    return SimpleNamespace(
        messages=[SimpleNamespace(role=r, content=tuple(c), cache_breakpoint=False) for r, c in turns],
        system=({"type": "text", "text": system},) if system else (),
        get_blob=None,
        assistant=("assistant",),
    )


def exported(system: str, turns: list[tuple[str, list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """``to_openai`` of a compiled context holding ``turns``."""
    return to_openai(compiled(system, turns))


def adapter_messages(system: str, turns: list[tuple[str, list[dict[str, Any]]]]) -> list[dict[str, Any]]:
    request = LLMRequest(system=system, messages=[{"role": r, "content": c} for r, c in turns])
    messages: list[dict[str, Any]] = encode_openai_request(request, model="m")["messages"]
    return messages


def test_a_real_session_encodes_the_same_through_the_exporter_and_the_adapter() -> None:
    path = sorted(SESSIONS.glob("*.jsonl"))[0]
    store = MemoryStore()
    import_into(store, read_transcript(path))
    cm = ContextManager(store, strategy=WindowedPassthroughStrategy())
    result = cm.compile(16_000)
    sent = result.to_openai()
    turns = [
        (role, [dict(b) for m in group for b in m.content])
        for role, group in groupby(result.messages, key=lambda m: m.role)
    ]
    system = "\n\n".join(str(b.get("text", "")) for b in result.system if b.get("type") == "text")
    assert len(sent) > 20 and any(m["role"] == "tool" for m in sent)
    assert adapter_messages(system, turns) == sent


TEXT = st.builds(lambda t: {"type": "text", "text": t}, st.sampled_from(["hi", "Now what?", "a\nb", "ok."]))
USE = st.builds(
    lambda k, args: {"type": "tool_use", "id": f"call_{k}", "name": "Read", "input": args},
    st.integers(0, 3),
    st.sampled_from([{}, {"path": "/etc/a"}, {"q": "ü", "n": [1, 2]}]),
)
NESTED = st.sampled_from(
    [
        {"type": "text", "text": "no such file"},
        {"type": "text", "text": "   "},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "image", "source": {"type": "file", "file_id": "file_9"}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "doc text"}},
    ]
)
RESULT = st.builds(
    lambda k, content, error: (
        {"type": "tool_result", "tool_use_id": f"call_{k}", "content": content} | ({"is_error": True} if error else {})
    ),
    st.integers(0, 3),
    st.one_of(st.sampled_from(["", "a=1", "done"]), st.lists(NESTED, max_size=3)),
    st.booleans(),
)
MEDIA = st.sampled_from(
    [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
        {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}},
        {"type": "document", "source": {"type": "url", "url": "https://x/y.pdf"}},
        {"type": "document", "source": {"type": "file", "file_id": "file_2"}},
    ]
)
THINKING = st.just({"type": "thinking", "thinking": "hm", "signature": "sig"})
REASONING = st.just({"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "why"}]})
USER = st.lists(st.one_of(TEXT, RESULT, MEDIA), min_size=1, max_size=4)
ASSISTANT = st.lists(st.one_of(TEXT, USE, THINKING, REASONING, MEDIA), min_size=1, max_size=4)


@given(st.lists(st.tuples(USER, ASSISTANT), min_size=1, max_size=4))
def test_generated_turns_encode_the_same_through_the_exporter_and_the_adapter(
    pairs: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]],
) -> None:
    turns = [t for user, assistant in pairs for t in (("user", user), ("assistant", assistant))]
    assert adapter_messages("Be brief.", turns) == exported("Be brief.", turns)


@given(st.lists(st.tuples(USER, ASSISTANT), min_size=1, max_size=4))
def test_generated_turns_encode_the_same_through_to_anthropic_and_the_anthropic_adapter(
    pairs: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]],
) -> None:
    turns = [t for user, assistant in pairs for t in (("user", user), ("assistant", assistant))]
    request = LLMRequest(system="Be brief.", messages=[{"role": r, "content": c} for r, c in turns])
    sent = to_anthropic(compiled("Be brief.", turns), cache=False)
    if any(all(b["type"] == "reasoning" for b in blocks) for _, blocks in turns):
        # A turn of OpenAI reasoning alone: the exporter leaves it out, the adapter refuses the request.
        with pytest.raises(ProviderRequestError, match="OpenAI reasoning"):
            encode_anthropic_request(request, model="m")
        return
    assert encode_anthropic_request(request, model="m")["messages"] == sent["messages"]
    assert "reasoning" not in {b["type"] for m in sent["messages"] for b in m["content"]}


@pytest.mark.parametrize("error", [True, False])
def test_an_error_result_reads_the_same_in_both(error: bool) -> None:
    result = {"type": "tool_result", "tool_use_id": "call_1", "content": "permission denied", "is_error": error}
    turns: list[tuple[str, list[dict[str, Any]]]] = [
        ("user", [{"type": "text", "text": "go"}]),
        ("assistant", [{"type": "tool_use", "id": "call_1", "name": "Bash", "input": {"command": "ls /root"}}]),
        ("user", [result]),
    ]
    want = "[error] permission denied" if error else "permission denied"
    assert adapter_messages("", turns)[2] == {"role": "tool", "tool_call_id": "call_1", "content": want}
    assert exported("", turns)[2]["content"] == want


def test_a_real_session_encodes_the_same_through_to_anthropic_and_the_anthropic_adapter() -> None:
    path = sorted(SESSIONS.glob("*.jsonl"))[0]
    store = MemoryStore()
    import_into(store, read_transcript(path))
    result = ContextManager(store, strategy=WindowedPassthroughStrategy()).compile(16_000)
    sent = to_anthropic(result, cache=False)
    turns = [
        (role, [dict(b) for m in group for b in m.content])
        for role, group in groupby(result.messages, key=lambda m: m.role)
    ]
    request = LLMRequest(system=list(sent.get("system", [])), messages=[{"role": r, "content": c} for r, c in turns])
    assert len(sent["messages"]) > 20
    assert encode_anthropic_request(request, model="m")["messages"] == sent["messages"]


def test_a_block_for_one_reader_reaches_the_anthropic_api_without_its_audience() -> None:
    block = {"type": "text", "text": "for ann", "audience": ["ann"], "host_field": 1}
    request = LLMRequest(messages=[{"role": "user", "content": [block]}])
    assert encode_anthropic_request(request, model="m")["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "for ann"}]}
    ]
