"""The token estimate's faster formulations count exactly what the direct ones did.

``_text_estimate`` skips passes whose trigger bytes are absent and counts several patterns in fewer passes
(one translation for several pre-checks, regexes that open with a literal byte, runs of a character class
matched whole, prices of runs remembered). Each reformulation is checked here against the direct count it
replaced, on strings drawn from the few classes that decide it, so that the estimate returns the same
float as before (not only the same rounded count).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from context_journal import _hangul_tokens, tokens
from context_journal.tokens import (
    _CHAR_RUN,
    _GATE_BYTES,
    _LATEX_BYTES,
    _LINE_MARK,
    _NEWLINE_RUN,
    _ONE_LETTER_BYTES,
    _PERCENT_RUN,
    _SPLIT_ESCAPE,
    _char_run_tokens,
    _chars_of,
    _overlapping,
    _text_estimate,
)
from tests.hypothesis_budget import examples

FAST = settings(max_examples=examples(300), deadline=None)
LETTER_RUN = re.compile(r"([A-Za-z])\1{7}")


def _text(alphabet: str, max_size: int = 60) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, max_size=max_size)


@FAST
@given(_text(" pa-'0_x\n"))
def test_overlapping_counts_match_doubling_the_spaces(chars: str) -> None:
    """Lone marks and one-letter words used to be counted after doubling every space (so that two matches
    could not share one); ``_overlapping`` doubles them only when two matches share a space."""
    raw = chars.encode()
    gate = raw.translate(_GATE_BYTES)
    doubled = gate.replace(b" ", b"  ")
    assert _overlapping(gate, b" p ", b" p p ") == doubled.count(b" p ")
    assert _overlapping(gate, b" pp ", b" pp pp ") == doubled.count(b" pp ")
    letters = raw.translate(_ONE_LETTER_BYTES)
    padded = b" " + letters + b" "
    assert _overlapping(padded, b" a ", b" a a ") == (b" " + letters.replace(b" ", b"  ") + b" ").count(b" a ")


@FAST
@given(_text("\\ab{ ($,"))
def test_the_escape_regex_counts_what_seven_counts_did(chars: str) -> None:
    commands = chars.encode().translate(_LATEX_BYTES)
    c = commands.count
    after_other = c(b" ba") + c(b"pba") + c(b"bba") + (commands[:2] == b"ba")
    longer_after_other = c(b" baa") + c(b"pbaa") + c(b"bbaa") + (commands[:3] == b"baa")
    assert len(_SPLIT_ESCAPE.findall(commands)) == after_other + c(b"baa") - longer_after_other


@FAST
@given(_text("\n -#_a0}\t"))
def test_the_line_regexes_count_what_the_translations_did(chars: str) -> None:
    raw = chars.encode()
    lines = raw.translate(
        bytes(
            ord("n")
            if b == 10
            else ord("s")
            if b == 32
            else ord("p")
            if 33 <= b <= 126 and not chr(b).isalnum()
            else 120
            for b in range(256)
        )
    )
    opened = lines.count(b"nps") + sum(map(lines.count, (b"nsps", b"nssps", b"nsssps", b"nssssps")))
    assert len(_LINE_MARK.findall(raw)) == opened
    breaks = raw.translate(bytes(ord("n") if b == 10 else ord(" ") for b in range(256)))
    assert len(_NEWLINE_RUN.findall(raw)) == breaks.count(b" n") + (breaks[:1] == b"n")


@FAST
@given(_text("%0aFgZ9 ", max_size=30))
def test_the_percent_regex_matches_what_it_matched_before(chars: str) -> None:
    raw = chars.encode()
    before = re.compile(rb"(?:%[0-9A-Fa-f]{2}){2,}")
    assert [m.span() for m in _PERCENT_RUN.finditer(raw)] == [m.span() for m in before.finditer(raw)]


@FAST
@given(st.text(alphabet=st.characters(min_codepoint=0xAC00, max_codepoint=0xAC60) | st.sampled_from(" a"), max_size=40))
def test_a_class_matched_run_by_run_keeps_every_character(chars: str) -> None:
    one_by_one = re.compile(f"[{tokens._complement(_hangul_tokens.ONE_TOKEN, 0xAC00, 0xD7A3)}]")
    assert _chars_of(tokens._HANGUL_MORE, chars) == "".join(one_by_one.findall(chars))


def test_the_known_word_tables_hold_no_run_of_eight_of_one_letter() -> None:
    """``_text_estimate`` looks for eight of one letter in a row only in the runs of word characters never
    judged: a run held by the tables of judged runs cannot hold one (runs are judged in texts cut of them), and
    neither can the tables they start from."""
    for table in (tokens._KNOWN_WORDS, tokens._CAPITALS, tokens._SHORT_CAPITALS):
        assert not [word for word in table if LETTER_RUN.search(word)]


@FAST
@given(
    letter=st.sampled_from("aexzQM"),
    length=st.integers(8, 20),
    before=st.sampled_from(["", "b", "Wo", "say "]),
    after=st.sampled_from(["", "y", "rld", " now"]),
)
def test_a_run_of_one_letter_is_cut_whether_its_word_was_judged_or_not(
    letter: str, length: int, before: str, after: str
) -> None:
    """The text with the run is priced as the run plus the rest, before and after the words around it were
    judged (and after the tables of judged runs were emptied)."""
    run = letter * length
    text = f"{before}{run}{after} and more words"
    rest = f"{before} {after} and more words"
    expected = _char_run_tokens(run) + _text_estimate(rest)
    assert _text_estimate(text) == expected
    _text_estimate(f"{before}{after} {before}x{after}")  # judges the runs around it
    assert _text_estimate(text) == expected
    assert _CHAR_RUN.search(text.encode())
