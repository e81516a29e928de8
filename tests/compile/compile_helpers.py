"""Shared helpers of the compile tests: the bug cases' word counter and input format, invariant checks."""

from __future__ import annotations

import base64
import json
import random
import re
import struct
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from context_journal import AutobiographicalConfig, AutobiographicalStrategy
from context_journal.compile import CompileResult, OverBudgetError
from context_journal.manager import ContextManager
from context_journal.rendering.repairs import text_tokens_kept
from context_journal.strategies import PassthroughStrategy, Strategy, WindowedPassthroughStrategy
from context_journal.tokens import EstimatingCounter
from context_journal.validate import validate_messages, validate_openai_messages
from context_journal.views import running_turn_start
from tests.bug_cases import BUG_DIR as BUG_DIR
from tests.bug_cases import WordCounter as WordCounter
from tests.bug_cases import load_case as load_case
from tests.bug_cases import words as words


def manager_for(
    messages: Sequence[Mapping[str, Any]],
    *,
    counter: Any = None,
    strategy: Strategy | None = None,
    path: str = "memory:",
) -> ContextManager:
    """A manager holding the messages (``role`` becomes the participant)."""
    cm = ContextManager.open(path, token_counter=counter, strategy=strategy or PassthroughStrategy())
    cm.add_messages(
        [
            {"participant": m.get("role", m.get("participant")), "content": m["content"], "id": m.get("id")}
            for m in messages
        ]
    )
    return cm


def strategy_named(name: str) -> Strategy:
    return WindowedPassthroughStrategy() if name in ("windowed", "sliding_window") else PassthroughStrategy()


def ids(result: CompileResult) -> list[str | None]:
    """The stored message id behind each compiled message (None for notes and stubs)."""
    out: list[str | None] = []
    for m in result.messages:
        own = [s.id for s in m.sources if s.kind == "message"]
        out.append(own[0] if own else None)
    return out


def thinking_loop(cm: ContextManager) -> bool:
    """True when the manager's messages end in a tool loop that opened with thinking (bug case B62)."""
    return running_turn_start(cm._reader_view()) is not None


_LOOP_NOTES = ("running turn opening", "running turn")


_THINKING = ("thinking", "redacted_thinking")


def running_loop_kept_whole(cm: ContextManager, result: CompileResult) -> None:
    """A thinking-led tool loop at the end is rendered raw from its first message (thinking byte for
    byte), or none of it raw."""
    view = cm._reader_view()
    start = running_turn_start(view)
    if start is None:
        return
    loop = [e.id for e in view.entries(start, len(view))]
    raw = {m.sources[0].id: m for m in result.messages if m.sources and m.sources[0].kind == "message"}
    if raw.keys() & set(loop):  # else nothing of the loop raw (left out, or as a transcript in a user note)
        assert loop[0] in raw, "a running tool loop was entered half-way"
        # Nor its opening raw and later steps in a transcript after it (a review: a call the repairs answered
        # with a stub ended the raw run, the steps after it went as a transcript at every budget).
        # A message written while the loop ran by another speaker (text, or their call shown as text) ends the
        # provider's turn: the steps from it on go as a transcript after the raw run, which is whole.
        noted = {
            s.id
            for m in result.messages
            if m.sources and m.sources[0].kind != "message"
            for s in m.sources
            if s.kind == "message"
        }
        # A late result of a call made before the loop (stored inside the loop's range, moved by the repairs
        # to follow its call) is not a step of the loop, wherever it is shown (fuzz: shown relocated before
        # the user turn, it read as a step sent in a note).
        steps = [mid for mid in loop if not _answers_elsewhere(cm, mid, loop)]
        if noted & set(steps):
            after = cm.get_message(next(mid for mid in steps if mid in noted))
            opener = cm.get_message(loop[0]).participant
            interjected = after.participant != opener and not any(b.type == "tool_result" for b in after.content)
            assert interjected, f"a running tool loop sent part raw, part as a transcript: {noted & set(steps)}"
        first = raw[loop[0]]
        stored = cm.get_message(loop[0]).content_dicts()[0]
        assert dict(first.content[0]) == dict(stored), "the loop's opening thinking changed"
    # Every step of the loop sent raw keeps its signed thinking byte for byte (a review saw a later step's
    # thinking dropped by its excerpt, its calls kept).
    for mid in raw.keys() & set(loop):
        signed = [
            b
            for b in cm.get_message(mid).content_dicts()
            if b.get("type") == "redacted_thinking" or (b.get("type") == "thinking" and b.get("signature"))
        ]
        sent = [dict(b) for b in raw[mid].content if b.get("type") in _THINKING]
        assert sent == [dict(b) for b in signed], (
            f"the thinking of step {mid} of the running loop changed: {sent} {signed}"
        )
    # No step of the loop goes without a word (a review finding): the note the compiler writes before
    # the opening (or the transcript) says how many of its messages up to the newest shown are not shown.
    shown = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
    if not shown & set(loop):
        return
    last = max(k for k, mid in enumerate(loop) if mid in shown)
    # Results of calls made before the loop, dropped as orphans (a repair says so), are not its steps.
    orphans = {r.message_id for r in result.repairs if r.kind in ("orphan_result_dropped", "duplicate_result_dropped")}
    missing = [mid for mid in loop[:last] if mid not in shown and mid not in orphans]
    notes = " ".join(
        str(m.content[0].get("text", ""))
        for m in result.messages
        if m.sources and m.sources[0].kind == "synthetic" and m.sources[0].id in _LOOP_NOTES
    )
    if missing:
        # A loop sent raw is sent whole, from its opening to its newest step: never its opening and newest
        # steps with the steps between left out (B62: "never a partial turn"; that layout once stood when the
        # loop did not fit whole, its results unshortened and the room unused).
        assert not raw.keys() & set(loop), f"a running tool loop sent in part, without {missing}"
        # Said to the model by the transcript's heading (a heading cut by an excerpt lost the count: fuzz).
        assert f"{len(missing)} of its messages" in notes, f"steps of the running loop left out silently: {missing}"
    else:
        assert "of its messages" not in notes


