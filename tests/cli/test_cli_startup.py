"""Start-up: a command imports what it needs and no more, and no import changes global state.

Asserts what is imported, never how long it takes (bench/startup.py measures that, side by side).
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys

import matplotlib
import typer

import blockfit
import blockfit.schema
from blockfit.cli import COMMANDS, app

HEAVY = ("numpy", "matplotlib", "jinja2", "rich", "psycopg")
MODEL_ARGS = ("model", "--layout", "9x500G@balanced", "--instance", "VM.Standard.E3.Flex:12", "--json")
# What `--help` needs of blockfit: the command list and the entry point's error and signal handling.
HELP_MODULES = {"blockfit", "blockfit.cli", "blockfit.cli.output", "blockfit.errors", "blockfit.files",
                "blockfit.lifecycle", "blockfit.terminal"}
# What `model --json` needs of the schema: the Prediction and what it is made of (not the plan's, history's, ...).
PREDICTION_SCHEMA = {"blockfit.schema", *(f"blockfit.schema.{name}" for name in
                                          ("citation", "clouds", "cost", "empty", "layout", "prediction", "result"))}
# Standard modules blockfit itself loaded at start-up once, each for one function (ctypes: build's folder swap;
# json: reading a JSON file, printing plain data). typer and pydantic load neither.
ONE_USE = ("ctypes", "json")


def _modules_imported_by(*args: str) -> set[str]:
    """Every module imported by running `blockfit ARGS` (output to /dev/null, module names to stderr; the harness
    itself imports only atexit, so json or ctypes in the answer came from blockfit)."""
    code = ("import sys, atexit\n"
            "atexit.register(lambda: sys.__stderr__.write(repr(sorted(sys.modules))))\n"
            "sys.argv = ['blockfit', *sys.argv[1:]]\n"
            "from blockfit.cli import main\n"
            "main()\n")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return set(ast.literal_eval(out.stderr.strip().splitlines()[-1]))


def _imported_by(*args: str) -> set[str]:
    """Top-level packages imported by running `blockfit ARGS`."""
    return {name.split(".")[0] for name in _modules_imported_by(*args)}


def test_help_imports_no_command_and_no_heavy_library() -> None:
    mods = _imported_by("--help")
    assert not mods & set(HEAVY), mods & set(HEAVY)
    assert "pydantic" not in mods


def test_model_json_imports_no_heavy_library() -> None:
    mods = _imported_by(*MODEL_ARGS)
    assert not mods & set(HEAVY), mods & set(HEAVY)


def test_help_imports_only_the_command_list() -> None:
    mods = _modules_imported_by("--help")
    extra = {m for m in mods if m.startswith("blockfit")} - HELP_MODULES
    assert not extra, sorted(extra)
    assert not mods & set(ONE_USE), mods & set(ONE_USE)


def test_model_json_imports_only_the_prediction_schema() -> None:
    mods = _modules_imported_by(*MODEL_ARGS)
    schema = {m for m in mods if m.startswith("blockfit.schema")}
    assert schema <= PREDICTION_SCHEMA, sorted(schema - PREDICTION_SCHEMA)
    commands = {m for m in mods if m.startswith("blockfit.cli.")} - {"blockfit.cli.output"}
    assert commands <= {"blockfit.cli.model", "blockfit.cli.common", "blockfit.cli.params"}, sorted(commands)
    packages = {m.split(".")[1] for m in mods if m.startswith("blockfit.")}
    assert not packages & {"plan", "emit", "history", "fleet", "report", "lab", "measure", "dbbench", "diagnose",
                           "devices"}, sorted(packages)
    assert not mods & set(ONE_USE), mods & set(ONE_USE)


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
