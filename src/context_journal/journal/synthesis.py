"""The synthesis layer's writer: a stateless synthesizer that drafts a brief through the LLM layer.

**Input.** The synthesizer is stateless: everything it knows is in one request. In ``windowed`` mode that
is the last N entries; in ``cumulative`` mode the previous brief's claims (with their citations) plus the
entries written since (the newest N; without a previous brief it falls back to ``windowed``). Each entry
becomes a few short lines, each ending with its citation, e.g. ``ann reported: parser rewritten [#12]``
(clipped to :data:`LINE_TOKENS` tokens so a line always keeps its citation).

**Output.** A model answers with JSON (:class:`BriefDraft`): the narrative as cited claims, the
``as_of_seq`` it describes and the ids of the active rule-outs it accounted for (optionally goal, next
step, rule-out details and task status). Plain text is read as a narrative only. The offline default
(:class:`~context_journal.llm.OfflineSummarizer`) is used through its digest: every claim is a verbatim
line of the input, so it keeps its citation.

**Checks and outcome** (:func:`finish_brief`). The draft, with the fold's values wherever it said nothing,
goes through :func:`~.drift.check_brief`. No error: ``accepted``. A stale draft (``brief_stale``):
``rejected``. Any other error: ``rebuilt`` — the mechanical fields are the fold's and claims with citation
errors are dropped. The stored brief carries the findings either way.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ..llm import LLMMessage, LLMRequest, OfflineSummarizer, Provider
from .brief import Brief, BriefMode, BriefRuleOut, BriefTask, NarrativeClaim, brief_from_state, parse_narrative
from .drift import DEFAULT_STALE_AFTER, check_brief, check_citations
from .entries import (
    Entry,
    HandoffBody,
    PlanBody,
    PlanRevisionBody,
    ReverseRuleOutBody,
    StepBody,
    VerificationBody,
)
from .folds import ProjectState
from .summaries import clip

__all__ = [
    "LINE_TOKENS",
    "BriefDraft",
    "SynthesisConfig",
    "build_request",
    "draft_brief",
    "finish_brief",
    "parse_draft",
    "source_lines",
    "synthesize",
]

LINE_TOKENS = 60
"""Longest source line before its citation, in estimated tokens."""

INSTRUCTIONS = """You maintain the rolling brief of a software project run by worker agents.
The user message lists journal entries, one fact per line; each line ends with the entry it comes from, as [#seq].
Answer with one JSON object and nothing else:
{"as_of_seq": <the newest seq you were given: {head}>,
 "rule_outs": [<the id of every active rule-out: {rule_out_ids}>],
 "narrative": [{"text": "<one short claim>", "cites": [<seq>, ...]}, ...]}
Rules: every claim cites the entries it rests on, only seqs from the lines above; keep every active rule-out id;
do not re-propose anything ruled out; at most {target} tokens of narrative, most important first."""


@dataclass(frozen=True)
class SynthesisConfig:
    """How briefs are written.

    Attributes:
        mode: ``windowed`` (last ``window`` entries) or ``cumulative`` (previous brief + new entries).
        window: Entries given to the synthesizer (at most).
        narrative_tokens: Target size of the narrative, in tokens.
        max_tokens: ``max_tokens`` of the model call (the JSON answer), in tokens.
        stale_after: A draft more than this many entries behind the head is rejected.
    """

    mode: BriefMode = "windowed"
    window: int = 40
    narrative_tokens: int = 600
    max_tokens: int = 2048
    stale_after: int = DEFAULT_STALE_AFTER

    def __post_init__(self) -> None:
        if self.mode not in ("windowed", "cumulative"):
            raise ValueError(f"mode must be 'windowed' or 'cumulative', got {self.mode!r}")
        if self.window < 1 or self.narrative_tokens < 50 or self.max_tokens < 256:
            raise ValueError("window >= 1, narrative_tokens >= 50 and max_tokens >= 256 are required")


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _cited(text: str, seq: int, max_lines: int = 3) -> list[str]:
    """``text`` as lines of one sentence each (at most ``max_lines``, each clipped to :data:`LINE_TOKENS`),
    every one ending with ``[#seq]``: a reader that takes single sentences still gets the citation."""
    sentences = [p for p in _SENTENCE_END.split(" ".join(text.split())) if p]
    lines: list[str] = []
    for i, sentence in enumerate(sentences[:max_lines]):
        cut = i == max_lines - 1 and len(sentences) > max_lines
        piece = clip(sentence, LINE_TOKENS - 2)[0] + " …" if cut else clip(sentence, LINE_TOKENS)[0]
        lines.append(f"{piece} [#{seq}]")
    return lines


def _entry_lines(e: Entry) -> list[str]:
    if e.redacted:  # its body is gone: nothing of it reaches a brief
        return []
    body = e.parsed()
    s = e.seq
    if isinstance(body, PlanBody | PlanRevisionBody):
        head = "Plan" if isinstance(body, PlanBody) else f"Plan revised (replaces #{body.replaces}): {body.reason}."
        lines = _cited(f"{head} Goal: {body.goal}" if body.goal else head, s)
        for t in body.tasks[:10]:
            lines += _cited(f"Task {t.id}: {t.title}", s, 1)
        if len(body.tasks) > 10:
            lines += _cited(f"{len(body.tasks) - 10} more tasks", s)
        return lines
    if isinstance(body, HandoffBody):
        lines = _cited(f"{e.author} reported: {body.state}", s) + _cited(f"Next step: {body.next_step}", s, 2)
        for r in body.ruled_out[:5]:
            lines += _cited(f"Ruled out {r.id} ({r.item}): {r.reason}", s, 1)
        if body.done_claims:
            lines += _cited(f"{e.author} claims done: {', '.join(body.done_claims[:10])}", s, 1)
        return lines
    if isinstance(body, StepBody):
        return _cited(f"{e.author} step report: {body.report}", s)
    if isinstance(body, ReverseRuleOutBody):
        return _cited(f"Rule-out {body.id} reversed: {body.reason}", s, 1)
    if isinstance(body, VerificationBody):
        verdict = "passed" if body.passed else "failed"
        failed = [r.condition_id for r in body.results if not r.passed]
        more = f" (failed: {', '.join(failed)})" if failed else ""
        return _cited(f"Verification of {body.task_id} {verdict}{more}", s, 1)
    return []


def source_lines(entries: Sequence[Entry], previous: Brief | None = None) -> list[str]:
    """The synthesizer's input lines: the previous brief's claims (cumulative mode), then each entry's lines,
    oldest first; every line ends with its citation."""
    lines = [c.render() for c in previous.narrative if c.cites] if previous is not None else []
    for e in entries:
        lines += _entry_lines(e)
    return lines


def build_request(state: ProjectState, lines: Sequence[str], config: SynthesisConfig) -> LLMRequest:
    """The model call for a draft (instructions in the system prompt, the lines in one user turn)."""
    ids = ", ".join(r.id for r in state.rule_outs) or "none"
    system = (
        INSTRUCTIONS.replace("{head}", str(state.head_seq))
        .replace("{rule_out_ids}", ids)
        .replace("{target}", str(config.narrative_tokens))
    )
    return LLMRequest(
        system=system,
        messages=[LLMMessage(role="user", content="\n".join(lines) or f"(no entries) [#{state.head_seq}]")],
        max_tokens=config.max_tokens,
        temperature=0.0,
        metadata={"target_tokens": config.narrative_tokens, "summarize_range": [0, 1], "purpose": "journal-brief"},
    )


class BriefDraft(BaseModel):
    """What a synthesizer proposed; fields it left out are taken from the fold.

    Attributes:
        as_of_seq: The head it describes.
        goal: Goal, or None.
        next_step: Next step, or None.
        rule_outs: Active rule-outs it accounted for: ids, or objects with ``id`` (and ``item``, ``reason``).
        tasks: Task status: objects with ``id`` and ``status``.
        narrative: Claims: objects with ``text`` and ``cites``, strings with inline ``[#n]``, or one string.
    """

    model_config = ConfigDict(extra="ignore")

    as_of_seq: int | None = None
    goal: str | None = None
    next_step: str | None = None
    rule_outs: list[str | dict[str, Any]] | None = None
    tasks: list[dict[str, Any]] | None = None
    narrative: list[str | dict[str, Any]] | str | None = None

    def claims(self) -> list[NarrativeClaim]:
        """The narrative as claims."""
        if self.narrative is None:
            return []
        if isinstance(self.narrative, str):
            return parse_narrative(self.narrative)
        out: list[NarrativeClaim] = []
        for item in self.narrative:
            if isinstance(item, str):
                out += parse_narrative(item)
                continue
            text = str(item.get("text") or item.get("claim") or "")
            raw = item.get("cites") or []
            cites = [int(str(c).lstrip("#")) for c in raw if isinstance(c, int | str) and str(c).lstrip("#").isdigit()]
            parsed = parse_narrative(text)
            if cites or not parsed:
                out.append(NarrativeClaim(text=text.strip(), cites=sorted(set(cites))))
            else:
                out += parsed
        return [c for c in out if c.text]


_FENCE = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.S)


def parse_draft(text: str) -> BriefDraft:
    """Read a model's answer: a JSON object (bare or in a fenced block) is a :class:`BriefDraft`; anything else
    is a narrative only."""
    stripped = text.strip()
    fenced = _FENCE.search(stripped)
    candidate = fenced.group(1) if fenced else stripped
    if candidate.startswith("{"):
        try:
            return BriefDraft.model_validate(json.loads(candidate))
        except (ValueError, ValidationError):
            pass
    return BriefDraft(narrative=stripped)


def draft_brief(
    draft: BriefDraft,
    state: ProjectState,
    *,
    mode: BriefMode,
    cite_from: int,
    previous_version: int | None = None,
    provider: str = "",
    model: str = "",
) -> Brief:
    """The draft as a brief (status ``draft``): what it proposed, the fold's values where it said nothing."""
    base = brief_from_state(state, narrative=draft.claims(), mode=mode, cite_from=cite_from)
    update: dict[str, Any] = {"previous_version": previous_version, "provider": provider, "model": model}
    if draft.as_of_seq is not None:
        update["as_of_seq"] = draft.as_of_seq
    if draft.goal is not None:
        update["goal"] = draft.goal
    if draft.next_step is not None:
        update["next_step"] = draft.next_step
    if draft.rule_outs is not None:
        known = {r.id: r for r in base.rule_outs}
        reversed_ = {r.id: r.introduced_seq for r in state.reversed}
        rules: list[BriefRuleOut] = []
        for item in draft.rule_outs:
            rid = item if isinstance(item, str) else str(item.get("id", ""))
            fold_rule = known.get(rid)
            fields: dict[str, Any] = {}
            if not isinstance(item, str):
                fields = {k: str(item[k]) for k in ("item", "reason") if k in item}
            if fold_rule is not None:
                rules.append(fold_rule.model_copy(update=fields))
            else:
                seq = reversed_.get(rid, 0)
                item_text, reason = fields.get("item", ""), fields.get("reason", "")
                rules.append(BriefRuleOut(id=rid, item=item_text, reason=reason, seq=seq))
        update["rule_outs"] = rules
    if draft.tasks is not None:
        fold_tasks = {t.id: t for t in base.tasks}
        tasks: list[BriefTask] = []
        for t in draft.tasks:
            tid = str(t.get("id", ""))
            known_task = fold_tasks.get(tid)
            status = t.get("status", known_task.status if known_task else "open")
            if status not in ("open", "claimed", "verified", "failed"):
                status = "open"
            tasks.append(BriefTask(id=tid, status=status, seq=known_task.seq if known_task else None))
        update["tasks"] = tasks
    return base.model_copy(update=update)


def finish_brief(draft: Brief, state: ProjectState, *, stale_after: int = DEFAULT_STALE_AFTER) -> Brief:
    """Check a draft against the fold at the head (``state``) and decide: ``accepted``, ``rebuilt`` or
    ``rejected`` (rules in the module docstring). The result is not stored yet (version 0)."""
    findings = check_brief(draft, state, head_seq=state.head_seq, stale_after=stale_after)
    now = time.time()
    if not findings:
        return draft.model_copy(update={"status": "accepted", "created_at": now, "findings": []})
    if any(f.code == "brief_stale" for f in findings):
        return draft.model_copy(update={"status": "rejected", "created_at": now, "findings": findings})
    bad_claims = {f.subject for f in check_citations(draft)}
    kept = [c for i, c in enumerate(draft.narrative) if f"narrative[{i}]" not in bad_claims]
    rebuilt = brief_from_state(state, narrative=kept, mode=draft.mode, cite_from=draft.cite_from)
    rebuilt = rebuilt.model_copy(
        update={"previous_version": draft.previous_version, "provider": draft.provider, "model": draft.model}
    )
    after = check_brief(rebuilt, state, head_seq=state.head_seq, stale_after=stale_after)
    return rebuilt.model_copy(update={"status": "rebuilt", "created_at": now, "findings": findings + after})


async def synthesize(
    state: ProjectState,
    entries: Sequence[Entry],
    previous: Brief | None,
    provider: Provider | None,
    config: SynthesisConfig,
) -> Brief:
    """Draft, check and decide one brief (not stored).

    Args:
        state: The fold at the head.
        entries: The entries the synthesizer reads (the window, oldest first).
        previous: The current brief (cumulative mode), or None.
        provider: The model; None is the offline default.
        config: Mode and sizes.

    Raises:
        ProviderError: the model call failed (nothing is stored).
    """
    mode: BriefMode = config.mode if (config.mode == "windowed" or previous is not None) else "windowed"
    prior = previous if mode == "cumulative" else None
    lines = source_lines(entries, prior)
    cite_from = 1 if prior is not None else (entries[0].seq if entries else max(1, state.head_seq))
    request = build_request(state, lines, config)
    engine = provider if provider is not None else OfflineSummarizer()
    if isinstance(engine, OfflineSummarizer):
        digest = engine.summarize(request)
        draft = BriefDraft(narrative=[f for line in digest.lines for f in line.fragments])
        model = engine.model
    else:
        response = await engine.complete(request)
        draft = parse_draft(response.require_text())
        model = response.model or engine.model
    proposed = draft_brief(
        draft,
        state,
        mode=mode,
        cite_from=cite_from,
        previous_version=prior.version if prior is not None else None,
        provider=engine.name,
        model=model,
    )
    return finish_brief(proposed, state, stale_after=config.stale_after)
