"""The compile's roles (which participant speaks as which provider role), the repair passes' options and
the content injected into one compile. Below both the strategies and the compiler: a strategy that renders
its own requests (the autobiographical summary requests) builds them, and ``context_journal.compile``
re-exports them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["CompileOptions", "Injection", "Roles"]


@dataclass(frozen=True)
class Roles:
    """Which participants play which provider role.

    Attributes:
        assistant: Names rendered as assistant turns.
        user: Names rendered as unnamed user turns.
        system: Names whose messages are instructions (leading ones go to the system prompt).
        tool: Names that author tool results (rendered as unnamed user turns).
        name_format: Prefix of the first text block of other speakers' turns (``{name}`` is replaced).
    """

    assistant: frozenset[str] = frozenset({"assistant", "Claude"})
    user: frozenset[str] = frozenset({"user", "human", "User", "Human"})
    system: frozenset[str] = frozenset({"system"})
    tool: frozenset[str] = frozenset({"tool", "tools"})
    name_format: str = "{name}: "

    @classmethod
    def of(
        cls,
        assistant: str | Iterable[str] | None = None,
        *,
        user: str | Iterable[str] | None = None,
        system: str | Iterable[str] | None = None,
        tool: str | Iterable[str] | None = None,
    ) -> Roles:
        """Defaults extended by the names given (a string is one name)."""
        base = cls()

        def more(current: frozenset[str], extra: str | Iterable[str] | None) -> frozenset[str]:
            if extra is None:
                return current
            return current | ({extra} if isinstance(extra, str) else frozenset(extra))

        return cls(
            more(base.assistant, assistant), more(base.user, user), more(base.system, system), more(base.tool, tool)
        )

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any]) -> Roles:
        """Roles from a conversation's metadata as the importers write it (``assistant``, ``user``,
        ``system_participants``, ``tool_participants``)."""
        return cls.of(
            metadata.get("assistant") or None,
            user=metadata.get("user") or None,
            system=metadata.get("system_participants") or None,
            tool=metadata.get("tool_participants") or None,
        )

    def role(self, participant: str, meta_role: Any = None) -> str:
        """``"system"``, ``"assistant"`` or ``"user"`` for a message."""
        if meta_role == "system" or participant in self.system:
            return "system"
        if participant in self.assistant or meta_role == "assistant":
            return "assistant"
        return "user"

    def prefix(self, participant: str, role: str) -> str:
        """The name prefix of a user turn by this participant ("" when it speaks unnamed)."""
        if role == "assistant" or participant in self.user or participant in self.tool:
            return ""
        return self.name_format.format(name=participant)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (sorted names)."""
        return {
            "assistant": sorted(self.assistant),
            "user": sorted(self.user),
            "system": sorted(self.system),
            "tool": sorted(self.tool),
            "name_format": self.name_format,
        }


@dataclass(frozen=True)
class CompileOptions:
    """Knobs of the repair passes.

    Attributes:
        max_images: Images kept, counted from the newest; older ones become placeholders (None = all).
            Anthropic accepts up to 100 images per request.
        image_depth_tokens: Images further than this many tokens from the newest message become
            placeholders (None = no depth limit).
        max_tool_result_tokens: Tool results larger than this many tokens are reduced to excerpts of
            about this size (head and tail kept; the journal keeps them whole; None = no limit).
            Like image placeholders, this reduction is priced before the strategy selects, so a
            message that fits once reduced is never left out (bug case B63). With None, a result larger
            than the whole budget (never sendable raw) is excerpted to about a quarter of the budget,
            priced the same way when the selection would otherwise leave messages out.
        keep_thinking_turns: Keep thinking blocks only in the newest N assistant turns (None = all).
            Blocks are dropped whole, never edited.
        cache_breakpoints: Messages marked ``cache_breakpoint`` (Anthropic allows 4 ``cache_control``
            markers per request; the exporter uses one more on the system prompt).
        repair_reserve: Tokens held back from the first selection for repair notes and stubs (when the
            repaired context is over, the strategy selects again with the excess taken off anyway).
        validate: Check the result before returning it (see :mod:`context_journal.validate`).
    """

    max_images: int | None = 20
    image_depth_tokens: int | None = None
    max_tool_result_tokens: int | None = None
    keep_thinking_turns: int | None = None
    cache_breakpoints: int = 3
    repair_reserve: int = 0
    validate: bool = True


@dataclass(frozen=True)
class Injection:
    """Content added to one compile and never stored.

    Attributes:
        content: A string or content blocks.
        position: ``"system"`` (appended to the system prompt), ``"end"`` (a user turn after everything)
            or ``"before_last_user"`` (just before the newest user turn; added to it when it answers
            tool calls).
        participant: Who speaks it (user turns).
        label: A name for provenance (e.g. ``"memory"``).
    """

    content: str | Sequence[Mapping[str, Any]]
    position: Literal["system", "end", "before_last_user"] = "end"
    participant: str = "user"
    label: str = "injection"
