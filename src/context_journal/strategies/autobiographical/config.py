"""Configuration of the autobiographical strategy: window sizes, chunking, summaries, prompts, retries.

Every size is in **tokens** as the manager's token counter estimates them (before calibration). The
defaults suit a compile budget of about 16k–200k tokens; :meth:`AutobiographicalConfig.for_budget`
scales them for a given budget (a 4k compile needs smaller windows).
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from ...tokens import MAX_TOKEN_COUNT, check_token_count

__all__ = [
    "CHUNK_PROMPT",
    "MERGE_PROMPT",
    "RECALL_MARKER",
    "TRANSITION_HEADING",
    "TRANSITION_PROMPT",
    "AutobiographicalConfig",
]

CHUNK_PROMPT = (
    "Pause the task for a moment. Write down your memory of the part of our conversation since my last "
    "recall question: the {count} messages just above ({first_id} to {last_id}). Write it in the first person, "
    "as you will want to recall it later, in about {target} tokens. Keep the concrete details: what the user "
    "asked for and every constraint or preference they stated, the decisions taken and why, what was tried "
    "and ruled out and why, errors and how they were fixed, file paths, commands, identifiers, numbers, "
    "dates and names, and what is still open. Do not call tools; answer with the memory only.{hint}"
)
"""Instruction of a chunk's L1 summary request (``{count}``, ``{first_id}``, ``{last_id}``, ``{target}``,
``{hint}`` are filled in; ``{hint}`` is empty or a phase's extra advice)."""

MERGE_PROMPT = (
    "Pause the task for a moment. Your last answer holds {count} consecutive memories of our conversation. "
    "Condense them into one first-person memory of about {target} tokens, in order, without repeating "
    "yourself. Keep the user's requests and constraints, decisions and their reasons, what was ruled out, "
    "errors and fixes, file paths, identifiers, numbers, dates and names, and what is still open; drop "
    "what a later step made obsolete. Do not call tools; answer with the memory only."
)
"""Instruction of a merge request (``{count}``, ``{target}``)."""

TRANSITION_PROMPT = (
    "We are about to start a new topic. Write a short first-person note, about {target} tokens, of what "
    "you must carry over from everything above: standing instructions and constraints, decisions, facts "
    "you will need (paths, identifiers, numbers, names) and open items. Do not call tools; answer with "
    "the note only."
)
"""Instruction of the transition summary that :meth:`ContextManager.reset_head_window` asks for."""

TRANSITION_HEADING = "[Transition summary: what I carry over from the previous topic]\n"
"""Text placed before a transition summary in the message that stores it."""

RECALL_MARKER = "What do you remember of the next part of our conversation ({count} messages)?"
"""The marker turn of a recall pair (``{count}`` = messages the summary stands for)."""


_INT_FIELDS = (
    "head_window_tokens",
    "recent_window_tokens",
    "target_chunk_tokens",
    "merge_threshold",
    "summary_target_tokens",
    "max_summary_tokens",
    "recall_context_tokens",
    "summarizer_context_tokens",
    "summary_output_tokens",
    "request_images",
    "max_attempts",
    "request_lookahead",
)
_FLOAT_FIELDS = ("merge_growth", "summary_cap_factor", "retry_base_seconds", "retry_max_seconds", "prefix_headroom")
_FLOAT_LIMIT = 1e9  # the largest ratio or delay (seconds: about 31 years)


