"""Tests mirror modules: every module of the packages below has a test module of its own name in its package's
test folder (tests/<package>/test_<module>*.py) that imports it, so a module's tests are found where it is."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "blockfit"
TESTS = ROOT / "tests"
PACKAGES = ("schema", "history", "dbbench", "model", "plan", "report")


def imported_modules(test: Path) -> set[str]:
    """Every blockfit module TEST imports (`import a.b`, `from a.b import c`: a.b and a.b.c), at any depth."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(test.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in out if name.startswith("blockfit.")}


def modules(package: str) -> list[str]:
    return sorted(p.stem for p in (SRC / package).glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_module_has_a_test_module_of_its_name_that_imports_it(package: str) -> None:
    missing = []
    for module in modules(package):
        dotted = f"blockfit.{package}.{module}"
        tests = sorted((TESTS / package).glob(f"test_{module}*.py"))
        if not any(dotted in imported_modules(t) for t in tests):
            missing.append(f"{dotted}: no tests/{package}/test_{module}*.py imports it")
    assert not missing, "\n".join(missing)


def test_the_packages_have_modules_and_the_import_reader_sees_them() -> None:
    assert all(modules(p) for p in PACKAGES)
    here = imported_modules(Path(__file__))
    assert here == set()   # this module imports no blockfit module: the reader must not invent any


def test_no_two_test_modules_share_a_name() -> None:
    """pytest imports test modules by their base name (no packages under tests/): two of one name cannot both run."""
    names = [p.name for p in TESTS.rglob("test_*.py") if ".venv" not in p.parts]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
