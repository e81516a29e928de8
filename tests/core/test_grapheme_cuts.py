"""Every place that cuts text cuts between grapheme clusters: an emoji with its
joiners, a flag, a letter with its combining marks, a Devanagari conjunct stays whole in excerpts,
summary caps, recall snippets and cut lines, and clipped fields of the execution journal."""

from __future__ import annotations

import json
from itertools import accumulate
from pathlib import Path

import pytest
import regex  # type: ignore[import-untyped]  # no stubs shipped
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal._graphemes import (
    ceil_boundary,
    clip_end,
    clip_start,
    floor_boundary,
    graphemes,
    is_boundary,
    split_words,
)
from context_journal.cli import app
from context_journal.cli.store_cmds import _preview
from context_journal.journal.summaries import clip
from context_journal.recall.search import snippet
from context_journal.recall.spans import _cut
from context_journal.rendering.repairs import _cut_text
from context_journal.state import ledger
from context_journal.strategies.autobiographical.planning import cap_text
from context_journal.tokens import EstimatingCounter, estimate_text_tokens
from context_journal.viz.html import excerpt
from tests.grapheme_clusters import CLUSTERS as SHARED
from tests.hypothesis_budget import examples

SETTINGS = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])

CLUSTERS = SHARED
ATOMS = [*CLUSTERS, "a", "b", "Z", "7", " ", "  ", ".", ",", "\n", "é", "中", "ก", "\u0301", "\u200d", "🇩"]

texts = st.lists(st.sampled_from(ATOMS), min_size=0, max_size=120).map("".join)
# Also fully random sequences of the awkward characters (marks first, lone joiners, odd flag counts).
odd = st.text(
    alphabet=st.sampled_from([*"ab \n\r.é中", "\u0301", "\u200d", "🇫", "🇷", "👍", "🏽", "\ufe0f", "\u0600"]),
    max_size=80,
)
any_text = st.one_of(texts, odd)


def boundaries(text: str) -> set[int]:
    """Cluster boundaries of ``text``, segmenting it whole (the reference for the helper's shortcuts)."""
    return {0, *accumulate(len(g) for g in regex.findall(r"\X", text))}


def is_prefix_at_boundary(piece: str, text: str) -> bool:
    return text.startswith(piece) and len(piece) in boundaries(text)


def is_suffix_at_boundary(piece: str, text: str) -> bool:
    return text.endswith(piece) and (len(text) - len(piece)) in boundaries(text)


@SETTINGS
@given(text=any_text, data=st.data())
def test_helper_boundaries_match_whole_text_segmentation(text: str, data: st.DataObject) -> None:
    i = data.draw(st.integers(-2, len(text) + 2))
    b = boundaries(text)
    lo, hi = floor_boundary(text, i), ceil_boundary(text, i)
    assert lo in b and hi in b
    assert lo <= max(0, min(i, len(text))) <= hi
    assert not any(lo < k < hi for k in b)
    assert is_boundary(text, i) == (i in b)
    assert "".join(graphemes(text)) == text


@SETTINGS
@given(text=any_text, n=st.integers(0, 200))
def test_clip_end_and_clip_start_keep_clusters_whole(text: str, n: int) -> None:
    head, tail = clip_end(text, n), clip_start(text, n)
    assert len(head) <= n and is_prefix_at_boundary(head, text)
    assert len(tail) <= n and is_suffix_at_boundary(tail, text)


def test_long_runs_without_ascii_pairs_are_cut_whole() -> None:
    text = "🇫🇷" * 700 + "e\u0301" * 600  # no ASCII pair to restart from: segmented from the start
    for n in (1, 2, 3, 1001, 1400, 1401, 2001):
        assert is_prefix_at_boundary(clip_end(text, n), text)
        assert is_suffix_at_boundary(clip_start(text, n), text)


@SETTINGS
@given(text=any_text)
def test_split_words_never_separates_a_cluster(text: str) -> None:
    b = boundaries(text)
    pos = 0
    for w in split_words(text):
        start = text.index(w, pos)
        assert start in b and start + len(w) in b, (w, text)
        pos = start + len(w)
    assert "".join(text.split()) == "".join("".join(w.split()) for w in split_words(text))


# --- the cut sites -------------------------------------------------------------------------------

_MARK = "\n[… about"


