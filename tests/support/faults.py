"""Shared by the fault tests: small full file systems, read-only binds, the CLI in this process or held in a child,
and the one check every case ends with (no traceback, no temp file left, old files byte-identical)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest

from blockfit.cli import main

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="mounting a tmpfs or a read-only bind needs root")
TEST_DATA = Path(__file__).parents[1] / "data"
RECORDING = TEST_DATA / "diagnose" / "lab_stripe_slow_member.jsonl"
DEVICES = ",".join(f"/dev/oracleoci/oraclevd{c}" for c in "bcdefg")  # the part3 plan's 6 members
PART3 = ["plan", "--example", "part3"]


@dataclass
class Run:
    code: int
    out: str
    err: str


def run(capsys: pytest.CaptureFixture[str], *args: str, stdout: IO[str] | None = None) -> Run:
    """The CLI's entry point in this process: exit code, stdout, stderr (a traceback fails the test by itself)."""
    real = sys.stdout
    if stdout is not None:
        sys.stdout = stdout
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.stdout = real
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)


def child(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.Popen[str]:
    """The CLI in a child process (for signals), as `python -m blockfit` runs it."""
    return subprocess.Popen([sys.executable, "-m", "blockfit", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, cwd=cwd,
                            env={**os.environ, **(env or {})})


def held_child(marker: Path, stage: str, *args: str, cwd: Path | None = None) -> subprocess.Popen[str]:
    """A child that stops at STAGE (a lifecycle.checkpoint, see support/hold.py) and creates MARKER there, waiting
    for a signal."""
    return subprocess.Popen([sys.executable, str(Path(__file__).with_name("hold.py")), stage, str(marker), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            cwd=cwd)


def signal_when_held(proc: subprocess.Popen[str], marker: Path, sig: int, budget_s: float = 170) -> Run:
    """Wait for the child to reach its hold (or end), send SIG, collect it. A child that ended without reaching
    the hold is returned as it ended (its exit code and output say why)."""
    deadline = time.monotonic() + budget_s
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    if marker.exists() and proc.poll() is None:
        proc.send_signal(sig)
    out, err = proc.communicate(timeout=budget_s)
    return Run(proc.returncode, out, err)


@contextlib.contextmanager
def tmpfs(where: Path, free: int | None = None) -> Iterator[Path]:
    """A 64 KiB tmpfs mounted at WHERE (unmounted on the way out); with FREE, filled up to leave that much."""
    where.mkdir(exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "blockfit-faults", str(where)], check=True)
    try:
        if free is not None:
            fill_up(where, free)
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def fill_up(where: Path, free: int) -> None:
    """Fill the file system of WHERE (a file named 'fill'), then give back FREE bytes."""
    with open(where / "fill", "ab", buffering=0) as fh, contextlib.suppress(OSError):
        while fh.write(b"\0" * 4096):
            pass
    if free:
        os.truncate(where / "fill", max(0, (where / "fill").stat().st_size - free))


@contextlib.contextmanager
def read_only(source: Path, where: Path) -> Iterator[Path]:
    """SOURCE bound read-only at WHERE (what a read-only file system looks like, root or not)."""
    where.mkdir(exist_ok=True)
    subprocess.run(["mount", "--bind", str(source), str(where)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(where)], check=True)
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def snapshot(*dirs: Path) -> dict[str, object]:
    """Every entry under DIRS (hidden ones too): file bytes, link targets, directories."""
    seen: dict[str, object] = {}
    for top in dirs:
        for base, subdirs, names in os.walk(top):
            for name in subdirs + names:
                path = Path(base) / name
                if path.is_symlink():
                    seen[str(path)] = ("link", os.readlink(path))
                elif path.is_dir():
                    seen[str(path)] = "dir"
                else:
                    seen[str(path)] = path.read_bytes()
    return seen


def check_outcome(before: dict[str, object], after: dict[str, object], result: Run,
                  outputs: set[Path] | None = None) -> None:
    """The acceptance of every fault case: no traceback; a failure says so in one line; nothing new but the asked
    outputs, and only on success; every file that was there is byte-identical unless it was an asked output of a
    command that succeeded."""
    assert "Traceback" not in result.err, result.err
    if result.code != 0:
        assert len(result.err.strip().splitlines()) == 1, result.err
    asked = {str(p) for p in outputs or set()}
    allowed = {k for k in after if any(k == a or k.startswith(a + "/") for a in asked)} if result.code == 0 else set()
    assert set(after) - set(before) <= allowed, (sorted(set(after) - set(before) - allowed), result.err)
    for key, value in before.items():
        if key in allowed:
            continue
        assert key in after, (key, result.err)
        assert after[key] == value, (f"{key} changed", result.err)


def interrupt_line(err: str, sig: int) -> bool:
    lines = err.strip().splitlines()
    return len(lines) == 1 and "interrupted" in lines[0] and signal.Signals(sig).name in lines[0]
