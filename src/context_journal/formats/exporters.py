"""Exporters: a :class:`~context_journal.compile.CompileResult` as the official SDKs take it.

* :func:`to_anthropic` → ``{"system": [...], "messages": [...]}`` (plus any extra parameters given),
  ready for ``anthropic.Anthropic().messages.create(**params)``.
* :func:`to_openai` → a Chat Completions ``messages`` list for
  ``openai.OpenAI().chat.completions.create(model=..., messages=...)``.

Both merge consecutive turns of one role (strict providers require alternation; Anthropic's docs
note that consecutive same-role turns are combined), keep only the fields each API accepts (a stored
block may carry the host's own fields; a ``tool_use`` keeps its ``caller``, as Claude Code records it,
and a ``caller`` that is null, as a model dump of a server block has it, is left out), and turn stored
media (``blob`` sources) back into base64.

Anthropic prompt caching (by default: ``to_anthropic(cache=False)`` adds no marker of its own):
``cache_control: {"type": "ephemeral"}`` goes on the last system block and on
the last cacheable block of the messages marked ``cache_breakpoint`` (one per sent message: compiled
turns merged into one carry the last one's). The API accepts at most 4 markers per request, counted over
everything that carries one: the host's own markers on stored blocks, on system blocks and on the tool
definitions passed as ``tools=``, and these. One marker per tools array, system prompt and message is kept
(the last: it covers the prefix of the others), then at most 4 of those: the tools', the system
prompt's, then the newest messages'; the rest are removed and a
:class:`~context_journal.rendering.cache_markers.CacheMarkersDroppedWarning` lists them, as does the returned
request's ``cache_markers_dropped`` (an :class:`AnthropicRequest`; thinking blocks and empty text never
carry one). A 5-minute marker before a 1-hour one is raised to 1 hour (the API wants longer TTLs first)
and a :class:`~context_journal.rendering.cache_markers.CacheMarkersRaisedWarning` names it. See Anthropic's
"Prompt caching" guide.

OpenAI mapping: the Chat Completions wire format of :mod:`context_journal.wire.chat_completions`, the
encoder the OpenAI adapter uses too (tool calls with their ``arguments`` as the import read them, tool
results as ``tool`` messages prefixed ``[error]`` when ``is_error``, their images after them in the user
message, media as data URLs and ``file`` parts, thinking not sent). Anthropic provider blocks (server
tool calls and results, ``mcp_*``, ``compaction``, ``search_result``, ``container_upload``) are sent to
Anthropic as stored and to OpenAI as text parts of their message (a server call and its result are one
turn's text, so tool pairing is untouched; encrypted content is left out). OpenAI ``reasoning`` items go
to neither (only the Responses export, :mod:`context_journal.formats.openai_responses`, sends them), as
thinking is not sent to OpenAI.
OpenAI built-in tool items (``openai_item`` blocks: ``web_search_call``, ``computer_call_output``...) go
to both as a line of text in their turn, and a text block's OpenAI annotations (``url_citation``...) are
not sent to Anthropic (its citations are of its own kinds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..rendering.cache_markers import (
    MAX_CACHE_BREAKPOINTS,
    CacheMarkersDroppedWarning,
    CacheMarkersRaisedWarning,
    can_carry_marker,
    cap_cache_markers,
)
from ..wire.chat_completions import encode_chat_turn
from ..wire.messages import CACHEABLE_TYPES, NOT_SENT_TYPES, anthropic_block

if TYPE_CHECKING:
    from ..compile import CompiledMessage, CompileResult

__all__ = [
    "MAX_CACHE_BREAKPOINTS",
    "AnthropicRequest",
    "CacheMarkersDroppedWarning",
    "CacheMarkersRaisedWarning",
    "to_anthropic",
    "to_openai",
]

Block = dict[str, Any]


def _check_assistant(result: CompileResult, assistant: str | None) -> None:
    if assistant is not None and assistant not in result.assistant:
        raise ValueError(
            f"{assistant!r} was not the assistant when this context was compiled (it was {list(result.assistant)}); "
            f"compile with assistant={assistant!r} so its turns are rendered as the assistant's"
        )


def _merge_runs(messages: Sequence[CompiledMessage]) -> list[tuple[str, list[CompiledMessage]]]:
    runs: list[tuple[str, list[CompiledMessage]]] = []
    for m in messages:
        if runs and runs[-1][0] == m.role:
            runs[-1][1].append(m)
        else:
            runs.append((m.role, [m]))
    return runs


class AnthropicRequest(dict[str, Any]):
    """What :func:`to_anthropic` returns: a plain ``dict`` of Messages API parameters, passed on as
    ``messages.create(**request)``, that also says what the 4-marker limit removed, as attributes outside
    its keys (the API rejects a parameter it does not know; ``dict(request)`` or JSON keeps only the keys).

    Attributes:
        cache_markers_dropped: The paths of the ``cache_control`` markers removed to keep the request within
            the limit, in prompt order, e.g. ``"messages[0].content[1]"`` or ``"tools[2]"`` (empty when
            none was: the same paths a :class:`CacheMarkersDroppedWarning` lists).
    """

    cache_markers_dropped: tuple[str, ...] = ()


def to_anthropic(
    result: CompileResult, *, assistant: str | None = None, cache: bool = True, **params: Any
) -> AnthropicRequest:
    """Anthropic Messages API parameters for a compiled context.

    Args:
        result: The compiled context.
        assistant: The assistant's participant name, checked against the compile's (None = no check).
        cache: Add ``cache_control`` breakpoints (system prompt and marked messages): True, the default,
            adds them; False sends only the markers the host put on stored blocks, system blocks and
            ``tools``. Either way the request carries at most 4 markers in all (see the module docstring).
        **params: Other request parameters to include (``model``, ``max_tokens``, ``tools``...). Markers on
            ``tools`` count toward the limit; the caller's tool dicts are never changed.

    Returns:
        ``{"system": [text blocks], "messages": [{"role", "content"}], **params}``; ``system`` is left out
        when empty. An :class:`AnthropicRequest`: its ``cache_markers_dropped`` lists the markers removed.

    Raises:
        ValueError: ``assistant`` is not the compile's assistant, or stored media cannot be read.
        TypeError: ``params`` holds ``system`` or ``messages``: the compile built them, within its budget
            (a system prompt goes to ``compile(system=...)``, where it is counted; one passed here replaced
            the compiled one after the cache markers were counted, and a request went out with five).

    Warns:
        CacheMarkersDroppedWarning: markers were removed to keep the request within the limit (its
            ``dropped`` and ``kept`` attributes are paths into the returned request).
        CacheMarkersRaisedWarning: 5-minute markers before a 1-hour one were raised to 1 hour (its
            ``raised`` attribute: their paths).
    """
    _check_assistant(result, assistant)
    built = sorted({"system", "messages"} & params.keys())
    if built:
        raise TypeError(
            f"to_anthropic() got {', '.join(built)}: the compile builds them within its budget; pass a system "
            "prompt to compile(system=...) instead"
        )
    get_blob = result.get_blob
    messages: list[dict[str, Any]] = []
    marks: dict[int, int] = {}  # message index -> block index of its cache breakpoint (the last: one each)
    sent_as: dict[int, int] = {}  # compiled message index -> the request's message index (runs merged)
    k = 0
    for role, group in _merge_runs(result.messages):
        content: list[Block] = []
        for m in group:
            sent_as[k] = len(messages)
            k += 1
            sent = [b for b in m.content if b.get("type") not in NOT_SENT_TYPES]  # OpenAI's: Anthropic takes none
            content.extend(anthropic_block(b, get_blob) for b in sent)
            if m.cache_breakpoint:
                for j in range(len(content) - 1, len(content) - len(sent) - 1, -1):
                    if content[j].get("type") in CACHEABLE_TYPES and can_carry_marker(content[j]):
                        marks[len(messages)] = j
                        break
        if content:
            messages.append({"role": role, "content": content})
    system = [anthropic_block(b, get_blob) for b in result.system]
    if cache:
        if system and can_carry_marker(system[-1]):
            system[-1] = _with_marker(system[-1])
        for i, j in marks.items():
            messages[i]["content"][j] = _with_marker(messages[i]["content"][j])
    tools = params.get("tools")
    if isinstance(tools, list):
        params["tools"] = tools = list(tools)
    prefer = [sent_as[k] for k in result.cache_priority if k in sent_as] if cache else []
    dropped = cap_cache_markers(
        tools=tools if isinstance(tools, list) else None, system=system, messages=messages, prefer=prefer
    )
    out = AnthropicRequest()
    out.cache_markers_dropped = dropped
    if system:
        out["system"] = system
    out["messages"] = messages
    out.update(params)
    return out


def _with_marker(block: Block) -> Block:
    """The block with a breakpoint (a host's own marker, e.g. with a ``ttl``, is kept as it is)."""
    return block if "cache_control" in block else {**block, "cache_control": {"type": "ephemeral"}}


def to_openai(
    result: CompileResult, *, assistant: str | None = None, system_role: str = "system"
) -> list[dict[str, Any]]:
    """Chat Completions messages for a compiled context.

    Args:
        result: The compiled context.
        assistant: The assistant's participant name, checked against the compile's (None = no check).
        system_role: ``"system"`` or ``"developer"`` (OpenAI's reasoning models prefer the latter).

    Returns:
        ``[{"role": "system", ...}, {"role": "user", ...}, {"role": "assistant", "tool_calls": [...]},
        {"role": "tool", "tool_call_id": ..., "content": ...}, ...]``.

    Raises:
        ValueError: ``assistant`` is not the compile's assistant, or stored media cannot be read.
    """
    _check_assistant(result, assistant)
    get_blob = result.get_blob
    out: list[dict[str, Any]] = []
    system_text = "\n\n".join(str(b.get("text", "")) for b in result.system if b.get("type") == "text")
    if system_text.strip():
        out.append({"role": system_role, "content": system_text})
    for role, group in _merge_runs(result.messages):
        out.extend(encode_chat_turn(role, [b for m in group for b in m.content], get_blob))
    return out
