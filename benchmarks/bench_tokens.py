"""Speed of the default token estimate against tiktoken, by content class (printed, never asserted).

    python benchmarks/bench_tokens.py [--chars 100000] [--repeat 7]

Each class of the multi-script corpus (``tests/compile/token_corpus.py``: scripts, code, JSON, base64,
hex, emoji) is repeated to ``--chars`` characters and priced by ``estimate_text_tokens`` (uncached)
and by tiktoken's ``cl100k_base`` and ``o200k_base`` (``encode_ordinary``, from offline ranks); the
best of ``--repeat`` runs is shown in milliseconds, with the estimate's speed-up over the faster
tiktoken encoding and its ratio to the larger reference count. The estimate must not be slower than
tiktoken.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "compile"))

from token_corpus import CORPUS

from context_journal.tokens import _text_estimate, load_offline_encoding


def _best(fn: Callable[[str], object], text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - t)
    return best * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chars", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=7)
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


if __name__ == "__main__":
    main()
