"""The offline summarizer cuts between grapheme clusters (a review finding): every fragment of a
digest (a unit cut from a sentence, a long run without spaces cut at the unit limit, a clipped tool
argument, the names in a clip mark, the prefix of the one unit when nothing fits) starts and ends on a
cluster boundary of the text it was copied from, the boundaries taken from the segmentation library
(``regex``'s ``\\X``) on the original text."""

from __future__ import annotations

import json
import unicodedata
from itertools import accumulate
from typing import Any

import regex  # type: ignore[import-untyped]  # no stubs shipped
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal._graphemes import strip_clusters
from context_journal.llm import LLMRequest, summarize_request
from context_journal.llm._extract import MAX_BULKY_CHARS, MAX_UNIT_CHARS, _clip, split_spans
from context_journal.llm.offline import Digest
from tests.grapheme_clusters import CLUSTERS as SHARED
from tests.hypothesis_budget import examples

SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])

CLUSTERS = [*SHARED, " \u0301"]  # and a space carrying a mark: trimming the space must not leave it
LETTERS = [*"abcdefgkmnoprstuvz", "load_user", "src/app.py", "Config", "42", "é", "中"]
ATOMS = [*CLUSTERS, *LETTERS, *LETTERS]

word = st.lists(st.sampled_from(ATOMS), min_size=1, max_size=6).map("".join)
# A run with no space longer than a unit (a few clusters repeated after a filler of random length), so the
# unit limit has to cut it somewhere, at varying places.
run = st.builds(
    lambda pad, atoms: "x" * pad + "".join(atoms) * (MAX_UNIT_CHARS // len("".join(atoms)) + 2),
    st.integers(0, 40),
    st.lists(st.sampled_from(ATOMS), min_size=1, max_size=6),
)
sentence = st.one_of(
    st.lists(word, min_size=2, max_size=30).map(lambda ws: "Then " + " ".join(ws) + "."),
    run,
)
text = st.lists(sentence, min_size=1, max_size=4).map(" ".join)
bulky = st.lists(st.one_of(word, run), min_size=1, max_size=4).map(" ".join)
# Awkward sequences too: marks and joiners with nothing to carry them, half flags, a prepended mark.
odd = st.lists(
    st.sampled_from([*ATOMS, "\u0301", "\u200d", "🇫", "\u0600", "\n", "\r\n", " ", ". ", "Then "]), max_size=400
).map("".join)


def boundaries(s: str) -> set[int]:
    """Cluster boundaries of ``s``, segmenting it whole with the library."""
    return {0, *accumulate(len(g) for g in regex.findall(r"\X", s))}


def whole_in(fragment: str, sources: list[str]) -> bool:
    """Whether ``fragment`` occurs in a source with both ends on that source's cluster boundaries."""
    for s in sources:
        b = None
        i = s.find(fragment)
        while i >= 0:
            b = b if b is not None else boundaries(s)
            if i in b and i + len(fragment) in b:
                return True
            i = s.find(fragment, i + 1)
    return False


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [str(k) for k in value] + [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [json.dumps(value)]


def sources(request: LLMRequest) -> list[str]:
    out = [request.system_text]
    for m in request.messages:
        for b in m.content:
            out.extend(_strings(b.model_dump()))
    return out


def assert_whole(digest: Digest, request: LLMRequest) -> None:
    texts = sources(request)
    for line in digest.lines:
        for fragment in line.fragments:
            assert whole_in(fragment, texts), f"cut inside a cluster: {fragment!r}"
    # The text as written: no line, and no piece after a label, opens with a mark or joiner.
    for text_line in digest.text.splitlines():
        first = regex.match(r"\X", text_line)
        assert first is None or not regex.match(r"[\p{M}\u200d]", first.group()), text_line


@st.composite
def conversation(draw: st.DrawFn) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": [{"type": "text", "text": draw(text)}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": draw(text)},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Edit",
                    "input": {
                        "file_path": "/home/me/proj/src/" + draw(word) + ".py",
                        "old_string": draw(bulky),
                        "new_string": draw(bulky),
                        "command": draw(bulky),
                        "todos": [draw(bulky), {"content": draw(bulky)}],
                    },
                },
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": draw(text), "is_error": True}],
        },
        {
            "role": "assistant",
            "content": [{"type": "thinking", "thinking": draw(text)}, {"type": "text", "text": draw(text)}],
        },
    ]


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(msgs=conversation(), target=st.one_of(st.integers(1, 12), st.integers(12, 600)))
def test_every_digest_fragment_is_whole_clusters(msgs: list[dict[str, Any]], target: int) -> None:
    request = LLMRequest(messages=msgs, metadata={"target_tokens": target, "summarize_range": [0, len(msgs)]})
    digest = summarize_request(request)
    assert_whole(digest, request)


@SETTINGS
@given(s=st.one_of(text, bulky, odd))
def test_units_and_clips_start_and_end_between_clusters(s: str) -> None:
    b = boundaries(s)
    for start, end in split_spans(s):
        assert start in b and end in b, (s[max(0, start - 3) : start + 3], s[max(0, end - 3) : end + 3])
    shown, _ = _clip(s, MAX_BULKY_CHARS)
    stripped = strip_clusters(s)  # s.strip() can leave a mark whose base was a space (' \u0301')
    assert stripped.startswith(shown) and len(shown) in boundaries(stripped)
    assert not shown or not unicodedata.category(shown[0]).startswith("M"), shown[:3]


def test_literal_cases() -> None:
    """Handed shapes: a family emoji at the unit limit, a flag and an accent at the clip limit."""
    family = "👨\u200d👩\u200d👧\u200d👦"
    for filler in range(MAX_UNIT_CHARS - 12, MAX_UNIT_CHARS + 1):
        s = "x" * filler + family * 3 + "y" * 50
        b = boundaries(s)
        assert all(a in b and e in b for a, e in split_spans(s)), filler
    for pad in range(MAX_BULKY_CHARS - 6, MAX_BULKY_CHARS + 1):
        for cluster in ("🇫🇷", "e\u0301", "क्षि"):
            value = "v" * pad + cluster * 4
            shown, omitted = _clip(value, MAX_BULKY_CHARS)
            assert len(shown) in boundaries(value) and omitted == len(value) - len(shown)
    request = LLMRequest(
        messages=[{"role": "user", "content": "Deploy " + "🏳️\u200d🌈" * 200}], metadata={"target_tokens": 6}
    )
    digest = summarize_request(request)
    assert digest.lines and digest.text[-1] != "\u200d"
    assert_whole(digest, request)


def test_a_space_carrying_a_mark_is_stripped_whole() -> None:
    """Found by CI's run of the property above: a plan item ``" \\u0301"`` (a space carrying an acute)
    was stripped to the lone mark."""
    assert strip_clusters(" \u0301") == ""
    assert strip_clusters("  \u0301 e\u0301 ") == "e\u0301"
    assert strip_clusters(" cafe\u0301 ") == "cafe\u0301"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
    assert _clip(" \u0301" + family, MAX_BULKY_CHARS) == (family, 0)  # CI's second case: the test's own strip
