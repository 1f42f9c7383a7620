"""Copies of a host's /sys, /proc and /dev as `blockfit inspect --root` reads them, shaped as the kernel lays them
out: the device under /sys/devices/…, /sys/class/block/NAME and /sys/dev/block/MAJ:MIN links to it, a SCSI disk's
`device` link to its H:C:T:L directory (vendor, model, vpd_pg80), an NVMe namespace's `device` link to its
controller (model, serial), dm and md devices under /sys/devices/virtual/block with slaves/ links."""

from __future__ import annotations

import os
from pathlib import Path

SECTOR = 512


class SysTree:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.sys = root / "sys"
        self.next_minor: dict[int, int] = {}
        self.mounts: list[str] = []
        for sub in ("class/block", "dev/block", "block"):
            (self.sys / sub).mkdir(parents=True, exist_ok=True)
        (root / "dev").mkdir(exist_ok=True)

    def _write(self, path: Path, text: str | bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text + "\n")

    def _link(self, link: Path, target: Path) -> None:
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(os.path.relpath(target, link.parent), link)

    def _block(self, real: Path, name: str, major: int, size_bytes: int, min_io: int = 512, opt_io: int = 0,
               queue: bool = True) -> str:
        minor = self.next_minor.get(major, 0)
        self.next_minor[major] = minor + (16 if major == 8 else 1)
        dev = f"{major}:{minor}"
        self._write(real / "dev", dev)
        self._write(real / "size", str(size_bytes // SECTOR))
        if queue:
            for attr, value in (("logical_block_size", 512), ("physical_block_size", 512),
                                ("minimum_io_size", min_io), ("optimal_io_size", opt_io), ("rotational", 0)):
                self._write(real / "queue" / attr, str(value))
            self._write(real / "queue" / "scheduler", "[none] mq-deadline")
        (real / "holders").mkdir(parents=True, exist_ok=True)
        (real / "slaves").mkdir(parents=True, exist_ok=True)
        self._link(self.sys / "class/block" / name, real)
        self._link(self.sys / "dev/block" / dev, real)
        if queue:
            self._link(self.sys / "block" / name, real)
        return dev

    def scsi_disk(self, name: str, size_bytes: int, vendor: str, model: str, serial: str | None = None,
                  hctl: str = "0:0:0:1", session: str | None = None) -> Path:
        host = f"host{hctl.split(':')[0]}"
        base = self.sys / "devices/pci0000:00/0000:00:05.0/virtio2" / host
        if session:
            base = base / session
        unit = base / f"target{hctl.rsplit(':', 1)[0]}" / hctl
        self._write(unit / "vendor", vendor.ljust(8))
        self._write(unit / "model", model.ljust(16))
        self._write(unit / "queue_depth", "32")
        if serial is not None:
            raw = serial.encode()
            self._write(unit / "vpd_pg80", bytes([0, 0x80, 0, len(raw)]) + raw)
        real = unit / "block" / name
        self._block(real, name, 8, size_bytes)
        self._link(real / "device", unit)
        return real

    def nvme_disk(self, name: str, size_bytes: int, model: str, serial: str) -> Path:
        ctrl_name = "nvme" + name[4:].split("n")[0]
        ctrl = self.sys / "devices/pci0000:00" / f"0000:00:1{ctrl_name[4:]}.0" / "nvme" / ctrl_name
        self._write(ctrl / "model", model.ljust(40))
        self._write(ctrl / "serial", serial.ljust(20))
        self._link(self.sys / "class/nvme" / ctrl_name, ctrl)
        real = ctrl / name
        self._block(real, name, 259, size_bytes)
        self._link(real / "device", ctrl)
        return real

    def partition(self, disk: Path, name: str, start: int, size_bytes: int) -> Path:
        real = disk / name
        self._block(real, name, 259 if name.startswith("nvme") else 8, size_bytes, queue=False)
        self._write(real / "partition", name[-1])
        self._write(real / "start", str(start))
        return real

    def _slaves(self, real: Path, members: list[Path]) -> None:
        for m in members:
            self._link(real / "slaves" / m.name, m)
            self._link(m / "holders" / real.name, real)

    def dm(self, name: str, dm_name: str, uuid: str, members: list[Path], size_bytes: int, min_io: int = 512,
           opt_io: int = 0) -> Path:
        real = self.sys / "devices/virtual/block" / name
        self._block(real, name, 253, size_bytes, min_io, opt_io)
        self._write(real / "dm/name", dm_name)
        self._write(real / "dm/uuid", uuid)
        self._slaves(real, members)
        return real

    def md(self, name: str, level: str, chunk: int, members: list[Path], size_bytes: int) -> Path:
        real = self.sys / "devices/virtual/block" / name
        self._block(real, name, 9, size_bytes, chunk, chunk * len(members))
        self._write(real / "md/level", level)
        self._write(real / "md/chunk_size", str(chunk))
        self._write(real / "md/raid_disks", str(len(members)))
        self._slaves(real, members)
        return real

    def dmi(self, **fields: str) -> None:
        for key, value in fields.items():
            self._write(self.sys / "class/dmi/id" / key, value)

    def link(self, path: str, target: str) -> None:
        """/dev/PATH -> TARGET, as udev writes it ('../../sdb')."""
        full = self.root / "dev" / path
        full.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, full)

    def iscsi_session(self, session: str, target: str, queue_depth: int | None = None) -> None:
        self._write(self.sys / "class/iscsi_session" / session / "targetname", target)
        if queue_depth is not None:
            self._write(self.root / "etc/iscsi/nodes" / target / "169.254.2.2,3260,1" / "default",
                        f"node.name = {target}\nnode.session.queue_depth = {queue_depth}\n")

    def mount(self, device: Path, mount_point: str, fstype: str = "xfs", options: str = "rw,noatime",
              super_options: str = "rw") -> None:
        dev = (device / "dev").read_text().strip()
        n = len(self.mounts) + 30
        self.mounts.append(f"{n} 1 {dev} / {mount_point} {options} shared:{n} - {fstype} /dev/{device.name} "
                           f"{super_options}")
        self._write(self.root / "proc/self/mountinfo", "\n".join(self.mounts))
