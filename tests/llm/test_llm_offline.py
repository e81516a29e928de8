"""The offline summarizer: verbatim, within target, deterministic, and better than chance at keeping
paths and numbers — on real Claude Code sessions and on random input."""

from __future__ import annotations

import asyncio
import json
import random
import re
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.content import block_to_dict
from context_journal.llm import LLMMessage, LLMRequest, OfflineSummarizer, summarize_request
from context_journal.llm._extract import CLIP_MARK, LABELS, extract_units
from context_journal.llm.offline import EMPTY_DIGEST, Digest, target_tokens
from context_journal.tokens import EstimatingCounter, estimate_text_tokens
from tests.hypothesis_budget import examples
from tests.llm._sessions import load_session, summary_request

SESSIONS = [
    "258c7280-ae70-4798-800f-63464d01a85d",
    "4d5611e5-241a-462a-8d15-5122611a9569",
    "8463c716-a2ea-4c14-9efa-87158ebd9f20",
    "ae4a77f8-aedd-4bc1-888f-c94edc91af04",
]
COUNTER = EstimatingCounter()
FIXED_LABELS = set(LABELS.values())

# --- helpers ----------------------------------------------------------------------------------


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def corpus(request: LLMRequest) -> list[str]:
    """Every string of the request a fragment may be copied from (tool inputs also as JSON)."""
    out = [request.system_text]
    for m in request.messages:
        if m.name:
            out.append(m.name)
        for b in m.content:
            data = block_to_dict(b)
            out.extend(_strings(data))
            if data["type"] == "tool_use":
                out.append(json.dumps(data["input"]))
                out.append(json.dumps(data["input"], ensure_ascii=False))
    return out


def assert_verbatim(digest: Digest, request: LLMRequest) -> None:
    texts = corpus(request)
    names = {f"{m.name} said:" for m in request.messages if m.name}
    rendered = []
    for line in digest.lines:
        assert line.label in FIXED_LABELS | names, line.label
        for frag in line.fragments:
            assert frag and any(frag in t for t in texts), f"not verbatim: {frag!r}"
        rendered.append(line.text)
        assert line.text.startswith(line.label + " ")
    assert digest.text == ("\n".join(rendered) or EMPTY_DIGEST)
    # The text itself: strip labels and clip marks, cut at the connectives (and the brackets of a
    # list or dict argument); every piece is still in the input.
    for line in digest.lines:
        body = CLIP_MARK.sub(" ", line.text[len(line.label) + 1 :])
        for piece in re.split(r"; |, |: |\(|\)|\[|\]| ", body):
            if piece:
                assert any(piece in t for t in texts), f"not verbatim: {piece!r} in {line.text!r}"


def tokens_of(m: LLMMessage) -> int:
    return COUNTER.count_message(m.role, [block_to_dict(b) for b in m.content])


def windows(messages: list[LLMMessage], size: int, count: int) -> list[list[LLMMessage]]:
    """``count`` consecutive-message windows of about ``size`` tokens, spread over the session."""
    out = []
    for k in range(count):
        start = k * len(messages) // count
        acc, window = 0, list[LLMMessage]()
        for m in messages[start:]:
            t = tokens_of(m)
            if window and acc + t > size:
                break
            window.append(m)
            acc += t
        out.append(window)
    return out


@pytest.fixture(scope="module")
def sessions(data_dir: Path) -> dict[str, list[LLMMessage]]:
    base = data_dir / "claude-code-sessions"
    return {name: load_session(base / f"{name}.jsonl") for name in SESSIONS}


# --- real data --------------------------------------------------------------------------------


@pytest.mark.parametrize("target", [150, 800, 2000])
def test_real_sessions_verbatim_within_target_deterministic(sessions: dict[str, list[LLMMessage]], target: int) -> None:
    for messages in sessions.values():
        for window in windows(messages, 20_000, 3):
            request = summary_request(window, target)
            digest = summarize_request(request)
            assert_verbatim(digest, request)
            assert digest.tokens <= target
            # Uses most of the target, or of the material there is when that is less.
            material = sum(u.tokens + 2 for u in extract_units(request.messages, 0, len(window)))
            assert digest.tokens >= 0.6 * min(target, material)
            again = summarize_request(request.model_copy(deep=True))
            assert again.text == digest.text


def test_role_labels_on_real_session(sessions: dict[str, list[LLMMessage]]) -> None:
    window = windows(sessions[SESSIONS[2]], 20_000, 1)[0]
    digest = summarize_request(summary_request(window, 1500))
    labels = {line.label for line in digest.lines}
    assert {"The user said:", "I said:", "I called:", "Results:"} <= labels
    # The session opens with the user's request; it survives.
    assert "Work on bead spotter-fum." in digest.text


PATH_RE = re.compile(r"(?:/[\w.@-]+){2,}|\b[\w-]+/[\w./-]+\.\w+")
NUMBER_RE = re.compile(r"\b\d{2,}\b")


