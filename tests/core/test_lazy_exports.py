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


def test_every_subpackage_is_still_an_attribute_after_importing_the_package() -> None:
    """``import context_journal`` then ``context_journal.stores.SQLiteStore``: the package once imported most of
    its modules eagerly, so each was an attribute; lazily, a submodule is imported on first access. A name
    that is neither an export nor a submodule still raises ``AttributeError``."""
    names = sorted(
        p.stem if p.is_file() else p.name
        for p in ROOT.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__" and not p.stem.startswith("_"))
        or (p.is_dir() and (p / "__init__.py").exists())
    )
    assert {"stores", "strategies", "formats", "compile", "manager", "tokens", "llm"} <= set(names)
    # (a module whose optional dependency is not installed raises the same error both ways)
    code = (
        "import importlib, context_journal as cj\n"
        f"for name in {names!r}:\n"
        "    try:\n"
        "        got = getattr(cj, name)\n"
        "    except ImportError as exc:\n"
        "        got = type(exc)\n"
        "    try:\n"
        "        want = importlib.import_module('context_journal.' + name)\n"
        "    except ImportError as exc:\n"
        "        want = type(exc)\n"
        "    assert got is want, (name, got, want)\n"
        "assert cj.stores.SQLiteStore is cj.SQLiteStore and cj.llm.OfflineSummarizer\n"
        "try:\n"
        "    cj.no_such_module\n"
        "except AttributeError as exc:\n"
        "    print(exc)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.strip() == "module 'context_journal' has no attribute 'no_such_module'"
