"""``KnowledgeStrategy``: autobiographical memory with phase-aware chunking.

A knowledge worker's session moves through phases: **research** (searching, fetching, reading),
**synthesis** (writing and editing), **lessons** (notes and memories it records) and **subagent** work
(tasks it delegates). Each phase compresses differently: research reads a lot and keeps little
(large chunks, a small share of the summary budget), lessons are short and must survive nearly whole
(small chunks, a large share). Phases are told apart by the names of the tools called
(:attr:`Phase.prefixes`, matched case-insensitively at the start of the name; an ``mcp__server__``
prefix is ignored); a message without a recognised call stays in the current phase.

A chunk closes when it reaches its phase's ``chunk_tokens``, or, at a tool-unit boundary where a new
phase starts, once it holds at least ``phase_break_fraction`` of its phase's size (so phases that
alternate quickly do not make tiny chunks). Its summary asks for ``summary_target_tokens *
summary_share`` tokens and adds the phase's hint to the instruction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..views import unit_start_at_or_after
from .autobiographical.config import AutobiographicalConfig
from .autobiographical.records import ChunkRecord
from .autobiographical.strategy import AutobiographicalStrategy

if TYPE_CHECKING:
    from ..views import MessageView

__all__ = ["DEFAULT_PHASES", "DEFAULT_PHASE_BREAK_FRACTION", "KnowledgeStrategy", "Phase"]


@dataclass(frozen=True)
class Phase:
    """One phase of a knowledge session.

    Attributes:
        name: The phase's name (stored with its chunks).
        prefixes: Tool-name prefixes that mark it (case-insensitive).
        chunk_tokens: Size of its chunks, in tokens.
        summary_share: Its share of the summary budget: its chunks' summaries ask for
            ``summary_target_tokens * summary_share`` tokens.
        hint: Advice added to its chunks' summary instruction.

    Raises:
        ValueError: ``chunk_tokens < 1`` or ``summary_share <= 0``.
    """

    name: str
    prefixes: tuple[str, ...]
    chunk_tokens: int
    summary_share: float = 1.0
    hint: str = ""

    def __post_init__(self) -> None:
        if self.chunk_tokens < 1:
            raise ValueError(f"phase {self.name!r}: chunk_tokens must be >= 1")
        if self.summary_share <= 0:
            raise ValueError(f"phase {self.name!r}: summary_share must be > 0")


DEFAULT_PHASE_BREAK_FRACTION = 0.25
"""A phase change closes a chunk holding at least this fraction of its phase's size, by default."""

DEFAULT_PHASES: tuple[Phase, ...] = (
    Phase(
        "research",
        ("search", "web", "fetch", "read", "grep", "glob", "browse", "lookup", "query", "research", "list"),
        6_000,
        0.75,
        "This part was research: keep the sources (URLs, paths), the facts found and the questions still open.",
    ),
    Phase(
        "synthesis",
        ("write", "edit", "multiedit", "create", "draft", "compose", "synth", "apply", "notebook"),
        3_000,
        1.0,
        "This part was synthesis: keep what was written where, and the decisions and their reasons.",
    ),
    Phase(
        "lesson",
        ("lesson", "learn", "note", "memory", "remember", "reflect", "insight"),
        1_500,
        1.5,
        "This part recorded lessons: keep each lesson whole, with what taught it.",
    ),
    Phase(
        "subagent",
        ("task", "agent", "subagent", "spawn", "delegate", "dispatch"),
        4_000,
        0.75,
        "This part delegated work: keep what each sub-agent was asked and what it returned.",
    ),
)
"""Phases of :class:`KnowledgeStrategy` unless others are given."""


def _bare(name: str) -> str:
    name = name.lower()
    if name.startswith("mcp__"):
        name = name.rsplit("__", 1)[-1]
    return name


