"""Property test: reader isolation holds through every public read path — Python, the
command line and the MCP tools. A host writes messages whose blocks name random audiences into the shared
slot; each reader reads it through the CLI (``compile``, ``show``, ``search``, ``search --summaries``,
``summaries``, ``state``, ``pins``, ``map``) and through a reader-bound MCP backend (``compile_context``,
``search_messages``, ``search_summary_text``, ``search_summaries``, ``get_summary``, ``get_working_state``,
``list_pins``, ``compress``). No marker of a block whose audience leaves a reader out may reach that reader,
and a search for such a marker finds nothing at all."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from context_journal import ContextManager
from context_journal.cli import app
from context_journal.compile import EmptyContextError
from context_journal.errors import MessageNotFoundError
from context_journal.mcp import build_server
from context_journal.strategies import AutobiographicalStrategy
from tests.hypothesis_budget import examples

runner = CliRunner()

READERS = ["ann", "bob", "cy"]
# Small windows so a handful of messages already gives summaries.
CFG: dict[str, Any] = {
    "head_window_tokens": 40,
    "recent_window_tokens": 60,
    "target_chunk_tokens": 60,
    "merge_threshold": 2,
}
# A marker is one search word: SECRET, the audience's names, a serial, Z (so a cut marker never matches).
MARKER = re.compile(r"secret[a-z]+\d+x\d+z", re.IGNORECASE)
FILLER = "the deploy plan covers the staging rollout and the database migration checklist"


@st.composite
def conversations(draw: st.DrawFn) -> tuple[list[str], list[list[list[str] | None]], list[str], list[int]]:
    readers = draw(st.lists(st.sampled_from(READERS), min_size=2, max_size=3, unique=True))
    audience = st.one_of(
        st.none(),
        st.sampled_from(readers).map(lambda r: [r]),  # one reader: the likeliest to leak to the others
        st.lists(st.sampled_from(readers), min_size=1, max_size=len(readers), unique=True),
    )
    messages = draw(st.lists(st.lists(audience, min_size=1, max_size=3), min_size=3, max_size=10))
    compressed = draw(st.lists(st.sampled_from(readers), max_size=len(readers), unique=True))
    pins = draw(st.lists(st.integers(0, len(messages) - 1), min_size=len(readers), max_size=len(readers)))
    return readers, messages, compressed, pins


def _scrub(value: Any) -> Any:
    """``value`` without the ``query`` fields that echo what was asked (a hidden marker asked for is no leak)."""
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if k != "query"}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def _json_text(text: str) -> str:
    try:
        return json.dumps(_scrub(json.loads(text)))
    except json.JSONDecodeError:
        return text


def _cli(*args: str) -> str:
    res = runner.invoke(app, list(args))
    assert "Traceback" not in res.output, (args, res.output)
    return _json_text(res.stdout) + "\n" + res.stderr


def _queries(hidden: list[str], own: list[str]) -> dict[str, str]:
    """Search queries by name: a few markers one by one, then every hidden and every own marker at once (a
    query matches any of its words)."""
    queries = {word: word for word in [*hidden[:2], *own[:1]]}
    if hidden:
        queries["hidden"] = " ".join(hidden)
    if own:
        queries["own"] = " ".join(own)
    return queries


def _door_texts(db: str, reader: str, hidden: list[str], own: list[str], pin_id: str) -> dict[str, str]:
    """Every read path's output for ``reader``, keyed by the path's name."""
    base = ["--store", db, "--reader", reader, "-n", reader]
    out: dict[str, str] = {}
    out["cli compile"] = _cli("compile", *base, "--budget", "4000", "--format", "json")
    out["cli compile small"] = _cli("compile", *base, "--budget", "300", "--format", "json")
    out["cli compile passthrough"] = _cli(
        "compile", *base, "--budget", "100000", "--strategy", "passthrough", "--format", "json"
    )
    asked = " ".join(hidden or ["deploy"])
    out["cli compile query"] = _cli("compile", *base, "--budget", "4000", "--format", "json", "--query", asked)
    _cli("pin", pin_id, *base, "--json")  # a message the reader may see only in part (or not at all)
    out["cli show"] = _cli("show", *base, "--json")
    out["cli summaries"] = _cli("summaries", *base, "--json")
    out["cli state"] = _cli("state", *base, "--json")
    out["cli pins"] = _cli("pins", *base, "--json")
    page = Path(db).with_name(f"map-{reader}.html")
    out["cli map"] = _cli("map", *base, "--budget", "4000", "--html", str(page))
    out["cli map page"] = page.read_text(encoding="utf-8") if page.exists() else ""
    for name, query in _queries(hidden, own).items():
        out[f"cli search {name}"] = _cli("search", query, *base, "--limit", "1000", "--json")
        if name in ("hidden", "own") or name in hidden[:1]:
            out[f"cli search --summaries {name}"] = _cli(
                "search", query, *base, "--summaries", "--limit", "1000", "--json"
            )

    _, backend = build_server(db, reader=reader)
    try:
        calls: dict[str, Any] = {
            "mcp compress": lambda: backend.compress(max_calls=20, budget=200),
            "mcp compile_context": lambda: backend.compile_context(max_tokens=4000),
            "mcp compile_context passthrough": lambda: backend.compile_context(
                max_tokens=100_000, strategy="passthrough"
            ),
            "mcp compile_context openai": lambda: backend.compile_context(max_tokens=4000, format="openai"),
            "mcp compile_context query": lambda: backend.compile_context(
                max_tokens=4000, query=" ".join(hidden or ["deploy"])
            ),
            "mcp get_working_state": lambda: backend.get_working_state(),
            "mcp list_pins": lambda: backend.list_pins(),
            "mcp search_summaries": lambda: backend.search_summaries(limit=1000),
            "mcp search_summaries secret": lambda: backend.search_summaries(regex="(?i)secret", limit=1000),
        }
        for name, query in _queries(hidden, own).items():
            calls[f"mcp search_messages {name}"] = lambda q=query: backend.search_messages(query=q, limit=1000)
            calls[f"mcp search_summary_text {name}"] = lambda q=query: backend.search_summary_text(query=q, limit=1000)
        for name, call in calls.items():
            try:
                result = call()
            except (EmptyContextError, MessageNotFoundError) as exc:  # the reader sees nothing (yet)
                out[name] = str(exc)
                continue
            out[name] = _json_text(result.model_dump_json())
            if name == "mcp search_summaries":
                for s in result.results[:20]:
                    found = backend.get_summary(str(s["id"]))
                    out[f"mcp get_summary {s['id']}"] = found.model_dump_json()
    finally:
        backend.close()
    return out


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=conversations())
def test_no_door_leaks_a_private_block(
    case: tuple[list[str], list[list[list[str] | None]], list[str], list[int]],
) -> None:
    readers, messages, compressed, pins = case
    tmp = tempfile.mkdtemp()
    try:
        db = str(Path(tmp) / "doors.db")
        audience_of: dict[str, list[str]] = {}  # marker -> the readers it names
        ids: list[str] = []
        host = ContextManager.open(db)
        for i, auds in enumerate(messages):
            blocks: list[dict[str, Any]] = []
            for j, aud in enumerate(auds):
                if aud is None:
                    blocks.append({"type": "text", "text": f"public note {i}.{j}: {FILLER}"})
                    continue
                marker = f"SECRET{''.join(sorted(aud))}{i}x{j}Z"
                audience_of[marker] = aud
                blocks.append({"type": "text", "text": f"{marker} memo: {FILLER}", "audience": aud})
            ids.append(host.add_message("user" if i % 2 == 0 else "assistant", blocks))
        host.close()
        for reader in compressed:  # summaries of the reader's view, in its namespace
            cm = ContextManager.open(db, namespace=reader, view_reader=reader, strategy=AutobiographicalStrategy(**CFG))
            cm.drain()
            cm.close()

        for k, reader in enumerate(readers):
            hidden = [m for m, aud in audience_of.items() if reader not in aud]
            own = [m for m, aud in audience_of.items() if reader in aud]
            by_lower = {m.lower(): aud for m, aud in audience_of.items()}
            texts = _door_texts(db, reader, hidden, own, ids[pins[k]])
            for door, text in texts.items():
                for found in MARKER.findall(text):
                    aud = by_lower.get(found.lower(), [])  # a query's echo is scrubbed: every marker is a block's
                    assert reader in aud, (door, reader, found, aud)
            for name in [*hidden[:2], *(["hidden"] if hidden else [])]:  # nothing found, not even a snippet
                for door in ("cli search", "cli search --summaries", "mcp search_messages", "mcp search_summary_text"):
                    if f"{door} {name}" in texts:
                        text = texts[f"{door} {name}"]
                        assert json.loads(text.split("\n")[0])["hits"] == [], (door, reader, name, text)
            # sanity (so the test can fail): the reader's own blocks reach its compile and its search
            for marker in own:
                assert marker in texts["cli compile passthrough"], (reader, marker)
                assert marker in texts["mcp compile_context passthrough"], (reader, marker)
            if own:
                assert json.loads(texts["cli search own"].split("\n")[0])["hits"], (reader, own)
                assert json.loads(texts["mcp search_messages own"])["hits"], (reader, own)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
