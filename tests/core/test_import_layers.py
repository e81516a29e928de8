"""The package's import graph (DESIGN.md section 2): no circle between modules at import time, and the lower
layers import nothing from the layers above them, not even inside a function.

Imports under ``if TYPE_CHECKING:`` are annotations only and do not count. An import names the module it
loads: ``from ..strategies import X`` is the package ``context_journal.strategies`` (its ``__init__``),
``from ..strategies.base import X`` that module, ``from . import views`` the submodule.
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterable
from pathlib import Path

import pytest

import context_journal

ROOT = Path(context_journal.__file__).resolve().parent


def _modules() -> dict[str, tuple[Path, list[str]]]:
    """Module name -> (file, the package its relative imports start from)."""
    out: dict[str, tuple[Path, list[str]]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
            package = parts
        else:
            package = parts[:-1]
        out[".".join(parts)] = (path, package)
    return out


MODULES = _modules()


def _targets(package: list[str], node: ast.Import | ast.ImportFrom) -> Iterable[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = package[: len(package) - node.level + 1]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module or ""
    return [f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module for a in node.names]


def _imports(module: str, *, module_level_only: bool) -> set[str]:
    """The package's modules that ``module`` imports (at import time only, or anywhere in it)."""
    path, package = MODULES[module]
    found: set[str] = set()

    def visit(body: list[ast.stmt], top: bool) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                if top or not module_level_only:
                    found.update(t for t in _targets(package, node) if t in MODULES and t != module)
            elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                continue
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                if not module_level_only:
                    visit([n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)], False)
            else:
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(node, field, []), top)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body, top)

    visit(ast.parse(path.read_text(encoding="utf-8")).body, True)
    return found


def test_no_circle_between_modules_at_import_time() -> None:
    graph = {m: _imports(m, module_level_only=True) for m in MODULES}
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        pytest.fail(f"import circle: {' -> '.join(exc.args[1])}")
    assert len(order) == len(MODULES) > 100


def test_no_circle_between_modules_counting_imports_inside_functions() -> None:
    """The stricter rule: an import made when a function runs counts too, so no module leans on one
    that leans back on it (the manager, branching and the workers; the compiler and the strategies)."""
    graph = {m: _imports(m, module_level_only=False) for m in MODULES}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        pytest.fail(f"import circle (counting imports inside functions): {' -> '.join(exc.args[1])}")


HIGHER = ("manager", "aio", "compile", "compression", "branching", "workers", "strategies", "recall", "state",
          "journal", "formats", "cli", "mcp", "integrations", "viz")  # fmt: skip
"""The layers above the store, the message index, the views, the LLM layer and the wire encoders."""

LOWER = {
    "wire": (*HIGHER, "llm", "views", "messages", "stores"),
    "llm": (*HIGHER, "views", "messages", "stores"),
    "views": (*HIGHER, "llm", "rendering"),
    "messages": (*HIGHER, "views", "llm", "rendering"),
    "content": (*HIGHER, "views", "messages", "llm", "stores", "wire", "rendering"),
    "tokens": (*HIGHER, "views", "messages", "llm", "stores", "wire", "rendering"),
    "_graphemes": (*HIGHER, "views", "messages", "llm", "stores", "wire", "content", "tokens"),
    "rendering": (*HIGHER, "llm"),
    # the strategies sit below the compiler and its callers: the compiler is handed to them
    # (StrategyContext.compile_context), never imported
    "strategies": ("manager", "aio", "compile", "compression", "branching", "workers", "cli", "mcp", "integrations"),
}
"""Each lower layer and what it must not import, anywhere in it (DESIGN.md section 2)."""


@pytest.mark.parametrize("layer", sorted(LOWER))
def test_a_lower_layer_imports_nothing_from_the_layers_above(layer: str) -> None:
    above = {f"context_journal.{name}" for name in LOWER[layer]}
    wrong = sorted(
        f"{module} imports {target}"
        for module in MODULES
        if module == f"context_journal.{layer}" or module.startswith(f"context_journal.{layer}.")
        for target in _imports(module, module_level_only=False)
        if target == "context_journal" or target in above or any(target.startswith(f"{a}.") for a in above)
    )
    assert wrong == []


def test_the_walk_sees_function_level_and_type_checking_imports_as_they_are() -> None:
    """The rules above can fail: an import inside a function counts where the rule says anywhere, and an
    import under ``TYPE_CHECKING`` (the LLM layer's token counter names the manager for annotations) never."""
    inside = _imports("context_journal.namespaces", module_level_only=False)
    at_import = _imports("context_journal.namespaces", module_level_only=True)
    assert "context_journal.strategies" in inside - at_import  # strategy_record imports it when called
    assert "context_journal.manager" not in _imports("context_journal.llm.token_count", module_level_only=False)
    assert "context_journal.wire.chat_completions" in _imports("context_journal.llm.openai", module_level_only=True)
