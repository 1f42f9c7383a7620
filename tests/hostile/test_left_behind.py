"""A build killed outright leaves its hidden staging folder (a full copy of root's scripts) beside the output; it
used to stay there for good, neither removed nor noticed by later builds. Now a staging folder carries an owner
marker (pid and start time, so a reused pid is not mistaken for its owner): the next build into the same folder
removes one whose owner is gone, with one line, never touches one whose owner runs, and names one it cannot
place.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockfit.cli import main
from blockfit.files import OWNER
from blockfit.proc import process_start
from support.faults import DEVICES, PART3, held_child, signal_when_held


@pytest.fixture(scope="module")
def plan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("plan") / "plan.json"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main([*PART3, "--json"])
    path.write_text(out.getvalue())
    return path


def _build_args(plan: Path, out: Path) -> list[str]:
    return ["build", "--plan", str(plan), "--manager", "lvm", "--devices", DEVICES, "--out", str(out)]


def _build(plan: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "blockfit", *_build_args(plan, out)], capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


def _staging(parent: Path) -> list[Path]:
    return sorted(p for p in parent.iterdir() if p.name.startswith(".scripts.") and p.name.endswith(".build"))


@contextlib.contextmanager
def _live_process() -> Iterator[subprocess.Popen[bytes]]:
    sleeper = subprocess.Popen(["sleep", "300"])
    try:
        yield sleeper
    finally:
        sleeper.kill()
        sleeper.wait()


def _plant(parent: Path, pid: int, marker: str | None) -> Path:
    folder = parent / f".scripts.{pid}.abc123.build"
    folder.mkdir()
    (folder / "20-lvm.sh").write_text("#!/bin/bash\n")
    if marker is not None:
        (folder / OWNER).write_text(marker)
    return folder


def test_a_staging_folder_left_by_a_sigkilled_build_is_removed_by_the_next(plan: Path, tmp_path: Path) -> None:
    out = tmp_path / "scripts"
    marker = tmp_path / "held"
    child = held_child(marker, "write:3", *_build_args(plan, out))   # three files into its staging folder
    killed = signal_when_held(child, marker, signal.SIGKILL)
    assert killed.code == -signal.SIGKILL, killed
    (left,) = _staging(tmp_path)
    assert (left / OWNER).read_text().split()[0] == str(child.pid) and not out.exists()
    again = _build(plan, out)
    assert again.returncode == 0, again.stderr
    assert f"removed {str(left)!r}, left by a blockfit that is no longer running" in again.stderr, again.stderr
    assert _staging(tmp_path) == [] and (out / "20-lvm.sh").is_file() and not (out / OWNER).exists()


def test_a_staging_folder_of_a_live_process_is_never_touched(plan: Path, tmp_path: Path) -> None:
    with _live_process() as sleeper:
        start = process_start(sleeper.pid)
        live = _plant(tmp_path, sleeper.pid, f"{sleeper.pid} {start}\n")
        reused = _plant(tmp_path, sleeper.pid + 100_000, f"{sleeper.pid} {start + 1 if start else 1}\n")  # pid reused
        unknown = _plant(tmp_path, 1, None)
        done = _build(plan, tmp_path / "scripts")
        assert done.returncode == 0, done.stderr
        assert live.is_dir() and (live / "20-lvm.sh").is_file() and str(live) not in done.stderr, done.stderr
        assert not reused.exists() and f"removed {str(reused)!r}" in done.stderr, done.stderr
        assert unknown.is_dir() and f"{str(unknown)!r} looks like a folder a blockfit left behind" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 2, done.stderr


def test_a_finished_build_leaves_no_marker_and_no_staging(plan: Path, tmp_path: Path) -> None:
    out = tmp_path / "scripts"
    for _ in range(2):   # a new folder, then replaced (--force on the second run)
        args = _build_args(plan, out) + (["--force"] if out.exists() else [])
        done = subprocess.run([sys.executable, "-m", "blockfit", *args], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and not done.stderr, done.stderr
        assert not (out / OWNER).exists() and sorted(os.listdir(tmp_path)) == ["scripts"]


def test_a_calibrate_temp_folder_left_by_a_dead_process_is_removed_by_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """calibrate's own temp folder (job files, fio output) carries the same marker; the next calibrate's removes
    one whose owner is gone and leaves a live one."""
    import tempfile

    from blockfit.measure import calibrate

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)   # read TMPDIR again
    gone = subprocess.Popen([sys.executable, "-c", "print()"], stdout=subprocess.DEVNULL)
    gone.wait()
    dead = tmp_path / f"{calibrate.WORKDIR_PREFIX}dead"
    dead.mkdir()
    (dead / OWNER).write_text(f"{gone.pid} 1\n")
    with _live_process() as sleeper:
        live = tmp_path / f"{calibrate.WORKDIR_PREFIX}live"
        live.mkdir()
        (live / OWNER).write_text(f"{sleeper.pid} {process_start(sleeper.pid)}\n")
        work = calibrate._workdir()
        try:
            assert work.parent == tmp_path and (work / OWNER).is_file()
            assert not dead.exists() and live.is_dir()
            err = capsys.readouterr().err
            assert f"removed {str(dead)!r}" in err and str(live) not in err and str(work) not in err, err
        finally:
            import shutil

            shutil.rmtree(work)


def test_a_calibrate_test_file_left_by_a_dead_process_is_removed_by_the_next(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A directory target's test file (GiBs, laid out whole) is named by its owner's pid and start time: the next
    calibrate on that directory removes one whose owner is gone, before it checks the free space."""
    from blockfit.measure.targets import TEST_FILE_PREFIX, resolve_target

    gone = subprocess.Popen([sys.executable, "-c", "print()"], stdout=subprocess.DEVNULL)
    gone.wait()
    dead = tmp_path / f"{TEST_FILE_PREFIX}{gone.pid}-1.dat"
    dead.write_bytes(b"\0" * 4096)
    other = tmp_path / f"{TEST_FILE_PREFIX}notes.dat"   # not a tagged name: never touched
    other.write_text("mine")
    with _live_process() as sleeper:
        live = tmp_path / f"{TEST_FILE_PREFIX}{sleeper.pid}-{process_start(sleeper.pid)}.dat"
        live.write_bytes(b"\0" * 4096)
        target = resolve_target(str(tmp_path), size_bytes=1024**2, write_pct=0, allow_write=False, warnings=[])
        assert not dead.exists() and live.exists() and other.exists()
        assert Path(target.path).name == f"{TEST_FILE_PREFIX}{os.getpid()}-{process_start(os.getpid())}.dat"
        err = capsys.readouterr().err
        assert f"removed {str(dead)!r}" in err and str(live) not in err, err