def _features(text: str, pattern: re.Pattern[str]) -> set[str]:
    return set(pattern.findall(text))


def test_paths_and_numbers_kept_better_than_random(sessions: dict[str, list[LLMMessage]]) -> None:
    """Share of the distinct paths / numbers of the candidate pool kept in the digest, against a
    random pick of the same candidates with the same token budget (20 seeds)."""
    ours_p, base_p, ours_n, base_n = [], [], [], []
    for messages in sessions.values():
        for window in windows(messages, 20_000, 4):
            request = summary_request(window, 600)
            units = extract_units(request.messages, 0, len(window))
            pool = "\n".join(u.rendered for u in units)
            paths, numbers = _features(pool, PATH_RE), _features(pool, NUMBER_RE)
            if len(paths) < 5 or len(numbers) < 5:
                continue
            digest = summarize_request(request)
            ours_p.append(len(paths & _features(digest.text, PATH_RE)) / len(paths))
            ours_n.append(len(numbers & _features(digest.text, NUMBER_RE)) / len(numbers))
            budget = digest.tokens
            rp, rn = [], []
            for seed in range(20):
                pick = units[:]
                random.Random(seed).shuffle(pick)
                chosen, total = [], 0
                for u in pick:
                    if total + u.tokens + 2 <= budget:
                        chosen.append(u.rendered)
                        total += u.tokens + 2
                text = "\n".join(chosen)
                rp.append(len(paths & _features(text, PATH_RE)) / len(paths))
                rn.append(len(numbers & _features(text, NUMBER_RE)) / len(numbers))
            base_p.append(statistics.mean(rp))
            base_n.append(statistics.mean(rn))
    assert len(ours_p) >= 8
    mp, bp, mn, bn = (statistics.mean(x) for x in (ours_p, base_p, ours_n, base_n))
    print(f"\npaths kept: ours {mp:.3f} vs random {bp:.3f} ({len(ours_p)} windows)")
    print(f"numbers kept: ours {mn:.3f} vs random {bn:.3f}")
    assert mp > 1.3 * bp
    assert mn > 1.1 * bn


def test_speed_on_20k_token_requests(sessions: dict[str, list[LLMMessage]]) -> None:
    """Printed, not asserted (house style): the time of one digest of a ~20k-token request."""
    timings = []
    for messages in sessions.values():
        for window in windows(messages, 20_000, 3):
            request = summary_request(window, 800)
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                summarize_request(request)
                best = min(best, time.perf_counter() - start)
            timings.append(best * 1000)
    print(f"\noffline digest of ~20k tokens: median {statistics.median(timings):.1f} ms, max {max(timings):.1f} ms")


# --- rules on small inputs --------------------------------------------------------------------


def convo() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Please fix the login bug in src/auth/login.py. Do not change the public API."},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I will read the file first."},
                {
                    "type": "tool_use",
                    "id": "toolu_01X",
                    "name": "Read",
                    "input": {"file_path": "src/auth/login.py", "limit": 40},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_01X",
                    "is_error": True,
                    "content": "Traceback (most recent call last):\nKeyError: 'session_token' at line 88",
                }
            ],
        },
        {
            "role": "assistant",
            "content": "The fix: check_session_token() now handles a missing key. Tests pass: 14 passed.",
        },
    ]


def test_sections_are_role_aware_and_calls_show_key_args() -> None:
    request = LLMRequest(messages=[*convo(), {"role": "user", "content": "Summarise the above in about 120 tokens."}])
    digest = summarize_request(request)
    assert_verbatim(digest, request)
    text = digest.text
    assert "The user said: Please fix the login bug in src/auth/login.py." in text
    assert "I called: Read(file_path: src/auth/login.py, limit: 40)" in text
    assert (
        "Errors: Traceback (most recent call last):" in text or "Errors: KeyError: 'session_token' at line 88" in text
    )
    assert "Summarise the above" not in text  # the instruction turn is not summarised
    assert digest.target_tokens == 120


def test_named_participants_get_their_label() -> None:
    request = LLMRequest(
        messages=[
            {"role": "user", "name": "Caroline", "content": "I went to the LGBTQ support group on 7 May 2023."},
            {"role": "assistant", "content": "That sounds meaningful."},
        ],
        metadata={"instruction_last": False},
    )
    digest = summarize_request(request)
    assert digest.lines[0].label == "Caroline said:"
    assert_verbatim(digest, request)


def test_summarize_range_excludes_context() -> None:
    context = {"role": "user", "content": "HEAD-ONLY detail about the kickoff meeting on 2024-01-02."}
    request = LLMRequest(messages=[context, *convo()], metadata={"summarize_range": [1, 5], "target_tokens": 400})
    digest = summarize_request(request)
    assert "HEAD-ONLY" not in digest.text and digest.range == (1, 5)
    assert "src/auth/login.py" in digest.text


