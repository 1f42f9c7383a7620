"""What a disk says of itself in sysfs: vendor, model, serial, its SCSI address and how it is attached.

SCSI disks (sd*) carry `device/vendor`, `device/model` (padded with spaces) and their unit serial number in the
binary VPD page 0x80 (`device/vpd_pg80`: 4 header bytes, then the serial); the SCSI address H:C:T:L is the name of
the directory `device` points at. NVMe namespaces (nvme*n*) take `device/model` and `device/serial` from their
controller (or, under native NVMe multipath, their subsystem), as `/sys/class/nvme/nvmeN/` shows them too.
virtio-blk disks have a `serial` of their own. No device node is opened: every figure is a sysfs attribute.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from pydantic import BaseModel, Field

from blockfit.devices.sysfs import read_int, read_text

_HCTL = re.compile(r"\d+:\d+:\d+:\d+")
_NVME_NAMESPACE = re.compile(r"nvme(\d+)(?:c\d+)?n\d+")
VPD_MAX = 4096  # a VPD page is at most 4 + 255 bytes for page 0x80; read no more than this


class DiskHardware(BaseModel):
    """The identity attributes of one whole disk, as sysfs shows them (None where it shows none)."""

    vendor: str | None = None
    model: str | None = None
    serial: str | None = None
    wwid: str | None = None
    hctl: str | None = Field(default=None, description="SCSI address host:channel:target:lun")
    transport: str | None = Field(default=None, description="nvme | scsi | iscsi | virtio | xen | loop | None")
    nvme_controller: str | None = Field(default=None, description="nvmeN of an NVMe namespace")

    @property
    def lun(self) -> int | None:
        return int(self.hctl.rsplit(":", 1)[1]) if self.hctl else None


def clean(text: str | None) -> str | None:
    """An attribute with its padding and NULs dropped; None when nothing is left."""
    if text is None:
        return None
    text = text.replace("\0", "").strip()
    return text or None


def vpd_serial(path: Path) -> str | None:
    """The unit serial number of a SCSI VPD page 0x80 file; None when absent or malformed."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(VPD_MAX)
    except OSError:
        return None
    if len(data) < 4 or data[1] != 0x80:
        return None
    length = int.from_bytes(data[2:4], "big")
    return clean(data[4:4 + length].decode("ascii", errors="replace"))


def _transport(name: str, real: str, hctl: str | None) -> str | None:
    parts = Path(real).parts
    if name.startswith("loop"):
        return "loop"
    if _NVME_NAMESPACE.fullmatch(name):
        return "nvme"
    if any(p.startswith("session") and p[7:].isdigit() for p in parts):
        return "iscsi"
    if hctl is not None:
        return "scsi"
    if name.startswith("vd") or any(p.startswith("virtio") for p in parts):
        return "virtio"
    if name.startswith("xvd"):
        return "xen"
    return None


def _nvme(name: str, dev_dir: Path, sys_root: Path, hw: DiskHardware) -> None:
    m = _NVME_NAMESPACE.fullmatch(name)
    controller = f"nvme{m.group(1)}" if m else None
    hw.nvme_controller = controller
    own = dev_dir / "device"
    ctrl = sys_root / "class" / "nvme" / controller if controller else own
    hw.model = clean(read_text(own / "model")) or clean(read_text(ctrl / "model"))
    hw.serial = clean(read_text(own / "serial")) or clean(read_text(ctrl / "serial"))
    hw.wwid = clean(read_text(dev_dir / "wwid"))


def read_hardware(name: str, sys_root: Path) -> DiskHardware:
    """The identity attributes of whole disk NAME under SYS_ROOT (a partition has none of its own)."""
    dev_dir = sys_root / "class" / "block" / name
    try:
        real = os.path.realpath(dev_dir)
        device_real = os.path.realpath(dev_dir / "device") if (dev_dir / "device").exists() else ""
    except OSError:
        real, device_real = str(dev_dir), ""
    base = os.path.basename(device_real)
    hctl = base if _HCTL.fullmatch(base) else None
    hw = DiskHardware(hctl=hctl, transport=_transport(name, real, hctl))
    if hw.transport == "nvme":
        _nvme(name, dev_dir, sys_root, hw)
        return hw
    device = dev_dir / "device"
    if hw.transport in ("scsi", "iscsi"):   # virtio's device/vendor is its PCI vendor number, not a name
        hw.vendor = clean(read_text(device / "vendor"))
        hw.model = clean(read_text(device / "model"))
    hw.serial = vpd_serial(device / "vpd_pg80") or clean(read_text(dev_dir / "serial")) \
        or clean(read_text(device / "serial"))
    hw.wwid = clean(read_text(device / "wwid")) or clean(read_text(dev_dir / "wwid"))
    return hw


def raid_disks(name: str, sys_root: Path) -> int | None:
    """md/raid_disks of an md array: the members it is built for (a degraded array lists fewer slaves)."""
    return read_int(sys_root / "class" / "block" / name / "md" / "raid_disks")
