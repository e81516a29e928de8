"""Media sources on the wire: stored media (``blob`` sources, content-addressed in the store) back into
base64, and the check for blob references left in a request."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["BlobReader", "has_blob", "media_source"]

BlobReader = Callable[[str], bytes]
"""Reads a stored blob's bytes by its sha256 (hex)."""

_SOURCE_FIELDS: dict[str, tuple[str, ...]] = {
    "base64": ("type", "media_type", "data"),
    "url": ("type", "url"),
    "text": ("type", "media_type", "data"),
}


def media_source(source: Mapping[str, Any], get_blob: BlobReader | None) -> dict[str, Any]:
    """An image or document ``source`` as a provider takes it: a ``blob`` source read back into
    ``{"type": "base64", "media_type", "data"}``; a base64, URL or text source with only the API's fields;
    any other kind (``file``) as it is.

    Raises:
        ValueError: a ``blob`` source and no ``get_blob`` to read it with.
    """
    kind = source.get("type")
    if kind == "blob":
        if get_blob is None:
            raise ValueError("this result holds stored media but no blob reader; compile through a ContextManager")
        data = base64.b64encode(get_blob(str(source["sha256"]))).decode("ascii")
        return {"type": "base64", "media_type": source["media_type"], "data": data}
    fields = _SOURCE_FIELDS.get(str(kind))
    return {k: source[k] for k in fields if k in source} if fields else dict(source)


def data_url(source: Mapping[str, Any], get_blob: BlobReader | None) -> str | None:
    """A media source as a URL: a ``data:`` URL for base64 (and stored) media, the URL of a URL source;
    None for other kinds (a Files API id, a text source).

    Raises:
        ValueError: a ``blob`` source and no ``get_blob`` to read it with.
    """
    src = media_source(source, get_blob)
    if src.get("type") == "base64":
        return f"data:{src['media_type']};base64,{src['data']}"
    if src.get("type") == "url":
        return str(src["url"])
    return None


def has_blob(block: Mapping[str, Any]) -> bool:
    """Whether a block (or a block inside a ``tool_result``) still has a ``blob`` media source."""
    source = block.get("source")
    if isinstance(source, Mapping) and source.get("type") == "blob":
        return True
    content = block.get("content")
    return (
        isinstance(content, Sequence)
        and not isinstance(content, str)
        and any(isinstance(b, Mapping) and has_blob(b) for b in content)
    )
