"""Ingress sharding: a message far larger than a chunk is stored as a *body group* of shards.

A compressing strategy reads the journal in chunks of about ``target_chunk_tokens``; one message of
50,000 tokens (a pasted manual, a log) cannot be summarised with the conversation around it, nor in
one request. So a message over the shard threshold (by default twice the strategy's chunk target) is
written, in one transaction, as ``n`` consecutive messages of the same participant: the *shards*. Each
holds a piece of the text of about half the threshold, cut at the best seam near the even split (a
heading, a code fence, a blank line, a line end, a sentence end, a space; never inside a grapheme
cluster). The shards compress like messages. The pieces are verified to reassemble byte for byte
before anything is written.

Ids: the first shard keeps the message's id (the *group id*); shard ``k`` (from 2) is
``"<group id>#shard-<k>"`` (:func:`shard_id`). Hosts may not write ids of that form.

Layout: every shard's metadata holds :data:`SHARD_KEY`: ``{"group": id, "index": k, "count": n,
"blocks": [i, ...]}``, ``blocks`` giving, for each of the shard's content blocks, the index of the
original block it is (a piece of). Text blocks are cut into pieces (each piece a copy of its block with
part of the text, so every other field, ``audience`` included, rides on each piece); blocks of other
kinds (images, documents) ride whole on the first shard. :func:`join_content` puts the blocks back in
their order and joins the pieces of each block: the original content, exactly. A reader's view drops
whole original blocks (a piece has its block's audience), so the view of a group joins to the view of
the message (see :func:`~context_journal.views.filter_for_reader`, which keeps the layout in step).

Only messages of text, image and document blocks are sharded: a tool call, a tool result or a thinking
block belongs to its tool unit or its signed turn whole (bulky tool results are excerpted by the
compile instead).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._graphemes import ceil_boundary, floor_boundary
from .errors import ContextJournalError

if TYPE_CHECKING:
    from .messages import Message

__all__ = [
    "SHARD_KEY",
    "SHARD_SUFFIX",
    "ShardingError",
    "group_of",
    "is_shard_form",
    "join_content",
    "join_group",
    "join_messages",
    "layout_of",
    "plan_shards",
    "refuse_shard",
    "shard_bodies",
    "shard_id",
    "shard_ids",
    "split_text",
]

SHARD_KEY = "context_journal.shard"
"""The metadata key of a shard's layout (see the module docstring)."""

SHARD_SUFFIX = "#shard-"
"""What separates a group id from a shard number in the id of shard 2 and later."""

_SHARDABLE = frozenset({"text", "image", "document"})
_RIDERS = frozenset({"image", "document"})
_SUFFIX = re.compile(r"#shard-([1-9][0-9]*)\Z")

# Seams, best first: a cut goes before a heading or a code fence, after a blank line, a line end, a
# sentence end or a space. Each pattern's match end is the cut position.
_SEAMS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\n(?=#{1,6}[ \t])"),  # before a Markdown heading
    re.compile(r"\n(?=```|~~~)"),  # before a code fence line
    re.compile(r"\n[ \t]*\n"),  # after a blank line
    re.compile(r"\n"),  # after a line end
    re.compile(r"[.!?。！？][\"')\]]*[ \t]+"),  # after a sentence end
    re.compile(r"[ \t]+"),  # after a space
)


class ShardingError(ContextJournalError, ValueError):
    """A sharding rule is broken: an id of the shard form written by a host, a shard edited, removed or
    addressed alone where only its group may be, or (a bug) pieces that do not reassemble."""


def shard_id(group: str, index: int) -> str:
    """The id of shard ``index`` (1-based) of the group ``group``: the group id itself for the first."""
    return group if index == 1 else f"{group}{SHARD_SUFFIX}{index}"


def group_of(message_id: str) -> tuple[str, int]:
    """``(group id, shard index)`` an id names: ``("a", 3)`` for ``"a#shard-3"``, ``(id, 1)`` for any id
    without the shard suffix (a group's first shard, or a message that is no shard)."""
    m = _SUFFIX.search(message_id)
    if m is None:
        return message_id, 1
    return message_id[: m.start()], int(m.group(1))


def is_shard_form(message_id: str) -> bool:
    """Whether an id has the form of a shard's (``"...#shard-<n>"``), which hosts may not write."""
    return _SUFFIX.search(message_id) is not None


