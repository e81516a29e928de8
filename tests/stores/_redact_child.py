"""Child process of test_redaction.py's crash test: redacts messages until it is killed.

Usage: python _redact_child.py DB ID [ID ...]

Prints ``ready`` once the store is open, then ``R <id>`` after each ``redact`` returned (after its commit).
"""

from __future__ import annotations

import sys

from context_journal.manager import ContextManager


def main() -> None:
    path, ids = sys.argv[1], sys.argv[2:]
    with ContextManager.open(path) as cm:
        sys.stdout.write("ready\n")
        sys.stdout.flush()
        for mid in ids:
            cm.redact(mid, reason="crash test", by="child")
            sys.stdout.write(f"R {mid}\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
