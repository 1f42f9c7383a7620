"""emit/filesystem.py: mkfs aligned to the stripe."""

from __future__ import annotations

from blockfit.emit.filesystem import ext4_stride, mkfs_command
from blockfit.units import KIB, MIB


def test_mkfs_geometry():
    assert mkfs_command("xfs", "u01", 4 * MIB, 9) == ["mkfs.xfs", "-L", "u01", "-d", "su=4096k,sw=9"]
    assert mkfs_command("xfs", "u01", 4 * MIB, 1) == ["mkfs.xfs", "-L", "u01"]
    assert ext4_stride(256 * KIB) == 64
    assert mkfs_command("ext4", "u01", 256 * KIB, 4)[-2:] == ["-E", "stride=64,stripe_width=256"]
