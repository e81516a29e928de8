"""``python -m context_journal``: the ``context-journal`` command line (see :mod:`context_journal.cli`)."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    main()
