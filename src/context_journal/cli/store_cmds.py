"""``import``, ``stats`` and ``show``: put transcripts into a store and look at it."""

from __future__ import annotations

from ._app import app  # noqa: F401
