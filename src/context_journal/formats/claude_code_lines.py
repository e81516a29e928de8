"""Line-level reader of Claude Code session JSONL files (see :mod:`.claude_code` for the rules)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from .._block_types import ASSISTANT_ONLY_TYPES, SERVER_CALL_TYPES, SERVER_RESULT_TYPES, USER_ONLY_TYPES
from .._provider_render import provider_line
from ..content import check_continuation, parse_block, paused_calls, server_result_call, server_result_mismatch
from ..errors import ImportFormatError, MalformedContentError
from ..messages import MessageInput
from .base import JsonLines, SkipLog, expect, has_lone_surrogate

__all__ = ["TOOL_PARTICIPANT", "SessionReader"]

TOOL_PARTICIPANT = "tools:claude-code"
"""Participant name of the runtime that authors tool results."""

_INJECTED_PREFIXES = {
    "<system-reminder>": "system-reminder",
    "<task-notification>": "task-notification",
    "<local-command-stdout>": "local-command",
    "<local-command-stderr>": "local-command",
    "<local-command-caveat>": "local-command",
    "<user-prompt-submit-hook>": "hook",
}
_BLOCK_TYPES = {"text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document"}
_ASSISTANT_TYPES = (_BLOCK_TYPES - {"tool_result"}) | ASSISTANT_ONLY_TYPES
"""Block types kept in an assistant line: the Messages API's response blocks, provider-side tool calls and
their results (``server_tool_use``, ``web_search_tool_result``..., ``mcp_tool_use``/``mcp_tool_result``) and
server-side ``compaction``."""
_USER_TYPES = _BLOCK_TYPES | USER_ONLY_TYPES
"""Block types kept in a user line (``search_result`` and ``container_upload`` are user-turn blocks)."""
_NESTED_TYPES = {"text", "image", "document", "search_result"}


def _check_block(block: Any, source: str, where: str) -> None:
    try:
        parse_block(block)
    except MalformedContentError as exc:
        if has_lone_surrogate(block):
            return  # refused at write, then written with U+FFFD in its place and reported (B51)
        raise ImportFormatError(f"malformed content block: {exc.reason}", source=source, location=where) from None


class _Group:
    """Lines that become one message."""

    def __init__(self, kind: str, lineno: int, record: dict[str, Any]) -> None:
        self.kind = kind  # "assistant" | "results"
        self.blocks: list[dict[str, Any]] = []
        self.lines: list[int] = [lineno]
        self.uuids: list[str] = [str(record["uuid"])] if record.get("uuid") else []
        self.timestamp: Any = record.get("timestamp")
        self.first = record
        self.last = record
        self.tool_ids: set[str] = set()
        self.server_calls: dict[str, str] = {}  # provider-side call id -> its block type
        self.answered: set[str] = set()  # provider-side call ids answered in the group
        self.redacted = 0

    def add_line(self, lineno: int, record: dict[str, Any]) -> None:
        if lineno not in self.lines:
            self.lines.append(lineno)
            if record.get("uuid"):
                self.uuids.append(str(record["uuid"]))
        self.last = record


class SessionReader:
    """Reads one JSONL file into messages, compaction markers and sub-agent links.

    Args:
        path: The JSONL file.
        user: Participant of human (or, in a sub-agent file, requesting) user lines.
        assistant: Participant of assistant messages; None takes the first model name.
        skips: Where skipped lines and blocks are reported.
    """

    def __init__(self, path: str, *, user: str, assistant: str | None, skips: SkipLog) -> None:
        self.path = path
        self.name = Path(path).name
        self.user = user
        self.assistant = assistant  # fixed name (sub-agents) or None: first model name
        self.skips = skips
        self.messages: list[MessageInput] = []
        self.ids: set[str] = set()
        self.markers: list[dict[str, Any]] = []
        self.agent_links: dict[str, str] = {}  # agentId -> parent tool_use id
        self.task_calls: dict[str, tuple[str, dict[str, Any]]] = {}  # tool_use id -> (message id, input)
        self.branch_points: list[str] = []
        self.session_id: str | None = None
        self.models: list[str] = []
        self.first_model: str | None = None
        self._open: _Group | None = None
        self._results: _Group | None = None
        self._line_of: dict[str, int] = {}
        self._unit_starts: list[int] = []
        self._pending_compaction: dict[str, Any] | None = None
        self._after_marker: str | None = None

    def loc(self, lineno: int) -> str:
        return f"{self.name}:line {lineno}"

    # ---- driving ----------------------------------------------------------------------------------

    def read(self) -> None:
        """Read the whole file; results land in :attr:`messages`, :attr:`markers` and the link maps.

        A damaged line (not JSON, as the last line of a file cut off mid-write is; bytes not valid UTF-8;
        no ``type``; a message of the wrong shape) is left out and reported in :attr:`skips` under a reason
        naming the file, line and what is wrong; the rest of the file is read.

        Raises:
            ImportFormatError: no line of the file could be read (names the first damaged line).
        """
        lines = JsonLines(self.path, self.skips)
        used = 0
        for lineno, rec in lines:
            try:
                self._record(lineno, rec)
            except ImportFormatError as exc:
                detail = str(exc).removeprefix(f"{exc.source} at {exc.location}: ")
                lines.bad(lineno, detail, location=str(exc.location or f"line {lineno}"))
                continue
            used += 1
        lines.finish(used)
        self._flush()
        if self._pending_compaction is not None:
            self.markers.append(self._pending_compaction)

    def _record(self, lineno: int, rec: dict[str, Any]) -> None:
        """Take one line's record; raises (before changing anything) when its shape is wrong."""
        kind = rec.get("type")
        expect(
            isinstance(kind, str),
            "not a Claude Code record (no 'type')",
            source=self.path,
            location=f"line {lineno}",
        )
        if kind == "user":
            self._user(lineno, rec)
        elif kind == "assistant":
            self._assistant(lineno, rec)
        elif kind == "system" and rec.get("subtype") == "compact_boundary":
            self._flush()
            self._boundary(lineno, rec)
        else:
            if kind == "progress":
                data = rec.get("data") or {}
                if (
                    isinstance(data, dict)
                    and data.get("type") == "agent_progress"
                    and data.get("agentId")
                    and rec.get("parentToolUseID")
                ):
                    self.agent_links.setdefault(str(data["agentId"]), str(rec["parentToolUseID"]))
            reason = f"system/{rec.get('subtype')}" if kind == "system" else str(kind)
            self.skips.add(reason, self.loc(lineno))
        if self.session_id is None and isinstance(rec.get("sessionId"), str):
            self.session_id = rec["sessionId"]
        if rec.get("uuid"):
            self._line_of[str(rec["uuid"])] = lineno

    def _message(self, lineno: int, rec: dict[str, Any]) -> dict[str, Any]:
        msg = rec.get("message")
        expect(
            isinstance(msg, dict) and "content" in msg,
            f"a {rec.get('type')} record needs a 'message' object with 'content'",
            source=self.path,
            location=f"line {lineno}",
        )
        assert isinstance(msg, dict)
        return msg

    def _branch_check(self, lineno: int, rec: dict[str, Any], starts_unit: bool) -> bool:
        """True when ``parentUuid`` points before the previous message unit (an edit or a rewind)."""
        if starts_unit:
            self._unit_starts.append(lineno)
        window = self._unit_starts[-2] if len(self._unit_starts) >= 2 else 0
        parent = rec.get("parentUuid")
        if not parent or str(parent) not in self._line_of:
            return False
        return self._line_of[str(parent)] < window

    # ---- assistant fragments ----------------------------------------------------------------------

    def _assistant(self, lineno: int, rec: dict[str, Any]) -> None:
        msg = self._message(lineno, rec)
        mid = msg.get("id")
        content = msg["content"]
        expect(
            isinstance(content, list),
            "assistant content must be a list of blocks",
            source=self.path,
            location=f"line {lineno}",
        )
        # Check every block before changing anything, so a refused line leaves no trace.
        blocks: list[dict[str, Any]] = []
        notes: list[str] = []
        redacted = 0
        for i, block in enumerate(content):
            where = f"line {lineno}, block {i}"
            if not isinstance(block, dict) or block.get("type") not in _ASSISTANT_TYPES:
                btype = block.get("type") if isinstance(block, dict) else type(block).__name__
                notes.append(f"unsupported assistant block type {btype!r}")
                continue
            if block["type"] == "text" and not str(block.get("text", "")).strip():
                notes.append("whitespace-only text block")
                continue
            if block["type"] == "thinking" and str(block.get("signature") or "").startswith("[REDACTED"):
                block = {k: v for k, v in block.items() if k != "signature"}
                redacted += 1
            _check_block(block, self.path, where)
            blocks.append(block)
        if self._open is None or self._open.first["message"].get("id") != mid or mid is None:
            self._flush()
            self._open = _Group("assistant", lineno, rec)
            branch = self._branch_check(lineno, rec, starts_unit=True)
            self._open.first = {**rec, "_branch": branch}
            model = msg.get("model")
            if isinstance(model, str) and model != "<synthetic>":
                self.first_model = self.first_model or model
                if model not in self.models:
                    self.models.append(model)
        else:
            self._open.add_line(lineno, rec)
        group = self._open
        group.redacted += redacted
        for block in self._server_pairs(group, blocks, notes):
            if block["type"] == "tool_use":
                group.tool_ids.add(str(block["id"]))
                if block.get("name") == "Task":
                    self.task_calls[str(block["id"])] = (str(mid), dict(block.get("input") or {}))
            group.blocks.append(block)
        for note in notes:
            self.skips.add(note, self.loc(lineno))

    def _server_pairs(self, group: _Group, blocks: list[dict[str, Any]], notes: list[str]) -> list[dict[str, Any]]:
        """``blocks`` less the provider-side blocks the store would refuse in ``group``'s message: a
        result whose call is not earlier in the same response (``message.id``) nor waiting in the paused
        response just before it (``pause_turn``: the continuation, a new response, opens with the result),
        a second result of one call, a call id used twice. Each one left out is noted; the rest of the
        line is kept (the store checks a message's pairs as a whole and would refuse the whole response)."""
        prev = self.messages[-1] if self.messages else None
        waiting = paused_calls(prev.content) if prev is not None and isinstance(prev.content, list) else {}
        kept: list[dict[str, Any]] = []
        for block in blocks:
            kind = block["type"]
            if kind in SERVER_CALL_TYPES:
                cid = str(block["id"])
                if cid in group.server_calls:
                    notes.append(f"{kind} id used twice in one response")
                    continue
                group.server_calls[cid] = kind
            elif kind in SERVER_RESULT_TYPES:
                tid = str(block["tool_use_id"])
                call = waiting.get(tid)
                if (
                    call is not None
                    and not group.server_calls
                    and tid not in group.answered
                    and server_result_mismatch(call, kind) is None
                ):
                    group.answered.add(tid)  # the continuation of a paused response
                    kept.append(block)
                    continue
                if group.server_calls.get(tid) != server_result_call(kind) or tid in group.answered:
                    notes.append(f"{kind} without its call earlier in the same response")
                    continue
                group.answered.add(tid)
            kept.append(block)
        return kept

    # ---- user lines -------------------------------------------------------------------------------

    def _user(self, lineno: int, rec: dict[str, Any]) -> None:
        msg = self._message(lineno, rec)
        content = msg["content"]
        if rec.get("isCompactSummary"):
            self._flush()
            self._summary(lineno, rec, content)
            return
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            self._result_line(lineno, rec, content)
            return
        blocks = self._user_blocks(lineno, content)
        self._flush()
        if not blocks:
            self.skips.add("empty message", self.loc(lineno))
            return
        branch = self._branch_check(lineno, rec, starts_unit=True)
        meta: dict[str, Any] = {"source_lines": [lineno]}
        if rec.get("uuid"):
            meta["uuid"] = rec["uuid"]
        if rec.get("parentUuid"):
            meta["parent_uuid"] = rec["parentUuid"]
        first_text = next((b["text"] for b in blocks if b["type"] == "text"), "").lstrip()
        injected = next((k for p, k in _INJECTED_PREFIXES.items() if first_text.startswith(p)), None)
        if rec.get("isMeta"):
            meta["is_meta"] = True
            injected = injected or "meta"
        if injected:
            meta["system_injected"] = True
            meta["injected_kind"] = injected
        elif first_text.startswith("<command-name>"):
            meta["slash_command"] = True
        self._emit(rec.get("uuid") or f"line-{lineno}", self.user, blocks, meta, rec.get("timestamp"), branch, rec)

    def _user_blocks(self, lineno: int, content: Any) -> list[dict[str, Any]]:
        """The blocks of a user line; the blocks left out are reported only once every block passed."""
        if isinstance(content, str):
            return [{"type": "text", "text": content}] if content.strip() else []
        expect(
            isinstance(content, list),
            "user content must be a string or a list",
            source=self.path,
            location=f"line {lineno}",
        )
        out: list[dict[str, Any]] = []
        notes: list[str] = []
        for i, block in enumerate(content):
            btype = block.get("type") if isinstance(block, dict) else None
            if btype not in _USER_TYPES:
                notes.append(f"unsupported user block type {btype!r}")
                continue
            assert isinstance(block, dict)
            if btype == "text" and not str(block.get("text", "")).strip():
                notes.append("whitespace-only text block")
                continue
            if btype == "tool_result":
                block = self._clean_result(block, notes)
            _check_block(block, self.path, f"line {lineno}, block {i}")
            out.append(block)
        for note in notes:
            self.skips.add(note, self.loc(lineno))
        return out

    def _clean_result(self, block: dict[str, Any], notes: list[str]) -> dict[str, Any]:
        inner = block.get("content")
        if isinstance(inner, list):
            kept = [b for b in inner if isinstance(b, dict) and b.get("type") in _NESTED_TYPES]
            for b in inner:
                if not (isinstance(b, dict) and b.get("type") in _NESTED_TYPES):
                    btype = b.get("type") if isinstance(b, dict) else type(b).__name__
                    notes.append(f"unsupported tool_result content type {btype!r}")
            block = {**block, "content": kept if kept else ""}
        elif inner is None:
            block = {**block, "content": ""}
        return block

    def _result_line(self, lineno: int, rec: dict[str, Any], content: list[Any]) -> None:
        blocks = self._user_blocks(lineno, content)
        ids = {str(b["tool_use_id"]) for b in blocks if b["type"] == "tool_result"}
        open_ = self._open
        if open_ is not None and ids <= open_.tool_ids:
            if self._results is None:
                self._results = _Group("results", lineno, rec)
            else:
                self._results.add_line(lineno, rec)
            self._results.blocks.extend(blocks)
            return
        # Results that do not answer the open assistant message: emit them on their own.
        if self._results is not None and open_ is None:
            self._results.add_line(lineno, rec)
            self._results.blocks.extend(blocks)
            return
        self._flush()
        self._branch_check(lineno, rec, starts_unit=True)
        self._results = _Group("results", lineno, rec)
        self._results.blocks.extend(blocks)

    # ---- compaction -------------------------------------------------------------------------------

    def _boundary(self, lineno: int, rec: dict[str, Any]) -> None:
        if self._pending_compaction is not None:
            self.markers.append(self._pending_compaction)
        meta = rec.get("compactMetadata")
        meta = meta if isinstance(meta, dict) else {}
        self._pending_compaction = {
            "kind": "compaction",
            "trigger": meta.get("trigger"),
            "preTokens": meta.get("preTokens"),
            "at": rec.get("timestamp"),
            "uuid": rec.get("uuid"),
            "logical_parent_uuid": rec.get("logicalParentUuid"),
            "line": lineno,
            "after_message_id": self.messages[-1].id if self.messages else None,
            "position": len(self.messages),
        }
        self._after_marker = str(rec.get("uuid") or f"line-{lineno}")

    def _summary(self, lineno: int, rec: dict[str, Any], content: Any) -> None:
        marker = self._pending_compaction
        if marker is None:  # a summary without its boundary line: still a reference, not a message
            marker = {
                "kind": "compaction",
                "trigger": None,
                "preTokens": None,
                "at": rec.get("timestamp"),
                "uuid": None,
                "line": None,
                "position": len(self.messages),
                "after_message_id": self.messages[-1].id if self.messages else None,
            }
            self._after_marker = str(rec.get("uuid") or f"line-{lineno}")
        if isinstance(content, list):
            text = "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
            marker["summary_content"] = content  # the blocks as given: the text above is what the model read
        else:
            text = str(content)
        marker.update({"summary": text, "summary_uuid": rec.get("uuid"), "summary_line": lineno})
        self.markers.append(marker)
        self._pending_compaction = None

    # ---- emitting ---------------------------------------------------------------------------------

    def _flush(self) -> None:
        group, results = self._open, self._results
        self._open = self._results = None
        answered: str | None = None
        if group is not None:
            msg = group.first["message"]
            last = group.last["message"]
            meta: dict[str, Any] = {"source_lines": group.lines, "uuids": group.uuids}
            for key, value in (
                ("model", msg.get("model")),
                ("usage", last.get("usage")),
                ("stop_reason", last.get("stop_reason")),
                ("request_id", group.first.get("requestId")),
                ("parent_uuid", group.first.get("parentUuid")),
            ):
                if value is not None:
                    meta[key] = value
            if group.redacted:
                meta["redacted_signatures"] = group.redacted
            name = self.assistant or self.first_model or "claude"
            if not group.blocks:
                self.skips.add("empty message", self.loc(group.lines[0]))
            else:
                answered = self._emit(
                    str(msg.get("id") or f"line-{group.lines[0]}"),
                    name,
                    group.blocks,
                    meta,
                    group.timestamp,
                    bool(group.first.get("_branch")),
                    group.first,
                )
        if results is not None and results.blocks:
            meta = {"source_lines": results.lines, "uuids": results.uuids}
            if answered is not None:
                meta["answers"] = answered
            self._emit(
                results.uuids[0] if results.uuids else f"line-{results.lines[0]}",
                TOOL_PARTICIPANT,
                results.blocks,
                meta,
                results.timestamp,
                False,
                results.first,
            )

    def _settle_paused(self, participant: str, blocks: list[dict[str, Any]]) -> None:
        """Before ``blocks`` are emitted after a paused response (``pause_turn``: its server calls wait for
        results): keep the pair when ``blocks`` is its continuation (the store's rule,
        :func:`~context_journal.content.check_continuation`), and the paused response as it is when the
        session went on without the continuation (the store takes that: the calls are abandoned, and the
        compile shows them as text); otherwise (a continuation that answers only part, or brings the
        results after other blocks) the waiting calls, and the results ``blocks`` brings for them, are kept
        as text lines, noted, so the store takes both messages."""
        if not self.messages:
            return
        prev = self.messages[-1]
        content = prev.content if isinstance(prev.content, list) else []
        waiting = paused_calls(content)
        own = {str(c.get("id")) for c in blocks if c.get("type") in SERVER_CALL_TYPES}
        carried = {
            str(b.get("tool_use_id"))
            for b in blocks
            if b.get("type") in SERVER_RESULT_TYPES and str(b.get("tool_use_id")) not in own
        }
        if not waiting and not carried:
            return
        try:
            check_continuation((prev.participant, content), participant, blocks)
            return
        except MalformedContentError:
            pass
        where = self.loc(int((prev.metadata or {}).get("source_lines", [0])[0]))
        if waiting:
            fixed = [{"type": "text", "text": provider_line(b)} if b.get("id") in waiting else b for b in content]
            self.messages[-1] = replace(prev, content=fixed)
            self.skips.add("server call of a paused response without its continuation, kept as text", where)
        for k, b in enumerate(blocks):
            if b.get("type") in SERVER_RESULT_TYPES and str(b.get("tool_use_id")) in carried:
                blocks[k] = {"type": "text", "text": provider_line(b)}
                self.skips.add("server result whose paused call is not just before it, kept as text", where)

    def _emit(
        self,
        mid: str,
        participant: str,
        blocks: list[dict[str, Any]],
        meta: dict[str, Any],
        timestamp: Any,
        branch: bool,
        rec: dict[str, Any],
    ) -> str:
        base, n = mid, 2
        while mid in self.ids:
            mid, n = f"{base}#{n}", n + 1
        self.ids.add(mid)
        if branch:
            meta["branch_point"] = True
            self.branch_points.append(mid)
        if self._after_marker is not None:
            meta["after_compaction"] = self._after_marker
            self._after_marker = None
        if rec.get("isSidechain"):
            meta["is_sidechain"] = True
        self._settle_paused(participant, blocks)
        self.messages.append(MessageInput(participant, blocks, meta, mid, timestamp))
        return mid
