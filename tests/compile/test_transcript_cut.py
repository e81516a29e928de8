"""The running loop's transcript cut line by line (``rendering/transcript.py``): when a thinking-led loop
cannot go raw whole, its transcript keeps the agent's calls and its newest result longest.

Cut as one text by head and tail (before), a 40-step loop at 900 tokens showed 4 of its 40 calls, and a
coding loop of Edit calls at 2,000 tokens the paths of its first and last edits only.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal import AutobiographicalConfig, AutobiographicalStrategy
from context_journal.rendering.repairs import _CUT_MARKER, _cut_text, message_line_text, text_tokens_kept
from context_journal.rendering.transcript import Transcript, call_short_form, cut_transcript
from context_journal.tokens import EstimatingCounter
from tests.compile.compile_helpers import (
    WordCounter,
    assert_valid,
    manager_for,
    running_loop_kept_whole,
    strategy_named,
    words,
)
from tests.hypothesis_budget import examples


def _transcript(messages: list[dict[str, Any]]) -> Transcript:
    lines = [f"{m['role']}: " + message_line_text(m["content"]) for m in messages]
    shorts = [call_short_form(m["role"], m["content"]) for m in messages]
    return Transcript(tuple(lines), tuple(shorts))


def _edit_loop(steps: int, body_words: int, result_words: int) -> list[dict[str, Any]]:
    """A coding loop: each step an Edit of a file with a long new body, then its result."""
    msgs: list[dict[str, Any]] = []
    for k in range(steps):
        use = {
            "type": "tool_use",
            "id": f"t{k}",
            "name": "Edit",
            "input": {"file_path": f"src/pkg/mod_{k}.py", "old_string": "pass", "new_string": words(body_words, k)},
        }
        msgs.append({"role": "assistant", "content": [use]})
        result = {
            "type": "tool_result",
            "tool_use_id": f"t{k}",
            "content": f"edited mod_{k}: " + words(result_words, k),
        }
        msgs.append({"role": "tool", "content": [result]})
    return msgs


def _positions(text: str, needles: list[str]) -> list[int]:
    return [text.find(n) for n in needles]


def test_the_short_form_names_the_call_and_its_first_string_argument() -> None:
    use = {"type": "tool_use", "id": "t", "name": "Edit", "input": {"file_path": "a/b.py", "new_string": "x" * 500}}
    assert call_short_form("assistant", [use]) == 'assistant: [called Edit {"file_path":"a/b.py",…}]'
    long = {"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "y" * 300}}
    assert call_short_form("assistant", [long]) == 'assistant: [called Bash {"command":"' + "y" * 120 + '…"}]'
    bare = {"type": "tool_use", "id": "t", "name": "ls", "input": {}}
    assert call_short_form("assistant", [bare, {"type": "text", "text": "hi"}]) == "assistant: [called ls]"
    assert call_short_form("tool", [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]) is None


@pytest.mark.parametrize("counter", [WordCounter(), EstimatingCounter()], ids=["words", "estimate"])
def test_every_call_stays_while_the_results_give_way(counter: Any) -> None:
    """Twelve Edit steps with 20-word bodies and 400-word results, cut to an eighth: every call whole, in
    order; the older results gone behind one marker that states their tokens; the newest result's end."""
    msgs = _edit_loop(12, 20, 400)
    t = _transcript(msgs)
    _, whole, _ = t.sizes(counter)
    text = cut_transcript(t, 0.125, counter)
    assert counter.count_block({"type": "text", "text": text}) <= int(whole * 0.125)
    calls = [line for line in t.lines if line.startswith("assistant: ")]
    at = _positions(text, calls)
    assert -1 not in at and at == sorted(at)
    first = text.split("\n")[0]
    assert re.match(
        r"\[… about \d+ of \d+ tokens cut here; the journal keeps the whole message …\] \(\d+ earlier", first
    )
    assert text.endswith(msgs[-1]["content"][0]["content"][-40:] + "]")


