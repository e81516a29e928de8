"""Content blocks: the pydantic models, validation, and media stored as blobs.

The block shapes follow the Anthropic Messages API (``text``, ``thinking``, ``redacted_thinking``,
``tool_use``, ``tool_result``, ``image``, ``document``; see docs.anthropic.com, "Messages"), plus the
provider-side blocks of server tools, the MCP connector and compaction (``server_tool_use`` and its
``*_tool_result`` blocks, ``mcp_tool_use`` / ``mcp_tool_result``, ``compaction``, ``search_result``,
``container_upload``; shapes of the ``anthropic`` SDK's ``Beta*BlockParam`` types), and OpenAI's
``reasoning`` (a Responses API reasoning item: :class:`ReasoningBlock`) and ``openai_item`` (any other
Responses item a built-in tool writes, kept whole: :class:`OpenAIItemBlock`). A server call and
its result travel together in one message (:func:`check_server_pairs`), or in a paused message
(``pause_turn``) and its continuation, the same participant's next message, opening with the result
(:func:`check_continuation`; a paused message followed by any other message is abandoned). Every
model allows unknown fields, so a host's own fields (``cache_control``, ``citations``...) survive a
round trip: :func:`block_to_dict` returns exactly the fields that were given, plus ``type``.

Base64 media (``image`` and ``document`` sources of type ``base64``) is moved into the store's blob
table on write and replaced by a :class:`BlobSource` reference (sha256 and size in bytes of the
decoded data); :func:`resolve_media` turns it back into base64 when an exporter needs the bytes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator, model_validator

from ._block_types import (
    ASSISTANT_ONLY_TYPES,
    SERVER_CALL_TYPES,
    SERVER_RESULT_TYPES,
    SERVER_TYPES,
    USER_ONLY_TYPES,
    continues_server_turn,
)
from ._documents import HEADER_WINDOW, is_pdf, text_document
from ._names import clip_repr, name_problem
from .errors import MalformedContentError
from .tokens import document_hints

__all__ = [
    "ASSISTANT_ONLY_TYPES",
    "OPENAI_CITATION_TYPES",
    "SERVER_CALL_TYPES",
    "SERVER_RESULT_TYPES",
    "SERVER_TYPES",
    "USER_ONLY_TYPES",
    "Base64Source",
    "BashCodeExecutionToolResultBlock",
    "BlobSource",
    "Block",
    "CodeExecutionToolResultBlock",
    "CompactionBlock",
    "ContainerUploadBlock",
    "ContentBlock",
    "ContentInput",
    "DocumentBlock",
    "FileSource",
    "ImageBlock",
    "MCPToolResultBlock",
    "MCPToolUseBlock",
    "OpenAIItemBlock",
    "ReasoningBlock",
    "RedactedThinkingBlock",
    "SearchResultBlock",
    "ServerToolUseBlock",
    "TextBlock",
    "TextEditorCodeExecutionToolResultBlock",
    "TextSource",
    "ThinkingBlock",
    "ToolResultBlock",
    "ToolSearchToolResultBlock",
    "ToolUseBlock",
    "URLSource",
    "WebFetchToolResultBlock",
    "WebSearchToolResultBlock",
    "block_to_dict",
    "blocks_to_dicts",
    "check_audience",
    "check_citations",
    "check_continuation",
    "check_server_pairs",
    "content_bytes",
    "externalize_media",
    "parse_block",
    "parse_content",
    "paused_calls",
    "resolve_media",
    "server_result_call",
    "server_result_mismatch",
    "sha256_hex",
    "unencodable_block",
    "validate_content",
]


class _Model(BaseModel):
    """Base of every block and source: unknown fields allowed and kept; ``type`` always dumped."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True, strict=True)

    def model_post_init(self, __context: Any) -> None:
        # ``type`` has a default so hosts may omit it, but it must always be serialised.
        self.model_fields_set.add("type")


# --- media sources -------------------------------------------------------------------------------


class Base64Source(_Model):
    """Inline media: ``data`` is base64 text of the raw bytes, ``media_type`` e.g. ``image/png``."""

    type: Literal["base64"] = "base64"
    media_type: str
    data: str

    @field_validator("data")
    @classmethod
    def _is_base64(cls, value: str) -> str:
        try:
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"data is not valid base64 ({exc})") from None
        return value


class URLSource(_Model):
    """Media fetched by the provider from ``url``."""

    type: Literal["url"] = "url"
    url: str


class TextSource(_Model):
    """A plain-text document source (Anthropic ``{"type": "text", "media_type": "text/plain"}``)."""

    type: Literal["text"] = "text"
    media_type: str = "text/plain"
    data: str


class BlobSource(_Model):
    """Stored form of base64 media: the bytes live in the store's blob table.

    Attributes:
        media_type: MIME type of the media.
        sha256: Hex sha256 of the decoded bytes; the blob's key.
        size: Length of the decoded bytes.
    """

    type: Literal["blob"] = "blob"
    media_type: str
    sha256: str
    size: int


class FileSource(_Model):
    """Media uploaded to the provider beforehand and named by its id (``file_id``): an OpenAI Responses
    ``input_file`` / ``input_image`` part with a ``file_id``, or an Anthropic Files API source
    (``{"type": "file", "file_id": ...}``). The bytes are the provider's: the id is kept and sent back
    unchanged, to the provider that issued it."""

    type: Literal["file"] = "file"
    file_id: str = Field(min_length=1)


MediaSource: TypeAlias = Annotated[
    Base64Source | URLSource | TextSource | BlobSource | FileSource, Field(discriminator="type")
]


# --- blocks --------------------------------------------------------------------------------------


class TextBlock(_Model):
    """Plain text, optionally with the ``citations`` the provider attached (a list of Anthropic
    ``TextCitationParam``: ``char_location``, ``page_location``, ``content_block_location``,
    ``web_search_result_location``, ``search_result_location``, each with ``cited_text``). Citations are
    an extra field, kept exactly as given: a write checks only that they are a list of objects with a
    ``type`` (:func:`check_citations`); a read does not check them, since journals written before they were
    priced and exported hold any JSON there and must stay readable (invariant 10)."""

    type: Literal["text"] = "text"
    text: str


