"""What recall and search report back on odd input, found by the review of issue 11: a long query is
repeated bounded, a date is a time, and an auto query with no word says so."""

from __future__ import annotations

import datetime as dt

import pytest

from context_journal import ContextManager
from context_journal.recall.query import QUERY_SHOWN


def test_a_long_query_comes_back_bounded() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "the zebrafish swims")
    for query in ("zebrafish " + "x" * 100_000, "zebrafish " + "東" * 5_000):
        report = cm.compile(1_000, query=query).recall
        assert report is not None and len(report["query"]) == QUERY_SHOWN and report["query"].endswith("…")
        assert query.startswith(report["query"][:-1])
    assert cm.compile(1_000, query="zebrafish").recall["query"] == "zebrafish"  # type: ignore[index]
    cm.close()


def test_a_date_is_a_time_and_other_types_are_named() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("user", "zebra one", id="a", timestamp=dt.datetime(2023, 11, 14, 12, tzinfo=dt.UTC))
    cm.add_message("user", "zebra two", id="b", timestamp=dt.datetime(2023, 11, 16, 12, tzinfo=dt.UTC))
    assert [h.message_id for h in cm.search_messages("zebra", since=dt.date(2023, 11, 15))] == ["b"]
    assert [h.message_id for h in cm.search_messages("zebra", until=dt.date(2023, 11, 15))] == ["a"]
    for bad in ([1], dt.time(1), object()):
        with pytest.raises(TypeError, match="a time must be"):
            cm.search_messages("zebra", since=bad)  # type: ignore[arg-type]
    cm.close()


def test_an_auto_query_with_no_word_says_so() -> None:
    cm = ContextManager.open("memory:")
    cm.add_message("assistant", "hello")
    assert cm.compile(1_000, recall="auto").recall["note"] == "no user turn with text to take the query from"  # type: ignore[index]
    cm.add_message("user", "🎉 !!")
    report = cm.compile(1_000, recall="auto").recall
    assert report == {"query": "🎉 !!", "hits": 0, "recalled": 0, "note": "the query has no word to search for"}
    cm.close()
