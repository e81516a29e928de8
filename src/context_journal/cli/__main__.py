"""``python -m context_journal.cli``: the ``context-journal`` command line."""

from __future__ import annotations

from . import main

if __name__ == "__main__":
    main()
