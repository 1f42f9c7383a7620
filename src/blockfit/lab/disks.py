"""The guest's virtual disks: sparse raw files on the host, one per plan member plus the single volume.

Sparse files cost no space until written, and reading a hole costs the host almost nothing, so the
emulated volume's speed is set by its throttle alone. Sizes are scaled too: one cloud GB becomes
MIB_PER_GB MiB (clamped), which keeps the stripe and the single volume in proportion for small plans.
The floor is 512 MiB: xfsprogs 6.1 refuses a striped XFS of 2 x 256 MiB ("Log size must be at least
64MB" once a 4 MiB stripe unit is set), so a 2-member stripe needs 1 GiB.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

from blockfit.units import MIB

MIB_PER_GB = 1
MIN_DISK_MIB = 512
MAX_DISK_MIB = 16 * 1024


@dataclass(frozen=True)
class Throttle:
    """A qemu throttle-group: a rate cap on the I/O of every disk that names it."""

    name: str
    iops: int | None
    bps: int | None
    iops_size: int | None = None  # I/Os bigger than this count as several ops (AWS's 256 KiB accounting)

    def renamed(self, name: str) -> Throttle:
        """The same caps as another group (each volume, each path has a group of its own)."""
        return dataclasses.replace(self, name=name)


@dataclass(frozen=True)
class Disk:
    """One emulated volume. With a path throttle it is reached through PATHS guest devices (serials
    SERIAL-p1 … SERIAL-pN), each capped by its own throttle group, as an iSCSI volume is reached through
    its sessions; without one it is a single device named SERIAL."""

    serial: str  # how the guest finds it: /sys/block/vdX/serial (virtio allows 20 characters)
    path: Path
    size_bytes: int
    throttle: Throttle | None
    paths: int = 1
    path_throttle: Throttle | None = None  # the cap of each path (its name gets the path number appended)

    @property
    def multipath(self) -> bool:
        return self.path_throttle is not None

    def path_serials(self) -> list[str]:
        """The guest serial of each device this volume shows as (one unless it is reached through paths)."""
        return [f"{self.serial}-p{k}" for k in range(1, self.paths + 1)] if self.multipath else [self.serial]

    def path_groups(self) -> list[Throttle]:
        """One throttle group per path (the path cap, its name numbered), in path order; none without paths."""
        t = self.path_throttle
        if t is None:
            return []
        return [t.renamed(f"{t.name}_{k}") for k in range(1, self.paths + 1)]


def disk_bytes(size_gb: float) -> int:
    mib = min(MAX_DISK_MIB, max(MIN_DISK_MIB, round(size_gb * MIB_PER_GB)))
    return int(mib) * MIB


def create(disks: list[Disk]) -> None:
    """Create each disk file fresh and sparse (truncate, never write)."""
    for d in disks:
        for serial in d.path_serials():
            if len(serial) > 20:
                raise ValueError(f"virtio serial {serial!r} is longer than 20 characters")
        with open(d.path, "wb") as fh:
            fh.truncate(d.size_bytes)


def remove(disks: list[Disk]) -> None:
    for d in disks:
        try:
            os.unlink(d.path)
        except FileNotFoundError:
            pass
