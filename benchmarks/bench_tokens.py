"""Speed of the default token estimate against tiktoken, by content class (printed, never asserted).

    python benchmarks/bench_tokens.py [--chars 100000] [--repeat 7] [--data ../shared/data]

Each class of the multi-script corpus (``tests/compile/token_corpus.py``: scripts, code, JSON, base64,
hex, emoji) is repeated to ``--chars`` characters and priced by ``estimate_text_tokens`` (uncached)
and by tiktoken's ``cl100k_base`` and ``o200k_base`` (``encode_ordinary``, from offline ranks); the
best of ``--repeat`` runs is shown in milliseconds, with the estimate's speed-up over the faster
tiktoken encoding and its ratio to the larger reference count. The estimate must not be slower than
tiktoken.

With ``--data DIR`` (the shared data sets, e.g. ``../shared/data``) it also times the blocks of the real
transcripts as they are, each priced alone (text by content class, thinking, tool inputs as compact JSON,
tool results, IRC lines): most are short, where the estimate's fixed cost per text counts most.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: the tests package

from context_journal.tokens import _text_estimate, load_offline_encoding
from tests.compile.token_corpus import CORPUS, shared_blocks


def _best(fn: Callable[[str], object], text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - t)
    return best * 1000


def _best_all(fn: Callable[[str], object], texts: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for text in texts:
            fn(text)
        best = min(best, time.perf_counter() - t)
    return best * 1000


def _real_data(data: Path, encodings: dict[str, Any], repeat: int) -> None:
    by_kind: dict[str, list[str]] = {}
    for kind, text in shared_blocks(data):
        by_kind.setdefault(kind, []).append(text)
    print(f"\nthe shared data's blocks, each priced alone (best of {repeat}; ms for all blocks of a kind)")
    head = f"{'kind':<16}{'blocks':>8}{'mean chars':>11}{'estimate ms':>12}{'cl100k ms':>11}{'o200k ms':>10}"
    print(f"{head}{'speed-up':>10}")
    totals = [0.0, 0.0, 0.0]
    for kind, texts in sorted(by_kind.items()):
        est = _best_all(_text_estimate, texts, repeat)
        cl = _best_all(encodings["cl100k_base"].encode_ordinary, texts, repeat)
        o2 = _best_all(encodings["o200k_base"].encode_ordinary, texts, repeat)
        totals = [totals[0] + est, totals[1] + cl, totals[2] + o2]
        mean = sum(map(len, texts)) / len(texts)
        print(f"{kind:<16}{len(texts):>8}{mean:>11.0f}{est:>12.1f}{cl:>11.1f}{o2:>10.1f}{min(cl, o2) / est:>9.2f}x")
    est, cl, o2 = totals
    print(f"{'all blocks':<16}{'':>8}{'':>11}{est:>12.1f}{cl:>11.1f}{o2:>10.1f}{min(cl, o2) / est:>9.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chars", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--data", type=Path, default=None, help="the shared data sets: also time their blocks")
    args = ap.parse_args()
    encodings = {name: load_offline_encoding(name) for name in ("cl100k_base", "o200k_base")}
    print(f"{'class':<20}{'estimate ms':>12}{'cl100k ms':>11}{'o200k ms':>10}{'speed-up':>10}{'est/ref':>9}")
    totals = [0.0, 0.0, 0.0]
    for cls, samples in CORPUS.items():
        base = "\n".join(samples)
        text = (base * (args.chars // len(base) + 1))[: args.chars]
        est = _best(_text_estimate, text, args.repeat)
        cl = _best(encodings["cl100k_base"].encode_ordinary, text, args.repeat)
        o2 = _best(encodings["o200k_base"].encode_ordinary, text, args.repeat)
        ref = max(len(e.encode_ordinary(text)) for e in encodings.values())
        totals = [totals[0] + est, totals[1] + cl, totals[2] + o2]
        print(
            f"{cls:<20}{est:>12.2f}{cl:>11.2f}{o2:>10.2f}{min(cl, o2) / est:>9.1f}x{_text_estimate(text) / ref:>9.2f}"
        )
    est, cl, o2 = totals
    print(f"{'all classes':<20}{est:>12.2f}{cl:>11.2f}{o2:>10.2f}{min(cl, o2) / est:>9.1f}x")
    if args.data is not None:
        _real_data(args.data, encodings, max(1, args.repeat // 2))


if __name__ == "__main__":
    main()
