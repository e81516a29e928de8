"""The Anthropic Messages wire format: one content block as the Messages API takes it.

Used by :func:`context_journal.formats.to_anthropic` (a compiled context) and by the Anthropic adapter
(:class:`context_journal.llm.AnthropicProvider`, a summary request), so both send the same blocks. Mapping
(docs.anthropic.com, "Messages"): a block of a type the API defines keeps only the API's fields (a stored
block may carry the host's own fields and its ``audience``, which the API refuses); a ``tool_use``
keeps its ``caller``, as Claude Code records it, and a ``caller`` that is null, as a model dump of a server
block has it, is left out; a text block's citations lose a null ``file_id`` and OpenAI annotations
(``url_citation``...), which are not Anthropic citations; stored media (``blob`` sources) are read back
into base64; an OpenAI built-in tool item (``openai_item``) becomes a line of text; other provider blocks
(server tool calls and results, ``mcp_*``, ``compaction``...) go as stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._documents import text_document
from .._provider_render import provider_line
from ..content import OPENAI_CITATION_TYPES, SENDABLE_ID, sendable_id
from .media import BlobReader, media_source

__all__ = ["CACHEABLE_TYPES", "NOT_SENT_TYPES", "anthropic_block"]

_FIELDS: dict[str, tuple[str, ...]] = {
    "text": ("type", "text", "citations", "cache_control"),
    "image": ("type", "source", "cache_control"),
    "document": ("type", "source", "title", "context", "citations", "cache_control"),
    "tool_use": ("type", "id", "name", "input", "caller", "cache_control"),
    "tool_result": ("type", "tool_use_id", "content", "is_error", "cache_control"),
    # (a marker on thinking is kept here so that cap_cache_markers removes it and says so: the API refuses it)
    "thinking": ("type", "thinking", "signature", "cache_control"),
    "redacted_thinking": ("type", "data", "cache_control"),
}

CACHEABLE_TYPES = frozenset({"text", "image", "document", "tool_use", "tool_result"})
"""Block types that may carry a ``cache_control`` breakpoint."""

NOT_SENT_TYPES = frozenset({"reasoning"})
"""Block types the Messages API does not take and that are left out of a request: OpenAI ``reasoning``
items (only the Responses export sends them)."""


def anthropic_block(block: Mapping[str, Any], get_blob: BlobReader | None = None) -> dict[str, Any]:
    """One block as the Messages API takes it (module docstring), as a new dict.

    Raises:
        ValueError: stored media (a ``blob`` source) and no ``get_blob``.
    """
    kind = str(block.get("type"))
    fields = _FIELDS.get(kind)
    out: dict[str, Any] = {k: block[k] for k in fields if k in block} if fields else dict(block)
    if kind == "tool_use" and isinstance(out.get("id"), str) and not SENDABLE_ID.fullmatch(out["id"]):
        out["id"] = sendable_id(out["id"])  # (another provider's id: the API takes ^[a-zA-Z0-9_-]+$ alone)
    elif (
        kind == "tool_result"
        and isinstance(out.get("tool_use_id"), str)
        and not SENDABLE_ID.fullmatch(out["tool_use_id"])
    ):
        out["tool_use_id"] = sendable_id(out["tool_use_id"])  # (the same name as its call's)
    if "caller" in out and out["caller"] is None:
        del out["caller"]  # a model dump's null: the request types take an object there or nothing
    if kind == "openai_item":  # an OpenAI built-in tool's item: Anthropic has no such block
        return {"type": "text", "text": provider_line(block)}
    if kind == "text" and isinstance(out.get("citations"), list):
        # A model dump's citations carry ``file_id: None``, which the request types do not take (their
        # ``title: None`` is taken: a nullable field they require). OpenAI annotations (``url_citation``...)
        # are not Anthropic citations: left out (the field too when none is left).
        out["citations"] = [
            {k: v for k, v in c.items() if not (k == "file_id" and v is None)} if isinstance(c, Mapping) else c
            for c in out["citations"]
            if not (isinstance(c, Mapping) and c.get("type") in OPENAI_CITATION_TYPES)
        ]
        if not out["citations"] and block["citations"]:
            del out["citations"]
    if kind in ("image", "document") and isinstance(block.get("source"), Mapping):
        out["source"] = source = media_source(block["source"], get_blob)
        media = str(source.get("media_type") or "").lower()
        if kind == "document" and source.get("type") == "base64" and media.startswith("text/"):
            # The API's base64 documents are PDFs alone: a text file goes as a text source (its UTF-8 text).
            text = text_document(str(source.get("data", "")))
            if text is not None:
                out["source"] = {"type": "text", "media_type": "text/plain", "data": text}
    elif kind == "tool_result" and isinstance(block.get("content"), list):
        out["content"] = [anthropic_block(b, get_blob) for b in block["content"]]
    return out