def test_the_oldest_calls_take_their_short_form_before_they_go() -> None:
    """Cut harder, the oldest Edits lose their bodies first (their paths stay), then the oldest go; the
    newest call is whole."""
    counter = WordCounter()
    t = _transcript(_edit_loop(12, 150, 400))
    _, whole, _ = t.sizes(counter)
    text = cut_transcript(t, 0.06, counter)
    assert counter.count_block({"type": "text", "text": text}) <= int(whole * 0.06)
    assert '[called Edit {"file_path":"src/pkg/mod_0.py",…}]' in text or "earlier calls not shown" in text
    assert t.lines[-2] in text  # the newest call whole
    paths = [f"src/pkg/mod_{k}.py" for k in range(12) if f"src/pkg/mod_{k}.py" in text]
    assert len(paths) >= 6 and paths == sorted(paths, key=lambda p: int(p.split("_")[1][:-3]))


def test_a_long_loop_cut_to_a_hundredth_shows_its_newest_calls_short() -> None:
    """100 Edit steps cut to a hundredth: the newest call whole, the calls before it in short form, the
    older ones behind the top marker, which counts them truly (a fault once put the folded calls back in
    short form, the text came out over its room and the whole went as a head-and-tail excerpt)."""
    counter = EstimatingCounter()
    t = _transcript(_edit_loop(100, 30, 100))
    _, whole, _ = t.sizes(counter)
    text = cut_transcript(t, 0.01, counter)
    assert counter.count_block({"type": "text", "text": text}) <= int(whole * 0.01)
    top, *rest = text.split("\n")
    told = re.search(r"\(99 earlier results and (\d+) earlier calls not shown\)", top)
    assert told is not None, top
    shown = [line for line in rest if line.startswith("assistant: [called Edit")]
    assert len(shown) == 100 - int(told.group(1)) >= 4
    assert shown[-1] == t.lines[-2] and all(line.endswith(",…}]") for line in shown[:-1])
    assert shown[0] == f'assistant: [called Edit {{"file_path":"src/pkg/mod_{100 - len(shown)}.py",…}}]'


