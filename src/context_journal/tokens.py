"""Token counting: the :class:`TokenCounter` protocol, the dependency-free estimate, an exact tiktoken
counter that works offline, and the calibration fed by the provider's reported usage.

Counters work on JSON-ready block dicts (the stored shape). Every count is in **tokens**.

**The default estimate** (:class:`EstimatingCounter`) prices text by content class, in tokens. It
counts with a few C-speed passes over the string, its UTF-8 bytes and its UTF-16 code units (byte
translations, counts, a few regexes; no per-character Python loop). A first translation shows which of
the rarer features a text holds (digits, control characters, runs of marks), the passes for those it
lacks are skipped, and the prices of the words and runs judged once are remembered:

* ASCII words (letter runs) and their letters: prose tokenizes at about one token per common word,
  longer words cost more (``0.675 * words + 0.10 * letters``); a word of four letters or more that is
  not one token (``_word_tokens``), in lower case, title case or capitals, costs more by its letters,
  and by its letter pairs that one-token words seldom hold (``kechqurun``), and a word of two or three
  capitals or lowercase letters that is not one token (``IAH``, ``XQZ``, ``nke``) is two tokens;
* random letters (ids, keys, letter-only passwords: eight letters or more, four in capitals, whose
  letter pairs are mostly not among the 260 most frequent in one-token words): ``0.6`` a letter in
  lower case, ``0.7`` in capitals, ``0.68`` in mixed case;
* a separator after a list item of one word (``red, green, blue``; ``red; green``) is a token of its own:
  ``0.55`` over punctuation's price; a run of percent-encoded bytes (``%D0%9C``) ``0.75`` a character; a run
  of JSON's ``\\uXXXX`` escapes ``1.15`` a token as the encodings split it (``\\u``, then the hex digits'
  runs of digits and of letters);
* numbers: BPE vocabularies split digits into groups of up to three, one token each: ``1.1`` a group
  plus ``1.1`` a number (the separators numbers come with in JSON, dates and times), so a short number
  costs ``2.2`` and a long digit string about a third of a token a digit;
* ASCII punctuation (code and JSON are dense in it): ``0.43`` each; an operator between spaces
  (``" = "``, ``" -> "``) ``0.5`` more; a LaTeX command after a space, ``{``, ``$`` or ``(`` ``1.5``
  more (its backslash and braces are tokens of their own); a backslash escape (``\\n``, ``\\"``) by
  where the tokenizer splits it; a run of eight or more of one letter or mark (``aaaa...``,
  ``!!!!...``) by the vocabularies' tokens for such runs;
* whitespace: a line break ``0.7`` and each further newline of a run ``0.075`` (blank lines merge, about
  16 to a token), a carriage return ``0.12``; a run of two or more spaces ``1.18`` plus ``1.0`` for each
  further 120 spaces; a run of tabs ``1.2`` plus ``0.07`` a tab;
* encoded data pasted as text (runs of base64 or hex that look random): ``0.80`` (plus ``3`` a run) /
  ``0.66`` a character, and random printable ASCII (passwords, keys: runs of 12 or more characters that
  change kind, letter case, digit or punctuation, more often than every second character) ``0.9`` a
  character, since vocabularies hold few merges for random characters;
* other characters by block of 256 code points (the high byte of their UTF-16 code unit, refined by the
  low byte in a few blocks): from ``0.75`` a character (Cyrillic; ``2.0`` for a letter outside Russian's
  alphabet, Ukrainian і ї є, Belarusian ў, Serbian ј љ) and ``0.8`` (dashes, quotes, ellipsis; the
  zero-width space and ``‘`` ``1.3``, as the word after them has no space to open its token with), ``1.1``
  (Latin-1 letters; ``1.3`` in Latin Extended, more for a letter that is two or three tokens alone, ħ ġ ṣ,
  and a token for a space before a letter it does not merge with, `` ụ``)
  through ``1.2`` (kana, CJK punctuation; a CJK unified ideograph ``1.1`` per token that
  ``cl100k_base`` gives it alone: one, two or three, from the table in ``_cjk_tokens``, so Mandarin's
  frequent characters and Cantonese's rarer ones are both priced within bounds), ``1.5``-``1.9``
  (Indic scripts; a letter with a nukta, ``क़``, two or three tokens), ``2.4`` (Hebrew vowel points, Georgian,
  Armenian), ``2.6`` (combining diacritics), ``3.0`` (emoji, presentation forms such as Arabic
  ligatures; the emoji-style selector U+FE0F and the byte order mark ``1.0``), ``3.25``-``3.6`` (Ethiopic, Braille,
  Mongolian) to ``4.4`` (supplementary ideographs, CJK Extension B and up); see the ``_W_*`` weights.
  Where the vocabularies hold few merges for a script, BPE falls back to single UTF-8 bytes (three or
  four a character), about one token each.

The word model's coefficients were fitted against ``cl100k_base`` on the real transcripts in
``shared/data`` (``tests/compile/test_compile_tokens.py`` re-measures the error by class). The
script, number, whitespace, data and punctuation weights are set so the estimate lies between 1.0x and
1.5x the larger of ``cl100k_base`` and ``o200k_base`` (token counts summed over each class) for every
class of a multi-script corpus (CJK and CJK Extension B, Thai, Indic, Arabic and Hebrew with marks,
Cyrillic, Greek, Georgian, Armenian, Ge'ez, Mongolian, Braille, emoji sequences, code, JSON, base64,
hex, random printable ASCII, long digit strings, long whitespace runs; Lao, Odia, Khmer, the Cyrillic of
Kazakh, Kyrgyz and Mongolian, halfwidth katakana, fullwidth Latin, box drawing, math symbols, LaTeX,
runs of one character, random letters, codes in capitals, Devanagari with nukta; Ukrainian, Belarusian,
Serbian and Macedonian Cyrillic, Igbo, Maltese, Latvian, Uzbek, Lithuanian, Yoruba, pinyin, zero-width
spaces, JSON with ``\\uXXXX`` escapes, Korean chat with compatibility jamo, Tongan and Samoan):
``tests/compile/test_token_estimate_scripts.py`` prints that table and asserts the bounds, and
``benchmarks/bench_tokens.py`` times the estimate against both tiktoken encodings on each class.

Non-text blocks: ``tool_use`` (and the provider-side ``server_tool_use`` / ``mcp_tool_use``) is priced as
its name plus its compact JSON input; provider results (web search and fetch, code execution, MCP results,
``search_result``, ``compaction``, OpenAI ``reasoning``) by their content: text as text, encrypted or
base64 strings at four characters a token, nested documents as documents; images by their pixel size
read from their header, the larger of Anthropic's and OpenAI's published prices (see
:mod:`context_journal._images`: a 400x300 screenshot 255 tokens), at most a flat, configurable price
(1,600: Anthropic's ceiling, also the price of an image whose size cannot be read); PDFs are priced by
their pages, each page's text plus the page as an image (see :mod:`context_journal._documents`); other
documents not at hand (URLs) have a flat price; signed
thinking is priced by its text plus its signature; every block adds ``block_overhead`` and every
message ``message_overhead``.

**The exact counter** (:class:`TiktokenCounter`) uses tiktoken with rank files that are on disk: a
``rank_file=`` path, the vocabularies the ``quicktok-v1`` package bundles (``cl100k_base`` and
``o200k_base``; installed by the ``tiktoken`` extra), or tiktoken's own cache (``TIKTOKEN_CACHE_DIR``).
``quicktok-v1`` (github.com/dmatth1/quicktok) is MIT-licensed: its metadata says so in the newer
``License-Expression`` field, which ``pip show`` leaves blank; its NOTICE traces these two vocabularies
to OpenAI's tiktoken (MIT). It also bundles Llama 3 and Qwen vocabularies under their own licences,
which this library never reads. Every rank file is used only after its bytes match the encoding's
published sha256, and the ``Encoding`` is built here from those ranks with the encoding's published
pattern and special tokens: tiktoken's registry (``tiktoken.get_encoding``), where a plugin in the
``tiktoken_ext`` namespace could supply unchecked ranks, is never asked. It never downloads.

**Calibration** (:class:`Calibration`): the provider's tokenizer is not the estimate's. After a call,
``report_usage(compile, input_tokens)`` compares what the provider counted with what the compile
estimated; a factor per content class moves toward the observed ratio (in log space, by each class's
share of the request) and is clamped to ``[lower, upper]`` (0.1 to 20). Compiles multiply their
estimate by the factors averaged over the recent mix, or by their own content's when its classes' factors
differ. Scripts are classes of their own (:func:`text_class`), and a class never reported is priced at
1.0 once any class has a factor: Hindi's factor prices neither Russian nor English.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import string
import tempfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache, reduce
from itertools import chain, filterfalse
from operator import add
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable

from . import _cjk_tokens, _hangul_tokens, _symbol_tokens, _word_tokens
from ._block_types import SERVER_CALL_TYPES, SERVER_RESULT_TYPES
from ._images import image_size, image_size_b64, image_tokens
from .errors import ContextJournalError, MissingExtraError

__all__ = [
    "Calibration",
    "EstimatingCounter",
    "TiktokenCounter",
    "TokenCounter",
    "TokenizerUnavailableError",
    "check_token_count",
    "content_mix",
    "document_hints",
    "estimate_text_tokens",
    "text_class",
]


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens of stored content (block dicts)."""

    def count_block(self, block: Mapping[str, Any]) -> int:
        """Tokens of one block dict."""
        ...

    def count_message(self, participant: str, blocks: Iterable[Mapping[str, Any]]) -> int:
        """Tokens of one message: its blocks plus the per-message overhead."""
        ...


class TokenizerUnavailableError(ContextJournalError, LookupError):
    """No rank file for the tiktoken encoding is available offline; nothing is downloaded.

    Pass ``rank_file=`` (a ``.tiktoken`` file), install the ``tiktoken`` extra (its ``quicktok-v1``
    bundles both encodings' ranks, checked against the published sha256), or point ``TIKTOKEN_CACHE_DIR``
    at a folder that holds tiktoken's cached copy.

    Also raised when a rank file is there but is not the encoding's published one (truncated, edited,
    or another encoding's ranks): its sha256 is not the published one.

    Attributes:
        encoding: The encoding asked for.
        path: The rank file that failed its sha256 check, or None.
        expected_sha256: The encoding's published sha256 (set with ``path``).
        actual_sha256: The sha256 of the file's bytes (set with ``path``).
    """

    def __init__(
        self,
        encoding: str,
        detail: str = "",
        *,
        path: str | None = None,
        expected_sha256: str | None = None,
        actual_sha256: str | None = None,
    ) -> None:
        self.encoding = encoding
        self.path = path
        self.expected_sha256 = expected_sha256
        self.actual_sha256 = actual_sha256
        if path is not None:  # a file was found or given: say what is wrong with it first
            text = (
                f"the rank file {path} cannot be used for tiktoken encoding {encoding!r}; pass the published "
                "file, install the 'tiktoken' extra (quicktok-v1 bundles the ranks), or set TIKTOKEN_CACHE_DIR"
            )
        else:
            text = (
                f"no offline rank file for tiktoken encoding {encoding!r}; pass rank_file=PATH, install the "
                "'tiktoken' extra (quicktok-v1 bundles the ranks), or set TIKTOKEN_CACHE_DIR to a folder holding "
                "the cached file"
            )
        super().__init__(f"{text} ({detail})" if detail else text)


# --- the estimate --------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z]+")
_SPACE_RUN = re.compile(b"   *")  # in the UTF-8 bytes; it opens with a literal string, searched for fast
_TAB_RUN = re.compile(r"\t\t+")
# Encoded data pasted as text: a long run of base64 or hex characters. BPE vocabularies have few merges
# for random characters, so these cost far more per character than words (base64 ~0.72 tokens a
# character, hex ~0.57).
# A run of eight or more of one separator character (rules in logs and Markdown: "========",
# "--------", "________"): the vocabularies hold runs of these of 1, 2, 4, ... up to 64 characters ("~"
# and "+": 32) as single tokens, and BPE splits a run into the largest ones first, so n characters take
# n // 64 tokens plus one per bit set in n % 64 (cl100k_base and o200k_base take 4,000 "=" in 63
# tokens; priced at 0.43 a character they were once estimated 27x).
_SEP_RUN = re.compile(rb"([=\-#*_./~+])\1{7,}")  # matched in the UTF-8 bytes
_SEP_PER_TOKEN = {**dict.fromkeys("=-#*_./", 64), "~": 32, "+": 32}
_SEP_BYTES = bytes(ord("=") if chr(b) in _SEP_PER_TOKEN else ord(" ") for b in range(256))
# A run of eight or more of one other ASCII letter or mark ("aaaaaaaa", "!!!!!!!!", "xxxxxxxx", "}}}}}}}}"):
# the vocabularies hold runs of each of about 2, 4 or 8 characters as one token, so a run costs its length
# over that, plus one for its ends, where the word model priced "aaaa..." as an unknown word (2.8x) and
# punctuation "!!!!..." at 0.43 a mark (3.5x). "%" and ";" runs split unevenly and "^" underlines compiler
# output: those are left to punctuation.
_CHAR_RUN = re.compile(rb"([!-/:-~])\1{7,}")  # matched in the UTF-8 bytes; priced by _RUN_PER_TOKEN
_RUN_PER_TOKEN = {
    **dict.fromkeys("!:<>afoxAFX", 8),
    **dict.fromkeys("$(),?@\\|bcdeyBCELMY", 4),
    **dict.fromkeys("\"&'[]`{}ghijklmnpqrstuvwzDGHIJKNOPQRSTUVWZ", 2),
}
_NOT_RUN_BYTES = bytes(b for b in range(256) if chr(b) not in _RUN_PER_TOKEN)
"""The bytes that cannot make such a run: deleted before looking for eight equal bytes in a row (a
pre-check at C speed: the bytes left XOR-ed with themselves shifted by one byte, as a big integer)."""
# The runs are found in the UTF-8 bytes translated, their characters to "a": a pattern that opens with a
# literal string is searched for at C speed, where a character class repeated 16 times would be tried at
# every position.
_BLOB = re.compile(b"a" * 16 + b"a*={0,2}")  # a run of 16 or more base64 characters, "=" padding after it
_BLOB_BYTES = bytes(
    ord("a") if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/") else ord("=") if b == 61 else ord(" ")
    for b in range(256)
)  # a translation table: base64 characters to "a", "=" to itself, the rest to " "
# Random printable ASCII (passwords, keys, salts): a run of 12 or more non-space characters.
_DENSE = re.compile(b"a" * 12 + b"a*")
_ESCAPE_PAIR = re.compile(r'\\[A-Za-z"\\/]')  # a backslash escape: one token (see _random_tokens)
_DENSE_BYTES = bytes(ord("a") if 33 <= b <= 126 else ord(" ") for b in range(256))
_ONE_LETTER_BYTES = bytes(
    ord("a")
    if chr(b).isascii() and chr(b).isalpha()
    else ord("0")
    if chr(b) in "0123456789_'" or b >= 128
    else ord(" ")
    for b in range(256)
)  # ASCII letters to "a"; digits, "_", "'" and non-ASCII bytes to "0" (word characters); the rest to " "
_CASE_BYTES = bytes(
    ord("a") if chr(b).islower() and b < 128 else ord("A") if chr(b).isupper() and b < 128 else ord(" ")
    for b in range(256)
)  # ASCII lower-case letters to "a", upper-case to "A", the rest to " "
_DIGIT_BYTES = bytes(ord("0") if 48 <= b <= 57 else ord(" ") for b in range(256))
_NEWLINE_BYTES = bytes(ord("n") if b in (10, 13) else ord(" ") for b in range(256))
_NEWLINE_RUN = re.compile(rb"\n\n*")  # a run of line feeds: opens with a literal byte, tried only at line feeds
_LINE_MARK = re.compile(rb"\n {0,4}[!-/:-@\[-`{-~] ")
"""A mark and a space opening a line, after up to 4 spaces of indent (``- item``, ``  - key``, ``# heading``,
``} else``), matched in the UTF-8 bytes: a regex that opens with a literal byte is tried only at line feeds."""
_NOT_CONTROL_BYTES = bytes(b for b in range(256) if not ((b < 32 and b != 10) or b == 127))
"""The bytes that are not an ASCII control character other than line feed (tab, carriage return and the
rest are counted apart): deleted, so that what is left of a text is those control characters."""
_HEX = re.compile(r"[0-9A-Fa-f]+")
_BASE32 = re.compile(r"[A-Z2-7]+={0,2}")  # RFC 4648 base32: TOTP secrets, onion addresses, DNS-safe ids
_CASE_RUNS = re.compile(r"[A-Z]+|[a-z]+|[0-9]+")
_NOT_LETTERS = bytes(c for c in range(256) if not chr(c).isascii() or not chr(c).isalpha())
_NOT_VOWELS = bytes(c for c in range(256) if chr(c) not in "AEIOUaeiou")
_LOWERCASE = string.ascii_lowercase.encode("ascii")
_KIND_BYTES = bytes(
    ord("a") if chr(b).islower() else ord("A") if chr(b).isupper() else ord("0") if chr(b).isdigit() else ord(".")
    for b in range(128)
) + bytes(128)  # the kind of an ASCII character: lower, upper, digit or other
_ASCII_BYTES = bytes(range(128))
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))  # UTF-8 continuation bytes
_NOT_IDEOGRAPH_HI = bytes(b for b in range(256) if not 0x4E <= b <= 0x9F)
"""The high bytes of UTF-16 code units that are not a CJK unified ideograph's (U+4E00-9FFF)."""
_DIGIT = ord("0")
_CONTROL = 1
_GATE_BYTES = bytes(
    ord("a")
    if 97 <= b <= 122
    else ord("A")
    if 65 <= b <= 90
    else _DIGIT
    if 48 <= b <= 57
    else ord("n")
    if b == 10
    else ord(" ")
    if b == 32
    else ord("u")
    if b == 95
    else ord("p")
    if 33 <= b <= 126
    else _CONTROL
    if b < 32 or b == 127
    else ord("x")
    for b in range(256)
)
"""A translation table for ``_text_estimate``: ASCII lowercase letters to "a", capitals to "A", digits to "0",
line feed to "n", space to " ", "_" to "u", the other ASCII marks to "p", the other control characters to 1
and the bytes of non-ASCII characters to "x". One pass serves several counts (a capital after a lowercase
letter is "aA", a line break after a word "an" once lowered, an operator between spaces " p " or " pp ") and
pre-checks, looked for at C speed (memchr for one byte): capitals, digits, control characters, and eight
marks in a row (a run of eight of one mark, ``_SEP_RUN`` and ``_CHAR_RUN``, is eight "p" or "u" in a row,
which prose seldom holds; eight of one letter lie in a run of word characters never judged, see
``_unknown_words``)."""
_LETTER_BYTES = bytes(ord("a") if chr(b).isascii() and chr(b).isalpha() else ord(" ") for b in range(256))
"""ASCII letters to "a", the rest to " ": the words are the runs of "a" (counted so in a text with digits or
"_", where the runs of word characters are not the words)."""


