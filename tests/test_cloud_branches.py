"""Per-cloud behaviour lives in the kinds table (issue 39, item 2): outside `model/kinds/` and `catalog/importers/`
no code compares a value with a string literal naming a cloud (==, !=, in, match). A decision that depends on the
cloud asks the cloud's entry (`model.kinds.cloud_of`) instead."""

from __future__ import annotations

import ast
from pathlib import Path

import blockfit
from blockfit.catalog import CLOUDS

SRC = Path(blockfit.__file__).parent
# the per-cloud tables themselves: the kinds; each provider's price files; each provider CLI's volume JSON (read as
# the importers read price files); what each cloud's disks look like to a lab guest
ALLOWED = ("model/kinds/", "catalog/importers/", "inventory/provider_files.py", "lab/clouds.py")
# owned by the fleet branch, which is rewriting these options as this lands; its two branches move with it
PENDING = {"cli/plan.py": 2}


def _names_cloud(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in CLOUDS
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_cloud(e) for e in node.elts)
    if isinstance(node, ast.MatchValue):
        return _names_cloud(node.value)
    if isinstance(node, ast.MatchOr):
        return any(_names_cloud(p) for p in node.patterns)
    return False


def cloud_branches(tree: ast.AST) -> list[int]:
    """Lines that compare something with a cloud's name, or match on one."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(_names_cloud(n) for n in [node.left, *node.comparators]):
            lines.append(node.lineno)
        elif isinstance(node, ast.match_case) and _names_cloud(node.pattern):
            lines.append(node.pattern.lineno)
    return sorted(lines)


def test_the_scan_finds_each_form_of_branch() -> None:
    code = ('if c == "oci": pass\nif "aws" != c: pass\nif c in ("gcp", "x"): pass\nx = 1 if c != "azure" else 2\n'
            'match c:\n    case "oci" | "aws":\n        pass\n'
            'if c == "ocid": pass\nd = {"oci": 1}\nf("aws")\n')
    assert cloud_branches(ast.parse(code)) == [1, 2, 3, 4, 6]


def test_no_branch_on_a_cloud_name_outside_the_kinds_table() -> None:
    found: dict[str, list[int]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(ALLOWED):
            continue
        lines = cloud_branches(ast.parse(path.read_text(encoding="utf-8"), filename=rel))
        if lines and len(lines) != PENDING.get(rel):
            found[rel] = lines
    assert not found, f"branches on a cloud's name (ask model.kinds.cloud_of instead): {found}"
