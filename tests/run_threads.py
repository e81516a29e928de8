"""Run several calls at once, each in its own thread, and collect what they raise (the concurrency tests)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any


def run_threads(
    target: Callable[..., Any], calls: Iterable[Sequence[Any]], timeout: float = 60, barrier: bool = False
) -> list[BaseException]:
    """Call ``target(*args)`` for each ``args`` of ``calls``, each in its own thread, all started together
    (``barrier``: each waits for the others before it calls), and wait up to ``timeout`` seconds for each.
    Returns the exceptions the calls raised, plus a ``TimeoutError`` for each thread still running."""
    argv = [tuple(a) for a in calls]
    errors: list[BaseException] = []
    gate = threading.Barrier(len(argv)) if barrier and argv else None

    def guarded(*args: Any) -> None:
        try:
            if gate is not None:
                gate.wait()
            target(*args)
        except BaseException as exc:  # reported to the caller
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=a) for a in argv]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    errors.extend(TimeoutError(f"{t.name} still running after {timeout} s") for t in threads if t.is_alive())
    return errors
