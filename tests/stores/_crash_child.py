"""Child process of test_crash.py: writes through ContextManager until it is killed.

Usage: python _crash_child.py DB RUN DURABILITY

Prints ``ready`` once the store is open, then one line per acknowledged write, only after the call
returned (so after its commit), flushing each line:

* ``A <id>``: a single ``add_message`` returned;
* ``M <id> <id> <id>``: an ``add_messages`` batch (one transaction) returned;
* ``E <id> <seq>``: an ``edit_message`` returned the new version's sequence;
* ``B <name>``: a branch was created.

Ids are ``<run>-<i>`` (batches ``<run>-<i>-<k>``), so the parent knows the writes in flight too.
"""

from __future__ import annotations

import sys

from context_journal.manager import ContextManager


def main() -> None:
    path, run, durability = sys.argv[1], sys.argv[2], sys.argv[3]
    out = sys.stdout
    with ContextManager.open(path, durability=durability) as cm:
        out.write("ready\n")
        out.flush()
        written: list[str] = []
        i = 0
        while True:
            if i % 7 == 3:
                ids = [f"{run}-{i}-{k}" for k in range(3)]
                cm.add_messages(
                    [{"participant": "user", "content": f"batch {i} part {k} " * 5, "id": ids[k]} for k in range(3)]
                )
                out.write("M " + " ".join(ids) + "\n")
                written.extend(ids)
            elif i % 11 == 5 and written:
                target = written[i % len(written)]
                seq = cm.edit_message(target, f"edited in run {run} at step {i}")
                out.write(f"E {target} {seq}\n")
            elif i % 40 == 20:
                name = f"{run}-branch-{i}"
                cm.store.create_branch(name)
                out.write(f"B {name}\n")
            else:
                mid = f"{run}-{i}"
                cm.add_message(
                    "assistant" if i % 2 else "user",
                    [{"type": "text", "text": f"message {mid} " + "lorem ipsum " * (i % 13)}],
                    {"run": run, "i": i},
                    id=mid,
                )
                out.write(f"A {mid}\n")
                written.append(mid)
            out.flush()
            i += 1


if __name__ == "__main__":
    main()