def _answers_elsewhere(cm: ContextManager, mid: str, loop: Sequence[str]) -> bool:
    """True when message ``mid`` holds only tool_results, none answering a call of the ``loop``."""
    calls = {b.get("id") for m in loop for b in cm.get_message(m).content_dicts() if b.get("type") == "tool_use"}
    blocks = cm.get_message(mid).content_dicts()
    return bool(blocks) and all(b.get("type") == "tool_result" and b.get("tool_use_id") not in calls for b in blocks)


def assert_valid(result: CompileResult, counter: Any = None, thinking: bool = False) -> None:
    """Every provider rule holds, in the result and in both exports, and the result fits its budget
    (``thinking``: extended thinking is on, so a running tool loop must open with its thinking)."""
    assert validate_messages(result.as_messages(), thinking=thinking, sendable_ids=False) == []  # (journal ids)
    params = result.to_anthropic()
    assert validate_messages(params["messages"], alternate=True, thinking=thinking) == []
    assert len(_cache_marks(params)) <= 4
    assert validate_openai_messages(result.to_openai()) == []
    assert result.tokens <= result.budget
    for r in result.repairs:  # an excerpt is smaller than what it cut (a review found "112 to 129")
        found = re.search(r"cut from about ([\d,]+) to ([\d,]+) tokens", r.detail)
        if found:
            before, after = (int(g.replace(",", "")) for g in found.groups())
            assert after < before, r.detail
    if counter is not None:
        recount = sum(counter.count_message(m.participant, m.content) for m in result.messages)
        assert recount == sum(m.tokens for m in result.messages)
        system = sum(counter.count_block(b) for b in result.system)
        if result.system:
            system += getattr(counter, "message_overhead", 0)
        assert result.estimated_tokens == recount + system  # the reported total is the real sum


def _cache_marks(params: Mapping[str, Any]) -> list[Any]:
    """Every ``cache_control`` marker of a request: tools, system, message blocks and the blocks nested in
    tool results (all count toward Anthropic's limit of 4)."""
    marks = [t for t in params.get("tools", []) if "cache_control" in t]

    def walk(blocks: Sequence[Any]) -> None:
        for b in blocks:
            if isinstance(b.get("content"), list):
                walk(b["content"])
            if "cache_control" in b:
                marks.append(b)

    walk(params.get("system", []))
    for m in params["messages"]:
        walk(m["content"])
    return marks


def journal_state(cm: ContextManager) -> list[dict[str, Any]]:
    """Every stored message version of the slot (to check a compile changed nothing)."""
    records = cm.store.read_slot(cm.slot, cm.messages.branch_id)
    return [{"seq": r.seq, "item": r.item, "op": int(r.op), "body": r.body} for r in records]


def stored_blocks(cm: ContextManager, kind: str) -> list[str]:
    """JSON dumps of every stored block of a type (for byte-identity checks)."""
    out = []
    for m in cm.get_all_messages():
        for b in m.content_dicts():
            if b.get("type") == kind:
                out.append(json.dumps(b, sort_keys=True))
    return out


