"""blockfit.cgroups on the machine's real cgroup-v1 blkio hierarchy: join, list, kill, remove."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from blockfit import cgroups, proc

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(os.geteuid() != 0 or not (cgroups.BLKIO_ROOT / "cgroup.procs").exists(),
                       reason="needs root and cgroup-v1 blkio"),
]


@pytest.fixture
def group() -> Iterator[Path]:
    path = cgroups.BLKIO_ROOT / cgroups.unique_name("cgroups-test")
    path.mkdir()
    try:
        yield path
    finally:
        cgroups.kill_all(path)
        cgroups.remove(path, cgroups.BLKIO_ROOT)


def _sleeper(group: Path) -> subprocess.Popen[bytes]:
    child = proc.start(["sleep", "60"], before=lambda: cgroups.join(group))
    assert cgroups.pids(group) == [child.pid]
    return child


def test_names_are_ours_and_never_repeat() -> None:
    a, b = cgroups.unique_name("x"), cgroups.unique_name("x")
    assert a != b and a.startswith(f"blockfit-x-{os.getpid()}-")


def test_kill_all_empties_the_group(group: Path) -> None:
    child = _sleeper(group)
    assert cgroups.kill_all(group)
    assert cgroups.pids(group) == []
    assert child.wait(timeout=10) == -9


def test_remove_moves_a_lingering_process_out_first(group: Path) -> None:
    child = _sleeper(group)
    try:
        cgroups.remove(group, cgroups.BLKIO_ROOT)
        assert not group.exists()
        assert child.poll() is None  # moved to the root group, not killed
        assert cgroups.pids(group) == []
    finally:
        proc.kill_group(child)
