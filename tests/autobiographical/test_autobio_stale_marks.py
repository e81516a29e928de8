"""Edits and removals retire the summaries that read the old text (a review finding).

A message edited or removed (a tombstone) after a summary read it must not reach the model through that
summary: the change writes a stale mark with itself, the fold retires the level-1 summary (and every merge
above it) and the summary part that hold the message, the chunk is shown raw as it is now, and compression
writes it again. Nothing is erased: the journal keeps the retired records, and a fold as of an earlier
sequence still shows them.

Every message version carries a unique word; the summarizer copies every such word of what it summarises,
so a summary of an old version names that version's word. Then each test looks for the words of versions
that are no longer current in every place a model or a reader gets text: compiles at several budgets, the
summaries in range, and summary search.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.compile import EmptyContextError
from context_journal.llm import LLMRequest
from context_journal.manager import ContextManager
from context_journal.recall.summaries import fold_at
from context_journal.stores import MemoryStore
from context_journal.strategies import AutobiographicalStrategy
from context_journal.strategies.autobiographical.records import slot_for
from context_journal.testing import ScriptedProvider
from tests.autobiographical.autobio_helpers import manager
from tests.hypothesis_budget import examples

SMALL: dict[str, Any] = {
    "head_window_tokens": 60,
    "recent_window_tokens": 120,
    "target_chunk_tokens": 100,
    "merge_threshold": 2,
    "overflow": "window",
}
WORD = re.compile(r"\bw\d+v\d+\b")


def copied_summary(request: LLMRequest) -> str:
    """A summary naming every version word of the range the request summarises."""
    a, b = request.metadata.get("summarize_range", [0, 0])
    found: list[str] = []
    for m in request.messages[a:b]:
        for block in m.content:
            found += WORD.findall(getattr(block, "text", "") or "")
    return "remembered: " + (" ".join(dict.fromkeys(found)) or "nothing")


def copying_summarizer() -> ScriptedProvider:
    """A fake summarizer whose summary names every version word of the range it summarises."""
    return ScriptedProvider(default=copied_summary)


def leaky_summarizer() -> ScriptedProvider:
    """A fake summarizer that repeats every version word of its whole request: the opening messages and the
    earlier summaries it is given as context, not only the range it summarises (the worst a model can do)."""

    def answer(request: LLMRequest) -> str:
        found: list[str] = []
        for m in request.messages:
            for block in m.content:
                found += WORD.findall(getattr(block, "text", "") or "")
        return "remembered: " + (" ".join(dict.fromkeys(found)) or "nothing")

    return ScriptedProvider(default=answer)


def text_of(n: int, version: int = 0) -> str:
    return f"message {n} says w{n}v{version} and talks about the garden and the river walk " * 2


def readable(cm: ContextManager) -> str:
    """What a model or a reader can be given: compiles at several budgets, summaries, summary search."""
    parts: list[str] = []
    for budget in (250, 400, 700, 1_200, 50_000):
        with contextlib.suppress(EmptyContextError):  # every message removed
            parts.append(str(cm.compile(budget).to_dict()))
    messages = cm.get_all_messages()
    if messages:
        parts += [s.text for s in cm.get_summaries_in_range(messages[0].id, messages[-1].id)]
    parts += [h.snippet for h in cm.search_summary_text("remembered", limit=100)]
    return "\n".join(parts)


def summary_words(cm: ContextManager) -> set[str]:
    messages = cm.get_all_messages()
    if not messages:
        return set()
    return {w for s in cm.get_summaries_in_range(messages[0].id, messages[-1].id) for w in WORD.findall(s.text)}


def conversation(n: int = 40) -> tuple[ContextManager, list[str]]:
    cm = manager(summarizer=copying_summarizer(), **SMALL)
    ids = cm.add_messages(
        [{"participant": "user" if k % 2 == 0 else "assistant", "content": text_of(k), "id": f"m{k}"} for k in range(n)]
    )
    cm.drain()
    return cm, ids


def test_a_removed_message_leaves_every_summary_and_search_and_comes_back_in_none_after_drain() -> None:
    cm, _ = conversation()
    assert "w10v0" in summary_words(cm)  # summarised, and merged above
    levels = {s.level for s in cm.get_summaries_in_range("m10", "m10")}
    assert max(levels) >= 2
    cm.remove_message("m10")
    assert "w10v0" not in readable(cm)  # before compression catches up: the chunk is shown raw
    assert cm.get_summaries_in_range("m11", "m11") == []  # its chunk's summary and the merges above it
    cm.drain()
    assert "w10v0" not in readable(cm)
    assert {"w9v0", "w11v0"} <= summary_words(cm)  # its neighbours are summarised again
    other = ContextManager.open(store=cm.store, strategy=AutobiographicalStrategy(**SMALL))  # a fresh fold agrees
    assert "w10v0" not in readable(other)
    assert summary_words(other) == summary_words(cm)


def test_an_edited_message_is_summarised_as_it_reads_now() -> None:
    cm, _ = conversation()
    cm.edit_message("m12", text_of(12, 1))
    assert "w12v0" not in readable(cm)
    assert "w12v1" in str(cm.compile(400).to_dict()) or "w12v1" in str(cm.compile(50_000).to_dict())
    cm.drain()
    assert "w12v0" not in readable(cm)
    assert "w12v1" in summary_words(cm)


def test_the_retired_summaries_stay_in_the_journal_and_an_earlier_fold_shows_them() -> None:
    cm, _ = conversation()
    before = cm.store.head_seq()
    cm.remove_message("m10")
    cm.drain()
    branch = cm.store.get_branch("main").id
    old = fold_at(cm.store, branch, cm.namespace, before)
    assert any("w10v0" in s.text for s in old.summaries.values())
    stale = [r for r in cm.store.read_slot(slot_for(cm.namespace), branch) if r.item.startswith("stale/")]
    assert len(stale) == 1 and stale[0].value()["message_id"] == "m10" and stale[0].value()["op"] == "remove"
    assert any("w10v0" in (r.value() or {}).get("text", "") for r in cm.store.read_slot(slot_for(cm.namespace), branch))
    assert [h.summary_id for h in cm.search_summary_text("w10v0", as_of=before)]  # time travel still finds it


def test_a_change_on_a_fork_retires_nothing_on_main() -> None:
    cm, _ = conversation()
    cm.fork("side")
    cm.switch_branch("side")
    cm.remove_message("m10")
    assert "w10v0" not in readable(cm)
    cm.switch_branch("main")
    assert "w10v0" in summary_words(cm)


def test_a_message_outside_every_chunk_writes_a_mark_and_retires_nothing() -> None:
    cm, ids = conversation()
    count = len(summary_words(cm))
    cm.edit_message(ids[-1], text_of(39, 1))  # the recent window: never summarised
    assert len(summary_words(cm)) == count
    assert cm.tick().status == "idle"


def test_a_summary_read_before_a_change_that_commits_during_the_call_is_not_kept() -> None:
    """The race: a worker reads a chunk, another handle edits a message of it, then the answer comes."""
    store = MemoryStore()
    other: list[ContextManager] = []
    edited: list[bool] = []

    def answer(request: LLMRequest) -> str:
        text = copied_summary(request)
        if "w8v0" in text and not edited:
            other[0].edit_message("m8", text_of(8, 1))  # commits while the call is in flight
            edited.append(True)
        return str(text)

    cm = ContextManager.open(
        store=store, strategy=AutobiographicalStrategy(**SMALL), summarizer=ScriptedProvider(default=answer)
    )
    other.append(ContextManager.open(store=store, strategy=AutobiographicalStrategy(**SMALL)))
    cm.add_messages(
        [
            {"participant": "user" if k % 2 == 0 else "assistant", "content": text_of(k), "id": f"m{k}"}
            for k in range(40)
        ]
    )
    cm.drain()
    assert edited
    assert "w8v0" not in readable(cm)
    assert "w8v1" in summary_words(cm)


def _part_range(request: LLMRequest) -> tuple[str, int, int]:
    chunk, span = str(request.metadata["work"]).split(":")[1:3]
    first, last = span.split("-")
    return chunk, int(first), int(last)


def test_a_chunk_summarised_in_parts_keeps_the_parts_that_end_before_the_message() -> None:
    provider = copying_summarizer()
    cm = manager(summarizer=provider, summarizer_context_tokens=1_400, **{**SMALL, "target_chunk_tokens": 900})
    cm.add_messages(
        [
            {"participant": "user" if k % 2 == 0 else "assistant", "content": text_of(k) * 4, "id": f"m{k}"}
            for k in range(40)
        ]
    )
    cm.drain()
    parts = [_part_range(r) for r in provider.requests if r.metadata.get("kind") == "part"]
    chunk = parts[0][0]
    of_chunk = sorted(p for p in parts if p[0] == chunk)
    assert len(of_chunk) >= 2
    _, start, _ = of_chunk[-1]  # the chunk's last part: the ones before it end before the message
    target = next(m for m in cm.get_all_messages() if m.created_sequence == start)
    cm.edit_message(target.id, text_of(int(target.id[1:]), 1) * 4)
    n = len(provider.requests)
    cm.drain()
    again = [_part_range(r) for r in provider.requests[n:] if r.metadata.get("kind") == "part"]
    assert again and all(last >= start for _, _, last in again)  # only parts that may have read it
    assert not set(of_chunk[:-1]) & set(again)  # the chunk's earlier parts are reused
    assert f"w{target.id[1:]}v0" not in readable(cm)
    assert f"w{target.id[1:]}v1" in summary_words(cm)


def test_a_changed_opening_message_retires_every_summary_that_read_it() -> None:
    """A review found: every request carries the head window (and earlier summaries as context), so a
    summary may hold an opening message it does not cover; a change there retires every summary."""
    provider = leaky_summarizer()
    cm = manager(summarizer=provider, **SMALL)
    cm.add_messages(
        [
            {"participant": "user" if k % 2 == 0 else "assistant", "content": text_of(k), "id": f"m{k}"}
            for k in range(40)
        ]
    )
    cm.drain()
    held = cm.get_summaries_in_range("m20", "m20")
    assert held and all("w0v0" in s.text for s in held)  # the head's word, carried into a later summary
    cm.remove_message("m0")
    assert "w0v0" not in readable(cm)
    cm.drain()
    assert "w0v0" not in readable(cm) and summary_words(cm)


def test_a_detail_carried_forward_through_context_summaries_is_retired_too() -> None:
    """A later chunk's request carries earlier summaries as context; a model that repeats them carries a
    message's text into summaries that never covered it."""
    cm = manager(summarizer=leaky_summarizer(), **SMALL)
    cm.add_messages(
        [
            {"participant": "user" if k % 2 == 0 else "assistant", "content": text_of(k), "id": f"m{k}"}
            for k in range(40)
        ]
    )
    cm.drain()
    later = [
        s for s in cm.get_summaries_in_range("m30", "m30") if s.first_sequence > cm.get_message("m12").created_sequence
    ]
    assert later and any("w12v0" in s.text for s in later)
    cm.edit_message("m12", text_of(12, 1))
    assert "w12v0" not in readable(cm)
    cm.drain()
    assert "w12v0" not in readable(cm) and "w12v1" in summary_words(cm)


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(1, 6)),
        st.tuples(st.just("edit"), st.integers(0, 10_000)),
        st.tuples(st.just("remove"), st.integers(0, 10_000)),
        st.tuples(st.just("drain"), st.integers(1, 4)),
    ),
    min_size=1,
    max_size=14,
)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=st.integers(12, 40), ops=OPS)
def test_no_word_of_a_replaced_or_removed_version_ever_reaches_a_compile_or_a_summary(
    start: int, ops: Sequence[tuple[str, int]]
) -> None:
    store = MemoryStore()
    cm = ContextManager.open(store=store, strategy=AutobiographicalStrategy(**SMALL), summarizer=copying_summarizer())
    current: dict[str, str] = {}  # message id -> its current version word
    dead: set[str] = set()
    count = 0

    def add(k: int) -> None:
        nonlocal count
        batch = []
        for _ in range(k):
            batch.append(
                {"participant": "user" if count % 2 == 0 else "assistant", "content": text_of(count), "id": f"m{count}"}
            )
            current[f"m{count}"] = f"w{count}v0"
            count += 1
        cm.add_messages(batch)

    add(start)
    cm.drain()
    for op, arg in ops:
        live = sorted(current, key=lambda i: int(i[1:]))
        if op == "add":
            add(arg)
        elif op == "drain":
            cm.drain(max_units=arg)
        elif live and op == "edit":
            mid = live[arg % len(live)]
            n = int(mid[1:])
            version = int(current[mid].split("v")[1]) + 1
            dead.add(current[mid])
            cm.edit_message(mid, text_of(n, version))
            current[mid] = f"w{n}v{version}"
        elif len(live) > 1 and op == "remove":
            mid = live[arg % len(live)]
            dead.add(current.pop(mid))
            cm.remove_message(mid)
        text = readable(cm)
        assert not (set(WORD.findall(text)) & dead), (op, arg)
    cm.drain()
    assert not (set(WORD.findall(readable(cm))) & dead)
    fresh = ContextManager.open(store=store, strategy=AutobiographicalStrategy(**SMALL))
    assert summary_words(fresh) == summary_words(cm)
    assert summary_words(cm) <= set(current.values())


