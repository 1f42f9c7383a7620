"""dbbench.memcg: a memory cgroup for the server, limited, counted and removed on exit (root only)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from blockfit.dbbench.memcg import detect, memory_cgroup
from blockfit.errors import EnvironmentProblem

MIB = 2**20


def _or_skip() -> None:
    if os.geteuid() != 0:
        pytest.skip("memory cgroups need root")
    try:
        detect()
    except EnvironmentProblem as exc:
        pytest.skip(str(exc))


def test_the_group_holds_its_limit_and_is_gone_after() -> None:
    _or_skip()
    with memory_cgroup(64 * MIB, "test") as group:
        limit = "memory.limit_in_bytes" if group.version == 1 else "memory.max"
        assert int((group.path / limit).read_text()) == 64 * MIB
        assert group.pids() == [] and group.oom_kills() == 0
        assert group.procs_file.name == "cgroup.procs"
    assert not group.path.exists()


def test_a_process_put_in_it_is_killed_when_it_goes() -> None:
    _or_skip()
    with memory_cgroup(64 * MIB, "test") as group:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        group.procs_file.write_text(f"{child.pid}\n")
        assert group.pids() == [child.pid]
        peak = group.peak_bytes()
        assert peak is not None and peak >= 0
    assert child.wait(timeout=30) != 0 and not group.path.exists()
