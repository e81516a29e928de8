"""Anthropic ``cache_control`` markers, counted in one place for a whole request.

The Messages API refuses a request with more than :data:`MAX_CACHE_BREAKPOINTS` markers (docs.anthropic.com,
"Prompt caching"), and refuses one on a thinking block or on empty text. Markers reach a request from several
layers (a host's own markers in stored blocks, in the system prompt or on tool definitions, and the library's
own breakpoints), so each layer placing "its" markers within a share of the limit is not enough: whatever
builds the request calls :func:`cap_cache_markers` once over the finished request.

What is kept: a marker caches the prefix up to it, so several markers in one part of the prompt add nothing
over the last of them. First, one marker per location: the last marker of the tool definitions, the last
of the system prompt, and the last of each message (in prompt order, where a block nested in a
``tool_result`` comes before the ``tool_result`` itself; so a marker nested in a marked ``tool_result``, the
same breakpoint location, always goes). Then, of those, in this order of preference while the limit allows:
the tools' marker and the system prompt's (the most stable prefix, read back whatever the messages do),
then the messages a compile ranks first (``prefer``: its last message, then where the prompt it sent the same
as the previous compile ends, so this request reads the previous one's cache even when a host's markers take
two of the four places), then the newest messages' (they cover the longest prefix and are the ones the next
request can read back; older ones only add cache writes). Markers that cannot be sent (thinking, redacted
thinking, empty text) are always removed.

TTLs: the API requires markers with a longer ``ttl`` to come before shorter ones (a 1-hour entry before any
5-minute entry; docs.anthropic.com, "Prompt caching", "Mixing different TTLs"). A kept marker of the default
5 minutes before a kept 1-hour one is raised to 1 hour (``{"type": "ephemeral", "ttl": "1h"}`` on a copy of
the block), which keeps its breakpoint: a host that marks a later block for an hour caches the prefix
before it for an hour too.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, MutableSequence, Sequence
from typing import Any

from ..errors import PicklableError

__all__ = [
    "MAX_CACHE_BREAKPOINTS",
    "CacheMarkersDroppedWarning",
    "CacheMarkersRaisedWarning",
    "can_carry_marker",
    "cap_cache_markers",
    "marker_locations",
]

MAX_CACHE_BREAKPOINTS = 4
"""Most ``cache_control`` markers one request may carry (docs.anthropic.com, "Prompt caching")."""

_NEVER = frozenset({"thinking", "redacted_thinking"})


class CacheMarkersDroppedWarning(PicklableError, UserWarning):
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
            f"per request, none on thinking or empty text, one per message: its last covers the others); kept the "
            f"tools', the system prompt's, then the newest messages': "
            f"{', '.join(kept) or 'none'}; "
            f"removed: {', '.join(dropped)}"
        )


class CacheMarkersRaisedWarning(PicklableError, UserWarning):
    """5-minute ``cache_control`` markers before a 1-hour one were raised to 1 hour, as the API requires
    (longer TTLs first; the request would be refused otherwise).

    Attributes:
        raised: Where each raised marker is, in prompt order (paths as in :class:`CacheMarkersDroppedWarning`).
    """

    def __init__(self, raised: tuple[str, ...]) -> None:
        self.raised = raised
        super().__init__(
            f"{len(raised)} cache_control marker(s) of 5 minutes before a 1-hour marker raised to 1 hour "
            f"(Anthropic requires longer TTLs first): {', '.join(raised)}"
        )


def can_carry_marker(block: Any) -> bool:
    """True when the API accepts a ``cache_control`` marker on this block (not thinking, not empty text)."""
    if not isinstance(block, dict):
        return False
    kind = block.get("type")
    if kind in _NEVER:
        return False
    return not (kind == "text" and not str(block.get("text") or "").strip())


_Place = tuple[MutableSequence[Any], tuple[int, ...], str]
"""A block of the request: the top-level list it lies under, the indexes down to it, its path."""


def _at(root: MutableSequence[Any], steps: tuple[int, ...]) -> Any:
    block = root[steps[0]]
    for j in steps[1:]:
        block = block["content"][j]
    return block


def _places(root: MutableSequence[Any], path: str, blocks: Any = None, steps: tuple[int, ...] = ()) -> Iterator[_Place]:
    for j, block in enumerate(root if blocks is None else blocks):
        if isinstance(block, dict) and isinstance(block.get("content"), list):
            yield from _places(root, f"{path}[{j}].content", block["content"], (*steps, j))
        yield root, (*steps, j), f"{path}[{j}]"


def _marked(
    tools: MutableSequence[Any] | None, system: MutableSequence[Any] | None, messages: MutableSequence[Any] | None
) -> list[_Place]:
    """Every block of the request carrying a marker, in prompt order."""
    places: list[_Place] = []
    if tools:
        places.extend((tools, (j,), f"tools[{j}]") for j in range(len(tools)))
    if system:
        places.extend(_places(system, "system"))
    for i, message in enumerate(messages or ()):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            places.extend(_places(content, f"messages[{i}].content"))
    return [p for p in places if isinstance(_at(p[0], p[1]), dict) and "cache_control" in _at(p[0], p[1])]


def _sendable_locations(marked: list[_Place]) -> dict[str, int]:
    """Each location holding a sendable marker -> the index into ``marked`` of its last one (prompt order)."""
    last: dict[str, int] = {}
    for k, (root, steps, path) in enumerate(marked):
        if path.startswith("tools[") or can_carry_marker(_at(root, steps)):
            last[_location(path)] = k
    return last


def marker_locations(
    *,
    tools: MutableSequence[Any] | None = None,
    system: MutableSequence[Any] | None = None,
    messages: MutableSequence[Any] | None = None,
) -> int:
    """How many breakpoint locations the request's markers hold (tools, system, each message: what
    :func:`cap_cache_markers` counts toward the limit; a layer adding its own markers spends the rest)."""
    return len(_sendable_locations(_marked(tools, system, messages)))


def _location(path: str) -> str:
    """The part of the request a marker's path lies in: ``"tools"``, ``"system"`` or ``"messages[i]"``."""
    if path.startswith(("tools[", "system[")):
        return path.split("[", 1)[0]
    return path[: path.index("]") + 1]


