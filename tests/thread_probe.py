"""Which threads ran a class's methods: how a test shows that store and manager work stays off an event
loop's thread. It is deterministic, where the loop's measured lag depends on how busy the machine is (that
is a benchmark figure: ``benchmarks/bench_loop_lag.py``)."""

from __future__ import annotations

import collections
import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any

import pytest

__all__ = ["ThreadProbe"]


class ThreadProbe:
    """Counts, per thread ident, the calls of every method (public or private, not dunder) of the classes
    given to :meth:`watch`, their bases' methods included."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._monkeypatch = monkeypatch
        self._lock = threading.Lock()
        self.calls: collections.Counter[int] = collections.Counter()
        self.names: collections.Counter[tuple[int, str]] = collections.Counter()

    def watch(self, *classes: type) -> ThreadProbe:
        for cls in classes:
            seen: set[str] = set()
            for klass in cls.__mro__[:-1]:  # not object
                for name, value in vars(klass).items():
                    if name in seen or name.startswith("__") or not inspect.isfunction(value):
                        continue
                    seen.add(name)
                    self._monkeypatch.setattr(cls, name, self._counted(value, f"{cls.__name__}.{name}"))
        return self

    def _counted(self, fn: Callable[..., Any], name: str) -> Callable[..., Any]:
        @functools.wraps(fn)
        def counted(*args: Any, **kwargs: Any) -> Any:
            ident = threading.get_ident()
            with self._lock:
                self.calls[ident] += 1
                self.names[ident, name] += 1
            return fn(*args, **kwargs)

        return counted

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self.names.clear()

    def on(self, ident: int) -> dict[str, int]:
        """The watched methods that ran on thread ``ident``, with their call counts (empty: none did)."""
        return {name: n for (i, name), n in self.names.items() if i == ident}

    def elsewhere(self, ident: int) -> int:
        """How many watched calls ran on threads other than ``ident``."""
        return sum(n for i, n in self.calls.items() if i != ident)
