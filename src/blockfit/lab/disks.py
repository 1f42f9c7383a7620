"""The guest's virtual disks: sparse raw files on the host, one per plan member plus the single volume.

Sparse files cost no space until written, and reading a hole costs the host almost nothing, so the
emulated volume's speed is set by its throttle alone. Sizes are scaled too: one cloud GB becomes
MIB_PER_GB MiB (clamped), which keeps the stripe and the single volume in proportion for small plans.
The floor is 512 MiB: xfsprogs 6.1 refuses a striped XFS of 2 x 256 MiB ("Log size must be at least
64MB" once a 4 MiB stripe unit is set), so a 2-member stripe needs 1 GiB.

Identity: a disk is a virtio-blk device unless it is given the bus and the strings a cloud shows its volumes
with (an NVMe controller of its own with the volume ID as serial, as EBS on Nitro; a SCSI disk with the
provider's vendor, product, serial and address, as Azure, GCP and OCI attach theirs over virtio-scsi).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

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
    # whole seconds of its IOPS the group may bank (None: qemu's own bucket, a tenth of a second). A tenth loses
    # credit under random I/O over several members (one member's bucket fills while another's waits), which a
    # cap enforced per second, as the clouds state theirs, does not
    bucket_s: int | None = None

    def renamed(self, name: str) -> Throttle:
        """The same caps as another group (each volume, each path has a group of its own)."""
        return dataclasses.replace(self, name=name)


Bus = Literal["virtio", "nvme", "scsi"]
# the longest serial the guest sees whole: qemu 7.2 cuts a longer one (virtio, NVMe) without a word
SERIAL_LIMIT: dict[Bus, int] = {"virtio": 20, "nvme": 20, "scsi": 36}


@dataclass(frozen=True)
class Identity:
    """How the guest sees a disk: its bus and, on SCSI, the INQUIRY strings and address qemu gives it.

    CONTROLLER numbers the virtio-scsi controller the disk sits on (OCI gives each volume one of its own, Azure and
    GCP put all data disks on one); TARGET and LUN are its SCSI address there (Azure: target 0, LUN = the
    attachment's LUN; GCP: a target per disk, LUN 0; OCI: target 1, LUN 1).
    """

    bus: Bus = "virtio"
    vendor: str | None = None  # SCSI INQUIRY vendor, at most 8 characters
    product: str | None = None  # SCSI INQUIRY product, at most 16 characters
    revision: str | None = None  # SCSI INQUIRY revision, at most 4 characters
    controller: int = 0
    target: int = 0
    lun: int = 0

    def problems(self) -> list[str]:
        """What qemu would cut or misplace in this identity (it cuts a long INQUIRY string without a word), one
        line each; nothing: it is fine."""
        out = []
        for what, value, most in (("vendor", self.vendor, 8), ("product", self.product, 16),
                                  ("revision", self.revision, 4)):
            if value is not None and (self.bus != "scsi" or len(value) > most or not value.isprintable()):
                out.append(f"SCSI {what} {value!r}: at most {most} printable characters, on a SCSI disk only")
        return out


VIRTIO = Identity()


@dataclass(frozen=True)
class Disk:
    """One emulated volume. With a path throttle it is reached through PATHS guest devices (serials
    SERIAL-p1 … SERIAL-pN), each capped by its own throttle group, as an iSCSI volume is reached through
    its sessions; without one it is a single device named SERIAL."""

    serial: str  # /sys/block/vdX/serial, the NVMe controller's serial, or the SCSI unit serial (VPD page 0x80)
    path: Path
    size_bytes: int
    throttle: Throttle | None
    paths: int = 1
    path_throttle: Throttle | None = None  # the cap of each path (its name gets the path number appended)
    identity: Identity = VIRTIO

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
        most = SERIAL_LIMIT[d.identity.bus]
        for serial in d.path_serials():
            if len(serial) > most:
                raise ValueError(f"{d.identity.bus} serial {serial!r} is longer than {most} characters")
        if d.multipath and d.identity.bus != "virtio":
            raise ValueError(f"disk {d.serial}: paths are emulated on virtio-blk only")
        for problem in d.identity.problems():
            raise ValueError(f"disk {d.serial}: {problem}")
        with open(d.path, "wb") as fh:
            fh.truncate(d.size_bytes)


def remove(disks: list[Disk]) -> None:
    for d in disks:
        try:
            os.unlink(d.path)
        except FileNotFoundError:
            pass