class ThinkingBlock(_Model):
    """Extended thinking. When ``signature`` is set the block is signed: it is sent byte-identical or
    not at all, never edited."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None


class RedactedThinkingBlock(_Model):
    """Thinking the provider encrypted; ``data`` is opaque and sent back unchanged."""

    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str


class ToolUseBlock(_Model):
    """A tool call: ``id`` pairs it with the ``tool_result`` that answers it; ``input`` is a JSON object."""

    type: Literal["tool_use"] = "tool_use"
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    input: dict[str, Any]

    @field_validator("id", "name")
    @classmethod
    def _is_name(cls, value: str) -> str:
        problem = name_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value


class ImageBlock(_Model):
    """An image (base64, URL, a provider's file id, or a stored blob)."""

    type: Literal["image"] = "image"
    source: MediaSource

    @field_validator("source")
    @classmethod
    def _an_image(cls, source: Any) -> Any:
        media = getattr(source, "media_type", None)
        if isinstance(source, TextSource) or (isinstance(media, str) and not media.lower().startswith("image/")):
            raise ValueError(f"an image needs an image media type (image/png, image/jpeg...), got {media!r}")
        return source


class DocumentBlock(_Model):
    """A document such as a PDF (base64, URL, plain text, a provider's file id, or a stored blob)."""

    type: Literal["document"] = "document"
    source: MediaSource

    @field_validator("source")
    @classmethod
    def _a_document(cls, source: Any) -> Any:
        media = getattr(source, "media_type", None)
        if isinstance(media, str) and not (media.lower() == "application/pdf" or media.lower().startswith("text/")):
            raise ValueError(f"a document is a PDF (application/pdf) or text (text/plain...), got {media!r}")
        return source


class ToolResultBlock(_Model):
    """The answer to the ``tool_use`` named by ``tool_use_id``; ``content`` is a string or nested
    ``text``/``image``/``document`` blocks."""

    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str = Field(min_length=1)
    content: str | list[NestedBlock] = ""
    is_error: bool = False


class SearchResultBlock(_Model):
    """A search result the host supplies (Anthropic ``search_result``; a user turn or a tool result's
    content): ``source`` and ``title`` name it, ``content`` is its text blocks, ``citations`` its
    citation config."""

    type: Literal["search_result"] = "search_result"
    source: str
    title: str
    content: list[TextBlock]


NestedBlock: TypeAlias = Annotated[
    TextBlock | ImageBlock | DocumentBlock | SearchResultBlock, Field(discriminator="type")
]
ToolResultBlock.model_rebuild()


# --- provider-side (server) tools, compaction, uploads -------------------------------------------
#
# Shapes of the ``anthropic`` SDK's request params (``anthropic.types.beta.Beta*BlockParam``). A server
# tool call (``server_tool_use``, ``mcp_tool_use``) and the result the provider ran it to travel
# together in one assistant message. Error variants and nested parts keep unknown fields like blocks.


class ServerToolUseBlock(_Model):
    """A call of a provider-side tool (``web_search``, ``web_fetch``, ``code_execution``,
    ``bash_code_execution``, ``text_editor_code_execution``, ``tool_search_tool_*``...); its result is a
    ``*_tool_result`` block with the same id later in the same assistant message."""

    type: Literal["server_tool_use"] = "server_tool_use"
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    input: dict[str, Any]


class ToolError(_Model):
    """The error variant of a server tool result (``web_search_tool_result_error``...)."""

    type: Literal[
        "web_search_tool_result_error",
        "web_fetch_tool_result_error",
        "code_execution_tool_result_error",
        "bash_code_execution_tool_result_error",
        "text_editor_code_execution_tool_result_error",
        "tool_search_tool_result_error",
    ]
    error_code: str


class WebSearchResult(_Model):
    """One hit of a web search; ``encrypted_content`` is opaque and sent back unchanged."""

    type: Literal["web_search_result"] = "web_search_result"
    url: str
    title: str
    encrypted_content: str
    page_age: str | None = None


class WebSearchToolResultBlock(_Model):
    """The results of a ``web_search`` call: a list of hits or an error."""

    type: Literal["web_search_tool_result"] = "web_search_tool_result"
    tool_use_id: str = Field(min_length=1)
    content: list[WebSearchResult] | ToolError


class WebFetchResult(_Model):
    """A fetched page: ``content`` is a ``document`` block (text or base64 source)."""

    type: Literal["web_fetch_result"] = "web_fetch_result"
    url: str
    content: DocumentBlock
    retrieved_at: str | None = None


class WebFetchToolResultBlock(_Model):
    """The result of a ``web_fetch`` call: the page or an error."""

    type: Literal["web_fetch_tool_result"] = "web_fetch_tool_result"
    tool_use_id: str = Field(min_length=1)
    content: Annotated[WebFetchResult | ToolError, Field(discriminator="type")]


class CodeOutputFile(_Model):
    """A file the code wrote (``code_execution_output`` / ``bash_code_execution_output``)."""

    type: Literal["code_execution_output", "bash_code_execution_output"]
    file_id: str


class CodeExecutionResult(_Model):
    """Output of code run by the provider (``code_execution_result``, ``bash_code_execution_result``)."""

    type: Literal["code_execution_result", "bash_code_execution_result"]
    stdout: str
    stderr: str
    return_code: int
    content: list[CodeOutputFile]


class EncryptedCodeExecutionResult(_Model):
    """Code output with stdout encrypted: opaque, sent back unchanged, never excerpted."""

    type: Literal["encrypted_code_execution_result"] = "encrypted_code_execution_result"
    encrypted_stdout: str
    stderr: str
    return_code: int
    content: list[CodeOutputFile]


class CodeExecutionToolResultBlock(_Model):
    """The result of a ``code_execution`` call."""

    type: Literal["code_execution_tool_result"] = "code_execution_tool_result"
    tool_use_id: str = Field(min_length=1)
    content: Annotated[CodeExecutionResult | EncryptedCodeExecutionResult | ToolError, Field(discriminator="type")]


class BashCodeExecutionToolResultBlock(_Model):
    """The result of a ``bash_code_execution`` call."""

    type: Literal["bash_code_execution_tool_result"] = "bash_code_execution_tool_result"
    tool_use_id: str = Field(min_length=1)
    content: Annotated[CodeExecutionResult | ToolError, Field(discriminator="type")]


class TextEditorResult(_Model):
    """A text-editor code-execution outcome (``..._view_result`` with ``content``, ``..._create_result``,
    ``..._str_replace_result``); its fields are kept as given."""

    type: Literal[
        "text_editor_code_execution_view_result",
        "text_editor_code_execution_create_result",
        "text_editor_code_execution_str_replace_result",
    ]


class TextEditorCodeExecutionToolResultBlock(_Model):
    """The result of a ``text_editor_code_execution`` call."""

    type: Literal["text_editor_code_execution_tool_result"] = "text_editor_code_execution_tool_result"
    tool_use_id: str = Field(min_length=1)
    content: Annotated[TextEditorResult | ToolError, Field(discriminator="type")]


class ToolSearchToolResultBlock(_Model):
    """The result of a ``tool_search_tool_*`` call (tool references or an error), kept as given."""

    type: Literal["tool_search_tool_result"] = "tool_search_tool_result"
    tool_use_id: str = Field(min_length=1)
    content: dict[str, Any]


class MCPToolUseBlock(_Model):
    """A call of a tool on a remote MCP server, run by the provider (MCP connector)."""

    type: Literal["mcp_tool_use"] = "mcp_tool_use"
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    server_name: str = Field(min_length=1)
    input: dict[str, Any]


class MCPToolResultBlock(_Model):
    """The result of an ``mcp_tool_use``: a string or text blocks."""

    type: Literal["mcp_tool_result"] = "mcp_tool_result"
    tool_use_id: str = Field(min_length=1)
    content: str | list[TextBlock] = ""
    is_error: bool = False


class ContainerUploadBlock(_Model):
    """A file (by Files API id) uploaded to the code-execution container; a user-turn block."""

    type: Literal["container_upload"] = "container_upload"
    file_id: str = Field(min_length=1)


class CompactionBlock(_Model):
    """The summary the provider's server-side compaction wrote (``content``; None for a failed
    compaction), with ``encrypted_content``/``signature``/``tool_changes`` when present: sent back
    exactly as received, never edited or excerpted."""

    type: Literal["compaction"] = "compaction"
    content: str | None = None

    @field_validator("content")
    @classmethod
    def _not_empty(cls, value: str | None) -> str | None:
        if value == "":
            raise ValueError("compaction content may be null but not an empty string")
        return value


class ReasoningSummary(_Model):
    """One part of a reasoning item's ``summary`` (``summary_text``)."""

    type: Literal["summary_text"] = "summary_text"
    text: str


class ReasoningBlock(_Model):
    """An OpenAI Responses API ``reasoning`` item (``openai.types.responses.ResponseReasoningItemParam``):
    ``id`` (``rs_...``), ``summary`` parts, and ``encrypted_content`` (when the response was asked for it
    with ``include=["reasoning.encrypted_content"]``), ``content`` and ``status`` when given. Like signed
    thinking it is sent back exactly as received (the provider verifies the id and encrypted content as a
    pair) or not at all, never edited or excerpted; an assistant-turn block, sent to the Responses API only."""

    type: Literal["reasoning"] = "reasoning"
    id: str = Field(min_length=1)
    summary: list[ReasoningSummary]
    encrypted_content: str | None = None


class OpenAIItemBlock(_Model):
    """An OpenAI Responses API item that no other block stands for: a built-in tool's call
    (``web_search_call``, ``file_search_call``, ``code_interpreter_call``, ``image_generation_call``,
    ``mcp_call``, ``mcp_list_tools``, ``mcp_approval_request``, ``computer_call``, ``local_shell_call``...)
    in an assistant turn, or what the host sends back for one (``computer_call_output``,
    ``local_shell_call_output``, ``mcp_approval_response``; see
    :func:`~context_journal._block_types.openai_item_role`) in a user or tool turn. ``item`` is the raw
    item, every field kept (unknown ones included), its ``type`` equal to ``item_type``. Opaque: priced by
    its JSON text, never edited or excerpted, sent to the Responses API as the item it was and to the
    other exporters as a line of text."""

    type: Literal["openai_item"] = "openai_item"
    item_type: str = Field(min_length=1)
    item: dict[str, Any]

    @model_validator(mode="after")
    def _same_type(self) -> OpenAIItemBlock:
        if self.item.get("type") != self.item_type:
            raise ValueError(f"item.type must equal item_type {self.item_type!r}, got {self.item.get('type')!r}")
        return self


NATIVE_OPENAI_ITEMS: dict[str, str] = {
    "message": "'text' blocks of the message's turn",
    "reasoning": "a 'reasoning' block",
    "function_call": "a 'tool_use' block",
    "function_call_output": "a 'tool_result' block",
    "custom_tool_call": "a 'tool_use' block with item_type 'custom_tool_call' and input {'input': text}",
    "custom_tool_call_output": "a 'tool_result' block with item_type 'custom_tool_call_output'",
}
"""Responses item types the content model stands for with blocks of its own (what the Responses import
writes for them): a write of an ``openai_item`` of one of these is refused (:func:`check_openai_items`),
naming the block type to use (the compile pairs and repairs those; it would send an ``openai_item`` call
unanswered)."""


ServerResultBlock: TypeAlias = (
    WebSearchToolResultBlock
    | WebFetchToolResultBlock
    | CodeExecutionToolResultBlock
    | BashCodeExecutionToolResultBlock
    | TextEditorCodeExecutionToolResultBlock
    | ToolSearchToolResultBlock
    | MCPToolResultBlock
)


def server_result_call(kind: Any) -> str:
    """The call block type a server result block type answers."""
    return "mcp_tool_use" if kind == "mcp_tool_result" else "server_tool_use"


SERVER_TOOL_RESULTS: Mapping[str, str] = {
    "web_search": "web_search_tool_result",
    "web_fetch": "web_fetch_tool_result",
    "code_execution": "code_execution_tool_result",
    "bash_code_execution": "bash_code_execution_tool_result",
    "text_editor_code_execution": "text_editor_code_execution_tool_result",
    "tool_search_tool_regex": "tool_search_tool_result",
    "tool_search_tool_bm25": "tool_search_tool_result",
}
"""The result block type of each server tool, by the ``name`` of its ``server_tool_use`` (Anthropic's
server tool guides; the ``anthropic`` SDK's ``BetaServerToolUseBlockParam.name``). A name not listed
(a newer tool) may be answered by any server result type."""


def server_result_mismatch(call: Mapping[str, Any], kind: Any) -> str | None:
    """Why a server result block of type ``kind`` cannot answer ``call`` (a ``server_tool_use`` or
    ``mcp_tool_use`` block), or None when it can: the call's block type must be the one ``kind``
    answers (:func:`server_result_call`), and a ``server_tool_use`` of a known tool
    (:data:`SERVER_TOOL_RESULTS`) is answered only by that tool's result type."""
    want = server_result_call(kind)
    if call.get("type") != want:
        return f"a {kind} answers a {want}, not a {call.get('type')}"
    name = call.get("name")
    expected = SERVER_TOOL_RESULTS.get(name) if want == "server_tool_use" and isinstance(name, str) else None
    if expected is not None and expected != kind:
        return f"a {call.get('name')} call is answered by a {expected}, not a {kind}"
    return None


Block: TypeAlias = (
    TextBlock
    | ThinkingBlock
    | RedactedThinkingBlock
    | ToolUseBlock
    | ToolResultBlock
    | ImageBlock
    | DocumentBlock
    | SearchResultBlock
    | ServerToolUseBlock
    | MCPToolUseBlock
    | ServerResultBlock
    | ContainerUploadBlock
    | CompactionBlock
    | ReasoningBlock
    | OpenAIItemBlock
)
ContentBlock: TypeAlias = Annotated[Block, Field(discriminator="type")]
ContentInput: TypeAlias = str | Sequence[Block | Mapping[str, Any]]
"""What a write accepts: a string (one text block) or a list of blocks or block dicts."""

_BLOCK_ADAPTER: TypeAdapter[Block] = TypeAdapter(ContentBlock)
_KNOWN_TYPES = {
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
    "image",
    "document",
    "search_result",
    "container_upload",
    "compaction",
    "reasoning",
    "openai_item",
    *SERVER_TYPES,
}


def _loc_to_path(raw: Any, loc: tuple[int | str, ...]) -> str:
    """The data path of a pydantic error location: walk ``raw`` along ``loc`` and drop the elements that
    are not keys or indexes of the data (discriminator tags, union member labels); the last element is
    always kept (it may name a missing field)."""
    parts: list[str] = []
    current = raw
    for n, part in enumerate(loc):
        last = n == len(loc) - 1
        if isinstance(current, Mapping) and isinstance(part, str) and part in current:
            current = current[part]
            parts.append(part)
        elif isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
            current = current[part]
            parts.append(str(part))
        elif last and not (isinstance(part, str) and ("[" in part or part in ("str", "function-after"))):
            parts.append(str(part))
    return ".".join(parts)


def parse_block(raw: Block | Mapping[str, Any], *, message_index: int | None = None, block_index: int = 0) -> Block:
    """Validate one block.

    Args:
        raw: A block model or a dict in the Anthropic shape.
        message_index: Position of the message in the write, for the error's place.
        block_index: Position of the block in the message, for the error's place.

    Returns:
        The validated block model (unknown fields kept).

    Raises:
        MalformedContentError: naming ``message_index``, ``block_index`` and the path in the block.
    """
    if isinstance(raw, BaseModel):
        raw = raw.model_dump(mode="python", exclude_unset=True)
    if not isinstance(raw, Mapping):
        raise MalformedContentError(
            f"a block must be an object, got {type(raw).__name__}",
            message_index=message_index,
            block_index=block_index,
        )
    kind = raw.get("type")
    if kind not in _KNOWN_TYPES:
        raise MalformedContentError(
            f"unknown block type {kind!r}; expected one of {sorted(_KNOWN_TYPES)}",
            message_index=message_index,
            block_index=block_index,
            path="type",
        )
    try:
        return _BLOCK_ADAPTER.validate_python(dict(raw))
    except ValidationError as exc:
        # In a union every member reports; the deepest location is the one the host got wrong.
        first = max(exc.errors(), key=lambda e: len(e["loc"]))
        raise MalformedContentError(
            f"{kind} block: {first['msg']}",
            message_index=message_index,
            block_index=block_index,
            path=_loc_to_path(raw, tuple(first["loc"])),
        ) from None


MAX_DEPTH = 64
"""The deepest nesting of JSON objects and arrays a content block (itself level 1) or a message's
metadata may hold. Checked at write so that no stored message can break a later read:
pydantic's serializer, which renders and exports messages, refuses values nested much deeper (and
Python's recursion limit stops a parse near 1,000 levels)."""


def _containers(value: Any) -> Iterator[tuple[Mapping[Any, Any] | list[Any] | tuple[Any, ...], int, list[str | int]]]:
    """Every object and array of ``value`` with its depth (``value`` is level 1) and path, depth first.
    Iterative, so a value nested 100,000 levels is walked, not recursed."""
    stack: list[tuple[Any, int, list[str | int]]] = [(value, 1, [])]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, Mapping):
            children: Iterable[tuple[str | int, Any]] = ((str(k), v) for k, v in node.items())
        elif isinstance(node, list | tuple):
            children = enumerate(node)
        else:
            continue
        yield node, depth, path
        for key, child in children:
            if isinstance(child, Mapping | list | tuple):
                stack.append((child, depth + 1, [*path, key]))


