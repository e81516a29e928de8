"""Candidate fragments and their scores for the offline summarizer (:mod:`.offline`).

Every fragment is a slice of a string of the request (a text block, a tool-result text, a tool
input's value, a tool name or key) or, for a non-string tool input value, its JSON form: nothing is
rewritten, so a digest built from fragments never says anything the conversation did not. The only
other text is the labels, the punctuation joining a call's arguments, and clip marks.

**Units.** Text is cut into units at line breaks, then at sentence ends (``.``, ``!`` or ``?``
followed by space and a capital, digit or opening quote), and units longer than
:data:`MAX_UNIT_CHARS` at the last space before the limit (with no space, at the last grapheme-cluster
boundary: every cut and every unit's ends fall between clusters, so an emoji with its joiners, a flag or
a letter with its combining marks is never split; see :mod:`context_journal._graphemes`). List markers,
heading marks, line numbers (``  12→``), ``**`` and enclosing tags (``<command-name>``) are trimmed from a unit's ends;
``<system-reminder>`` blocks (text a harness injects into user turns) and code-fence lines are
skipped; units with fewer than 2 letters or digits or 4 characters are dropped. Of a tool result
only the first :data:`RESULT_SCAN_HEAD` and last :data:`RESULT_SCAN_TAIL` lines are read.

**Tool calls** keep their structured arguments compactly (:func:`call_parts`). A call is a *head*,
``Name(key: value, ...)`` with up to :data:`MAX_CALL_ARGS` of the arguments that say what it is about
(``file_path``, ``command``, ``pattern``...; an absolute path shown as ``…/`` and its last
:data:`PATH_TAIL_PARTS` parts), and one unit per other argument, ``key: value``: a string clipped
to its first line and :data:`MAX_BULKY_CHARS` (``old_string``, ``content``...) or
:data:`MAX_ARG_CHARS` characters, the clipping marked with what it left out and the names it held
(``def foo(x) do… [clipped 1,234 chars; names: load_user, User]``); a list or dict flattened to
``[key: value, key: value; ...]`` (``… [clipped N items]`` past :data:`MAX_NESTED_CHARS`). An
argument is shown only inside its head's parentheses, so the selection takes the head alone when
that is all that fits; its own score has no role or recency part (its head's has). Scores see the
values only: a key (``file_path``) is the tool's word, not the work's.

**Provider-side blocks** are read like tool calls and results: a ``server_tool_use`` is a
call of its tool named as the provider's (``server:web_search(query: ...)``,
``server:bash_code_execution(command: ...)``: the command ran in the provider's container, not where the
client's own tools, such as ``Bash``, run), an ``mcp_tool_use`` a call named ``server/name``; their
results are results: a web search's hits as one
``title <url>`` line each, a fetched page as its URL and (a text page) its text, code output as its
stdout and stderr lines (after ``return_code: N`` when not 0, the result then read as an error), a text
editor's view as its file text, an MCP result as its text, an ``error_code`` as an error. A
``compaction`` block's summary is read as the assistant's words and a ``search_result`` as a result (its
title, then its text). Encrypted content is never read.

**Earlier digests** (an assistant text opening with a label, as a merge request holds) keep their
lines' kinds: an ``I called:`` line is cut into its calls, each a call unit, so a merge keeps calls
as calls.

**Score** of a unit (weights set by hand, checked by the retention test in ``tests/llm``; cues and
concepts are defined in :mod:`._features`)::

    gain  = ROLE_WEIGHT[kind] + 2 * recency        (0 for the first turn summarised, 1 for the last)
          + factor * (cues                         (error 3, decision/constraint 2, content words,
                                                    minus a social-formula penalty; no question bonus)
          + sum over concept kinds of weight * the cap new concepts of highest recurrence multiplier)
                  paths 4 (cap 3), identifiers 2 (3), numbers 1 (3), dates 2 (2), names 1 (2)
    rank  = gain / sqrt(max(tokens, 8))             (dense facts first; long units pay for length)

A concept is *new* when no unit chosen before holds it (see :func:`.offline._select`), so the digest
covers many distinct paths and numbers instead of repeating one. Its **recurrence multiplier**
(:func:`._features.recurrence_boost`) grows with the number of mentions in the text summarised —
units, tool results' lines and each call's full input values (a call counts once) — so the file
edited four times and the function named in a call, its result and the next turn outrank a path
read once. ``factor`` is :data:`CODE_FACTOR` for a code line of a tool result and
:data:`RESULT_FACTOR` for any line of a tool's output (not an error), else 1. My own words or
thoughts with neither cue nor concept under :data:`MIN_PLAIN_TOKENS` tokens are not candidates.
Tool results contribute only lines with a cue or concept, at most :data:`MAX_RESULT_LINES` per
result (the best); an error result always offers its first line. Equal fragments (for a call: equal
calls with all their arguments) keep only their best-scoring occurrence.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .._block_types import SERVER_CALL_TYPES, SERVER_RESULT_TYPES
from .._graphemes import ceil_boundary, clip_end, floor_boundary, strip_clusters
from ..content import Block, block_to_dict
from ..tokens import estimate_text_tokens
from ._features import Concept, analyse, concept_key, concept_weight, named_items, recurrence_boost
from .types import LLMMessage

__all__ = [
    "CLIP_MARK",
    "MAX_ARG_CHARS",
    "MAX_BULKY_CHARS",
    "MAX_CALL_ARGS",
    "MAX_INNER_CHARS",
    "MAX_NESTED_CHARS",
    "MAX_RESULT_LINES",
    "MAX_UNIT_CHARS",
    "ROLE_WEIGHT",
    "Unit",
    "call_parts",
    "clip_marker",
    "extract_units",
    "render_call",
    "split_spans",
]

MAX_UNIT_CHARS = 320
"""Longest unit in characters; longer sentences are cut at a space."""
MAX_CALL_ARGS = 3
"""Key arguments shown per tool call."""
MAX_ARG_CHARS = 120
"""Longest scalar argument value shown in a call's head, in characters."""
MAX_BULKY_CHARS = 100
"""Longest bulky argument value shown (``old_string``, ``new_string``, ``content``...), in characters."""
MAX_NESTED_CHARS = 240
"""About the longest list or dict argument shown, in characters."""
MAX_INNER_CHARS = 60
"""Longest string shown inside a list or dict argument, in characters."""
MAX_CLIP_NAMES = 5
"""Most identifiers and paths of a clipped bulky argument named in its clip mark."""
PATH_TAIL_PARTS = 3
"""Parts of an absolute path shown in a call's head (``…/lib/app/login.ex``)."""
RECURRENCE_SCAN_CHARS = 4_000
"""Characters of each tool-input string whose concepts count as mentions (see ``recurrence_boost``)."""
MAX_RESULT_LINES = 4
"""Most lines one tool result contributes."""
MIN_PLAIN_TOKENS = 6
"""My own words with no cue and no concept are candidates only from this many tokens ("Good." is not)."""
MIN_RANK_TOKENS = 8
"""Units shorter than this are ranked as if this long, in tokens."""
CODE_FACTOR = 0.5
"""Salience multiplier of a tool-result line that is code: numbered (``cat -n``, Claude Code's Read
output) or at least 15% of its characters brackets, operators and the like."""
RESULT_FACTOR = 0.5
"""Salience multiplier of a line of a tool's output (not an error): what the tool said matters less
than what the user and I said and did, whose paths and names it mostly repeats."""
RESULT_SCAN_HEAD = 40
RESULT_SCAN_TAIL = 20
"""Lines of a tool result that are read: the first 40 and the last 20 (compiler errors come first,
test and build summaries last; the middle of a long file read or log is not remembered)."""

