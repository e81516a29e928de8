"""Child process of test_concurrency.py: appends handoffs to one project of a store.

Usage: python _append_child.py LOCATION PROJECT WRITER MODE [COUNT] [GO_FILE]

LOCATION is a SQLite path or ``pg:<url>#<schema>``. Prints ``ready`` once the journal is open, then:

* MODE ``race``: waits for GO_FILE to exist, appends COUNT entries with keys ``<WRITER>-<i>``;
* MODE ``crash``: appends forever (until killed), keys ``<WRITER>-<i>``.

Before each append it prints ``T <key>`` (in flight); after the call returned ``A <key> <seq> <status>``
(acknowledged), flushing each line. Bodies are a function of the key, so a retry sends the same entry.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from context_journal.journal import ExecutionJournal
from context_journal.stores import Store, open_store


def body(key: str) -> dict[str, Any]:
    """The handoff written under ``key`` (a retry must send exactly this)."""
    return {
        "goal": "survive crashes",
        "state": f"state written by {key} " + "lorem ipsum " * (len(key) % 7),
        "next_step": f"continue after {key}",
        "ruled_out": [{"id": f"ro-{key}", "item": f"item of {key}", "reason": "a test"}],
        "done_claims": [],
        "refs": [],
    }


def open_location(location: str) -> Store:
    if location.startswith("pg:"):
        from context_journal.stores.postgres import PostgresStore

        url, schema = location[3:].rsplit("#", 1)
        return PostgresStore(url, schema=schema)
    return open_store(location)


def main() -> None:
    location, project, writer, mode = sys.argv[1:5]
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    go = sys.argv[6] if len(sys.argv) > 6 else ""
    out = sys.stdout
    store = open_location(location)
    journal = ExecutionJournal(store)
    out.write("ready\n")
    out.flush()
    if mode == "race":
        while not os.path.exists(go):
            time.sleep(0.005)
    i = 0
    while mode == "crash" or i < count:
        key = f"{writer}-{i}"
        out.write(f"T {key}\n")
        out.flush()
        outcome = journal.append(project, "handoff", body(key), writer, key)
        assert outcome.entry is not None
        out.write(f"A {key} {outcome.entry.seq} {outcome.status}\n")
        out.flush()
        i += 1
    store.close()


if __name__ == "__main__":
    main()