def too_deep(value: Any, limit: int = MAX_DEPTH) -> list[str | int] | None:
    """The path to the first object or array of ``value`` nested deeper than ``limit`` levels (``value``
    itself is level 1), or None."""
    return next((path for _, depth, path in _containers(value) if depth > limit), None)


def metadata_problem(metadata: Mapping[str, Any]) -> str | None:
    """Why ``metadata`` would not read back as written, in one walk: nested deeper than
    :data:`MAX_DEPTH`, or a key that is not text (JSON writes ``{1: 2}`` as ``{"1": 2}``); None when it
    would."""
    for node, depth, path in _containers(metadata):
        where = ".".join(map(str, path[:6])) + (".…" if len(path) > 6 else "")
        if depth > MAX_DEPTH:
            return f"metadata is nested more than {MAX_DEPTH} levels deep (at {where})"
        if isinstance(node, Mapping) and not all(isinstance(key, str) for key in node):
            key = next(k for k in node if not isinstance(k, str))
            return f"metadata keys must be text (at {'.'.join(map(str, [*path[:6], repr(key)]))})"
    return None


def _check_depth(raw: Any, *, message_index: int | None, block_index: int | None, field: str = "") -> None:
    path = too_deep(raw)
    if path is not None:
        where = ".".join(str(p) for p in path[:6]) + (".…" if len(path) > 6 else "")
        raise MalformedContentError(
            f"nested more than {MAX_DEPTH} levels deep (at {where})",
            message_index=message_index,
            block_index=block_index,
            path=field,
        )


