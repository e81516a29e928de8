"""The running tool loop's transcript, cut line by line.

When a running tool loop that opened with thinking cannot be sent raw whole, the compiler sends it as one
user note holding its transcript (:func:`.fit.transcribe_running_turn`; bug case B62). Cut as one text, by
head and tail, that note lost the calls in its middle: what the agent had done (a review saw 4 of 40 calls
shown at 900 tokens). :func:`cut_transcript` cuts it as the agent's working state asks: the results give
way before the calls, the oldest first, and the newest result last.

Private to the rendering layer (:mod:`.reduce` routes every cut of the note here).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .._graphemes import clip_end
from ..tokens import TokenCounter
from .repairs import _CUT_MARKER, _cut_text, _fewest

__all__ = ["Transcript", "call_short_form", "cut_transcript"]

SHORT_ARGUMENT = 120
"""Characters of a call's first string argument its short form keeps (a path, a command's start)."""

_NEWEST_SHARE = 4
"""The newest result may keep up to a ``1/_NEWEST_SHARE`` of the room before the older results' level
takes it lower: it is what the model acts on next."""

_TRIES = 8
"""Layouts :func:`_fitted` tries, at most, for one cut."""

_WIDE_MARKER = "[… about 99999 of 99999 tokens cut here; the journal keeps the whole message …]"


@dataclass(eq=False)
class Transcript:
    """The lines of a running loop's transcript: one per message, oldest first.

    Attributes:
        lines: Each message as one line (``participant: text``, calls written out).
        shorts: For a line holding tool calls, its short form (:func:`call_short_form`); None for the
            others (results, text).
        counts: For each line, ``(calls, results)``: its tool_use and tool_result blocks (what the top
            marker counts as not shown); empty when unknown (each call line one call, each other line one
            result).
    """

    lines: tuple[str, ...]
    shorts: tuple[str | None, ...]
    counts: tuple[tuple[int, int], ...] = ()
    _sized: tuple[TokenCounter, list[int], int, int] | None = field(default=None, repr=False)

    @cached_property
    def body(self) -> str:
        """The transcript as sent uncut: its lines joined by newlines (joined once: every cut of the note
        compares its text with it)."""
        return "\n".join(self.lines)

    def sizes(self, counter: TokenCounter) -> tuple[list[int], int, int]:
        """``(line tokens, whole tokens, marker tokens)`` by ``counter``, counted once per counter: each
        line's tokens scaled so they add up to the joined text's, the whole text's, and what one cut
        marker costs with its newline."""
        if self._sized is None or self._sized[0] is not counter:
            whole = counter.count_block({"type": "text", "text": self.body})
            raw = [counter.count_block({"type": "text", "text": line}) for line in self.lines]
            total = sum(raw) or 1
            sizes = [n * whole // total for n in raw]  # (floored: they never add up to more than the whole)
            marker = counter.count_block({"type": "text", "text": "\n" + _WIDE_MARKER + "\n"})
            self._sized = (counter, sizes, whole, marker)
        return self._sized[1:]


def call_short_form(participant: str, blocks: Sequence[Mapping[str, Any]]) -> str | None:
    """A message's calls, each as its name and first string argument (``[called Edit
    {"file_path":"lib/app.ex",…}]``, :data:`SHORT_ARGUMENT` characters of it at most); None when the
    message holds no call. What the agent did, in fewer tokens than its arguments."""
    calls: list[str] = []
    for b in blocks:
        if b.get("type") != "tool_use":
            continue
        args = b.get("input")
        shown = ""
        if isinstance(args, Mapping) and args:
            first = next(((k, v) for k, v in args.items() if isinstance(v, str)), None)
            if first is None:
                shown = " {…}"
            else:
                value = first[1] if len(first[1]) <= SHORT_ARGUMENT else clip_end(first[1], SHORT_ARGUMENT) + "…"
                more = ",…" if len(args) > 1 else ""
                shown = " {" + json.dumps(first[0]) + ":" + json.dumps(value, ensure_ascii=False) + more + "}"
        calls.append(f"[called {b.get('name')}{shown}]")
    return f"{participant}: " + " ".join(calls) if calls else None


def cut_transcript(transcript: Transcript, ratio: float, counter: TokenCounter) -> str:
    """The transcript's text cut to about ``ratio`` (0..1) of its tokens, the calls kept longest.

    Order of giving way: the results are cut toward one water level (head and tail kept, each with its own
    cut marker), the newest result keeping up to a quarter of the room however low the level goes; then the
    oldest results leave the transcript, one by one, for one marker at its top that states their tokens;
    once no older result is left, the oldest calls take their short form (name and first string argument)
    and then leave too, the newest call kept (in its short form from the start when it cannot fit whole
    beside the newest result's share); the newest result keeps what room is left. Only when not even
    that fits, one head-and-tail excerpt of the whole text (the cut of any other text). Every marker states
    the tokens it stands for ("about C of T tokens cut here"), so :func:`.repairs.text_tokens_kept` reads
    what the transcript keeps.

    Returns:
        The text; at most about ``ratio`` of the whole text's tokens (counted with ``counter``), or the
        head-and-tail excerpt's size when no line layout fits.
    """
    sizes, whole, marker = transcript.sizes(counter)
    if ratio >= 1:
        return transcript.body
    target = int(whole * max(0.0, ratio))
    if target > 0 and len(transcript.lines) > 1:
        text = _fitted(transcript, sizes, whole, marker, target, counter)
        if text is not None:
            return text
    return _cut_text(transcript.body, ratio, whole, None)


def _fitted(
    transcript: Transcript, sizes: Sequence[int], whole: int, marker: int, target: int, counter: TokenCounter
) -> str | None:
    """The layout whose text, counted, comes closest under ``target`` tokens, for a room found in a few
    tries; None when none fits. The lines are priced by their share of the whole and each marker at its
    widest, and a cut line keeps characters, not tokens, so a layout costs a little more or less than its
    room: a room that came out over is lowered by the excess (twice that after each further miss), one that
    came out under is raised by what it left, and between a room that fitted and one that did not the next
    try goes halfway. Stops within a hundredth of ``target``."""

    def size(text: str) -> int:
        return counter.count_block({"type": "text", "text": text})

    best, best_size, best_aim = None, -1, target
    fits: int | None = None  # the highest room that fitted, the lowest that came out over
    over: int | None = None
    misses = 0
    aim = target
    for _ in range(_TRIES):
        text = _layout(transcript, sizes, whole, marker, aim)
        if text is None:
            break
        n = size(text)
        if n <= target:
            if n > best_size:
                best, best_size, best_aim = text, n, aim
            fits = aim if fits is None else max(fits, aim)
            if target - n <= max(1, target // 100):
                break
            step = aim + (target - n)
        else:
            over = aim if over is None else min(over, aim)
            step = aim - ((n - target) << misses)
            misses += 1
        if fits is not None and over is not None:
            if over - fits <= 1:
                break
            if not fits < step < over:
                step = (fits + over) // 2
        if step < 1:
            break
        aim = step
    if best is not None and target - best_size > marker and _newest_short(transcript, sizes, marker, best_aim):
        best = _newest_call_widened(transcript, sizes, marker, target, best, best_size, size)
    return best


def _newest_call_widened(
    transcript: Transcript,
    sizes: Sequence[int],
    marker: int,
    target: int,
    text: str,
    n: int,
    size: Callable[[str], int],
) -> str:
    """``text`` (``n`` tokens, a layout under ``target`` that gave the newest call its short form) with that
    call's line cut by head and tail to the room left instead, when that fits and costs more: the short
    form's part (the call's name and first argument: a file's path, a command's start) kept whole, the rest
    of the call cut; a few tries, each lowered by its overshoot. Only for a step of one call whose short
    form's part starts its line (the argument shown is the input's first key, whole). (The short form is
    taken when the call cannot fit whole beside the newest result; the room the other lines left it then went unused: a
    5,600-token Edit sent 1,815 tokens at every budget from 2,000 to 7,000. A review then saw a path cut in
    its middle, and an older call with the same short form taken for the newest.)"""
    calls = [i for i, s in enumerate(transcript.shorts) if s is not None]
    short, line = transcript.shorts[calls[-1]] or "", transcript.lines[calls[-1]]
    at = _line_at(text, short)  # the newest call's line: the last call line, and it is short here
    # Only a step of one call whose short form is the start of its line, the argument it shows whole (a
    # review saw parallel calls' names cut away, a path that was not the first key left out, and a long
    # argument cut in its middle, each shown whole by the short form).
    keep = short[: -len(_SHORT_END)] if short.endswith(_SHORT_END) else ""
    calls_in_step = transcript.counts[calls[-1]][0] if transcript.counts else 1
    if short == line or at < 0 or calls_in_step != 1 or not keep or not line.startswith(keep):
        return text
    rest = line[len(keep) :]
    full = sizes[calls[-1]]
    rest_size = max(1, full * len(rest) // max(1, len(line)))
    spare = target - n + len(short) * full // max(1, len(line)) - (full - rest_size)
    for _ in range(4):
        tried = text[:at] + keep + _cut_line(rest, rest_size, max(0, spare - marker), marker) + text[at + len(short) :]
        m = size(tried)
        if m <= target:
            return tried if m > n else text
        spare -= 2 * (m - target)
        if spare <= marker:
            break
    return text


def _line_at(text: str, line: str) -> int:
    """Where the last whole line ``line`` of ``text`` starts, or -1 when none is."""
    if text.endswith("\n" + line):
        return len(text) - len(line)
    at = text.rfind("\n" + line + "\n")
    if at >= 0:
        return at + 1
    return 0 if text == line or text.startswith(line + "\n") else -1


_SHORT_END = ",…}]"
"""How a call's short form ends when its input holds more than the argument it shows."""