ROLE_WEIGHT = {"user": 4.0, "error": 3.0, "said": 2.0, "call": 2.0, "result": 0.0, "thought": -1.0}
"""Base score by what the unit is: the user's words first, then errors, my own words and calls (a call
is what changed the work: the file edited, the command run), what tools said, my thoughts."""

LABELS = {
    "user": "The user said:",
    "said": "I said:",
    "thought": "I thought:",
    "call": "I called:",
    "result": "Results:",
    "error": "Errors:",
}
"""Fixed connective labels; with :data:`CLIP_MARK`, the only words of a digest not taken from the input."""
_KIND_OF_LABEL = {label: kind for kind, label in LABELS.items()}
CLIP_MARK = re.compile(r"… \[clipped [\d,]+ (?:chars|items)(?:; names: [^\]\n]*)?\]|…(?=/)")
"""What a clipped tool argument ends with (:func:`clip_marker`), and the ``…`` before a path's tail."""
_LABEL_LINE = re.compile(r"^(The user said:|I said:|I called:|Results:|Errors:|I thought:|\S{1,60} said:) ", re.M)
_CLIP_COUNT = re.compile(r"(?<=\[)clipped [\d,]+ (?:chars|items)")
_NEXT_CALL = re.compile(r"; (?=[\w.:/-]{1,64}(?:\(|;|$))")  # "/": an MCP call is server/name(...)
SERVER_CALL_PREFIX = "server:"
"""What a provider-side tool call's name opens with in a digest (``server:bash_code_execution(...)``), so a
reader does not take the provider's sandbox for the client's own tools (a ``Bash`` call)."""
_CALL_KEY = re.compile(r"(?:^|[(\[,;] ?)(\w+): ")