def parse_content(content: ContentInput, *, message_index: int | None = None) -> list[Block]:
    """Validate a message's content.

    Args:
        content: A string (becomes one ``text`` block) or a non-empty list of blocks or block dicts.
        message_index: Position of the message in the write, for the error's place.

    Returns:
        The validated blocks.

    Raises:
        MalformedContentError: when the content is empty, not a list, or any block is malformed or nested
            deeper than :data:`MAX_DEPTH`.
    """
    if isinstance(content, str):
        return [TextBlock(text=content)]
    if isinstance(content, Mapping) or not isinstance(content, Iterable):
        raise MalformedContentError(
            f"content must be a string or a list of blocks, got {type(content).__name__}",
            message_index=message_index,
        )
    content = list(content)
    for i, b in enumerate(content):
        if isinstance(b, Mapping):
            _check_depth(b, message_index=message_index, block_index=i)
    blocks = [parse_block(b, message_index=message_index, block_index=i) for i, b in enumerate(content)]
    if not blocks:
        raise MalformedContentError("a message needs at least one content block", message_index=message_index)
    return blocks


def validate_content(
    content: ContentInput, *, message_index: int | None = None, strict: bool = True, continuation: bool = False
) -> list[dict[str, Any]]:
    """Validate a message's content and return it as JSON-ready dicts, as given.

    Dict blocks that validate are kept exactly as the host wrote them (key order and unknown fields
    included), so signed thinking and ``cache_control`` survive byte for byte; models are dumped with
    :func:`block_to_dict`. ``strict=False`` checks only what every read needs (block structure,
    audiences), not the rules added since for what may be written (server tool pairing, media types and
    URLs): ``verify`` judges stored records so, and what an older version wrote stays valid.
    ``continuation=True`` lets through the results of a message that continues a paused one (their calls
    are in the message before, which the caller checks with :func:`check_continuation`).

    Raises:
        MalformedContentError: as :func:`parse_content`.
    """
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks = parse_content(content, message_index=message_index)
    out = [
        dict(raw) if isinstance(raw, Mapping) else block_to_dict(block)
        for raw, block in zip(content, blocks, strict=True)
    ]
    check_audience(out, message_index=message_index)
    if strict:
        check_server_pairs(out, message_index=message_index, lenient=continuation)
        check_media(out, message_index=message_index)
        check_citations(out, message_index=message_index)
        check_openai_items(out, message_index=message_index)
        check_block_fields(out, message_index=message_index)
        check_server_results(out, message_index=message_index)
    return out


# What a server tool result's ``content`` may be, by result type (the SDK's ``Beta*ToolResultBlockParam``
# content unions): the variants of the tool's own results and its own error, never another tool's.
_RESULT_VARIANTS: dict[str, frozenset[str]] = {
    "web_search_tool_result": frozenset({"web_search_tool_result_error"}),  # or a list of web_search_result
    "web_fetch_tool_result": frozenset({"web_fetch_result", "web_fetch_tool_result_error"}),
    "code_execution_tool_result": frozenset(
        {"code_execution_result", "encrypted_code_execution_result", "code_execution_tool_result_error"}
    ),
    "bash_code_execution_tool_result": frozenset(
        {"bash_code_execution_result", "bash_code_execution_tool_result_error"}
    ),
    "text_editor_code_execution_tool_result": frozenset(
        {
            "text_editor_code_execution_view_result",
            "text_editor_code_execution_create_result",
            "text_editor_code_execution_str_replace_result",
            "text_editor_code_execution_tool_result_error",
        }
    ),
}
_OUTPUT_FILE = {
    "code_execution_result": "code_execution_output",
    "encrypted_code_execution_result": "code_execution_output",
    "bash_code_execution_result": "bash_code_execution_output",
}
_INT_OR_NULL = (int, type(None))
# Fields of the variants whose fields the models keep as given: (required, optional), each with its types.
_VARIANT_FIELDS: dict[str, tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]]] = {
    "text_editor_code_execution_view_result": (
        {"content": (str,), "file_type": (str,)},
        {"num_lines": _INT_OR_NULL, "start_line": _INT_OR_NULL, "total_lines": _INT_OR_NULL},
    ),
    "text_editor_code_execution_create_result": ({"is_file_update": (bool,)}, {}),
    "text_editor_code_execution_str_replace_result": (
        {},
        {
            "lines": (list, type(None)),
            "new_lines": _INT_OR_NULL,
            "new_start": _INT_OR_NULL,
            "old_lines": _INT_OR_NULL,
            "old_start": _INT_OR_NULL,
        },
    ),
}


def _variant_problem(content: Mapping[str, Any], kind: str) -> tuple[str, str] | None:
    """``(path, why)`` when a server result's ``content`` object is not one of its type's variants or a
    variant's field has the wrong type; None when it is well formed."""
    variant = content.get("type")
    allowed = _RESULT_VARIANTS[kind]
    if variant not in allowed:
        return "content.type", f"a {kind} holds one of {', '.join(sorted(allowed))}, got {variant!r}"
    if str(variant).endswith("_error"):
        if not isinstance(content.get("error_code"), str) or not content["error_code"]:
            return "content.error_code", f"a {variant} needs its error_code (text)"
        return None
    if variant in _OUTPUT_FILE:
        files = content.get("content")
        want = _OUTPUT_FILE[str(variant)]
        if isinstance(files, list):
            for k, f in enumerate(files):
                if not isinstance(f, Mapping) or f.get("type") != want:
                    return f"content.content.{k}", f"a {variant}'s files are {want} objects"
    required, optional = _VARIANT_FIELDS.get(str(variant), ({}, {}))
    for name, types in required.items():
        value = content.get(name)
        if name not in content or not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
            return f"content.{name}", f"a {variant} needs {name!r} ({types[0].__name__})"
    for name, types in optional.items():
        value = content.get(name)
        if name in content and (not isinstance(value, types) or (bool not in types and isinstance(value, bool))):
            return f"content.{name}", f"{variant} {name!r} must be {types[0].__name__} or null"
    lines = content.get("lines")
    if isinstance(lines, list) and any(not isinstance(x, str) for x in lines):
        return "content.lines", "a str_replace result's lines are text"
    return None


