"""The CLI uses typer's public API only, within the typer versions pyproject.toml declares."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blockfit", *args], capture_output=True, text=True, timeout=120)


def test_installed_typer_is_within_the_declared_bound() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in deps if d.startswith("typer")]
    lowest = re.fullmatch(r"typer>=(\d+)\.(\d+)", spec)
    assert lowest is not None, spec
    installed = tuple(int(p) for p in version("typer").split(".")[:2])
    assert installed >= (int(lowest[1]), int(lowest[2]))


def test_no_private_typer_or_undeclared_click_import() -> None:
    for path in (ROOT / "src" / "blockfit").rglob("*.py"):
        text = path.read_text()
        assert "typer._" not in text and not re.search(r"^\s*(from|import) click\b", text, re.M), path


@pytest.mark.parametrize("args", [(), ("catalog",)])
def test_a_group_without_a_command_prints_its_help(args: tuple[str, ...]) -> None:
    out = _run(*args)
    assert out.returncode == 0 and out.stdout.startswith("Usage: blockfit") and out.stderr == ""


@pytest.mark.parametrize("args", [("--bogus",), ("catalog", "nope"), ("catalog", "show")])
def test_a_usage_error_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    out = _run(*args)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("blockfit: error: ") and out.stderr.count("\n") == 1