def test_a_chunk_changed_during_every_call_ends_stuck_not_in_an_endless_drain() -> None:
    """The guard: each stale answer counts as an attempt (asked again at once), so a range that changes
    during every call stops after ``max_attempts`` with its work stuck, shown raw, instead of looping."""
    store = MemoryStore()
    other: list[ContextManager] = []
    version = [0]

    def answer(request: LLMRequest) -> str:
        text = copied_summary(request)
        if f"w8v{version[0]}" in text:
            version[0] += 1
            other[0].edit_message("m8", text_of(8, version[0]))
        return text

    cfg: dict[str, Any] = {**SMALL, "max_attempts": 3}
    cm = ContextManager.open(
        store=store, strategy=AutobiographicalStrategy(**cfg), summarizer=ScriptedProvider(default=answer)
    )
    other.append(ContextManager.open(store=store, strategy=AutobiographicalStrategy(**cfg)))
    cm.add_messages(
        [
            {
                "participant": "user" if k % 2 == 0 else "assistant",
                "content": text_of(k),
                "id": f"m{k}",
            }
            for k in range(40)
        ]
    )
    report = cm.drain()
    assert version[0] == 3  # three answers, each stale
    assert [w.key for w in report.pending.stuck] and all(
        "edited or removed" in (w.last_error or "") for w in report.pending.stuck
    )
    assert "w8v2" not in readable(cm) and "w8v3" in str(cm.compile(50_000).to_dict())
