"""`blockfit bench` bad input: one line naming the input and what was expected, exit 2, nothing created."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blockfit", "bench", *args], capture_output=True, text=True,
                          timeout=60)


@pytest.fixture
def dirs(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """Directories the server user can reach (pytest's tmp_path is 0700 root), plus one it cannot."""
    base = Path(tempfile.mkdtemp(prefix="blockfit-bench-cli-", dir="/var/tmp"))
    base.chmod(0o755)
    try:
        yield _dirs(base, tmp_path)
    finally:
        shutil.rmtree(base)


def _dirs(base: Path, private: Path) -> dict[str, Path]:
    good = base / "good"
    good.mkdir()
    busy = base / "busy"
    (busy / "blockfit-bench").mkdir(parents=True)
    (busy / "blockfit-bench" / "PG_VERSION").write_text("15\n")
    afile = base / "afile"
    afile.write_text("user data\n")
    (private / "inner").mkdir()
    return {"good": good, "busy": busy, "file": afile, "missing": base / "missing", "private": private / "inner"}


@pytest.mark.parametrize(("args", "needle"), [
    (["--dir", "{missing}"], "does not exist"),
    (["--dir", "{good}", "--dir", "{missing}"], "missing: does not exist"),
    (["--dir", "{file}"], "is not a directory"),
    (["--dir", "{busy}"], "exists and is not empty"),
    pytest.param(["--dir", "{good}", "--dir", "{private}"], "not reachable by user postgres",
                 marks=pytest.mark.skipif(os.geteuid() != 0, reason="as root the server runs as postgres")),
    (["--dir", "{good}", "--workload", "oltp,tpcc"], "--workload 'tpcc'"),
    (["--dir", "{good}", "--repeat", "0"], "--repeat 0: expected a whole number at least 1"),
    (["--dir", "{good}", "--profile", "huge"], "--profile 'huge'"),
    (["--dir", "{good}", "--cap", "Z=300"], "no layout labelled 'Z'"),
    (["--dir", "{good}", "--cap", "lots"], "--cap 'lots'"),
    (["--dir", "{good}", "--dir", "{good}", "--label", "x", "--label", "x"], "expected a different label"),
    (["--dir", "{good}", "--label", "a", "--label", "b"], "expected one per --dir"),
    (["--dir", "{good}", "--label", "a/b"], "--label 'a/b': expected at most 64 characters without '/'"),
    (["--dir", "{good}=x\ty"], "--label 'x\\ty'"),  # the label of PATH=LABEL too
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
