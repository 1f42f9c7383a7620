"""The guest's disk images: their sizes."""

from __future__ import annotations

from blockfit.lab.disks import disk_bytes


def test_disk_sizes_are_clamped() -> None:
    assert disk_bytes(1) == 512 << 20
    assert disk_bytes(600) == 600 << 20
    assert disk_bytes(10**6) == 16 << 30