_LOOP = st.lists(
    st.tuples(
        st.sampled_from(["Edit", "Bash", "Read"]),
        st.integers(0, 300),  # words of the call's argument
        st.integers(0, 900),  # words of its result
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=_LOOP, ratio=st.floats(0.002, 0.999), estimate=st.booleans())
def test_a_cut_transcript_fits_keeps_its_calls_in_order_and_states_its_cuts(
    steps: list[tuple[str, int, int]], ratio: float, estimate: bool
) -> None:
    counter: Any = EstimatingCounter() if estimate else WordCounter()
    msgs: list[dict[str, Any]] = []
    for k, (name, arg, out) in enumerate(steps):
        args = {"path": f"f{k}.py", "text": words(arg, k)}
        msgs.append(
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{k}", "name": name, "input": args}]}
        )
        result = {"type": "tool_result", "tool_use_id": f"t{k}", "content": words(out, k + 1) or "ok"}
        msgs.append({"role": "tool", "content": [result]})
    t = _transcript(msgs)
    _, whole, _ = t.sizes(counter)
    text = cut_transcript(t, ratio, counter)
    size = counter.count_block({"type": "text", "text": text})
    if text == _cut_text(t.body, ratio, whole, None):
        return  # no line layout fitted: the head-and-tail excerpt of any text (sized by its own rule)
    assert size <= max(1, int(whole * ratio))
    # The calls it shows (whole or short) are in order, and the newest call is one of them.
    shown = [k for k in range(len(steps)) if f'"path":"f{k}.py"' in _CUT_MARKER.sub("\n", text)]
    assert shown and shown[-1] == len(steps) - 1 and shown == sorted(shown)
    assert shown == list(range(shown[0], len(steps)))  # the oldest give way first
    # The top marker's count of calls not shown is true.
    told = re.search(r"(\d+) earlier calls? not shown\)", text.split("\n")[0])
    assert len(shown) == len(steps) - (int(told.group(1)) if told else 0)
    # What it keeps, by its markers' figures, is no more than the whole.
    kept, stated = text_tokens_kept([{"type": "text", "text": text}], counter)
    assert kept <= stated


@pytest.mark.parametrize("name", ["passthrough", "windowed", "autobiographical"])
def test_a_coding_loop_sent_as_a_transcript_names_every_file_it_edited(name: str) -> None:
    """A thinking-led loop of 20 Edits (200-word bodies, 300-word results) after a question, compiled at
    2,000 tokens: it cannot go raw whole, so it goes as a transcript that names all 20 files, in order,
    and ends with the newest result's end; the context is valid with thinking on and uses the budget."""
    msgs: list[dict[str, Any]] = [{"id": "ask", "role": "user", "content": "Refactor the package. " + words(20)}]
    for k, m in enumerate(_edit_loop(20, 200, 300)):
        content = list(m["content"])
        if k == 0:
            content = [{"type": "thinking", "thinking": words(30), "signature": "sig"}, *content]
        msgs.append({"id": f"m{k}", "role": "assistant" if m["role"] == "assistant" else "user", "content": content})
    strategy = AutobiographicalStrategy(AutobiographicalConfig.for_budget(2000)) if name == "autobiographical" else None
    cm = manager_for(msgs, strategy=strategy or strategy_named(name))
    cm.drain()
    result = cm.compile(2000)
    assert_valid(result, thinking=True)
    running_loop_kept_whole(cm, result)
    [note] = [m for m in result.messages if m.sources[0].id == "running turn"]
    text = note.content[1]["text"]
    at = _positions(text, [f"src/pkg/mod_{k}.py" for k in range(20)])
    assert -1 not in at and at == sorted(at), at
    assert text.endswith(words(300, 19)[-30:] + "]")
    assert result.tokens > 0.9 * 2000


# --- found by a fresh review ---------------------------------------------------------------------------


def _loop_messages(steps: int, call: Any, result: Any, parallel: int = 1) -> list[dict[str, Any]]:
    """A thinking-led loop after a question: ``call(k, j)`` the input of step ``k``'s ``j``-th call,
    ``result(k, j)`` its result's text."""
    msgs: list[dict[str, Any]] = [{"participant": "user", "content": [{"type": "text", "text": "Go."}]}]
    for k in range(steps):
        uses: list[dict[str, Any]] = [
            {"type": "tool_use", "id": f"t{k}_{j}", "name": "Edit", "input": call(k, j)} for j in range(parallel)
        ]
        if k == 0:
            uses.insert(0, {"type": "thinking", "thinking": "Plan.", "signature": "sig"})
        msgs.append({"participant": "assistant", "content": uses})
        answers = [
            {"type": "tool_result", "tool_use_id": f"t{k}_{j}", "content": result(k, j)} for j in range(parallel)
        ]
        msgs.append({"participant": "user", "content": answers})
    return msgs


def _note_text(cm: Any, budget: int) -> str:
    result = cm.compile(budget)
    assert_valid(result, thinking=True)
    running_loop_kept_whole(cm, result)
    [note] = [m for m in result.messages if m.sources[0].id == "running turn"]
    return str(note.content[1]["text"])


@pytest.mark.parametrize("dense", ["identifiers", "chinese"])
def test_no_older_result_is_kept_as_its_bare_marker(dense: str) -> None:
    """A review: results of dense text (identifiers, Chinese), shortened before the transcript was written,
    were cut again to their bare markers (some 25 tokens each, saying nothing), and the top marker counted
    only the results it had taken out. Each result shown keeps text of its own, and the top marker counts
    every result not shown. (At 3,800 tokens the Chinese loop goes raw, every result at its readable floor
    or above: issue 13's loop sent raw from the budget its steps fit at their floors.)"""

    def text(k: int, j: int) -> str:
        return " ".join(f"w{k}_{i}" for i in range(200)) if dense == "identifiers" else "日志条目处理完成，" * 120

    cm = manager_for(_loop_messages(40, lambda k, j: {"file_path": f"s{k}.py"}, text))
    for budget in (1800, 2500, 3000, 3800):
        result = cm.compile(budget)
        if budget == 3800 and not any(m.sources[0].id == "running turn" for m in result.messages):
            assert_valid(result, thinking=True)
            running_loop_kept_whole(cm, result)
            results = [b for m in result.messages for b in m.content if b.get("type") == "tool_result"]
            kept = [text_tokens_kept([b], EstimatingCounter())[0] for b in results]
            assert len(kept) == 40 and min(kept) >= 16, kept
            continue
        body = _note_text(cm, budget)
        figures = [(int(a), int(b)) for a, b in re.findall(r"\[… about (\d+) of (\d+) tokens cut here", body)]
        assert all(a < b for a, b in figures[1 if body.startswith("[…") else 0 :]), (budget, figures)
        told = re.match(r"\[… about \d+ of \d+ tokens cut here[^\]]*\] \((\d+) earlier results? not shown\)", body)
        shown = body.count("\nuser: [")
        assert shown + (int(told.group(1)) if told else 0) == 40, (budget, shown, told)


def test_the_top_marker_counts_parallel_calls_and_results() -> None:
    """A review: with two calls per step the top marker counted lines ("19 earlier results and 9 earlier
    calls") where 38 results and 18 calls were not shown."""
    cm = manager_for(
        _loop_messages(20, lambda k, j: {"file_path": f"src/f{k}_{j}.py"}, lambda k, j: "x = 1\n" * 150, parallel=2)
    )
    body = _note_text(cm, 600)
    told = re.match(r"\[… [^\]]*\] \((\d+) earlier results and (\d+) earlier calls not shown\)", body)
    assert told is not None, body[:200]
    calls = len(set(re.findall(r'"src/(f\d+_\d)\.py"', body)))
    lines = sum(1 for line in body.split("\n") if line.startswith("user: ["))  # each holds two results
    assert calls == 40 - int(told.group(2)) and 2 * lines == 40 - int(told.group(1))


def test_a_newest_call_too_large_to_fit_takes_its_short_form_before_the_older_calls_go() -> None:
    """A review: an Edit of some 3,600 tokens as the newest call sent the whole transcript as a head-and-tail
    excerpt (the newest call and most others not named) at every budget up to 5,000; then, once it took its
    short form last, every older call went first. It takes its short form when it cannot fit whole beside
    the newest result: every file is named from 1,000 tokens. And the room the other lines leave goes to
    it, cut by head and tail: in its short form a review saw 1,815 tokens sent at every budget from 2,000
    to 7,000."""
    body_of = {11: "def f():\n    return 1\n" * 600}
    cm = manager_for(
        _loop_messages(
            12,
            lambda k, j: {"file_path": f"src/mod_{k}.py", "new_string": body_of.get(k, "pass\n" * 5)},
            lambda k, j: f"edited mod_{k}: " + "ok " * 100,
        )
    )
    for budget in (1000, 2000, 4000, 7000):
        body = _note_text(cm, budget)
        assert [k for k in range(12) if f"src/mod_{k}.py" in body] == list(range(12)), budget
        if budget == 1000:
            assert '[called Edit {"file_path":"src/mod_11.py",…}]' in body
        else:
            newest = body[body.index('[called Edit {"file_path":"src/mod_11.py"') :]
            assert "return 1" in newest and "tokens cut here" in newest, budget  # its body, cut to the room
            assert cm.compile(budget).tokens >= 0.9 * budget


def test_line_sizes_never_add_up_to_more_than_the_whole() -> None:
    """A review: each line's share rounded up (at least 1 token) made 4,000 short lines add up to 1,600
    tokens more than the whole, and the top marker said "about 230607 of 230391 tokens cut"."""
    counter = EstimatingCounter()
    msgs = _loop_messages(2000, lambda k, j: {"command": f"grep -n foo src/file_{k}.py"}, lambda k, j: "hit\n" * 20)
    t = _transcript([{"role": m["participant"], "content": m["content"]} for m in msgs[1:]])
    sizes, whole, _ = t.sizes(counter)
    assert sum(sizes) <= whole
    text = cut_transcript(t, 0.01, counter)
    cut, of = (int(g) for g in re.match(r"\[… about (\d+) of (\d+) tokens", text).groups())  # type: ignore[union-attr]
    assert cut <= of == whole


def test_the_newest_call_is_widened_only_from_its_own_short_form() -> None:
    """A review: 30 Edits of one file, the newest small enough to be laid out whole. The widening took the
    last line equal to the newest call's short form, an older call's, and replaced it: the newest call was
    sent twice (once cut, once whole) and the older one was gone, at 800-1,500 tokens. Each call is shown
    once, in order."""
    steps = 30

    def call(k: int, j: int) -> dict[str, str]:
        return {"file_path": "app.py", "old_string": f"STEP{k}X " + words(400 if k < steps - 1 else 60, k)}

    cm = manager_for(_loop_messages(steps, call, lambda k, j: "ok"))
    for budget in (800, 1_000, 1_500):
        body = _note_text(cm, budget)
        assert sum("STEP29X" in line for line in body.split("\n")) == 1, budget
        shown = [k for k in range(steps) if f"STEP{k}X" in body]
        assert shown == sorted(shown), budget


def test_a_widened_newest_call_keeps_what_its_short_form_names() -> None:
    """A review: a newest Edit of some 24,000 tokens with a 101-character path, widened at 2,600 tokens, was cut
    inside its path ("…/importer/claude" and a marker), where its short form named the file whole. The
    widened call keeps its short form's part (name and first argument) whole and cuts only the rest."""
    path = "/home/USER/projects/spotter/lib/spotter/transcripts/sessions/importer/claude_code_session_reader.ex"

    def call(k: int, j: int) -> dict[str, str]:
        p, n = (path, 3_000) if k == 5 else (f"/tmp/f{k}.ex", 300)
        return {"file_path": p, "old_string": words(n, k), "new_string": words(n, k + 1)}

    cm = manager_for(_loop_messages(6, call, lambda k, j: words(40, k)))
    for budget in range(1_200, 4_001, 350):
        body = _note_text(cm, budget)
        assert path in body, budget
        assert all(f"/tmp/f{k}.ex" in body for k in range(5)), budget


@pytest.mark.parametrize("shape", ["parallel", "path not first", "long path"])
def test_a_newest_call_is_widened_only_where_its_short_form_names_it_whole(shape: str) -> None:
    """A second review: the widening kept the short form's part and cut the rest, which cut away the names and
    paths of a step's parallel calls but the first (more budget, fewer calls named), left out a path that was
    not the input's first key (the short form shows the first string argument), and cut a path over 120
    characters in its middle. Whatever the budget, the newest step names every call and path its short form
    names."""
    big = "def f():\n    return 1\n" * 300
    long_path = "src/" + "deeply/nested/" * 20 + "mod_11.py"
    if shape == "parallel":
        msgs = _loop_messages(
            12,
            lambda k, j: {"file_path": f"src/mod_{k}_{j}.py", "new_string": big if k == 11 else "y"},
            lambda k, j: f"edited mod_{k}_{j}: " + "ok " * 100,
            parallel=3,
        )
        names = ["src/mod_11_0.py", "src/mod_11_1.py", "src/mod_11_2.py"]
    elif shape == "path not first":
        msgs = _loop_messages(
            12,
            lambda k, j: {
                "edits": [{"old": big, "new": big}] if k == 11 else [],
                "file_path": f"src/mod_{k}.py",
                "note": big if k == 11 else "n",
            },
            lambda k, j: f"edited mod_{k}: " + "ok " * 100,
        )
        names = ["src/mod_11.py"]
    else:
        msgs = _loop_messages(
            12,
            lambda k, j: {"file_path": long_path if k == 11 else f"src/mod_{k}.py", "new_string": big},
            lambda k, j: f"edited mod_{k}: " + "ok " * 100,
        )
        names = []
    cm = manager_for(msgs)
    transcribed = 0
    for budget in (1_000, 1_500, 2_000, 3_000, 5_000, 7_000):
        result = cm.compile(budget)
        assert_valid(result, thinking=True)
        notes = [m for m in result.messages if m.sources[0].id == "running turn"]
        if not notes:
            continue  # the loop raw, the newest call's input excerpted in place
        transcribed += 1
        body = str(notes[0].content[1]["text"])
        newest = body[body.rfind("assistant: [called") :]
        assert all(name in newest for name in names), (budget, newest[:300])
        if shape == "long path":  # whole, or as its short form shows it (clipped at 120 characters, marked)
            assert long_path in newest or f'{long_path[:120]}…"' in newest, (budget, newest[:300])
    assert transcribed >= 2
