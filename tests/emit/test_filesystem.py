"""emit/filesystem.py: mkfs aligned to the stripe, and the fstab check that compares paths, not text."""

from __future__ import annotations

import subprocess

from blockfit.emit import build
from blockfit.emit.filesystem import ext4_stride, mkfs_command
from blockfit.units import KIB, MIB


def test_mkfs_geometry():
    assert mkfs_command("xfs", "u01", 4 * MIB, 9) == ["mkfs.xfs", "-L", "u01", "-d", "su=4096k,sw=9"]
    assert mkfs_command("xfs", "u01", 4 * MIB, 1) == ["mkfs.xfs", "-L", "u01"]
    assert ext4_stride(256 * KIB) == 64
    assert mkfs_command("ext4", "u01", 256 * KIB, 4)[-2:] == ["-E", "stride=64,stripe_width=256"]


def test_the_fstab_check_compares_paths_not_text(tmp_path):
    from support.build import make_layout, make_plan

    out = tmp_path / "o"
    result = build(make_plan(make_layout(members=2)), manager="lvm", devices=["/dev/sdc", "/dev/sdd"], out_dir=out,
                   mount="/u01/")
    assert result.mount == "/u01"
    script = (out / "40-filesystem.sh").read_text()
    assert "MOUNT=/u01\n" in script
    fstab = tmp_path / "fstab"
    fstab.write_text("UUID=a //u01/ xfs defaults 0 0\nUUID=b /u01/./ xfs defaults 0 0\nUUID=c /u010 xfs d 0 0\n"
                     "# UUID=d /u01 xfs d 0 0\nUUID=e / xfs d 0 0\n")
    (norm_line,) = [line for line in script.splitlines() if line.startswith("AWK_NORM=")]
    proc = subprocess.run(["bash", "-c", f"{norm_line}\nawk -v m=/u01 \"$AWK_NORM\"' !/^#/ && norm($2) == m "
                           "{ print $1 }' \"$1\"", "x", str(fstab)], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["UUID=a", "UUID=b"]