def smallest_budget(cm: ContextManager, hi: int = 40_000) -> int:
    """The smallest budget (tokens) of 1..``hi`` a binary search finds ``cm.compile`` to fit (it does not
    check that every larger budget fits)."""
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            cm.compile(mid)
        except OverBudgetError:
            lo = mid + 1
        else:
            hi = mid
    return lo


def lagging_turns(config: Any, turns: int, size: int) -> ContextManager:
    """A memory manager with the autobiographical strategy of ``config`` holding a short rules message
    (``rules``) and ``turns`` alternating user/assistant turns of ``size`` words each (``t0``...), none
    summarised (compression lags)."""
    from context_journal.strategies import AutobiographicalStrategy

    cm = ContextManager.open("memory:", strategy=AutobiographicalStrategy(config))
    cm.add_message("user", "Rules: answer briefly and cite the file.", id="rules")
    for k in range(turns):
        cm.add_message("user" if k % 2 == 0 else "assistant", f"Turn {k}: " + words(size, k), id=f"t{k}")
    return cm


LAG_WINDOWS = {
    "head": st.sampled_from([60, 200, 500]),
    "recent": st.sampled_from([300, 1_000, 2_000]),
    "chunk": st.sampled_from([200, 400, 1_000]),
}
"""Hypothesis strategies for the head window, recent window and chunk tokens of a lagging history's
autobiographical strategy (``@given(..., **LAG_WINDOWS)``; see :func:`lag_config`)."""


def lag_config(head: int, recent: int, chunk: int) -> Any:
    """The :class:`AutobiographicalConfig` of :data:`LAG_WINDOWS`' draws."""
    from context_journal.strategies import AutobiographicalConfig

    return AutobiographicalConfig(head_window_tokens=head, recent_window_tokens=recent, target_chunk_tokens=chunk)


_COUNTER = EstimatingCounter()


def bare_blocks(result: CompileResult) -> list[str]:
    """The blocks of stored messages sent that keep nothing of their text (their bare cut markers)."""
    out = []
    for m in result.messages:
        if not any(s.kind == "message" for s in m.sources):
            continue
        for block in m.content:
            kept, whole = text_tokens_kept([block], _COUNTER)
            if whole and not kept:
                out.append(str(block)[:120])
    return out


def varied_history(cm: ContextManager, rng: random.Random) -> None:
    """Turns of the shapes the reviews found: dense short blocks, identifiers, Chinese, file-list results,
    cited fragments, plain prose."""
    call = 0
    for i in range(rng.randint(1, 7)):
        kind = rng.choice(["plain", "long", "blocks", "dense", "cjk", "tool", "cited"])
        if kind == "plain":
            cm.add_message("user", f"question {i} about service {i} " + "word " * rng.randint(1, 30))
            cm.add_message("assistant", f"answer {i} " + "text " * rng.randint(1, 60))
        elif kind == "long":
            cm.add_message("user", " ".join(f"word{j}" for j in range(rng.randint(50, 400))))
            cm.add_message("assistant", "ok")
        elif kind == "blocks":
            n = rng.randint(3, 80)
            cm.add_message("user", [{"type": "text", "text": f"w{j}x{rng.randint(0, 99)}"} for j in range(n)])
            cm.add_message("assistant", "noted")
        elif kind == "dense":
            cm.add_message("user", "/".join(f"d{j}" for j in range(rng.randint(5, 40))))
            cm.add_message("assistant", "seen")
        elif kind == "cjk":
            cm.add_message("user", "这是一个关于部署的问题" * rng.randint(1, 17))
            cm.add_message("assistant", "好的")
        elif kind == "cited":
            cm.add_message("user", "What does the spec say?")
            cm.add_message("assistant", cited_answer(rng.randint(3, 40)))
        else:
            call += 1
            files = "\n".join(f"file{j}.py" for j in range(rng.randint(2, 120)))
            cm.add_message("user", "list the files")
            cm.add_message(
                "assistant", [{"type": "tool_use", "id": f"t{call}", "name": "Bash", "input": {"command": "ls"}}]
            )
            cm.add_message("user", [{"type": "tool_result", "tool_use_id": f"t{call}", "content": files}])
            cm.add_message("assistant", "done listing")


def cited_answer(n: int) -> list[dict[str, Any]]:
    """An answer as a citing model writes it: plain fragments between cited ones."""
    blocks: list[dict[str, Any]] = []
    for j in range(n):
        if j % 2:
            blocks.append({"type": "text", "text": " and "})
            continue
        citation = {
            "type": "char_location",
            "cited_text": f"rule {j} applies to builds",
            "document_index": 0,
            "document_title": "spec",
            "start_char_index": j * 30,
            "end_char_index": j * 30 + 25,
        }
        blocks.append({"type": "text", "text": f"rule {j} applies", "citations": [citation]})
    return blocks


