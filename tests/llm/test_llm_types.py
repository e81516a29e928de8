"""Request and response models, the Provider protocol, and the sync bridge."""

from __future__ import annotations

import asyncio
import threading

import pytest
from pydantic import ValidationError

from context_journal.llm import (
    LLMRequest,
    LLMResponse,
    OfflineSummarizer,
    Provider,
    ProviderRefusalError,
    ProviderResponseError,
    Usage,
    complete_sync,
    run_sync,
)
from context_journal.testing import ScriptedProvider


def test_string_content_is_one_text_block() -> None:
    req = LLMRequest(messages=[{"role": "user", "content": "hi"}])
    assert req.messages[0].content[0].model_dump() == {"type": "text", "text": "hi"}


def test_request_validation() -> None:
    with pytest.raises(ValidationError):
        LLMRequest(messages=[])
    with pytest.raises(ValidationError):
        LLMRequest(messages=[{"role": "system", "content": "x"}])
    with pytest.raises(ValidationError):
        LLMRequest(messages=[{"role": "user", "content": []}])
    with pytest.raises(ValidationError):
        LLMRequest(messages=[{"role": "user", "content": [{"type": "bogus"}]}])
    with pytest.raises(ValidationError):
        LLMRequest(messages=[{"role": "user", "content": "x"}], max_tokens=0)


def test_fingerprint_is_stable_and_sensitive() -> None:
    a = LLMRequest(messages=[{"role": "user", "content": "hi"}], metadata={"b": 1, "a": 2})
    b = LLMRequest(messages=[{"role": "user", "content": "hi"}], metadata={"a": 2, "b": 1})
    c = LLMRequest(messages=[{"role": "user", "content": "hi!"}])
    assert a.fingerprint() == b.fingerprint() != c.fingerprint()
    assert len(a.fingerprint()) == 64


def test_system_text_joins_blocks() -> None:
    req = LLMRequest(
        messages=[{"role": "user", "content": "x"}],
        system=[{"type": "text", "text": "A"}, {"type": "text", "text": "B"}],
    )
    assert req.system_text == "A\n\nB"


def test_require_text() -> None:
    assert LLMResponse(content="  fine  ").require_text() == "fine"
    with pytest.raises(ProviderRefusalError):
        LLMResponse(content="no", stop_reason="refusal").require_text()
    with pytest.raises(ProviderResponseError) as info:
        LLMResponse(content="cut", stop_reason="max_tokens").require_text()
    assert info.value.stop_reason == "max_tokens"
    with pytest.raises(ProviderResponseError, match="no text"):
        LLMResponse(content=[]).require_text()
    assert LLMResponse(content="cut", stop_reason="max_tokens").require_text(allowed_stops=("max_tokens",)) == "cut"


def test_usage_total() -> None:
    assert Usage(input_tokens=1, cache_read_input_tokens=2, cache_creation_input_tokens=3).total_input_tokens == 6


def test_builtin_providers_satisfy_the_protocol() -> None:
    assert isinstance(OfflineSummarizer(), Provider)
    assert isinstance(ScriptedProvider(), Provider)


def test_run_sync_without_and_with_a_running_loop() -> None:
    async def answer() -> tuple[int, str]:
        await asyncio.sleep(0)
        return 42, threading.current_thread().name

    value, thread = run_sync(answer())
    assert value == 42 and thread == threading.current_thread().name

    async def inside() -> tuple[int, str]:
        return run_sync(answer())  # a loop is running here: runs on a worker thread

    value, thread = asyncio.run(inside())
    assert value == 42 and thread.startswith("context-journal-run-sync")


def test_complete_sync() -> None:
    provider = ScriptedProvider(["done"])
    resp = complete_sync(provider, LLMRequest(messages=[{"role": "user", "content": "go"}]))
    assert resp.text == "done"