_ARG_PRIORITY = (
    "file_path",
    "path",
    "notebook_path",
    "command",
    "pattern",
    "query",
    "url",
    "subagent_type",
    "name",
    "id",
    "skill",
    "glob",
)
_BULKY_ARGS = frozenset({"old_string", "new_string", "content", "text", "code", "prompt", "plan", "todos"})
_PATH_ARGS = frozenset({"file_path", "path", "notebook_path"})

_SKIP_REGION = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.S)
_LINE = re.compile(r"[^\n]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'`(\[]?[A-Z0-9])")
_LEAD = re.compile(r"(?:\s+|\d+(?:→|\t)|(?:[-*+•>]|\d{1,3}[.)]|#{1,6})\s+|(?:<[^<>\n]{1,40}>)+|\*\*)+")
_NUMBERED = re.compile(r"\s*\d+(?:→|\t)")
_CODE_CHARS = frozenset("{}()[];=<>|&$\\")
_TAG = re.compile(r"</?[^<>\n]{1,40}>")
_ALNUM = re.compile(r"\w.*?\w", re.S)


@dataclass(slots=True)
class Unit:
    """A candidate fragment (or a tool call) of the digest.

    Attributes:
        kind: A key of :data:`LABELS`.
        fragments: Verbatim pieces: ``(text,)`` for text, ``(name, key, value, ...)`` for a call.
        rendered: How the unit reads in the digest.
        message_index: Index of the source message in the request.
        order: Position in the conversation (for chronological output and ties).
        tokens: Estimated tokens of ``rendered``.
        base: The part of the score that does not depend on what else is chosen (role, cues, recency).
        concepts: The distinct concepts (paths, identifiers, numbers, dates, names) of the unit.
        salience: Cues plus concept weights, the unit's value on its own (module docstring).
        label: The line label (``"ann said:"`` for a named user turn, else from :data:`LABELS`).
        factor: Multiplier of the cue and concept parts (:data:`CODE_FACTOR` for code lines, else 1).
        boosts: Recurrence multiplier of each concept (``recurrence_boost``), aligned with ``concepts``.
        head: For an argument of a tool call shown as ``key: value``, the call's head unit (an
            argument is shown only with its head); None otherwise.
        dedup: Equal ``(kind, dedup)`` units keep only the best-scoring one.
    """

    kind: str
    fragments: tuple[str, ...]
    rendered: str
    message_index: int
    order: int
    tokens: int
    base: float
    concepts: tuple[Concept, ...]
    salience: float
    label: str
    factor: float = 1.0
    boosts: tuple[float, ...] = ()
    head: Unit | None = None
    dedup: str = ""

    def gain(self, covered: set[Concept] | frozenset[Concept] = frozenset()) -> float:
        """The score given the concepts ``covered`` so far (all of it when nothing is covered)."""
        return self.base + self.factor * concept_weight(self.concepts, covered, self.boosts)

    def rank(self, covered: set[Concept] | frozenset[Concept] = frozenset()) -> float:
        """Selection priority given the concepts ``covered`` so far: gain per square root of tokens."""
        return self.gain(covered) / math.sqrt(max(self.tokens, MIN_RANK_TOKENS))


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Offsets of ``text[start:end]`` without list markers, tags, ``**`` and spaces at its ends."""
    m = _LEAD.match(text, start, end)
    if m:
        start = m.end()
    while end > start:
        ch = text[end - 1]
        if ch.isspace():
            end -= 1
        elif ch == "*" and text.startswith("**", end - 2, end) and end - 2 >= start:
            end -= 2
        elif ch == ">":
            j = text.rfind("<", max(start, end - 42), end - 1)
            if j < 0 or not _TAG.fullmatch(text, j, end):
                break
            end = j
        else:
            break
    return start, end


def split_spans(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` offsets of the units of ``text`` (rules in the module docstring)."""
    skipped = [(m.start(), m.end()) for m in _SKIP_REGION.finditer(text)]
    pieces: list[tuple[int, int]] = []
    pos = 0
    for a, b in skipped:
        pieces.append((pos, a))
        pos = b
    pieces.append((pos, len(text)))
    for pa, pb in pieces:
        for line in _LINE.finditer(text, pa, pb):
            ls, le = line.span()
            if text.startswith("```", ls, le) or text[ls:le].lstrip().startswith("```"):
                continue
            starts = [ls] + [m.end() for m in _SENTENCE_END.finditer(text, ls, le)]
            ends = [*starts[1:], le]
            for s0, e0 in zip(starts, ends, strict=True):
                s, e = _whole(text, *_trim(text, s0, e0))
                while e - s > MAX_UNIT_CHARS:
                    cut = text.rfind(" ", s, s + MAX_UNIT_CHARS)
                    if cut <= s:  # no space: the last cluster boundary within the limit
                        cut = floor_boundary(text, s + MAX_UNIT_CHARS)
                        cut = cut if cut > s else ceil_boundary(text, s + 1)
                    cs, ce = _whole(text, *_trim(text, s, cut))
                    if _ALNUM.search(text, cs, ce) and ce - cs >= 4:
                        yield cs, ce
                    s, e = _whole(text, *_trim(text, cut, e))
                if e - s >= 4 and _ALNUM.search(text, s, e):
                    yield s, e


