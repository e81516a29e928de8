"""Snippet marks: a matched word is marked ``**like this**`` once, with the punctuation around it left
outside, and nothing else of the text changes (a word the text already shows in bold is not marked
twice: ``****museum****`` read as an empty bold run and broke the CLI's bold rendering)."""

from __future__ import annotations

import unicodedata

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from context_journal import ContextManager, MemoryStore
from context_journal._graphemes import is_boundary, split_words
from context_journal.recall.search import SNIPPET_CHARS, snippet
from context_journal.stores.fulltext import stem
from tests.hypothesis_budget import examples

SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])

WORDS = ["museum", "museums", "pottery", "pottery's", "__init__", "café", "cafe\u0301", "dog", "the", "Melanie"]
MARKED = [
    "cafe\u0301",
    "me\u0301lanie\u0308",
    "مُحَمَّدٌ",
    "שָׁלוֹם",
    "Tie\u0302\u0301ng",
    "dog\u0301\u0302",
]  # combining marks
MARKS = ["", "*", "**", "(", ")", ",", ".", "!", '"', "'", "_", "[", "]", "**(", ")**"]


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_" or unicodedata.category(ch).startswith("M")


def _unmarked(out: str, original: str) -> bool:
    """Whether ``out`` is ``original``'s token, or it with ``**`` put around its word part only."""
    if out == original:
        return True
    if out.count("**") != original.count("**") + 2:
        return False
    at = out.find("**")
    while at >= 0:
        end = out.find("**", at + 2)
        if end > at + 2:
            inner = out[at + 2 : end]
            if out[:at] + inner + out[end + 2 :] == original and _word(inner[0]) and _word(inner[-1]):
                return True
        at = out.find("**", at + 1)
    return False


@SETTINGS
@given(
    tokens=st.lists(
        st.tuples(st.sampled_from(MARKS), st.sampled_from(MARKED + WORDS), st.sampled_from(MARKS)).map("".join),
        min_size=1,
        max_size=12,
    ),
    query=st.sampled_from(["cafe", "café", "melanie", "محمد", "שלום", "tieng", "dog"]),
)
@example(tokens=["we", "met", "at", "the", "cafe\u0301", "yesterday"], query="cafe")  # a review's snippet:
@example(tokens=["قَالَ", "مُحَمَّدٌ", "شُكْرًا"], query="محمد")  # "**cafe**\u0301", "**مُحَمَّد**ٌ"
def test_the_marks_stand_on_grapheme_boundaries(tokens: list[str], query: str) -> None:
    """Issue 13, kind 6: a review found the marks put between a letter and its combining marks
    (``**cafe**`` then U+0301, the accent left on the asterisk; ``**مُحَمَّد**ٌ``), in every store, over MCP
    and in the CLI. Each ``**`` starts and ends on a grapheme-cluster boundary."""
    text = " ".join(tokens)
    out, _ = snippet(text, {stem(w) for w in query.split()}, width=64)
    at = out.find("**")
    while at >= 0:
        assert is_boundary(out, at) and is_boundary(out, at + 2), (out, at)
        at = out.find("**", at + 2)


@SETTINGS
@given(
    tokens=st.lists(
        st.tuples(st.sampled_from(MARKS), st.sampled_from(WORDS), st.sampled_from(MARKS)).map("".join),
        min_size=1,
        max_size=30,
    ),
    query=st.sampled_from(["museum", "pottery", "init", "cafe", "melanie dog"]),
)
def test_a_matched_word_is_marked_once_and_nothing_else_changes(tokens: list[str], query: str) -> None:
    text = " ".join(tokens)
    stems = {stem(w) for w in query.split()}
    out, _ = snippet(text, stems, width=64)
    shown = split_words(out.removeprefix("… ").removesuffix(" …"))
    assert len(shown) == len(tokens)  # width 64 >= 30 tokens: the whole text
    for was, now in zip(tokens, shown, strict=True):
        assert _unmarked(now, was), (was, now)
        if "****" in now:
            assert "****" in was, (was, now)
        if "**" not in was and any(stem(w.strip("*()[],.!\"'")) in stems for w in [was]):
            assert now != was, (was, now)  # a match with no bold of its own is marked


def test_a_word_already_in_bold_is_not_marked_again() -> None:
    cm = ContextManager.open(store=MemoryStore())
    cm.add_message("user", "I went to the **museum** with Melanie, and then (museum), museum's café.")
    [hit] = cm.search_messages("museum")
    assert hit.snippet == "I went to the **museum** with Melanie, and then (**museum**), **museum's** café."


@SETTINGS
@given(
    before=st.integers(0, 3000),
    after=st.integers(0, 3000),
    run=st.sampled_from(["y", "東", "🐟", "é", "ab"]),
    spaced=st.booleans(),
)
def test_a_snippet_is_bounded_and_shows_its_match(before: int, after: int, run: str, spaced: bool) -> None:
    """A review found a 200,000-character snippet: a run without spaces (CJK text, a blob) was one of the
    32 words. Now at most SNIPPET_CHARS characters, cut around the match on cluster boundaries."""
    piece = run + " " if spaced else run  # many short words, or one long run without spaces
    text = piece * before + " zebrafish " + piece * after
    out, matched = snippet(text, {stem("zebrafish")})
    assert matched == ("zebrafish",)
    assert len(out) <= SNIPPET_CHARS and "**zebrafish**" in out
    assert out.strip("…").replace("**zebrafish**", "zebrafish").strip("… ") in " ".join(text.split())


def test_the_search_api_bounds_snippets() -> None:
    cm = ContextManager.open(store=MemoryStore())
    cm.add_message("user", "y" * 200_000 + " zebrafish")
    [hit] = cm.search_messages("zebrafish")
    assert len(hit.snippet) <= SNIPPET_CHARS and hit.snippet.endswith("**zebrafish**")