_TOP_NOTE = " ({} not shown)"
_TOP_EXTRA = 12
"""Tokens :data:`_TOP_NOTE` adds to the top marker, at most (priced before it is written)."""


def _cut_line(line: str, size: int, cap: int, marker: int) -> str:
    """``line`` (``size`` tokens) whole when it costs no more than ``cap`` plus a marker, else cut by head
    and tail to about ``cap`` tokens of it."""
    if size <= cap + marker:
        return line
    earlier = list(_CUT_MARKER.finditer(line)) if "tokens cut here" in line else []
    if len(earlier) == 1:
        # Cut again, an excerpt gives up its marker's characters from what it keeps (see _cut_text): the
        # characters it keeps are the room's share of its own text's, plus the marker's (priced by the
        # line's characters per token, results of dense identifiers or Chinese, shortened before the
        # transcript was written, were each left as their bare marker).
        mark = len(earlier[0].group(0))
        own = len(line) - mark
        per_token = own / max(1, size - marker)
        return _cut_text(line, min(1.0, (cap * per_token + mark) / len(line)), size, None)
    return _cut_text(line, cap / size, size, None)


def _level_cap(sizes: Sequence[int], floors: Sequence[int], room: int, marker: int) -> int | None:
    """The highest cap at which the lines ``sizes``, each cut toward the cap or its floor (whichever is
    higher), cost at most ``room``; None when not even that at cap 0 fits."""

    def cost(cap: int) -> int:
        return sum(s if s <= max(cap, f) + marker else max(cap, f) + marker for s, f in zip(sizes, floors, strict=True))

    if cost(0) > room:
        return None
    return _fewest(0, max(sizes, default=0), lambda cap: cost(cap + 1) > room)  # the highest cap that fits