def _loop_strategy(name: str) -> Strategy:
    if name == "autobiographical":
        return AutobiographicalStrategy(AutobiographicalConfig())  # lagging: nothing drained
    return WindowedPassthroughStrategy() if name == "windowed" else PassthroughStrategy()


_PLAIN = ["alpha", "beta", "gamma", "delta", "river", "stone", "cloud", "forest", "invoice", "refund"]


def plain_words(n: int, seed: int = 0) -> str:
    """``n`` words drawn from ten common ones by a generator seeded with ``seed`` (about a token each, where
    :func:`words`' numbered filler words cost about three and a half)."""
    rng = random.Random(seed)
    return " ".join(rng.choice(_PLAIN) for _ in range(n))


def loop_history(
    name: str,
    chat: int,
    steps: int,
    sizes: Sequence[int | tuple[int, ...]],
    thinking: int = 40,
    *,
    tools: bool = False,
    chat_words: int = 30,
    plain: bool = False,
) -> ContextManager:
    """``chat`` chat turns of ``chat_words`` words, the question, then a loop of ``steps`` calls opened by
    signed thinking of ``thinking`` words, result ``k`` of ``sizes[k % len(sizes)]`` words (a tuple of sizes:
    that step makes parallel calls, one a size, answered by one message of their results); nothing
    summarised. With ``tools``, the calls are Claude Code's (``Read`` of a file, ``Bash``), so the working
    state holds files and commands and the compile renders the working-state block beside the loop. With
    ``plain``, every text is of :func:`plain_words` (a review's histories), else of :func:`words`."""
    text = plain_words if plain else words
    cm = ContextManager.open("memory:", strategy=_loop_strategy(name))
    msgs: list[dict[str, Any]] = [
        {"participant": "user" if k % 2 == 0 else "assistant", "content": text(chat_words, k), "id": f"c{k}"}
        for k in range(chat)
    ]
    if not msgs or msgs[-1]["participant"] != "user":
        msgs.append({"participant": "user", "content": "Go on, " + text(20), "id": "ask"})
    opening = {"type": "thinking", "thinking": text(thinking), "signature": "sig"}
    for k in range(steps):
        size = sizes[k % len(sizes)]
        uses: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for j, n in enumerate(size if isinstance(size, tuple) else (size,)):
            tid, seed = (f"t{k}", k) if j == 0 else (f"t{k}p{j}", k + 100 * j)
            use = {"type": "tool_use", "id": tid, "name": f"tool{k}", "input": {"arg": text(3, seed)}}
            if tools:
                call = (
                    "Read",
                    {"file_path": f"/srv/app/billing/mod_{k}_{j}.py" if j else f"/srv/app/billing/mod_{k}.py"},
                )
                if k % 2:
                    call = ("Bash", {"command": f"pytest tests/test_mod_{k}.py -x" + (f" -k c{j}" if j else "")})
                use = {"type": "tool_use", "id": tid, "name": call[0], "input": call[1]}
            uses.append(use)
            results.append({"type": "tool_result", "tool_use_id": tid, "content": text(n, seed)})
        msgs.append({"participant": "assistant", "content": [opening, *uses] if k == 0 else uses, "id": f"a{k}"})
        msgs.append({"participant": "user", "content": results, "id": f"r{k}"})
    cm.add_messages(msgs)
    return cm


def random_loop(rng: random.Random) -> tuple[int, int, list[int], int]:
    """Arguments of :func:`loop_history` after its strategy name, drawn as the property test of
    ``test_running_loop_readable.py`` draws them: chat turns, steps, result sizes (words), thinking words."""
    sizes = [rng.choice([1, 20, 60, 150, 400]) for _ in range(rng.randint(1, 3))]
    return rng.randint(0, 6), rng.randint(1, 8), sizes, rng.randint(5, 120)


def png_image(width: int, height: int, noise: float = 0.0, seed: int = 0, level: int = -1) -> str:
    """A real PNG of ``width`` x ``height`` pixels, base64: images are priced by their size.

    ``noise`` is the share of its bytes drawn at random (0: one flat colour, ``seed`` % 256, so images of two
    seeds differ; 1: every byte random, which no compression shrinks); ``level`` is zlib's (0 stores the pixels
    as they are, so the file is as large as the image)."""
    rng = random.Random(seed)

    def row() -> bytes:
        if noise <= 0:
            return bytes([seed % 256]) * (width * 3)
        if noise >= 1:
            return rng.randbytes(width * 3)
        return bytes(rng.randrange(256) if rng.random() < noise else 200 for _ in range(width * 3))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + row() for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, level)) + chunk(b"IEND", b"")
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + body).decode()