class KnowledgeStrategy(AutobiographicalStrategy):
    """Autobiographical memory whose chunks follow the session's phases.

    Args:
        config: The autobiographical settings (``target_chunk_tokens`` sizes chunks of no phase).
        phases: The phases, tried in order (default :data:`DEFAULT_PHASES`).
        phase_break_fraction: A phase change closes a chunk holding at least this fraction of its
            phase's size, in ``[0, 1]``.
        **overrides: Autobiographical settings changed from ``config``.

    Raises:
        ValueError: ``phase_break_fraction`` outside ``[0, 1]``, two phases with one name, or an
            invalid setting.
    """

    name = "knowledge"

    def __init__(
        self,
        config: AutobiographicalConfig | None = None,
        *,
        phases: Sequence[Phase] = DEFAULT_PHASES,
        phase_break_fraction: float = DEFAULT_PHASE_BREAK_FRACTION,
        **overrides: Any,
    ) -> None:
        super().__init__(config, **overrides)
        if not 0 <= phase_break_fraction <= 1:
            raise ValueError(f"phase_break_fraction must be in [0, 1], got {phase_break_fraction}")
        names = [p.name for p in phases]
        if len(set(names)) != len(names):
            raise ValueError(f"phase names must be unique, got {names}")
        self.phases = tuple(phases)
        self.phase_break_fraction = phase_break_fraction
        self._by_name = {p.name: p for p in self.phases}
        self._seen: dict[tuple[str, int], str | None] = {}

    def phase_of_tool(self, tool_name: str) -> str | None:
        """The phase a tool's name marks, or None."""
        bare = _bare(tool_name)
        for phase in self.phases:
            if any(bare.startswith(p.lower()) for p in phase.prefixes):
                return phase.name
        return None

    def message_phase(self, view: MessageView, index: int) -> str | None:
        """The phase the calls of the message at ``index`` mark, or None (no recognised call)."""
        entry = view.entry(index)
        if "tool_use" not in entry.kinds:
            return None
        key = (entry.id, entry.sequence)
        if key in self._seen:
            return self._seen[key]
        phase = None
        for block in view.message(index).content_dicts():
            if block.get("type") == "tool_use":
                phase = self.phase_of_tool(str(block.get("name", "")))
                if phase is not None:
                    break
        if len(self._seen) > 65_536:
            self._seen.clear()
        self._seen[key] = phase
        return phase

    def _size(self, phase: str | None) -> int:
        found = self._by_name.get(phase) if phase is not None else None
        return found.chunk_tokens if found is not None else self.config.target_chunk_tokens

    def chunk_end(self, view: MessageView, start: int, limit: int, bounded: bool) -> tuple[int, str | None] | None:
        """The chunk cut at phase changes and at each phase's size (see the module docstring)."""
        n = len(view)
        if start >= limit:
            return None
        current: str | None = None
        i = start
        while i < limit:
            batch = view.entries(i, min(limit, i + 32))
            for entry in batch:
                k = entry.position
                phase = self.message_phase(view, k) if "tool_use" in entry.kinds else None
                if phase is not None and current is None:
                    current = phase
                elif (
                    phase is not None
                    and phase != current
                    and k > start
                    and view.tokens(start, k) >= self.phase_break_fraction * self._size(current)
                ):
                    return k, current
                if view.tokens(start, k + 1) >= self._size(current):
                    end = unit_start_at_or_after(view, k + 1, n)
                    if bounded:
                        return min(end, limit), current
                    if end > limit or end >= n:
                        return None
                    return end, current
            i += len(batch)
        return (limit, current) if bounded else None

    def chunk_target(self, chunk: ChunkRecord) -> int:
        """``summary_target_tokens`` times the chunk's phase share."""
        phase = self._by_name.get(chunk.phase) if chunk.phase is not None else None
        share = phase.summary_share if phase is not None else 1.0
        return max(1, round(self.config.summary_target_tokens * share))

    def chunk_hint(self, chunk: ChunkRecord) -> str:
        """The chunk's phase hint."""
        phase = self._by_name.get(chunk.phase) if chunk.phase is not None else None
        return phase.hint if phase is not None else ""

    def __repr__(self) -> str:
        return f"KnowledgeStrategy(phases={[p.name for p in self.phases]})"