_USEFUL = 32
"""Tokens of its text a result cut toward the level must keep to stay in the transcript (a bare marker in
place of each result says nothing the top marker does not, at some 25 tokens each)."""


def _layout(transcript: Transcript, sizes: Sequence[int], whole: int, marker: int, room: int) -> str | None:
    """The lines laid out to cost about ``room`` tokens (see :func:`cut_transcript`), or None."""
    return _laid_out(transcript, sizes, whole, marker, room)[0]


def _newest_short(transcript: Transcript, sizes: Sequence[int], marker: int, room: int) -> bool:
    """Whether :func:`_layout` at ``room`` gives the newest call its short form from the start: it cannot fit
    whole beside the newest result's share."""
    return _laid_out(transcript, sizes, 0, marker, room, probe=True)[1]


def _laid_out(
    transcript: Transcript, sizes: Sequence[int], whole: int, marker: int, room: int, probe: bool = False
) -> tuple[str | None, bool]:
    """``(the layout of :func:`_layout`, whether its newest call took its short form from the start)``; with
    ``probe``, only the second."""
    lines, shorts = list(transcript.lines), transcript.shorts
    results = [i for i, s in enumerate(shorts) if s is None]
    calls = [i for i, s in enumerate(shorts) if s is not None]
    top = marker + _TOP_EXTRA
    # The newest result keeps up to a quarter of the room before any call gives way.
    first = min(sizes[results[-1]], room // _NEWEST_SHARE) if results else 0
    short_sizes = {i: max(1, len(shorts[i] or "") * sizes[i] // max(1, len(lines[i]))) for i in calls}
    short_newest = bool(calls) and top + first + marker + sizes[calls[-1]] > room
    short_newest = short_newest and short_sizes[calls[-1]] < sizes[calls[-1]]
    if probe:
        return None, short_newest
    if short_newest:
        # The newest call cannot fit whole even beside the newest result alone: its short form throughout,
        # before any older call gives way (a review saw one Edit of 3,600 tokens leave every older call
        # out at every budget up to 5,000).
        sizes = list(sizes)
        lines[calls[-1]], sizes[calls[-1]] = shorts[calls[-1]] or lines[calls[-1]], short_sizes[calls[-1]]
    call_cost = sum(sizes[i] for i in calls)

    def levelled(k: int) -> tuple[list[int], int] | None:
        """With the ``k`` oldest results gone: the results kept and their level, when every older one kept
        keeps :data:`_USEFUL` tokens (or is whole); else None."""
        kept = results[k:]
        cap = _level_cap(
            [sizes[i] for i in kept],
            [first if i == kept[-1] else 0 for i in kept],
            room - call_cost - (top if k else 0),
            marker,
        )
        if cap is None or (len(kept) > 1 and cap < min(_USEFUL, max(sizes[i] for i in kept[:-1]))):
            return None
        return kept, cap

    if results:
        found = levelled(0)
        if found is None and len(results) > 1 and levelled(len(results) - 1) is not None:
            # The fewest oldest results to leave out.
            found = levelled(_fewest(1, len(results) - 1, lambda k: levelled(k) is not None))
        if found is not None:
            kept, cap = found
            out = [lines[i] if shorts[i] is not None else "" for i in range(len(lines))]
            for i in kept:
                out[i] = _cut_line(lines[i], sizes[i], max(cap, first if i == kept[-1] else 0), marker)
            return _with_top(transcript, out, results[: len(results) - len(kept)], [], sizes, whole), short_newest
    elif call_cost <= room:
        return "\n".join(lines), short_newest
    if not calls:
        return None, short_newest
    # No older result left: the oldest calls short, then gone; the newest result keeps what room is left.
    newest = results[-1:]
    reserved = sum(min(sizes[i], first + marker) for i in newest)
    cost = top + reserved + call_cost
    short: set[int] = set()
    folded: list[int] = []
    for i in calls[:-1]:
        if cost <= room:
            break
        if short_sizes[i] < sizes[i]:
            short.add(i)
            cost -= sizes[i] - short_sizes[i]
    for i in calls[:-1]:
        if cost <= room:
            break
        folded.append(i)
        cost -= short_sizes[i] if i in short else sizes[i]
    if cost > room:
        return None, short_newest
    gone = set(folded)
    out = ["" if i in gone or i not in short_sizes else lines[i] for i in range(len(lines))]
    for i in short - gone:
        out[i] = shorts[i] or lines[i]
    for i in newest:
        out[i] = _cut_line(lines[i], sizes[i], max(0, room - cost + reserved - marker), marker)
    return _with_top(transcript, out, results[:-1], folded, sizes, whole), short_newest


def _with_top(
    transcript: Transcript,
    out: list[str],
    gone: Sequence[int],
    folded: Sequence[int],
    sizes: Sequence[int],
    whole: int,
) -> str:
    """The lines ``out`` joined (empty ones left out), opened by one marker standing for the result lines
    ``gone`` and the call lines ``folded`` when there are any: their tokens, and the calls and results they
    hold (other lines, another speaker's text, as messages)."""
    text = "\n".join(line for line in out if line)
    if not gone and not folded:
        return text
    counts = transcript.counts or tuple((1, 0) if s is not None else (0, 1) for s in transcript.shorts)
    results = sum(counts[i][1] for i in gone) + sum(counts[i][1] for i in folded)
    calls = sum(counts[i][0] for i in folded) + sum(counts[i][0] for i in gone)
    others = sum(1 for i in gone if counts[i] == (0, 0))
    what = [
        f"{n} earlier {word}{'' if n == 1 else 's'}"
        for n, word in ((results, "result"), (calls, "call"), (others, "message"))
        if n
    ]
    cut = min(whole, sum(sizes[i] for i in gone) + sum(sizes[i] for i in folded))
    marker = f"[… about {cut} of {whole} tokens cut here; the journal keeps the whole message …]"
    return marker + _TOP_NOTE.format(" and ".join(what)) + "\n" + text
