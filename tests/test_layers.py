"""The layering ARCHITECTURE.md draws, checked on the source: no import circles, every row of its layer table (each
package imports only rows below its own, and what a row says a package imports is what it imports), `lab/` above
`model/` but not on `plan/`, one owner of signal handlers. Read with `ast`, nothing imported: a module that breaks a
rule fails here whether or not any test runs it."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
ARCHITECTURE = SRC.parent / "ARCHITECTURE.md"

# Modules that may call signal.signal besides the owner: none.
SIGNAL_OWNER = "blockfit.lifecycle"
SIGNAL_PENDING: set[str] = set()


def _modules() -> dict[str, tuple[Path, bool]]:
    mods = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        mods[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return mods


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module of ours an imported name lives in (`blockfit.schema.Plan` -> `blockfit.schema`), or None."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imports(module: str) -> dict[str, bool]:
    """What `module` imports of ours -> whether every such import is deferred: inside a function, or for the type
    checker only. Both count as edges: a circle through them is still a circle in the design, and an import for the
    type checker only is a dependency of the code's meaning all the same."""
    path, is_pkg = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: dict[str, bool] = {}

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            deferred = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) or _type_checking(child)
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    pkg = module if is_pkg else module.rpartition(".")[0]
                    for _ in range(child.level - 1):
                        pkg = pkg.rpartition(".")[0]
                    base = f"{pkg}.{base}" if base else pkg
                names = [f"{base}.{a.name}" for a in child.names]
            for name in names:
                target = _resolve(name)
                if target is not None and target != module:
                    found[target] = found.get(target, True) and in_function
            visit(child, deferred)

    visit(tree, False)
    return found


