"""Anthropic ``cache_control`` markers, counted in one place for a whole request.

The Messages API refuses a request with more than :data:`MAX_CACHE_BREAKPOINTS` markers (docs.anthropic.com,
"Prompt caching"), and refuses one on a thinking block or on empty text. Markers reach a request from several
layers (a host's own markers in stored blocks, in the system prompt or on tool definitions, and the library's
own breakpoints), so each layer placing "its" markers within a share of the limit is not enough: whatever
builds the request calls :func:`cap_cache_markers` once over the finished request.

What is kept: the newest markers in prompt order (tools, then system, then messages; a block nested in a
``tool_result`` comes before the ``tool_result`` itself). A marker caches the prefix up to it, so the newest
ones cover the longest prefix and are the ones the next request can read back; older ones only add cache
writes. Markers that cannot be sent (thinking, redacted thinking, empty text) are always removed, and so is
a marker nested in a ``tool_result`` that carries one itself (the same breakpoint location).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, MutableSequence
from typing import Any

__all__ = ["MAX_CACHE_BREAKPOINTS", "CacheMarkersDroppedWarning", "can_carry_marker", "cap_cache_markers"]

MAX_CACHE_BREAKPOINTS = 4
"""Most ``cache_control`` markers one request may carry (docs.anthropic.com, "Prompt caching")."""

_NEVER = frozenset({"thinking", "redacted_thinking"})


class CacheMarkersDroppedWarning(UserWarning):
    """``cache_control`` markers were removed from a request so it stays within the API's limit.

    Attributes:
        dropped: Where each removed marker was, in prompt order, as paths into the request
            (``"tools[0]"``, ``"system[1]"``, ``"messages[2].content[0]"``,
            ``"messages[2].content[0].content[1]"``).
        kept: Where the markers sent are, in prompt order.
    """

    def __init__(self, dropped: tuple[str, ...], kept: tuple[str, ...]) -> None:
        self.dropped = dropped
        self.kept = kept
        super().__init__(
            f"{len(dropped)} cache_control marker(s) removed (Anthropic accepts at most {MAX_CACHE_BREAKPOINTS} "
            f"per request, none on thinking or empty text, one per tool_result with its content); kept the newest: "
            f"{', '.join(kept) or 'none'}; "
            f"removed: {', '.join(dropped)}"
        )


def can_carry_marker(block: Any) -> bool:
    """True when the API accepts a ``cache_control`` marker on this block (not thinking, not empty text)."""
    if not isinstance(block, dict):
        return False
    kind = block.get("type")
    if kind in _NEVER:
        return False
    return not (kind == "text" and not str(block.get("text") or "").strip())


_Place = tuple[MutableSequence[Any], int, str]


def _places(blocks: MutableSequence[Any], path: str) -> Iterator[_Place]:
    for j, block in enumerate(blocks):
        if isinstance(block, dict) and isinstance(block.get("content"), list):
            yield from _places(block["content"], f"{path}[{j}].content")
        yield blocks, j, f"{path}[{j}]"


def _unmark(blocks: MutableSequence[Any], j: int) -> None:
    blocks[j] = {k: v for k, v in blocks[j].items() if k != "cache_control"}


def cap_cache_markers(
    *,
    tools: MutableSequence[Any] | None = None,
    system: MutableSequence[Any] | None = None,
    messages: MutableSequence[Any] | None = None,
    limit: int = MAX_CACHE_BREAKPOINTS,
    warn: bool = True,
    stacklevel: int = 3,
) -> tuple[str, ...]:
    """Remove markers so the request carries at most ``limit``, keeping the newest (see the module docstring).

    The lists (and the nested ``content`` lists of ``tool_result`` blocks) are edited in place, so pass lists
    the request owns; a block losing its marker is replaced by a copy, so the dicts in them (a host's tool
    definitions, stored blocks) are never changed.

    Args:
        tools: Tool definitions as sent.
        system: System blocks as sent (not a string).
        messages: ``{"role", "content"}`` messages as sent (``content`` a list of blocks).
        limit: Most markers to keep.
        warn: Issue a :class:`CacheMarkersDroppedWarning` when any marker is removed.
        stacklevel: Passed to :func:`warnings.warn` (3: the caller of the function that calls this one).

    Returns:
        The paths of the removed markers, in prompt order (empty when none was removed).
    """
    places: list[_Place] = []
    if tools:
        places.extend((tools, j, f"tools[{j}]") for j in range(len(tools)))
    if system:
        places.extend(_places(system, "system"))
    for i, message in enumerate(messages or ()):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            places.extend(_places(content, f"messages[{i}].content"))
    marked = [p for p in places if isinstance(p[0][p[1]], dict) and "cache_control" in p[0][p[1]]]
    # A marker inside a marked tool_result's content and the one on the tool_result are one breakpoint
    # location (the outer one caches the whole block): only the outer one is kept, so it takes one of
    # the ``limit`` slots, not two, and the slot freed goes to the next newest marker.
    outer = {path for _, _, path in marked}
    sendable = [
        k
        for k, (blocks, j, path) in enumerate(marked)
        if (path.startswith("tools[") or can_carry_marker(blocks[j])) and path[: path.rfind(".content[")] not in outer
    ]
    kept_at = set(sendable[max(0, len(sendable) - max(0, limit)) :])
    dropped = [p for k, p in enumerate(marked) if k not in kept_at]
    if not dropped:
        return ()
    kept = [p for k, p in enumerate(marked) if k in kept_at]
    for blocks, j, _ in dropped:
        _unmark(blocks, j)
    paths = tuple(p[2] for p in dropped)
    if warn:
        warnings.warn(CacheMarkersDroppedWarning(paths, tuple(p[2] for p in kept)), stacklevel=stacklevel)
    return paths
