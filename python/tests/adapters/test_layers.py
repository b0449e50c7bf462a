"""The package's layers: the adapters depend on the Herald API, never the other way
round, so the core modules import no adapter, not even lazily."""

from __future__ import annotations

import ast
from pathlib import Path

import lorebase_herald

PACKAGE = Path(lorebase_herald.__file__).resolve().parent


def imported_modules(path: Path) -> "set[str]":
    """Every module a file imports, anywhere in it (functions and TYPE_CHECKING blocks too),
    as an absolute name."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "lorebase_herald" if node.level == 1 else "lorebase_herald.adapters" if node.level == 2 else ""
            module = ".".join(part for part in (base if node.level else "", node.module or "") if part)
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def test_the_core_modules_import_no_adapter() -> None:
    core = [path for path in PACKAGE.glob("*.py")]
    assert {path.name for path in core} >= {"__init__.py", "herald.py", "errors.py"}
    for path in core:
        adapters = sorted(name for name in imported_modules(path) if name.startswith("lorebase_herald.adapters"))
        assert not adapters, f"{path.name} imports {adapters}"


def test_the_herald_api_has_no_framework_methods() -> None:
    assert not [name for name in dir(lorebase_herald.Herald) if name.startswith("to_")]
