"""Parse at the edge (issue 39), checked on the source: in the packages converted so far, library code raises
errors about values and never opens a message with a command-line option ("--layout ..."); the CLI names the option
that carried the value (`cli.common.supplied_by`). Read as text, nothing imported: a message that slips back fails
here whether or not any test reaches it."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "blockfit"

# the packages (or modules) whose errors name values; the others follow as they are converted
CONVERTED = ("emit/context.py", "lab", "plan/space.py", "measure", "dbbench", "model", "catalog", "report/__init__.py")

# an error constructed with a message that starts with an option: Error("--x ..."), Error(f"--x ...")
NAMES_AN_OPTION = re.compile(r"""Error\(\s*f?["']--""")


def modules() -> list[Path]:
    found: list[Path] = []
    for name in CONVERTED:
        path = SRC / name
        found += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return found


def test_the_converted_packages_exist() -> None:
    assert all((SRC / name).exists() for name in CONVERTED)
    assert len(modules()) > 20   # the packages' modules, not an empty glob


def test_no_library_error_opens_with_an_option() -> None:
    offenders = [f"{path.relative_to(SRC)}:{text[:m.start()].count(chr(10)) + 1}"
                 for path in modules() for text in [path.read_text()] for m in NAMES_AN_OPTION.finditer(text)]
    assert offenders == [], f"errors naming an option in library code (raise ValueProblem about the value): " \
                            f"{offenders}"


def test_the_pattern_finds_what_it_should() -> None:
    assert NAMES_AN_OPTION.search('raise InputError(f"--mount {text!r}: expected")')
    assert NAMES_AN_OPTION.search("raise InputError(\n    '--dir: expected a directory')")
    assert not NAMES_AN_OPTION.search('raise ValueProblem(f"{text!r}: expected a directory")')
