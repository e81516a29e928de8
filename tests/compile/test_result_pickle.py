"""A compiled context pickles (a host that compiles in a worker process sends it back to the parent): the
unpickled result is equal, exports the same provider payloads and draws the same context map, with its
store closed. A review found every ``CompileResult`` unpicklable: it held the store's blob reader and a
trace reading the store's view, both behind a lock."""

from __future__ import annotations

import base64
import concurrent.futures
import pickle
from pathlib import Path

import pytest

from context_journal import ContextManager
from context_journal.compile import CompileResult
from context_journal.errors import StoreClosedError
from context_journal.strategies import (
    AutobiographicalConfig,
    AutobiographicalStrategy,
    PassthroughStrategy,
    Strategy,
    WindowedPassthroughStrategy,
)
from tests.real_stores import copy_store

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


@pytest.mark.parametrize(
    "strategy",
    [
        PassthroughStrategy(),
        WindowedPassthroughStrategy(),
        AutobiographicalStrategy(AutobiographicalConfig.for_budget(16_000)),
    ],
    ids=["passthrough", "windowed", "autobiographical"],
)
def test_a_real_session_compiled_pickles_whole(cli_imported_session: Path, tmp_path: Path, strategy: Strategy) -> None:
    path = copy_store(cli_imported_session, tmp_path / "cc.db")
    with ContextManager.open(path, strategy=strategy) as cm:
        cm.drain()  # the offline summarizer (a no-op for the strategies that do not compress)
        result = cm.compile(16_000)
        expected = (result.to_anthropic(), result.to_openai(), result.to_html())
        data = pickle.dumps(result)
    back = pickle.loads(data)  # the store is closed now
    assert back == result
    assert (back.to_anthropic(), back.to_openai(), back.to_html()) == expected
    assert back.trace is not None and back.trace.placements == result.trace.placements  # type: ignore[union-attr]


def test_stored_media_travel_with_the_result() -> None:
    cm = ContextManager.open("memory:")
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()},
    }
    cm.add_message("user", [{"type": "text", "text": "What is in this picture?"}, image])
    cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "zoom", "input": {"x": 1}}])
    cm.add_message("tool", [{"type": "tool_result", "tool_use_id": "t1", "content": [image]}])  # nested media
    cm.add_message("assistant", "A test card.")
    result = cm.compile(8_000)
    data = pickle.dumps(result)
    live = (result.to_anthropic(), result.to_openai(), result.to_openai_responses())
    cm.close()
    back = pickle.loads(data)
    assert (back.to_anthropic(), back.to_openai(), back.to_openai_responses()) == live
    sent = back.to_anthropic()["messages"][0]["content"][1]["source"]
    assert base64.b64decode(sent["data"]) == PNG
    with pytest.raises(StoreClosedError):
        result.to_anthropic()  # the original still reads its store, which is closed
    with pytest.raises(StoreClosedError):
        pickle.dumps(result)  # its media can no longer be read


def _compile_in_child(path: str) -> tuple[CompileResult, tuple[object, ...]]:
    with ContextManager.open(path, strategy=WindowedPassthroughStrategy()) as cm:
        result = cm.compile(8_000)
        return result, (result.to_anthropic(), result.to_openai(), result.to_openai_responses(), result.to_html())


def test_a_result_compiled_in_a_worker_process_comes_back(cli_imported_session: Path, tmp_path: Path) -> None:
    path = copy_store(cli_imported_session, tmp_path / "cc.db")
    with concurrent.futures.ProcessPoolExecutor(max_workers=1) as pool:
        result, there = pool.submit(_compile_in_child, str(path)).result(timeout=120)
    assert result.messages and result.tokens <= 8_000
    assert (result.to_anthropic(), result.to_openai(), result.to_openai_responses(), result.to_html()) == there