def _cache_control_problem(block: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(path, why)`` when a block's ``cache_control`` is not null or ``{"type": "ephemeral"}`` with an
    optional ``ttl`` of ``"5m"`` or ``"1h"`` (the SDK's ``BetaCacheControlEphemeralParam``)."""
    cc = block.get("cache_control")
    if cc is None:
        return None
    if not isinstance(cc, Mapping) or cc.get("type") != "ephemeral":
        return "cache_control", 'cache_control is {"type": "ephemeral"} (with an optional ttl)'
    if "ttl" in cc and cc["ttl"] not in ("5m", "1h"):
        return "cache_control.ttl", f'cache_control ttl is "5m" or "1h", got {cc["ttl"]!r}'
    return None


def check_server_results(blocks: Sequence[Mapping[str, Any]], *, message_index: int | None = None) -> None:
    """Check the parts the models keep loosely (checked when written, not when read): a server tool
    result's ``content`` is a variant of its own type (a ``code_execution_tool_result`` never holds a
    ``bash_code_execution_result`` or a web search error; error codes are any text, since the provider adds
    new ones), a text-editor result's fields have their types; a ``server_tool_use``/``*_tool_result``
    ``caller`` is an object with a ``type`` (and, unless ``direct``, the ``tool_id`` that called); a
    ``search_result``'s ``citations`` is ``{"enabled": bool}``; and a ``cache_control`` on any block, or on
    a block nested in a tool or search result, is null or ``{"type": "ephemeral"}`` with an optional
    ``ttl`` of ``"5m"`` or ``"1h"``. Shapes: the SDK's ``Beta*BlockParam`` types.

    Raises:
        MalformedContentError: naming the block and the field.
    """
    for i, b in enumerate(blocks):
        kind = b.get("type")
        problem: tuple[str, str] | None = None
        content = b.get("content")
        if kind in _RESULT_VARIANTS and isinstance(content, Mapping):
            problem = _variant_problem(content, str(kind))
        elif kind == "web_search_tool_result" and isinstance(content, list):
            for k, hit in enumerate(content):
                if not isinstance(hit, Mapping) or hit.get("type") != "web_search_result":
                    problem = f"content.{k}", "a web search's hits are web_search_result objects"
                    break
        if problem is None and b.get("caller") is not None:
            caller = b["caller"]
            if not isinstance(caller, Mapping) or not isinstance(caller.get("type"), str):
                problem = "caller", "a caller is an object with a type (direct, a server tool...)"
            elif caller["type"] != "direct" and (not isinstance(caller.get("tool_id"), str) or not caller["tool_id"]):
                problem = "caller.tool_id", f"a {caller['type']} caller names the tool that called (tool_id, text)"
        if problem is None and kind == "search_result" and "citations" in b:  # not nullable there
            config = b["citations"]
            if not isinstance(config, Mapping) or not isinstance(config.get("enabled"), bool):
                problem = "citations", 'a search_result\'s citations is {"enabled": true or false}'
        if problem is None:
            problem = _cache_control_problem(b)
            inner = b.get("content") if kind in _NESTING_KINDS else None
            for k, nested in enumerate(inner if isinstance(inner, list) else []):
                if problem is None and isinstance(nested, Mapping):
                    found = _cache_control_problem(nested)
                    problem = None if found is None else (f"content.{k}.{found[0]}", found[1])
        if problem is not None:
            raise MalformedContentError(problem[1], message_index=message_index, block_index=i, path=problem[0])


def check_block_fields(blocks: Sequence[Mapping[str, Any]], *, message_index: int | None = None) -> None:
    """Check the fields a block type keeps as extras (checked when written, not when read): a ``text``
    block's ``refusal`` mark (the Responses import's) is a boolean; a ``compaction`` block's
    ``encrypted_content`` and ``signature`` are text or null, and its ``tool_changes`` null or a list of
    objects each with a ``type`` (``tool_addition``/``tool_removal``: the SDK's
    ``BetaCompactionBlockParam``), sent back unchanged.

    Raises:
        MalformedContentError: naming the block and the field.
    """
    for i, b in enumerate(blocks):
        kind = b.get("type")
        problem: tuple[str, str] | None = None
        if kind == "text" and "refusal" in b and not isinstance(b["refusal"], bool):
            problem = "refusal", f"a text block's refusal mark must be true or false, got {type(b['refusal']).__name__}"
        elif kind == "compaction":
            for name in ("encrypted_content", "signature"):
                if b.get(name) is not None and not isinstance(b[name], str):
                    problem = name, f"compaction {name!r} must be text or null, got {type(b[name]).__name__}"
            changes = b.get("tool_changes")
            if problem is None and changes is not None:
                if not isinstance(changes, list):
                    problem = "tool_changes", f"compaction tool_changes must be a list, got {type(changes).__name__}"
                else:
                    for k, change in enumerate(changes):
                        if not isinstance(change, Mapping) or not isinstance(change.get("type"), str):
                            problem = f"tool_changes.{k}", "a tool change must be an object with a type"
                            break
        if problem is not None:
            raise MalformedContentError(problem[1], message_index=message_index, block_index=i, path=problem[0])


def check_openai_items(blocks: Sequence[Mapping[str, Any]], *, message_index: int | None = None) -> None:
    """Refuse an ``openai_item`` block of an item type the content model has blocks for
    (:data:`NATIVE_OPENAI_ITEMS`: a ``function_call`` is a ``tool_use``...), as the Responses import
    writes them. A write rule only: what an older version stored is read, and exported as text.

    Raises:
        MalformedContentError: naming the block and the block type to write instead.
    """
    for j, b in enumerate(blocks):
        native = NATIVE_OPENAI_ITEMS.get(str(b.get("item_type"))) if b.get("type") == "openai_item" else None
        if native is not None:
            raise MalformedContentError(
                f"an OpenAI {b['item_type']} item is not an openai_item: write it as {native}, as the "
                "Responses import does (the compile pairs and repairs those)",
                message_index=message_index,
                block_index=j,
                path="item_type",
            )


_INT = (int,)
_STR = (str,)
_STR_OR_NULL = (str, type(None))
_CITATION_FIELDS: dict[str, tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]]] = {
    # type: (required fields and their types, nullable fields: absent, null, or of their type). A field
    # the SDK's ``*Param`` type marks ``Required[Optional[str]]`` (``document_title``, ``title``) is required
    # and may be null.
    "char_location": (
        {
            "cited_text": _STR,
            "document_index": _INT,
            "document_title": _STR_OR_NULL,
            "start_char_index": _INT,
            "end_char_index": _INT,
        },
        {"file_id": _STR},
    ),
    "page_location": (
        {
            "cited_text": _STR,
            "document_index": _INT,
            "document_title": _STR_OR_NULL,
            "start_page_number": _INT,
            "end_page_number": _INT,
        },
        {"file_id": _STR},
    ),
    "content_block_location": (
        {
            "cited_text": _STR,
            "document_index": _INT,
            "document_title": _STR_OR_NULL,
            "start_block_index": _INT,
            "end_block_index": _INT,
        },
        {"file_id": _STR},
    ),
    "web_search_result_location": (
        {"cited_text": _STR, "url": _STR, "encrypted_index": _STR, "title": _STR_OR_NULL},
        {},
    ),
    "search_result_location": (
        {
            "cited_text": _STR,
            "search_result_index": _INT,
            "source": _STR,
            "start_block_index": _INT,
            "end_block_index": _INT,
            "title": _STR_OR_NULL,
        },
        {},
    ),
    # OpenAI Responses ``output_text`` annotations, kept as citations by the Responses import
    "url_citation": ({"url": _STR, "start_index": _INT, "end_index": _INT, "title": _STR}, {}),
    "file_citation": ({"file_id": _STR, "filename": _STR, "index": _INT}, {}),
    "container_file_citation": (
        {"container_id": _STR, "file_id": _STR, "filename": _STR, "start_index": _INT, "end_index": _INT},
        {},
    ),
    "file_path": ({"file_id": _STR, "index": _INT}, {}),
}
"""The citation types whose fields are checked at write: Anthropic's ``TextCitationParam`` kinds and
OpenAI's annotation kinds (``openai.types.responses.response_output_text_param``). Other types are
accepted as they are."""

