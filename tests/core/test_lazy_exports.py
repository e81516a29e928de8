"""The lazily re-exported names (``_lazy.py``): what type checkers read (the imports under ``TYPE_CHECKING``) and
what runs (the mapping given to ``_lazy.exports``) name the same objects, and importing the package loads none
of the modules behind them."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import context_journal

ROOT = Path(context_journal.__file__).resolve().parent
PACKAGES = ["context_journal", "context_journal.llm"]


def _type_checking_imports(package: str) -> dict[str, tuple[str, str]]:
    """Name -> (module, attribute) of the imports under ``if TYPE_CHECKING:`` in ``package``'s ``__init__``."""
    path = ROOT.joinpath(*package.split(".")[1:], "__init__.py")
    names: dict[str, tuple[str, str]] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.level == 1 and imp.module
                for alias in imp.names:
                    names[alias.asname or alias.name] = (f"{package}.{imp.module}", alias.name)
    return names


@pytest.mark.parametrize("package", PACKAGES)
def test_the_typed_names_and_the_lazy_names_agree(package: str) -> None:
    typed = _type_checking_imports(package)
    module = importlib.import_module(package)
    assert sorted(typed) == sorted(module.__all__)
    for name, (source, attribute) in typed.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), attribute), name
    assert set(module.__all__) <= set(dir(module))
    with pytest.raises(AttributeError, match="no attribute 'NotAName'"):
        module.NotAName  # noqa: B018


def test_importing_the_package_loads_no_module_behind_its_names() -> None:
    code = (
        "import sys, context_journal, context_journal.llm\n"
        "print(sorted(m for m in sys.modules if m.startswith('context_journal.')))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert ast.literal_eval(out) == ["context_journal._lazy", "context_journal._version", "context_journal.llm"]