GRAPH = {m: _imports(m) for m in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_the_scan_sees_the_package() -> None:
    """A scan that found nothing would pass every rule below."""
    assert len(MODULES) > 100
    assert "blockfit.lab.run" in MODULES and "blockfit.model.given" in GRAPH["blockfit.lab.buildscripts"]


def test_cycle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles() -> None:
    graph = {m: set(deps) for m, deps in GRAPH.items()}
    assert _cycles(graph) == []


def _package(module: str) -> str:
    """The unit the layer table names: `blockfit.model.kinds.oci` -> `model`, `blockfit.inputs` -> `inputs`, the
    package's own `__init__` (its version) -> `__init__`."""
    return module.split(".")[1] if "." in module else "__init__"


def _names(text: str) -> list[str]:
    """`plan (public API, `replay`), history` -> ['plan', 'history']: remarks in parentheses dropped."""
    return [n.strip().strip("`") for n in re.sub(r"\([^()]*\)", "", text).split(",") if n.strip()]


def layer_table(text: str) -> tuple[list[list[str]], dict[str, set[str]]]:
    """ARCHITECTURE.md's layer block, top row first: each row's packages, and each `X → a, b` note (`X, Y → a` for
    two): X imports, of the packages above the floor (the two bottom rows), exactly these. An indented line goes on
    with the notes of the row above it."""
    block = text.split("## Layers", 1)[1].split("```", 2)[1]
    rows: list[list[str]] = []
    says: dict[str, set[str]] = {}
    for line in block.strip("\n").splitlines():
        fields = re.split(r"\s{2,}", line.strip())
        names = [f for f in fields if re.fullmatch(r"[a-z_]+", f)] if line[:1].strip() else []
        if names or not rows:
            rows.append(names)
        note = " ".join(fields[len(names):])
        for claim in note.split(";"):
            if "→" in claim:
                sources, targets = claim.split("→", 1)
                for source in _names(sources):
                    says[source] = set(_names(targets))
    return rows, says


def _package_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {_package(m): set() for m in MODULES}
    for module, deps in GRAPH.items():
        edges[_package(module)] |= {_package(d) for d in deps} - {_package(module)}
    return edges


def test_layer_table_parser_reads_rows_and_claims() -> None:
    text = "## Layers\n\n```\ncli            (all)\nplan   emit    plan → model (kinds), catalog;  emit, plan → x\n" \
           "               lab → y, z\nmodel\n```\n"
    rows, says = layer_table(text)
    assert rows == [["cli"], ["plan", "emit"], ["model"]]
    assert says == {"plan": {"x"}, "emit": {"x"}, "lab": {"y", "z"}}


def test_every_package_is_in_one_row_of_the_layer_table() -> None:
    rows, _ = layer_table(ARCHITECTURE.read_text(encoding="utf-8"))
    listed = [name for row in rows for name in row]
    assert sorted(listed) == sorted(set(listed)), "a package in two rows"
    assert set(listed) == set(_package_edges()), "the layer table and src/ name different packages"


def test_every_package_imports_only_the_rows_below_its_own() -> None:
    rows, _ = layer_table(ARCHITECTURE.read_text(encoding="utf-8"))
    level = {name: len(rows) - i for i, row in enumerate(rows) for name in row}
    upward = sorted(f"{source} -> {target}" for source, targets in _package_edges().items() for target in targets
                    if level[target] >= level[source])
    assert upward == []


def test_what_a_row_says_a_package_imports_is_what_it_imports() -> None:
    """`lab → model, measure, …`: every package lab imports above the floor is named there, and every one named is
    imported (a name left after the code dropped it would be as wrong as one missing)."""
    rows, says = layer_table(ARCHITECTURE.read_text(encoding="utf-8"))
    floor = set(rows[-1]) | set(rows[-2])
    edges = _package_edges()
    assert says, "the table names no imports"
    wrong = {source: (sorted(edges[source] - floor - named), sorted(named - edges[source]))
             for source, named in says.items() if edges[source] - floor - named or named - edges[source]}
    assert wrong == {}, "package: (imported but not named, named but not imported)"


def test_lab_imports_nothing_from_plan() -> None:
    """The lab consumes a Plan (schema) and a build (a child process), never the planner's internals."""
    offending = {(m, t) for m, deps in GRAPH.items() if m.startswith("blockfit.lab")
                 for t in deps if t == "blockfit.plan" or t.startswith("blockfit.plan.")}
    assert offending == set()




def _calls_signal_signal(module: str) -> bool:
    tree = ast.parse(MODULES[module][0].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "signal" and isinstance(node.value, ast.Name) \
                and node.value.id == "signal":
            return True
        if isinstance(node, ast.ImportFrom) and node.module == "signal" and any(a.name == "signal" for a in node.names):
            return True
    return False


def test_one_module_installs_signal_handlers() -> None:
    callers = {m for m in MODULES if _calls_signal_signal(m)}
    assert callers - SIGNAL_PENDING == {SIGNAL_OWNER}


def _template_environments() -> dict[tuple[str, str], list[str]]:
    """Each jinja2 PackageLoader(package, folder) -> the modules that make an environment over it."""
    found: dict[tuple[str, str], list[str]] = {}
    for module, (path, _) in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "PackageLoader":
                key = tuple(a.value for a in node.args if isinstance(a, ast.Constant))
                found.setdefault((str(key[0]), str(key[1])), []).append(module)
    return found


def test_one_jinja2_environment_per_template_folder() -> None:
    envs = _template_environments()
    assert ("blockfit.measure", "templates") in envs
    assert {folder: mods for folder, mods in envs.items() if len(mods) > 1} == {}


FIO_WRITER = "blockfit.measure.fio_job"


def test_fio_jobs_are_written_in_one_module() -> None:
    """fio's job options (an engine, a job section) are written by measure.fio_job and its templates only: no other
    module or template of src/ builds a job or a job's command line."""
    pattern = re.compile(r"ioengine=|\[global\]")
    writers = {m for m, (path, _) in MODULES.items() if pattern.search(path.read_text(encoding="utf-8"))}
    templates = {str(p.relative_to(SRC)) for p in SRC.rglob("*.j2") if pattern.search(p.read_text(encoding="utf-8"))}
    assert writers == {FIO_WRITER}
    assert templates and all(t.startswith("blockfit/measure/templates/") for t in templates), templates


# The modules split to McCabe complexity 15 or less; tests/test_complexity.py holds all of src/ to 15 by radon.
SPLIT_TO_15 = ("blockfit/lab/guest.py", "blockfit/history/awr.py", "blockfit/history/oracle_spool.py")


def test_split_modules_stay_at_complexity_15_or_less() -> None:
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        ruff = Path(shutil.which("ruff") or "ruff")
    run = subprocess.run([str(ruff), "check", "--no-cache", "--select", "C901", "--config",
                          "lint.mccabe.max-complexity=15", "--output-format", "json",
                          *(str(SRC / m) for m in SPLIT_TO_15)], capture_output=True, text=True, timeout=120)
    found = [f"{Path(d['filename']).name}: {d['message']}" for d in json.loads(run.stdout or "[]")]
    assert found == [] and run.returncode == 0, found or run.stderr


def test_no_shipped_file_cites_a_path_of_the_repository_or_its_workspace() -> None:
    """What a user can open (every file in the installed package: catalogs, templates, schemas) names public sources,
    never a path of this repository or of the workspace it was written in."""
    import blockfit

    root = Path(blockfit.__file__).parent
    forbidden = ("../shared", "shared/reference", "shared/seeds", "shared/samples")
    cited = [f"{path.relative_to(root)}: {needle}" for path in sorted(root.rglob("*"))
             if path.is_file() and path.suffix in (".toml", ".j2", ".json", ".md", ".py", ".html", ".css", ".sh")
             for needle in forbidden if needle in path.read_text(errors="replace")]
    assert cited == []


_ISSUE_NUMBER = re.compile(r"\bissues? #?\d+|\(#\d+\)", re.IGNORECASE)


def test_no_issue_numbers_in_the_source() -> None:
    """History belongs in the changelog and the commits: no docstring, comment or template of src/ cites an issue
    by number (a catalog's TOML is checked in its comments; its notes are data a user reads)."""
    found = []
    for path in sorted((SRC / "blockfit").rglob("*")):
        if path.suffix not in (".py", ".j2", ".sh", ".toml", ".md"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            text = line.partition("#")[2] if path.suffix == ".toml" else line
            if _ISSUE_NUMBER.search(text):
                found.append(f"{path.relative_to(SRC)}:{number}")
    assert found == []