def _kept(marked: list[_Place], limit: int, prefer: Sequence[int] = ()) -> set[int]:
    """The indexes into ``marked`` (prompt order) of the markers kept (the rule of the module docstring)."""
    last = _sendable_locations(marked)  # in prompt order (a dict keeps the order of first insertion)
    stable = [last[loc] for loc in ("tools", "system") if loc in last]
    preferred = [last[loc] for i in prefer if (loc := f"messages[{i}]") in last]
    newest = [k for loc, k in reversed(last.items()) if loc not in ("tools", "system")]
    return set(list(dict.fromkeys([*stable, *preferred, *newest]))[: max(0, limit)])


def _replace(root: MutableSequence[Any], steps: tuple[int, ...], marker: dict[str, Any] | None) -> None:
    """Give the block ``marker`` (None: remove its marker), copying the block and the ``tool_result``
    blocks (and content lists) above it."""
    blocks = root
    for j in steps[:-1]:
        blocks[j] = parent = {**blocks[j], "content": list(blocks[j]["content"])}
        blocks = parent["content"]
    block = {k: v for k, v in blocks[steps[-1]].items() if k != "cache_control"}
    if marker is not None:
        block["cache_control"] = marker
    blocks[steps[-1]] = block


def _ttl(place: _Place) -> str:
    marker = _at(place[0], place[1]).get("cache_control")
    return str(marker.get("ttl") or "5m") if isinstance(marker, dict) else "5m"


def _raise_ttls(kept: list[_Place]) -> list[_Place]:
    """Raise the 5-minute markers of ``kept`` (prompt order) before its last 1-hour one to 1 hour; returns
    those raised."""
    last_hour = max((k for k, p in enumerate(kept) if _ttl(p) == "1h"), default=0)
    raised = [p for p in kept[:last_hour] if _ttl(p) != "1h"]
    for root, steps, _ in raised:
        marker = _at(root, steps)["cache_control"]
        _replace(root, steps, {**(marker if isinstance(marker, dict) else {"type": "ephemeral"}), "ttl": "1h"})
    return raised


def cap_cache_markers(
    *,
    tools: MutableSequence[Any] | None = None,
    system: MutableSequence[Any] | None = None,
    messages: MutableSequence[Any] | None = None,
    limit: int = MAX_CACHE_BREAKPOINTS,
    warn: bool = True,
    stacklevel: int = 3,
    prefer: Sequence[int] = (),
) -> tuple[str, ...]:
    """Remove markers so the request carries at most ``limit``, one per location (see the module docstring).

    The three lists are edited in place, so pass lists the request owns; a block losing its marker is
    replaced by a copy (and so is a ``tool_result`` above it, with its ``content`` list), so the dicts and
    nested lists in them (a host's tool definitions, stored blocks) are never changed.

    Args:
        tools: Tool definitions as sent.
        system: System blocks as sent (not a string).
        messages: ``{"role", "content"}`` messages as sent (``content`` a list of blocks).
        limit: Most markers to keep.
        warn: Issue a :class:`CacheMarkersDroppedWarning` when any marker is removed.
        stacklevel: Passed to :func:`warnings.warn` (3: the caller of the function that calls this one).
        prefer: Indexes into ``messages`` whose markers to keep first, most important first, before the
            newest others (a compile's :attr:`~context_journal.compile.CompileResult.cache_priority`: the
            end of the prefix the previous request sent the same is read back by this one, where an older
            message's marker only adds a cache write).

    Returns:
        The paths of the removed markers, in prompt order (empty when none was removed). Markers raised
        to 1 hour (see the module docstring) are not in it; a :class:`CacheMarkersRaisedWarning` names them.
    """
    marked = _marked(tools, system, messages)
    kept_at = _kept(marked, limit, prefer)
    dropped = [p for k, p in enumerate(marked) if k not in kept_at]
    kept = [p for k, p in enumerate(marked) if k in kept_at]
    for root, steps, _ in dropped:
        _replace(root, steps, None)
    raised = _raise_ttls(kept)
    paths = tuple(p[2] for p in dropped)
    if warn and dropped:
        warnings.warn(CacheMarkersDroppedWarning(paths, tuple(p[2] for p in kept)), stacklevel=stacklevel)
    if warn and raised:
        warnings.warn(CacheMarkersRaisedWarning(tuple(p[2] for p in raised)), stacklevel=stacklevel)
    return paths