def _whole(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` narrowed to grapheme-cluster boundaries, so a unit never holds part of a cluster
    (trimming a space can leave the combining mark it carried; a cut can fall inside an emoji)."""
    start = ceil_boundary(text, start)
    return start, max(start, floor_boundary(text, end))


def clip_marker(omitted: int, unit: str = "chars", names: list[str] | None = None) -> str:
    """The mark after a clipped value: ``… [clipped 1,234 chars]`` (or ``items`` for a list/dict),
    with the names the clipped part holds: ``… [clipped 1,234 chars; names: load_user, User]``."""
    listed = f"; names: {', '.join(names)}" if names else ""
    return f"… [clipped {omitted:,} {unit}{listed}]"


def _clip(value: str, limit: int) -> tuple[str, int]:
    """The first line of ``value`` cut at a space to at most ``limit`` characters, and how many
    characters of ``value`` it leaves out (0 when it is all of it but surrounding space)."""
    text = strip_clusters(value)
    line = text
    nl = line.find("\n")
    if nl >= 0:
        line = line[:nl].rstrip()
    if len(line) > limit:
        cut = line.rfind(" ", 0, limit)
        line = clip_end(line, cut if cut > limit // 2 else limit).rstrip()  # whole grapheme clusters
    return line, len(text) - len(line)


@dataclass(frozen=True)
class _Value:
    """A tool-input value as the digest shows it."""

    rendered: str
    pieces: tuple[str, ...]  # verbatim strings of the input (keys and shown values)
    values: tuple[str, ...]  # the shown values only (what is scored)


def _scalar(value: Any, limit: int, names: int = 0) -> _Value | None:
    """A scalar as shown; a string clipped to ``limit`` characters, the clip marked with up to
    ``names`` identifiers and paths of the part left out (the most mentioned first)."""
    if isinstance(value, str):
        shown, omitted = _clip(value, limit)
        if not shown:
            return None
        if not omitted:
            return _Value(shown, (shown,), (shown,))
        listed: list[str] = []
        if names:
            in_shown = set(named_items(shown))
            scanned = clip_end(value, RECURRENCE_SCAN_CHARS)
            listed = [n for n in named_items(scanned) if n not in in_shown][:names]
        return _Value(shown + clip_marker(omitted, names=listed), (shown, *listed), (shown, *listed))
    if value is None or isinstance(value, bool | int | float):
        text = json.dumps(value)
        return _Value(text, (text,), (text,))
    return None


def _nested(value: Any, limit: int, depth: int = 0, in_list: bool = False) -> _Value | None:
    """A list or dict as ``[key: value, key: value; ...]`` within about ``limit`` characters, the
    items left out marked; strings inside are clipped to :data:`MAX_INNER_CHARS`."""
    if not isinstance(value, dict | list):
        return _scalar(value, min(limit, MAX_INNER_CHARS))
    if depth >= 2:
        return None
    items: list[tuple[str | None, Any]] = (
        [(str(k), v) for k, v in value.items()] if isinstance(value, dict) else [(None, v) for v in value]
    )
    sep = "; " if any(isinstance(v, dict | list) for _, v in items) else ", "
    parts: list[str] = []
    pieces: list[str] = []
    values: list[str] = []
    used = 2
    shown = 0
    for key, item in items:
        if shown and used >= limit:
            break
        inner = _nested(item, max(20, limit - used), depth + 1, isinstance(value, list))
        shown += 1
        if inner is None:
            continue
        part = f"{key}: {inner.rendered}" if key is not None else inner.rendered
        parts.append(part)
        pieces.extend(([key] if key is not None else []) + list(inner.pieces))
        values.extend(inner.values)
        used += len(part) + len(sep)
    if not parts:
        return None
    rest = len(items) - shown
    body = sep.join(parts) + (clip_marker(rest, "items") if rest else "")
    # A dict inside a list reads without brackets of its own: [key: value, key: value; key: value].
    bare = isinstance(value, dict) and in_list
    return _Value(body if bare else f"[{body}]", tuple(pieces), tuple(values))


SERVER_HEAD_ARGS = ("code",)
"""Arguments of a provider-side tool call (``server_tool_use``) that go in its head after those of
:data:`_ARG_PRIORITY`: what a ``code_execution`` call ran is what the call is about, as a ``Bash`` call's
command is (its other tools' inputs, ``query``, ``url``, ``command``, ``path``, are there already)."""


def _head_arg(key: str, value: Any, priority: Sequence[str] = _ARG_PRIORITY) -> bool:
    """Whether an argument belongs in the call's head (see :func:`call_parts`)."""
    if key not in priority:
        return False
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _path(value: str) -> _Value | None:
    """An absolute path argument as its last :data:`PATH_TAIL_PARTS` parts after ``…/`` (the
    directories above, the same for every file of a project, are left out), else as a scalar."""
    parts = value.strip().split("/")
    if value.startswith(("/", "~")) and len(parts) > PATH_TAIL_PARTS + 2 and "\n" not in value and all(parts[-3:]):
        tail = "/".join(parts[-PATH_TAIL_PARTS:])
        return _Value(f"…/{tail}", (tail,), (tail,))
    return _scalar(value, MAX_ARG_CHARS)


def call_parts(
    name: str, args: dict[str, Any], head_args: Sequence[str] = ()
) -> tuple[_Value, list[tuple[str, _Value]]]:
    """A tool call as its head and its other arguments.

    The head is ``name(key: value, ...)`` with up to :data:`MAX_CALL_ARGS` scalar arguments whose keys are
    in :data:`_ARG_PRIORITY` (the file, command or pattern the call is about) or ``head_args``
    (:data:`SERVER_HEAD_ARGS` for a provider-side call), in that order: strings cut to their first line and
    :data:`MAX_ARG_CHARS` characters, the cut marked; an absolute path as its last :data:`PATH_TAIL_PARTS`
    parts after ``…/``. Every other argument is ``key: value``: a bulky string (``old_string``,
    ``content``...) clipped to :data:`MAX_BULKY_CHARS`, a list or dict flattened to ``[key: value, ...]``
    within :data:`MAX_NESTED_CHARS`, a scalar as in the head.
    """
    order = list(args)
    priority = (*_ARG_PRIORITY, *head_args)
    keys = sorted(order, key=lambda k: (priority.index(k) if k in priority else len(priority), order.index(k)))
    head_pairs: list[str] = []
    pieces: list[str] = [name]
    values: list[str] = []
    head_keys: set[str] = set()
    for key in keys:
        if len(head_keys) >= MAX_CALL_ARGS or not _head_arg(key, args[key], priority):
            continue
        value = args[key]
        val = _path(value) if key in _PATH_ARGS and isinstance(value, str) else _scalar(value, MAX_ARG_CHARS)
        if val is None:
            continue
        head_keys.add(key)
        head_pairs.append(f"{key}: {val.rendered}")
        pieces += [key, *val.pieces]
        values += val.values
    head = _Value(f"{name}({', '.join(head_pairs)})" if head_pairs else name, tuple(pieces), tuple(values))
    rest: list[tuple[str, _Value]] = []
    for key in order:
        if key in head_keys:
            continue
        value = args[key]
        if isinstance(value, dict | list):
            val = _nested(value, MAX_NESTED_CHARS)
        else:
            bulky = key in _BULKY_ARGS
            val = _scalar(value, MAX_BULKY_CHARS if bulky else MAX_ARG_CHARS, MAX_CLIP_NAMES if bulky else 0)
        if val is not None:
            rest.append((key, _Value(f"{key}: {val.rendered}", (key, *val.pieces), val.values)))
    return head, rest


def render_call(head: str, args: list[str]) -> str:
    """A call's head with more ``key: value`` arguments added inside its parentheses."""
    if not args:
        return head
    if head.endswith(")") and "(" in head:
        return f"{head[:-1]}, {', '.join(args)})"
    return f"{head}({', '.join(args)})"


def _input_strings(value: Any) -> Iterator[str]:
    """The string values of a tool input (not its keys), each at most :data:`RECURRENCE_SCAN_CHARS`."""
    if isinstance(value, str):
        yield clip_end(value, RECURRENCE_SCAN_CHARS)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _input_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _input_strings(v)


def _result_text(block: Block) -> str:
    content = getattr(block, "content", "")
    if isinstance(content, str):
        return content
    return "\n".join(getattr(b, "text", "") for b in content if getattr(b, "type", "") == "text")


def _lines(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def server_result_text(block: dict[str, Any]) -> tuple[str, bool]:
    """``(text, is_error)`` of a provider-side tool result (see the module docstring): only strings of
    the result, one per line, plus ``return_code: N`` for code that failed; encrypted content left out."""
    content = block.get("content")
    if block.get("type") == "mcp_tool_result":
        return _lines(content), block.get("is_error") is True
    if isinstance(content, list):  # web search hits
        hits = [f"{h.get('title')} <{h.get('url')}>" for h in content if isinstance(h, dict) and h.get("url")]
        return "\n".join(hits), False
    if not isinstance(content, dict):
        return "", False
    part = str(content.get("type") or "")
    if part.endswith("_error"):
        return str(content.get("error_code") or "error"), True
    if part == "web_fetch_result":
        doc = content.get("content")
        source = doc.get("source") if isinstance(doc, dict) else None
        data = source.get("data") if isinstance(source, dict) and source.get("type") == "text" else None
        return "\n".join(str(x) for x in (content.get("url"), data) if isinstance(x, str) and x), False
    if "return_code" in content:
        code = content.get("return_code")
        failed = isinstance(code, int) and code != 0
        parts = [f"return_code: {code}"] if failed else []
        parts += [t for t in (content.get("stdout"), content.get("stderr")) if isinstance(t, str) and t.strip()]
        return "\n".join(parts), failed
    if part == "text_editor_code_execution_view_result":
        return str(content.get("content") or ""), False
    if part == "text_editor_code_execution_str_replace_result":
        return "\n".join(str(x) for x in content.get("lines") or [] if isinstance(x, str)), False
    return "", False


def _is_code(text: str, start: int, frag: str) -> bool:
    """Whether the line holding ``frag`` (at ``start`` in ``text``) is code (see :data:`CODE_FACTOR`)."""
    line_start = text.rfind("\n", 0, start) + 1
    if _NUMBERED.match(text, line_start, start + 1):
        return True
    return sum(1 for ch in frag if ch in _CODE_CHARS) >= 0.15 * len(frag)


def _scan_window(text: str) -> str:
    """``text`` without the middle lines beyond :data:`RESULT_SCAN_HEAD` + :data:`RESULT_SCAN_TAIL`.

    The two parts are joined by a line break, so no unit spans the gap and every unit is still a
    slice of the original.
    """
    head = 0
    for _ in range(RESULT_SCAN_HEAD):
        nl = text.find("\n", head)
        if nl < 0:
            return text
        head = nl + 1
    tail = len(text)
    for _ in range(RESULT_SCAN_TAIL):
        nl = text.rfind("\n", 0, tail)
        if nl < head:
            return text
        tail = nl
    return text[:head] + text[tail + 1 :]


def _call_analysis(text: str) -> tuple[float, tuple[Concept, ...]]:
    """:func:`analyse` of a call rendered in an earlier digest, without its argument keys
    (``file_path`` is a name of the tool's, not of the work) nor the counts of its clip marks."""
    cues, concepts = analyse(_CLIP_COUNT.sub("", text))
    keys = {m.group(1) for m in _CALL_KEY.finditer(text)}
    return cues, tuple(c for c in concepts if not (c[0] == "id" and c[1] in keys))


def _labelled_spans(text: str) -> Iterator[tuple[str, str, int, int]]:
    """``(kind, label, start, end)`` of the units of an assistant text that is an earlier digest
    (its lines open with labels, as merge requests hold): each line keeps its label's kind, a call
    line is cut into its calls, other lines into sentences. Unlabelled lines are ``"said"``."""
    pos = 0
    for line in _LINE.finditer(text):
        ls, le = line.span()
        if ls < pos:
            continue
        m = _LABEL_LINE.match(text, ls, le)
        if m is None:
            for s, e in split_spans(text[ls:le]):
                yield "said", LABELS["said"], ls + s, ls + e
            continue
        label = m.group(1)
        kind = _KIND_OF_LABEL.get(label, "user")
        bs = m.end()
        if kind == "call":
            cuts = [bs] + [c.end() for c in _NEXT_CALL.finditer(text, bs, le)]
            for a, b in zip(cuts, [*[c - 2 for c in cuts[1:]], le], strict=True):
                a2, b2 = a, b
                while b2 > a2 and text[b2 - 1].isspace():
                    b2 -= 1
                if b2 - a2 >= 2:
                    yield kind, label, a2, b2
        else:
            for s, e in split_spans(text[bs:le]):
                yield kind, label, bs + s, bs + e


def extract_units(messages: list[LLMMessage], start: int, end: int) -> list[Unit]:
    """Scored candidate units of ``messages[start:end]``, deduplicated, in conversation order.

    Args:
        messages: The request's messages.
        start: First message to summarise.
        end: One past the last message to summarise.

    Returns:
        The candidates (see the module docstring for what qualifies).
    """
    span = max(1, end - start - 1)
    units: list[Unit] = []
    mentions: list[set[str]] = []  # per mention source: the concept keys it mentions
    order = 0

    def add(
        kind: str,
        fragments: tuple[str, ...],
        rendered: str,
        index: int,
        label: str,
        analysis: tuple[float, tuple[Concept, ...]] | None = None,
        factor: float = 1.0,
        head: Unit | None = None,
        dedup: str | None = None,
    ) -> Unit | None:
        nonlocal order
        cues, concepts = analysis if analysis is not None else analyse(rendered)
        sal = factor * (cues + concept_weight(concepts, frozenset()))
        tokens = estimate_text_tokens(rendered)
        if kind in ("said", "thought") and sal == 0 and tokens < MIN_PLAIN_TOKENS:
            return None  # "Good.", "Now let me check." carry nothing a later turn needs
        if head is not None:
            base = factor * cues  # the head carries the role and recency of the call
            tokens += 1  # the ", " that joins it to the head
        else:
            base = ROLE_WEIGHT[kind] + factor * cues + 2.0 * (index - start) / span
        unit = Unit(
            kind, fragments, rendered, index, order, tokens, base, concepts, sal, label, factor,
            head=head, dedup=rendered if dedup is None else dedup,
        )  # fmt: skip
        units.append(unit)
        order += 1
        return unit

    for index in range(start, end):
        msg = messages[index]
        user = msg.role == "user"
        for block in msg.content:
            kind = block.type
            if kind in ("text", "thinking"):
                text = (getattr(block, "text", None) if kind == "text" else getattr(block, "thinking", "")) or ""
                if kind == "text" and not user and _LABEL_LINE.match(text):
                    for unit_kind, label, s, e in _labelled_spans(text):
                        frag = text[s:e]
                        analysis = _call_analysis(frag) if unit_kind == "call" else None
                        factor = RESULT_FACTOR if unit_kind == "result" else 1.0
                        if (u := add(unit_kind, (frag,), frag, index, label, analysis, factor)) is not None:
                            mentions.append({concept_key(c) for c in u.concepts})
                    continue
                unit_kind = ("user" if user else "said") if kind == "text" else "thought"
                label = f"{msg.name} said:" if (user and kind == "text" and msg.name) else LABELS[unit_kind]
                for s, e in split_spans(text):
                    frag = text[s:e]
                    if (u := add(unit_kind, (frag,), frag, index, label)) is not None:
                        mentions.append({concept_key(c) for c in u.concepts})
            elif kind == "tool_use" or kind in SERVER_CALL_TYPES:
                args = getattr(block, "input", {})
                name = getattr(block, "name", "")
                if kind == "mcp_tool_use":
                    name = f"{getattr(block, 'server_name', '')}/{name}"
                elif kind == "server_tool_use":
                    name = f"{SERVER_CALL_PREFIX}{name}"  # run by the provider, not a client tool
                head_value, rest = call_parts(name, args, SERVER_HEAD_ARGS if kind == "server_tool_use" else ())
                full = render_call(head_value.rendered, [v.rendered for _, v in rest])
                head = add(
                    "call", head_value.pieces, head_value.rendered, index, LABELS["call"],
                    analyse("\n".join(head_value.values)), dedup=full,
                )  # fmt: skip
                for _, value in rest:
                    add(
                        "call", value.pieces, value.rendered, index, LABELS["call"],
                        analyse("\n".join(value.values)), head=head,
                    )  # fmt: skip
                seen: set[str] = set()
                for text in _input_strings(args):
                    seen.update(concept_key(c) for c in analyse(text)[1])
                mentions.append(seen)
            elif kind == "compaction" and not user:
                text = getattr(block, "content", None) or ""
                for s, e in split_spans(text):
                    frag = text[s:e]
                    if (u := add("said", (frag,), frag, index, LABELS["said"])) is not None:
                        mentions.append({concept_key(c) for c in u.concepts})
            elif kind in ("tool_result", "search_result") or kind in SERVER_RESULT_TYPES:
                if kind == "tool_result":
                    raw, is_error = _result_text(block), bool(getattr(block, "is_error", False))
                elif kind == "search_result":
                    raw, is_error = f"{getattr(block, 'title', '')}\n{_result_text(block)}", False
                else:
                    raw, is_error = server_result_text(block_to_dict(block))
                text = _scan_window(raw)
                unit_kind = "error" if is_error else "result"
                lines: list[tuple[float, int, str, tuple[float, tuple[Concept, ...]], float]] = []
                for n, (s, e) in enumerate(split_spans(text)):
                    frag = text[s:e]
                    analysis = analyse(frag)
                    factor = CODE_FACTOR if _is_code(text, s, frag) else 1.0
                    factor *= 1.0 if is_error else RESULT_FACTOR
                    sal = factor * (analysis[0] + concept_weight(analysis[1], frozenset()))
                    if sal > 0 or (is_error and n == 0):
                        lines.append((sal, n, frag, analysis, factor))
                    mentions.append({concept_key(c) for c in analysis[1]})
                best = sorted(lines, key=lambda t: (-t[0], t[1]))[:MAX_RESULT_LINES]
                for _, _, frag, analysis, factor in sorted(best, key=lambda t: t[1]):
                    add(unit_kind, (frag,), frag, index, LABELS[unit_kind], analysis, factor)
    # Recurrence: how many mention sources name each concept.
    counts: dict[str, int] = {}
    for keys in mentions:
        for k in keys:
            counts[k] = counts.get(k, 0) + 1
    for u in units:
        u.boosts = tuple(recurrence_boost(counts.get(concept_key(c), 1)) for c in u.concepts)
    # Equal fragments: keep the best-scoring occurrence (a call's arguments go with their head).
    best_of: dict[tuple[str, str], Unit] = {}
    for u in units:
        if u.head is not None:
            continue
        key = (u.kind, u.dedup)
        if key not in best_of or u.gain() > best_of[key].gain():
            best_of[key] = u
    kept = {id(u) for u in best_of.values()}
    return [u for u in units if id(u) in kept or (u.head is not None and id(u.head) in kept)]