def shard_bodies(body: dict[str, Any], group: str, tokens: int, threshold: int) -> list[tuple[str, dict[str, Any]]]:
    """``(id, body)`` of each shard of a validated message body (``participant``, ``content``,
    ``metadata``, ``timestamp``) of ``tokens`` estimated tokens, or ``[(group, body)]`` when it is not
    sharded (see :func:`plan_shards`)."""
    plan = plan_shards(body["content"], tokens, threshold)
    if plan is None:
        return [(group, body)]
    n = len(plan)
    meta = body.get("metadata") or {}
    return [
        (
            shard_id(group, k),
            {
                **body,
                "content": blocks,
                "metadata": {**meta, SHARD_KEY: {"group": group, "index": k, "count": n, "blocks": layout}},
            },
        )
        for k, (blocks, layout) in enumerate(plan, start=1)
    ]


def refuse_shard(message_id: str, action: str) -> None:
    """Refuse a write that names one shard of a sharded message (a group is written as one message).

    Raises:
        ShardingError: ``message_id`` has the shard form; the error names the message's id.
    """
    if is_shard_form(message_id):
        group = group_of(message_id)[0]
        raise ShardingError(f"{message_id!r} is a shard of message {group!r}: {action} the message, not one shard")


def layout_of(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """The shard layout a message's metadata holds, or None for a message that is no shard."""
    value = metadata.get(SHARD_KEY)
    return value if isinstance(value, dict) else None


def _cuts(text: str, parts: int) -> list[int]:
    """Cut positions splitting ``text`` into ``parts`` pieces near equal length, each at the best seam
    within a quarter piece of the even split (see :data:`_SEAMS`), else at the nearest grapheme
    boundary; increasing, never 0 nor ``len(text)``."""
    n = len(text)
    size = n / parts
    slack = max(1, int(size / 4))
    cuts: list[int] = []
    last = 0
    for i in range(1, parts):
        ideal = round(i * size)
        lo, hi = max(last + 1, ideal - slack), min(n - 1, ideal + slack)
        if lo > hi:
            continue
        window = text[lo - 1 : hi + 1]  # one character each side, for the seam's context
        best: int | None = None
        for seam in _SEAMS:
            found = [lo - 1 + m.end() for m in seam.finditer(window)]
            found = [c for c in found if lo <= c <= hi and floor_boundary(text, c) == c]
            if found:
                best = min(found, key=lambda c: abs(c - ideal))
                break
        if best is None:
            best = floor_boundary(text, ideal)
            if best <= last:
                best = ceil_boundary(text, ideal)
        if last < best < n:
            cuts.append(best)
            last = best
    return cuts


def split_text(text: str, parts: int) -> list[str]:
    """``text`` in at most ``parts`` non-blank pieces near equal length, cut at the best seams (see the
    module docstring); ``"".join`` of the result is ``text``. A piece that would be blank is kept with
    the piece before it."""
    if parts <= 1 or len(text) < 2:
        return [text]
    pieces: list[str] = []
    start = 0
    for cut in [*_cuts(text, parts), len(text)]:
        piece = text[start:cut]
        if pieces and not piece.strip():
            pieces[-1] += piece
        else:
            pieces.append(piece)
        start = cut
    if len(pieces) > 1 and not pieces[0].strip():
        pieces[1] = pieces[0] + pieces[1]
        del pieces[0]
    return pieces


def plan_shards(
    content: Sequence[Mapping[str, Any]], tokens: int, threshold: int, most: int | None = None
) -> list[tuple[list[dict[str, Any]], list[int]]] | None:
    """The shards of a message of ``tokens`` estimated tokens, or None when it is not sharded (at most
    ``threshold`` tokens, ``threshold`` 0, a block that is not text, image or document, or text that
    does not split).

    Args:
        content: The message's validated content blocks.
        tokens: The estimated tokens of its text blocks (only text is cut).
        threshold: The shard threshold (tokens); pieces are about half of it.
        most: At most this many shards (an edit keeps its group's count; pieces grow instead).

    Returns:
        ``(blocks, layout)`` per shard: the shard's content blocks and, for each, the index of the
        original block it is (a piece of).

    Raises:
        ShardingError: the pieces do not reassemble to ``content`` (never expected: checked before any
            write).
    """
    if threshold <= 0 or tokens <= threshold:
        return None
    kinds = [b.get("type") for b in content]
    if any(k not in _SHARDABLE for k in kinds) or "text" not in kinds:
        return None
    texts = [(i, str(b.get("text") or "")) for i, b in enumerate(content) if b.get("type") == "text"]
    stream = "".join(t for _, t in texts)
    parts = -(-tokens // max(1, threshold // 2))
    if most is not None:
        parts = min(parts, most)
    pieces = split_text(stream, parts)
    if len(pieces) < 2:
        return None
    # Map the stream's pieces back onto the text blocks.
    bounds: list[tuple[int, int, int]] = []  # (original index, stream start, stream end)
    at = 0
    for i, t in texts:
        bounds.append((i, at, at + len(t)))
        at += len(t)
    shards: list[tuple[list[dict[str, Any]], list[int]]] = []
    start = 0
    for k, piece in enumerate(pieces):
        end = start + len(piece)
        blocks: list[dict[str, Any]] = []
        layout: list[int] = []
        if k == 0:
            riders = [i for i, b in enumerate(content) if b.get("type") in _RIDERS]
            blocks.extend(dict(content[i]) for i in riders)
            layout.extend(riders)
        for i, a, z in bounds:
            lo, hi = max(a, start), min(z, end)
            if lo < hi or (a == z and k == 0):  # an empty text block rides on the first shard
                blocks.append({**content[i], "text": stream[lo:hi]})
                layout.append(i)
        order = sorted(range(len(blocks)), key=lambda j: layout[j])
        shards.append(([blocks[j] for j in order], [layout[j] for j in order]))
        start = end
    if join_content(shards) != [dict(b) for b in content]:
        raise ShardingError("the shards do not reassemble to the message (a bug: nothing was written)")
    return shards


def join_content(shards: Iterable[tuple[Sequence[Mapping[str, Any]], Sequence[int]]]) -> list[dict[str, Any]]:
    """The content of the shards given (a whole group, or a run of it), in the original block order,
    the pieces of each text block joined (see the module docstring)."""
    placed: list[tuple[int, int, Mapping[str, Any]]] = []
    for k, (blocks, layout) in enumerate(shards):
        placed.extend((index, k, b) for b, index in zip(blocks, layout, strict=True))
    placed.sort(key=lambda t: (t[0], t[1]))
    out: list[dict[str, Any]] = []
    pieces: list[list[str]] = []  # per block of ``out``: the texts joined into it (one join, not one per piece)
    last: int | None = None
    for index, _, b in placed:
        if index == last and b.get("type") == "text" and out[-1].get("type") == "text":
            pieces[-1].append(str(b.get("text") or ""))
        else:
            out.append(dict(b))
            pieces.append([])
        last = index
    for block, more in zip(out, pieces, strict=True):
        if more:
            block["text"] = str(block.get("text") or "") + "".join(more)
    return out


def _without_key(metadata: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metadata.items() if k != SHARD_KEY}


def join_group(messages: Sequence[Message]) -> Message:
    """One message of the shards of a group (all of them, or a run): the group id, the first shard's
    participant, timestamp and metadata (without the layout), the newest version's sequence and the
    first shard's ``created_sequence``."""
    from .content import parse_block

    first = messages[0]
    layouts = [layout_of(m.metadata) or {} for m in messages]
    content = join_content(
        (m.content_dicts(), list(lay.get("blocks") or ())) for m, lay in zip(messages, layouts, strict=True)
    )
    group = str(layouts[0].get("group") or group_of(first.id)[0])
    return first.model_copy(
        update={
            "id": group,
            "content": [parse_block(b) for b in content],
            "metadata": _without_key(first.metadata),
            "sequence": max(m.sequence for m in messages),
        }
    )


def join_messages(messages: Iterable[Message]) -> list[Message]:
    """``messages`` with each run of consecutive shards of one group joined into one message
    (:func:`join_group`); other messages as they are."""
    out: list[Message] = []
    run: list[Message] = []
    run_group: str | None = None

    def flush() -> None:
        if run:
            out.append(join_group(run))
            run.clear()

    for m in messages:
        lay = layout_of(m.metadata)
        group = None if lay is None else str(lay.get("group"))
        if group is not None and group == run_group:
            run.append(m)
            continue
        flush()
        run_group = group
        if group is None:
            out.append(m)
        else:
            run.append(m)
    flush()
    return out


def shard_ids(message_id: str, exists: Callable[[str], bool]) -> list[str]:
    """The ids of the group whose first shard is ``message_id`` (``exists`` says whether an id is a
    message of the slot), ``[message_id]`` for a message that is no group."""
    ids = [message_id]
    k = 2
    while exists(shard_id(message_id, k)):
        ids.append(shard_id(message_id, k))
        k += 1
    return ids
