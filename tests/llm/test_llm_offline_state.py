"""The offline summarizer keeps an agent's working state: tool arguments as compact
``key: value`` pairs with marked clipping, credit for items that recur, no bonus for questions, and
merges that keep the most-touched paths and identifiers of their children."""

from __future__ import annotations

from typing import Any

import pytest

from context_journal.llm import LLMRequest, summarize_request
from context_journal.llm._extract import CLIP_MARK, call_parts, clip_marker, extract_units
from context_journal.llm._features import analyse, recurrence_boost

OLD = (
    "def check_session(conn, token) do\n"
    + "  case Sessions.lookup(token) do\n"
    + "    {:ok, session_token} -> assign(conn, :session_token, session_token)\n"
    + "    :error -> halt(conn)\n"
    + "  end\n"
) * 3 + "end\n"
NEW = OLD.replace("halt(conn)", "conn |> put_status(401) |> halt()")
EDIT = {
    "file_path": "/home/ann/work/shop/lib/shop_web/auth/login.ex",
    "old_string": OLD,
    "new_string": NEW,
    "replace_all": False,
}
TODOS = {
    "todos": [
        {"content": "Fix the login bug", "status": "completed", "activeForm": "Fixing"},
        {"content": "Add tests for check_session", "status": "in_progress", "activeForm": "Adding"},
    ]
}


