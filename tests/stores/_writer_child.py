"""Child process of the concurrency tests: appends messages to one store as fast as it can.

Usage: python _writer_child.py DB NAME COUNT GO_FILE

Prints ``ready`` once the store is open, waits until GO_FILE exists (so several writers start
together), then appends COUNT messages with ids ``NAME-<i>``; every fifth write is a batch of three
(``NAME-<i>-b<k>``) in one transaction. Each body names its id, so a reader can tell a whole entry
from a half-written one. Exits 0 when done; any error escapes as a traceback and a non-zero exit.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from context_journal.manager import ContextManager


def body(mid: str) -> tuple[str, dict[str, str]]:
    """The text and metadata written for an id (the reader recomputes them)."""
    return f"entry {mid} " + "x" * (len(mid) * 7 % 50), {"id": mid}


def write_all(cm: ContextManager, name: str, count: int) -> None:
    i = 0
    while i < count:
        if i % 5 == 4 and i + 3 <= count:
            ids = [f"{name}-{i}-b{k}" for k in range(3)]
            batch = []
            for mid in ids:
                text, meta = body(mid)
                batch.append({"participant": name, "content": text, "metadata": meta, "id": mid})
            cm.add_messages(batch)
            i += 3
        else:
            mid = f"{name}-{i}"
            text, meta = body(mid)
            cm.add_message(name, text, meta, id=mid)
            i += 1


def main() -> None:
    path, name, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    with ContextManager.open(path) as cm:
        print("ready", flush=True)
        deadline = time.monotonic() + 30
        while not go.exists():
            if time.monotonic() > deadline:
                raise SystemExit("never told to start")
            time.sleep(0.001)
        write_all(cm, name, count)
    print("done", flush=True)


if __name__ == "__main__":
    main()
