"""Summary requests: what is sent to the summarizer for a chunk, a part of one, a merge, a transition.

A request replays the agent's own turns, so it shares their prompt-cache prefix (the host's system
prompt and tools, then the head window) and the model remembers in context:

1. the head window, raw;
2. the summaries before the target as recall pairs (the newest detail first, within
   ``recall_context_tokens``; for a part of a large chunk, the parts before it as well);
3. the target: the chunk's (or part's) messages raw, or, for a merge, one recall pair holding the
   summaries to merge (for a transition, the newest messages raw);
4. a last user turn from the marker participant with the instruction (first person, about
   ``target`` tokens, concrete details kept).

The messages are rendered by the compiler itself (``compile_context``), so a request obeys every
provider rule (tool pairs, roles, thinking, images) and fits the summarizer's window
(``summarizer_context_tokens``, less the tools and the reserved output): when it does not, recall pairs
are left out oldest first, and a single oversized message is reduced to an excerpt. Metadata for the
offline summarizer says which messages to summarise (``summarize_range``) and how long
(``target_tokens``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...rendering.options import CompileOptions, Injection, Roles
from ..base import BaseStrategy, Budget, ContextEntry, RawSpan, Selection, SummaryRef, SummaryRequest
from .folding import recall_pair
from .records import Summary, request_hash

if TYPE_CHECKING:
    from ...compile import CompileResult
    from ...tokens import TokenCounter
    from ...views import MessageView
    from .config import AutobiographicalConfig

__all__ = ["RequestPlan", "render_request"]

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


@dataclass(frozen=True)
class RequestPlan:
    """What one summary request holds (message ranges are created-sequence pairs).

    Attributes:
        key: The work item's key (the request's id).
        kind: ``"chunk"``, ``"part"``, ``"merge"`` or ``"transition"``.
        level: Level of the summary made.
        target_tokens: Size asked.
        instruction: The last user turn's text.
        head: Sequence range of the head window, or None.
        context: Earlier summaries sent as recall pairs, in order.
        recalled_parts: Earlier parts' summaries of the same chunk, in order.
        target_raw: Sequence range summarised raw, or None.
        target_summaries: Summaries merged, in order.
        tail_raw: Sequence range of the newest messages (transition), or None.
    """

    key: str
    kind: str
    level: int
    target_tokens: int
    instruction: str
    head: tuple[int, int] | None = None
    context: tuple[Summary, ...] = ()
    recalled_parts: tuple[str, ...] = ()
    target_raw: tuple[int, int] | None = None
    target_summaries: tuple[Summary, ...] = ()
    tail_raw: tuple[int, int] | None = None


def _span(view: MessageView, seqs: tuple[int, int] | None) -> tuple[int, int] | None:
    if seqs is None:
        return None
    a, b = view.index_at_sequence(seqs[0]), view.index_at_sequence(seqs[1] + 1)
    return (a, b) if b > a else None


class _PlanSelection(BaseStrategy):
    """Selects a :class:`RequestPlan`'s entries; leaves recall pairs out, oldest first, when over."""

    name = "summary-request"

    def __init__(
        self,
        plan: RequestPlan,
        config: AutobiographicalConfig,
        marker: Callable[[Summary], str],
        pair_cost: Callable[[Summary], int],
    ) -> None:
        self.plan = plan
        self.config = config
        self.marker = marker
        self.pair_cost = pair_cost

    def select(self, view: MessageView, budget: Budget) -> Selection:
        plan, cfg = self.plan, self.config
        head = _span(view, plan.head)
        target = _span(view, plan.target_raw)
        tail = _span(view, plan.tail_raw)
        fixed = sum(view.tokens(*s) for s in (head, target, tail) if s is not None)
        merged = "\n\n".join(s.text for s in plan.target_summaries)
        if merged:
            fixed += sum(self.pair_cost(s) for s in plan.target_summaries)
        part_cost = [len(t) // 3 + 16 for t in plan.recalled_parts]
        fixed += sum(part_cost)
        context = list(plan.context)
        costs = [self.pair_cost(s) for s in context]
        while context and fixed + sum(costs) > budget.tokens:
            context.pop(0)
            costs.pop(0)
        entries: list[ContextEntry] = []
        if head is not None:
            entries.append(RawSpan(*head))
        for s in context:
            entries.extend(
                recall_pair(
                    s.text,
                    self.marker(s),
                    cfg.summary_participant,
                    cfg.marker_participant,
                    None,
                    (SummaryRef(s.id, s.level),),
                )
            )
        for text in plan.recalled_parts:
            entries.extend(
                recall_pair(
                    text,
                    "What do you remember of the first part of it?",
                    cfg.summary_participant,
                    cfg.marker_participant,
                    None,
                    (),
                )
            )
        if target is not None:
            entries.append(RawSpan(*target))
        if merged:
            refs = tuple(SummaryRef(s.id, s.level) for s in plan.target_summaries)
            count = sum(s.message_count for s in plan.target_summaries)
            marker = cfg.recall_marker.format(count=count)
            entries.extend(recall_pair(merged, marker, cfg.summary_participant, cfg.marker_participant, None, refs))
        if tail is not None:
            entries.append(RawSpan(*tail))
        return Selection(tuple(entries))


def _tool_definitions(host: Sequence[Mapping[str, Any]], messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The host's tools plus a plain definition for each tool the messages call that the host did not
    define (providers reject a request that replays calls to undeclared tools)."""
    tools = [dict(t) for t in host]
    known = {t.get("name") for t in tools}
    for m in messages:
        for b in m["content"]:
            name = b.get("name") if b.get("type") == "tool_use" else None
            if isinstance(name, str) and name not in known and _TOOL_NAME.match(name):
                known.add(name)
                tools.append(
                    {
                        "name": name,
                        "description": "A tool used earlier in this conversation.",
                        "input_schema": {"type": "object", "properties": {}},
                    }
                )
    return tools


def render_request(
    request_view: MessageView,
    plan: RequestPlan,
    config: AutobiographicalConfig,
    *,
    counter: TokenCounter,
    roles_state: Mapping[str, Any] | None,
    host_system: str | None,
    host_tools: Sequence[Mapping[str, Any]],
    marker: Callable[[Summary], str],
    pair_cost: Callable[[Summary], int],
    read_sequence: int,
    namespace: str = "default",
    as_of: int | None = None,
    compile_context: Callable[..., tuple[CompileResult, Any]],
) -> SummaryRequest:
    """Render ``plan`` into a provider-valid :class:`SummaryRequest` (see the module docstring).

    Args:
        request_view: The manager's whole view (stored system messages join the system prompt).
        plan: What the request holds.
        config: The strategy's settings.
        counter: The manager's token counter.
        roles_state: The namespace's stored roles (who is the assistant), or None for the defaults.
        host_system: The host's system prompt (``set_system_prompt``), or None.
        host_tools: The host's tool definitions (``set_tools``), as dicts.
        marker: Marker text of a summary's recall pair.
        pair_cost: Tokens of a summary's recall pair.
        read_sequence: Newest message-version sequence the request reads (recorded with the result).
        namespace: For the compile id.
        as_of: Newest store sequence the view showed when the request was read (recorded with the
            result: a message edited or removed after it makes the result stale).
        compile_context: The compiler (:attr:`StrategyContext.compile_context`): the compiler sits above
            the strategies, so it is handed in rather than imported.

    Raises:
        OverBudgetError: the system prompt, tools and instruction alone exceed the summarizer's window.
    """
    roles = Roles.from_metadata(roles_state) if isinstance(roles_state, Mapping) else Roles()
    tools_probe = _tool_definitions(host_tools, [])
    tools_tokens = sum(counter.count_block({"type": "text", "text": str(t)}) for t in tools_probe)
    output = config.output_tokens(plan.target_tokens)
    window = max(256, config.summarizer_context_tokens - tools_tokens)
    strategy = _PlanSelection(plan, config, marker, pair_cost)
    options = CompileOptions(
        max_images=config.request_images,
        keep_thinking_turns=None if config.request_thinking else 0,
        cache_breakpoints=0,
    )
    instruction = Injection(
        plan.instruction, position="end", participant=config.marker_participant, label="instruction"
    )
    result, _ = compile_context(
        request_view,
        strategy,
        max_tokens=window,
        reserve_for_response=min(output, window // 2),
        system=host_system or None,
        injections=[instruction],
        counter=counter,
        roles=roles,
        options=options,
        namespace=namespace,
    )
    messages: list[dict[str, Any]] = [
        {"participant": m.participant, "role": m.role, "content": [dict(b) for b in m.content]} for m in result.messages
    ]
    # Which compiled messages are the ones to summarise (provenance, since repairs may add turns).
    target_ids: set[str] = set()
    for seqs in (plan.target_raw,):
        if seqs is not None:
            a, b = request_view.index_at_sequence(seqs[0]), request_view.index_at_sequence(seqs[1] + 1)
            target_ids.update(e.id for e in request_view.entries(a, b))
    merged_ids = {s.id for s in plan.target_summaries}
    hits = [
        i
        for i, m in enumerate(result.messages)
        if any(
            (s.kind == "message" and s.id in target_ids) or (s.kind == "summary" and s.id in merged_ids)
            for s in m.sources
        )
    ]
    last = len(messages) - 1  # the instruction
    if plan.kind == "transition":
        span = [0, last]
    elif hits:
        span = [hits[0], min(hits[-1] + 1, last)]
    else:
        span = [last, last]
    # Prompt-cache breakpoint after the head window (the prefix every request of this namespace shares).
    head_ids: set[str] = set()
    if plan.head is not None:
        a, b = request_view.index_at_sequence(plan.head[0]), request_view.index_at_sequence(plan.head[1] + 1)
        head_ids = {e.id for e in request_view.entries(a, b)}
    head_last = max(
        (i for i, m in enumerate(result.messages) if any(s.kind == "message" and s.id in head_ids for s in m.sources)),
        default=None,
    )
    if head_last is not None and head_last < last:
        messages[head_last]["cache"] = True
    system_text = "\n\n".join(str(b.get("text", "")) for b in result.system if b.get("type") == "text").strip()
    tools = _tool_definitions(host_tools, messages)
    digest = request_hash(
        {
            "system": system_text,
            "messages": [[m["role"], m["content"]] for m in messages],
            "tools": tools,
            "max_tokens": output,
            "summarize_range": span,
            "target_tokens": plan.target_tokens,
        }
    )
    metadata: dict[str, Any] = {
        "work": plan.key,
        "kind": plan.kind,
        "level": plan.level,
        "summarize_range": span,
        "target_tokens": plan.target_tokens,
        "instruction_last": True,
        "tools": tools,
        "request_hash": digest,
        "read_sequence": read_sequence,
        "as_of": read_sequence if as_of is None else as_of,
        "estimated_input_tokens": result.estimated_tokens + tools_tokens,
    }
    return SummaryRequest(plan.key, system_text or None, tuple(messages), output, metadata)
