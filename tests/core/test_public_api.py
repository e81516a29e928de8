"""The public surface is one sorted ``__all__`` (pinned here, as httpx does)."""

from __future__ import annotations

import context_journal


def test_all_is_sorted_and_importable() -> None:
    names = context_journal.__all__
    assert names == sorted(names)
    for name in names:
        assert getattr(context_journal, name) is not None


def test_every_error_derives_from_the_root() -> None:
    from context_journal import errors

    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, context_journal.ContextJournalError), name
        assert name in (errors.__doc__ or ""), f"{name} missing from the error tree in errors.py's docstring"
