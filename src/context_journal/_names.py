"""What makes a name (a message id, branch, namespace, participant, reader, audience entry, fact key)
usable by every backend and every later read: one rule, checked where each is written.

A name is text that is not blank (shows something: whitespace and invisible format characters alone, a
zero-width space say, are blank), holds no control character (a NUL above all: PostgreSQL refuses it,
SQLite and the memory store kept it, so the backends disagreed) and no lone surrogate (the memory store
kept ``"m\\ud800"``, which SQLite and PostgreSQL cannot encode), and is at most :data:`MAX_NAME`
characters long.
"""

from __future__ import annotations

import re
import unicodedata

from ._graphemes import clip_end

__all__ = ["LONE_SURROGATE", "MAX_NAME", "clip_repr", "name_problem", "replace_lone_surrogates", "shows_nothing"]

MAX_NAME = 1024
"""Longest name, in characters."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate: a code point JSON and Python strings can carry but no UTF-8 text (so no store, and
no terminal) can. One pattern for every check that refuses or replaces one."""


_INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f\u2800\u3164\uffa0"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
)
"""Characters outside category Cf that show nothing: Unicode's other default-ignorable code points (the
combining grapheme joiner, the Hangul fillers, Khmer's inherent vowels, Mongolian's variation selectors,
the variation selectors U+FE00-FE0F) and the blank Braille pattern."""


_NOTHING_SHOWN = frozenset({"Cf", "Cc"})
"""Unicode categories that show nothing: format characters and controls."""


def shows_nothing(text: str) -> bool:
    """Whether ``text`` shows nothing: whitespace, invisible format characters (zero-width space and
    joiners, byte-order mark: Unicode category Cf), control characters (NUL, BEL, ESC, DEL: category Cc)
    and the other default-ignorable characters only (see ``_INVISIBLE``). Stops at the first visible
    character (the first, in almost every text)."""
    return not any(
        not c.isspace() and c not in _INVISIBLE and unicodedata.category(c) not in _NOTHING_SHOWN for c in text
    )


def replace_lone_surrogates(text: str) -> str:
    """``text`` with every lone surrogate read as U+FFFD REPLACEMENT CHARACTER."""
    return LONE_SURROGATE.sub("\ufffd", text)


def name_problem(value: object) -> str | None:
    """Why ``value`` cannot be a name (``"is blank"``, ``"holds a control character (\\x00)"``...), or
    None when it can."""
    if not isinstance(value, str):
        return f"must be text, got {type(value).__name__}"
    if shows_nothing(value):
        return "is blank (only whitespace or invisible characters)"
    if len(value) > MAX_NAME:
        return f"is longer than {MAX_NAME} characters"
    bad = _CONTROL.search(value)
    if bad is not None:
        return f"holds a control character ({bad[0]!r})"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "holds a lone surrogate (text no database can store)"
    return None


def clip_repr(value: object, width: int = 80) -> str:
    """``repr(value)``; of a string longer than ``width`` characters, the repr of its first ``width``
    with ``…`` and its length (so an error message naming a 100 KB name stays short)."""
    if not isinstance(value, str) or len(value) <= width:
        return repr(value)
    return f"{clip_end(value, width)!r}… ({len(value):,} characters)"
