"""No function of src/ above complexity 15, counted by radon (boolean operators, comprehensions' conditions and
asserts count; ruff's mccabe skips `and`/`or`). There is no allow-list: the last of the 95 functions once listed
was split to 15 or less."""

from __future__ import annotations

import functools
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Class, Function

import blockfit

SRC = Path(blockfit.__file__).parent
LIMIT = 15


def _blocks(items: list[Function | Class], prefix: str = "") -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for item in items:
        if isinstance(item, Class):
            out += _blocks(item.methods, f"{prefix}{item.name}.")
        else:
            out.append((f"{prefix}{item.name}", item.complexity))
            out += _blocks(item.closures, f"{prefix}{item.name}.")
    return out


@functools.cache
def complexities() -> dict[str, int]:
    """'blockfit/plan/shapes.py:candidate_shapes' -> its complexity, for every function and method of src/."""
    found: dict[str, int] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent).as_posix()
        for name, value in _blocks(cc_visit(path.read_text(encoding="utf-8"))):
            key = f"{rel}:{name}"
            found[key] = max(value, found.get(key, 0))   # two defs of one name (an overload, a branch): the worse
    return found


def test_the_count_includes_boolean_operators() -> None:
    """A function with one `if` of three `and`s is 5 here (mccabe says 2)."""
    source = "def f(a, b, c, d):\n    if a and b and c and d:\n        return 1\n    return 0\n"
    assert _blocks(cc_visit(source)) == [("f", 5)]


def test_the_scan_sees_src() -> None:
    found = complexities()
    assert len(found) > 1500 and "blockfit/units.py:parse_io_size" in found


def test_no_function_above_15() -> None:
    over = sorted(f"{k} {v}" for k, v in complexities().items() if v > LIMIT)
    assert over == [], "split these to complexity 15 or less (radon cc -s FILE shows each block's figure)"