def _complement(body: str, first: int, last: int) -> str:
    """The regex class body of the characters in ``first..last`` that the class body ``body`` (single
    characters and ``a-b`` ranges, in order) does not hold."""
    spans = [(ord(a), ord(b or a)) for a, b in re.findall(r"(.)(?:-(.))?", body, re.S)]
    out: list[str] = []
    at = first
    for a, b in [*spans, (last + 1, last + 1)]:
        if a > at:
            out.append(chr(at) if a - 1 == at else f"{chr(at)}-{chr(a - 1)}")
        at = max(at, b + 1)
    return "".join(out)


def _runs_of(body: str) -> re.Pattern[str]:
    """A regex for runs of the characters of a class body (see :func:`_chars_of`), written ``[...][...]*``:
    a pattern that opens with a plain class is searched for with a fast scan for its characters, where
    ``[...]+`` is tried at every position (three times slower on text that holds few of them)."""
    return re.compile(f"[{body}][{body}]*")


_MORE_TOKENS = _runs_of(_complement(_cjk_tokens.ONE_TOKEN, 0x4E00, 0x9FFF))  # two or three tokens
_THREE_TOKENS = _runs_of(_cjk_tokens.THREE_TOKENS)
_HANGUL_MORE = _runs_of(_complement(_hangul_tokens.ONE_TOKEN, 0xAC00, 0xD7A3))  # two or three tokens
_HANGUL_THREE = _runs_of(_hangul_tokens.THREE_TOKENS)
_NOT_HANGUL_HI = bytes(b for b in range(256) if not 0xAC <= b <= 0xD7)
"""The high bytes of UTF-16 code units that are not a Hangul syllable's (U+AC00-D7FF)."""
_SYMBOL_MORE = _runs_of(_symbol_tokens.MORE_TOKENS)  # two tokens or more alone
_SYMBOL_THREE = _runs_of(_symbol_tokens.THREE_TOKENS)
_SPACE_APART = re.compile(f" [{_symbol_tokens.SPACE_APART}]")  # opens with a literal: tried only at spaces
_INSIDE_WORD = re.compile("[A-Za-z][\u0100-\u024f\u1e00-\u1eff]")  # a Latin Extended letter after an ASCII one
_MARK_RUN = re.compile(rb"[pu]{5,}")  # in _GATE_BYTES's translation: five ASCII marks or more in a row
_BOX_LINE = re.compile("\u2500+")  # runs of ─ (light horizontal)
_BOX_DOUBLE_LINE = re.compile("[\u2501\u2550]+")  # runs of ━ and ═ (heavy and double horizontal)
_BOX_ONE = re.compile("[\u2502\u2551\u2557\u255d]")  # │ ║ ╗ ╝: one token each, and they do not merge
_BOX_SPACED = re.compile(" (?=[\u2500\u2501\u2550\u2551\u2557\u255d])")  # a space these do not merge with
_BOX_LINE_START = re.compile("\n(?=[\u2500-\u257f])")  # a line break before box drawing: a token of its own
_W_BLOCK_SPARE = 0.1  # over a ░ (exact alone: a bar's edges cost a little more; bars were 0.97x)
_W_BLOCK_EDGE = 0.4  # over a run of █, where it meets ░ or a mark
_FULL_BLOCKS = re.compile("\u2588+")  # runs of █ (progress bars): four a token, about
_LIGHT_SHADES = re.compile("\u2591")  # ░: one token each, priced 1.5 as a symbol
_TWO_TOKEN_BLOCKS = re.compile("[\u2580-\u2587\u2589-\u2590\u2592-\u259f]")  # ▀ ▄ ▌ ▒ ▓ ...: two tokens each
_LINE_RUN_TOKENS = (0, 1, 1, 2, 1, 2, 2, 3)  # tokens of a run of ─ by its length modulo 8, beside one per 8
_NOT_SYMBOL_HI = bytes(
    b for b in range(256) if not any(first >> 8 <= b <= last >> 8 for first, last in _symbol_tokens.RANGES)
)
"""The high bytes of UTF-16 code units that hold no character of the symbol table (``_symbol_tokens``)."""
_CJK = re.compile("[\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
# A LaTeX command (a backslash and two letters or more) after whitespace, "{", "$", "(" or at the start
# ("\\frac", " \\mathbb"), counted in the UTF-8 bytes translated (``_LATEX_BYTES``): the backslash is a
# token of its own there, and so are the braces and scripts around commands, where punctuation elsewhere
# mostly merges with its neighbours (LaTeX was estimated at 0.88x). JSON's escapes ("\\n") follow other
# characters or no letters (the Claude Code sessions of shared/data hold none of these).
_LATEX_BYTES = bytes(
    ord("p")
    if chr(b) in " \t\n\r\x0b\x0c{$("
    else ord("b")
    if b == 92
    else ord("a")
    if chr(b).isascii() and chr(b).isalpha()
    else ord(" ")
    for b in range(256)
)  # a translation table: what may open a command to "p", backslash to "b", ASCII letters to "a"
_FULLWIDTH_LETTER = _runs_of("\uff20-\uff3d\uff3f-\uff5d")

_W_WORD = 0.675
_W_LETTER = 0.10
_W_REPLACEMENT_MORE = 0.35  # U+FFFD after another: runs of two to four merge ("\ufffd" * 200: 50 tokens)
_CAPITAL_RUN = 24  # letters: a run of capitals this long is no word (protein and DNA sequences, codes)
_W_CAPITAL_RUN = 0.2  # per letter of such a run, over an unknown word's price (protein sequences were 0.72x)
_W_ONE_LETTER = 0.225  # a word of one letter (not "v2", not "don't"): a token, where the word model gives 0.775
_W_HUMP = 0.65  # a lowercase letter followed by a capital (camelCase identifiers listed bare were 0.69x)
_W_UNKNOWN_LETTER = 0.33  # a lowercase word of four or more letters that is not one token (_word_tokens):
_W_UNKNOWN_WORD = -0.6  # this much more than the word model gives, per letter and per word
_W_DIGIT_RUN = 1.1  # a number: its first group, with the separator numbers come with
_W_DIGIT_GROUP = 1.1  # each group of up to three digits
_W_PUNCT = 0.43
_W_NEWLINE = 0.7  # a line break (a run of newlines and carriage returns)
_W_LINE_MARK = 1.0  # a mark and a space opening a line ("- item", "  - key", "# heading", "} else"): its own
# token, where punctuation elsewhere mostly merges with its neighbours
_W_NEWLINE_AFTER_WORD = 0.3  # a line break right after a letter, over _W_NEWLINE: a token of its own
# there (after punctuation it merges with the mark: ".\n" is one token)
_W_NEWLINE_MORE = 0.075  # each further newline of the run (blank lines merge into few tokens)
_W_CR = 0.12  # each carriage return
_W_SPACE_RUN = 1.18  # a run of two or more spaces (indentation, alignment)
_W_SPACE_LONG = 1.0  # each further 120 spaces of a run
_W_TAB_RUN = 1.2  # a run of two or more tabs
_W_TAB = 0.07  # each tab
_W_TAB_SPACE = 0.5  # each place a tab meets a space (" \t" pairs: no run merges them)
_W_CONTROL = 0.6  # each other control character (vertical tab, form feed, escape...) beyond punctuation's
_W_ANSI = 1.0  # each terminal escape sequence ("\x1b[31m": escape, bracket, number, letter) beyond those
_W_BASE64 = 0.80
_W_BASE64_RUN = 3.0  # a run of base64 (its ends merge with nothing)
_W_BASE32 = 0.75  # per character of random base32: 0.64-0.68 tokens a character (max of both encodings)
_W_HEX = 0.69  # per character of random hex: short wrapped runs fell to 0.94x at 0.66 (1 in 3,000; CI found one)
_W_LATEX_COMMAND = 1.5  # a LaTeX command (_LATEX_BYTES), beyond its backslash and word
_W_ESCAPE_LETTER = _W_WORD  # a backslash and a letter elsewhere (\n, \t, \b, \s in JSON strings and regexes)
# where the letter is one more word (_SPLIT_ESCAPE): after a space, a mark or another backslash the
# backslash merges with what is before it (" \", ":\", "\\") and the letter stands alone; after a letter
# the escape is one token ("\n\n\n" is three), and letters after it are one more word (\nline is \n, line)
_W_ESCAPED_QUOTE = 0.5  # an escaped quote (\" in a JSON string): a token of its own, beyond its two marks, that
# merges with neither the word before it nor the one after it (a, \", b), where marks elsewhere mostly do
_W_LIST_COMMA = 0.55  # a separator after a list item of one word ("red, green", "JFK, SFO", "a; b"; _list_items),
# over _W_PUNCT: a token of its own, where marks elsewhere mostly merge with a neighbour (such lists were 0.74-0.86x)
_W_JSON_SPACE = 0.3  # a JSON key's ": " or the ", \"" before a string (json.dumps's spacing: each space is a token)
_W_LONE_MARK = 0.5  # an operator between spaces (" = ", " | ", " -> ", " + "): a token of its own, beyond its
# marks, where marks elsewhere mostly merge with a neighbour (Haskell, PowerShell and Makefiles were
# estimated at 0.84-0.89x without it)
_W_RANDOM = 0.9  # random printable ASCII (passwords): about one token per change of character kind
_W_PERCENT = 0.75  # a run of percent-encoded bytes (%D0%9C...: a URL's non-ASCII path or query), per character:
# 0.69 tokens a character, where the word model priced each "D0", "9C" as a number and a word (1.75-1.83x)
_PERCENT_RUN = re.compile(rb"%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2})+")  # opens with a literal: tried only at "%"
_W_UNICODE_ESCAPE = 1.15  # per token of a run of JSON's \uXXXX escapes (json.dumps's ensure_ascii: non-ASCII text as
# \u0417\u0430, \u6570\u636e), counted as the encodings split it (_unicode_escape_tokens): "\u", then the hex digits
# in groups of up to three digits and runs of letters (0417: "041", "7"; 5e93: "5", "e", "93"); priced as random
# printable characters, JSON of Chinese and Russian text so escaped was 1.57x
_UNICODE_ESCAPE_RUN = re.compile(rb"\\u[0-9A-Fa-f]{4}(?:\\u[0-9A-Fa-f]{4})*")  # opens with a literal: tried at "\"
_HEX_KIND_BYTES = bytes(
    ord("0") if 48 <= b <= 57 else ord("a") if chr(b) in "abcdefABCDEF" else ord(" ") for b in range(256)
)  # a translation table: digits to "0", the letters of hex to "a", the rest ("\", "u") to " "
# random letters alone (_random_letters), per letter: the encodings hold few pairs of them, and fewer in
# capitals or mixed case: about 1.8, 1.65 and 1.5 letters a token (lowercase, capitals, mixed case; a
# run of 8 to 40 letters after a space, the larger of the two encodings); priced at 1.05-1.1x of that
_W_RANDOM_LOWER = 0.6  # lowercase or title case (32-letter ids were 0.81x, priced as unknown words)
_W_RANDOM_UPPER = 0.7  # capitals (licence keys and codes were 0.74x)
_W_RANDOM_MIXED = 0.68  # mixed case (letter-only passwords were 0.41-0.53x, priced as camelCase names)
_RANDOM_LETTERS_MIN = 8  # letters: shorter runs of random letters and real words share too many pairs
_RANDOM_CAPITAL_PAIRS = 0.3  # the same share for a run in capitals
_RANDOM_CAPITALS_MIN = 4  # letters, for a run in capitals (priced by its length already, so a word taken
# for random letters costs at most a quarter more: ``OTEL`` 2.6 tokens where it is 2)
_W_UNKNOWN_CAPITALS = 0.35  # a word of four or more capitals that is not one token, over an unknown word's price
# (OTEL, WCAG, RBAC: two tokens, were 0.90x; random codes of four capitals 0.93x)
_W_SHORT_CAPITALS = 1.25  # a word of two or three capitals that is not one token (_word_tokens.SHORT_CAPITALS:
# airport codes, tickers, ids), over the word model: two tokens (the airline data's were 0.70x, random 0.50x)
_W_SHORT_WORD = 1.0  # a lowercase (or title case) word of two or three letters that is not one token
# (_word_tokens.SHORT_WORDS: Igbo's nke, ihe, eme; pieces of words between accented letters): two tokens, over the
# word model (Igbo was 0.82x when every short word was priced as one token)
_W_RARE_PAIR = 0.25  # each letter pair of a lowercase or title-case word not one token that is not among the 260 most
# frequent in one-token words (_word_tokens.COMMON_PAIRS: Uzbek's hq, qd, oq), over an unknown word's price (Uzbek
# was 0.93x)
_RANDOM_PAIRS = 0.4  # share of a run's letter pairs not in _word_tokens.COMMON_PAIRS from which it is random

# Non-ASCII characters are priced by block, read from their UTF-16 code units (a few C-speed passes:
# the string is encoded, the high bytes of the code units are translated into weights and summed).
# Weights are tokens per character, set so the estimate lands between 1.0x and 1.5x the larger of
# ``cl100k_base`` and ``o200k_base`` on every script of ``tests/compile/token_corpus.py``: scripts
# the vocabularies hold few merges for (Indic, Ethiopic, Mongolian, Braille, vowel-marked Hebrew,
# combining marks, supplementary ideographs) cost one or more tokens per character, since BPE falls
# back to single UTF-8 bytes (three or four a character).
_W_LATIN = 1.1  # Latin-1 (accented letters; the word model already splits there)
_W_LATIN_EXTENDED = 1.3  # Latin Extended-A and -B, Latin Extended Additional
_W_MARK = 2.6  # combining diacritics (U+0300-036F, U+20D0-20FF)
_W_GREEK = 1.25
_W_CYRILLIC = 0.75
_W_CYRILLIC_OTHER = 1.25  # over _W_CYRILLIC: the letters of U+0400-045F outside Russian's alphabet (Ukrainian і ї є,
# Belarusian ў, Serbian and Macedonian ђ ј љ њ ћ џ ѓ ќ ѕ): two byte tokens alone in cl100k_base (і one), and each
# keeps the letters beside it from merging (Ukrainian prose was 0.83x, Belarusian 0.96x at _W_CYRILLIC)
_CYRILLIC_OTHER = _runs_of("\u0400\u0402-\u040f\u0450\u0452-\u045f")
_W_CYRILLIC_EXTENDED = 3.75  # the letters Kazakh, Kyrgyz, Mongolian, Tatar add (U+0460-04FF: ә ғ қ ң ө ү һ)
_W_ARMENIAN = 2.4
_W_HEBREW = 1.4
_W_HEBREW_POINT = 2.4
_W_ARABIC = 1.0
_W_ARABIC_MARK = 1.4  # harakat (U+064B-065F): fully vocalised text was 0.998x at 1.3
_W_QURANIC = 2.0  # the marks and letters of vocalised scripture, two tokens each alone in cl100k_base: the
# superscript alef (U+0670), the alef wasla (U+0671), the Quranic annotation signs (U+06D6-06ED: ۝ ۞ ۩);
# fully vocalised text was 0.94x with them priced as other marks
_W_GREEK_EXTENDED = 3.0  # precomposed polytonic Greek (U+1F00-1FFF: ἀ ῇ ὁ), three byte tokens each in
# cl100k_base (polytonic text in NFC was 0.77-0.85x at _W_GREEK; in NFD its marks price as combining marks)
_W_DEVANAGARI = 1.5
_W_NUKTA = 0.75  # the Devanagari nukta (U+093C: ज़ फ़ written with it), over _W_DEVANAGARI: two tokens in cl100k_base
_W_NUKTA_LETTER = 1.5  # a letter with its nukta in one code point (U+0958-095F: क़ ज़ फ़), over _W_DEVANAGARI:
# three byte tokens in cl100k_base (words of them were 0.67x, of letters with a nukta mark 0.79x)
_W_NUKTA_LETTER_INDIC = 1.1  # the same in Bengali and Gurmukhi (U+09DC-09DF, U+0A33-0A5E), over _W_INDIC
_NUKTA_LETTERS = re.compile("[\u0958-\u095f\u09dc\u09dd\u09df\u0a33\u0a36\u0a59-\u0a5b\u0a5e]")
_W_INDIC = 1.9  # Bengali to Gujarati and Tamil (U+0980-0AFF, U+0B80-0BFF), the rarer scripts of U+0800-08FF
_W_ODIA = 3.4  # Oriya (U+0B00-0B7F): byte tokens, about three a letter
_W_DRAVIDIAN = 2.2  # Telugu and Kannada (U+0C00-0CFF); Malayalam and Sinhala (U+0D00-0DFF) 0.1 more
_W_TIBETAN = 2.2
_W_SYRIAC = 2.4  # Syriac, Thaana, N'Ko (U+0700-07FF)
_W_ARABIC_EXTENDED = 1.5  # the letters Urdu and Persian add (U+0671-06D5: ٹ ڈ ڑ ں ہ ی ے پ چ گ ک)
_W_THAI = 1.1
_W_LAO = 2.6  # Lao (U+0E80-0EFF): few merges, unlike Thai
_W_GEORGIAN = 2.4  # Georgian and Myanmar
_W_ETHIOPIC = 3.25  # Ge'ez (Amharic, Tigrinya) and Cherokee
_W_MONGOLIAN = 3.6
_W_PHILIPPINE = 2.4  # the Philippine scripts (U+1700-177F)
_W_KHMER = 2.1  # Khmer (U+1780-17FF)
_W_RARE = 3.3  # other scripts of U+1400-1CFF and U+A000-ABFF (syllabics, Runic, Balinese, Yi, ...)
_W_HANGUL = 1.0  # a Hangul syllable cl100k_base encodes alone as one token (_hangul_tokens)
_W_HANGUL_MORE = 1.1  # each further token of a rarer syllable (two or three): byte pieces, a space seldom merges
_W_JAMO = 3.6  # conjoining Hangul jamo (U+1100-11FF: decomposed Korean), byte tokens in both encodings
_W_PRIVATE = 3.5  # the private use area (U+E000-F8FF: icon fonts, Apple's logo), byte tokens as well
_W_CJK = 1.2  # kana, CJK punctuation, fullwidth punctuation and digits, compatibility ideographs
_W_HALFWIDTH_KANA = 2.5  # halfwidth katakana (U+FF61-FF9F; U+FFA0-FFBF halfwidth jamo alike)
_W_FULLWIDTH_LETTER = 2.2  # fullwidth Latin letters (U+FF20-FF5D but U+FF3E): two tokens alone
_W_IDEOGRAPH = 1.1  # per token cl100k_base gives a unified ideograph alone (one, two or three: _cjk_tokens)
_W_CJK_RARE = 3.0  # CJK Extension A (U+3400-4DBF): rare ideographs, byte fallback
_W_SYMBOL = 1.5  # arrows, dingbats, other symbols (U+2040-2BFF)
_W_LETTERLIKE = 2.0  # letterlike symbols and number forms (U+2100-218F: ℝ ℕ ℏ ⅓), two tokens alone
_W_SUPERSCRIPT = 2.0  # superscript and subscript digits (U+2070-208F: ⁿ ₀ ₁)
_W_DOUBLE_ARROW = 2.8  # harpoons and double arrows (U+21C0-21FF: ⇒ ⇔), three tokens alone
_W_MATH = 3.0  # mathematical operators (U+2200-227F: ∀ ∈ ∑ ≠), two tokens alone
_W_MATH_RARE = 3.2  # the rarer ones (U+2280-22FF: ⊆ ⊕ ⋅), three
_W_BOX = 0.55  # box drawing (U+2500-257F): ─ │ ═ ║ are one token, and runs of ─ and ═ merge (two to
# eight a token); the corners and the heavy and rounded ones (┌ ┻ ╯) are two tokens (_W_SYMBOL_MORE)
_W_BRAILLE = 3.3
_W_PUNCTUATION = 0.8  # general punctuation (U+2000-203F: dashes, quotes, ellipsis, bullets)
_W_JOINER = 2.0  # zero-width joiner, variation selectors
_W_BEFORE_WORD = 1.3  # the zero-width space U+200B and the left single quote U+2018 (Uzbek's o‘ and g‘): a token of
# their own, and the word after them has no space to open its token with (" quick" is one token, "quick" after
# U+200B may be two): English with U+200B for its spaces was 0.88x when they were priced as punctuation
_W_OKINA_WORD = 1.0  # over the ʻokina's own price (U+02BB, Hawaiian, Tongan, Samoan): the word after it opens without
# its space ("ʻOku" is four tokens in cl100k_base, " Oku" two): Tongan was 0.90x, Samoan 0.94x
_W_SPACE_APART = 1.0  # a space before a Latin letter it does not merge with (_symbol_tokens.SPACE_APART: " ụ", " ā"):
# a token of its own (Igbo's words that open with ụ, ọ, ị)
_W_INSIDE_WORD = (
    0.5  # a Latin Extended letter after an ASCII letter ("mātou", "tēnei", "nā"): the letter before it does
)
# not merge with it, and the letters after it open a piece with no space before them, as after the ʻokina (" mātou"
# is " m", "ā", "t", "ou"; "Tēnā" is "T", "ē", "n", "ā"); Māori was 0.987x, and its passages 0.95-0.98x when only a
# letter with ASCII letters on both sides counted
_W_BOX_ONE = 1.0  # │ ║ ╗ ╝ alone, where their block prices _W_BOX
_W_BOX_SPACE = 1.0  # a space before ─ ━ ═ ║ ╗ ╝: a token of its own (" │" and " ┌" are one and two, as "│" and "┌")
_W_MARK_RUN = 0.2  # each ASCII mark of a run of five or more beyond its third (regexes, "!#$%&'*+/=?^_`{|}~-"): few of
# them merge, where _W_PUNCT prices the marks of prose and code, which mostly merge with a neighbour (regexes were
# 0.91-0.95x)
# U+FE0F (emoji style: "❤️" is "❤", U+FE0F) and U+FEFF (the byte order mark) are one token each, in both
# encodings, where their blocks price two and three (emoji sequences were 1.67x): _text_estimate takes the
# difference off. U+FE0E (text style) and the other selectors are two tokens in cl100k_base.
_W_PRESENTATION = 3.0  # presentation forms (U+FB00-FDFF, U+FE30-FEFF: Arabic ligatures ﻻ ﷲ ﷺ, CJK small
# and vertical forms): three byte tokens each, with or without a space before (Arabic ligatures: 0.58x at 1.5)
_W_SYMBOL_MORE = 1.5  # each further token of a symbol, mark or format character that is two or three tokens
# alone (_symbol_tokens: ┻ ╯ ʖ ‿ ᴥ ⌐, the bidirectional marks U+200F, U+202A-202E, U+2066-2069), in blocks
# whose weight prices a one-token character; a bit over a token, since the marks and spaces beside such a
# symbol stay tokens of their own where they would merge with ASCII neighbours ("(", "╯", "°")
_W_EMOJI = 3.0  # emoji, regional indicators, skin tones (U+1F000-1FFFF)
_W_ASTRAL_IDEOGRAPH = 4.4  # CJK Extension B to H (U+20000-3FFFF): three or four byte tokens each
_W_ASTRAL = 4.4  # other supplementary characters (historic scripts, math letters, tags)
_W_OTHER = 1.5  # every other block (phonetic extensions, private use, presentation forms, ...)

_UNIT = 40  # weights are summed as bytes in 1/40 tokens (0.025)

# hi byte of a UTF-16 code unit (a block of 256 code points) -> weight. Blocks with more than one
# weight inside are refined by the low byte (``_FINE``) and weigh 0 here.
_BLOCKS: list[tuple[int, int, float]] = [
    (0x01, 0x02, _W_LATIN_EXTENDED),
    (0x07, 0x07, _W_SYRIAC),
    (0x08, 0x08, _W_INDIC),
    (0x0A, 0x0A, _W_INDIC),
    (0x0C, 0x0C, _W_DRAVIDIAN),
    (0x0D, 0x0D, _W_DRAVIDIAN + 0.1),
    (0x0F, 0x0F, _W_TIBETAN),
    (0x10, 0x10, _W_GEORGIAN),
    (0x11, 0x11, _W_JAMO),
    (0x12, 0x13, _W_ETHIOPIC),
    (0x14, 0x16, _W_RARE),
    (0x18, 0x18, _W_MONGOLIAN),
    (0x19, 0x1C, _W_RARE),
    (0x1D, 0x1D, _W_OTHER),
    (0x1E, 0x1E, _W_LATIN_EXTENDED),
    (0x1F, 0x1F, _W_GREEK_EXTENDED),
    (0x23, 0x24, _W_SYMBOL),
    (0x26, 0x27, _W_SYMBOL),
    (0x28, 0x28, _W_BRAILLE),
    (0x29, 0x2B, _W_SYMBOL),
    (0x2C, 0x2D, _W_RARE),  # Glagolitic, Coptic, Georgian supplement, Tifinagh: three byte tokens each
    (0x2E, 0x33, _W_CJK),
    (0x34, 0x4D, _W_CJK_RARE),
    (0x4E, 0x9F, _W_IDEOGRAPH),  # as one-token ideographs; two- and three-token ones are added below
    (0xA0, 0xAB, _W_RARE),
    (0xAC, 0xD7, _W_HANGUL),
    (0xD9, 0xDB, _W_ASTRAL),  # high surrogates of planes 5-16 (the low surrogates weigh 0)
    (0xE0, 0xF8, _W_PRIVATE),
    (0xF9, 0xFA, _W_CJK),
    (0xFB, 0xFD, _W_PRESENTATION),
]
# Refined blocks: hi byte -> [(first low byte, weight up to the next entry's first low byte)].
_FINE: dict[int, list[tuple[int, float]]] = {
    0x03: [(0x00, _W_MARK), (0x70, _W_GREEK)],
    0x04: [(0x00, _W_CYRILLIC), (0x60, _W_CYRILLIC_EXTENDED)],
    0x05: [(0x00, _W_CYRILLIC), (0x30, _W_ARMENIAN), (0x90, _W_HEBREW_POINT), (0xD0, _W_HEBREW)],
    0x06: [
        *((0x00, _W_ARABIC), (0x4B, _W_ARABIC_MARK), (0x60, _W_ARABIC)),
        *((0x70, _W_QURANIC), (0x72, _W_ARABIC_EXTENDED), (0xD6, _W_QURANIC), (0xEE, _W_ARABIC)),
    ],
    0x09: [(0x00, _W_DEVANAGARI), (0x80, _W_INDIC)],
    0x0B: [(0x00, _W_ODIA), (0x80, _W_INDIC)],
    0x0E: [(0x00, _W_THAI), (0x80, _W_LAO)],
    0x17: [(0x00, _W_PHILIPPINE), (0x80, _W_KHMER)],
    0x20: [
        *((0x00, _W_PUNCTUATION), (0x0D, _W_JOINER), (0x0E, _W_PUNCTUATION), (0x40, _W_SYMBOL)),
        *((0x70, _W_SUPERSCRIPT), (0x90, _W_SYMBOL), (0xD0, _W_MARK)),
    ],
    0x21: [(0x00, _W_LETTERLIKE), (0x90, _W_SYMBOL), (0xC0, _W_DOUBLE_ARROW)],
    0x22: [(0x00, _W_MATH), (0x80, _W_MATH_RARE)],
    0x25: [(0x00, _W_BOX), (0x80, _W_SYMBOL)],
    0xD8: [(0x00, _W_ASTRAL), (0x3C, _W_EMOJI), (0x40, _W_ASTRAL_IDEOGRAPH), (0xC0, _W_ASTRAL)],
    0xFE: [(0x00, _W_JOINER), (0x30, _W_PRESENTATION)],  # U+FE0F and U+FEFF: see _text_estimate
    0xFF: [(0x00, _W_CJK), (0x60, _W_HALFWIDTH_KANA), (0xC0, _W_CJK)],
}


def _units(weight: float) -> int:
    units = round(weight * _UNIT)
    assert abs(units - weight * _UNIT) < 1e-9 and 0 <= units <= 200, weight
    return units


def _block_tables() -> tuple[bytes, bytes, bytes, bytes]:
    """Translation tables: hi byte -> weight units; hi byte -> refined block number * 16; low byte ->
    the class of its range (the bounds of every refined block, 16 at most); block * 16 + class -> units."""
    hi = [0] * 256
    for lo, top, weight in _BLOCKS:
        for b in range(lo, top + 1):
            hi[b] = _units(weight)
    bounds = sorted({start for spans in _FINE.values() for start, _ in spans})
    assert len(bounds) <= 16 and len(_FINE) <= 15
    low = [sum(1 for s in bounds if s <= b) - 1 for b in range(256)]
    block = [0] * 256
    fine = [0] * 256
    for k, (b, spans) in enumerate(sorted(_FINE.items()), start=1):
        assert not hi[b]
        block[b] = k * 16
        for cls, start in enumerate(bounds):
            weight = [w for s, w in spans if s <= start][-1]
            fine[k * 16 + cls] = _units(weight)
    return bytes(hi), bytes(block), bytes(low), bytes(fine)


_HI_UNITS, _HI_FINE, _LO_CLASS, _FINE_UNITS = _block_tables()
_FINE_BLOCKS = bytes(sorted(_FINE))
_NOT_WEIGHED = b"\x00\xdc\xdd\xde\xdf"  # ASCII and Latin-1 (counted apart), low surrogates


def _byte_sum(data: bytes) -> int:
    """The sum of the bytes of ``data`` (each at most 200), at C speed: the low half of zlib's Adler-32
    is 1 plus that sum modulo 65521, exact for chunks of 320 bytes."""
    if len(data) < 640:
        return sum(data)
    view = memoryview(data)
    return sum((zlib.adler32(view[i : i + 320]) & 0xFFFF) - 1 for i in range(0, len(data), 320))


def _chars_of(runs: re.Pattern[str], text: str) -> str:
    """The characters of ``text`` in the class that ``runs`` (:func:`_runs_of`) matches runs of, in order.
    Matched run by run: one match a character made a string of each (Korean names: most syllables are rare
    ones)."""
    return "".join(runs.findall(text))


_DIGIT_SPARE = 4  # 0.1 of a token (in 1/40: _UNIT) over the tokens of such a digit alone
_W_DIGIT_RUN_EDGE = 0.25  # a number of such digits: the mark after it merges with neither (", " lists: 0.90x)
_THREE_TOKEN_DIGITS = frozenset({0x0B66, 0x0ED0})
"""The zeros of the decimal digits below U+1040 that are three tokens alone (Odia, Lao); the others below are
two, those from U+1040 on three (but Khmer's, two, and the fullwidth digits, one)."""


def _native_digits() -> tuple[re.Pattern[str], dict[str, float]]:
    """Runs of the decimal digits of other scripts than ASCII (Unicode category Nd, U+0080-FFFF: Arabic-Indic
    ٠-٩, Persian ۰-۹, Devanagari ०-९, Thai ๐-๙, fullwidth ０-９...) and what each costs beyond its block's
    weight. The encodings hold no digit group of them: each is two or three byte tokens alone (``cl100k_base``
    and ``o200k_base``, the larger; 2.3 and 3.3 a digit in lists of numbers, with their spaces), where its
    block priced it as a letter of its script (Arabic-Indic numbers 0.46x, in Arabic prose 0.77x, Thai
    0.51x, Devanagari 0.69x)."""
    import unicodedata

    digits = [c for c in map(chr, range(0x80, 0x10000)) if unicodedata.category(c) == "Nd"]
    extra: dict[str, float] = {}
    for c in digits:
        zero = ord(c) - int(unicodedata.digit(c))
        alone = 1 if zero == 0xFF10 else 3 if zero in _THREE_TOKEN_DIGITS or (zero >= 0x1040 and zero != 0x17E0) else 2
        hi, lo = ord(c) >> 8, ord(c) & 0xFF
        units = _FINE_UNITS[_HI_FINE[hi] + _LO_CLASS[lo]] if _HI_FINE[hi] else _HI_UNITS[hi]
        extra[c] = max(0, alone * _UNIT + _DIGIT_SPARE - units) / _UNIT
    return _runs_of(re.escape("".join(extra))), extra


_NATIVE_DIGIT_RUNS, _NATIVE_DIGIT_EXTRA = _native_digits()
_SPACE_BEFORE_NATIVE_DIGIT = re.compile(" (?=[" + re.escape("".join(_NATIVE_DIGIT_EXTRA)) + "])")
"""A space before such a digit: a token of its own (it merges with no digit's bytes)."""
_NOT_NATIVE_DIGIT_HI = bytes(sorted(set(range(256)) - {ord(c) >> 8 for c in _NATIVE_DIGIT_EXTRA}))
"""The high bytes (UTF-16) of no such digit: deleted, what is left says a block holding one is there."""


def _non_ascii_estimate(text: str, ascii_chars: int, whole: str) -> float:
    """Tokens of the non-ASCII characters of ``text`` (which holds ``ascii_chars`` ASCII characters, priced
    apart), by block (see the weights above); ``whole`` is the text they are of (``text`` itself, or the text
    they were taken out of), where the spaces before Latin letters are counted."""
    u16 = text.encode("utf-16-le", "surrogatepass")
    hi = u16[1::2]
    units = _byte_sum(hi.translate(_HI_UNITS, _NOT_WEIGHED))
    if any(b in hi for b in _FINE_BLOCKS):
        # block * 16 + class of the low byte, added as big integers (no byte carries: at most 15 + 240)
        n = len(hi)
        code = int.from_bytes(hi.translate(_HI_FINE), "little") + int.from_bytes(
            u16[::2].translate(_LO_CLASS), "little"
        )
        units += _byte_sum(code.to_bytes(n, "little").translate(_FINE_UNITS))
    latin = hi.count(0) - ascii_chars
    ideographs = 0.0
    if hi.translate(None, _NOT_IDEOGRAPH_HI):  # priced as one token each above; the rarer ones cost more
        more = _chars_of(_MORE_TOKENS, text)
        ideographs = _W_IDEOGRAPH * (len(more) + len(_chars_of(_THREE_TOKENS, more)) if more else 0)
    if hi.translate(None, _NOT_HANGUL_HI):  # Hangul syllables: one token each above; the rarer cost more
        more = _chars_of(_HANGUL_MORE, text)
        ideographs += _W_HANGUL_MORE * (len(more) + len(_chars_of(_HANGUL_THREE, more)) if more else 0)
    if hi.translate(None, _NOT_SYMBOL_HI):  # symbols and letters: one token each above; the rarer cost more
        more = _chars_of(_SYMBOL_MORE, text)
        ideographs += _W_SYMBOL_MORE * (len(more) + len(_chars_of(_SYMBOL_THREE, more)) if more else 0)
        if 0x01 in hi or 0x02 in hi or 0x1E in hi:  # Latin Extended: a space before some letters stays apart
            ideographs += _W_SPACE_APART * len(_SPACE_APART.findall(whole))
            ideographs += _W_INSIDE_WORD * len(_INSIDE_WORD.findall(whole))
    if 0x09 in hi or 0x0A in hi:  # Devanagari, Bengali, Gurmukhi: letters with a nukta cost more
        nukta = text.count("\u093c")
        letters = _NUKTA_LETTERS.findall(text)
        if nukta or letters:
            deva = sum(c < "\u0980" for c in letters)
            ideographs += _W_NUKTA * nukta + _W_NUKTA_LETTER * deva + _W_NUKTA_LETTER_INDIC * (len(letters) - deva)
    if 0x25 in hi:  # box drawing: priced by its runs and its one-token characters (_box_drawing)
        ideographs += _box_drawing(whole)
    if 0x04 in hi:  # Cyrillic: the letters of other alphabets than Russian's cost more
        ideographs += _W_CYRILLIC_OTHER * len(_chars_of(_CYRILLIC_OTHER, text))
    if 0xFF in hi:  # fullwidth letters, priced as fullwidth punctuation above
        ideographs += (_W_FULLWIDTH_LETTER - _W_CJK) * len(_chars_of(_FULLWIDTH_LETTER, text))
    if hi.translate(None, _NOT_NATIVE_DIGIT_HI):  # the decimal digits of other scripts (_native_digits)
        runs = _NATIVE_DIGIT_RUNS.findall(text)
        if runs:
            ideographs += sum(map(_NATIVE_DIGIT_EXTRA.__getitem__, "".join(runs))) + _W_DIGIT_RUN_EDGE * len(runs)
            ideographs += len(_SPACE_BEFORE_NATIVE_DIGIT.findall(whole))
    return units / _UNIT + _W_LATIN * latin + ideographs


def _box_drawing(text: str) -> float:
    """What box drawing (U+2500-257F) costs beyond its block's flat :data:`_W_BOX` a character: a run of ─
    is ``n // 8`` tokens plus 0-3 by ``n % 8`` (:data:`_LINE_RUN_TOKENS`; 8 and 16 are one and two tokens,
    7 three), a run of ━ or ═ one token per two characters, │ ║ ╗ ╝ one token each, and a space before
    ─ ━ ═ ║ ╗ ╝ one more, as is a line break before box drawing (the counts of ``cl100k_base`` and
    ``o200k_base``, the larger; the corner and junction characters are two tokens, priced through
    ``_symbol_tokens``). Flat, a table of double lines and empty cells was 0.65x and a grid 0.87x, while
    rules of ─ were 2.96x. The block elements after it (U+2580-259F: █ ░ ▒ ▓) are priced by their runs too."""
    extra = (_W_BOX_ONE - _W_BOX) * len(_BOX_ONE.findall(text)) + _W_BOX_SPACE * len(_BOX_SPACED.findall(text))
    extra += (1.0 - _W_NEWLINE) * len(_BOX_LINE_START.findall(text))
    for run in _BOX_LINE.findall(text):
        n = len(run)
        extra += n // 8 + _LINE_RUN_TOKENS[n % 8] - _W_BOX * n
    for run in _BOX_DOUBLE_LINE.findall(text):
        n = len(run)
        extra += (n + 1) // 2 - _W_BOX * n
    if "\u2588" in text or "\u2591" in text or _TWO_TOKEN_BLOCKS.search(text):
        # Block elements (U+2580-259F), priced as symbols (1.5) by their block: a run of █ is (n + 3) // 4
        # tokens, one more when n % 4 is 3 (1, 1, 2, 1, 2 for 1-5; 9 for 33), ░ one token, the others two
        # (progress bars of █ and ░ were 1.85-1.92x, of █ and ▒ 1.55x).
        for run in _FULL_BLOCKS.findall(text):
            n = len(run)
            extra += (n + 3) // 4 + (n % 4 == 3) + _W_BLOCK_EDGE - _W_SYMBOL * n
        extra += (1 + _W_BLOCK_SPARE - _W_SYMBOL) * len(_LIGHT_SHADES.findall(text))
        # (the others are two tokens, as _symbol_tokens prices them a symbol and a token more: 3.0, 1.55x)
        extra += (2 + _W_BLOCK_SPARE - _W_SYMBOL - _W_SYMBOL_MORE) * len(_TWO_TOKEN_BLOCKS.findall(text))
    return extra


_WORD_BYTES = bytes(
    b if chr(b).isascii() and chr(b).isalpha() else ord("0") if chr(b) in "0123456789_" else ord(" ")
    for b in range(256)
)  # a translation table: ASCII letters kept, digits and "_" to "0", the rest to " " (runs: ASCII words)
_REPLACEMENT_RUN = re.compile("\ufffd+")
_KNOWN_WORDS = _word_tokens.WORDS
_CAPITALS = _word_tokens.CAPITALS
_COMMON_PAIRS = _word_tokens.COMMON_PAIRS
_SHORT_CAPITALS = _word_tokens.SHORT_CAPITALS
_SHORT_WORDS = _word_tokens.SHORT_WORDS
_KNOWN_RUNS = frozenset(w.encode("ascii") for w in (*_KNOWN_WORDS, *_CAPITALS, *_SHORT_CAPITALS, *_SHORT_WORDS))
"""The tables' words as ASCII bytes: the runs of a text are split from its UTF-8 bytes (``bytes.split`` is
faster than ``str.split``, and nothing is decoded)."""
_NOT_UNKNOWN = set(_KNOWN_RUNS)
"""The runs of ASCII word characters seen that are not unknown words (``_is_unknown_word``), as bytes: the
known words, then each other run once it is judged (short words, numbers, identifiers), so that runs seen
before are skipped at C speed. Emptied back to the known words when it outgrows ``_NOT_UNKNOWN_MAX``."""
_NOT_UNKNOWN_MAX = len(_KNOWN_RUNS) + 50_000
_UNKNOWN_PRICE: dict[bytes, float] = {}
"""The runs judged to cost more than the word model gives, with what they add (``_unknown_price``);
emptied when it outgrows ``_UNKNOWN_PRICE_MAX``."""
_UNKNOWN_PRICE_MAX = 50_000
_SAMPLE_FROM = 16_384  # characters: a longer text is judged by 4 windows of 2,048 characters


def _is_unknown_word(run: str) -> bool:
    """Whether a run of ASCII word characters (``_WORD_BYTES``) is a word the word model underprices: four
    or more letters, lowercase after the first or all capitals (not a name with digits, underscores or
    inner capitals: code identifiers, which the word model prices), and not one token (``_word_tokens``).
    An accented letter ends a run (``gönderebilir``: ``nderebilir``), as it ends a token. A word in
    capitals is one token when the encodings hold it in capitals (``VERSION``, ``SELECT``, ``ERROR``:
    ``_word_tokens.CAPITALS``), not because its lowercase is one (``BROWN``, ``BUDGET``: two and three
    tokens; prose in capitals was estimated at 0.63x); Makefiles and shell scripts (``CFLAGS`` is ``C``,
    ``FLAGS``) were estimated at 0.84x when capitals were never unknown."""
    if len(run) < 4 or not run.isalpha():
        return False
    if run.isupper():
        return run not in _CAPITALS
    return (run.islower() or run.istitle()) and run.lower() not in _KNOWN_WORDS


def _random_letters(run: str, over: float) -> float:
    """What a run of ASCII letters costs beyond the word model's price and ``over`` (what is added to it
    already) when it is random (a key, an id, a password of letters alone), else 0. It is random when
    it has eight letters or more (four in capitals) and at least two in five of its letter pairs
    (lowercased) are not among the 260 most frequent in the words that are one token
    (``_word_tokens.COMMON_PAIRS``): random letters miss them three times in five, and the runs of
    eight letters or more of the shared data that are no one-token word (names, identifiers, German
    and Polish words; 126,000 of them) did so 201 times, mostly ids and Polish words, which cost about
    as much. Of random runs of 8 to 40 letters, 94% are found (lowercase, capitals or mixed case)."""
    n = len(run)
    upper = run.isupper()
    if n < (_RANDOM_CAPITALS_MIN if upper else _RANDOM_LETTERS_MIN) or not run.isalpha():
        return 0.0
    low = run.lower()
    common = sum(map(_COMMON_PAIRS.__contains__, map(str.__add__, low, low[1:])))
    if (n - 1 - common) < (_RANDOM_CAPITAL_PAIRS if upper else _RANDOM_PAIRS) * (n - 1):
        return 0.0
    priced = _W_WORD + _W_LETTER * n + over
    if upper:
        rate = _W_RANDOM_UPPER
    elif run[1:].islower():
        rate = _W_RANDOM_LOWER
    else:
        rate = _W_RANDOM_MIXED
        priced += _W_HUMP * run.encode("ascii").translate(_CASE_BYTES).count(b"aA")  # as _text_estimate does
    return max(0.0, rate * n - priced)


def _unknown_price(run: str) -> float:
    """What the word model leaves out of one run of ASCII word characters not in ``_NOT_UNKNOWN``
    (0 when it prices the run right): an unknown word (``_is_unknown_word``; more for each of its letter pairs
    not in ``_word_tokens.COMMON_PAIRS`` unless it is in capitals), random letters (``_random_letters``), or a
    word of two or three capitals, lowercase letters or title case that is not one token (``_SHORT_CAPITALS``,
    ``_SHORT_WORDS``)."""
    n = len(run)
    if n < 4:
        if n < 2 or not run.isalpha():
            return 0.0
        if run.isupper():
            return _W_SHORT_CAPITALS
        return _W_SHORT_WORD if (run.islower() or run.istitle()) and run.lower() not in _SHORT_WORDS else 0.0
    price = 0.0
    if _is_unknown_word(run):
        price = _W_UNKNOWN_LETTER * n + _W_UNKNOWN_WORD
        if run.isupper():
            price += _W_UNKNOWN_CAPITALS + (_W_CAPITAL_RUN * n if n >= _CAPITAL_RUN else 0.0)
        else:  # its letter pairs that few one-token words hold split it further (kechqurun: ke, ch, q, ur, un)
            low = run.lower()
            common = sum(map(_COMMON_PAIRS.__contains__, map(str.__add__, low, low[1:])))
            price += _W_RARE_PAIR * (n - 1 - common)
    return price + _random_letters(run, price)


def _forget_judged_runs() -> None:
    """Empty the tables of judged runs (``_NOT_UNKNOWN`` back to the known words, ``_UNKNOWN_PRICE``, the
    runs priced 0 as encoded or random data, the chunks counted: ``_CHUNK_COUNTS``, ``_CHUNK_PRICES``)."""
    _NOT_UNKNOWN.clear()
    _NOT_UNKNOWN.update(_KNOWN_RUNS)
    _UNKNOWN_PRICE.clear()
    _BLOB_FREE.clear()
    _RANDOM_FREE.clear()
    _CHUNK_COUNTS.clear()
    _CHUNK_PRICES.clear()


def _unknown_runs(runs: list[bytes]) -> list[bytes]:
    """The ``runs`` (of ASCII word characters: split from a text's ``_WORD_BYTES`` translation) that are not
    known to cost what the word model gives (``_NOT_UNKNOWN``): the unknown words, random letters and runs
    never judged, in order. Most often there is none, which ``_NOT_UNKNOWN.issuperset(runs)`` tells first (a C
    loop, where the filter here calls a lookup per run)."""
    return [*filterfalse(_NOT_UNKNOWN.__contains__, runs)]


def _unknown_words(unknown: list[bytes]) -> float:
    """What the word model leaves out of the words of a text that are not one token: each such word of
    four or more letters costs about a token per two and a half letters (German, Dutch, Finnish, Italian,
    Indonesian, Turkish words; names and rare English ones), where the word model gives 0.675 and a
    tenth per letter. Fitted on sentences of fourteen languages against ``max(cl100k_base, o200k_base)``;
    measured in ``tests/compile/test_token_estimate_scripts.py``. English text is looked at too: its
    names and rare words are not one token either (LoCoMo's chat: 1.000x of the reference without this,
    1.016x with it). Random letters cost more again, and so do words of two or three capitals that are
    not one token (``_unknown_price``).

    ``unknown`` is the text's :func:`_unknown_runs` (the words are the runs of ASCII letters of its
    ``_WORD_BYTES`` translation; runs known not to be unknown words are left out at C speed); the price of
    each other run is looked up once judged (``_UNKNOWN_PRICE``). Runs are judged only in texts with no run
    of eight of one letter (``_CHAR_RUN`` cuts those out first), so that no run either table holds has one
    (nor do the known-word tables they start from: tested): ``_text_estimate`` relies on it."""
    extra = 0.0
    for run in unknown:
        price = _UNKNOWN_PRICE.get(run)
        if price is None:
            price = _unknown_price(run.decode("ascii"))
            if price:
                _UNKNOWN_PRICE[run] = price
            else:
                _NOT_UNKNOWN.add(run)
        extra += price
    if len(_NOT_UNKNOWN) > _NOT_UNKNOWN_MAX:
        _NOT_UNKNOWN.clear()
        _NOT_UNKNOWN.update(_KNOWN_RUNS)
    if len(_UNKNOWN_PRICE) > _UNKNOWN_PRICE_MAX:
        _UNKNOWN_PRICE.clear()
    return extra


def _sampled_unknown_words(text: str) -> float:
    """:func:`_unknown_words` of a text longer than 16,384 characters: 4 evenly spaced windows of 2,048 are
    looked at and the result scaled to the whole (the cost stays bounded: one pass over at most 8,192
    characters)."""
    n = len(text)
    step = n // 4
    sample = "\n".join(text[i * step : i * step + 2048] for i in range(4))
    runs = sample.encode("utf-8", "surrogatepass").translate(_WORD_BYTES).split()
    return n / len(sample) * _unknown_words(_unknown_runs(runs))


def _blob_tokens(run: str) -> float:
    """Tokens of a run of base64/hex characters when it is encoded data, else 0. It is data when it is
    hex (letters and digits), or when its letters and digits change kind (upper, lower, digit) at
    least every 2.5 characters on average, as in random data (every 1.6) and unlike identifiers and
    paths (``/Users/ann/MyApp2024``: every 3; ``WindowedPassthroughStrategy``: every 9). A short
    random id can fall on the word side; from about 60 characters on, random data does not."""
    n = len(run)
    if _HEX.fullmatch(run) and not run.isalpha() and not run.isdigit():
        return _W_HEX * n
    # Capitals and digits 2-7, a digit at least: random base32 (was 0.74x on average, 0.33x for a run with
    # one digit). A name in capitals with a digit in it (HTTP2SERVERPUSHENABLED) is priced so too: over.
    body = run.rstrip("=")
    if _BASE32.fullmatch(run) and not body.isalpha() and not body.isdigit():
        return _W_BASE32 * n
    # At most 2k + 1 runs of one kind where k characters are no lowercase letter: an identifier
    # (``getDerivedStateFromProps``) is ruled out without splitting it (a third of the estimate's time on
    # listed camelCase names).
    if (2 * len(run.encode("ascii").translate(None, _LOWERCASE)) + 1) * 5 < 2 * n:
        return 0.0
    if n >= 32 and run.isalpha():  # letters alone: random base64 of 32 characters has no digit once in 200
        return 0.0  # (ThisIsAVeryLongPascalCaseIdentifier... changes case often enough, and was 3.3x)
    runs = len(_CASE_RUNS.findall(run))
    if runs * 5 >= 2 * n:
        return _W_BASE64 * n + _W_BASE64_RUN
    # Second chance for a long run that changes kind at least every 3.25 characters: random letters are
    # vowels 10 times in 52, words and identifiers about a third of the time. Random base64 of 64
    # characters missed the first test once in 6,000 (and was read as words: 0.56x); with this, once in
    # 60,000.
    if n >= 40 and runs * 13 >= 4 * n:
        letters = run.encode("ascii").translate(None, _NOT_LETTERS)
        if 4 * len(letters.translate(None, _NOT_VOWELS)) < len(letters):
            return _W_BASE64 * n + _W_BASE64_RUN
    return 0.0


def _sep_run_tokens(run: str) -> float:
    """Tokens of a run of eight or more of one separator character (see ``_SEP_RUN``)."""
    whole, rest = divmod(len(run), _SEP_PER_TOKEN[run[0]])
    return float(max(1, whole + bin(rest).count("1")))


def _percent_tokens(run: str) -> float:
    """Tokens of a run of two or more percent-encoded bytes (see ``_PERCENT_RUN``)."""
    return _W_PERCENT * len(run)


def _unicode_escape_tokens(run: str) -> float:
    """Tokens of a run of ``\\uXXXX`` escapes (see ``_UNICODE_ESCAPE_RUN``): a token for each ``\\u``, and one for
    each run of letters or digits of its four hex digits, two for four digits."""
    kinds = run.encode("ascii").translate(_HEX_KIND_BYTES)  # "  0a00  00a0": each escape's digits after two spaces
    escapes = len(run) // 6
    pieces = escapes + kinds.count(b"0a") + kinds.count(b"a0") + kinds.count(b"0000")
    return _W_UNICODE_ESCAPE * (escapes + pieces)


def _char_run_tokens(run: str) -> float:
    """Tokens of a run of eight or more of one ASCII letter or mark (see ``_CHAR_RUN``), 0 for the
    characters priced otherwise (separators, digits, "^")."""
    per_token = _RUN_PER_TOKEN.get(run[0])
    return len(run) / per_token + 1.0 if per_token else 0.0


def _has_char_run(raw: bytes) -> bool:
    """Whether ``raw`` may hold a run of eight of one character of ``_RUN_PER_TOKEN`` (never a false
    negative: the other bytes are deleted first, so runs can only be joined)."""
    kept = raw.translate(None, _NOT_RUN_BYTES)
    n = len(kept)
    if n < 8:
        return False
    value = int.from_bytes(kept, "little")
    return (value ^ (value >> 8)).to_bytes(n, "little").find(bytes(7)) >= 0  # a zero byte: two equal bytes


_SPLIT_ESCAPE = re.compile(rb"b(?=a)(?:(?<!ab)|(?=aa))")
"""In a :data:`_LATEX_BYTES` translation, a backslash escape whose letter is a token of its own (see
:data:`_W_ESCAPE_LETTER`): ``ba`` not after a letter, or ``baa`` after one. The regex opens with a literal
byte, so it is tried only at backslashes: one pass, where counting each pattern with ``bytes.count`` took
seven (a regex that opened with its look-behind, tried at every byte, made the whole estimate 25% slower
on the Claude Code sessions' tool inputs)."""


def _random_tokens(run: str) -> float:
    """Tokens of a run of 12 or more printable ASCII characters when it is random (a password, a key),
    else 0: its characters change kind (upper, lower, digit, punctuation) more often than every 2
    characters on average, as in random text (every 1.4), unlike words, paths and most code. A
    backslash escape (``\\n``, ``\\"``, ``\\d``) is one token, so it counts as one character: a JSON
    string of escaped quotes and line breaks (``\\"\\"\\n\\n\\n``) changes kind at every character
    but is no password (it was priced at 2.8x)."""
    if "\\" in run:
        run = _ESCAPE_PAIR.sub("\\\\", run)
        if len(run) < 12:
            return 0.0
    n = len(run)
    kinds = run.encode("ascii").translate(_KIND_BYTES)
    # the changes of kind: the bytes that differ from the next one (a XOR of the string with itself
    # shifted by one, as big integers; a zero byte is no change)
    shifted = int.from_bytes(kinds[1:], "big") ^ int.from_bytes(kinds[:-1], "big")
    changes = n - 1 - shifted.to_bytes(n - 1, "big").count(0)
    if (changes + 1) * 2 > n:
        return (_W_RANDOM_MIXED if run.isalpha() else _W_RANDOM) * n
    return 0.0


_REMEMBERED_RUN = 128  # characters: the price of a longer run is worked out each time (such runs are few)
_REMEMBERED_MAX = 16_384  # runs remembered by one pricing function before its table is emptied


def _remembering(price: Callable[[str], float]) -> Callable[[str], float]:
    """``price`` (of a run, a pure function: ``_blob_tokens``, ``_random_tokens``) with the prices of runs of up
    to 128 characters remembered. The same identifiers, paths, host names and hashes recur from text to text
    (and in what is left of a text priced again after a cut), and pricing one takes several regex and byte
    passes in Python: on the tool results of the shared data, 3,900 runs looked at as base64 were 520
    distinct."""
    prices: dict[str, float] = {}

    def remembered(run: str) -> float:
        if len(run) > _REMEMBERED_RUN:
            return price(run)
        hit = prices.get(run)
        if hit is None:
            hit = price(run)
            if len(prices) >= _REMEMBERED_MAX:
                prices.clear()
            prices[run] = hit
        return hit

    return remembered


_blob_price = _remembering(_blob_tokens)
_random_price = _remembering(_random_tokens)
_BLOB_FREE: set[bytes] = set()
"""Runs (as bytes, 128 characters at most) looked at as base64 and priced 0 (identifiers, paths, long words),
for :func:`_priced_runs`; emptied when it holds ``_REMEMBERED_MAX``."""
_RANDOM_FREE: set[bytes] = set()
"""Runs (as bytes) looked at as random printable ASCII and priced 0, for :func:`_priced_runs`."""


def _priced_runs(
    text: str,
    raw: bytes,
    runs: list[bytes],
    found: tuple[re.Pattern[bytes], bytes, int],
    price: Callable[[str], float],
    free: set[bytes],
) -> tuple[float, str]:
    """:func:`_swap_runs` of the runs ``found`` (a pattern, the translation of ``raw`` it matches in and where to
    start), when ``runs`` are those runs, in order, as bytes of ``raw``. Most often each was priced 0 before
    (``free``: an identifier looked at as base64, a path as random characters; runs of up to 128 characters
    are remembered), and one C-level ``issuperset`` tells it without matching them: a regex scan and a match
    object per run took as long as the rest of a short line's estimate (a 29-character line naming a class,
    ``Now the ReviewContextBuilder:``, took 9 us, where such a line without it takes 4)."""
    if free.issuperset(runs):
        return 0.0, text
    pattern, marks, first = found
    cost, rest = _swap_runs(text, raw, pattern.finditer(marks, first), price)
    if not cost:
        if len(free) >= _REMEMBERED_MAX:
            free.clear()
        # A run with "0" may stand for other digits (word runs map every digit to "0"), and a run's price
        # depends on its digits (base32 takes 2-7): remembered, it made another run free whatever it held,
        # so an estimate depended on what was priced before (18.03 tokens fresh, 7.30 after a run with the
        # same letters and other digits).
        free.update(run for run in runs if len(run) <= _REMEMBERED_RUN and b"0" not in run)
    return cost, rest


def _may_hold_letter_run(gate: bytes, unknown: list[bytes], prices: list[float | None], sampled: bool) -> bool:
    """Whether a text may hold eight of one letter in a row (never a false negative): a run of word characters
    of eight or more among its ``unknown`` runs (:func:`_unknown_runs`) that was never judged (its price in
    ``prices``, from ``_UNKNOWN_PRICE``, is None), or when ``sampled`` (its words are looked at in windows,
    ``unknown`` is empty) eight letters in a row in ``gate`` (its ``_GATE_BYTES`` translation)."""
    if sampled:
        return gate.lower().find(b"a" * 8) >= 0
    if None not in prices:  # most often: all were judged before
        return False
    return max(len(run) for run, price in zip(unknown, prices, strict=True) if price is None) >= 8


def _swap_runs(
    text: str, raw: bytes, runs: Iterator[re.Match[bytes]], price: Callable[[str], float]
) -> tuple[float, str]:
    """The tokens of the ``runs`` that ``price`` prices, and ``text`` with each of them cut out (a space
    left). The runs are ASCII, matched in ``raw`` (the UTF-8 bytes of ``text``) or in a translation of it.
    Most often none is priced (identifiers and paths looked at as base64, code looked at as random
    characters): the runs are cut from ``raw`` and priced with C-level maps, and the text is rebuilt only
    when one is priced."""
    found = [*runs]
    starts = [*map(re.Match.start, found)]
    ends = [*map(re.Match.end, found)]
    prices = [*map(price, map(bytes.decode, map(raw.__getitem__, map(slice, starts, ends))))]
    if not any(prices):
        return 0.0, text
    cost = 0.0
    parts: list[bytes] = []
    at = 0
    for start, end, tokens in zip(starts, ends, prices, strict=True):
        if tokens:
            cost += tokens
            parts += (raw[at:start], b" ")
            at = end
    parts.append(raw[at:])
    return cost, b"".join(parts).decode("utf-8", "surrogatepass")


def _overlapping(marks: bytes, pattern: bytes, chain: bytes) -> int:
    """The occurrences of ``pattern`` (a character between two spaces, ``" a "``) in ``marks``, counting those
    that share a space (``chain``: ``" a a "``). ``bytes.count`` counts matches that do not overlap, which is
    all of them unless two share a space; then the spaces are doubled first (a ``replace`` is the costliest
    pass of a short text, and most texts hold no such pair)."""
    found = marks.count(pattern)
    if not found or marks.find(chain) < 0:
        return found
    return marks.replace(b" ", b"  ").count(pattern)


_LONE_MARK = re.compile(rb" pp?(?= )")
"""In a text's ``_GATE_BYTES`` translation, an operator between spaces (``" = "``, ``" -> "``): one mark or two
after a space, a space after them (looked ahead at, not taken: marks in a row, ``"! @ #"``, share the space
between them). At most one match starts at a space, so the matches are the occurrences of ``" p "`` and of
``" pp "``, overlapping ones too (:func:`_overlapping` counted them so with four ``bytes`` passes; the regex
opens with the literal ``" p"``, so it is tried only where one is)."""
_ONE_LETTER_WORD = re.compile(rb" a(?= )")
"""A one-letter word in a text's ``_ONE_LETTER_BYTES`` translation padded with a space at each end: a letter
between two characters that are not word characters, the space after it looked ahead at (``"I a"``: both)."""
_COMMA_SPACE = re.compile(rb", ")  # counted with findall: faster than bytes.count on prose, which holds many
_NO_PRICES: list[float | None] = []  # (never changed)
_PADDING = (b" ", b" ")  # b" ".join-ed around a translation: one copy, where b" " + t + b" " made two


_LIST_COMMA_ITEM = re.compile(rb", (?=[A-Za-z0-9]+, )")
"""A ``", "`` before an item of letters or digits alone and another ``", "`` (the next separator: the item
holds none); the one after it is looked ahead at, not taken."""
_LIST_SEMICOLON_ITEM = re.compile(rb"; (?=[A-Za-z]+; )")
_AFTER_WORD = re.compile(rb"n(?<=[aA]n)")
"""In a text's ``_GATE_BYTES`` translation, a line feed after an ASCII letter (the regex opens with the line
feed, so it is tried only at line feeds; lowering the translation and counting ``"an"`` took three times as
long)."""
_JSON_COMMA = re.compile(rb', "')  # counted with findall: it opens with a literal, found faster than bytes.count
_JSON_COLON = re.compile(rb'": ')


def _list_items(raw: bytes) -> int:
    """The items of one word between two separators of a list: ``", "`` (letters or digits: ``red, green``,
    ``JFK, SFO``, ``1, 2``) or ``"; "`` (letters: ``red; green``). Not a bare ``","``: in a CSV row a
    short cell merges with the comma before it (``,b``, ``ob``), and CSV was priced at 1.49x already.
    Counted with one regex pass each, at the separators (each regex opens with one: a regex that opened with
    a look-behind took a fifth of the estimate's time on English prose; splitting the text at every separator
    took twice as long as this)."""
    items = len(_LIST_COMMA_ITEM.findall(raw)) if b", " in raw else 0
    if b"; " in raw:
        items += len(_LIST_SEMICOLON_ITEM.findall(raw))
    return items


_CHUNK_BYTES = bytes(
    b if chr(b).isascii() and (chr(b).isalpha() or chr(b) in "_'") else ord("0") if 48 <= b <= 57 else ord(" ")
    for b in range(256)
)
"""A translation table: ASCII letters, "_" and "'" kept, digits to "0", the rest to " ". Its runs (chunks:
``don't``, ``user_id``, ``v0``) are the runs of word characters a one-letter word is told by
(``_ONE_LETTER_BYTES``; the non-ASCII characters, word characters there, are not in chunks: see
``_NEAR_BYTES``), and each holds whole runs of letters (words), whole runs of ``_WORD_BYTES`` (split at "'")
and every lowercase letter followed by a capital: what the word model counts is the sum of what each chunk
holds (:func:`_chunk_counts`)."""
_CHUNK_WORD_BYTES = bytes(ord(" ") if b == 39 else ord("0") if b == 95 else b for b in range(256))
"""A chunk's runs of ``_WORD_BYTES`` (the runs judged by :func:`_unknown_price`): "'" to " ", "_" to "0"."""
_NEAR_BYTES = bytes(
    ord("a")
    if chr(b).isascii() and chr(b).isalpha()
    else ord("w")
    if chr(b) in "0123456789_'"
    else ord("x")
    if b >= 128
    else ord(" ")
    for b in range(256)
)
"""ASCII letters to "a", the chunks' other characters to "w", the bytes of non-ASCII characters to "x", the rest to
" ": a chunk of one letter beside a non-ASCII character is ``" ax"``, ``"xa "`` or ``"xax"`` (padded with a space
at each end), and no one-letter word (``_ONE_LETTER_BYTES`` holds non-ASCII characters for word characters)."""
_NEAR_AFTER = re.compile(rb"xa(?=[ x])")  # a letter alone after a non-ASCII character (opens with a literal)
_LETTER_RUN = re.compile(rb"([A-Za-z])\1{7}")  # eight of one letter in a row: cut out before words are priced
# A chunk's counts, packed in one int (a text's sum stays under 2**63, the fast path of ``sum``, for texts of
# up to 16,384 characters): letters (15 bits), words (runs of letters), chunks of one letter, and lowercase
# letters followed by a capital (14 bits each).
_LETTERS_MASK = (1 << 15) - 1
_FIELD_MASK = (1 << 14) - 1
_WORDS_SHIFT = 15
_SINGLE_SHIFT = 29
_HUMPS_SHIFT = 43
_CHUNK_COUNTS: dict[bytes, int] = {}
"""The packed counts of the chunks seen (:func:`_chunk_count`); emptied when it holds ``_CHUNKS_MAX``."""
_CHUNK_PRICES: dict[bytes, tuple[float, ...]] = {}
"""The chunks of ``_CHUNK_COUNTS`` that hold a word the word model underprices, with what each such word adds
(``_unknown_price``), in order."""
_CHUNKS_MAX = 100_000
_NO_RUNS: list[bytes] = []  # (never changed)


def _judged_price(run: bytes) -> float:
    """What the word model leaves out of one run of ``_WORD_BYTES`` (as :func:`_unknown_words` prices it: 0 for
    the runs of ``_NOT_UNKNOWN``)."""
    if run in _NOT_UNKNOWN:
        return 0.0
    price = _UNKNOWN_PRICE.get(run)
    return _unknown_price(run.decode("ascii")) if price is None else price


def _chunk_count(chunk: bytes) -> int | None:
    """The packed counts of one chunk (see ``_CHUNK_BYTES``), its prices noted in ``_CHUNK_PRICES``; None for a
    chunk with eight of one letter in a row (cut out as a run before words are priced: see _unknown_words)."""
    n = len(chunk)
    if n >= 8 and _LETTER_RUN.search(chunk):
        return None
    if chunk.isalpha():  # most often: one word, one run of _WORD_BYTES
        price = _judged_price(chunk)
        if price:
            _CHUNK_PRICES[chunk] = (price,)
        humps = chunk.translate(_CASE_BYTES).count(b"aA") if n > 1 else 0
        return n | 1 << _WORDS_SHIFT | (n == 1) << _SINGLE_SHIFT | humps << _HUMPS_SHIFT
    letter_runs = chunk.translate(_LETTER_BYTES).split()
    letters = sum(map(len, letter_runs))
    humps = chunk.translate(_CASE_BYTES).count(b"aA")
    single = n == 1 and letters == 1
    prices = tuple(filter(None, map(_judged_price, chunk.translate(_CHUNK_WORD_BYTES).split())))
    if prices:
        _CHUNK_PRICES[chunk] = prices
    return letters | len(letter_runs) << _WORDS_SHIFT | single << _SINGLE_SHIFT | humps << _HUMPS_SHIFT


def _count_new_chunks(chunks: list[bytes]) -> int | None:
    """:func:`_chunk_counts`'s sum when some of ``chunks`` were never seen: each new one is counted once."""
    if len(_CHUNK_COUNTS) >= _CHUNKS_MAX:
        _CHUNK_COUNTS.clear()
        _CHUNK_PRICES.clear()
    for chunk in {*filterfalse(_CHUNK_COUNTS.__contains__, chunks)}:
        count = _chunk_count(chunk)
        if count is None:
            return None
        _CHUNK_COUNTS[chunk] = count
    return sum(map(_CHUNK_COUNTS.__getitem__, chunks))


def _chunk_counts(raw: bytes) -> tuple[int, float | None] | None:
    """What the word model needs of a text of up to 16,384 characters (its UTF-8 bytes ``raw``), read off
    its chunks (``_CHUNK_BYTES``): the sum of their packed counts (letters, words, one-letter words, lowercase
    letters followed by a capital), and the sum of the prices of its words not one token in order (as
    :func:`_unknown_words` adds them; None when there is none). None when a chunk holds eight of one letter
    in a row or a run of 16 letters and digits (the text is priced the long way).

    The chunks are split at C speed and their counts looked up and added in one C-level pass (``sum`` over a
    ``map``), where counting each feature took a pass of its own (the words, the letters, the one-letter
    words, the capitals after a lowercase letter) and the words' check another; a chunk is counted in Python
    once, the first time it is seen (the same few thousand recur: ``the``, ``user's``, ``id``)."""
    chunks = raw.translate(_CHUNK_BYTES).split()
    try:
        packed = sum(map(_CHUNK_COUNTS.__getitem__, chunks))
    except KeyError:
        counted = _count_new_chunks(chunks)
        if counted is None:
            return None
        packed = counted
    if _CHUNK_PRICES.keys().isdisjoint(chunks):  # most often
        return packed, None
    return packed, reduce(add, chain.from_iterable(filter(None, map(_CHUNK_PRICES.get, chunks))), 0.0)


def _text_estimate(text: str) -> float:
    n = len(text)
    if not n:
        return 0.0
    is_ascii = text.isascii()
    raw = text.encode() if is_ascii else text.encode("utf-8", "surrogatepass")  # (the same bytes; faster so)
    # One pass for the pre-checks of rare features (see _GATE_BYTES), each then looked for at C speed
    # (memchr for a single byte): most texts skip the run, digit and control-character passes below.
    gate = raw.translate(_GATE_BYTES)
    mark_run = n >= 8 and (gate.find(b"p" * 8) >= 0 or ("_" in text and gate.find(b"u" * 8) >= 0))
    if mark_run:
        first = raw.translate(_SEP_BYTES).find(b"=" * 8)  # where a separator run can start
        if first >= 0:
            cut, rest = _swap_runs(text, raw, _SEP_RUN.finditer(raw, first), _sep_run_tokens)
            if cut:
                return cut + _text_estimate(rest)
    if "%" in text and n >= 6 and raw.count(b"%") >= 2:  # percent-encoded bytes (a pre-check at C speed)
        cut, rest = _swap_runs(text, raw, _PERCENT_RUN.finditer(raw), _percent_tokens)
        if cut:
            return cut + _text_estimate(rest)
    if "\\u" in text:  # JSON's \uXXXX escapes (a pre-check at C speed)
        cut, rest = _swap_runs(text, raw, _UNICODE_ESCAPE_RUN.finditer(raw), _unicode_escape_tokens)
        if cut:
            return cut + _text_estimate(rest)
    sampled = n > _SAMPLE_FROM  # the unknown words of a long text are looked for in windows of it
    # Most often (no base64 run, no run of eight of one mark, every chunk of word characters seen before) the
    # words are read off the chunks' remembered counts in one C-level pass: see _chunk_counts.
    marks = raw.translate(_BLOB_BYTES) if n >= 16 else b""  # runs of base64 characters (see _BLOB)
    first = marks.find(b"a" * 16)  # where the first run can start (nothing before it matches)
    counted = None if sampled or mark_run or first >= 0 else _chunk_counts(raw)
    if counted is not None:
        # no run of eight of one letter (no chunk counted holds one) and no base64 run: nothing to cut out
        word_runs = unknown = _NO_RUNS
        prices = _NO_PRICES
    else:
        word_runs = [] if sampled else raw.translate(_WORD_BYTES).split()
        unknown = [] if _NOT_UNKNOWN.issuperset(word_runs) else _unknown_runs(word_runs)
        # the prices of the unknown runs judged before, None for a run never judged (most often there is none)
        prices = [*map(_UNKNOWN_PRICE.get, unknown)] if unknown else _NO_PRICES
    # Eight of one letter in a row lie in a run of word characters that neither table of judged runs holds
    # (see _unknown_words): most often there is none of eight or more. The words of a long text are looked
    # at in windows: there, eight letters in a row will do.
    if (
        (mark_run or ((sampled or unknown) and _may_hold_letter_run(gate, unknown, prices, sampled)))
        and n >= 8
        and _has_char_run(raw)
    ):
        cut, rest = _swap_runs(text, raw, _CHAR_RUN.finditer(raw), _char_run_tokens)
        if cut:
            return cut + _text_estimate(rest)
    if first >= 0:  # a run of 16 base64 characters or more (found above)
        if not sampled and len(word_runs) <= 64 and not ("+" in text or "/" in text or "=" in text or "_" in text):
            # the runs of base64 characters are the runs of word characters: the long ones are those found
            long = [r for r in word_runs if len(r) >= 16]
            blobs, rest = _priced_runs(text, raw, long, (_BLOB, marks, first), _blob_price, _BLOB_FREE)
        else:
            blobs, rest = _swap_runs(text, raw, _BLOB.finditer(marks, first), _blob_price)
        if blobs:
            return blobs + _text_estimate(rest)  # the rest has no blob left: priced by the word model
    digit_chars = digit_groups = digit_runs = 0
    if _DIGIT in gate:
        numbers = raw.translate(_DIGIT_BYTES).split()  # the runs of digits, as runs of "0"
        digit_runs = len(numbers)
        digits = b"".join(numbers)
        digit_chars = len(digits)
        # groups of up to three digits: ceil(length / 3) = the "000" in a run lengthened by two (one group a
        # number when none is longer than three digits, as most are)
        digit_groups = (
            digit_runs
            if max(map(len, numbers)) <= 3
            else (b" " + b" ".join(numbers)).replace(b" 0", b" 000").count(b"000")
        )
    # The words are the runs of ASCII letters. The runs of word characters split above are those runs when
    # the text holds no digit and no "_" (most often): their number and length count the words and letters.
    if counted is not None:  # the chunks' counts, added (see _chunk_counts)
        packed = counted[0]
        letters = packed & _LETTERS_MASK
        words = packed >> _WORDS_SHIFT & _FIELD_MASK
        humps = packed >> _HUMPS_SHIFT  # a lowercase letter followed by a capital
    else:
        underscores = raw.count(b"_") if "_" in text else 0
        if sampled or digit_runs or underscores:
            marks = raw.translate(_LETTER_BYTES)
            letters = marks.count(b"a")
            words = marks.count(b" a") + (marks[0] == 97)
        else:
            letters = len(b"".join(word_runs))
            words = len(word_runs)
        humps = gate.count(b"aA") if letters >= 2 and 65 in gate else 0  # a lowercase letter followed by a capital
    # Random printable ASCII: letters in short runs, or case changing inside words. In a short string
    # (under 256 characters) one lowercase letter before a capital will do; a longer one needs one in
    # every 48 characters with a digit in every 24: random keys and passwords do, prose does not, and
    # camelCase code has few digits (a list of passwords one a line was priced at 0.83x once it was too
    # long for the short-string rule).
    if (
        n >= 12
        and (is_ascii or 8 * (len(raw) - n) <= n)  # mostly ASCII
        and 3 * letters >= n
        and (3 * words >= letters or (humps if n < 256 else humps * 48 >= n and digit_chars * 24 >= n))
    ):
        dense = raw.translate(_DENSE_BYTES)
        if dense.find(b"a" * 12) >= 0:  # a pre-check at C speed: most prose has no run of 12
            if n < 512 and is_ascii and _CONTROL not in gate:
                # ASCII with no control character but line feeds: the runs are the text's whitespace split
                long = [r for r in raw.split() if len(r) >= 12]
                randoms, rest = _priced_runs(text, raw, long, (_DENSE, dense, 0), _random_price, _RANDOM_FREE)
            else:
                randoms, rest = _swap_runs(text, raw, _DENSE.finditer(dense), _random_price)
            if randoms:
                return randoms + _text_estimate(rest)
    est = 0.0
    blanks = text.count(" ")
    newlines = crs = tabs = controls = 0
    if "\n" in text or _CONTROL in gate:  # line breaks, tabs, other control characters (a line has none)
        newlines = text.count("\n")
        if _CONTROL in gate:  # control characters but line feed (mostly none)
            odd = raw.translate(None, _NOT_CONTROL_BYTES)
            crs = odd.count(b"\r")
            tabs = odd.count(b"\t")
            controls = len(odd) - crs - tabs
        if crs or (newlines > 1 and "\n\n" in text):
            if crs:  # runs of line feeds and carriage returns
                breaks = raw.translate(_NEWLINE_BYTES)
                runs = breaks.count(b" n") + (breaks[:1] == b"n")
            else:
                runs = len(_NEWLINE_RUN.findall(raw))
            est += _W_NEWLINE * runs + _W_NEWLINE_MORE * (newlines + crs - runs) + _W_CR * crs
        elif newlines:  # no two line breaks in a row
            est += _W_NEWLINE * newlines
        if newlines:
            est += _W_NEWLINE_AFTER_WORD * len(_AFTER_WORD.findall(gate))
            if newlines > text.endswith("\n"):  # a mark and a space opening a line (after a line feed, not the last)
                est += _W_LINE_MARK * len(_LINE_MARK.findall(raw))
    spaces = blanks + newlines + tabs + crs
    if blanks > 1 and "  " in text:
        long_runs = raw.count(b" " * 120) if blanks >= 120 else 0
        est += _W_SPACE_RUN * len(_SPACE_RUN.findall(raw)) + _W_SPACE_LONG * long_runs
    if tabs:
        est += _W_TAB * tabs + (_W_TAB_RUN * len(_TAB_RUN.findall(text)) if "\t\t" in text else 0.0)
        if " \t" in text or "\t " in text:
            est += _W_TAB_SPACE * (text.count(" \t") + text.count("\t "))
    if controls:
        est += _W_CONTROL * controls + _W_ANSI * text.count("\x1b[")
    if '"' in text:
        est += _W_JSON_SPACE * (len(_JSON_COMMA.findall(raw)) + len(_JSON_COLON.findall(raw)))
    listed = (len(_COMMA_SPACE.findall(raw)) if "," in text else 0) + (raw.count(b"; ") if ";" in text else 0)
    if listed >= 3:  # a list of single words: each separator a token of its own
        est += _W_LIST_COMMA * _list_items(raw)
    # an operator between spaces (most often none); marks in a row ("! @ #") share the space between them
    if blanks:
        lone = len(_LONE_MARK.findall(gate))
        if lone:
            est += _W_LONE_MARK * lone
    if words:  # one-letter words (x = a[i] + b, "I a", a letter per line): a token each, over the word model
        if counted is not None:  # the chunks of one letter, but those beside a non-ASCII character
            single = counted[0] >> _SINGLE_SHIFT & _FIELD_MASK
            if not is_ascii:
                near = raw.translate(_NEAR_BYTES).join(_PADDING)
                single -= len(_NEAR_AFTER.findall(near)) + near.count(b" ax")
        else:
            ones = raw.translate(_ONE_LETTER_BYTES).join(_PADDING)
            # one regex pass (a list of the matches) in most texts; two or three C passes in a long one, which
            # may hold thousands of them
            single = _overlapping(ones, b" a ", b" a a ") if sampled else len(_ONE_LETTER_WORD.findall(ones))
        if single:
            est += _W_ONE_LETTER * single
    if "\\" in text:
        commands = raw.translate(_LATEX_BYTES)
        latex = commands.count(b"pbaa") + (commands[:3] == b"baa")
        split = len(_SPLIT_ESCAPE.findall(commands))
        est += _W_LATEX_COMMAND * latex + _W_ESCAPE_LETTER * (split - latex)
        est += _W_ESCAPED_QUOTE * raw.count(b'\\"')
    non_ascii = 0
    if not is_ascii:
        others = raw.translate(None, _ASCII_BYTES)  # the UTF-8 bytes of the non-ASCII characters
        non_ascii = len(others.translate(None, _CONTINUATION_BYTES))  # a lead byte a character
        if 2 * non_ascii < n:  # mostly ASCII: the non-ASCII characters alone
            est += _non_ascii_estimate(others.decode("utf-8", "surrogatepass"), 0, text)
        else:
            est += _non_ascii_estimate(text, n - non_ascii, text)
        # (bytes.find, not "in": a bytes needle "in" bytes is first tried as an integer, an error raised and
        # cleared each time)
        if others.find(b"\xef\xb8\x8f") >= 0 or others.find(b"\xef\xbb\xbf") >= 0:  # U+FE0F, U+FEFF: one token each
            est -= (_W_JOINER - 1.0) * others.count(b"\xef\xb8\x8f") + (_W_PRESENTATION - 1.0) * others.count(
                b"\xef\xbb\xbf"
            )
        if others.find(b"\xe2\x80\x8b") >= 0 or others.find(b"\xe2\x80\x98") >= 0:  # U+200B, U+2018: _W_BEFORE_WORD
            est += (_W_BEFORE_WORD - _W_PUNCTUATION) * (others.count(b"\xe2\x80\x8b") + others.count(b"\xe2\x80\x98"))
        if others.find(b"\xca\xbb") >= 0:  # U+02BB, the ʻokina: the word after it has no space to open its token with
            est += _W_OKINA_WORD * others.count(b"\xca\xbb")
        if others.find(b"\xef\xbf\xbd\xef\xbf\xbd") >= 0:  # U+FFFD, priced as fullwidth forms above: a run merges
            replaced = text.count("\ufffd")
            est += (_W_REPLACEMENT_MORE - _W_CJK) * (replaced - len(_REPLACEMENT_RUN.findall(text)))
    punct = n - letters - digit_chars - spaces - non_ascii
    if punct < 0:
        punct = 0
    elif punct >= 5 and gate.find(b"ppppp") >= 0:  # (a pre-check at C speed: prose and most code hold no such run)
        est += _W_MARK_RUN * sum(len(run) - 3 for run in _MARK_RUN.findall(gate))
    if letters >= 2:
        if sampled:
            est += _sampled_unknown_words(text)
        elif counted is not None:
            if counted[1] is not None:  # the prices of the words not one token, added in order
                est += counted[1]
        elif unknown:  # most often every run is known to cost what the word model gives
            # each judged before: their prices added in order at C speed (as _unknown_words adds them)
            est += _unknown_words(unknown) if None in prices else reduce(add, cast("list[float]", prices), 0.0)
        if humps:  # a capital inside a word opens a token of its own (getUserName: get, User, Name)
            est += _W_HUMP * humps
    if digit_runs:
        return est + (
            _W_WORD * words
            + _W_LETTER * letters
            + _W_DIGIT_RUN * digit_runs
            + _W_DIGIT_GROUP * digit_groups
            + _W_PUNCT * punct
        )
    return est + (_W_WORD * words + _W_LETTER * letters + _W_PUNCT * punct)  # (the same float: x + 0.0 is x)


class _CountCache:
    """Token counts of recent texts, bounded by the characters held: emptied when the texts held would pass
    ``max_chars`` characters in all (or 65,536 entries). A text over an eighth of ``max_chars`` is not held:
    its length and hash are the key (a collision of both is the only way to a wrong count), so a 5 MB tool
    result priced again by the compile's excerpting costs a lookup. A cache bounded by entries alone
    (8,192) held a gigabyte once it had seen a thousand 1 MB tool results. A race between threads can
    only empty it early."""

    __slots__ = ("_chars", "_counts", "max_chars")

    def __init__(self, max_chars: int = 4_000_000) -> None:
        self._counts: dict[str | tuple[int, int], int] = {}
        self._chars = 0
        self.max_chars = max_chars

    def _key(self, text: str) -> str | tuple[int, int]:
        return text if 8 * len(text) <= self.max_chars else (len(text), hash(text))

    def get(self, text: str) -> int | None:
        return self._counts.get(self._key(text))

    def put(self, text: str, count: int) -> None:
        key = self._key(text)
        held = len(text) if key is text else 0
        if self._chars + held > self.max_chars or len(self._counts) >= 65_536:
            self.clear()
        self._counts[key] = count
        self._chars += held

    def clear(self) -> None:
        self._counts = {}
        self._chars = 0


_ESTIMATES = _CountCache()
"""The default estimate's counts of texts of 64 characters or more (``estimate_text_tokens``)."""


def _cached_estimate(text: str) -> int:
    hit = _ESTIMATES.get(text)
    if hit is None:
        hit = max(1, math.ceil(_text_estimate(text)))
        _ESTIMATES.put(text, hit)
    return hit


def _not_text(value: object) -> TypeError:
    """The error for a counter given something other than text to count."""
    hint = " (decode bytes first)" if isinstance(value, bytes | bytearray) else ""
    return TypeError(f"text to count must be a str, not {type(value).__name__}{hint}")


def estimate_text_tokens(text: str) -> int:
    """Estimated tokens of ``text`` (rounded up; 0 for the empty string, at least 1 otherwise).

    Results for recent strings of 64 characters or more are cached (the string is the key; at most 4
    million characters held, see ``_CountCache``), so pricing the same block twice costs a hash lookup.

    Raises:
        TypeError: ``text`` is not a ``str`` (bytes, None, a number or a list).
    """
    if not isinstance(text, str):
        raise _not_text(text)
    if len(text) < 64:
        est = _text_estimate(text)
        return max(1, math.ceil(est)) if text else 0
    return _cached_estimate(text)


MAX_TOKEN_COUNT = 100_000_000
"""The largest token count a caller may give (``max_tokens``, a budget, a cap): 100 million, fifty times
the largest context window offered today (2 million tokens), so no loop of the library can be sent
counting toward 10**30 (``compile(max_tokens=10**30)`` used to run forever)."""


def check_token_count(name: str, value: Any, minimum: int) -> int:
    """Check a caller-given token count (``max_tokens``, ``reserve_for_response``, a budget).

    A ``bool`` is an ``int`` to Python but never a count (``compile(max_tokens=True)`` would be a budget
    of one token), and a float or a numeric string is refused rather than rounded.

    Returns:
        ``value``, unchanged.

    Raises:
        TypeError: ``value`` is a ``bool`` or not an ``int``.
        ValueError: ``value`` is below ``minimum`` or above :data:`MAX_TOKEN_COUNT`.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int (a number of tokens), not {type(value).__name__} {value!r}")
    if value < minimum:
        wanted = "positive" if minimum == 1 else f">= {minimum}"
        raise ValueError(f"{name} must be {wanted}, got {value}")
    if value > MAX_TOKEN_COUNT:
        raise ValueError(f"{name} must be at most {MAX_TOKEN_COUNT:,} tokens, got {value:,}")
    return value


_SCRIPT_CLASSES = (
    ("cyrillic", re.compile("[\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f]")),
    ("indic", re.compile("[\u0900-\u0dff\u0f00-\u0fff\u1cd0-\u1cff\ua8e0-\ua8ff]")),  # Devanagari to Sinhala, Tibetan
    ("arabic_hebrew", re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")),  # with Syriac, Thaana, N'Ko
    ("thai_lao_khmer", re.compile("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\ua9e0-\ua9ff\uaa60-\uaa7f]")),
)
"""Script classes of text that is mostly not ASCII (one ``"other"`` class for
every script once let a Hindi report price Russian at Hindi's rate). Myanmar goes with Thai, Lao and Khmer."""
_SCRIPT_NAMES = (*(name for name, _ in _SCRIPT_CLASSES), "other")


def text_class(text: str) -> str:
    """The content class the estimate treats ``text`` as, for reports: ``"prose"`` (Latin prose),
    ``"code"`` (punctuation-dense ASCII: code, JSON, logs), ``"cjk"`` (with Hangul), ``"emoji"``, or
    for text at least a quarter non-ASCII the script class of most of its non-ASCII characters:
    ``"cyrillic"``, ``"indic"`` (Devanagari and the other Brahmic scripts of India, Tibetan),
    ``"arabic_hebrew"`` (with Syriac and Thaana), ``"thai_lao_khmer"`` (with Myanmar) or ``"other"``
    (Greek, Armenian, Georgian, Ethiopic, Latin with many diacritics, ...)."""
    if not text:
        return "prose"
    if not text.isascii():
        n = len(text)
        if len(_ASTRAL.findall(text)) * 20 >= n:
            return "emoji"
        if len(_CJK.findall(text)) * 4 >= n:
            return "cjk"
        non_ascii = n - len(text.encode("ascii", "ignore"))
        if non_ascii * 4 >= n:
            counts = {name: len(pattern.findall(text)) for name, pattern in _SCRIPT_CLASSES}
            counts["other"] = non_ascii - sum(counts.values())
            return max(counts, key=counts.__getitem__)  # a tie goes to the first
    letters = sum(map(len, _WORD.findall(text)))
    spaces = text.count(" ") + text.count("\n")
    return "prose" if (letters + spaces) >= 0.85 * len(text) else "code"


def _is_pdf(source: Mapping[str, Any]) -> bool:
    return str(source.get("media_type", "")).lower() == "application/pdf"


@lru_cache(maxsize=32)
def _pdf_of(data: str) -> Any:
    """:class:`~context_journal._documents.PdfStats` of base64 PDF data (None when it does not decode)."""
    import base64
    import binascii

    from ._documents import pdf_stats

    try:
        return pdf_stats(base64.b64decode(data))
    except (binascii.Error, ValueError):
        return None


def document_hints(media_type: str, raw: bytes) -> dict[str, int]:
    """What the counter needs to price media once its bytes are stored as a blob: for a PDF,
    ``{"pages": ..., "text_tokens": ...}`` (text by the default estimate, hex-string glyphs at four a
    token); for a ``text/*`` document, ``{"text_tokens": ...}`` (its UTF-8 text); for an image whose
    header can be read, ``{"width": ..., "height": ...}`` in pixels (see :mod:`context_journal._images`);
    ``{}`` for other media. Stored beside the blob reference and dropped
    when the bytes are sent (:func:`~context_journal.content.resolve_media`).
    """
    if media_type.lower().startswith("image/"):
        size = image_size(raw)
        return {} if size is None else {"width": size[0], "height": size[1]}
    if media_type.lower().startswith("text/"):
        return {"text_tokens": estimate_text_tokens(raw.decode("utf-8-sig", "replace"))}
    if media_type.lower() != "application/pdf":
        return {}
    from ._documents import pdf_stats

    stats = pdf_stats(raw)
    return {"pages": stats.pages, "text_tokens": estimate_text_tokens(stats.text) + -(-stats.glyphs // 4)}


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=False)


_PROVIDER_CALLS = SERVER_CALL_TYPES
_PROVIDER_PRICED = SERVER_RESULT_TYPES | {"search_result", "container_upload", "compaction", "reasoning"}
_OPAQUE_KEYS = frozenset({"encrypted_content", "encrypted_stdout", "encrypted_index", "signature", "data"})
"""Keys whose string is opaque to a tokenizer (encrypted or base64): priced at about 4 characters a token."""
_NOT_PRICED = frozenset({"type", "cache_control", "tool_use_id", "audience", "citations"})


class EstimatingCounter:
    """The default counter: no dependency, priced by content class (see the module docstring).

    Args:
        image_tokens: The most an image block is priced at, in tokens, and the price of one whose pixel
            size cannot be read (a URL, a file id, damaged bytes, a blob stored without its size); others
            are priced by their size (:mod:`context_journal._images`).
        document_tokens: Flat price of a document whose content is not at hand (a URL, or a stored
            document without pricing hints), in tokens. Text documents are priced by their text and
            PDFs by their pages (see ``pdf_page_tokens``).
        pdf_page_tokens: Price of the image of one PDF page, added per page to the page text's tokens
            (Anthropic prices a PDF page as its extracted text plus the page as an image; see
            :mod:`context_journal._documents`).
        message_overhead: Tokens added per message (role and separators).
        block_overhead: Tokens added per block.
        tool_use_overhead: Tokens added per ``tool_use`` block (its id and the call's framing).
        tool_result_overhead: Tokens added per ``tool_result`` block (its id and framing).

    Raises:
        TypeError: a price is a ``bool``, a float or not a number.
        ValueError: a price is negative or above :data:`MAX_TOKEN_COUNT`.
    """

    def __init__(
        self,
        *,
        image_tokens: int = 1600,
        document_tokens: int = 3000,
        message_overhead: int = 4,
        block_overhead: int = 1,
        tool_use_overhead: int = 8,
        tool_result_overhead: int = 6,
        pdf_page_tokens: int = 1600,
    ) -> None:
        self.image_tokens = check_token_count("image_tokens", image_tokens, 0)
        self.document_tokens = check_token_count("document_tokens", document_tokens, 0)
        self.message_overhead = check_token_count("message_overhead", message_overhead, 0)
        self.block_overhead = check_token_count("block_overhead", block_overhead, 0)
        self.tool_use_overhead = check_token_count("tool_use_overhead", tool_use_overhead, 0)
        self.tool_result_overhead = check_token_count("tool_result_overhead", tool_result_overhead, 0)
        self.pdf_page_tokens = check_token_count("pdf_page_tokens", pdf_page_tokens, 0)

    def text_tokens(self, text: str) -> int:
        """Tokens of a plain string (the estimate; :class:`TiktokenCounter` counts exactly).

        Raises:
            TypeError: ``text`` is not a ``str``.
        """
        return estimate_text_tokens(text)

    def count_block(self, block: Mapping[str, Any]) -> int:
        """Tokens of one block dict (including ``block_overhead``)."""
        kind = block.get("type")
        tt = self.text_tokens
        if kind == "text":
            n = tt(str(block.get("text", "")))
        elif kind == "thinking":
            # The signature is sent back with the block: priced as base64 text (~4 bytes per token).
            n = tt(str(block.get("thinking", ""))) + len(str(block.get("signature") or "")) // 4
        elif kind == "redacted_thinking":
            n = len(str(block.get("data", ""))) // 4
        elif kind == "tool_use":
            n = tt(str(block.get("name", ""))) + tt(_json(block.get("input", {}))) + self.tool_use_overhead
        elif kind == "tool_result":
            content = block.get("content", "")
            if isinstance(content, str):
                n = tt(content)
            else:
                n = sum(self.count_block(b) for b in content if isinstance(b, Mapping))
            n += self.tool_result_overhead
        elif kind == "image":
            n = self._image_tokens(block.get("source"))
        elif kind == "document":
            n = self._document_block_tokens(block)
        elif kind in _PROVIDER_CALLS:
            n = tt(str(block.get("name", ""))) + tt(str(block.get("server_name", ""))) + self.tool_use_overhead
            n += tt(_json(block.get("input", {})))
        elif kind in _PROVIDER_PRICED:
            n = self._walk_tokens({k: v for k, v in block.items() if k not in _NOT_PRICED})
            if kind.endswith("_tool_result"):
                n += self.tool_result_overhead
        else:
            n = tt(_json(dict(block)))
        if kind == "text" and isinstance(block.get("citations"), list):
            # Sent back with the text; ``cited_text`` is not counted as input (Anthropic citations guide),
            # the location fields are.
            n += sum(
                self._walk_tokens({k: v for k, v in c.items() if k != "cited_text"})
                for c in block["citations"]
                if isinstance(c, Mapping)
            )
        return n + self.block_overhead

    def _walk_tokens(self, value: Any, key: str = "") -> int:
        """Tokens of a provider block's content, priced by what it holds: strings as text,
        opaque strings (encrypted content, signatures, base64) at four characters a token, nested
        documents as documents, other scalars one token each. Iterative over nesting."""
        n = 0
        stack: list[tuple[str, Any]] = [(key, value)]
        while stack:
            k, v = stack.pop()
            if isinstance(v, str):
                n += len(v) // 4 if k in _OPAQUE_KEYS else self.text_tokens(v)
            elif isinstance(v, Mapping):
                if v.get("type") == "document":
                    n += self._document_block_tokens(v) + self.block_overhead
                    continue
                if v.get("type") == "image":
                    n += self._image_tokens(v.get("source")) + self.block_overhead
                    continue
                stack.extend((kk, vv) for kk, vv in v.items() if kk not in _NOT_PRICED)
            elif isinstance(v, list):
                stack.extend((k, x) for x in v)
                n += self.block_overhead if v and isinstance(v[0], Mapping) else 0
            elif v is not None:
                n += 1
        return n

    def _image_tokens(self, source: Any) -> int:
        # Priced by its pixel size when the header can be read (base64 data) or was read at write time (a
        # stored blob's ``width``/``height``: see document_hints); else the flat price (a URL, unreadable bytes).
        if isinstance(source, Mapping):
            kind = source.get("type")
            width, height = source.get("width"), source.get("height")
            if kind == "blob" and type(width) is int and type(height) is int and width > 0 and height > 0:
                return image_tokens(width, height, self.image_tokens)
            if kind == "base64" and isinstance(source.get("data"), str):
                size = image_size_b64(source["data"])
                if size is not None:
                    return image_tokens(*size, self.image_tokens)
        return self.image_tokens

    def _document_block_tokens(self, block: Mapping[str, Any]) -> int:
        # The source, and the ``title`` and ``context`` sent with it (billed as input: a review sent a
        # 3,000-word context priced at nothing, 3,075 tokens in a 2,000-token compile).
        n = self._document_tokens(block.get("source") or {})
        for key in ("title", "context"):
            if isinstance(block.get(key), str):
                n += self.text_tokens(block[key])
        return n

    def _document_tokens(self, source: Any) -> int:
        if not isinstance(source, Mapping):
            return self.document_tokens
        kind = source.get("type")
        if kind == "text":
            return self.text_tokens(str(source.get("data", "")))
        if kind == "blob" and isinstance(source.get("pages"), int):
            # Stored PDFs carry what pricing needs (see document_hints): the bytes are not at hand here.
            return int(source["pages"]) * self.pdf_page_tokens + int(source.get("text_tokens") or 0)
        media = str(source.get("media_type") or "").lower()
        if kind == "blob" and isinstance(source.get("text_tokens"), int) and media.startswith("text/"):
            return int(source["text_tokens"])  # a stored text document: its text (see document_hints)
        if kind == "base64" and media.startswith("text/"):
            # Priced by its text, as it is sent (a text source): a 1.4-million-character text/plain file was
            # priced at the flat 3,000 tokens and sent whole at a 100,000-token budget.
            from ._documents import text_document

            text = text_document(str(source.get("data", "")))
            if text is not None:
                return self.text_tokens(text)
        if kind == "base64" and _is_pdf(source):
            stats = _pdf_of(str(source.get("data", "")))
            if stats is not None:
                pages, glyphs = int(stats.pages), int(stats.glyphs)
                return pages * self.pdf_page_tokens + self.text_tokens(stats.text) + -(-glyphs // 4)
        return self.document_tokens

    def count_message(self, participant: str, blocks: Iterable[Mapping[str, Any]]) -> int:
        """Tokens of one message: ``message_overhead`` plus its blocks."""
        return self.message_overhead + sum(self.count_block(b) for b in blocks)


_DEFAULT_COUNTER = EstimatingCounter()


ESTIMATE_VERSION = 8
"""The version of the default estimate's counts (:class:`EstimatingCounter`, and the non-text prices
:class:`TiktokenCounter` shares with it). A message's count is stored with its record under a key that
names this version (:func:`counter_key`), and a store opened by an estimate of another version prices
its messages again instead of trusting the stored counts. Raised whenever a count changes;
``tests/compile/test_estimate_version.py`` pins a fingerprint of counts over a fixed corpus to this number,
so a change of the estimate that leaves it alone fails there."""

_PRICE_FIELDS = (
    "image_tokens",
    "document_tokens",
    "message_overhead",
    "block_overhead",
    "tool_use_overhead",
    "tool_result_overhead",
    "pdf_page_tokens",
)


def counter_key(counter: object) -> str | None:
    """A short key naming exactly how ``counter`` counts a message, for counts stored with the records
    (8 hex characters), or None for a counter whose counts cannot be vouched for: any class other than
    :class:`EstimatingCounter` and :class:`TiktokenCounter` themselves (a subclass or a third-party
    counter may count differently with the same prices), whose messages are always priced again.

    The key covers the class, its prices (:data:`_PRICE_FIELDS`), tiktoken's encoding, the estimate's
    version (:data:`ESTIMATE_VERSION`) and the Unicode version of the running Python (the estimate reads
    character properties, which a newer Unicode may change)."""
    kind = type(counter)
    if kind is EstimatingCounter:
        name = "estimate"
    elif kind is TiktokenCounter:
        name = f"tiktoken/{getattr(counter.encoding, 'name', '?')}"  # type: ignore[attr-defined]
    else:
        return None
    import unicodedata

    prices = ",".join(str(getattr(counter, f)) for f in _PRICE_FIELDS)
    text = f"{name}|{prices}|v{ESTIMATE_VERSION}|u{unicodedata.unidata_version}"
    return hashlib.sha256(text.encode()).hexdigest()[:8]


# --- the exact counter ---------------------------------------------------------------------------

_ENCODINGS: dict[str, dict[str, Any]] = {
    # Patterns and special tokens as published in tiktoken_ext/openai_public.py (MIT).
    "cl100k_base": {
        "pat_str": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",  # noqa: E501
        "special_tokens": {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
        "url": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "sha256": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    },
    "o200k_base": {
        "pat_str": "|".join(
            [
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                r"""\p{N}{1,3}""",
                r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                r"""\s*[\r\n]+""",
                r"""\s+(?!\S)""",
                r"""\s+""",
            ]
        ),
        "special_tokens": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
        "url": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "sha256": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    },
}


def _tiktoken_cache_file(url: str) -> Path | None:
    """Where tiktoken keeps its cached copy of ``url`` (``tiktoken/load.py``), if caching is on."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        cache_dir = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        cache_dir = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if not cache_dir:
        return None
    return Path(cache_dir) / hashlib.sha1(url.encode()).hexdigest()


_QUICKTOK_FILES = {"cl100k_base": "cl100k.vocab", "o200k_base": "o200k.vocab"}


def _quicktok_ranks(encoding: str, sha256: str) -> dict[bytes, int] | None:
    """The ranks of ``encoding`` from the vocabulary files the ``quicktok-v1`` package bundles (a
    count, then ``(u16 length, bytes, u32 rank)`` records), or None. They are used only when the
    sha256 of the ranks written as a ``.tiktoken`` file equals the published one, so the counts are
    tiktoken's own."""
    name = _QUICKTOK_FILES.get(encoding)
    return None if name is None else _read_quicktok(name, sha256)


@lru_cache(maxsize=4)
def _read_quicktok(name: str, sha256: str) -> dict[bytes, int] | None:
    # Found without importing the package (its code, a native extension of unknown provenance, never
    # runs here): only its data file is read, and trusted only when its hash is the published one.
    from importlib.util import find_spec

    try:
        spec = find_spec("quicktok")
        where = list(spec.submodule_search_locations or []) if spec is not None else []
        data = (Path(where[0]) / "data" / name).read_bytes() if where else None
    except (ImportError, ValueError, OSError):
        return None
    if data is None:
        return None
    import base64
    import struct

    try:
        (count,) = struct.unpack_from("<I", data, 0)
        off, ranks = 4, {}
        for _ in range(count):
            (size,) = struct.unpack_from("<H", data, off)
            token = data[off + 2 : off + 2 + size]
            (rank,) = struct.unpack_from("<I", data, off + 2 + size)
            ranks[token] = rank
            off += 6 + size
    except struct.error:
        return None
    text = "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in sorted(ranks.items(), key=lambda kv: kv[1]))
    return ranks if hashlib.sha256(text.encode()).hexdigest() == sha256 else None


def _verified_ranks(encoding: str, path: Path) -> dict[bytes, int]:
    """The ranks in the ``.tiktoken`` file ``path`` (base64 token, space, rank per line), read only
    after the sha256 of its bytes equals the published one of ``encoding``: a truncated, edited or
    foreign file (another encoding's ranks) would make tiktoken count wrongly or panic in its Rust core
    (``pyo3_runtime.PanicException``, a ``BaseException``) at the first byte it has no rank for.

    The file is read directly, not with ``tiktoken.load.load_tiktoken_bpe``: that keeps a copy of any
    path in tiktoken's cache, keyed by the path's text, and reads the copy back the next time, so a file
    replaced at the same path would not be the one counted with."""
    expected = str(_ENCODINGS[encoding]["sha256"])
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TokenizerUnavailableError(encoding, f"{path} cannot be read: {exc}") from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        other = [name for name, spec in _ENCODINGS.items() if spec["sha256"] == actual]
        what = f"the {other[0]} ranks" if other else "not the published ranks"
        raise TokenizerUnavailableError(
            encoding,
            f"{path} has sha256 {actual}, expected {expected}: {what}",
            path=str(path),
            expected_sha256=expected,
            actual_sha256=actual,
        )
    import base64

    ranks: dict[bytes, int] = {}
    for line in data.splitlines():  # the published file: every line parses
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return ranks


def load_offline_encoding(encoding: str = "cl100k_base", rank_file: str | os.PathLike[str] | None = None) -> Any:
    """A ``tiktoken.Encoding`` built from rank files on disk; never downloads.

    Looked up in order: ``rank_file``; the vocabularies the ``quicktok-v1`` package bundles
    (``cl100k_base`` and ``o200k_base``); tiktoken's cache (``TIKTOKEN_CACHE_DIR``,
    ``DATA_GYM_CACHE_DIR`` or the temp folder's ``data-gym-cache``: the file tiktoken names after the
    sha1 of the encoding's URL). Each is used only when its sha256 is the encoding's published one (a
    ``rank_file`` or cached file that is not raises, naming the file and both hashes). The encoding is
    built from those ranks with the published pattern and special tokens; tiktoken's registry
    (``tiktoken.get_encoding``) is never asked, so a plugin in the ``tiktoken_ext`` namespace (such as
    an ``<encoding>_offline`` package) is neither imported nor used.

    Args:
        encoding: ``"cl100k_base"`` or ``"o200k_base"``.
        rank_file: A ``.tiktoken`` rank file (base64 token, rank per line), byte for byte the published
            one.

    Returns:
        The encoding.

    Raises:
        MissingExtraError: tiktoken is not installed (extra ``tiktoken``).
        TokenizerUnavailableError: no rank file is available offline, or ``rank_file`` (or tiktoken's
            cached file) is not the published one (its ``path``, ``expected_sha256`` and
            ``actual_sha256`` say which and how).
        ValueError: ``encoding`` is not one this module knows.
    """
    try:
        import tiktoken
    except ImportError:  # pragma: no cover - depends on the environment
        raise MissingExtraError("tiktoken", "tiktoken") from None
    spec = _ENCODINGS.get(encoding)
    if spec is None:
        raise ValueError(f"unknown encoding {encoding!r}; expected one of {sorted(_ENCODINGS)}")

    def build(ranks: dict[bytes, int]) -> Any:
        return tiktoken.Encoding(
            name=encoding, pat_str=spec["pat_str"], mergeable_ranks=ranks, special_tokens=spec["special_tokens"]
        )

    if rank_file is not None:
        given = os.fspath(rank_file)
        if not given:
            raise TokenizerUnavailableError(encoding, "rank_file is empty: give the path of a .tiktoken file")
        path = Path(given)
        if not path.is_file():
            raise TokenizerUnavailableError(encoding, f"{path} is not a file")
        return build(_verified_ranks(encoding, path))
    bundled = _quicktok_ranks(encoding, spec["sha256"])
    if bundled is not None:
        return build(bundled)
    cached = _tiktoken_cache_file(spec["url"])
    if cached is not None and cached.is_file():
        return build(_verified_ranks(encoding, cached))
    from importlib.util import find_spec

    try:
        installed = find_spec("quicktok") is not None
    except (ImportError, ValueError):
        installed = False
    quicktok = "installed, but holds no ranks for this encoding" if installed else "not installed"
    where = f"tiktoken's cache file {cached} is missing" if cached is not None else "tiktoken's cache is off"
    raise TokenizerUnavailableError(encoding, f"looked for: quicktok-v1's vocabulary ({quicktok}); {where}")


class TiktokenCounter(EstimatingCounter):
    """Exact text counts with tiktoken, from rank files available offline (see
    :func:`load_offline_encoding`); non-text blocks are priced as in :class:`EstimatingCounter`.

    OpenAI models count with these encodings (``o200k_base`` for GPT-4o and later, ``cl100k_base``
    for GPT-4 / 3.5); for Claude it is a closer estimate than the default, which calibration corrects.

    Args:
        encoding: ``"cl100k_base"`` or ``"o200k_base"``.
        rank_file: A local ``.tiktoken`` rank file to use instead of looking one up.
        **kwargs: Prices of non-text blocks and overheads (see :class:`EstimatingCounter`).

    Raises:
        MissingExtraError: tiktoken is not installed.
        TokenizerUnavailableError: no rank file is available offline.
    """

    def __init__(
        self, encoding: str = "cl100k_base", *, rank_file: str | os.PathLike[str] | None = None, **kwargs: int
    ) -> None:
        super().__init__(**kwargs)
        self.encoding = load_offline_encoding(encoding, rank_file)
        self._cache = _CountCache()

    def text_tokens(self, text: str) -> int:
        """Exact tokens of ``text`` (special-token text is counted as ordinary text).

        Raises:
            TypeError: ``text`` is not a ``str``.
        """
        if not isinstance(text, str):
            raise _not_text(text)
        if len(text) >= 64:
            hit = self._cache.get(text)
            if hit is not None:
                return hit
        n = len(self.encoding.encode_ordinary(text))
        if len(text) >= 64:
            self._cache.put(text, n)
        return n


# --- calibration ---------------------------------------------------------------------------------


_LEGACY_BOUNDS = (0.5, 2.0)  # the bounds states written before per-class calibration carry
_CLASS_SET = 2
"""Version of the content classes a stored state's factors are of: 1 (no ``class_set`` key) had one
``other`` class for every script but Latin and CJK; 2 splits it (see :func:`text_class`)."""


FULL_REPORT_TOKENS = 1_000
"""Estimated tokens of a usage report that weighs fully in :class:`Calibration` (a smaller one weighs its
share of this)."""


@dataclass
class Calibration:
    """Correction factors for the token estimate, learnt from the provider's usage reports, per content
    class (``prose``, ``code``, ``cjk``, ``emoji``, ``cyrillic``, ``indic``, ``arabic_hebrew``,
    ``thai_lao_khmer``, ``other``: see :func:`text_class`; ``media`` for images and documents; ``*`` for
    reports that gave no mix before any was known).

    The provider's tokenizer is not the estimate's, and by how much they differ depends on the
    content: one factor for a namespace that mixes English and Hindi would be wrong for both. A report
    gives one number for a whole request, so each report moves every class's factor in proportion to
    that class's share of the request (a normalised least-mean-squares step in log space, weight
    ``alpha``): reports with different mixes separate the classes, a report of one class moves only
    that class (exactly to the observed ratio on its first full report). A report without a mix moves all
    classes alike. Factors are clamped to ``[lower, upper]`` (default 0.1 to 20: wide enough for any
    factor real data shows; the bound only stops a nonsense report).

    A report weighs its estimated tokens over :data:`FULL_REPORT_TOKENS` (1,000), at most 1: its step is
    that weight times 1.0 until reports weighing 1 in all were folded in, times ``alpha`` after. The
    count of a small request is mostly the provider's own framing and rounding, not the content's
    tokens: a 6-token compile reported as 1 token set every later estimate to a sixth (a compile of
    "100,000 tokens" then held 600,000); now it moves the factor 0.6% of the way.

    ``factor`` is what compiles multiply their estimate by: the class factors averaged over the mix of
    recent reports (weighted by estimated tokens); a compile whose content's classes have other factors
    is then priced by its own mix (``ContextManager.compile``).

    A class never reported uses :attr:`unreported_factor`: 1.0 (trust the estimate, which already
    prices each script by its own weights) once any class has a factor of its own, or the factor of
    reports that gave no mix (``*``) when there were some; ``factor`` only while nothing class-specific
    is known (no report yet, or only reports without a mix). Not the overall mix: after reports on Hindi
    alone (3x), English is priced at 1.0, not at Hindi's 3x.

    States stored by earlier versions load: one without classes keeps its ``factor`` as the ``*`` class;
    one of the first class set (no ``class_set`` key) has its ``other`` factor, learnt from any script
    not Latin or CJK, given to each script class that split it (``cyrillic``, ``indic``,
    ``arabic_hebrew``, ``thai_lao_khmer``, ``other``), so its prices do not change until reports refine
    them. Classes this version does not know are kept (no compile's mix holds them).

    Attributes:
        factor: The current overall factor (1.0 = trust the estimate).
        samples: Reports folded in so far.
        weight: The reports' weights folded in so far (see above; a store written before weights read
            as one per report).
        lower: Smallest allowed factor.
        upper: Largest allowed factor.
        alpha: Weight of a new report, in ``(0, 1]``.
        classes: Factor per content class (a class not reported yet uses :attr:`unreported_factor`).
        mix: Share of estimated tokens per class over recent reports (sums to 1 when not empty).
    """

    factor: float = 1.0
    samples: int = 0
    weight: float = 0.0
    lower: float = 0.1
    upper: float = 20.0
    alpha: float = 0.3
    classes: dict[str, float] = field(default_factory=dict)
    mix: dict[str, float] = field(default_factory=dict)

    def _clamp(self, value: float) -> float:
        return min(self.upper, max(self.lower, value))

    @property
    def unreported_factor(self) -> float:
        """The factor of a class not reported yet: ``factor`` while no class has a factor of its own,
        else the ``*`` class's (reports without a mix) or 1.0."""
        if all(k == "*" for k in self.classes):
            return self.factor
        return self.classes.get("*", 1.0)

    def class_factor(self, cls: str) -> float:
        """The factor of one content class (:attr:`unreported_factor` for a class not reported yet)."""
        return self.classes.get(cls, self.unreported_factor)

    def update(self, estimated: int, actual: int, mix: Mapping[str, float] | None = None) -> float:
        """Fold in one report and return the new overall factor.

        Args:
            estimated: Tokens the compile estimated (before calibration), > 0.
            actual: Input tokens the provider reported for that request, > 0.
            mix: Estimated tokens of the request by content class (see :func:`content_mix`); None or
                empty: the request had the mix of recent reports (``"*"``, all content, before any
                mix is known).

        Raises:
            ValueError: either count is not positive.
        """
        if estimated <= 0 or actual <= 0:
            raise ValueError("estimated and actual token counts must be positive")
        weights = {k: float(v) for k, v in (mix or {}).items() if v > 0} or dict(self.mix) or {"*": 1.0}
        total = sum(weights.values())
        shares = {k: v / total for k, v in weights.items()}
        base = {k: self.class_factor(k) for k in shares}  # before any class of this report is set
        predicted = sum(shares[k] * base[k] for k in shares)
        error = math.log(self._clamp(actual / estimated)) - math.log(predicted)
        heft = min(1.0, estimated / FULL_REPORT_TOKENS)  # a small request says little about the ratio
        step = heft * (1.0 if self.weight < 1.0 else self.alpha)
        # Each class's part of the corrected prediction; the step makes the prediction move by
        # ``step * error`` (in log space) whatever the mix.
        parts = {k: shares[k] * base[k] / predicted for k in shares}
        norm = sum(p * p for p in parts.values())
        for k, p in parts.items():
            self.classes[k] = self._clamp(base[k] * math.exp(step * error * p / norm))
        if mix:
            keep = 1.0 - step
            blended = {k: keep * v for k, v in self.mix.items()}
            for k, v in shares.items():
                blended[k] = blended.get(k, 0.0) + step * v
            whole = sum(blended.values())  # 1 but when the mix so far was empty and the step below 1
            self.mix = {k: v / whole for k, v in blended.items()}
        elif not self.mix:
            self.mix = dict(shares)
        self.factor = self._clamp(sum(v * self.class_factor(k) for k, v in self.mix.items()))
        self.samples += 1
        self.weight = min(self.weight + heft, float(MAX_TOKEN_COUNT))
        return self.factor

    def apply(self, tokens: int) -> int:
        """``tokens`` corrected by the factor (rounded up)."""
        return math.ceil(tokens * self.factor - 1e-9)

    def apply_mix(self, mix: Mapping[str, float]) -> int:
        """Estimated tokens by class (see :func:`content_mix`) corrected class by class (rounded up)."""
        return math.ceil(sum(v * self.class_factor(k) for k, v in mix.items()) - 1e-9)

    def raw_budget(self, budget: int) -> int:
        """The largest estimate whose corrected value fits ``budget`` tokens."""
        raw = max(0, math.floor(budget / self.factor + 1e-9))
        if raw == 0 or self.apply(raw) <= budget:
            return raw
        lo, hi = 0, raw - 1  # ``apply`` grows with its argument: bisect, never a step of one per token
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.apply(mid) <= budget:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def to_state(self) -> dict[str, Any]:
        """JSON form stored as the namespace's calibration state."""
        return {
            "factor": self.factor,
            "samples": self.samples,
            "weight": self.weight,
            "lower": self.lower,
            "upper": self.upper,
            "classes": dict(self.classes),
            "mix": dict(self.mix),
            "class_set": _CLASS_SET,
        }

    @classmethod
    def from_state(cls, value: Any) -> Calibration:
        """Read a stored state (a missing or malformed one gives the neutral factor). States written
        with the old fixed bounds (0.5 to 2.0) get the current default bounds; states of earlier class
        sets are mapped (see the class docstring)."""
        if not isinstance(value, Mapping):
            return cls()
        try:
            lower = float(value.get("lower", cls.lower))
            upper = float(value.get("upper", cls.upper))
            if (lower, upper) == _LEGACY_BOUNDS:
                lower, upper = cls.lower, cls.upper
            classes = {str(k): min(upper, max(lower, float(v))) for k, v in dict(value.get("classes") or {}).items()}
            mix = {str(k): float(v) for k, v in dict(value.get("mix") or {}).items()}
            factor = min(upper, max(lower, float(value.get("factor", 1.0))))
            if not classes and factor != 1.0:
                classes = {"*": factor}  # learnt before per-class calibration: the factor of all content
                mix = mix or {"*": 1.0}
            elif int(value.get("class_set", 1)) < _CLASS_SET and "other" in classes:
                classes = {**dict.fromkeys(_SCRIPT_NAMES, classes["other"]), **classes}
            samples = int(value.get("samples", 0))
            weight = float(value.get("weight", samples))  # before weights: every report weighed 1
            if not math.isfinite(weight) or weight < 0:
                weight = float(samples)
            return cls(
                factor=factor, samples=samples, weight=weight, lower=lower, upper=upper, classes=classes, mix=mix
            )
        except (TypeError, ValueError):
            return cls()


def content_mix(blocks: Iterable[Mapping[str, Any]], counter: TokenCounter | None = None) -> dict[str, int]:
    """Estimated tokens of ``blocks`` by content class (:func:`text_class` of each text; ``media`` for
    images and documents; tool calls by their JSON input), for :meth:`Calibration.update`.

    Args:
        blocks: Block dicts (a compiled request's system and message blocks, flattened).
        counter: Prices the blocks (default: the estimate).
    """
    count = counter or _DEFAULT_COUNTER
    out: dict[str, int] = {}

    def add(cls: str, n: int) -> None:
        out[cls] = out.get(cls, 0) + n

    for b in blocks:
        kind = b.get("type")
        if kind == "text":
            add(text_class(str(b.get("text", ""))), count.count_block(b))
        elif kind == "thinking":
            add(text_class(str(b.get("thinking", ""))), count.count_block(b))
        elif kind == "tool_use":
            add("code", count.count_block(b))
        elif kind == "tool_result" and not isinstance(b.get("content", ""), str):
            out_inner = content_mix([x for x in b["content"] if isinstance(x, Mapping)], count)
            for k, v in out_inner.items():
                add(k, v)
        elif kind == "tool_result":
            add(text_class(str(b.get("content", ""))), count.count_block(b))
        elif kind in ("image", "document"):
            add("media", count.count_block(b))
        else:
            add("other", count.count_block(b))
    return out