OPENAI_CITATION_TYPES = frozenset({"url_citation", "file_citation", "container_file_citation", "file_path"})
"""Citation types that are OpenAI Responses annotations (sent back only by the Responses export)."""


def _citation_problem(c: Mapping[str, Any], where: str) -> tuple[str, str] | None:
    """``(path, why)`` when a citation of a known type lacks a field it needs or holds one of the wrong
    type (an integer field holding a bool or a float is wrong too); None when it is well formed or of a
    type not checked."""
    kind = str(c.get("type"))
    known = _CITATION_FIELDS.get(kind)
    if known is None:
        return None
    required, nullable = known
    for name, types in required.items():
        if name not in c:
            return f"{where}.{name}", f"a {kind} citation needs {name!r}"
        value = c[name]
        if not isinstance(value, types) or isinstance(value, bool):
            want = types[0].__name__ + (" or null" if type(None) in types else "")
            return f"{where}.{name}", f"{kind} {name!r} must be {want}, got {type(value).__name__}"
    for name, types in nullable.items():
        value = c.get(name)
        if value is not None and (not isinstance(value, types) or isinstance(value, bool)):
            return f"{where}.{name}", f"{kind} {name!r} must be {types[0].__name__} or null, got {type(value).__name__}"
    return None


def check_citations(blocks: Sequence[Mapping[str, Any]], *, message_index: int | None = None) -> None:
    """Check the ``citations`` of every ``text`` block, those nested in a ``tool_result``,
    ``mcp_tool_result`` or ``search_result`` included: null, or a list of objects, each with a ``type`` (a
    text naming the kind of citation: ``char_location``, ``web_search_result_location``...). A citation of
    a known type (Anthropic's ``char_location``, ``page_location``, ``content_block_location``,
    ``web_search_result_location``, ``search_result_location``; OpenAI's ``url_citation``,
    ``file_citation``, ``container_file_citation``, ``file_path``) must hold the fields its type needs,
    each of its type (``document_title`` and ``title`` are required and may be null, as the SDK's
    ``*Param`` types have them; ``file_id`` may be absent or null); one of another
    type is kept as given, extra fields and all. Checked when content is written, not when it is read: a
    journal written before the check stays readable.

    Raises:
        MalformedContentError: naming the block and the path (``citations``, ``citations.2.type``,
            ``content.0.citations``...).
    """
    for i, b in enumerate(blocks):
        inner = b.get("content") if b.get("type") in _NESTING_KINDS else None
        nested = [(f"content.{k}.", c) for k, c in enumerate(inner)] if isinstance(inner, list) else []
        for prefix, block in [("", b), *nested]:
            if not isinstance(block, Mapping) or block.get("type") != "text" or block.get("citations") is None:
                continue  # null: a model dump's "no citations", which the request types take
            cites = block["citations"]
            problem: tuple[str, str] | None = None
            if not isinstance(cites, list):
                problem = "citations", f"citations must be a list of citation objects, got {type(cites).__name__}"
            else:
                for k, c in enumerate(cites):
                    if not isinstance(c, Mapping):
                        problem = f"citations.{k}", f"a citation must be an object, got {type(c).__name__}"
                    elif not isinstance(c.get("type"), str) or not c["type"]:
                        problem = f"citations.{k}.type", "a citation needs its type (char_location, ...)"
                    else:
                        problem = _citation_problem(c, f"citations.{k}")
                    if problem is not None:
                        break
            if problem is not None:
                raise MalformedContentError(
                    problem[1], message_index=message_index, block_index=i, path=f"{prefix}{problem[0]}"
                )


_MEDIA_TYPE = re.compile(r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}")
"""A media type as RFC 6838 section 4.2 names one (``type/subtype``, restricted-name characters, at most
127 each), without parameters: what the providers take in a ``media_type`` field."""

MAX_URL = 65_536
"""Longest media URL, in characters."""


IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
"""The image media types both providers take (Anthropic's image blocks and OpenAI's image inputs)."""


