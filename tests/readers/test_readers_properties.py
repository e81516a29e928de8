"""Property test: no block ever reaches a compile, a summarizer request, a summary, a search
result or provenance of a reader it does not name."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context_journal.compile import EmptyContextError
from context_journal.errors import MessageNotFoundError
from context_journal.manager import ContextManager
from context_journal.readers import AudienceNarrowingError
from context_journal.strategies import AutobiographicalStrategy
from context_journal.testing import ScriptedProvider
from tests.hypothesis_budget import examples

CFG: dict[str, Any] = {
    "head_window_tokens": 60,
    "recent_window_tokens": 100,
    "target_chunk_tokens": 80,
    "merge_threshold": 2,
}
READERS = ["ann", "bob", "cy"]
TAG = re.compile(r"TAG\d+x\d+")

audiences = st.one_of(st.none(), st.lists(st.sampled_from(READERS), min_size=1, max_size=3, unique=True))
message = st.lists(audiences, min_size=1, max_size=3)
ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), message),
        st.tuples(st.just("tick"), st.integers(1, 3)),
        st.tuples(st.just("edit"), st.integers(0, 100), message),
        st.tuples(st.just("fork"), st.sampled_from([*READERS, None])),
    ),
    min_size=5,
    max_size=40,
)


def _echo(request: Any) -> str:
    # the summary repeats every tag it was shown, so a leak into a request leaks into the summary too
    return "memory " + " ".join(TAG.findall(request.model_dump_json()))


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=ops, compile_reader=st.sampled_from([*READERS, None]))
def test_no_block_reaches_a_reader_it_does_not_name(ops: list[Any], compile_reader: str | None) -> None:
    host = ContextManager.open("memory:")
    allowed: dict[str, set[str | None]] = {}  # tag -> audience names (None = everyone)
    ids: list[str] = []
    n = 0

    def blocks(aud_list: list[Any]) -> list[dict[str, Any]]:
        nonlocal n
        out = []
        for j, aud in enumerate(aud_list):
            tag = f"TAG{n}x{j}"
            allowed[tag] = {None} if aud is None else set(aud)
            b: dict[str, Any] = {"type": "text", "text": f"{tag} " + "filler " * 12}
            if aud is not None:
                b["audience"] = aud
            out.append(b)
        n += 1
        return out

    managers: dict[str | None, tuple[ContextManager, ScriptedProvider]] = {}
    for r in [*READERS, None]:
        p = ScriptedProvider(default=_echo)
        cm = ContextManager.open(
            store=host.store, namespace=f"ns-{r}", view_reader=r, strategy=AutobiographicalStrategy(**CFG), summarizer=p
        )
        managers[r] = (cm, p)

    def visible(tag: str, reader: str | None) -> bool:
        aud = allowed[tag]
        return None in aud or (reader is not None and reader in aud)

    def check(reader: str | None, cm: ContextManager, p: ScriptedProvider) -> None:
        texts = [r.model_dump_json() for r in p.requests]
        texts += [repr(s) for s in cm.search_summaries(limit=None)]
        if reader is not None:  # raw reads through a reader's handle are the reader's view
            texts.append(json.dumps([m.content_dicts() for m in cm.get_all_messages()]))
            texts.append(json.dumps([m.content_dicts() for m in cm.query_messages(participant="user")]))
        try:
            result = cm.compile(1500)
        except EmptyContextError:  # this reader sees nothing yet
            result = None
        if result is not None:
            texts.append(json.dumps(result.messages, default=str))
            texts.append(json.dumps(result.provenance, default=str))
        for text in texts:
            for tag in TAG.findall(text):
                assert visible(tag, reader), (tag, reader, allowed[tag])

    branches = 0
    for op in ops:
        if op[0] == "add":
            ids.append(host.add_message("user", blocks(op[1])))
        elif op[0] == "tick":
            for cm, _ in managers.values():
                for _ in range(op[1]):
                    cm.tick()
        elif op[0] == "edit" and ids:
            mid = ids[op[1] % len(ids)]
            editor = managers[compile_reader][0]
            old_tags = TAG.findall(json.dumps(host.get_message(mid).content_dicts()))
            try:
                editor.edit_message(mid, blocks(op[2]))
            except (AudienceNarrowingError, MessageNotFoundError):  # narrowing, or nothing of it is the editor's
                continue
            # the old version may already sit in summaries: keep its tags' audiences as the union
            del old_tags
        elif op[0] == "fork":
            branches += 1
            name = f"b{branches}"
            cm, p = managers[compile_reader]
            child = cm.derive(name, strategy=AutobiographicalStrategy(**CFG))
            child.summarizer = p
            assert child.view_reader == cm.view_reader
            child.drain(wait=False, max_units=3)
            check(cm.view_reader, child, p)
    for r, (cm, p) in managers.items():
        check(r, cm, p)


@settings(max_examples=examples(40), deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["add", "edit", "remove"]), st.integers(0, 50), message), min_size=1, max_size=30
    ),
    reader=st.sampled_from([*READERS, None]),
)
def test_incremental_reader_view_matches_a_fresh_one(steps: list[Any], reader: str | None) -> None:
    from context_journal.views import ReaderView

    cm = ContextManager.open("memory:")
    view = ReaderView(cm.messages, reader)
    ids: list[str] = []
    for k, (op, at, auds) in enumerate(steps):
        content = [{"type": "text", "text": f"m{k} b{j}", **({"audience": a} if a else {})} for j, a in enumerate(auds)]
        if op == "add" or not ids:
            ids.append(cm.add_message("user", content))
        elif op == "edit":
            cm.messages.edit(ids[at % len(ids)], content=content)  # the index path (no narrowing check)
        else:
            cm.remove_message(ids.pop(at % len(ids)))
        fresh = ReaderView(cm.messages, reader)
        assert len(view) == len(fresh)
        assert view.entries() == fresh.entries()
        assert view.tokens() == fresh.tokens()
        assert [m.content_dicts() for m in view.messages()] == [m.content_dicts() for m in fresh.messages()]
        for e in fresh.entries():
            assert view.index_of(e.id) == e.position