def test_target_sources_and_cap() -> None:
    base = {"messages": [*convo(), {"role": "user", "content": "Write a memory of about 90 words."}], "max_tokens": 500}
    assert target_tokens(LLMRequest.model_validate(base)) == 120  # 90 words * 4/3
    assert target_tokens(LLMRequest.model_validate({**base, "metadata": {"target_tokens": 60}})) == 60
    assert target_tokens(LLMRequest.model_validate({**base, "metadata": {"target_tokens": 9000}})) == 500
    plain = {"messages": convo(), "max_tokens": 321}
    assert target_tokens(LLMRequest.model_validate(plain)) == 321


def test_tiny_target_cuts_the_best_unit() -> None:
    request = LLMRequest(messages=convo(), metadata={"target_tokens": 12})
    digest = summarize_request(request)
    assert digest.lines and digest.tokens <= 12
    assert_verbatim(digest, request)


def test_prefix_when_no_unit_fits() -> None:
    long = "The deployment of service alpha_beta to cluster eu-west-2 failed " * 4
    request = LLMRequest(messages=[{"role": "user", "content": long.strip()}], metadata={"instruction_last": False})
    digest = summarize_request(
        request.model_copy(update={"metadata": {"instruction_last": False, "target_tokens": 15}})
    )
    assert len(digest.lines) == 1 and digest.tokens <= 15
    assert digest.text.startswith("The user said: The deployment of service")
    assert_verbatim(digest, request)


def test_nothing_to_summarise() -> None:
    img = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    resp = asyncio.run(OfflineSummarizer().complete(LLMRequest(messages=[{"role": "user", "content": [img]}])))
    assert resp.text == EMPTY_DIGEST and resp.stop_reason == "end_turn"


def test_complete_reports_usage_and_is_deterministic() -> None:
    request = LLMRequest(messages=convo(), metadata={"target_tokens": 200}, model="my-offline")
    p = OfflineSummarizer()
    a = asyncio.run(p.complete(request))
    b = asyncio.run(p.complete(request))
    assert a == b and a.stop_reason == "end_turn" and a.model == "my-offline" and a.provider == "offline"
    assert a.usage.output_tokens == estimate_text_tokens(a.text) <= 200
    assert a.usage.input_tokens > a.usage.output_tokens
    assert a.id is not None and a.id.startswith("offline_")


def test_system_reminders_are_not_user_speech() -> None:
    text = (
        "<system-reminder>\nInternal hook text with /tmp/hook/path.\n</system-reminder>\nDeploy to staging-eu-2 please."
    )
    request = LLMRequest(messages=[{"role": "user", "content": text}], metadata={"instruction_last": False})
    digest = summarize_request(request)
    assert "Deploy to staging-eu-2 please." in digest.text and "hook" not in digest.text


# --- property: random input -------------------------------------------------------------------

_SNIPPETS = ["\n- ", "Error: ", "toolu_", " 2024-05-01 ", "**"]
_ALPHABET = st.sampled_from([*"abcdefghij KLMNOP 0123456789 ._-/:?!,;'\"`()[]{}<>*#\n\t→é漢😀", *_SNIPPETS])
_TEXT = st.lists(_ALPHABET, min_size=0, max_size=80).map("".join)
_ARGS = st.dictionaries(
    st.sampled_from(["file_path", "command", "pattern", "content", "limit", "flag", "nested"]),
    st.one_of(
        _TEXT,
        st.integers(-5, 10**6),
        st.booleans(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.just({"a": 1}),
    ),
    max_size=4,
)


@st.composite
def messages(draw: st.DrawFn) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(draw(st.integers(1, 8))):
        role = "user" if i % 2 == 0 else "assistant"
        blocks: list[dict[str, Any]] = []
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(["text", "text", "thinking", "tool_use", "tool_result"]))
            if kind == "text":
                blocks.append({"type": "text", "text": draw(_TEXT) or "x"})
            elif kind == "thinking":
                blocks.append({"type": "thinking", "thinking": draw(_TEXT)})
            elif kind == "tool_use":
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": f"toolu_{i}",
                        "name": draw(st.sampled_from(["Read", "Bash", "t"])),
                        "input": draw(_ARGS),
                    }
                )
            else:
                content: Any = draw(
                    st.one_of(_TEXT, st.lists(st.builds(lambda t: {"type": "text", "text": t}, _TEXT), max_size=2))
                )
                blocks.append(
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_{i}",
                        "content": content,
                        "is_error": draw(st.booleans()),
                    }
                )
        name = draw(st.one_of(st.none(), st.sampled_from(["ann", "Bob"]))) if role == "user" else None
        out.append({"role": role, "content": blocks, "name": name})
    return out


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages(), st.integers(1, 400))
def test_random_input_is_verbatim_within_target_and_deterministic(msgs: list[dict[str, Any]], target: int) -> None:
    request = LLMRequest(messages=msgs, metadata={"target_tokens": target})
    digest = summarize_request(request)
    assert_verbatim(digest, request)
    assert not digest.lines or digest.tokens <= target
    assert summarize_request(request).text == digest.text
