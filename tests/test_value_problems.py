"""Parse at the edge (issue 39), checked on the source: library code (everything but cli/) raises errors about values
and never opens a message with a command-line option ("--layout ..."); the CLI names the option that carried the value
(`cli.common.supplied_by`). Read as text, nothing imported: a message that slips back fails here whether or not any
test reaches it. A machine's problem found at run time (EnvironmentProblem: a hook that failed, a fio server that does
not answer) is not about a value, and may say which option set it up."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "blockfit"

# an error or problem constructed with a message that starts with an option: Error("--x ..."), Problem(f"--x ...")
NAMES_AN_OPTION = re.compile(r"""(?<!Environment)(Error|Problem)\(\s*f?["']--""")


def modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if p.relative_to(SRC).parts[0] != "cli")


def test_every_library_module_is_read() -> None:
    names = {p.relative_to(SRC).as_posix() for p in modules()}
    assert {"emit/context.py", "history/readers.py", "fleet/query.py", "catalog/importers/__init__.py"} <= names
    assert len(names) > 150 and not any(n.startswith("cli/") for n in names)


def test_no_library_error_opens_with_an_option() -> None:
    offenders = [f"{path.relative_to(SRC)}:{text[:m.start()].count(chr(10)) + 1}"
                 for path in modules() for text in [path.read_text()] for m in NAMES_AN_OPTION.finditer(text)]
    assert offenders == [], f"errors naming an option in library code (raise ValueProblem about the value): " \
                            f"{offenders}"


def test_the_pattern_finds_what_it_should() -> None:
    assert NAMES_AN_OPTION.search('raise InputError(f"--mount {text!r}: expected")')
    assert NAMES_AN_OPTION.search("raise InputError(\n    '--dir: expected a directory')")
    assert not NAMES_AN_OPTION.search('raise ValueProblem(f"{text!r}: expected a directory")')
    assert NAMES_AN_OPTION.search('raise ImportProblem(f"--region {region}: no prices")')
    assert not NAMES_AN_OPTION.search('raise EnvironmentProblem(f"--host {h}: no fio --server answering")')
