"""`blockfit bench` bad input: one line naming the input and what was expected, exit 2, nothing created."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blockfit", "bench", *args], capture_output=True, text=True,
                          timeout=60)


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    good = tmp_path / "good"
    good.mkdir()
    busy = tmp_path / "busy"
    (busy / "blockfit-bench").mkdir(parents=True)
    (busy / "blockfit-bench" / "PG_VERSION").write_text("15\n")
    afile = tmp_path / "afile"
    afile.write_text("user data\n")
    return {"good": good, "busy": busy, "file": afile, "missing": tmp_path / "missing"}


@pytest.mark.parametrize(("args", "needle"), [
    (["--dir", "{missing}"], "does not exist"),
    (["--dir", "{good}", "--dir", "{missing}"], "missing: does not exist"),
    (["--dir", "{file}"], "is not a directory"),
    (["--dir", "{busy}"], "exists and is not empty"),
    (["--dir", "{good}", "--workload", "oltp,tpcc"], "--workload 'tpcc'"),
    (["--dir", "{good}", "--repeat", "0"], "--repeat 0: expected a whole number of at least 1"),
    (["--dir", "{good}", "--profile", "huge"], "--profile 'huge'"),
    (["--dir", "{good}", "--cap", "Z=300"], "no layout labelled 'Z'"),
    (["--dir", "{good}", "--cap", "lots"], "--cap 'lots'"),
    (["--dir", "{good}", "--dir", "{good}", "--label", "x", "--label", "x"], "expected a different label"),
    (["--dir", "{good}", "--label", "a", "--label", "b"], "expected one per --dir"),
    (["--dir", "{good}", "--out", "{file}"], "is a file"),
    ([], "Missing option '--dir'"),
])
def test_bad_input_is_one_line_exit_2_and_creates_nothing(dirs: dict[str, Path], args: list[str],
                                                          needle: str) -> None:
    before = {p: sorted(p.rglob("*")) for p in (dirs["good"], dirs["busy"])}
    out = run(*[a.format(**dirs) for a in args])
    assert out.returncode == 2, out.stderr
    assert needle in out.stderr, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr and out.stdout == ""
    assert {p: sorted(p.rglob("*")) for p in before} == before  # no cluster dir made, the user's data untouched
    assert dirs["file"].read_text() == "user data\n"
