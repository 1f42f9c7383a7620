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


GIB = 1024 ** 3


def aws_host(root: Path, members: int = 2, model: str = "Amazon Elastic Block Store",
             product_name: str = "m5.12xlarge") -> SysTree:
    """An AWS Nitro host: DMI vendor 'Amazon EC2', EBS volumes as NVMe namespaces, an LVM stripe under /u01."""
    t = SysTree(root)
    t.dmi(sys_vendor="Amazon EC2", product_name=product_name)
    disks = [t.nvme_disk(f"nvme{i + 1}n1", 500 * GIB, model, f"vol0123456789abcdef{i}") for i in range(members)]
    lv = t.dm("dm-0", "data-u01", "LVM-" + "a" * 64, disks, members * 500 * GIB, 65536, 65536 * members)
    t.mount(lv, "/u01", super_options="rw,sunit=128,swidth=256")
    return t


def aws_volumes(members: int = 2, extra: bool = False) -> dict[str, object]:
    vols: list[dict[str, object]] = [{"VolumeId": f"vol-0123456789abcdef{i}", "Size": 500, "VolumeType": "gp3",
                                      "Iops": 3000, "Throughput": 125, "State": "in-use"} for i in range(members)]
    if extra:
        vols.append({"VolumeId": "vol-0fedcba9876543210", "Size": 50, "VolumeType": "gp2", "Iops": 150})
    return {"Volumes": vols}


def azure_host(root: Path, members: int = 4) -> SysTree:
    """An Azure host: DMI asset tag, the OS disk at LUN 0 of one controller, data disks (vendor Msft) at LUN 1..N of
    another, an md raid0 of them under /u02."""
    t = SysTree(root)
    t.dmi(sys_vendor="Microsoft Corporation", product_name="Virtual Machine",
          chassis_asset_tag="7783-7084-3265-9085-8269-3286-77")
    t.scsi_disk("sda", 30 * GIB, "Msft", "Virtual Disk", hctl="0:0:0:0")
    disks = [t.scsi_disk(f"sd{chr(ord('c') + i)}", 1024 * GIB, "Msft", "Virtual Disk", hctl=f"1:0:0:{i + 1}")
             for i in range(members)]
    md = t.md("md0", "raid0", 262144, disks, members * 1024 * GIB)
    t.mount(md, "/u02")
    return t


def azure_vm(members: int = 4) -> dict[str, object]:
    return {"name": "db1", "storageProfile": {"osDisk": {"name": "os"}, "dataDisks": [
        {"lun": i + 1, "name": f"db1-data{i}", "diskSizeGb": 1024,
         "managedDisk": {"storageAccountType": "PremiumV2_LRS", "id": f"/subscriptions/x/disks/db1-data{i}"},
         "diskIOPSReadWrite": 5000, "diskMBpsReadWrite": 200} for i in range(members)]}}


def gcp_host(root: Path, members: int = 2) -> SysTree:
    """A GCP host: DMI 'Google', Persistent Disks as SCSI vendor Google whose serial is the device name."""
    t = SysTree(root)
    t.dmi(sys_vendor="Google", product_name="Google Compute Engine")
    disks = [t.scsi_disk(f"sd{chr(ord('b') + i)}", 1024 * GIB, "Google", "PersistentDisk", serial=f"data-{i}",
                         hctl=f"0:0:{i + 1}:0") for i in range(members)]
    lv = t.dm("dm-0", "data-u01", "LVM-" + "b" * 64, disks, members * 1024 * GIB, 1048576, 1048576 * members)
    t.mount(lv, "/u01")
    return t


def gcp_disks(members: int = 2) -> list[dict[str, object]]:
    return [{"kind": "compute#disk", "name": f"data-{i}", "sizeGb": "1024",
             "type": "https://www.googleapis.com/compute/v1/projects/p/zones/z/diskTypes/hyperdisk-balanced",
             "provisionedIops": "6000", "provisionedThroughput": "290"} for i in range(members)]


def oci_host(root: Path, members: int = 2, queue_depth: int = 128) -> SysTree:
    """An OCI host: DMI asset tag 'OracleCloud.com', iSCSI-attached block volumes (vendor ORACLE) in sessions with
    node records, an LVM stripe under /u01."""
    t = SysTree(root)
    t.dmi(sys_vendor="QEMU", chassis_asset_tag="OracleCloud.com")
    disks = []
    for i in range(members):
        session = f"session{i + 1}"
        iqn = f"iqn.2015-12.com.oracleiaas:0000000{i}-aaaa-bbbb-cccc-dddddddddddd"
        t.iscsi_session(session, iqn, queue_depth)
        disks.append(t.scsi_disk(f"sd{chr(ord('b') + i)}", 500 * GIB, "ORACLE", "BlockVolume", hctl=f"{i + 3}:0:0:1",
                                 session=session))
    lv = t.dm("dm-0", "data-u01", "LVM-" + "c" * 64, disks, members * 500 * GIB, 1048576, 1048576 * members)
    t.mount(lv, "/u01")
    return t


def oci_files(members: int = 2) -> tuple[dict[str, object], dict[str, object]]:
    volumes = {"data": [{"id": f"ocid1.volume.oc1.iad.v{i}", "display-name": f"data{i}", "size-in-gbs": 500,
                         "vpus-per-gb": 20, "lifecycle-state": "AVAILABLE"} for i in range(members)]}
    attachments = {"data": [{"volume-id": f"ocid1.volume.oc1.iad.v{i}", "attachment-type": "iscsi",
                             "iqn": f"iqn.2015-12.com.oracleiaas:0000000{i}-aaaa-bbbb-cccc-dddddddddddd",
                             "device": f"/dev/oracleoci/oraclevd{chr(ord('b') + i)}",
                             "lifecycle-state": "ATTACHED"} for i in range(members)]}
    return volumes, attachments
