"""Start-up: a command imports what it needs and no more, and no import changes global state.

Asserts what is imported, never how long it takes (bench/startup.py measures that, side by side).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import matplotlib
import typer

import blockfit
import blockfit.schema
from blockfit.cli import COMMANDS, app

HEAVY = ("numpy", "matplotlib", "jinja2", "rich", "psycopg")


def _imported_by(*args: str) -> set[str]:
    """Top-level packages imported by running `blockfit ARGS` (output to /dev/null, modules to stderr)."""
    code = ("import sys, atexit, json\n"
            "top = lambda: sorted({m.split('.')[0] for m in sys.modules})\n"
            "atexit.register(lambda: sys.__stderr__.write(json.dumps(top())))\n"
            "sys.argv = ['blockfit', *sys.argv[1:]]\n"
            "from blockfit.cli import main\n"
            "main()\n")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stderr.strip().splitlines()[-1]))


def test_help_imports_no_command_and_no_heavy_library() -> None:
    mods = _imported_by("--help")
    assert not mods & set(HEAVY), mods & set(HEAVY)
    assert "pydantic" not in mods


def test_model_json_imports_no_heavy_library() -> None:
    mods = _imported_by("model", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--json")
    assert not mods & set(HEAVY), mods & set(HEAVY)


def test_the_help_list_says_what_each_command_says_of_itself() -> None:
    group = typer.main.get_command(app)
    loaded = group.commands  # type: ignore[attr-defined]
    assert list(loaded) == list(COMMANDS)
    for name, text in COMMANDS.items():
        assert loaded[name].get_short_help_str(10_000) == text, name


def test_schema_names_resolve_to_their_modules() -> None:
    assert set(blockfit.schema.__all__) == set(blockfit.schema._MODULE_OF)
    for name in blockfit.schema.__all__:
        module = importlib.import_module(f"blockfit.schema.{blockfit.schema._MODULE_OF[name]}")
        assert getattr(blockfit.schema, name) is getattr(module, name), name


def test_no_module_changes_matplotlibs_rcparams_on_import() -> None:
    before = dict(matplotlib.rcParams)
    for info in pkgutil.walk_packages(blockfit.__path__, "blockfit."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    assert dict(matplotlib.rcParams) == before
