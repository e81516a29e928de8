"""Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

Follows the converter SPEC of ``shared/data/claude-code-sessions/README.md``:

- only ``user`` and ``assistant`` lines become messages; ``system/compact_boundary`` and the
  ``isCompactSummary`` line after it become a compaction **marker** (conversation metadata, with the
  summary text as a reference), never a human message; every other line is reported as skipped;
- assistant lines are API-response fragments (one block each) grouped by ``message.id``; fragments of
  one response may be interleaved with the results of its tool calls (Claude Code runs a tool while
  the response streams), so the results are collected and emitted as one message right after the
  assistant message: every ``tool_use`` of assistant message k is answered in message k+1;
- every block the Messages API sends is kept as given: besides ``text``, ``thinking`` and
  ``tool_use``, the provider-side tool calls and results (``server_tool_use`` with its
  ``web_search_tool_result``, ``web_fetch_tool_result``, ``code_execution_tool_result``,
  ``bash_code_execution_tool_result``, ``text_editor_code_execution_tool_result``,
  ``tool_search_tool_result``; ``mcp_tool_use`` with its ``mcp_tool_result``) and server-side
  ``compaction`` blocks in assistant lines; ``search_result`` and ``container_upload`` in user lines and
  ``search_result`` inside a tool result. A provider-side call and its result are fragments of one
  response and so land in one message, as the provider requires; a result whose call is not earlier in
  its response (or a second result of one call) is left out and reported, so the rest of the response
  imports. Unknown fields of a block (Claude Code's ``caller``, a newer provider field) are kept;
- human text flagged ``isMeta`` or injected by the runtime (``<system-reminder>``, task
  notifications, local-command output) gets ``metadata["system_injected"] = True``;
- sub-agent files ``<session>/subagents/agent-<id>.jsonl`` become conversations of their own, linked
  to the parent by ``parent_id`` and to the spawning ``Task`` call; ``agent-acompact-*`` files are the
  compaction calls and are linked to the compaction marker.

A damaged line (not JSON, as the last line of a session file cut off mid-write is; bytes not valid
UTF-8; the wrong shape) does not fail the file: it is left out (invalid bytes are read as U+FFFD and
the line kept) and reported under a reason naming the file and line.

Thinking signatures that the publisher redacted (``[REDACTED...``) cannot be replayed, so they are
dropped (the thinking text is kept) and counted in ``metadata["redacted_signatures"]``.

Compaction. Claude Code compacts on the client: it asks the model for a summary in a separate call
(the ``agent-acompact-*`` file), writes a ``system/compact_boundary`` line (``content`` "Conversation
compacted", ``compactMetadata`` {trigger, preTokens}, ``parentUuid`` null: the message tree is cut there,
``logicalParentUuid`` names the last line before) and then a ``user`` line flagged ``isCompactSummary``
and ``isVisibleInTranscriptOnly`` whose string content is that answer reformatted, between a runtime
preamble ("This session is being continued from a previous conversation that ran out of context...")
and a closing instruction. From then on the model reads that summary instead of the history: in the
four staged sessions the first response after the boundary was sent 34-45K tokens (21.4K of them the
cached system prompt and tools) against 142-167K just before it. The importer keeps that as a
**marker** (``metadata["markers"]``: ``kind`` "compaction", ``trigger``, ``preTokens``, ``at``, ``uuid``,
``logical_parent_uuid``, ``position`` (index of the first message after it) and ``after_message_id``,
``summary`` (the text exactly as the model read it), ``summary_uuid``, ``summary_line``, and
``summary_content`` with the blocks as given when the content was a list; the first message after it
carries ``metadata["after_compaction"]``), not as a message and not as a ``compaction`` block:

- the journal already holds the raw messages the summary replaces, so a message holding it would have
  every compile send the history twice (raw and summarised), and the journal's own compile, not Claude
  Code's, decides what of the history is sent;
- it is neither human speech nor a provider ``compaction`` block: it is a user-role runtime message
  with no signature or encrypted content, while a ``compaction`` block is an assistant block the
  provider wrote and, sent back, makes the provider drop everything before it (which would silently
  discard the compiled context before the marker);
- what the model read after the boundary stays reconstructible: ``summary`` followed by
  ``messages[position:]``; ``benchmarks/eval_compaction.py`` compares the journal's compile of
  ``messages[:position]`` with it.

A ``compaction`` block the provider itself returned (server-side compaction) is an assistant block and is
kept in its message like any other.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import ImportFormatError
from .base import Conversation, ImportResult, SkipLog, pairing_problems
from .claude_code_lines import TOOL_PARTICIPANT, SessionReader

__all__ = ["DEFAULT_USER", "TOOL_PARTICIPANT", "read_claude_code", "read_claude_code_session"]

DEFAULT_USER = "developer"
"""Participant name of the human in a main session."""

RUNTIME_PARTICIPANT = "claude-code"
"""Participant that asks for a compaction summary in an ``agent-acompact-*`` file."""


def _conversation(
    reader: SessionReader, conv_id: str, *, primary: bool, parent: str | None, extra: dict[str, Any]
) -> Conversation:
    assistant = reader.assistant or reader.first_model or "claude"
    meta: dict[str, Any] = {
        "format": "claude-code",
        "source_file": reader.path,
        "session_id": reader.session_id,
        "assistant": assistant,
        "user": reader.user,
        "tool_participants": [TOOL_PARTICIPANT],
        "system_participants": [],
        "models": reader.models,
        "markers": reader.markers,
        "branch_points": reader.branch_points,
        **extra,
    }
    meta.update(pairing_problems(reader.messages))
    return Conversation(conv_id, reader.messages, meta, parent, primary)


def read_claude_code_session(
    path: str | os.PathLike[str], *, skips: SkipLog | None = None, user: str = DEFAULT_USER
) -> Conversation:
    """Read one session file (no sub-agents) into a conversation.

    Args:
        path: The ``<session>.jsonl`` file.
        skips: Where to report skipped lines and blocks (a fresh log when None).
        user: Participant name of the human.

    Returns:
        The conversation ``claude-code:<sessionId>``.

    Raises:
        ImportFormatError: no line of the file could be read (names the first damaged line); damaged
            lines of a file that is otherwise readable are skipped and reported in ``skips``.
    """
    source = os.fspath(path)
    reader = SessionReader(source, user=user, assistant=None, skips=skips or SkipLog())
    reader.read()
    conv_id = f"claude-code:{reader.session_id or Path(source).stem}"
    return _conversation(reader, conv_id, primary=True, parent=None, extra={"kind": "session"})


def read_claude_code(
    path: str | os.PathLike[str], *, include_subagents: bool = True, user: str = DEFAULT_USER
) -> ImportResult:
    """Read a Claude Code session and (optionally) its sub-agent files.

    Args:
        path: The ``<session>.jsonl`` file; sub-agents are read from ``<session>/subagents/agent-*.jsonl``.
        include_subagents: Also read the sub-agent and compaction-call files as child conversations.
        user: Participant name of the human.

    Returns:
        The main conversation (primary) followed by one conversation per sub-agent file.

    Raises:
        ImportFormatError: no line of the session file could be read (names it and its first damaged line);
            damaged lines of a readable file are skipped and reported in the result's skip report, and so
            is a sub-agent file of which no line could be read.
    """
    source = os.fspath(path)
    skips = SkipLog()
    reader = SessionReader(source, user=user, assistant=None, skips=skips)
    reader.read()
    main_id = f"claude-code:{reader.session_id or Path(source).stem}"
    conversations = [_conversation(reader, main_id, primary=True, parent=None, extra={"kind": "session"})]
    sub_dir = Path(source).with_suffix("") / "subagents"
    if include_subagents and sub_dir.is_dir():
        parent_name = conversations[0].metadata["assistant"]
        for file in sorted(sub_dir.glob("agent-*.jsonl")):
            agent_id = file.stem[len("agent-") :]
            compaction = agent_id.startswith("acompact")
            child = SessionReader(
                str(file),
                user=RUNTIME_PARTICIPANT if compaction else parent_name,
                assistant=f"subagent:{agent_id}",
                skips=skips,
            )
            try:
                child.read()
            except ImportFormatError as exc:  # an unreadable sub-agent file does not cost the session
                detail = str(exc).removeprefix(f"{exc.source} at {exc.location}: ")
                skips.add(f"{file.name}: {detail}; the sub-agent file was skipped", f"{file.name}:{exc.location}")
                continue
            child_id = f"{main_id}:agent-{agent_id}"
            extra: dict[str, Any] = {"kind": "compaction-call" if compaction else "subagent", "agent_id": agent_id}
            if compaction:
                marker = _match_compaction(reader.markers, child)
                if marker is not None:
                    marker["conversation_id"] = child_id
                    extra["compaction_marker"] = marker.get("uuid")
            else:
                tool_id = reader.agent_links.get(agent_id)
                if tool_id is not None:
                    extra["parent_tool_use_id"] = tool_id
                    if tool_id in reader.task_calls:
                        msg_id, task_input = reader.task_calls[tool_id]
                        extra["parent_message_id"] = msg_id
                        for key in ("subagent_type", "description"):
                            if key in task_input:
                                extra[key] = task_input[key]
            conversations.append(_conversation(child, child_id, primary=False, parent=main_id, extra=extra))
    return ImportResult("claude-code", source, conversations, skips.report())


def _match_compaction(markers: list[dict[str, Any]], child: SessionReader) -> dict[str, Any] | None:
    """The first compaction marker at or after the compaction call's last message (ISO-8601 UTC text)."""
    last = max((str(m.timestamp) for m in child.messages if m.timestamp), default="")
    candidates = [m for m in markers if m.get("conversation_id") is None]
    for marker in candidates:
        if str(marker.get("at") or "") >= last:
            return marker
    return candidates[-1] if candidates else None