@dataclass(frozen=True)
class AutobiographicalConfig:
    """Settings of :class:`~context_journal.strategies.AutobiographicalStrategy` (sizes in tokens).

    Attributes:
        head_window_tokens: The head window: the first messages (from the conversation's start, or
            from the point set by ``reset_head_window``) kept raw forever, up to this many tokens,
            snapped so no tool unit is split. 0 disables the head.
        recent_window_tokens: The newest messages kept raw; no chunk closes inside this window. A
            message larger than the whole window counts for a quarter of it (a compile excerpts it).
        target_chunk_tokens: A chunk of the middle closes once it holds at least this many tokens
            (and ends where a tool unit ends).
        merge_threshold: This many adjacent unmerged summaries of one level merge into one summary of
            the next level (cascading, no fixed top level). At least 2.
        summary_target_tokens: Size asked of an L1 summary.
        merge_growth: Size asked of a level-``L`` summary is ``summary_target_tokens *
            merge_growth ** (L - 1)``, at most ``max_summary_tokens``.
        max_summary_tokens: Upper bound of the size asked of any summary.
        summary_cap_factor: A summary text longer than this factor times its target is cut at a line
            or sentence end (so one verbose answer cannot crowd the budget).
        summary_participant: Who speaks a summary in a compiled context (rendered as the assistant).
        marker_participant: Who asks the recall question of a recall pair (a user turn), and who
            stores a transition summary.
        recall_marker: Text of a recall pair's marker turn.
        chunk_prompt: Instruction of a chunk's summary request.
        merge_prompt: Instruction of a merge request.
        transition_prompt: Instruction of a transition summary request.
        transition_heading: Text stored before a transition summary.
        recall_context_tokens: Earlier summaries sent with a summary request as recall pairs, at
            most this many tokens (the newest detail first).
        summarizer_context_tokens: Context window of the summarizer: a request (system, tools,
            messages and the reserved output) never exceeds it; a chunk too large for it is
            summarised in parts.
        summary_output_tokens: ``max_tokens`` of a summary request; None means
            ``max(512, 3 * target)``.
        request_images: Images kept in summary requests (the newest ones); 0 replaces every image
            by a placeholder.
        request_thinking: Send signed thinking blocks with summary requests.
        max_attempts: After this many failed attempts a work item is *stuck*: listed by
            ``pending_work()`` and no longer retried (raising the limit lets it retry).
        retry_base_seconds: Backoff after the first failure; doubles with each further failure.
        retry_max_seconds: Upper bound of the backoff.
        request_lookahead: How many ready requests ``pending_requests()`` builds at once.
        overflow: What a compile does when even the coarsest cover (head, every summary at its coarsest,
            raw chunks still without a summary, the tail) exceeds the budget: ``"excerpt"`` keeps every
            message covered and lets the compiler reduce the largest messages to excerpts (raising
            ``OverBudgetError`` when even that cannot fit); ``"window"`` leaves parts out, oldest
            first, and reports them in the compile's ``omitted``: the raw messages not summarised yet
            before the recent window, then the oldest summaries, then the oldest messages of the recent
            window (whole tool units, never the newest one); the head stays, the newest messages go last.
        stable_prefix: Keep the compiled prompt prefix-stable from compile to compile, so a provider's
            prompt cache keeps hitting (bug case B49). Each compile starts from the layout
            the previous compile chose (kept in the namespace's state on the branch, with the budget it
            was made for) and appends the new messages raw; only when that is over budget does it
            compact, and then from the latest point that gives enough room: first the raw run at the
            end (new summaries replace it), reaching back into older summaries (merges) only when
            that is not enough. The newest summary before the raw run carries a cache breakpoint.
            False: every compile folds afresh (the finest level that fits, newest first).
        prefix_headroom: When a stable compile compacts, it fills at most ``1 - prefix_headroom``
            of the budget, so the following turns append to an unchanged prefix (like the windowed
            strategy's jump); in ``[0, 1)``.

    Raises:
        ValueError: a size is negative, ``merge_threshold < 2``, ``target_chunk_tokens < 1``,
            ``summary_target_tokens < 1``, ``max_attempts < 1``, a factor is out of range
            (``prefix_headroom`` outside ``[0, 1)``) or ``overflow`` is unknown.
    """

    head_window_tokens: int = 2_000
    recent_window_tokens: int = 4_000
    target_chunk_tokens: int = 3_000
    merge_threshold: int = 4
    summary_target_tokens: int = 300
    merge_growth: float = 1.5
    max_summary_tokens: int = 1_200
    summary_cap_factor: float = 2.0
    summary_participant: str = "assistant"
    marker_participant: str = "Context Manager"
    recall_marker: str = RECALL_MARKER
    chunk_prompt: str = CHUNK_PROMPT
    merge_prompt: str = MERGE_PROMPT
    transition_prompt: str = TRANSITION_PROMPT
    transition_heading: str = TRANSITION_HEADING
    recall_context_tokens: int = 2_000
    summarizer_context_tokens: int = 32_000
    summary_output_tokens: int | None = None
    request_images: int = 0
    request_thinking: bool = True
    max_attempts: int = 5
    retry_base_seconds: float = 5.0
    retry_max_seconds: float = 600.0
    request_lookahead: int = 1
    overflow: Literal["excerpt", "window"] = "excerpt"
    stable_prefix: bool = True
    prefix_headroom: float = 0.3

    def __post_init__(self) -> None:
        # Types and bounds first (nan, inf, 1e308 and True were once accepted, stored with the
        # namespace's strategy, and broke every later compile of it).
        for name in _INT_FIELDS:
            value = getattr(self, name)
            if value is None and name == "summary_output_tokens":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not -1 < value <= MAX_TOKEN_COUNT:
                raise ValueError(f"{name} must be an integer in 0..{MAX_TOKEN_COUNT:,}, got {value!r}")
        for name in _FLOAT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
            if value > _FLOAT_LIMIT:
                raise ValueError(f"{name} must be at most {_FLOAT_LIMIT:g}, got {value!r}")
        for name in ("request_thinking", "stable_prefix"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        for name in ("head_window_tokens", "recent_window_tokens", "recall_context_tokens", "request_images"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        for name in ("target_chunk_tokens", "summary_target_tokens", "max_summary_tokens", "max_attempts"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.merge_threshold < 2:
            raise ValueError(f"merge_threshold must be >= 2, got {self.merge_threshold}")
        if self.merge_growth < 1.0:
            raise ValueError(f"merge_growth must be >= 1, got {self.merge_growth}")
        if self.summary_cap_factor < 1.0:
            raise ValueError(f"summary_cap_factor must be >= 1, got {self.summary_cap_factor}")
        if self.retry_base_seconds < 0 or self.retry_max_seconds < 0:
            raise ValueError("retry delays must be >= 0 seconds")
        if self.summarizer_context_tokens < 256:
            raise ValueError(f"summarizer_context_tokens must be >= 256, got {self.summarizer_context_tokens}")
        if self.request_lookahead < 1:
            raise ValueError(f"request_lookahead must be >= 1, got {self.request_lookahead}")
        if not 0.0 <= self.prefix_headroom < 1.0:
            raise ValueError(f"prefix_headroom must be in [0, 1), got {self.prefix_headroom}")
        if self.overflow not in ("excerpt", "window"):
            raise ValueError(f"overflow must be 'excerpt' or 'window', got {self.overflow!r}")
        if not self.summary_participant.strip() or not self.marker_participant.strip():
            raise ValueError("summary_participant and marker_participant must be non-empty names")

    # ---- derived sizes ---------------------------------------------------------------------------

    def level_target(self, level: int) -> int:
        """Tokens asked of a summary of ``level`` (1 = a chunk's summary)."""
        size = self.summary_target_tokens * self.merge_growth ** max(0, level - 1)
        return max(1, min(self.max_summary_tokens, math.ceil(size)))

    def level_cap(self, level: int, target: int | None = None) -> int:
        """Longest text (tokens) kept of a summary of ``level``; longer answers are cut."""
        return math.ceil((target if target is not None else self.level_target(level)) * self.summary_cap_factor)

    def output_tokens(self, target: int) -> int:
        """``max_tokens`` of a request asking for ``target`` tokens."""
        if self.summary_output_tokens is not None:
            return max(1, self.summary_output_tokens)
        return max(512, 3 * target)

    def backoff(self, attempts: int) -> float:
        """Seconds to wait after the ``attempts``-th consecutive failure (1 = the first)."""
        if attempts <= 0 or self.retry_base_seconds == 0:
            return 0.0
        return float(min(self.retry_max_seconds, self.retry_base_seconds * 2 ** (attempts - 1)))

    def with_(self, **changes: Any) -> AutobiographicalConfig:
        """A copy with some fields changed (validated again).

        Raises:
            TypeError: an unknown field (the message lists the fields there are).
            ValueError: as the constructor.
        """
        check_fields(changes)
        return replace(self, **changes)

    @classmethod
    def for_budget(cls, budget: int, **overrides: Any) -> AutobiographicalConfig:
        """Defaults scaled for compiles of about ``budget`` tokens.

        Head 15 %, recent window 30 %, chunks 12 % and L1 summaries 2.5 % of the budget, each within
        sensible bounds (head 100–8,000, recent 300–32,000, chunk 150–6,000, summary 30–600, largest
        summary 100–2,400), so the raw parts and a coarse middle fit with room for finer detail, date
        headers and the summaries' date ranges (every shared LoCoMo conversation compiles
        within 1,000 tokens, dated too; ``benchmarks/eval_locomo.py``). The lower bounds matter below
        about 2,500 tokens: the tail holds the recent window plus a chunk still filling, and every
        unmerged summary is a pair of its own, so chunks of 300 and summaries of 60 tokens took about
        1,300 of a 1,000-token budget on the longest conversations. Below 1,000 tokens a long run of short
        turns can still need more than the budget (found by hypothesis: 608 tokens at 600 for 8 sessions
        of 8 seven-word turns).

        Args:
            budget: The compile budget in tokens (``max_tokens - reserve_for_response``).
            **overrides: Fields to set explicitly.

        Raises:
            TypeError: ``budget`` is not an ``int`` (a ``bool`` included), or an override is not a field
                (the message lists the fields there are).
            ValueError: ``budget`` is not positive, or an override is invalid.
        """
        check_token_count("budget", budget, 1)
        check_fields(overrides)

        def part(share: float, lo: int, hi: int) -> int:
            return int(min(hi, max(lo, budget * share)))

        values: dict[str, Any] = {
            "head_window_tokens": part(0.15, 100, 8_000),
            "recent_window_tokens": part(0.30, 300, 32_000),
            "target_chunk_tokens": part(0.12, 150, 6_000),
            "summary_target_tokens": part(0.025, 30, 600),
            "recall_context_tokens": part(0.10, 400, 4_000),
        }
        values["max_summary_tokens"] = max(values["summary_target_tokens"], part(0.08, 100, 2_400))
        values.update(overrides)
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON-ready data."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def check_fields(names: Any) -> None:
    """Refuse names that are not :class:`AutobiographicalConfig` fields, naming the closest field and
    listing them all.

    Raises:
        TypeError: an unknown name.
    """
    known = [f.name for f in fields(AutobiographicalConfig)]
    unknown = [str(n) for n in names if n not in known]
    if not unknown:
        return
    close = difflib.get_close_matches(unknown[0], known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise TypeError(
        f"unknown AutobiographicalConfig field{'s' if len(unknown) > 1 else ''} "
        f"{', '.join(repr(n) for n in unknown)}{hint}; the fields are: {', '.join(known)}"
    )
