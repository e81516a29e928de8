"""The Porter stemmer of ``snowballstemmer``, loaded without the 38 other languages' stemmers.

``import snowballstemmer`` runs the package's ``__init__``, which imports every language's stemmer
module (39 modules): 20-40 ms of a process's first query-aware compile or search on a 2-core machine
(``python -X importtime -c "import snowballstemmer"``), more than the whole search at 200,000 messages.
The query words need only ``porter``: :func:`porter_stemmer` loads ``porter_stemmer.py`` and the two
modules it imports (``basestemmer``, ``among``) from the installed package's directory under a private
package name, so the stems are the same code's, bit for bit. It falls back to the package's own
``stemmer("porter")`` when the package is already imported, when PyStemmer (``Stemmer``, which the
package prefers when installed) is importable, or when the files are not where expected.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

__all__ = ["porter_stemmer"]

_PRIVATE = "context_journal.stores._snowball_porter"
"""The package name the three modules are loaded under (never ``snowballstemmer``: a later
``import snowballstemmer`` by anyone still gets the real package)."""


def porter_stemmer() -> Any:
    """A ``snowballstemmer`` Porter stemmer object (``stemWord(word) -> str``), loaded as cheaply as
    the installed packages allow (see the module docstring)."""
    if "snowballstemmer" not in sys.modules and importlib.util.find_spec("Stemmer") is None:
        try:
            return _load_private().PorterStemmer()
        except Exception:  # a layout this loader does not know: the package's own way
            sys.modules.pop(_PRIVATE, None)
    import snowballstemmer  # type: ignore[import-untyped]

    return snowballstemmer.stemmer("porter")


def _load_private() -> types.ModuleType:
    """``porter_stemmer.py`` of the installed ``snowballstemmer``, imported as a submodule of a private
    package whose path is the installed package's directory (its ``__init__`` never runs)."""
    module = sys.modules.get(f"{_PRIVATE}.porter_stemmer")
    if module is not None:
        return module
    spec = importlib.util.find_spec("snowballstemmer")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("snowballstemmer is not installed as a package directory")
    package = types.ModuleType(_PRIVATE)
    package.__path__ = list(spec.submodule_search_locations)
    package.__package__ = _PRIVATE
    sys.modules[_PRIVATE] = package
    return importlib.import_module(f"{_PRIVATE}.porter_stemmer")
