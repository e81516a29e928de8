"""How the compiler treats provider blocks: server tool calls and results, the MCP
connector's ``mcp_tool_use`` / ``mcp_tool_result``, ``compaction``, ``search_result`` and
``container_upload``, and OpenAI's ``reasoning`` items. Private to the compiler and the exporters.

* **Placement** (:func:`repair_provider_blocks`): a server call and its result travel together in one
  assistant message and are sent together or not at all. A pair in a turn rendered as the user's
  (another participant's message), a call whose result is not in its message (a ``pause_turn``
  response, unless it is the newest turn or its continuation follows: see *Paused pairs*), or a result
  without its call is shown as text, so the request stays valid and the model
  still reads what happened. A ``server_tool_use`` without its result in an assistant turn that also
  calls a client ``tool_use`` is sent as it is (:func:`deferred_call`: the API runs it once the
  client's ``tool_result`` comes back). ``compaction`` outside an assistant turn is shown as its summary text;
  ``search_result`` and ``container_upload`` outside a user turn as a line of text. ``reasoning`` outside
  an assistant turn is left out, as thinking is. When web search hits are shown as text, the
  ``web_search_result_location`` citations of the message's text that point at them (by URL) are left out
  (``citation_dropped``): a citation must point at a search result the request holds.
* **Paused pairs** (:func:`server_continuations`): a ``pause_turn`` response leaves a server call waiting
  and the same participant's next message (its continuation) opens with the result. The two assistant
  turns are sent adjacent, each as stored, and the exporters merge them into one message, where the call
  is answered; a paused turn that is the newest of the request is sent as it is, so the model continues it.
  Selection never separates the two (``views.unit_bounds``).
* **Excerpts** (:func:`excerpt_provider`): readable results (code output, a text editor's view, an
  MCP result, a search result's text, a fetched text page) are cut like tool results, head and tail
  kept. Encrypted or opaque content (web search hits, encrypted code output, a fetched PDF) is never
  cut: the pair is sent whole, or replaced as a whole by its text transcript (titles, URLs, output).
  Citations to hits shown as text are left out, as in placement. ``compaction`` is never cut (its
  signature and encrypted content must come back unchanged);
  ``reasoning`` is never cut either, but left out of an excerpt whole, as thinking is
  (:func:`without_reasoning`: the items after it lose their Responses item id).
* **Text** (:func:`provider_line`): what a model reads of one block, for transcripts, summaries and
  the Chat Completions export (which has no such blocks); nothing for ``reasoning``, which, like
  thinking, is not part of a transcript. An ``openai_item`` (an OpenAI built-in tool's call or output)
  is one short line of its type and readable fields (``[OpenAI web_search_call: action: {...}]``).
* ``openai_item`` blocks are opaque: never cut; one outside its side's turn (a call outside an assistant
  turn, an output such as ``computer_call_output`` outside a user turn) is shown as its line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._block_types import continues_server_turn, openai_item_role
from .content import (
    ASSISTANT_ONLY_TYPES,
    SERVER_CALL_TYPES,
    SERVER_RESULT_TYPES,
    USER_ONLY_TYPES,
    paused_calls,
    server_result_mismatch,
)

__all__ = [
    "PROVIDER_TYPES",
    "deferred_call",
    "excerpt_provider",
    "in_server_pair",
    "provider_line",
    "repair_provider_blocks",
    "server_continuations",
    "without_reasoning",
]

Block = dict[str, Any]

PROVIDER_TYPES = ASSISTANT_ONLY_TYPES | USER_ONLY_TYPES | {"openai_item"}
_CUT_OVER = 200  # characters: shorter strings are never cut (as in ``_render.excerpt_blocks``)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(n.get("text", "")) for n in content if isinstance(n, Mapping) and n.get("type") == "text")
    return ""


def _result_body(b: Mapping[str, Any]) -> str:
    """The readable part of a server result block."""
    kind = b.get("type")
    content = b.get("content")
    if kind == "mcp_tool_result":
        body = _texts(content).strip() or "(no output)"
        return f"[error] {body}" if b.get("is_error") else body
    if isinstance(content, list):  # web search hits
        hits = [
            f"{n.get('title')} <{n.get('url')}>" + (f" ({n['page_age']})" if n.get("page_age") else "")
            for n in content
            if isinstance(n, Mapping)
        ]
        return "; ".join(hits) if hits else "no results"
    if not isinstance(content, Mapping):
        return ""
    part = str(content.get("type", ""))
    if part.endswith("_error"):
        msg = content.get("error_message")
        return f"error {content.get('error_code')}" + (f": {msg}" if msg else "")
    if part == "web_fetch_result":
        doc = content.get("content")
        source = doc.get("source") if isinstance(doc, Mapping) else None
        text = str(source.get("data", "")) if isinstance(source, Mapping) and source.get("type") == "text" else ""
        return f"{content.get('url')}: {text}" if text else f"{content.get('url')} (document not shown)"
    if part in ("code_execution_result", "bash_code_execution_result", "encrypted_code_execution_result"):
        out = "(stdout encrypted)" if part.startswith("encrypted") else str(content.get("stdout", ""))
        err = str(content.get("stderr", ""))
        return f"return code {content.get('return_code')}\n{out}" + (f"\nstderr: {err}" if err else "")
    if part == "text_editor_code_execution_view_result":
        return str(content.get("content", ""))
    if part == "text_editor_code_execution_create_result":
        return "file updated" if content.get("is_file_update") else "file created"
    if part == "text_editor_code_execution_str_replace_result":
        return "\n".join(str(x) for x in content.get("lines") or []) or "replaced"
    if part == "tool_search_tool_search_result":
        refs = content.get("tool_references") or []
        return "tools: " + ", ".join(str(r.get("tool_name")) for r in refs if isinstance(r, Mapping))
    return _json(dict(content))


def provider_line(b: Mapping[str, Any]) -> str:
    """What a model reads of one provider block, as text."""
    kind = b.get("type")
    if kind in SERVER_CALL_TYPES:
        name = f"{b.get('server_name')}/{b.get('name')}" if kind == "mcp_tool_use" else str(b.get("name"))
        return f"[called {name} {_json(b.get('input', {}))}]"
    if kind in SERVER_RESULT_TYPES:
        return f"[result of {b.get('tool_use_id')}: {_result_body(b)}]"
    if kind == "compaction":
        content = b.get("content")
        return f"[summary of the earlier conversation: {content}]" if content else ""
    if kind == "search_result":
        return f"[search result {b.get('title')} <{b.get('source')}>: {_texts(b.get('content'))}]"
    if kind == "container_upload":
        return f"[file {b.get('file_id')} uploaded to the code container]"
    if kind == "reasoning":
        return ""
    if kind == "openai_item":
        return _item_line(b)
    return f"[{kind}]"


_ITEM_FIELDS = ("server_label", "name", "action", "query", "queries", "code", "arguments", "output", "error")
"""Fields of an OpenAI item a text line shows (in this order); ids, statuses and opaque payloads (a
generated image's ``result``, screenshots) are left out."""
_LINE_MAX = 300


def _item_line(b: Mapping[str, Any]) -> str:
    """A short line for an ``openai_item`` block (an OpenAI built-in tool's call or output), for the
    exports that cannot take the item and for transcripts: its type and its readable fields, cut to
    about :data:`_LINE_MAX` characters."""
    item = b.get("item")
    item = item if isinstance(item, Mapping) else {}
    shown: list[str] = []
    for key in _ITEM_FIELDS:
        value = item.get(key)
        if value is None or value == "" or value == []:
            continue
        if key == "output" and isinstance(value, Mapping) and value.get("type") == "computer_screenshot":
            shown.append("output: (screenshot not shown)")
            continue
        shown.append(f"{key}: {value if isinstance(value, str) else _json(value)}")
    body = "; ".join(shown)
    if len(body) > _LINE_MAX:
        body = body[: _LINE_MAX - 1] + "…"
    return f"[OpenAI {b.get('item_type')}" + (f": {body}]" if body else "]")


def _text(text: str) -> Block:
    return {"type": "text", "text": text}


def _pairs(blocks: Sequence[Mapping[str, Any]]) -> dict[int, int]:
    """``{result index: call index}`` of the server pairs in ``blocks`` (a call answered once, earlier
    in the list, by a result of its tool's type: a mismatched result, which a journal written before that
    check may hold, is not its pair)."""
    calls: dict[str, int] = {}
    result_of: dict[int, int] = {}
    for j, b in enumerate(blocks):
        kind = b.get("type")
        if kind in SERVER_CALL_TYPES and isinstance(b.get("id"), str) and b["id"] not in calls:
            calls[b["id"]] = j
        elif kind in SERVER_RESULT_TYPES:
            c = calls.get(str(b.get("tool_use_id")))
            if c is not None and server_result_mismatch(blocks[c], kind) is None and c not in result_of.values():
                result_of[j] = c
    return result_of


def deferred_call(blocks: Sequence[Mapping[str, Any]], j: int) -> bool:
    """Whether ``blocks[j]``, a ``server_tool_use`` without its result in ``blocks``, may be sent as it is:
    its message also calls a client tool (``tool_use``). Anthropic's "Server tools" guide: when Claude
    calls a client tool in the same turn, the ``server_tool_use`` block comes without a result and the
    response ends with ``stop_reason: "tool_use"``; the API runs the server tool once the client's
    ``tool_result`` comes back in the next request. (An ``mcp_tool_use`` is not covered by that rule.)"""
    return blocks[j].get("type") == "server_tool_use" and any(b.get("type") == "tool_use" for b in blocks)


def in_server_pair(blocks: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a message is half of a paused pair (Anthropic's ``pause_turn``): it leaves a provider-side
    call waiting (:func:`~context_journal.content.paused_calls`), or it continues the message before it
    (:func:`~context_journal._block_types.continues_server_turn`). Such a message is never cut away from
    its other half."""
    return continues_server_turn(b.get("type") for b in blocks) or bool(paused_calls(blocks))


def server_continuations(
    turns: Sequence[tuple[str, str, Sequence[Mapping[str, Any]]]],
) -> tuple[dict[int, frozenset[str]], dict[int, frozenset[str]]]:
    """The paused pairs of a rendered conversation (``turns``: ``(participant, role, blocks)`` in order):
    ``({index: ids of its waiting calls the next turn answers}, {index: ids of the calls of the turn before
    that it answers})``. A pair is two adjacent assistant turns of one participant, the first leaving
    calls waiting (:func:`~context_journal.content.paused_calls`), the second continuing it
    (:func:`~context_journal._block_types.continues_server_turn`) with results of those calls, each of
    its call's tool type. The exporters merge such adjacent assistant turns into one message, where each
    call is answered as the API requires."""
    later: dict[int, frozenset[str]] = {}
    earlier: dict[int, frozenset[str]] = {}
    for i in range(len(turns) - 1):
        (who, role, blocks), (who2, role2, nxt) = turns[i], turns[i + 1]
        if role != "assistant" or role2 != "assistant" or who != who2:
            continue
        if not continues_server_turn(b.get("type") for b in nxt):
            continue
        waiting = paused_calls(blocks)
        if not waiting:
            continue
        own = {b.get("id") for b in nxt if b.get("type") in SERVER_CALL_TYPES}
        answered: set[str] = set()
        for b in nxt:
            tid = b.get("tool_use_id")
            kind = b.get("type")
            if kind not in SERVER_RESULT_TYPES or not isinstance(tid, str) or tid in own or tid in answered:
                continue
            call = waiting.get(tid)
            if call is not None and server_result_mismatch(call, kind) is None:
                answered.add(tid)
        if answered:
            later[i] = frozenset(answered)
            earlier[i + 1] = frozenset(answered)
    return later, earlier


def repair_provider_blocks(
    blocks: list[Block],
    role: str,
    report: Callable[[str, str], None],
    *,
    answered_later: frozenset[str] = frozenset(),
    carried: frozenset[str] = frozenset(),
    newest: bool = False,
) -> list[Block]:
    """``blocks`` with every provider block the turn may not send shown as text (``reasoning`` left out;
    see the module docstring); the same list when nothing changes. ``report(kind, detail)`` records each
    repair.

    A paused pair (:func:`server_continuations`) is sent as it is: calls of ``answered_later`` (answered
    by the next turn) and results of ``carried`` (answering calls of the turn before) count as paired. A
    paused assistant turn that is the ``newest`` turn of the request is sent as it is too: the model
    continues it (Anthropic, "Handling pause_turn": the response is sent back as is)."""
    result_of = _pairs(blocks)
    paired = set(result_of) | set(result_of.values())
    if role == "assistant" and (answered_later or carried or newest):
        waiting = paused_calls(blocks) if newest else {}
        for j, b in enumerate(blocks):
            kind = b.get("type")
            call = kind in SERVER_CALL_TYPES and (b.get("id") in answered_later or b.get("id") in waiting)
            if call or (kind in SERVER_RESULT_TYPES and b.get("tool_use_id") in carried):
                paired.add(j)
    out: list[Block] | None = None
    gone: set[str] = set()  # URLs of web search hits shown as text: citations to them are left out
    for j, b in enumerate(blocks):
        kind = b.get("type")
        if kind not in PROVIDER_TYPES:
            continue
        if kind == "reasoning" and role != "assistant":
            out = list(blocks) if out is None else out
            out[j] = {}  # removed below
            report("reasoning_dropped_outside_assistant", "an OpenAI reasoning item in a non-assistant turn left out")
            continue
        why = ""
        want = openai_item_role(b.get("item_type")) if kind == "openai_item" else None
        if want is not None and want != role:
            why = f"an OpenAI {b.get('item_type')} item outside its {want} turn is shown as text"
        elif kind in USER_ONLY_TYPES and role != "user":
            why = f"a {kind} outside a user turn is shown as text"
        elif kind in ASSISTANT_ONLY_TYPES and role != "assistant":
            why = f"a {kind} outside an assistant turn is shown as text"
        elif kind in SERVER_CALL_TYPES and j not in paired and not (role == "assistant" and deferred_call(blocks, j)):
            why = f"a {kind} without its result in the same message is shown as text"
        elif kind in SERVER_RESULT_TYPES and j not in paired:
            why = f"a {kind} without its call in the same message is shown as text"
        if not why:
            continue
        out = list(blocks) if out is None else out
        line = provider_line(b)
        out[j] = _text(line) if line.strip() else _text(f"[{kind}]")
        report("provider_block_transcribed", why)
        gone |= _hit_urls(b)
    if out is None:
        return blocks
    out = [b for b in out if b]
    if gone:
        out, n = _drop_citations(out, gone)
        if n:
            report("citation_dropped", f"{n} web search citation(s) to results shown as text left out")
    return out


def _hit_urls(b: Mapping[str, Any]) -> set[str]:
    """The URLs of a ``web_search_tool_result``'s hits (empty for any other block)."""
    content = b.get("content")
    if b.get("type") != "web_search_tool_result" or not isinstance(content, list):
        return set()
    return {str(n.get("url")) for n in content if isinstance(n, Mapping) and isinstance(n.get("url"), str)}


def _drop_citations(blocks: list[Block], urls: set[str]) -> tuple[list[Block], int]:
    """``blocks`` with the ``web_search_result_location`` citations to ``urls`` taken off their text blocks
    (a citation must point at a search result sent in the request; these were shown as text), and how
    many were taken off. A text block left with none loses its ``citations`` field."""
    out: list[Block] = []
    dropped = 0
    for b in blocks:
        cites = b.get("citations")
        if b.get("type") == "text" and isinstance(cites, list):
            kept = [
                c
                for c in cites
                if not (
                    isinstance(c, Mapping) and c.get("type") == "web_search_result_location" and c.get("url") in urls
                )
            ]
            if len(kept) != len(cites):
                dropped += len(cites) - len(kept)
                b = {**b, "citations": kept} if kept else {k: v for k, v in b.items() if k != "citations"}
        out.append(b)
    return out, dropped


def _opaque(b: Mapping[str, Any]) -> bool:
    """A server result whose content cannot be cut (encrypted or binary)."""
    content = b.get("content")
    if b.get("type") == "web_search_tool_result":
        return isinstance(content, list) and bool(content)
    if not isinstance(content, Mapping):
        return False
    if content.get("type") == "encrypted_code_execution_result":
        return True
    if content.get("type") == "web_fetch_result":
        doc = content.get("content")
        source = doc.get("source") if isinstance(doc, Mapping) else None
        return not (isinstance(source, Mapping) and source.get("type") == "text")
    return False


def _cut_result(b: Block, cut: Callable[[str], str]) -> Block:
    """A readable server result with its long strings cut."""

    def trim(text: Any) -> Any:
        return cut(text) if isinstance(text, str) and len(text) > _CUT_OVER else text

    kind = b.get("type")
    content = b.get("content")
    if kind == "mcp_tool_result":
        if isinstance(content, str):
            return {**b, "content": trim(content)}
        if isinstance(content, list):
            return {
                **b,
                "content": [{**n, "text": trim(n.get("text"))} if n.get("type") == "text" else n for n in content],
            }
        return b
    if not isinstance(content, Mapping):
        return b
    part = content.get("type")
    if part in ("code_execution_result", "bash_code_execution_result"):
        return {
            **b,
            "content": {**content, "stdout": trim(content.get("stdout")), "stderr": trim(content.get("stderr"))},
        }
    if part == "text_editor_code_execution_view_result":
        return {**b, "content": {**content, "content": trim(content.get("content"))}}
    if part == "web_fetch_result":
        doc = content["content"]
        source = doc["source"]
        return {**b, "content": {**content, "content": {**doc, "source": {**source, "data": trim(source.get("data"))}}}}
    return b


def without_reasoning(blocks: Sequence[Block]) -> list[Block]:
    """``blocks`` without their OpenAI ``reasoning`` items, and every block after the first one removed
    without its Responses item id (``item_id``). The API pairs a reasoning item with what followed it in
    the model's output by id: a ``function_call`` (or an output message) sent with its ``fc_...`` id but
    without the reasoning before it is refused with 400 "Item 'fc_...' of type 'function_call' was
    provided without its required 'reasoning' item", while the same call without an id is taken."""
    out: list[Block] = []
    gone = False
    for b in blocks:
        if b.get("type") == "reasoning":
            gone = True
            continue
        if gone and "item_id" in b:
            b = {k: v for k, v in b.items() if k != "item_id"}
        out.append(b)
    return out


def excerpt_provider(blocks: list[Block], cut: Callable[[str], str]) -> list[Block]:
    """``blocks`` with their provider blocks reduced (see the module docstring); ``cut`` shortens one
    string to the excerpt's ratio, marker included."""
    result_of = _pairs(blocks)
    drop: set[int] = set()
    gone: set[str] = set()
    out: list[Block] = []
    replace: dict[int, Block] = {}
    for j, c in result_of.items():
        b = blocks[j]
        if _opaque(b):
            result = provider_line(b)
            result = cut(result) if len(result) > _CUT_OVER else result
            replace[c] = _text(f"{provider_line(blocks[c])} {result}")  # the call (a query, a URL) kept whole
            drop.add(j)
            gone |= _hit_urls(b)
        else:
            replace[j] = _cut_result(b, cut)
    for j, b in enumerate(blocks):  # a continuation's results (their calls in the turn before) are cut in place
        if b.get("type") in SERVER_RESULT_TYPES and j not in result_of and not _opaque(b):
            replace[j] = _cut_result(b, cut)
    for j, b in enumerate(blocks):
        if j in drop:
            continue
        b = replace.get(j, b)
        if b.get("type") == "search_result" and isinstance(b.get("content"), list):
            b = {
                **b,
                "content": [
                    {**n, "text": cut(n["text"])}
                    if n.get("type") == "text" and isinstance(n.get("text"), str) and len(n["text"]) > _CUT_OVER
                    else n
                    for n in b["content"]
                ],
            }
        out.append(b)
    out = without_reasoning(out)  # reasoning cannot be cut: left out whole (the items after it lose their id)
    return _drop_citations(out, gone)[0] if gone else out