@SETTINGS
@given(text=texts.filter(lambda t: len(t) > 20), ratio=st.floats(0.01, 0.99))
def test_excerpts_cut_between_clusters(text: str, ratio: float) -> None:
    out = _cut_text(text, ratio, estimate_text_tokens(text), "m1")
    if _MARK not in out:
        return
    head, rest = out.split(_MARK, 1)
    tail = rest.split("…]\n", 1)[1] if "…]\n" in rest else ""
    assert is_prefix_at_boundary(head, text)
    if tail:  # the excerpt's end is stripped of trailing whitespace; the tail starts on a boundary
        assert any(text[k:].startswith(tail) and text[k:].rstrip() == tail for k in boundaries(text)), (tail, text)


@SETTINGS
@given(text=texts, cap=st.integers(1, 40))
def test_journal_clip_cuts_between_clusters(text: str, cap: int) -> None:
    out, was_cut = clip(text, cap)
    if not was_cut or out == "…":
        return
    flat = regex.sub(r"\s+", " ", text).strip()
    assert out.endswith("…")
    assert is_prefix_at_boundary(out[:-1], flat) or is_prefix_at_boundary(out[:-1], flat[: len(out) - 1].rstrip())


@SETTINGS
@given(text=texts.filter(lambda t: len(t.strip()) > 0), cap=st.integers(1, 30))
def test_summary_cap_cuts_between_clusters(text: str, cap: int) -> None:
    out, was_cut = cap_text(text, cap, estimate_text_tokens)
    if was_cut:
        assert (
            is_prefix_at_boundary(out, text)
            or is_prefix_at_boundary(out, text[: len(out)].rstrip())
            or any(text.startswith(out) and k >= len(out) and text[len(out) : k].isspace() for k in boundaries(text))
        )
        assert len(out) in boundaries(text) or text[len(out) :].lstrip() != text[len(out) :]


@SETTINGS
@given(
    body=st.lists(st.sampled_from([c for c in ATOMS if c not in (".", "\n", "\r\n")]), min_size=30, max_size=150),
    limit=st.integers(2, 12),
)
def test_recall_cut_lines_cut_between_clusters(body: list[str], limit: int) -> None:
    text = "".join(body).strip()
    if not text:
        return
    out, was_cut = _cut(text, frozenset(), limit, EstimatingCounter())
    if not was_cut:
        return
    piece = out.removeprefix("… ").removesuffix(" …")
    assert is_prefix_at_boundary(piece, text) or any(text[k:].startswith(piece) for k in boundaries(text))
    assert len(piece) in boundaries(piece)


@SETTINGS
@given(words=st.lists(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=4).map("".join), min_size=1, max_size=80))
def test_snippets_start_and_end_between_clusters(words: list[str]) -> None:
    text = " ".join(words)
    out, _ = snippet(text, {"zzz"}, width=8)
    shown = out.removeprefix("… ").removesuffix(" …").replace("**", "")  # matched words are marked
    whole = split_words(text)  # each at cluster boundaries of the text (see the split_words test)
    runs = {" ".join(whole[k:j]) for k in range(len(whole)) for j in range(k + 1, len(whole) + 1)}
    assert shown in runs or (not whole and not shown), (shown, text)  # whole words, never part of one


def test_literal_clusters_survive_every_cut_site() -> None:
    family = "👨\u200d👩\u200d👧\u200d👦"
    text = ("Report ready " + family + " 🇫🇷 café\u0301 नमस्ते ") * 40
    out = _cut_text(text, 0.3, estimate_text_tokens(text), "m1")
    for piece in out.split("\n"):
        assert "\u200d" not in (piece[:1] + piece[-1:])
    clipped, _ = clip(text, 25)
    assert clipped.endswith("…") and is_prefix_at_boundary(clipped[:-1].rstrip(), text)
    for n in range(len(family) + 1):
        assert clip_end(family, n) in ("", family)


def _foreign_clusters(out: str, source: str) -> list[str]:
    """Clusters of ``out`` holding a non-ASCII character of ``source`` that are not clusters of ``source``: the
    pieces a cut inside a cluster leaves (a lone joiner, half a flag, a family short of a member)."""
    whole = set(graphemes(source))
    chars = {c for c in source if not c.isascii()}
    return [g for g in graphemes(out) if g not in whole and any(c in chars for c in g)]


