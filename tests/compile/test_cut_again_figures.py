"""An excerpt cut again keeps fewer characters at any ratio under one, and its marker states what it keeps.

An excerpt is the message's head and tail around a marker of about 84 characters. Cut again, the ratio was
taken of the whole excerpt, the marker's characters counted as keepable: an excerpt keeping 6 characters of
each of 49 blocks was left as it was at every ratio down to a tenth, so a water level could not lower it,
and a budget failed a token short between two that fitted. The kept figure of a cut again was priced from
the excerpt's size with its marker (a share of it read as kept text): a newest message of 64 blocks kept
the same few characters of each as its first excerpt, was read as keeping under a hundredth of itself, and
the budgets between two that fitted failed.
"""

from __future__ import annotations

import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, OverBudgetError
from context_journal.rendering.repairs import excerpt_blocks, text_kept, text_tokens_kept
from context_journal.tokens import EstimatingCounter
from tests.compile.test_excerpt_cut_again import _compile, _smallest
from tests.hypothesis_budget import examples

COUNTER = EstimatingCounter()

_WORDS = st.text(string.ascii_letters + string.digits + "_./-", min_size=1, max_size=12)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(_WORDS, min_size=40, max_size=300).map(" ".join),
    st.floats(0.005, 0.6),
    st.floats(0.0, 0.999),
)
def test_an_excerpt_cut_again_keeps_fewer_characters_and_says_so(text: str, first: float, again: float) -> None:
    """Cut again at any ratio under one, an excerpt that kept some characters keeps fewer, and its kept figure
    is the earlier one in the share of the characters still there (rounded)."""
    once = excerpt_blocks([{"type": "text", "text": text}], first, COUNTER, None)
    twice = excerpt_blocks(once, again, COUNTER, None)
    chars_once, chars_twice = text_kept(once), text_kept(twice)
    kept_once, whole = text_tokens_kept(once, COUNTER)
    kept_twice, whole_twice = text_tokens_kept(twice, COUNTER)
    assert whole_twice == whole
    if chars_once:
        assert chars_twice < chars_once, (chars_once, chars_twice)
        assert kept_twice == (2 * kept_once * chars_twice + chars_once) // (2 * chars_once)
    else:
        assert chars_twice == 0 and kept_twice == 0


def _replayed_blocks(seed: int, trial: int) -> list[dict[str, str]]:
    """The newest message of a scan's ``trial`` (blocks of hex ids, identifier lists, Chinese or paths)."""
    rng = random.Random(seed)
    content: list[dict[str, str]] = []
    for _ in range(trial + 1):
        blocks, chars = rng.randint(1, 80), rng.randint(1, 500)
        content = [{"type": "text", "text": f"Note {i}: " + _line(rng, chars)} for i in range(blocks)]
    return content


def _line(rng: random.Random, chars: int) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        words = ("".join(rng.choice(string.hexdigits) for _ in range(rng.randint(8, 32))) for _ in range(chars))
        return " ".join(words)[:chars]
    if kind == 1:
        prefixes, suffixes = ["get_", "set_", "_", "is_", ""], ["Id", "Map", "", "_v2"]
        names = (
            rng.choice(prefixes)
            + "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9)))
            + rng.choice(suffixes)
            for _ in range(chars)
        )
        return ", ".join(names)[:chars]
    if kind == 2:
        return "".join(chr(rng.randint(0x4E00, 0x9FA5)) for _ in range(chars))
    dirs = ["src", "lib", "tests", "core", "ui", "api"]
    paths = (
        "/".join(rng.choice(dirs) for _ in range(rng.randint(2, 5)))
        + "/"
        + "".join(rng.choice(string.ascii_lowercase) for _ in range(6))
        + ".py"
        for _ in range(chars)
    )
    return " ".join(paths)[:chars]


def test_dense_blocks_fit_at_every_budget_above_the_smallest() -> None:
    """Two newest messages a scan found, windowed: 64 blocks of ids, lists and paths fitted at 1,696-1,719
    tokens and failed at 1,720-1,727 naming 1,757 (their excerpts read as keeping under a hundredth); 49
    blocks fitted at 1,318-1,323 and failed at 1,324 naming 1,325 (an excerpt cut again could not be lowered
    a token). Now 1,687 and 1,319 fit and every budget above them (1,686 and 1,318 before issue 13's
    estimate priced short words and rare letter pairs); the budget below fails naming the smallest."""
    for trial, smallest_now in ((31, 1687), (10, 1319)):
        cm = ContextManager.open("memory:", strategy="windowed", summarizer=None)
        cm.add_message("user", "Please review the design notes I will paste next.")
        cm.add_message("assistant", "Sure.")
        cm.add_message("user", _replayed_blocks(3, trial))
        smallest = _smallest(cm, 60000)
        assert smallest == smallest_now, (trial, smallest)
        for budget in range(smallest, smallest + 30):
            assert not isinstance(_compile(cm, budget), OverBudgetError), (trial, budget)
        failed = _compile(cm, smallest - 1)
        assert isinstance(failed, OverBudgetError) and failed.actual == smallest, (trial, failed)
