"""Exporters against the official SDKs: the shapes conform to the SDKs' own request types (TypedDicts,
checked key by key), the SDK clients accept and send them (through a mock transport: no network), at
most 4 cache breakpoints, media resolved from blobs, participants mapped to roles."""

from __future__ import annotations

import base64
import json
import types
import typing
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import typing_extensions

try:
    import httpx2 as httpx  # the SDKs' HTTP client (anthropic >= 2, openai >= 3)
except ImportError:  # pragma: no cover - older SDKs use httpx
    import httpx  # type: ignore[no-redef]
import pytest

from context_journal.compile import CompileResult
from context_journal.manager import ContextManager
from tests.compile.compile_helpers import assert_valid, words
from tests.provider_shapes import CHAR_LOCATION

anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")


def _sdk_http(sdk: Any) -> Any:
    """The HTTP client module ``sdk`` is built on (``httpx2`` for anthropic >= 1.0 and openai >= 3,
    ``httpx`` for older openai releases), found from its ``DefaultHttpxClient``."""
    import importlib

    base = next(k for k in sdk.DefaultHttpxClient.__mro__ if k.__name__ == "Client" and k.__module__ != sdk.__name__)
    return importlib.import_module(base.__module__.split(".")[0])


PNG = bytes(range(256))
PDF = b"%PDF-1.4 test document"


