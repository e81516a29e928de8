"""Provider validity of a message list: the rules every compile's output must satisfy.

:func:`validate_messages` checks Anthropic-shaped messages (``{"role", "content"}``); the compiler
runs it on every result, the exporters' output passes it, and tests use it as the oracle.
:func:`validate_openai_messages` checks Chat Completions messages. Both return a list of
:class:`ValidationIssue` (empty = valid); :func:`check_messages` raises instead.

Rules and their sources:

* Roles are ``user`` and ``assistant``; the system prompt is a separate parameter (Anthropic Messages
  API reference, "messages"). The first message is a user turn.
* With ``alternate=True``: no two consecutive messages share a role (some providers reject it;
  Anthropic merges them, so the compiler's own list may repeat a role and the exporters merge).
* No message without content, no empty or whitespace-only text block ("text content blocks must
  be non-empty"; "messages: all messages must have non-empty content").
* Images and documents appear only in user turns (Anthropic Messages API: assistant content is text,
  tool use and thinking).
* ``tool_use`` appears only in assistant turns and ``tool_result`` only in user turns; each
  ``tool_use`` is answered by a ``tool_result`` in the *next* message, and every ``tool_result``
  answers a ``tool_use`` of the message just before it (Anthropic tool-use guide: "tool_result
  blocks must immediately follow the corresponding tool_use"; "in the user message containing tool
  results, the tool_result blocks must come first in the content array"). ``tool_use`` ids are unique and
  match ``^[a-zA-Z0-9_-]+$`` (the Messages API's request schema; ``to_anthropic`` renames others).
* A ``tool_result`` has non-empty content.
* Provider-side tools (Anthropic server tools and the MCP connector): ``server_tool_use`` /
  ``mcp_tool_use`` and their results (``web_search_tool_result``, ``web_fetch_tool_result``,
  ``code_execution_tool_result``, ``bash_code_execution_tool_result``,
  ``text_editor_code_execution_tool_result``, ``tool_search_tool_result``, ``mcp_tool_result``) appear only
  in assistant turns, and each call is answered exactly once by a result later in the *same* message (the
  provider runs the tool inside the turn; Anthropic web search tool guide, "Response"), by a result of the
  type its tool returns (a ``web_search`` call by a ``web_search_tool_result``...;
  ``content.SERVER_TOOL_RESULTS``); ids are unique. The one exception: a ``server_tool_use`` in an assistant
  turn that also calls a client ``tool_use`` may come without its result (Anthropic "Server tools" guide:
  the API runs it once the client's ``tool_result`` is sent back; the ``tool_use`` rule below makes that
  result follow). A paused turn (Anthropic's ``pause_turn``: the response ends with a server call whose
  result has not come yet) is the other: sent as the final turn, as it is, the model continues it; followed
  by another assistant turn (its continuation, which the API merges with it), that turn must answer its
  waiting calls.
  ``compaction`` blocks appear only in assistant turns (the block is passed back in the assistant
  message it came in), and at most one of them has content (the SDK's
  ``compaction_block_ambiguous`` error: "send only the block the conversation returned last"). ``search_result`` and
  ``container_upload`` appear only in user turns. OpenAI ``reasoning`` items appear only in assistant
  turns and carry their id (the provider verifies it with the encrypted content). An ``openai_item`` (an
  OpenAI built-in tool's item) appears in the turn of its side: a call in an assistant turn, an output
  (``computer_call_output``, ``mcp_approval_response``...) in a user turn.
* Thinking blocks carry a non-empty signature (thinking must be returned unmodified, with its
  signature: Anthropic extended-thinking guide, "Preserving thinking blocks").
* The final assistant turn, when the list ends with one, does not end with whitespace (Anthropic:
  "final assistant content cannot end with trailing whitespace").
* With extended thinking on (``thinking=True``; the caller knows, the list alone does not), a tool
  loop still running at the end of the list (its calls and their results after the last user text)
  opens with its thinking block (Anthropic extended-thinking guide, "Preserving thinking blocks":
  "a final assistant message must start with a thinking block" while tool use is in progress).

OpenAI Chat Completions: ``tool`` messages follow an assistant message with ``tool_calls`` and answer
each call exactly once before any other message ("messages with role 'tool' must be a response to a
preceding message with 'tool_calls'"); every call is answered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._block_types import openai_item_role
from .content import (
    ASSISTANT_ONLY_TYPES,
    SENDABLE_ID,
    SERVER_CALL_TYPES,
    SERVER_RESULT_TYPES,
    USER_ONLY_TYPES,
    server_result_call,
    server_result_mismatch,
)
from .errors import ContextJournalError

__all__ = [
    "InvalidContextError",
    "ValidationIssue",
    "check_messages",
    "validate_messages",
    "validate_openai_messages",
    "validate_turns",
]


@dataclass(frozen=True)
class ValidationIssue:
    """One broken rule.

    Attributes:
        index: Position of the message.
        code: A short stable name (``"orphan_tool_result"``, ``"empty_text"``...).
        detail: What is wrong, in words.
        block: Position of the block in the message, when the fault is in a block.
    """

    index: int
    code: str
    detail: str
    block: int | None = None

    def __str__(self) -> str:
        where = f"message {self.index}" + (f", block {self.block}" if self.block is not None else "")
        return f"{where}: {self.code}: {self.detail}"


class InvalidContextError(ContextJournalError, ValueError):
    """A message list breaks a provider rule (a compile never returns one; hosts may check their own).

    Attributes:
        issues: Every broken rule found.
    """

    def __init__(self, issues: Sequence[ValidationIssue]) -> None:
        self.issues = list(issues)
        shown = "; ".join(str(i) for i in self.issues[:5])
        more = f" (and {len(self.issues) - 5} more)" if len(self.issues) > 5 else ""
        super().__init__(f"the message list is not valid for the provider: {shown}{more}")


def _blank(text: Any) -> bool:
    return not isinstance(text, str) or not text.strip()


def _result_content_issue(content: Any) -> str | None:
    if isinstance(content, str):
        return "empty tool_result content" if not content.strip() else None
    if isinstance(content, list):
        if not content:
            return "empty tool_result content"
        for nested in content:
            if not isinstance(nested, Mapping):
                return "tool_result content holds a non-object"
            if nested.get("type") == "text" and _blank(nested.get("text")):
                return "empty text block inside tool_result"
        return None
    return "tool_result content must be a string or a list of blocks"


def validate_messages(
    messages: Sequence[Mapping[str, Any]],
    *,
    alternate: bool = False,
    require_signatures: bool = True,
    thinking: bool = False,
    sendable_ids: bool = True,
) -> list[ValidationIssue]:
    """Check Anthropic-shaped messages against the rules in the module docstring.

    Args:
        messages: ``{"role": "user"|"assistant", "content": str | [block dicts]}``.
        alternate: Also require user and assistant turns to alternate.
        require_signatures: Require thinking blocks to be signed.
        thinking: Extended thinking is on for the request: a running tool loop at the end must open
            with its thinking block (a compile sets it when the journal's running loop opened with one).
        sendable_ids: Require ``tool_use`` ids the Messages API takes (``^[a-zA-Z0-9_-]+$``; ``to_anthropic``
            renames others, :func:`~context_journal.content.sendable_id`). False for a compiled context
            before its export, which keeps the journal's ids (an OpenAI export sends them as they are).

    Returns:
        The issues found, in message order; empty when the list is valid. An empty list is one issue
        (``"no_messages"``): providers reject a request without messages.
    """
    if not messages:
        return [ValidationIssue(0, "no_messages", "the list holds no message; providers reject an empty message list")]
    return validate_turns(
        [(m.get("role"), m.get("content")) for m in messages],
        alternate=alternate,
        require_signatures=require_signatures,
        thinking=thinking,
        sendable_ids=sendable_ids,
    )


def _kinds(content: Any) -> list[Any]:
    if isinstance(content, (list, tuple)):
        return [b.get("type") if isinstance(b, Mapping) else None for b in content]
    return ["text"]


def _running_loop_issue(turns: Sequence[tuple[Any, Any]], thinking: bool) -> ValidationIssue | None:
    """The running tool loop at the end of ``turns`` does not open with its thinking block."""
    if not thinking or not turns:
        return None
    kinds = [_kinds(content) for _, content in turns]
    first: int | None = None
    for i in range(len(turns) - 1, -1, -1):
        role, ks = turns[i][0], kinds[i]
        if role == "assistant" and "tool_use" in ks:
            first = i
        elif role == "assistant" and first is not None:
            # Another assistant message of the turn (its thinking or text stored apart, as Claude Code
            # does, or a paused turn merged with its continuation): the turn opens with the first one.
            first = i
        elif not (role == "user" and ks and all(k == "tool_result" for k in ks)):
            break
    if first is None or (kinds[first] and kinds[first][0] in ("thinking", "redacted_thinking")):
        return None
    return ValidationIssue(
        first,
        "running_turn_without_thinking",
        "the tool loop still running at the end does not open with its thinking block",
    )


def validate_turns(
    turns: Sequence[tuple[Any, Any]],
    *,
    alternate: bool = False,
    require_signatures: bool = True,
    thinking: bool = False,
    sendable_ids: bool = False,
) -> list[ValidationIssue]:
    """:func:`validate_messages` over ``(role, content)`` pairs (content a string, list or tuple of
    blocks); what the compiler runs on every result without building message dicts (its ids are checked
    at the export: ``sendable_ids`` False by default here)."""
    issues: list[ValidationIssue] = []
    add = issues.append
    seen_uses: set[str] = set()
    pending: dict[str, int] = {}  # tool_use ids of the previous assistant message, awaiting results
    carry: dict[str, tuple[str, int, Any]] = {}  # server calls a paused assistant turn left to the next one
    prev_role: str | None = None
    last = len(turns) - 1
    for i, (role, content) in enumerate(turns):
        if role not in ("user", "assistant"):
            add(ValidationIssue(i, "bad_role", f"role must be 'user' or 'assistant', got {role!r}"))
        if i == 0 and role != "user":
            add(ValidationIssue(i, "first_not_user", "the first message must be a user turn"))
        if alternate and prev_role is not None and role == prev_role:
            add(ValidationIssue(i, "same_role", f"two consecutive {role} turns"))
        blocks: Iterable[Any]
        if isinstance(content, str):
            if _blank(content):
                add(ValidationIssue(i, "empty_message", "text content is empty"))
            blocks = ()
        elif isinstance(content, (list, tuple)):
            if not content:
                add(ValidationIssue(i, "empty_message", "message has no content blocks"))
            blocks = content
        else:
            add(ValidationIssue(i, "bad_content", "content must be a string or a list of blocks"))
            blocks = ()
        answered: set[str] = set()
        uses_here: list[str] = []
        seen_other = False
        # provider calls awaiting results: this message's, and those the paused turn before left to it
        server_calls: dict[str, tuple[str, int, Any]] = carry if role == "assistant" else {}
        carried, carry = set(carry) if role == "assistant" else set(), {}
        for j, block in enumerate(blocks):
            if type(block) is not dict and not isinstance(block, Mapping):
                add(ValidationIssue(i, "bad_block", "a block must be an object", j))
                continue
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if type(text) is not str or not text.strip():
                    add(ValidationIssue(i, "empty_text", "empty or whitespace-only text block", j))
                seen_other = True
            elif kind == "tool_use":
                tid = block.get("id")
                if role != "assistant":
                    add(ValidationIssue(i, "tool_use_not_assistant", f"tool_use {tid!r} in a {role} turn", j))
                if sendable_ids and isinstance(tid, str) and tid and not SENDABLE_ID.fullmatch(tid):
                    detail = f"tool_use id {tid!r} holds other than A-Z a-z 0-9 _ -"
                    add(ValidationIssue(i, "bad_tool_use_id", detail, j))
                if not isinstance(tid, str) or not tid:
                    add(ValidationIssue(i, "bad_tool_use", "tool_use needs a non-empty id", j))
                elif tid in seen_uses:
                    add(ValidationIssue(i, "duplicate_tool_use", f"tool_use id {tid!r} used twice", j))
                else:
                    seen_uses.add(tid)
                    uses_here.append(tid)
                if not isinstance(block.get("input"), Mapping):
                    add(ValidationIssue(i, "bad_tool_use", "tool_use input must be an object", j))
                seen_other = True
            elif kind == "tool_result":
                tid = block.get("tool_use_id")
                if role != "user":
                    add(ValidationIssue(i, "tool_result_not_user", f"tool_result {tid!r} in a {role} turn", j))
                elif tid not in pending:
                    add(ValidationIssue(i, "orphan_tool_result", f"tool_result {tid!r} answers no call just before", j))
                elif tid in answered:
                    add(ValidationIssue(i, "duplicate_tool_result", f"tool_use {tid!r} answered twice", j))
                else:
                    answered.add(str(tid))
                if seen_other:
                    add(ValidationIssue(i, "tool_result_not_first", "tool_result blocks must come first", j))
                problem = _result_content_issue(block.get("content", ""))
                if problem:
                    add(ValidationIssue(i, "empty_tool_result", problem, j))
            elif kind in ("thinking", "redacted_thinking"):
                if role != "assistant":
                    add(ValidationIssue(i, "thinking_not_assistant", f"{kind} block in a {role} turn", j))
                if kind == "thinking" and require_signatures and _blank(block.get("signature")):
                    add(ValidationIssue(i, "unsigned_thinking", "thinking block without a signature", j))
                seen_other = True
            elif kind in ("image", "document"):
                if role != "user":
                    add(ValidationIssue(i, "media_not_user", f"{kind} block in a {role} turn", j))
                if not isinstance(block.get("source"), Mapping):
                    add(ValidationIssue(i, "bad_media", f"{kind} block needs a source", j))
                seen_other = True
            elif kind == "openai_item":
                want = openai_item_role(block.get("item_type"))
                if role != want:
                    add(
                        ValidationIssue(
                            i, f"provider_block_not_{want}", f"OpenAI {block.get('item_type')} in a {role} turn", j
                        )
                    )
                seen_other = True
            elif kind in ASSISTANT_ONLY_TYPES or kind in USER_ONLY_TYPES:
                _provider_block(i, j, role, kind, block, server_calls, seen_uses, add)
                seen_other = True
            else:
                add(ValidationIssue(i, "unknown_block", f"unknown block type {kind!r}", j))
                seen_other = True
        client_call = role == "assistant" and any(
            isinstance(b, Mapping) and b.get("type") == "tool_use" for b in blocks
        )  # a server_tool_use beside a client call is run after its tool_result comes back
        named = {
            b.get("tool_use_id") for b in blocks if isinstance(b, Mapping) and b.get("type") in SERVER_RESULT_TYPES
        }
        waiting = {
            cid: call
            for cid, call in server_calls.items()
            if cid not in carried and not (client_call and call[0] == "server_tool_use")
        }
        paused = role == "assistant" and not named & set(waiting)  # a result of the wrong type answers nothing
        if paused and waiting and i < last and turns[i + 1][0] == "assistant":
            carry = waiting  # a paused turn (pause_turn): its continuation, merged with it, answers them
        elif not (paused and i == last):  # a paused newest turn is sent as is, to be continued
            for cid, (ckind, j, _) in waiting.items():
                add(ValidationIssue(i, "unanswered_server_call", f"{ckind} {cid!r} has no result in its message", j))
        for cid in carried & set(server_calls):
            ckind = server_calls[cid][0]
            add(
                ValidationIssue(
                    i, "unanswered_server_call", f"{ckind} {cid!r} of the paused turn before is not answered"
                )
            )
        for tid in pending:
            if tid not in answered:
                add(ValidationIssue(i, "missing_tool_result", f"tool_use {tid!r} of the previous turn is not answered"))
        pending = dict.fromkeys(uses_here, i)
        if i == last and role == "assistant" and isinstance(content, (list, tuple)) and content:
            tail = content[-1]
            if isinstance(tail, Mapping) and tail.get("type") == "text":
                text = tail.get("text")
                if isinstance(text, str) and text != text.rstrip():
                    add(ValidationIssue(i, "trailing_whitespace", "final assistant text ends with whitespace"))
        prev_role = role if isinstance(role, str) else None
    if pending and turns:
        # A call in the final assistant turn has no answer yet: providers reject it as input.
        for tid in pending:
            add(ValidationIssue(last, "missing_tool_result", f"tool_use {tid!r} in the final turn is not answered"))
    compactions = [
        (i, j)
        for i, (_, content) in enumerate(turns)
        if isinstance(content, (list, tuple))
        for j, b in enumerate(content)
        if isinstance(b, Mapping) and b.get("type") == "compaction" and b.get("content")
    ]
    for i, j in compactions[:-1]:
        add(ValidationIssue(i, "ambiguous_compaction", "more than one compaction block with content", j))
    loop = _running_loop_issue(turns, thinking)
    if loop is not None:
        add(loop)
    return issues


def _provider_block(
    i: int,
    j: int,
    role: Any,
    kind: Any,
    block: Mapping[str, Any],
    server_calls: dict[str, tuple[str, int, Any]],
    seen_ids: set[str],
    add: Any,
) -> None:
    """The rules of one provider block (see the module docstring); ``server_calls`` holds the message's
    calls still awaiting their result, ``seen_ids`` every call id so far."""
    if kind in USER_ONLY_TYPES:
        if role != "user":
            add(ValidationIssue(i, "provider_block_not_user", f"{kind} block in a {role} turn", j))
        return
    if role != "assistant":
        add(ValidationIssue(i, "provider_block_not_assistant", f"{kind} block in a {role} turn", j))
    if kind in SERVER_CALL_TYPES:
        cid = block.get("id")
        if not isinstance(cid, str) or not cid:
            add(ValidationIssue(i, "bad_server_call", f"{kind} needs a non-empty id", j))
        elif cid in seen_ids:
            add(ValidationIssue(i, "duplicate_tool_use", f"call id {cid!r} used twice", j))
        else:
            seen_ids.add(cid)
            server_calls[cid] = (str(kind), j, block)
        if not isinstance(block.get("input"), Mapping):
            add(ValidationIssue(i, "bad_server_call", f"{kind} input must be an object", j))
    elif kind in SERVER_RESULT_TYPES:
        tid = block.get("tool_use_id")
        call = server_calls.get(tid) if isinstance(tid, str) else None
        if call is None or call[0] != server_result_call(kind):
            add(ValidationIssue(i, "orphan_server_result", f"{kind} {tid!r} answers no call earlier in its message", j))
        elif (mismatch := server_result_mismatch(call[2], kind)) is not None:
            add(ValidationIssue(i, "mismatched_server_result", f"{kind} {tid!r}: {mismatch}", j))
        else:
            del server_calls[str(tid)]
    elif kind == "compaction" and block.get("content") == "":
        add(ValidationIssue(i, "empty_compaction", "compaction content may be null but not empty", j))
    elif kind == "reasoning" and _blank(block.get("id")):
        add(ValidationIssue(i, "bad_reasoning", "a reasoning item needs its id", j))


def check_messages(messages: Sequence[Mapping[str, Any]], *, alternate: bool = False) -> None:
    """Raise unless ``messages`` is valid (see :func:`validate_messages`).

    Raises:
        InvalidContextError: listing every issue.
    """
    issues = validate_messages(messages, alternate=alternate)
    if issues:
        raise InvalidContextError(issues)


def validate_openai_messages(messages: Sequence[Mapping[str, Any]]) -> list[ValidationIssue]:
    """Check Chat Completions messages (``system``/``developer``/``user``/``assistant``/``tool``).

    Returns:
        The issues found; empty when the list is valid.
    """
    issues: list[ValidationIssue] = []
    add = issues.append
    open_calls: set[str] = set()
    seen_calls: set[str] = set()
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role == "tool":
            cid = msg.get("tool_call_id")
            if cid not in open_calls:
                add(ValidationIssue(i, "orphan_tool_message", f"tool message {cid!r} answers no open call"))
            else:
                open_calls.discard(str(cid))
            if not isinstance(msg.get("content"), str) or _blank(msg.get("content")):
                add(ValidationIssue(i, "empty_tool_message", "tool message content must be non-empty text"))
            continue
        if open_calls:
            add(ValidationIssue(i, "missing_tool_message", f"calls {sorted(open_calls)} are not answered"))
            open_calls = set()
        if role not in ("system", "developer", "user", "assistant"):
            add(ValidationIssue(i, "bad_role", f"unknown role {role!r}"))
            continue
        content = msg.get("content")
        calls = msg.get("tool_calls") or []
        if role == "assistant" and calls:
            for call in calls:
                cid = call.get("id") if isinstance(call, Mapping) else None
                if not isinstance(cid, str) or not cid or cid in seen_calls:
                    add(ValidationIssue(i, "bad_tool_call", f"tool call id {cid!r} missing or reused"))
                    continue
                seen_calls.add(cid)
                open_calls.add(cid)
        elif content is None or (isinstance(content, str) and _blank(content)) or content == []:
            add(ValidationIssue(i, "empty_message", f"{role} message has no content"))
        if isinstance(content, list):
            for j, part in enumerate(content):
                if isinstance(part, Mapping) and part.get("type") == "text" and _blank(part.get("text")):
                    add(ValidationIssue(i, "empty_text", "empty text part", j))
    if open_calls:
        add(ValidationIssue(len(messages) - 1, "missing_tool_message", f"calls {sorted(open_calls)} are not answered"))
    return issues
