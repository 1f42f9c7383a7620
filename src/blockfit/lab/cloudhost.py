"""One lab guest that looks like a cloud host: its volumes carry the provider's identity (lab.clouds), `blockfit
build` writes the stripe's scripts on the host for the stable names the guest gives them, the guest runs them,
writes what its sysfs shows (sysfs.json), and can run `blockfit inspect` there, its stdout brought back in the
shared work dir as the lab brings fio's results back.

No fio and no scale fitting: the disks carry the model's caps at scale 1 (each volume's, and the instance's over
all of them) through the same throttle chain the measuring lab uses.
"""

from __future__ import annotations

import json
import resource
import shlex
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blockfit.errors import LabFailed
from blockfit.lab.buildscripts import builder, plan_for, write_build_scripts
from blockfit.lab.clouds import CloudName, CloudVolume, smbios, volumes
from blockfit.lab.disks import create, remove
from blockfit.lab.guest import GuestOutcome, run_script
from blockfit.lab.initramfs import CLOUD_HOST_MODULES
from blockfit.lab.kernel import GuestKernel
from blockfit.lab.render import render
from blockfit.lab.scale import Scale, instance_throttle, member_throttle
from blockfit.lab.subject import Subject
from blockfit.units import GIB

SYSFS_LIMIT = 1 << 20  # sysfs.json of a few disks is a few KiB; more means something wrote garbage


@dataclass
class CloudHostRun:
    """What one guest left: the volumes it had, its sysfs as JSON, inspect's stdout (when it ran), how long, and the
    emulator's CPU seconds (user + system: what the guest costs whatever the host's load)."""

    volumes: list[CloudVolume]
    sysfs: dict[str, Any]
    inspect: str | None
    outcome: GuestOutcome
    wall_s: float
    cpu_s: float


def _children_cpu_s() -> float:
    """CPU seconds of this process's reaped children (qemu is reaped when the run ends)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def compile_installation() -> None:
    """Byte-compile this blockfit's modules on the host (a no-op when they are fresh): the guest imports them over
    9p and would otherwise compile every module under TCG at each boot, into its tmpfs, for `blockfit inspect`
    (8 of the GCP guest's 53 s of emulator CPU). An installation the host cannot write to is left as it is."""
    import compileall

    import blockfit

    compileall.compile_dir(Path(blockfit.__file__).parent, quiet=2)


def _key(v: CloudVolume) -> str:
    """How the guest script finds V's disk: by NVMe serial, by SCSI LUN (Azure), or by SCSI unit serial."""
    if v.disk.identity.bus == "nvme":
        return f"nvme:{v.disk.serial}"
    if v.lun is not None:
        return f"lun:{v.lun}"
    return f"scsi:{v.disk.serial}"


def script(cloud: CloudName, work: Path, vols: Sequence[CloudVolume], manager: str, mount: str,
           inspect: Sequence[str] | None) -> str:
    """The guest script (cloudhost.sh.j2): every value that reaches bash quoted."""
    rows = [{"key": shlex.quote(_key(v)), "link": shlex.quote(v.link)} for v in vols]
    dirs = sorted({shlex.quote(str(Path(v.link).parent)) for v in vols})
    return render("cloudhost.sh.j2", cloud=cloud, work=shlex.quote(str(work)), volumes=rows, link_dirs=dirs,
                  manager=manager, mount=shlex.quote(mount), modules=CLOUD_HOST_MODULES,
                  inspect=shlex.join(inspect) if inspect else None)


def cloud_volumes(cloud: CloudName, subject: Subject, work: Path) -> list[CloudVolume]:
    """SUBJECT's stripe members as CLOUD attaches them, each capped by the model's per-volume caps at scale 1 (a
    cap under the emulator's own speed, as Azure P2's 120 IOPS, slows the build as it would the real volume)."""
    return volumes(cloud, subject.layout.members, int(subject.layout.volume.size_gb * GIB), work,
                   member_throttle(subject.stripe, Scale.one(1.0), "vol"))


def run_cloud_host(kernel: GuestKernel, work: Path, cloud: CloudName, subject: Subject, vols: list[CloudVolume],
                   manager: str, fs: str, mount: str, instance_id: str, inspect: Sequence[str] | None = None,
                   timeout_s: float = 600) -> CloudHostRun:
    """Boot one guest that looks like a CLOUD host (VOLS, from cloud_volumes) with SUBJECT's stripe built on it by
    the blockfit build scripts; INSPECT (an argv) runs in the guest after the build, with the provider files the
    caller wrote. The disk files are removed whatever happens."""
    exe = builder()
    if exe is None:
        raise LabFailed("lab: this installation has no `blockfit build`, which a cloud host guest needs")
    write_build_scripts(exe, work, plan_for(subject).model_dump_json(), manager, fs, [v.link for v in vols],
                        mount=mount)
    if inspect:
        compile_installation()
    disks = [v.disk for v in vols]
    create(disks)
    started, before = time.monotonic(), _children_cpu_s()
    try:
        outcome = run_script(kernel, work, script(cloud, work, vols, manager, mount, inspect), disks,
                             instance_throttle(subject.stripe, Scale.one(1.0)), timeout_s=timeout_s,
                             smbios=smbios(cloud, subject.instance.shape, instance_id))
    finally:
        remove(disks)
    wall, cpu = time.monotonic() - started, _children_cpu_s() - before
    if not outcome.ok:
        log = outcome.script_log.read_text(errors="replace")[-1500:] if outcome.script_log.exists() else ""
        raise LabFailed(f"lab: the {cloud} guest failed: {outcome.failure}\n{log}\n{outcome.console_tail()}")
    sysfs = json.loads((work / "sysfs.json").read_bytes()[:SYSFS_LIMIT])
    out = work / "inspect.json"
    return CloudHostRun(volumes=vols, sysfs=sysfs, inspect=out.read_text() if inspect and out.exists() else None,
                        outcome=outcome, wall_s=wall, cpu_s=cpu)