def conforms(value: Any, tp: Any, path: str = "$") -> list[str]:
    """Errors of ``value`` against a typing annotation (TypedDicts strictly: no unknown keys)."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is typing.Any or tp is object:
        return []
    if origin in (
        typing.Required,
        typing.NotRequired,
        typing.Annotated,
        typing_extensions.Required,
        typing_extensions.NotRequired,
    ):
        return conforms(value, args[0], path)
    if origin in (typing.Union, types.UnionType):
        errors: list[str] = []
        for member in args:
            found = conforms(value, member, path)
            if not found:
                return []
            errors.append("; ".join(found[:2]))
        return [f"{path}: matches no member of the union ({' | '.join(errors)[:400]})"]
    if origin is typing.Literal:
        return [] if value in args else [f"{path}: {value!r} not in {args}"]
    if tp is type(None):
        return [] if value is None else [f"{path}: expected None"]
    if typing_extensions.is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: expected an object for {tp.__name__}"]
        hints = typing.get_type_hints(tp, include_extras=True)
        errors = [f"{path}: unknown key {k!r} for {tp.__name__}" for k in value if k not in hints]
        required = set(tp.__required_keys__) | {
            k for k, h in hints.items() if typing.get_origin(h) in (typing.Required, typing_extensions.Required)
        }
        errors += [f"{path}: missing {k!r} for {tp.__name__}" for k in required if k not in value]
        for k, v in value.items():
            if k in hints:
                errors += conforms(v, hints[k], f"{path}.{k}")
        return errors
    if isinstance(tp, type) and issubclass(tp, (str, bool, int, float)):
        ok = isinstance(value, tp) and not (tp is int and isinstance(value, bool))
        return [] if ok or (tp is float and isinstance(value, int)) else [f"{path}: expected {tp.__name__}"]
    if origin in (list, Iterable, Sequence, typing.Iterable, typing.Sequence, typing.List):  # noqa: UP006
        if not isinstance(value, list):
            return [f"{path}: expected a list"]
        out: list[str] = []
        for i, item in enumerate(value):
            out += conforms(item, args[0], f"{path}[{i}]")
        return out
    if origin in (dict, Mapping, typing.Dict) or tp in (dict, Mapping):  # noqa: UP006
        return [] if isinstance(value, dict) else [f"{path}: expected an object"]
    if isinstance(tp, type):  # response models (pydantic) and other classes: a dict is not one
        return [f"{path}: {type(value).__name__} is not a {tp.__name__}"]
    return []


def _rich_manager() -> ContextManager:
    png = base64.b64encode(PNG).decode()
    pdf = base64.b64encode(PDF).decode()
    cm = ContextManager.open("memory:")
    cm.add_messages(
        [
            {"participant": "system", "content": "You are a careful coding agent.", "metadata": {"role": "system"}},
            {
                "participant": "user",
                "content": [
                    {"type": "text", "text": "What is in this screenshot and this file?"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
                    {
                        "type": "document",
                        "source": {"type": "base64", "media_type": "application/pdf", "data": pdf},
                        "title": "spec.pdf",
                    },
                ],
            },
            {
                "participant": "Claude",
                "content": [
                    {"type": "thinking", "thinking": "I should look.", "signature": "c2lnbmF0dXJl"},
                    {"type": "text", "text": "Let me run two tools."},
                    {"type": "tool_use", "id": "a1", "name": "bash", "input": {"cmd": "ls"}},
                    {"type": "tool_use", "id": "a2", "name": "screenshot", "input": {}},
                ],
            },
            {
                "participant": "tool",
                "content": [
                    {"type": "tool_result", "tool_use_id": "a1", "content": "README.md\nsrc", "is_error": False},
                    {
                        "type": "tool_result",
                        "tool_use_id": "a2",
                        "content": [
                            {"type": "text", "text": "captured"},
                            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
                        ],
                    },
                ],
            },
            {
                "participant": "Claude",
                "content": [{"type": "text", "text": "Two files. " + words(40)}],
                "metadata": {"host": "x"},
            },
            {"participant": "ann", "content": "ann here: what about the tests?"},
            {
                "participant": "user",
                "content": [{"type": "text", "text": "Also check the tests.", "citations": None, "host_field": 1}],
            },
        ]
    )
    return cm


@pytest.fixture
def result() -> Iterator[CompileResult]:
    with _rich_manager() as cm:  # stored media are read from the open store when exported
        r = cm.compile(100_000, system="Answer briefly.")
        assert_valid(r)
        yield r


def test_anthropic_params_conform_to_the_sdk_request_types(result: CompileResult) -> None:
    from anthropic.types import MessageParam, TextBlockParam

    params = result.to_anthropic(assistant="Claude")
    assert set(params) == {"system", "messages"}
    assert conforms(params["system"], list[TextBlockParam]) == []
    for i, message in enumerate(params["messages"]):
        assert conforms(message, MessageParam, f"messages[{i}]") == []
    roles = [m["role"] for m in params["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    assert params["messages"][-1]["content"][0]["text"] == "ann: ann here: what about the tests?"
    assert "host_field" not in json.dumps(params)  # host fields stay in the journal
    image = params["messages"][0]["content"][1]
    assert image["source"] == {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()}
    marks = [b for b in params["system"] if "cache_control" in b]
    marks += [b for m in params["messages"] for b in m["content"] if "cache_control" in b]
    assert 1 <= len(marks) <= 4
    assert all(b["type"] != "thinking" for b in marks)


def test_anthropic_client_accepts_and_sends_the_params(result: CompileResult) -> None:
    sent: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(
            200,
            json={
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [{"type": "text", "text": "ok"}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        )

    client = anthropic.Anthropic(
        api_key="test",
        base_url="http://localhost.test",
        http_client=httpx.Client(transport=httpx.MockTransport(handler)),
    )
    params = result.to_anthropic(model="claude-test", max_tokens=100)
    reply = client.messages.create(**params)
    assert reply.content[0].text == "ok"
    assert sent[0]["messages"] == params["messages"]
    assert sent[0]["system"] == params["system"]


def test_openai_messages_conform_to_the_sdk_request_types(result: CompileResult) -> None:
    from openai.types.chat import ChatCompletionMessageParam

    messages = result.to_openai(assistant="Claude")
    for i, message in enumerate(messages):
        assert conforms(message, ChatCompletionMessageParam, f"messages[{i}]") == []
    roles = [m["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "tool", "tool", "user", "assistant", "user"]
    assert [c["function"]["name"] for c in messages[2]["tool_calls"]] == ["bash", "screenshot"]
    assert json.loads(messages[2]["tool_calls"][0]["function"]["arguments"]) == {"cmd": "ls"}
    assert messages[4]["content"] == "captured"
    # The screenshot a tool message cannot carry follows the tool messages, as an image the model sees.
    assert messages[5]["content"][0]["image_url"]["url"].startswith("data:image/png;base64,")
    parts = messages[1]["content"]
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert parts[2]["type"] == "file"


def test_openai_client_accepts_and_sends_the_messages(result: CompileResult) -> None:
    http = _sdk_http(openai)  # openai < 3 is built on httpx, not httpx2
    sent: list[dict[str, Any]] = []

    def handler(request: Any) -> Any:  # http's Request and Response: httpx2's or httpx's
        sent.append(json.loads(request.content))
        return http.Response(
            200,
            json={
                "id": "c1",
                "object": "chat.completion",
                "created": 0,
                "model": "gpt-test",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
            },
        )

    client = openai.OpenAI(
        api_key="test",
        base_url="http://localhost.test/v1",
        http_client=http.Client(transport=http.MockTransport(handler)),
    )
    messages = result.to_openai()
    reply = client.chat.completions.create(model="gpt-test", messages=messages)
    assert reply.choices[0].message.content == "ok"
    assert sent[0]["messages"] == messages


def test_export_refuses_an_assistant_the_compile_did_not_use(result: CompileResult) -> None:
    with pytest.raises(ValueError, match="compile with assistant="):
        result.to_anthropic(assistant="ann")


def test_assistant_name_given_at_compile_renders_its_turns_as_assistant() -> None:
    cm = ContextManager.open("memory:")
    cm.add_messages(
        [
            {"participant": "developer", "content": "hi"},
            {"participant": "claude-opus-4-6", "content": [{"type": "tool_use", "id": "x", "name": "ls", "input": {}}]},
            {
                "participant": "tools:claude-code",
                "content": [{"type": "tool_result", "tool_use_id": "x", "content": "a"}],
            },
        ]
    )
    result = cm.compile(10_000, assistant="claude-opus-4-6")
    assert_valid(result)
    assert [m.role for m in result.messages] == ["user", "assistant", "user"]
    assert result.to_anthropic(assistant="claude-opus-4-6")["messages"][1]["content"][0]["type"] == "tool_use"
    # Without it the calls are someone else's: shown as text, never sent as the model's own.
    plain = cm.compile(10_000)
    assert_valid(plain)
    assert all(b["type"] == "text" for m in plain.messages for b in m.content)


def test_cache_breakpoints_never_exceed_four() -> None:
    from context_journal.strategies.base import RenderedEntry  # noqa: F401  (the entry kind that asks)

    cm = ContextManager.open("memory:")
    for k in range(30):
        cm.add_message("user" if k % 2 == 0 else "assistant", words(20, k))
    params = cm.compile(100_000, system="sys").to_anthropic()
    marks = [b for b in params["system"] if "cache_control" in b]
    marks += [b for m in params["messages"] for b in m["content"] if "cache_control" in b]
    assert len(marks) <= 4
    assert "cache_control" in params["messages"][-1]["content"][-1]
    assert "cache_control" not in json.dumps(cm.compile(100_000).to_anthropic(cache=False))


def test_the_shape_checker_rejects_what_the_sdk_types_do_not_allow() -> None:
    from anthropic.types import MessageParam
    from openai.types.chat import ChatCompletionMessageParam

    assert conforms({"role": "user", "content": [{"type": "text", "text": "x", "audience": ["a"]}]}, MessageParam)
    assert conforms({"role": "bogus", "content": "x"}, MessageParam)
    assert conforms({"role": "user", "content": [{"type": "tool_result"}]}, MessageParam)
    assert conforms({"role": "tool", "content": "x"}, ChatCompletionMessageParam)  # no tool_call_id
    assert not conforms({"role": "tool", "content": "x", "tool_call_id": "c"}, ChatCompletionMessageParam)


def test_host_cache_markers_are_capped_at_four() -> None:
    """Hosts may store cache_control on their own blocks; the Anthropic request never carries more than 4."""
    from context_journal import ContextManager

    cm = ContextManager.open("memory:")
    for i in range(8):
        cm.add_message(
            "user" if i % 2 == 0 else "assistant",
            [
                {"type": "text", "text": f"turn {i}", "cache_control": {"type": "ephemeral"}},
            ],
        )
    system = [{"type": "text", "text": f"rule {k}", "cache_control": {"type": "ephemeral"}} for k in range(2)]
    from context_journal.formats.exporters import CacheMarkersDroppedWarning

    with pytest.warns(CacheMarkersDroppedWarning) as caught:
        params = cm.compile(max_tokens=4000, system=system).to_anthropic()
    text = json.dumps(params)
    assert text.count('"cache_control"') == 4
    # One per location (the system prompt's last block), the system prompt first, then the newest messages.
    assert caught[0].message.kept == (  # type: ignore[union-attr]
        "system[1]",
        "messages[5].content[0]",
        "messages[6].content[0]",
        "messages[7].content[0]",
    )
    assert caught[0].message.dropped == (  # type: ignore[union-attr]
        "system[0]",
        *(f"messages[{i}].content[0]" for i in range(5)),
    )
    assert system[0]["cache_control"] == {"type": "ephemeral"}  # the caller's blocks are unchanged


def test_a_model_dumps_null_file_id_in_citations_is_left_out() -> None:
    """Second review: the SDK's model dumps carry ``file_id: None`` in document citations, which the request
    types do not take; ``title: None`` stays (a nullable field they require)."""
    from context_journal import ContextManager

    cm = ContextManager.open("memory:")
    cm.add_message("user", "q")
    char = {**CHAR_LOCATION, "file_id": None}
    web = {"type": "web_search_result_location", "cited_text": "x", "encrypted_index": "e", "title": None, "url": "u"}
    cm.add_message("assistant", [{"type": "text", "text": "a", "citations": [char, web]}])
    cm.add_message("user", "more")
    cites = cm.compile(4000).to_anthropic()["messages"][1]["content"][0]["citations"]
    assert "file_id" not in cites[0] and cites[0]["document_title"] is None
    assert cites[1]["title"] is None
    cm.close()


def test_files_api_blocks_in_a_tool_result_are_named_in_chat_completions() -> None:
    """A tool message carries text only: an image given by Files API id (no Chat Completions form) is named
    in it, not just 'omitted'; a document given by id follows in the user message as a ``file`` part."""
    cm = ContextManager.open("memory:")
    cm.add_message("user", "go")
    cm.add_message("assistant", [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}])
    nested = [
        {"type": "text", "text": "here"},
        {"type": "document", "source": {"type": "file", "file_id": "file_doc"}},
        {"type": "image", "source": {"type": "file", "file_id": "file_img"}},
    ]
    cm.add_message("user", [{"type": "tool_result", "tool_use_id": "t1", "content": nested}])
    sent = cm.compile(10_000).to_openai()
    at = next(i for i, m in enumerate(sent) if m["role"] == "tool")
    assert sent[at:] == [
        {"role": "tool", "tool_call_id": "t1", "content": "here\n[image: Files API file file_img]"},
        {"role": "user", "content": [{"type": "file", "file": {"file_id": "file_doc"}}]},
    ]