def _pdf_head(data: str) -> bool:
    """Whether base64 ``data`` decodes to bytes with a PDF header (:func:`~context_journal._documents.is_pdf`);
    only the head is decoded. True when it does not decode (the source's own check names that)."""
    chars = 4 * -(-(HEADER_WINDOW + 4) // 3)
    try:
        return is_pdf(base64.b64decode(data[:chars]))
    except (binascii.Error, ValueError):
        return True


SENDABLE_ID = re.compile(r"[A-Za-z0-9_-]+", re.ASCII)
"""A ``tool_use`` id the Messages API takes (``^[a-zA-Z0-9_-]+$``, its request schema): ids made by other
providers or frameworks (``functions.get_weather:0``, ids with a U+FFFD an import put for a lone surrogate)
are refused there, and the Anthropic export renames them (:func:`sendable_id`; the journal keeps them)."""


def sendable_id(tid: str) -> str:
    """``tid`` with every run of other characters than :data:`SENDABLE_ID`'s as ``_`` (40 characters at most)
    and 8 hex digits of its sha256, so two ids that differ only there stay apart; the same id always gives
    the same name (the export is deterministic, and a call and its result get the same one)."""
    base = re.sub(r"[^A-Za-z0-9_-]+", "_", tid).strip("_")[:40] or "call"
    return f"{base}_{hashlib.sha256(tid.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"


def media_problem(source: Mapping[str, Any], image: bool = False) -> tuple[str, str] | None:
    """``(field, why)`` when an image or document source cannot be sent as it is: a ``media_type`` that is
    not a plain ``type/subtype`` (a NUL, a path, parameters) or, of an ``image``, not one of
    :data:`IMAGE_TYPES`, or a base64 PDF whose bytes hold no ``%PDF-`` header in their first 1,024 bytes
    (a damaged PDF with its header is taken and priced by its size), or a base64 ``text/*`` document whose
    bytes are not UTF-8 (:func:`text_document`), or a ``url`` source whose URL is not an
    ``http``/``https`` URL with a host and no whitespace or control character (the providers fetch only
    those); None when it can."""
    media = source.get("media_type")
    if isinstance(media, str) and not _MEDIA_TYPE.fullmatch(media):
        return "media_type", f"{clip_repr(media)} is not a media type (type/subtype, RFC 6838)"
    if image and isinstance(media, str) and media.lower() not in IMAGE_TYPES:
        return "media_type", f"{clip_repr(media)} is not an image type the providers take ({', '.join(IMAGE_TYPES)})"
    if not image and source.get("type") == "base64" and isinstance(media, str) and media.lower() == "application/pdf":
        data = source.get("data")
        if isinstance(data, str) and not _pdf_head(data):
            return "data", (
                "the bytes are not a PDF: no %PDF- header in their first 1,024 bytes (the providers refuse such a"
                " document; send other files as text/plain or an image)"
            )
    if not image and source.get("type") == "base64" and isinstance(media, str) and media.lower().startswith("text/"):
        data = source.get("data")
        if isinstance(data, str) and text_document(data) is None:
            return "data", f"the bytes of a {clip_repr(media)} document are not UTF-8 text"
    if source.get("type") == "url":
        url = source.get("url")
        if not isinstance(url, str) or not url:
            return "url", "a url source needs a URL"
        if len(url) > MAX_URL:
            return "url", f"the URL is longer than {MAX_URL:,} characters"
        if any(ch <= " " or ch == "\x7f" for ch in url):
            return "url", f"{clip_repr(url)} holds whitespace or a control character"
        scheme, _, rest = url.partition("://")
        if scheme.lower() not in ("http", "https") or not rest or rest[0] in "/?#":
            return "url", f"{clip_repr(url)} is not an http(s) URL with a host (the providers fetch only those)"
    return None


def check_media(blocks: Sequence[Mapping[str, Any]], *, message_index: int | None = None) -> None:
    """Check the source of every ``image`` and ``document`` block, nested ones in a ``tool_result``
    included, with :func:`media_problem`. Checked when content is written, not when it is read: a
    journal written before the check stays readable.

    Raises:
        MalformedContentError: naming the block and the field.
    """
    for i, b in enumerate(blocks):
        inner = b.get("content") if b.get("type") == "tool_result" else None
        nested = [(f"content.{k}.", c) for k, c in enumerate(inner)] if isinstance(inner, list) else []
        for prefix, block in [("", b), *nested]:
            source = block.get("source") if isinstance(block, Mapping) else None
            if block.get("type") not in ("image", "document") or not isinstance(source, Mapping):
                continue
            problem = media_problem(source, image=block.get("type") == "image")
            if problem is not None:
                raise MalformedContentError(
                    problem[1], message_index=message_index, block_index=i, path=f"{prefix}source.{problem[0]}"
                )


def check_server_pairs(
    blocks: Sequence[Mapping[str, Any]],
    *,
    message_index: int | None = None,
    carried: Mapping[str, Mapping[str, Any]] | None = None,
    lenient: bool = False,
) -> set[str]:
    """Check that every provider-side tool result in a message answers a call made earlier in the same
    message (``server_tool_use`` for the ``*_tool_result`` blocks, ``mcp_tool_use`` for
    ``mcp_tool_result``), at most once, and that call ids are not reused in the message. A call without
    its result is accepted (a ``pause_turn`` response ends with one; so does a turn that also calls a
    client tool, whose server call the API runs once the ``tool_result`` comes back); the sequence rule
    (:func:`check_continuation`) says which message continues a paused one.

    A message that continues a paused one (it opens with a result:
    :func:`~context_journal._block_types.continues_server_turn`) may also answer ``carried``, the calls the
    message before it left waiting (:func:`paused_calls`); with ``lenient``, when the message before is
    not known here, its results that answer no call of its own are let through for
    :func:`check_continuation` to judge.

    A result must also be of the type its call's tool returns (:func:`server_result_mismatch`: a
    ``web_search`` call is answered by a ``web_search_tool_result``, never a ``web_fetch_tool_result``).

    Returns:
        The ids of the ``carried`` calls the message answers.

    Raises:
        MalformedContentError: naming the result block that answers no call or answers a call of another
            tool (with both ids), or the reused call id.
    """
    continues = continues_server_turn(b.get("type") for b in blocks)
    calls: dict[str, tuple[int, Mapping[str, Any]]] = {}  # id: (block index, call block)
    if continues and carried:
        calls.update((cid, (-1, call)) for cid, call in carried.items())
    answered: set[str] = set()
    for i, b in enumerate(blocks):
        kind = b.get("type")
        if kind in SERVER_CALL_TYPES:
            cid = str(b.get("id"))
            if cid in calls:
                where = "the message it continues" if calls[cid][0] < 0 else "the message"
                raise MalformedContentError(
                    f"{kind} id {cid!r} is used twice in {where}",
                    message_index=message_index,
                    block_index=i,
                    path="id",
                )
            calls[cid] = (i, b)
        elif kind in SERVER_RESULT_TYPES:
            tid = str(b.get("tool_use_id"))
            want = server_result_call(kind)
            at, call = calls.get(tid, (-1, {}))
            if tid in answered:
                raise MalformedContentError(
                    f"{want} {tid!r} is answered twice",
                    message_index=message_index,
                    block_index=i,
                    path="tool_use_id",
                )
            if not call and lenient and continues:
                answered.add(tid)
                continue
            if call.get("type") != want:
                raise MalformedContentError(
                    f"{kind} answers {want} {tid!r}, which is not earlier in the same message "
                    "(a server tool call and its result travel together in one assistant message, or in a paused "
                    "message and the continuation by the same participant just after it, which opens with the "
                    "result)",
                    message_index=message_index,
                    block_index=i,
                    path="tool_use_id",
                )
            mismatch = server_result_mismatch(call, kind)
            if mismatch is not None:
                shown = "the message it continues" if at < 0 else f"block {at}"
                raise MalformedContentError(
                    f"{kind} cannot answer {want} {tid!r} ({shown}): {mismatch}",
                    message_index=message_index,
                    block_index=i,
                    path="tool_use_id",
                )
            answered.add(tid)
    return answered & set(carried or ())


def paused_calls(blocks: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The provider-side calls of a message still waiting for their result (``{id: call block}``, in
    order): calls no result in the message answers, less a ``server_tool_use`` beside a client
    ``tool_use`` (a deferred call: the API runs it once the client's ``tool_result`` comes back, so no
    continuation brings its result). A message with such calls is a paused one (Anthropic's
    ``pause_turn``); empty for any other."""
    calls: dict[str, Mapping[str, Any]] = {}
    client = False
    for b in blocks:
        kind = b.get("type")
        if kind in SERVER_CALL_TYPES and isinstance(b.get("id"), str):
            calls.setdefault(b["id"], b)
        elif kind in SERVER_RESULT_TYPES:
            calls.pop(str(b.get("tool_use_id")), None)
        elif kind == "tool_use":
            client = True
    if client:
        calls = {cid: c for cid, c in calls.items() if c.get("type") != "server_tool_use"}
    return calls


def check_continuation(
    previous: tuple[str, Sequence[Mapping[str, Any]]] | None,
    participant: str,
    blocks: Sequence[Mapping[str, Any]],
    *,
    message_index: int | None = None,
) -> None:
    """The sequence rule of paused messages (Anthropic's ``pause_turn``): ``blocks``, written by
    ``participant`` right after ``previous`` (``(participant, blocks)`` of the visible message before it
    on the branch, or None for the first message), may answer the calls ``previous`` left waiting
    (:func:`paused_calls`) only when both are by the same participant and ``blocks`` opens with a result
    (:func:`~context_journal._block_types.continues_server_turn`: the API's continuation starts with the
    result block), and then must answer all of them. Any other message may follow a paused one too (a
    message by another participant, or the same participant's message that does not open with a result):
    the paused calls are then abandoned, never continued, and the compile shows them as text. Results in
    ``blocks`` that answer no call are refused as :func:`check_server_pairs` refuses them, and so are
    results of the waiting calls that do not open ``blocks``.

    Raises:
        MalformedContentError: naming the ids concerned.
    """
    waiting = paused_calls(previous[1]) if previous is not None else {}
    kinds = [b.get("type") for b in blocks]
    if continues_server_turn(kinds):
        first = next(i for i, k in enumerate(kinds) if k in SERVER_RESULT_TYPES)
        own = {str(b.get("id")) for b in blocks if b.get("type") in SERVER_CALL_TYPES}
        orphans = [
            str(b.get("tool_use_id"))
            for b in blocks
            if b.get("type") in SERVER_RESULT_TYPES and str(b.get("tool_use_id")) not in own
        ]
        if waiting and previous is not None and previous[0] != participant:
            raise MalformedContentError(
                f"results for {orphans} continue a paused message by {previous[0]!r}, not by {participant!r} "
                "(the continuation of a pause_turn response is the same participant's next message)",
                message_index=message_index,
                block_index=first,
                path="tool_use_id",
            )
        answered = check_server_pairs(blocks, message_index=message_index, carried=waiting)
        missing = [cid for cid in waiting if cid not in answered]
        if missing:
            raise MalformedContentError(
                f"the continuation of a paused message answers {sorted(answered)} but not {missing} "
                "(it must bring the result of every call the paused message left waiting)",
                message_index=message_index,
                block_index=first,
            )
    else:
        late = [
            i for i, b in enumerate(blocks) if b.get("type") in SERVER_RESULT_TYPES and b.get("tool_use_id") in waiting
        ]
        if late:
            ids = [str(blocks[i].get("tool_use_id")) for i in late]
            raise MalformedContentError(
                f"results for {ids} answer the paused message before but do not open this message (the "
                "continuation of a pause_turn response opens with the results of the calls it answers)",
                message_index=message_index,
                block_index=late[0],
                path="tool_use_id",
            )
        # Any other message after a paused one is accepted: the paused calls are abandoned (never
        # continued), and the compile shows them as text (a server call without its result).


# --- audience ------------------------------------------------------------------------------------

_NO_AUDIENCE_KINDS = frozenset(
    {"tool_use", "tool_result", "image", "document", "search_result", "container_upload", "compaction", "openai_item"}
    | SERVER_TYPES
)
_NESTING_KINDS = frozenset({"tool_result", "mcp_tool_result", "search_result"})  # content: a list of blocks


def _nested_audience(block: Mapping[str, Any]) -> str | None:
    """The path of an ``audience`` on a block nested in ``block``'s content list, or None."""
    content = block.get("content")
    if block.get("type") not in _NESTING_KINDS or not isinstance(content, list):
        return None
    for j, nested in enumerate(content):
        if not isinstance(nested, Mapping):
            continue
        if "audience" in nested:
            return f"content.{j}.audience"
        deeper = _nested_audience(nested)
        if deeper is not None:
            return f"content.{j}.{deeper}"
    return None


def check_audience(
    blocks: Sequence[Mapping[str, Any]], *, message_index: int | None = None, allowed: bool = True
) -> int:
    """Check the ``audience`` fields of a message's blocks; returns how many blocks carry one.

    An audience (a non-empty list of non-empty reader names) may sit on a message's own ``text``,
    ``thinking`` and ``redacted_thinking`` blocks only: never on ``tool_use``, ``tool_result``, ``image``
    or ``document`` blocks nor on the provider blocks (server tool calls and results, ``mcp_*``,
    ``search_result``, ``container_upload``, ``compaction``), never on a block nested inside a
    ``tool_result``, ``mcp_tool_result`` or ``search_result``, and nowhere when
    ``allowed`` is False (compile injections). A key named ``audience`` inside a ``tool_use``'s
    ``input`` is ordinary data.

    Raises:
        MalformedContentError: naming the block and path of the misplaced or malformed audience.
    """
    n = 0
    for i, b in enumerate(blocks):
        kind = b.get("type")
        nested_path = _nested_audience(b)
        if nested_path is not None:
            raise MalformedContentError(
                f"an audience may not sit on a block nested inside a {kind}",
                message_index=message_index,
                block_index=i,
                path=nested_path,
            )
        if "audience" not in b:
            continue
        if not allowed:
            raise MalformedContentError(
                "an audience may not sit on an injection (injections are for the compile's reader only)",
                message_index=message_index,
                block_index=i,
                path="audience",
            )
        if kind in _NO_AUDIENCE_KINDS:
            raise MalformedContentError(
                f"an audience may not sit on a {kind} block",
                message_index=message_index,
                block_index=i,
                path="audience",
            )
        aud = b["audience"]
        if not isinstance(aud, list) or not aud or any(name_problem(x) for x in aud):
            raise MalformedContentError(
                "audience must be a non-empty list of non-empty reader names",
                message_index=message_index,
                block_index=i,
                path="audience",
            )
        n += 1
    return n


def unencodable_block(blocks: Sequence[Mapping[str, Any]]) -> tuple[int, str] | None:
    """The index of the first block that cannot be stored as UTF-8 JSON and why, or None when all can
    (refused: values JSON cannot encode, NaN and infinities, lone surrogates in strings)."""
    for i, b in enumerate(blocks):
        try:
            json.dumps(b, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError) as exc:
            return i, str(exc)
    return None


def block_to_dict(block: Block) -> dict[str, Any]:
    """The block as a JSON-ready dict: exactly the fields given (unknown ones included) plus ``type``."""
    return block.model_dump(mode="json", exclude_unset=True)


def blocks_to_dicts(blocks: Iterable[Block]) -> list[dict[str, Any]]:
    """:func:`block_to_dict` over a list."""
    return [block_to_dict(b) for b in blocks]


def content_bytes(blocks: Iterable[Block]) -> int:
    """UTF-8 size of the blocks' compact JSON, in bytes (the payload size the store accounts)."""
    return len(json.dumps(blocks_to_dicts(blocks), separators=(",", ":"), ensure_ascii=False).encode())


# --- media to and from blobs ---------------------------------------------------------------------


def _map_media(block: dict[str, Any], fn: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    kind = block.get("type")
    if kind in ("image", "document") and isinstance(block.get("source"), dict):
        return {**block, "source": fn(block["source"])}
    if kind == "tool_result" and isinstance(block.get("content"), list):
        return {**block, "content": [_map_media(b, fn) for b in block["content"]]}
    return block


def externalize_media(blocks: Iterable[dict[str, Any]], put_blob: Callable[[bytes], str]) -> list[dict[str, Any]]:
    """Move base64 media into blobs.

    Args:
        blocks: Block dicts (from :func:`block_to_dict`).
        put_blob: Stores bytes and returns their hex sha256 (called inside the write's transaction).

    Returns:
        The blocks with each base64 source replaced by a ``blob`` source; other sources unchanged.
    """

    def swap(source: dict[str, Any]) -> dict[str, Any]:
        if source.get("type") != "base64":
            return source
        raw = base64.b64decode(source["data"])
        digest = put_blob(raw)
        # (pricing hints come from the bytes alone: a caller's "width" or "pages" beside damaged bytes priced
        # an image at 263 tokens, not the flat price of one whose size cannot be read)
        extra = {k: v for k, v in source.items() if k not in _BLOB_ONLY and k != "data"}
        hints = document_hints(source["media_type"], raw)  # a PDF's pages, an image's size: priced by them
        blob = {"type": "blob", "media_type": source["media_type"], "sha256": digest, "size": len(raw)}
        return {**blob, **extra, **hints}

    return [_map_media(b, swap) for b in blocks]


_BLOB_ONLY = frozenset({"type", "media_type", "sha256", "size", "pages", "text_tokens", "width", "height"})  # not sent


def resolve_media(blocks: Iterable[dict[str, Any]], get_blob: Callable[[str], bytes]) -> list[dict[str, Any]]:
    """Turn ``blob`` sources back into ``base64`` sources (what providers accept).

    Args:
        blocks: Block dicts as stored.
        get_blob: Returns the bytes of a sha256; raises ``KeyError`` (the store: ``BlobNotFoundError``) when missing.

    Returns:
        The blocks with every blob source replaced by a base64 source of the same bytes.
    """

    def swap(source: dict[str, Any]) -> dict[str, Any]:
        if source.get("type") != "blob":
            return source
        data = base64.b64encode(get_blob(source["sha256"])).decode("ascii")
        extra = {k: v for k, v in source.items() if k not in _BLOB_ONLY}
        return {"type": "base64", "media_type": source["media_type"], "data": data, **extra}

    return [_map_media(b, swap) for b in blocks]


def blob_digests(blocks: Iterable[dict[str, Any]]) -> list[str]:
    """The sha256 of every ``blob`` media source in ``blocks`` (nested tool results included), in order."""
    found: list[str] = []

    def note(source: dict[str, Any]) -> dict[str, Any]:
        if source.get("type") == "blob" and isinstance(source.get("sha256"), str):
            found.append(source["sha256"])
        return source

    for b in blocks:
        _map_media(b, note)
    return found


def sha256_hex(data: bytes) -> str:
    """Hex sha256 of ``data`` (the blob key)."""
    return hashlib.sha256(data).hexdigest()
