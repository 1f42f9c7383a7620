"""The mountinfo reader: options that matter to latency, octal unescaping, and fuzzing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blockfit.devices import mountinfo

MOUNTINFO = """27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict
42 27 7:0 / /tmp/a\\040b rw,noatime - ext4 /dev/loop0 rw,nobarrier
43 27 7:1 / /data rw,relatime shared:5 - ext4 /dev/loop1 rw,data=writeback
44 27 253:2 / /u01 rw,noatime - xfs /dev/mapper/vg-lv rw,attr2,inode64,sunit=1024,swidth=4096
"""


def test_mountinfo_options() -> None:
    ms = mountinfo.parse(MOUNTINFO)
    assert [m.barriers for m in ms] == [True, False, True, True]
    assert ms[1].mount_point == "/tmp/a b" and ms[1].atime == "noatime"
    assert ms[2].data_mode == "writeback" and ms[2].atime == "relatime"
    assert ms[3].option("sunit") == "1024"
    assert mountinfo.read()  # this host's own table parses


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_fuzz_mountinfo(text: str) -> None:
    try:
        mountinfo.parse(text, "fuzz")
    except mountinfo.MountError as exc:
        assert "fuzz line " in str(exc)


def _kernel_escape(text: str) -> str:
    """How the kernel writes a path in mountinfo (fs/proc_namespace.c mangle: space, tab, newline, backslash)."""
    return "".join(f"\\{ord(c):03o}" if c in " \t\n\\" else c for c in text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab/ \t\n\\0123789"), max_size=40))
def test_any_path_the_kernel_escapes_reads_back(path: str) -> None:
    assert mountinfo.unescape(_kernel_escape(path)) == path


def test_a_backslash_without_three_octal_digits_is_kept() -> None:
    """Before: '\\089' raised ValueError from int('089', 8), and '\\12' at the end became a newline."""
    assert mountinfo.unescape("/mnt/a\\089") == "/mnt/a\\089"
    assert mountinfo.unescape("/mnt/a\\12") == "/mnt/a\\12"
    assert mountinfo.unescape("/mnt/\\011tab\\134") == "/mnt/\ttab\\"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to mount a tmpfs")
def test_a_real_mount_point_with_a_tab_and_a_backslash(tmp_path: Path) -> None:
    point = tmp_path / "a\tb\\c d"
    point.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "blockfit-test", str(point)], capture_output=True).returncode:
        pytest.skip("mount refused here")
    try:
        found = [m for m in mountinfo.read() if m.source == "blockfit-test"]
    finally:
        subprocess.run(["umount", str(point)], check=True)
    assert [(m.mount_point, m.fstype) for m in found] == [(str(point), "tmpfs")]