def _call(name: str, args: dict[str, Any], tid: str = "toolu_1") -> list[dict[str, Any]]:
    return [
        {"role": "assistant", "content": [{"type": "tool_use", "id": tid, "name": name, "input": args}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": "ok"}]},
    ]


# --- tool arguments ---------------------------------------------------------------------------


def test_call_head_and_arguments_as_key_value_with_marked_clipping() -> None:
    head, rest = call_parts("Edit", EDIT)
    # The head: what the call is about; an absolute path as its last three parts after "…/".
    assert head.rendered == "Edit(file_path: …/shop_web/auth/login.ex)"
    assert head.pieces == ("Edit", "file_path", "shop_web/auth/login.ex")
    rendered = {key: value.rendered for key, value in rest}
    # Bulky strings: first line, the clipping marked with what it left out and the names it held.
    assert len(OLD.strip()) - len("def check_session(conn, token) do") == 480
    assert rendered["old_string"] == (
        "old_string: def check_session(conn, token) do… [clipped 480 chars; names: session_token]"
    )
    assert rendered["new_string"] == (
        "new_string: def check_session(conn, token) do… [clipped 549 chars; names: session_token, put_status]"
    )
    assert rendered["replace_all"] == "replace_all: false"
    assert clip_marker(1234) == "… [clipped 1,234 chars]"


def test_lists_and_dicts_become_key_value_pairs() -> None:
    head, rest = call_parts("TodoWrite", TODOS)
    assert head.rendered == "TodoWrite"
    assert rest[0][1].rendered == (
        "todos: [content: Fix the login bug, status: completed, activeForm: Fixing; "
        "content: Add tests for check_session, status: in_progress, activeForm: Adding]"
    )
    _, nested = call_parts("Configure", {"opts": {"retries": 3, "hosts": ["a.example", "b.example"]}})
    assert nested[0][1].rendered == "opts: [retries: 3; hosts: [a.example, b.example]]"
    many = [f"item_{i:02d}" for i in range(60)]
    _, clipped = call_parts("Tag", {"labels": many})
    text = clipped[0][1].rendered
    assert text.startswith("labels: [item_00, item_01, ") and text.endswith(" items]]")
    shown = text.count("item_")
    assert text.endswith(f"… [clipped {60 - shown} items]]") and len(text) < 300


def test_digest_shows_the_arguments_inside_the_call() -> None:
    request = LLMRequest(
        messages=[{"role": "user", "content": "Fix the session check."}, *_call("Edit", EDIT)],
        metadata={"instruction_last": False, "target_tokens": 200},
    )
    digest = summarize_request(request)
    assert digest.text == (
        "The user said: Fix the session check.\n"
        "I called: Edit(file_path: …/shop_web/auth/login.ex, "
        "old_string: def check_session(conn, token) do… [clipped 480 chars; names: session_token], "
        "new_string: def check_session(conn, token) do… [clipped 549 chars; names: session_token, put_status], "
        "replace_all: false)"
    )
    # With little room the call keeps its head and leaves the bulky arguments out.
    small = summarize_request(request.model_copy(update={"metadata": {"instruction_last": False, "target_tokens": 25}}))
    assert small.text == "The user said: Fix the session check.\nI called: Edit(file_path: …/shop_web/auth/login.ex)"
    # Marks and connectives aside, every word is the input's.
    body = CLIP_MARK.sub(" ", digest.text)
    assert "clipped" not in body and "…" not in body


def test_argument_keys_do_not_score() -> None:
    units = extract_units(LLMRequest(messages=_call("Edit", EDIT)).messages, 0, 2)
    concepts = {c for u in units for c in u.concepts}
    assert ("id", "file_path") not in concepts and ("id", "old_string") not in concepts
    assert ("path", "shop_web/auth/login.ex") in concepts and ("id", "put_status") in concepts


# --- recurrence and questions -----------------------------------------------------------------


def test_recurrence_boost_values() -> None:
    assert [recurrence_boost(n) for n in (0, 1, 2, 4, 8, 100)] == [1.0, 1.0, 1.5, 2.0, 2.5, 2.5]


def test_an_item_that_recurs_beats_one_mentioned_once() -> None:
    messages = [
        {"role": "user", "content": "The failing module is alpha_tools.py today."},
        *_call("Read", {"file_path": "src/alpha_tools.py"}, "toolu_1"),
        *_call("Edit", {"file_path": "src/alpha_tools.py", "old_string": "a", "new_string": "b"}, "toolu_2"),
        {"role": "user", "content": "The failing module is gamma_tools.py today."},
    ]
    request = LLMRequest(messages=messages, metadata={"instruction_last": False, "target_tokens": 14})
    units = {u.rendered: u for u in extract_units(request.messages, 0, len(messages))}
    alpha = units["The failing module is alpha_tools.py today."]
    gamma = units["The failing module is gamma_tools.py today."]
    # alpha_tools.py is named by the user, the Read and the Edit (counted by file name): 3 mentions.
    assert alpha.boosts == (recurrence_boost(3), 1.5) and gamma.boosts == (1.0, 1.5)
    # gamma's turn is the more recent (+2), alpha's path recurs (+4 * 0.79): alpha wins.
    assert round(alpha.gain() - gamma.gain(), 2) == round(4 * (recurrence_boost(3) - 1) - 2, 2) > 0
    assert summarize_request(request).text == "The user said: The failing module is alpha_tools.py today."


def test_questions_get_no_bonus() -> None:
    assert analyse("Should we rename load_user to fetch_user?") == analyse("Should we rename load_user to fetch_user.")
    messages = [
        {"role": "user", "content": "Did the deploy of billing_api to staging finish?"},
        {"role": "user", "content": "The deploy of billing_api to staging finished."},
    ]
    units = extract_units(LLMRequest(messages=messages).messages, 0, 2)
    assert units[1].gain() - units[0].gain() == pytest.approx(2.0)  # recency only


# --- merges -----------------------------------------------------------------------------------

CHILDREN = [
    "I called: Edit(file_path: …/app/auth/login.ex, old_string: def login(conn, params) do… [clipped 240 chars; "
    "names: check_session])\nI said: The login form now validates its input.",
    'I called: Read(file_path: …/app/web/router.ex); Read(file_path: …/app/web/endpoint.ex)\nResults: scope "/api", '
    "MyAppWeb do",
    "I called: Edit(file_path: …/app/auth/login.ex, new_string: def check_session(conn) do… [clipped 88 chars])\n"
    "I said: check_session now returns an error tuple instead of raising.",
    "I called: Bash(command: mix test test/app/auth/login_test.exs); Read(file_path: …/app/auth/login.ex)\n"
    "Results: 12 tests, 0 failures",
]


def _merge(target: int) -> LLMRequest:
    return LLMRequest(
        messages=[
            {"role": "user", "content": "What do you remember of the next part of our conversation (40 messages)?"},
            {"role": "assistant", "content": "\n\n".join(CHILDREN)},
            {"role": "user", "content": "Merge these memories into one."},
        ],
        metadata={"summarize_range": [1, 2], "target_tokens": target},
    )


def test_merge_reads_child_digests_line_by_line_calls_stay_calls() -> None:
    units = extract_units(_merge(60).messages, 1, 2)
    calls = [u.rendered for u in units if u.kind == "call"]
    assert calls == [
        "Edit(file_path: …/app/auth/login.ex, old_string: def login(conn, params) do… [clipped 240 chars; "
        "names: check_session])",
        "Read(file_path: …/app/web/router.ex)",
        "Read(file_path: …/app/web/endpoint.ex)",
        "Edit(file_path: …/app/auth/login.ex, new_string: def check_session(conn) do… [clipped 88 chars])",
        "Bash(command: mix test test/app/auth/login_test.exs)",
        "Read(file_path: …/app/auth/login.ex)",
    ]
    assert {u.kind for u in units} == {"call", "said", "result"}
    first = units[0]
    # Keys and clip counts are not concepts; login.ex (3 children) and check_session (3) recur.
    assert first.concepts == (("path", "/app/auth/login.ex"), ("id", "check_session"))
    assert first.boosts == (recurrence_boost(3), recurrence_boost(3))


def test_merge_keeps_the_most_touched_path_and_identifier() -> None:
    tight = summarize_request(_merge(31))  # the two lines' estimate (31 since "I" is priced as a token)
    assert tight.text == (
        "I said: check_session now returns an error tuple instead of raising.\n"
        "I called: Read(file_path: …/app/auth/login.ex)"
    )
    wider = summarize_request(_merge(60))
    assert wider.text == (
        "I called: Read(file_path: …/app/web/router.ex); Read(file_path: …/app/web/endpoint.ex)\n"
        "I said: check_session now returns an error tuple instead of raising.\n"
        "I called: Read(file_path: …/app/auth/login.ex)"
    )
    assert tight.tokens <= 31 and wider.tokens <= 60
