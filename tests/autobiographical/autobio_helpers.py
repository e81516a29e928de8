"""Helpers of the autobiographical tests: conversations, fake summarizers, and the compile oracle
(validity, budget, coverage checked through provenance)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from context_journal.compile import CompileResult
from context_journal.llm import LLMRequest
from context_journal.manager import ContextManager
from context_journal.rendering.repairs import share_kept
from context_journal.strategies import AutobiographicalStrategy
from context_journal.testing import ScriptedProvider
from context_journal.tokens import EstimatingCounter
from context_journal.validate import validate_messages, validate_openai_messages
from tests.bug_cases import BUG_DIR as BUG_DIR
from tests.bug_cases import WordCounter as WordCounter
from tests.bug_cases import load_case as load_case
from tests.bug_cases import words as words


def echo_summarizer(prefix: str = "memory") -> ScriptedProvider:
    """A fake summarizer answering ``"<prefix> of <work key>: <first words of the range>"``."""

    def answer(request: LLMRequest) -> str:
        a, b = request.metadata.get("summarize_range", [0, 0])
        first = ""
        for m in request.messages[a:b]:
            for block in m.content:
                text = getattr(block, "text", None)
                if text:
                    first = " ".join(text.split()[:6])
                    break
            if first:
                break
        return f"{prefix} of {request.metadata.get('work')}: {first or 'tool work'}"

    return ScriptedProvider(default=answer)


def manager(
    messages: Sequence[Mapping[str, Any]] = (),
    *,
    path: str = "memory:",
    counter: Any = None,
    summarizer: Any = None,
    strategy: Any = None,
    **config: Any,
) -> ContextManager:
    """A manager with an autobiographical strategy (``config`` overrides) holding ``messages`` (``role``
    or ``participant`` names the speaker)."""
    cm = ContextManager.open(
        path,
        token_counter=counter,
        strategy=strategy if strategy is not None else AutobiographicalStrategy(**config),
        summarizer=summarizer,
    )
    if messages:
        add(cm, messages)
    return cm


def add(cm: ContextManager, messages: Sequence[Mapping[str, Any]]) -> list[str]:
    return cm.add_messages(
        [
            {
                "participant": m.get("participant", m.get("role")),
                "content": m["content"],
                **({"id": m["id"]} if m.get("id") else {}),
            }
            for m in messages
        ]
    )


def chat(n: int, size: int = 40, start: int = 0) -> list[dict[str, Any]]:
    """``n`` alternating user/assistant text messages of ``size`` words, ids ``m<start>..``."""
    return [
        {"id": f"m{k}", "role": "user" if k % 2 == 0 else "assistant", "content": words(size, k)}
        for k in range(start, start + n)
    ]


def tool_chat(n_units: int, size: int = 30, start: int = 0) -> list[dict[str, Any]]:
    """``n_units`` exchanges: a user request, an assistant call, its result, an assistant answer."""
    out: list[dict[str, Any]] = []
    for k in range(start, start + n_units):
        out += [
            {"id": f"u{k}", "role": "user", "content": f"Step {k}: check file src/mod{k}.py. " + words(size, k)},
            {
                "id": f"c{k}",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": f"t{k}", "name": "Read", "input": {"path": f"src/mod{k}.py"}}],
            },
            {
                "id": f"r{k}",
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"t{k}", "content": f"line {k}: " + words(size, k + 1)}
                ],
            },
            {"id": f"a{k}", "role": "assistant", "content": f"Done with step {k}. " + words(size // 2, k + 2)},
        ]
    return out


def coverage(cm: ContextManager, result: CompileResult) -> tuple[set[str], set[str]]:
    """``(covered, all)`` message ids of the manager's view: covered raw (complete or excerpted), as a
    system message, or by a rendered summary (its created-sequence range, checked through provenance)."""
    msgs = cm._read_view().messages()  # as stored: a sharded message's shards each (ingress sharding)
    all_ids = {m.id for m in msgs}
    covered = {s.id for m in result.messages for s in m.sources if s.kind == "message"}
    covered |= {s.id for s in result.system_sources if s.kind == "system"}
    for m in result.messages:
        for s in m.sources:
            if s.kind == "summary":
                row = cm.get_summary(s.id)
                covered |= {x.id for x in msgs if row.first_sequence <= x.created_sequence <= row.last_sequence}
    return covered, all_ids


_COUNTER = EstimatingCounter()  # (share_kept counts only texts without a cut marker: any counter will do)


def hollow_summaries(result: CompileResult) -> list[str]:
    """The ids of the rendered summaries ``result`` sends keeping under a tenth of their text by their cut
    markers' figures (such a summary gives way whole instead, with the others of its run, as one note)."""
    return [
        s.id
        for m in result.messages
        if not any(s.kind == "synthetic" for s in m.sources) and share_kept(m.content, _COUNTER) < 0.1
        for s in m.sources
        if s.kind == "summary"
    ]


def check(cm: ContextManager, result: CompileResult, *, allow_omitted: bool = False) -> None:
    """Provider-valid (the validator, both exports), within budget, every message covered (or, when
    repairs emptied it, named by a repair; or listed as omitted when ``allow_omitted``), and no rendered
    summary sent as next to nothing (see :func:`hollow_summaries`)."""
    assert validate_messages(result.as_messages()) == [], validate_messages(result.as_messages())[:3]
    assert validate_messages(result.to_anthropic()["messages"], alternate=True) == []
    assert validate_openai_messages(result.to_openai()) == []
    assert result.tokens <= result.budget
    covered, all_ids = coverage(cm, result)
    repaired = {r.message_id for r in result.repairs if r.message_id}
    missing = all_ids - covered - repaired
    if allow_omitted:
        omitted = _omitted_ids(cm, result)
        missing -= omitted
    else:
        assert result.omitted == (), result.omitted
    assert not missing, f"{len(missing)} messages neither rendered nor summarised: {sorted(missing)[:5]}"
    assert not hollow_summaries(result), hollow_summaries(result)


def _omitted_ids(cm: ContextManager, result: CompileResult) -> set[str]:
    order = [m.id for m in cm._read_view().messages()]  # as stored (shards each)
    out: set[str] = set()
    for first, last, _count, _why in result.omitted:
        a, b = order.index(first), order.index(last)
        out.update(order[a : b + 1])
    return out


def chunks(cm: ContextManager) -> list[Any]:
    """The chunk records of the manager's namespace and branch, in order."""
    strategy = cm.strategy
    assert isinstance(strategy, AutobiographicalStrategy)
    log = strategy.compression_log(cm._strategy_context())
    return sorted(log.chunks.values(), key=lambda c: c.first_seq)


def l1_requests(provider: ScriptedProvider) -> list[str]:
    """Work keys of the chunk (L1) requests a fake summarizer received."""
    return [str(r.metadata.get("work")) for r in provider.requests if r.metadata.get("kind") in ("chunk", "part")]


def compile_checked(cm: ContextManager, budget: int, **kwargs: Any) -> CompileResult | None:
    """Compile and :func:`check`; None when the compile raised :class:`OverBudgetError` (allowed only
    when even the smallest valid context is over the budget, which the error says)."""
    from context_journal.compile import EmptyContextError, OverBudgetError

    try:
        result = cm.compile(budget, **kwargs)
    except EmptyContextError:  # nothing visible to send (an empty conversation or view)
        return None
    except OverBudgetError as err:
        assert err.actual > err.budget and err.parts
        return None
    check(cm, result)
    return result
