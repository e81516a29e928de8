"""The OpenAI Responses API: a wire encoder (compiled context → ``input`` items) and an importer.

**Export** (:func:`to_openai_responses`, also :meth:`CompileResult.to_openai_responses`): the ``input``
list for ``openai.OpenAI().responses.create(model=..., input=items)``, each item one of the SDK's
``ResponseInputItemParam`` shapes:

- the system prompt: one ``{"type": "message", "role": "developer", "content": text}`` first;
- a user turn: its ``tool_result`` blocks as ``function_call_output`` items (``call_id`` the block's
  ``tool_use_id``; ``output`` its text, or ``input_text`` / ``input_image`` / ``input_file`` parts when it
  holds media), then one ``{"type": "message", "role": "user", "content": [parts]}`` of its text
  (``input_text``), images (``input_image``, ``detail`` as imported, else ``auto``) and documents
  (``input_file``: a data URL with ``filename``, or a ``file_url``; a text document as ``input_text``);
  an image or document uploaded beforehand (a ``file`` source) as the ``input_image`` / ``input_file``
  part naming its ``file_id``, as imported;
- an assistant turn, block by block: ``reasoning`` blocks as the ``reasoning`` items they were (id,
  summary, encrypted content and any other field, byte for byte), each text as
  ``{"type": "message", "role": "assistant", "content": text}`` (with its ``phase`` when it has one) and
  each ``tool_use`` as ``{"type": "function_call", "call_id", "name", "arguments"}`` (``arguments`` the
  text the import read, byte for byte, while it still parses to ``input``, else the JSON text of
  ``input``; the raw text back when the import could not parse it; the call's other fields the import
  kept in ``item_extra``, such as ``status``, with it). A message or call the
  import read with its item id (``msg_...``, ``fc_...``; recorded on its blocks as ``item_id``) is sent
  with that id: a ``reasoning`` item is paired with the item that followed it by id, and the API refuses
  one "provided without its required following item" otherwise. Such a message is sent as the output
  message it was (``id``, ``status``, ``output_text`` parts, its text blocks gathered back into one
  item). A reasoning item keeps its id, which the provider verifies with its encrypted content. The
  reverse holds too: an item sent with its id needs the reasoning item that came before it in the
  model's output (400 "Item 'fc_...' of type 'function_call' was provided without its required
  'reasoning' item"), so when the compile leaves a reasoning item out (too large for the budget, or in an
  excerpt) the items after it in its message lose their ``item_id`` and go without an id, which the API
  takes (the compile's repair says so). The built-in tools' calls after it (``openai_item`` blocks) follow
  the same rule: one whose type takes no id (``shell_call``, ``apply_patch_call``...) goes without it, and
  one whose id the request types require (``web_search_call`` ``ws_...``, ``code_interpreter_call``,
  ``mcp_call``...) cannot be sent without its reasoning, so it goes as its text line (an assistant
  message, the line the other exports send for it; its output, if any, then answers no call sent and goes
  as text too);
- a stored instruction past the system prompt (a ``system`` / ``developer`` message in mid-conversation,
  which the compile sends to the other APIs as a user turn named ``system:``) as the ``system`` or
  ``developer`` message it was, its text without that name.

A text block's OpenAI annotations (``url_citation``... kept as its ``citations``) go back as the
``output_text`` part's ``annotations`` and a refusal (a text block with ``refusal: true``) as a
``refusal`` part, when the message is sent as the output message it was (with its id; the short form
takes plain text only). A ``tool_use`` read from a ``custom_tool_call`` (``item_type``) goes back as that
item, and the result that answers it as a ``custom_tool_call_output``. An ``openai_item`` block (a built-in
tool's call or output: ``web_search_call``, ``mcp_call``, ``computer_call_output``...) is sent as the item
it was, every field; an output whose call is not sent before it (the compile left the call out) is sent
as a user message of its text line instead, since the API refuses an output without its call. A write of
an ``openai_item`` of a type with blocks of its own (``function_call``, ``message``...) is refused
(:func:`~context_journal.content.check_openai_items`); one an older version stored is sent as its line.

Anthropic thinking is not sent (Responses cannot take it back), nor is a ``reasoning`` item that no
message or call of its turn follows (the API refuses one "provided without its required following
item"); Anthropic provider blocks (server tools, compaction...) are sent as text, as in the Chat
Completions export. :func:`validate_responses_items` checks the item rules (every ``function_call`` or
``custom_tool_call`` answered by its output before the next model turn, a model turn being every item
the model wrote, custom tool calls included; every output answers an earlier call; call ids unique; and,
given the stored messages, every item sent with its id, a built-in tool's call included, has the
reasoning item that preceded it); the
exporter checks its own output with it.

**Import** (:func:`read_openai_responses`, format ``openai-responses``): a JSON file (or a JSON Lines
file, ``.jsonl``, of Response dicts, request bodies or items, one a line, read as the JSON list of them;
a line that is not a JSON object is left out and reported), or the parsed data (the SDK's pydantic models
too: ``Response``, items, lists of them, read as ``model_dump(mode="json")``), holding either

- a list of items, input and output items alike (what ``input`` plus each ``response.output`` make), or
- a stored response chain: a list of Response objects' dicts (``response.model_dump()``), each with its
  ``output`` and, when the recorder kept it, its ``input`` (a list of items or a string). A response
  with ``previous_response_id`` sent only its new items, and is read right after the response it names
  when that one is in the file, whatever the file order (a branching chain, a response id the links name
  twice, or a cycle raises); one without (a stateless replay) sent the whole
  history again, so the leading items of its input that repeat the conversation read so far, in order
  (some, such as reasoning, may be left out of the replay), are not read twice. A response's
  ``instructions`` become a system message where they first appear or change.
  A single Response dict is read as a chain of one; a saved request body (``{"input": [...],
  "instructions": ..., "model": ...}``) as its instructions and input items; a list of request bodies as
  a chain (each body's items that the bodies before it did not send; see :func:`read_openai_responses`).

A ``reasoning`` item is stored as it is (every field, unknown ones included, byte for byte) but for
fields that are null (a model dump's ``"content": null``; the request types take no null there).
Consecutive assistant items (``reasoning``, assistant ``message``, ``function_call``) become one
``assistant`` message; consecutive ``function_call_output`` items one message of participant ``tool``
(``tool_result`` blocks); a ``user`` message a ``user`` message; ``system`` / ``developer`` messages
participant ``system`` (pinned). A built-in tool's item (``web_search_call``, ``file_search_call``,
``code_interpreter_call``, ``image_generation_call``, ``mcp_call``, ``mcp_list_tools``,
``mcp_approval_request``, ``computer_call``, ``local_shell_call``, ``shell_call``, ``apply_patch_call``...)
or a ``compaction`` item (what ``responses.compact`` wrote, encrypted) is kept whole as an
``openai_item`` block (``item_type``, ``item``: every field but a model dump's nulls, at any depth,
except those the request types require even when null) in the assistant message; what the
host sends back for one (``computer_call_output``, ``local_shell_call_output``, ``mcp_approval_response``...)
in the tool message, after its ``tool_result`` blocks. A ``custom_tool_call`` becomes a ``tool_use``
(``input`` ``{"input": text}``, ``item_type: "custom_tool_call"``) and its ``custom_tool_call_output`` a
``tool_result``, paired by ``call_id`` like function calls. An ``output_text`` part's ``annotations`` are
kept as its text block's ``citations`` (checked: a damaged ``url_citation`` raises, naming the place); a
``refusal`` part is a text block with ``refusal: true``. An ``input_image`` / ``input_file`` part given by
``file_id`` is an ``image`` / ``document`` block with a ``file`` source (``{"type": "file", "file_id": ...}``,
a filename as its ``title``). Items of other types (``item_reference``...) and content parts that cannot
be stored (audio) are left out and reported in the skip report,
as is an output (``function_call_output``, ``custom_tool_call_output``, a built-in tool's output) that
answers no call read before it.
Message ids are ``<conversation id>:<n>``, ``n`` the position of the message's first item in the
conversation; metadata keeps the role, the items' places and ids, and a response's id and model. The
item id of an assistant message or a ``function_call`` is also kept on its blocks (``item_id``, a field
the other exports leave out), so the Responses export can send it back, and a ``function_call``'s other
fields (``status``...) in its block's ``item_extra``, with its ``arguments`` text as received when that is
not the JSON text the export writes for its ``input`` (``{"city":"Paris"}``: a prompt-cache prefix depends
on the bytes).

Damaged input raises :class:`~context_journal.errors.ImportFormatError` naming the place
(``[3]``, ``[1].output[2]``): an item that is not an object or has no known shape, a message with an
unknown role or content that is neither text nor a list, a call without ``call_id`` or ``name``, a
``call_id`` that is not text (the error names its type), a reasoning item without its id or summary list.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._block_types import openai_item_role
from .._names import clip_repr
from .._provider_render import PROVIDER_TYPES, provider_line
from ..content import NATIVE_OPENAI_ITEMS, OPENAI_CITATION_TYPES, check_citations, parse_block
from ..errors import ImportFormatError, MalformedContentError
from ..messages import MessageInput
from ..validate import InvalidContextError, ValidationIssue
from ..wire.chat_completions import call_arguments
from ..wire.chat_completions import input_json as _arguments
from ..wire.media import media_source as _source
from .base import (
    Conversation,
    ImportResult,
    SkipLog,
    expect,
    has_lone_surrogate,
    iter_jsonl,
    load_json,
    parse_tool_arguments,
)
from .exporters import _check_assistant

if TYPE_CHECKING:
    from ..compile import CompiledMessage, CompileResult

__all__ = [
    "looks_like_responses",
    "read_openai_responses",
    "reasoning_required",
    "to_openai_responses",
    "validate_responses_items",
]

Item = dict[str, Any]

_ASSISTANT_ITEMS = frozenset({"reasoning", "function_call", "custom_tool_call"})
"""Item types a model turn is made of (besides assistant messages and built-in tools' calls): a custom
tool call is one like a function call, so a turn that makes one and then anything else is one turn."""
_ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "item_reference",
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "code_interpreter_call",
        "image_generation_call",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "compaction",
    }
)
"""Responses item types: a JSON list holding one is a Responses transcript (detection)."""
_OPAQUE_ITEMS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "computer_call",
        "computer_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "shell_call",
        "shell_call_output",
        "apply_patch_call",
        "apply_patch_call_output",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "tool_search_call",
        "tool_search_output",
        "compaction",
    }
)
"""Item types kept whole as ``openai_item`` blocks: OpenAI's built-in tools' calls and what the host sends
back for them (:func:`~context_journal._block_types.openai_item_role` tells which side)."""
_KEEP_NULL = {"image_generation_call": ("result",), "code_interpreter_call": ("code", "outputs")}
"""Item fields the request types require even when null (``Required[Optional[...]]``): kept when null."""
_ID_OPTIONAL = frozenset({"shell_call", "apply_patch_call", "tool_search_call", "compaction"})
"""Built-in items the request types take without their ``id``: one the model wrote after a reasoning item the
compile left out is sent without it, as a function call is. Every other built-in call (``web_search_call``,
``code_interpreter_call``, ``mcp_call``...: their ``id`` is required) is sent as its text line then."""
_REASONING_LEFT_OUT = "OpenAI reasoning item"
"""What the repair of a message whose reasoning the compile left out says (``rendering.reduce._what_reduced``:
"an OpenAI reasoning item too large for the budget left out (the items after it sent without their item
id)...", "2 OpenAI reasoning items...")."""
_CUSTOM = "custom_tool_call"
_PART_TYPES = frozenset({"input_text", "output_text", "input_image", "input_file"})
_PHASES = ("commentary", "final_answer")
_IMAGE_DETAILS = ("low", "high", "auto", "original")


# --- export --------------------------------------------------------------------------------------


def _data_url(source: Mapping[str, Any], get_blob: Callable[[str], bytes] | None) -> tuple[str, str] | None:
    """``("data", data URL)`` or ``("url", URL)`` of a media source; None for a text source."""
    src = _source(source, get_blob)
    if src.get("type") == "base64":
        return "data", f"data:{src['media_type']};base64,{src['data']}"
    if src.get("type") == "url":
        return "url", str(src["url"])
    return None


def _file_part(block: Mapping[str, Any], source: Mapping[str, Any]) -> Item:
    """An image or document uploaded beforehand (a ``file`` source) as the ``input_image`` /
    ``input_file`` part that names it by ``file_id``, as imported."""
    if block.get("type") == "image":
        detail = block.get("detail")
        return {
            "type": "input_image",
            "file_id": str(source.get("file_id")),
            "detail": detail if detail in _IMAGE_DETAILS else "auto",
        }
    part: Item = {"type": "input_file", "file_id": str(source.get("file_id"))}
    if isinstance(block.get("title"), str) and block["title"]:
        part["filename"] = block["title"]
    return part


def _input_part(block: Mapping[str, Any], get_blob: Callable[[str], bytes] | None) -> Item | None:
    """One block of a user turn (or of a tool result) as an input content part; None when it says nothing."""
    kind = block.get("type")
    if kind == "text":
        return {"type": "input_text", "text": str(block.get("text", ""))}
    source = block.get("source")
    if kind in ("image", "document") and isinstance(source, Mapping) and source.get("type") == "file":
        return _file_part(block, source)
    if kind == "image" and isinstance(source, Mapping):
        found = _data_url(source, get_blob)
        if found is None:
            return None
        detail = block.get("detail")
        return {"type": "input_image", "image_url": found[1], "detail": detail if detail in _IMAGE_DETAILS else "auto"}
    if kind == "document" and isinstance(source, Mapping):
        if source.get("type") == "text":
            return {"type": "input_text", "text": str(source.get("data", ""))}
        found = _data_url(source, get_blob)
        if found is None:
            return None
        if found[0] == "url":
            return {"type": "input_file", "file_url": found[1]}
        return {"type": "input_file", "file_data": found[1], "filename": str(block.get("title") or "document.pdf")}
    if kind in PROVIDER_TYPES:
        line = provider_line(block)
        return {"type": "input_text", "text": line} if line.strip() else None
    return None


def _output(block: Mapping[str, Any], get_blob: Callable[[str], bytes] | None) -> str | list[Item]:
    """A ``tool_result`` block's ``function_call_output.output``: text, or parts when it holds media."""
    content = block.get("content", "")
    error = bool(block.get("is_error"))
    if isinstance(content, str):
        text = content if content.strip() else "(no output)"
        return f"[error] {text}" if error else text
    parts = [p for p in (_input_part(b, get_blob) for b in content if isinstance(b, Mapping)) if p is not None]
    if all(p["type"] == "input_text" for p in parts):
        text = "\n".join(p["text"] for p in parts)
        text = text if text.strip() else "(no output)"
        return f"[error] {text}" if error else text
    return [{"type": "input_text", "text": "[error]"}, *parts] if error else parts


def _item_id(block: Mapping[str, Any]) -> str | None:
    """The Responses item id the import recorded on a block (``item_id``), or None."""
    value = block.get("item_id")
    return value if isinstance(value, str) and value else None


def _annotations(block: Mapping[str, Any]) -> list[Item]:
    """A text block's OpenAI annotations (its ``citations`` of the Responses kinds, as imported)."""
    cites = block.get("citations")
    if not isinstance(cites, list):
        return []
    return [dict(c) for c in cites if isinstance(c, Mapping) and c.get("type") in OPENAI_CITATION_TYPES]


def _opaque_item(b: Mapping[str, Any], role: str) -> Item | None:
    """An ``openai_item`` block as the item it was, or None when it is not of ``role``'s side (the compile
    shows such a block as text; a result built by hand may still hold one)."""
    item = b.get("item")
    if not isinstance(item, Mapping) or openai_item_role(b.get("item_type")) != role:
        return None
    if b.get("item_type") in NATIVE_OPENAI_ITEMS:
        return None  # a function_call... an older version let through: its text (it cannot be paired here)
    return dict(item)


def _custom_call(b: Mapping[str, Any]) -> Item:
    """A ``tool_use`` the import read from a ``custom_tool_call`` as that item again (its free-form
    ``input`` text, its id and the fields it had)."""
    tool_input = b.get("input")
    raw = tool_input.get("input") if isinstance(tool_input, Mapping) and set(tool_input) == {"input"} else None
    text = raw if isinstance(raw, str) else _arguments(tool_input)
    extra = b.get("item_extra")
    call: Item = dict(extra) if isinstance(extra, Mapping) else {}
    call.update({"type": _CUSTOM, "call_id": str(b.get("id")), "name": str(b.get("name")), "input": text})
    item_id = _item_id(b)
    if item_id is not None:
        call["id"] = item_id
    return call


def _function_call(b: Mapping[str, Any]) -> Item:
    """A ``tool_use`` as a ``function_call``: with the fields the import kept (``item_extra``: ``status``...)
    and its ``arguments`` text as received, byte for byte, while it still says what ``input`` holds (a
    prompt-cache prefix depends on the bytes; an excerpt or an edit of the input sends its JSON text)."""
    kept = b.get("item_extra")
    extra: Mapping[str, Any] = kept if isinstance(kept, Mapping) else {}
    arguments = call_arguments(b)  # the same text the Chat Completions export sends
    call: Item = {"type": "function_call"}
    item_id = _item_id(b)
    if item_id is not None:
        call["id"] = item_id
    call.update({"call_id": str(b.get("id")), "name": str(b.get("name")), "arguments": arguments})
    call.update({k: v for k, v in extra.items() if k not in call and k != "arguments"})
    return call


def _assistant_items(blocks: Sequence[Mapping[str, Any]]) -> list[Item]:
    out: list[Item] = []
    for b in blocks:
        kind = b.get("type")
        if kind == "reasoning":
            out.append(dict(b))  # as received: the id and encrypted content are verified as a pair
        elif kind == "openai_item":
            raw = _opaque_item(b, "assistant")
            if raw is not None:
                out.append(raw)  # as received, every field
            else:
                out.append({"type": "message", "role": "assistant", "content": provider_line(b)})
        elif kind == "tool_use" and b.get("item_type") == _CUSTOM:
            out.append(_custom_call(b))
        elif kind == "text":
            item_id = _item_id(b)
            part: Item
            if b.get("refusal") is True and item_id is not None:
                part = {"type": "refusal", "refusal": str(b.get("text", ""))}
            else:
                part = {"type": "output_text", "text": str(b.get("text", "")), "annotations": _annotations(b)}
            last = out[-1] if out else None
            if item_id is not None and last is not None and last.get("id") == item_id and last["type"] == "message":
                last["content"].append(part)  # another part of the same stored message
                continue
            item: Item
            if item_id is not None:  # the output message it was, with its id (ResponseOutputMessageParam)
                item = {"type": "message", "role": "assistant", "id": item_id, "status": "completed", "content": [part]}
            else:
                item = {"type": "message", "role": "assistant", "content": str(b.get("text", ""))}
            if b.get("phase") in _PHASES:
                item["phase"] = b["phase"]
            out.append(item)
        elif kind == "tool_use":
            out.append(_function_call(b))
        elif kind in ("image", "document"):
            text = f"[{kind} omitted: assistant messages carry text only]"
            out.append({"type": "message", "role": "assistant", "content": text})
        elif kind in PROVIDER_TYPES:
            line = provider_line(b)
            if line.strip():
                out.append({"type": "message", "role": "assistant", "content": line})
        # thinking / redacted_thinking: Anthropic's, not sendable here
    return out


def _user_items(
    blocks: Sequence[Mapping[str, Any]], get_blob: Callable[[str], bytes] | None, custom: set[str]
) -> list[Item]:
    """A user turn's items; ``custom``: the call ids of the custom tool calls sent so far (their
    results go back as ``custom_tool_call_output``)."""
    out: list[Item] = []
    parts: list[Item] = []
    for b in blocks:
        if b.get("type") == "tool_result":
            cid = str(b.get("tool_use_id"))
            kind = "custom_tool_call_output" if cid in custom else "function_call_output"
            answer: Item = {"type": kind, "call_id": cid, "output": _output(b, get_blob)}
            extra = b.get("item_extra")
            if kind == "custom_tool_call_output" and isinstance(extra, Mapping):
                answer = {**extra, **answer}
            item_id = _item_id(b)
            if kind == "custom_tool_call_output" and item_id is not None:
                answer["id"] = item_id
            out.append(answer)
            continue
        if b.get("type") == "openai_item":
            item = _opaque_item(b, "user")
            if item is not None:
                out.append(item)
                continue
        part = _input_part(b, get_blob)
        if part is not None:
            parts.append(part)
    if parts:
        out.append({"type": "message", "role": "user", "content": parts})
    return out


def _instruction_item(m: CompiledMessage, get_blob: Callable[[str], bytes] | None) -> Item | None:
    """A stored instruction past the system prompt (:attr:`CompiledMessage.instruction`) as the ``system``
    or ``developer`` message it was (its text without the name prefix the compile put on it: the API
    takes instructions anywhere); None for any other message, or one holding what a message cannot
    (tool results, calls), which goes as a user turn."""
    said = m.instruction
    if said is None:
        return None
    prefix, named = said.prefix, False
    parts: list[Item] = []
    for b in m.content:
        if b.get("type") not in ("text", "image", "document"):
            return None
        if b.get("type") == "text" and prefix and not named:
            text = str(b.get("text", ""))
            if text == prefix.rstrip() or text.startswith(prefix):
                named = True
                text = text[len(prefix) :] if text.startswith(prefix) else ""
                if not text:
                    continue  # the name alone, put before media
                b = {**b, "text": text}
        part = _input_part(b, get_blob)
        if part is not None:
            parts.append(part)
    if not parts:
        return None
    if len(parts) == 1 and parts[0]["type"] == "input_text":
        return {"type": "message", "role": said.role, "content": parts[0]["text"]}
    return {"type": "message", "role": said.role, "content": parts}


def _is_turn_item(item: Mapping[str, Any]) -> bool:
    """An item a model turn is made of: an assistant message, a function or custom tool call, a reasoning
    item, a built-in tool's call (``web_search_call``...)."""
    kind = item.get("type")
    if kind in _OPAQUE_ITEMS:
        return openai_item_role(kind) == "assistant"
    return kind in _ASSISTANT_ITEMS or (kind in ("message", None) and item.get("role") == "assistant")


def _output_ref(item: Mapping[str, Any]) -> Any:
    """The call a built-in tool's output item answers: its ``call_id`` (``approval_request_id`` of an MCP
    approval, ``id`` of a ``local_shell_call_output``); None when it names none."""
    for key in ("call_id", "approval_request_id", "id"):
        if isinstance(item.get(key), str):
            return item[key]
    return None


def _orphans_as_text(items: list[Item]) -> list[Item]:
    """``items`` with each built-in tool output whose call is not sent before it (the compile left the
    call out) replaced by a user message of its text line: the API refuses an output without its call."""
    made: set[str] = set()
    out: list[Item] = []
    for item in items:
        kind = item.get("type")
        if kind in _OPAQUE_ITEMS and openai_item_role(kind) == "assistant":
            made.update(str(item[k]) for k in ("call_id", "id") if isinstance(item.get(k), str))
        elif kind in _OPAQUE_ITEMS:
            ref = _output_ref(item)
            if ref is not None and ref not in made:
                line = provider_line({"type": "openai_item", "item_type": kind, "item": item})
                item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": line}]}
        out.append(item)
    return out


def _followed_reasoning(items: list[Item]) -> list[Item]:
    """``items`` without the reasoning items that no assistant message or call follows (directly, or after
    more reasoning items: a model may write several before its message or call, and they go back together)."""
    out: list[Item] = []
    for k, item in enumerate(items):
        if item.get("type") == "reasoning":
            j = k + 1
            while j < len(items) and items[j].get("type") == "reasoning":
                j += 1
            if j == len(items) or not _is_turn_item(items[j]):
                continue
        out.append(item)
    return out


def _reasoning_left_out(result: CompileResult) -> set[str]:
    """The ids of the stored messages whose OpenAI reasoning the compile left out (too large for the budget,
    or in an excerpt), as its repairs name them."""
    return {r.message_id for r in result.repairs if r.message_id is not None and _REASONING_LEFT_OUT in r.detail}


def _after_lost_reasoning(blocks: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The blocks of an assistant message whose reasoning the compile left out, with the built-in tool calls
    (``openai_item``) after it fixed as its other items are (:func:`~context_journal._provider_render.
    without_reasoning` took their ``item_id``): an item sent with its id needs the reasoning item the model
    wrote before it (the API answers 400 "... was provided without its required 'reasoning' item"). One whose
    type takes no id (:data:`_ID_OPTIONAL`) goes without it; one whose id is required (``web_search_call``
    ``ws_...``, ``code_interpreter_call``...) cannot be sent validly and goes as its text line, as the other
    exports send it (its output, then answering no call sent, goes as text too: :func:`_orphans_as_text`).

    The compile's blocks no longer say where the reasoning was: the blocks before it kept their
    ``item_id``, so every built-in call after the last block that kept one is taken as following it."""
    start = max((k + 1 for k, b in enumerate(blocks) if _item_id(b) is not None), default=0)
    out: list[Mapping[str, Any]] = list(blocks[:start])
    for b in blocks[start:]:
        item = b.get("item")
        if (
            b.get("type") == "openai_item"
            and openai_item_role(b.get("item_type")) == "assistant"
            and isinstance(item, Mapping)
            and "id" in item
        ):
            if b.get("item_type") in _ID_OPTIONAL:
                b = {**b, "item": {k: v for k, v in item.items() if k != "id"}}
            else:
                b = {"type": "text", "text": provider_line(b)}
        out.append(b)
    return out


def to_openai_responses(
    result: CompileResult, *, assistant: str | None = None, system_role: str = "developer"
) -> list[Item]:
    """Responses API ``input`` items for a compiled context (see the module docstring).

    Args:
        result: The compiled context.
        assistant: The assistant's participant name, checked against the compile's (None = no check).
        system_role: Role of the system prompt's message: ``"developer"`` (the Responses API's own) or
            ``"system"``. Pass the prompt as ``instructions=`` instead by compiling without one.

    Returns:
        ``[{"type": "message", "role": "developer", "content": ...}, {"type": "message", "role": "user",
        "content": [{"type": "input_text", ...}]}, {"type": "reasoning", ...}, {"type": "function_call",
        ...}, {"type": "function_call_output", ...}, ...]``, ready for ``responses.create(input=...)``.

    Raises:
        ValueError: ``assistant`` is not the compile's assistant, ``system_role`` is neither role, or
            stored media cannot be read.
        InvalidContextError: the items would break a Responses rule (:func:`validate_responses_items`);
            a compile's output never does.
    """
    _check_assistant(result, assistant)
    if system_role not in ("developer", "system"):
        raise ValueError(f"system_role must be 'developer' or 'system', got {system_role!r}")
    get_blob = result.get_blob
    items: list[Item] = []
    system_text = "\n\n".join(str(b.get("text", "")) for b in result.system if b.get("type") == "text")
    if system_text.strip():
        items.append({"type": "message", "role": system_role, "content": system_text})
    custom: set[str] = set()
    lost = _reasoning_left_out(result)
    for m in result.messages:
        if m.role == "assistant":
            blocks: Sequence[Mapping[str, Any]] = m.content
            if any(src.kind == "message" and src.id in lost for src in m.sources):
                blocks = _after_lost_reasoning(blocks)
            sent = _assistant_items(blocks)
            custom.update(str(i["call_id"]) for i in sent if i.get("type") == _CUSTOM)
            items.extend(sent)
        elif (said := _instruction_item(m, get_blob)) is not None:
            items.append(said)
        else:
            items.extend(_user_items(m.content, get_blob, custom))
    items = _followed_reasoning(_orphans_as_text(items))
    issues = validate_responses_items(items)
    if issues:
        raise InvalidContextError(issues)
    return items


def reasoning_required(stored: Iterable[Sequence[Mapping[str, Any]]]) -> dict[str, str]:
    """``{item id: reasoning id}``: for each block of the ``stored`` messages' content (block lists, as
    stored) that carries a Responses item id (``item_id``: ``fc_...``, ``msg_...``, ``ctc_...``; the
    ``item``'s ``id`` of a built-in tool's call, ``openai_item``: ``ws_...``, ``ci_...``) after a
    ``reasoning`` block of the same message, the id of the nearest such reasoning: the item the model
    wrote after it, which the API takes with its id only together with that reasoning item."""
    needs: dict[str, str] = {}
    for blocks in stored:
        last: str | None = None
        for b in blocks:
            item = b.get("item")
            if b.get("type") == "reasoning" and isinstance(b.get("id"), str):
                last = b["id"]
            elif last is None:
                continue
            elif isinstance(b.get("item_id"), str) and b["item_id"]:
                needs.setdefault(b["item_id"], last)
            elif (
                b.get("type") == "openai_item"
                and openai_item_role(b.get("item_type")) == "assistant"
                and isinstance(item, Mapping)
                and isinstance(item.get("id"), str)
                and item["id"]
            ):
                needs.setdefault(item["id"], last)
    return needs


def validate_responses_items(
    items: Sequence[Mapping[str, Any]], *, stored: Iterable[Sequence[Mapping[str, Any]]] | None = None
) -> list[ValidationIssue]:
    """Check Responses ``input`` items against the tool-call rules.

    A model turn is a run of items the model wrote (reasoning, assistant messages, function calls, custom
    tool calls, built-in tools' calls). Every ``function_call`` (and ``custom_tool_call``) must be
    answered by a ``function_call_output`` (``custom_tool_call_output``) with its ``call_id`` before the
    next model turn starts and before the list ends (the API: "No tool output found for function call");
    every output answers a call of its kind made earlier and not yet answered; call ids are unique and
    non-empty.

    With ``stored`` (the content of the stored messages the items were compiled from, block lists), an
    item sent with an item id (``id``: ``fc_...``, a built-in tool call's ``ws_...``) that followed a
    reasoning item in its stored message (:func:`reasoning_required`) must have that reasoning item before
    it in its model turn (``missing_reasoning_item``; the API: "Item 'fc_...' of type 'function_call' was
    provided without its required 'reasoning' item"); sent without the id, it needs none.

    Returns:
        The issues found (``index`` is the item's position); empty when the items are valid.
    """
    issues: list[ValidationIssue] = []
    add = issues.append
    open_calls: dict[str, tuple[int, str]] = {}
    seen: set[str] = set()
    made: set[str] = set()  # call ids (and item ids) of the built-in tool calls so far
    needs = reasoning_required(stored) if stored is not None else {}
    reasoned: set[str] = set()  # ids of the reasoning items of the model turn so far
    in_turn = False
    for i, item in enumerate(items):
        kind = item.get("type")
        turn = _is_turn_item(item)
        if not turn:
            reasoned = set()
        elif kind == "reasoning" and isinstance(item.get("id"), str):
            reasoned.add(item["id"])
        item_id = item.get("id")
        if turn and isinstance(item_id, str) and item_id in needs and needs[item_id] not in reasoned:
            add(
                ValidationIssue(
                    i,
                    "missing_reasoning_item",
                    f"{kind} {item_id!r} is sent with its id without its reasoning item {needs[item_id]!r}",
                )
            )
        if turn and not in_turn:
            for open_id, (at, _) in open_calls.items():
                add(
                    ValidationIssue(
                        at,
                        "missing_function_call_output",
                        f"call {open_id!r} is not answered before the model turn at item {i}",
                    )
                )
            open_calls = {}
        in_turn = turn
        if kind in ("function_call", _CUSTOM):
            cid = item.get("call_id")
            if not isinstance(cid, str) or not cid:
                add(ValidationIssue(i, "bad_function_call", f"a {kind} needs a non-empty call_id"))
            elif cid in seen:
                add(ValidationIssue(i, "duplicate_call_id", f"call_id {cid!r} used twice"))
            else:
                seen.add(cid)
                open_calls[cid] = (i, str(kind))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            cid = item.get("call_id")
            call = open_calls.get(cid) if isinstance(cid, str) else None
            if call is None or f"{call[1]}_output" != kind:
                add(ValidationIssue(i, "orphan_function_call_output", f"{kind} {cid!r} answers no open call"))
            else:
                del open_calls[str(cid)]
        elif kind in _OPAQUE_ITEMS and turn:
            made.update(str(item[k]) for k in ("call_id", "id") if isinstance(item.get(k), str))
        elif kind in _OPAQUE_ITEMS:
            ref = _output_ref(item)
            if ref is not None and ref not in made:
                add(ValidationIssue(i, "orphan_item_output", f"{kind} {ref!r} answers no earlier call"))
    for open_id, (at, _) in open_calls.items():
        add(ValidationIssue(at, "missing_function_call_output", f"call {open_id!r} is not answered"))
    return issues


# --- import --------------------------------------------------------------------------------------


def _is_response(value: Any) -> bool:
    return isinstance(value, dict) and (value.get("object") == "response" or isinstance(value.get("output"), list))


def _is_item(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("type") in _ITEM_TYPES:
        return True
    content = value.get("content")
    return isinstance(content, list) and any(isinstance(p, dict) and p.get("type") in _PART_TYPES for p in content)


def _is_request(value: Any) -> bool:
    """A saved request body: ``{"input": [items] or text, "instructions": ..., "model": ...}`` (no
    ``output``; not an item, which has a ``type`` or a ``role``)."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("input"), (list, str))
        and "output" not in value
        and "type" not in value
        and "role" not in value
    )


def looks_like_responses(data: Any) -> bool:
    """Whether parsed JSON is a Responses transcript: a Response dict, a saved request body (``{"input":
    ...}``), a list of either, or a list holding an item only the Responses API writes (a typed item such
    as ``function_call`` or ``reasoning``, or a message with ``input_text`` / ``output_text`` /
    ``input_image`` / ``input_file`` parts)."""
    if _is_response(data) or _is_request(data):
        return True
    return isinstance(data, list) and any(_is_response(x) or _is_request(x) or _is_item(x) for x in data)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _key(item: Mapping[str, Any]) -> Any:
    """What identifies an item when a stateless replay sends the history again (ids and statuses may be
    dropped and messages rewritten to the short form by the client)."""
    kind = item.get("type")
    if kind in ("function_call", "function_call_output"):
        return (kind, item.get("call_id"))
    if kind == "reasoning":
        return (kind, item.get("id"))
    if kind in ("message", None) and "role" in item:
        role = item.get("role")
        return ("message", "system" if role == "developer" else role, _text_of(item.get("content")))
    return json.dumps({k: v for k, v in item.items() if k not in ("id", "status")}, sort_keys=True, default=str)


def _replayed(inputs: Sequence[Any], history: Sequence[Any]) -> int:
    """How many leading items of a stateless request's ``inputs`` replay the conversation read so far
    (``history``: the keys of its items, in order). The client may have left items out (reasoning,
    often) but not reordered them: each input item is looked for after the last one matched; the first
    one not found, or any once the history is used up, starts what is new."""
    at = 0
    for n, item in enumerate(inputs):
        if not isinstance(item, dict):
            return n
        key = _key(item)
        found = next((k for k in range(at, len(history)) if history[k] == key), None)
        if found is None:
            return n
        at = found + 1
    return len(inputs)


class _Entry:
    """One item of the conversation with its place and the response it came with."""

    __slots__ = ("item", "location", "response")

    def __init__(self, item: Any, location: str, response: Mapping[str, Any] | None) -> None:
        self.item = item
        self.location = location
        self.response = response


def _chain_order(data: list[Any], source: str) -> list[int]:
    """The positions of a chain's responses in conversation order: each response with a
    ``previous_response_id`` that names a response of the file right after that one, whatever the file
    order; the runs so linked in the file order of their first response (a response whose predecessor is
    not in the file, or a stateless one, starts a run). A file without such links is read in file order.

    Raises:
        ImportFormatError: the links are inconsistent: two responses continue the same one (a branching
            chain), a response id the links name appears twice, or the links form a cycle.
    """
    ids: dict[str, int] = {}
    twice: dict[str, int] = {}
    for k, resp in enumerate(data):
        rid = resp.get("id") if isinstance(resp, dict) else None
        if isinstance(rid, str) and rid:
            if rid in ids:
                twice.setdefault(rid, k)
            else:
                ids[rid] = k
    after: dict[int, int] = {}  # position -> position of the response that continues it
    for k, resp in enumerate(data):
        prev = resp.get("previous_response_id") if isinstance(resp, dict) else None
        if not isinstance(prev, str) or prev not in ids:
            continue
        where = f"[{k}].previous_response_id"
        expect(
            prev not in twice,
            f"response id {prev!r}, which this response continues, appears twice in the chain "
            f"([{ids[prev]}] and [{twice.get(prev)}])",
            source=source,
            location=where,
        )
        at = ids[prev]
        expect(
            at not in after,
            f"responses [{after.get(at)}] and [{k}] both continue {prev!r} (a branching chain: "
            "import each branch as a file of its own)",
            source=source,
            location=where,
        )
        after[at] = k
    if not after:
        return list(range(len(data)))
    continues = set(after.values())
    order: list[int] = []
    for k in range(len(data)):
        if k in continues:
            continue
        order.append(k)
        while k in after:
            k = after[k]
            order.append(k)
    if len(order) != len(data):
        loop = min(set(range(len(data))) - set(order))
        raise ImportFormatError(
            "the previous_response_id links form a cycle", source=source, location=f"[{loop}].previous_response_id"
        )
    return order


def _chain_entries(data: list[Any], source: str) -> list[_Entry]:
    """The items of a response chain in conversation order (see the module docstring)."""
    entries: list[_Entry] = []
    instructions: str | None = None
    for n, r in enumerate(_chain_order(data, source)):
        resp = data[r]
        where = f"[{r}]"
        expect(
            isinstance(resp, dict) and (isinstance(resp.get("output"), list) or _is_request(resp)),
            "a response in a chain needs its 'output' list (a request body, its 'input')",
            source=source,
            location=where,
        )
        assert isinstance(resp, dict)
        said = resp.get("instructions")
        said = _text_of(said) if isinstance(said, list) else said
        if isinstance(said, str) and said.strip() and said != instructions:
            instructions = said
            entries.append(_Entry({"role": "developer", "content": said}, f"{where}.instructions", resp))
        raw_input = resp.get("input")
        if isinstance(raw_input, str):
            raw_input = [{"role": "user", "content": raw_input}]
        expect(
            raw_input is None or isinstance(raw_input, list),
            "'input' must be a list of items or a string",
            source=source,
            location=f"{where}.input",
        )
        inputs = list(raw_input or [])
        skip = 0
        if n > 0 and resp.get("previous_response_id") is None:  # stateless: the history is sent again
            skip = _replayed(inputs, [_key(e.item) for e in entries if not e.location.endswith(".instructions")])
        entries.extend(_Entry(x, f"{where}.input[{k}]", resp) for k, x in enumerate(inputs) if k >= skip)
        entries.extend(_Entry(x, f"{where}.output[{k}]", resp) for k, x in enumerate(resp.get("output") or []))
    return entries


class _Reader:
    """Turns Responses items into messages."""

    def __init__(self, source: str, skips: SkipLog, conv_id: str) -> None:
        self.source = source
        self.skips = skips
        self.conv_id = conv_id
        self.messages: list[MessageInput] = []
        self.unparsed_arguments = 0
        self._group: list[tuple[int, _Entry, list[dict[str, Any]]]] = []
        self._group_kind: str | None = None
        self._calls: dict[str, str] = {}  # call id -> type of the function and custom tool calls read so far
        self._made: set[str] = set()  # call ids and item ids of the built-in tool calls read so far

    def _check_call_id(self, call_id: Any, where: str) -> None:
        """Raise when an item's ``call_id`` is there but not text (a number, an object).

        Raises:
            ImportFormatError: naming the place and the type found.
        """
        expect(
            call_id is None or isinstance(call_id, str),
            f"'call_id' must be text, got {type(call_id).__name__} {clip_repr(call_id)}",
            source=self.source,
            location=f"{where}.call_id",
        )

    # -- content parts -----------------------------------------------------------------------------

    def _media(self, part: Mapping[str, Any], where: str) -> dict[str, Any] | None:
        kind = part.get("type")
        file_id = part.get("file_id")
        by_id = {"type": "file", "file_id": file_id} if isinstance(file_id, str) and file_id else None
        if kind == "input_image":
            url = part.get("image_url")
            if isinstance(url, str) and url:
                source = _url_source(url)
            elif by_id is not None:
                source = by_id
            else:
                self.skips.add("unsupported input_image (neither an image_url nor a file_id)", where)
                return None
            block: dict[str, Any] = {"type": "image", "source": source}
            if part.get("detail") in _IMAGE_DETAILS and part.get("detail") != "auto":
                block["detail"] = part["detail"]
        else:
            data, url = part.get("file_data"), part.get("file_url")
            if isinstance(data, str) and data.startswith("data:") and ";base64," in data:
                block = {"type": "document", "source": _url_source(data)}
            elif isinstance(url, str) and url:
                block = {"type": "document", "source": {"type": "url", "url": url}}
            elif by_id is not None:
                block = {"type": "document", "source": by_id}
            else:
                self.skips.add("unsupported input_file (no file_id, file_url, or file_data that is a data URL)", where)
                return None
            if isinstance(part.get("filename"), str) and part["filename"]:
                block["title"] = part["filename"]
        why = _problem(block)
        if why is not None:
            self.skips.add(why, where)
            return None
        return block

    def _parts(self, content: Any, where: str, *, phase: Any = None) -> list[dict[str, Any]]:
        if isinstance(content, str):
            return [self._text(content, phase)] if content.strip() else []
        expect(
            isinstance(content, list), "'content' must be text or a list of parts", source=self.source, location=where
        )
        out: list[dict[str, Any]] = []
        for j, part in enumerate(content):
            pwhere = f"{where}[{j}]"
            kind = part.get("type") if isinstance(part, dict) else None
            assert kind is None or isinstance(part, dict)
            if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
                if part["text"].strip():
                    out.append(self._cited(self._text(part["text"], phase), part.get("annotations"), pwhere))
                else:
                    self.skips.add("whitespace-only text part", pwhere)
            elif kind == "refusal" and isinstance(part.get("refusal"), str):
                if part["refusal"].strip():
                    out.append({**self._text(part["refusal"], phase), "refusal": True})
                else:
                    self.skips.add("whitespace-only refusal part", pwhere)
            elif kind in ("input_image", "input_file"):
                block = self._media(part, pwhere)
                if block is not None:
                    out.append(block)
            else:
                self.skips.add(f"unsupported content part {kind!r}", pwhere)
        return out

    def _cited(self, block: dict[str, Any], annotations: Any, where: str) -> dict[str, Any]:
        """``block`` with an ``output_text`` part's annotations as its ``citations`` (none: unchanged).

        Raises:
            ImportFormatError: the annotations are not a list of objects, or one of a known kind
                (``url_citation``...) lacks a field or holds one of the wrong type (names the place).
        """
        if annotations is None or annotations == []:
            return block
        cited = {**block, "citations": annotations}
        try:
            check_citations([cited])
        except MalformedContentError as exc:
            path = str(exc.path or "citations").replace("citations", "annotations", 1)
            raise ImportFormatError(exc.reason, source=self.source, location=f"{where}.{path}") from None
        return cited

    @staticmethod
    def _text(text: str, phase: Any) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "text", "text": text}
        if phase in _PHASES:
            block["phase"] = phase
        return block

    # -- items -------------------------------------------------------------------------------------

    def _flush(self) -> None:
        group, kind = self._group, self._group_kind
        self._group, self._group_kind = [], None
        blocks = [b for _, _, bs in group for b in bs]
        if kind == "tool":  # tool results come first in a user turn (the built-in tools' outputs after)
            blocks.sort(key=lambda b: b["type"] != "tool_result")
        if not group:
            return
        first_n, first, _ = group[0]
        if not blocks:
            for _, e, _ in group:
                self.skips.add("empty message", e.location)
            return
        role = str(kind)
        participant = "system" if role in ("system", "developer") else role
        meta: dict[str, Any] = {"role": role}
        if participant == "system":
            meta["pinned"] = True
        meta["items"] = [e.location for _, e, _ in group]
        ids = [e.item["id"] for _, e, _ in group if isinstance(e.item.get("id"), str)]
        if ids:
            meta["item_ids"] = ids
        resp = first.response
        timestamp = None
        if resp is not None:
            if isinstance(resp.get("id"), str):
                meta["response_id"] = resp["id"]
            if isinstance(resp.get("model"), str):
                meta["model"] = resp["model"]
            created = resp.get("created_at")
            if isinstance(created, (int, float)) and not isinstance(created, bool):
                timestamp = created
        self.messages.append(MessageInput(participant, blocks, meta, f"{self.conv_id}:{first_n}", timestamp))

    def _add(self, n: int, entry: _Entry, kind: str, blocks: list[dict[str, Any]]) -> None:
        """Add an item's blocks to the message being built, or start a new one. ``kind``: ``assistant``,
        ``tool`` (both gather consecutive items), ``user``, ``system`` or ``developer`` (one item each)."""
        if self._group_kind != kind or kind not in ("assistant", "tool"):
            self._flush()
            self._group_kind = kind
        self._group.append((n, entry, blocks))

    def _custom_call(self, n: int, entry: _Entry) -> None:
        """A ``custom_tool_call`` as a ``tool_use`` (``input`` ``{"input": text}``, ``item_type``
        ``custom_tool_call``, its id as ``item_id``, its other fields in ``item_extra``), paired with its
        output by ``call_id`` like a function call."""
        item, where = entry.item, entry.location
        call_id, name, text = item.get("call_id"), item.get("name"), item.get("input")
        self._check_call_id(call_id, where)
        expect(
            isinstance(call_id, str) and bool(call_id) and isinstance(name, str) and bool(name),
            "a custom_tool_call needs 'call_id' and 'name'",
            source=self.source,
            location=where,
        )
        expect(isinstance(text, str), "'input' must be text", source=self.source, location=f"{where}.input")
        use: dict[str, Any] = {"type": "tool_use", "id": call_id, "name": name, "input": {"input": text}}
        use["item_type"] = _CUSTOM
        if isinstance(item.get("id"), str) and item["id"]:
            use["item_id"] = item["id"]
        extra = _extra(item, ("type", "id", "call_id", "name", "input"))
        if extra:
            use["item_extra"] = extra
        why = _problem(use)
        if why is not None:
            raise ImportFormatError(why, source=self.source, location=where)
        self._add(n, entry, "assistant", [use])
        self._calls[str(call_id)] = _CUSTOM

    def _output_fields(self, item: dict[str, Any], kind: str, where: str) -> tuple[str, Any]:
        """``(call_id, output)`` of a ``function_call_output`` or ``custom_tool_call_output`` item, checked.

        Raises:
            ImportFormatError: the call id is missing or malformed, or ``output`` is neither text nor parts.
        """
        call_id, output = item.get("call_id"), item.get("output")
        self._check_call_id(call_id, where)
        expect(
            isinstance(call_id, str) and bool(call_id),
            f"a {kind} needs its 'call_id'",
            source=self.source,
            location=where,
        )
        expect(
            isinstance(output, (str, list)),
            "'output' must be text or a list of parts",
            source=self.source,
            location=f"{where}.output",
        )
        return str(call_id), output

    def _custom_output(self, n: int, entry: _Entry) -> None:
        """A ``custom_tool_call_output`` as a ``tool_result`` (``item_type`` ``custom_tool_call_output``);
        one that answers no earlier ``custom_tool_call`` is left out and reported."""
        item, where = entry.item, entry.location
        call_id, output = self._output_fields(item, "custom_tool_call_output", where)
        if self._calls.get(str(call_id)) != _CUSTOM:
            self._flush()
            self.skips.add("custom_tool_call_output that answers no earlier custom_tool_call", where)
            return
        content = output if isinstance(output, str) else self._parts(output, f"{where}.output")
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
        result["item_type"] = "custom_tool_call_output"
        if isinstance(item.get("id"), str) and item["id"]:
            result["item_id"] = item["id"]
        extra = _extra(item, ("type", "id", "call_id", "output"))
        if extra:
            result["item_extra"] = extra
        self._add(n, entry, "tool", [result])

    def _opaque(self, n: int, entry: _Entry, kind: str) -> None:
        """A built-in tool's item as an ``openai_item`` block: a call in the assistant's message, an output
        in the tool message (left out and reported when it answers no call read before it)."""
        raw = entry.item
        keep = _KEEP_NULL.get(kind, ())
        item = {k: _no_nulls(v) for k, v in raw.items() if v is not None or k in keep}  # a model dump's nulls
        block = {"type": "openai_item", "item_type": kind, "item": item}
        why = _problem(block)
        if why is not None:
            raise ImportFormatError(why, source=self.source, location=entry.location)
        if openai_item_role(kind) == "assistant":
            self._made.update(str(item[k]) for k in ("call_id", "id") if isinstance(item.get(k), str))
            self._add(n, entry, "assistant", [block])
            return
        ref = _output_ref(item)
        if ref is not None and ref not in self._made:
            self._flush()
            self.skips.add(f"{kind} that answers no earlier call", entry.location)
            return
        self._add(n, entry, "tool", [block])

    def read(self, entries: Sequence[_Entry]) -> None:
        """Read the items in order (see the module docstring).

        Raises:
            ImportFormatError: an item is damaged (names its place).
        """
        for n, entry in enumerate(entries):
            item, where = entry.item, entry.location
            expect(isinstance(item, dict), "an item must be an object", source=self.source, location=where)
            kind = item.get("type")
            if kind is None and "role" in item:
                kind = "message"
            if kind == "message":
                role = item.get("role")
                expect(
                    role in ("user", "assistant", "system", "developer"),
                    f"a message needs role user, assistant, system or developer, got {role!r}",
                    source=self.source,
                    location=where,
                )
                blocks = self._parts(item.get("content"), f"{where}.content", phase=item.get("phase"))
                if role == "assistant" and isinstance(item.get("id"), str) and item["id"]:
                    blocks = [{**b, "item_id": item["id"]} if b["type"] == "text" else b for b in blocks]
                self._add(n, entry, str(role), blocks)
            elif kind == "reasoning":
                block = {k: v for k, v in item.items() if v is not None}  # a model dump's nulls: not sendable
                try:
                    parse_block(block)
                except MalformedContentError as exc:
                    if not has_lone_surrogate(block):
                        raise ImportFormatError(
                            f"a reasoning item needs its id and a summary list ({exc.reason})",
                            source=self.source,
                            location=where,
                        ) from None
                self._add(n, entry, "assistant", [block])
            elif kind == "function_call":
                call_id, name = item.get("call_id"), item.get("name")
                self._check_call_id(call_id, where)
                expect(
                    isinstance(call_id, str) and bool(call_id) and isinstance(name, str) and bool(name),
                    "a function_call needs 'call_id' and 'name'",
                    source=self.source,
                    location=where,
                )
                args, ok = parse_tool_arguments(item.get("arguments"))
                if not ok:
                    self.unparsed_arguments += 1
                use = {"type": "tool_use", "id": call_id, "name": name, "input": args}
                if isinstance(item.get("id"), str) and item["id"]:
                    use["item_id"] = item["id"]
                extra = _extra(item, ("type", "id", "call_id", "name", "arguments"))  # status...
                raw = item.get("arguments")
                if ok and isinstance(raw, str) and raw != _arguments(args):
                    extra["arguments"] = raw  # sent back byte for byte (a prompt-cache prefix)
                if extra:
                    use["item_extra"] = extra
                why = _problem(use)
                if why is not None:
                    raise ImportFormatError(why, source=self.source, location=where)
                self._add(n, entry, "assistant", [use])
                self._calls[call_id] = "function_call"
            elif kind == "function_call_output":
                call_id, output = self._output_fields(item, "function_call_output", where)
                if self._calls.get(call_id) != "function_call":
                    self._flush()
                    self.skips.add("function_call_output that answers no earlier function_call", where)
                    continue
                content: str | list[dict[str, Any]] = (
                    output if isinstance(output, str) else self._parts(output, f"{where}.output")
                )
                self._add(n, entry, "tool", [{"type": "tool_result", "tool_use_id": call_id, "content": content}])
            elif kind == _CUSTOM:
                self._custom_call(n, entry)
            elif kind == "custom_tool_call_output":
                self._custom_output(n, entry)
            elif kind in _OPAQUE_ITEMS:
                self._opaque(n, entry, str(kind))
            else:
                expect(
                    isinstance(kind, str),
                    "an item needs a 'type' (or a 'role', for a message)",
                    source=self.source,
                    location=where,
                )
                self._flush()
                self.skips.add(f"unsupported item type {kind!r}", where)
        self._flush()


def _no_nulls(value: Any) -> Any:
    """``value`` without the null fields of its objects, at any depth (a model dump writes every unset
    optional field as null, which the request types do not take); a JSON Schema (``input_schema``, a
    tool's parameters) is kept as it is."""
    if isinstance(value, dict):
        return {
            k: v if k in ("input_schema", "parameters") else _no_nulls(v) for k, v in value.items() if v is not None
        }
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def _extra(item: Mapping[str, Any], known: Sequence[str]) -> dict[str, Any]:
    """The fields of ``item`` besides ``known`` that are not null (kept so the item goes back whole)."""
    return {k: v for k, v in item.items() if k not in known and v is not None}


def _url_source(url: str) -> dict[str, Any]:
    """A media source for a URL: base64 for a ``data:...;base64,`` URL, else a URL source."""
    if url.startswith("data:") and ";base64," in url:
        media, data = url[5:].split(";base64,", 1)
        return {"type": "base64", "media_type": media, "data": data}
    return {"type": "url", "url": url}


def _problem(block: dict[str, Any]) -> str | None:
    """Why ``block`` cannot be stored (``"malformed content block: ..."``), or None (a lone surrogate is
    left to the write, which refuses its message and reports it)."""
    try:
        parse_block(block)
    except MalformedContentError as exc:
        return None if has_lone_surrogate(block) else f"malformed content block: {exc.reason}"
    return None


def _request_items(body: Mapping[str, Any]) -> list[Any]:
    """The items of a saved request body: its ``instructions`` (as a developer message) and ``input``."""
    raw = body["input"]
    items: list[Any] = [{"role": "user", "content": raw}] if isinstance(raw, str) else list(raw)
    said = body.get("instructions")
    if isinstance(said, str) and said.strip():
        items.insert(0, {"role": "developer", "content": said})
    return items


def _load_jsonl(source: str, skips: SkipLog) -> list[Any]:
    """A JSON Lines file of records (``response.model_dump()`` each), blank lines left out; a line that
    cannot be read (not JSON, not an object) is left out and reported in ``skips``, naming the line.

    Raises:
        ImportFormatError: the file cannot be read, or no line of it can.
    """
    return [record for _, record in iter_jsonl(source, skips)]


def _plain(value: Any) -> Any:
    """``value`` with the pydantic models in it (the SDK's ``Response``, its items) as JSON data
    (``model_dump(mode="json")``), at any depth."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return dump(mode="json")
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def read_openai_responses(path: str | os.PathLike[str], *, data: Any = None) -> ImportResult:
    """Read a Responses API transcript: a list of items, a stored response chain, or saved request
    bodies (see the module docstring).

    A list of request bodies (a JSON list, or a JSON Lines file of one body a line) is read as a chain:
    each body adds the items it sends that the bodies before it did not. A stateless client sends the
    whole history again in each body, so the conversation is read once, as the last body holds it, with
    the items an earlier body held and a later one left out (reasoning, often) kept in their place; a
    body with ``previous_response_id`` sent only its new items, which are read as they are. A body's
    ``instructions`` become a system message where they first appear or change. The model's answers
    are in the next body's input (a request body holds no output), so the last body's answer is not read.

    Args:
        path: The JSON file, or a JSON Lines file (``.jsonl``) of Response dicts, request bodies or items,
            one a line.
        data: The parsed file, when the caller already has it.

    Returns:
        One primary conversation ``openai-responses:<file stem>``.

    Raises:
        ImportFormatError: the file is not such a transcript, or an item is damaged (names its place,
            e.g. ``[3]`` or ``[1].output[2]``).
    """
    source = os.fspath(path)
    skips = SkipLog()
    if data is None:
        data = _load_jsonl(source, skips) if source.endswith(".jsonl") else load_json(source, skips)
    data = _plain(data)
    if _is_request(data):
        data = _request_items(data)
    if _is_response(data):
        data = [data]
    expect(
        isinstance(data, list),
        "expected a list of Responses items or of Response objects",
        source=source,
        location="top level",
    )
    chain = bool(data) and (_is_response(data[0]) or _is_request(data[0]))
    entries = _chain_entries(data, source) if chain else [_Entry(x, f"[{k}]", None) for k, x in enumerate(data)]
    conv_id = f"openai-responses:{Path(source).stem}"
    reader = _Reader(source, skips, conv_id)
    reader.read(entries)
    metadata: dict[str, Any] = {
        "format": "openai-responses",
        "assistant": "assistant",
        "user": "user",
        "system_participants": ["system"],
        "tool_participants": ["tool"],
        "markers": [],
    }
    ordered = [data[k] for k in _chain_order(data, source)] if chain else []
    models = [r["model"] for r in ordered if isinstance(r, dict) and isinstance(r.get("model"), str)]
    if models:
        metadata["model"] = models[-1]
    if reader.unparsed_arguments:
        metadata["unparsed_arguments"] = reader.unparsed_arguments
    return ImportResult(
        "openai-responses", source, [Conversation(conv_id, reader.messages, metadata, None, True)], skips.report()
    )
