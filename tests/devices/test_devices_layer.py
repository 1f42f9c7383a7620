"""The kernel's files are named only in devices/ (and cgroup files in cgroups.py), and no library package but the
two that use its rules imports diagnose/: read over the source tree's syntax, so a new `open("/proc/…")` or
`from blockfit.diagnose import …` anywhere else fails here with its file and line."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "blockfit"

# Where a kernel path may be written, and why (ARCHITECTURE.md says the same).
KERNEL_PATH_OWNERS = ("devices/", "cgroups.py", "proc.py")
KERNEL_PATH_EXCEPTIONS = {
    "emit/context.py": {"/proc", "/sys"},  # system directories a build never writes into (names no file)
    "inputs.py": {"/proc", "/sys"},  # a user's file is refused there (inputs sits below devices; opens nothing)
}
# Who may import diagnose/, and what of it: the CLI runs it; bench and report take its rules' verdict.
DIAGNOSE_IMPORTERS = {"cli/diagnose.py": None, "dbbench/evidence.py": {"blockfit.diagnose.rules"},
                      "report/load.py": {"blockfit.diagnose.rules"}}


def _modules() -> list[tuple[str, ast.Module]]:
    return [(p.relative_to(SRC).as_posix(), ast.parse(p.read_text(), str(p))) for p in sorted(SRC.rglob("*.py"))]


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the docstring constants of the module, its classes and functions (prose, never opened)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def kernel_paths(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, text) of every string literal (or f-string's literal head) that names /proc or /sys or a file there."""
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = node.value
            if any(text == root or text.startswith(root + "/") for root in ("/proc", "/sys")):
                found.append((node.lineno, text))
    return found


def diagnose_imports(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            base = node.module
            names |= {f"{base}.{a.name}" if base == "blockfit.diagnose" else base for a in node.names}
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return {n for n in names if n == "blockfit.diagnose" or n.startswith("blockfit.diagnose.")}


def test_the_checks_see_what_they_look_for() -> None:
    tree = ast.parse('"""Reads /proc/diskstats."""\nimport blockfit.diagnose.rules\n'
                     'from blockfit.diagnose import sampler\nA = open("/proc/diskstats")\n'
                     'B = f"/sys/dev/block/{1}:{2}"\nC = "not /proc/stat"\nD = Path("/sys")\n')
    assert [t for _, t in kernel_paths(tree)] == ["/proc/diskstats", "/sys/dev/block/", "/sys"]
    assert diagnose_imports(tree) == {"blockfit.diagnose.rules", "blockfit.diagnose.sampler"}


def test_kernel_files_are_named_only_in_devices() -> None:
    stray = []
    for rel, tree in _modules():
        if rel.startswith(KERNEL_PATH_OWNERS):
            continue
        allowed = KERNEL_PATH_EXCEPTIONS.get(rel, set())
        stray += [f"{rel}:{line}: {text!r}" for line, text in kernel_paths(tree) if text not in allowed]
    assert not stray, "read /proc and /sys through blockfit.devices:\n" + "\n".join(stray)


def test_the_stated_exceptions_still_exist() -> None:
    """An exception that is gone must leave the list (and ARCHITECTURE.md) too."""
    modules = dict(_modules())
    for rel, texts in KERNEL_PATH_EXCEPTIONS.items():
        assert texts <= {t for _, t in kernel_paths(modules[rel])}, rel


def test_only_the_cli_bench_and_report_import_diagnose() -> None:
    wrong = []
    for rel, tree in _modules():
        if rel.startswith("diagnose/"):
            continue
        imported = diagnose_imports(tree)
        if not imported:
            continue
        if rel not in DIAGNOSE_IMPORTERS:
            wrong.append(f"{rel} imports {sorted(imported)}")
        elif (allowed := DIAGNOSE_IMPORTERS[rel]) is not None and not imported <= allowed:
            wrong.append(f"{rel} imports {sorted(imported - allowed)}")
    assert not wrong, "read devices through blockfit.devices, not diagnose:\n" + "\n".join(wrong)


def test_devices_imports_no_command_package() -> None:
    """devices/ sits below every command package: it imports only the bottom layer (errors, files, inputs, proc,
    schema) and itself."""
    commands = ("cli", "diagnose", "measure", "history", "dbbench", "report", "lab", "plan", "emit", "model")
    wrong = []
    for rel, tree in _modules():
        if not rel.startswith("devices/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("blockfit."):
                if node.module.split(".")[1] in commands:
                    wrong.append(f"{rel}:{node.lineno} imports {node.module}")
    assert not wrong, "\n".join(wrong)