@SETTINGS
@given(text=any_text, n=st.integers(0, 120))
def test_the_ledgers_name_keeping_cuts_keep_clusters_whole(text: str, n: int) -> None:
    """The working-state ledger's cuts (``_head``/``_tail``: commands, errors, written text) never split a
    name, nor (a review: ❤️‍🔥 cut after its joiner in a Bash command and an error line) a cluster."""
    head, tail = ledger._head(text, n), ledger._tail(text, n)
    assert len(head) <= n and is_prefix_at_boundary(head, text), (head, text)
    assert len(tail) <= n and is_suffix_at_boundary(tail, text), (tail, text)


@pytest.mark.parametrize("pad", range(4))
def test_the_working_state_never_shows_part_of_a_cluster(pad: int) -> None:
    """A review's history: 30 Bash calls whose commands and error results are long runs of ❤️‍🔥 (one cluster
    of four code points) after ``pad`` letters; the working state's commands and errors, and the block the
    compile sends, were cut through the cluster at three of the four alignments."""
    fire = "\u2764\ufe0f\u200d\U0001f525"
    cm = ContextManager.open("memory:", strategy="windowed")
    for i in range(30):
        cm.add_message("user", f"Run step {i}: " + "please run the build again and look at the log " * 5)
        call = {
            "type": "tool_use",
            "id": f"b{i}",
            "name": "Bash",
            "input": {"command": "echo " + "x" * pad + fire * 300},
        }
        cm.add_message("assistant", [call])
        error = "Error: " + fire * 400 + "y" * pad
        cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"b{i}", "is_error": True, "content": error}])
    state = cm.working_state().to_dict()
    assert state["commands"] and state["errors"]
    for c in state["commands"]:
        assert not _foreign_clusters(c["command"], fire), c["command"][-20:]
    for e in state["errors"]:
        assert not _foreign_clusters(e, fire), e[:40]
    block = next(m.content[0]["text"] for m in cm.compile(8000).messages if m.sources[0].kind == "ledger")
    assert fire in block and not _foreign_clusters(block, fire)


@SETTINGS
@given(text=texts, width=st.integers(2, 60))
def test_display_previews_keep_clusters_whole(text: str, width: int) -> None:
    """The CLI's ``show`` preview and the context map's excerpts (text and a tool call's input) end on a
    cluster boundary, their ``…`` after it (a review saw the family emoji cut after its second member in
    ``context-journal show``, ``journal show`` and ``to_html()``)."""
    cm = ContextManager.open("memory:")
    shown = _preview(cm.get_message(cm.add_message("user", "x " + text)), width)
    body = " ".join(("x " + text).split())
    assert not _foreign_clusters(shown.removesuffix("…"), body), (shown, body)
    call = [{"type": "tool_use", "id": "t", "name": "Write", "input": {"content": text}}]
    out = excerpt(call, width).removesuffix("…")
    assert not _foreign_clusters(out, json.dumps({"content": text}, ensure_ascii=False)), out
    out = excerpt([{"type": "text", "text": text}], width).removesuffix("…")
    assert not _foreign_clusters(out, text), out


def test_journal_show_keeps_clusters_whole(tmp_path: Path) -> None:
    """``context-journal journal show`` previews each entry's body in 100 characters: a body of family emoji
    is cut between two families, not inside one (a review saw it cut after the third member)."""
    family = CLUSTERS[0]
    store = tmp_path / "j.db"
    runner = CliRunner()
    for pad in range(3):
        task = {"id": "t1", "title": "look", "conditions": [{"id": "c1", "description": "seen"}]}
        body = json.dumps({"goal": "g" * pad + family * 40, "tasks": [task]}, ensure_ascii=False)
        project = ["--store", str(store), "--project", f"p{pad}"]
        args = ["journal", "append", *project, "--author", "w", "--kind", "plan", "--key", "k", "--body", body]
        done = runner.invoke(app, args)
        assert done.exit_code == 0, done.output
        shown = runner.invoke(app, ["journal", "show", *project], env={"COLUMNS": "400"})
        assert shown.exit_code == 0, shown.output
        assert family in shown.output
        assert not _foreign_clusters(shown.output, family), (pad, shown.output)
