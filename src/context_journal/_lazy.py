"""Lazy re-exports for a package's ``__init__`` (PEP 562): a public name is imported from its module on first
use, so importing the package loads none of the modules a program does not use.

A package lists its names twice: under ``if TYPE_CHECKING:`` as ordinary imports (what type checkers read) and
in a mapping given to :func:`exports` (what runs). ``tests/core/test_lazy_exports.py`` checks that the two agree
for every package that uses this.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from typing import Any


def exports(
    package: str, namespace: dict[str, Any], names: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` (whose globals are ``namespace``).

    ``names`` maps each public name to the submodule defining it, relative to the package (``"errors"``,
    ``"strategies.pinned"``), or to ``"module:attribute"`` when the attribute has another name there. A name
    is looked up once: the value is then stored in ``namespace``, an ordinary attribute of the package. Any
    other name that is a submodule of the package is imported (importing a submodule makes it an attribute
    of its package, as importing the package eagerly did); anything else raises ``AttributeError``.
    """

    def __getattr__(name: str) -> Any:
        target = names.get(name)
        if target is None:
            # A subpackage or module of the package (``context_journal.stores`` after ``import
            # context_journal``): importing the package used to load most of them, so they were attributes.
            if not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}") is not None:
                return importlib.import_module(f".{name}", package)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = target.partition(":")
        value = getattr(importlib.import_module(f".{module}", package), attribute or name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *names})

    return __getattr__, __dir__
