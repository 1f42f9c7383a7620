"""The qemu command line and the qemu process.

Caps: each disk gets its own throttle-group (the cloud volume's limits) and a second throttle filter node
on top that names one shared throttle-group (the instance's limit for all volumes together). Two stacked
throttle nodes per disk is the only way to express both; ``-drive …,throttling.group=`` alone would make
every disk share one limit.

Paths: a volume reached through N paths (an OCI multipath iSCSI attachment) keeps that one chain
(file → volume throttle → instance throttle) and gets N guest devices, each on its own throttle node over
the chain (the path's cap), with share-rw=on so qemu lets several devices write through one image. The
guest puts dm-multipath over them. A node may have several parents (-blockdev: "file=node-name" names an
existing node); a guest device does not share write permission unless share-rw=on (qemu commit "block: Add
share-rw option", Kevin Wolf 2017, hw/block/block.c blkconf_apply_backend_options).

Disk files are opened with O_DIRECT and served by qemu's thread pool (aio=threads): with aio=native a
busy host disk can block io_submit in qemu's main loop, which also runs every throttle timer.

Identity: a disk with an NVMe identity is an NVMe controller of its own (EBS on Nitro shows each volume so),
serial = the volume ID; qemu 7.2 has no property for the controller's model number, which stays "QEMU NVMe
Ctrl". A SCSI disk is a scsi-hd on a virtio-scsi controller with the vendor, product, revision, serial and
address it is given. The throttle chain is the same on every bus: the device names the chain's top node. SMBIOS
strings (`-smbios type=1,manufacturer=…`) give the guest the DMI a provider's instances show. A comma inside a
qemu option value is written doubled.

The process: TCG (nested KVM fails on these hosts), started by ``blockfit.proc`` (stdin from /dev/null,
its own process group so a kill reaches everything it started, a parent-death signal so it cannot outlive
a killed blockfit); the caller enforces a hard timeout.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from blockfit import proc
from blockfit.errors import EnvironmentProblem
from blockfit.lab.disks import Disk, Throttle

QEMU = "qemu-system-x86_64"


@dataclass(frozen=True)
class VmConfig:
    vmlinux: Path
    initramfs: Path
    work_dir: Path  # shared read-write with the guest (at the same path)
    script: Path  # inside work_dir; PID 1 runs it in the chroot
    disks: list[Disk]
    instance: Throttle | None
    console_log: Path
    cpus: int = 2
    memory_mib: int = 1024
    name: str = "blockfit-lab"
    extra_append: list[str] = field(default_factory=list)
    qmp_socket: Path | None = None  # a QMP monitor here lets the host change the caps while the guest runs
    smbios: list[str] = field(default_factory=list)  # -smbios values (DMI tables), e.g. "type=1,manufacturer=…"


def _throttle_object(t: Throttle) -> list[str]:
    """A qemu throttle group with the limits it has (a limit of 0 or None is left out: no limit)."""
    limits = {"x-iops-total": t.iops, "x-bps-total": t.bps, "x-iops-size": t.iops_size,
              # a bucket of max x 1 s: with a burst length of 1, qemu checks no burst rate beside the average
              "x-iops-total-max": t.iops * t.bucket_s if t.iops and t.bucket_s else None}
    return ["-object", ",".join([f"throttle-group,id={t.name}", *(f"{k}={v}" for k, v in limits.items() if v)])]


def command(cfg: VmConfig) -> list[str]:
    """The full qemu argv for CFG."""
    append = ["console=ttyS0", "quiet", "panic=-1", f"blockfit.script={cfg.script}",
              f"blockfit.work={cfg.work_dir}", *cfg.extra_append]
    argv = [QEMU, "-name", cfg.name, "-accel", "tcg,thread=multi", "-cpu", "max",
            "-smp", str(cfg.cpus), "-m", str(cfg.memory_mib),
            "-nodefaults", "-display", "none", "-no-reboot", "-serial", f"file:{cfg.console_log}",
            "-kernel", str(cfg.vmlinux), "-initrd", str(cfg.initramfs), "-append", " ".join(append),
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
            "-virtfs", f"local,path={cfg.work_dir},mount_tag=work,security_model=none,multidevs=remap"]
    if cfg.qmp_socket is not None:
        argv += ["-qmp", f"unix:{cfg.qmp_socket},server=on,wait=off"]
    for table in cfg.smbios:
        argv += ["-smbios", table]
    if cfg.instance is not None:
        argv += _throttle_object(cfg.instance)
    for c in sorted({d.identity.controller for d in cfg.disks if d.identity.bus == "scsi"}):
        argv += ["-device", f"virtio-scsi-pci,id=scsi{c}"]
    for i, d in enumerate(cfg.disks):
        node = f"d{i}"
        argv += ["-blockdev", f"driver=file,node-name={node}f,filename={d.path},cache.direct=on,aio=threads",
                 "-blockdev", f"driver=raw,node-name={node}r,file={node}f"]
        top = f"{node}r"
        if d.throttle is not None:  # the volume's own cap
            argv += _throttle_object(d.throttle)
            argv += ["-blockdev", f"driver=throttle,node-name={node}v,throttle-group={d.throttle.name},file={top}"]
            top = f"{node}v"
        if cfg.instance is not None:  # the instance cap, shared by every disk
            argv += ["-blockdev", f"driver=throttle,node-name={node}i,throttle-group={cfg.instance.name},file={top}"]
            top = f"{node}i"
        argv += _devices(d, node, top)
    return argv


def qemu_value(text: str) -> str:
    """TEXT as a qemu option value: a comma is written doubled (a single one would start the next option)."""
    return text.replace(",", ",,")


def _device(d: Disk, top: str) -> str:
    """The -device value of a disk with one path: virtio-blk, an NVMe controller, or a SCSI disk, by its identity."""
    ident = d.identity
    serial = qemu_value(d.serial)
    if ident.bus == "nvme":
        return f"nvme,drive={top},serial={serial}"
    if ident.bus == "scsi":
        props = [f"scsi-hd,drive={top},bus=scsi{ident.controller}.0,channel=0,scsi-id={ident.target},lun={ident.lun}",
                 f"serial={serial}"]
        props += [f"{name}={qemu_value(value)}" for name, value in
                  (("vendor", ident.vendor), ("product", ident.product), ("ver", ident.revision)) if value is not None]
        return ",".join(props)
    return f"virtio-blk-pci,drive={top},serial={serial}"


def _devices(d: Disk, node: str, top: str) -> list[str]:
    """The guest device(s) on top of a disk's chain: one, or one per path over a per-path throttle node."""
    if d.path_throttle is None:
        return ["-device", _device(d, top)]
    argv: list[str] = []
    for k, (serial, group) in enumerate(zip(d.path_serials(), d.path_groups(), strict=True), start=1):
        argv += _throttle_object(group)
        argv += ["-blockdev", f"driver=throttle,node-name={node}p{k},throttle-group={group.name},file={top}",
                 "-device", f"virtio-blk-pci,drive={node}p{k},serial={serial},share-rw=on"]
    return argv


class QemuProcess:
    """One qemu run: started in its own process group; ``stop`` kills the group and reaps it."""

    def __init__(self, cfg: VmConfig, log: Path) -> None:
        if not shutil.which(QEMU):
            raise EnvironmentProblem(f"lab: {QEMU} not found (install qemu-system-x86)")
        self.cfg = cfg
        self.argv = command(cfg)
        self._log = open(log, "wb")
        self.proc = proc.start(self.argv, stdout=self._log, stderr=subprocess.STDOUT)
        self.started = time.monotonic()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def poll(self) -> int | None:
        return self.proc.poll()

    def stop(self, grace_s: float = 3.0) -> None:
        """Stop the whole process group (TERM, then KILL; strays of an exited qemu too); always reap."""
        try:
            proc.stop_group(self.proc, grace_s)
        finally:
            self._log.close()
