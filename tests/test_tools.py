"""Each command that drives a system tool checks for it first: one line naming the Debian package, exit 4,
nothing done. Run with a PATH that lacks the tools (an empty directory), as on a light install."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from blockfit import tools
from blockfit.cli.lab import needed_tools
from blockfit.errors import EnvironmentProblem


def _blockfit(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    empty = tmp_path / "empty-path"
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "PATH": str(empty), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "blockfit", *args], capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.mark.parametrize(("args", "package"), [
    (("calibrate", "{tmp}/target"), "apt-get install fio"),
    (("lab", "--cloud", "oci", "--layout", "2x50G@balanced", "--instance", "VM.Standard.E4.Flex:4"),
     "qemu-system-x86 busybox-static fio"),
    (("bench", "--dir", "{tmp}/target"), "apt-get install postgresql-contrib"),
])
def test_a_missing_tool_is_named_with_its_package_before_any_work(tmp_path: Path, args: tuple[str, ...],
                                                                  package: str) -> None:
    target = tmp_path / "target"
    target.mkdir()
    out = _blockfit(tmp_path, *(a.format(tmp=tmp_path) for a in args))
    assert out.returncode == 4, out.stderr
    assert out.stderr.count("\n") == 1 and "not found on PATH" in out.stderr and package in out.stderr
    assert list(target.iterdir()) == []  # no test file, no cluster directory
    assert not (tmp_path / "cache").exists()  # no lab work dir, no kernel download


def test_require_names_every_missing_tool_once_and_passes_when_present() -> None:
    tools.require("test", "sh")  # on every PATH
    with pytest.raises(EnvironmentProblem, match=r"^x: no-such-tool-a, no-such-tool-b not found on PATH"):
        tools.require("x", "no-such-tool-a", "no-such-tool-b", "no-such-tool-a")


def test_administration_tools_are_found_in_sbin_when_path_leaves_it_out(monkeypatch: pytest.MonkeyPatch) -> None:
    if not any(Path(d, "modprobe").exists() for d in ("/usr/sbin", "/sbin")):
        pytest.skip("kmod not installed")
    monkeypatch.setenv("PATH", "/nonexistent")
    assert tools.find("modprobe") is not None
    assert tools.find("fio") is None  # not an administration tool: PATH only


def test_the_lab_needs_the_manager_and_filesystem_it_builds() -> None:
    assert {"lvcreate", "mkfs.xfs"} <= set(needed_tools("lvm", "xfs", None, "single"))
    need = needed_tools("mdadm", "xfs", "oltp", "ext4")
    assert {"mdadm", "mkfs.xfs", "mkfs.ext4", "pgbench"} <= set(need) and "lvcreate" not in need
