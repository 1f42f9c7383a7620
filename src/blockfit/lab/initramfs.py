"""The guest's initramfs: static busybox as PID 1 plus the few modules needed to reach the host root.

Module load order comes from the host's kmod run against the unpacked tree (``modprobe -d TREE
--show-depends``), so it follows the guest kernel's own dependency data, not a hand-kept list. The
archive is written here in cpio "newc" format (no cpio binary, no root needed for /dev/console) and
cached next to the kernel, keyed by a hash of everything that goes into it.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

from blockfit import proc
from blockfit.errors import EnvironmentProblem
from blockfit.lab.cache import locked
from blockfit.lab.kernel import GuestKernel
from blockfit.lab.render import render

# Needed before the chroot: the PCI transport, the disks, 9p for the host root, overlay for a writable root.
EARLY_MODULES = ("virtio_pci", "virtio_blk", "9pnet_virtio", "9p", "overlay")
# Loaded with the host's modprobe inside the chroot, once /lib/modules is bound: what the lab scripts use. (A guest
# that looks like a cloud host loads the NVMe and SCSI drivers itself, CLOUD_HOST_MODULES: every other boot would pay
# for nine modules it never uses.)
LATE_MODULES = ("dm_mod", "dm_mirror", "raid0", "raid1", "xfs", "ext4")
# In Debian's kernel as modules (CONFIG_BLK_DEV_NVME=m, CONFIG_SCSI_VIRTIO=m, CONFIG_BLK_DEV_SD=m); modprobe brings
# nvme_core, scsi_mod, scsi_common, t10_pi and the CRCs they need.
CLOUD_HOST_MODULES = ("nvme", "virtio_scsi", "sd_mod")
MSIZE = 512 * 1024
BUSYBOX_CANDIDATES = ("/bin/busybox", "/usr/bin/busybox")

def module_order(kernel: GuestKernel, names: tuple[str, ...] = EARLY_MODULES) -> list[Path]:
    """Module files to insmod, dependencies first, each once."""
    seen: dict[Path, None] = {}
    for name in names:
        out = proc.run(["modprobe", "-d", str(kernel.root), "-S", kernel.version, "--show-depends", name],
                       timeout=60)
        if out.returncode != 0:
            raise EnvironmentProblem(f"lab: module {name} not found in the guest kernel: {out.stderr.strip()}")
        for line in out.stdout.splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] == "insmod":
                seen.setdefault(Path(parts[1]), None)
    return list(seen)


def render_init(kernel: GuestKernel, modules: list[Path]) -> str:
    return render(
        "init.sh.j2",
        early_modules=[m.name for m in modules], late_modules=LATE_MODULES, version=kernel.version,
        modules_dir=str(kernel.modules_dir), msize=MSIZE)


def busybox_path() -> Path:
    for candidate in BUSYBOX_CANDIDATES:
        if os.path.isfile(candidate):
            return Path(candidate)
    raise EnvironmentProblem("lab: busybox not found (install busybox-static)")


def ensure_initramfs(kernel: GuestKernel) -> Path:
    """Build (once per distinct content) and return the gzipped initramfs for KERNEL."""
    modules = module_order(kernel)
    init = render_init(kernel, modules).encode()
    busybox = busybox_path().read_bytes()
    digest = hashlib.sha256(init + busybox + b"".join(m.read_bytes() for m in modules)).hexdigest()[:16]
    out = kernel.root.parent / f"initramfs-{digest}.cpio.gz"
    if out.is_file():
        return out
    with locked(kernel.root.parent / "initramfs.lock"):
        if out.is_file():
            return out
        entries: list[tuple[str, int, bytes, int]] = [
            (d, 0o040755, b"", 0) for d in ("bin", "dev", "proc", "sys", "lower", "upper", "newroot", "early")]
        entries.append(("dev/console", 0o020600, b"", os.makedev(5, 1)))
        entries.append(("init", 0o100755, init, 0))
        entries.append(("bin/busybox", 0o100755, busybox, 0))
        entries += [(f"early/{m.name}", 0o100644, m.read_bytes(), 0) for m in modules]
        tmp = out.with_suffix(".tmp")
        with gzip.open(tmp, "wb", compresslevel=1) as fh:
            fh.write(newc_archive(entries))
        os.replace(tmp, out)
        for old in kernel.root.parent.glob("initramfs-*.cpio.gz"):
            if old != out:
                old.unlink(missing_ok=True)
    return out


def newc_archive(entries: list[tuple[str, int, bytes, int]]) -> bytes:
    """A cpio 'newc' archive of (name, mode, data, rdev) entries, as the kernel unpacks initramfs."""
    out = bytearray()

    def pad4() -> None:
        out.extend(b"\0" * (-len(out) % 4))

    for ino, (name, mode, data, rdev) in enumerate([*entries, ("TRAILER!!!", 0, b"", 0)], start=1):
        fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, os.major(rdev), os.minor(rdev), len(name) + 1, 0]
        out.extend(b"070701" + b"".join(f"{f:08x}".encode() for f in fields))
        out.extend(name.encode() + b"\0")
        pad4()
        out.extend(data)
        pad4()
    return bytes(out)

